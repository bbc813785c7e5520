//! The script format (docs/script-format.md): defaults, strict reading with field paths, checks
//! against the fleet, overrides, and the bounds that keep a run finite.

use crate::sim_support;

use sim_support::*;
use spate_planner_sim::{
    apply_override, simulate, Config, DataPlane, Dist, Op, Options, Script, Start, StartFrom, FORMAT,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn err(text: &str) -> (String, String) {
    let e = Script::parse(text).expect_err(text);
    (e.code.to_string(), e.path)
}

fn check_err(start: &Start, text: &str) -> (String, String) {
    let e = script(text).check(start).expect_err(text);
    (e.code.to_string(), e.path)
}

/// The example of the issue reads as written; every absent field takes Spate's default.
#[test]
fn the_documented_example_reads_and_defaults_are_spates() {
    let s = script(
        r#"{"format": "spate-planner-script/1", "seed": 7, "until_ms": 300000, "config": {"lease_duration_ms": 30000,
        "reconcile_interval_ms": 30000, "replan_interval_ms": 60000, "rebalance_delay_ms": 20000,
        "drain_deadline_ms": 10000, "max_attempts": 4, "detection_ms": 0},
        "events": [{"at_ms": 0, "op": "crash", "member": "worker-03"}]}"#,
    );
    assert_eq!((s.seed, s.until_ms), (7, 300_000));
    assert_eq!(s.events.len(), 1);
    assert_eq!(
        s.events[0].op,
        Op::Crash {
            member: "worker-03".into()
        }
    );
    let d = script("{}");
    assert_eq!(d.config.reconcile_interval_ms, 30_000);
    assert_eq!(d.config.replan_interval_ms, 60_000);
    assert_eq!(d.config.rebalance_delay_ms, 20_000);
    assert_eq!(d.config.drain_deadline_ms, 10_000);
    assert_eq!(d.config.max_in_flight, 8);
    assert_eq!(d.config.max_attempts, 4);
    assert_eq!(d.config.detection_ms, 0);
    assert_eq!(d.config.lease_ms(0), 30_000, "L defaults to 30 s");
    assert_eq!(d.config.lease_ms(45_000), 45_000, "or the snapshot's bucket TTL");
    assert_eq!(d.data_plane.drain_ms, Dist::Const(0));
    assert!(!d.data_plane.decline && d.data_plane.run_ms.is_none());
    assert_eq!(d.until_ms, 600_000);
    assert_eq!(FORMAT, "spate-planner-script/1");
    let _ = (Config::default(), DataPlane::default());
}

/// Unknown fields and ops, missing fields and wrong types are refused, naming the path.
#[test]
fn bad_fields_name_their_path() {
    let cases = [
        (r#"{"sed": 1}"#, "invalid_script", "sed"),
        (
            r#"{"format": "spate-planner-script/2"}"#,
            "unsupported_format",
            "format",
        ),
        (r#"{"config": {"lease": 1}}"#, "invalid_script", "config.lease"),
        (
            r#"{"config": {"max_attempts": -1}}"#,
            "invalid_script",
            "config.max_attempts",
        ),
        (
            r#"{"config": {"max_in_flight": 4294967296}}"#,
            "invalid_script",
            "config.max_in_flight",
        ),
        (
            r#"{"config": {"members": {"w": {"cap": 3}}}}"#,
            "invalid_script",
            "config.members.w.cap",
        ),
        (
            r#"{"data_plane": {"drain": 1}}"#,
            "invalid_script",
            "data_plane.drain",
        ),
        (
            r#"{"data_plane": {"drain_ms": {"min": 5, "max": 1}}}"#,
            "invalid_script",
            "data_plane.drain_ms",
        ),
        (
            r#"{"data_plane": {"drain_ms": {"min": 5}}}"#,
            "invalid_script",
            "data_plane.drain_ms.max",
        ),
        (
            r#"{"data_plane": {"decline": "yes"}}"#,
            "invalid_script",
            "data_plane.decline",
        ),
        (r#"{"until_ms": 1.5}"#, "invalid_script", "until_ms"),
        (r#"{"events": {}}"#, "invalid_script", "events"),
        (
            r#"{"events": [{"at_ms": 0, "op": "crash", "member": "a"}, {"at_ms": 1, "op": "stop", "member": "a"},
            {"at_ms": 2, "op": "crash", "membr": "a"}]}"#,
            "invalid_script",
            "events[2].membr",
        ),
        (
            r#"{"events": [{"at_ms": 2, "op": "crash"}]}"#,
            "invalid_script",
            "events[0].member",
        ),
        (
            r#"{"events": [{"op": "crash", "member": "a"}]}"#,
            "invalid_script",
            "events[0].at_ms",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "explode"}]}"#,
            "invalid_script",
            "events[0].op",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "crash_leader", "member": "a"}]}"#,
            "invalid_script",
            "events[0].member",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "set_cap", "member": "a"}]}"#,
            "invalid_script",
            "events[0].cap",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "add_splits", "count": 1}]}"#,
            "invalid_script",
            "events[0].weight",
        ),
        (r#"[1, 2]"#, "invalid_script", "$"),
        (r#"not json"#, "invalid_script", "$"),
    ];
    for (text, code, path) in cases {
        assert_eq!(err(text), (code.to_string(), path.to_string()), "{text}");
    }
}

/// Events are checked against the fleet as the events before them leave it; the configuration
/// as Spate validates it.
#[test]
fn checks_against_the_fleet_and_spates_validation() {
    let start = fleet_8();
    let cases = [
        (
            r#"{"events": [{"at_ms": 0, "op": "crash", "member": "worker-09"}]}"#,
            "unknown_member",
            "events[0].member",
        ),
        (
            r#"{"events": [{"at_ms": 5, "op": "start", "member": "worker-09"}, {"at_ms": 1, "op": "stop", "member": "worker-09"}]}"#,
            "unknown_member",
            "events[1].member",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "start", "member": "a.b"}]}"#,
            "invalid_script",
            "events[0].member",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "fail", "split": "nope"}]}"#,
            "unknown_split",
            "events[0].split",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "add_splits", "count": 2, "weight": 1, "prefix": "part-"}]}"#,
            "duplicate_split",
            "events[0].prefix",
        ),
        (
            r#"{"events": [{"at_ms": 0, "op": "add_splits", "count": 1000001, "weight": 1}]}"#,
            "too_many_splits",
            "events[0].count",
        ),
        (
            r#"{"config": {"replan_interval_ms": 29999}}"#,
            "invalid_config",
            "config.replan_interval_ms",
        ),
        (
            r#"{"config": {"drain_deadline_ms": 9999}}"#,
            "invalid_config",
            "config.drain_deadline_ms",
        ),
        (
            r#"{"config": {"reconcile_interval_ms": 0}}"#,
            "invalid_config",
            "config.reconcile_interval_ms",
        ),
        (
            r#"{"config": {"lease_duration_ms": 19999}}"#,
            "invalid_config",
            "config.lease_duration_ms",
        ),
        (
            r#"{"config": {"max_attempts": 0}}"#,
            "invalid_config",
            "config.max_attempts",
        ),
        (
            r#"{"config": {"members": {"worker-02": {"max_in_flight": 0}}}}"#,
            "invalid_config",
            "config.members.worker-02.max_in_flight",
        ),
    ];
    for (text, code, path) in cases {
        assert_eq!(
            check_err(&start, text),
            (code.to_string(), path.to_string()),
            "{text}"
        );
    }
    // A member started earlier may be stopped; a fail of a split landed earlier is fine.
    script(
        r#"{"events": [{"at_ms": 1, "op": "start", "member": "w9"}, {"at_ms": 2, "op": "stop", "member": "w9"},
        {"at_ms": 3, "op": "add_splits", "count": 1, "weight": 1, "prefix": "x-"},
        {"at_ms": 4, "op": "fail", "split": "x-000000"}]}"#,
    )
    .check(&start)
    .expect("valid");
}

/// `--config key=value`: top-level, configuration, data-plane and per-member fields.
#[test]
fn overrides_set_the_field_they_name() {
    let mut doc: serde_json::Value =
        serde_json::from_str(r#"{"config": {"rebalance_delay_ms": 5}}"#).unwrap();
    for (k, v) in [
        ("seed", "9"),
        ("until_ms", "1000"),
        ("rebalance_delay_ms", "0"),
        ("data_plane.drain_ms", r#"{"min": 1, "max": 2}"#),
        ("data_plane.decline", "true"),
        ("members.worker-02.max_in_flight", "3"),
    ] {
        apply_override(&mut doc, k, v).unwrap();
    }
    let s = Script::from_value(doc).unwrap();
    assert_eq!((s.seed, s.until_ms, s.config.rebalance_delay_ms), (9, 1000, 0));
    assert_eq!(s.data_plane.drain_ms, Dist::Uniform { min: 1, max: 2 });
    assert!(s.data_plane.decline);
    assert_eq!(s.config.members["worker-02"].max_in_flight, Some(3));
    let mut doc = serde_json::json!({});
    apply_override(&mut doc, "nonsense_field", "1").unwrap();
    assert_eq!(Script::from_value(doc).unwrap_err().path, "config.nonsense_field");
}

/// Extreme values do not panic: the run is bounded by the event budget instead.
#[test]
fn extremes_end_in_an_error_or_a_result_never_a_panic() {
    let start = fleet_8();
    let s = script(
        r#"{"until_ms": 4294967296, "config": {"reconcile_interval_ms": 1, "detection_ms": 31622400000,
        "lease_duration_ms": 31622400000, "replan_interval_ms": 31622400000, "drain_deadline_ms": 31622400000},
        "data_plane": {"drain_ms": 31622400000, "run_ms": {"min": 0, "max": 31622400000}},
        "events": [{"at_ms": 4294967296, "op": "crash_leader"}, {"at_ms": 0, "op": "add_splits", "count": 3, "weight": 18446744073709551615}]}"#,
    );
    let opts = Options {
        max_events: 200_000,
        ..Options::default()
    };
    let e = simulate(&start, &s, &opts).expect_err("a 1 ms reconcile over 49 days is over budget");
    assert_eq!(e.code, "too_many_events");
    let s = script(
        r#"{"until_ms": 100000, "data_plane": {"drain_ms": 31622400000, "commit_interval_ms": 31622400000},
        "events": [{"at_ms": 0, "op": "start", "member": "worker-05", "cap": 4294967295},
                   {"at_ms": 1, "op": "add_splits", "count": 2, "weight": 18446744073709551615, "prefix": "big-"}]}"#,
    );
    let o = simulate(&start, &s, &Options::default()).expect("runs");
    assert_eq!(o.figures.end_ms, 100_000);
}

/// `start`: the snapshot as it is (the default) or settled on its plan; anything else is refused
/// at its path; `--config start=planned` sets it.
#[test]
fn start_reads_snapshot_or_planned() {
    assert_eq!(script("{}").start, StartFrom::Snapshot);
    assert_eq!(script(r#"{"start": "snapshot"}"#).start, StartFrom::Snapshot);
    assert_eq!(script(r#"{"start": "planned"}"#).start, StartFrom::Planned);
    assert_eq!(
        err(r#"{"start": "settled"}"#),
        ("invalid_script".into(), "start".into())
    );
    assert_eq!(err(r#"{"start": 1}"#), ("invalid_script".into(), "start".into()));
    let mut doc = serde_json::json!({});
    apply_override(&mut doc, "start", "planned").unwrap();
    assert_eq!(Script::from_value(doc).unwrap().start, StartFrom::Planned);
}

/// `count` `start` events of new members, all at t = 0.
fn starts(count: usize) -> String {
    let events: Vec<String> = (0..count)
        .map(|i| format!(r#"{{"at_ms": 0, "op": "start", "member": "new-{i:05}"}}"#))
        .collect();
    format!(r#"{{"until_ms": 60000, "events": [{}]}}"#, events.join(","))
}

/// A script's text, its event count and an `add_splits` prefix are bounded, each a `too_large`
/// naming the field; a key twice in one object is refused as in a snapshot.
#[test]
fn a_script_past_its_size_events_or_prefix_is_refused() {
    let big = format!(r#"{{"seed": 1, "events": [], "x": "{}"}}"#, "a".repeat(4 << 20));
    assert_eq!(err(&big), ("too_large".into(), "$".into()));
    let many = starts(10_001);
    assert_eq!(err(&many), ("too_large".into(), "events".into()));
    assert!(Script::parse(&starts(10_000)).is_ok());
    let prefix = |n: usize| {
        format!(
            r#"{{"events": [{{"at_ms": 0, "op": "add_splits", "count": 1, "weight": 1, "prefix": "{}"}}]}}"#,
            "p".repeat(n)
        )
    };
    assert_eq!(err(&prefix(65)), ("too_large".into(), "events[0].prefix".into()));
    assert!(Script::parse(&prefix(64)).is_ok());
    assert_eq!(
        err(r#"{"seed": 1, "seed": 2}"#),
        ("invalid_script".into(), "$".into())
    );
    assert_eq!(Script::parse("\u{feff}{\"seed\": 3}").unwrap().seed, 3);
}

/// Starting many members costs a plan of the whole fleet per start, which the work budget
/// counts (it used to count only handled events and deliveries, about 110,000 for 500 starts
/// on a 2,000-split fleet, so 3,000 starts ran for minutes): a budget of 500,000 units stops
/// 500 starts, while 100 starts run to the end under the default budget.
#[test]
fn many_starts_are_stopped_by_the_work_budget() {
    let fleet = Start::steady(2000, 10, 8, 1);
    let small = Options {
        max_events: 500_000,
        ..Options::default()
    };
    let Err(e) = simulate(&fleet, &script(&starts(500)), &small) else {
        panic!("500 starts ran within a budget of 500,000 units");
    };
    assert_eq!(
        (e.code.to_string(), e.path.as_str()),
        ("too_many_events".into(), "until_ms")
    );
    let o = simulate(&fleet, &script(&starts(100)), &Options::default()).expect("runs");
    assert_eq!(o.figures.end_ms, 60_000);
}

/// Members started at one instant on a 2,000-split fleet end within the default work budget,
/// counted in units, not time: 1,000 or 3,000 of them are stopped with `too_many_events` at t = 0.
/// Each start plans the whole fleet (its improving moves scan the members) and rewrites the
/// records it changes; the budget counts those moves, each written record's splits and each
/// claim evaluation's assigned splits. Fails when they are not counted: 1,000 starts then ran
/// to the end, in 7 s, and 3,000 ran 12 s before being stopped.
#[test]
fn a_thousand_or_three_thousand_starts_are_stopped_by_the_default_budget() {
    let fleet = Start::steady(2000, 10, 8, 1);
    for n in [1000, 3000] {
        let Err(e) = simulate(&fleet, &script(&starts(n)), &Options::default()) else {
            panic!("{n} starts ran within the default budget");
        };
        assert_eq!(
            (e.code.to_string(), e.path.as_str()),
            ("too_many_events".into(), "until_ms")
        );
        assert!(e.message.contains("before 0 ms"), "{}", e.message);
    }
}

/// `rules`: "0.1" (or "0.2", the same rules) or "0.3", read strictly (`invalid_script` at `rules`
/// for anything else, a number included); absent, the rules the starting fleet names, which the
/// outcome reports with their source; `--config rules=0.3` sets it as text.
#[test]
fn the_rules_field_is_read_strictly_and_reported() {
    use spate_planner_core::{Rules, RulesSource};
    assert_eq!(script(r#"{"rules": "0.3"}"#).rules, Some(Rules::V0_3));
    assert_eq!(script(r#"{"rules": "0.2"}"#).rules, Some(Rules::V0_1));
    assert_eq!(script(r#"{"rules": "0.1"}"#).rules, Some(Rules::V0_1));
    assert_eq!(script("{}").rules, None);
    for bad in [
        r#"{"rules": "0.4"}"#,
        r#"{"rules": 0.3}"#,
        r#"{"rules": ""}"#,
        r#"{"rules": ["0.3"]}"#,
    ] {
        assert_eq!(err(bad), ("invalid_script".into(), "rules".into()), "{bad}");
    }
    let mut doc = serde_json::json!({});
    apply_override(&mut doc, "rules", "0.3").unwrap();
    assert_eq!(doc, serde_json::json!({"rules": "0.3"}));
    assert_eq!(Script::from_value(doc).unwrap().rules, Some(Rules::V0_3));
    let start = fleet_8();
    let o = run(&start, &script(r#"{"until_ms": 1000}"#));
    assert_eq!(
        (o.rules.rules, o.rules.source),
        (Rules::V0_1, RulesSource::NoElector)
    );
    let o = run(&start, &script(r#"{"rules": "0.3", "until_ms": 1000}"#));
    assert_eq!((o.rules.rules, o.rules.source), (Rules::V0_3, RulesSource::User));
    let doc = o.to_json();
    assert_eq!(
        (&doc["rules"], &doc["rules_source"]),
        (&serde_json::json!("0.3"), &serde_json::json!("user"))
    );
    assert_eq!(doc["rules_note"], "Spate 0.3 (set by the user)");
}
