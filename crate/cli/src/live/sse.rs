//! One page's event stream: what it lacks first (the changes since its revisions, or the full
//! state), then every batch as it comes; a full resync when it falls behind.

use super::hub::{Batch, Hub};
use super::state::Pair;
use axum::body::{Body, Bytes};
use std::sync::Arc;
use tokio::sync::{broadcast::error::RecvError, mpsc};

/// How many chunks may wait for a slow page before the broadcast queue takes over (and,
/// overflowing, turns into a resync).
const PENDING: usize = 4;

/// The response body of `GET /api/live`.
pub fn body(hub: Arc<Hub>, since: Option<Pair>) -> Body {
    let rx = hub.subscribe();
    let (seq, first) = hub.initial(since);
    let (tx, out) = mpsc::channel::<Bytes>(PENDING);
    tokio::spawn(pump(hub, rx, seq, first, tx));
    Body::from_stream(futures_util::stream::unfold(out, |mut out| async move {
        out.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), out))
    }))
}

/// The next chunk to send for `batch`, given the sequence the page stands at (updated).
fn chunk(hub: &Hub, batch: Result<Arc<Batch>, RecvError>, seq: &mut u64) -> Option<Option<Bytes>> {
    let resync = |seq: &mut u64| {
        let (s, text) = hub.full();
        *seq = s;
        Some(Some(text))
    };
    match batch {
        Ok(b) => match &*b {
            Batch::Events { seq: s, text, .. } if *s > *seq => {
                *seq = *s;
                Some(Some(text.clone()))
            }
            Batch::Resync { seq: s } if *s > *seq => resync(seq),
            Batch::Events { .. } | Batch::Resync { .. } => Some(None),
            Batch::Status { text, .. } => Some(Some(text.clone())),
        },
        Err(RecvError::Lagged(_)) => resync(seq),
        Err(RecvError::Closed) => None,
    }
}

async fn pump(
    hub: Arc<Hub>,
    mut rx: tokio::sync::broadcast::Receiver<Arc<Batch>>,
    mut seq: u64,
    first: Vec<Bytes>,
    tx: mpsc::Sender<Bytes>,
) {
    for c in first {
        if tx.send(c).await.is_err() {
            return;
        }
    }
    loop {
        let batch = tokio::select! {
            b = rx.recv() => b,
            _ = tx.closed() => return,
        };
        match chunk(&hub, batch, &mut seq) {
            None => return,
            Some(None) => continue,
            Some(Some(c)) => {
                if tx.send(c).await.is_err() {
                    return;
                }
            }
        }
    }
}
