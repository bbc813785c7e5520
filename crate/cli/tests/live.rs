//! Live mode (issue 9) against a real NATS server: a fixture writer changes a running job while a
//! page is connected to `serve --server`'s event stream. After each change the page's model (the
//! full state plus the changes applied) must hold exactly the entries `spate-planner snapshot`
//! exports, and `/api/snapshot` must equal that export byte for byte (source and time aside).

mod fixture;
mod live_client;
mod nats_server;

use async_nats::jetstream::{self, kv};
use live_client::{export, get, without_header, Model, Serve, Sse, BIN};
use nats_server::NatsServer;
use serde_json::json;
use spate_planner_core::snapshot::Snapshot;
use std::time::{Duration, Instant};

const SECOND: Duration = Duration::from_secs(1);

/// Reads events into the model until `done` says so; panics after `wait`.
async fn until(sse: &mut Sse, model: &mut Model, wait: Duration, mut done: impl FnMut(&Model, &str) -> bool) {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let e = sse
            .next(left)
            .await
            .unwrap_or_else(|| panic!("nothing in {wait:?} (model at {})", model.id));
        let name = model.apply(&e);
        if done(model, &name) {
            return;
        }
    }
}

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

/// The revision a change event's id gives the bucket.
fn moved_to(model: &Model, bucket: &str, rev: u64) -> bool {
    let (s, l) = model.id.split_once('-').unwrap();
    let at: u64 = if bucket == "state" { s } else { l }.parse().unwrap();
    at >= rev
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_reach_the_page_resume_and_survive_a_restart() {
    let mut nats = NatsServer::start(true);
    let url = nats.url();
    let client = async_nats::connect(&url).await.unwrap();
    let js = jetstream::new(client);
    fixture::write_job(&js, "live").await;
    let state = js.get_key_value("spate_coordination_live_state").await.unwrap();
    let lease = js.get_key_value("spate_coordination_live_lease").await.unwrap();

    let serve = Serve::start(&["--server", &url, "--job", "live"]);
    let port = serve.port;
    let mut sse = Sse::connect(port, "/api/live?job=live", None).await;
    assert!(sse.head.contains("text/event-stream"), "{}", sse.head);
    assert!(sse.head.contains("connect-src 'self'"), "{}", sse.head);
    let mut model = Model::new("live");
    until(&mut sse, &mut model, 5 * SECOND, |m, _| m.is("live")).await;
    assert_eq!(model.snapshots, 1);
    agrees(&model, &url, "live", port, "the full state").await;

    // Each change, seen within a second, then the same entries as an export.
    let steps: Vec<(&str, &kv::Store, &str, Option<serde_json::Value>)> = vec![
        (
            "a member joins",
            &lease,
            "worker.w-e",
            Some(json!({"schema":3,"nonce":"ne","max_in_flight":3})),
        ),
        ("a member leaves", &lease, "worker.w-c", None),
        (
            "a cap changes",
            &lease,
            "worker.w-a",
            Some(json!({"schema":3,"nonce":"na","max_in_flight":6})),
        ),
        (
            "a split completes",
            &state,
            "split.s02",
            Some(
                json!({"schema":3,"id":"s02","fp":fixture_fp("live"),"epoch":1,"status":"completed","owner":"w-a","attempts":0,"watermark":null,"state":null,"completed":true,"written_at_ms":1767000000001i64}),
            ),
        ),
        (
            "an assignment is published",
            &state,
            "assign.w-e",
            Some(json!({"schema":3,"generation":3,"splits":["s07","s08"]})),
        ),
    ];
    for (what, store, key, value) in steps {
        let bucket = if std::ptr::eq(store, &state) {
            "state"
        } else {
            "lease"
        };
        let started = Instant::now();
        let rev = match value {
            Some(v) => put(store, key, v).await,
            None => {
                store.delete(key).await.unwrap();
                last_sequence(&js, &store.name).await
            }
        };
        until(&mut sse, &mut model, SECOND, |m, _| moved_to(m, bucket, rev)).await;
        assert!(started.elapsed() < SECOND, "{what}: {:?}", started.elapsed());
        agrees(&model, &url, "live", port, what).await;
    }

    // Resume: the page reconnects from its last id and gets only what it missed.
    let last = model.id.clone();
    drop(sse);
    let rev = put(
        &lease,
        "worker.w-f",
        json!({"schema":3,"nonce":"nf","max_in_flight":2}),
    )
    .await;
    let mut sse = Sse::connect(port, "/api/live?job=live", Some(&last)).await;
    let before = model.snapshots;
    until(&mut sse, &mut model, SECOND, |m, _| moved_to(m, "lease", rev)).await;
    assert_eq!(
        model.snapshots, before,
        "resumed with a full state instead of the changes"
    );
    agrees(&model, &url, "live", port, "resumed").await;

    // A revision the server no longer has: a full resync.
    let mut stale = Sse::connect(port, "/api/live?job=live&since=1-1", None).await;
    let e = stale.next(5 * SECOND).await.unwrap();
    assert_eq!(e.event, "snapshot");
    drop(stale);

    // Kill and restart the NATS server: reconnecting, then live, and the state is right.
    nats.kill();
    until(&mut sse, &mut model, 10 * SECOND, |m, _| m.is("reconnecting")).await;
    nats.restart();
    let snapshots = model.snapshots;
    until(&mut sse, &mut model, 20 * SECOND, |m, _| m.is("live")).await;
    assert_eq!(model.snapshots, snapshots + 1, "no full resync after the restart");
    let client = async_nats::connect(&url).await.unwrap();
    let js = jetstream::new(client);
    let lease = js.get_key_value("spate_coordination_live_lease").await.unwrap();
    let rev = put(
        &lease,
        "worker.w-g",
        json!({"schema":3,"nonce":"ng","max_in_flight":1}),
    )
    .await;
    until(&mut sse, &mut model, 5 * SECOND, |m, _| moved_to(m, "lease", rev)).await;
    agrees(&model, &url, "live", port, "after the restart").await;
    serve.stop();
}

fn fixture_fp(job: &str) -> u64 {
    spate_planner_core::stable_hash_str(0, &format!("s3://data/{job}@v1"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expiry_floods_and_deleted_buckets() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let client = async_nats::connect(&url).await.unwrap();
    let js = jetstream::new(client);
    let state = js
        .create_key_value(kv::Config {
            bucket: "spate_coordination_fl_state".into(),
            history: 1,
            ..Default::default()
        })
        .await
        .unwrap();
    let lease = js
        .create_key_value(kv::Config {
            bucket: "spate_coordination_fl_lease".into(),
            history: 1,
            max_age: Duration::from_secs(2),
            limit_markers: Some(SECOND),
            ..Default::default()
        })
        .await
        .unwrap();
    put(&state, "plan", json!({"schema":3,"fingerprint":"s3://data/fl@v1","generation":1,"finality":"final","planned":0,"planner_state":null,"updated_at_ms":1})).await;
    let serve = Serve::start(&["--server", &url]);
    let port = serve.port;
    let (status, _, jobs) = get(port, "/api/jobs").await;
    assert_eq!(status, 200);
    assert!(jobs.contains("\"job\":\"fl\""), "{jobs}");
    let mut sse = Sse::connect(port, "/api/live?job=fl", None).await;
    let mut model = Model::new("fl");
    until(&mut sse, &mut model, 5 * SECOND, |_, e| e == "status").await;

    // Expiry: a presence written once disappears when its age reaches max_age (2 s).
    let rev = put(
        &lease,
        "worker.w-x",
        json!({"schema":3,"nonce":"n","max_in_flight":1}),
    )
    .await;
    until(&mut sse, &mut model, SECOND, |m, _| moved_to(m, "lease", rev)).await;
    assert!(model.lease.contains_key("worker.w-x"));
    let written = Instant::now();
    until(&mut sse, &mut model, 4 * SECOND, |m, _| {
        !m.lease.contains_key("worker.w-x")
    })
    .await;
    let gone = written.elapsed();
    assert!(
        gone >= Duration::from_millis(1500) && gone < Duration::from_millis(3200),
        "expired after {gone:?}"
    );
    let (_, _, body) = get(port, "/api/snapshot?job=fl").await;
    assert!(
        !body.contains("worker.w-x"),
        "the server still holds the expired presence"
    );

    // A flood with a page that does not read: memory stays bounded; once it reads, it catches up
    // or resyncs, and ends with the exported state.
    let mut slow = Sse::connect(port, "/api/live?job=fl", None).await;
    let rss_before = serve.rss_kib();
    let (mut acks, mut last) = (Vec::new(), 0);
    for i in 0..6000u32 {
        let v = json!({"schema":3,"id":format!("f{}", i % 700),"n":i}).to_string();
        acks.push(
            js.publish(format!("$KV.spate_coordination_fl_state.k.{}", i % 700), v.into())
                .await
                .unwrap(),
        );
        if acks.len() == 1000 {
            for a in acks.drain(..) {
                last = a.await.unwrap().sequence;
            }
        }
    }
    for a in acks {
        last = a.await.unwrap().sequence;
    }
    until(&mut sse, &mut model, 10 * SECOND, |m, _| {
        moved_to(m, "state", last)
    })
    .await;
    let rss_after = serve.rss_kib();
    let mut slow_model = Model::new("fl");
    until(&mut slow, &mut slow_model, 20 * SECOND, |m, _| {
        !m.id.is_empty() && moved_to(m, "state", last)
    })
    .await;
    assert!(
        rss_after < rss_before + 64 * 1024,
        "memory grew from {rss_before} KiB to {rss_after} KiB"
    );
    let text = export(&url, "fl");
    let snap = Snapshot::parse(&text).unwrap();
    for (name, m) in [("reading page", &model), ("slow page", &slow_model)] {
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

    // A bucket deleted: an error event naming it.
    js.delete_key_value("spate_coordination_fl_lease").await.unwrap();
    until(&mut sse, &mut model, 10 * SECOND, |m, _| m.is("error")).await;
    let last = model.statuses.last().unwrap();
    assert!(last.contains("spate_coordination_fl_lease"), "{last}");
    drop(slow);
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
    until(&mut sse, &mut model, 5 * SECOND, |_, e| e == "status").await;
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
    use std::io::BufRead;
    let nats = NatsServer::start(true);
    let client = async_nats::connect(nats.url()).await.unwrap();
    let js = jetstream::new(client);
    fixture::write_job(&js, "w").await;
    let lease = js.get_key_value("spate_coordination_w_lease").await.unwrap();
    let mut child = std::process::Command::new(BIN)
        .args([
            "watch",
            "--server",
            &nats.url(),
            "--job",
            "w",
            "--settle-ms",
            "100",
        ])
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
    let first = rx.recv_timeout(10 * SECOND).expect("no first line");
    assert!(first.contains("start") && first.contains("members 4"), "{first}");
    for (i, (key, members)) in [("worker.w-e", 5), ("worker.w-f", 6), ("worker.w-g", 7)]
        .iter()
        .enumerate()
    {
        put(&lease, key, json!({"schema":3,"nonce":"n","max_in_flight":2})).await;
        let line = rx
            .recv_timeout(5 * SECOND)
            .unwrap_or_else(|_| panic!("no line for change {i}"));
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
