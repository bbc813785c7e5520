//! Inputs bounded on the command line (docs/bad-inputs.md, "Bounds"), and store strings escaped
//! on the terminal ("Terminal output").

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-bounds-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn failure(args: &[&str]) -> String {
    let o = run(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A demo snapshot of 40 splits on `members` members, written to `path`.
fn demo(path: &Path, members: &str) {
    let args = [
        "demo",
        "--splits",
        "40",
        "--members",
        members,
        "-o",
        path.to_str().unwrap(),
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_snapshot_past_the_limit_is_refused_before_it_is_read_and_dev_zero_stops() {
    let d = dir("large");
    let sparse = d.join("huge.json");
    let f = std::fs::File::create(&sparse).unwrap();
    f.set_len(600 << 20).unwrap(); // sparse: nothing is written
    let t = Instant::now();
    let e = failure(&["plan", sparse.to_str().unwrap()]);
    assert!(e.contains("629145600 bytes; spate-planner reads a snapshot of at most 512.0 MiB (536870912 bytes) [too_large]"), "{e}");
    // Refused by its size, before reading: the message names the size the file system gives.
    // (Reading the 600 MiB would take a second or two; the bound is wide for a busy machine.)
    assert!(
        t.elapsed() < Duration::from_secs(60),
        "refused before reading: {:?}",
        t.elapsed()
    );
    let e = failure(&["plan", "/dev/zero"]);
    assert!(
        e.contains("/dev/zero: more than that was read; spate-planner reads a snapshot of at most"),
        "{e}"
    );
    assert!(e.contains("[too_large]"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn demo_parameters_out_of_bounds_are_coded_errors() {
    let d = dir("demo");
    let out = d.join("x.json");
    let o = out.to_str().unwrap();
    for (args, want) in [
        (
            ["--members", "0"],
            "--members: a demo fleet has at least 1 member [invalid_field]",
        ),
        (
            ["--members", "100001"],
            "--members: 100001 members; a demo fleet has at most 100000 [too_large]",
        ),
        (
            ["--splits", "1000001"],
            "--splits: 1000001 splits; a demo fleet has at most 1000000 [too_large]",
        ),
        (
            ["--members", "18446744073709551615"],
            "--members: 18446744073709551615 members; a demo fleet has at most 100000 [too_large]",
        ),
    ] {
        let mut all = vec!["demo", "-o", o];
        all.extend(args);
        let e = failure(&all);
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_empty_what_if_file_is_refused_and_a_wide_sweep_is_not_cut() {
    let d = dir("whatif");
    let snap = d.join("s.json");
    demo(&snap, "4");
    let s = snap.to_str().unwrap();
    let empty = d.join("empty.json");
    std::fs::write(&empty, "\n").unwrap();
    let e = failure(&["plan", s, "--what-if", empty.to_str().unwrap()]);
    assert!(
        e.contains("the file is empty: not a scenario") && e.contains("[empty]"),
        "{e}"
    );
    let e = failure(&["sweep", s, "--default-cap", "1..5000"]);
    assert!(
        e.contains("\"1..5000\": 5000 steps; a sweep takes at most 1024") && e.contains("[too_large]"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A store whose member `worker-01` is renamed with ESC sequences, a CR and a right-to-left
/// override (every key and value naming it, so the snapshot is consistent).
fn hostile_snapshot(d: &Path) -> PathBuf {
    let snap = d.join("plain.json");
    demo(&snap, "6");
    let text = std::fs::read_to_string(&snap).unwrap();
    let evil = "worker-01\\u001b[2J\\u001b]0;owned\\u0007\\rFAKE\\u202e10";
    let path = d.join("hostile.json");
    std::fs::write(&path, text.replace("worker-01", evil)).unwrap();
    path
}

#[test]
fn store_strings_reach_the_terminal_escaped() {
    let d = dir("term");
    let snap = hostile_snapshot(&d);
    let s = snap.to_str().unwrap();
    let other = d.join("other.json");
    demo(&other, "3");
    for args in [
        vec!["plan", s],
        vec!["claims", s],
        vec!["diff", other.to_str().unwrap(), s],
    ] {
        let o = run(&args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8(o.stdout).unwrap();
        for bad in ['\u{1b}', '\r', '\u{7}', '\u{202e}'] {
            assert!(
                !out.contains(bad),
                "{args:?}: {bad:?} reached the terminal:\n{out}"
            );
        }
        assert!(
            out.contains("worker-01\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{d}FAKE\\u{202e}10"),
            "{args:?}:\n{out}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `text` on standard output or error holds none of the characters that steer a terminal.
fn no_raw_controls(what: &str, text: &str) {
    for bad in ['\u{1b}', '\r', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(
            !text.contains(bad),
            "{what}: {bad:?} reached the terminal:\n{text}"
        );
    }
}

#[test]
fn split_ids_and_error_messages_reach_the_terminal_escaped() {
    let d = dir("term-ids");
    let snap = d.join("plain.json");
    demo(&snap, "3");
    let text = std::fs::read_to_string(&snap).unwrap();
    // An unowned split the plan fills: a move in the plan and a claim after it.
    let plan = run(&["plan", snap.to_str().unwrap(), "--limit", "1000"]);
    let plan = String::from_utf8(plan.stdout).unwrap();
    let split = plan
        .lines()
        .find(|l| l.contains("(none) ->"))
        .and_then(|l| l.split_whitespace().next())
        .expect("the demo plan fills an unowned split")
        .to_string();
    let evil = format!("{split}\\u001b[2J\\u009b31m\\u202e\"");
    let ids = d.join("ids.json");
    std::fs::write(&ids, text.replace(&format!("{split}\""), &evil)).unwrap();
    let want = format!("{split}\\u{{1b}}[2J\\u{{9b}}31m\\u{{202e}}");
    for args in [
        vec!["plan", ids.to_str().unwrap(), "--limit", "1000"],
        vec!["claims", ids.to_str().unwrap(), "--after-plan"],
    ] {
        let o = run(&args);
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        no_raw_controls(&format!("{args:?}"), &out);
        assert!(out.contains(&want), "{args:?}: {want} not in\n{out}");
    }
    // An unknown field in a record is named by the error, escaped like the store's strings.
    let field = d.join("field.json");
    let bad = text.replacen(
        "\"attempts\":",
        "\"at\\u001b]0;x\\u0007\\u202e\":0,\"attempts\":",
        1,
    );
    assert_ne!(bad, text, "the demo's records have an attempts field");
    std::fs::write(&field, bad).unwrap();
    for cmd in ["plan", "claims"] {
        let e = failure(&[cmd, field.to_str().unwrap()]);
        no_raw_controls(cmd, &e);
        assert!(e.contains("at\\u{1b}]0;x\\u{7}\\u{202e}"), "{cmd}: {e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
