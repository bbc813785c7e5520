//! The plan's figures for a state, from the decision core's one pipeline.

use spate_planner_core::{analyse, Analysis, Fleet, Rules, Scenario};

/// What `watch` prints.
pub(crate) struct Figures {
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

/// The leader's settings `watch` plans by: no what-if, by the rules the store names unless
/// `rules` sets them, with the rebalance delay given (Spate's unless set).
pub(crate) fn leader_settings(rules: Option<Rules>, rebalance_delay_ms: Option<u64>) -> Scenario {
    Scenario {
        rules,
        rebalance_delay_ms,
        ..Scenario::default()
    }
}

/// Plans `fleet` as the leader would, by `settings` ([`leader_settings`]).
pub(crate) fn plan_as_leader(fleet: &Fleet, settings: &Scenario) -> Result<Analysis, String> {
    analyse(fleet, settings).map_err(|e| format!("{e} [{}]", e.code))
}

/// The figures of `a`, an analysis of `fleet` ([`plan_as_leader`]).
pub(crate) fn figures(fleet: &Fleet, a: &Analysis) -> Figures {
    let rep = &a.report;
    Figures {
        members: rep.members.len(),
        max_over_mean: rep.balance.max_over_mean,
        max_over_bound: rep.balance.max_over_bound,
        queued: rep.counts.queued,
        moves: rep.churn.moves,
        from_published: a.published.as_ref().map(|p| p.changes),
        warnings: fleet.warnings.len(),
        rules: a.applied.rules.rules,
    }
}
