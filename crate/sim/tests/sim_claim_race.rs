//! The claim race (timing.md §6.7, A1-A13; timing-0.3.md §6.7, B1-B13; both §9): a Create,
//! Released or Expired claim that writes `attempts = A − 1` may be parked by a live, non-parting
//! peer that folds the claimant's record before its lease, with probability `p` per peer and
//! claim.

use crate::sim_support;

use sim_support::*;
use spate_planner_core::{stable_hash_str, ClaimKind};
use spate_planner_sim::{
    Figures, MarkKind, Outcome, Phase, Script, SeedsSummary, Start, Stuck, Summary, What,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The digests of the runs of [`digest_runs`], recorded on the simulator before it modelled the
/// race (`scripts` below without `claim_race`), one line each: `name digest`.
const P0_DIGESTS: &str = include_str!("fixtures/claim_race_p0.txt");

/// What the runs of [`without_the_race_runs_are_as_before`] add to `config`: the race off.
const RACE_OFF: &str = r#", "claim_race": 0"#;

/// A digest of everything a run produces: the simulation document (figures, claims,
/// quarantines, elections, timeline, intervals), the final state and the Timeline's summary,
/// less the two counts the race added (`figures.splits_parked_by_race`, `counts.parked_by_race`;
/// each checked to be 0 first) and the words added since, which the recorded documents did not
/// have.
fn digest(o: &Outcome, s: &Script) -> u64 {
    let mut doc = o.to_json();
    doc["final"] = serde_json::to_value(&o.end).expect("the final state serializes");
    doc["summary"] = serde_json::to_value(Summary::new(o, s)).expect("the summary serializes");
    let added = [
        doc["figures"]
            .as_object_mut()
            .and_then(|f| f.remove("splits_parked_by_race")),
        doc["summary"]["figures"]
            .as_object_mut()
            .and_then(|f| f.remove("splits_parked_by_race")),
        doc["summary"]["counts"]
            .as_object_mut()
            .and_then(|c| c.remove("parked_by_race")),
    ];
    assert!(
        added.iter().all(|v| *v == Some(serde_json::json!(0))),
        "{added:?}"
    );
    // the words added since (each split's reason in words, the summary's sentences) are derived
    // from what the documents had: left out as well
    doc["summary"].as_object_mut().and_then(|m| m.remove("recovery"));
    for path in ["/figures/not_recovered", "/summary/figures/not_recovered"] {
        for n in doc
            .pointer_mut(path)
            .and_then(|v| v.as_array_mut())
            .into_iter()
            .flatten()
        {
            n.as_object_mut().and_then(|m| m.remove("words"));
        }
    }
    stable_hash_str(0, &doc.to_string())
}

/// The 16-split fleet of §8 with attempts set: `worker-04`'s splits at `crashed`, every other
/// split at `others`.
fn fleet_at(crashed: u32, others: u32) -> Start {
    let mut start = fleet_8();
    let mine = held_by(&start, "worker-04");
    for (id, s) in start.splits.iter_mut() {
        s.progress.attempts = if mine.contains(id) { crashed } else { others };
    }
    start
}

/// A handful of runs over both releases and several seeds, some with claims that write
/// `A − 1` (Expired from 2 after a crash, Released at 3 in a rolling restart), some without.
fn digest_runs(extra_config: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let events = [
        ("crash", r#"[{"at_ms": 0, "op": "crash", "member": "worker-04"}]"#),
        (
            "rolling",
            r#"[{"at_ms": 5000, "op": "stop", "member": "worker-02"},
                {"at_ms": 15000, "op": "start", "member": "worker-02"},
                {"at_ms": 45000, "op": "stop", "member": "worker-03"},
                {"at_ms": 55000, "op": "start", "member": "worker-03"},
                {"at_ms": 90000, "op": "crash_leader"}]"#,
        ),
    ];
    let fleets = [
        ("a0", fleet_at(0, 0)),
        ("a2", fleet_at(2, 2)),
        ("a3", fleet_at(2, 3)),
    ];
    for rules in ["0.1", "0.3"] {
        for (fname, start) in &fleets {
            for (ename, ev) in events {
                for seed in [0u64, 7, 1234] {
                    let text = format!(
                        r#"{{"rules": "{rules}", "seed": {seed}, "until_ms": 240000,
                        "config": {{"rebalance_delay_ms": 5000{extra_config}}},
                        "data_plane": {{"drain_ms": {{"min": 0, "max": 3000}}}},
                        "events": {ev}}}"#
                    );
                    let s = script(&text);
                    let o = run(start, &s);
                    out.push((format!("{rules}/{fname}/{ename}/{seed}"), digest(&o, &s)));
                }
            }
        }
    }
    out
}

/// p = 0 reproduces, bit for bit, the runs the simulator gave before it modelled the race.
#[test]
fn without_the_race_runs_are_as_before() {
    let got: Vec<String> = digest_runs(RACE_OFF)
        .into_iter()
        .map(|(n, d)| format!("{n} {d:016x}"))
        .collect();
    let want: Vec<&str> = P0_DIGESTS.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(got, want, "got:\n{}", got.join("\n"));
}

/// Claims that open the race's window and may park: not a Reclaim, writing `A − 1` (A = 4).
fn exposed(o: &Outcome) -> usize {
    claims(o)
        .iter()
        .filter(|c| c.3 != ClaimKind::Reclaim && c.4 == 3)
        .count()
}

/// The race's parks: (t, claimant, racing peer, split, attempt).
fn parks(o: &Outcome) -> Vec<(u64, String, String, String, u32)> {
    o.timeline
        .iter()
        .filter_map(|e| match &e.what {
            What::ParkedByRace {
                member,
                by,
                split,
                attempt,
            } => Some((e.t_ms, member.clone(), by.clone(), split.clone(), *attempt)),
            _ => None,
        })
        .collect()
}

/// `p` (as its text in a script), `None` for the release's own rate.
fn race_config(p: Option<&str>) -> String {
    p.map_or(String::new(), |p| format!(r#", "claim_race": {p}"#))
}

/// The rolling restarts and crashes of [`digest_runs`] do expose claims, and with the
/// release's rate some of them are parked: the p = 0 digests above rest on runs the race
/// would change.
#[test]
fn the_recorded_runs_include_claims_the_race_parks() {
    let (mut exposures, mut parked) = (0, 0);
    for rules in ["0.1", "0.3"] {
        for (start, ev) in [
            (
                fleet_at(2, 2),
                r#"{"at_ms": 0, "op": "crash", "member": "worker-04"}"#,
            ),
            (
                fleet_at(2, 3),
                r#"{"at_ms": 5000, "op": "stop", "member": "worker-02"}"#,
            ),
        ] {
            for seed in 0..40 {
                let text = format!(
                    r#"{{"rules": "{rules}", "seed": {seed}, "until_ms": 120000,
                    "config": {{"rebalance_delay_ms": 5000}}, "events": [{ev}]}}"#
                );
                let o = run(&start, &script(&text));
                exposures += exposed(&o);
                parked += parks(&o).len();
            }
        }
    }
    assert!(exposures >= 400, "{exposures} claims wrote A - 1");
    assert!(parked > 0, "none of {exposures} parked at the default rates");
}

/// A graceful stop of `worker-04`, whose 4 splits are at attempts 3 = A − 1: each is handed
/// over as a Released claim writing 3 (§6.7 A8), by one of the 3 survivors, so each claim has 2
/// live peers (the stopped process has gone).
fn stop_onto_last_attempt(rules: &str, seed: u64, p: Option<&str>, until_ms: u64) -> (Start, Outcome) {
    let start = fleet_at(3, 0);
    let text = format!(
        r#"{{"rules": "{rules}", "seed": {seed}, "until_ms": {until_ms},
        "config": {{"rebalance_delay_ms": 5000{}}},
        "events": [{{"at_ms": 1000, "op": "stop", "member": "worker-04"}}]}}"#,
        race_config(p)
    );
    let o = run(&start, &script(&text));
    (start, o)
}

/// A crash of `worker-04`, whose 4 splits are at attempts 2: each is taken over by an Expired
/// claim writing 3 once its lease has expired and the window has passed (D = 0 here), by one of
/// the 3 survivors: 2 live peers per claim.
fn crash_onto_attempts_2(rules: &str, seed: u64, p: Option<&str>) -> Outcome {
    let text = format!(
        r#"{{"rules": "{rules}", "seed": {seed}, "until_ms": 90000,
        "config": {{"rebalance_delay_ms": 0{}}},
        "events": [{{"at_ms": 1000, "op": "crash", "member": "worker-04"}}]}}"#,
        race_config(p)
    );
    run(&fleet_at(2, 0), &script(&text))
}

/// The interval `n q ± 4 sqrt(n q (1 − q))`.
fn within_4_sigma(k: usize, n: usize, q: f64) -> bool {
    let (n, k) = (n as f64, k as f64);
    let sd = (n * q * (1.0 - q)).sqrt();
    (k - n * q).abs() <= 4.0 * sd
}

/// §6.7 A13 / B13 and §9: each live peer parks an exposed claim with probability p on its own,
/// so a claim with m peers is parked with probability 1 − (1 − p)^m. Over 400 seeds of at
/// least 4 exposed claims with m = 2 (3 live processes throughout), the count of parks lies within 4 sigma of that, and outside the
/// intervals of p = 0 and of one peer or three. Released claims (a graceful stop) and Expired
/// ones (a crash), by each release's rules: 0.1 with p = 0.2, 0.3 at its own rate (0.13).
#[test]
fn parks_happen_at_the_rate_of_p_per_live_peer() {
    const SEEDS: u64 = 400;
    let cases: [(&str, Option<&str>, f64); 2] = [("0.1", Some("0.2"), 0.2), ("0.3", None, 0.13)];
    for (rules, p_text, p) in cases {
        for kind in [ClaimKind::Released, ClaimKind::Expired] {
            let (mut n, mut k) = (0, 0);
            for seed in 0..SEEDS {
                let o = match kind {
                    ClaimKind::Released => stop_onto_last_attempt(rules, seed, p_text, 60_000).1,
                    _ => crash_onto_attempts_2(rules, seed, p_text),
                };
                let c = claims(&o);
                let exposed: Vec<_> = c.iter().filter(|c| c.4 == 3).collect();
                // At least the 4 taken splits; a park frees the claimant's lane, so the leader may
                // move another exposed split to it: a fresh exposure (§6.7 A8), with 2 peers too.
                assert!(exposed.len() >= 4, "{rules} seed {seed}: {c:?}");
                let of_kind = exposed.iter().filter(|c| c.3 == kind).count();
                let moved = |c: &&&(u64, String, String, ClaimKind, u32)| c.3 == ClaimKind::Released;
                assert!(of_kind >= 4, "{rules} seed {seed}: {c:?}");
                assert!(
                    exposed.iter().all(|c| c.3 == kind || moved(&c)),
                    "{rules} seed {seed}: {c:?}"
                );
                n += exposed.len();
                k += parks(&o).len();
            }
            let q = |m: i32| 1.0 - (1.0 - p).powi(m);
            let what = format!("{rules} {kind:?}: {k} parks of {n} claims");
            assert!(
                within_4_sigma(k, n, q(2)),
                "{what}, expected about {:.0}",
                n as f64 * q(2)
            );
            for wrong in [1, 3] {
                assert!(!within_4_sigma(k, n, q(wrong)), "{what}: also fits {wrong} peers");
            }
            assert!(k > 0, "{what}: p = 0 would give none");
        }
    }
}

/// The first live process in name order other than `claimant` among `live`: with p = 1 every
/// peer's draw parks, and the first in name order writes first (§6.7 A5).
fn first_peer<'a>(live: &[&'a str], claimant: &str) -> &'a str {
    live.iter().find(|m| **m != claimant).copied().expect("a peer")
}

/// One split parked by the race (§6.7 A5-A6): Gained (the claim) then Lost, both at the park's
/// instant, in that order; the record quarantined at the claim's epoch + 1 with attempts A and no
/// owner; the claimant's lease still there in its name at the claim's epoch; nobody holds it.
fn check_parked(rules: &str, start: &Start, o: &Outcome, claimant: &str, id: &str) {
    // Gained (the claim) then Lost, both at the park's instant, in that order.
    let of = |w: &What| match w {
        What::Claim { split, member, .. } | What::Lost { split, member } => split == id && member == claimant,
        What::ParkedByRace { split, .. } => split == id,
        _ => false,
    };
    let seq: Vec<(u64, &What)> = o
        .timeline
        .iter()
        .filter(|e| of(&e.what))
        .map(|e| (e.t_ms, &e.what))
        .collect();
    assert!(
        matches!(
            seq.as_slice(),
            [
                (
                    1000,
                    What::Claim {
                        kind: ClaimKind::Released,
                        attempt: 3,
                        ..
                    }
                ),
                (1000, What::ParkedByRace { .. }),
                (1000, What::Lost { .. })
            ]
        ),
        "{rules} {id}: {seq:?}"
    );
    let s = &o.end.splits[id];
    let before = &start.splits[id];
    assert_eq!(
        s.progress.status,
        spate_planner_core::SplitStatus::Quarantined,
        "{rules} {id}"
    );
    assert_eq!(s.progress.owner, None, "{rules} {id}");
    assert_eq!(s.progress.attempts, 4, "{rules} {id}");
    assert_eq!(
        s.progress.epoch,
        before.progress.epoch + 2,
        "{rules} {id}: claim + 1, park + 1"
    );
    let lease = s
        .lease
        .as_ref()
        .expect("the claimant's lease is still there before claim + L");
    assert_eq!(lease.value.owner, *claimant, "{rules} {id}");
    assert_eq!(
        lease.value.epoch,
        before.progress.epoch + 1,
        "{rules} {id}: the claim's epoch"
    );
    assert!(!o.end.holders.contains_key(id), "{rules} {id}: nobody holds it");
    let last = o.splits[id].last().expect("intervals");
    assert_eq!(
        (last.from_ms, last.phase),
        (1000, Phase::Quarantined),
        "{rules} {id}"
    );
}

/// §6.7 A5-A6, A11, §9: with p = 1 each exposed claim is parked at its own instant by a peer;
/// the claimant has gained it and loses it at once; the record is quarantined at the claim's
/// epoch + 1 with attempts A and no owner; the claimant's lease stays in the store, in its
/// name at the claim's epoch, until claim + L (30 s, no renewal: it no longer holds the
/// split), and the split is never claimed again.
#[test]
fn a_parked_split_is_quarantined_at_the_claim_and_its_lease_lingers() {
    for rules in ["0.1", "0.3"] {
        let (start, o) = stop_onto_last_attempt(rules, 3, Some("1"), 20_000);
        let live = ["worker-01", "worker-02", "worker-03"];
        let taken = held_by(&start, "worker-04");
        let p = parks(&o);
        assert_eq!(p.len(), taken.len(), "{rules}: {p:?}");
        for (t, claimant, by, id, attempt) in &p {
            assert!(taken.contains(id), "{rules}: {id}");
            assert_eq!(*t, 1000, "{rules}: parked at the stop's hand-over");
            assert_eq!(by, first_peer(&live, claimant), "{rules}: {id}");
            assert_eq!(*attempt, 4, "{rules}: attempts A");
            check_parked(rules, &start, &o, claimant, id);
        }
        assert_eq!(o.figures.splits_parked_by_race, 4, "{rules}");
        assert_eq!(o.figures.splits_quarantined, 0, "{rules}: no rule quarantine");
        assert!(
            o.figures
                .not_recovered
                .iter()
                .all(|n| n.reason == Stuck::ParkedByRace),
            "{rules}"
        );
        assert_eq!(o.figures.not_recovered.len(), 4, "{rules}");
    }
}

/// Past claim + L (§6.7 A6): the parked split's lease expires exactly then, and nobody claims
/// the split again.
#[test]
fn a_parked_splits_lease_expires_at_claim_plus_l_and_it_is_never_claimed_again() {
    for rules in ["0.1", "0.3"] {
        let (start, _) = stop_onto_last_attempt(rules, 3, Some("1"), 20_000);
        let taken = held_by(&start, "worker-04");
        // Past claim + L: the lease expires exactly then, and nobody claims the split again.
        let (_, later) = stop_onto_last_attempt(rules, 3, Some("1"), 300_000);
        for id in &taken {
            let expired: Vec<u64> = later
                .timeline
                .iter()
                .filter(|e| matches!(&e.what, What::LeaseExpired { split, .. } if split == id))
                .map(|e| e.t_ms)
                .collect();
            assert_eq!(expired, [1000 + 30_000], "{rules} {id}");
            let claimed: Vec<_> = claims(&later).into_iter().filter(|c| &c.2 == id).collect();
            assert_eq!(claimed.len(), 1, "{rules} {id}: {claimed:?}");
            assert!(later.end.splits[id].lease.is_none(), "{rules} {id}");
        }
    }
}

/// The Timeline's marks say when the race parked splits and that they never run again; the
/// command line's and the page's summary count them apart from quarantines.
#[test]
fn the_marks_say_the_race_parked_splits_for_good() {
    let (start, o) = stop_onto_last_attempt("0.3", 3, Some("1"), 60_000);
    let text = r#"{"rules": "0.3", "seed": 3, "until_ms": 60000,
        "config": {"rebalance_delay_ms": 5000, "claim_race": 1},
        "events": [{"at_ms": 1000, "op": "stop", "member": "worker-04"}]}"#;
    let s = Summary::new(&o, &script(text));
    let parked: Vec<String> = held_by(&start, "worker-04").into_iter().collect();
    let mark = s
        .marks
        .iter()
        .find(|m| m.mark.kind == MarkKind::Parked)
        .expect("a parked mark");
    assert_eq!(mark.mark.t_ms, 1000);
    let mut who = mark.mark.who.clone();
    who.sort();
    assert_eq!(who, parked);
    assert!(
        mark.text
            .starts_with("0:01 parked by the claim race right after a claim, never to run again: "),
        "{}",
        mark.text
    );
    assert_eq!((s.counts.parked_by_race, s.counts.quarantines), (4, 0));
    assert!(
        s.marks.iter().all(|m| m.mark.kind != MarkKind::Recovered),
        "not recovered"
    );
}

/// §6.7 A7-A8, A3, §9: with p = 1, claims that write below A − 1 never park (a crash onto
/// attempts 0: Expired claims writing 1; new splits: Create claims writing 0), and a Reclaim
/// writing A − 1 never parks (a restart with the same id: it updates its own lease, which every
/// peer still views).
#[test]
fn claims_below_the_last_attempt_but_one_and_reclaims_never_park() {
    for rules in ["0.1", "0.3"] {
        let text = format!(
            r#"{{"rules": "{rules}", "seed": 5, "until_ms": 120000,
            "config": {{"rebalance_delay_ms": 0, "claim_race": 1}},
            "events": [{{"at_ms": 1000, "op": "crash", "member": "worker-04"}},
                       {{"at_ms": 2000, "op": "add_splits", "count": 4, "weight": 1, "prefix": "new-"}}]}}"#
        );
        let o = run(&fleet_at(0, 0), &script(&text));
        let c = claims(&o);
        assert!(
            c.iter().any(|c| c.3 == ClaimKind::Expired && c.4 == 1),
            "{rules}: {c:?}"
        );
        assert!(
            c.iter().any(|c| c.3 == ClaimKind::Create && c.4 == 0),
            "{rules}: {c:?}"
        );
        assert!(parks(&o).is_empty(), "{rules}: {:?}", parks(&o));

        // A restart of worker-04 (a start of a running id crashes it first): its new process
        // reclaims its 4 splits at attempts 2 -> 3 = A - 1.
        let text = format!(
            r#"{{"rules": "{rules}", "seed": 5, "until_ms": 60000, "config": {{"claim_race": 1}},
            "events": [{{"at_ms": 1000, "op": "start", "member": "worker-04"}}]}}"#
        );
        let o = run(&fleet_at(2, 0), &script(&text));
        let c = claims(&o);
        let reclaims = c.iter().filter(|c| c.3 == ClaimKind::Reclaim && c.4 == 3).count();
        assert_eq!(reclaims, 4, "{rules}: {c:?}");
        assert!(parks(&o).is_empty(), "{rules}: {:?}", parks(&o));
    }
}

/// §6.7 A3, §9: only live, non-parting peers race. Two workers: worker-02 stops holding splits
/// at attempts 3, and worker-01 takes them over as Released claims writing 3. Its only peer
/// is the parting worker-02, so with p = 1 nothing is parked. Three workers with worker-02
/// crashed first: worker-03's stop hands over to worker-01 (part of it: the leader still
/// counts worker-02 a member), whose peers are the crashed and the parting one: nothing parked; with worker-02 alive instead it parks every one of them.
#[test]
fn crashed_and_parting_peers_never_race() {
    for rules in ["0.1", "0.3"] {
        let mut two = Start::steady(8, 2, 8, 1);
        for s in two.splits.values_mut() {
            s.progress.attempts = 3;
        }
        let text = format!(
            r#"{{"rules": "{rules}", "seed": 9, "until_ms": 30000, "config": {{"claim_race": 1}},
            "events": [{{"at_ms": 1000, "op": "stop", "member": "worker-02"}}]}}"#
        );
        let o = run(&two, &script(&text));
        let handed = claims(&o)
            .iter()
            .filter(|c| c.1 == "worker-01" && c.3 == ClaimKind::Released && c.4 == 3)
            .count();
        assert_eq!(handed, 4, "{rules}");
        assert!(parks(&o).is_empty(), "{rules}: {:?}", parks(&o));

        let mut three = Start::steady(12, 3, 8, 1);
        let mine = held_by(&three, "worker-03");
        for (id, s) in three.splits.iter_mut() {
            s.progress.attempts = if mine.contains(id) { 3 } else { 0 };
        }
        for crash_first in [true, false] {
            let crash = if crash_first {
                r#"{"at_ms": 500, "op": "crash", "member": "worker-02"}, "#
            } else {
                ""
            };
            let text = format!(
                r#"{{"rules": "{rules}", "seed": 9, "until_ms": 3000, "config": {{"claim_race": 1}},
                "events": [{crash}{{"at_ms": 1000, "op": "stop", "member": "worker-03"}}]}}"#
            );
            let o = run(&three, &script(&text));
            let exposed_by_01 = claims(&o)
                .iter()
                .filter(|c| c.1 == "worker-01" && mine.contains(&c.2) && c.4 == 3)
                .count();
            let p = parks(&o);
            if crash_first {
                // The leader still counts the crashed worker-02 a member (its presence lives),
                // so it gives worker-01 part of worker-03's splits.
                assert!(exposed_by_01 >= 2, "{rules}");
                assert!(p.is_empty(), "{rules}: the crashed worker-02 raced: {p:?}");
            } else {
                assert!(exposed_by_01 > 0, "{rules}");
                assert!(
                    p.iter()
                        .filter(|x| x.1 == "worker-01")
                        .all(|x| x.2 == "worker-02"),
                    "{rules}: {p:?}"
                );
                assert_eq!(
                    p.iter().filter(|x| x.1 == "worker-01").count(),
                    exposed_by_01,
                    "{rules}: {p:?}"
                );
            }
        }
    }
}

/// Both engines draw the same races: the fast engine's outcome equals the naive engine's with
/// the race on (p = 0.5 and 1, and each release's own rate) on the recorded runs' scenarios.
#[test]
fn both_engines_agree_with_the_race_on() {
    let mut parked = 0;
    for p in [r#", "claim_race": 0.5"#, r#", "claim_race": 1"#, ""] {
        for rules in ["0.1", "0.3"] {
            for (start, ev) in [
                (
                    fleet_at(2, 2),
                    r#"{"at_ms": 0, "op": "crash", "member": "worker-04"}"#,
                ),
                (
                    fleet_at(2, 3),
                    r#"{"at_ms": 5000, "op": "stop", "member": "worker-02"}, {"at_ms": 15000, "op": "start", "member": "worker-02"}, {"at_ms": 40000, "op": "crash_leader"}"#,
                ),
            ] {
                for seed in 0..6 {
                    let text = format!(
                        r#"{{"rules": "{rules}", "seed": {seed}, "until_ms": 150000,
                        "config": {{"rebalance_delay_ms": 5000{p}}},
                        "data_plane": {{"drain_ms": {{"min": 0, "max": 3000}}}}, "events": [{ev}]}}"#
                    );
                    let s = script(&text);
                    let fast = run(&start, &s);
                    assert_eq!(fast, run_naive(&start, &s), "{text}");
                    parked += parks(&fast).len();
                }
            }
        }
    }
    assert!(parked > 50, "{parked} parks");
}

/// Over several seeds, the summary says how many recovered and, when the race parked any, in
/// how many seeds and how many splits (`simulate --seeds N`).
#[test]
fn over_seeds_the_summary_says_how_many_park_splits() {
    let f = |recovery_ms: Option<u64>, parked: u64| Figures {
        recovery_ms,
        splits_parked_by_race: parked,
        ..Figures::default()
    };
    let runs = [
        f(Some(47_000), 0),
        f(None, 2),
        f(Some(40_000), 0),
        f(None, 1),
        f(Some(58_500), 0),
    ];
    let s = SeedsSummary::of(&runs);
    assert_eq!(
        (s.seeds, s.recovered, s.parked_seeds, s.parked_splits),
        (5, 3, 2, 3)
    );
    assert_eq!(
        (s.recovery_ms_median, s.recovery_ms_max),
        (Some(47_000), Some(58_500))
    );
    assert_eq!(
        s.sentences(),
        [
            "Recovered in 3 of 5 seeds (median 47 s, at most 58.5 s).",
            "2 of 5 seeds park splits by the claim race (3 splits in all): right after a claim, for good; those splits never run again."
        ]
    );
    let calm = SeedsSummary::of(&runs[..1]);
    assert_eq!(
        calm.sentences(),
        ["Recovered in 1 of 1 seed (median 47 s, at most 47 s)."]
    );
    assert_eq!(
        SeedsSummary::of(&runs[1..2]).sentences()[0],
        "Recovered in none of 1 seed."
    );
}
