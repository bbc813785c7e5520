//! Recovery (docs/simulator.md, "Figures"): the figure is about the splits the events took, and a
//! split that never runs again says why, each reason built from a rule of timing.md: at capacity
//! the survivors have no free lane (§8 (a) 7), the rebalance delay withholds a departed owner's
//! splits (§5.3), a crashed process's leases outlive it by up to L (§3.2, §10), attempts run out
//! into quarantine (§6.5), and nobody assigns without a leader (§4). What was idle or quarantined
//! before the first event is counted apart; a fleet settled on its plan starts with none of it.

use crate::sim_support;

use sim_support::*;
use spate_planner_core::{analyse, demo_snapshot, DemoParams, Fleet, Scenario};
use spate_planner_sim::{Outcome, Start, StartFrom, Stuck};
use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn crash_at_0(member: &str, config: &str, until_ms: u64) -> String {
    format!(
        r#"{{"until_ms": {until_ms}, "config": {{{config}}},
        "events": [{{"at_ms": 0, "op": "crash", "member": "{member}"}}]}}"#
    )
}

/// The splits not recovered, as (split, reason, member).
fn stuck(o: &Outcome) -> Vec<(String, Stuck, Option<String>)> {
    o.figures
        .not_recovered
        .iter()
        .map(|n| (n.split.clone(), n.reason, n.member.clone()))
        .collect()
}

fn ids(v: &[(String, Stuck, Option<String>)]) -> BTreeSet<String> {
    v.iter().map(|x| x.0.clone()).collect()
}

/// §8 (a) 7: each of 4 workers holds K = 8 of 32; after W4's crash nobody has a free lane, so
/// its 8 splits stay queued: not recovered, for want of a free lane; nothing was idle before.
#[test]
fn at_capacity_the_crashed_members_splits_have_no_free_lane() {
    let start = Start::steady(32, 4, 8, 1);
    let lost = held_by(&start, "worker-04");
    let o = run(&start, &script(&crash_at_0("worker-04", "", 300_000)));
    let f = &o.figures;
    assert_eq!(f.recovery_ms, None);
    assert_eq!(f.splits_taken, 8);
    let s = stuck(&o);
    assert_eq!(ids(&s), lost);
    assert!(
        s.iter().all(|x| x.1 == Stuck::NoFreeLane && x.2.is_none()),
        "{s:?}"
    );
    assert_eq!(
        (f.idle_before, f.quarantined_before, f.others_not_running),
        (0, 0, 0)
    );
}

/// The same crash with 8 splits queued before it (40 splits, 32 lanes): those 8 are counted as
/// idle before the first event, apart from the 8 the crash took.
#[test]
fn what_was_idle_before_the_first_event_is_counted_apart() {
    let start = Start::steady(40, 4, 8, 1);
    let o = run(&start, &script(&crash_at_0("worker-04", "", 300_000)));
    let f = &o.figures;
    assert_eq!(f.idle_before, 8);
    assert_eq!(f.splits_taken, 8);
    assert_eq!(ids(&stuck(&o)), held_by(&start, "worker-04"));
}

/// With lanes to spare the crashed member's splits run again: recovered, nothing listed, and
/// the figure is §10's crash → reassignment → claim, (38, 80) s with D = 20 s.
#[test]
fn with_lanes_to_spare_the_taken_splits_recover() {
    let start = fleet_8();
    for seed in 0..20 {
        let o = run(
            &start,
            &script(&format!(
                r#"{{"seed": {seed}, "until_ms": 300000, "events": [{{"at_ms": 0, "op": "crash", "member": "worker-04"}}]}}"#
            )),
        );
        let f = &o.figures;
        assert_eq!(f.splits_taken, 4, "seed {seed}");
        assert!(f.not_recovered.is_empty(), "seed {seed}: {:?}", f.not_recovered);
        let r = f.recovery_ms.expect("recovers");
        assert!(38_000 < r && r < 80_000, "seed {seed}: {r} ms");
    }
}

/// §5.3: the leader withholds a departed owner's splits for D after it sees the presence go
/// (presence expiry (18, 30] s after the crash, §10). With D = 600 s and 120 s simulated, the
/// leases have expired (at most 30 s) and the splits are still withheld, owner named.
#[test]
fn within_the_rebalance_delay_the_splits_are_withheld() {
    let start = fleet_8();
    let o = run(
        &start,
        &script(&crash_at_0(
            "worker-04",
            r#""rebalance_delay_ms": 600000"#,
            120_000,
        )),
    );
    let s = stuck(&o);
    assert_eq!(ids(&s), held_by(&start, "worker-04"));
    assert!(
        s.iter()
            .all(|x| x.1 == Stuck::Withheld && x.2.as_deref() == Some("worker-04")),
        "{s:?}"
    );
}

/// §3.2, §10: a crashed process's split leases expire (8, 30] s after the crash; a run of 5 s
/// ends with them still naming it.
#[test]
fn before_the_leases_expire_the_splits_are_leased_by_a_process_that_is_gone() {
    let start = fleet_8();
    let o = run(&start, &script(&crash_at_0("worker-04", "", 5_000)));
    let s = stuck(&o);
    assert_eq!(ids(&s), held_by(&start, "worker-04"));
    assert!(
        s.iter()
            .all(|x| x.1 == Stuck::LeasedByGone && x.2.as_deref() == Some("worker-04")),
        "{s:?}"
    );
}

/// §6.5 with A = 1: the takeover of an expired lease consumes an attempt, which reaches A: the
/// survivors quarantine the splits instead of claiming them.
#[test]
fn splits_whose_attempts_run_out_are_quarantined() {
    let start = fleet_8();
    let o = run(
        &start,
        &script(&crash_at_0(
            "worker-04",
            r#""rebalance_delay_ms": 0, "max_attempts": 1"#,
            120_000,
        )),
    );
    let s = stuck(&o);
    assert_eq!(ids(&s), held_by(&start, "worker-04"));
    assert!(s.iter().all(|x| x.1 == Stuck::Quarantined), "{s:?}");
    assert_eq!(o.figures.splits_quarantined, 4);
}

/// §4: with its only process crashed, nobody leads and nobody assigns the splits it ran.
#[test]
fn without_a_leader_nobody_assigns_them() {
    let start = Start::steady(4, 1, 8, 1);
    let o = run(
        &start,
        &script(r#"{"until_ms": 120000, "events": [{"at_ms": 0, "op": "crash_leader"}]}"#),
    );
    let s = stuck(&o);
    assert_eq!(o.figures.splits_taken, 4);
    assert!(s.len() == 4 && s.iter().all(|x| x.1 == Stuck::NoLeader), "{s:?}");
}

/// A graceful stop takes what the member held (it releases them, §3.2); they run again.
#[test]
fn a_graceful_stop_takes_the_members_splits_and_they_recover() {
    let start = fleet_8();
    let o = run(
        &start,
        &script(r#"{"until_ms": 120000, "events": [{"at_ms": 0, "op": "stop", "member": "worker-02"}]}"#),
    );
    assert_eq!(o.figures.splits_taken, 4);
    assert!(
        o.figures.not_recovered.is_empty(),
        "{:?}",
        o.figures.not_recovered
    );
    assert!(o.figures.recovery_ms.is_some());
}

/// An event that takes no split (a cap lowered) recovers at once, and the splits it pushed off
/// their member, with no free lane elsewhere (§8 (a) 7), are counted as others not running.
#[test]
fn splits_stopped_without_being_taken_are_others_not_running() {
    let start = Start::steady(32, 4, 8, 1);
    let o = run(
        &start,
        &script(
            r#"{"until_ms": 300000, "events": [{"at_ms": 0, "op": "set_cap", "member": "worker-01", "cap": 4}]}"#,
        ),
    );
    let f = &o.figures;
    assert_eq!((f.splits_taken, f.recovery_ms), (0, Some(0)));
    assert_eq!(f.others_not_running, 4);
}

/// `"start": "planned"`: the snapshot's fleet settled on its plan (Start::planned): every split
/// of the plan held by its member and published, every member running with its cap. The demo
/// fleet (queued, withheld and quarantined splits, a plan that moves hundreds) settles, and a
/// crash in it stops no other split.
#[test]
fn a_fleet_settled_on_its_plan_starts_with_nothing_in_motion() {
    let snap = demo_snapshot(&DemoParams {
        splits: 300,
        members: 6,
        ..DemoParams::default()
    })
    .unwrap();
    let fleet = Fleet::from_snapshot(&snap).unwrap();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let start = Start::of(&fleet, StartFrom::Planned).unwrap();
    for (m, ids) in &a.assignment {
        assert_eq!(&start.published[m].1, ids, "{m}");
        for id in ids {
            let lease = start.splits[id].lease.as_ref().expect("held");
            assert_eq!(&lease.value.owner, m, "{id}");
        }
        assert_eq!(start.members[m], Some(a.applied.inputs.cap_of(m)));
    }
    assert_eq!(
        Start::of(&fleet, StartFrom::Snapshot).unwrap(),
        Start::from_fleet(&fleet)
    );
    let heaviest = a
        .report
        .members
        .iter()
        .max_by_key(|m| m.load_planned)
        .unwrap()
        .name
        .clone();
    let o = run(&start, &script(&crash_at_0(&heaviest, "", 300_000)));
    assert_eq!(o.figures.others_not_running, 0);
    assert_eq!(o.figures.splits_taken, a.assignment[&heaviest].len() as u64);
    // the snapshot as it is: its first publish moves splits the crash did not take
    let raw = run(
        &Start::from_fleet(&fleet),
        &script(&crash_at_0(&heaviest, "", 300_000)),
    );
    assert!(raw.figures.idle_before > 0);
}
