//! The API's one error document: `{"code", "message"}` with, where they apply, `field` (the
//! request's part at fault: `body`, `snapshot`, `scenario`, `instance`, a query parameter or
//! `job`), the core's `bucket`, `key` and `path` (where inside that part), and `refused` (every
//! change of a strict scenario that does not apply). The codes are the core's
//! ([`spate_planner_core::ErrorCode`]) where the core refused the input, else the API's own
//! (docs/api.md lists both, and `docs/openapi.json` names every one).

use crate::live::limits::RETRY_AFTER_S;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use spate_planner_core::{scenario::Refused, ScenarioError, SnapshotError};

/// The API's own codes, for what is wrong with a request before (or beside) the core's reading.
pub(crate) mod codes {
    /// The body is not the request object: a member unknown, missing or of the wrong type.
    pub(crate) const INVALID_REQUEST: &str = "invalid_request";
    /// A query parameter unknown, given twice, or not of its type.
    pub(crate) const INVALID_PARAMETER: &str = "invalid_parameter";
    /// The body is not `application/json`.
    pub(crate) const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
    /// No such route.
    pub(crate) const NOT_FOUND: &str = "not_found";
    /// The route does not answer this method (the `Allow` header names those it does).
    pub(crate) const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    /// The job's buckets do not exist, or this server follows another job only (`--job`).
    pub(crate) const UNKNOWN_JOB: &str = "unknown_job";
    /// This server follows no NATS server (`serve` without `--server`).
    pub(crate) const NOT_LIVE_MODE: &str = "not_live_mode";
    /// The job's state held is not the store's now (reconnecting, or its buckets gone).
    pub(crate) const NOT_LIVE: &str = "not_live";
    /// The server is at one of its limits: try again after `Retry-After`.
    pub(crate) const BUSY: &str = "busy";
    /// NATS failed while the job was read.
    pub(crate) const NATS_FAILED: &str = "nats_failed";
    /// The server failed (a bug): never an answer to a request's content.
    pub(crate) const INTERNAL: &str = "internal";
}

/// An API error: its status and its document.
#[derive(Debug)]
pub(crate) struct Problem {
    pub status: StatusCode,
    /// Boxed: a `Result<_, Problem>` stays small on the happy path.
    pub doc: Box<ProblemDoc>,
    /// `Allow` (405).
    pub allow: Option<&'static str>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ProblemDoc {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<Vec<RefusedDoc>>,
}

/// A change of the scenario that does not apply, as the plan document's `refused` writes it.
#[derive(Debug, Serialize)]
pub(crate) struct RefusedDoc {
    pub index: u32,
    pub code: String,
    pub path: String,
    pub message: String,
}

impl Problem {
    pub(crate) fn new(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            status,
            doc: Box::new(ProblemDoc {
                code: code.into(),
                message: message.into(),
                field: None,
                bucket: None,
                key: None,
                path: None,
                refused: None,
            }),
            allow: None,
        }
    }

    /// 400: the request itself is wrong.
    pub(crate) fn bad(code: &str, message: impl Into<String>) -> Problem {
        Problem::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 422: the request is well formed, and the planner refuses what it holds.
    pub(crate) fn refused(code: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// 503 with `Retry-After`.
    pub(crate) fn unavailable(code: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem::new(StatusCode::SERVICE_UNAVAILABLE, code, message)
    }

    pub(crate) fn not_found(code: &str, message: impl Into<String>) -> Problem {
        Problem::new(StatusCode::NOT_FOUND, code, message)
    }

    pub(crate) fn method_not_allowed(allow: &'static str) -> Problem {
        Problem {
            allow: Some(allow),
            ..Problem::new(
                StatusCode::METHOD_NOT_ALLOWED,
                codes::METHOD_NOT_ALLOWED,
                format!("this route answers {allow} only"),
            )
        }
    }

    /// The request's part at fault.
    pub(crate) fn field(mut self, field: impl Into<String>) -> Problem {
        self.doc.field = Some(field.into());
        self
    }

    /// A snapshot the core refuses: its code, bucket, key and path.
    pub(crate) fn snapshot(e: SnapshotError) -> Problem {
        let mut p = Problem::refused(e.code.as_str(), e.message).field("snapshot");
        p.doc.bucket = e.bucket;
        p.doc.key = e.key;
        p.doc.path = e.path;
        p
    }

    /// A scenario the core refuses as a whole: its code and path.
    pub(crate) fn scenario(e: ScenarioError, field: &str) -> Problem {
        let mut p = Problem::refused(e.code.as_str(), e.to_string()).field(field);
        p.doc.path = Some(e.path);
        p
    }

    /// A strict scenario with changes that do not apply: the first one's code and path, and
    /// every one in `refused`.
    pub(crate) fn strict(refused: &[Refused], field: &str) -> Problem {
        let first = &refused[0];
        let mut p = Problem::refused(
            first.code.as_str(),
            format!(
                "{} change(s) of the scenario do not apply (strict); the first: {} at {}",
                refused.len(),
                first.message,
                first.path
            ),
        )
        .field(field);
        p.doc.path = Some(first.path.clone());
        p.doc.refused = Some(
            refused
                .iter()
                .map(|r| RefusedDoc {
                    index: r.index,
                    code: r.code.as_str().to_string(),
                    path: r.path.clone(),
                    message: r.message.clone(),
                })
                .collect(),
        );
        p
    }

    pub(crate) fn internal(message: impl Into<String>) -> Problem {
        Problem::new(StatusCode::INTERNAL_SERVER_ERROR, codes::INTERNAL, message)
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let body = serde_json::to_string(&self.doc)
            .unwrap_or_else(|_| format!("{{\"code\":\"{}\",\"message\":\"\"}}", codes::INTERNAL));
        let mut r = (
            self.status,
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CACHE_CONTROL, "no-cache, no-store"),
            ],
            body,
        )
            .into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S));
        }
        if let Some(allow) = self.allow {
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        r
    }
}
