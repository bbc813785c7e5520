//! Every input bounded, each limit a coded error naming the field (docs/bad-inputs.md,
//! "Bounds"); scenarios read as strictly as snapshots; integers past u64 said to be so; record
//! errors naming their bucket and key once.

use spate_planner_core::{
    demo_snapshot,
    scenario::{MAX_CHANGES, MAX_NAME_BYTES, MAX_PREFIX_BYTES, MAX_SCENARIO_BYTES},
    DemoParams, Fleet, Scenario, ScenarioError,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn refused(text: &str) -> ScenarioError {
    Scenario::parse(text).expect_err(&text[..text.len().min(120)])
}

fn changes(items: &[String]) -> String {
    format!(r#"{{"changes":[{}]}}"#, items.join(","))
}

#[test]
fn a_scenario_past_its_size_or_change_count_is_refused_before_it_is_read() {
    let big = format!(r#"{{"changes":[],"x":"{}"}}"#, "a".repeat(MAX_SCENARIO_BYTES));
    let e = refused(&big);
    assert_eq!((e.code.as_str(), e.path.as_str()), ("too_large", "$"));
    assert!(e.message.contains("at most 4194304 bytes"), "{}", e.message);
    let one = r#"{"op":"set_default_cap","cap":1}"#.to_string();
    let e = refused(&changes(&vec![one.clone(); MAX_CHANGES + 1]));
    assert_eq!((e.code.as_str(), e.path.as_str()), ("too_large", "changes"));
    assert_eq!(
        Scenario::parse(&changes(&vec![one; MAX_CHANGES]))
            .unwrap()
            .changes
            .len(),
        MAX_CHANGES
    );
}

/// The 5 KB permalink that took a tab to 4 GB: a million splits, each id repeating a long
/// prefix. The prefix (and every name a scenario introduces) is bounded, by field.
#[test]
fn names_and_prefixes_a_scenario_introduces_are_bounded() {
    let long = |n: usize| "p".repeat(n);
    let add =
        |prefix: &str| format!(r#"{{"op":"add_splits","count":1000000,"weight":1,"prefix":"{prefix}"}}"#);
    let e = refused(&changes(&[add("ok-"), add(&long(MAX_PREFIX_BYTES + 1))]));
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("too_large", "changes[1].prefix")
    );
    assert!(e.message.contains("65 bytes; at most 64"), "{}", e.message);
    assert!(Scenario::parse(&changes(&[add(&long(MAX_PREFIX_BYTES))])).is_ok());
    let member = format!(r#"{{"op":"add_member","member":"{}"}}"#, long(MAX_NAME_BYTES + 1));
    let e = refused(&changes(&[member]));
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("too_large", "changes[0].member")
    );
    let owner = format!(
        r#"{{"op":"add_splits","count":1,"weight":1,"owner":"{}"}}"#,
        long(MAX_NAME_BYTES + 1)
    );
    let e = refused(&changes(&[owner]));
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("too_large", "changes[0].owner")
    );
}

#[test]
fn scenarios_refuse_duplicate_keys_and_skip_a_bom_as_snapshots_do() {
    let e = refused(r#"{"default_cap":1,"default_cap":2}"#);
    assert_eq!(e.code.as_str(), "invalid_scenario");
    assert!(
        e.message.contains("\"default_cap\" appears twice"),
        "{}",
        e.message
    );
    let e = refused(r#"{"changes":[{"op":"add_member","member":"a","member":"b"}]}"#);
    assert!(e.message.contains("\"member\" appears twice"), "{}", e.message);
    let s = Scenario::parse("\u{feff}{\"default_cap\":3}").unwrap();
    assert_eq!(s.default_cap, Some(3));
    assert!(refused("[]").message.contains("expected a JSON object"));
}

#[test]
fn an_empty_scenario_file_is_not_a_scenario_but_empty_api_text_is_no_changes() {
    for empty in ["", "  \n", "\u{feff}"] {
        let e = Scenario::parse_file(empty).unwrap_err();
        assert_eq!((e.code.as_str(), e.path.as_str()), ("empty", "$"), "{empty:?}");
        assert_eq!(Scenario::parse(empty).unwrap(), Scenario::default(), "{empty:?}");
    }
    assert_eq!(Scenario::parse_file("{}").unwrap(), Scenario::default());
}

#[test]
fn two_to_the_64_is_larger_than_the_largest_u64_wherever_a_u64_is_read() {
    let fleet = Fleet::from_snapshot(
        &demo_snapshot(&DemoParams {
            splits: 3,
            members: 2,
            ..DemoParams::default()
        })
        .unwrap(),
    )
    .unwrap();
    // a change's field: that change is refused (the others apply), in the same words
    let change_refused = |text: &str| {
        let s = Scenario::parse(text).unwrap();
        let a = spate_planner_core::analyse_partly(&fleet, &s);
        assert_eq!(a.refused.len(), 1, "{text}");
        a.refused[0].error()
    };
    for weight in ["18446744073709551616", "\"18446744073709551616\"", "1e30"] {
        let text = changes(&[format!(r#"{{"op":"set_weight","split":"a","weight":{weight}}}"#)]);
        let e = change_refused(&text);
        assert_eq!(e.code.as_str(), "invalid_change", "{weight}");
        assert!(
            e.message
                .contains("larger than the largest u64 (18446744073709551615)"),
            "{weight}: {}",
            e.message
        );
        assert!(!e.message.contains("floating point"), "{weight}: {}", e.message);
    }
    let e = change_refused(&changes(&[
        r#"{"op":"set_weight","split":"a","weight":1.5}"#.into()
    ]));
    assert!(e.message.contains("not an integer"), "{}", e.message);
    // a setting: the whole scenario is refused, in the same words
    let e = refused(r#"{"rebalance_delay_ms":18446744073709551616}"#);
    assert_eq!(e.code.as_str(), "invalid_scenario");
    assert!(
        e.message
            .contains("larger than the largest u64 (18446744073709551615)"),
        "{}",
        e.message
    );
    // In a record of the store: the same words, and the bucket and key once.
    let snap = demo_snapshot(&DemoParams {
        splits: 3,
        members: 2,
        ..DemoParams::default()
    })
    .unwrap();
    let text = snap
        .to_json()
        .replacen("\"weight\":", "\"weight\":18446744073709551616,\"w\":", 1);
    let e = Fleet::load_text(&text).unwrap_err();
    let shown = e.to_string();
    assert_eq!(e.code.as_str(), "invalid_record");
    assert!(
        shown.contains("larger than the largest u64 (18446744073709551615)"),
        "{shown}"
    );
    assert!(!shown.contains("floating point"), "{shown}");
    assert_eq!(shown.matches("bucket ").count(), 1, "the prefix once: {shown}");
    assert_eq!(shown.matches("key ").count(), 1, "the prefix once: {shown}");
}

#[test]
fn many_graceful_removals_cost_only_the_splits_each_member_leases() {
    let snap = demo_snapshot(&DemoParams {
        splits: 20_000,
        members: 200,
        ..DemoParams::default()
    })
    .unwrap();
    let fleet = Fleet::from_snapshot(&snap).unwrap();
    let members: Vec<&String> = fleet.members.keys().collect();
    let items: Vec<String> = members
        .iter()
        .map(|m| format!(r#"{{"op":"remove_member","member":"{m}","departure":"graceful"}}"#))
        .collect();
    let applied = Scenario::parse(&changes(&items)).unwrap().apply(&fleet).unwrap();
    // Every lease of a removed member (under its own nonce) is released, as one pass would.
    for (id, s) in applied.inputs.splits.iter() {
        let before = &fleet.splits[id];
        let held_by_removed = before.lease.as_ref().is_some_and(|l| {
            fleet
                .members
                .get(&l.value.owner)
                .is_some_and(|m| m.nonce.as_deref().is_none_or(|n| n == l.value.nonce))
        });
        assert_eq!(
            s.lease.is_none(),
            held_by_removed || before.lease.is_none(),
            "{id}"
        );
    }
    assert!(applied.inputs.members.is_empty());
}

#[test]
fn a_number_too_large_names_its_field_and_the_integer_type_read() {
    use spate_planner_core::records::{parse_record, SplitProgressRecord, SplitSpecRecord};
    let spec = |weight: &str| {
        format!(r#"{{"schema":3,"id":"a","fp":1,"generation":1,"weight":{weight},"descriptor":"d"}}"#)
    };
    let progress = |written: &str, attempts: &str| {
        format!(
            r#"{{"schema":3,"id":"a","fp":1,"epoch":0,"status":"runnable","owner":null,"attempts":{attempts},"watermark":null,"state":null,"completed":false,"written_at_ms":{written}}}"#
        )
    };
    let said = |r: Result<(), String>| r.unwrap_err();
    let spec_error = |text: String| {
        said(
            parse_record::<SplitSpecRecord>("b", "spec.a", text.as_bytes())
                .map(|_| ())
                .map_err(|e| e.to_string()),
        )
    };
    let progress_error = |text: String| {
        said(
            parse_record::<SplitProgressRecord>("b", "split.a", text.as_bytes())
                .map(|_| ())
                .map_err(|e| e.to_string()),
        )
    };
    let e = spec_error(spec("18446744073709551616"));
    assert!(
        e.contains("field weight: the number is larger than the largest u64 (18446744073709551615)"),
        "{e}"
    );
    // an i64 field past i64 (and past u64): i64's largest, never u64's
    for n in ["9223372036854775808", "18446744073709551616"] {
        let e = progress_error(progress(n, "0"));
        assert!(e.contains("field written_at_ms: "), "{n}: {e}");
        assert!(!e.contains("u64"), "{n}: {e}");
        assert!(e.contains("i64"), "{n}: {e}");
    }
    let e = progress_error(progress("18446744073709551616", "0"));
    assert!(
        e.contains("the number is larger than the largest i64 (9223372036854775807)"),
        "{e}"
    );
    // a u32 field past u64: u32's largest
    let e = progress_error(progress("0", "18446744073709551616"));
    assert!(
        e.contains("field attempts: the number is larger than the largest u32 (4294967295)"),
        "{e}"
    );
    // a wrong type names its field too
    let e = progress_error(progress("0", "\"4\""));
    assert!(e.contains("field attempts: invalid type: string"), "{e}");
}
