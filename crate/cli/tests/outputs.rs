//! Outputs all or nothing (docs/bad-inputs.md, "Outputs are all or nothing"): a link at the
//! target is replaced, never followed; a report whose image cannot be written leaves no file; an
//! existing image is not replaced without --force; a signal during a write leaves no temporary
//! file.

#![cfg(unix)]

use rustix::process::{kill_process, Pid, Signal};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_link_at_the_target_is_replaced_not_followed() {
    let d = dir("link");
    let victim = d.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let out = d.join("demo.json");
    std::os::unix::fs::symlink(&victim, &out).unwrap();
    let o = run(&[
        "demo",
        "--splits",
        "10",
        "--members",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let meta = std::fs::symlink_metadata(&out).unwrap();
    assert!(meta.is_file(), "the link was replaced by the file");
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("spate-planner-snapshot/1"));
    assert_eq!(
        names(&d),
        ["demo.json", "victim.txt"],
        "no temporary file is left"
    );
    let _ = std::fs::remove_dir_all(&d);
}

fn report(d: &Path, extra: &[&str]) -> Output {
    let snap = d.join("snap.json");
    if !snap.exists() {
        let o = run(&[
            "demo",
            "--splits",
            "40",
            "--members",
            "4",
            "-o",
            snap.to_str().unwrap(),
        ]);
        assert!(o.status.success());
    }
    let out = d.join("out").join("review.md");
    let mut args = vec!["report", snap.to_str().unwrap(), "-o", out.to_str().unwrap()];
    args.extend(extra);
    run(&args)
}

#[test]
fn a_report_is_written_whole_or_not_at_all() {
    let d = dir("report");
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // An image that cannot be written (a directory in its place): no file at all.
    std::fs::create_dir(out.join("review-loads.svg")).unwrap();
    let o = report(&d, &["--force"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("review-loads.svg"), "{e}");
    assert_eq!(
        names(&out),
        ["review-loads.svg"],
        "neither the .md nor a temporary file"
    );
    std::fs::remove_dir(out.join("review-loads.svg")).unwrap();
    // An image that exists already: refused without --force, nothing written.
    std::fs::write(out.join("review-loads.svg"), "mine").unwrap();
    let o = report(&d, &[]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("exist(s) already") && e.contains("--force") && e.contains("nothing was written"),
        "{e}"
    );
    assert_eq!(names(&out), ["review-loads.svg"]);
    assert_eq!(
        std::fs::read_to_string(out.join("review-loads.svg")).unwrap(),
        "mine"
    );
    std::fs::remove_file(out.join("review-loads.svg")).unwrap();
    // The third of three images fails after two were renamed: the two are taken back.
    std::fs::create_dir(out.join("review-sweep-counts.svg")).unwrap();
    let o = report(&d, &["--force", "--sweep-add-members", "0..2"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("review-sweep-counts.svg"), "{e}");
    assert_eq!(
        names(&out),
        ["review-sweep-counts.svg"],
        "no image, no .md, no temporary file"
    );
    std::fs::remove_dir(out.join("review-sweep-counts.svg")).unwrap();
    std::fs::write(out.join("review-loads.svg"), "mine").unwrap();
    // With --force: the report and its image, complete.
    let o = report(&d, &["--force"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(names(&out), ["review-loads.svg", "review.md"]);
    assert!(std::fs::read_to_string(out.join("review-loads.svg"))
        .unwrap()
        .starts_with("<svg"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_signal_during_a_write_leaves_no_temporary_file() {
    // Side by side: each run builds 300,000 splits first (a file of about 100 MB, written for
    // about a second: time to see its temporary file and signal before it is renamed).
    let runs: Vec<_> = ["TERM", "INT"]
        .into_iter()
        .map(|signal| std::thread::spawn(move || signal_during_a_write(signal)))
        .collect();
    for r in runs {
        r.join().unwrap();
    }
}

/// `demo -o` of a large fleet, sent `signal` once its temporary file exists: it ends, and
/// leaves neither the temporary file nor an output.
fn signal_during_a_write(signal: &str) {
    let d = dir(&format!("signal-{signal}"));
    let out = d.join("big.json");
    let mut child = Command::new(BIN)
        .args([
            "demo",
            "--splits",
            "300000",
            "--members",
            "200",
            "-o",
            out.to_str().unwrap(),
        ])
        .spawn()
        .unwrap();
    let t = Instant::now();
    let seen = loop {
        if names(&d)
            .iter()
            .any(|n| n.starts_with(".big.json.") && n.ends_with(".tmp"))
        {
            break true;
        }
        if child.try_wait().unwrap().is_some() || t.elapsed() > Duration::from_secs(300) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(seen, "the temporary file was never seen: {:?}", names(&d));
    // at once: starting a `kill` process took longer than the write on a busy machine
    let sig = if signal == "TERM" {
        Signal::TERM
    } else {
        Signal::INT
    };
    kill_process(Pid::from_child(&child), sig).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "SIG{signal} ended it");
    assert_eq!(
        names(&d),
        Vec::<String>::new(),
        "SIG{signal}: no temporary file, no output"
    );
    let _ = std::fs::remove_dir_all(&d);
}
