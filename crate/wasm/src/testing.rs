//! Test hooks, compiled only with the `testing` feature (the test build of the page and the
//! Node runners): never in the production module.

use crate::js::{error, to_js, Via};
use crate::planner::Planner;
use serde::Serialize;
use spate_planner_core::{
    conformance,
    synth::{bench_fleet, max_min_ratio, Shape},
    LeaderInputs,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TEST_TYPES: &'static str = r#"
export interface CaseResult { name: string; op: string; passed: boolean; expected: string | null; got: string | null; first_difference: string | null; }
export interface BenchSummary { splits: number; members: number; moves: number; bound_hit: boolean; max_min: number | null; }
"#;

#[derive(Serialize)]
struct CaseResult {
    name: String,
    op: String,
    passed: bool,
    expected: Option<String>,
    got: Option<String>,
    first_difference: Option<String>,
}

/// Runs a conformance vector file (its JSON text) through this module's decision core.
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
struct BenchSummary {
    splits: u32,
    members: u32,
    moves: u32,
    bound_hit: bool,
    /// Heaviest over lightest member load; `null` when the lightest holds nothing.
    max_min: Option<f64>,
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

    /// Plans the fleet: `{splits, members, moves, bound_hit, max_min}`.
    #[wasm_bindgen(unchecked_return_type = "BenchSummary")]
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        let plan = self.inputs.plan();
        let r = max_min_ratio(&plan);
        to_js(&BenchSummary {
            splits: self.inputs.splits.len() as u32,
            members: self.inputs.members.len() as u32,
            moves: plan.explain.moves.len() as u32,
            bound_hit: plan.explain.bound_hit,
            max_min: r.is_finite().then_some(r),
        })
    }
}

/// Traps this module on purpose (a panic aborts, as any bug would). Only the recovery test calls
/// it: it proves the page survives a trapped module and keeps the user's scenario.
#[wasm_bindgen(js_name = debugTrap)]
pub fn debug_trap() {
    panic!("deliberate trap: the page's recovery test");
}

#[wasm_bindgen]
impl Planner {
    /// `analyse` with its result built property by property (serde-wasm-bindgen), as the module
    /// made it before it crossed as JSON text: the tests compare the two.
    #[wasm_bindgen(js_name = analyseAsObjects, unchecked_return_type = "Analysed")]
    pub fn analyse_as_objects(&self, scenario: &str) -> Result<JsValue, JsValue> {
        self.analyse_via(scenario, Via::Objects)
    }
}
