//! The figures a person reads off a plan: per-member load before and after, the moves against
//! current ownership and why, the queue, counts by state, balance and churn. Shared by the
//! command line and the dashboard so that both say the same thing.
//!
//! Beside it: [`converge`] (round after round), [`published`] (the distance to the leader's
//! last published assignment) and [`summary`] (who is over the mean and at the cap, now and
//! planned). The documents built on a whole analysis are in `crate::review`.

mod converge;
mod published;
mod summary;

use crate::assign::{Pass, Placement, Plan};
use crate::exact::count;
use crate::leader::LeaderInputs;
use crate::records::SplitStatus;
use crate::rules::Rules;
use crate::state::SplitState;
use foldhash::{HashMap, HashSet};
use serde::Serialize;

pub use converge::{converge, Convergence, Round, CONVERGE_FORMAT};
pub use published::{published_distance, PublishedDistance};
pub use summary::{at_cap, summary, Heaviest, Marks, Mean, Summary, SummarySide};

/// One member's line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MemberReport {
    pub name: String,
    /// Its lane cap (own, or the default).
    pub cap: u32,
    /// Whether the cap is the leader's default.
    pub default_cap: bool,
    /// Lanes used after the plan.
    pub lanes: u32,
    /// Splits it holds now (current owner), of those the leader may assign.
    pub lanes_now: u32,
    /// Weight it holds now, of the splits the leader may assign (saturating).
    pub load_now: u64,
    /// Weight after the plan (the leader's running load).
    pub load_planned: u64,
    /// `load_planned - load_now`: what the plan adds to it (negative: takes off).
    pub load_change: i128,
    pub gained: u32,
    pub lost: u32,
}

/// Why a split changes hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// 0.3: its lease is behind its progress record (the split was released or taken over and
    /// the old lease is still in view), so the lease keeps no lane for its owner.
    LeaseNotCurrent,
    /// 0.3: kept by its `previous` assignee, the member the leader's last publish named (its
    /// lease does not count, or there is none).
    Previous,
    /// 0.3: kept by the owner its progress record names (its lease does not count, or its lease
    /// owner had no free lane, and no `previous` assignee with a free lane).
    RecordOwner,
}

impl Reason {
    /// Every reason, in declaration order.
    pub const ALL: [Reason; 8] = [
        Reason::Unowned,
        Reason::OwnerGone,
        Reason::OverCap,
        Reason::Improve,
        Reason::Queued,
        Reason::LeaseNotCurrent,
        Reason::Previous,
        Reason::RecordOwner,
    ];

    /// The reason in a few words, as the human report, the review document and the dashboard
    /// write it.
    pub fn words(self) -> &'static str {
        match self {
            Reason::Unowned => "unowned: fill",
            Reason::OwnerGone => "owner gone",
            Reason::OverCap => "owner over cap",
            Reason::Improve => "improving move",
            Reason::Queued => "queued: no free lane",
            Reason::LeaseNotCurrent => "lease behind its record (0.3)",
            Reason::Previous => "kept by the last publish's assignee (0.3)",
            Reason::RecordOwner => "kept by its record's owner (0.3)",
        }
    }

    /// The reason in one sentence (the dashboard's help beside the words).
    pub fn help(self) -> &'static str {
        match self {
            Reason::Unowned => "Nobody owned it: the leader fills it into the lightest member with a free lane.",
            Reason::OwnerGone => "Its owner is no longer a member, so it goes to a live one.",
            Reason::OverCap => "Its owner's lanes were taken by heavier splits.",
            Reason::Improve => "Kept by its owner, then moved to even out the load.",
            Reason::Queued => "No member has a free lane: it waits in the queue.",
            Reason::LeaseNotCurrent => "Spate 0.3: its lease is older than its progress record (the split was released or taken over), so the lease keeps no lane for its owner.",
            Reason::Previous => "Spate 0.3: kept by the member the leader's last publish named for it.",
            Reason::RecordOwner => "Spate 0.3: kept by the owner its progress record names.",
        }
    }
}

/// A reason with its words, as the plan document lists every one (`reasons`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReasonWords {
    pub reason: Reason,
    pub words: &'static str,
    pub help: &'static str,
}

/// Every reason with its words and its sentence.
pub fn reason_words() -> Vec<ReasonWords> {
    Reason::ALL
        .iter()
        .map(|&reason| ReasonWords {
            reason,
            words: reason.words(),
            help: reason.help(),
        })
        .collect()
}

/// What an improving move of a split of weight `weight` with gain `gain` takes off the heavier
/// of its two members: with `d` the load gap between them, the gain is `weight × (d − weight)`
/// (decision-core.md, pass 3) and the heavier load of the pair falls by `min(weight, d −
/// weight)`, so the relief is `min(weight, gain / weight)`. 0 for a weightless split.
pub fn relief(gain: u128, weight: u64) -> u64 {
    if weight == 0 {
        return 0;
    }
    let rest = gain / u128::from(weight);
    u64::try_from(rest.min(u128::from(weight))).unwrap_or(weight)
}

/// A split that changes hands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// What that move took off the heavier of its two members ([`relief`]), if one moved it.
    pub relief: Option<u64>,
}

/// Splits by state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Counts {
    pub splits: u32,
    pub assigned: u32,
    /// Assignable but beyond the fleet's lanes.
    pub queued: u32,
    /// Assignable but reserved (withheld by the rebalance delay or by choice).
    pub reserved: u32,
    pub completed: u32,
    pub quarantined: u32,
    /// Runnable and not completed, but no spec has been seen.
    pub waiting_for_spec: u32,
}

/// How evenly the weight is spread after the plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Churn {
    /// Splits that change hands (every entry of `moves`).
    pub moves: u32,
    /// Their total weight.
    pub weight_moved: u64,
    /// Of those, taken from a live member.
    pub from_live_members: u32,
}

/// Everything above, for one plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    pub members: Vec<MemberReport>,
    pub moves: Vec<MoveReport>,
    /// Queued split ids in pool order.
    pub queue: Vec<String>,
    pub counts: Counts,
    pub balance: Balance,
    pub churn: Churn,
    pub improving_moves: u32,
    pub bound_hit: bool,
    pub improvable: bool,
}

/// The report of `plan`, which must be the plan of `inputs`.
pub fn report(inputs: &LeaderInputs, plan: &Plan) -> Report {
    let mut walk = Walk {
        rules: inputs.rules,
        reserved: inputs.reserved.iter().map(String::as_str).collect(),
        members: member_lines(inputs, plan),
        counts: Counts {
            splits: count(inputs.splits.len()),
            ..Counts::default()
        },
        moves: Vec::new(),
        heaviest: 0,
        total: 0,
    };
    let member = crate::assign::member_index(plan.explain.members.iter().map(String::as_str));
    for ((id, s), placement) in inputs.splits.iter().zip(&plan.explain.placements) {
        walk.split(plan, &member, (id.as_str(), s), *placement);
    }
    let names = &plan.explain.members;
    let churn = Churn {
        moves: count(walk.moves.len()),
        weight_moved: walk.moves.iter().fold(0u64, |t, mv| t.saturating_add(mv.weight)),
        from_live_members: count(
            walk.moves
                .iter()
                .filter(|mv| mv.from.as_ref().is_some_and(|f| names.binary_search(f).is_ok()))
                .count(),
        ),
    };
    for m in &mut walk.members {
        m.load_change = i128::from(m.load_planned) - i128::from(m.load_now);
    }
    Report {
        balance: balance(&plan.explain.loads, walk.total, walk.heaviest),
        members: walk.members,
        moves: walk.moves,
        queue: plan.explain.queue.clone(),
        counts: walk.counts,
        churn,
        improving_moves: count(plan.explain.moves.len()),
        bound_hit: plan.explain.bound_hit,
        improvable: plan.explain.improvable,
    }
}

fn member_lines(inputs: &LeaderInputs, plan: &Plan) -> Vec<MemberReport> {
    let ex = &plan.explain;
    ex.members
        .iter()
        .zip(&ex.loads)
        .map(|(n, &load)| MemberReport {
            name: n.clone(),
            cap: inputs.cap_of(n),
            default_cap: !inputs.caps.contains_key(n),
            lanes: count(plan.assignment.get(n).map_or(0, Vec::len)),
            lanes_now: 0,
            load_now: 0,
            load_planned: load,
            load_change: 0,
            gained: 0,
            lost: 0,
        })
        .collect()
}

/// The report's running state over the splits, in id order.
struct Walk<'a> {
    rules: Rules,
    /// The reserved splits, as a lookup table.
    reserved: HashSet<&'a str>,
    members: Vec<MemberReport>,
    counts: Counts,
    moves: Vec<MoveReport>,
    heaviest: u64,
    total: u64,
}

impl Walk<'_> {
    /// Counts one split, and records its move if it changes hands.
    fn split(
        &mut self,
        plan: &Plan,
        member: &HashMap<&str, usize>,
        (id, s): (&str, &SplitState),
        placement: Option<Placement>,
    ) {
        let Some(w) = self.classify(id, s) else {
            return;
        };
        let names = &plan.explain.members;
        let owner = s.current_owner();
        let owner_idx = owner.and_then(|o| member.get(o).copied());
        if let Some(o) = owner_idx {
            self.members[o].lanes_now += 1;
            self.members[o].load_now = self.members[o].load_now.saturating_add(w);
        }
        let to_idx = placement.map(|p| p.member);
        if placement.is_some() {
            self.counts.assigned += 1;
            self.heaviest = self.heaviest.max(w);
            self.total = self.total.saturating_add(w);
        } else {
            self.counts.queued += 1;
        }
        if (to_idx == owner_idx && owner_idx.is_some()) || (to_idx.is_none() && owner.is_none()) {
            return; // stays, or unowned and queued: nothing changes hands
        }
        if let Some(o) = owner_idx {
            self.members[o].lost += 1;
        }
        if let Some(t) = to_idx {
            self.members[t].gained += 1;
        }
        let reason = match placement.map(|p| (p.first_pass, p.last_move.is_some())) {
            None => Reason::Queued,
            Some((Pass::Sticky, _) | (Pass::Previous | Pass::RecordOwner, true)) => Reason::Improve,
            Some((Pass::Previous, false)) => Reason::Previous,
            Some((Pass::RecordOwner, false)) => Reason::RecordOwner,
            Some(_) if self.rules == Rules::V0_3 && s.lease.is_some() && !s.lease_is_current() => {
                Reason::LeaseNotCurrent
            }
            Some(_) if owner.is_none() => Reason::Unowned,
            Some(_) if owner_idx.is_none() => Reason::OwnerGone,
            Some(_) => Reason::OverCap,
        };
        let gain = placement
            .and_then(|p| p.last_move)
            .map(|i| plan.explain.moves[i].gain);
        self.moves.push(MoveReport {
            split: id.to_string(),
            weight: w,
            from: owner.map(str::to_string),
            to: to_idx.map(|t| names[t].clone()),
            reason,
            gain,
            relief: gain.map(|g| relief(g, w)),
        });
    }

    /// Counts a split that is not in the pool and returns `None`; else its weight.
    fn classify(&mut self, id: &str, s: &SplitState) -> Option<u64> {
        let c = &mut self.counts;
        match s.progress.status {
            SplitStatus::Completed => c.completed += 1,
            SplitStatus::Quarantined => c.quarantined += 1,
            SplitStatus::Runnable if s.progress.completed => c.completed += 1,
            SplitStatus::Runnable => match s.assign_weight() {
                None => c.waiting_for_spec += 1,
                Some(_) if self.reserved.contains(id) => c.reserved += 1,
                Some(w) => return Some(w),
            },
        }
        None
    }
}

fn balance(loads: &[u64], total: u64, heaviest: u64) -> Balance {
    let m = loads.len() as u64;
    let max_load = loads.iter().copied().max().unwrap_or(0);
    let min_load = loads.iter().copied().min().unwrap_or(0);
    let mean_load = if m == 0 { 0.0 } else { total as f64 / m as f64 };
    let lower_bound = if m == 0 {
        0
    } else {
        total.div_ceil(m).max(heaviest)
    };
    let ratio = |a: u64, b: f64| if b > 0.0 { a as f64 / b } else { 0.0 };
    Balance {
        total,
        max_load,
        min_load,
        mean_load,
        lower_bound,
        max_over_bound: ratio(max_load, lower_bound as f64),
        max_over_mean: ratio(max_load, mean_load),
    }
}

impl Report {
    /// The report when the leader publishes nothing: the current assignments stand, so nothing
    /// moves and nothing is queued; each member keeps what it holds now.
    pub fn standing(mut self) -> Report {
        for m in &mut self.members {
            m.lanes = m.lanes_now;
            m.load_planned = m.load_now;
            m.load_change = 0;
            m.gained = 0;
            m.lost = 0;
        }
        self.moves.clear();
        self.queue.clear();
        self.counts.assigned = 0;
        self.counts.queued = 0;
        self.churn = Churn::default();
        self.improving_moves = 0;
        self.bound_hit = false;
        self.improvable = false;
        let loads: Vec<u64> = self.members.iter().map(|m| m.load_now).collect();
        let total = loads.iter().fold(0u64, |t, &l| t.saturating_add(l));
        self.balance = balance(&loads, total, 0);
        self
    }
}

/// A ratio with four decimals: how the documents write a plan's max/mean and max/bound beside
/// its exact figures (sweep steps, convergence rounds, a comparison, the Details table).
pub fn ratio4(r: f64) -> String {
    format!("{r:.4}")
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

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(u64::MAX), "16.0 EiB");
    }

    /// The relief from the rule: moving `w` across a gap `d` (admitted when d > w) lowers the
    /// pair's heavier load from `h` to max(h − w, h − d + w), that is by min(w, d − w).
    #[test]
    fn relief_is_what_the_move_takes_off_the_heavier_member() {
        for (heavy, light, w) in [
            (100u64, 10u64, 30u64),
            (100, 10, 60),
            (100, 10, 45),
            (50, 0, 49),
            (10, 0, 0),
        ] {
            let d = heavy - light;
            let gain = u128::from(w) * u128::from(d - w);
            // the pair's heavier load after the move
            let after = (heavy - w).max(light + w);
            assert_eq!(relief(gain, w), heavy - after, "{heavy} {light} {w}");
        }
        // the worked figures: a 30 GiB gap, a 10 GiB split: 10 GiB off the heavier
        let g = 1u64 << 30;
        assert_eq!(relief(u128::from(10 * g) * u128::from(20 * g), 10 * g), 10 * g);
        // a 25 GiB split across the same gap: the heavier falls by 5 GiB only
        assert_eq!(relief(u128::from(25 * g) * u128::from(5 * g), 25 * g), 5 * g);
        // the largest weights do not overflow
        assert_eq!(
            relief(u128::from(u64::MAX) * u128::from(u64::MAX - 1), u64::MAX),
            u64::MAX - 1
        );
    }

    #[test]
    fn every_reason_has_words_and_a_sentence() {
        let all = reason_words();
        assert_eq!(all.len(), Reason::ALL.len());
        for r in all {
            assert!(!r.words.is_empty() && r.help.ends_with('.'), "{:?}", r.reason);
        }
    }

    #[test]
    fn balance_of_nothing_is_zero_not_nan() {
        let b = balance(&[], 0, 0);
        assert_eq!((b.max_over_mean, b.max_over_bound, b.lower_bound), (0.0, 0.0, 0));
        let b = balance(&[10, 2], 12, 7);
        assert_eq!((b.lower_bound, b.mean_load), (7, 6.0));
        assert_eq!(b.max_over_bound, 10.0 / 7.0);
    }
}
