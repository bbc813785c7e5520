//! The dashboard's files as sent: each with a strong entity tag and `Cache-Control: no-cache`
//! (a reload asks again and is answered 304 with no body when nothing changed), and its gzip
//! when the client accepts it (the embedded files are compressed when the binary is built).

use axum::body::Bytes;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// One embedded file (build.rs writes the table from web/dist).
pub(crate) struct Asset {
    pub path: &'static str,
    pub bytes: &'static [u8],
    /// The bytes compressed with gzip, when that saves at least a tenth.
    pub gzip: Option<&'static [u8]>,
    pub etag: &'static str,
}

/// A file to send: its bytes, its gzip if there is one, and its tag.
pub(crate) struct Sent {
    pub bytes: Bytes,
    pub gzip: Option<Bytes>,
    pub etag: String,
}

impl Sent {
    /// An embedded file, sent without a copy.
    pub(crate) fn embedded(a: &Asset) -> Sent {
        Sent {
            bytes: Bytes::from_static(a.bytes),
            gzip: a.gzip.map(Bytes::from_static),
            etag: a.etag.to_string(),
        }
    }

    /// Bytes read or made now (a file of `--dir`, the page naming its snapshot): tagged here,
    /// sent as they are.
    pub(crate) fn plain(bytes: Bytes) -> Sent {
        let etag = etag(&bytes);
        Sent {
            bytes,
            gzip: None,
            etag,
        }
    }
}

/// A strong validator of `bytes` (the same bytes give the same tag in this binary).
pub(crate) fn etag(bytes: &[u8]) -> String {
    use std::hash::{DefaultHasher, Hasher};
    let mut h = DefaultHasher::new();
    h.write(bytes);
    format!("\"{:016x}-{:x}\"", h.finish(), bytes.len())
}

/// Whether the request's `If-None-Match` names `etag` (or `*`).
fn not_modified(request: &HeaderMap, etag: &str) -> bool {
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == etag || t == "*")
}

/// Whether the request accepts gzip (`Accept-Encoding`, a q of 0 refusing it).
fn accepts_gzip(request: &HeaderMap) -> bool {
    request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let refused = parts.any(|p| p.replace(' ', "") == "q=0" || p.replace(' ', "") == "q=0.0");
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// The answer to a GET or HEAD of `sent` as `content_type`: 304 when the client holds it, else
/// the bytes (gzip when accepted and smaller), tagged, to be revalidated before each use.
pub(crate) fn reply(
    method: &Method,
    request: &HeaderMap,
    sent: Sent,
    content_type: &'static str,
) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Ok(v) = HeaderValue::from_str(&sent.etag) {
        headers.insert(header::ETAG, v);
    }
    if not_modified(request, &sent.etag) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    let body = match sent.gzip {
        Some(gz) if accepts_gzip(request) => {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            gz
        }
        _ => sent.bytes,
    };
    if method == Method::HEAD {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        return (StatusCode::OK, headers).into_response();
    }
    (StatusCode::OK, headers, body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn gzip_is_sent_when_accepted_and_not_when_refused() {
        assert!(accepts_gzip(&with(header::ACCEPT_ENCODING, "gzip, deflate, br")));
        assert!(accepts_gzip(&with(
            header::ACCEPT_ENCODING,
            "br;q=1.0, GZIP;q=0.5"
        )));
        assert!(accepts_gzip(&with(header::ACCEPT_ENCODING, "*")));
        assert!(!accepts_gzip(&with(header::ACCEPT_ENCODING, "gzip;q=0")));
        assert!(!accepts_gzip(&with(header::ACCEPT_ENCODING, "br, identity")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn a_tag_held_is_not_modified_weak_or_in_a_list() {
        let tag = etag(b"abc");
        assert_ne!(tag, etag(b"abd"));
        assert!(not_modified(&with(header::IF_NONE_MATCH, &tag), &tag));
        assert!(not_modified(
            &with(header::IF_NONE_MATCH, &format!("\"x\", W/{tag}")),
            &tag
        ));
        assert!(not_modified(&with(header::IF_NONE_MATCH, "*"), &tag));
        assert!(!not_modified(&with(header::IF_NONE_MATCH, "\"x\""), &tag));
        assert!(!not_modified(&HeaderMap::new(), &tag));
    }
}
