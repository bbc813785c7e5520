//! The sweep's crash steps through the simulator's crash model: each step's heaviest member is
//! crashed in the fleet settled on the step's plan, with the ranges of Spate's timing rules.

use crate::sim_support::common::store::Store;
use spate_planner_core::{
    analyse, sweep,
    sweep::{step_scenario, Axis, Step},
    CrashModel, Scenario,
};
use spate_planner_sim::{CrashScript, Script};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Two members (caps 3 and 2) holding six splits of weights 60..10 unevenly.
fn fleet() -> Store {
    let mut s = Store::new()
        .presence("w1", Some(3))
        .presence("w2", Some(2))
        .leader("w1");
    for (i, w) in [60u64, 50, 40, 30, 20, 10].into_iter().enumerate() {
        let id = format!("s{i}");
        s = s.split(&id, w, Some("w1"), 1, 0).held(&id, "w1");
    }
    s
}

/// The member a crash step must pick, from the report of the step's what-if: the largest planned
/// load, ties to the first name.
fn heaviest_by_hand(f: &spate_planner_core::Fleet, value: u32) -> String {
    let sc = step_scenario(f, &Scenario::default(), Axis::AddMembers { cap: Some(2) }, value).unwrap();
    let r = analyse(f, &sc).unwrap().report;
    let top = r.members.iter().map(|m| m.load_planned).max().unwrap();
    r.members
        .iter()
        .find(|m| m.load_planned == top)
        .unwrap()
        .name
        .clone()
}

#[test]
fn a_crash_of_each_steps_heaviest_member_follows_spates_timing() {
    let f = fleet().fleet();
    let add = Axis::AddMembers { cap: Some(2) };
    let crashed = sweep(
        &f,
        &Scenario::default(),
        add,
        0..=2,
        Some(&CrashScript(&Script::default()) as &dyn CrashModel),
    )
    .unwrap();
    let plain = sweep(&f, &Scenario::default(), add, 0..=2, None).unwrap();
    for (c, p) in crashed.iter().zip(&plain) {
        // the plan's figures are the step's, crash or not
        assert_eq!(
            &Step {
                crash: None,
                ..c.clone()
            },
            p
        );
        assert_eq!(c.crash.as_ref().unwrap().member, heaviest_by_hand(&f, c.value));
    }
    // step 0: the survivor's lanes are full (a split is queued already), so the crashed member's
    // splits stay queued: no recovery (timing.md section 8 (a) 7)
    let c0 = crashed[0].crash.as_ref().unwrap();
    assert_eq!(c0.recovery_ms, None);
    // step 2: lanes to spare; reassigned at the leader's first reconcile tick after presence
    // expiry plus the rebalance delay, claimed at once: (38, 80) s (section 10)
    let r = crashed[2].crash.as_ref().unwrap().recovery_ms.unwrap();
    assert!(38_000 < r && r < 80_000, "recovery {r} ms");
    // with no rebalance delay: max(presence expiry seen, lease expiry), in (18, 30] s
    let d0 =
        Script::parse(r#"{"format":"spate-planner-script/1","config":{"rebalance_delay_ms":0}}"#).unwrap();
    let fast = sweep(
        &f,
        &Scenario::default(),
        add,
        2..=2,
        Some(&CrashScript(&d0) as &dyn CrashModel),
    )
    .unwrap();
    let r0 = fast[0].crash.as_ref().unwrap().recovery_ms.unwrap();
    assert!(18_000 < r0 && r0 <= 30_000, "recovery {r0} ms with no delay");
    // idle work: at least the crashed member's splits, each unread until recovery
    let idle = crashed[2].crash.as_ref().unwrap().idle_split_ms;
    assert!(idle >= 38_000, "idle {idle} ms");
}

/// The sweep's crash steps simulate by the rules the sweep plans by: under 0.3 (the scenario's
/// `rules`) the heaviest member's splits run again at the leader's first step at or after its
/// presence expiry + D: (38, 62) s (timing-0.3.md §10), or at its presence expiry with no delay;
/// a crash script naming the other release is refused rather than mixed in.
#[test]
fn a_crash_step_follows_the_rules_the_sweep_plans_by() {
    use spate_planner_core::{sweep::SweepError, ErrorCode, Rules};
    let f = fleet().fleet();
    let add = Axis::AddMembers { cap: Some(2) };
    let by_0_3 = Scenario {
        rules: Some(Rules::V0_3),
        ..Scenario::default()
    };
    let model = CrashScript(&Script::default());
    let steps = sweep(&f, &by_0_3, add, 2..=2, Some(&model as &dyn CrashModel)).unwrap();
    let r = steps[0].crash.as_ref().unwrap().recovery_ms.unwrap();
    assert!(38_000 < r && r < 62_000, "recovery {r} ms by 0.3");
    let d0 = Script::parse(r#"{"rules":"0.3","config":{"rebalance_delay_ms":0}}"#).unwrap();
    let steps = sweep(
        &f,
        &by_0_3,
        add,
        2..=2,
        Some(&CrashScript(&d0) as &dyn CrashModel),
    )
    .unwrap();
    let r0 = steps[0].crash.as_ref().unwrap().recovery_ms.unwrap();
    assert!(
        18_000 < r0 && r0 <= 30_000,
        "recovery {r0} ms by 0.3 with no delay"
    );
    let by_0_1 = Script::parse(r#"{"rules":"0.1"}"#).unwrap();
    let err = sweep(
        &f,
        &by_0_3,
        add,
        2..=2,
        Some(&CrashScript(&by_0_1) as &dyn CrashModel),
    )
    .unwrap_err();
    match err {
        SweepError::Simulation { value, error } => {
            assert_eq!(
                (value, error.code, error.path.as_str()),
                (2, ErrorCode::InvalidScript, "rules")
            );
        }
        other => panic!("{other:?}"),
    }
}
