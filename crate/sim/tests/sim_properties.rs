//! Property tests of the simulator over random fleets and scripts.

mod sim_support;

use proptest::prelude::*;
use sim_support::common::cases::cases;
use sim_support::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// The fast engine gives exactly the naive engine's outcome.
    #[test]
    fn fast_equals_naive((start, script) in arb_start().prop_flat_map(arb_script)) {
        let fast = run(&start, &script);
        let naive = run_naive(&start, &script);
        prop_assert_eq!(fast, naive);
    }
}

fn finished(o: &spate_planner_sim::Outcome) -> bool {
    o.timeline
        .iter()
        .any(|e| matches!(e.what, spate_planner_sim::What::JobFinished))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// No split is ever held by two processes; every claim is of an assigned split; attempts grow
    /// only on reclaims, expired takeovers, quarantines and failures; once events stop the fleet
    /// settles (everything runnable runs or waits for a lane) on `desired_assignment` of its
    /// final state.
    #[test]
    fn safety_and_settling((start, script) in arb_start().prop_flat_map(arb_script)) {
        let o = run(&start, &script);
        let holders = check_holders(&start, &o);
        prop_assert_eq!(&holders, &o.end.holders);
        check_claims_assigned(&start, &o);
        check_attempts(&start, &o);
        if !o.end.lanes.is_empty() && !finished(&o) {
            check_settled(&o, &script);
            check_final_assignment(&o, start.seed);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(128)))]

    /// Spate 0.3's timing and decisions: the fast engine gives exactly the naive engine's
    /// outcome.
    #[test]
    fn fast_equals_naive_by_0_3((start, script) in arb_start().prop_flat_map(|s| arb_script_by(s, Some("0.3")))) {
        let fast = run(&start, &script);
        prop_assert_eq!(fast.rules.rules, spate_planner_core::Rules::V0_3);
        let naive = run_naive(&start, &script);
        prop_assert_eq!(fast, naive);
    }

    /// The same safety and settling as by 0.1's rules, by 0.3's: no split held twice, claims
    /// only of assigned splits, attempts only on reclaims, expired takeovers, quarantines and
    /// failures, and once events stop the published records are 0.3's `desired_assignment`
    /// (with `previous` from those records) of the final state.
    #[test]
    fn safety_and_settling_by_0_3((start, script) in arb_start().prop_flat_map(|s| arb_script_by(s, Some("0.3")))) {
        let o = run(&start, &script);
        let holders = check_holders(&start, &o);
        prop_assert_eq!(&holders, &o.end.holders);
        check_claims_assigned(&start, &o);
        check_attempts(&start, &o);
        if !o.end.lanes.is_empty() && !finished(&o) {
            check_settled(&o, &script);
            check_final_assignment_by(&o, start.seed, spate_planner_core::Rules::V0_3);
        }
    }
}

/// The benchmark's scenario (a crash and a rolling restart) on a small fleet, both weight
/// shapes: the fast engine equals the naive one.
#[test]
fn bench_scenario_fast_equals_naive() {
    for bytes in [false, true] {
        let (start, script) = spate_planner_sim::bench_scenario(240, 12, bytes);
        let fast = run(&start, &script);
        assert!(fast.figures.moves > 0 && fast.figures.claims > 0);
        assert_eq!(fast, run_naive(&start, &script), "bytes {bytes}");
        let by_0_3 = spate_planner_sim::Script {
            rules: Some(spate_planner_core::Rules::V0_3),
            ..script
        };
        let fast = run(&start, &by_0_3);
        assert!(fast.figures.moves > 0 && fast.figures.claims > 0);
        assert_eq!(fast, run_naive(&start, &by_0_3), "0.3, bytes {bytes}");
    }
}
