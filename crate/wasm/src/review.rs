//! The `Planner`'s design-review methods: sweeps and which of their steps meet a target, the
//! comparison with an earlier snapshot, the review document and the fleet chart. Each is one call
//! into the core and one conversion.

use crate::js::{error, to_js};
use crate::planner::{scenario_error, sim_error, Planner};
use spate_planner_core::{
    diff, diff_rules, fleet_chart, review, smallest_meeting, sweep, today, Axis, CrashModel, FleetChart,
    Palette, ReviewInputs, Scenario, Step, SweepError, MAX_STEPS,
};
use spate_planner_sim::{CrashScript, Script};
use wasm_bindgen::prelude::*;

fn sweep_error(e: &SweepError) -> JsValue {
    match e {
        SweepError::Scenario(e) => scenario_error(e),
        SweepError::Simulation { error: s, .. } => error(s.code.as_str(), &e.to_string(), Some(&s.path)),
        SweepError::TooManySteps => error(e.code().as_str(), &e.to_string(), None),
    }
}

fn parse_axis(axis: &str, cap: u32) -> Result<Axis, JsValue> {
    match axis {
        "add_members" => Ok(Axis::AddMembers {
            cap: (cap > 0).then_some(cap),
        }),
        "default_cap" => Ok(Axis::DefaultCap),
        "member_cap" => Ok(Axis::MemberCap),
        _ => Err(error(
            "invalid_axis",
            &format!("axis {axis:?} is not add_members, default_cap or member_cap"),
            Some("axis"),
        )),
    }
}

/// [`Planner::sweep_verdict`]: per step whether it meets the targets, and the smallest that does.
#[derive(serde::Serialize)]
struct Verdict {
    meets: Vec<bool>,
    smallest: Option<u32>,
}

/// What a review document holds beyond the plan: a sweep (`axis` "" for none, as in
/// [`Planner::sweep`]), a comparison with an earlier snapshot, the two releases' rules side by
/// side, and the view's address.
struct Extras<'a> {
    axis: &'a str,
    range: std::ops::RangeInclusive<u32>,
    cap: u32,
    before: Option<&'a Planner>,
    rules: bool,
    link: Option<&'a str>,
}

impl Planner {
    fn review_with(&self, scenario: &str, x: Extras) -> Result<String, JsValue> {
        let (axis, range, cap, before, link) = (x.axis, x.range, x.cap, x.before, x.link);
        let a = self.analysis(scenario)?;
        let steps = match axis {
            "" => None,
            name => {
                let axis = parse_axis(name, cap)?;
                let base = a.planned_scenario();
                let steps = sweep(&self.fleet, &base, axis, range, None).map_err(|e| sweep_error(&e))?;
                Some((axis, steps))
            }
        };
        // the comparison plans both snapshots by the rules the scenario sets (else each store's)
        let d = match before {
            Some(b) => Some(diff(&b.fleet, &self.fleet, a.scenario.rules).map_err(|e| scenario_error(&e))?),
            None => None,
        };
        let rd = match x.rules {
            true => Some(diff_rules(&self.fleet, &a.planned_scenario()).map_err(|e| scenario_error(&e))?),
            false => None,
        };
        let r = review(&ReviewInputs {
            fleet: &self.fleet,
            analysis: &a,
            sweep: steps.as_ref().map(|(x, s)| (*x, s.as_slice())),
            diff: d.as_ref(),
            rules_diff: rd.as_ref(),
            version: env!("CARGO_PKG_VERSION"),
            link,
        });
        Ok(r.inlined())
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
        let script = match crash {
            "" => None,
            text => Some(Script::parse(text).map_err(|e| sim_error(&e))?),
        };
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

    /// Which of a sweep's `steps` (as [`Planner::sweep`] returned them) meet the targets (max/mean
    /// at most `max_over_mean`, at most `max_queued` queued), and the smallest value that does:
    /// `spate-planner sweep --max-over-mean R --max-queued N`'s `smallest_meeting`.
    #[wasm_bindgen(js_name = sweepVerdict, unchecked_return_type = "SweepVerdict")]
    pub fn sweep_verdict(steps: JsValue, max_over_mean: f64, max_queued: u32) -> Result<JsValue, JsValue> {
        let steps: Vec<Step> = serde_wasm_bindgen::from_value(steps).map_err(|e| {
            error(
                "invalid_steps",
                &format!("not a sweep's steps: {e}"),
                Some("steps"),
            )
        })?;
        to_js(&Verdict {
            meets: steps.iter().map(|s| s.meets(max_over_mean, max_queued)).collect(),
            smallest: smallest_meeting(&steps, max_over_mean, max_queued).map(|s| s.value),
        })
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

    /// The review report under `scenario` as one self-contained Markdown text (SVG charts
    /// inlined), with a sweep when `axis` is not "" (as in [`Planner::sweep`]), with the two
    /// releases' rules side by side when `rules` (`--compare-rules`), and `link` (the view's
    /// address), if given, at its head: `spate-planner report --inline`'s document.
    #[wasm_bindgen(js_name = reviewReport)]
    #[allow(clippy::too_many_arguments)]
    pub fn review_report(
        &self,
        scenario: &str,
        axis: &str,
        from: u32,
        to: u32,
        cap: u32,
        rules: bool,
        link: Option<String>,
    ) -> Result<String, JsValue> {
        let x = Extras {
            axis,
            range: from..=to,
            cap,
            before: None,
            rules,
            link: link.as_deref(),
        };
        self.review_with(scenario, x)
    }

    /// [`Planner::review_report`] with a comparison against an earlier snapshot, `before`
    /// (`--before`), planned by the rules `scenario` sets, else each by its store's.
    #[wasm_bindgen(js_name = reviewReportComparedWith)]
    #[allow(clippy::too_many_arguments)]
    pub fn review_report_compared_with(
        &self,
        scenario: &str,
        axis: &str,
        from: u32,
        to: u32,
        cap: u32,
        rules: bool,
        before: &Planner,
        link: Option<String>,
    ) -> Result<String, JsValue> {
        let x = Extras {
            axis,
            range: from..=to,
            cap,
            before: Some(before),
            rules,
            link: link.as_deref(),
        };
        self.review_with(scenario, x)
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
