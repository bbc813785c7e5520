//! The leader's whole view, read from the store (decision-core.md section 7): its own cap, the
//! owners it still withholds, what it does when it publishes nothing, and what it tolerates.
//! Each fixture states the store; each assertion states what the rule says the leader does.
//! Natively and under wasm32.

use crate::common;

use common::store::Store;
use spate_planner_core::{
    analyse,
    codes::WarningCode,
    fleet::{CapSource, CapUnknown},
    pipeline::NoPublish,
    review::{findings, Level},
    scenario::{DepartedState, Origin},
    Analysis, ErrorCode, Scenario,
};
use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn run(store: &Store, scenario: &str) -> Analysis {
    analyse(&store.fleet(), &Scenario::parse(scenario).unwrap()).unwrap()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// Two live workers with equal loads (no improving move is admitted); `w3` crashed holding two
/// splits of the same weight, and its assignment record lingers.
fn crashed_w3() -> Store {
    Store::new()
        .presence("w1", Some(12))
        .presence("w2", Some(2))
        .leader("w1")
        .split("a", 10, Some("w2"), 1, 0)
        .held("a", "w2")
        .split("b", 10, Some("w2"), 1, 0)
        .held("b", "w2")
        .split("c", 10, Some("w3"), 1, 0)
        .split("d", 10, Some("w3"), 1, 0)
        .split("e", 20, Some("w1"), 1, 0)
        .held("e", "w1")
        .assign("w1", 1, &["e"])
        .assign("w2", 1, &["a", "b"])
        .assign("w3", 1, &["c", "d"])
}

#[test]
fn the_default_cap_is_the_leaders_own_from_its_presence() {
    let a = run(&crashed_w3(), "");
    assert_eq!(a.applied.default_cap.value, 12);
    assert_eq!(a.applied.default_cap.source, CapSource::LeaderPresence);
    assert_eq!(a.applied.inputs.default_cap, 12);
    // a user's value wins, and says so
    let a = run(&crashed_w3(), r#"{"default_cap":3}"#);
    assert_eq!(
        (a.applied.default_cap.value, a.applied.default_cap.source),
        (3, CapSource::User)
    );
    let a = run(&crashed_w3(), r#"{"changes":[{"op":"set_default_cap","cap":5}]}"#);
    assert_eq!(
        (a.applied.inputs.default_cap, a.applied.default_cap.source),
        (5, CapSource::User)
    );
}

#[test]
fn without_the_leaders_cap_in_the_store_spates_default_is_used_saying_why() {
    let cases = [
        (Store::new().presence("w1", Some(12)), CapUnknown::NoLeaderRecord),
        (
            Store::new().presence("w1", Some(12)).leader("w9"),
            CapUnknown::LeaderNotPresent,
        ),
        (
            Store::new().lease_entry("worker.w1", "garbage").leader("w1"),
            CapUnknown::PresenceUnreadable,
        ),
        (Store::new().presence("w1", None).leader("w1"), CapUnknown::NoCap),
        (
            Store::new().presence("w1", Some(0)).leader("w1"),
            CapUnknown::NoCap,
        ),
    ];
    for (store, why) in cases {
        let a = run(&store, "");
        let cap = &a.applied.default_cap;
        assert_eq!(
            (cap.value, cap.source, cap.unknown),
            (8, CapSource::SpateDefault, Some(why))
        );
        let f = findings(&store.fleet(), &a);
        assert!(
            f.iter().any(|f| f.code == "default_cap_unknown"),
            "{why:?}: {f:?}"
        );
    }
}

#[test]
fn a_schema_2_presence_value_gives_its_cap() {
    let store = Store::new()
        .lease_entry("worker.w1", r#"{"schema":2,"nonce":"n","max_in_flight":4}"#)
        .leader("w1");
    let f = store.fleet();
    assert_eq!(f.members["w1"].max_in_flight, Some(4));
    assert_eq!(
        f.leader_cap().value,
        4,
        "the leader's own cap is read the same way"
    );
}

#[test]
fn a_recently_departed_owners_splits_are_withheld() {
    let store = crashed_w3();
    let a = run(&store, "");
    assert_eq!(a.applied.inputs.reserved, set(&["c", "d"]));
    assert_eq!(a.applied.departed.len(), 1);
    let d = &a.applied.departed[0];
    assert_eq!(
        (d.instance.as_str(), d.origin, d.state, d.withheld),
        ("w3", Origin::Store, DepartedState::Withheld, 2)
    );
    // c and d are handed to nobody; the others stay (20 against 20: no move is admitted)
    assert_eq!(a.assignment["w1"], vec!["e".to_string()]);
    assert_eq!(a.assignment["w2"], vec!["a".to_string(), "b".to_string()]);
    assert_eq!(a.report.counts.reserved, 2);
    let f = findings(&store.fleet(), &a);
    let note = f
        .iter()
        .find(|f| f.code == "departed_withheld")
        .expect("a finding per departed instance");
    assert!(
        note.message.contains("\"w3\"") && note.message.contains("2 split(s) withheld"),
        "{}",
        note.message
    );
}

#[test]
fn an_owner_with_neither_presence_nor_record_is_not_withheld() {
    let store = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("c", 30, Some("w3"), 1, 0)
        .assign("w1", 1, &[]);
    let a = run(&store, "");
    assert!(a.applied.inputs.reserved.is_empty());
    assert!(a.applied.departed.is_empty());
    assert_eq!(a.assignment["w1"], vec!["c".to_string()]);
}

#[test]
fn a_leader_with_no_rebalance_delay_withholds_nothing() {
    let a = run(&crashed_w3(), r#"{"rebalance_delay_ms":0}"#);
    assert!(a.applied.inputs.reserved.is_empty());
    assert_eq!(a.applied.departed[0].state, DepartedState::NoDelay);
    // the string form of a u64 reads the same
    let b = run(&crashed_w3(), r#"{"rebalance_delay_ms":"0"}"#);
    assert_eq!(a.assignment, b.assignment);
    assert_eq!(a.assignment.values().map(Vec::len).sum::<usize>(), 5);
}

#[test]
fn releasing_a_departed_instance_hands_its_splits_out() {
    let a = run(
        &crashed_w3(),
        r#"{"changes":[{"op":"release_departed","member":"w3"}]}"#,
    );
    assert!(a.applied.inputs.reserved.is_empty());
    assert_eq!(a.applied.departed[0].state, DepartedState::Released);
    let placed: BTreeSet<String> = a.assignment.values().flatten().cloned().collect();
    assert!(placed.contains("c") && placed.contains("d"));
    let store = crashed_w3();
    let e = analyse(
        &store.fleet(),
        &Scenario::parse(r#"{"changes":[{"op":"release_departed","member":"w1"}]}"#).unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::NotDeparted, "changes[0].member")
    );
}

#[test]
fn an_instance_added_back_cancels_its_window_and_gets_its_splits_back() {
    let a = run(
        &crashed_w3(),
        r#"{"changes":[{"op":"add_member","member":"w3","cap":4}]}"#,
    );
    assert!(a.applied.inputs.reserved.is_empty());
    assert_eq!(a.applied.departed[0].state, DepartedState::Returned);
    // sticky: progress.owner names w3 again, a member with free lanes
    assert_eq!(a.assignment["w3"], vec!["c".to_string(), "d".to_string()]);
}

#[test]
fn a_crash_what_if_withholds_and_a_graceful_one_releases() {
    let store = crashed_w3();
    let crash = run(
        &store,
        r#"{"changes":[{"op":"remove_member","member":"w2","departure":"crash"}]}"#,
    );
    assert_eq!(crash.applied.inputs.reserved, set(&["a", "b", "c", "d"]));
    assert_eq!(crash.assignment["w1"], vec!["e".to_string()]);

    let graceful = run(
        &store,
        r#"{"changes":[{"op":"remove_member","member":"w2","departure":"graceful"}]}"#,
    );
    assert_eq!(
        graceful.applied.inputs.reserved,
        set(&["c", "d"]),
        "released splits are never withheld"
    );
    let a = &graceful.applied.inputs.splits["a"];
    assert_eq!(
        (a.progress.owner.as_deref(), a.lease.is_none(), a.progress.epoch),
        (None, true, 1)
    );
    assert_eq!(
        graceful.assignment["w1"],
        vec!["a".to_string(), "b".to_string(), "e".to_string()]
    );

    let after = run(
        &store,
        r#"{"changes":[{"op":"remove_member","member":"w2","departure":"crash_after_delay"}]}"#,
    );
    assert_eq!(after.applied.inputs.reserved, set(&["c", "d"]));
    assert_eq!(
        after.assignment["w1"],
        vec!["a".to_string(), "b".to_string(), "e".to_string()]
    );
}

#[test]
fn old_scenarios_keep_their_meaning() {
    let store = crashed_w3();
    let within = run(
        &store,
        r#"{"changes":[{"op":"remove_member","member":"w2","within_rebalance_delay":true}]}"#,
    );
    assert_eq!(within.applied.inputs.reserved, set(&["a", "b", "c", "d"]));
    let plain = run(&store, r#"{"changes":[{"op":"remove_member","member":"w2"}]}"#);
    assert_eq!(plain.applied.inputs.reserved, set(&["c", "d"]));
    let both = Scenario::parse(r#"{"changes":[{"op":"remove_member","member":"w2","departure":"crash","within_rebalance_delay":true}]}"#)
        .unwrap();
    let e = analyse(&store.fleet(), &both).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::InvalidScenario, "changes[0].within_rebalance_delay")
    );
}

#[test]
fn with_no_plan_record_the_current_assignments_stand() {
    let store = crashed_w3().without_plan();
    let a = run(&store, "");
    assert_eq!(a.no_publish, Some(NoPublish::NoPlan));
    assert_eq!(a.assignment["w2"], vec!["a".to_string(), "b".to_string()]);
    assert_eq!(a.assignment["w3"], vec!["c".to_string(), "d".to_string()]);
    assert!(a.report.moves.is_empty() && a.report.queue.is_empty());
    let w2 = a.report.members.iter().find(|m| m.name == "w2").unwrap();
    assert_eq!((w2.load_planned, w2.lanes), (20, 2));
    assert_eq!(a.published.as_ref().map(|p| p.changes), Some(0));
}

#[test]
fn with_no_members_the_current_assignments_stand() {
    let store = Store::new()
        .split("a", 1, Some("w9"), 1, 0)
        .assign("w9", 1, &["a"]);
    let a = run(&store, r#"{"changes":[{"op":"release_departed","member":"w9"}]}"#);
    assert_eq!(a.no_publish, Some(NoPublish::NoMembers));
    assert_eq!(a.assignment["w9"], vec!["a".to_string()]);
    assert_eq!(a.report.counts.queued, 0);
    // a what-if member makes the leader publish again
    let a = run(&store, r#"{"changes":[{"op":"add_member","member":"n1"}]}"#);
    assert_eq!(a.no_publish, None);
}

#[test]
fn an_unreadable_assignment_is_ignored_with_a_warning() {
    let store = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .state("assign.w1", "{not json")
        .state("assign.w7", r#"{"schema":3,"generation":1}"#);
    let f = store.fleet();
    let codes: Vec<(WarningCode, &str)> = f.warnings.iter().map(|w| (w.code, w.key.as_str())).collect();
    assert!(
        codes.contains(&(WarningCode::UnreadableAssignment, "assign.w1")),
        "{codes:?}"
    );
    assert!(
        codes.contains(&(WarningCode::UnreadableAssignment, "assign.w7")),
        "{codes:?}"
    );
    assert!(f.published.is_empty());
    assert!(
        f.recent_departures().is_empty(),
        "an unreadable record says nothing of a departure"
    );
}

#[test]
fn presence_lease_leader_and_assignment_values_of_another_schema_are_read() {
    let store = Store::new()
        .lease_entry("worker.w1", r#"{"schema":7,"nonce":"n-w1","max_in_flight":3}"#)
        .lease_entry(
            "leader",
            r#"{"schema":7,"owner":"w1","nonce":"x","generation":1}"#,
        )
        .split("a", 1, Some("w1"), 1, 0)
        .lease_entry("split.a", r#"{"schema":7,"owner":"w1","nonce":"n-w1","epoch":1}"#)
        .state("assign.w1", r#"{"schema":7,"generation":1,"splits":["a"]}"#);
    let f = store.fleet();
    assert_eq!(f.leader_cap().value, 3);
    assert_eq!(
        f.splits["a"].lease.as_ref().map(|l| l.value.owner.as_str()),
        Some("w1")
    );
    assert_eq!(f.published["w1"].splits, vec!["a".to_string()]);
    // plan, spec and progress records of another schema are refused, naming the key
    let bad = Store::new().state("split.z", r#"{"schema":2,"id":"z"}"#);
    let e = spate_planner_core::Fleet::load_text(&bad.snapshot().to_json()).unwrap_err();
    assert_eq!(
        (e.code, e.key.as_deref()),
        (ErrorCode::WrongSchema, Some("split.z"))
    );
}

#[test]
fn a_record_of_another_job_is_the_headline_and_the_plan_is_without_it() {
    let store = crashed_w3().state(
        "split.x",
        r#"{"schema":3,"id":"x","fp":12345,"epoch":0,"status":"runnable","owner":null,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}"#,
    );
    let fleet = store.fleet();
    assert_eq!(fleet.foreign, vec!["split.x".to_string()]);
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let f = findings(&fleet, &a);
    assert_eq!(
        (f[0].level, f[0].code.as_str()),
        (Level::Fatal, "foreign_records")
    );
    assert!(
        f[0].message.contains("if those records were removed"),
        "{}",
        f[0].message
    );
    assert!(!a.assignment.values().flatten().any(|id| id == "x"));
}

#[test]
fn the_published_distance_honours_generations_and_conflicts() {
    let fleet = Store::new()
        .generation(2)
        .presence("w1", Some(4))
        .presence("w2", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .held("a", "w1")
        .assign("w1", 2, &["a"])
        .assign("w2", 1, &["a"])
        .fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let p = a.published.as_ref().unwrap();
    assert_eq!(p.stale, vec!["w2".to_string()]);
    assert_eq!(p.conflicts["a"], vec!["w1".to_string(), "w2".to_string()]);
    assert_eq!(p.changes, 1);
    let f = findings(&fleet, &a);
    assert!(f.iter().any(|f| f.code == "stale_assignments"));
    assert!(f.iter().any(|f| f.code == "conflicting_assignments"));
}

/// A progress record of job `fp` (no owner, runnable).
fn progress_of(id: &str, fp: u64) -> String {
    format!(
        r#"{{"schema":3,"id":"{id}","fp":{fp},"epoch":0,"status":"runnable","owner":null,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}}"#
    )
}

/// A spec record of job `fp`, weight 1.
fn spec_of(id: &str, fp: u64) -> String {
    format!(r#"{{"schema":3,"id":"{id}","fp":{fp},"generation":1,"weight":1,"descriptor":""}}"#)
}

#[test]
fn without_a_plan_record_the_seed_is_the_fp_most_split_records_carry() {
    // two records carry 200, one carries 100: the job is 200's, even though 100 is smaller
    let fleet = Store::new()
        .without_plan()
        .state("split.a", progress_of("a", 200))
        .state("split.b", progress_of("b", 200))
        .state("split.c", progress_of("c", 100))
        .fleet();
    assert_eq!(fleet.seed, 200);
    assert_eq!(fleet.foreign, vec!["split.c".to_string()]);
    assert_eq!(fleet.splits.keys().collect::<Vec<_>>(), ["a", "b"]);
}

#[test]
fn a_spec_of_another_job_is_left_out_and_named() {
    let f = common::store::fp();
    let fleet = Store::new()
        .state("split.x", progress_of("x", f))
        .state("spec.x", spec_of("x", 12345))
        .state("spec.orphan-foreign", spec_of("orphan-foreign", 12345))
        .state("spec.orphan-own", spec_of("orphan-own", f))
        .fleet();
    assert_eq!(
        fleet.foreign,
        ["spec.x", "spec.orphan-foreign"].map(String::from).to_vec()
    );
    // the split of this job is kept, without the foreign spec
    assert!(fleet.splits["x"].spec.is_none());
    let codes: Vec<(WarningCode, &str)> = fleet
        .warnings
        .iter()
        .filter(|w| w.key.starts_with("spec."))
        .map(|w| (w.code, w.key.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            (WarningCode::ForeignFp, "spec.x"),
            (WarningCode::ForeignFp, "spec.orphan-foreign"),
            (WarningCode::SpecWithoutProgress, "spec.orphan-own"),
        ]
    );
}

#[test]
fn the_default_caps_explanation_names_its_value_and_source() {
    let explain = |store: &Store, scenario: &str| run(store, scenario).applied.default_cap.explain();
    assert_eq!(
        explain(&crashed_w3(), ""),
        r#"12 (the leader "w1"'s own max_in_flight, from its presence)"#
    );
    assert_eq!(
        explain(&crashed_w3(), r#"{"default_cap":3}"#),
        "3 (set by the user)"
    );
    let absent = Store::new().presence("w1", Some(12)).leader("w9");
    assert_eq!(
        explain(&absent, ""),
        r#"8 (Spate's default: the leader "w9" has no presence key; set --default-cap if the leader runs with another max_in_flight)"#
    );
}

#[test]
fn probe_keys_are_ignored_silently_and_unknown_keys_with_a_warning() {
    let fleet = crashed_w3()
        .state("_probe.1764547200", "x")
        .state("mystery", "x")
        .fleet();
    let about = |key: &str| -> Vec<WarningCode> {
        fleet
            .warnings
            .iter()
            .filter(|w| w.key == key)
            .map(|w| w.code)
            .collect()
    };
    assert_eq!(about("_probe.1764547200"), Vec::<WarningCode>::new());
    assert_eq!(about("mystery"), [WarningCode::UnknownKey]);
}

#[test]
fn a_graceful_stop_releases_only_what_that_instance_holds() {
    // w4's presence is unreadable: a member whose nonce is unknown
    let store = crashed_w3().lease_entry("worker.w4", "garbage");
    let a = run(
        &store,
        r#"{"changes":[{"op":"remove_member","member":"w4","departure":"graceful"}]}"#,
    );
    for (id, owner) in [("a", "w2"), ("b", "w2"), ("e", "w1")] {
        let s = &a.applied.inputs.splits[id];
        assert_eq!(s.progress.owner.as_deref(), Some(owner), "{id} keeps its owner");
        assert_eq!(
            s.lease.as_ref().map(|l| l.value.owner.as_str()),
            Some(owner),
            "{id} keeps its lease"
        );
    }
}

#[test]
fn a_departed_instance_is_released_once() {
    let e = analyse(
        &crashed_w3().fleet(),
        &Scenario::parse(
            r#"{"changes":[{"op":"release_departed","member":"w3"},{"op":"release_departed","member":"w3"}]}"#,
        )
        .unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (ErrorCode::NotDeparted, "changes[1].member")
    );
}

/// The findings about one departed instance: (code, message).
fn departure_notes(store: &Store, scenario: &str, who: &str) -> Vec<(String, String)> {
    let a = run(store, scenario);
    findings(&store.fleet(), &a)
        .into_iter()
        .filter(|f| f.code.as_str().starts_with("departed_") && f.message.contains(&format!("{who:?}")))
        .map(|f| (f.code.as_str().to_string(), f.message))
        .collect()
}

/// timing.md 3.2 and 5.3, decision-core.md 7: a crash writes nothing, so every split it held
/// still names it as owner and is withheld for the rebalance delay; a graceful stop clears the
/// owner of each split it holds before its presence goes, so its lingering `assign.{X}` record
/// withholds nothing. Splits that are completed or quarantined are not withheld from anything.
#[test]
fn a_graceful_stop_withholds_nothing_and_a_crash_withholds_its_splits() {
    // the store after a crash of w3 (its two leases not yet expired, a completed and a
    // quarantined split in its name) and after a graceful stop of w4 (owners cleared, leases gone)
    let store = crashed_w3()
        .held("c", "w3")
        .progress("f", "completed", Some("w3"), 1, 0)
        .progress("g", "quarantined", Some("w3"), 2, 4)
        .split("h", 10, None, 1, 0)
        .split("i", 10, None, 1, 0)
        .assign("w4", 1, &["h", "i"]);
    let a = run(&store, "");
    let by: Vec<_> = a
        .applied
        .departed
        .iter()
        .map(|d| (d.instance.as_str(), d.departure, d.withheld, d.released))
        .collect();
    assert_eq!(by, [("w3", None, 2, 0), ("w4", None, 0, 0)]);
    let crash = departure_notes(&store, "", "w3");
    assert_eq!(crash.len(), 1, "{crash:?}");
    assert_eq!(crash[0].0, "departed_withheld");
    assert!(crash[0].1.contains("2 split(s) withheld"), "{}", crash[0].1);
    let graceful = departure_notes(&store, "", "w4");
    assert_eq!(graceful.len(), 1, "{graceful:?}");
    assert_eq!(graceful[0].0, "departed_released");
    assert!(graceful[0].1.contains("Nothing is withheld"), "{}", graceful[0].1);
    assert!(!graceful[0].1.contains("split(s) withheld"), "{}", graceful[0].1);
    // h and i are placed, not reserved
    assert!(!a.applied.inputs.reserved.contains("h") && !a.applied.inputs.reserved.contains("i"));
}

/// The same two departures as what-if changes: w2 holds a and b (leased) and owns j, whose lease
/// it no longer holds. A graceful stop releases a and b and nothing of them is withheld (only j,
/// which it did not hold, still names it); a crash withholds all three.
#[test]
fn a_graceful_what_if_releases_what_it_held_and_a_crash_what_if_withholds_it() {
    let store = crashed_w3().split("j", 10, Some("w2"), 1, 0);
    let remove =
        |how: &str| format!(r#"{{"changes":[{{"op":"remove_member","member":"w2","departure":"{how}"}}]}}"#);
    let of = |sc: &str| {
        let a = run(&store, sc);
        let d = a
            .applied
            .departed
            .iter()
            .find(|d| d.instance == "w2")
            .cloned()
            .unwrap();
        (d.departure.map(|d| format!("{d:?}")), d.withheld, d.released)
    };
    assert_eq!(of(&remove("graceful")), (Some("Graceful".into()), 1, 2));
    assert_eq!(of(&remove("crash")), (Some("Crash".into()), 3, 0));
    let g = departure_notes(&store, &remove("graceful"), "w2");
    assert_eq!(g.len(), 1, "{g:?}");
    assert_eq!(g[0].0, "departed_withheld");
    assert!(
        g[0].1.contains("stopped gracefully") && g[0].1.contains("released the 2 split(s)"),
        "{}",
        g[0].1
    );
    assert!(
        g[0].1
            .contains("1 split(s) still in its name that it no longer held"),
        "{}",
        g[0].1
    );
    let c = departure_notes(&store, &remove("crash"), "w2");
    assert_eq!(c[0].0, "departed_withheld");
    assert!(
        c[0].1.contains("crashed") && c[0].1.contains("3 split(s) withheld"),
        "{}",
        c[0].1
    );
    assert!(!c[0].1.contains("released"), "{}", c[0].1);
    // without j, the graceful stop withholds nothing at all
    let bare = crashed_w3();
    let a = run(&bare, &remove("graceful"));
    let n = departure_notes(&bare, &remove("graceful"), "w2");
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].0, "departed_released");
    assert!(
        n[0].1.contains("released the 2 split(s)") && n[0].1.contains("Nothing is withheld"),
        "{}",
        n[0].1
    );
    assert!(!a.applied.inputs.reserved.contains("a") && !a.applied.inputs.reserved.contains("b"));
}
