//! The table of bad inputs (docs/bad-inputs.md): each row, the exact answer it gets.
//! Natively and under wasm32 (the dashboard runs this same loader).

use spate_planner_core::{
    demo_snapshot, snapshot::bucket_names, Bucket, DemoParams, Entry, Fleet, LeaderInputs, Scenario,
    Snapshot, SnapshotError, Source,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The leader's inputs as the store shows them (no what-if).
fn store_inputs(f: &Fleet) -> LeaderInputs {
    Scenario::default().apply(f).unwrap().inputs
}

fn demo_text() -> String {
    demo_snapshot(&DemoParams {
        splits: 30,
        members: 3,
        ..DemoParams::default()
    })
    .unwrap()
    .to_json()
}

fn err(text: &str) -> SnapshotError {
    Fleet::load_text(text).expect_err("this input must be refused")
}

/// A snapshot of job `j` with these state and lease entries (values as text).
fn snapshot(state: &[(&str, &str)], lease: &[(&str, &str)]) -> String {
    let (s, l) = bucket_names("j");
    let entries = |v: &[(&str, &str)]| {
        v.iter()
            .enumerate()
            .map(|(i, (k, val))| Entry {
                key: k.to_string(),
                revision: i as u64 + 1,
                created_ms: 0,
                value: val.as_bytes().to_vec(),
            })
            .collect()
    };
    Snapshot {
        job: "j".into(),
        source: Source::default(),
        taken_at_ms: 0,
        state: Bucket {
            name: s,
            history: 1,
            max_age_ms: 0,
            revision: None,
            entries: entries(state),
        },
        lease: Bucket {
            name: l,
            history: 1,
            max_age_ms: 30_000,
            revision: None,
            entries: entries(lease),
        },
    }
    .to_json()
}

const PLAN: &str = r#"{"schema":3,"fingerprint":"f","generation":1,"finality":"open","planned":1,"planner_state":null,"updated_at_ms":0}"#;

fn fp() -> u64 {
    spate_planner_core::stable_hash_str(0, "f")
}

fn progress(id: &str, owner: Option<&str>) -> String {
    let owner = owner.map(|o| format!("{o:?}")).unwrap_or("null".into());
    format!(
        r#"{{"schema":3,"id":"{id}","fp":{},"epoch":1,"status":"runnable","owner":{owner},"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}}"#,
        fp()
    )
}

fn spec(id: &str, weight: &str) -> String {
    format!(
        r#"{{"schema":3,"id":"{id}","fp":{},"generation":1,"weight":{weight},"descriptor":"AAAA"}}"#,
        fp()
    )
}

const WORKER: &str = r#"{"schema":3,"nonce":"n","max_in_flight":2}"#;

#[test]
fn not_json() {
    let e = err("this is not a snapshot");
    assert_eq!(e.code, "not_json");
    assert!(e.message.starts_with("not a JSON document"), "{}", e.message);
}

#[test]
fn another_format_or_version() {
    assert_eq!(
        err(r#"{"format":"spate-conformance/1","cases":[]}"#).code,
        "not_a_snapshot"
    );
    assert_eq!(
        err(&demo_text().replace("spate-planner-snapshot/1", "spate-planner-snapshot/2")).code,
        "unsupported_format"
    );
    assert_eq!(err(r#"{"cases":[]}"#).code, "not_a_snapshot");
}

#[test]
fn truncated_file() {
    let t = demo_text();
    for cut in [t.len() / 3, t.len() - 3] {
        assert_eq!(err(&t[..cut]).code, "truncated", "cut at {cut}");
    }
}

#[test]
fn empty_file() {
    assert_eq!(err("").code, "empty");
    assert_eq!(err("  \n").code, "empty");
}

#[test]
fn duplicate_keys() {
    let e = err(&snapshot(&[("plan", PLAN), ("plan", PLAN)], &[]));
    assert_eq!(
        (e.code.as_str(), e.key.as_deref()),
        ("duplicate_key", Some("plan"))
    );
}

#[test]
fn record_of_another_schema() {
    let e = err(&snapshot(
        &[("plan", &PLAN.replace("\"schema\":3", "\"schema\":4"))],
        &[],
    ));
    assert_eq!(
        (e.code.as_str(), e.key.as_deref(), e.bucket.as_deref()),
        ("wrong_schema", Some("plan"), Some("spate_coordination_j_state"))
    );
    assert!(e.message.contains("schema 4"), "{}", e.message);
}

#[test]
fn unknown_field() {
    let e = err(&snapshot(
        &[(
            "split.a",
            &progress("a", None).replace("\"attempts\"", "\"shiny\":1,\"attempts\""),
        )],
        &[],
    ));
    assert_eq!(
        (e.code.as_str(), e.key.as_deref()),
        ("invalid_record", Some("split.a"))
    );
    assert!(e.message.contains("unknown field `shiny`"), "{}", e.message);
    // and in the file itself
    assert_eq!(
        err(&demo_text().replacen("\"taken_at_ms\"", "\"extra\": 1,\n  \"taken_at_ms\"", 1)).code,
        "invalid_field"
    );
}

#[test]
fn id_that_does_not_match_its_key() {
    let e = err(&snapshot(&[("split.a", &progress("b", None))], &[]));
    assert_eq!(
        (e.code.as_str(), e.key.as_deref()),
        ("id_mismatch", Some("split.a"))
    );
}

#[test]
fn fp_of_another_job_is_left_out_with_a_warning() {
    let other = progress("a", None).replace(&fp().to_string(), "42");
    let f = Fleet::load_text(&snapshot(&[("plan", PLAN), ("split.a", &other)], &[])).unwrap();
    assert!(f.splits.is_empty());
    assert!(f
        .warnings
        .iter()
        .any(|w| w.code == "foreign_fp" && w.key == "split.a"));
}

#[test]
fn negative_fractional_and_too_large_integers() {
    for (bad, what) in [
        ("-1", "negative"),
        ("1.5", "fractional"),
        ("18446744073709551616", "too large"),
        ("1e3", "exponent"),
    ] {
        let e = err(&snapshot(&[("spec.a", &spec("a", bad))], &[]));
        assert_eq!(
            (e.code.as_str(), e.key.as_deref()),
            ("invalid_record", Some("spec.a")),
            "{what}"
        );
    }
    // exact at the top of the range
    let f = Fleet::load_text(&snapshot(
        &[
            ("plan", PLAN),
            ("split.a", &progress("a", None)),
            ("spec.a", &spec("a", "18446744073709551615")),
        ],
        &[],
    ))
    .unwrap();
    assert_eq!(f.splits["a"].spec.as_ref().unwrap().weight, u64::MAX);
    // in the file's own fields
    assert_eq!(
        err(&demo_text().replacen("\"revision\":1,", "\"revision\":-1,", 1)).code,
        "invalid_field"
    );
}

#[test]
fn invalid_base64() {
    // A record's payload: the leader never decodes it, so a warning naming the split, not a
    // refused snapshot; the split is still planned.
    let bad_spec = spec("a", "1").replace("AAAA", "not base64!");
    let f = Fleet::load_text(&snapshot(
        &[
            ("plan", PLAN),
            ("split.a", &progress("a", None)),
            ("spec.a", &bad_spec),
        ],
        &[("worker.x", WORKER)],
    ))
    .unwrap();
    let w: Vec<_> = f.warnings.iter().filter(|w| w.code == "bad_payload").collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].key, "spec.a");
    assert!(w[0].message.contains("descriptor"), "{}", w[0].message);
    assert_eq!(store_inputs(&f).plan().assignment["x"], vec!["a".to_string()]);
    // an entry's own base64 value
    let t = snapshot(&[], &[]).replace(
        "\"entries\": []",
        r#""entries": [{"key":"x","revision":1,"created_ms":0,"base64":"%%%"}]"#,
    );
    assert_eq!(err(&t).code, "invalid_value");
}

#[test]
fn invalid_utf8_in_keys() {
    let mut bytes = snapshot(&[("split.ab", &progress("ab", None))], &[]).into_bytes();
    let at = bytes.windows(8).position(|w| w == b"split.ab").unwrap();
    bytes[at + 6] = 0xff;
    let e = Snapshot::parse_bytes(&bytes).unwrap_err();
    assert_eq!(e.code, "not_json");
    assert!(e.message.contains("invalid UTF-8"), "{}", e.message);
    // a lone surrogate escape is not a string either
    let e = err(&snapshot(&[], &[]).replace(
        "\"entries\": []",
        r#""entries": [{"key":"\ud800","revision":1,"created_ms":0,"text":"x"}]"#,
    ));
    assert_eq!(e.code, "not_json");
    assert!(
        e.message.contains("surrogate") || e.message.contains("escape"),
        "{}",
        e.message
    );
}

#[test]
fn a_hundred_thousand_members() {
    let workers: Vec<(String, String)> = (0..100_000)
        .map(|i| (format!("worker.w{i:06}"), WORKER.to_string()))
        .collect();
    let lease: Vec<(&str, &str)> = workers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let splits: Vec<(String, String)> = (0..50)
        .flat_map(|i| {
            [
                (format!("split.s{i}"), progress(&format!("s{i}"), None)),
                (format!("spec.s{i}"), spec(&format!("s{i}"), "7")),
            ]
        })
        .collect();
    let mut state: Vec<(&str, &str)> = vec![("plan", PLAN)];
    state.extend(splits.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let f = Fleet::load_text(&snapshot(&state, &lease)).unwrap();
    assert_eq!(f.members.len(), 100_000);
    let plan = store_inputs(&f).plan();
    assert_eq!(plan.assignment.len(), 100_000);
    assert_eq!(plan.assignment.values().map(Vec::len).sum::<usize>(), 50);
}

#[test]
fn no_members_queues_everything() {
    let f = Fleet::load_text(&snapshot(
        &[
            ("plan", PLAN),
            ("split.a", &progress("a", Some("gone"))),
            ("spec.a", &spec("a", "5")),
        ],
        &[],
    ))
    .unwrap();
    let inputs = store_inputs(&f);
    let plan = inputs.plan();
    assert!(plan.assignment.is_empty());
    assert_eq!(plan.explain.queue, vec!["a".to_string()]);
}

#[test]
fn every_cap_zero_still_gives_one_lane() {
    let zero = r#"{"schema":3,"nonce":"n","max_in_flight":0}"#;
    let state = [
        ("plan", PLAN),
        ("split.a", &progress("a", None) as &str),
        ("spec.a", &spec("a", "5")),
        ("split.b", &progress("b", None)),
        ("spec.b", &spec("b", "5")),
    ];
    let f = Fleet::load_text(&snapshot(&state, &[("worker.x", zero)])).unwrap();
    let scenario = Scenario::parse(r#"{"default_cap":0}"#).unwrap();
    let plan = scenario.apply(&f).unwrap().inputs.plan();
    assert_eq!(plan.assignment["x"].len(), 1, "cap = max(1, 0)");
    assert_eq!(plan.explain.queue.len(), 1);
}

#[test]
fn weights_of_u64_max_saturate() {
    let max = "18446744073709551615";
    let state = [
        ("plan", PLAN),
        ("split.a", &progress("a", None) as &str),
        ("spec.a", &spec("a", max)),
        ("split.b", &progress("b", None)),
        ("spec.b", &spec("b", max)),
        ("split.c", &progress("c", None)),
        ("spec.c", &spec("c", "1")),
    ];
    let f = Fleet::load_text(&snapshot(&state, &[("worker.x", WORKER)])).unwrap();
    let inputs = store_inputs(&f);
    let plan = inputs.plan();
    assert_eq!(plan.explain.loads, vec![u64::MAX]);
    let r = spate_planner_core::report::report(&inputs, &plan);
    assert_eq!(r.balance.total, u64::MAX);
}

#[test]
fn a_lease_for_a_split_with_no_progress_record() {
    let lease = r#"{"schema":3,"owner":"x","nonce":"n","epoch":1}"#;
    let f = Fleet::load_text(&snapshot(
        &[("plan", PLAN)],
        &[("split.ghost", lease), ("worker.x", WORKER)],
    ))
    .unwrap();
    assert!(f
        .warnings
        .iter()
        .any(|w| w.code == "lease_without_progress" && w.key == "split.ghost"));
    assert!(f.splits.is_empty());
}

#[test]
fn a_scenario_naming_members_or_splits_that_do_not_exist() {
    let f = Fleet::load_text(&demo_text()).unwrap();
    let apply = |t: &str| Scenario::parse(t).and_then(|s| s.apply(&f)).unwrap_err();
    let e = apply(r#"{"changes":[{"op":"set_cap","member":"nobody","cap":3}]}"#);
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("unknown_member", "changes[0].member")
    );
    let e = apply(r#"{"changes":[{"op":"reserve","splits":["nope"]}]}"#);
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("unknown_split", "changes[0].splits[0]")
    );
}

/// A change the planner does not know is kept and written back as read. Decimal numbers in it
/// must come back as the same numbers: these are the kind whose nearest double a fast parser can
/// miss by one unit in the last place, so a scenario saved and opened again would differ.
#[test]
fn an_unknown_change_keeps_its_numbers_through_a_round_trip() {
    let numbers = [
        "2.2250738585072011e-308",
        "9007199254740993.0",
        "0.30000000000000004",
        "1.7976931348623157e308",
        "4.9406564584124654e-324",
        "8.98846567431158e307",
        "1448997445238699.0",
        "7.3177701707893310e15",
        "3.4602767733744003e-157",
        "1.0000000000000002",
        "123456789012345680000.0",
        "2.4703282292062328e-324",
    ];
    for n in numbers {
        let text = format!(
            r#"{{"format":"spate-planner-scenario/1","changes":[{{"op":"later_op","x":{n},"y":[{n},-{n}]}}]}}"#
        );
        let first = Scenario::parse(&text).expect("a scenario with an unknown change parses");
        let again = Scenario::parse(&first.to_json().expect("written"))
            .unwrap_or_else(|e| panic!("{n}: written back, does not parse: {e}"));
        assert_eq!(again, first, "{n} changed in a round trip");
    }
}
