//! Many jobs per server (issue 34): `serve --server` without `--job` follows every job on a
//! real NATS server, finds a job created later and drops one deleted; `--max-jobs` caps the jobs
//! followed and says which are not (in `/api/jobs`, `/healthz` and `/metrics`); `--job` (several)
//! and `--jobs PATTERN` choose the jobs, and a named job that cannot be read makes the server
//! not ready.

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::patience;

use async_nats::jetstream;
use live_client::{get, Serve, BIN};
use nats_server::NatsServer;
use patience::PATIENCE;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

async fn js(nats: &NatsServer) -> jetstream::Context {
    jetstream::new(async_nats::connect(nats.url()).await.unwrap())
}

/// A JSON route: (status, document).
async fn json(port: u16, path: &str) -> (u16, Value) {
    let (status, head, body) = get(port, path).await;
    assert!(head.contains("content-type: application/json"), "{path}: {head}");
    let doc = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
    (status, doc)
}

/// `/healthz`'s `jobs`, by name: (followed, ok, reason).
fn health_jobs(doc: &Value) -> BTreeMap<String, (bool, bool, Option<String>)> {
    doc["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs list: {doc}"))
        .iter()
        .map(|j| {
            let reason = j["reason"].as_str().map(str::to_string);
            let flags = (j["followed"].as_bool().unwrap(), j["ok"].as_bool().unwrap());
            (j["job"].as_str().unwrap().to_string(), (flags.0, flags.1, reason))
        })
        .collect()
}

/// Asks `path` until `done` holds of its document (for up to [`PATIENCE`]): the document then,
/// and how long it took.
async fn json_until(port: u16, path: &str, done: impl Fn(u16, &Value) -> bool) -> (Value, Duration) {
    let start = Instant::now();
    loop {
        let (status, doc) = json(port, path).await;
        if done(status, &doc) {
            return (doc, start.elapsed());
        }
        assert!(start.elapsed() < PATIENCE, "{path} still {status}: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The `/metrics` text.
async fn metrics(port: u16) -> String {
    let (status, _, text) = get(port, "/metrics").await;
    assert_eq!(status, 200, "{text}");
    text
}

/// The value of series `key` (name and labels as written), if the scrape has it.
fn series<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
}

fn members_key(job: &str) -> String {
    format!("spate_planner_members{{spate_job=\"{job}\"}}")
}

/// Deletes both of `job`'s buckets.
async fn delete_job(js: &jetstream::Context, job: &str) {
    for side in ["state", "lease"] {
        js.delete_key_value(format!("spate_coordination_{job}_{side}"))
            .await
            .unwrap();
    }
}

/// `promtool check metrics` on `text` (Debian's prometheus; `PROMTOOL` names another).
fn promtool_check(text: &str) {
    use std::io::Write;
    let bin = std::env::var("PROMTOOL").unwrap_or_else(|_| "/usr/bin/promtool".into());
    let mut child = std::process::Command::new(&bin)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin}: {e} (scripts/setup --browser installs prometheus)"));
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success() && said.trim().is_empty(), "promtool: {said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_job_every_job_is_followed_found_when_created_and_dropped_when_deleted() {
    let nats = NatsServer::start(true);
    let js = js(&nats).await;
    for job in ["alpha", "beta", "gamma"] {
        fixture::write_job(&js, job).await;
    }
    let serve = Serve::start(&["--server", &nats.url(), "--jobs-interval", "2"]);
    let port = serve.port;
    let (doc, _) = json_until(port, "/healthz", |s, d| s == 200 && d["jobs_followed"] == 3).await;
    let jobs = health_jobs(&doc);
    assert_eq!(
        jobs.keys().collect::<Vec<_>>(),
        ["alpha", "beta", "gamma"],
        "{doc}"
    );
    assert!(jobs.values().all(|j| *j == (true, true, None)), "{doc}");

    // each job's plan, labelled with its name, the same fleet written three times
    let text = metrics(port).await;
    for job in ["alpha", "beta", "gamma"] {
        assert_eq!(series(&text, &members_key(job)), Some("4"), "{job}:\n{text}");
        let ok = format!("spate_planner_plan_ok{{spate_job=\"{job}\"}}");
        assert_eq!(series(&text, &ok), Some("1"), "{job}");
        let followed = format!("spate_planner_job_followed{{spate_job=\"{job}\"}}");
        assert_eq!(series(&text, &followed), Some("1"), "{job}");
    }
    assert_eq!(series(&text, "spate_planner_jobs_followed"), Some("3"));
    assert_eq!(series(&text, "spate_planner_jobs_max"), Some("50"));
    promtool_check(&text);
    eprintln!("3 jobs: /metrics {} bytes", text.len());

    // the job list says so too, with the counts of the state held
    let (status, list) = json(port, "/api/jobs").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        (list["max_jobs"].as_u64(), list["followed"].as_u64()),
        (Some(50), Some(3))
    );
    for j in list["jobs"].as_array().unwrap() {
        assert_eq!(j["followed"], true, "{j}");
        assert_eq!(j["status"], "live", "{j}");
        assert_eq!(
            (j["members"].as_u64(), j["splits"].as_u64()),
            (Some(4), Some(16)),
            "{j}"
        );
        assert_eq!(j["reason"], Value::Null, "{j}");
    }

    // a job created later is found and followed
    fixture::write_job(&js, "delta").await;
    let (_, took) = json_until(port, "/healthz", |_, d| {
        health_jobs(d).get("delta") == Some(&(true, true, None)) && d["jobs_followed"] == 4
    })
    .await;
    eprintln!("a job created was followed {took:?} later (listing every 2 s)");
    assert_eq!(series(&metrics(port).await, &members_key("delta")), Some("4"));

    // a job deleted is dropped: out of the lists and its series gone
    delete_job(&js, "beta").await;
    let (doc, took) = json_until(port, "/healthz", |s, d| {
        s == 200 && !health_jobs(d).contains_key("beta") && d["jobs_followed"] == 3
    })
    .await;
    eprintln!("a job deleted was dropped {took:?} later");
    assert_eq!(health_jobs(&doc).len(), 3, "{doc}");
    let text = metrics(port).await;
    assert!(!text.contains("spate_job=\"beta\""), "{text}");
    assert_eq!(series(&text, &members_key("delta")), Some("4"));
    let (_, list) = json(port, "/api/jobs").await;
    let names: Vec<&str> = list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["job"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "delta", "gamma"]);
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_cap_jobs_are_listed_as_not_followed_and_a_page_may_still_open_them() {
    let nats = NatsServer::start(true);
    let js = js(&nats).await;
    for job in ["j1", "j2", "j3"] {
        fixture::write_job(&js, job).await;
    }
    let serve = Serve::start(&["--server", &nats.url(), "--max-jobs", "2"]);
    let port = serve.port;
    let (doc, _) = json_until(port, "/healthz", |_, d| {
        d["jobs_followed"] == 2 && health_jobs(d).len() == 3
    })
    .await;
    let jobs = health_jobs(&doc);
    assert_eq!(jobs["j1"], (true, true, None), "{doc}");
    assert_eq!(jobs["j2"], (true, true, None), "{doc}");
    let past = &jobs["j3"];
    assert_eq!(
        (past.0, past.1),
        (false, true),
        "not followed, and not a reason to be unready: {doc}"
    );
    let why = past.2.as_deref().unwrap();
    assert!(
        why.contains("not followed: 2 jobs are followed already (serve --max-jobs)"),
        "{why}"
    );
    assert_eq!(doc["ok"], true);

    let text = metrics(port).await;
    assert_eq!(
        series(&text, "spate_planner_job_followed{spate_job=\"j3\"}"),
        Some("0")
    );
    assert_eq!(
        series(&text, "spate_planner_job_followed{spate_job=\"j1\"}"),
        Some("1")
    );
    assert_eq!(
        series(&text, &members_key("j3")),
        None,
        "no plan of a job not followed"
    );
    assert_eq!(series(&text, "spate_planner_jobs_max"), Some("2"));
    promtool_check(&text);

    let (_, list) = json(port, "/api/jobs").await;
    let j3 = list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["job"] == "j3")
        .unwrap();
    assert_eq!(j3["followed"], false, "{j3}");
    assert_eq!(j3["reason"].as_str(), Some(why), "{j3}");
    assert_eq!(
        (j3["status"].clone(), j3["members"].clone()),
        (Value::Null, Value::Null),
        "{j3}"
    );

    // a page opens it on demand: it is then held (not followed from the start)
    let (status, _, body) = get(port, "/api/snapshot?job=j3").await;
    assert_eq!(status, 200, "{body}");
    let (_, list) = json(port, "/api/jobs").await;
    let j3 = list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["job"] == "j3")
        .unwrap();
    assert_eq!(
        (j3["followed"].clone(), j3["status"].clone()),
        (Value::Bool(false), "live".into()),
        "{j3}"
    );
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_and_patterns_choose_the_jobs_and_a_named_job_that_cannot_be_read_is_not_ready() {
    let nats = NatsServer::start(true);
    let js = js(&nats).await;
    for job in ["orders-eu", "orders-us", "billing", "audit"] {
        fixture::write_job(&js, job).await;
    }
    let url = nats.url();
    let serve = Serve::start(&[
        "--server",
        &url,
        "--jobs",
        "orders-*",
        "--job",
        "audit",
        "--jobs-interval",
        "1",
    ]);
    let port = serve.port;
    let (doc, _) = json_until(port, "/healthz", |_, d| d["jobs_followed"] == 3).await;
    let jobs = health_jobs(&doc);
    assert_eq!(
        jobs.keys().collect::<Vec<_>>(),
        ["audit", "orders-eu", "orders-us"],
        "{doc}"
    );
    let (_, list) = json(port, "/api/jobs").await;
    assert_eq!(
        list["jobs"].as_array().unwrap().len(),
        3,
        "billing is not listed: {list}"
    );
    let (status, _, body) = get(port, "/api/snapshot?job=billing").await;
    assert_eq!(status, 404, "{body}");
    assert!(
        body.contains(
            "this server follows the jobs \\\"audit\\\", \\\"orders-*\\\" only, not \\\"billing\\\""
        ),
        "{body}"
    );
    assert!(!metrics(port).await.contains("spate_job=\"billing\""));

    // the named job's buckets deleted: it cannot be read, so the server is not ready
    delete_job(&js, "audit").await;
    let (doc, _) = json_until(port, "/healthz", |s, _| s == 503).await;
    let audit = &health_jobs(&doc)["audit"];
    assert_eq!((audit.0, audit.1), (true, false), "{doc}");
    let reasons = doc["reasons"].to_string();
    assert!(reasons.contains("spate_coordination_audit_"), "{reasons}");
    assert!(health_jobs(&doc)["orders-eu"].1, "{doc}");
    // and back once the job is written again
    fixture::write_job(&js, "audit").await;
    let (doc, _) = json_until(port, "/healthz", |s, _| s == 200).await;
    assert_eq!(health_jobs(&doc)["audit"], (true, true, None), "{doc}");
    serve.stop();
}

#[test]
fn more_named_jobs_than_the_cap_or_a_bad_pattern_are_refused_at_start() {
    // a dashboard directory, so that the refusal is about `args` whether or not this build has
    // the dashboard built in
    let dir = std::env::temp_dir().join(format!("spate-many-www-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    let refused = |args: &[&str]| {
        let o = std::process::Command::new(BIN)
            .args(["serve", "--port", "0", "--server", "nats://127.0.0.1:1", "--dir"])
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?} started");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = refused(&["--job", "a", "--job", "b", "--max-jobs", "1"]);
    assert!(e.contains("--job names 2 jobs, more than --max-jobs 1"), "{e}");
    let e = refused(&["--jobs", "orders.*"]);
    assert!(e.contains("--jobs \"orders.*\": a pattern is 1 to 64 of"), "{e}");
    let e = refused(&["--job", "a", "--job", "b", "--record", "/tmp/x"]);
    assert!(e.contains("--record records one job"), "{e}");
    let e = refused(&["--max-jobs", "0"]);
    assert!(e.contains("--max-jobs <N>"), "{e}");
}

/// A NATS configuration: user `planner` may not hear the server's advisories (so only the
/// periodic listing finds jobs), `lister` may not list streams, `writer` may do anything.
fn no_advisories_config(dir: &std::path::Path) -> std::path::PathBuf {
    let conf = dir.join("no-advisories.conf");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        &conf,
        r#"authorization {
  users = [
    { user: planner, password: p1, permissions: { subscribe: { deny: ["$JS.EVENT.>"] } } }
    { user: lister, password: l1, permissions: { publish: { deny: ["$JS.API.STREAM.LIST", "$JS.API.STREAM.NAMES"] } } }
    { user: writer, password: w1 }
  ]
}
"#,
    )
    .unwrap();
    conf
}

/// A JetStream context as `writer` on `nats` (started with [`no_advisories_config`]).
async fn as_writer(nats: &NatsServer) -> jetstream::Context {
    let url = format!("nats://127.0.0.1:{}", nats.port);
    let client = async_nats::ConnectOptions::with_user_and_password("writer".into(), "w1".into())
        .connect(&url)
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    jetstream::new(client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_that_fails_is_said_and_the_named_job_stays_followed() {
    let dir = std::env::temp_dir().join(format!("spate-many-list-{}", std::process::id()));
    let conf = no_advisories_config(&dir);
    let nats = NatsServer::start_with(true, &["-c", conf.to_str().unwrap()]);
    fixture::write_job(&as_writer(&nats).await, "named").await;
    let lister = format!("nats://lister:l1@127.0.0.1:{}", nats.port);
    let serve = Serve::start(&["--server", &lister, "--job", "named", "--timeout", "2"]);
    let port = serve.port;
    let (doc, _) = json_until(port, "/healthz", |_, d| d["listing_error"].is_string()).await;
    let why = doc["listing_error"].as_str().unwrap();
    assert!(why.starts_with("cannot list the server's buckets"), "{why}");
    assert_eq!(doc["ok"], true, "not a reason to be unready: {doc}");
    assert_eq!(health_jobs(&doc)["named"], (true, true, None), "{doc}");
    let (status, list) = json(port, "/api/jobs").await;
    assert_eq!(status, 502, "{list}");
    let error = list["error"].as_str().unwrap();
    assert!(error.starts_with("cannot list the server's buckets"), "{list}");
    let text = metrics(port).await;
    assert_eq!(series(&text, &members_key("named")), Some("4"), "{text}");
    let err = serve.stop();
    assert!(!err.contains("l1@"), "the password is never printed: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_servers_advisories_the_periodic_listing_finds_a_job() {
    let dir = std::env::temp_dir().join(format!("spate-many-conf-{}", std::process::id()));
    let conf = no_advisories_config(&dir);
    let nats = NatsServer::start_with(true, &["-c", conf.to_str().unwrap()]);
    let js = as_writer(&nats).await;
    fixture::write_job(&js, "first").await;
    let planner = format!("nats://planner:p1@127.0.0.1:{}", nats.port);
    let serve = Serve::start(&["--server", &planner, "--jobs-interval", "2"]);
    let port = serve.port;
    json_until(port, "/healthz", |_, d| d["jobs_followed"] == 1).await;
    fixture::write_job(&js, "later").await;
    let (doc, took) = json_until(port, "/healthz", |_, d| {
        health_jobs(d).get("later") == Some(&(true, true, None))
    })
    .await;
    eprintln!("without advisories, a job created was followed {took:?} later (listing every 2 s)");
    assert_eq!(doc["jobs_followed"], 2, "{doc}");
    delete_job(&js, "first").await;
    json_until(port, "/healthz", |_, d| {
        !health_jobs(d).contains_key("first") && d["jobs_followed"] == 1
    })
    .await;
    let err = serve.stop();
    assert!(!err.contains("p1"), "the password is never printed: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rewrites `job`'s `plan` record as it is: a write, and nothing else changed.
async fn touch(js: &jetstream::Context, job: &str) {
    let state = js
        .get_key_value(format!("spate_coordination_{job}_state"))
        .await
        .unwrap();
    let plan = state.get("plan").await.unwrap().unwrap();
    state.put("plan", plan).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_job_is_dropped_said_so_and_followed_again_after_a_write() {
    let nats = NatsServer::start(true);
    let js = js(&nats).await;
    for job in ["busy", "quiet"] {
        fixture::write_job(&js, job).await;
    }
    let args = [
        "--server",
        &nats.url(),
        "--idle-after",
        "4",
        "--jobs-interval",
        "1",
    ];
    let serve = Serve::start(&args);
    let port = serve.port;
    let both = |d: &Value| {
        let j = health_jobs(d);
        j.get("busy").is_some_and(|x| x.0) && j.get("quiet").is_some_and(|x| x.0)
    };
    json_until(port, "/healthz", |_, d| both(d)).await;
    // busy is written to every half second; quiet is not
    let writer = {
        let js = js.clone();
        tokio::spawn(async move {
            loop {
                touch(&js, "busy").await;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        })
    };
    let (doc, took) = json_until(port, "/healthz", |_, d| {
        health_jobs(d).get("quiet").is_some_and(|x| !x.0)
    })
    .await;
    eprintln!("the quiet job was dropped {took:?} after both were followed");
    let jobs = health_jobs(&doc);
    assert_eq!(jobs["busy"], (true, true, None), "{doc}");
    let (followed, ok, why) = &jobs["quiet"];
    assert!(!followed && *ok, "idle is no reason to be unready: {doc}");
    let why = why.as_deref().unwrap();
    assert!(
        why.starts_with("not followed: idle, nothing written to its buckets since 20")
            && why.contains(" UTC (serve --idle-after), so no worker of it runs"),
        "{why}"
    );
    assert_eq!(doc["ok"], true, "{doc}");
    let text = metrics(port).await;
    let idle = |job: &str| format!("spate_planner_job_idle{{spate_job=\"{job}\"}}");
    assert_eq!(series(&text, &idle("quiet")), Some("1"));
    assert_eq!(series(&text, &idle("busy")), Some("0"));
    let last = "spate_planner_job_last_write_timestamp_seconds{spate_job=\"quiet\"}";
    let last: f64 = series(&text, last).unwrap().parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        (4.0..60.0).contains(&(now - last)),
        "last write {last}, now {now}"
    );
    assert_eq!(
        series(&text, &members_key("quiet")),
        None,
        "no plan of an idle job"
    );
    assert_eq!(series(&text, &members_key("busy")), Some("4"));
    promtool_check(&text);
    let (_, list) = json(port, "/api/jobs").await;
    let quiet = list["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["job"] == "quiet")
        .unwrap();
    assert_eq!(quiet["followed"], false, "{quiet}");
    assert!(quiet["reason"].as_str().unwrap().contains("idle"), "{quiet}");

    // a write to the quiet job: followed again at the next listing
    writer.abort();
    touch(&js, "quiet").await;
    let (_, took) = json_until(port, "/healthz", |_, d| {
        health_jobs(d).get("quiet") == Some(&(true, true, None))
    })
    .await;
    eprintln!("the quiet job was followed again {took:?} after a write");
    serve.stop();
}
