//! DNS rebinding (issue 18): `serve` answers only requests for its own address (127.0.0.1:PORT,
//! localhost:PORT) or a name given with `--allow-host`, and refuses any other `Host`, and any
//! `Origin` that is not one of those, with 403 and a plain-text reason: on every route (the
//! page, its assets, `/snapshot.json`, `/api/*`, the event stream, `/metrics` and the automation
//! API `/api/v1/*`), against a real server.

use crate::fixture;
use crate::live_client;
use crate::nats_server;

use async_nats::jetstream;
use live_client::{request, Serve, BIN};
use nats_server::NatsServer;

/// Every kind of route: the page, an asset, the served snapshot, the API, the event stream,
/// the metrics, the automation API (docs/api.md).
const ROUTES: [&str; 9] = [
    "/",
    "/index.html",
    "/snapshot.json",
    "/api/jobs",
    "/api/snapshot?job=g",
    "/api/live?job=g",
    "/metrics",
    "/api/v1/jobs/g/plan",
    "/api/v1/openapi.json",
];

/// A request for `path` with these header lines (each ending in CRLF), closed after the answer.
async fn ask(port: u16, path: &str, lines: &str) -> (u16, String, String) {
    request(port, &format!("GET {path} HTTP/1.0\r\n{lines}\r\n")).await
}

/// A served snapshot file and a followed job, so that every route answers 200 when allowed.
async fn server(nats: &NatsServer, extra: &[&str]) -> Serve {
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    if js.get_key_value("spate_coordination_g_state").await.is_err() {
        fixture::write_job(&js, "g").await;
    }
    let file = std::env::temp_dir().join(format!("spate-hosts-{}.json", std::process::id()));
    let demo = std::process::Command::new(BIN)
        .args(["demo", "--splits", "10", "--members", "2", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(demo.status.success(), "{}", String::from_utf8_lossy(&demo.stderr));
    let url = nats.url();
    let mut args = vec![file.to_str().unwrap().to_string(), "--server".into(), url];
    args.extend(extra.iter().map(|s| s.to_string()));
    Serve::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn assert_refused((status, head, body): (u16, String, String), needle: &str, what: &str) {
    assert_eq!(status, 403, "{what}: {head}\n{body}");
    assert!(head.contains("content-type: text/plain"), "{what}: {head}");
    assert!(
        head.contains("content-security-policy:"),
        "{what}: the security headers: {head}"
    );
    assert!(
        body.starts_with("refused: ") && body.contains(needle),
        "{what}: {body}"
    );
    assert!(body.len() < 200, "{what}: a short reason: {body}");
}

/// The status of a request that is let through (the event stream is cut after its head).
async fn status_of(port: u16, path: &str, lines: &str) -> u16 {
    if path.starts_with("/api/live") {
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        s.write_all(format!("GET {path} HTTP/1.0\r\n{lines}\r\n").as_bytes())
            .await
            .unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head).await.unwrap();
        return String::from_utf8_lossy(&head[9..12]).parse().unwrap();
    }
    ask(port, path, lines).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_our_own_names_are_answered() {
    let nats = NatsServer::start(true);
    let serve = server(&nats, &[]).await;
    let port = serve.port;
    let own = format!("Host: 127.0.0.1:{port}\r\n");
    let local = format!("Host: LOCALHOST:{port}\r\n");
    let origin = format!("{own}Origin: http://127.0.0.1:{port}\r\n");
    for path in ROUTES {
        for lines in [&own, &local, &origin] {
            assert_eq!(status_of(port, path, lines).await, 200, "{path} with {lines:?}");
        }
        // A rebinding page: its own name, resolving here, with our port.
        let forged = format!("Host: rebind.example:{port}\r\n");
        assert_refused(ask(port, path, &forged).await, "Host \"rebind.example:", path);
        let v6 = format!("Host: [::1]:{port}\r\n");
        assert_refused(ask(port, path, &v6).await, "Host \"[::1]:", path);
        let other_port = format!("Host: 127.0.0.1:{}\r\n", port.wrapping_add(1));
        assert_refused(ask(port, path, &other_port).await, "is not this server", path);
        // Our Host, but sent by a page of another origin.
        for bad in [
            "http://rebind.example",
            "null",
            &format!("https://127.0.0.1:{port}"),
        ] {
            let lines = format!("{own}Origin: {bad}\r\n");
            assert_refused(ask(port, path, &lines).await, "Origin", path);
        }
        // HTTP/1.0 without a Host header.
        assert_refused(ask(port, path, "").await, "no Host header", path);
    }
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_given_with_allow_host_are_answered() {
    let nats = NatsServer::start(true);
    let serve = server(&nats, &["--allow-host", "planner.example", "--allow-host", "::1"]).await;
    let port = serve.port;
    for path in ROUTES {
        for lines in [
            "Host: planner.example\r\n".to_string(),
            "Host: Planner.Example:443\r\nOrigin: https://planner.example\r\n".into(),
            format!("Host: [::1]:{port}\r\nOrigin: http://[::1]:{port}\r\n"),
            format!("Host: 127.0.0.1:{port}\r\n"),
        ] {
            assert_eq!(status_of(port, path, &lines).await, 200, "{path} with {lines:?}");
        }
        let lines = "Host: planner.example\r\nOrigin: https://other.example\r\n";
        assert_refused(ask(port, path, lines).await, "Origin", path);
        assert_refused(
            ask(port, path, "Host: other.example\r\n").await,
            "--allow-host",
            path,
        );
    }
    serve.stop();
}

#[test]
fn a_bad_allow_host_is_refused_at_start() {
    let o = std::process::Command::new(BIN)
        .args(["serve", "--port", "0", "--allow-host", "evil.example/path"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("--allow-host \"evil.example/path\""), "{err}");
}

/// `--bind 0.0.0.0`: the address printed is one the server answers (it printed
/// `http://0.0.0.0:PORT/`, which no client names and the check refused with 403).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_address_printed_for_every_interface_is_answered() {
    let serve = Serve::start(&["--bind", "0.0.0.0"]);
    let port = serve.port;
    let line = serve.stdout_line.trim().to_string();
    let authority = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address printed: {line:?}"));
    assert_eq!(authority, format!("127.0.0.1:{port}"), "{line}");
    let (status, head, body) = ask(port, "/", &format!("Host: {authority}\r\n")).await;
    assert_eq!(status, 200, "{line}: {head}\n{body}");
    serve.stop();
}
