//! The plan's figures for a state, from the decision core. The one place that calls the core's
//! planning API here (it is being reworked: re-point this function only).

use spate_planner_core::fleet::Fleet;
use spate_planner_core::report::{published_changes, report};
use spate_planner_core::scenario::Scenario;
use spate_planner_core::snapshot::Snapshot;

/// What `watch` prints.
pub struct Figures {
    pub members: usize,
    pub max_over_mean: f64,
    pub max_over_bound: f64,
    pub queued: usize,
    /// Moves the plan makes from the current owners.
    pub moves: usize,
    /// Splits whose owner in the plan differs from the leader's last published assignment
    /// (`None`: nothing published).
    pub from_published: Option<usize>,
    pub warnings: usize,
}

/// Plans `snap` as the leader would (no what-if, Spate's default cap 8).
pub fn figures(snap: &Snapshot) -> Result<Figures, String> {
    let fleet = Fleet::from_snapshot(snap).map_err(|e| format!("{e} [{}]", e.code))?;
    let inputs = Scenario::default()
        .apply(&fleet, 8)
        .map_err(|e| format!("{e} [{}]", e.code))?;
    let plan = inputs.plan();
    let rep = report(&inputs, &plan);
    Ok(Figures {
        members: rep.members.len(),
        max_over_mean: rep.balance.max_over_mean,
        max_over_bound: rep.balance.max_over_bound,
        queued: rep.counts.queued,
        moves: rep.churn.moves,
        from_published: published_changes(&fleet.published, &plan.assignment),
        warnings: fleet.warnings.len(),
    })
}
