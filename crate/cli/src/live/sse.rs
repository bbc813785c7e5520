//! One page's event stream: what it lacks first (the changes since its revisions, or the full
//! state), then every batch as it comes; a full resync when it falls behind; and a `heartbeat`
//! event whenever nothing else was sent for the heartbeat's interval (`serve --heartbeat`, 15 s),
//! so that a proxy's read timeout (nginx: 60 s) never cuts an idle stream and the page can tell
//! a silent connection from a quiet job.
//!
//! Nothing is copied per page: every chunk is a batch's, the ring's or the state's shared
//! bytes, and a full state takes no permit (a slow page keeps no other page waiting). A page
//! that must be sent the full state again is told so first (a `status` event, `catching_up`),
//! then sent it and the status. A page that stops reading is closed by the connection's write
//! timeout (`crate::listen`).

use super::hub::{Batch, Hub};
use super::limits::{Busy, Limits};
use super::wire;
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

/// The response body of `GET /api/live`, or why it is refused (too many streams), with a heartbeat after each `every` without a chunk. The stream
/// holds its permits until the page goes away.
pub(crate) fn body(
    hub: Arc<Hub>,
    since: Option<Revisions>,
    limits: Arc<Limits>,
    every: Duration,
) -> Result<Body, Busy> {
    let permits = limits.stream(&hub.streams, &hub.job)?;
    let rx = hub.subscribe();
    let (seq, first) = hub.initial(since, &limits);
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

/// What a page that must resync is sent: that it is catching up, the full state (or the newest
/// kept and the changes since), then the status; the sequence updated.
fn resync(hub: &Hub, limits: &Limits, seq: &mut u64) -> Vec<Bytes> {
    let (s, pieces) = hub.initial(None, limits);
    *seq = s;
    let why = "this page fell behind the changes; sending the whole state again";
    [vec![wire::catching_up(why)], pieces].concat()
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
        let chunks = match step(batch, &mut seq) {
            Step::End => return,
            Step::Skip => continue,
            Step::Send(c) => vec![c],
            Step::Resync => resync(hub, limits, &mut seq),
        };
        for c in chunks {
            if tx.send(c).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::limits::OLDER_TEXTS;
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

    #[test]
    fn a_page_that_lags_is_told_it_catches_up_then_gets_the_full_state_and_the_status() {
        let hub = hub();
        let limits = Limits::new(1);
        let mut rx = hub.subscribe();
        let (mut seq, _) = hub.initial(None, &limits);
        hub.publish(vec![put(1)]).unwrap();
        let batch = rx.try_recv().map_err(|_| RecvError::Closed);
        let first = text(sent(step(batch.clone(), &mut seq)));
        assert!(first.starts_with("event: change\nid: 1-0\n"), "{first}");
        assert!(!first.contains('\r'), "a CR in the stream: {first:?}");
        assert_eq!(step(batch, &mut seq), Step::Skip, "an old batch is skipped");
        assert_eq!(step(Err(RecvError::Lagged(3)), &mut seq), Step::Resync);
        let sent: Vec<String> = resync(&hub, &limits, &mut seq)
            .into_iter()
            .map(|b| text(Some(b)))
            .collect();
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert!(
            sent[0].starts_with("event: status\ndata: {\"status\":\"catching_up\""),
            "{}",
            sent[0]
        );
        let full = &sent[1];
        assert!(full.starts_with("event: snapshot\nid: 1-0\ndata: {\n"), "{full}");
        assert!(!full.contains('\r'), "a CR in the stream: {full:?}");
        assert!(full.contains(r#""text":"{\"a\":\r\n1}""#), "{full}");
        assert_eq!(sent[2], "event: status\ndata: {\"status\":\"live\"}\n\n");
        assert_eq!(step(Err(RecvError::Closed), &mut seq), Step::End);
    }

    /// The text a page is sent as its full state (the first piece), whole.
    fn full_of(hub: &Hub, limits: &Limits) -> (Vec<Bytes>, String) {
        let (_, pieces) = hub.initial(None, limits);
        let whole = text(Some(pieces[0].clone()));
        (pieces, whole)
    }

    #[test]
    fn while_older_texts_are_read_a_page_gets_the_newest_kept_and_the_changes_since() {
        let hub = hub();
        let limits = Limits::new(4);
        // slow readers each holding a full state of another revision
        let mut held = Vec::new();
        for rev in 1..=OLDER_TEXTS as u64 + 1 {
            held.push(full_of(&hub, &limits).0);
            hub.publish(vec![put(rev)]).unwrap();
        }
        assert!(limits.crowded(), "{} older texts", limits.older());
        let (pieces, full) = full_of(&hub, &limits);
        let kept = OLDER_TEXTS as u64;
        assert!(
            full.starts_with(&format!("event: snapshot\nid: {kept}-0\n")),
            "{full}"
        );
        assert_eq!(pieces.len(), 3, "the kept state, the change since, the status");
        assert!(text(Some(pieces[1].clone())).starts_with(&format!("event: change\nid: {}-0\n", kept + 1)));
        assert_eq!(
            pieces[0].as_ptr(),
            held[kept as usize][0].as_ptr(),
            "the kept text, not a copy"
        );
        let zero = Revisions { state: 0, lease: 0 };
        let (_, resumed) = hub.initial(Some(zero), &limits);
        assert_eq!(resumed.len(), kept as usize + 2, "the changes and the status");
        // the readers done, a page gets the state now, built
        drop((held, pieces, resumed));
        assert!(!limits.crowded());
        let (_, full) = full_of(&hub, &limits);
        assert!(
            full.starts_with(&format!("event: snapshot\nid: {}-0\n", kept + 1)),
            "{full}"
        );
    }
}
