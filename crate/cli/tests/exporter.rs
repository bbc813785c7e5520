//! The exporter, loader and `plan` against a real NATS JetStream server.
//!
//! A fixture writer creates the job's two buckets as Spate does and writes a realistic job
//! through the server; then `spate-planner snapshot` exports it, the loader reads it, and
//! `spate-planner plan --json` must give exactly the decision core's assignment for the inputs
//! the fixture wrote (built here from the fixture's own data, not from the loader).

use crate::fixture;
use crate::nats_server;

use fixture::*;

use async_nats::jetstream;
use nats_server::NatsServer;
use serde_json::Value;
use spate_planner_core::{assign::AssignInputs, desired_assignment, stable_hash_str, Fleet, SplitStatus};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

/// A temporary directory of one test's own (parallel tests must not share one: the "no
/// temporary file left" checks would see each other's exports), removed at the end.
struct TestDir(PathBuf);

impl TestDir {
    fn new(test: &str) -> TestDir {
        let d = std::env::temp_dir().join(format!("spate-export-test-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TestDir(d)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

async fn stream_state(js: &jetstream::Context, bucket: &str) -> (u64, u64) {
    let mut s = js.get_stream(format!("KV_{bucket}")).await.unwrap();
    let info = s.info().await.unwrap();
    (info.state.messages, info.state.last_sequence)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_load_and_plan_a_real_job() {
    let dir = TestDir::new("export_load_and_plan");
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client);
    let job = write_job(&js, "orders").await;
    let before = (
        stream_state(&js, "spate_coordination_orders_state").await,
        stream_state(&js, "spate_coordination_orders_lease").await,
    );

    let out = dir.path("orders.json");
    let o = run(&[
        "snapshot",
        "--server",
        &server.url(),
        "--job",
        "orders",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));

    // The export wrote nothing to the store.
    let after = (
        stream_state(&js, "spate_coordination_orders_state").await,
        stream_state(&js, "spate_coordination_orders_lease").await,
    );
    assert_eq!(before, after, "the store changed during the export");

    // Load it: members, caps, splits, leases, warnings.
    let fleet = Fleet::load_text(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(fleet.job, "orders");
    assert_eq!(fleet.seed, job.fp);
    assert_eq!(fleet.lease_ttl_ms, 600_000);
    assert_eq!(
        fleet.members.keys().cloned().collect::<Vec<_>>(),
        ["w-a", "w-b", "w-c", "w-d"]
    );
    assert_eq!(fleet.members["w-a"].max_in_flight, Some(4));
    assert_eq!(fleet.members["w-b"].max_in_flight, Some(2));
    assert_eq!(fleet.members["w-c"].max_in_flight, None);
    assert!(!fleet.members["w-d"].readable);
    assert_eq!(
        *fleet.splits, job.splits,
        "the loaded splits are the ones written, revisions included"
    );
    for (id, s) in &job.splits {
        let left = fleet.lease_left_ms(id);
        assert_eq!(left.is_some(), s.lease.is_some(), "{id}");
        if let Some(l) = left {
            assert!((0..=600_000).contains(&l), "{id}: {l} ms left");
        }
    }
    assert_eq!(fleet.published["w-a"].splits, ["s01", "s02", "s05"]);
    assert_eq!(fleet.leader.as_ref().unwrap().owner, "w-a");
    let mut codes: Vec<(&str, &str)> = fleet
        .warnings
        .iter()
        .map(|w| (w.code.as_str(), w.key.as_str()))
        .collect();
    codes.sort();
    assert_eq!(
        codes,
        [
            ("foreign_fp", "split.s-foreign"),
            ("lease_without_progress", "split.s-ghost"),
            ("no_spec", "split.s-nospec"),
            ("spec_without_progress", "spec.s-orphan"),
            ("unreadable_presence", "worker.w-d"),
        ]
    );

    // plan --json equals the decision core on the inputs the fixture wrote.
    for default_cap in [8u32, 1, 3] {
        let o = run(&[
            "plan",
            out.to_str().unwrap(),
            "--json",
            "--default-cap",
            &default_cap.to_string(),
        ]);
        assert!(o.status.success(), "{}", text(&o));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let members: BTreeSet<String> = ["w-a", "w-b", "w-c", "w-d"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let caps = BTreeMap::from([("w-a".to_string(), 4), ("w-b".to_string(), 2)]);
        let none = BTreeSet::new();
        let want = desired_assignment(&AssignInputs::v0_1(
            &members,
            &job.splits,
            &none,
            &caps,
            default_cap,
            job.fp,
        ));
        assert_eq!(
            doc["assignment"],
            serde_json::to_value(&want).unwrap(),
            "default cap {default_cap}"
        );
        assert_eq!(
            doc["seed"].as_str(),
            Some(job.fp.to_string().as_str()),
            "u64 values are strings"
        );
    }

    // The human report names what a person needs.
    let o = run(&["plan", out.to_str().unwrap()]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for needle in [
        "members (4)",
        "w-gone",
        "owner gone",
        "unreadable_presence",
        "waiting for a spec",
        "improving moves",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in:\n{t}");
    }

    // A what-if: w-gone departed within the delay reserves s06; a new member takes work.
    let what_if = dir.path("what-if.json");
    std::fs::write(
        &what_if,
        r#"{"format":"spate-planner-scenario/1","changes":[
            {"op":"remove_member","member":"w-gone","within_rebalance_delay":true},
            {"op":"add_member","member":"w-e","cap":3}]}"#,
    )
    .unwrap();
    let o = run(&[
        "plan",
        out.to_str().unwrap(),
        "--json",
        "--what-if",
        what_if.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let members: BTreeSet<String> = ["w-a", "w-b", "w-c", "w-d", "w-e"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let caps = BTreeMap::from([
        ("w-a".to_string(), 4),
        ("w-b".to_string(), 2),
        ("w-e".to_string(), 3),
    ]);
    let reserved = BTreeSet::from(["s06".to_string()]);
    // No --default-cap: the leader w-a's own max_in_flight (4), from its presence.
    let want = desired_assignment(&AssignInputs::v0_1(
        &members,
        &job.splits,
        &reserved,
        &caps,
        4,
        job.fp,
    ));
    assert_eq!(doc["assignment"], serde_json::to_value(&want).unwrap());
    assert_eq!(doc["report"]["counts"]["reserved"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_errors_and_no_file() {
    let dir = TestDir::new("clear_errors");
    let server = NatsServer::start(true);
    let out = dir.path("never.json");

    let o = run(&[
        "snapshot",
        "--server",
        &server.url(),
        "--job",
        "no job",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("invalid job name"), "{}", text(&o));

    let o = run(&[
        "snapshot",
        "--server",
        &server.url(),
        "--job",
        "absent",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("bucket spate_coordination_absent_state does not exist"),
        "{}",
        text(&o)
    );

    let mut down = NatsServer::start(true);
    let url = down.url();
    down.kill();
    let o = run(&[
        "snapshot",
        "--server",
        &url,
        "--job",
        "orders",
        "--timeout",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("cannot connect to the NATS server"),
        "{}",
        text(&o)
    );

    let plain = NatsServer::start(false);
    let o = run(&[
        "snapshot",
        "--server",
        &plain.url(),
        "--job",
        "orders",
        "--timeout",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("JetStream"), "{}", text(&o));

    assert!(!out.exists(), "a failed export left a file");
    assert_no_temp_files(out.parent().unwrap());
}

fn assert_no_temp_files(dir: &Path) {
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

/// Writes `n` progress records fast (acks awaited in batches).
async fn write_many(js: &jetstream::Context, job: &str, n: usize) {
    let (_state, _lease) = buckets(js, job).await;
    let fp = stable_hash_str(0, job);
    let mut acks = Vec::new();
    for i in 0..n {
        let id = format!("p{i:07}");
        let v = serde_json::to_vec(&progress(&id, fp, SplitStatus::Runnable, None, 0, 0)).unwrap();
        acks.push(
            js.publish(format!("$KV.spate_coordination_{job}_state.split.{id}"), v.into())
                .await
                .unwrap(),
        );
        if acks.len() == 2000 {
            for a in acks.drain(..) {
                a.await.unwrap();
            }
        }
    }
    for a in acks {
        a.await.unwrap();
    }
}

/// Starts an export of job `job` and waits for its first progress line; returns the child and
/// its stderr reader.
fn export_until_progress(
    url: &str,
    job: &str,
    out: &Path,
    timeout: &str,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    let mut child = Command::new(BIN)
        .args([
            "snapshot",
            "--server",
            url,
            "--job",
            job,
            "--timeout",
            timeout,
            "-o",
            out.to_str().unwrap(),
        ])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
        seen.push_str(&line);
        if n == 0 || line.contains("of about") {
            break;
        }
    }
    assert!(
        seen.contains("of about"),
        "no progress line before the end: {seen}"
    );
    (child, stderr, seen)
}

fn finish(
    mut child: std::process::Child,
    mut stderr: std::io::BufReader<std::process::ChildStderr>,
) -> (bool, String) {
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    (child.wait().unwrap().success(), rest)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bucket_deleted_mid_export_gives_a_clear_error_and_no_file() {
    let dir = TestDir::new("bucket_deleted");
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client.clone());
    write_many(&js, "gone", 120_000).await;
    let out = dir.path("gone.json");
    let (child, stderr, _) = export_until_progress(&server.url(), "gone", &out, "3");
    js.delete_key_value("spate_coordination_gone_state")
        .await
        .unwrap();
    let (ok, rest) = finish(child, stderr);
    assert!(
        !ok,
        "the export succeeded although its bucket was deleted: {rest}"
    );
    assert!(
        rest.contains("spate_coordination_gone_state") && rest.contains("no file was written"),
        "{rest}"
    );
    assert!(rest.contains("deleted") || rest.contains("failed"), "{rest}");
    assert!(!out.exists());
    assert_no_temp_files(out.parent().unwrap());
}

/// How long the stalling proxy holds a connection that passes nothing: far longer than any
/// timeout of the exporter.
const STALL: Duration = Duration::from_secs(600);

/// A TCP proxy to the server that can be told to stop passing the server's bytes (a server
/// that hangs, or a network that drops everything), keeping the connection open.
async fn stalling_proxy(target: u16) -> (u16, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stall = std::sync::Arc::new(AtomicBool::new(false));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let flag = stall.clone();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let Ok(outbound) = tokio::net::TcpStream::connect(("127.0.0.1", target)).await else {
                continue;
            };
            let (mut ri, mut wi) = inbound.into_split();
            let (mut ro, mut wo) = outbound.into_split();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = ri.read(&mut buf).await {
                    if n == 0 || wo.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            });
            let flag = flag.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    if flag.load(Ordering::SeqCst) {
                        // hang: keep the socket open, pass nothing (bounded: the test ends first)
                        tokio::time::sleep(STALL).await;
                        break;
                    }
                    match ro.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if wi.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
    });
    (port, stall)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_answering_times_out_clearly_and_writes_nothing() {
    let dir = TestDir::new("stalled");
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client.clone());
    write_many(&js, "slow", 120_000).await;
    let before = stream_state(&js, "spate_coordination_slow_state").await;
    let (port, stall) = stalling_proxy(server.port).await;
    let out = dir.path("slow.json");
    let url = format!("nats://127.0.0.1:{port}");
    let started = std::time::Instant::now();
    let (child, stderr, _) = export_until_progress(&url, "slow", &out, "2");
    stall.store(true, std::sync::atomic::Ordering::SeqCst);
    let (ok, rest) = finish(child, stderr);
    assert!(!ok, "{rest}");
    assert!(
        rest.contains("stopped answering") || rest.contains("stalled") || rest.contains("lost"),
        "{rest}"
    );
    assert!(rest.contains("no file was written"), "{rest}");
    // Ended by the 2 s timeout, long before the proxy would have let go (however busy the
    // machine).
    assert!(
        started.elapsed() < STALL / 2,
        "the timeout did not bound the export: {:?}",
        started.elapsed()
    );
    assert!(!out.exists());
    assert_eq!(
        stream_state(&js, "spate_coordination_slow_state").await,
        before,
        "the store changed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_killed_mid_export_gives_a_clear_error_and_no_file() {
    let dir = TestDir::new("killed");
    let mut server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client.clone());
    write_many(&js, "big", 120_000).await;
    drop(js);
    drop(client);

    let out = dir.path("big.json");
    // Kill the server as soon as the exporter reports its first progress line.
    let (child, stderr, seen) = export_until_progress(&server.url(), "big", &out, "3");
    server.kill();
    let (ok, rest) = finish(child, stderr);

    assert!(!ok, "the export succeeded after the server died: {seen}{rest}");
    assert!(
        (rest.contains("lost") || rest.contains("stopped answering")) && rest.contains("no file was written"),
        "{rest}"
    );
    assert!(!out.exists());
    assert_no_temp_files(out.parent().unwrap());
}
