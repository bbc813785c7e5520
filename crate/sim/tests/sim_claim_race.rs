//! The claim race (timing.md §6.7, A1-A13; timing-0.3.md §6.7, B1-B13; both §9): a Create,
//! Released or Expired claim that writes `attempts = A − 1` may be parked by a live, non-parting
//! peer that folds the claimant's record before its lease, with probability `p` per peer and
//! claim.

mod sim_support;

use sim_support::*;
use spate_planner_core::stable_hash_str;
use spate_planner_sim::{Outcome, Script, Start, Summary};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The digests of the runs of [`digest_runs`], recorded on the simulator before it modelled the
/// race (`scripts` below without `claim_race`), one line each: `name digest`.
const P0_DIGESTS: &str = include_str!("fixtures/claim_race_p0.txt");

/// The `config` fields every run of [`digest_runs`] adds (the race's parameter, once it exists).
const EXTRA_CONFIG: &str = "";

/// A digest of everything a run produces: the simulation document (figures, claims,
/// quarantines, elections, timeline, intervals), the final state and the Timeline's summary.
fn digest(o: &Outcome, s: &Script) -> u64 {
    let mut doc = o.to_json();
    doc["final"] = serde_json::to_value(&o.end).expect("the final state serializes");
    doc["summary"] = serde_json::to_value(Summary::new(o, s)).expect("the summary serializes");
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
fn digest_runs() -> Vec<(String, u64)> {
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
                        "config": {{"rebalance_delay_ms": 5000{EXTRA_CONFIG}}},
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
    let got: Vec<String> = digest_runs()
        .into_iter()
        .map(|(n, d)| format!("{n} {d:016x}"))
        .collect();
    let want: Vec<&str> = P0_DIGESTS.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(got, want, "got:\n{}", got.join("\n"));
}
