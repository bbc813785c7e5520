//! The HTTP API for automation (issue 34), under `/api/v1` on `serve`'s server: the plan and the
//! claims of a posted snapshot (`POST /api/v1/plan`, `POST /api/v1/claims`) or of a followed
//! job's state (`GET /api/v1/jobs/{job}/plan`, `…/claims`, with `serve --server`), with a
//! what-if scenario and the CLI's options; each answer is, to the byte, what `plan --json` or
//! `claims --json` prints for the same input. `GET /api/v1/openapi.json` describes it
//! (`docs/openapi.json`; docs/api.md). Every error is one JSON document with a code
//! (`error.rs`). Read-only like the rest of the server: nothing here writes to NATS.
//!
//! Limits: a body of at most `--api-max-body` bytes (64 MiB unless told), and at most
//! [`WORK`] requests read and planned at once (more are 503 with `Retry-After`), so that the
//! bodies held and the planning threads stay bounded whatever the clients send.

mod error;
mod planner;
mod request;

use crate::live::http::Live;
use crate::live::wire::Status;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use error::{codes, Problem};
use request::Doc;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The OpenAPI 3.1 document, as kept in the repository.
pub(crate) const OPENAPI: &str = include_str!("../../../../docs/openapi.json");

/// Requests being read or planned at once (planning is CPU work, off the async threads).
pub(crate) const WORK: usize = 2;

/// `--api-max-body`'s default: 64 MiB (a 100,000-split snapshot is about 57 MiB).
pub(crate) const DEFAULT_MAX_BODY: usize = 64 << 20;

/// `--api-max-body`'s ceiling: the command line's own limits, a snapshot and a scenario (with
/// room for the request object around them).
pub(crate) const MAX_BODY: u64 = (spate_planner_core::MAX_SNAPSHOT_BYTES
    + spate_planner_core::scenario::MAX_SCENARIO_BYTES) as u64
    + 65536;

/// The API's state: the live side (with `--server`), the body limit, the work permits and the
/// OpenAPI document as served.
pub(crate) struct Api {
    live: Option<Arc<Live>>,
    max_body: usize,
    work: Arc<Semaphore>,
    openapi: Bytes,
}

impl Api {
    /// `base`: the `--base-path` prefix (`` or `/planner`), written into the served document's
    /// server URL so that a client resolves the routes under it.
    pub(crate) fn new(live: Option<Arc<Live>>, max_body: usize, base: &str) -> Api {
        Api {
            live,
            max_body,
            work: Arc::new(Semaphore::new(WORK)),
            openapi: Bytes::from(openapi_under(base)),
        }
    }

    fn permit(&self) -> Result<OwnedSemaphorePermit, Problem> {
        self.work.clone().try_acquire_owned().map_err(|_| {
            Problem::unavailable(
                codes::BUSY,
                format!(
                    "{WORK} API requests are being planned; try again in {} s",
                    crate::live::limits::RETRY_AFTER_S
                ),
            )
        })
    }
}

/// The OpenAPI document with its server URL under `base`.
fn openapi_under(base: &str) -> String {
    if base.is_empty() {
        return OPENAPI.to_string();
    }
    let mut doc: serde_json::Value = match serde_json::from_str(OPENAPI) {
        Ok(v) => v,
        Err(_) => return OPENAPI.to_string(),
    };
    doc["servers"] = serde_json::json!([{ "url": format!("{base}/api/v1") }]);
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| OPENAPI.to_string())
}

/// The API's routes, at the root (the base path is added around the whole router).
pub(crate) fn routes(api: Arc<Api>) -> axum::Router {
    use axum::routing::any;
    let (a1, a2, a3, a4, a5) = (api.clone(), api.clone(), api.clone(), api.clone(), api);
    axum::Router::new()
        .route(
            "/api/v1/openapi.json",
            any(move |method: Method| std::future::ready(openapi(&a1, &method))),
        )
        .route(
            "/api/v1/plan",
            any(move |method: Method, headers: HeaderMap, body: Body| {
                posted(a2.clone(), method, headers, body, Doc::Plan)
            }),
        )
        .route(
            "/api/v1/claims",
            any(move |method: Method, headers: HeaderMap, body: Body| {
                posted(a3.clone(), method, headers, body, Doc::Claims)
            }),
        )
        .route(
            "/api/v1/jobs/{job}/plan",
            any(move |method: Method, job: JobPath, uri: Uri| {
                followed(a4.clone(), method, job, uri, Doc::Plan)
            }),
        )
        .route(
            "/api/v1/jobs/{job}/claims",
            any(move |method: Method, job: JobPath, uri: Uri| {
                followed(a5.clone(), method, job, uri, Doc::Claims)
            }),
        )
        .route("/api/v1", any(not_found))
        .route("/api/v1/", any(not_found))
        .route("/api/v1/{*rest}", any(not_found))
}

async fn not_found(uri: Uri) -> Response {
    Problem::not_found(
        codes::NOT_FOUND,
        format!("no route {}: see GET /api/v1/openapi.json", uri.path()),
    )
    .into_response()
}

fn openapi(api: &Api, method: &Method) -> Response {
    if !matches!(*method, Method::GET | Method::HEAD) {
        return Problem::method_not_allowed("GET, HEAD").into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        api.openapi.clone(),
    )
        .into_response()
}

/// A document's answer: JSON, never cached.
fn answer(text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, no-store"),
        ],
        text,
    )
        .into_response()
}

/// `POST /api/v1/plan` and `/claims`: the posted snapshot planned.
async fn posted(api: Arc<Api>, method: Method, headers: HeaderMap, body: Body, doc: Doc) -> Response {
    let run = async {
        if method != Method::POST {
            return Err(Problem::method_not_allowed("POST"));
        }
        request::check_json(&headers)?;
        let permit = api.permit()?;
        let bytes = request::read_body(&headers, body, api.max_body).await?;
        let planned = tokio::task::spawn_blocking(move || {
            let (snapshot, ask) = request::parse_body(&bytes, doc)?;
            drop(bytes);
            let fleet = planner::load(&snapshot)?;
            drop(snapshot);
            let text = planner::document(&fleet, &ask, doc);
            drop(permit);
            text
        })
        .await;
        planned.map_err(|e| Problem::internal(format!("planning failed: {e}")))?
    };
    match run.await {
        Ok(text) => answer(text),
        Err(p) => p.into_response(),
    }
}

/// The `{job}` of a route, or why it could not be read (not UTF-8 once %-decoded).
type JobPath = Result<Path<String>, axum::extract::rejection::PathRejection>;

/// `GET /api/v1/jobs/{job}/plan` and `/claims`: the followed job's state planned as it is now.
async fn followed(api: Arc<Api>, method: Method, job: JobPath, uri: Uri, doc: Doc) -> Response {
    let run = async {
        if !matches!(method, Method::GET | Method::HEAD) {
            return Err(Problem::method_not_allowed("GET, HEAD"));
        }
        let job = job.map(|Path(j)| j).unwrap_or_default();
        let Some(live) = &api.live else {
            return Err(Problem::not_found(
                codes::NOT_LIVE_MODE,
                "this server follows no jobs: start it with serve --server",
            ));
        };
        if !spate_planner_core::valid_job_name(&job) {
            return Err(Problem::bad(
                spate_planner_core::ErrorCode::InvalidJob.as_str(),
                "invalid job name: Spate job names are 1 to 64 of A-Z a-z 0-9 _ -",
            )
            .field("job"));
        }
        let ask = request::parse_query(uri.query(), doc)?;
        if let Some(why) = live.refuses(&job) {
            return Err(Problem::not_found(codes::UNKNOWN_JOB, why).field("job"));
        }
        let hub = live.hub(&job).await.map_err(refusal)?;
        match hub.status() {
            Status::Live => {}
            Status::Reconnecting(m) | Status::Error(m) | Status::Silent(m) => {
                return Err(Problem::unavailable(
                    codes::NOT_LIVE,
                    format!("the job's state held may not be the store's now: {m}"),
                )
                .field("job"))
            }
        }
        let permit = api.permit()?;
        let planned = tokio::task::spawn_blocking(move || {
            let (_, snap) = hub.snapshot();
            let revisions = format!(
                "{}-{}",
                snap.state.revision.unwrap_or_default(),
                snap.lease.revision.unwrap_or_default()
            );
            let fleet = spate_planner_core::Fleet::from_snapshot(&snap).map_err(|e| {
                let mut p = Problem::snapshot(e).field("job");
                p.status = StatusCode::SERVICE_UNAVAILABLE;
                p.doc.message = format!(
                    "the job's state cannot be planned until a change mends it: {}",
                    p.doc.message
                );
                p
            })?;
            drop(snap);
            let text = planner::document(&fleet, &ask, doc);
            drop(permit);
            Ok::<_, Problem>((text?, revisions))
        })
        .await;
        planned.map_err(|e| Problem::internal(format!("planning failed: {e}")))?
    };
    match run.await {
        Ok((text, revisions)) => {
            let mut r = answer(text);
            if let Ok(v) = HeaderValue::from_str(&revisions) {
                r.headers_mut().insert("x-spate-revisions", v);
            }
            r
        }
        Err(p) => p.into_response(),
    }
}

/// The live side's refusal of a job, in the API's words.
fn refusal(r: crate::live::http::Refusal) -> Problem {
    let (status, message) = r.parts();
    let code = match status {
        StatusCode::NOT_FOUND => codes::UNKNOWN_JOB,
        StatusCode::BAD_REQUEST => spate_planner_core::ErrorCode::InvalidJob.as_str(),
        StatusCode::SERVICE_UNAVAILABLE => codes::BUSY,
        _ => codes::NATS_FAILED,
    };
    Problem::new(status, code, message).field("job")
}
