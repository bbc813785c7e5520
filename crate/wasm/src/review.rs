//! The `Planner`'s design-review methods: sweeps and which of their steps meet a target, the
//! comparison with an earlier snapshot, the review document and the fleet chart. Each is one call
//! into the core and one conversion.

use crate::js::{error, to_js};
use crate::planner::{scenario_error, sim_error, Planner};
use spate_planner_core::{
    compose, diff,
    review::{fleet_chart, FleetChart, Palette, ReviewError, SweepRequest},
    sweep,
    sweep::{check_range, today, verdict, Axis, Step, SweepError, Targets, MAX_STEPS},
    CrashModel, ReviewRequest, Scenario,
};
use spate_planner_sim::{CrashScript, Script};
use wasm_bindgen::prelude::*;

fn sweep_error(e: &SweepError) -> JsValue {
    match e {
        SweepError::Scenario(e) => scenario_error(e),
        SweepError::Simulation { error: s, .. } => error(s.code.as_str(), &e.to_string(), Some(&s.path)),
        SweepError::TooManySteps | SweepError::RangeTooLarge(_) => {
            error(e.code().as_str(), &e.to_string(), None)
        }
        SweepError::Invalid(_) => error(e.code().as_str(), &e.to_string(), Some("axis")),
    }
}

/// The core's one reading of an axis (`add_members` with `cap`, 0 for the default cap).
fn parse_axis(axis: &str, cap: u32) -> Result<Axis, JsValue> {
    Axis::parse(axis, (cap > 0).then_some(cap)).map_err(|e| sweep_error(&e))
}

/// The timing script of a sweep's crash steps (`crash`: its text; "" for none).
fn crash_script(crash: &str) -> Result<Option<Script>, JsValue> {
    match crash {
        "" => Ok(None),
        text => Script::parse(text).map(Some).map_err(|e| sim_error(&e)),
    }
}

/// The sweep a review document carries, as the page's Sweep tab asked for it: `crash` is the
/// crash steps' script text ("" for none), the targets those of its form.
#[derive(serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(crate) struct ReviewSweep {
    axis: String,
    from: u32,
    to: u32,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    cap: u32,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    crash: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    max_over_mean: Option<f64>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    max_queued: u32,
}

/// The review document and its charts, each a file beside it (`spate-planner report -o`'s).
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(crate) struct ReviewFiles {
    markdown: String,
    images: Vec<ReviewImage>,
}

#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
struct ReviewImage {
    name: String,
    svg: String,
}

impl Planner {
    fn review_with(
        &self,
        scenario: &str,
        sweep: JsValue,
        before: Option<&Planner>,
        rules: bool,
        link: Option<&str>,
    ) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        let asked: Option<ReviewSweep> = serde_wasm_bindgen::from_value(sweep).map_err(|e| {
            error(
                "invalid_sweep",
                &format!("not a sweep request: {e}"),
                Some("sweep"),
            )
        })?;
        let (read, script) = match &asked {
            None => (None, None),
            Some(s) => {
                let axis = parse_axis(&s.axis, s.cap)?;
                let range = check_range(s.from, s.to).map_err(|e| sweep_error(&e))?;
                (Some((axis, range)), crash_script(&s.crash)?)
            }
        };
        let model = script.as_ref().map(CrashScript);
        let request = ReviewRequest {
            fleet: &self.fleet,
            analysis: &a,
            sweep: asked.as_ref().zip(read).map(|(s, (axis, range))| SweepRequest {
                axis,
                range,
                targets: s.max_over_mean.map(|r| Targets {
                    max_over_mean: r,
                    max_queued: s.max_queued,
                }),
                crash: model.as_ref().map(|m| m as &dyn CrashModel),
            }),
            before: before.map(|b| &b.fleet),
            compare_rules: rules,
            version: env!("CARGO_PKG_VERSION"),
            link,
        };
        let r = compose(&request).map_err(|e| match e {
            ReviewError::Sweep(e) => sweep_error(&e),
            ReviewError::Scenario(e) => scenario_error(&e),
        })?;
        to_js(&ReviewFiles {
            markdown: r.markdown,
            images: r
                .images
                .into_iter()
                .map(|i| ReviewImage {
                    name: i.name,
                    svg: i.svg,
                })
                .collect(),
        })
    }
}

#[wasm_bindgen]
impl Planner {
    /// A sweep on top of what applies of `scenario`: `axis` is `add_members` (each with `cap`, 0
    /// for the default cap), `default_cap` or `member_cap`, over `from..=to` (at most
    /// [`Planner::max_sweep_steps`] steps). With `crash` (a script's text; "" for none), each step
    /// also simulates a crash of its heaviest member under that script's configuration (its
    /// events are not used).
    #[wasm_bindgen(unchecked_return_type = "SweepStep[]")]
    pub fn sweep(
        &self,
        scenario: &str,
        axis: &str,
        from: u32,
        to: u32,
        cap: u32,
        crash: &str,
    ) -> Result<JsValue, JsValue> {
        let axis = parse_axis(axis, cap)?;
        let base = self.analysis(scenario)?.planned_scenario();
        let script = crash_script(crash)?;
        let model = script.as_ref().map(CrashScript);
        let crash = model.as_ref().map(|m| m as &dyn CrashModel);
        let steps = sweep(&self.fleet, &base, axis, from..=to, crash).map_err(|e| sweep_error(&e))?;
        to_js(&steps)
    }

    /// Which value of a sweep of `axis` (as in [`Planner::sweep`]) on what applies of `scenario`
    /// is today's fleet, and why: the sweep document's `today` (`spate-planner sweep --json`).
    #[wasm_bindgen(js_name = sweepToday, unchecked_return_type = "SweepToday")]
    pub fn sweep_today(&self, scenario: &str, axis: &str, cap: u32) -> Result<JsValue, JsValue> {
        let axis = parse_axis(axis, cap)?;
        let base = self.analysis(scenario)?.planned_scenario();
        to_js(&today(&self.fleet, &base, axis).map_err(|e| scenario_error(&e))?)
    }

    /// Most steps one sweep takes (the core's bound).
    #[wasm_bindgen(js_name = maxSweepSteps)]
    pub fn max_sweep_steps() -> u32 {
        MAX_STEPS
    }

    /// Which of a sweep's `steps` (as [`Planner::sweep`] returned them, a sweep of `axis` with
    /// `cap` as there) meet the targets (max/mean at most `max_over_mean`, at most `max_queued`
    /// queued), the smallest value that does, and the verdict in the core's words:
    /// `spate-planner sweep --max-over-mean R --max-queued N`'s `smallest_meeting` and `verdict`.
    #[wasm_bindgen(js_name = sweepVerdict, unchecked_return_type = "SweepVerdict")]
    pub fn sweep_verdict(
        steps: JsValue,
        axis: &str,
        cap: u32,
        max_over_mean: f64,
        max_queued: u32,
    ) -> Result<JsValue, JsValue> {
        let steps: Vec<Step> = serde_wasm_bindgen::from_value(steps).map_err(|e| {
            error(
                "invalid_steps",
                &format!("not a sweep's steps: {e}"),
                Some("steps"),
            )
        })?;
        let axis = parse_axis(axis, cap)?;
        to_js(&verdict(
            axis,
            &steps,
            Targets {
                max_over_mean,
                max_queued,
            },
        ))
    }

    /// This snapshot compared with an earlier one (`before`), both as their stores show them,
    /// planned by the rules `scenario` (its JSON text; "" for none) sets, else each by the rules
    /// its store names: `spate-planner diff [--rules V]`.
    #[wasm_bindgen(unchecked_return_type = "Diff")]
    pub fn compare(&self, before: &Planner, scenario: &str) -> Result<JsValue, JsValue> {
        let rules = Scenario::parse(scenario).map_err(|e| scenario_error(&e))?.rules;
        let d = diff(&before.fleet, &self.fleet, rules).map_err(|e| scenario_error(&e))?;
        to_js(&d)
    }

    /// The review document under `scenario` and its charts (`{ markdown, images: [{ name,
    /// svg }] }`: the Markdown links each chart by its file name), as `spate-planner report -o
    /// FILE.md` writes them: with a sweep when `sweep` is not null (`{ axis, from, to, cap,
    /// crash, max_over_mean, max_queued }`, as in [`Planner::sweep`]; `crash` the crash steps'
    /// script text, "" for none: `--crash-heaviest`; the targets, if any, give its verdict), with
    /// the two releases' rules side by side when `rules` (`--compare-rules`), and `link` (the
    /// view's address), if given, at its head. The core composes it (`compose`); this converts.
    #[wasm_bindgen(js_name = reviewReport, unchecked_return_type = "ReviewFiles")]
    pub fn review_report(
        &self,
        scenario: &str,
        #[wasm_bindgen(unchecked_param_type = "ReviewSweep | null")] sweep: JsValue,
        rules: bool,
        link: Option<String>,
    ) -> Result<JsValue, JsValue> {
        self.review_with(scenario, sweep, None, rules, link.as_deref())
    }

    /// [`Planner::review_report`] with a comparison against an earlier snapshot, `before`
    /// (`--before`), planned by the rules `scenario` sets, else each by its store's.
    #[wasm_bindgen(js_name = reviewReportComparedWith, unchecked_return_type = "ReviewFiles")]
    pub fn review_report_compared_with(
        &self,
        scenario: &str,
        #[wasm_bindgen(unchecked_param_type = "ReviewSweep | null")] sweep: JsValue,
        rules: bool,
        before: &Planner,
        link: Option<String>,
    ) -> Result<JsValue, JsValue> {
        self.review_with(scenario, sweep, Some(before), rules, link.as_deref())
    }

    /// The fleet chart of the plan of `scenario` as SVG text: every member in `order` (names;
    /// those not named follow in the report's order), in `palette`'s colours (`{ bg, text,
    /// muted, now, planned, over, mean, grid }`, CSS colours; one left out or not a plain colour
    /// takes the light theme's), under `title` and `lines`; with `rows` above 0, only the
    /// `rows` heaviest members, the rest summed up in one line (a slide's chart).
    #[wasm_bindgen(js_name = fleetChart)]
    pub fn fleet_chart(
        &self,
        scenario: &str,
        order: Vec<String>,
        palette: JsValue,
        title: &str,
        lines: Vec<String>,
        rows: u32,
    ) -> Result<String, JsValue> {
        let a = self.analysis(scenario)?;
        let palette: Palette = serde_wasm_bindgen::from_value(palette)
            .map_err(|e| error("invalid_palette", &format!("not a palette: {e}"), Some("palette")))?;
        Ok(fleet_chart(
            &a,
            &FleetChart {
                title,
                lines: &lines,
                order: Some(&order),
                palette: &palette,
                rows: (rows > 0).then_some(rows as usize),
            },
        ))
    }
}
