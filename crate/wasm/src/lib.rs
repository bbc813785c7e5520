//! WebAssembly bindings of the spate-planner decision core.
//!
//! A thin layer: it parses and converts, the core decides. Conventions at this boundary
//! (docs/architecture.md):
//! - Plain JS objects cross, shaped exactly as the command line's `--json` documents (the core's
//!   own serde types, snake_case field names); maps become plain objects.
//! - **64-bit integers cross as decimal strings** (seeds, weights, loads, times), through the
//!   core's one mechanism ([`spate_planner_core::exact`]); counts are numbers.
//! - JSON text (snapshots, scenarios) is parsed in Rust, so u64 stays exact.
//! - Errors are JS `Error`s with a stable `code` property (and `bucket`, `key`, `path` where one
//!   applies).
//!
//! Test hooks (a deliberate trap, the conformance runner, the benchmark fleet) are compiled only
//! with the `testing` feature: the production module has none of them.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

use js::parse_u64;
use wasm_bindgen::prelude::*;

mod js;
mod planner;
mod replay;
mod review;
mod tables;
#[cfg(feature = "testing")]
mod testing;
mod timeline;
#[cfg(feature = "ts")]
pub mod typescript;

pub use planner::Planner;
pub use replay::Replay;
#[cfg(feature = "testing")]
pub use testing::{debug_trap, run_conformance, BenchFleet};
pub use timeline::{figures_table_js, timeline_section_js, SimRun};

/// Talc instead of Rust's default wasm allocator (dlmalloc): reading a 100,000-split job makes
/// millions of small allocations, and dlmalloc's `malloc` was the largest single cost of it.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

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
