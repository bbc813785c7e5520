//! Snapshot files are untrusted input (a user opens any file in the CLI or the dashboard):
//! `Snapshot::parse_bytes` must return `Ok` or `Err`, never panic, for any bytes.
//!
//! Beyond "no panic", it checks the format's promise of exactness (docs/snapshot-format.md):
//! a snapshot that parses, written back with `to_json` and read again, is the same snapshot,
//! every value byte included.

use spate_planner_core::Snapshot;

/// Bigger inputs only slow the fuzzer down; real snapshot files are read the same way.
const MAX_INPUT: usize = 1 << 20;

/// The fuzz target's body: libFuzzer's input, or one file of the corpus replayed natively.
pub fn run(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    match Snapshot::parse_bytes(data) {
        Ok(snap) => {
            let text = snap.to_json();
            match Snapshot::parse(&text) {
                Ok(again) => assert_eq!(again, snap, "snapshot changed by a write/read round trip"),
                Err(e) => panic!(
                    "a parsed snapshot, written back, does not parse: {e} ({})",
                    e.code
                ),
            }
        }
        Err(e) => {
            // The message and its place are shown to the user: format them too.
            let _ = e.to_string();
        }
    }
}
