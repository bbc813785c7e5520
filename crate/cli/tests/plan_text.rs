//! `plan`'s text answers first (issue 33): the job with its date, what is wrong, then the plan's
//! figures, before how it was planned, the members, the moves; the snapshot's warnings last, a
//! line per kind with its count and its first keys (not one line each); no raw epoch
//! milliseconds, and each move's relief in bytes (not a 20-digit gain).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn plan_text() -> String {
    let file = std::env::temp_dir().join(format!("spate-plan-text-{}.json", std::process::id()));
    // the demo fleet: 20 progress records without a spec (no_spec) and an unreadable presence
    let demo = Command::new(BIN)
        .args(["demo", "--splits", "2000", "--members", "24", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(demo.status.success());
    let out = Command::new(BIN).arg("plan").arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_answer_comes_first_and_the_warnings_last_by_kind() {
    let text = plan_text();
    let lines: Vec<&str> = text.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?}:\n{text}"))
    };
    assert_eq!(
        lines[0],
        "job demo (demo), snapshot taken at 2026-01-01 00:00:00 UTC"
    );
    // the plan's figures within the first screen, before the settings, members and moves
    assert!(at("balance:") < 15, "{text}");
    assert!(at("balance:") < at("seed ") && at("seed ") < at("members (") && at("members (") < at("moves ("));
    // the warnings after everything else: one line per kind, largest first, then its first keys
    let w = at("warnings: 21 in the snapshot, of 2 kind(s)");
    assert!(w > at("moves ("), "{text}");
    assert!(
        lines[w + 1].starts_with("  [no_spec] x 20: progress record without a spec"),
        "{}",
        lines[w + 1]
    );
    let no_spec_keys = lines[w + 2..]
        .iter()
        .take_while(|l| l.starts_with("    bucket"))
        .count();
    assert!((1..=5).contains(&no_spec_keys), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  [unreadable_presence] x 1:")),
        "{text}"
    );
    // two kinds: at most a line, five keys and a "more" line each (the 21 flat lines are gone)
    assert!(
        lines.len() - w - 1 <= 2 * 7,
        "{} lines of warnings",
        lines.len() - w - 1
    );
    // numbers a person reads: no epoch milliseconds, no 20-digit gain
    assert!(
        !text.contains(" ms,") && !text.contains("1767225600000"),
        "{text}"
    );
    assert!(!text.contains("(gain "), "{text}");
    assert!(text.contains(" (relief "), "{text}");
}
