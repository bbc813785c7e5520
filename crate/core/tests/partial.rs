//! Scenarios that partly apply (docs/scenario-format.md, "Changes that do not apply"): each
//! change that does not apply is left out with its reason, changes nothing, and the rest are
//! planned exactly as the scenario without it; an unknown op and a change that cannot be read are
//! such changes; the file format stays strict otherwise.

use crate::common;

use common::store::Store;
use spate_planner_core::{
    analyse, analyse_partly, compose, plan_document, scenario::MAX_ADDED_SPLITS, Fleet, ReviewRequest,
    Scenario,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Two members holding six splits.
fn fleet() -> Fleet {
    let mut s = Store::new()
        .presence("w1", Some(3))
        .presence("w2", Some(2))
        .leader("w1");
    for (i, w) in [60u64, 50, 40, 30, 20, 10].into_iter().enumerate() {
        let id = format!("s{i}");
        s = s.split(&id, w, Some("w1"), 1, 0).held(&id, "w1");
    }
    s.fleet()
}

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text).unwrap()
}

fn refused(f: &Fleet, text: &str) -> Vec<(u32, String, String)> {
    analyse_partly(f, &scenario(text))
        .refused
        .iter()
        .map(|r| (r.index, r.code.as_str().to_string(), r.path.clone()))
        .collect()
}

#[test]
fn a_refused_change_is_left_out_and_the_rest_are_planned() {
    let f = fleet();
    let text = r#"{"changes":[{"op":"add_member","member":"a"},{"op":"set_cap","member":"ghost","cap":1},{"op":"add_member","member":"b"}]}"#;
    let a = analyse_partly(&f, &scenario(text));
    assert_eq!(
        refused(&f, text),
        [(1, "unknown_member".into(), "changes[1].member".into())]
    );
    assert!(a.refused[0].message.contains("ghost"));
    // exactly the plan of the scenario without it
    let without = analyse(
        &f,
        &scenario(r#"{"changes":[{"op":"add_member","member":"a"},{"op":"add_member","member":"b"}]}"#),
    )
    .unwrap();
    assert_eq!(a.report, without.report);
    assert_eq!(a.assignment, without.assignment);
    assert_eq!(a.planned_scenario().changes, without.scenario.changes);
    // the scenario given is kept whole; the strict reading stops at the same change
    assert_eq!(a.scenario.changes.len(), 3);
    let e = analyse(&f, &scenario(text)).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("unknown_member", "changes[1].member")
    );
}

#[test]
fn a_change_refused_later_is_judged_against_the_changes_that_applied() {
    let f = fleet();
    // the second add of "a" is a duplicate; the removal of "a" then applies to the first
    let text = r#"{"changes":[{"op":"add_member","member":"a"},{"op":"add_member","member":"a"},{"op":"remove_member","member":"a","departure":"crash_after_delay"},{"op":"set_cap","member":"a","cap":2}]}"#;
    assert_eq!(
        refused(&f, text),
        [
            (1, "duplicate_member".into(), "changes[1].member".into()),
            (3, "unknown_member".into(), "changes[3].member".into())
        ]
    );
}

#[test]
fn an_unknown_op_is_a_refused_change_kept_as_written() {
    let f = fleet();
    let text = r#"{"changes":[{"op":"explode","how":{"big":true}},{"op":"add_member","member":"n"}]}"#;
    let s = scenario(text);
    let a = analyse_partly(&f, &s);
    assert_eq!(
        refused(&f, text),
        [(0, "unknown_op".into(), "changes[0].op".into())]
    );
    assert!(
        a.refused[0].message.contains("\"explode\""),
        "{}",
        a.refused[0].message
    );
    assert!(a.report.members.iter().any(|m| m.name == "n"));
    // written back as it was read (its fields in key order)
    assert_eq!(
        s.to_json().unwrap(),
        r#"{"format":"spate-planner-scenario/1","changes":[{"how":{"big":true},"op":"explode"},{"op":"add_member","member":"n"}]}"#
    );
    assert_eq!(Scenario::parse(&s.to_json().unwrap()).unwrap(), s);
    // and in the plan document, with the refusal beside it
    let doc: serde_json::Value = serde_json::from_str(&plan_document(&f, &a).unwrap()).unwrap();
    assert_eq!(doc["scenario"]["changes"][0]["op"], "explode");
    assert_eq!(doc["refused"][0]["index"], 0);
    assert_eq!(doc["refused"][0]["code"], "unknown_op");
}

/// A change that cannot be read (a known op with a missing, unknown or ill-typed field; not an
/// object with a string op) is a change that does not apply: left out with `invalid_change`,
/// kept as written, the others planned. One policy for the command line and the page.
#[test]
fn a_change_that_cannot_be_read_is_refused_and_the_others_apply() {
    let f = fleet();
    let bad = [
        (
            r#"{"op":"add_member","member":"a","bogus":1}"#,
            "unknown field `bogus`",
        ),
        (r#"{"op":"add_member"}"#, "missing field `member`"),
        (
            r#"{"op":"set_cap","member":"w1","cap":"x"}"#,
            "invalid type: string \"x\"",
        ),
        (r#"{"op":5}"#, "its `op` is missing or not a string"),
        (r#"{"member":"a"}"#, "its `op` is missing or not a string"),
        ("3", "a change is an object with an `op`"),
        (
            r#"{"op":"set_weight","split":"s0","weight":18446744073709551616}"#,
            "larger than the largest u64",
        ),
    ];
    for (change, words) in bad {
        let text = format!(r#"{{"changes":[{{"op":"add_member","member":"n"}},{change}]}}"#);
        let s = scenario(&text);
        let a = analyse_partly(&f, &s);
        assert_eq!(
            refused(&f, &text),
            [(1, "invalid_change".into(), "changes[1]".into())],
            "{change}"
        );
        assert!(
            a.refused[0].message.contains(words),
            "{change}: {}",
            a.refused[0].message
        );
        assert!(
            a.report.members.iter().any(|m| m.name == "n"),
            "{change}: the others apply"
        );
        // kept as written, and read back the same
        let back: serde_json::Value = serde_json::from_str(&s.to_json().unwrap()).unwrap();
        let given: serde_json::Value = serde_json::from_str(change).unwrap();
        assert_eq!(back["changes"][1], given, "{change}");
        assert_eq!(Scenario::parse(&s.to_json().unwrap()).unwrap(), s);
        // the strict reading (--strict) stops at it
        let e = analyse(&f, &s).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            ("invalid_change", "changes[1]"),
            "{change}"
        );
    }
}

#[test]
fn the_format_stays_strict_for_everything_but_a_change() {
    let bad = [
        r#"{"changes":{}}"#,
        r#"{"extra":1}"#,
        r#"{"default_cap":"x"}"#,
        r#"{"rules":"0.9"}"#,
        r#"{"changes":[{"op":"add_member","member":"a","member":"b"}]}"#,
    ];
    for text in bad {
        let e = Scenario::parse(text).unwrap_err();
        assert_eq!(e.code.as_str(), "invalid_scenario", "{text}");
    }
}

#[test]
fn a_refused_change_changes_nothing() {
    let f = fleet();
    // reserve of a known and an unknown split: nothing is reserved
    let a = analyse_partly(
        &f,
        &scenario(r#"{"changes":[{"op":"reserve","splits":["s0","nope"]}]}"#),
    );
    assert_eq!(a.refused[0].path, "changes[0].splits[1]");
    assert!(a.applied.inputs.reserved.is_empty());
    // an add_splits that would create an existing id adds none, and its count does not use up
    // the scenario's bound
    let rest = MAX_ADDED_SPLITS - 1;
    let text = format!(
        r#"{{"changes":[{{"op":"add_splits","count":1,"weight":5,"prefix":"x"}},{{"op":"add_splits","count":{rest},"weight":5,"prefix":"x"}},{{"op":"add_splits","count":2,"weight":5,"prefix":"y"}}]}}"#
    );
    let (applied, refused) = scenario(&text).apply_partly(&f);
    let codes: Vec<_> = refused.iter().map(|r| (r.index, r.code.as_str())).collect();
    assert_eq!(codes, [(1, "duplicate_split")]);
    assert_eq!(applied.inputs.splits.len(), 6 + 1 + 2);
}

#[test]
fn the_baseline_keeps_the_settings_and_drops_the_changes() {
    let s = scenario(r#"{"default_cap":4,"rebalance_delay_ms":0,"changes":[{"op":"explode"}]}"#);
    let b = s.baseline();
    assert_eq!(
        (b.default_cap, b.rebalance_delay_ms, b.changes.len()),
        (Some(4), Some(0), 0)
    );
}

#[test]
fn the_review_document_names_each_change_left_out_and_keeps_names_inside_their_cells() {
    let f = Store::new()
        .presence("evil|name", Some(4))
        .presence("w2", Some(4))
        .leader("w2")
        .split("s0", 10, Some("evil|name"), 1, 0)
        .held("s0", "evil|name")
        .fleet();
    let a = analyse_partly(
        &f,
        &scenario(r#"{"changes":[{"op":"set_cap","member":"ghost","cap":1}]}"#),
    );
    let r = compose(&ReviewRequest {
        fleet: &f,
        analysis: &a,
        sweep: None,
        before: None,
        compare_rules: false,
        version: "test",
        link: Some("http://x/#scenario=a b>c"),
    })
    .unwrap();
    let md = &r.markdown;
    assert!(md.contains("Link to this view: <http://x/#scenario=abc>"), "{md}");
    assert!(
        md.contains("- change 1: `\"ghost\" is not a member` at `changes[0].member` (unknown_member)"),
        "{md}"
    );
    let row = md
        .lines()
        .find(|l| l.starts_with("| `evil"))
        .expect("a members row");
    assert!(row.starts_with("| `evil\\|name` | 10 B |"), "{row}");
    // the chart is the fleet chart: its rows carry the member's name, escaped
    assert!(r.images[0].svg.contains(r#"<g data-member="evil|name">"#));
    assert!(
        md.contains("## Summary") && md.contains("## Moves (") && md.contains("heaviest now: `evil|name`"),
        "{md}"
    );
}
