//! The plan's figures for a state, from the decision core's one pipeline.

use spate_planner_core::{analyse, Fleet, Rules, Scenario, Snapshot};

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
    /// The release whose rules the plan follows.
    pub rules: Rules,
}

/// Plans `snap` as the leader would: no what-if, the leader's own inputs from the store, by the
/// rules the store names unless `rules` sets them.
pub fn figures(snap: &Snapshot, rules: Option<Rules>) -> Result<Figures, String> {
    let fleet = Fleet::from_snapshot(snap).map_err(|e| format!("{e} [{}]", e.code))?;
    let scenario = Scenario {
        rules,
        ..Scenario::default()
    };
    let a = analyse(&fleet, &scenario).map_err(|e| format!("{e} [{}]", e.code))?;
    let rep = &a.report;
    Ok(Figures {
        members: rep.members.len(),
        max_over_mean: rep.balance.max_over_mean,
        max_over_bound: rep.balance.max_over_bound,
        queued: rep.counts.queued,
        moves: rep.churn.moves,
        from_published: a.published.as_ref().map(|p| p.changes),
        warnings: fleet.warnings.len(),
        rules: a.applied.rules.rules,
    })
}
