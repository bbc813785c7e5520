//! Live mode (issue 9) against a real NATS server: a fixture writer changes a running job while a
//! page is connected to `serve --server`'s event stream. After each change the page's model (the
//! full state plus the changes applied) must hold exactly the entries `spate-planner snapshot`
//! exports, and `/api/snapshot` must equal that export byte for byte (source and time aside).

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::patience;

use async_nats::jetstream::{self, kv};
use live_client::{export, get, moved_to, until, without_header, Model, Serve, Sse, BIN};
use nats_server::NatsServer;
use patience::PATIENCE;
use serde_json::json;
use spate_planner_core::Snapshot;
use std::time::{Duration, Instant};

const SECOND: Duration = Duration::from_secs(1);

/// The model holds what the exporter exports now, and /api/snapshot equals the export.
async fn agrees(model: &Model, url: &str, job: &str, port: u16, what: &str) {
    let text = export(url, job);
    let snap = Snapshot::parse(&text).unwrap();
    let (state, lease) = model.entries();
    assert_eq!(state, snap.state.entries, "{what}: state bucket");
    assert_eq!(lease, snap.lease.entries, "{what}: lease bucket");
    let (status, _, body) = get(port, &format!("/api/snapshot?job={job}")).await;
    assert_eq!(status, 200, "{what}: {body}");
    assert_eq!(
        without_header(&body),
        without_header(&text),
        "{what}: /api/snapshot"
    );
}

async fn put(store: &kv::Store, key: &str, v: serde_json::Value) -> u64 {
    store.put(key, v.to_string().into_bytes().into()).await.unwrap()
}

async fn last_sequence(js: &jetstream::Context, bucket: &str) -> u64 {
    let mut s = js.get_stream(format!("KV_{bucket}")).await.unwrap();
    s.info().await.unwrap().state.last_sequence
}

/// One page on a running server, following one job.
struct Page {
    sse: Sse,
    model: Model,
    url: String,
    port: u16,
}

impl Page {
    async fn until(&mut self, wait: Duration, done: impl FnMut(&Model, &str) -> bool) {
        until(&mut self.sse, &mut self.model, wait, done).await
    }

    async fn agrees(&self, what: &str) {
        agrees(&self.model, &self.url, &self.model.job, self.port, what).await
    }
}

/// A member joins, one leaves, a cap changes, a split completes, an assignment is published:
/// each seen by the page, then the same entries as an export. (How soon: `scripts/bench-live`.)
async fn five_changes(page: &mut Page, js: &jetstream::Context, state: &kv::Store, lease: &kv::Store) {
    let completed = json!({"schema":3,"id":"s02","fp":fixture_fp("live"),"epoch":1,"status":"completed",
        "owner":"w-a","attempts":0,"watermark":null,"state":null,"completed":true,"written_at_ms":1767000000001i64});
    let steps = [
        (
            "a member joins",
            lease,
            "worker.w-e",
            Some(json!({"schema":3,"nonce":"ne","max_in_flight":3})),
        ),
        ("a member leaves", lease, "worker.w-c", None),
        (
            "a cap changes",
            lease,
            "worker.w-a",
            Some(json!({"schema":3,"nonce":"na","max_in_flight":6})),
        ),
        ("a split completes", state, "split.s02", Some(completed)),
        (
            "an assignment is published",
            state,
            "assign.w-e",
            Some(json!({"schema":3,"generation":3,"splits":["s07","s08"]})),
        ),
    ];
    for (what, store, key, value) in steps {
        let bucket = if std::ptr::eq(store, state) {
            "state"
        } else {
            "lease"
        };
        let rev = match value {
            Some(v) => put(store, key, v).await,
            None => {
                store.delete(key).await.unwrap();
                last_sequence(js, &store.name).await
            }
        };
        page.until(PATIENCE, |m, _| moved_to(m, bucket, rev)).await;
        page.agrees(what).await;
    }
}

/// The page reconnects from its last id and gets only what it missed; a revision the server no
/// longer has gets a full state.
async fn resume(page: Page, lease: &kv::Store) -> Page {
    let Page {
        sse,
        model,
        url,
        port,
    } = page;
    let last = model.id.clone();
    drop(sse);
    let rev = put(
        lease,
        "worker.w-f",
        json!({"schema":3,"nonce":"nf","max_in_flight":2}),
    )
    .await;
    let sse = Sse::connect(port, "/api/live?job=live", Some(&last)).await;
    let mut page = Page {
        sse,
        model,
        url,
        port,
    };
    let before = page.model.snapshots;
    page.until(PATIENCE, |m, _| moved_to(m, "lease", rev)).await;
    assert_eq!(
        page.model.snapshots, before,
        "resumed with a full state instead of the changes"
    );
    page.agrees("resumed").await;
    let mut stale = Sse::connect(page.port, "/api/live?job=live&since=1-1", None).await;
    assert_eq!(stale.next(PATIENCE).await.unwrap().event, "snapshot");
    page
}

/// NATS killed and restarted (same port and store): reconnecting, a full state, live; and the
/// state is right.
async fn restart(page: &mut Page, nats: &mut NatsServer) {
    nats.kill();
    page.until(PATIENCE, |m, _| m.is("reconnecting")).await;
    nats.restart();
    let snapshots = page.model.snapshots;
    page.until(PATIENCE, |m, _| m.is("live")).await;
    assert_eq!(
        page.model.snapshots,
        snapshots + 1,
        "no full resync after the restart"
    );
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let lease = js.get_key_value("spate_coordination_live_lease").await.unwrap();
    let rev = put(
        &lease,
        "worker.w-g",
        json!({"schema":3,"nonce":"ng","max_in_flight":1}),
    )
    .await;
    page.until(PATIENCE, |m, _| moved_to(m, "lease", rev)).await;
    page.agrees("after the restart").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_reach_the_page_resume_and_survive_a_restart() {
    let mut nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, "live").await;
    let state = js.get_key_value("spate_coordination_live_state").await.unwrap();
    let lease = js.get_key_value("spate_coordination_live_lease").await.unwrap();
    let serve = Serve::start(&["--server", &url, "--job", "live"]);
    let sse = Sse::connect(serve.port, "/api/live?job=live", None).await;
    assert!(sse.head.contains("text/event-stream"), "{}", sse.head);
    assert!(sse.head.contains("connect-src 'self'"), "{}", sse.head);
    let mut page = Page {
        sse,
        model: Model::new("live"),
        url: url.clone(),
        port: serve.port,
    };
    page.until(PATIENCE, |m, _| m.is("live")).await;
    assert_eq!(page.model.snapshots, 1);
    page.agrees("the full state").await;
    five_changes(&mut page, &js, &state, &lease).await;
    let mut page = resume(page, &lease).await;
    restart(&mut page, &mut nats).await;
    serve.stop();
}

fn fixture_fp(job: &str) -> u64 {
    spate_planner_core::stable_hash_str(0, &format!("s3://data/{job}@v1"))
}

/// A job's two buckets, the lease bucket with a 2 s max_age, with or without limit markers.
async fn short_lived_job(js: &jetstream::Context, job: &str, markers: bool) -> (kv::Store, kv::Store) {
    let config = |suffix: &str, max_age| kv::Config {
        bucket: format!("spate_coordination_{job}_{suffix}"),
        history: 1,
        max_age,
        limit_markers: (markers && !max_age.is_zero()).then_some(SECOND),
        ..Default::default()
    };
    let state = js
        .create_key_value(config("state", Duration::ZERO))
        .await
        .unwrap();
    let lease = js.create_key_value(config("lease", 2 * SECOND)).await.unwrap();
    let plan = json!({"schema":3,"fingerprint":format!("s3://data/{job}@v1"),"generation":1,"finality":"final",
        "planned":0,"planner_state":null,"updated_at_ms":1});
    put(&state, "plan", plan).await;
    (state, lease)
}

async fn open_page(url: &str, port: u16, job: &str) -> Page {
    let sse = Sse::connect(port, &format!("/api/live?job={job}"), None).await;
    let mut page = Page {
        sse,
        model: Model::new(job),
        url: url.to_string(),
        port,
    };
    page.until(PATIENCE, |m, _| m.is("live")).await;
    page
}

/// A presence written once disappears from the page and from /api/snapshot once its age reaches
/// max_age (2 s), not before, whether NATS sends a marker or not.
async fn expiry(page: &mut Page, lease: &kv::Store) {
    let rev = put(
        lease,
        "worker.w-x",
        json!({"schema":3,"nonce":"n","max_in_flight":1}),
    )
    .await;
    let written = Instant::now();
    page.until(PATIENCE, |m, _| moved_to(m, "lease", rev)).await;
    assert!(page.model.lease.contains_key("worker.w-x"));
    page.until(PATIENCE, |m, _| !m.lease.contains_key("worker.w-x"))
        .await;
    let gone = written.elapsed();
    let job = page.model.job.clone();
    assert!(
        gone >= Duration::from_millis(1500),
        "{job}: expired after {gone:?}, before its max_age"
    );
    let (_, _, body) = get(page.port, &format!("/api/snapshot?job={job}")).await;
    assert!(
        !body.contains("worker.w-x"),
        "{job}: the server still holds the expired presence"
    );
}

/// Thousands of changes while one page does not read: memory stays bounded; both pages end with
/// the exported state (caught up, or resynced).
async fn flood(page: &mut Page, js: &jetstream::Context, serve: &Serve) {
    let mut slow = open_page(&page.url, page.port, "fl").await;
    let rss_before = serve.rss_kib();
    let (mut acks, mut last) = (Vec::new(), 0);
    for i in 0..6000u32 {
        let v = json!({"schema":3,"id":format!("f{}", i % 700),"n":i}).to_string();
        acks.push(
            js.publish(format!("$KV.spate_coordination_fl_state.k.{}", i % 700), v.into())
                .await
                .unwrap(),
        );
        if acks.len() == 1000 || i == 5999 {
            for a in acks.drain(..) {
                last = a.await.unwrap().sequence;
            }
        }
    }
    page.until(PATIENCE, |m, _| moved_to(m, "state", last)).await;
    let rss_after = serve.rss_kib();
    slow.until(PATIENCE, |m, _| moved_to(m, "state", last)).await;
    assert!(
        rss_after < rss_before + 64 * 1024,
        "memory grew from {rss_before} KiB to {rss_after} KiB"
    );
    let snap = Snapshot::parse(&export(&page.url, "fl")).unwrap();
    for (name, m) in [("reading page", &page.model), ("slow page", &slow.model)] {
        let state = m.entries().0;
        let summary = format!(
            "{name}: {} entries (export: {}), id {}, {} full states, {} changes",
            state.len(),
            snap.state.entries.len(),
            m.id,
            m.snapshots,
            m.changes
        );
        assert!(state == snap.state.entries, "after the flood: {summary}");
        eprintln!("{summary}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expiry_floods_and_deleted_buckets() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    let (_, lease) = short_lived_job(&js, "fl", true).await;
    let (_, lease_nm) = short_lived_job(&js, "nm", false).await;
    let serve = Serve::start(&["--server", &url]);
    let (status, _, jobs) = get(serve.port, "/api/jobs").await;
    assert_eq!(status, 200);
    assert!(
        jobs.contains("\"job\":\"fl\"") && jobs.contains("\"job\":\"nm\""),
        "{jobs}"
    );
    let mut page = open_page(&url, serve.port, "fl").await;
    let mut page_nm = open_page(&url, serve.port, "nm").await;
    tokio::join!(expiry(&mut page, &lease), expiry(&mut page_nm, &lease_nm));
    flood(&mut page, &js, &serve).await;

    // A bucket deleted: an error event naming it.
    js.delete_key_value("spate_coordination_fl_lease").await.unwrap();
    page.until(PATIENCE, |m, _| m.is("error")).await;
    let last = page.model.statuses.last().unwrap();
    assert!(last.contains("spate_coordination_fl_lease"), "{last}");
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_stay_on_the_server() {
    let nats = NatsServer::start_with(true, &["--user", "planner", "--pass", "s3cret"]);
    let opts = async_nats::ConnectOptions::with_user_and_password("planner".into(), "s3cret".into());
    let js = jetstream::new(opts.connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "sec").await;
    let url = format!("nats://planner:s3cret@127.0.0.1:{}", nats.port);
    let serve = Serve::start(&["--server", &url]);
    let port = serve.port;
    let mut seen = serve.stdout_line.clone();
    let (_, head, body) = get(port, "/api/jobs").await;
    seen += &(head + &body);
    let (_, head, body) = get(port, "/api/snapshot?job=sec").await;
    assert!(
        body.contains(&format!("\"server\":\"nats://127.0.0.1:{}\"", nats.port)),
        "{body}"
    );
    seen += &(head + &body);
    let mut sse = Sse::connect(port, "/api/live?job=sec", None).await;
    let mut model = Model::new("sec");
    until(&mut sse, &mut model, PATIENCE, |_, e| e == "status").await;
    seen += &sse.head;
    seen += &sse.raw;
    let (status, _, body) = get(port, "/api/live?job=absent").await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("spate_coordination_absent_state"), "{body}");
    seen += &body;
    seen += &serve.stop();
    assert!(
        !seen.contains("s3cret"),
        "a secret reached the page or the terminal"
    );

    // A wrong password: a clear error, no secret.
    let bad = format!("nats://planner:wr0ngpass@127.0.0.1:{}", nats.port);
    let o = std::process::Command::new(BIN)
        .args([
            "serve",
            "--port",
            "0",
            "--dir",
            "/nonexistent-but-unused",
            "--server",
            &bad,
        ])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!o.status.success());
    assert!(!text.contains("wr0ngpass"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_prints_a_line_per_change() {
    let nats = NatsServer::start(true);
    let client = async_nats::connect(nats.url()).await.unwrap();
    let js = jetstream::new(client);
    fixture::write_job(&js, "w").await;
    let lease = js.get_key_value("spate_coordination_w_lease").await.unwrap();
    let (mut child, rx) = spawn_watch(&nats, "w", &["--settle-ms", "100"]);
    let first = rx.recv_timeout(PATIENCE).expect("no first line");
    assert!(first.contains("start") && first.contains("members 4"), "{first}");
    for (i, (key, members)) in [("worker.w-e", 5), ("worker.w-f", 6), ("worker.w-g", 7)]
        .iter()
        .enumerate()
    {
        put(&lease, key, json!({"schema":3,"nonce":"n","max_in_flight":2})).await;
        let line = next_figures(&rx).unwrap_or_else(|| panic!("no line for change {i}"));
        assert!(
            line.contains("+1 change") && line.contains(&format!("members {members},")),
            "{line}"
        );
        for needle in ["max/mean", "queued", "moves pending", "from published"] {
            assert!(line.contains(needle), "{line}");
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The next figures line of `watch` (its incident lines skipped), within PATIENCE.
fn next_figures(rx: &std::sync::mpsc::Receiver<String>) -> Option<String> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok()?;
        if !line.contains(" incident ") {
            return Some(line);
        }
    }
}

/// `watch` of job `job` on `nats` with `extra` arguments: the child and its lines as they come.
fn spawn_watch(
    nats: &NatsServer,
    job: &str,
    extra: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(BIN)
        .args(["watch", "--server", &nats.url(), "--job", job])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// The first line within PATIENCE that holds `needle`.
fn line_with(rx: &std::sync::mpsc::Receiver<String>, needle: &str) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line.contains(needle) => return line,
            Ok(_) => {}
            Err(_) => panic!("no line with {needle:?}"),
        }
    }
}

/// A crash (w-c's presence purged: the store's expiry, timing.md §3.1) and a graceful stop (w-d's
/// deleted) each get a line naming the member, the store's time with date and zone, the window
/// (0.1: D = 20 s, at most D + C = 50 s after it left) and who receives the crashed member's
/// splits; then the same as JSON objects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_names_who_left_when_its_window_ends_and_who_receives_what() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "inc").await;
    let lease = js.get_key_value("spate_coordination_inc_lease").await.unwrap();
    let (mut child, rx) = spawn_watch(&nats, "inc", &["--settle-ms", "100"]);
    line_with(&rx, "start");
    lease.purge("worker.w-c").await.unwrap();
    let line = line_with(&rx, "(w-c crashed)");
    let date = regex_like_date(&line);
    assert!(date, "no date and zone: {line}");
    assert!(line.contains("w-c's presence lapsed at 20"), "{line}");
    assert!(
        line.contains("The leader withholds its 2 runnable splits"),
        "{line}"
    );
    // The window from the store's time T of the purge: T + D (20 s), at most T + D + C (50 s).
    let at = line
        .split("lapsed at ")
        .nth(1)
        .and_then(|t| t.get(11..19))
        .unwrap();
    let plus = |secs: u32| {
        let n: Vec<u32> = at.split(':').map(|x| x.parse().unwrap()).collect();
        let t = (n[0] * 3600 + n[1] * 60 + n[2] + secs) % 86_400;
        format!("{:02}:{:02}:{:02} UTC", t / 3600, t / 60 % 60, t % 60)
    };
    assert!(
        line.contains(&format!("until {} at the earliest", plus(20))),
        "{line}"
    );
    assert!(
        line.contains(&format!("and {} at the latest", plus(50))),
        "{line}"
    );
    assert!(line.contains("Receivers: w-"), "{line}");
    lease.delete("worker.w-d").await.unwrap();
    let line = line_with(&rx, "(w-d stopped)");
    assert!(line.contains("w-d deleted its presence at 20"), "{line}");
    let _ = child.kill();
    let _ = child.wait();

    let (mut child, rx) = spawn_watch(&nats, "inc", &["--settle-ms", "100", "--json"]);
    let first: serde_json::Value = serde_json::from_str(&line_with(&rx, "\"figures\"")).unwrap();
    assert_eq!(first["what"], "start");
    assert!(first["at"].as_str().unwrap().ends_with(" UTC"), "{first}");
    put(
        &lease,
        "worker.w-new",
        json!({"schema":3,"nonce":"nn","max_in_flight":2}),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&line_with(&rx, "\"incident\"")).unwrap();
    assert_eq!(
        (v["type"].as_str(), v["incident"]["kind"].as_str()),
        (Some("incident"), Some("joined"))
    );
    assert_eq!(v["incident"]["member"], "w-new");
    let _ = child.kill();
    let _ = child.wait();
}

/// "2026-12-05 15:04:11.123 UTC " at the start of a line.
fn regex_like_date(line: &str) -> bool {
    let b = line.as_bytes();
    let digits = |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(10) == Some(&b' ')
        && digits(11..13)
        && b.get(19) == Some(&b'.')
        && line.get(23..28) == Some(" UTC ")
}

/// A job that never pauses for the 200 ms a burst waits for still gets a line at least every
/// --max-wait-ms (2 s) plus a frame's work: lease renewals, as running workers write them, 20 at a
/// time every 50 ms (about 400 a second) for 6 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_is_never_silent_on_a_busy_job() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "busy").await;
    let lease = js.get_key_value("spate_coordination_busy_lease").await.unwrap();
    let (mut child, rx) = spawn_watch(&nats, "busy", &["--settle-ms", "200", "--max-wait-ms", "2000"]);
    line_with(&rx, "start");
    let renewal = json!({"schema":3,"owner":"w-a","nonce":"n-w-a","epoch":3}).to_string();
    let writer = tokio::spawn(async move {
        let end = Instant::now() + Duration::from_secs(6);
        let mut written = 0u32;
        while Instant::now() < end {
            let puts = (0..20).map(|_| lease.put("split.s01", renewal.clone().into_bytes().into()));
            for r in futures_util::future::join_all(puts).await {
                r.unwrap();
                written += 1;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        written
    });
    let started = Instant::now();
    let mut times = Vec::new();
    while started.elapsed() < Duration::from_secs(6) {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            if line.contains(" change") && !line.contains(" incident ") {
                times.push(started.elapsed());
            }
        }
    }
    let written = writer.await.unwrap();
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("{written} renewals in 6 s; figures lines at {times:?}");
    assert!(written >= 1_000, "the job was not busy: {written} writes in 6 s");
    assert!(
        times.len() >= 2,
        "{} figures lines in 6 s of changes: {times:?}",
        times.len()
    );
    let first = times[0];
    assert!(
        first < Duration::from_millis(2_800),
        "the first line came {first:?} after the writes began"
    );
    for w in times.windows(2) {
        assert!(
            w[1] - w[0] < Duration::from_millis(2_800),
            "silent for {:?}: {times:?}",
            w[1] - w[0]
        );
    }
}
