//! `serve --base-path /planner`: everything the server answers (the page, its assets, the served
//! snapshot, `/healthz` and the live API with its event stream) under a path prefix, as a
//! reverse proxy that forwards `/planner/…` unchanged expects. The page builds every URL
//! relative to its own location, so only the server needs to know the prefix: a request under
//! it is routed with the prefix taken off, `/planner` itself is redirected to `/planner/` (the
//! page's relative URLs need the slash), and anything outside it is 404.

use axum::extract::Request;
use axum::http::{header, uri::PathAndQuery, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// A path prefix: empty (served at `/`), or `/segment[/segment…]` without a trailing slash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BasePath(String);

/// Whether a prefix segment is plain: unreserved URL characters only (nothing to %-encode), and
/// not `.` or `..`.
fn plain_segment(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

impl BasePath {
    /// `--base-path`: `/planner`, `/planner/` and `/tools/planner` are prefixes; `/` is none.
    pub(crate) fn parse(text: &str) -> Result<BasePath, String> {
        if text.is_empty() || text == "/" {
            return Ok(BasePath::default());
        }
        let trimmed = text.strip_suffix('/').unwrap_or(text);
        match trimmed.strip_prefix('/') {
            Some(rest) if rest.split('/').all(plain_segment) => Ok(BasePath(trimmed.to_string())),
            Some(_) => Err("give path segments of A-Z a-z 0-9 - . _ ~ separated by /, e.g. /planner".into()),
            None => Err("start it with /, e.g. /planner".into()),
        }
    }

    /// The prefix as the page's address starts with it: `` or `/planner`.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// `router` answering under this prefix only (itself when there is none).
    pub(crate) fn wrap(&self, router: axum::Router) -> axum::Router {
        if self.0.is_empty() {
            return router;
        }
        let base = self.clone();
        axum::Router::new()
            .fallback_service(router)
            .layer(axum::middleware::from_fn(move |req: Request, next: Next| {
                let base = base.clone();
                async move { base.route(req, next).await }
            }))
    }

    async fn route(&self, mut req: Request, next: Next) -> Response {
        let path = req.uri().path();
        if path == self.0 {
            return self.to_slash(req.uri());
        }
        let Some(inner) = path.strip_prefix(self.0.as_str()).filter(|p| p.starts_with('/')) else {
            return (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!("not found: this server answers under {}/", self.0),
            )
                .into_response();
        };
        match within(req.uri(), inner) {
            Some(uri) => {
                *req.uri_mut() = uri;
                next.run(req).await
            }
            None => (StatusCode::BAD_REQUEST, "bad request target").into_response(),
        }
    }

    /// The redirect from `/planner` to `/planner/`, with the query kept. The location is
    /// relative (`planner/?…`), so that it holds behind a proxy that adds a prefix of its own.
    fn to_slash(&self, uri: &Uri) -> Response {
        let last = self.0.rsplit('/').next().unwrap_or("");
        let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        (
            StatusCode::PERMANENT_REDIRECT,
            [(header::LOCATION, format!("{last}/{query}"))],
        )
            .into_response()
    }
}

/// `uri` with its path replaced by `path` (its query, and any scheme and authority, kept).
fn within(uri: &Uri, path: &str) -> Option<Uri> {
    let target = match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(target.parse::<PathAndQuery>().ok()?);
    Uri::from_parts(parts).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_plain_paths() {
        assert_eq!(BasePath::parse("/planner").unwrap().as_str(), "/planner");
        assert_eq!(BasePath::parse("/planner/").unwrap().as_str(), "/planner");
        assert_eq!(
            BasePath::parse("/tools/planner").unwrap().as_str(),
            "/tools/planner"
        );
        assert_eq!(BasePath::parse("/").unwrap().as_str(), "");
        assert_eq!(BasePath::parse("").unwrap().as_str(), "");
        for bad in [
            "planner", "/a//b", "/../x", "/a/./b", "/a b", "/a%2Fb", "/a?b", "//", "/é",
        ] {
            let e = BasePath::parse(bad).unwrap_err();
            assert!(e.contains("e.g. /planner"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_query_and_authority_are_kept() {
        let uri = Uri::from_static("http://h:1/planner/api/live?job=g");
        assert_eq!(
            within(&uri, "/api/live").unwrap().to_string(),
            "http://h:1/api/live?job=g"
        );
        let uri = Uri::from_static("/planner/");
        assert_eq!(within(&uri, "/").unwrap().to_string(), "/");
    }
}
