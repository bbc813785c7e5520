//! The order of the join's warnings and foreign keys, pinned on one store holding every case:
//! the live job's incremental join and the whole join share this order, so it is stated here
//! rather than compared between them.

use crate::common;

use common::store::{fp, Store};
use serde_json::json;
use spate_planner_core::codes::WarningCode;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn progress(id: &str, fp: u64) -> String {
    json!({"schema":3,"id":id,"fp":fp,"epoch":1,"status":"runnable","owner":null,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0}).to_string()
}

fn spec(id: &str, fp: u64) -> String {
    json!({"schema":3,"id":id,"fp":fp,"generation":1,"weight":1,"descriptor":""}).to_string()
}

#[test]
fn join_warnings_come_progress_first_then_specs_then_leases() {
    let (own, other) = (fp(), fp() ^ 1);
    let lease = json!({"schema":3,"owner":"w","nonce":"n","epoch":1});
    let f = Store::new()
        .state("split.a", progress("a", own))
        .state("spec.a", spec("a", own))
        .state("split.b", progress("b", other))
        .state("spec.b", spec("b", own))
        .lease_entry("split.b", &lease)
        .state("split.c", progress("c", own))
        .state("spec.c", spec("c", other))
        .state("spec.d", spec("d", own))
        .lease_entry("split.e", &lease)
        .state("spec.f", spec("f", other))
        .state("split.g", progress("g", own))
        .fleet();
    use WarningCode::*;
    let want = [
        (ForeignFp, "split.b"),
        (ForeignFp, "spec.c"),
        (NoSpec, "split.c"),
        (NoSpec, "split.g"),
        (SpecWithoutProgress, "spec.b"),
        (SpecWithoutProgress, "spec.d"),
        (ForeignFp, "spec.f"),
        (LeaseWithoutProgress, "split.b"),
        (LeaseWithoutProgress, "split.e"),
    ];
    let got: Vec<(WarningCode, &str)> = f.warnings.iter().map(|w| (w.code, w.key.as_str())).collect();
    assert_eq!(got, want);
    assert_eq!(f.foreign, ["split.b", "spec.c", "spec.f"]);
    assert_eq!(f.orphan_specs, 3);
    assert_eq!(f.splits.keys().collect::<Vec<_>>(), ["a", "c", "g"]);
}
