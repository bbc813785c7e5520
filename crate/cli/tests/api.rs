//! The automation API (issue 34, docs/api.md) against the real `serve`: every document it
//! answers is, to the byte, what `plan --json` / `claims --json` print for the same snapshot,
//! scenario and options (a posted snapshot; a followed job's state, exported with
//! `/api/snapshot` at the same revisions and time, on a real NATS server); every bad request is
//! a coded JSON error with its status; the API answers under `--base-path` and for our hosts
//! only; and the OpenAPI document passes `openapi-spec-validator` and a `schemathesis run` of
//! every check against the running server (both from PyPI, installed by scripts/setup).

use crate::fixture;
use crate::live_client;
use crate::nats_server;

use async_nats::jetstream;
use live_client::{get, request, Serve, BIN};
use nats_server::NatsServer;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A directory of this test's files.
fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-api-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// What the command prints; it must succeed.
fn cli_ok(args: &[&str]) -> String {
    let o = cli(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A demo snapshot of `splits` × `members`, written to `dir`.
fn demo(dir: &Path, splits: u32, members: u32) -> PathBuf {
    let file = dir.join(format!("demo-{splits}x{members}.json"));
    cli_ok(&[
        "demo",
        "--splits",
        &splits.to_string(),
        "--members",
        &members.to_string(),
        "-o",
        file.to_str().unwrap(),
    ]);
    file
}

/// A POST of `body` as `content_type` (HTTP/1.0: the answer ends with the connection).
async fn post(port: u16, path: &str, content_type: &str, body: &str) -> (u16, String, String) {
    request(
        port,
        &format!(
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
    .await
}

async fn post_json(port: u16, path: &str, body: &str) -> (u16, String, String) {
    post(port, path, "application/json", body).await
}

/// The request object for `snapshot` (a file's text, embedded as it is), with more members.
fn body_of(snapshot: &Path, more: &[(&str, String)]) -> String {
    let mut body = format!("{{\"snapshot\": {}", std::fs::read_to_string(snapshot).unwrap());
    for (k, v) in more {
        body.push_str(&format!(", \"{k}\": {v}"));
    }
    body.push('}');
    body
}

/// An error answer: its status, its document (which must be one), and the headers.
fn error_doc(status: u16, head: &str, body: &str) -> Value {
    assert!(
        head.contains("content-type: application/json"),
        "{status}: {head}\n{body}"
    );
    let doc: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let code = doc["code"].as_str().unwrap_or_else(|| panic!("no code: {body}"));
    assert!(
        !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
        "{body}"
    );
    assert!(doc["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    doc
}

/// Asserts an answer is the error `code` with `status`.
fn assert_error(answer: &(u16, String, String), status: u16, code: &str) -> Value {
    let (s, head, body) = answer;
    assert_eq!(*s, status, "{head}\n{body}");
    let doc = error_doc(*s, head, body);
    assert_eq!(doc["code"], code, "{body}");
    doc
}

/// `text` %-encoded for a query (every byte outside the unreserved set).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A scenario that sets the leader's settings, adds a member, and has a change that does not
/// apply (refused, left out; with `strict`, an error).
const SCENARIO: &str = r#"{
  "format": "spate-planner-scenario/1",
  "default_cap": 6,
  "rebalance_delay_ms": "0",
  "changes": [
    {"op": "add_member", "member": "worker-new", "cap": 3},
    {"op": "remove_member", "member": "nobody", "departure": "crash"},
    {"op": "set_cap", "member": "worker-01", "cap": 2}
  ]
}"#;

/// A scenario whose every change applies, with the workers' max_attempts.
const CLEAN: &str = r#"{"max_attempts": 2, "changes": [{"op": "remove_member", "member": "worker-02", "departure": "graceful"}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posted_snapshots_are_planned_to_the_byte_as_the_command_line_prints_them() {
    let d = dir("posted");
    let snap = demo(&d, 300, 6);
    let snap_path = snap.to_str().unwrap();
    let scenario = d.join("scenario.json");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let clean = d.join("clean.json");
    std::fs::write(&clean, CLEAN).unwrap();
    let (sc, cl) = (scenario.to_str().unwrap(), clean.to_str().unwrap());
    let serve = Serve::start(&[]);
    let port = serve.port;

    // (route, request members, the command line's arguments after the snapshot)
    type Case<'a> = (&'a str, Vec<(&'a str, String)>, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        ("plan", vec![], vec![]),
        ("plan", vec![("scenario", SCENARIO.into())], vec!["--what-if", sc]),
        ("plan", vec![("scenario", "null".into())], vec![]),
        (
            "plan",
            vec![("scenario", CLEAN.into()), ("max_attempts", "7".into())],
            vec!["--what-if", cl, "--max-attempts", "7"],
        ),
        (
            "plan",
            vec![("scenario", CLEAN.into()), ("strict", "true".into())],
            vec!["--what-if", cl, "--strict"],
        ),
        (
            "plan",
            vec![("max_attempts", "1".into())],
            vec!["--max-attempts", "1"],
        ),
        ("claims", vec![], vec![]),
        (
            "claims",
            vec![("after_plan", "true".into())],
            vec!["--after-plan"],
        ),
        (
            "claims",
            vec![("instance", "\"worker-01\"".into()), ("max_attempts", "2".into())],
            vec!["--instance", "worker-01", "--max-attempts", "2"],
        ),
        (
            "claims",
            vec![("scenario", SCENARIO.into()), ("after_plan", "true".into())],
            vec!["--what-if", sc, "--after-plan"],
        ),
    ];
    for (route, members, args) in &cases {
        let (status, head, body) =
            post_json(port, &format!("/api/v1/{route}"), &body_of(&snap, members)).await;
        assert_eq!(status, 200, "{route} {members:?}: {body}");
        assert!(head.contains("content-type: application/json"), "{head}");
        assert!(
            head.contains("content-security-policy:"),
            "the security headers: {head}"
        );
        let mut cmd = vec![*route, snap_path];
        cmd.extend(args);
        cmd.push("--json");
        let printed = cli_ok(&cmd);
        assert_eq!(body, printed, "{route} {members:?} differs from {cmd:?}");
    }
    // The what-if's refused change is listed in the document, as the CLI lists it.
    let (_, _, body) = post_json(
        port,
        "/api/v1/plan",
        &body_of(&snap, &[("scenario", SCENARIO.into())]),
    )
    .await;
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc["refused"][0]["code"], "unknown_member");
    assert_eq!(doc["refused"][0]["index"], 1);

    // The document's own request examples are planned.
    let kept: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json")).unwrap(),
    )
    .unwrap();
    for route in ["plan", "claims"] {
        let examples = &kept["paths"][format!("/{route}")]["post"]["requestBody"]["content"]
            ["application/json"]["examples"];
        for (name, example) in examples.as_object().unwrap() {
            let (status, _, body) =
                post_json(port, &format!("/api/v1/{route}"), &example["value"].to_string()).await;
            assert_eq!(status, 200, "{route} example {name}: {body}");
        }
    }

    // Strict: the CLI fails, the API says why with every change left out.
    let o = cli(&["plan", snap_path, "--what-if", sc, "--strict", "--json"]);
    assert!(!o.status.success());
    let answer = post_json(
        port,
        "/api/v1/plan",
        &body_of(&snap, &[("scenario", SCENARIO.into()), ("strict", "true".into())]),
    )
    .await;
    let e = assert_error(&answer, 422, "unknown_member");
    assert_eq!(e["field"], "scenario");
    assert_eq!(e["path"], "changes[1].member");
    assert_eq!(e["refused"], doc["refused"], "the plan document's refused");
    serve.stop();
    let _ = std::fs::remove_dir_all(&d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_request_is_a_coded_error_with_its_status() {
    let d = dir("bad");
    let snap = demo(&d, 2, 1);
    let text = std::fs::read_to_string(&snap).unwrap();
    let serve = Serve::start(&["--api-max-body", "8192"]);
    let port = serve.port;
    let plan = "/api/v1/plan";

    // 400: not JSON, truncated, empty, not the request object, a typed member null.
    assert_error(&post_json(port, plan, "{nope").await, 400, "not_json");
    assert_error(&post_json(port, plan, "{\"snapshot\": {").await, 400, "truncated");
    assert_error(&post_json(port, plan, "").await, 400, "empty");
    let e = assert_error(&post_json(port, plan, "{}").await, 400, "invalid_request");
    assert_eq!(e["field"], "body");
    for bad in [
        "[]",
        r#"{"snapshot": {}, "extra": 1}"#,
        r#"{"snapshot": {}, "max_attempts": -1}"#,
        r#"{"snapshot": {}, "max_attempts": 2.5}"#,
        r#"{"snapshot": {}, "strict": null}"#,
        r#"{"snapshot": {}, "after_plan": true}"#,
        r#"{"snapshot": {}, "snapshot": {}}"#,
    ] {
        assert_error(&post_json(port, plan, bad).await, 400, "invalid_request");
    }
    let bytes = request(
        port,
        &format!("POST {plan} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n\"\u{0}\""),
    )
    .await;
    assert_eq!(bytes.0, 400);
    // 415: a body that is not JSON by its type, or of no type.
    let e = assert_error(
        &post(port, plan, "text/plain", &body_of(&snap, &[])).await,
        415,
        "unsupported_media_type",
    );
    assert_eq!(e["field"], "body");
    let no_type = request(
        port,
        &format!("POST {plan} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 2\r\n\r\n{{}}"),
    )
    .await;
    assert_error(&no_type, 415, "unsupported_media_type");
    assert_eq!(
        post(
            port,
            plan,
            "application/json; charset=utf-8",
            &body_of(&snap, &[])
        )
        .await
        .0,
        200
    );
    // 413: a body past --api-max-body, by its length (refused before it is read) or as read.
    let big = body_of(
        &snap,
        &[(
            "scenario",
            format!("{{\"changes\": [], \"x\": \"{}\"}}", "a".repeat(8192)),
        )],
    );
    assert_error(&post_json(port, plan, &big).await, 413, "too_large");
    let chunk = format!("{:x}\r\n{big}\r\n0\r\n\r\n", big.len());
    let chunked = request(
        port,
        &format!("POST {plan} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{chunk}"),
    )
    .await;
    assert_error(&chunked, 413, "too_large");
    // 422: a snapshot the core refuses (its code, bucket, key), a scenario, an instance.
    let schema4 = text.replacen("\"schema\":3", "\"schema\":4", 1);
    let e = assert_error(
        &post_json(port, plan, &format!("{{\"snapshot\": {schema4}}}")).await,
        422,
        "wrong_schema",
    );
    assert_eq!(e["field"], "snapshot");
    assert_eq!(e["bucket"], "spate_coordination_demo_state");
    assert_eq!(e["key"], "plan");
    let e = assert_error(
        &post_json(port, plan, r#"{"snapshot": {"a": 1}}"#).await,
        422,
        "not_a_snapshot",
    );
    assert_eq!(e["field"], "snapshot");
    let e = assert_error(
        &post_json(port, plan, r#"{"snapshot": []}"#).await,
        422,
        "invalid_field",
    );
    assert_eq!(e["field"], "snapshot");
    let e = assert_error(
        &post_json(port, plan, &body_of(&snap, &[("scenario", "[]".into())])).await,
        422,
        "invalid_scenario",
    );
    assert_eq!((&e["field"], &e["path"]), (&json!("scenario"), &json!("$")));
    let e = assert_error(
        &post_json(
            port,
            "/api/v1/claims",
            &body_of(&snap, &[("instance", "\"nobody\"".into())]),
        )
        .await,
        422,
        "not_a_member",
    );
    assert_eq!(e["field"], "instance");
    // 405 with Allow; 404 for a route that is not there, and for the jobs without --server.
    let e = assert_error(&get(port, plan).await, 405, "method_not_allowed");
    assert!(e["message"].as_str().unwrap().contains("POST"));
    let (_, head, _) = get(port, plan).await;
    assert!(head.contains("allow: POST"), "{head}");
    let (_, head, _) = post_json(port, "/api/v1/openapi.json", "{}").await;
    assert!(head.contains("allow: GET, HEAD"), "{head}");
    let (_, head, _) = post_json(port, "/api/v1/jobs/g/plan", "{}").await;
    assert!(
        head.contains("405 Method Not Allowed") && head.contains("allow: GET, HEAD"),
        "{head}"
    );
    assert_error(&get(port, "/api/v1/nothing").await, 404, "not_found");
    assert_error(&get(port, "/api/v1").await, 404, "not_found");
    assert_error(&get(port, "/api/v1/jobs/g/plan").await, 404, "not_live_mode");
    // The OpenAPI document as kept in the repository.
    let (status, head, body) = get(port, "/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert!(head.contains("content-type: application/json"), "{head}");
    let kept =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json")).unwrap();
    assert_eq!(body, kept);
    serve.stop();
    let _ = std::fs::remove_dir_all(&d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_under_the_base_path_for_our_hosts_only() {
    let d = dir("base");
    let snap = demo(&d, 2, 1);
    let serve = Serve::start(&["--base-path", "/planner"]);
    let port = serve.port;
    let (status, _, body) = post_json(port, "/planner/api/v1/plan", &body_of(&snap, &[])).await;
    assert_eq!(status, 200);
    assert_eq!(body, cli_ok(&["plan", snap.to_str().unwrap(), "--json"]));
    assert_eq!(post_json(port, "/api/v1/plan", &body_of(&snap, &[])).await.0, 404);
    let (status, _, body) = get(port, "/planner/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        doc["servers"][0]["url"], "/planner/api/v1",
        "routes resolve under the prefix"
    );
    assert_error(&get(port, "/planner/api/v1/nothing").await, 404, "not_found");
    // Another Host or Origin: refused before any route runs.
    for extra in [
        "Host: evil.example\r\n",
        "Host: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n",
    ] {
        let extra = extra.replace("{port}", &port.to_string());
        let body = body_of(&snap, &[]);
        let (status, _, text) = request(
            port,
            &format!(
                "POST /planner/api/v1/plan HTTP/1.0\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
        .await;
        assert_eq!(status, 403, "{extra}: {text}");
        assert!(text.starts_with("refused: "), "{text}");
    }
    serve.stop();
    let _ = std::fs::remove_dir_all(&d);
}

/// The followed job's state exported by the server as a snapshot file, at the revisions and
/// with the `taken_at_ms` of a document it answered: the file the CLI is given to compare.
async fn state_file(port: u16, job: &str, revisions: &str, taken_at_ms: &str, file: &Path) -> bool {
    let (status, head, body) = get(port, &format!("/api/snapshot?job={job}")).await;
    assert_eq!(status, 200, "{body}");
    if !head.contains(&format!("x-spate-revisions: {revisions}")) {
        return false;
    }
    let at = "\n  \"taken_at_ms\": ";
    let start = body.find(at).unwrap() + at.len();
    let end = start + body[start..].find(',').unwrap();
    let text = format!("{}{taken_at_ms}{}", &body[..start], &body[end..]);
    std::fs::write(file, text).unwrap();
    true
}

/// A followed job's document compared with the CLI's for the state it planned (asked again if
/// the state moved in between).
async fn assert_job_document(port: u16, job: &str, route: &str, query: &str, args: &[&str], file: &Path) {
    for _ in 0..5 {
        let path = format!("/api/v1/jobs/{job}/{route}{query}");
        let (status, head, body) = get(port, &path).await;
        assert_eq!(status, 200, "{path}: {body}");
        let revisions = head
            .lines()
            .find_map(|l| l.strip_prefix("x-spate-revisions: "))
            .unwrap_or_else(|| panic!("no revisions: {head}"))
            .trim()
            .to_string();
        let doc: Value = serde_json::from_str(&body).unwrap();
        let taken = doc["taken_at_ms"].as_str().unwrap();
        if !state_file(port, job, &revisions, taken, file).await {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        let mut cmd = vec![route, file.to_str().unwrap()];
        cmd.extend(args);
        cmd.push("--json");
        assert_eq!(body, cli_ok(&cmd), "{path} differs from {cmd:?}");
        return;
    }
    panic!("the job's state never stood still for a comparison");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_jobs_documents_are_the_command_lines_of_its_state() {
    let d = dir("followed");
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "g").await;
    let serve = Serve::start(&["--server", &nats.url()]);
    let port = serve.port;
    let file = d.join("state.json");
    let scenario = d.join("scenario.json");
    let what_if = r#"{"changes": [{"op": "add_member", "member": "w-new", "cap": 2}, {"op": "set_cap", "member": "nobody", "cap": 1}]}"#;
    std::fs::write(&scenario, what_if).unwrap();
    let sc = scenario.to_str().unwrap();
    let q = format!("?scenario={}&max_attempts=3", encode(what_if));
    let form = format!("?scenario={}", encode(what_if).replace("%20", "+"));
    assert_job_document(port, "g", "plan", "", &[], &file).await;
    assert_job_document(
        port,
        "g",
        "plan",
        &q,
        &["--what-if", sc, "--max-attempts", "3"],
        &file,
    )
    .await;
    assert_job_document(port, "g", "plan", &form, &["--what-if", sc], &file).await;
    assert_job_document(port, "g", "claims", "", &[], &file).await;
    assert_job_document(
        port,
        "g",
        "claims",
        "?after_plan=true&instance=w-a&strict=false",
        &["--after-plan", "--instance", "w-a"],
        &file,
    )
    .await;
    assert_job_document(
        port,
        "g",
        "claims",
        &q,
        &["--what-if", sc, "--max-attempts", "3"],
        &file,
    )
    .await;

    let e = assert_error(
        &get(port, &format!("/api/v1/jobs/g/plan{q}&strict=true")).await,
        422,
        "unknown_member",
    );
    assert_eq!(e["refused"][0]["index"], 1);
    let e = assert_error(&get(port, "/api/v1/jobs/nothing/plan").await, 404, "unknown_job");
    assert_eq!(e["field"], "job");
    assert_error(
        &get(port, "/api/v1/jobs/no%20such/plan").await,
        400,
        "invalid_job",
    );
    assert_error(
        &get(port, &format!("/api/v1/jobs/{}/plan", "a".repeat(65))).await,
        400,
        "invalid_job",
    );
    for q in [
        "x=1",
        "max_attempts=many",
        "strict=yes",
        "max_attempts=1&max_attempts=2",
        "after_plan=true",
    ] {
        let e = assert_error(
            &get(port, &format!("/api/v1/jobs/g/plan?{q}")).await,
            400,
            "invalid_parameter",
        );
        assert!(e["field"].is_string(), "{e}");
    }
    assert_error(&get(port, "/api/v1/jobs/g/plan?scenario=").await, 422, "empty");
    assert_error(
        &get(port, "/api/v1/jobs/g/claims?instance=nobody").await,
        422,
        "not_a_member",
    );

    // The connection lost: the state held may not be the store's, so no plan of it.
    let mut nats = nats;
    nats.kill();
    let start = Instant::now();
    loop {
        let answer = get(port, "/api/v1/jobs/g/plan").await;
        if answer.0 == 503 {
            let e = assert_error(&answer, 503, "not_live");
            assert_eq!(e["field"], "job");
            assert!(answer.1.contains("retry-after: 2"), "{}", answer.1);
            break;
        }
        assert_eq!(answer.0, 200, "{}", answer.2);
        assert!(start.elapsed() < Duration::from_secs(30), "never refused");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    serve.stop();
    let _ = std::fs::remove_dir_all(&d);
}

/// A tool from PyPI (scripts/setup installs it): `$ENV`, else Python's scripts directory, else
/// the PATH; the test fails saying how to install it.
fn python_tool(name: &str, env: &str) -> PathBuf {
    if let Ok(p) = std::env::var(env) {
        return PathBuf::from(p);
    }
    let scripts = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_path('scripts'))"])
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if let Some(p) = scripts.map(|s| s.join(name)).filter(|p| p.is_file()) {
        return p;
    }
    let on_path = Command::new(name).arg("--version").output().is_ok();
    assert!(
        on_path,
        "{name} is not installed: run scripts/setup (it installs the pinned PyPI package), or set {env}"
    );
    PathBuf::from(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_is_valid_and_schemathesis_finds_nothing_against_the_server() {
    let d = dir("schemathesis");
    let validator = python_tool("openapi-spec-validator", "OPENAPI_SPEC_VALIDATOR");
    let schemathesis = python_tool("schemathesis", "SCHEMATHESIS");
    let kept = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
    let o = Command::new(&validator).arg(kept).output().unwrap();
    assert!(
        o.status.success(),
        "openapi-spec-validator {kept}:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );

    // A followed job named as the settings name it, so that its routes are answered 200.
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "orders").await;
    let serve = Serve::start(&["--server", &nats.url(), "--base-path", "/planner"]);
    let port = serve.port;
    let (status, _, served) = get(port, "/planner/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    let served_file = d.join("served-openapi.json");
    std::fs::write(&served_file, served).unwrap();
    let o = Command::new(&validator).arg(&served_file).output().unwrap();
    assert!(
        o.status.success(),
        "the served document: {}",
        String::from_utf8_lossy(&o.stdout)
    );

    let settings = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis.toml");
    let started = Instant::now();
    let o = Command::new(&schemathesis)
        .current_dir(&d)
        .args(["--no-color", "--config-file", settings, "run"])
        .arg(format!("http://127.0.0.1:{port}/planner/api/v1/openapi.json"))
        .args([
            "--checks",
            "all",
            "--max-examples",
            "40",
            "--seed",
            "34",
            "--workers",
            "1",
        ])
        .args(["--report", "junit", "--report-dir"])
        .arg(d.join("report"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    println!(
        "{out}\n(schemathesis took {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    assert!(
        o.status.success(),
        "schemathesis found failures:\n{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Every operation but the one serving the document itself, which schemathesis leaves out.
    assert!(out.contains("Tested: 4"), "every operation tested: {out}");
    let report = std::fs::read_dir(d.join("report"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let junit = std::fs::read_to_string(report).unwrap();
    for op in [
        "POST /plan",
        "POST /claims",
        "GET /jobs/{job}/plan",
        "GET /jobs/{job}/claims",
    ] {
        assert!(
            junit.contains(&format!("testcase name=\"{op}\"")),
            "{op}: {junit}"
        );
    }
    serve.stop();
    let _ = std::fs::remove_dir_all(&d);
}
