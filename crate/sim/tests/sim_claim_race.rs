//! The claim race (timing.md §6.7, A1-A13; timing-0.3.md §6.7, B1-B13; both §9): a Create,
//! Released or Expired claim that writes `attempts = A − 1` may be parked by a live, non-parting
//! peer that folds the claimant's record before its lease, with probability `p` per peer and
//! claim.

mod sim_support;

use sim_support::*;
use spate_planner_core::{stable_hash_str, ClaimKind};
use spate_planner_sim::{Outcome, Script, Start, Summary, What};
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
/// each checked to be 0 first), which the recorded documents did not have.
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
