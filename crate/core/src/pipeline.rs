//! The one path from a loaded snapshot to what the planner shows:
//! fleet → scenario → leader inputs → plan → report (and the workers' next actions).
//!
//! The command line and the wasm layer both call [`analyse`]; neither plans on its own, so the
//! two cannot disagree.

use crate::assign::Assignment;
use crate::assign::{Explain, Plan};
use crate::fleet::Fleet;
use crate::report::{published_distance, report, PublishedDistance, Report};
use crate::scenario::{Applied, Refused, Scenario, ScenarioError};
use crate::worker::{next_actions_of_all, NextActions, WorkerView};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Why the leader publishes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum NoPublish {
    /// There is no `plan` record.
    NoPlan,
    /// There are no members.
    NoMembers,
}

impl NoPublish {
    /// One sentence for people.
    pub fn explain(self) -> &'static str {
        match self {
            NoPublish::NoPlan => {
                "there is no plan record, so the leader publishes nothing: the current assignments stand"
            }
            NoPublish::NoMembers => {
                "there are no members, so the leader publishes nothing: the current assignments stand"
            }
        }
    }
}

/// A fleet planned under a scenario: everything the views show.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The scenario as given (with any change that did not apply).
    pub scenario: Scenario,
    /// The changes of `scenario` left out of the plan, in order, each with its reason (empty
    /// from [`analyse`], which fails instead).
    pub refused: Vec<Refused>,
    pub applied: Applied,
    /// `None` when the leader publishes; else why it does not.
    pub no_publish: Option<NoPublish>,
    /// Why the plan of the inputs is what it is (computed even when the leader would not
    /// publish it).
    pub explain: Explain,
    /// What the leader leaves the workers with: the plan's assignment, or, when it publishes
    /// nothing, the records that stand.
    pub assignment: Assignment,
    pub report: Report,
    pub published: Option<PublishedDistance>,
}

/// Plans `fleet` under `scenario`; fails with the first change that does not apply.
pub fn analyse(fleet: &Fleet, scenario: &Scenario) -> Result<Analysis, ScenarioError> {
    let a = analyse_partly(fleet, scenario);
    match a.refused.first() {
        Some(r) => Err(r.error()),
        None => Ok(a),
    }
}

/// Plans `fleet` under what applies of `scenario`: each change that does not apply is left out
/// and listed in `refused` with its reason ([`Scenario::apply_partly`]), and the rest are
/// planned. The one policy for scenarios that partly apply: the dashboard and
/// `spate-planner plan --what-if` both use it. The baseline beside it is the plan of
/// [`Scenario::baseline`].
pub fn analyse_partly(fleet: &Fleet, scenario: &Scenario) -> Analysis {
    let (applied, refused) = scenario.apply_partly(fleet);
    let inputs = &applied.inputs;
    let plan = inputs.plan();
    let no_publish = match (&fleet.plan, inputs.members.is_empty()) {
        (None, _) => Some(NoPublish::NoPlan),
        (Some(_), true) => Some(NoPublish::NoMembers),
        _ => None,
    };
    let report = match no_publish {
        None => report(inputs, &plan),
        Some(_) => report(inputs, &plan).standing(),
    };
    let Plan { assignment, explain } = plan;
    let assignment = match no_publish {
        None => assignment,
        Some(_) => standing(fleet),
    };
    let generation = fleet.plan.as_ref().map(|p| p.generation);
    let published = published_distance(&fleet.published, generation, &assignment);
    Analysis {
        scenario: scenario.clone(),
        refused,
        applied,
        no_publish,
        explain,
        assignment,
        report,
        published,
    }
}

impl Analysis {
    /// The scenario that was planned: the one given without the changes it refused.
    pub fn planned_scenario(&self) -> Scenario {
        let mut s = self.scenario.clone();
        let mut at = 0u32;
        s.changes.retain(|_| {
            let keep = !self.refused.iter().any(|r| r.index == at);
            at += 1;
            keep
        });
        s
    }
}

/// The published records, as an assignment.
fn standing(fleet: &Fleet) -> Assignment {
    fleet
        .published
        .iter()
        .map(|(m, a)| (m.clone(), a.splits.clone()))
        .collect()
}

/// Which assignment the workers act on in [`next_claims`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum AssignmentSource {
    /// Each worker's published `assign.{X}` record (what they act on now).
    Published,
    /// The planned assignment (what they act on once the leader publishes it).
    Plan,
}

impl AssignmentSource {
    /// Whether `instance` has an assignment record to act on, from this source.
    pub fn has_assignment(self, fleet: &Fleet, analysis: &Analysis, instance: &str) -> bool {
        match self {
            AssignmentSource::Published => fleet.published.contains_key(instance),
            AssignmentSource::Plan => analysis.assignment.contains_key(instance),
        }
    }
}

/// Each live member's next reconcile (or just `instance`'s). Errors when `instance` is not a
/// member of the scenario's fleet.
pub fn next_claims(
    fleet: &Fleet,
    analysis: &Analysis,
    instance: Option<&str>,
    source: AssignmentSource,
    max_attempts: u32,
) -> Result<BTreeMap<String, NextActions>, ScenarioError> {
    let inputs = &analysis.applied.inputs;
    let members: Vec<&String> = match instance {
        None => inputs.members.iter().collect(),
        Some(x) => vec![inputs.members.get(x).ok_or_else(|| ScenarioError {
            code: crate::codes::ErrorCode::NotAMember,
            path: "instance".into(),
            message: format!("{x:?} is not a live member"),
        })?],
    };
    let assignments: Vec<Option<BTreeSet<String>>> = members
        .iter()
        .map(|x| match source {
            AssignmentSource::Published => fleet
                .published
                .get(*x)
                .map(|a| a.splits.iter().cloned().collect()),
            AssignmentSource::Plan => analysis
                .assignment
                .get(*x)
                .map(|ids| ids.iter().cloned().collect()),
        })
        .collect();
    let views: Vec<WorkerView> = members
        .iter()
        .zip(&assignments)
        .map(|(x, assignment)| WorkerView {
            rules: inputs.rules,
            instance: x,
            nonce: fleet.members.get(*x).and_then(|m| m.nonce.as_deref()),
            cap: inputs.cap_of(x),
            assignment: assignment.as_ref(),
            max_attempts,
        })
        .collect();
    let next = next_actions_of_all(&inputs.splits, &views);
    Ok(members.into_iter().cloned().zip(next).collect())
}
