//! The on-call card's recovery prediction (docs/live-protocol.md, "Incidents"): a live job sees a
//! member's presence lapse; the simulator puts the member back, crashes it at t = 0 and runs each
//! seed, counting from the simulated lapse as the store showed the real one. The bounds are
//! timing.md's: the splits are withheld for D after the leader sees the lapse and handed out at
//! its next reconcile tick, within C (§5.3); the receivers claim at their next step (§6.1). So
//! every seed's recovery, counted from the lapse, lies in [D, D + C + a little].

use spate_planner_core::{
    demo_snapshot,
    review::{incident_views, IncidentInputs, IncidentLog, IncidentView},
    DemoParams, LiveJob, Scenario, Snapshot,
};
use spate_planner_sim::CrashPrediction;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const L: i64 = 30_000;
const D: i64 = 20_000;
const C: i64 = 30_000;

/// A small demo job (its lease bucket's TTL `lease_ms`), the member holding most splits, and when
/// its presence was last written.
fn job(lease_ms: i64) -> (Snapshot, String, i64) {
    let p = DemoParams {
        splits: 48,
        members: 4,
        ..DemoParams::default()
    };
    let mut snap = demo_snapshot(&p).unwrap();
    snap.lease.max_age_ms = lease_ms as u64;
    let fleet = spate_planner_core::Fleet::from_snapshot(&snap).unwrap();
    let held = |m: &str| {
        fleet
            .splits
            .values()
            .filter(|s| s.progress.owner.as_deref() == Some(m))
            .count()
    };
    let member = fleet.members.keys().max_by_key(|m| held(m)).unwrap().clone();
    let written = presence(&snap, &member).created_ms;
    (snap, member, written)
}

fn presence<'a>(snap: &'a Snapshot, member: &str) -> &'a spate_planner_core::Entry {
    snap.lease
        .entries
        .iter()
        .find(|e| e.key == format!("worker.{member}"))
        .unwrap()
}

/// The incident of `member`'s presence lapsing in `snap`, seen at `now` with `seeds` runs.
fn crash_seen(snap: &Snapshot, member: &str, now: i64, seeds: u32) -> IncidentView {
    let mut live = LiveJob::from_snapshot(snap).unwrap();
    live.frame(snap.taken_at_ms).unwrap();
    let rev = presence(snap, member).revision;
    live.apply(&format!(
        r#"{{"bucket":"lease","op":"expire","key":"worker.{member}","revision":{rev}}}"#
    ))
    .unwrap();
    let f = live.frame(now).unwrap();
    assert_eq!(f.changes.len(), 1, "{:?}", f.changes);
    let model = CrashPrediction { seeds };
    let sc = Scenario::default();
    let mut log = IncidentLog::new();
    log.observe(
        &f.changes,
        &f.fleet,
        &IncidentInputs {
            scenario: &sc,
            max_attempts: None,
            recovery: Some(&model),
            baseline: None,
        },
    );
    incident_views(&log, now).remove(0)
}

#[test]
fn a_crashs_recovery_lies_within_the_bounds_of_the_window_and_the_lease() {
    let (snap, member, written) = job(L);
    let v = crash_seen(&snap, &member, written + L + 1_000, 4);
    assert!(v.withheld.splits > 0, "the member held splits");
    let (from, to) = (
        v.recovery_from_ms.expect("a seed recovers"),
        v.recovery_to_ms.expect("a seed recovers"),
    );
    let lapse = written + L;
    let (lowest, highest) = (lapse + D, lapse + D + C + 2_000);
    assert!(
        lowest <= from && from <= to && to <= highest,
        "{from}..{to} not in {lowest}..{highest}: {:?}",
        v.recovery
    );
    assert!(
        v.recovery[0].starts_with("Whole again by ") && v.recovery[0].contains("; 4 of 4 simulated seeds;"),
        "{:?}",
        v.recovery
    );
}

/// Spate refuses a replan interval below the lease; a job whose lease (10 min here) is longer
/// than the default replan interval (1 min) is simulated with the interval at the lease, not
/// refused.
#[test]
fn a_job_whose_lease_is_longer_than_the_replan_interval_is_predicted_too() {
    let (snap, member, written) = job(600_000);
    let v = crash_seen(&snap, &member, written + 600_000 + 1_000, 2);
    assert!(
        v.recovery[0].contains("; 2 of 2 simulated seeds;"),
        "{:?}",
        v.recovery
    );
}
