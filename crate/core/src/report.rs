//! The figures a person reads off a plan: per-member load before and after, the moves against
//! current ownership and why, the queue, counts by state, balance and churn. Shared by the
//! command line and the dashboard so that both say the same thing.

use crate::assign::{Pass, Plan};
use crate::records::SplitStatus;
use crate::synth::LeaderInputs;
use serde::Serialize;

/// One member's line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberReport {
    pub name: String,
    /// Its lane cap (own, or the default).
    pub cap: u32,
    /// Whether the cap is the leader's default.
    pub default_cap: bool,
    /// Lanes used after the plan.
    pub lanes: usize,
    /// Splits it holds now (current owner), of those the leader may assign.
    pub lanes_now: usize,
    /// Weight it holds now, of the splits the leader may assign (saturating).
    pub load_now: u64,
    /// Weight after the plan (the leader's running load).
    pub load_planned: u64,
    pub gained: usize,
    pub lost: usize,
}

/// Why a split changes hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Nobody owns it yet: placed on the lightest member with a free lane.
    Unowned,
    /// Its owner is not a live member.
    OwnerGone,
    /// Its owner is a member whose lanes were full (heavier splits kept them).
    OverCap,
    /// Kept by its owner, then moved by an improving move.
    Improve,
    /// Owned, but the fleet has no free lane for it: it waits in the queue.
    Queued,
}

/// A split that changes hands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveReport {
    pub split: String,
    pub weight: u64,
    /// Its current owner (lease owner, else `progress.owner`).
    pub from: Option<String>,
    /// Its member after the plan; `None` when queued.
    pub to: Option<String>,
    pub reason: Reason,
    /// The gain of its last improving move, if one moved it.
    pub gain: Option<u128>,
}

/// Splits by state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub splits: usize,
    pub assigned: usize,
    /// Assignable but beyond the fleet's lanes.
    pub queued: usize,
    /// Assignable but reserved (withheld by the rebalance delay or by choice).
    pub reserved: usize,
    pub completed: usize,
    pub quarantined: usize,
    /// Runnable and not completed, but no spec has been seen.
    pub waiting_for_spec: usize,
}

/// How evenly the weight is spread after the plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Balance {
    /// Total weight of the assigned splits (saturating).
    pub total: u64,
    pub max_load: u64,
    pub min_load: u64,
    pub mean_load: f64,
    /// No assignment can have a lighter heaviest member: max(ceil(total / members), heaviest split).
    pub lower_bound: u64,
    /// `max_load / lower_bound` (1 is perfect; 0 when nothing is assigned).
    pub max_over_bound: f64,
    /// `max_load / mean_load` (0 when nothing is assigned).
    pub max_over_mean: f64,
}

/// What the plan costs in handovers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Churn {
    /// Splits that change hands (every entry of `moves`).
    pub moves: usize,
    /// Their total weight.
    pub weight_moved: u64,
    /// Of those, taken from a live member.
    pub from_live_members: usize,
}

/// Everything above, for one plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub members: Vec<MemberReport>,
    pub moves: Vec<MoveReport>,
    /// Queued split ids in pool order.
    pub queue: Vec<String>,
    pub counts: Counts,
    pub balance: Balance,
    pub churn: Churn,
    pub improving_moves: usize,
    pub bound_hit: bool,
    pub improvable: bool,
}

/// The report of `plan`, which must be the plan of `inputs`.
pub fn report(inputs: &LeaderInputs, plan: &Plan) -> Report {
    let ex = &plan.explain;
    let names = &ex.members;
    let index_of = |n: &str| names.binary_search_by(|m| m.as_str().cmp(n)).ok();
    let mut members: Vec<MemberReport> = names
        .iter()
        .zip(&ex.loads)
        .map(|(n, &load)| {
            let own = inputs.caps.get(n).copied();
            MemberReport {
                name: n.clone(),
                cap: own.unwrap_or(inputs.default_cap).max(1),
                default_cap: own.is_none(),
                lanes: plan.assignment.get(n).map_or(0, Vec::len),
                lanes_now: 0,
                load_now: 0,
                load_planned: load,
                gained: 0,
                lost: 0,
            }
        })
        .collect();

    let mut counts = Counts {
        splits: inputs.splits.len(),
        ..Counts::default()
    };
    let mut moves = Vec::new();
    let mut heaviest = 0u64;
    let mut total = 0u64;
    for ((id, s), placement) in inputs.splits.iter().zip(&ex.placements) {
        match s.progress.status {
            SplitStatus::Completed => {
                counts.completed += 1;
                continue;
            }
            SplitStatus::Quarantined => {
                counts.quarantined += 1;
                continue;
            }
            SplitStatus::Runnable => {}
        }
        if s.progress.completed {
            counts.completed += 1;
            continue;
        }
        let Some(w) = s.assign_weight() else {
            counts.waiting_for_spec += 1;
            continue;
        };
        if inputs.reserved.contains(id) {
            counts.reserved += 1;
            continue;
        }
        let owner = s.current_owner();
        let owner_idx = owner.and_then(index_of);
        if let Some(o) = owner_idx {
            members[o].lanes_now += 1;
            members[o].load_now = members[o].load_now.saturating_add(w);
        }
        let to_idx = placement.map(|p| p.member);
        if placement.is_some() {
            counts.assigned += 1;
            heaviest = heaviest.max(w);
            total = total.saturating_add(w);
        } else {
            counts.queued += 1;
        }
        if to_idx == owner_idx && owner_idx.is_some() {
            continue; // stays
        }
        if to_idx.is_none() && owner.is_none() {
            continue; // unowned and queued: nothing changes hands
        }
        if let Some(o) = owner_idx {
            members[o].lost += 1;
        }
        if let Some(t) = to_idx {
            members[t].gained += 1;
        }
        let reason = match placement {
            None => Reason::Queued,
            Some(p) if p.first_pass == Pass::Sticky => Reason::Improve,
            Some(_) => match (owner, owner_idx) {
                (None, _) => Reason::Unowned,
                (Some(_), None) => Reason::OwnerGone,
                (Some(_), Some(_)) => Reason::OverCap,
            },
        };
        moves.push(MoveReport {
            split: id.clone(),
            weight: w,
            from: owner.map(str::to_string),
            to: to_idx.map(|t| names[t].clone()),
            reason,
            gain: placement.and_then(|p| p.last_move).map(|i| ex.moves[i].gain),
        });
    }

    let m = names.len() as u64;
    let max_load = ex.loads.iter().copied().max().unwrap_or(0);
    let min_load = ex.loads.iter().copied().min().unwrap_or(0);
    let mean_load = if m == 0 { 0.0 } else { total as f64 / m as f64 };
    let lower_bound = if m == 0 {
        0
    } else {
        total.div_ceil(m).max(heaviest)
    };
    let ratio = |a: u64, b: f64| if b > 0.0 { a as f64 / b } else { 0.0 };
    let churn = Churn {
        moves: moves.len(),
        weight_moved: moves.iter().fold(0u64, |t, mv| t.saturating_add(mv.weight)),
        from_live_members: moves
            .iter()
            .filter(|mv| mv.from.as_deref().and_then(index_of).is_some())
            .count(),
    };
    Report {
        members,
        moves,
        queue: ex.queue.clone(),
        counts,
        balance: Balance {
            total,
            max_load,
            min_load,
            mean_load,
            lower_bound,
            max_over_bound: ratio(max_load, lower_bound as f64),
            max_over_mean: ratio(max_load, mean_load),
        },
        churn,
        improving_moves: ex.moves.len(),
        bound_hit: ex.bound_hit,
        improvable: ex.improvable,
    }
}

/// Bytes in binary units, for people: `1.5 GiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// One round of convergence: the fleet carried out the previous plan, and the leader replans.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Round {
    /// 1 for the plan of the inputs as given.
    pub round: usize,
    /// Splits that change hands in this round's plan.
    pub moves: usize,
    pub weight_moved: u64,
    pub improving_moves: usize,
    pub bound_hit: bool,
    pub max_over_mean: f64,
    pub max_over_bound: f64,
}

/// Applies each plan as the new ownership and replans, until a plan moves nothing or
/// `max_rounds` rounds were made. The last round is the first with no moves, if reached.
pub fn converge(inputs: &LeaderInputs, max_rounds: usize) -> Vec<Round> {
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

#[derive(Serialize)]
struct PlanDocument<'a> {
    job: &'a str,
    taken_at_ms: i64,
    seed: u64,
    default_cap: u32,
    reserved: Vec<&'a String>,
    scenario: &'a crate::scenario::Scenario,
    assignment: &'a crate::Assignment,
    report: &'a Report,
    warnings: &'a [crate::fleet::Warning],
}

/// The plan as one JSON document (`spate-planner plan --json`, and the dashboard's "plan as
/// JSON"): `assignment` maps every member to its sorted split ids; `report`, the inputs'
/// settings, the scenario and the snapshot's warnings beside it. Integers are exact.
pub fn plan_document(
    fleet: &crate::fleet::Fleet,
    inputs: &LeaderInputs,
    scenario: &crate::scenario::Scenario,
    plan: &Plan,
    report: &Report,
) -> String {
    let doc = PlanDocument {
        job: &fleet.job,
        taken_at_ms: fleet.taken_at_ms,
        seed: inputs.seed,
        default_cap: inputs.default_cap,
        reserved: inputs.reserved.iter().collect(),
        scenario,
        assignment: &plan.assignment,
        report,
        warnings: &fleet.warnings,
    };
    // Serializing these plain types cannot fail.
    serde_json::to_string(&doc).unwrap_or_default()
}

/// How the plan differs from the leader's last published assignment (`assign.{instance}`):
/// the splits whose member would change (including splits published nowhere or planned nowhere).
/// `None` when nothing was published.
pub fn published_changes(
    published: &std::collections::BTreeMap<String, crate::records::AssignmentVal>,
    assignment: &crate::Assignment,
) -> Option<usize> {
    if published.is_empty() {
        return None;
    }
    let before: std::collections::BTreeMap<&str, &str> = published
        .iter()
        .flat_map(|(m, a)| a.splits.iter().map(move |id| (id.as_str(), m.as_str())))
        .collect();
    let after: std::collections::BTreeMap<&str, &str> = assignment
        .iter()
        .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
        .collect();
    let changed_or_dropped = before.iter().filter(|(id, m)| after.get(*id) != Some(*m)).count();
    let new = after.keys().filter(|id| !before.contains_key(*id)).count();
    Some(changed_or_dropped + new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::AssignmentVal;
    use std::collections::BTreeMap;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn published_changes_count_moved_new_and_dropped_splits() {
        let published = BTreeMap::from([
            (
                "a".to_string(),
                AssignmentVal {
                    schema: 3,
                    generation: 1,
                    splits: vec!["s1".into(), "s2".into()],
                },
            ),
            (
                "b".to_string(),
                AssignmentVal {
                    schema: 3,
                    generation: 1,
                    splits: vec!["s3".into()],
                },
            ),
        ]);
        let plan = BTreeMap::from([
            ("a".to_string(), vec!["s1".to_string()]),
            ("b".to_string(), vec!["s2".to_string(), "s4".to_string()]),
        ]);
        // s2 moved, s3 dropped, s4 new
        assert_eq!(published_changes(&published, &plan), Some(3));
        assert_eq!(published_changes(&BTreeMap::new(), &plan), None);
    }

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(u64::MAX), "16.0 EiB");
    }
}
