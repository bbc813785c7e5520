//! The fleet at an instant (docs/simulator.md, "The fleet at an instant"), from a hand-made run
//! whose intervals are known: a split is in the interval `[from, to)` holding the instant (the
//! run's end in the last); a member's process reads the running and draining splits it holds;
//! an idle split was last held by the previous interval's member, or by its snapshot owner; a
//! member is running between its start and its crash or stop; a leader's term runs from its
//! election to the next election or its crash, stop or resignation.

use crate::sim_support;

use sim_support::interval as iv;
use spate_planner_sim::{
    bench_scenario, simulate, FleetIndex, Initial, MemberState, Options, Phase, TimelineEvent, What,
};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn ev(t_ms: u64, what: What) -> TimelineEvent {
    TimelineEvent { t_ms, what }
}

/// w1 and w2 run from 0, w1 leading; w1 crashes at 10 s, w2 is elected at 15 s, n1 starts at
/// 20 s, w2 stops at 30 s; the run ends at 40 s.
fn run() -> FleetIndex {
    let m = |s: &str| s.to_string();
    let timeline = vec![
        ev(10_000, What::Crashed { member: m("w1") }),
        ev(
            15_000,
            What::LeaderElected {
                member: m("w2"),
                generation: 2,
            },
        ),
        ev(
            20_000,
            What::Started {
                member: m("n1"),
                nonce: m("x"),
                cap: 4,
            },
        ),
        ev(30_000, What::Stopped { member: m("w2") }),
    ];
    use Phase::*;
    let splits = BTreeMap::from([
        (
            m("s1"),
            vec![
                iv(0, 10_000, Running, Some("w1")),
                iv(10_000, 25_000, Idle, None),
                iv(25_000, 40_000, Running, Some("n1")),
            ],
        ),
        (
            m("s2"),
            vec![
                iv(0, 20_000, Running, Some("w2")),
                iv(20_000, 30_000, Draining, Some("w2")),
                iv(30_000, 40_000, Idle, None),
            ],
        ),
        (
            m("s3"),
            vec![
                iv(0, 12_000, Idle, None),
                iv(12_000, 30_000, Running, Some("w2")),
                iv(30_000, 40_000, Completed, None),
            ],
        ),
        (m("s4"), vec![iv(0, 40_000, Quarantined, None)]),
    ]);
    let members = [m("w1"), m("w2")];
    let weight_of = |id: &str| match id {
        "s1" => 5,
        "s2" => 7,
        _ => 0,
    };
    let owner_of = |id: &str| (id == "s3").then(|| "gone-1".to_string());
    let initial = Initial {
        members: &members,
        leader: Some("w1"),
        weight_of: &weight_of,
        owner_of: &owner_of,
    };
    FleetIndex::from_parts(&timeline, &splits, 40_000, &initial)
}

/// (name, state, leads, load, lanes, draining) of each member.
fn members(ix: &FleetIndex, t: u64) -> Vec<(String, MemberState, bool, u128, u64, u64)> {
    ix.at(t)
        .members
        .iter()
        .map(|m| (m.name.to_string(), m.state, m.leader, m.load, m.lanes, m.draining))
        .collect()
}

#[test]
fn at_the_start_the_snapshot_fleet_runs_and_its_leader_leads() {
    use MemberState::*;
    let ix = run();
    let f = ix.at(0);
    assert_eq!(f.leader, Some("w1"));
    assert_eq!(
        (
            f.counts.running,
            f.counts.draining,
            f.counts.idle,
            f.counts.completed,
            f.counts.quarantined
        ),
        (2, 0, 1, 0, 1)
    );
    // s3 idle from its first interval: last held by its owner in the snapshot
    assert_eq!(f.idle.len(), 1);
    assert_eq!(
        (f.idle[0].id, f.idle[0].since_ms, f.idle[0].last),
        ("s3", 0, Some("gone-1"))
    );
    assert_eq!(
        members(&ix, 0),
        [
            ("w1".into(), Running, true, 5, 1, 0),
            ("w2".into(), Running, false, 7, 1, 0),
            ("n1".into(), NotStarted, false, 0, 0, 0),
        ]
    );
}

#[test]
fn a_crash_ends_the_process_and_the_term_and_leaves_its_splits_idle() {
    use MemberState::*;
    let ix = run();
    // at 10 s: [0, 10 s) is over; s1 idle since 10 s, held before by w1; nobody leads until 15 s
    let f = ix.at(10_000);
    assert_eq!(f.leader, None);
    let idle: Vec<_> = f
        .idle
        .iter()
        .map(|x| (x.id, x.since_ms, x.last, x.weight))
        .collect();
    assert_eq!(
        idle,
        [("s1", 10_000, Some("w1"), 5), ("s3", 0, Some("gone-1"), 0)]
    );
    assert_eq!(f.idle_weight, 5);
    assert_eq!(members(&ix, 10_000)[0], ("w1".into(), Crashed, false, 0, 0, 0));
    assert_eq!(ix.at(14_999).leader, None);
    assert_eq!(ix.at(15_000).leader, Some("w2"));
    // s3 runs on w2 from 12 s: two lanes
    assert_eq!(members(&ix, 12_000)[1], ("w2".into(), Running, false, 7, 2, 0));
}

#[test]
fn draining_counts_as_read_and_a_stop_is_said() {
    use MemberState::*;
    let ix = run();
    let f = ix.at(20_000);
    assert_eq!((f.counts.running, f.counts.draining), (1, 1));
    assert_eq!(members(&ix, 20_000)[1], ("w2".into(), Running, true, 7, 2, 1));
    assert_eq!(members(&ix, 20_000)[2], ("n1".into(), Running, false, 0, 0, 0));
    let f = ix.at(30_000);
    assert_eq!(f.leader, None, "w2's stop ends its term");
    assert_eq!(
        (
            f.counts.running,
            f.counts.idle,
            f.counts.completed,
            f.counts.quarantined
        ),
        (1, 1, 1, 1)
    );
    assert_eq!((f.idle[0].id, f.idle[0].last), ("s2", Some("w2")));
    assert_eq!(members(&ix, 30_000)[1].1, Stopped);
}

#[test]
fn the_end_belongs_to_the_last_intervals_and_later_is_the_end() {
    use MemberState::*;
    let ix = run();
    let f = ix.at(40_000);
    assert_eq!(f.t_ms, 40_000);
    assert_eq!(
        (
            f.counts.running,
            f.counts.idle,
            f.counts.completed,
            f.counts.quarantined
        ),
        (1, 1, 1, 1)
    );
    assert_eq!(members(&ix, 40_000)[2], ("n1".into(), Running, false, 5, 1, 0));
    assert_eq!(members(&ix, 40_000)[0].1, Crashed);
    assert_eq!(ix.at(u64::MAX), ix.at(40_000));
}

/// The real simulator: at every instant each split the document places in a running or draining
/// interval counts once for its member, and the idle ones are listed.
#[test]
fn the_index_agrees_with_the_document_of_a_real_run() {
    let (start, script) = bench_scenario(300, 8, true);
    let o = simulate(&start, &script, &Options::default()).unwrap();
    let ix = FleetIndex::new(&o, &start, &script);
    for t in [0, 59_999, 60_000, 61_000, 125_000, 300_000, 600_000] {
        let f = ix.at(t);
        let mut lanes: BTreeMap<&str, u64> = BTreeMap::new();
        let mut idle = 0;
        for list in o.splits.values() {
            let Some(i) = list
                .iter()
                .find(|i| i.from_ms <= t && (t < i.to_ms || (t == 600_000 && i.to_ms == t)))
            else {
                continue;
            };
            match (i.phase.runs(), i.phase) {
                (true, _) => *lanes.entry(i.member.as_deref().unwrap()).or_default() += 1,
                (false, Phase::Idle) => idle += 1,
                _ => {}
            }
        }
        let got: BTreeMap<&str, u64> = f
            .members
            .iter()
            .filter(|m| m.lanes > 0)
            .map(|m| (m.name, m.lanes))
            .collect();
        assert_eq!(got, lanes, "lanes at {t}");
        assert_eq!(f.idle.len(), idle, "idle at {t}");
    }
    // the member crashed at 60 s reads nothing after, and is said to be crashed
    let crashed = ix.at(61_000);
    let w = crashed.members.iter().find(|m| m.name == "worker-04").unwrap();
    assert_eq!((w.state, w.lanes), (MemberState::Crashed, 0));
}
