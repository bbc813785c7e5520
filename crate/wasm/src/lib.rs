//! WebAssembly bindings of the spate-planner decision core.
//!
//! A thin layer: it parses and converts, the core decides. Conventions at this boundary
//! (docs/architecture.md):
//! - Plain JS objects cross, with camelCase field names; maps become plain objects.
//! - **u64 values cross as decimal strings** (seeds, hashes, weights, loads), never as JS
//!   numbers, which would round them above 2^53. Counts and u32 fields are numbers.
//! - JSON text (vector files, later snapshots) is parsed in Rust, so u64 stays exact.
//! - Errors are JS `Error`s with a stable `code` property (and `path` where one applies).
#![forbid(unsafe_code)]

use serde::Serialize;
use spate_planner_core::conformance;
use spate_planner_core::synth::{bench_fleet, max_min_ratio, Shape};
use spate_planner_core::{LeaderInputs, Plan};

use wasm_bindgen::prelude::*;

/// A JS `Error` with a stable `code` and, when given, the `path` (bucket, key or field) at fault.
pub(crate) fn error(code: &str, message: &str, path: Option<&str>) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = js_sys::Reflect::set(&e, &"code".into(), &code.into());
    if let Some(p) = path {
        let _ = js_sys::Reflect::set(&e, &"path".into(), &p.into());
    }
    e.into()
}

pub(crate) fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| {
            error(
                "internal",
                &format!("cannot convert a result for JavaScript: {e}"),
                None,
            )
        })
}

fn parse_u64(field: &str, s: &str) -> Result<u64, JsValue> {
    s.parse::<u64>().map_err(|_| {
        error(
            "invalid_u64",
            &format!("{field}: {s:?} is not an integer in 0..=18446744073709551615"),
            Some(field),
        )
    })
}

/// `stable_hash(seed, value)`; both arguments and the result are decimal strings.
#[wasm_bindgen(js_name = stableHash)]
pub fn stable_hash(seed: &str, value: &str) -> Result<String, JsValue> {
    Ok(spate_planner_core::stable_hash(parse_u64("seed", seed)?, parse_u64("value", value)?).to_string())
}

/// `stable_hash_str(seed, value)`; the seed and the result are decimal strings.
#[wasm_bindgen(js_name = stableHashStr)]
pub fn stable_hash_str(seed: &str, value: &str) -> Result<String, JsValue> {
    Ok(spate_planner_core::stable_hash_str(parse_u64("seed", seed)?, value).to_string())
}

#[wasm_bindgen(typescript_custom_section)]
const TS_LIB_TYPES: &'static str = r#"
export interface CaseResult { name: string; op: string; passed: boolean; expected: string | null; got: string | null; firstDifference: string | null; }
export interface BenchSummary { splits: number; members: number; moves: number; boundHit: boolean; maxMin: number | null; }
"#;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CaseResult {
    name: String,
    op: String,
    passed: bool,
    expected: Option<String>,
    got: Option<String>,
    first_difference: Option<String>,
}

/// Runs a conformance vector file (its JSON text) through this module's decision core.
/// Returns one `{name, op, passed, expected, got, firstDifference}` per case.
#[wasm_bindgen(js_name = runConformance, unchecked_return_type = "CaseResult[]")]
pub fn run_conformance(text: &str) -> Result<JsValue, JsValue> {
    let outcomes = conformance::run_file(text).map_err(|e| error("invalid_vectors", &e, None))?;
    let results: Vec<CaseResult> = outcomes
        .into_iter()
        .map(|o| CaseResult {
            passed: o.failure.is_none(),
            expected: o.failure.as_ref().map(|f| f.expected.clone()),
            got: o.failure.as_ref().map(|f| f.got.clone()),
            first_difference: o.failure.map(|f| f.first_difference),
            name: o.name,
            op: o.op,
        })
        .collect();
    to_js(&results)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanSummary {
    splits: usize,
    members: usize,
    moves: usize,
    bound_hit: bool,
    /// Heaviest over lightest member load; `null` when the lightest holds nothing.
    max_min: Option<f64>,
}

fn summary(inputs: &LeaderInputs, plan: &Plan) -> PlanSummary {
    let r = max_min_ratio(plan);
    PlanSummary {
        splits: inputs.splits.len(),
        members: inputs.members.len(),
        moves: plan.explain.moves.len(),
        bound_hit: plan.explain.bound_hit,
        max_min: r.is_finite().then_some(r),
    }
}

/// A synthetic benchmark fleet (the shapes of `spate-planner bench`), generated once so that
/// `plan()` can be timed alone.
#[wasm_bindgen]
pub struct BenchFleet {
    inputs: LeaderInputs,
}

#[wasm_bindgen]
impl BenchFleet {
    /// `shape` is `cold`, `scale-out` or `member-loss`.
    #[wasm_bindgen(constructor)]
    pub fn new(shape: &str, splits: u32, members: u32) -> Result<BenchFleet, JsValue> {
        let shape = Shape::parse(shape).ok_or_else(|| {
            error(
                "invalid_shape",
                &format!("shape {shape:?} is not cold, scale-out or member-loss"),
                Some("shape"),
            )
        })?;
        Ok(BenchFleet {
            inputs: bench_fleet(shape, splits as usize, members as usize),
        })
    }

    /// Plans the fleet: `{splits, members, moves, boundHit, maxMin}`.
    #[wasm_bindgen(unchecked_return_type = "BenchSummary")]
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        let plan = self.inputs.plan();
        to_js(&summary(&self.inputs, &plan))
    }
}

mod planner;
pub use planner::Planner;

/// Traps this module on purpose (a panic aborts, as any bug would). Only the recovery test calls
/// it: it proves the page survives a trapped module and keeps the user's scenario.
#[wasm_bindgen(js_name = debugTrap)]
pub fn debug_trap() {
    panic!("deliberate trap: the page's recovery test");
}
