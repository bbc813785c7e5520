//! `GET /healthz`: whether `serve` can do its work, for a proxy's or an orchestrator's probe.
//! 200 with `{"ok":true,"jobs_followed":N,"nats_connected":true}` while the NATS connection is
//! up (`nats_connected` is null without `--server`), 503 with `"ok":false` while it is down
//! (the server keeps reconnecting; the pages it serves say so too) or while a recording it
//! writes (`--record`) has stopped (a write failed, its directory was removed): `reasons` says
//! why. It reads only what the server holds: a probe never reaches NATS.

use crate::live::http::Live;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The health document and its status.
pub(crate) fn healthz(live: Option<&Arc<Live>>) -> Response {
    let connected = live.map(|l| l.conn.events.borrow().connected);
    let jobs = live.map_or(0, |l| l.followed());
    let recordings = live.map(|l| l.recordings()).unwrap_or_default();
    let mut reasons: Vec<String> = Vec::new();
    if connected == Some(false) {
        reasons.push("the connection to NATS is lost (reconnecting)".into());
    }
    reasons.extend(recordings.iter().filter_map(|r| r.problem()));
    let ok = reasons.is_empty();
    let mut doc = serde_json::json!({
        "ok": ok,
        "jobs_followed": jobs,
        "nats_connected": connected,
    });
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
