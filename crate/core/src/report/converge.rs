//! Convergence: the fleet carries out each plan, and the leader replans, round after round.

use super::report;
use crate::leader::LeaderInputs;
use serde::Serialize;

/// One round of convergence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    /// 1 for the plan of the inputs as given.
    pub round: u32,
    /// Splits that change hands in this round's plan.
    pub moves: u32,
    pub weight_moved: u64,
    pub improving_moves: u32,
    pub bound_hit: bool,
    pub max_over_mean: f64,
    pub max_over_bound: f64,
}

/// Applies each plan as the new ownership ([`LeaderInputs::owned_as`]) and replans, until a plan
/// moves nothing or `max_rounds` rounds were made (at least one). The last round is the first
/// with no moves, if reached.
pub fn converge(inputs: &LeaderInputs, max_rounds: u32) -> Vec<Round> {
    let mut rounds = Vec::new();
    let mut current = inputs.clone();
    for round in 1..=max_rounds.max(1) {
        let plan = current.plan();
        let rep = report(&current, &plan);
        rounds.push(Round {
            round,
            moves: rep.churn.moves,
            weight_moved: rep.churn.weight_moved,
            improving_moves: rep.improving_moves,
            bound_hit: rep.bound_hit,
            max_over_mean: rep.balance.max_over_mean,
            max_over_bound: rep.balance.max_over_bound,
        });
        if rep.churn.moves == 0 {
            break;
        }
        current = current.owned_as(&plan.assignment);
    }
    rounds
}
