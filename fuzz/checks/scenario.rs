//! What-if scenarios are untrusted input (a file given to `plan --what-if`, or the dashboard's
//! URL fragment, which anyone can send in a link). `Scenario::parse`, `apply` to a small fixed
//! fleet, the plan and its report must not panic.
//!
//! The fleet is the demo snapshot with 40 splits on 4 members (`part-000000`..`part-000039`,
//! `worker-00`..`worker-03`, and the departed owner `worker-gone-7f3a`; see fuzz/dict/scenario.dict).
//!
//! Beyond "no panic": a scenario that parses, written back with `to_json` (what the dashboard
//! keeps in its URL), parses to the same scenario.

use spate_planner_core::{
    analyse, demo_snapshot, plan_document,
    scenario::{Change, MAX_ADDED_SPLITS},
    DemoParams, Fleet, Scenario,
};
use std::sync::LazyLock;

/// Scenarios are small; bigger inputs only slow the fuzzer down.
const MAX_INPUT: usize = 16 << 10;

/// Why the split budget: `add_splits` accepts up to MAX_ADDED_SPLITS (1,000,000) splits per
/// change, by design, and a scenario may repeat the change. A few bytes of input can thus ask
/// for millions of splits: seconds of work and hundreds of MB per run, which libFuzzer would
/// report as a timeout or out-of-memory although it is the documented behaviour, and which
/// would starve the fuzzer of executions. So inputs that add more than MAX_FUZZ_SPLITS splits in
/// all (or whose ids would take more than MAX_FUZZ_ID_BYTES) are skipped. Counts above
/// MAX_ADDED_SPLITS are kept: `apply` refuses them (`too_many_splits`) before doing any work.
const MAX_FUZZ_SPLITS: u64 = 1_000;
const MAX_FUZZ_ID_BYTES: u64 = 1 << 20;

static FLEET: LazyLock<Fleet> = LazyLock::new(|| {
    let snap = demo_snapshot(&DemoParams {
        splits: 40,
        members: 4,
        ..Default::default()
    })
    .expect("the demo's parameters are in bounds");
    Fleet::from_snapshot(&snap).expect("the demo snapshot loads")
});

fn too_big(s: &Scenario) -> bool {
    let mut splits = 0u64;
    let mut id_bytes = 0u64;
    for c in &s.changes {
        if let Change::AddSplits { count, prefix, .. } = c {
            if *count > MAX_ADDED_SPLITS {
                continue; // refused by `apply` at once
            }
            splits = splits.saturating_add(*count);
            id_bytes = id_bytes.saturating_add(count.saturating_mul(prefix.len() as u64 + 8));
        }
    }
    splits > MAX_FUZZ_SPLITS || id_bytes > MAX_FUZZ_ID_BYTES
}

/// The fuzz target's body: libFuzzer's input, or one file of the corpus replayed natively.
pub fn run(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scenario = match Scenario::parse(text) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let text = scenario.to_json().expect("a scenario serializes");
    match Scenario::parse(&text) {
        Ok(again) => assert_eq!(again, scenario, "scenario changed by a to_json/parse round trip"),
        Err(e) => panic!("a parsed scenario, written back, does not parse: {e}"),
    }
    if too_big(&scenario) {
        return;
    }
    match analyse(&FLEET, &scenario) {
        Ok(a) => {
            let _ = plan_document(&FLEET, &a).expect("a plan serializes");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
