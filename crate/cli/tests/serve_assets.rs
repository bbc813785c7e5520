//! Light pages (issue 34): every file `serve` sends carries a strong entity tag and
//! `Cache-Control: no-cache`, except a file named by its content, sent `immutable`; asked again with that tag it is answered 304 with no body (and no
//! copy of the security headers: the browser keeps the stored response's); another tag, or a
//! file that changed, is sent in full. The embedded files' gzip is checked in the browser
//! (tests/e2e/weight.test.mjs) and in `assets.rs`, since these tests run before the dashboard
//! is built.

use crate::live_client;

use live_client::{request, Serve, BIN};

async fn ask(port: u16, path: &str, lines: &str) -> (u16, String, String) {
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    request(port, &format!("GET {path} HTTP/1.0\r\n{host}{lines}\r\n")).await
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

#[tokio::test]
async fn a_file_asked_again_with_its_tag_is_not_sent_again() {
    let file = std::env::temp_dir().join(format!("spate-assets-{}.json", std::process::id()));
    let demo = std::process::Command::new(BIN)
        .args(["demo", "--splits", "10", "--members", "2", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(demo.status.success());
    let serve = Serve::start(&[file.to_str().unwrap()]);
    for path in ["/snapshot.json", "/", "/index.html"] {
        let (status, head, body) = ask(serve.port, path, "").await;
        assert_eq!(status, 200, "{path}: {head}");
        assert!(!body.is_empty());
        assert_eq!(header(&head, "cache-control"), Some("no-cache"), "{path}: {head}");
        let tag = header(&head, "etag").unwrap_or_else(|| panic!("{path} has no tag: {head}"));
        assert!(tag.starts_with('"') && tag.ends_with('"'), "a strong tag: {tag}");
        let (status, head304, body) = ask(serve.port, path, &format!("If-None-Match: {tag}\r\n")).await;
        assert_eq!((status, body.as_str()), (304, ""), "{path}: {head304}");
        assert_eq!(header(&head304, "etag"), Some(tag));
        assert_eq!(header(&head304, "content-security-policy"), None, "{head304}");
        // a tag of other bytes: the file in full
        let (status, _, body) = ask(serve.port, path, "If-None-Match: \"0-0\"\r\n").await;
        assert_eq!(status, 200);
        assert!(!body.is_empty());
    }
    // the page naming its snapshot is tagged by what is sent, not by the file on disk
    let (_, page, _) = ask(serve.port, "/", "").await;
    let (_, snap, _) = ask(serve.port, "/snapshot.json", "").await;
    assert_ne!(header(&page, "etag"), header(&snap, "etag"));
}

/// A file named by its content (`stem.<the first 16 hex digits of its SHA-256>.ext`, as
/// scripts/hash-names.mjs names the wasm package and its glue) is sent `immutable` for a year, so
/// that a reload does not ask for it; a name whose digits are not its content's, and any other
/// file, is revalidated on each use.
#[tokio::test]
async fn only_a_file_named_by_its_content_is_kept_for_good() {
    let serve = Serve::start(&[]);
    // the folder `Serve` serves with --dir
    let dir = std::env::temp_dir().join(format!("spate-live-www-{}", std::process::id()));
    // SHA-256("abc") begins ba7816bf8f01cfea
    for name in ["m.ba7816bf8f01cfea.js", "m.0123456789abcdef.js", "m.js"] {
        std::fs::write(dir.join(name), "abc").unwrap();
    }
    let cache = |head: &str| header(head, "cache-control").map(str::to_string);
    let (status, head, body) = ask(serve.port, "/m.ba7816bf8f01cfea.js", "").await;
    assert_eq!((status, body.as_str()), (200, "abc"));
    assert_eq!(
        cache(&head).as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    for path in ["/m.0123456789abcdef.js", "/m.js"] {
        let (status, head, _) = ask(serve.port, path, "").await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(cache(&head).as_deref(), Some("no-cache"), "{path}: {head}");
    }
}
