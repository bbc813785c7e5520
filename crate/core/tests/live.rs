//! A live job kept current one change at a time equals the snapshot of the same entries loaded
//! whole (a plain model of the two buckets, kept by the test). Natively and under wasm32.

use crate::common;

use common::cases::cases;
use common::changes::{gone, put};

use common::store::{fp, Store, FINGERPRINT};
use proptest::prelude::*;
use serde_json::json;
use spate_planner_core::{snapshot::entry_json, Entry, ErrorCode, Fleet, LiveJob, Revisions, Snapshot};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

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
    assert_eq!(
        job.revisions(),
        Revisions {
            state: 102,
            lease: 103
        }
    );
}

/// A first state that records where each bucket was cut starts there, not at its highest entry
/// (a bucket whose last messages were deletes stands above every entry it holds).
#[test]
fn a_live_job_starts_at_the_revisions_its_first_state_records() {
    let mut first = start();
    let top = |b: &spate_planner_core::Bucket| b.entries.iter().map(|e| e.revision).max().unwrap();
    let state_top = top(&first.state);
    first.lease.revision = Some(top(&first.lease) + 40);
    let job = LiveJob::from_snapshot(&first).unwrap();
    assert_eq!(
        job.revisions(),
        Revisions {
            state: state_top,
            lease: top(&first.lease) + 40
        }
    );
    let saved = job.snapshot(0);
    assert_eq!(
        (saved.state.revision, saved.lease.revision),
        (Some(state_top), first.lease.revision)
    );
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
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    #[test]
    fn a_live_job_equals_its_entries_loaded_whole(ops in prop::collection::vec(arb_op(), 0..40)) {
        let first = start();
        let mut job = LiveJob::from_snapshot(&first).unwrap();
        // The model: each bucket's entries by key, as plain maps.
        let mut model: BTreeMap<&str, BTreeMap<String, Entry>> = BTreeMap::new();
        // Where each bucket stands: its highest entry (the first state records no revision),
        // then the last change's revision.
        let mut at: BTreeMap<&str, u64> = BTreeMap::new();
        for (name, b) in [("state", &first.state), ("lease", &first.lease)] {
            model.insert(name, b.entries.iter().map(|e| (e.key.clone(), e.clone())).collect());
            at.insert(name, b.entries.iter().map(|e| e.revision).max().unwrap_or(0));
        }
        for (i, op) in ops.iter().enumerate() {
            let rev = 1000 + i as u64;
            let (bucket, key, value) = change_of(op);
            at.insert(bucket, rev);
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
                b.revision = Some(at[name]);
            }
            whole.taken_at_ms = 7;
            prop_assert_eq!(job.revisions(), Revisions { state: at["state"], lease: at["lease"] });
            let want = Fleet::from_snapshot(&whole).unwrap();
            let got = job.fleet(7).unwrap();
            prop_assert_eq!(&got.members, &want.members);
            prop_assert_eq!(&got.splits, &want.splits);
            prop_assert_eq!(&got.warnings, &want.warnings);
            prop_assert_eq!(job.snapshot(7).to_json(), whole.to_json());
        }
    }
}

/// One generated change of the incremental-join test: a put of a key of every kind Spate writes
/// (and some it does not, and values the leader refuses), or a delete, purge or expiry.
#[derive(Clone, Debug)]
enum Change {
    /// Presence of `w{m}` with a cap (`None`: an unreadable value), written at `created`.
    Presence(u8, Option<u32>, i64),
    /// Progress of `s{s}`, owned by `w{o}`, of this job or (`true`) another.
    Progress(u8, Option<u8>, bool),
    /// Spec of `s{s}` with a weight, of this job or (`true`) another.
    Spec(u8, u64, bool),
    /// Lease of `s{s}` by `w{o}`, written at `created`.
    Lease(u8, u8, i64),
    Leader(u8),
    /// The plan record: fingerprint 0 is the job's own, others change the seed; a generation.
    Plan(u8, u64),
    /// `assign.w{m}`: readable (with these splits) or not.
    Assign(u8, bool, Vec<u8>),
    /// A key Spate does not write, in the state (`true`) or lease bucket.
    Unknown(bool),
    /// A value the leader refuses: a progress record of another schema, or an unreadable leader.
    Refused(u8, bool),
    /// Key number `k` of [`keys`] goes: 0 delete, 1 purge, 2 expiry of its current write, 3
    /// expiry of an older write.
    Gone(usize, u8),
}

/// Every key the changes touch, with its bucket.
fn keys() -> Vec<(&'static str, String)> {
    let mut k = vec![("state", "plan".to_string()), ("lease", "leader".to_string())];
    for i in 0..4 {
        k.push(("lease", format!("worker.w{i}")));
        k.push(("state", format!("assign.w{i}")));
    }
    for i in 0..6 {
        k.push(("state", format!("split.s{i}")));
        k.push(("state", format!("spec.s{i}")));
        k.push(("lease", format!("split.s{i}")));
    }
    k.push(("state", "zz.unknown".into()));
    k.push(("lease", "zz.unknown".into()));
    k
}

fn arb_change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => (0u8..4, prop::option::of(0u32..6), 0i64..40_000).prop_map(|(m, c, t)| Change::Presence(m, c, t)),
        4 => (0u8..6, prop::option::of(0u8..4), prop::bool::weighted(0.15))
            .prop_map(|(s, o, f)| Change::Progress(s, o, f)),
        3 => (0u8..6, 1u64..50, prop::bool::weighted(0.15)).prop_map(|(s, w, f)| Change::Spec(s, w, f)),
        3 => (0u8..6, 0u8..4, 0i64..40_000).prop_map(|(s, o, t)| Change::Lease(s, o, t)),
        1 => (0u8..4).prop_map(Change::Leader),
        1 => (prop::sample::select(vec![0u8, 0, 0, 1, 2]), 1u64..9).prop_map(|(f, g)| Change::Plan(f, g)),
        2 => (0u8..4, prop::bool::weighted(0.8), prop::collection::vec(0u8..6, 0..4))
            .prop_map(|(m, r, ids)| Change::Assign(m, r, ids)),
        1 => any::<bool>().prop_map(Change::Unknown),
        1 => (0u8..6, any::<bool>()).prop_map(|(s, p)| Change::Refused(s, p)),
        4 => (0..keys().len(), 0u8..4).prop_map(|(k, how)| Change::Gone(k, how)),
    ]
}

fn foreign_fp(other: bool) -> u64 {
    if other {
        fp() ^ 1
    } else {
        fp()
    }
}

/// The bucket, key, value and creation time a put writes.
fn put_of(c: &Change) -> (&'static str, String, String, i64) {
    let t = 1_000;
    match c {
        Change::Presence(m, cap, at) => {
            let v = match cap {
                Some(c) => json!({"schema":3,"nonce":format!("n{m}"),"max_in_flight":c}).to_string(),
                None => "not json".into(),
            };
            ("lease", format!("worker.w{m}"), v, *at)
        }
        Change::Progress(s, o, other) => {
            let owner = o.map(|o| format!("w{o}"));
            let v = json!({"schema":3,"id":format!("s{s}"),"fp":foreign_fp(*other),"epoch":1,"status":"runnable","owner":owner,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0});
            ("state", format!("split.s{s}"), v.to_string(), t)
        }
        Change::Spec(s, w, other) => {
            let v = json!({"schema":3,"id":format!("s{s}"),"fp":foreign_fp(*other),"generation":1,"weight":w,"descriptor":""});
            ("state", format!("spec.s{s}"), v.to_string(), t)
        }
        Change::Lease(s, o, at) => {
            let v = json!({"schema":3,"owner":format!("w{o}"),"nonce":format!("n{o}"),"epoch":1});
            ("lease", format!("split.s{s}"), v.to_string(), *at)
        }
        Change::Leader(m) => {
            let v = json!({"schema":3,"owner":format!("w{m}"),"nonce":"lead","generation":1});
            ("lease", "leader".into(), v.to_string(), t)
        }
        Change::Plan(f, g) => {
            let fingerprint = if *f == 0 {
                FINGERPRINT.to_string()
            } else {
                format!("other@{f}")
            };
            let v = json!({"schema":3,"fingerprint":fingerprint,"generation":g,"finality":"open","planned":0,"planner_state":null,"updated_at_ms":0});
            ("state", "plan".into(), v.to_string(), t)
        }
        Change::Assign(m, readable, ids) => {
            let ids: Vec<String> = ids.iter().map(|i| format!("s{i}")).collect();
            let v = if *readable {
                json!({"schema":3,"generation":1,"splits":ids})
            } else {
                json!({"schema":3})
            };
            ("state", format!("assign.w{m}"), v.to_string(), t)
        }
        Change::Unknown(state) => {
            let bucket = if *state { "state" } else { "lease" };
            (bucket, "zz.unknown".into(), "{}".into(), t)
        }
        Change::Refused(s, true) => (
            "state",
            format!("split.s{s}"),
            json!({"schema":2,"id":format!("s{s}")}).to_string(),
            t,
        ),
        Change::Refused(_, false) => ("lease", "leader".into(), "{".into(), t),
        Change::Gone(..) => unreachable!("not a put"),
    }
}

/// The change event of `c` at revision `rev` (`held`: each key's current revision).
fn event_of(c: &Change, rev: u64, held: &mut BTreeMap<(&'static str, String), u64>) -> String {
    match c {
        Change::Gone(k, how) => {
            let (bucket, key) = keys()[*k].clone();
            let current = held.get(&(bucket, key.clone())).copied();
            match how {
                0 | 1 => {
                    held.remove(&(bucket, key.clone()));
                    gone(bucket, if *how == 0 { "delete" } else { "purge" }, &key, rev)
                }
                2 => {
                    held.remove(&(bucket, key.clone()));
                    gone(bucket, "expire", &key, current.unwrap_or(rev))
                }
                _ => gone(
                    bucket,
                    "expire",
                    &key,
                    current.map_or(rev, |r| r.saturating_sub(1)),
                ),
            }
        }
        put_change => {
            let (bucket, key, value, created) = put_of(put_change);
            held.insert((bucket, key.clone()), rev);
            let e = Entry {
                key,
                revision: rev,
                created_ms: created,
                value: value.into_bytes(),
            };
            format!(r#"{{"bucket":"{bucket}","op":"put","entry":{}}}"#, entry_json(&e))
        }
    }
}

/// A start with a plan, a leader, three members, splits (one without a spec), leases and
/// published assignments.
fn rich_start() -> Snapshot {
    Store::new()
        .presence("w0", Some(4))
        .presence("w1", None)
        .presence("w2", Some(2))
        .leader("w0")
        .split("s0", 5, Some("w0"), 1, 0)
        .split("s1", 3, Some("w1"), 1, 0)
        .split("s2", 8, None, 1, 0)
        .progress("s3", "runnable", None, 1, 0)
        .held("s0", "w0")
        .held("s1", "w1")
        .assign("w0", 1, &["s0", "s2"])
        .assign("w1", 1, &["s1"])
        .snapshot()
}

/// The fleet a whole join gives of the job's state at `now` (its revisions: the job's, which
/// count deletes too), or the refusal.
fn whole(job: &LiveJob, now: i64) -> Result<Fleet, String> {
    let mut f = Fleet::from_snapshot(&job.snapshot(now)).map_err(|e| e.to_string())?;
    let at = job.revisions();
    (f.state_revision, f.lease_revision) = (at.state, at.lease);
    Ok(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// After any changes, the fleet a live job keeps joined (only what changed joined again)
    /// equals the whole join of its state, field by field: splits, lease times, members,
    /// warnings in order, foreign keys, the seed. Changes are applied in bursts of one to four
    /// before the fleet is asked for, at moments that move on.
    #[test]
    fn the_incremental_join_equals_the_whole_join(
        changes in prop::collection::vec((arb_change(), 0u8..4), 0..60),
    ) {
        let first = rich_start();
        let mut job = LiveJob::from_snapshot(&first).unwrap();
        let mut held: BTreeMap<(&'static str, String), u64> = BTreeMap::new();
        for (b, bucket) in [("state", &first.state), ("lease", &first.lease)] {
            for e in &bucket.entries {
                held.insert((b, e.key.clone()), e.revision);
            }
        }
        let mut now = 2_000;
        prop_assert_eq!(job.fleet(now).ok(), whole(&job, now).ok());
        for (i, (c, look)) in changes.iter().enumerate() {
            job.apply(&event_of(c, 100 + i as u64, &mut held)).unwrap();
            if *look != 0 {
                continue;
            }
            now += 1_234;
            match (job.fleet(now), whole(&job, now)) {
                (Ok(got), Ok(want)) => prop_assert_eq!(got, want),
                (Err(_), Err(_)) => {}
                (got, want) => prop_assert!(false, "incremental {:?}, whole {:?}", got.err(), want.err()),
            }
        }
        now += 1;
        let (got, want) = (job.fleet(now), whole(&job, now));
        prop_assert_eq!(got.is_err(), want.is_err());
        prop_assert_eq!(got.ok(), want.ok());
    }
}
