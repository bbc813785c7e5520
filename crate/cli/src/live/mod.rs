//! Live mode (issue 9): `serve --server` follows jobs on NATS and streams them to the page;
//! `watch` (`commands/watch.rs`, on this folder's hub) prints the plan's figures as the job
//! changes. docs/live-protocol.md describes the wire format.

pub(crate) mod discover;
pub(crate) mod figures;
pub(crate) mod follow;
pub(crate) mod heard;
pub(crate) mod http;
pub(crate) mod hub;
pub(crate) mod jobs;
pub(crate) mod limits;
pub(crate) mod record;
pub(crate) mod ring;
pub(crate) mod roster;
pub(crate) mod sse;
pub(crate) mod stats;
pub(crate) mod wire;

use crate::nats::{self, Target};
use follow::{Conn, ConnState};
use std::time::Duration;

/// Connects for following: connection events feed [`ConnState`], reconnects are tried quickly
/// and for ever, and the server must answer JetStream requests.
pub(crate) async fn connect(target: &Target, timeout: Duration, name: &str) -> Result<Conn, String> {
    let (tx, events) = tokio::sync::watch::channel(ConnState {
        connected: true,
        disconnects: 0,
    });
    let basics = nats::basics(timeout, name);
    let client = target
        .connect(move |o| {
            basics(o)
                .max_reconnects(None)
                .reconnect_delay_callback(|n| Duration::from_millis((n as u64 * 250).clamp(100, 2000)))
                .event_callback(move |ev| {
                    let tx = tx.clone();
                    async move { on_event(&tx, ev) }
                })
        })
        .await?;
    let js = async_nats::jetstream::new(client.clone());
    let server = target.public();
    nats::check_jetstream(&js, &server).await?;
    Ok(Conn {
        client,
        js,
        server,
        events,
        idle: timeout,
        stale_after: heard::STALE_AFTER,
    })
}

fn on_event(tx: &tokio::sync::watch::Sender<ConnState>, ev: async_nats::Event) {
    match ev {
        async_nats::Event::Connected => tx.send_modify(|s| s.connected = true),
        async_nats::Event::Disconnected => tx.send_modify(|s| {
            s.connected = false;
            s.disconnects += 1;
        }),
        _ => {}
    }
}
