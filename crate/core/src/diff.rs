//! Comparing two states of a job ("what changed between last week's store and today's?").
//!
//! Both states are analysed with no what-if (each the leader's next decision as its store shows
//! it); the comparison reads their members, caps, current owners and figures, and checks whether
//! the later state's published assignment is what the planner decided from the earlier state.

use crate::exact::count;
use crate::fleet::Fleet;
use crate::pipeline::{analyse, Analysis};
use crate::report::Report;
use crate::rules::{Rules, RulesChoice};
use crate::scenario::{Scenario, ScenarioError};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Which snapshot a side is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub job: String,
    pub taken_at_ms: i64,
    pub plan_generation: Option<u64>,
    pub members: u32,
    pub splits: u32,
    /// The rules its plan decides by, and where they come from.
    pub rules: RulesChoice,
}

/// One member on both sides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberChange {
    pub name: String,
    /// Its current load (what it holds of the assignable splits); `None` when not a member.
    pub load_before: Option<u64>,
    pub load_after: Option<u64>,
    pub cap_before: Option<u32>,
    pub cap_after: Option<u32>,
}

/// A split whose current owner changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OwnerChange {
    pub split: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The figures of one side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    pub max_load_now: u64,
    pub max_load_planned: u64,
    pub max_over_mean_planned: f64,
    pub queued: u32,
    pub moves: u32,
    pub bytes_moved: u64,
    pub completed: u32,
    pub quarantined: u32,
}

/// Whether the later published assignment is the earlier state's planned one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DecisionCheck {
    /// The later state has `assign.*` records to compare.
    pub published: bool,
    pub matches: bool,
    /// Splits whose published member differs from the planned one (planned, published).
    pub differences: BTreeMap<String, (Option<String>, Option<String>)>,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    pub before: Identity,
    pub after: Identity,
    pub joined: Vec<String>,
    pub left: Vec<String>,
    pub members: Vec<MemberChange>,
    pub owner_changes: Vec<OwnerChange>,
    pub figures_before: Figures,
    pub figures_after: Figures,
    pub decision: DecisionCheck,
}

fn identity(f: &Fleet, a: &Analysis) -> Identity {
    Identity {
        rules: a.applied.rules,
        job: f.job.clone(),
        taken_at_ms: f.taken_at_ms,
        plan_generation: f.plan.as_ref().map(|p| p.generation),
        members: count(f.members.len()),
        splits: count(f.splits.len()),
    }
}

fn figures(r: &Report) -> Figures {
    Figures {
        max_load_now: r.members.iter().map(|m| m.load_now).max().unwrap_or(0),
        max_load_planned: r.balance.max_load,
        max_over_mean_planned: r.balance.max_over_mean,
        queued: r.counts.queued,
        moves: r.churn.moves,
        bytes_moved: r.churn.weight_moved,
        completed: r.counts.completed,
        quarantined: r.counts.quarantined,
    }
}

fn members(b: &Analysis, a: &Analysis) -> Vec<MemberChange> {
    let side = |x: &Analysis| -> BTreeMap<String, (u64, u32)> {
        x.report
            .members
            .iter()
            .map(|m| (m.name.clone(), (m.load_now, m.cap)))
            .collect()
    };
    let (before, after) = (side(b), side(a));
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .map(|n| MemberChange {
            name: n.clone(),
            load_before: before.get(n).map(|v| v.0),
            load_after: after.get(n).map(|v| v.0),
            cap_before: before.get(n).map(|v| v.1),
            cap_after: after.get(n).map(|v| v.1),
        })
        .collect()
}

fn owner_changes(before: &Fleet, after: &Fleet) -> Vec<OwnerChange> {
    let ids: BTreeSet<&String> = before.splits.keys().chain(after.splits.keys()).collect();
    ids.into_iter()
        .filter_map(|id| {
            let b = before.splits.get(id).and_then(|s| s.current_owner());
            let a = after.splits.get(id).and_then(|s| s.current_owner());
            (b != a).then(|| OwnerChange {
                split: id.clone(),
                before: b.map(str::to_string),
                after: a.map(str::to_string),
            })
        })
        .collect()
}

fn decision(planned: &Analysis, later: &Fleet) -> DecisionCheck {
    let member_of = |m: &BTreeMap<String, Vec<String>>| -> BTreeMap<String, String> {
        m.iter()
            .flat_map(|(x, ids)| ids.iter().map(move |id| (id.clone(), x.clone())))
            .collect()
    };
    let plan = member_of(&planned.assignment);
    let published: BTreeMap<String, Vec<String>> = later
        .published
        .iter()
        .map(|(x, a)| (x.clone(), a.splits.clone()))
        .collect();
    let published = member_of(&published);
    let ids: BTreeSet<&String> = plan.keys().chain(published.keys()).collect();
    let differences: BTreeMap<String, (Option<String>, Option<String>)> = ids
        .into_iter()
        .filter(|id| plan.get(*id) != published.get(*id))
        .map(|id| (id.clone(), (plan.get(id).cloned(), published.get(id).cloned())))
        .collect();
    DecisionCheck {
        published: !later.published.is_empty(),
        matches: !later.published.is_empty() && differences.is_empty(),
        differences,
    }
}

/// Compares `before` with `after`, both as their stores show them, each planned by the rules
/// its store names unless `rules` sets them for both.
pub fn diff(before: &Fleet, after: &Fleet, rules: Option<Rules>) -> Result<Diff, ScenarioError> {
    let scenario = Scenario {
        rules,
        ..Scenario::default()
    };
    let b = analyse(before, &scenario)?;
    let a = analyse(after, &scenario)?;
    let names = |f: &Fleet| f.members.keys().cloned().collect::<BTreeSet<_>>();
    let (nb, na) = (names(before), names(after));
    Ok(Diff {
        before: identity(before, &b),
        after: identity(after, &a),
        joined: na.difference(&nb).cloned().collect(),
        left: nb.difference(&na).cloned().collect(),
        members: members(&b, &a),
        owner_changes: owner_changes(before, after),
        figures_before: figures(&b.report),
        figures_after: figures(&a.report),
        decision: decision(&b, after),
    })
}
