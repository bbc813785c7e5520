//! The plan's figures for a state, from the decision core's one pipeline.

use spate_planner_core::{analyse, Fleet, Scenario};

/// What `watch` prints.
pub struct Figures {
    pub members: usize,
    pub max_over_mean: f64,
    pub max_over_bound: f64,
    pub queued: u32,
    /// Moves the plan makes from the current owners.
    pub moves: u32,
    /// Splits whose owner in the plan differs from the leader's last published assignment
    /// (`None`: nothing published).
    pub from_published: Option<u32>,
    pub warnings: usize,
}

/// Plans `fleet` as the leader would: no what-if, the leader's own inputs from the store.
pub fn figures(fleet: &Fleet) -> Result<Figures, String> {
    let a = analyse(fleet, &Scenario::default()).map_err(|e| format!("{e} [{}]", e.code))?;
    let rep = &a.report;
    Ok(Figures {
        members: rep.members.len(),
        max_over_mean: rep.balance.max_over_mean,
        max_over_bound: rep.balance.max_over_bound,
        queued: rep.counts.queued,
        moves: rep.churn.moves,
        from_published: a.published.as_ref().map(|p| p.changes),
        warnings: fleet.warnings.len(),
    })
}
