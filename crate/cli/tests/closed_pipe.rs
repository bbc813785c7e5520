//! A reader that stops early (`| head -c 10`): every command ends quietly, killed by SIGPIPE as
//! any Unix filter is (the shell's status 141), nothing on standard error — never a panic (exit
//! 101) nor an error (exit 1). The binary runs with its standard output a real pipe whose
//! reading end is closed after a few bytes, while the command still has much more to write.

use crate::fixture;
use crate::nats_server;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");
const SIGPIPE: i32 = 13;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A demo snapshot large enough that its plan is far more than a pipe's buffer (64 KiB).
fn demo() -> PathBuf {
    let file = dir().join("demo.json");
    if !file.exists() {
        let o = Command::new(BIN)
            .args(["demo", "--splits", "6000", "--members", "24", "-o"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    file
}

/// `args` started with standard output a pipe (its reading end returned) and standard error
/// kept.
fn spawn(args: &[&str]) -> (Child, ChildStdout) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let reader = child.stdout.take().unwrap();
    (child, reader)
}

/// Reads `n` bytes, then closes the pipe.
fn read_then_close(mut reader: ChildStdout, n: usize) -> Vec<u8> {
    let mut head = vec![0u8; n];
    reader.read_exact(&mut head).unwrap();
    drop(reader);
    head
}

/// The child's end, within a minute: it must have died of SIGPIPE, saying nothing more on
/// standard error than `said` (what the command says there when its output is read whole).
fn assert_quiet_end(mut child: Child, what: &str, said: &str) {
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{what}: still running");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(
        status.signal(),
        Some(SIGPIPE),
        "{what}: ended by {status:?}, standard error: {err}"
    );
    assert_eq!(err, said, "{what}: nothing more on standard error");
}

/// The command's whole output is larger than a pipe holds, so that it must still be writing
/// when the reader goes away; and what it says on standard error.
fn larger_than_a_pipe(args: &[&str]) -> String {
    let o = Command::new(BIN).args(args).output().unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "{args:?}: {err}");
    assert!(
        o.stdout.len() > 128 * 1024,
        "{args:?}: only {} bytes",
        o.stdout.len()
    );
    err
}

fn closed_after_ten_bytes(args: &[&str]) {
    let said = larger_than_a_pipe(args);
    let (child, reader) = spawn(args);
    let head = read_then_close(reader, 10);
    assert!(!head.is_empty());
    assert_quiet_end(child, &args.join(" "), &said);
}

/// A recording of the demo: its header and whole state at one moment.
fn recording() -> PathBuf {
    let text = std::fs::read_to_string(demo()).unwrap();
    let s = spate_planner_core::Snapshot::parse(&text).unwrap();
    let header =
        spate_planner_core::live::RecordingHeader::new(&s.job, 1, s.taken_at_ms, s.source.clone()).to_line();
    let first =
        spate_planner_core::live::state_line(s.taken_at_ms, spate_planner_core::live::StateReason::Start, &s);
    let file = dir().join(format!("{}.000001.jsonl", s.job));
    std::fs::write(&file, format!("{header}\n{first}\n")).unwrap();
    file
}

#[test]
fn plan_demo_and_replay_end_quietly_when_the_reader_stops() {
    let snap = demo();
    let snap = snap.to_str().unwrap();
    closed_after_ten_bytes(&["plan", snap, "--json"]);
    closed_after_ten_bytes(&["plan", snap, "--csv", "splits"]);
    closed_after_ten_bytes(&["demo", "--splits", "3000", "--members", "24"]);
    let rec = recording();
    let taken = spate_planner_core::Snapshot::parse(&std::fs::read_to_string(snap).unwrap())
        .unwrap()
        .taken_at_ms
        .to_string();
    closed_after_ten_bytes(&["replay", rec.to_str().unwrap(), "--at", &taken, "--json"]);
}

#[test]
fn simulate_ends_quietly_when_the_reader_stops() {
    let script = dir().join("script.json");
    std::fs::write(
        &script,
        r#"{"format":"spate-planner-script/1","until_ms":120000,
            "events":[{"at_ms":0,"op":"crash","member":"worker-03"}]}"#,
    )
    .unwrap();
    let snap = demo();
    let args = [
        "simulate",
        snap.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
        "--json",
    ];
    closed_after_ten_bytes(&args);
}

/// `watch` prints a line per change: the reader goes away after the first, and the next change
/// ends it (it panicked on the closed pipe).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_ends_quietly_at_the_first_line_after_the_reader_stops() {
    let nats = nats_server::NatsServer::start(true);
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "p").await;
    let url = nats.url();
    let (mut child, mut reader) = spawn(&["watch", "--server", &url, "--job", "p", "--settle-ms", "10"]);
    let mut first = [0u8; 10];
    reader.read_exact(&mut first).unwrap();
    drop(reader);
    let state = js.get_key_value("spate_coordination_p_state").await.unwrap();
    for i in 0..100 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        fixture::put(&state, "extra.pipe", serde_json::json!({ "n": i })).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_quiet_end(child, "watch", "");
}
