//! Recordings (issue 21, docs/recording-format.md) against a real NATS server: `serve --record`
//! while a writer changes the job, then `replay`: at every revision live mode served, the
//! replay's state is the one served (the snapshot file's text, but for when and where it was
//! taken) and its plan, made as the live page makes it, is `plan --json` of what was served;
//! rotation by size into segments that each replay alone; coded errors for bad recordings, a
//! last line cut short tolerated; `watch --record`; and no credential in any file.

mod fixture;
mod live_client;
mod nats_server;

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

/// The names of the files in `dir` once `done` holds of them (or after 20 s), sorted.
fn wait_for_files(dir: &Path, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
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
        spate_planner_core::RecordingHeader::new(&s.job, 1, s.taken_at_ms, s.source.clone()).to_line();
    let first = spate_planner_core::state_line(s.taken_at_ms, spate_planner_core::StateReason::Start, &s);
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
