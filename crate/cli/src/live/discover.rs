//! Finding the jobs to follow (issue 34): the server's buckets are listed at start, every
//! `--jobs-interval` seconds, and at once when a Spate bucket is created or deleted (the
//! server's stream advisories: only a cue to list, never believed on their own). Each listing
//! places the selected jobs in the [`Roster`] (followed up to `--max-jobs`), starts following
//! those that are not held yet (again after a read that failed) and drops those whose buckets
//! are gone. `/api/jobs` is the listing with what the server holds of each job.

use super::http::Live;
use super::jobs::{self, Job};
use super::roster::{Found, Roster};
use super::wire::status_word;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;

/// A Spate bucket created or deleted: the listing comes this long after the cue, so that a
/// job's two buckets, created one after the other, are listed together.
const SETTLE: Duration = Duration::from_millis(250);

/// Lists and follows for as long as the server runs.
pub(crate) async fn run(live: Arc<Live>, every: Duration) {
    let mut cues = match cues(&live).await {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!(
                "live: {e}; jobs are found by listing every {} s only",
                every.as_secs()
            );
            None
        }
    };
    loop {
        once(&live).await;
        let cue = async {
            match cues.as_mut() {
                Some(s) => s.next().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            Some(_) = cue => tokio::time::sleep(SETTLE).await,
        }
    }
}

/// The server's stream advisories about Spate buckets (created, deleted).
async fn cues(live: &Live) -> Result<impl futures_util::Stream<Item = ()>, String> {
    let sub = live
        .conn
        .client
        .subscribe("$JS.EVENT.ADVISORY.STREAM.*.*")
        .await
        .map_err(|e| format!("cannot follow the server's stream advisories: {e}"))?;
    Ok(sub.filter_map(|m| {
        let spate = m.subject.as_str().rsplit('.').next().is_some_and(|s| {
            s.starts_with("KV_spate_coordination_") && (s.ends_with("_state") || s.ends_with("_lease"))
        });
        let kind = m.subject.as_str().split('.').nth(4).unwrap_or_default();
        std::future::ready((spate && (kind == "CREATED" || kind == "DELETED")).then_some(()))
    }))
}

/// One listing: the roster placed, the jobs to drop dropped and every followed job read that
/// is not held yet. A listing that fails keeps what is followed.
pub(crate) async fn once(live: &Live) {
    let listed = tokio::time::timeout(live.conn.idle, jobs::list(&live.conn.js)).await;
    let list = match listed {
        Ok(Ok(list)) => list,
        Ok(Err(e)) => return live.roster().failed(e),
        Err(_) => {
            return live
                .roster()
                .failed("cannot list the server's buckets: timed out".into())
        }
    };
    // a job whose lease bucket is not there (yet) cannot be read: it waits for the next listing
    let complete: Vec<Found> = list
        .into_iter()
        .filter(|j| j.lease.is_some())
        .map(|j| Found {
            job: j.job,
            last_write_ms: j.last_write_ms,
        })
        .collect();
    let changes = live.roster().listed(&complete, crate::support::now_ms());
    for job in &changes.drop {
        live.drop_job(job).await;
    }
    let followed: Vec<String> = live
        .roster()
        .places()
        .filter(|p| p.followed)
        .map(|p| p.job.clone())
        .collect();
    for job in followed {
        if live.holds(&job).await {
            continue;
        }
        let read = live.hub(&job).await.map(|_| ()).map_err(|r| r.message());
        live.roster().read(&job, read);
    }
}

/// `GET /api/jobs`: the server's Spate jobs (those selected), with their buckets' entry
/// counts and bytes, and what the server holds of each.
pub(crate) async fn jobs_route(live: Arc<Live>) -> Response {
    let (status, body) = match jobs::list(&live.conn.js).await {
        Ok(list) => (StatusCode::OK, jobs_document(&live, list).await),
        Err(e) => (StatusCode::BAD_GATEWAY, serde_json::json!({ "error": e })),
    };
    let headers = [
        (header::CONTENT_TYPE, "application/json"),
        (header::CACHE_CONTROL, "no-cache, no-store"),
    ];
    (status, headers, body.to_string()).into_response()
}

/// A job of `/api/jobs`: the listing's, with what the server holds of it.
#[derive(Serialize)]
pub(crate) struct Listed {
    #[serde(flatten)]
    pub job: Job,
    /// Followed from the start (`--max-jobs` of the selected ones).
    pub followed: bool,
    /// Why it is not followed, or why it cannot be read; `null` otherwise.
    pub reason: Option<String>,
    /// Following's status (`live`, `reconnecting`, `error`) when its state is held (followed
    /// from the start, or opened by a page), else `null`; likewise the counts below.
    pub status: Option<&'static str>,
    /// Presence keys (`worker.*`) of the state held.
    pub members: Option<usize>,
    /// Progress records (`split.*`) of the state held.
    pub splits: Option<usize>,
    /// Splits at risk of quarantine by the last plan of the job (made for `/metrics`), `null`
    /// before one.
    pub at_risk: Option<u32>,
}

/// `/api/jobs`' document: the jobs listed now (the selected ones), each with its place, and
/// the cap.
pub(crate) async fn jobs_document(live: &Live, list: Vec<Job>) -> serde_json::Value {
    let (max, places): (usize, Vec<_>) = {
        let roster = live.roster();
        let places = list.iter().map(|j| place_of(&roster, j)).collect();
        (roster.max(), places)
    };
    let mut jobs = Vec::new();
    for (job, (selected, followed, reason)) in list.into_iter().zip(places) {
        if !selected {
            continue;
        }
        let hub = live.held(&job.job).await;
        let counts = hub.as_ref().map(|h| h.counts());
        jobs.push(Listed {
            followed,
            reason,
            status: hub.as_ref().map(|h| status_word(&h.status())),
            members: counts.map(|c| c.0),
            splits: counts.map(|c| c.1),
            at_risk: hub.as_ref().and_then(|h| h.stats.at_risk()),
            job,
        });
    }
    let followed = jobs.iter().filter(|j| j.followed).count();
    serde_json::json!({ "job": live.only(), "max_jobs": max, "followed": followed, "jobs": jobs })
}

/// (selected, followed from the start, why not or why it cannot be read) of `job`.
fn place_of(roster: &Roster, job: &Job) -> (bool, bool, Option<String>) {
    if !roster.selection().matches(&job.job) {
        return (false, false, None);
    }
    match roster.place(&job.job) {
        Some(p) => (true, p.followed, p.reason(roster.max())),
        None if job.lease.is_none() => (
            true,
            false,
            Some(format!(
                "not followed: its lease bucket spate_coordination_{}_lease is not on the server",
                job.job
            )),
        ),
        // listed since the roster's last listing: placed at the next one
        None => (
            true,
            false,
            Some("not followed yet: found since the last listing".into()),
        ),
    }
}
