//! `/metrics` (issue 21) against a real NATS server: every figure of a followed job equals the
//! plan document that `plan --json` prints for an export of the same revisions (or, for the
//! last publish and the leader, the export's entries); a change to the job moves them; a
//! leader's name that needs escaping is escaped; the route answers under `--base-path` and is
//! checked for `Host` like every route; the server's own figures follow the NATS connection;
//! the Grafana dashboard and docs/metrics.md name exactly what the endpoint exposes.

use crate::fixture;
use crate::live_client;
use crate::nats_server;

use async_nats::jetstream;
use live_client::{get, request, Serve, BIN};
use nats_server::NatsServer;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// One scrape: each series (its name and labels as written) with its value as written.
struct Scrape {
    series: BTreeMap<String, String>,
    /// The families (from `# TYPE` lines).
    families: BTreeSet<String>,
    text: String,
}

impl Scrape {
    fn parse(text: String) -> Scrape {
        let mut series = BTreeMap::new();
        let mut families = BTreeSet::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                families.insert(rest.split(' ').next().unwrap().to_string());
            } else if !line.starts_with('#') && !line.is_empty() {
                let (key, value) = line.rsplit_once(' ').unwrap();
                assert!(
                    series.insert(key.to_string(), value.to_string()).is_none(),
                    "{key} twice"
                );
            }
        }
        Scrape {
            series,
            families,
            text,
        }
    }

    fn text_of(&self, key: &str) -> &str {
        self.series
            .get(key)
            .unwrap_or_else(|| panic!("no series {key} in\n{}", self.text))
    }

    /// A count or bytes: exactly.
    fn int(&self, key: &str) -> u64 {
        let t = self.text_of(key);
        t.parse()
            .unwrap_or_else(|_| panic!("{key} = {t}: not an integer"))
    }

    fn float(&self, key: &str) -> f64 {
        self.text_of(key).parse().unwrap()
    }
}

/// `name{spate_job="g",more…}`.
fn of(name: &str, more: &[(&str, &str)]) -> String {
    let mut labels = vec![format!("spate_job=\"g\"")];
    labels.extend(more.iter().map(|(k, v)| format!("{k}=\"{v}\"")));
    format!("{name}{{{}}}", labels.join(","))
}

async fn scrape(port: u16, path: &str) -> Scrape {
    let (status, head, body) = get(port, path).await;
    assert_eq!(status, 200, "{path}: {head}\n{body}");
    assert!(
        head.contains("content-type: text/plain; version=0.0.4; charset=utf-8"),
        "{head}"
    );
    assert!(
        head.contains("content-security-policy:"),
        "the security headers: {head}"
    );
    Scrape::parse(body)
}

/// Scrapes until `done` holds, for up to 20 s.
async fn scrape_until(port: u16, done: impl Fn(&Scrape) -> bool) -> Scrape {
    let start = Instant::now();
    loop {
        let s = scrape(port, "/metrics").await;
        if done(&s) {
            return s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "not yet:\n{}", s.text);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A count or u64 of the plan document (u64s are strings there).
fn u(v: &Value) -> u64 {
    v.as_str()
        .map(|s| s.parse().unwrap())
        .or_else(|| v.as_u64())
        .unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The job exported with `spate-planner snapshot` and planned with `plan --json`: the export
/// and the plan document.
fn export_and_plan(nats: &NatsServer, tag: &str) -> (Value, Value) {
    let file = std::env::temp_dir().join(format!("spate-metrics-{}-{tag}.json", std::process::id()));
    let out = std::process::Command::new(BIN)
        .args(["snapshot", "--server", &nats.url(), "--job", "g", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan = std::process::Command::new(BIN)
        .arg("plan")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(plan.status.success(), "{}", String::from_utf8_lossy(&plan.stderr));
    let export = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&file);
    (export, serde_json::from_slice(&plan.stdout).unwrap())
}

/// The scrape's revisions: (state, lease).
fn revisions(s: &Scrape) -> (u64, u64) {
    (
        s.int(&of("spate_planner_revision", &[("bucket", "state")])),
        s.int(&of("spate_planner_revision", &[("bucket", "lease")])),
    )
}

/// A scrape and an export at the same revisions (the export taken again if the job moved in
/// between), with the plan of the export.
async fn at_same_revisions(port: u16, nats: &NatsServer, tag: &str) -> (Scrape, Value, Value) {
    for _ in 0..5 {
        let s = scrape(port, "/metrics").await;
        let (export, doc) = export_and_plan(nats, tag);
        let exported = (u(&export["state"]["revision"]), u(&export["lease"]["revision"]));
        if revisions(&s) == exported {
            return (s, export, doc);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    panic!("the metrics and the export never stood at the same revisions")
}

/// Every plan figure of the scrape equals the plan document's, by the mapping docs/metrics.md
/// gives; the last publish and the leader equal the export's entries.
fn assert_equal_to_plan(s: &Scrape, doc: &Value, export: &Value) {
    let (r, sum) = (&doc["report"], &doc["summary"]);
    let c = &r["counts"];
    assert_eq!(s.int(&of("spate_planner_plan_ok", &[])), 1);
    assert_eq!(s.int(&of("spate_planner_members", &[])), u(&sum["members"]));
    let lanes_now: u64 = r["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| u(&m["lanes_now"]))
        .sum();
    let pool = u(&c["splits"])
        - u(&c["completed"])
        - u(&c["quarantined"])
        - u(&c["reserved"])
        - u(&c["waiting_for_spec"]);
    let state = |st: &str| s.int(&of("spate_planner_splits", &[("state", st)]));
    assert_eq!(state("running"), lanes_now);
    assert_eq!(state("idle"), pool - lanes_now);
    assert_eq!(state("withheld"), u(&c["reserved"]));
    for st in ["quarantined", "completed", "waiting_for_spec"] {
        assert_eq!(state(st), u(&c[st]), "{st}");
    }
    for outcome in ["assigned", "queued"] {
        let key = of("spate_planner_planned_splits", &[("outcome", outcome)]);
        assert_eq!(s.int(&key), u(&c[outcome]), "{outcome}");
    }
    for when in ["now", "planned"] {
        let w = [("when", when)];
        assert_eq!(
            s.int(&of("spate_planner_load_max_bytes", &w)),
            u(&sum[when]["max_load"])
        );
        assert_eq!(
            s.float(&of("spate_planner_load_mean_bytes", &w)),
            sum[when]["mean_load"].as_f64().unwrap()
        );
        assert_eq!(
            s.int(&of("spate_planner_members_at_cap", &w)),
            u(&sum[when]["at_cap"])
        );
        assert_eq!(
            s.int(&of("spate_planner_members_over_mean", &w)),
            u(&sum[when]["over_mean"])
        );
    }
    assert_eq!(
        s.int(&of("spate_planner_load_lower_bound_bytes", &[])),
        u(&r["balance"]["lower_bound"])
    );
    assert_eq!(s.int(&of("spate_planner_planned_moves", &[])), u(&sum["moves"]));
    assert_eq!(
        s.int(&of("spate_planner_planned_move_bytes", &[])),
        u(&sum["weight_moved"])
    );
    assert_published(s, doc, export);
    assert_risk(s, doc);
    let leader_publishes = u64::from(doc["leader_publishes"].as_bool().unwrap());
    assert_eq!(
        s.int(&of("spate_planner_leader_publishes", &[])),
        leader_publishes
    );
    assert_eq!(
        s.int(&of("spate_planner_warnings", &[])),
        doc["warnings"].as_array().unwrap().len() as u64
    );
    let findings = doc["findings"].as_array().unwrap();
    for level in ["fatal", "warning", "notice"] {
        let n = findings.iter().filter(|f| f["level"] == level).count() as u64;
        assert_eq!(
            s.int(&of("spate_planner_findings", &[("level", level)])),
            n,
            "{level}"
        );
    }
    let leader = entries(export, "lease")
        .find(|e| e["key"] == "leader")
        .map(|e| e["value"]["owner"].as_str().unwrap().to_string())
        .unwrap_or_default();
    let info = of(
        "spate_planner_job_info",
        &[
            ("leader", &escaped(&leader)),
            ("rules", doc["rules"].as_str().unwrap()),
        ],
    );
    assert_eq!(s.int(&info), 1);
}

/// The splits at risk, past the cap and parked by the race, and the max_attempts they are
/// judged by: the plan document's `at_risk`.
fn assert_risk(s: &Scrape, doc: &Value) {
    let x = &doc["at_risk"];
    let source = x["max_attempts_source"].as_str().unwrap();
    assert_eq!(
        s.int(&of("spate_planner_max_attempts", &[("source", source)])),
        u(&x["max_attempts"])
    );
    assert_eq!(s.int(&of("spate_planner_splits_at_risk", &[])), u(&x["count"]));
    assert_eq!(
        s.int(&of("spate_planner_splits_past_max_attempts", &[])),
        u(&x["past_cap_count"])
    );
    assert_eq!(
        s.int(&of("spate_planner_splits_parked_by_race", &[])),
        u(&x["race_parked_count"])
    );
}

/// A label value as the Prometheus text format writes it.
fn escaped(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn entries<'a>(export: &'a Value, bucket: &str) -> impl Iterator<Item = &'a Value> {
    export[bucket]["entries"].as_array().unwrap().iter()
}

fn assert_published(s: &Scrape, doc: &Value, export: &Value) {
    let p = &doc["published"];
    let records = if p.is_null() { 0 } else { u(&p["records"]) };
    assert_eq!(s.int(&of("spate_planner_published_records", &[])), records);
    let distance = of("spate_planner_published_distance", &[]);
    if p.is_null() {
        assert!(!s.series.contains_key(&distance), "{}", s.text);
    } else {
        assert_eq!(s.int(&distance), u(&p["changes"]));
        let stale = p["stale"].as_array().unwrap().len() as u64;
        assert_eq!(s.int(&of("spate_planner_published_stale_records", &[])), stale);
        let conflicts = p["conflicts"].as_object().unwrap().len() as u64;
        assert_eq!(s.int(&of("spate_planner_published_conflicts", &[])), conflicts);
    }
    let newest = entries(export, "state")
        .filter(|e| e["key"].as_str().unwrap().starts_with("assign."))
        .max_by_key(|e| u(&e["revision"]))
        .map(|e| e["created_ms"].as_i64().unwrap());
    let at = of("spate_planner_last_publish_timestamp_seconds", &[]);
    match newest {
        Some(ms) => assert_eq!(s.float(&at), ms as f64 / 1000.0),
        None => assert!(!s.series.contains_key(&at)),
    }
}

/// The fixture job `g` on a fresh server, followed by `serve --server --job g` with `extra`.
async fn job_served(extra: &[&str]) -> (NatsServer, jetstream::Context, Serve) {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "g").await;
    let url = nats.url();
    let mut args = vec!["--server", url.as_str(), "--job", "g"];
    args.extend(extra);
    let serve = Serve::start(&args);
    (nats, js, serve)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_metrics_are_its_plan_and_move_with_it() {
    let (nats, js, serve) = job_served(&[]).await;
    let port = serve.port;
    let (first, export, doc) = at_same_revisions(port, &nats, "a").await;
    assert_equal_to_plan(&first, &doc, &export);
    // The fixture: no withheld split, two records published, w-a leads.
    assert_eq!(
        first.int(&of("spate_planner_splits", &[("state", "withheld")])),
        0
    );
    assert_eq!(first.int(&of("spate_planner_published_records", &[])), 2);
    // s12 is runnable at attempts 3 = 4 − 1 (Spate's default max_attempts); s-quar, quarantined
    // at 4, has no lease left: not the race's signature.
    let at = |s: &Scrape, name: &str| s.int(&of(name, &[]));
    assert_eq!(at(&first, "spate_planner_splits_at_risk"), 1);
    assert_eq!(at(&first, "spate_planner_splits_parked_by_race"), 0);
    let default = of("spate_planner_max_attempts", &[("source", "spate_default")]);
    assert_eq!(first.int(&default), 4);

    // The state has not moved: the same plan answers again (planned once per state).
    let again = scrape(port, "/metrics").await;
    let took = of("spate_planner_plan_duration_seconds", &[]);
    assert_eq!(again.text_of(&took), first.text_of(&took));
    assert_eq!(revisions(&again), revisions(&first));

    // w-gone departs within the delay: its record lingers, its split s06 is withheld; and a
    // leader whose name needs escaping.
    let state = js.get_key_value("spate_coordination_g_state").await.unwrap();
    let lease = js.get_key_value("spate_coordination_g_lease").await.unwrap();
    let odd = "w\"a\\b\nc";
    fixture::put(
        &lease,
        "leader",
        json!({"schema":3,"owner":odd,"nonce":"lead","generation":2}),
    )
    .await;
    fixture::put(
        &state,
        "assign.w-gone",
        json!({"schema":3,"generation":2,"splits":["s06"]}),
    )
    .await;
    // w-b's claim of s-quar at epoch 5, under its current nonce, then parked at epoch 6
    fixture::put(
        &lease,
        "split.s-quar",
        json!({"schema":3,"owner":"w-b","nonce":"nb","epoch":5}),
    )
    .await;
    scrape_until(port, |s| {
        s.series
            .get(&of("spate_planner_published_records", &[]))
            .map(String::as_str)
            == Some("3")
            && s.series
                .get(&of("spate_planner_splits_parked_by_race", &[]))
                .map(String::as_str)
                == Some("1")
    })
    .await;
    let (later, export, doc) = at_same_revisions(port, &nats, "b").await;
    assert!(revisions(&later) > revisions(&first));
    assert_equal_to_plan(&later, &doc, &export);
    assert_eq!(
        later.int(&of("spate_planner_splits", &[("state", "withheld")])),
        1
    );
    let published = of("spate_planner_last_publish_timestamp_seconds", &[]);
    assert!(later.float(&published) > first.float(&published));
    let info = of(
        "spate_planner_job_info",
        &[("leader", "w\\\"a\\\\b\\nc"), ("rules", "0.1")],
    );
    assert_eq!(later.int(&info), 1, "the leader's name escaped:\n{}", later.text);
    assert!(later.int(&of("spate_planner_changes_total", &[])) >= 2);
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_splits_at_risk_follow_the_servers_max_attempts() {
    let (_nats, _js, serve) = job_served(&["--max-attempts", "2"]).await;
    let s = scrape_until(serve.port, |s| s.text.contains("spate_planner_splits_at_risk")).await;
    assert_eq!(s.int(&of("spate_planner_max_attempts", &[("source", "user")])), 2);
    assert!(!s.text.contains("source=\"spate_default\""), "{}", s.text);
    // runnable at attempts 1 = 2 − 1: s03, s05, s06, s08; at 3 ≥ 2: s12
    assert_eq!(s.int(&of("spate_planner_splits_at_risk", &[])), 4);
    assert_eq!(s.int(&of("spate_planner_splits_past_max_attempts", &[])), 1);
    serve.stop();
}

/// The HELP names of a scrape of the fixture job: every family a scrape can expose.
fn families(s: &Scrape) -> BTreeSet<String> {
    s.families.clone()
}

fn docs(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `spate_planner_…` name in `text`.
fn names_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("spate_planner_") {
        let name: String = rest[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[i + name.len()..];
        out.insert(name);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_and_the_docs_name_what_is_exposed() {
    // recording too: its families are exposed only for a recording
    let rec = std::env::temp_dir().join(format!("spate-metrics-rec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&rec);
    let (_nats, js, serve) = job_served(&["--record", rec.to_str().unwrap()]).await;
    // a change, so that the watch's lag is there too
    let state = js.get_key_value("spate_coordination_g_state").await.unwrap();
    fixture::put(
        &state,
        "assign.w-c",
        json!({"schema":3,"generation":2,"splits":["s09"]}),
    )
    .await;
    let s = scrape_until(serve.port, |s| s.text.contains("spate_planner_watch_lag_seconds")).await;
    let exposed = families(&s);
    // The counters' families are exposed as name_total.
    assert!(exposed.contains("spate_planner_changes_total"), "{}", s.text);
    let dashboard: Value = serde_json::from_str(&docs("grafana-dashboard.json")).unwrap();
    let mut used = BTreeSet::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for t in panel["targets"].as_array().into_iter().flatten() {
            used.extend(names_in(t["expr"].as_str().unwrap()));
        }
    }
    let unknown: Vec<_> = used.difference(&exposed).collect();
    assert!(unknown.is_empty(), "the dashboard uses {unknown:?}, not exposed");
    assert!(used.len() >= 25, "the dashboard shows most families: {used:?}");
    // docs/metrics.md's table lists exactly the families exposed.
    let table: BTreeSet<String> = docs("metrics.md")
        .lines()
        .filter_map(|l| {
            ["spate_planner_", "process_"]
                .into_iter()
                .find_map(|p| l.strip_prefix("| `").filter(|r| r.starts_with(p)))
        })
        .map(|l| l.split('`').next().unwrap().to_string())
        .collect();
    assert_eq!(table, exposed, "docs/metrics.md's table");
    serve.stop();
    let _ = std::fs::remove_dir_all(&rec);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_answer_under_the_base_path_for_our_hosts_only() {
    let (_nats, _js, serve) = job_served(&["--base-path", "/planner"]).await;
    let port = serve.port;
    let s = scrape(port, "/planner/metrics").await;
    assert_eq!(s.int(&of("spate_planner_plan_ok", &[])), 1);
    assert_eq!(s.int("spate_planner_jobs_followed"), 1);
    let (status, _, body) = get(port, "/metrics").await;
    assert_eq!(status, 404, "{body}");
    let (status, head, body) = request(
        port,
        "GET /planner/metrics HTTP/1.0\r\nHost: rebind.example\r\n\r\n",
    )
    .await;
    assert_eq!(status, 403, "{head}\n{body}");
    assert!(body.starts_with("refused: "), "{body}");
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_own_figures_follow_the_nats_connection() {
    let (mut nats, _js, serve) = job_served(&[]).await;
    let port = serve.port;
    let up = scrape(port, "/metrics").await;
    assert_eq!(up.int("spate_planner_nats_connected"), 1);
    assert_eq!(up.int("spate_planner_nats_disconnects_total"), 0);
    assert_eq!(up.int(&of("spate_planner_job_status", &[("status", "live")])), 1);
    assert_eq!(up.int(&of("spate_planner_resyncs_total", &[])), 0);
    assert_eq!(up.int(&of("spate_planner_live_streams", &[])), 0);
    assert!(up.float("spate_planner_scrape_duration_seconds") > 0.0);
    nats.kill();
    let down = scrape_until(port, |s| s.text.contains("spate_planner_nats_connected 0")).await;
    assert_eq!(down.int("spate_planner_nats_disconnects_total"), 1);
    let reconnecting = scrape_until(port, |s| {
        s.series
            .get(&of("spate_planner_job_status", &[("status", "reconnecting")]))
            .map(String::as_str)
            == Some("1")
    })
    .await;
    assert_eq!(
        reconnecting.int(&of("spate_planner_job_status", &[("status", "live")])),
        0
    );
    nats.restart();
    let back = scrape_until(port, |s| {
        s.series
            .get(&of("spate_planner_job_status", &[("status", "live")]))
            .map(String::as_str)
            == Some("1")
    })
    .await;
    assert_eq!(back.int("spate_planner_nats_connected"), 1);
    assert_eq!(
        back.int(&of("spate_planner_resyncs_total", &[])),
        1,
        "read afresh once"
    );
    serve.stop();
}

/// A demo job of `splits` × 200 restored into `nats` as job `big`, its leases good for an hour
/// (so that no expiry moves its state while the test runs).
fn restore_demo(nats: &NatsServer, splits: &str) {
    let file = std::env::temp_dir().join(format!("spate-metrics-demo-{}-{splits}.json", std::process::id()));
    let run = |args: &[&str]| {
        let o = std::process::Command::new(BIN).args(args).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let path = file.to_str().unwrap();
    run(&[
        "demo",
        "--splits",
        splits,
        "--members",
        "200",
        "--job",
        "big",
        "-o",
        path,
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("\"max_age_ms\":30000", "\"max_age_ms\":3600000"),
    )
    .unwrap();
    run(&["restore", path, "--server", &nats.url()]);
    let _ = std::fs::remove_file(&file);
}

/// A scrape, asked again while the server turns it away (503: four scrapes under way).
async fn scrape_gathered(port: u16) -> Scrape {
    let start = Instant::now();
    loop {
        let (status, head, body) = get(port, "/metrics").await;
        if status == 200 {
            return Scrape::parse(body);
        }
        assert_eq!(status, 503, "{head}\n{body}");
        assert!(head.to_ascii_lowercase().contains("retry-after: 2"), "{head}");
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "still turned away: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `GET /metrics` written, and the connection closed at once: the client hangs up while the job
/// is planned.
async fn hang_up(port: u16) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let raw = format!("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    tokio::io::AsyncWriteExt::write_all(&mut s, raw.as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrapes_whose_clients_hang_up_plan_the_state_once_and_the_next_scrape_uses_it() {
    let nats = NatsServer::start(true);
    restore_demo(&nats, "20000");
    let serve = Serve::start(&["--server", &nats.url(), "--job", "big"]);
    // the job is held (its state served, which plans nothing)
    let (status, _, body) = get(serve.port, "/api/snapshot?job=big").await;
    assert_eq!(status, 200, "{body}");
    // Eight clients hang up on their scrapes in turn, each within the planning of a 20,000-split
    // job. A scrape hung up on stops neither the plan nor its keeping: one plan is made of the
    // state, and the scrapes that follow wait for it rather than planning again. (Scrapes beyond the four gathered at once are turned away, 503: the
    // scrape below asks until it is gathered.)
    for _ in 0..8 {
        hang_up(serve.port).await;
    }
    let s = scrape_gathered(serve.port).await;
    let plans = "spate_planner_plans_total{spate_job=\"big\"}";
    assert_eq!(s.int(plans), 1, "one plan of one state:\n{}", s.text);
    assert_eq!(s.int("spate_planner_plan_ok{spate_job=\"big\"}"), 1);
    // the state moves: the next scrape plans it again
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let lease = js.get_key_value("spate_coordination_big_lease").await.unwrap();
    fixture::put(
        &lease,
        "worker.w-new",
        json!({"schema":3,"nonce":"n-new","max_in_flight":4}),
    )
    .await;
    let start = Instant::now();
    let moved = loop {
        let s = scrape_gathered(serve.port).await;
        if s.int(plans) == 2 {
            break s;
        }
        assert_eq!(s.int(plans), 1, "{}", s.text);
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "not planned again:\n{}",
            s.text
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(moved.int("spate_planner_members{spate_job=\"big\"}"), 201);
    serve.stop();
}

/// A leader whose owner is 900 KB with a CR and a NUL in it (issue 32): the scrape stays small,
/// and neither reaches it raw; Prometheus reads the label back cut to 128 bytes, the controls
/// as `\u{d}` and `\u{0}`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_leader_name_is_cut_and_its_controls_escaped() {
    let (_nats, js, serve) = job_served(&[]).await;
    let before = scrape_until(serve.port, |s| s.text.contains("spate_planner_job_info")).await;
    let lease = js.get_key_value("spate_coordination_g_lease").await.unwrap();
    let owner = format!("w\r\0{}", "x".repeat(900_000));
    fixture::put(
        &lease,
        "leader",
        json!({"schema":3,"owner":owner,"nonce":"lead","generation":2}),
    )
    .await;
    let s = scrape_until(serve.port, |s| s.text.contains("leader=\"w\\\\u{d}")).await;
    assert!(
        s.text.len() < before.text.len() + 1024,
        "a 900 KB owner made the scrape {} bytes (was {})",
        s.text.len(),
        before.text.len()
    );
    assert!(
        !s.text.contains('\r') && !s.text.contains('\0'),
        "a raw control in the scrape"
    );
    // 125 bytes (11 of them `w\u{d}\u{0}`), then the 3 of `…`
    let cut = format!("w\\\\u{{d}}\\\\u{{0}}{}…", "x".repeat(125 - 11));
    let info = of("spate_planner_job_info", &[("leader", &cut), ("rules", "0.1")]);
    assert_eq!(s.int(&info), 1, "{}", s.text);
    serve.stop();
}
