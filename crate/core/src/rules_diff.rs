//! What upgrading (or not) changes: one store planned by Spate 0.1's rules and by 0.3's, side by
//! side (`spate-planner diff-rules`, and the dashboard's what-if).
//!
//! Each side is the leader's next decision under the same scenario, only the rules differ. A
//! pooled split (runnable, with a spec, not withheld) is *reassigned* by a side when the plan
//! names another member than the one the last publish named for it, or none (0.3's `previous`:
//! `last_assignees` of the `assign.*` records and the members, the same map for both sides). A
//! split the last publish named that has since left the pool (completed, quarantined, withheld)
//! is reassigned by neither. The splits 0.1 reassigns and 0.3 keeps are those that
//! would stop moving on upgrading: 0.1's unowned batch moved again by an unrelated completion
//! (upstream #820), a lease the record moved past keeping its old owner's lane (#824).

use crate::assign::Assignment;
use crate::exact::count;
use crate::fleet::Fleet;
use crate::pipeline::{analyse, Analysis};
use crate::report::Churn;
use crate::rules::{Rules, RulesChoice};
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The format tag of the document.
pub const RULES_DIFF_FORMAT: &str = "spate-planner-rules-diff/1";

/// One rule set's plan, in figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RulesSide {
    pub rules: Rules,
    /// Splits that change hands from their current owner, and their weight.
    pub churn: Churn,
    /// Pooled splits the plan places on another member than the last publish named, or queues.
    pub reassigned: u32,
    /// Of those, their total weight (saturating).
    pub weight_reassigned: u64,
    pub queued: u32,
    pub max_load: u64,
    /// `max_load / mean_load`, four decimals.
    pub max_over_mean: String,
    pub improving_moves: u32,
    pub bound_hit: bool,
    /// Each member's planned load.
    pub loads: BTreeMap<String, u64>,
}

/// A split the two rule sets place differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlacedApart {
    pub split: String,
    /// The member the last publish named, if any.
    pub published: Option<String>,
    /// Its member under 0.1's rules and under 0.3's (`None`: queued or not pooled).
    pub by_0_1: Option<String>,
    pub by_0_3: Option<String>,
}

/// The store planned by both rule sets.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RulesDiff {
    pub format: &'static str,
    pub job: String,
    pub taken_at_ms: i64,
    /// The rules the store names (or the scenario sets), and why: the side that is "today".
    pub today: RulesChoice,
    /// `today` in words ([`RulesChoice::explain`]).
    pub today_note: String,
    pub v0_1: RulesSide,
    pub v0_3: RulesSide,
    /// Splits 0.1 reassigns that 0.3 leaves with their published member: they stop moving on
    /// upgrading.
    pub kept_only_by_0_3: Vec<String>,
    /// Splits 0.3 reassigns that 0.1 leaves with their published member.
    pub kept_only_by_0_1: Vec<String>,
    /// Every split the two plans place on different members, in id order.
    pub placed_apart: Vec<PlacedApart>,
}

/// Split id -> member, of an assignment.
fn member_of(a: &Assignment) -> BTreeMap<&str, &str> {
    a.iter()
        .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
        .collect()
}

/// The pooled splits `plan` places elsewhere than `published` names, or queues (ids `published`
/// names only).
fn reassigned<'a>(
    published: &'a BTreeMap<String, String>,
    pooled: &BTreeSet<&str>,
    plan: &BTreeMap<&str, &str>,
) -> Vec<&'a str> {
    published
        .iter()
        .filter(|(id, m)| pooled.contains(id.as_str()) && plan.get(id.as_str()) != Some(&m.as_str()))
        .map(|(id, _)| id.as_str())
        .collect()
}

/// The splits the leader places: runnable, with a spec, not withheld (the same for both sides).
fn pooled(a: &Analysis) -> BTreeSet<&str> {
    let inputs = &a.applied.inputs;
    inputs
        .splits
        .iter()
        .filter(|(id, s)| s.is_assignable() && !inputs.reserved.contains(*id))
        .map(|(id, _)| id.as_str())
        .collect()
}

fn side(a: &Analysis, moved: &[&str]) -> RulesSide {
    let r = &a.report;
    let weight = |id: &&str| {
        a.applied
            .inputs
            .splits
            .get(*id)
            .and_then(|s| s.assign_weight())
            .unwrap_or(1)
    };
    RulesSide {
        rules: a.applied.rules.rules,
        churn: r.churn.clone(),
        reassigned: count(moved.len()),
        weight_reassigned: moved.iter().map(weight).fold(0u64, u64::saturating_add),
        queued: r.counts.queued,
        max_load: r.balance.max_load,
        max_over_mean: format!("{:.4}", r.balance.max_over_mean),
        improving_moves: r.improving_moves,
        bound_hit: r.bound_hit,
        loads: r
            .members
            .iter()
            .map(|m| (m.name.clone(), m.load_planned))
            .collect(),
    }
}

/// `fleet` under `scenario`, planned by 0.1's rules and by 0.3's (the scenario's own `rules`
/// only says which side is today).
pub fn diff_rules(fleet: &Fleet, scenario: &Scenario) -> Result<RulesDiff, ScenarioError> {
    let by = |rules| {
        let s = Scenario {
            rules: Some(rules),
            ..scenario.clone()
        };
        analyse(fleet, &s)
    };
    let (a1, a3) = (by(Rules::V0_1)?, by(Rules::V0_3)?);
    let today = scenario.apply(fleet)?.rules;
    let published = fleet.previous(&a1.applied.inputs.members);
    let (p1, p3) = (member_of(&a1.assignment), member_of(&a3.assignment));
    let pool = pooled(&a1);
    let (m1, m3) = (
        reassigned(&published, &pool, &p1),
        reassigned(&published, &pool, &p3),
    );
    let only = |a: &[&str], b: &[&str]| -> Vec<String> {
        let b: BTreeSet<&str> = b.iter().copied().collect();
        a.iter()
            .filter(|id| !b.contains(*id))
            .map(|id| id.to_string())
            .collect()
    };
    let ids: BTreeSet<&str> = p1.keys().chain(p3.keys()).copied().collect();
    let placed_apart = ids
        .into_iter()
        .filter(|id| p1.get(id) != p3.get(id))
        .map(|id| PlacedApart {
            split: id.to_string(),
            published: published.get(id).cloned(),
            by_0_1: p1.get(id).map(|m| m.to_string()),
            by_0_3: p3.get(id).map(|m| m.to_string()),
        })
        .collect();
    Ok(RulesDiff {
        format: RULES_DIFF_FORMAT,
        job: fleet.job.clone(),
        taken_at_ms: fleet.taken_at_ms,
        today,
        today_note: today.explain(),
        v0_1: side(&a1, &m1),
        v0_3: side(&a3, &m3),
        kept_only_by_0_3: only(&m1, &m3),
        kept_only_by_0_1: only(&m3, &m1),
        placed_apart,
    })
}
