//! A job's gauges (`serve --server`'s `/metrics`): a hand-built store whose every figure is
//! worked out from the rules (decision-core.md sections 5 and 7), and demo fleets whose every
//! gauge is read back from the plan document (`plan --json`) by the mapping the gauges document.

use crate::common;

use common::store::Store;
use serde_json::Value;
use spate_planner_core::{
    analyse_partly, demo_snapshot, plan_document,
    review::{gauges, last_publish_ms, Gauges},
    DemoParams, Fleet, Rules, Scenario, Snapshot,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn spec(id: &str, weight: u64) -> Value {
    serde_json::json!({"schema": 3, "id": id, "fp": common::store::fp(), "generation": 1, "weight": weight, "descriptor": ""})
}

/// Two members of cap 2 (w1 leads); splits in every state; w1 and w2 hold one each, `left`
/// departed within the delay (its `assign.left` record lingers without presence).
fn store() -> Store {
    Store::new()
        .presence("w1", Some(2))
        .presence("w2", Some(2))
        .leader("w1")
        .split("a", 100, Some("w1"), 1, 0)
        .held("a", "w1")
        .split("b", 50, Some("w2"), 1, 0)
        .held("b", "w2")
        .split("c", 30, None, 0, 0) // never owned
        .split("d", 20, Some("gone"), 1, 0) // its owner is gone, no record lingers
        .split("e", 40, Some("left"), 1, 0) // withheld: `left` departed within the delay
        .state("spec.q", spec("q", 10))
        .progress("q", "quarantined", Some("w1"), 2, 4)
        .state("spec.done", spec("done", 10))
        .progress("done", "completed", Some("w2"), 1, 0)
        .progress("nospec", "runnable", None, 0, 0)
        .assign("w1", 1, &["a"])
        .assign("w2", 1, &["b"])
        .assign("left", 1, &["e"])
}

/// The store's snapshot with each entry created at its revision × 1000 ms, and a progress
/// record written after the last `assign.*` one.
fn snapshot() -> Snapshot {
    let mut snap = store().split("late", 5, Some("w2"), 1, 0).snapshot();
    for e in snap.state.entries.iter_mut().chain(snap.lease.entries.iter_mut()) {
        e.created_ms = e.revision as i64 * 1000;
    }
    snap
}

#[test]
fn every_figure_is_the_rules_answer() {
    let snap = snapshot();
    let g = gauges(&snap, None).unwrap();
    // Nine splits: a, b and `late` (no lease: its record's owner w2) held by live members; c
    // (never owned) and d (owner gone) idle; e withheld; q, done and nospec.
    assert_eq!(g.moment.members, 2);
    let s = &g.splits;
    assert_eq!(
        (
            s.running,
            s.idle,
            s.withheld,
            s.quarantined,
            s.completed,
            s.waiting_for_spec
        ),
        (3, 2, 1, 1, 1, 1)
    );
    // Pool by weight: a 100, b 50, c 30, d 20, late 5 (e withheld). Sticky: a → w1, b → w2,
    // late → w2 (its record's owner, a lane free). Fill: c → w1 (100 vs 55: w2 is full), then
    // d finds no free lane: queued.
    assert_eq!((g.assigned, g.moment.queued), (4, 1));
    assert_eq!((g.now.max_load, g.now.mean_load), (100, 77.5));
    assert_eq!((g.planned.max_load, g.planned.mean_load), (130, 92.5));
    assert_eq!((g.now.at_cap, g.planned.at_cap), (1, 2));
    // lower bound: max(ceil(185 / 2), heaviest 100)
    assert_eq!(g.lower_bound, 100);
    // c: unowned → w1; d: owner gone, queued.
    assert_eq!((g.moment.moves, g.weight_moved), (2, 50));
    let p = g.published.as_ref().unwrap();
    // a and b kept; e published to `left`, planned nowhere; c and late planned, published
    // nowhere.
    assert_eq!(
        (p.records, g.moment.from_published, p.stale, p.conflicts),
        (3, Some(3), 0, 0)
    );
    let newest_assign = snap
        .state
        .entries
        .iter()
        .find(|e| e.key == "assign.left")
        .unwrap();
    assert_eq!(g.last_publish_ms, Some(newest_assign.created_ms));
    assert!(g.last_publish_ms < snap.state.entries.iter().map(|e| e.created_ms).max());
    assert!(g.leader_publishes);
    assert_eq!(g.leader.as_deref(), Some("w1"));
    assert_eq!(g.moment.rules, Rules::V0_1);
}

#[test]
fn nothing_published_and_no_plan() {
    let snap = Store::new()
        .without_plan()
        .presence("w1", Some(2))
        .split("a", 7, Some("w1"), 1, 0)
        .held("a", "w1")
        .snapshot();
    assert_eq!(last_publish_ms(&snap.state), None);
    let g = gauges(&snap, None).unwrap();
    assert_eq!(g.published, None);
    assert_eq!(g.last_publish_ms, None);
    // No plan record: the leader publishes nothing, the standing assignment is the plan.
    assert!(!g.leader_publishes);
    assert_eq!((g.splits.running, g.splits.idle, g.moment.moves), (1, 0, 0));
    assert_eq!(g.leader, None);
}

fn u(v: &Value) -> u64 {
    v.as_str()
        .map(|s| s.parse().unwrap())
        .or_else(|| v.as_u64())
        .unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Every gauge read back from the plan document by the documented mapping.
fn assert_from_document(g: &Gauges, doc: &Value) {
    let (r, s) = (&doc["report"], &doc["summary"]);
    let c = &r["counts"];
    let lanes_now: u64 = r["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| u(&m["lanes_now"]))
        .sum();
    let pool = u(&c["splits"])
        - u(&c["completed"])
        - u(&c["quarantined"])
        - u(&c["reserved"])
        - u(&c["waiting_for_spec"]);
    let st = &g.splits;
    assert_eq!(u64::from(st.running), lanes_now);
    assert_eq!(u64::from(st.idle), pool - lanes_now);
    assert_eq!(u64::from(st.withheld), u(&c["reserved"]));
    assert_eq!(u64::from(st.quarantined), u(&c["quarantined"]));
    assert_eq!(u64::from(st.completed), u(&c["completed"]));
    assert_eq!(u64::from(st.waiting_for_spec), u(&c["waiting_for_spec"]));
    let six = st.running + st.idle + st.withheld + st.quarantined + st.completed + st.waiting_for_spec;
    assert_eq!(u64::from(six), u(&c["splits"]), "the states partition the splits");
    assert_eq!(u64::from(g.moment.members), u(&s["members"]));
    assert_eq!(u64::from(g.assigned), u(&c["assigned"]));
    assert_eq!(u64::from(g.moment.queued), u(&c["queued"]));
    for (side, key) in [(&g.now, "now"), (&g.planned, "planned")] {
        assert_eq!(side.max_load, u(&s[key]["max_load"]));
        assert_eq!(Some(side.mean_load), s[key]["mean_load"].as_f64());
        assert_eq!(u64::from(side.at_cap), u(&s[key]["at_cap"]));
        assert_eq!(u64::from(side.over_mean), u(&s[key]["over_mean"]));
    }
    assert_eq!(g.lower_bound, u(&r["balance"]["lower_bound"]));
    assert_eq!(u64::from(g.moment.moves), u(&s["moves"]));
    assert_eq!(g.weight_moved, u(&s["weight_moved"]));
    match (&g.published, &doc["published"]) {
        (None, Value::Null) => assert_eq!(g.moment.from_published, None),
        (Some(p), d) => {
            assert_eq!(u64::from(p.records), u(&d["records"]));
            assert_eq!(g.moment.from_published.map(u64::from), d["changes"].as_u64());
            assert_eq!(p.stale as usize, d["stale"].as_array().unwrap().len());
            assert_eq!(p.conflicts as usize, d["conflicts"].as_object().unwrap().len());
        }
        (None, d) => panic!("published in the document: {d}"),
    }
    assert_eq!(Some(g.leader_publishes), doc["leader_publishes"].as_bool());
    assert_eq!(Some(g.moment.rules.to_string().as_str()), doc["rules"].as_str());
    assert_eq!(
        g.moment.warnings as usize,
        doc["warnings"].as_array().unwrap().len()
    );
    let findings = doc["findings"].as_array().unwrap();
    for (i, level) in ["fatal", "warning", "notice"].iter().enumerate() {
        let n = findings.iter().filter(|f| f["level"] == *level).count();
        assert_eq!(g.findings[i] as usize, n, "{level} findings");
    }
}

fn document(snap: &Snapshot) -> Value {
    let fleet = Fleet::from_snapshot(snap).unwrap();
    let a = analyse_partly(&fleet, &Scenario::default());
    serde_json::from_str(&plan_document(&fleet, &a).unwrap()).unwrap()
}

#[test]
fn every_gauge_is_the_plan_documents_value() {
    let snap = snapshot();
    assert_from_document(&gauges(&snap, None).unwrap(), &document(&snap));
    for (splits, members, seed) in [(300, 12, 1), (2000, 24, 7), (50, 40, 3)] {
        let p = DemoParams {
            splits,
            members,
            seed,
            ..DemoParams::default()
        };
        let snap = demo_snapshot(&p).unwrap();
        let g = gauges(&snap, None).unwrap();
        assert_from_document(&g, &document(&snap));
        assert_eq!(g.job, "demo");
    }
}

#[test]
fn a_snapshot_the_leader_would_refuse_is_an_error_naming_the_key() {
    let mut snap = store().snapshot();
    let e = snap
        .state
        .entries
        .iter_mut()
        .find(|e| e.key == "split.a")
        .unwrap();
    e.value = b"{\"schema\":3".to_vec();
    let err = gauges(&snap, None).unwrap_err();
    assert_eq!(err.key.as_deref(), Some("split.a"), "{err}");
}
