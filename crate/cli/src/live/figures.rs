//! The plan's figures for a state, from the decision core's one pipeline.

use spate_planner_core::{analyse, review::MomentFigures, Analysis, Fleet, Rules, Scenario};

/// What `watch` prints: the core's figures of a moment, as the page charts them and `/metrics`
/// exposes them.
pub(crate) type Figures = MomentFigures;

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
    MomentFigures::of(fleet, a)
}
