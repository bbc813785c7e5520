//! One page's event stream: what it lacks first (the changes since its revisions, or the full
//! state), then every batch as it comes; a full resync when it falls behind; and a `heartbeat`
//! event whenever nothing else was sent for the heartbeat's interval (`serve --heartbeat`, 15 s),
//! so that a proxy's read timeout (nginx: 60 s) never cuts an idle stream and the page can tell
//! a silent connection from a quiet job.
//!
//! Nothing is copied per page: every chunk is a batch's, the ring's or the state's shared
//! bytes. A full state is sent under a permit of [`Limits`] (held until it is written); a page
//! that stops reading is closed by the connection's write timeout (`crate::listen`).

use super::hub::{Batch, Hub};
use super::limits::{self, Busy, Limits};
use axum::body::{Body, Bytes};
use spate_planner_core::Revisions;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast::error::RecvError, mpsc};

/// How many chunks may wait for a slow page before the broadcast queue takes over (and,
/// overflowing, turns into a resync).
const PENDING: usize = 4;

/// The heartbeat event: no id (a page resumes from the last change, not from a heartbeat), its
/// data the interval, so that the page knows how long a silence may last.
fn heartbeat(every: Duration) -> Bytes {
    Bytes::from(format!(
        "event: heartbeat\ndata: {{\"interval_ms\":{}}}\n\n",
        every.as_millis()
    ))
}

/// The response body of `GET /api/live`, or why it is refused (too many streams, or too many
/// full states being sent), with a heartbeat after each `every` without a chunk. The stream
/// holds its permits until the page goes away.
pub(crate) fn body(
    hub: Arc<Hub>,
    since: Option<Revisions>,
    limits: Arc<Limits>,
    every: Duration,
) -> Result<Body, Busy> {
    let permits = limits.stream(&hub.streams, &hub.job)?;
    let rx = hub.subscribe();
    let (seq, first) = hub.initial(since, || limits.heavy())?;
    let (tx, out) = mpsc::channel::<Bytes>(PENDING);
    tokio::spawn(async move {
        let _permits = permits;
        let beat = heartbeat(every);
        pump(&hub, &limits, rx, seq, first, (tx, &beat, every)).await
    });
    Ok(Body::from_stream(futures_util::stream::unfold(
        out,
        |mut out| async move {
            out.recv()
                .await
                .map(|b| (Ok::<_, std::convert::Infallible>(b), out))
        },
    )))
}

/// What to do with a batch, given the sequence the page stands at.
#[derive(Debug, PartialEq)]
enum Step {
    Send(Bytes),
    /// The page holds it already.
    Skip,
    /// The page needs the full state.
    Resync,
    End,
}

fn step(batch: Result<Arc<Batch>, RecvError>, seq: &mut u64) -> Step {
    match batch {
        Ok(b) => match &*b {
            Batch::Events { seq: s, text, .. } if *s > *seq => {
                *seq = *s;
                Step::Send(text.clone())
            }
            Batch::Resync { seq: s } if *s > *seq => Step::Resync,
            Batch::Events { .. } | Batch::Resync { .. } => Step::Skip,
            Batch::Status { text, .. } => Step::Send(text.clone()),
        },
        Err(RecvError::Lagged(_)) => Step::Resync,
        Err(RecvError::Closed) => Step::End,
    }
}

/// The full state for a page that must resync, once a permit is free; the sequence updated.
async fn resync(hub: &Hub, limits: &Limits, seq: &mut u64) -> Option<Bytes> {
    let permit = limits.heavy_wait().await?;
    let (s, text) = hub.full();
    *seq = s;
    Some(limits::held(text, &permit))
}

async fn pump(
    hub: &Hub,
    limits: &Limits,
    mut rx: tokio::sync::broadcast::Receiver<Arc<Batch>>,
    mut seq: u64,
    first: Vec<Bytes>,
    (tx, beat, every): (mpsc::Sender<Bytes>, &Bytes, Duration),
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
            () = tokio::time::sleep(every) => {
                // chunks still waiting for the page keep the connection busy: no heartbeat needed
                if let Err(mpsc::error::TrySendError::Closed(_)) = tx.try_send(beat.clone()) {
                    return;
                }
                continue;
            }
        };
        let chunk = match step(batch, &mut seq) {
            Step::End => return,
            Step::Skip => continue,
            Step::Send(c) => Some(c),
            Step::Resync => tokio::select! {
                c = resync(hub, limits, &mut seq) => c,
                _ = tx.closed() => return,
            },
        };
        let Some(c) = chunk else { return };
        if tx.send(c).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spate_planner_core::{live::LiveOp, Bucket, Entry, JobState, LiveChange, Side};

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

    fn text(c: Option<Bytes>) -> String {
        String::from_utf8(c.map(|b| b.to_vec()).unwrap_or_default()).unwrap()
    }

    fn sent(s: Step) -> Option<Bytes> {
        match s {
            Step::Send(b) => Some(b),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_page_that_lags_gets_the_full_state_and_skips_what_it_holds() {
        let hub = hub();
        let limits = Limits::new(1, 1);
        let mut rx = hub.subscribe();
        let (mut seq, _) = hub.initial(None, || limits.heavy()).unwrap();
        hub.publish(vec![put(1)]).unwrap();
        let batch = rx.try_recv().map_err(|_| RecvError::Closed);
        let first = text(sent(step(batch.clone(), &mut seq)));
        assert!(first.starts_with("event: change\nid: 1-0\n"), "{first}");
        assert!(!first.contains('\r'), "a CR in the stream: {first:?}");
        assert_eq!(step(batch, &mut seq), Step::Skip, "an old batch is skipped");
        assert_eq!(step(Err(RecvError::Lagged(3)), &mut seq), Step::Resync);
        let full = text(resync(&hub, &limits, &mut seq).await);
        assert!(full.starts_with("event: snapshot\nid: 1-0\ndata: {\n"), "{full}");
        assert!(!full.contains('\r'), "a CR in the stream: {full:?}");
        assert!(full.contains(r#""text":"{\"a\":\r\n1}""#), "{full}");
        assert_eq!(step(Err(RecvError::Closed), &mut seq), Step::End);
    }

    #[test]
    fn resuming_shares_the_events_and_a_full_state_needs_a_permit() {
        let hub = hub();
        let limits = Limits::new(1, 4);
        let mut rx = hub.subscribe();
        let (_, first) = hub.initial(None, || limits.heavy()).unwrap();
        assert!(limits.heavy().is_err(), "the full state sent holds the permit");
        let refused = hub.initial(None, || limits.heavy());
        assert!(refused.is_err(), "a second full state at once is refused");
        drop(first);
        hub.publish(vec![put(1)]).unwrap();
        let Ok(batch) = rx.try_recv() else {
            panic!("no batch")
        };
        let Batch::Events { text, .. } = &*batch else {
            panic!("not events")
        };
        let zero = Revisions { state: 0, lease: 0 };
        let (_, resumed) = hub.initial(Some(zero), || panic!("no full state")).unwrap();
        assert_eq!(resumed.len(), 2, "the change and the status");
        assert_eq!(resumed[0], text, "the change as sent");
        assert_eq!(
            resumed[0].as_ptr(),
            text.as_ptr(),
            "the batch's own bytes, not a copy"
        );
    }
}
