//! The one composition of the review document: from what a person asked for (the plan shown,
//! a sweep by its axis and range with targets and a crash model, an earlier snapshot, both
//! releases' rules) to the document and its charts. `spate-planner report` and the page's
//! "Report (Markdown)" (through the wasm `Planner`) both call [`compose`] and only convert
//! their arguments, so the two documents are the same for the same request.

use super::markdown::{review, Review, ReviewInputs, SweepSection};
use crate::diff::diff;
use crate::fleet::Fleet;
use crate::pipeline::Analysis;
use crate::rules_diff::diff_rules;
use crate::scenario::ScenarioError;
use crate::sweep::{sweep, today, verdict, Axis, CrashModel, SweepError, Targets};
use std::ops::RangeInclusive;

/// A sweep the review carries: its axis and range (read by [`Axis::parse`] and
/// [`crate::sweep::parse_range`] or [`crate::sweep::check_range`]), the targets its verdict
/// measures against, and the model that prices a crash of each step's heaviest member (the
/// sweep's `--crash-heaviest`; the simulator's `CrashScript`).
pub struct SweepRequest<'a> {
    pub axis: Axis,
    pub range: RangeInclusive<u32>,
    pub targets: Option<Targets>,
    pub crash: Option<&'a dyn CrashModel>,
}

/// What a review is of: the plan (the caller's analysis of its scenario, as it shows it) and
/// what else the person asked for.
pub struct ReviewRequest<'a> {
    pub fleet: &'a Fleet,
    pub analysis: &'a Analysis,
    pub sweep: Option<SweepRequest<'a>>,
    /// An earlier snapshot to compare with, both planned by the rules the scenario sets (else
    /// each by the rules its store names).
    pub before: Option<&'a Fleet>,
    /// The scenario planned by both releases' rules (`diff-rules`), side by side.
    pub compare_rules: bool,
    /// The planner's version, for the record.
    pub version: &'a str,
    /// A link that reopens the view the document was made from (the dashboard's), if any.
    pub link: Option<&'a str>,
}

/// Why a review could not be composed: its sweep, or a scenario a comparison could not plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReviewError {
    Sweep(SweepError),
    Scenario(ScenarioError),
}

impl std::fmt::Display for ReviewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReviewError::Sweep(e) => e.fmt(f),
            ReviewError::Scenario(e) => e.fmt(f),
        }
    }
}

impl ReviewError {
    /// The stable code of the failure.
    pub fn code(&self) -> crate::codes::ErrorCode {
        match self {
            ReviewError::Sweep(e) => e.code(),
            ReviewError::Scenario(e) => e.code,
        }
    }
}

impl From<SweepError> for ReviewError {
    fn from(e: SweepError) -> ReviewError {
        ReviewError::Sweep(e)
    }
}

impl From<ScenarioError> for ReviewError {
    fn from(e: ScenarioError) -> ReviewError {
        ReviewError::Scenario(e)
    }
}

/// The review document of `r`: the plan, then the sweep (each step on top of the plan's
/// scenario as it applies; its crash columns when a model is given; which step is today's
/// fleet; the verdict on the targets), the comparison and the two releases' plans, when asked.
pub fn compose(r: &ReviewRequest) -> Result<Review, ReviewError> {
    let base = r.analysis.planned_scenario();
    let swept = match &r.sweep {
        None => None,
        Some(s) => {
            let steps = sweep(r.fleet, &base, s.axis, s.range.clone(), s.crash)?;
            let now = today(r.fleet, &base, s.axis)?;
            let verdict = s.targets.map(|t| verdict(s.axis, &steps, t));
            Some(SweepSection {
                axis: s.axis,
                steps,
                today: now,
                targets: s.targets,
                verdict,
            })
        }
    };
    // the comparison plans both snapshots by the rules the scenario sets (else each store's)
    let d = match r.before {
        Some(b) => Some(diff(b, r.fleet, base.rules)?),
        None => None,
    };
    let rd = match r.compare_rules {
        true => Some(diff_rules(r.fleet, &base)?),
        false => None,
    };
    Ok(review(&ReviewInputs {
        fleet: r.fleet,
        analysis: r.analysis,
        sweep: swept.as_ref(),
        diff: d.as_ref(),
        rules_diff: rd.as_ref(),
        version: r.version,
        link: r.link,
    }))
}
