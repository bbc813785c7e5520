//! One page's event stream: what it lacks first (the changes since its revisions, or the full
//! state), then every batch as it comes; a full resync when it falls behind.

use super::hub::{Batch, Hub};
use axum::body::{Body, Bytes};
use spate_planner_core::Revisions;
use std::sync::Arc;
use tokio::sync::{broadcast::error::RecvError, mpsc};

/// How many chunks may wait for a slow page before the broadcast queue takes over (and,
/// overflowing, turns into a resync).
const PENDING: usize = 4;

/// The response body of `GET /api/live`.
pub fn body(hub: Arc<Hub>, since: Option<Revisions>) -> Body {
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

#[cfg(test)]
mod tests {
    use super::*;
    use spate_planner_core::{Bucket, Entry, JobState, LiveChange, LiveOp, Side};

    fn hub() -> Arc<Hub> {
        let bucket = |name: &str| Bucket {
            name: name.into(),
            history: 1,
            max_age_ms: 0,
            revision: None,
            entries: Vec::new(),
        };
        let state = bucket("spate_coordination_j_state");
        let lease = bucket("spate_coordination_j_lease");
        Hub::new("j", "nats://h:1", JobState::new("j", state, lease).unwrap())
    }

    fn put(rev: u64) -> LiveChange {
        LiveChange {
            side: Side::State,
            op: LiveOp::Put(Entry {
                key: "plan".into(),
                revision: rev,
                created_ms: 0,
                value: b"{\"a\":\r\n1}".to_vec(),
            }),
        }
    }

    fn text(c: Option<Option<Bytes>>) -> String {
        String::from_utf8(c.flatten().map(|b| b.to_vec()).unwrap_or_default()).unwrap()
    }

    #[test]
    fn a_page_that_lags_gets_the_full_state_and_skips_what_it_holds() {
        let hub = hub();
        let mut rx = hub.subscribe();
        let (mut seq, _) = hub.initial(None);
        hub.publish(vec![put(1)]).unwrap();
        let batch = rx.try_recv().map_err(|_| RecvError::Closed);
        let first = text(chunk(&hub, batch.clone(), &mut seq));
        assert!(first.starts_with("event: change\nid: 1-0\n"), "{first}");
        assert!(!first.contains('\r'), "a CR in the stream: {first:?}");
        assert_eq!(
            chunk(&hub, batch, &mut seq).flatten(),
            None,
            "an old batch is skipped"
        );
        let full = text(chunk(&hub, Err(RecvError::Lagged(3)), &mut seq));
        assert!(full.starts_with("event: snapshot\nid: 1-0\ndata: {\n"), "{full}");
        assert!(!full.contains('\r'), "a CR in the stream: {full:?}");
        assert!(full.contains(r#""text":"{\"a\":\r\n1}""#), "{full}");
        assert!(chunk(&hub, Err(RecvError::Closed), &mut seq).is_none());
    }
}
