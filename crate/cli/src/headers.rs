//! The headers every response of `serve` carries, the page's and the API's alike: one policy,
//! applied as a layer over the whole router so that no route (an error included) goes without it
//! (a 304 Not Modified carries only its validators: the stored response keeps its own).
//! Beside it, inside it, the one check of who is answered at all (`crate::hosts`).

use crate::hosts::Hosts;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use std::sync::Arc;

/// The policy the page runs under: no inline script, no eval, wasm compilation allowed, and no
/// request leaving the origin.
pub(crate) const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; \
style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
form-action 'none'; frame-ancestors 'self'";

/// `router` answering only the names `hosts` accepts, with the security headers added to every
/// response it gives (a refusal included).
pub(crate) fn secured(router: axum::Router, hosts: Hosts) -> axum::Router {
    crate::hosts::guarded(router, Arc::new(hosts)).layer(axum::middleware::map_response(secure))
}

async fn secure(mut r: Response) -> Response {
    // A 304 has no body: the browser keeps the stored response, with its headers (these
    // among them), and takes only the validators and caching headers from this one.
    if r.status() == axum::http::StatusCode::NOT_MODIFIED {
        return r;
    }
    let h = r.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-cache"));
    r
}
