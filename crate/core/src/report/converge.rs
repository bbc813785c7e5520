//! Convergence: the fleet carries out each plan, and the leader replans, round after round.

use super::{ratio4, report};
use crate::leader::LeaderInputs;
use serde::Serialize;

/// The format tag of the convergence document (`spate-planner converge --json`).
pub const CONVERGE_FORMAT: &str = "spate-planner-converge/1";

/// One round of convergence.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Round {
    /// 1 for the plan of the inputs as given.
    pub round: u32,
    /// Splits that change hands in this round's plan.
    pub moves: u32,
    pub weight_moved: u64,
    pub improving_moves: u32,
    pub bound_hit: bool,
    /// The round's planned max/mean load, four decimals (`0.0000` when nothing is assigned).
    pub max_over_mean: String,
    /// Its max load over the lower bound, four decimals.
    pub max_over_bound: String,
}

/// Rounds until a plan moves nothing, and whether that was reached.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Convergence {
    pub format: &'static str,
    pub rounds: Vec<Round>,
    /// The last round moves nothing.
    pub converged: bool,
    /// The verdict in one sentence.
    pub verdict: String,
}

/// Applies each plan as the new ownership ([`LeaderInputs::owned_as`]) and replans, until a plan
/// moves nothing or `max_rounds` rounds were made (at least one). The last round is the first
/// with no moves, if reached.
pub fn converge(inputs: &LeaderInputs, max_rounds: u32) -> Convergence {
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
            max_over_mean: ratio4(rep.balance.max_over_mean),
            max_over_bound: ratio4(rep.balance.max_over_bound),
        });
        if rep.churn.moves == 0 {
            break;
        }
        current = current.owned_as(&plan.assignment);
    }
    let last = rounds.last().map_or((0, 1), |r| (r.moves, r.round));
    let converged = last.0 == 0;
    let verdict = if converged {
        format!("Converged: round {} moves nothing.", last.1)
    } else {
        let n = rounds.len();
        format!("Still moving after {n} round{}.", if n == 1 { "" } else { "s" })
    };
    Convergence {
        format: CONVERGE_FORMAT,
        rounds,
        converged,
        verdict,
    }
}
