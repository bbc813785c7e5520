//! Every case of the shared conformance vectors (tests/vectors.json, a copy of
//! ../shared/conformance/vectors.json) passes, natively and under wasm32.

use spate_planner_core::conformance::run_file;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const VECTORS: &str = include_str!("../../../tests/vectors.json");

#[test]
fn every_conformance_vector_passes() {
    let outcomes = run_file(VECTORS).expect("the vector file parses");
    let failures: Vec<String> = outcomes.iter().filter_map(|o| o.failure_line()).collect();
    assert!(outcomes.len() >= 1000, "only {} cases read", outcomes.len());
    for op in [
        "hash_u64",
        "hash_str",
        "jitter",
        "live_workers",
        "assign",
        "claims",
    ] {
        assert!(outcomes.iter().any(|o| o.op == op), "no {op} case ran");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
}
