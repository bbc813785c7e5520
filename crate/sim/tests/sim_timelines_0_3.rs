//! The worked timelines of timing-0.3.md §8 (a)-(e), Spate 0.3.0, with the ranges it states, over
//! many seeds.
//!
//! Fleet of §8: workers W1..W4 (`worker-01`..`worker-04`), 16 runnable splits of weight 1, each
//! worker holding 4, W1 leading, a final plan; defaults L 30 s, R 10 s, C 30 s, Q 60 s, D 20 s,
//! X 10 s, K 8, A 4; store latency 0; idle (no commits); t = 0 is the event. Every script says
//! `"rules": "0.3"`.

use crate::sim_support;
/// The core tests' store writer (brought by `sim_support` with the shared cases).
use crate::sim_support::common::store;

use sim_support::*;
use spate_planner_core::{jitter, stable_hash_str, timing::spread, ClaimKind};
use spate_planner_sim::{simulate, Options, Outcome, Phase, ReleaseReason, Start, What};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const SEEDS: u64 = 300;

/// A 0.3 script with the heartbeats, renewals, reconcile listings and replan ticks traced.
fn run_traced(start: &Start, text: &str) -> Outcome {
    let opts = Options {
        trace_renewals: true,
        ..Options::default()
    };
    simulate(start, &script(text), &opts).expect("the script runs")
}

fn crash_script(seed: u64, member: &str, delay_ms: u64, until_ms: u64) -> String {
    format!(
        r#"{{"rules": "0.3", "seed": {seed}, "until_ms": {until_ms}, "config": {{"rebalance_delay_ms": {delay_ms}}},
        "events": [{{"at_ms": 0, "op": "crash", "member": "{member}"}}]}}"#
    )
}

/// §2.7: the instant of `leader`'s first step at or after `from` on an idle fleet: a store
/// event (every heartbeat writes presence; expiries), or its own reconcile listing or replan
/// tick. Read from the traced timeline, independently of how the simulator schedules steps.
fn first_step_at_or_after(o: &Outcome, leader: &str, from: u64) -> u64 {
    o.timeline
        .iter()
        .filter(|e| e.t_ms >= from)
        .find(|e| match &e.what {
            What::Reconciled { member } | What::ReplanTick { member } => member == leader,
            What::PresenceWritten { .. }
            | What::LeaseRenewed { .. }
            | What::LeaseExpired { .. }
            | What::PresenceExpired { .. }
            | What::LeaderKeyExpired { .. } => true,
            _ => false,
        })
        .map(|e| e.t_ms)
        .expect("the leader steps")
}

fn median(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    v[(v.len() - 1) / 2]
}

/// (a) 1-5: W4 crashes. Its presence and its four leases, all written at its last heartbeat,
/// expire together at P = H + 30 s in (18, 30] (§3.1); the leader's publish at P withholds the
/// four splits and writes nothing; the window ends at the leader's first step at or after
/// P + 20 s (§5.3, §2.7), which fills the splits (loads 6/5/5) and deletes `assign.W4`; the
/// survivors take them over in that same step as Expired claims (attempts 0 -> 1): crash to
/// claim in (38, 62) s, median about 47 s.
#[test]
fn a_non_leader_crash_with_defaults() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-04");
    assert_eq!(lost.len(), 4);
    let mut ps = Vec::new();
    let mut ts = Vec::new();
    for seed in 0..SEEDS {
        let o = run_traced(&start, &crash_script(seed, "worker-04", 20_000, 120_000));
        check_holders(&start, &o);
        let p = presence_expired(&o, "worker-04");
        assert!(p > 18_000 && p <= 30_000, "seed {seed}: presence expired at {p}");
        let expiries: Vec<(u64, &str)> = o
            .timeline
            .iter()
            .filter_map(|e| match &e.what {
                What::LeaseExpired { split, owner } => {
                    Some((e.t_ms, owner.as_str())).filter(|_| lost.contains(split))
                }
                _ => None,
            })
            .collect();
        assert_eq!(expiries.len(), 4, "seed {seed}");
        assert!(
            expiries.iter().all(|&(t, owner)| t == p && owner == "worker-04"),
            "seed {seed}: every lease expires with the presence: {expiries:?} P {p}"
        );
        let publishes_at_p = o
            .timeline
            .iter()
            .any(|e| e.t_ms == p && matches!(e.what, What::Published { .. } | What::AssignDeleted { .. }));
        assert!(
            !publishes_at_p,
            "seed {seed}: the splits are withheld, nothing written at P"
        );
        let c = takeovers(&o, &lost);
        let t = c[0].0;
        assert!(
            c.iter().all(|x| x.0 == t),
            "seed {seed}: one step takes all: {c:?}"
        );
        assert!(t > 38_000 && t < 62_000, "seed {seed}: takeover at {t}");
        assert_eq!(
            t,
            first_step_at_or_after(&o, "worker-01", p + 20_000),
            "seed {seed}: at the leader's first step at or after P + D (P {p})"
        );
        assert!(t - (p + 20_000) < 12_000, "seed {seed}: G < 1.2R");
        for (_, m, kind, attempt) in &c {
            assert_ne!(m, "worker-04");
            assert_eq!((*kind, *attempt), (ClaimKind::Expired, 1), "seed {seed}");
        }
        assert_eq!(loads(&o), vec![5, 5, 6], "seed {seed}");
        let deleted = first(
            &o,
            |w| matches!(w, What::AssignDeleted { member, .. } if member == "worker-04"),
        );
        assert_eq!(
            deleted,
            Some(t),
            "seed {seed}: assign.worker-04 goes in that step"
        );
        assert_eq!(o.figures.claims, 4, "seed {seed}: nothing else moves");
        assert_eq!(
            o.figures.publishes, 1,
            "seed {seed}: one publish, at the window's end"
        );
        ps.push(p);
        ts.push(t);
    }
    // P = H + 30 with H the length-biased age of a U[8, 12) heartbeat interval: median 25 s;
    // the takeover's median about 47 s (§8 (a) 4).
    let (mp, mt) = (median(&mut ps), median(&mut ts));
    assert!(mp.abs_diff(25_000) <= 1_000, "median P {mp}");
    assert!(mt.abs_diff(47_000) <= 2_000, "median takeover {mt}");
}

/// (a) 6, D = 0: nothing reserved; the step that folds the presence delete (the leases' deletes
/// in the same batch) publishes and the survivors claim at once: at P, in (18, 30].
#[test]
fn a_non_leader_crash_with_no_delay() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-04");
    for seed in 0..SEEDS {
        let o = run(&start, &script(&crash_script(seed, "worker-04", 0, 60_000)));
        let p = presence_expired(&o, "worker-04");
        for (t, _, kind, attempt) in takeovers(&o, &lost) {
            assert!(t > 18_000 && t <= 30_000, "seed {seed}: claim at {t}");
            assert_eq!(t, p, "seed {seed}: claimed at P");
            assert_eq!((kind, attempt), (ClaimKind::Expired, 1));
        }
        assert_eq!(loads(&o), vec![5, 5, 6], "seed {seed}");
        let deleted = first(
            &o,
            |w| matches!(w, What::AssignDeleted { member, .. } if member == "worker-04"),
        );
        assert_eq!(
            deleted,
            Some(p),
            "seed {seed}: assign.worker-04 goes when first seen gone"
        );
    }
}

/// (a) 7: at capacity (each of 4 workers holding K = 8 of 32) the survivors have no free lane:
/// W4's splits stay unassigned, queued, and idle.
#[test]
fn a_crash_at_capacity_leaves_the_splits_queued() {
    let start = Start::steady(32, 4, 8, 1);
    let lost = held_by(&start, "worker-04");
    assert_eq!(lost.len(), 8);
    for seed in 0..SEEDS / 4 {
        let o = run(&start, &script(&crash_script(seed, "worker-04", 20_000, 200_000)));
        assert!(claims(&o).is_empty(), "seed {seed}: nobody has a lane");
        assert_eq!(loads(&o), vec![8, 8, 8], "seed {seed}");
        for id in &lost {
            assert_eq!(
                o.splits[id].last().unwrap().phase,
                Phase::Idle,
                "seed {seed}: {id}"
            );
            assert!(o.end.published.values().all(|(_, ids)| !ids.contains(id)));
        }
    }
}

/// (a) 2 and §6.5: a split of W4 already at attempts = A - 1 = 3 is parked at its lease expiry,
/// which is now P, in (18, 30] (0.1: (8, 30]), by a survivor; it is not taken over.
#[test]
fn a_crash_quarantines_a_split_on_its_last_attempt_at_presence_expiry() {
    let mut start = fleet_8();
    let mine: Vec<String> = held_by(&start, "worker-04").into_iter().collect();
    start.splits.get_mut(&mine[0]).unwrap().progress.attempts = 3;
    for seed in 0..SEEDS / 2 {
        let o = run(&start, &script(&crash_script(seed, "worker-04", 20_000, 100_000)));
        let q = o.quarantines();
        assert_eq!(q.len(), 1, "seed {seed}");
        assert_eq!(q[0].split, Some(mine[0].as_str()));
        let p = presence_expired(&o, "worker-04");
        assert_eq!(
            q[0].t_ms, p,
            "seed {seed}: parked at the lease's expiry, with the presence"
        );
        assert_ne!(q[0].member, "worker-04");
        assert!(claims(&o).iter().all(|c| c.2 != mine[0]));
    }
}

fn join_script(seed: u64, data_plane: &str) -> String {
    format!(
        r#"{{"rules": "0.3", "seed": {seed}, "until_ms": 60000, "data_plane": {{{data_plane}}},
        "events": [{{"at_ms": 0, "op": "start", "member": "worker-05"}}]}}"#
    )
}

/// (b) 1-4: W5 joins: the leader's step on its presence publishes at once (no planner run),
/// pass 1a keeps every current lease and pass 3 moves 3 splits (4/4/4/4/0 -> 3/3/3/4/3); each
/// donor revokes, drains (d = 2 s) and releases; W5 claims as Released, no attempt, at t_r + d.
#[test]
fn b_join_moves_three_splits_after_the_drain() {
    let start = fleet_8();
    for seed in 0..SEEDS {
        let o = run(&start, &script(&join_script(seed, r#""drain_ms": 2000"#)));
        assert_eq!(first(&o, |w| matches!(w, What::Published { .. })), Some(0));
        let recs: BTreeMap<String, usize> = o
            .timeline
            .iter()
            .filter(|e| e.t_ms == 0)
            .filter_map(|e| match &e.what {
                What::Published { records, .. } => Some(records),
                _ => None,
            })
            .flatten()
            .map(|r| (r.member.clone(), r.splits.len()))
            .collect();
        assert_eq!(recs.get("worker-05"), Some(&3), "seed {seed}: {recs:?}");
        let c = claims(&o);
        assert_eq!(c.len(), 3, "seed {seed}: {c:?}");
        for (t, m, _, kind, attempt) in &c {
            assert_eq!(
                (*t, m.as_str(), *kind, *attempt),
                (2000, "worker-05", ClaimKind::Released, 0)
            );
        }
        assert_eq!(loads(&o), vec![3, 3, 3, 3, 4], "seed {seed}");
        assert!(!o
            .timeline
            .iter()
            .any(|e| matches!(e.what, What::PlanWritten { .. })));
    }
}

/// (b) with 4 x 8 splits: 6 moves.
#[test]
fn b_join_into_thirty_two_splits_moves_six() {
    let start = Start::steady(32, 4, 8, 1);
    for seed in 0..SEEDS / 4 {
        let o = run(&start, &script(&join_script(seed, r#""drain_ms": 500"#)));
        assert_eq!(o.figures.moves, 6, "seed {seed}");
        assert_eq!(loads(&o), vec![6, 6, 6, 7, 7], "seed {seed}");
    }
}

/// (b) 4 and §6.3: a drain longer than X is forced at the donor's first step at or after
/// t_r + X: in [X, X + G), G < 12 s, with five workers typically about 1.7 s (§2.7); W5 still
/// claims as Released. A decline forces at once.
#[test]
fn b_join_with_slow_and_declining_drains() {
    let start = fleet_8();
    let mut waits = Vec::new();
    for seed in 0..SEEDS {
        let o = run(&start, &script(&join_script(seed, r#""drain_ms": 60000"#)));
        assert_eq!(o.figures.forced_drains, 3, "seed {seed}");
        for (t, m, _, kind, attempt) in claims(&o) {
            assert!((10_000..22_000).contains(&t), "seed {seed}: claimed at {t}");
            assert_eq!((m.as_str(), kind, attempt), ("worker-05", ClaimKind::Released, 0));
            waits.push(t - 10_000);
        }
        let o = run(&start, &script(&join_script(seed, r#""decline": true"#)));
        assert_eq!(o.figures.forced_drains, 3, "seed {seed}");
        assert!(claims(&o).iter().all(|c| c.0 == 0 && c.3 == ClaimKind::Released));
    }
    let g = median(&mut waits);
    assert!(
        g <= 3_000,
        "the forced drain waits {g} ms past X at the median (about R/(n+1))"
    );
}

/// (c) 1-3: the leader W1 crashes. Its leader key, presence and leases expire together at P in
/// (18, 30]; the survivors fold them in one batch, so the step that elects (one survivor, at P,
/// generation + 1) no longer counts W1: its publish rewrites the 3 survivors' records with the
/// new generation, and no planner runs over the final plan. W1's splits are reserved from the
/// new leader's P and taken over at its first step at or after P + 20 s: (38, 62) s.
/// Leadership gap (18, 30]. D = 0: claimed at P.
#[test]
fn c_leader_crash() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-01");
    for seed in 0..SEEDS {
        let o = run_traced(&start, &crash_script(seed, "worker-01", 20_000, 120_000));
        let p = presence_expired(&o, "worker-01");
        let el = o.elections();
        assert_eq!(el.len(), 1, "seed {seed}");
        let (t, who) = (el[0].t_ms, el[0].member.to_string());
        assert_eq!(t, p, "seed {seed}: elected at P");
        assert!(
            t > 18_000 && t <= 30_000 && who != "worker-01",
            "seed {seed}: {t} {who}"
        );
        assert_eq!(o.figures.leadership_gap_ms, t);
        let (gen, recs) = o
            .timeline
            .iter()
            .find_map(|e| match &e.what {
                What::Published {
                    generation, records, ..
                } => Some((*generation, records)),
                _ => None,
            })
            .expect("the new leader publishes");
        assert_eq!(gen, 2, "seed {seed}: generation + 1");
        let members: Vec<&str> = recs.iter().map(|r| r.member.as_str()).collect();
        assert_eq!(
            members,
            ["worker-02", "worker-03", "worker-04"],
            "seed {seed}: 3 records"
        );
        let plans = o
            .timeline
            .iter()
            .filter(|e| matches!(e.what, What::PlanWritten { .. }))
            .count();
        assert_eq!(plans, 1, "seed {seed}: the election's fence only, no planner run");
        let c = takeovers(&o, &lost);
        let tk = c[0].0;
        for (t, _, kind, attempt) in &c {
            assert_eq!(*t, tk, "seed {seed}: one step");
            assert_eq!((*kind, *attempt), (ClaimKind::Expired, 1));
        }
        assert!(tk > 38_000 && tk < 62_000, "seed {seed}: takeover at {tk}");
        assert_eq!(tk, first_step_at_or_after(&o, &who, p + 20_000), "seed {seed}");
        assert_eq!(loads(&o), vec![5, 5, 6], "seed {seed}");
        let o = run(&start, &script(&crash_script(seed, "worker-01", 0, 60_000)));
        let p = presence_expired(&o, "worker-01");
        for (t, _, kind, _) in takeovers(&o, &lost) {
            assert_eq!((t, kind), (p, ClaimKind::Expired), "seed {seed}: D = 0, at P");
        }
    }
}

/// (c) 4: over an open plan, the new leader runs the planner once (landing after `planner_ms`),
/// then at its replan ticks.
#[test]
fn c_leader_crash_over_an_open_plan_runs_the_planner() {
    let mut start = fleet_8();
    start.plan = Some((1, true));
    for seed in 0..SEEDS / 10 {
        let text = format!(
            r#"{{"rules": "0.3", "seed": {seed}, "until_ms": 100000, "data_plane": {{"planner_ms": 1500}},
            "events": [{{"at_ms": 0, "op": "crash", "member": "worker-01"}}]}}"#
        );
        let o = run(&start, &script(&text));
        let elected = o.elections()[0].t_ms;
        let plans: Vec<u64> = o
            .timeline
            .iter()
            .filter(|e| matches!(e.what, What::PlanWritten { .. }))
            .map(|e| e.t_ms)
            .collect();
        assert_eq!(
            &plans[..2],
            [elected, elected + 1500],
            "seed {seed}: fence, then a run"
        );
    }
}

/// (c) 5: a survivor that started after the crashed leader's presence vanished has no `departed`
/// entry: as leader it withholds nothing. All four crash; W5 (cap 16) starts at 31 s, after
/// every presence and the leader key expired: it elects itself at once and its first publish
/// gives it every split, claimed at 31 s with D = 20 s.
#[test]
fn c_a_leader_started_after_the_departure_withholds_nothing() {
    let start = fleet_8();
    for seed in 0..SEEDS / 10 {
        let text = format!(
            r#"{{"rules": "0.3", "seed": {seed}, "until_ms": 40000, "events": [
            {{"at_ms": 0, "op": "crash", "member": "worker-01"}},
            {{"at_ms": 0, "op": "crash", "member": "worker-02"}},
            {{"at_ms": 0, "op": "crash", "member": "worker-03"}},
            {{"at_ms": 0, "op": "crash", "member": "worker-04"}},
            {{"at_ms": 31000, "op": "start", "member": "worker-05", "cap": 16}}]}}"#
        );
        let o = run(&start, &script(&text));
        let el = o.elections();
        assert_eq!(
            el.last().map(|e| (e.t_ms, e.member)),
            Some((31_000, "worker-05")),
            "seed {seed}"
        );
        let taken: Vec<_> = claims(&o).into_iter().filter(|c| c.1 == "worker-05").collect();
        assert_eq!(taken.len(), 16, "seed {seed}: {taken:?}");
        assert!(taken.iter().all(|c| c.0 == 31_000 && c.3 == ClaimKind::Expired));
    }
}

fn stop_script(seed: u64, member: &str) -> String {
    format!(
        r#"{{"rules": "0.3", "seed": {seed}, "until_ms": 60000,
        "events": [{{"at_ms": 0, "op": "stop", "member": "{member}"}}]}}"#
    )
}

/// (d) 1-2: W4 departs holding 4 splits: each released (owner cleared, lease deleted), then its
/// presence deleted, at t = 0; not reserved, so filled to the survivors in that step and claimed
/// as Released with no attempt, the same instant. `assign.W4` is deleted at the leader's first
/// step at or after 0 + D: [20, 32) s.
#[test]
fn d_graceful_stop_hands_off_at_once() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-04");
    for seed in 0..SEEDS {
        let o = run_traced(&start, &stop_script(seed, "worker-04"));
        for (t, m, kind, attempt) in takeovers(&o, &lost) {
            assert_eq!(
                (t, kind, attempt),
                (0, ClaimKind::Released, 0),
                "seed {seed}: {m}"
            );
        }
        let released = o.timeline.iter().filter(|e| {
            matches!(&e.what, What::Released { member, reason: ReleaseReason::Departure, .. }
                if member == "worker-04")
        });
        assert_eq!(released.count(), 4, "seed {seed}");
        assert_eq!(
            first(
                &o,
                |w| matches!(w, What::PresenceDeleted { member } if member == "worker-04")
            ),
            Some(0)
        );
        let gone = first(
            &o,
            |w| matches!(w, What::AssignDeleted { member, .. } if member == "worker-04"),
        )
        .expect("the record is deleted");
        assert!(
            (20_000..32_000).contains(&gone),
            "seed {seed}: assign.worker-04 deleted at {gone}"
        );
        assert_eq!(
            gone,
            first_step_at_or_after(&o, "worker-01", 20_000),
            "seed {seed}"
        );
        assert_eq!(loads(&o), vec![5, 5, 6]);
        assert_eq!(
            o.figures.idle_split_ms, 0,
            "seed {seed}: the hand-off takes no time"
        );
        assert_eq!(o.figures.attempts_burned, 0);
    }
}

/// (d) 3: a leader that departs deletes its key (after its releases, before its presence):
/// a survivor is elected at once, and its splits are handed off at once.
#[test]
fn d_graceful_stop_of_the_leader_elects_at_once() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-01");
    for seed in 0..SEEDS / 4 {
        let o = run(&start, &script(&stop_script(seed, "worker-01")));
        let el = o.elections();
        assert_eq!((el.len(), el[0].t_ms), (1, 0), "seed {seed}");
        assert_eq!(o.figures.leadership_gap_ms, 0);
        for (t, _, kind, _) in takeovers(&o, &lost) {
            assert_eq!((t, kind), (0, ClaimKind::Released), "seed {seed}");
        }
    }
}

/// (d) 4: a worker that holds nothing still departs: its presence (and its leader key, if it
/// leads) are deleted at t = 0 instead of expiring in (18, 30] s (0.1).
#[test]
fn d_stop_holding_nothing_still_departs() {
    let start = Start::steady(3, 4, 8, 1);
    let idle: Vec<String> = start
        .members
        .keys()
        .filter(|m| held_by(&start, m).is_empty())
        .cloned()
        .collect();
    assert_eq!(idle.len(), 1);
    for seed in 0..SEEDS / 4 {
        let o = run(&start, &script(&stop_script(seed, &idle[0])));
        assert_eq!(
            first(
                &o,
                |w| matches!(w, What::PresenceDeleted { member } if *member == idle[0])
            ),
            Some(0),
            "seed {seed}"
        );
        assert!(first(&o, |w| matches!(w, What::PresenceExpired { .. })).is_none());
    }
    // a leader that holds nothing: its key is deleted too, and a survivor elected at once
    let mut start = Start::steady(3, 4, 8, 1);
    start.leader = Some((idle[0].clone(), 1));
    for seed in 0..SEEDS / 10 {
        let o = run(&start, &script(&stop_script(seed, &idle[0])));
        assert_eq!(o.elections().first().map(|e| e.t_ms), Some(0), "seed {seed}");
        assert!(first(&o, |w| matches!(w, What::LeaderKeyExpired { .. })).is_none());
    }
}

/// (e): a restart with the same id (new nonce) reads its surviving record and claims at once:
/// Reclaim while the old lease lives, Expired after; one attempt per split; no leader
/// involvement.
#[test]
fn e_restart_with_the_same_id_reclaims_at_once() {
    let start = fleet_8();
    let mine = held_by(&start, "worker-04");
    for (restart_at, kind) in [(5_000u64, ClaimKind::Reclaim), (31_000, ClaimKind::Expired)] {
        for seed in 0..SEEDS / 2 {
            let text = format!(
                r#"{{"rules": "0.3", "seed": {seed}, "until_ms": 60000, "events": [
                {{"at_ms": 0, "op": "crash", "member": "worker-04"}},
                {{"at_ms": {restart_at}, "op": "start", "member": "worker-04"}}]}}"#
            );
            let o = run(&start, &script(&text));
            for (t, m, k, attempt) in takeovers(&o, &mine) {
                assert_eq!(
                    (t, m.as_str(), k, attempt),
                    (restart_at, "worker-04", kind, 1),
                    "seed {seed}"
                );
            }
            let published_before = o
                .timeline
                .iter()
                .any(|e| e.t_ms <= restart_at && matches!(e.what, What::Published { .. }));
            assert!(!published_before, "seed {seed}: no leader involvement");
            assert_eq!(o.figures.attempts_burned, 4);
        }
    }
}

/// (e), new in 0.3 (§6.5, the twin rule): after a restart, a split on its last attempt
/// (attempts = A - 1) under the old process's live lease (its id, another nonce) is neither
/// reclaimed nor parked: it waits for that lease to expire (at most L after the predecessor's
/// last heartbeat), then is parked as Expired by whichever worker steps first. 0.1 parks it at
/// once, as a Reclaim.
#[test]
fn e_restart_waits_out_a_last_attempt_under_the_old_lease() {
    let mut start = fleet_8();
    let mine: Vec<String> = held_by(&start, "worker-04").into_iter().collect();
    start.splits.get_mut(&mine[0]).unwrap().progress.attempts = 3;
    let others: BTreeSet<String> = mine[1..].iter().cloned().collect();
    let restart = |rules: &str, seed: u64| {
        let text = format!(
            r#"{{{rules} "seed": {seed}, "until_ms": 60000, "events": [
            {{"at_ms": 0, "op": "crash", "member": "worker-04"}},
            {{"at_ms": 5000, "op": "start", "member": "worker-04"}}]}}"#
        );
        run(&start, &script(&text))
    };
    for seed in 0..SEEDS / 2 {
        let o = restart(r#""rules": "0.3","#, seed);
        for (t, m, k, attempt) in takeovers(&o, &others) {
            assert_eq!(
                (t, m.as_str(), k, attempt),
                (5_000, "worker-04", ClaimKind::Reclaim, 1)
            );
        }
        assert!(
            claims(&o).iter().all(|c| c.2 != mine[0]),
            "seed {seed}: not reclaimed"
        );
        let expiry = first(
            &o,
            |w| matches!(w, What::LeaseExpired { split, .. } if *split == mine[0]),
        )
        .expect("the old lease expires");
        assert!(expiry > 5_000 && expiry <= 30_000, "seed {seed}: {expiry}");
        let q = o.quarantines();
        assert_eq!(q.len(), 1, "seed {seed}");
        assert_eq!(
            (q[0].t_ms, q[0].split),
            (expiry, Some(mine[0].as_str())),
            "seed {seed}"
        );
        let attempt = o.timeline.iter().find_map(|e| match &e.what {
            What::Quarantine { attempt, .. } => Some(*attempt),
            _ => None,
        });
        assert_eq!(attempt, Some(4), "seed {seed}: the Expired kind's attempt");
        let o = restart("", seed);
        assert_eq!(
            o.quarantines()[0].t_ms,
            5_000,
            "seed {seed}: 0.1 parks it at once"
        );
    }
}

/// §2.1-2.2 to the millisecond for a started process: heartbeat k at the previous one plus
/// `jitter(seed, k, R)`, with seed = stable_hash_str(0, "<instance>/<nonce>"); its first
/// reconcile listing at start + `spread(seed, C)`, then each at the previous plus
/// `jitter(seed.rotate_left(32), round, C)` with round its heartbeats so far; replan ticks
/// every Q from the start. On a 1 ms clock (each rounded up).
#[test]
fn heartbeats_and_reconciles_follow_their_formulas() {
    let start = fleet_8();
    let r = Duration::from_millis(10_000);
    let c = Duration::from_millis(30_000);
    let ceil_ms = |d: Duration| d.as_nanos().div_ceil(1_000_000) as u64;
    for seed in 0..SEEDS / 10 {
        let text = format!(
            r#"{{"rules": "0.3", "seed": {seed}, "until_ms": 400000,
            "events": [{{"at_ms": 1234, "op": "start", "member": "worker-09"}}]}}"#
        );
        let o = run_traced(&start, &text);
        let nonce = o
            .timeline
            .iter()
            .find_map(|e| match &e.what {
                What::Started { nonce, .. } => Some(nonce.clone()),
                _ => None,
            })
            .expect("started");
        let js = stable_hash_str(0, &format!("worker-09/{nonce}"));
        let of = |f: fn(&What) -> bool| -> Vec<u64> {
            o.timeline.iter().filter(|e| f(&e.what)).map(|e| e.t_ms).collect()
        };
        let beats = of(|w| matches!(w, What::PresenceWritten { member, .. } if member == "worker-09"));
        let mut want = vec![1234u64];
        for k in 0u64.. {
            let next = want[want.len() - 1] + ceil_ms(jitter(js, k, r));
            if next > 400_000 {
                break;
            }
            want.push(next);
        }
        assert_eq!(beats, want, "seed {seed}");
        let recs = of(|w| matches!(w, What::Reconciled { member } if member == "worker-09"));
        let mut want = vec![1234 + ceil_ms(spread(js, c))];
        loop {
            let at = want[want.len() - 1];
            let round = beats.iter().filter(|&&b| b <= at).count() as u64 - 1;
            let next = at + ceil_ms(jitter(js.rotate_left(32), round, c));
            if next > 400_000 {
                break;
            }
            want.push(next);
        }
        assert_eq!(recs, want, "seed {seed}");
        let replans = of(|w| matches!(w, What::ReplanTick { member } if member == "worker-09"));
        let want: Vec<u64> = (1..=6).map(|k| 1234 + 60_000 * k).collect();
        assert_eq!(replans, want, "seed {seed}");
    }
}

/// A store a 0.3.0 leader wrote (its plan record names an `elector`) is simulated by 0.3's timing
/// and decisions unless the script says otherwise, as `plan` reads it (decision-core-0.3.md §8):
/// the same crash is taken over in (38, 62) s by 0.3's rules and in (38, 80) s, at the leader's
/// reconcile tick, by 0.1's; a fleet settled on its plan is settled by the same rules.
#[test]
fn the_rules_the_store_names_unless_the_script_says() {
    use serde_json::json;
    use spate_planner_core::{Rules, RulesSource};
    use spate_planner_sim::StartFrom;
    let plan = json!({"schema": 3, "fingerprint": store::FINGERPRINT, "generation": 1,
        "finality": "final", "planned": 6, "planner_state": null, "updated_at_ms": 0,
        "elector": {"owner": "w1", "nonce": "lead"}});
    let mut store = store::Store::new().without_plan().state("plan", plan);
    for w in ["w1", "w2", "w3"] {
        store = store.presence(w, Some(8));
    }
    store = store.leader("w1");
    for (i, w) in ["w1", "w1", "w2", "w2", "w3", "w3"].into_iter().enumerate() {
        let id = format!("s{i}");
        store = store.split(&id, 1, Some(w), 1, 0).held(&id, w);
    }
    let store = store
        .assign("w1", 1, &["s0", "s1"])
        .assign("w2", 1, &["s2", "s3"])
        .assign("w3", 1, &["s4", "s5"]);
    let fleet = store.fleet();
    let start = Start::of(&fleet, StartFrom::Snapshot).unwrap();
    assert_eq!(
        (start.rules.rules, start.rules.source),
        (Rules::V0_3, RulesSource::Elector)
    );
    let lost: BTreeSet<String> = ["s4", "s5"].iter().map(|s| s.to_string()).collect();
    for seed in 0..SEEDS / 10 {
        let text = |rules: &str| {
            format!(
                r#"{{{rules}"seed": {seed}, "until_ms": 120000, "events": [{{"at_ms": 0, "op": "crash", "member": "w3"}}]}}"#
            )
        };
        let o = run(&start, &script(&text("")));
        assert_eq!(
            (o.rules.rules, o.rules.source),
            (Rules::V0_3, RulesSource::Elector)
        );
        for (t, _, kind, _) in takeovers(&o, &lost) {
            assert!(
                t > 38_000 && t < 62_000 && kind == ClaimKind::Expired,
                "seed {seed}: {t}"
            );
        }
        let o = run(&start, &script(&text(r#""rules": "0.1", "#)));
        assert_eq!((o.rules.rules, o.rules.source), (Rules::V0_1, RulesSource::User));
        let p = presence_expired(&o, "w3");
        for (t, _, kind, _) in takeovers(&o, &lost) {
            assert!(
                t > 38_000 && t < 80_000 && kind == ClaimKind::Expired,
                "seed {seed}: {t}"
            );
            assert!(
                t >= p + 20_000 && t < p + 50_000,
                "seed {seed}: at a reconcile tick"
            );
        }
    }
    let planned = Start::of(&fleet, StartFrom::Planned).unwrap();
    assert_eq!(planned.rules.rules, Rules::V0_3);
    let by_0_1 = Start::with_rules(
        &fleet,
        StartFrom::Planned,
        spate_planner_core::RulesChoice::user(Rules::V0_1),
    )
    .unwrap();
    assert_eq!(by_0_1.rules.source, RulesSource::User);
}
