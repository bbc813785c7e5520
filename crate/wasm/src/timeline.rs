//! The Timeline's tables and documents, from the simulator (`spate-planner-sim`): the figures
//! of configurations A and B with the difference. Each is one call into the simulator and one
//! conversion.

use crate::js::{error, to_js};
use spate_planner_sim::{figures_table, Figures};
use wasm_bindgen::prelude::*;

/// A simulation document's `figures` (as `JSON.parse` of `Planner.simulate` gives them;
/// `idle_weighted` a decimal string), read exactly.
fn figures_of(which: &str, v: JsValue) -> Result<Figures, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(|e| {
        error(
            "invalid_figures",
            &format!("the figures of configuration {which} cannot be read: {e}"),
            Some(which),
        )
    })
}

/// The headline figures of configuration A, and of B with the difference B − A when `b` is
/// not null (`spate-planner simulate --compare`'s `figures_table`): rows of key, label, kind,
/// help, the values as decimal strings and in words. `has_events`: whether the script has
/// events (a recovery without a value is then "not recovered", else "no events").
#[wasm_bindgen(js_name = figuresTable, unchecked_return_type = "FigureRow[]")]
pub fn figures_table_js(
    #[wasm_bindgen(unchecked_param_type = "SimFigures")] a: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SimFigures | null")] b: JsValue,
    has_events: bool,
) -> Result<JsValue, JsValue> {
    let a = figures_of("A", a)?;
    let b = match b.is_null() || b.is_undefined() {
        true => None,
        false => Some(figures_of("B", b)?),
    };
    to_js(&figures_table(&a, b.as_ref(), has_events))
}
