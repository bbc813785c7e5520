//! A live job kept current one change at a time equals the snapshot of the same entries loaded
//! whole (a plain model of the two buckets, kept by the test). Natively and under wasm32.

mod common;

use common::store::{fp, Store};
use proptest::prelude::*;
use serde_json::json;
use spate_planner_core::codes::ErrorCode;
use spate_planner_core::fleet::Fleet;
use spate_planner_core::live::LiveJob;
use spate_planner_core::snapshot::{entry_json, Entry, Snapshot};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn put(bucket: &str, key: &str, rev: u64, value: &str) -> String {
    let e = Entry {
        key: key.into(),
        revision: rev,
        created_ms: 5,
        value: value.as_bytes().to_vec(),
    };
    format!(r#"{{"bucket":"{bucket}","op":"put","entry":{}}}"#, entry_json(&e))
}

fn gone(bucket: &str, op: &str, key: &str, rev: u64) -> String {
    format!(r#"{{"bucket":"{bucket}","op":"{op}","key":"{key}","revision":{rev},"created_ms":5}}"#)
}

fn progress(id: &str, owner: Option<&str>) -> String {
    json!({"schema":3,"id":id,"fp":fp(),"epoch":1,"status":"runnable","owner":owner,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}).to_string()
}

fn spec(id: &str, w: u64) -> String {
    json!({"schema":3,"id":id,"fp":fp(),"generation":1,"weight":w,"descriptor":""}).to_string()
}

fn start() -> Snapshot {
    Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 5, Some("w1"), 1, 0)
        .held("a", "w1")
        .snapshot()
}

#[test]
fn changes_apply_one_key_at_a_time() {
    let mut job = LiveJob::from_snapshot(&start()).unwrap();
    job.apply(&put(
        "lease",
        "worker.w2",
        100,
        r#"{"schema":3,"nonce":"n","max_in_flight":6}"#,
    ))
    .unwrap();
    job.apply(&put("state", "spec.b", 101, &spec("b", 9))).unwrap();
    job.apply(&put("state", "split.b", 102, &progress("b", None)))
        .unwrap();
    job.apply(&gone("lease", "delete", "worker.w1", 103)).unwrap();
    // an expiry of an older write leaves the newer one; of the current one, removes it
    job.apply(&gone("lease", "expire", "split.a", 1)).unwrap();
    assert!(job.fleet(0).unwrap().splits["a"].lease.is_some());
    let a_rev = start()
        .lease
        .entries
        .iter()
        .find(|e| e.key == "split.a")
        .unwrap()
        .revision;
    job.apply(&gone("lease", "expire", "split.a", a_rev)).unwrap();
    let f = job.fleet(0).unwrap();
    assert_eq!(
        f.members.keys().cloned().collect::<Vec<_>>(),
        vec!["w2".to_string()]
    );
    assert_eq!(f.members["w2"].max_in_flight, Some(6));
    assert!(f.splits["a"].lease.is_none());
    assert_eq!(f.splits["b"].spec.as_ref().map(|s| s.weight), Some(9));
    assert_eq!(job.revisions(), (102, 103));
}

#[test]
fn a_refused_value_refuses_the_state_until_it_is_replaced() {
    let mut job = LiveJob::from_snapshot(&start()).unwrap();
    job.apply(&put("state", "split.a", 50, r#"{"schema":2,"id":"a"}"#))
        .unwrap();
    let e = job.fleet(0).unwrap_err();
    assert_eq!(
        (e.code, e.key.as_deref()),
        (ErrorCode::WrongSchema, Some("split.a"))
    );
    job.apply(&put("state", "split.a", 51, &progress("a", Some("w1"))))
        .unwrap();
    assert!(job.fleet(0).is_ok());
    for bad in [
        r#"{"bucket":"x","op":"put"}"#,
        r#"{"bucket":"state","op":"delete"}"#,
        "nope",
    ] {
        assert!(job.apply(bad).is_err(), "{bad}");
    }
}

/// One generated change: which key, and what happens to it.
#[derive(Clone, Debug)]
enum Op {
    Presence(u8, u32),
    Split(u8, Option<u8>),
    Spec(u8, u64),
    Lease(u8, u8),
    Delete(bool, u8),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..3, 0u32..5).prop_map(|(m, c)| Op::Presence(m, c)),
        (0u8..4, prop::option::of(0u8..3)).prop_map(|(s, o)| Op::Split(s, o)),
        (0u8..4, 1u64..50).prop_map(|(s, w)| Op::Spec(s, w)),
        (0u8..4, 0u8..3).prop_map(|(s, o)| Op::Lease(s, o)),
        (any::<bool>(), 0u8..4).prop_map(|(st, s)| Op::Delete(st, s)),
    ]
}

/// The change's bucket, key and value (`None`: a delete).
fn change_of(op: &Op) -> (&'static str, String, Option<String>) {
    match op {
        Op::Presence(m, c) => (
            "lease",
            format!("worker.w{m}"),
            Some(json!({"schema":3,"nonce":"n","max_in_flight":c}).to_string()),
        ),
        Op::Split(s, o) => (
            "state",
            format!("split.s{s}"),
            Some(progress(&format!("s{s}"), o.map(|o| format!("w{o}")).as_deref())),
        ),
        Op::Spec(s, w) => ("state", format!("spec.s{s}"), Some(spec(&format!("s{s}"), *w))),
        Op::Lease(s, o) => (
            "lease",
            format!("split.s{s}"),
            Some(json!({"schema":3,"owner":format!("w{o}"),"nonce":"n","epoch":1}).to_string()),
        ),
        Op::Delete(true, s) => ("state", format!("split.s{s}"), None),
        Op::Delete(false, s) => ("lease", format!("split.s{s}"), None),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_live_job_equals_its_entries_loaded_whole(ops in prop::collection::vec(arb_op(), 0..40)) {
        let first = start();
        let mut job = LiveJob::from_snapshot(&first).unwrap();
        // The model: each bucket's entries by key, as plain maps.
        let mut model: BTreeMap<&str, BTreeMap<String, Entry>> = BTreeMap::new();
        for (name, b) in [("state", &first.state), ("lease", &first.lease)] {
            model.insert(name, b.entries.iter().map(|e| (e.key.clone(), e.clone())).collect());
        }
        for (i, op) in ops.iter().enumerate() {
            let rev = 1000 + i as u64;
            let (bucket, key, value) = change_of(op);
            match value {
                Some(v) => {
                    job.apply(&put(bucket, &key, rev, &v)).unwrap();
                    let e = Entry { key: key.clone(), revision: rev, created_ms: 5, value: v.into_bytes() };
                    model.get_mut(bucket).unwrap().insert(key, e);
                }
                None => {
                    job.apply(&gone(bucket, "delete", &key, rev)).unwrap();
                    model.get_mut(bucket).unwrap().remove(&key);
                }
            }
            let mut whole = first.clone();
            for (b, name) in [(&mut whole.state, "state"), (&mut whole.lease, "lease")] {
                b.entries = model[name].values().cloned().collect();
                b.entries.sort_by_key(|e| e.revision);
            }
            whole.taken_at_ms = 7;
            let want = Fleet::from_snapshot(&whole).unwrap();
            let got = job.fleet(7).unwrap();
            prop_assert_eq!(&got.members, &want.members);
            prop_assert_eq!(&got.splits, &want.splits);
            prop_assert_eq!(&got.warnings, &want.warnings);
            prop_assert_eq!(job.snapshot(7).to_json(), whole.to_json());
        }
    }
}
