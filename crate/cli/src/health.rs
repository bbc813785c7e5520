//! `GET /healthz`: whether `serve` can do its work, for a proxy's or an orchestrator's probe.
//! 200 with `{"ok":true,"jobs_followed":N,"nats_connected":true}` while the NATS connection is
//! up (`nats_connected` is null without `--server`), 503 with `"ok":false` while it is down
//! (the server keeps reconnecting; the pages it serves say so too) or while a recording it
//! writes (`--record`) has stopped (a write failed, its directory was removed): `reasons` says
//! why. It reads only what the server holds: a probe never reaches NATS.
//!
//! With `--server`, `jobs` lists every selected job the server knows (issue 34): whether it is
//! followed from the start, whether it is `ok`, and a `reason` when there is something to say
//! (not followed: past the cap; being read; reconnecting). A followed job whose state cannot be
//! read (its read failed, or a bucket was deleted and is not back) is not ok, and makes the
//! server not ready: what it was asked to follow, it cannot show. When the last listing of
//! the server's buckets failed, `listing_error` says why (the jobs followed stay followed).
//!
//! Each job held also says its status word, the store's revisions as last heard and when
//! (`store_revisions`, `heard_ms`); a job whose store has not been heard from for the bound
//! (`live/heard.rs`, `serve --stale-after`), or whose buckets were deleted, fails readiness
//! too, naming the job (issue 32).

use crate::live::http::Live;
use crate::live::wire::Status;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::sync::Arc;

/// One job's health: an entry of `jobs`.
#[derive(Serialize)]
pub(crate) struct JobHealth {
    pub job: String,
    /// Followed from the start (`serve --max-jobs` of the selected jobs).
    pub followed: bool,
    /// False when the server cannot show the job it follows (the server is then not ready).
    pub ok: bool,
    /// What there is to say about the job, if anything; several things joined by `; `.
    pub reason: Option<String>,
    /// The job's status word (`live`, `reconnecting`, `silent`, `error`), once it is held.
    pub status: Option<&'static str>,
    /// The store's revisions as last heard from it (`STATE-LEASE`), and when (ms since the epoch).
    pub store_revisions: Option<String>,
    pub heard_ms: Option<i64>,
}

impl JobHealth {
    /// Adds `why` to the job's reason.
    pub(crate) fn add_reason(&mut self, why: &str) {
        self.reason = Some(match self.reason.take() {
            Some(r) => format!("{r}; {why}"),
            None => why.to_string(),
        });
    }
}

/// Each selected job the server knows, with its health: what the roster says of it (followed,
/// past the cap), what was last heard from its store, and the status of the job held.
async fn jobs(live: &Live) -> Vec<JobHealth> {
    let (max, places): (usize, Vec<_>) = {
        let roster = live.roster();
        (roster.max(), roster.places().cloned().collect())
    };
    let mut out = Vec::with_capacity(places.len());
    for p in places {
        let unreadable = p.unreadable.is_some();
        let mut h = JobHealth::listed(p, max);
        let hub = live.held(&h.job).await;
        if let Some(hub) = &hub {
            heard(&mut h, hub, live.conn.stale_after);
        }
        held_status(&mut h, hub.map(|hub| hub.status()), unreadable);
        out.push(h);
    }
    out
}

impl JobHealth {
    /// A job as the roster lists it: followed or not, and why not; ok until something says otherwise.
    fn listed(p: crate::live::roster::Place, max: usize) -> Self {
        JobHealth {
            ok: true,
            followed: p.followed,
            reason: p.reason(max),
            job: p.job,
            status: None,
            store_revisions: None,
            heard_ms: None,
        }
    }
}

/// The status of the job held (`None`: not held, so not yet read or unreadable): a followed job
/// in error, or one not held while unreadable, is not ok.
fn held_status(h: &mut JobHealth, status: Option<Status>, unreadable: bool) {
    match status {
        Some(Status::Live | Status::Silent(_)) => {}
        Some(Status::Reconnecting(m)) => h.add_reason(&format!("reconnecting: {m}")),
        Some(Status::Error(m)) => {
            h.ok = h.ok && !h.followed;
            h.add_reason(&m);
        }
        None if h.followed && !unreadable => h.add_reason("being read"),
        None => h.ok = !h.followed,
    }
}

/// What was last heard from the store of a job held: a silent or deleted job is not ok.
fn heard(h: &mut JobHealth, hub: &crate::live::hub::Hub, bound: std::time::Duration) {
    let word = crate::live::heard::heard_of(hub, bound, crate::support::now_ms());
    (h.status, h.store_revisions, h.heard_ms) = (Some(word.status), word.store_revisions, word.heard_ms);
    if let Some(why) = word.unready {
        h.ok = false;
        h.add_reason(&why);
    }
}

/// The health document and its status.
pub(crate) async fn healthz(live: Option<Arc<Live>>) -> Response {
    let jobs = match &live {
        Some(l) => Some(jobs(l).await),
        None => None,
    };
    document(live.as_ref(), jobs)
}

fn document(live: Option<&Arc<Live>>, per_job: Option<Vec<JobHealth>>) -> Response {
    let connected = live.map(|l| l.conn.events.borrow().connected);
    let jobs = live.map_or(0, |l| l.followed());
    let recordings = live.map(|l| l.recordings()).unwrap_or_default();
    let mut reasons: Vec<String> = Vec::new();
    if connected == Some(false) {
        reasons.push("the connection to NATS is lost (reconnecting)".into());
    }
    reasons.extend(recordings.iter().filter_map(|r| r.problem()));
    for j in per_job.iter().flatten().filter(|j| !j.ok) {
        reasons.push(match &j.reason {
            Some(why) => format!("job {}: {why}", j.job),
            None => format!("job {} cannot be read", j.job),
        });
    }
    let ok = reasons.is_empty();
    let mut doc = serde_json::json!({
        "ok": ok,
        "jobs_followed": jobs,
        "nats_connected": connected,
    });
    if let Some(per_job) = &per_job {
        doc["jobs"] = serde_json::to_value(per_job).unwrap_or_default();
    }
    // the jobs followed stay followed: a listing that failed is said, not a reason to be unready
    if let Some(Some(Err(why))) = live.map(|l| l.roster().listed.clone()) {
        doc["listing_error"] = why.into();
    }
    if !recordings.is_empty() {
        doc["recordings"] = recordings
            .iter()
            .map(|r| {
                serde_json::json!({
                    "job": r.job, "dir": r.dir, "ok": r.problem().is_none(), "bytes": r.bytes(),
                })
            })
            .collect();
    }
    if !ok {
        doc["reasons"] = reasons.into();
    }
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, no-store"),
        ],
        doc.to_string(),
    )
        .into_response()
}
