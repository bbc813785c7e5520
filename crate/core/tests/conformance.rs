//! Every case of the shared conformance vectors passes, natively and under wasm32:
//! tests/vectors.json (Spate 0.1) and tests/vectors-0.3.json (Spate 0.3), byte-identical copies
//! of ../shared/conformance/.

use spate_planner_core::conformance::run_file;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const VECTORS: &str = include_str!("../../../tests/vectors.json");
const VECTORS_0_3: &str = include_str!("../../../tests/vectors-0.3.json");

/// Runs `text` and checks every case passed, at least `min` ran, and every op of `ops` ran.
fn all_pass(text: &str, min: usize, ops: &[&str]) {
    let outcomes = run_file(text).expect("the vector file parses");
    let failures: Vec<String> = outcomes.iter().filter_map(|o| o.failure_line()).collect();
    assert!(outcomes.len() >= min, "only {} cases read", outcomes.len());
    for op in ops {
        assert!(outcomes.iter().any(|o| o.op == *op), "no {op} case ran");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
}

#[test]
fn every_conformance_vector_passes() {
    let ops = [
        "hash_u64",
        "hash_str",
        "jitter",
        "live_workers",
        "assign",
        "claims",
    ];
    all_pass(VECTORS, 1000, &ops);
}

#[test]
fn every_spate_0_3_conformance_vector_passes() {
    let ops = [
        "hash_u64",
        "hash_str",
        "jitter",
        "spread",
        "live_workers",
        "assign",
        "claims",
        "last_assignees",
    ];
    all_pass(VECTORS_0_3, 1200, &ops);
}

/// A case of `text` (a vector file) by name, as compact JSON text.
fn case_text(text: &str, name: &str) -> String {
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name);
    serde_json::to_string(case.unwrap()).unwrap()
}

/// The runner judges each case alone: a case of a release it does not implement, an op of
/// another release, a malformed case or input fails that case, with the reason, and the others
/// still run; only a file that is not a vector file is refused whole.
#[test]
fn a_case_the_runner_cannot_judge_fails_alone() {
    let first = |ops: &str| -> String {
        let doc: serde_json::Value = serde_json::from_str(VECTORS).unwrap();
        let c = doc["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["op"] == ops)
            .unwrap();
        serde_json::to_string(c).unwrap()
    };
    let hash = first("hash_u64");
    let assign = first("assign");
    let assign_0_3 =
        case_text(VECTORS_0_3, "regression-824-held").replace("regression-824-held", "needs-0.3");
    let with = |case: &str, field: &str| case.replacen('{', &format!("{{{field},"), 1);
    let cases = [
        hash.clone(),
        with(&hash, r#""spate_version":"0.4""#),
        with(&hash, r#""spate_version":3"#),
        assign_0_3.replace(r#""spate_version":"0.3""#, r#""spate_version":"0.1""#),
        "17".to_string(),
        assign.replacen(r#""seed":"#, r#""surprise":1,"seed":"#, 1),
        with(&hash, r#""spate_version":"0.2""#),
    ];
    let file = format!(
        r#"{{"format":"spate-conformance/1","cases":[{}]}}"#,
        cases.join(",")
    );
    let outcomes = run_file(&file).unwrap();
    let got: Vec<(bool, &str)> = outcomes
        .iter()
        .map(|o| {
            (
                o.failure.is_none(),
                o.failure.as_ref().map_or("", |f| f.got.as_str()),
            )
        })
        .collect();
    assert!(got[0].0, "{:?}", got[0]);
    assert!(
        got[1]
            .1
            .contains(r#"spate_version "0.4" is not implemented here"#),
        "{:?}",
        got[1]
    );
    assert!(
        got[2].1.contains("spate_version 3 is not a string"),
        "{:?}",
        got[2]
    );
    assert!(
        got[3].1.contains("bad assign input") && got[3].1.contains("previous"),
        "{:?}",
        got[3]
    );
    assert!(got[4].1.contains("not a case"), "{:?}", got[4]);
    assert_eq!((outcomes[4].name.as_str(), outcomes[4].op.as_str()), ("#4", "?"));
    assert!(got[5].1.contains("unknown field `surprise`"), "{:?}", got[5]);
    assert!(got[6].0, "0.2 decides as 0.1: {:?}", got[6]);
    // the file's own version applies to cases that name none; a case's own wins
    let file = format!(
        r#"{{"format":"spate-conformance/1","spate_version":"0.3","cases":[{hash},{}]}}"#,
        with(&hash, r#""spate_version":"0.1""#)
    );
    let o = run_file(&file).unwrap();
    assert!(
        o.iter().all(|o| o.failure.is_none()),
        "hash_u64 is the same in both releases"
    );
    let file = format!(r#"{{"format":"spate-conformance/1","spate_version":"0.9","cases":[{hash}]}}"#);
    assert!(run_file(&file).unwrap()[0].failure.is_some());
    // the file itself
    assert!(run_file("not json")
        .unwrap_err()
        .starts_with("not a conformance vector file"));
    assert!(run_file(r#"{"format":"other/1","cases":[]}"#)
        .unwrap_err()
        .contains("is not"));
}
