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
