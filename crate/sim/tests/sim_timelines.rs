//! The worked timelines of timing.md §8 (a)-(e), with the numbers they state, over many seeds.
//!
//! Fleet of §8: workers W1..W4 (`worker-01`..`worker-04`), 16 runnable splits of weight 1, each
//! worker holding 4, W1 leading; defaults L 30 s, R 10 s, C 30 s, Q 60 s, D 20 s, X 10 s, K 8,
//! A 4; store latency 0; t = 0 is the event.

use crate::sim_support;

use sim_support::*;
use spate_planner_core::ClaimKind;
use spate_planner_sim::{Outcome, Phase, Start, What};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const SEEDS: u64 = 300;

fn crash_script(seed: u64, member: &str, delay_ms: u64, until_ms: u64) -> String {
    format!(
        r#"{{"seed": {seed}, "until_ms": {until_ms}, "config": {{"rebalance_delay_ms": {delay_ms}}},
        "events": [{{"at_ms": 0, "op": "crash", "member": "{member}"}}]}}"#
    )
}

/// (a) 1-6: W4 crashes; its split leases expire in (8, 30] s, its presence in (18, 30] s; its
/// splits are withheld until the leader's first reconcile tick at or after P + 20 s, then all
/// taken over in that one publish as Expired claims (attempts 0 -> 1), in (38, 80) s; survivor
/// loads 6/5/5; `assign.W4` deleted in the same publish.
#[test]
fn a_non_leader_crash_with_defaults() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-04");
    assert_eq!(lost.len(), 4);
    for seed in 0..SEEDS {
        let o = run(&start, &script(&crash_script(seed, "worker-04", 20_000, 150_000)));
        check_holders(&start, &o);
        let p = presence_expired(&o, "worker-04");
        assert!(p > 18_000 && p <= 30_000, "seed {seed}: presence expired at {p}");
        for e in &o.timeline {
            if let What::LeaseExpired { split, owner } = &e.what {
                assert!(lost.contains(split) && owner == "worker-04");
                assert!(
                    e.t_ms > 8_000 && e.t_ms <= 30_000 && e.t_ms <= p,
                    "seed {seed}: {e:?}"
                );
            }
        }
        let c = takeovers(&o, &lost);
        let t = c[0].0;
        assert!(
            c.iter().all(|x| x.0 == t),
            "seed {seed}: one step takes all: {c:?}"
        );
        assert!(t > 38_000 && t < 80_000, "seed {seed}: takeover at {t}");
        assert!(
            t >= p + 20_000 && t < p + 50_000,
            "seed {seed}: P {p}, takeover {t}"
        );
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
            "seed {seed}: assign.worker-04 goes in the takeover's publish"
        );
        assert_eq!(o.figures.attempts_burned, 4);
        assert_eq!(o.figures.claims, 4, "seed {seed}: nothing else moves");
    }
}

/// (a) 6, delay 0: reassigned at P and claimed at max(P, the split's lease expiry), in
/// (18, 30] s.
#[test]
fn a_non_leader_crash_with_no_delay() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-04");
    for seed in 0..SEEDS {
        let o = run(&start, &script(&crash_script(seed, "worker-04", 0, 100_000)));
        let p = presence_expired(&o, "worker-04");
        for (t, _, kind, attempt) in takeovers(&o, &lost) {
            assert!(t > 18_000 && t <= 30_000, "seed {seed}: claim at {t}");
            assert_eq!(
                t, p,
                "seed {seed}: at presence expiry (the leases expired no later)"
            );
            assert_eq!((kind, attempt), (ClaimKind::Expired, 1));
        }
        assert_eq!(loads(&o), vec![5, 5, 6], "seed {seed}");
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
        let o = run(&start, &script(&crash_script(seed, "worker-04", 20_000, 300_000)));
        assert!(
            claims(&o).is_empty(),
            "seed {seed}: nobody has a lane: {:?}",
            claims(&o)
        );
        assert_eq!(loads(&o), vec![8, 8, 8], "seed {seed}");
        for id in &lost {
            let last = o.splits[id].last().unwrap();
            assert_eq!(last.phase, Phase::Idle, "seed {seed}: {id}");
            assert!(
                o.end.published.values().all(|(_, ids)| !ids.contains(id)),
                "{id} is queued"
            );
        }
    }
}

fn join_script(seed: u64, data_plane: &str) -> String {
    format!(
        r#"{{"seed": {seed}, "until_ms": 120000, "data_plane": {{{data_plane}}},
        "events": [{{"at_ms": 0, "op": "start", "member": "worker-05"}}]}}"#
    )
}

/// The published records at one time: member -> splits.
fn published_at(o: &Outcome, t: u64) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for e in o.timeline.iter().filter(|e| e.t_ms == t) {
        if let What::Published { records, .. } = &e.what {
            for r in records {
                out.insert(r.member.clone(), r.splits.to_vec());
            }
        }
    }
    out
}

/// (b) 1-4: W5 joins: the leader publishes at once, moving 3 splits (three donors at 3, one at
/// 4, W5 at 3); each donor revokes, drains (d = 2 s), releases; W5 claims as Released, no
/// attempt, at t_r + d.
#[test]
fn b_join_moves_three_splits_after_the_drain() {
    let start = fleet_8();
    for seed in 0..SEEDS {
        let o = run(&start, &script(&join_script(seed, r#""drain_ms": 2000"#)));
        let first_pub = first(&o, |w| matches!(w, What::Published { .. }));
        assert_eq!(first_pub, Some(0), "seed {seed}: published at once");
        let recs = published_at(&o, 0);
        assert_eq!(recs["worker-05"].len(), 3, "seed {seed}: {recs:?}");
        assert_eq!(recs.len(), 4, "seed {seed}: W5 and three donors: {recs:?}");
        let c = claims(&o);
        assert_eq!(c.len(), 3, "seed {seed}: {c:?}");
        for (t, m, _, kind, attempt) in &c {
            assert_eq!(
                (*t, m.as_str(), *kind, *attempt),
                (2000, "worker-05", ClaimKind::Released, 0)
            );
        }
        assert_eq!(loads(&o), vec![3, 3, 3, 3, 4], "seed {seed}");
        assert_eq!(o.figures.attempts_burned, 0);
        assert_eq!(o.figures.forced_drains, 0);
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

/// (b) 4: a drain longer than X is forced at the first donor step in [t_r + X, t_r + X + 12 s);
/// W5 still claims as Released; the tail is replayed. A decline forces at once.
#[test]
fn b_join_with_slow_and_declining_drains() {
    let start = fleet_8();
    for seed in 0..SEEDS {
        let o = run(&start, &script(&join_script(seed, r#""drain_ms": 60000"#)));
        assert_eq!(o.figures.forced_drains, 3, "seed {seed}");
        for (t, m, _, kind, attempt) in claims(&o) {
            assert!((10_000..22_000).contains(&t), "seed {seed}: claimed at {t}");
            assert_eq!((m.as_str(), kind, attempt), ("worker-05", ClaimKind::Released, 0));
        }
        assert!(o.figures.replayed_ms >= 3 * 10_000, "seed {seed}");
        let o = run(&start, &script(&join_script(seed, r#""decline": true"#)));
        assert_eq!(o.figures.forced_drains, 3, "seed {seed}");
        assert!(claims(&o).iter().all(|c| c.0 == 0 && c.3 == ClaimKind::Released));
    }
}

/// (c): the leader W1 crashes. Its leader key expires with its presence, in (18, 30] s; a
/// survivor is elected at that instant with generation + 1 and its first publish rewrites every
/// member's record (W1 still among them, its presence loss not yet observed); W1's splits are
/// taken over in (38, 80) s, as in (a).
#[test]
fn c_leader_crash() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-01");
    for seed in 0..SEEDS {
        let o = run(&start, &script(&crash_script(seed, "worker-01", 20_000, 150_000)));
        let p = presence_expired(&o, "worker-01");
        let el = o.elections();
        assert_eq!(el.len(), 1, "seed {seed}");
        let (t, who) = (el[0].t_ms, el[0].member);
        assert!(
            t > 18_000 && t <= 30_000 && who != "worker-01",
            "seed {seed}: {t} {who}"
        );
        assert_eq!(t, p, "seed {seed}: the key and the presence expire together");
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
            ["worker-01", "worker-02", "worker-03", "worker-04"],
            "seed {seed}"
        );
        let c = takeovers(&o, &lost);
        for (t, _, kind, attempt) in c {
            assert!(t > 38_000 && t < 80_000, "seed {seed}: takeover at {t}");
            assert_eq!((kind, attempt), (ClaimKind::Expired, 1));
        }
        assert_eq!(loads(&o), vec![5, 5, 6], "seed {seed}");
    }
}

/// (c) with delay 0: W1's splits are taken over at its presence expiry, in (18, 30] s.
#[test]
fn c_leader_crash_with_no_delay() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-01");
    for seed in 0..SEEDS {
        let o = run(&start, &script(&crash_script(seed, "worker-01", 0, 100_000)));
        for (t, _, kind, _) in takeovers(&o, &lost) {
            assert!(t > 18_000 && t <= 30_000, "seed {seed}: takeover at {t}");
            assert_eq!(kind, ClaimKind::Expired);
        }
    }
}

fn stop_script(seed: u64, member: &str) -> String {
    format!(
        r#"{{"seed": {seed}, "until_ms": 100000,
        "events": [{{"at_ms": 0, "op": "stop", "member": "{member}"}}]}}"#
    )
}

/// (d) 1-2: W4 stops gracefully holding 4 splits: each released (owner cleared), presence
/// deleted; not reserved, so assigned at once to survivors who claim as Released with no
/// attempt, at t = 0; `assign.W4` lingers until the first publish at least D after.
#[test]
fn d_graceful_stop_hands_off_without_an_attempt() {
    let start = fleet_8();
    let lost = held_by(&start, "worker-04");
    for seed in 0..SEEDS {
        let o = run(&start, &script(&stop_script(seed, "worker-04")));
        for (t, m, kind, attempt) in takeovers(&o, &lost) {
            assert_eq!(
                (t, kind, attempt),
                (0, ClaimKind::Released, 0),
                "seed {seed}: {m}"
            );
        }
        assert_eq!(o.figures.attempts_burned, 0);
        assert!(first(&o, |w| matches!(w, What::PresenceExpired { .. })).is_none());
        let gone = first(
            &o,
            |w| matches!(w, What::AssignDeleted { member, .. } if member == "worker-04"),
        );
        let gone = gone.expect("the record is deleted");
        assert!(
            (20_000..50_000).contains(&gone),
            "seed {seed}: assign.worker-04 deleted at {gone}"
        );
        assert_eq!(loads(&o), vec![5, 5, 6]);
        assert_eq!(
            o.figures.idle_split_ms, 0,
            "seed {seed}: the hand-off takes no time"
        );
    }
}

/// (d) 3: a leader that stops deletes its key: a survivor is elected at once.
#[test]
fn d_graceful_stop_of_the_leader_elects_at_once() {
    let start = fleet_8();
    for seed in 0..SEEDS / 4 {
        let o = run(&start, &script(&stop_script(seed, "worker-01")));
        let el = o.elections();
        assert_eq!((el.len(), el[0].t_ms), (1, 0), "seed {seed}");
        assert_eq!(o.figures.leadership_gap_ms, 0);
    }
}

/// (d) 4: a worker holding nothing sends no release: its presence just expires, (18, 30] s.
#[test]
fn d_stop_holding_nothing_lets_presence_expire() {
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
        assert!(first(&o, |w| matches!(w, What::PresenceDeleted { .. })).is_none());
        let p = presence_expired(&o, &idle[0]);
        assert!(p > 18_000 && p <= 30_000, "seed {seed}: {p}");
    }
}

/// (e): a restart with the same id reads its surviving record and claims at once: Reclaim while
/// the old lease lives, Expired after; one attempt per split; no leader involvement.
#[test]
fn e_restart_with_the_same_id_reclaims_at_once() {
    let start = fleet_8();
    let mine = held_by(&start, "worker-04");
    for (restart_at, kind) in [(5_000u64, ClaimKind::Reclaim), (31_000, ClaimKind::Expired)] {
        for seed in 0..SEEDS / 2 {
            let text = format!(
                r#"{{"seed": {seed}, "until_ms": 100000, "events": [
                {{"at_ms": 0, "op": "crash", "member": "worker-04"}},
                {{"at_ms": {restart_at}, "op": "start", "member": "worker-04"}}]}}"#
            );
            let o = run(&start, &script(&text));
            let c = takeovers(&o, &mine);
            for (t, m, k, attempt) in &c {
                assert_eq!(
                    (*t, m.as_str(), *k, *attempt),
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

/// §6.5 and §8 (a) 2: a split already at attempts = A - 1 is quarantined at its lease expiry by
/// some worker, not taken over.
#[test]
fn a_crash_quarantines_a_split_on_its_last_attempt() {
    let mut start = fleet_8();
    let mine: Vec<String> = held_by(&start, "worker-04").into_iter().collect();
    start.splits.get_mut(&mine[0]).unwrap().progress.attempts = 3;
    for seed in 0..SEEDS / 2 {
        let o = run(&start, &script(&crash_script(seed, "worker-04", 20_000, 150_000)));
        let q = o.quarantines();
        assert_eq!(q.len(), 1, "seed {seed}");
        assert_eq!(q[0].split, Some(mine[0].as_str()));
        let expired = first(
            &o,
            |w| matches!(w, What::LeaseExpired { split, .. } if *split == mine[0]),
        );
        assert_eq!(
            Some(q[0].t_ms),
            expired,
            "seed {seed}: quarantined at lease expiry"
        );
        assert!(claims(&o).iter().all(|c| c.2 != mine[0]));
        assert_eq!(o.figures.splits_quarantined, 1);
    }
}

/// §2.1-2.2: a process started at t arms its heartbeat at t + jitter(seed, 0, R) with
/// seed = stable_hash_str(0, "<instance>/<nonce>"), then each heartbeat k re-arms at
/// now + jitter(seed, k, R); presence is rewritten at each. Exact times, on a 1 ms clock that
/// fires a timer at the first tick at or after its deadline.
#[test]
fn heartbeats_follow_the_jitter_of_their_seed_and_round() {
    use spate_planner_core::{jitter, stable_hash_str};
    use std::time::Duration;
    let start = fleet_8();
    let r = Duration::from_millis(30_000) / 3;
    let ceil_ms = |d: Duration| d.as_nanos().div_ceil(1_000_000) as u64;
    for seed in 0..SEEDS / 10 {
        let text = format!(
            r#"{{"seed": {seed}, "until_ms": 200000,
            "events": [{{"at_ms": 1234, "op": "start", "member": "worker-09"}}]}}"#
        );
        let o = run(&start, &script(&text));
        let nonce = o
            .timeline
            .iter()
            .find_map(|e| match &e.what {
                What::Started { nonce, .. } => Some(nonce.clone()),
                _ => None,
            })
            .expect("started");
        let js = stable_hash_str(0, &format!("worker-09/{nonce}"));
        let writes: Vec<u64> = o
            .timeline
            .iter()
            .filter(|e| matches!(&e.what, What::PresenceWritten { member, .. } if member == "worker-09"))
            .map(|e| e.t_ms)
            .collect();
        let mut want = vec![1234u64];
        for k in 0u64.. {
            let next = want[want.len() - 1] + ceil_ms(jitter(js, k, r));
            if next > 200_000 {
                break;
            }
            want.push(next);
        }
        assert_eq!(writes, want, "seed {seed}");
    }
}
