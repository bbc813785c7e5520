//! `GET /healthz`: whether `serve` can do its work, for a proxy's or an orchestrator's probe.
//! 200 with `{"ok":true,"jobs_followed":N,"nats_connected":true}` while the NATS connection is
//! up (`nats_connected` is null without `--server`), 503 with `"ok":false` while it is down
//! (the server keeps reconnecting; the pages it serves say so too). It reads only what the
//! server holds: a probe never reaches NATS.

use crate::live::http::Live;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The health document and its status.
pub fn healthz(live: Option<&Arc<Live>>) -> Response {
    let connected = live.map(|l| l.conn.events.borrow().connected);
    let jobs = live.map_or(0, |l| l.followed());
    let ok = connected != Some(false);
    let doc = serde_json::json!({
        "ok": ok,
        "jobs_followed": jobs,
        "nats_connected": connected,
    });
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
