//! `plan --what-if` with changes that do not apply: the core's one policy (the dashboard's too):
//! each such change is named on standard error and in the JSON document, the rest are planned,
//! and the command succeeds (a change of a known op with a bad field too); `--strict` makes it
//! fail without a plan.

use serde_json::Value;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("spate-what-if-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn files() -> (String, String) {
    let snap = dir().join("demo.json");
    assert!(run(&[
        "demo",
        "--splits",
        "300",
        "--members",
        "6",
        "-o",
        snap.to_str().unwrap()
    ])
    .status
    .success());
    let what_if = dir().join("what-if.json");
    std::fs::write(
        &what_if,
        r#"{"changes":[{"op":"add_member","member":"a"},{"op":"explode"},{"op":"set_cap","member":"ghost","cap":1},{"op":"set_cap","member":"a","cap":"lots"},{"op":"add_member","member":"b"}]}"#,
    )
    .unwrap();
    (snap.to_str().unwrap().into(), what_if.to_str().unwrap().into())
}

#[test]
fn changes_that_do_not_apply_are_named_and_the_rest_planned() {
    let (snap, what_if) = files();
    let o = run(&["plan", &snap, "--what-if", &what_if, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: change 2 not applied") && err.contains("[unknown_op]"),
        "{err}"
    );
    assert!(
        err.contains("warning: change 3 not applied") && err.contains("changes[2].member [unknown_member]"),
        "{err}"
    );
    // a known op with a bad field is one more change that does not apply, not a failed command
    assert!(
        err.contains("warning: change 4 not applied") && err.contains("at changes[3] [invalid_change]"),
        "{err}"
    );
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let refused: Vec<(u64, &str)> = doc["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["index"].as_u64().unwrap(), r["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        refused,
        [(1, "unknown_op"), (2, "unknown_member"), (3, "invalid_change")]
    );
    let members: Vec<&str> = doc["report"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(members.contains(&"a") && members.contains(&"b"), "{members:?}");
    // the human report names them too
    let human = run(&["plan", &snap, "--what-if", &what_if]);
    assert!(human.status.success());
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("change 3 not applied (left out of the plan)"),
        "{text}"
    );
    assert!(text.contains("over the mean (by more than 5%)"), "{text}");
}

#[test]
fn strict_fails_without_a_plan() {
    let (snap, what_if) = files();
    let o = run(&["plan", &snap, "--what-if", &what_if, "--json", "--strict"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("error: change 2 not applied")
            && err.contains("3 change(s) of the scenario do not apply (--strict)"),
        "{err}"
    );
    // a scenario that applies whole plans with --strict as without
    let ok = dir().join("ok.json");
    std::fs::write(&ok, r#"{"changes":[{"op":"add_member","member":"a"}]}"#).unwrap();
    assert!(
        run(&["plan", &snap, "--what-if", ok.to_str().unwrap(), "--strict"])
            .status
            .success()
    );
}
