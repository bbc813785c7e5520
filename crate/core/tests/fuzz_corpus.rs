//! The fuzz targets' seeds, replayed natively as ordinary tests: every input `scripts/fuzz`
//! starts from goes through the same function its fuzz target runs (fuzz/checks/<target>.rs),
//! with the same checks (no panic; the round trips give back what was read). These are the
//! committed inputs (fuzz/corpus/<target>/: hand-written edge cases and the inputs of every crash
//! once found) and the seeds that are made, made here as `scripts/fuzz` makes them (demo
//! snapshots, the format docs' examples and their variants; see fuzz/README.md).
//!
//! Coverage-guided fuzzing itself (libFuzzer, AddressSanitizer) is `scripts/fuzz`.
#![cfg(not(target_arch = "wasm32"))]

use spate_planner_core::{demo_snapshot, DemoParams};
use std::path::{Path, PathBuf};

#[path = "../../../fuzz/checks/fleet_load.rs"]
mod fleet_load;
#[path = "../../../fuzz/checks/records.rs"]
mod records;
#[path = "../../../fuzz/checks/scenario.rs"]
mod scenario;
#[path = "../../../fuzz/checks/snapshot_parse.rs"]
mod snapshot_parse;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed inputs of a target, by name (at least one: an empty folder would test nothing).
fn committed(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = repo().join("fuzz/corpus").join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("a readable folder").path();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (
                format!(
                    "fuzz/corpus/{target}/{}",
                    path.file_name().unwrap().to_string_lossy()
                ),
                bytes,
            )
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no committed inputs for {target}");
    inputs
}

/// A demo snapshot as `spate-planner demo --splits N --members M --seed S` writes it.
fn demo(splits: usize, members: usize, seed: u64) -> (String, Vec<u8>) {
    let snap = demo_snapshot(&DemoParams {
        splits,
        members,
        seed,
        ..DemoParams::default()
    })
    .expect("the demo's parameters are in bounds");
    (
        format!("demo-{splits}x{members}-seed{seed}.json"),
        snap.to_json().into_bytes(),
    )
}

/// The first ```json block of a Markdown file (as scripts/fuzz's `doc_example` takes it).
fn doc_example(doc: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(repo().join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"));
    let mut out = String::new();
    let mut lines = text.lines().skip_while(|l| *l != "```json").skip(1);
    for line in lines.by_ref().take_while(|l| *l != "```") {
        out.push_str(line);
        out.push('\n');
    }
    assert!(!out.is_empty(), "no ```json example in {doc}");
    out.into_bytes()
}

fn replay(target: &str, run: fn(&[u8]), inputs: Vec<(String, Vec<u8>)>) {
    for (name, bytes) in &inputs {
        // Printed before each input, so a failure names the one that failed.
        println!("{target}: {name} ({} bytes)", bytes.len());
        run(bytes);
    }
    println!("{target}: {} inputs replayed", inputs.len());
}

#[test]
fn snapshot_parse_seeds_replay() {
    let mut inputs = committed("snapshot_parse");
    inputs.extend([demo(0, 1, 1), demo(5, 1, 7), demo(12, 6, 3)]);
    let example = doc_example("docs/snapshot-format.md");
    let unsupported: String = String::from_utf8(example.clone())
        .unwrap()
        .lines()
        .map(|l| l.replacen("spate-planner-snapshot/1", "spate-planner-snapshot/2", 1) + "\n")
        .collect();
    assert_ne!(
        unsupported.as_bytes(),
        &example[..],
        "the example names its format"
    );
    inputs.push(("unsupported-format.json".into(), unsupported.into_bytes()));
    inputs.push((
        "truncated.json".into(),
        example[..600.min(example.len())].to_vec(),
    ));
    inputs.push(("doc-example.json".into(), example));
    replay("snapshot_parse", snapshot_parse::run, inputs);
}

#[test]
fn fleet_load_seeds_replay() {
    let mut inputs = committed("fleet_load");
    inputs.extend([
        demo(0, 1, 1),
        demo(5, 1, 7),
        demo(12, 6, 3),
        demo(20, 3, 1),
        demo(300, 16, 5),
    ]);
    inputs.push(("doc-example.json".into(), doc_example("docs/snapshot-format.md")));
    replay("fleet_load", fleet_load::run, inputs);
}

#[test]
fn scenario_seeds_replay() {
    let mut inputs = committed("scenario");
    inputs.push(("doc-example.json".into(), doc_example("docs/scenario-format.md")));
    replay("scenario", scenario::run, inputs);
}

#[test]
fn records_seeds_replay() {
    replay("records", records::run, committed("records"));
}
