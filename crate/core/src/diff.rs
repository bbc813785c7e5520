//! Comparing two states of a job ("what changed between last week's store and today's?").
//!
//! Both states are analysed with no what-if (each the leader's next decision as its store shows
//! it); the comparison reads their members, caps, current owners and figures, and checks whether
//! the later state's published assignment is what the planner decided from the earlier state.

use crate::exact::count;
use crate::fleet::Fleet;
use crate::pipeline::{analyse, Analysis};
use crate::report::{ratio4, Report};
use crate::rules::{Rules, RulesChoice};
use crate::scenario::{Scenario, ScenarioError};
use crate::utc::utc_text;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Which snapshot a side is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MemberChange {
    pub name: String,
    /// Its current load (what it holds of the assignable splits); `None` when not a member.
    pub load_before: Option<u64>,
    pub load_after: Option<u64>,
    pub cap_before: Option<u32>,
    pub cap_after: Option<u32>,
    /// `load_after - load_before`, a side where it is not a member counting 0.
    pub load_change: i128,
}

/// A member on both sides whose cap changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CapChange {
    pub name: String,
    pub before: u32,
    pub after: u32,
}

/// Whether "before" was taken before "after".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Chronology {
    /// Before is the earlier snapshot, as a comparison reads it.
    Forward,
    /// Both were taken at the same instant: nothing happened between them.
    SameInstant,
    /// Before was taken later: the comparison runs backwards.
    Backwards,
}

impl Chronology {
    fn of(before_ms: i64, after_ms: i64) -> Chronology {
        match before_ms.cmp(&after_ms) {
            std::cmp::Ordering::Less => Chronology::Forward,
            std::cmp::Ordering::Equal => Chronology::SameInstant,
            std::cmp::Ordering::Greater => Chronology::Backwards,
        }
    }

    /// The warning a comparison that does not run forward carries (`None` when it does).
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Chronology::Forward => None,
            Chronology::SameInstant => Some("\"Before\" is not earlier than \"after\": both were taken at the same instant, so nothing happened between them."),
            Chronology::Backwards => Some("\"Before\" is not earlier than \"after\": it was taken later, so the comparison runs backwards (joined and left, and every change, read the wrong way round); take the earlier snapshot as \"before\"."),
        }
    }
}

/// A split whose current owner changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OwnerChange {
    pub split: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The figures of one side.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "DiffFigures"))]
pub struct Figures {
    pub max_load_now: u64,
    pub max_load_planned: u64,
    /// The planned max/mean load, four decimals.
    pub max_over_mean_planned: String,
    pub queued: u32,
    pub moves: u32,
    pub bytes_moved: u64,
    pub completed: u32,
    pub quarantined: u32,
}

/// Whether the later published assignment is the earlier state's planned one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DecisionCheck {
    /// The later state has `assign.*` records to compare.
    pub published: bool,
    pub matches: bool,
    /// How many splits `differences` lists.
    pub differing: u32,
    /// Splits whose published member differs from the planned one (planned, published).
    pub differences: BTreeMap<String, (Option<String>, Option<String>)>,
    /// The check in one sentence.
    pub verdict: String,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diff {
    pub before: Identity,
    pub after: Identity,
    pub joined: Vec<String>,
    pub left: Vec<String>,
    pub members: Vec<MemberChange>,
    /// The members on both sides whose cap changed, by name.
    pub cap_changes: Vec<CapChange>,
    /// How many splits `owner_changes` lists.
    pub owner_changed: u32,
    pub owner_changes: Vec<OwnerChange>,
    pub figures_before: Figures,
    pub figures_after: Figures,
    pub decision: DecisionCheck,
    /// Whether "before" was taken before "after", and the warning when it was not.
    pub chronology: Chronology,
    pub chronology_warning: Option<&'static str>,
    /// Every warning of the comparison in words, as the page's Compare tab and the review
    /// document show them: "before" not earlier than "after" (with when each was taken), two
    /// different jobs.
    pub warnings: Vec<String>,
}

/// The comparison's warnings in words ([`Diff::warnings`]).
fn warnings(before: &Fleet, after: &Fleet, chronology: Chronology) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(w) = chronology.warning() {
        out.push(format!(
            "{w} (\"Before\" was taken {}; \"after\" {}.)",
            utc_text(before.taken_at_ms),
            utc_text(after.taken_at_ms)
        ));
    }
    if before.job != after.job {
        out.push(format!(
            "These are two different jobs ({} and {}).",
            before.job, after.job
        ));
    }
    out
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
        max_over_mean_planned: ratio4(r.balance.max_over_mean),
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
        .map(|n| {
            let (b, a) = (before.get(n), after.get(n));
            let load = |v: Option<&(u64, u32)>| i128::from(v.map_or(0, |v| v.0));
            MemberChange {
                name: n.clone(),
                load_before: b.map(|v| v.0),
                load_after: a.map(|v| v.0),
                cap_before: b.map(|v| v.1),
                cap_after: a.map(|v| v.1),
                load_change: load(a) - load(b),
            }
        })
        .collect()
}

fn cap_changes(members: &[MemberChange]) -> Vec<CapChange> {
    members
        .iter()
        .filter_map(|m| match (m.cap_before, m.cap_after) {
            (Some(before), Some(after)) if before != after => Some(CapChange {
                name: m.name.clone(),
                before,
                after,
            }),
            _ => None,
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
    let published = !later.published.is_empty();
    let differing = count(differences.len());
    let verdict = match (published, differences.is_empty()) {
        (false, _) => "The later snapshot has no published assignment (no assign.* records) to check against the planner.".to_string(),
        (true, true) => "The later published assignment is exactly what the planner decided from the earlier snapshot.".to_string(),
        (true, false) => format!(
            "The later published assignment differs from what the planner decided from the earlier snapshot for {differing} split{}.",
            if differing == 1 { "" } else { "s" }
        ),
    };
    DecisionCheck {
        published,
        matches: published && differences.is_empty(),
        differing,
        differences,
        verdict,
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
    let members = members(&b, &a);
    let owners = owner_changes(before, after);
    let chronology = Chronology::of(before.taken_at_ms, after.taken_at_ms);
    Ok(Diff {
        before: identity(before, &b),
        after: identity(after, &a),
        joined: na.difference(&nb).cloned().collect(),
        left: nb.difference(&na).cloned().collect(),
        cap_changes: cap_changes(&members),
        members,
        owner_changed: count(owners.len()),
        owner_changes: owners,
        figures_before: figures(&b.report),
        figures_after: figures(&a.report),
        decision: decision(&b, after),
        chronology,
        chronology_warning: chronology.warning(),
        warnings: warnings(before, after, chronology),
    })
}
