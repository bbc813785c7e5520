//! A snapshot file, all the way to what the planner shows: `Fleet::load_text` (parse, then the
//! records, strictly), the leader's inputs, the plan and its report. Any of these panicking on
//! a file a user opens is a bug; errors and warnings are the expected outcome for bad input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spate_planner_core::fleet::{Fleet, LeaderSettings};
use spate_planner_core::report::report;

/// Bigger inputs only slow the fuzzer down (the plan is O(n log n) plus a bounded number of
/// improving moves, so 1 MiB of entries stays well under a second).
const MAX_INPUT: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let fleet = match Fleet::load_text(text) {
        Ok(f) => f,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for w in &fleet.warnings {
        let _ = (w.code, w.message.len());
    }

    // As the CLI and the dashboard plan it by default.
    let inputs = fleet.leader_inputs(&LeaderSettings::default());
    let plan = inputs.plan();
    let _ = report(&inputs, &plan);

    // And with every departed owner inside the rebalance delay (their splits reserved) and the
    // smallest default cap: other paths of the same code.
    let settings = LeaderSettings {
        default_cap: 1,
        departed: fleet.departed_owners(),
    };
    let inputs = fleet.leader_inputs(&settings);
    let plan = inputs.plan();
    let _ = report(&inputs, &plan);
});
