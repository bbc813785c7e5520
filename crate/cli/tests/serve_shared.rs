//! A shared server (issue 21): `serve --bind ADDR` (a bad address refused at start, a warning
//! beyond loopback, the bound address answered), `--base-path` (every route under the prefix,
//! 404 outside it, the bare prefix redirected to its slash) and `/healthz` (200 while NATS is
//! connected, 503 while it is down), against a real server.

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::patience;

use async_nats::jetstream;
use live_client::{get, request, Serve, Sse, BIN};
use nats_server::NatsServer;
use patience::PATIENCE;
use std::time::{Duration, Instant};

/// A followed job `g` on `nats`, and `serve` on it with a served snapshot and `extra`.
async fn server(nats: &NatsServer, extra: &[&str]) -> Serve {
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    if js.get_key_value("spate_coordination_g_state").await.is_err() {
        fixture::write_job(&js, "g").await;
    }
    let file = std::env::temp_dir().join(format!("spate-shared-{}.json", std::process::id()));
    let demo = std::process::Command::new(BIN)
        .args(["demo", "--splits", "10", "--members", "2", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(demo.status.success(), "{}", String::from_utf8_lossy(&demo.stderr));
    let mut args = vec![file.to_str().unwrap().to_string(), "--server".into(), nats.url()];
    args.extend(extra.iter().map(|s| s.to_string()));
    Serve::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `serve` with these arguments, expected to fail at start: its standard error.
/// A dashboard directory is named so that the refusal is about `args`, whether or not this
/// build has the dashboard built in (the native tests run before `scripts/build`).
fn refused_at_start(args: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("spate-shared-www-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    let o = std::process::Command::new(BIN)
        .args(["serve", "--port", "0", "--dir"])
        .arg(&dir)
        .args(args)
        .output()
        .unwrap();
    assert!(!o.status.success(), "{args:?} started");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_bad_bind_address_or_base_path_is_refused_at_start() {
    let err = refused_at_start(&["--bind", "planner.example"]);
    assert!(
        err.contains("--bind <ADDR>") && err.contains("planner.example"),
        "{err}"
    );
    // TEST-NET-1: a well-formed address that is none of this machine's.
    let err = refused_at_start(&["--bind", "192.0.2.1"]);
    assert!(err.contains("cannot listen on 192.0.2.1:0"), "{err}");
    let err = refused_at_start(&["--base-path", "planner"]);
    assert!(
        err.contains("--base-path <PATH>") && err.contains("start it with /"),
        "{err}"
    );
    let err = refused_at_start(&["--base-path", "/a/../b"]);
    assert!(err.contains("path segments of"), "{err}");
}

#[test]
fn beyond_loopback_it_warns_that_nothing_authenticates() {
    let open = Serve::start(&["--bind", "0.0.0.0"]);
    // the address printed is one it answers (serve_hosts.rs asks for it), not 0.0.0.0
    assert!(
        open.stdout_line.contains("http://127.0.0.1:"),
        "{}",
        open.stdout_line
    );
    let err = open.stop();
    assert!(err.contains("warning: listening on 0.0.0.0:"), "{err}");
    assert!(err.contains("no authentication"), "{err}");
    assert!(err.contains("reverse proxy"), "{err}");
    for bind in [&[][..], &["--bind", "127.0.0.1"]] {
        let err = Serve::start(bind).stop();
        assert!(!err.contains("warning"), "{bind:?}: {err}");
    }
}

/// A request to `ip`:`port` naming `host` (status only).
async fn status_at(ip: &str, port: u16, host: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect((ip, port)).await.unwrap();
    s.write_all(format!("GET /healthz HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).await.unwrap();
    all.split(' ').nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bound_address_joins_the_allowed_hosts() {
    // Another loopback address: no warning, and its name is ours.
    let serve = Serve::start(&["--bind", "127.0.0.2"]);
    let port = serve.port;
    assert_eq!(
        status_at("127.0.0.2", port, &format!("127.0.0.2:{port}")).await,
        200
    );
    assert_eq!(
        status_at("127.0.0.2", port, &format!("127.0.0.3:{port}")).await,
        403
    );
    assert_eq!(
        status_at("127.0.0.2", port, &format!("127.0.0.2:{}", port ^ 1)).await,
        403
    );
    assert!(!serve.stop().contains("warning"));
}

/// `/healthz` as JSON: (status, document).
async fn health(port: u16, path: &str) -> (u16, serde_json::Value) {
    let (status, head, body) = get(port, path).await;
    assert!(head.contains("content-type: application/json"), "{head}");
    let doc = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (status, doc)
}

/// Asks `/healthz` until it answers `want` (for up to [`PATIENCE`]): the document then.
async fn health_until(port: u16, want: u16) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let (status, doc) = health(port, "/healthz").await;
        if status == want {
            return doc;
        }
        assert!(start.elapsed() < PATIENCE, "still {status}: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_follows_the_nats_connection() {
    let none = Serve::start(&[]);
    let (status, doc) = health(none.port, "/healthz").await;
    assert_eq!(status, 200);
    assert_eq!(
        doc,
        serde_json::json!({"ok": true, "jobs_followed": 0, "nats_connected": null})
    );
    none.stop();

    let mut nats = NatsServer::start(true);
    let serve = server(&nats, &["--job", "g"]).await;
    let (status, mut doc) = health(serve.port, "/healthz").await;
    assert_eq!(status, 200, "{doc}");
    let jobs = doc.as_object_mut().unwrap().remove("jobs").unwrap();
    assert_eq!(
        doc,
        serde_json::json!({"ok": true, "jobs_followed": 1, "nats_connected": true})
    );
    let g = &jobs[0];
    assert_eq!(
        (&g["job"], &g["followed"], &g["ok"], &g["reason"], &g["status"]),
        (
            &"g".into(),
            &true.into(),
            &true.into(),
            &serde_json::Value::Null,
            &"live".into()
        ),
        "{jobs}"
    );
    nats.kill();
    // the connection's loss first, then the job's follower says it reconnects
    let start = Instant::now();
    let mut down = loop {
        let (status, doc) = health(serve.port, "/healthz").await;
        if status == 503 && doc["jobs"][0]["reason"].is_string() {
            break doc;
        }
        assert!(start.elapsed() < PATIENCE, "still {status}: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let reconnecting = format!(
        "reconnecting: the connection to nats://127.0.0.1:{} was lost; reconnecting",
        nats.port
    );
    let jobs = down.as_object_mut().unwrap().remove("jobs").unwrap();
    assert_eq!(
        down,
        serde_json::json!({"ok": false, "jobs_followed": 1, "nats_connected": false,
            "reasons": ["the connection to NATS is lost (reconnecting)"]})
    );
    assert_eq!(
        (&jobs[0]["job"], &jobs[0]["ok"], &jobs[0]["reason"]),
        (&"g".into(), &true.into(), &reconnecting.into()),
        "{jobs}"
    );
    nats.restart();
    let up = health_until(serve.port, 200).await;
    assert_eq!(up["nats_connected"], true);
    serve.stop();
}

/// Every kind of route, under the prefix: (path, what its body holds).
const UNDER: [(&str, &str); 7] = [
    ("/planner/", "<title>t</title>"),
    ("/planner/index.html", "<title>t</title>"),
    ("/planner/snapshot.json", "spate-planner-snapshot/1"),
    ("/planner/api/jobs", "\"jobs\""),
    ("/planner/api/snapshot?job=g", "spate_coordination_g_state"),
    ("/planner/healthz", "\"nats_connected\":true"),
    ("/planner/metrics", "spate_planner_nats_connected 1"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_answers_under_the_base_path_only() {
    let nats = NatsServer::start(true);
    let serve = server(&nats, &["--base-path", "/planner/"]).await;
    let port = serve.port;
    assert!(
        serve
            .stdout_line
            .ends_with(&format!("127.0.0.1:{port}/planner/\n")),
        "{}",
        serve.stdout_line
    );
    for (path, needle) in UNDER {
        let (status, head, body) = get(port, path).await;
        assert_eq!(status, 200, "{path}: {head}\n{body}");
        assert!(body.contains(needle), "{path}: {body}");
        assert!(head.contains("content-security-policy:"), "{path}: {head}");
    }
    let mut sse = Sse::connect(port, "/planner/api/live?job=g", None).await;
    assert!(
        sse.head.starts_with("HTTP/1.1 200") || sse.head.starts_with("HTTP/1.0 200"),
        "{}",
        sse.head
    );
    let first = sse.next(PATIENCE).await.expect("an event");
    assert_eq!(first.event, "snapshot", "{first:?}");
    for outside in [
        "/",
        "/index.html",
        "/snapshot.json",
        "/api/jobs",
        "/api/live?job=g",
        "/healthz",
        "/metrics",
        "/plannerx/",
        "/other/planner/",
        "/Planner/",
    ] {
        let (status, head, body) = get(port, outside).await;
        assert_eq!(status, 404, "{outside}: {head}\n{body}");
        assert!(body.contains("under /planner/"), "{outside}: {body}");
        assert!(head.contains("content-security-policy:"), "{outside}: {head}");
    }
    for (bare, to) in [("/planner", "planner/"), ("/planner?job=g", "planner/?job=g")] {
        let (status, head, _) = get(port, bare).await;
        assert_eq!(status, 308, "{bare}: {head}");
        assert!(
            head.contains(&format!("location: {to}\r\n")) || head.ends_with(&format!("location: {to}")),
            "{bare}: {head}"
        );
    }
    // The host check holds under the prefix too.
    let (status, _, body) = request(port, "GET /planner/ HTTP/1.0\r\nHost: rebind.example\r\n\r\n").await;
    assert_eq!(status, 403, "{body}");
    serve.stop();
}
