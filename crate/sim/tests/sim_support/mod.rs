//! Fleets, scripts and timeline checkers shared by the simulator's tests.
//!
//! The checkers read the timeline as the spec describes the protocol (who holds what, which
//! records were published, how attempts move), independently of the simulator's own bookkeeping.
#![allow(dead_code)]

// the core's shared test helpers (fleets, changes, a store), loaded once for every file here
#[path = "../../../core/tests/common/mod.rs"]
pub mod common;

use proptest::prelude::*;
use spate_planner_core::{
    records::{LeaseVal, SCHEMA},
    state::LeaseEntry,
    synth::runnable_split,
    ClaimKind, SplitStatus,
};
use spate_planner_sim::{simulate, Interval, Options, Outcome, Phase, ReleaseReason, Script, Start, What};
use std::collections::{BTreeMap, BTreeSet};

/// A split's `phase` over `[from_ms, to_ms)`, held by `member` (a hand-made run's interval).
pub fn interval(from_ms: u64, to_ms: u64, phase: Phase, member: Option<&str>) -> Interval {
    Interval {
        from_ms,
        to_ms,
        phase,
        member: member.map(str::to_string),
    }
}

/// Runs and unwraps.
pub fn run(start: &Start, script: &Script) -> Outcome {
    simulate(start, script, &Options::default()).expect("the script runs")
}

pub fn run_naive(start: &Start, script: &Script) -> Outcome {
    let o = Options {
        naive: true,
        ..Options::default()
    };
    simulate(start, script, &o).expect("the script runs")
}

/// A script from JSON text.
pub fn script(text: &str) -> Script {
    Script::parse(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The 4-worker, 16-split fleet of timing.md §8: weight 1, each worker holding 4, W1 leading.
pub fn fleet_8() -> Start {
    Start::steady(16, 4, 8, 1)
}

/// Claims in the timeline: (t, member, split, kind, attempt).
pub fn claims(o: &Outcome) -> Vec<(u64, String, String, ClaimKind, u32)> {
    o.claims()
        .iter()
        .map(|c| {
            (
                c.t_ms,
                c.member.to_string(),
                c.split.to_string(),
                c.kind,
                c.attempt,
            )
        })
        .collect()
}

/// The splits a member holds in a starting fleet.
pub fn held_by(start: &Start, member: &str) -> BTreeSet<String> {
    start
        .splits
        .iter()
        .filter(|(_, s)| s.lease.as_ref().is_some_and(|l| l.value.owner == member))
        .map(|(id, _)| id.clone())
        .collect()
}

/// A random consistent fleet: 2..=5 members with caps, splits of weights 1..=20, most held by
/// a member (within its cap), some queued, completed, quarantined, some with attempts used, and
/// the assignment records naming what each member holds.
pub fn arb_start() -> impl Strategy<Value = Start> {
    (
        2usize..=5,
        prop::collection::vec(1u32..=6, 5),
        prop::collection::vec(
            (1u64..=20, 0u8..10, 0u32..=3, any::<prop::sample::Index>()),
            0..30,
        ),
        any::<bool>(),
    )
        .prop_map(|(n, caps, splits, open)| build_start(n, &caps, &splits, open))
}

fn build_start(n: usize, caps: &[u32], splits: &[(u64, u8, u32, prop::sample::Index)], open: bool) -> Start {
    let mut start = Start::steady(0, n, 1, 1);
    let names: Vec<String> = start.members.keys().cloned().collect();
    for (i, m) in names.iter().enumerate() {
        start.members.insert(m.clone(), Some(caps[i % caps.len()]));
    }
    start.plan = Some((1, open));
    let mut held: BTreeMap<String, Vec<String>> = names.iter().map(|m| (m.clone(), Vec::new())).collect();
    for (i, (w, roll, attempts, pick)) in splits.iter().enumerate() {
        let id = format!("part-{i:06}");
        let mut s = runnable_split(&id, start.seed, *w, None);
        let m = &names[pick.index(n)];
        let cap = start.members[m].unwrap_or(8) as usize;
        match roll {
            0 => s.progress.status = SplitStatus::Completed,
            1 => s.progress.status = SplitStatus::Quarantined,
            2 | 3 => {}
            _ if held[m].len() < cap => {
                s.progress.epoch = 1 + u64::from(*attempts);
                s.progress.attempts = *attempts;
                s.progress.owner = Some(m.clone());
                s.lease = Some(LeaseEntry {
                    value: LeaseVal {
                        schema: SCHEMA,
                        owner: m.clone(),
                        nonce: "n".into(),
                        epoch: s.progress.epoch,
                    },
                    rev: 1,
                });
                if let Some(v) = held.get_mut(m) {
                    v.push(id.clone());
                }
            }
            _ => {}
        }
        if s.progress.status == SplitStatus::Completed {
            s.progress.completed = true;
        }
        start.splits.insert(id, s);
    }
    start.published = held.into_iter().map(|(m, ids)| (m, (1, ids))).collect();
    start
}

/// One random script event as JSON, over members `worker-01..=worker-07`.
pub fn arb_event(max_at: u64) -> impl Strategy<Value = String> {
    (0..max_at, 0u8..8, 1usize..=7, 0u32..6, 0usize..30).prop_map(|(at, op, m, cap, s)| {
        let member = format!("worker-{m:02}");
        match op {
            0 | 1 => format!(r#"{{"at_ms": {at}, "op": "crash", "member": "worker-01"}}"#)
                .replace("worker-01", &member),
            2 => format!(r#"{{"at_ms": {at}, "op": "stop", "member": "{member}"}}"#),
            3 | 4 => format!(r#"{{"at_ms": {at}, "op": "start", "member": "{member}", "cap": {cap}}}"#),
            5 => format!(r#"{{"at_ms": {at}, "op": "crash_leader"}}"#),
            6 => format!(
                r#"{{"at_ms": {at}, "op": "add_splits", "count": {}, "weight": {}, "prefix": "new{at}-"}}"#,
                s % 6,
                cap + 1
            ),
            _ => format!(r#"{{"at_ms": {at}, "op": "fail", "split": "part-{s:06}"}}"#),
        }
    })
}

/// A random script for `start`: configuration, data plane and events whose names exist.
pub fn arb_script(start: Start) -> impl Strategy<Value = (Start, Script)> {
    arb_script_by(start, None)
}

/// [`arb_script`] with the script naming the rules `rules` (`"0.3"`), or none.
pub fn arb_script_by(start: Start, rules: Option<&'static str>) -> impl Strategy<Value = (Start, Script)> {
    let rules_field = rules.map_or(String::new(), |r| format!(r#""rules": "{r}", "#));
    let cfg = (
        prop::sample::select(vec![0u64, 3_000, 20_000]),
        prop::sample::select(vec![2_000u64, 30_000]),
        prop::sample::select(vec![10_000u64, 25_000]),
        1u32..=5,
        0u64..=1_000,
        prop::sample::select(vec![
            r#""drain_ms": 0"#,
            r#""drain_ms": 4000"#,
            r#""drain_ms": {"min": 0, "max": 30000}"#,
            r#""decline": true"#,
            r#""drain_ms": 15000, "commit_interval_ms": 3000"#,
            r#""run_ms": {"min": 20000, "max": 200000}, "drain_ms": 1000"#,
        ]),
    );
    (cfg, prop::collection::vec(arb_event(150_000), 0..8), any::<u64>()).prop_map(
        move |((d, c, x, a, det, dp), events, seed)| {
            let text = format!(
                r#"{{{rules_field}"seed": {seed}, "until_ms": 400000,
                "config": {{"rebalance_delay_ms": {d}, "reconcile_interval_ms": {c}, "drain_deadline_ms": {x},
                            "max_attempts": {a}, "detection_ms": {det}}},
                "data_plane": {{{dp}}}, "events": [{}]}}"#,
                events.join(",")
            );
            let script = valid_script(&start, &text);
            (start.clone(), script)
        },
    )
}

/// Parses `text`, dropping events the check refuses (names that do not exist yet).
fn valid_script(start: &Start, text: &str) -> Script {
    let mut s = Script::parse(text).expect("generated scripts parse");
    loop {
        match s.check(start) {
            Ok(()) => return s,
            Err(e) => {
                let i: usize = e
                    .path
                    .strip_prefix("events[")
                    .and_then(|r| r.split(']').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("unexpected refusal {e}"));
                s.events.remove(i);
            }
        }
    }
}

/// Who holds what, replayed from the timeline and the starting fleet. Panics (with the event) on
/// a split held twice or released by someone who does not hold it.
pub fn check_holders(start: &Start, o: &Outcome) -> BTreeMap<String, String> {
    let mut holder: BTreeMap<String, String> = BTreeMap::new();
    for (id, s) in &start.splits {
        if let Some(l) = &s.lease {
            if start.members.contains_key(&l.value.owner) {
                holder.insert(id.clone(), l.value.owner.clone());
            }
        }
    }
    for e in &o.timeline {
        match &e.what {
            What::Claim { member, split, .. } => {
                if let Some(h) = holder.insert(split.clone(), member.clone()) {
                    panic!("at {} ms {member} claims {split}, held by {h}", e.t_ms);
                }
            }
            What::Released { member, split, .. }
            | What::Completed { member, split }
            | What::Failed { member, split, .. }
            | What::Lost { member, split } => {
                let h = holder.remove(split);
                assert_eq!(
                    h.as_deref(),
                    Some(member.as_str()),
                    "at {} ms {:?}",
                    e.t_ms,
                    e.what
                );
            }
            What::Crashed { member } => {
                holder.retain(|_, h| h != member);
            }
            _ => {}
        }
    }
    holder
}

/// Every claim is of a split in the claimant's latest `assign.*` record.
pub fn check_claims_assigned(start: &Start, o: &Outcome) {
    let mut rec: BTreeMap<String, BTreeSet<String>> = start
        .published
        .iter()
        .map(|(m, (_, ids))| (m.clone(), ids.iter().cloned().collect()))
        .collect();
    for e in &o.timeline {
        match &e.what {
            What::Published { records, .. } => {
                for r in records {
                    rec.insert(r.member.clone(), r.splits.iter().cloned().collect());
                }
            }
            What::AssignDeleted { member, .. } => {
                rec.remove(member);
            }
            What::Claim { member, split, .. } => {
                let ok = rec.get(member).is_some_and(|s| s.contains(split));
                assert!(ok, "at {} ms {member} claims {split}, not in its record", e.t_ms);
            }
            _ => {}
        }
    }
}

/// Attempts move only by the spec's rules: +1 on reclaim, expired, quarantine (by a scan or the
/// claim race) and failure, and
/// the final records agree with the replay.
pub fn check_attempts(start: &Start, o: &Outcome) {
    let mut att: BTreeMap<String, u32> = start
        .splits
        .iter()
        .map(|(id, s)| (id.clone(), s.progress.attempts))
        .collect();
    for e in &o.timeline {
        let (split, attempt, plus) = match &e.what {
            What::Claim {
                split, kind, attempt, ..
            } => (
                split,
                *attempt,
                u32::from(matches!(kind, ClaimKind::Reclaim | ClaimKind::Expired)),
            ),
            // The claim race's park is a quarantine too (timing.md §6.7 A5: attempts + 1).
            What::Quarantine { split, attempt, .. }
            | What::ParkedByRace { split, attempt, .. }
            | What::Failed { split, attempt, .. } => (split, *attempt, 1),
            _ => continue,
        };
        let before = att.get(split).copied().unwrap_or(0);
        assert_eq!(attempt, before + plus, "at {} ms {:?}", e.t_ms, e.what);
        att.insert(split.clone(), attempt);
    }
    for (id, s) in &o.end.splits {
        assert_eq!(s.progress.attempts, att.get(id).copied().unwrap_or(0), "{id}");
    }
}

/// Once events stop: every runnable split runs, or every live process has all its lanes full
/// (the rest are queued for capacity); nothing is left draining that began to drain longer ago
/// than a revocation can last (timing.md §6.3: forced at the donor's first step at or after the
/// drain deadline `X`, so before `X + 1.2 R`). A leader may still move work near the end (the
/// data plane completing splits frees lanes), and that revocation is draining at the end.
pub fn check_settled(o: &Outcome, script: &Script) {
    let mut held: BTreeMap<&str, usize> = BTreeMap::new();
    for h in o.end.holders.values() {
        *held.entry(h.as_str()).or_default() += 1;
    }
    let idle: Vec<&String> = o
        .end
        .splits
        .iter()
        .filter(|(id, s)| s.progress.status == SplitStatus::Runnable && !o.end.holders.contains_key(*id))
        .map(|(id, _)| id)
        .collect();
    if !idle.is_empty() {
        for (m, k) in &o.end.lanes {
            let n = held.get(m.as_str()).copied().unwrap_or(0);
            assert_eq!(n, *k as usize, "{idle:?} idle while {m} holds {n} of {k}");
        }
    }
    let c = &script.config;
    let longest = |own: u64, each: fn(&spate_planner_sim::MemberConfig) -> Option<u64>| {
        c.members.values().filter_map(each).fold(own, u64::max)
    };
    let x = longest(c.drain_deadline_ms, |m| m.drain_deadline_ms);
    let r = longest(c.reconcile_interval_ms, |m| m.reconcile_interval_ms);
    let bound = x + r + r / 5;
    let end = o.figures.end_ms;
    for (id, iv) in &o.splits {
        let last = iv.last().expect("a split has a phase");
        if last.phase == spate_planner_sim::Phase::Draining {
            assert!(
                end - last.from_ms < bound,
                "{id} still draining at {end} ms, since {} ms (a revocation lasts under {bound} ms)",
                last.from_ms
            );
        }
    }
}

/// The published records of the present members are `desired_assignment` of the final state.
pub fn check_final_assignment(o: &Outcome, job_seed: u64) {
    check_final_assignment_by(o, job_seed, spate_planner_core::Rules::V0_1);
}

/// [`check_final_assignment`] by `rules`: 0.3 with `previous`, `last_assignees` of the final
/// `assign.*` records and members (decision-core-0.3.md §3).
pub fn check_final_assignment_by(o: &Outcome, job_seed: u64, rules: spate_planner_core::Rules) {
    let (Some(_), Some(default_cap)) = (&o.end.leader, o.end.default_cap) else {
        return;
    };
    let members: BTreeSet<String> = o.end.members.keys().cloned().collect();
    let caps: BTreeMap<String, u32> = o
        .end
        .members
        .iter()
        .filter_map(|(m, c)| c.filter(|&c| c > 0).map(|c| (m.clone(), c)))
        .collect();
    let records: BTreeMap<String, spate_planner_core::records::AssignmentVal> = o
        .end
        .published
        .iter()
        .map(|(m, (generation, splits))| {
            let val = spate_planner_core::records::AssignmentVal {
                schema: SCHEMA,
                generation: *generation,
                splits: splits.clone(),
            };
            (m.clone(), val)
        })
        .collect();
    let previous = match rules {
        spate_planner_core::Rules::V0_1 => BTreeMap::new(),
        spate_planner_core::Rules::V0_3 => spate_planner_core::assign::last_assignees(&records, &members),
    };
    let want = spate_planner_core::desired_assignment(&spate_planner_core::assign::AssignInputs {
        rules,
        members: &members,
        splits: &o.end.splits,
        reserved: &o.end.reserved,
        previous: &previous,
        caps: &caps,
        default_cap,
        seed: job_seed,
    });
    for (m, ids) in &want {
        let got = o.end.published.get(m).map(|(_, s)| s.clone()).unwrap_or_default();
        assert_eq!(&got, ids, "assign.{m}");
    }
}

/// The first time of an event matching `f`.
pub fn first(o: &Outcome, f: impl Fn(&What) -> bool) -> Option<u64> {
    o.timeline.iter().find(|e| f(&e.what)).map(|e| e.t_ms)
}

/// When `m`'s presence expired.
pub fn presence_expired(o: &Outcome, m: &str) -> u64 {
    first(
        o,
        |w| matches!(w, What::PresenceExpired { member } if member == m),
    )
    .expect("presence expires")
}

/// Splits each live process holds at the end, fewest first.
pub fn loads(o: &Outcome) -> Vec<usize> {
    let mut n: BTreeMap<&str, usize> = o.end.lanes.keys().map(|m| (m.as_str(), 0)).collect();
    for h in o.end.holders.values() {
        *n.entry(h.as_str()).or_default() += 1;
    }
    let mut v: Vec<usize> = n.into_values().collect();
    v.sort_unstable();
    v
}

/// The claims of `ids`: all of them, each once, by a survivor.
pub fn takeovers(o: &Outcome, ids: &BTreeSet<String>) -> Vec<(u64, String, ClaimKind, u32)> {
    let c: Vec<_> = claims(o)
        .into_iter()
        .filter(|c| ids.contains(&c.2))
        .map(|(t, m, _, k, a)| (t, m, k, a))
        .collect();
    assert_eq!(c.len(), ids.len(), "each split is taken over once: {c:?}");
    c
}

/// The forced releases of `o`'s revocations: from the request to the release (`forced`), or
/// from a cancellation to the release that still came (`cancelled`), each pushed in order.
pub fn revocation_times(o: &Outcome, forced: &mut Vec<u64>, cancelled: &mut Vec<u64>) {
    let mut asked: BTreeMap<String, u64> = BTreeMap::new();
    let mut cancel: BTreeMap<String, u64> = BTreeMap::new();
    for e in &o.timeline {
        match &e.what {
            What::RevokeRequested { split, .. } => {
                asked.insert(split.clone(), e.t_ms);
            }
            What::RevokeCancelled { split, .. } => {
                cancel.insert(split.clone(), e.t_ms);
            }
            What::Released {
                split,
                reason: ReleaseReason::Forced,
                ..
            } => match cancel.remove(split) {
                Some(c) => cancelled.push(e.t_ms - c),
                None => forced.push(e.t_ms - asked[split]),
            },
            _ => {}
        }
    }
}

/// The `p`th percentile of `v` (sorted in place).
pub fn percentile(v: &mut [u64], p: usize) -> u64 {
    v.sort_unstable();
    v[(v.len() - 1) * p / 100]
}
