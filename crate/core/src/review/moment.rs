//! The figures of one moment of a job: what `watch` prints for each state, what the live page
//! and a replay chart over time (the plan view's point, `Planner.analyse`'s `moment`), and what
//! `/metrics` exposes of the plan ([`super::Gauges::moment`]). One struct, made in one place
//! from an analysis, so the three cannot give different numbers for the same state.

use crate::exact::count;
use crate::fleet::Fleet;
use crate::pipeline::Analysis;
use crate::rules::Rules;
use serde::Serialize;

/// A moment's figures, each one of the plan document's (`plan --json` of the same state) or a
/// count over it. Serialized in camelCase (the page's points); `maxLoad` through `exact` as a
/// decimal string.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MomentFigures {
    /// `report.members`, counted.
    pub members: u32,
    /// `report.balance.max_over_mean`.
    pub max_over_mean: f64,
    /// `report.balance.max_over_bound`.
    pub max_over_bound: f64,
    /// `report.balance.max_load`: the heaviest member's load as planned.
    pub max_load: u64,
    /// `report.balance.mean_load`.
    pub mean_load: f64,
    /// `report.counts.queued`.
    pub queued: u32,
    /// `report.churn.moves`: moves the plan makes from the current owners.
    pub moves: u32,
    /// `published.changes`: splits whose member in the plan differs from the leader's last
    /// published assignment (`None`: nothing published).
    pub from_published: Option<u32>,
    /// `report.counts.completed`.
    pub completed: u32,
    /// `report.counts.quarantined`.
    pub quarantined: u32,
    /// `warnings`, counted.
    pub warnings: u32,
    /// The release whose rules the plan follows.
    pub rules: Rules,
}

impl MomentFigures {
    /// The figures of `a`, an analysis of `fleet` (the leader's plan: no what-if).
    pub fn of(fleet: &Fleet, a: &Analysis) -> MomentFigures {
        let r = &a.report;
        MomentFigures {
            members: count(r.members.len()),
            max_over_mean: r.balance.max_over_mean,
            max_over_bound: r.balance.max_over_bound,
            max_load: r.balance.max_load,
            mean_load: r.balance.mean_load,
            queued: r.counts.queued,
            moves: r.churn.moves,
            from_published: a.published.as_ref().map(|p| p.changes),
            completed: r.counts.completed,
            quarantined: r.counts.quarantined,
            warnings: count(fleet.warnings.len()),
            rules: a.applied.rules.rules,
        }
    }
}
