//! Recordings (issue 21, docs/recording-format.md) against a real NATS server: `serve --record`
//! while a writer changes the job, then `replay`: at every revision live mode served, the
//! replay's state is the one served (the snapshot file's text, but for when and where it was
//! taken) and its plan, made as the live page makes it, is `plan --json` of what was served;
//! rotation by size into segments that each replay alone; coded errors for bad recordings, a
//! last line cut short tolerated; `watch --record`; and no credential in any file.

use crate::fixture;
use crate::live_client;
use crate::nats_server;

use async_nats::jetstream::{self, kv};
use fixture::put;
use live_client::{get, without_header, Serve, BIN};
use nats_server::NatsServer;
use serde_json::json;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const JOB: &str = "rec";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-rec-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The state served now, with the revisions it stands at.
async fn served(port: u16) -> (String, String) {
    let (status, head, body) = get(port, &format!("/api/snapshot?job={JOB}")).await;
    assert_eq!(status, 200, "{head}");
    let revisions = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("x-spate-revisions: ")
                .map(str::to_string)
        })
        .expect("the revisions");
    (revisions.trim().to_string(), body)
}

/// A few writes of the kinds Spate makes: presence and lease renewals, progress rewrites (one
/// with a newline in its JSON), a member joining, a lease released.
async fn write(state: &kv::Store, lease: &kv::Store, i: u64) {
    let worker = ["w-a", "w-b", "w-c", "w-d"][i as usize % 4];
    put(
        lease,
        &format!("worker.{worker}"),
        json!({"schema":3,"nonce":format!("n-{worker}"),"max_in_flight":4}),
    )
    .await;
    let split = format!("s{:02}", i % 12 + 1);
    let owner = ["w-a", "w-b"][i as usize % 2];
    put(
        lease,
        &format!("split.{split}"),
        json!({"schema":3,"owner":owner,"nonce":format!("n-{owner}"),"epoch":i + 5}),
    )
    .await;
    let progress = format!(
        "{{\"schema\":3,\"id\":\"{split}\",\"fp\":{},\"epoch\":{},\"status\":\"runnable\",\"owner\":\"{owner}\",\n \"attempts\":0,\"watermark\":null,\"state\":null,\"completed\":false,\"written_at_ms\":{}}}",
        spate_planner_core::stable_hash_str(0, &format!("s3://data/{JOB}@v1")),
        i + 5,
        1_767_000_000_000u64 + i
    );
    state
        .put(format!("split.{split}"), progress.into_bytes().into())
        .await
        .unwrap();
    if i == 6 {
        put(
            lease,
            "worker.w-new",
            json!({"schema":3,"nonce":"n-new","max_in_flight":2}),
        )
        .await;
    }
    if i == 9 {
        lease.delete("split.s12").await.unwrap();
    }
}

/// The names of the files in `dir` once `done` holds of them (or after 20 s), sorted; not the
/// recorder's lock (`.lock`).
fn wait_for_files(dir: &Path, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".lock")
            .collect();
        names.sort();
        if done(&names) || Instant::now() > deadline {
            return names;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The bytes of every file in `dir`, gzip ones uncompressed.
fn all_bytes(dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        if bytes.starts_with(&[0x1f, 0x8b]) {
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut out)
                .unwrap();
        } else {
            out.extend(bytes);
        }
    }
    out
}

/// The snapshot text with its `taken_at_ms` set to `ms`.
fn taken_at(text: &str, ms: &str) -> String {
    text.lines()
        .map(|l| match l.starts_with("  \"taken_at_ms\":") {
            true => format!("  \"taken_at_ms\": {ms},"),
            false => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn taken_at_of(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("  \"taken_at_ms\":"))
        .unwrap();
    line.trim_start_matches("  \"taken_at_ms\": ")
        .trim_end_matches(',')
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_replays_to_what_live_mode_served_at_each_revision() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let state = js
        .get_key_value(format!("spate_coordination_{JOB}_state"))
        .await
        .unwrap();
    let lease = js
        .get_key_value(format!("spate_coordination_{JOB}_lease"))
        .await
        .unwrap();
    let dir = temp_dir("live");
    let serve = Serve::start(&["--server", &url, "--job", JOB, "--record", dir.to_str().unwrap()]);
    let mut seen = vec![served(serve.port).await];
    for i in 0..16 {
        write(&state, &lease, i).await;
        tokio::time::sleep(Duration::from_millis(60)).await;
        let now = served(serve.port).await;
        if seen.last().map(|s| &s.0) != Some(&now.0) {
            seen.push(now);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let err = serve.stop();
    assert!(err.contains(&format!("recording job {JOB} into")), "{err}");
    assert!(
        seen.len() >= 12,
        "the writer moved the job: {} states served",
        seen.len()
    );
    let rec = dir.to_str().unwrap();
    let out = dir.join("at.json");
    let plan_file = dir.join("served.json");
    for (revisions, text) in &seen {
        // The state: the file live mode served, but for when and where it was taken.
        ok(&run(&[
            "replay",
            rec,
            "--revision",
            revisions,
            "-o",
            out.to_str().unwrap(),
        ]));
        let replayed = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            without_header(&replayed),
            without_header(text),
            "the state at {revisions}"
        );
        // The plan, as the live page makes it (the live job's frame), at the moment's time.
        let plan = ok(&run(&["replay", rec, "--revision", revisions, "--json"]));
        std::fs::write(&plan_file, taken_at(text, &taken_at_of(&replayed))).unwrap();
        let live = ok(&run(&["plan", plan_file.to_str().unwrap(), "--json"]));
        assert_eq!(plan, live, "the plan at {revisions}");
        let exported = ok(&run(&["plan", out.to_str().unwrap(), "--json"]));
        assert_eq!(exported, live, "plan --json of the export at {revisions}");
    }
    // The newline inside a value came back byte for byte (written as text on its line).
    let (_, last) = seen.last().unwrap();
    assert!(last.contains("\"owner\":\"w-b\",\n \"attempts\""), "{last}");
}

/// The file is readable and writable by its owner only.
fn assert_owner_only(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}: mode {mode:o}", path.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn segments_rotate_by_size_each_replays_alone_and_the_last_moment_is_the_store() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let state = js
        .get_key_value(format!("spate_coordination_{JOB}_state"))
        .await
        .unwrap();
    let lease = js
        .get_key_value(format!("spate_coordination_{JOB}_lease"))
        .await
        .unwrap();
    let dir = temp_dir("rotate");
    let args = [
        "--server",
        &url,
        "--job",
        JOB,
        "--record",
        dir.to_str().unwrap(),
        "--record-segment",
        "64K",
    ];
    let serve = Serve::start(&args);
    // about 160 KiB of lines: at least three segments of 64 KiB
    for i in 0..240 {
        write(&state, &lease, i).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (revisions, text) = served(serve.port).await;
    serve.stop();
    // closed segments are compressed by a thread of their own: wait for it
    let names = wait_for_files(&dir, |n| {
        n.len() >= 3 && n.iter().filter(|f| !f.ends_with(".gz")).count() == 1
    });
    assert!(names.len() >= 3, "{names:?}");
    assert_eq!(
        names[0],
        format!("{JOB}.000001.jsonl.gz"),
        "closed segments are compressed: {names:?}"
    );
    assert!(
        names.last().unwrap().ends_with(".jsonl"),
        "the last stays as written: {names:?}"
    );
    for (i, name) in names.iter().enumerate() {
        assert!(name.starts_with(&format!("{JOB}.{:06}.", i + 1)), "{names:?}");
        // every store value is in it: readable by its owner only, compressed or not
        assert_owner_only(&dir.join(name));
        let o = run(&[
            "replay",
            dir.join(name).to_str().unwrap(),
            "--at",
            "99999999999999",
        ]);
        let said = ok(&o);
        assert!(
            said.starts_with(&format!("job {JOB} at ")),
            "{name} replays alone: {said}"
        );
    }
    let out = dir.join("end.json");
    ok(&run(&[
        "replay",
        dir.to_str().unwrap(),
        "--revision",
        &revisions,
        "-o",
        out.to_str().unwrap(),
    ]));
    let end = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        without_header(&end),
        without_header(&text),
        "across segments, at {revisions}"
    );
    let store = live_client::export(&url, JOB);
    assert_eq!(without_header(&end), without_header(&store), "the store itself");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_credential_is_written_and_watch_records_too() {
    let nats = NatsServer::start_with(true, &["--user", "planner", "--pass", "s3cret-pw"]);
    let plain = format!("nats://planner:s3cret-pw@127.0.0.1:{}", nats.port);
    let opts = async_nats::ConnectOptions::with_user_and_password("planner".into(), "s3cret-pw".into());
    let js = jetstream::new(opts.connect(nats.url()).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let lease = js
        .get_key_value(format!("spate_coordination_{JOB}_lease"))
        .await
        .unwrap();
    let state = js
        .get_key_value(format!("spate_coordination_{JOB}_state"))
        .await
        .unwrap();
    let (d1, d2) = (temp_dir("cred-serve"), temp_dir("cred-watch"));
    let serve = Serve::start(&["--server", &plain, "--job", JOB, "--record", d1.to_str().unwrap()]);
    let mut watch = Command::new(BIN)
        .args([
            "watch",
            "--server",
            &plain,
            "--job",
            JOB,
            "--record",
            d2.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_files(&d2, |n| !n.is_empty());
    tokio::time::sleep(Duration::from_millis(500)).await;
    for i in 0..4 {
        write(&state, &lease, i).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (revisions, _) = served(serve.port).await;
    let serve_err = serve.stop();
    let _ = watch.kill();
    let mut watch_err = String::new();
    watch
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut watch_err)
        .unwrap();
    let _ = watch.wait();
    for (dir, err) in [(&d1, &serve_err), (&d2, &watch_err)] {
        let bytes = all_bytes(dir);
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains(&format!("nats://127.0.0.1:{}", nats.port)),
            "the address is recorded"
        );
        assert!(
            !text.contains("s3cret-pw") && !text.contains("planner:"),
            "no credential in {}",
            dir.display()
        );
        assert!(!err.contains("s3cret-pw"), "{err}");
        // both recorders saw the same changes
        let said = ok(&run(&["replay", dir.to_str().unwrap(), "--revision", &revisions]));
        assert!(said.contains(&format!("revisions {revisions}")), "{said}");
    }
}

#[test]
fn bad_recordings_give_coded_errors_and_a_line_cut_short_a_warning() {
    let dir = temp_dir("bad");
    let snap = dir.join("snap.json");
    ok(&run(&[
        "demo",
        "--splits",
        "20",
        "--members",
        "3",
        "-o",
        snap.to_str().unwrap(),
    ]));
    let o = run(&["replay", snap.to_str().unwrap(), "--at", "0"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("line 1: not a recording") && err.contains("[not_a_recording]"),
        "{err}"
    );
    // a recording made of the demo: header, state, a change; then cut
    let text = std::fs::read_to_string(&snap).unwrap();
    let s = spate_planner_core::Snapshot::parse(&text).unwrap();
    let header =
        spate_planner_core::live::RecordingHeader::new(&s.job, 1, s.taken_at_ms, s.source.clone()).to_line();
    let first =
        spate_planner_core::live::state_line(s.taken_at_ms, spate_planner_core::live::StateReason::Start, &s);
    let status = r#"{"t":1767225600100,"status":{"status":"live"}}"#;
    let good = format!("{header}\n{first}\n{status}\n");
    let file = dir.join(format!("{}.000001.jsonl", s.job));
    std::fs::write(&file, format!("{good}{}", &status[..20])).unwrap();
    let o = run(&["replay", file.to_str().unwrap(), "--at", "1767225600100"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning: line 4 is cut short"), "{err}");
    std::fs::write(&file, format!("{good}{}\n{status}\n", &status[..20])).unwrap();
    let o = run(&["replay", file.to_str().unwrap(), "--at", "0"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("line 4:") && err.contains("[truncated]"),
        "{err}"
    );
    std::fs::write(
        &file,
        format!("{good}{{\"t\":1,\"change\":{{\"bucket\":\"x\"}}}}\n"),
    )
    .unwrap();
    let err =
        String::from_utf8_lossy(&run(&["replay", file.to_str().unwrap(), "--at", "0"]).stderr).into_owned();
    assert!(
        err.contains("line 4.change") && err.contains("[invalid_value]"),
        "{err}"
    );
    // two jobs' segments in one directory
    std::fs::write(&file, &good).unwrap();
    std::fs::write(dir.join("other.000001.jsonl"), &good).unwrap();
    let err =
        String::from_utf8_lossy(&run(&["replay", dir.to_str().unwrap(), "--at", "0"]).stderr).into_owned();
    assert!(err.contains("several jobs"), "{err}");
    let o = run(&["replay", file.to_str().unwrap(), "--at", "yesterday"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a time"));
}

/// A demo job's snapshot, for recordings written by hand.
fn demo_snapshot(dir: &Path) -> spate_planner_core::Snapshot {
    let snap = dir.join("snap.json");
    ok(&run(&[
        "demo",
        "--splits",
        "20",
        "--members",
        "3",
        "-o",
        snap.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&snap).unwrap();
    std::fs::remove_file(&snap).unwrap();
    spate_planner_core::Snapshot::parse(&text).unwrap()
}

/// Segment `n` of a demo job's recording: header, state, then `statuses` status lines.
fn segment_text(s: &spate_planner_core::Snapshot, n: u64, statuses: usize) -> String {
    use spate_planner_core::live::{state_line, RecordingHeader, StateReason};
    let header = RecordingHeader::new(&s.job, n, s.taken_at_ms, s.source.clone()).to_line();
    let reason = if n == 1 {
        StateReason::Start
    } else {
        StateReason::Rotate
    };
    let mut out = format!("{header}\n{}\n", state_line(s.taken_at_ms, reason, s));
    for i in 0..statuses {
        let t = s.taken_at_ms + 1 + i as i64;
        out.push_str(&format!("{{\"t\":{t},\"status\":{{\"status\":\"live\",\"message\":\"status line number {i} of segment {n}\"}}}}\n"));
    }
    out
}

/// `replay DIR` run with a deadline: a reader that waits for ever (a pipe) fails the test.
fn replay_within(args: &[&str], secs: u64) -> Output {
    let mut child = Command::new(BIN)
        .arg("replay")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("replay {args:?} did not end within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_directory_with_a_truncated_segment_is_read_as_far_as_it_goes_naming_files_and_lines() {
    let dir = temp_dir("cut");
    let s = demo_snapshot(&dir);
    let job = s.job.clone();
    // segment 1 compressed, then cut at 70 % of its bytes (a copy interrupted)
    let one = segment_text(&s, 1, 4000);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, one.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let cut = &gz[..gz.len() * 7 / 10];
    std::fs::write(dir.join(format!("{job}.000001.jsonl.gz")), cut).unwrap();
    // segment 2 whole but for its last line, cut short by a crash
    let two = segment_text(&s, 2, 2);
    let last = r#"{"t":1767225600100,"status":{"st"#;
    std::fs::write(dir.join(format!("{job}.000002.jsonl")), format!("{two}{last}")).unwrap();
    let o = replay_within(&[dir.to_str().unwrap(), "--at", "99999999999999"], 30);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // where the compressed segment stops: its file and its own line
    let said = err
        .lines()
        .find(|l| l.contains(&format!("{job}.000001.jsonl.gz is cut short")))
        .unwrap_or_else(|| panic!("{err}"));
    let n: usize = said
        .split("read up to its line ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!(n > 2 && n < 4002, "{said}");
    // the line cut short in each segment, by its file and its own line (not the joined text's)
    assert!(
        err.contains(&format!("warning: {job}.000002.jsonl line 5 is cut short")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "warning: {job}.000001.jsonl.gz line {} is cut short",
            n + 1
        )),
        "{err}"
    );
    // the moments of both segments are there
    let said = ok(&run(&[
        "replay",
        dir.to_str().unwrap(),
        "--at",
        &(s.taken_at_ms + 2).to_string(),
    ]));
    assert!(
        said.contains(&format!("({job}.000002.jsonl line 4, revisions")),
        "{said}"
    );
}

#[test]
fn a_directory_holding_a_pipe_named_like_a_segment_is_refused_naming_it() {
    let dir = temp_dir("fifo");
    let s = demo_snapshot(&dir);
    std::fs::write(
        dir.join(format!("{}.000001.jsonl", s.job)),
        segment_text(&s, 1, 2),
    )
    .unwrap();
    let fifo = dir.join(format!("{}.000002.jsonl", s.job));
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = replay_within(&[dir.to_str().unwrap(), "--at", "0"], 10);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains(&format!(
            "{} is not a regular file (a named pipe (FIFO))",
            fifo.display()
        )),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_recorder_in_the_same_directory_is_refused_naming_the_first() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let dir = temp_dir("lock");
    let watch = |d: &Path| {
        Command::new(BIN)
            .args([
                "watch",
                "--server",
                &url,
                "--job",
                JOB,
                "--record",
                d.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut first = watch(&dir);
    wait_for_files(&dir, |n| n.iter().any(|f| f.ends_with(".jsonl")));
    let second = watch(&dir).wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{err}");
    assert!(
        err.contains(&format!("process {} is recording there already", first.id())),
        "{err}"
    );
    assert!(first.try_wait().unwrap().is_none(), "the first recorder goes on");
    // the lock goes with its process: a recorder that was killed leaves none behind
    first.kill().unwrap();
    first.wait().unwrap();
    let mut third = watch(&dir);
    let names = wait_for_files(&dir, |n| {
        n.iter().any(|f| f.starts_with(&format!("{JOB}.000002")))
    });
    assert!(third.try_wait().unwrap().is_none(), "{names:?}");
    third.kill().unwrap();
    third.wait().unwrap();
}

/// `/healthz` now: its status and document.
async fn health(port: u16) -> (u16, serde_json::Value) {
    let (status, _, body) = get(port, "/healthz").await;
    (status, serde_json::from_str(&body).unwrap())
}

/// The value of a `/metrics` sample (the line's name and labels as written), if exposed.
async fn sample(port: u16, series: &str) -> Option<f64> {
    let (_, _, body) = get(port, "/metrics").await;
    body.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Polls `/healthz` until it answers 503 (or 10 s pass).
async fn until_unhealthy(port: u16) -> (u16, serde_json::Value) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, doc) = health(port).await;
        if status == 503 || Instant::now() > deadline {
            return (status, doc);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_whose_directory_is_removed_stops_and_the_probes_say_so() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let lease = js
        .get_key_value(format!("spate_coordination_{JOB}_lease"))
        .await
        .unwrap();
    let state = js
        .get_key_value(format!("spate_coordination_{JOB}_state"))
        .await
        .unwrap();
    let dir = temp_dir("removed");
    let serve = Serve::start(&["--server", &url, "--job", JOB, "--record", dir.to_str().unwrap()]);
    write(&state, &lease, 0).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, doc) = health(serve.port).await;
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["recordings"][0]["ok"], true, "{doc}");
    assert!(doc["recordings"][0]["bytes"].as_u64().unwrap() > 1000, "{doc}");
    let ok = format!("spate_planner_recording_ok{{job=\"{JOB}\"}}");
    let bytes = format!("spate_planner_recording_bytes_total{{job=\"{JOB}\"}}");
    assert_eq!(sample(serve.port, &ok).await, Some(1.0));
    let before = sample(serve.port, &bytes).await.unwrap();
    assert!(before > 1000.0);
    write(&state, &lease, 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        sample(serve.port, &bytes).await.unwrap() > before,
        "the count grows with the changes"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let (status, doc) = until_unhealthy(serve.port).await;
    assert_eq!(status, 503, "{doc}");
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["nats_connected"], true, "the connection is not why");
    assert_eq!(doc["recordings"][0]["ok"], false, "{doc}");
    let reason = doc["reasons"][0].as_str().unwrap().to_string();
    assert!(
        reason.contains(&format!("the recording of job {JOB} stopped"))
            && reason.contains(&format!("{} was removed", dir.display())),
        "{reason}"
    );
    assert_eq!(sample(serve.port, &ok).await, Some(0.0));
    let err = serve.stop();
    assert!(err.contains(&format!("spate-planner: {reason}")), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_that_cannot_write_stops_and_the_probes_say_so() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let lease = js
        .get_key_value(format!("spate_coordination_{JOB}_lease"))
        .await
        .unwrap();
    let state = js
        .get_key_value(format!("spate_coordination_{JOB}_state"))
        .await
        .unwrap();
    let dir = temp_dir("full");
    // a full disk, as a file size limit: past 128 KiB a write fails (EFBIG; SIGXFSZ ignored)
    let serve = Serve::start_under(
        "trap '' XFSZ; ulimit -f 256",
        &["--server", &url, "--job", JOB, "--record", dir.to_str().unwrap()],
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, doc) = health(serve.port).await;
    assert_eq!(status, 200, "recording at first: {doc}");
    let mut i = 0;
    while health(serve.port).await.0 == 200 && i < 1000 {
        write(&state, &lease, i).await;
        i += 1;
    }
    let (status, doc) = until_unhealthy(serve.port).await;
    assert_eq!(status, 503, "after {i} writes: {doc}");
    let reason = doc["reasons"][0].as_str().unwrap().to_string();
    assert!(
        reason.contains(&format!(
            "the recording of job {JOB} stopped: cannot write into {}",
            dir.display()
        )),
        "{reason}"
    );
    assert!(reason.to_lowercase().contains("file too large"), "{reason}");
    let ok = format!("spate_planner_recording_ok{{job=\"{JOB}\"}}");
    assert_eq!(sample(serve.port, &ok).await, Some(0.0));
    // the server goes on: its job is still followed
    let (status, _) = served(serve.port).await;
    assert!(!status.is_empty());
    serve.stop();
}

/// The bytes of one segment file, uncompressed.
fn segment_bytes(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return bytes;
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_larger_than_the_segment_size_is_not_written_again_at_every_batch() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    fixture::write_job(&js, JOB).await;
    let state = js
        .get_key_value(format!("spate_coordination_{JOB}_state"))
        .await
        .unwrap();
    let lease = js
        .get_key_value(format!("spate_coordination_{JOB}_lease"))
        .await
        .unwrap();
    // about 150 KiB of state: more than twice the 64 KiB segment
    let pad = "x".repeat(360);
    for i in 0..400 {
        put(&state, &format!("pad.{i:03}"), json!({ "pad": pad })).await;
    }
    let dir = temp_dir("big-state");
    let serve = Serve::start(&[
        "--server",
        &url,
        "--job",
        JOB,
        "--record",
        dir.to_str().unwrap(),
        "--record-segment",
        "64K",
        "--record-plain",
    ]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    for i in 0..1500 {
        write(&state, &lease, i).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (revisions, text) = served(serve.port).await;
    serve.stop();
    let names = wait_for_files(&dir, |_| true);
    let sizes: Vec<(usize, usize)> = names
        .iter()
        .map(|n| {
            let bytes = segment_bytes(&dir.join(n));
            let state_line = bytes.split(|b| *b == b'\n').nth(1).unwrap().len() + 1;
            (bytes.len(), state_line)
        })
        .collect();
    let state_line = sizes[0].1;
    assert!(
        state_line > 2 * 65536,
        "the state is past the segment size: {state_line}"
    );
    // each closed segment holds its state and at least three times as much of changes
    let (closed, _) = sizes.split_at(sizes.len() - 1);
    assert!(!closed.is_empty(), "it still rotates: {names:?} {sizes:?}");
    for (n, (bytes, state)) in names.iter().zip(closed) {
        assert!(*bytes >= 4 * state, "{n}: {bytes} bytes, its state {state}");
    }
    let total: usize = sizes.iter().map(|s| s.0).sum();
    assert!(
        names.len() <= total / (4 * state_line) + 1,
        "{} segments for {total} bytes",
        names.len()
    );
    let out = dir.join("end.json");
    ok(&run(&[
        "replay",
        dir.to_str().unwrap(),
        "--revision",
        &revisions,
        "-o",
        out.to_str().unwrap(),
    ]));
    let end = std::fs::read_to_string(&out).unwrap();
    assert_eq!(without_header(&end), without_header(&text), "across segments");
}
