//! The `Planner`'s tables as CSV: the core's one writer, the same bytes as `spate-planner
//! plan|claims|sweep|diff --csv`.

use crate::js::error;
use crate::planner::{scenario_error, Planner};
use spate_planner_core::{
    diff, next_claims,
    review::{claims_csv, diff_csv, plan_csv, sweep_csv, DiffTable, PlanTable},
    sweep::Step,
    AssignmentSource,
};
use wasm_bindgen::prelude::*;

fn no_table(table: &str, names: &str) -> JsValue {
    error(
        "invalid_table",
        &format!("table {table:?} is not one of {names}"),
        Some("table"),
    )
}

#[wasm_bindgen]
impl Planner {
    /// A table of the plan of `scenario` as CSV: `moves`, `members` or `splits` (every split):
    /// `spate-planner plan --csv TABLE`.
    #[wasm_bindgen(js_name = planCsv)]
    pub fn plan_csv(&self, scenario: &str, table: &str) -> Result<String, JsValue> {
        let t = PlanTable::named(table).ok_or_else(|| no_table(table, "moves, members, splits, at-risk"))?;
        let a = self.analysis(scenario)?;
        Ok(plan_csv(&self.fleet, &a, t))
    }

    /// Every live member's next actions as CSV: `spate-planner claims --csv` (`after_plan`:
    /// `--after-plan`).
    #[wasm_bindgen(js_name = claimsCsv)]
    pub fn claims_csv(&self, scenario: &str, after_plan: bool, max_attempts: u32) -> Result<String, JsValue> {
        let a = self.analysis(scenario)?;
        let source = if after_plan {
            AssignmentSource::Plan
        } else {
            AssignmentSource::Published
        };
        let next =
            next_claims(&self.fleet, &a, None, source, max_attempts).map_err(|e| scenario_error(&e))?;
        Ok(claims_csv(&next))
    }

    /// A sweep's `steps` (as [`Planner::sweep`] returned them) as CSV: `spate-planner sweep --csv`.
    #[wasm_bindgen(js_name = sweepCsv)]
    pub fn sweep_csv(steps: JsValue) -> Result<String, JsValue> {
        let steps: Vec<Step> = serde_wasm_bindgen::from_value(steps).map_err(|e| {
            error(
                "invalid_steps",
                &format!("not a sweep's steps: {e}"),
                Some("steps"),
            )
        })?;
        Ok(sweep_csv(&steps))
    }

    /// A table of this snapshot compared with `before` as CSV: `members` or `owners`:
    /// `spate-planner diff --csv TABLE`.
    #[wasm_bindgen(js_name = compareCsv)]
    pub fn compare_csv(&self, before: &Planner, table: &str) -> Result<String, JsValue> {
        let t = DiffTable::named(table).ok_or_else(|| no_table(table, "members, owners"))?;
        let d = diff(&before.fleet, &self.fleet, None).map_err(|e| scenario_error(&e))?;
        Ok(diff_csv(&d, t))
    }
}
