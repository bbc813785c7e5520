//! `serve`'s connections: HTTP/1.1 with two timeouts, so that no client holds a connection, or
//! the memory behind it, for ever, and a cap on connections open at once (docs/live-protocol.md,
//! "Limits").
//!
//! - **Headers:** a request's headers must arrive whole within [`Timeouts::header_read`]
//!   (`--header-timeout`, 10 s) of the connection's opening or of the end of the previous
//!   response on it. That one timer closes slowloris connections (headers never finished) and
//!   idle keep-alive connections alike.
//! - **Writes:** a write that stays blocked (the client's socket buffer full, the client not
//!   reading) for [`Timeouts::write_stall`] (`--write-timeout`, 30 s) closes the connection. This
//!   is the policy for slow readers: a page that falls behind the live stream is resynced
//!   (`live/sse.rs`), one that stops reading is dropped, and what it held (its share of a
//!   snapshot's text) is freed.
//! - **Connections:** at most [`Timeouts::connections`] (`--max-connections`, 512) are served at
//!   once; the next waits in the system's queue until one closes. So no client, opening
//!   connection after connection, takes the file descriptors the server needs for NATS, the
//!   recording and the files it serves. One client address may hold at most
//!   [`Timeouts::per_client`] of them (`--max-connections-per-client`, a quarter by default): its
//!   next connection is answered `503` with `Retry-After` and closed at once, so that one client
//!   reopening idle connections as they close cannot make every other wait.

use axum::serve::Listener;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio_io_timeout::TimeoutStream;

/// How long a connection may keep the server waiting, and how many are served at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timeouts {
    /// For a request's headers to arrive whole.
    pub header_read: Duration,
    /// For a blocked write to make progress.
    pub write_stall: Duration,
    /// Connections served at once.
    pub connections: usize,
    /// Of those, at most this many from one client address.
    pub per_client: usize,
}

/// The connections open per client address.
#[derive(Default)]
struct PerClient(std::sync::Mutex<std::collections::HashMap<IpAddr, usize>>);

/// A client's place among the connections, given back when dropped.
struct Place {
    clients: Arc<PerClient>,
    ip: IpAddr,
}

impl PerClient {
    /// A place for one more connection from `ip`, or `None` when it holds `share` already.
    fn take(self: &Arc<Self>, ip: IpAddr, share: usize) -> Option<Place> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_default();
        if *n >= share {
            return None;
        }
        *n += 1;
        Some(Place {
            clients: self.clone(),
            ip,
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self.clients.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Answers a connection past its client's share with 503 and closes it: what the request sent
/// is read (for at most a second) after the answer, so that the close does not reset the
/// connection before the client reads the answer.
async fn refuse(mut tcp: tokio::net::TcpStream, share: usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let wait = Duration::from_secs(1);
    let answer = over_share(share);
    if tokio::time::timeout(wait, tcp.write_all(answer.as_bytes()))
        .await
        .is_err()
    {
        return;
    }
    let _ = tcp.shutdown().await;
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(wait, async {
        while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {}
    })
    .await;
}

/// The answer to a connection past its client's share.
fn over_share(share: usize) -> String {
    let body = format!(
        "{{\"error\":\"this client holds {share} connections already (its share of the server's); close one, or try again in 2 s\"}}"
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 2\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Listens on `ip`:`port` (`port` 0 picks a free one). Beyond loopback, says on standard error
/// that nothing here authenticates a client: the server belongs behind the team's proxy.
pub(crate) async fn bind(ip: IpAddr, port: u16) -> Result<(tokio::net::TcpListener, SocketAddr), String> {
    let addr = SocketAddr::new(ip, port);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        format!("cannot listen on {addr}: {e} (choose another address with --bind or port with --port)")
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    if !ip.is_loopback() {
        eprintln!(
            "spate-planner serve: warning: listening on {bound}, beyond this machine. This server has no \
             authentication: anyone who reaches it reads every job it follows. Put it behind your team's \
             reverse proxy (with its sign-in), and name the proxy's host with --allow-host."
        );
    }
    Ok((listener, bound))
}

/// Serves `app` on every connection `listener` accepts, until the process ends.
pub(crate) async fn serve(mut listener: tokio::net::TcpListener, app: axum::Router, limits: Timeouts) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    let open = Arc::new(tokio::sync::Semaphore::new(limits.connections));
    let clients = Arc::new(PerClient::default());
    loop {
        // At the cap, the next connection waits in the system's queue until one here closes.
        let Ok(permit) = open.clone().acquire_owned().await else {
            return;
        };
        // Accept errors (too many open files, ...) are waited out by axum's listener.
        let (tcp, peer) = Listener::accept(&mut listener).await;
        let Some(place) = clients.take(peer.ip(), limits.per_client) else {
            drop(permit);
            tokio::spawn(refuse(tcp, limits.per_client));
            continue;
        };
        let mut io = TimeoutStream::new(tcp);
        io.set_write_timeout(Some(limits.write_stall));
        let conn = http.serve_connection(TokioIo::new(Box::pin(io)), TowerToHyperService::new(app.clone()));
        tokio::spawn(async move {
            // A connection's end (closed, timed out, broken) concerns only that client.
            let _ = conn.await;
            // the client's place first: the next connection accepted may be its own
            drop(place);
            drop(permit);
        });
    }
}
