//! The dashboard's files as sent: each with a strong entity tag and `Cache-Control: no-cache`
//! (a reload asks again and is answered 304 with no body when nothing changed), except a file
//! named by its content (the wasm package: `pkg/spate_planner_bg.<hash>.wasm`), which never
//! changes under its name and is sent `immutable` for a year (a reload does not ask for it);
//! and its gzip when the client accepts it (the embedded files are compressed when the binary
//! is built).

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
    /// Named by its content (`named_by_content`).
    pub immutable: bool,
}

include!("content_name.rs");

/// How long a browser keeps a file named by its content: a year, never asking again.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A file to send: its bytes, its gzip if there is one, its tag, and whether it is named by
/// its content.
pub(crate) struct Sent {
    pub bytes: Bytes,
    pub gzip: Option<Bytes>,
    pub etag: String,
    pub immutable: bool,
}

impl Sent {
    /// An embedded file, sent without a copy.
    pub(crate) fn embedded(a: &Asset) -> Sent {
        Sent {
            bytes: Bytes::from_static(a.bytes),
            gzip: a.gzip.map(Bytes::from_static),
            etag: a.etag.to_string(),
            immutable: a.immutable,
        }
    }

    /// A file of `--dir` at `path`, read now: kept for good when it is named by its content.
    pub(crate) fn file(path: &str, bytes: Bytes) -> Sent {
        let immutable = named_by_content(path, &bytes);
        Sent {
            immutable,
            ..Sent::plain(bytes)
        }
    }

    /// Bytes made now (the page naming its snapshot): tagged here, sent as they are, asked
    /// for again on each use.
    pub(crate) fn plain(bytes: Bytes) -> Sent {
        let etag = etag(&bytes);
        Sent {
            bytes,
            gzip: None,
            etag,
            immutable: false,
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
/// the bytes (gzip when accepted and smaller), tagged, to be revalidated before each use unless
/// the file is named by its content.
pub(crate) fn reply(
    method: &Method,
    request: &HeaderMap,
    sent: Sent,
    content_type: &'static str,
) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    let cache = if sent.immutable { IMMUTABLE } else { "no-cache" };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
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

    #[test]
    fn only_a_name_that_holds_its_contents_hash_is_named_by_content() {
        // the first 16 hex digits of SHA-256("abc")
        let right = "pkg/spate_planner_bg.ba7816bf8f01cfea.wasm";
        assert!(named_by_content(right, b"abc"));
        assert!(named_by_content("a.ba7816bf8f01cfea.js", b"abc"));
        assert!(!named_by_content(right, b"abd"), "another content");
        assert!(!named_by_content("pkg/spate_planner_bg.wasm", b"abc"), "no hash");
        assert!(!named_by_content("ba7816bf8f01cfea.wasm", b"abc"), "no stem");
        assert!(!named_by_content("a.ba7816bf8f01cfe.wasm", b"abc"), "15 digits");
        assert!(!named_by_content("a.BA7816BF8F01CFEA.wasm", b"abc"), "upper case");
        assert!(!named_by_content("a.ba7816bf8f01cfea", b"abc"), "no extension");
    }

    fn cache_control(sent: Sent, request: &HeaderMap) -> (StatusCode, String) {
        let r = reply(&Method::GET, request, sent, "application/wasm");
        let cc = r.headers()[header::CACHE_CONTROL].to_str().unwrap().to_string();
        (r.status(), cc)
    }

    #[test]
    fn a_file_named_by_content_is_kept_for_good_and_the_rest_revalidated() {
        let bytes = Bytes::from_static(b"abc");
        let named = Sent::file("pkg/spate_planner_bg.ba7816bf8f01cfea.wasm", bytes.clone());
        let plain = Sent::file("pkg/spate_planner_bg.wasm", bytes.clone());
        let none = HeaderMap::new();
        assert_eq!(
            cache_control(named, &none),
            (StatusCode::OK, "public, max-age=31536000, immutable".into())
        );
        assert_eq!(cache_control(plain, &none), (StatusCode::OK, "no-cache".into()));
        // both still answer a tag held with 304
        let held = with(header::IF_NONE_MATCH, &etag(b"abc"));
        let named = Sent::file("a.ba7816bf8f01cfea.wasm", bytes);
        assert_eq!(cache_control(named, &held).0, StatusCode::NOT_MODIFIED);
    }
}
