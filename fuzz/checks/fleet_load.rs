//! A snapshot file, all the way to what the planner shows: `Fleet::load_text` (parse, then the
//! records, strictly), the pipeline (the leader's inputs, the plan, its report, the findings,
//! the JSON document) and every worker's next claims. Any of these panicking on a file a user
//! opens is a bug; errors and warnings are the expected outcome for bad input.

use spate_planner_core::{
    analyse, next_claims, plan_document, scenario::Change, AssignmentSource, Fleet, Scenario,
};

/// Bigger inputs only slow the fuzzer down (the plan is O(n log n) plus a bounded number of
/// improving moves, so 1 MiB of entries stays well under a second).
const MAX_INPUT: usize = 1 << 20;

/// The fuzz target's body: libFuzzer's input, or one file of the corpus replayed natively.
pub fn run(data: &[u8]) {
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

    // As the CLI and the dashboard plan it by default: the leader's view from the store.
    if let Ok(a) = analyse(&fleet, &Scenario::default()) {
        let _ = plan_document(&fleet, &a);
        let _ = next_claims(&fleet, &a, None, AssignmentSource::Published, 4);
    }

    // And with every departed owner crashed just now (their splits withheld), no rebalance
    // delay, and the smallest default cap: other paths of the same code.
    for delay in [None, Some(0)] {
        let scenario = Scenario {
            default_cap: Some(1),
            rebalance_delay_ms: delay,
            changes: fleet
                .departed_owners()
                .into_iter()
                .map(|member| Change::RemoveMember {
                    member,
                    departure: None,
                    within_rebalance_delay: Some(true),
                })
                .collect(),
            ..Scenario::default()
        };
        if let Ok(a) = analyse(&fleet, &scenario) {
            let _ = next_claims(&fleet, &a, None, AssignmentSource::Plan, 1);
        }
    }
}
