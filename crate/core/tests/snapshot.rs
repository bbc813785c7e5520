//! Snapshot files -> the leader's inputs: round trips, errors naming bucket and key, warnings with
//! the leader's effect, what-if scenarios and the report. Natively and under wasm32.

use crate::common;

use common::cases::cases;

use common::{arb_fleet, Fleet as Inputs};
use proptest::prelude::*;
use serde_json::json;
use spate_planner_core::{
    assign::AssignInputs,
    fleet::SeedSource,
    report::{report, Reason},
    snapshot::bucket_names,
    stable_hash_str, Bucket, Entry, Fleet, LeaderInputs, Scenario, Snapshot, Source,
};
use std::collections::{BTreeMap, BTreeSet};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const TAKEN: i64 = 1_767_000_000_000;

fn entry(key: &str, rev: u64, value: impl Into<Vec<u8>>) -> Entry {
    Entry {
        key: key.into(),
        revision: rev,
        created_ms: TAKEN - 10_000,
        value: value.into(),
    }
}

/// A snapshot holding exactly these inputs' splits and members, for job `j` with a plan record.
fn snapshot_of(f: &Inputs, fingerprint: &str) -> Snapshot {
    let fp = stable_hash_str(0, fingerprint);
    let (sn, ln) = bucket_names("j");
    let mut state = vec![entry(
        "plan",
        1,
        json!({"schema":3,"fingerprint":fingerprint,"generation":1,"finality":"open","planned":0,"planner_state":null,"updated_at_ms":0})
            .to_string(),
    )];
    let mut lease = Vec::new();
    for (id, s) in f.splits.iter() {
        let mut p = s.progress.clone();
        p.fp = fp;
        state.push(entry(
            &format!("split.{id}"),
            s.progress_rev,
            serde_json::to_vec(&p).unwrap(),
        ));
        if let Some(sp) = &s.spec {
            let mut sp = sp.clone();
            sp.fp = fp;
            state.push(entry(&format!("spec.{id}"), 7, serde_json::to_vec(&sp).unwrap()));
        }
        if let Some(l) = &s.lease {
            lease.push(entry(
                &format!("split.{id}"),
                l.rev,
                serde_json::to_vec(&l.value).unwrap(),
            ));
        }
    }
    for m in &f.members {
        let cap = f.caps.get(m).copied().unwrap_or(0);
        lease.push(entry(
            &format!("worker.{m}"),
            9,
            json!({"schema":3,"nonce":"n","max_in_flight":cap}).to_string(),
        ));
    }
    Snapshot {
        job: "j".into(),
        source: Source {
            kind: "test".into(),
            server: None,
            note: None,
        },
        taken_at_ms: TAKEN,
        state: Bucket {
            name: sn,
            history: 1,
            max_age_ms: 0,
            revision: None,
            entries: state,
        },
        lease: Bucket {
            name: ln,
            history: 1,
            max_age_ms: 30_000,
            revision: None,
            entries: lease,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// Writing a fleet as a snapshot file and loading it gives back the leader's inputs: the
    /// same members, caps (non-members' caps dropped), splits, and so the same plan.
    #[test]
    fn snapshot_round_trip_gives_the_leaders_inputs(f in arb_fleet(8, 80), default_cap in 1u32..10) {
        let text = snapshot_of(&f, "s3://x@1").to_json();
        let fleet = Fleet::load_text(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let inputs = with_cap(&fleet, default_cap);
        let fp = stable_hash_str(0, "s3://x@1");
        prop_assert_eq!(inputs.seed, fp);
        prop_assert_eq!(&inputs.members, &f.members);
        let caps: BTreeMap<String, u32> =
            f.caps.iter().filter(|(m, c)| f.members.contains(*m) && **c > 0).map(|(m, c)| (m.clone(), *c)).collect();
        prop_assert_eq!(&inputs.caps, &caps);
        prop_assert_eq!(inputs.splits.len(), f.splits.len());
        for (id, s) in f.splits.iter() {
            let got = &inputs.splits[id];
            prop_assert_eq!(&got.progress.owner, &s.progress.owner);
            prop_assert_eq!(got.spec.as_ref().map(|x| x.weight), s.spec.as_ref().map(|x| x.weight));
            prop_assert_eq!(got.lease.as_ref().map(|l| &l.value.owner), s.lease.as_ref().map(|l| &l.value.owner));
            prop_assert_eq!(got.progress_rev, s.progress_rev);
        }
        let want = {
            let caps = f.caps.iter().filter(|(_, c)| **c > 0).map(|(m, c)| (m.clone(), *c)).collect();
            let none = BTreeSet::new();
            spate_planner_core::desired_assignment(&AssignInputs::v0_1(&f.members, &f.splits, &none, &caps, default_cap, fp))
        };
        prop_assert_eq!(inputs.plan().assignment, want);
    }
}

/// The leader's inputs with the user's default cap and no what-if.
fn with_cap(fleet: &Fleet, default_cap: u32) -> LeaderInputs {
    let s = Scenario {
        default_cap: Some(default_cap),
        ..Scenario::default()
    };
    s.apply(fleet).unwrap().inputs
}

fn base() -> Inputs {
    let mut f = common::shaped_fleet(
        &["a", "b"],
        &[5, 3, 2],
        |i| Some(["a", "b", "gone"][i].to_string()),
        4,
        0,
    );
    f.caps.insert("a".into(), 2);
    f
}

fn with_state_value(key: &str, value: &str) -> String {
    let mut s = snapshot_of(&base(), "fp");
    s.state.entries.retain(|e| e.key != key);
    s.state.entries.push(entry(key, 99, value.as_bytes().to_vec()));
    s.to_json()
}

/// The revision each bucket was cut at is written, read back, and is the position the fleet
/// shows; a file without it (written before it was recorded) is read as before; an entry above
/// it is refused, naming the bucket and key.
#[test]
fn a_bucket_records_the_revision_it_was_cut_at() {
    let mut s = snapshot_of(&base(), "fp");
    let top = |b: &Bucket| b.entries.iter().map(|e| e.revision).max().unwrap();
    let (state_top, lease_top) = (top(&s.state), top(&s.lease));
    s.state.revision = Some(state_top + 5);
    let text = s.to_json();
    let head = format!("\"name\":\"{}\",\"revision\":{},", s.state.name, state_top + 5);
    assert!(text.contains(&head), "{text}");
    assert_eq!(Snapshot::parse(&text).unwrap(), s);
    let fleet = Fleet::load_text(&text).unwrap();
    assert_eq!(
        fleet.state_revision,
        state_top + 5,
        "the cut, not the highest entry"
    );
    assert_eq!(
        fleet.lease_revision, lease_top,
        "no revision recorded: the highest entry"
    );
    assert_eq!(Snapshot::parse(&text).unwrap().lease.revision, None);

    let cut = state_top - 1;
    s.state.revision = Some(cut);
    let late = s
        .state
        .entries
        .iter()
        .find(|e| e.revision > cut)
        .unwrap()
        .key
        .clone();
    let e = Snapshot::parse(&s.to_json()).unwrap_err();
    assert_eq!(e.code, "after_revision");
    assert_eq!(e.bucket.as_deref(), Some(s.state.name.as_str()));
    assert_eq!(e.key.as_deref(), Some(late.as_str()));
    assert!(
        e.message.contains(&format!(
            "revision {state_top} is above the bucket's revision {cut}"
        )),
        "{e}"
    );
}

#[test]
fn record_errors_name_bucket_and_key() {
    let cases = [
        ("split.s00001", r#"{"schema":2,"id":"s00001"}"#, "wrong_schema"),
        (
            "split.s00001",
            r#"{"schema":3,"id":"zzz","fp":1,"epoch":0,"status":"runnable","owner":null,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}"#,
            "id_mismatch",
        ),
        (
            "spec.s00001",
            r#"{"schema":3,"id":"s00001","fp":18446744073709551616,"generation":1,"weight":1,"descriptor":""}"#,
            "invalid_record",
        ),
        (
            "spec.s00001",
            r#"{"schema":3,"id":"s00001","fp":1,"generation":1,"weight":-5,"descriptor":""}"#,
            "invalid_record",
        ),
        (
            "plan",
            r#"{"schema":3,"fingerprint":"fp","generation":1,"finality":"open","planned":0,"planner_state":null,"updated_at_ms":0,"extra":true}"#,
            "invalid_record",
        ),
    ];
    for (key, value, code) in cases {
        let e = Fleet::load_text(&with_state_value(key, value)).unwrap_err();
        assert_eq!(e.code, code, "{key}: {e}");
        assert_eq!(e.key.as_deref(), Some(key));
        assert_eq!(e.bucket.as_deref(), Some("spate_coordination_j_state"));
        assert!(e.to_string().contains(key), "{e}");
    }
}

#[test]
fn survivable_problems_are_warnings_with_the_leaders_effect() {
    let mut s = snapshot_of(&base(), "fp");
    // unreadable presence: member at the default cap
    s.lease.entries.retain(|e| e.key != "worker.a");
    s.lease
        .entries
        .push(entry("worker.a", 50, "{\"schema\":3}garbage"));
    // foreign fp: left out
    s.state.entries.push(entry("split.x", 51, json!({"schema":3,"id":"x","fp":12345,"epoch":0,"status":"runnable","owner":null,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}).to_string()));
    // probe keys ignored, unknown keys warned
    s.state.entries.push(entry("_probe.a", 52, vec![0xffu8, 0]));
    s.lease.entries.push(entry("mystery", 53, "x"));
    let fleet = Fleet::from_snapshot(&Snapshot::parse(&s.to_json()).unwrap()).unwrap();
    let codes: Vec<&str> = fleet.warnings.iter().map(|w| w.code.as_str()).collect();
    assert!(
        codes.contains(&"unreadable_presence")
            && codes.contains(&"foreign_fp")
            && codes.contains(&"unknown_key"),
        "{codes:?}"
    );
    assert!(!codes.iter().any(|c| c.contains("probe")));
    assert!(!fleet.splits.contains_key("x"));
    assert!(fleet.members.contains_key("a") && fleet.members["a"].max_in_flight.is_none());
    let inputs = with_cap(&fleet, 1);
    assert!(
        !inputs.caps.contains_key("a"),
        "an unreadable presence gets the default cap"
    );
}

#[test]
fn without_a_plan_the_seed_comes_from_the_records() {
    let mut s = snapshot_of(&base(), "fp");
    s.state.entries.retain(|e| e.key != "plan");
    let fleet = Fleet::from_snapshot(&s).unwrap();
    assert_eq!(fleet.seed, stable_hash_str(0, "fp"));
    assert_eq!(fleet.seed_source, SeedSource::SplitRecords);
    assert!(fleet.warnings.iter().any(|w| w.code == "no_plan"));
}

#[test]
fn lease_time_left_counts_from_the_snapshot_time() {
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    // created 10 s before the snapshot, TTL 30 s
    assert!(fleet
        .info
        .keys()
        .all(|id| fleet.lease_left_ms(id) == Some(20_000)));
    assert_eq!(fleet.lease_ttl_ms, 30_000);
}

#[test]
fn departed_owners_reserve_their_splits() {
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    assert_eq!(fleet.departed_owners(), BTreeSet::from(["gone".to_string()]));
    let s = Scenario::parse(r#"{"format":"spate-planner-scenario/1","changes":[{"op":"remove_member","member":"gone","within_rebalance_delay":true}]}"#).unwrap();
    let inputs = s.apply(&fleet).unwrap().inputs;
    assert_eq!(inputs.reserved, BTreeSet::from(["s00002".to_string()]));
    let r = report(&inputs, &inputs.plan());
    assert_eq!(r.counts.reserved, 1);
    assert!(r.moves.iter().all(|m| m.split != "s00002"));
}

#[test]
fn every_scenario_change_applies() {
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    let s = Scenario::parse(
        r#"{"format":"spate-planner-scenario/1","default_cap":3,"changes":[
        {"op":"add_member","member":"c","cap":5},
        {"op":"set_cap","member":"b","cap":1},
        {"op":"remove_member","member":"a"},
        {"op":"set_default_cap","cap":6},
        {"op":"reserve","splits":["s00000","s00001"]},
        {"op":"release","splits":["s00001"]},
        {"op":"set_weight","split":"s00001","weight":18446744073709551615},
        {"op":"add_splits","count":3,"weight":7,"prefix":"new-","owner":"c"}]}"#,
    )
    .unwrap();
    let i = s.apply(&fleet).unwrap().inputs;
    assert_eq!(i.members, BTreeSet::from(["b".to_string(), "c".to_string()]));
    assert_eq!(
        i.caps,
        BTreeMap::from([("b".to_string(), 1), ("c".to_string(), 5)])
    );
    assert_eq!(i.default_cap, 6);
    assert_eq!(i.reserved, BTreeSet::from(["s00000".to_string()]));
    assert_eq!(i.splits["s00001"].spec.as_ref().unwrap().weight, u64::MAX);
    assert_eq!(i.splits["new-000002"].current_owner(), Some("c"));
    // round trip of the format
    assert_eq!(Scenario::parse(&s.to_json().unwrap()).unwrap(), s);
}

#[test]
fn scenario_errors_name_the_change() {
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    let cases = [
        (
            r#"{"op":"set_cap","member":"zz","cap":1}"#,
            "unknown_member",
            "changes[0].member",
        ),
        (
            r#"{"op":"remove_member","member":"zz"}"#,
            "unknown_member",
            "changes[0].member",
        ),
        (
            r#"{"op":"add_member","member":"a"}"#,
            "duplicate_member",
            "changes[0].member",
        ),
        (
            r#"{"op":"reserve","splits":["s00000","nope"]}"#,
            "unknown_split",
            "changes[0].splits[1]",
        ),
        (
            r#"{"op":"set_weight","split":"nope","weight":1}"#,
            "unknown_split",
            "changes[0].split",
        ),
        (
            r#"{"op":"add_splits","count":2,"weight":1,"prefix":"x"},{"op":"add_splits","count":1,"weight":1,"prefix":"x"}"#,
            "duplicate_split",
            "changes[1].prefix",
        ),
        (
            r#"{"op":"add_splits","count":100000000,"weight":1}"#,
            "too_many_splits",
            "changes[0].count",
        ),
        (
            r#"{"op":"add_splits","count":600000,"weight":1,"prefix":"a"},{"op":"add_splits","count":600000,"weight":1,"prefix":"b"}"#,
            "too_many_splits",
            "changes[1].count",
        ),
    ];
    for (change, code, path) in cases {
        let s = Scenario::parse(&format!(
            r#"{{"format":"spate-planner-scenario/1","changes":[{change}]}}"#
        ))
        .unwrap();
        let e = s.apply(&fleet).unwrap_err();
        assert_eq!((e.code.as_str(), e.path.as_str()), (code, path), "{change}: {e}");
    }
    for bad in [r#"{"format":"x","changes":[]}"#, r#"{"extra":1}"#, "[]"] {
        assert!(Scenario::parse(bad).is_err(), "{bad}");
    }
    // an op this planner does not know is read, and refused when applied, naming the change
    let e = Scenario::parse(r#"{"changes":[{"op":"fly"}]}"#)
        .unwrap()
        .apply(&fleet)
        .unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("unknown_op", "changes[0].op")
    );
}

#[test]
fn report_counts_and_reasons_add_up() {
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    let inputs = with_cap(&fleet, 8);
    let plan = inputs.plan();
    let r = report(&inputs, &plan);
    let assigned: u32 = plan.assignment.values().map(|v| v.len() as u32).sum();
    assert_eq!(r.counts.assigned, assigned);
    assert_eq!(r.counts.splits, 3);
    // s00002 belonged to "gone": it moves, for that reason
    let m = r.moves.iter().find(|m| m.split == "s00002").unwrap();
    assert_eq!((m.from.as_deref(), m.reason), (Some("gone"), Reason::OwnerGone));
    let gained: u32 = r.members.iter().map(|m| m.gained).sum();
    assert_eq!(gained as usize, r.moves.iter().filter(|m| m.to.is_some()).count());
    assert!(r.balance.max_over_bound >= 1.0);
}

#[test]
fn u64_fields_read_from_numbers_or_decimal_strings() {
    let s = Scenario::parse(
        r#"{"rebalance_delay_ms":"45000","changes":[{"op":"set_weight","split":"s00001","weight":"18446744073709551615"},{"op":"add_splits","count":"2","weight":7}]}"#,
    )
    .unwrap();
    assert_eq!(s.rebalance_delay_ms, Some(45_000));
    assert_eq!(s.rebalance_delay_ms(), 45_000);
    assert!(
        matches!(&s.changes[0], spate_planner_core::scenario::Change::SetWeight { weight, .. } if *weight == u64::MAX)
    );
    // the prefix defaults to `synthetic-`
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    let i = s.apply(&fleet).unwrap().inputs;
    assert!(i.splits.contains_key("synthetic-000000") && i.splits.contains_key("synthetic-000001"));
    assert_eq!(
        Scenario::default().rebalance_delay_ms(),
        20_000,
        "Spate's default"
    );
    for bad in [
        r#"{"rebalance_delay_ms":"-1"}"#,
        r#"{"rebalance_delay_ms":"1e3"}"#,
        // Rust parses a leading "+"; a decimal string here is digits only
        r#"{"rebalance_delay_ms":"+5"}"#,
        r#"{"rebalance_delay_ms":""}"#,
        r#"{"rebalance_delay_ms":"18446744073709551616"}"#,
        r#"{"rebalance_delay_ms":true}"#,
    ] {
        let e = Scenario::parse(bad).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_scenario", "{bad}");
        assert!(
            e.to_string().starts_with("scenario $: not a valid scenario:"),
            "{e}"
        );
        assert!(
            e.message.contains("decimal string"),
            "the expectation is named: {}",
            e.message
        );
    }
}

/// The bound is inclusive: a scenario may add exactly 1,000,000 splits (native only: a million
/// splits is slow in wasm32 test runners).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_scenario_may_add_exactly_the_most_splits() {
    let fleet = Fleet::from_snapshot(&snapshot_of(&base(), "fp")).unwrap();
    let s = Scenario::parse(
        r#"{"changes":[{"op":"add_splits","count":999999,"weight":1,"prefix":"a"},{"op":"add_splits","count":1,"weight":1,"prefix":"b"}]}"#,
    )
    .unwrap();
    let inputs = s.apply(&fleet).unwrap().inputs;
    assert_eq!(inputs.splits.len(), fleet.splits.len() + 1_000_000);
}
