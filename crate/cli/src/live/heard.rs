//! Whether the store is heard from: a followed job's NATS connection may be "up" while the
//! server behind it says nothing (a partition, a stopped process), and a watch then delivers
//! nothing, which looks like a quiet job. So the follower asks the store a cheap question (the
//! stream info of both buckets) every third of the bound (`serve --stale-after`, 15 s), with
//! that as its timeout; a change applied counts as an answer too. A job not heard from for the
//! bound is said so: its status becomes `silent` (the pages are told, the API refuses to plan
//! it), `/healthz` fails with the job's reason, and `/api/snapshot` marks its answer. What was
//! last heard (the store's revisions and when) is in every `/api/snapshot` answer's headers.

use super::follow::Conn;
use super::hub::Hub;
use super::wire::Status;
use crate::store::{self, Fresh};
use axum::http::{HeaderMap, HeaderValue};
use spate_planner_core::{snapshot::bucket_names, utc::utc_text, Revisions};
use std::sync::Arc;
use std::time::Duration;

/// The bound by default: a job not heard from for this long is silent.
pub(crate) const STALE_AFTER: Duration = Duration::from_secs(15);

/// How often the store is asked (and how long an answer is awaited): a third of the bound.
fn every(bound: Duration) -> Duration {
    (bound / 3).max(Duration::from_millis(100))
}

/// Asks the store for both buckets' last revisions, until `hub`'s task is aborted.
pub(crate) async fn probe(hub: Arc<Hub>, conn: Conn) {
    let ask = every(conn.stale_after);
    loop {
        tokio::time::sleep(ask).await;
        let answer = tokio::time::timeout(ask, revisions(&conn, &hub.job)).await;
        let now = crate::support::now_ms();
        match answer {
            Ok(Ok(store)) => hub.answered(store, now),
            Ok(Err(why)) => note_silence(&hub, &conn, now, &why),
            Err(_) => note_silence(&hub, &conn, now, &format!("no answer within {ask:?}")),
        }
    }
}

/// The store's last revision of each bucket (0 for a bucket not there: the store answered).
async fn revisions(conn: &Conn, job: &str) -> Result<Revisions, String> {
    let (s, l) = bucket_names(job);
    let (a, b) = tokio::join!(store::fresh_info(&conn.js, &s), store::fresh_info(&conn.js, &l));
    let last = |f: Fresh, name: &str| match f {
        Fresh::Stream(now) => Ok(now.last_sequence),
        Fresh::NotFound => Ok(0),
        Fresh::TimedOut => Err(format!("the stream info of bucket {name} timed out")),
        Fresh::Failed(e) => Err(format!("the stream info of bucket {name} failed: {e}")),
    };
    Ok(Revisions {
        state: last(a, &s)?,
        lease: last(b, &l)?,
    })
}

/// No answer now: once the job has not been heard from for the bound, it is silent.
fn note_silence(hub: &Hub, conn: &Conn, now_ms: i64, why: &str) {
    if let Some(reason) = silence(hub.heard(), now_ms, conn.stale_after) {
        hub.unheard(format!("{reason}; {why}"));
    }
}

/// Why the store counts as silent at `now_ms`, given what was last heard, or `None`.
pub(crate) fn silence(heard: Option<(Revisions, i64)>, now_ms: i64, bound: Duration) -> Option<String> {
    let (pair, at) = heard?;
    let quiet = now_ms.saturating_sub(at);
    (quiet > bound.as_millis() as i64).then(|| {
        format!(
            "the store has not been heard from for {} s (bound {} s); last confirmed at revisions {pair}, {}",
            quiet / 1000,
            bound.as_secs(),
            utc_text(at)
        )
    })
}

/// What `/api/snapshot` says of the store beside the state: `X-Spate-Store-Revisions` and
/// `X-Spate-Store-Heard-Ms` (its revisions as last heard from it, and when), and, when the
/// state held may not be the store's now, `X-Spate-Not-Current` with why.
pub(crate) fn mark(hub: &Hub, headers: &mut HeaderMap) {
    if let Some((pair, at)) = hub.heard() {
        if let Ok(v) = HeaderValue::from_str(&pair.to_string()) {
            headers.insert("x-spate-store-revisions", v);
        }
        headers.insert("x-spate-store-heard-ms", HeaderValue::from(at));
    }
    let why = match hub.status() {
        Status::Live => return,
        Status::Reconnecting(m) | Status::Error(m) | Status::Silent(m) => m,
    };
    let printable: String = why
        .chars()
        .map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' })
        .collect();
    if let Ok(v) = HeaderValue::from_str(&printable) {
        headers.insert("x-spate-not-current", v);
    }
}

/// `/healthz`'s word on a followed job: its status word, the store's revisions as last heard
/// and when, and why it makes the server not ready (silent past the bound, or deleted), if so.
pub(crate) struct HeardOf {
    pub status: &'static str,
    pub store_revisions: Option<String>,
    pub heard_ms: Option<i64>,
    pub unready: Option<String>,
}

/// What `/healthz` says of `h` at `now_ms`.
pub(crate) fn heard_of(h: &Hub, bound: Duration, now_ms: i64) -> HeardOf {
    let heard = h.heard();
    let status = h.status();
    let silent = silence(heard, now_ms, bound);
    let unready = match (&silent, &status) {
        (Some(why), _) => Some(why.clone()),
        (None, Status::Silent(m)) => Some(m.clone()),
        _ => None,
    };
    HeardOf {
        status: if silent.is_some() {
            "silent"
        } else {
            super::wire::status_word(&status)
        },
        store_revisions: heard.map(|(p, _)| p.to_string()),
        heard_ms: heard.map(|(_, at)| at),
        unready,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_only_past_the_bound_and_saying_what_was_last_confirmed() {
        let pair = Revisions {
            state: 4000,
            lease: 17,
        };
        let bound = Duration::from_secs(15);
        assert_eq!(silence(None, 1_000_000, bound), None, "nothing read yet");
        assert_eq!(silence(Some((pair, 1_000_000)), 1_015_000, bound), None);
        let why = silence(Some((pair, 1_000_000)), 1_016_000, bound).unwrap();
        assert!(why.contains("for 16 s (bound 15 s)"), "{why}");
        assert!(why.contains("revisions 4000-17, 1970-01-01 00:16:40"), "{why}");
    }
}
