//! The planner's tables as CSV, one writer ([`super::csv`]) for all, each table the rows of a
//! document the planner prints as JSON, its columns named as that document's fields:
//!
//! - the plan's `moves` (`report.moves` of `plan --json`), `members` (`report.members` with the
//!   summary's marks), `splits` (every split as the split search gives it) and `at-risk` (the
//!   `at_risk` lists: `splits`, `past_cap`, `race_parked`, one `state` each);
//! - the claims (`claims --json`): one record per claim or quarantine in the order taken, per
//!   split drained and per split fenced;
//! - a sweep's `steps` (`sweep --json`), with the crash columns when the sweep simulated one and
//!   `removed` (who each step's fleet loses) when it removes members;
//! - a comparison's `members` and `owners` (`diff --json`'s `members` and `owner_changes`).
//!
//! `spate-planner plan|claims|sweep|diff --csv` and the dashboard's CSV buttons write these
//! same bytes.

use super::csv::Csv;
use super::document::find_splits;
use super::exposure::exposure;
use crate::diff::Diff;
use crate::fleet::Fleet;
use crate::pipeline::Analysis;
use crate::report::summary;
use crate::sweep::Step;
use crate::worker::NextActions;
use serde::Serialize;
use std::collections::BTreeMap;

/// The JSON name of an enum value (`owner_gone`, `claim`, `runnable`).
fn word<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// The tables of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanTable {
    Moves,
    Members,
    Splits,
    AtRisk,
}

impl PlanTable {
    /// The table named `moves`, `members`, `splits` or `at-risk`.
    pub fn named(name: &str) -> Option<PlanTable> {
        match name {
            "moves" => Some(PlanTable::Moves),
            "members" => Some(PlanTable::Members),
            "splits" => Some(PlanTable::Splits),
            "at-risk" => Some(PlanTable::AtRisk),
            _ => None,
        }
    }
}

/// A table of the plan `a` of `fleet` as CSV.
pub fn plan_csv(fleet: &Fleet, a: &Analysis, table: PlanTable) -> String {
    match table {
        PlanTable::Moves => moves(a),
        PlanTable::Members => members(a),
        PlanTable::Splits => splits(fleet, a),
        PlanTable::AtRisk => at_risk(fleet, a),
    }
}

/// The plan document's `at_risk` lists, by the scenario's `max_attempts`: the splits at
/// `max_attempts − 1` (`state` at_risk), past it (past_cap), and parked by the claim race
/// (race_parked: its record's owner is cleared; `lease_owner` is the member whose claim it
/// followed).
fn at_risk(fleet: &Fleet, a: &Analysis) -> String {
    let max = a.applied.max_attempts.value;
    let x = exposure(fleet, a, a.applied.max_attempts, true);
    let head = [
        "id",
        "state",
        "attempts",
        "max_attempts",
        "epoch",
        "weight",
        "owner",
        "lease_owner",
        "held_by",
    ];
    let mut c = Csv::new(&head);
    let runnable = [("at_risk", x.splits), ("past_cap", x.past_cap)];
    for (state, list) in runnable {
        for r in list.unwrap_or_default() {
            c.text(&r.id).text(state).num(r.attempts).num(max).num(r.epoch);
            c.maybe_num(r.weight)
                .maybe(r.owner.as_deref())
                .maybe(r.lease_owner.as_deref())
                .maybe(r.held_by.as_deref());
            c.end();
        }
    }
    for p in x.race_parked.unwrap_or_default() {
        c.text(&p.id)
            .text("race_parked")
            .num(p.attempts)
            .num(max)
            .num(p.epoch);
        c.maybe_num(p.weight).text("").text(&p.member).text("");
        c.end();
    }
    c.finish()
}

fn moves(a: &Analysis) -> String {
    let mut c = Csv::new(&["split", "weight", "from", "to", "reason", "gain"]);
    for m in &a.report.moves {
        c.text(&m.split)
            .num(m.weight)
            .maybe(m.from.as_deref())
            .maybe(m.to.as_deref());
        c.text(&word(&m.reason)).maybe_num(m.gain);
        c.end();
    }
    c.finish()
}

fn members(a: &Analysis) -> String {
    let head = [
        "name",
        "cap",
        "default_cap",
        "lanes",
        "lanes_now",
        "load_now",
        "load_planned",
        "gained",
        "lost",
        "over_now",
        "over_planned",
        "at_cap_now",
        "at_cap_planned",
        "now_over_mean",
        "planned_over_mean",
    ];
    let mut c = Csv::new(&head);
    let marks = summary(&a.report).marks;
    for (m, k) in a.report.members.iter().zip(&marks) {
        c.text(&m.name)
            .num(m.cap)
            .num(m.default_cap)
            .num(m.lanes)
            .num(m.lanes_now);
        c.num(m.load_now).num(m.load_planned).num(m.gained).num(m.lost);
        c.num(k.over_now)
            .num(k.over_planned)
            .num(k.at_cap_now)
            .num(k.at_cap_planned);
        c.num(&k.now_over_mean).num(&k.planned_over_mean);
        c.end();
    }
    c.finish()
}

fn splits(fleet: &Fleet, a: &Analysis) -> String {
    let head = [
        "id",
        "status",
        "completed",
        "owner",
        "lease_owner",
        "lease_left_ms",
        "epoch",
        "attempts",
        "weight",
        "reserved",
        "planned",
    ];
    let mut c = Csv::new(&head);
    for s in find_splits(fleet, a, "", usize::MAX) {
        c.text(s.id)
            .text(&word(&s.status))
            .num(s.completed)
            .maybe(s.owner)
            .maybe(s.lease_owner);
        c.maybe_num(s.lease_left_ms)
            .num(s.epoch)
            .num(s.attempts)
            .maybe_num(s.weight);
        c.num(s.reserved).maybe(s.planned);
        c.end();
    }
    c.finish()
}

/// The workers' next actions as CSV: per member (in the claims document's order), its claims
/// and quarantines in the order taken (`step` 1, 2, …), then each split it drains
/// (`action` drain) and each it was fenced from (`action` fenced); `kind` only for claims and
/// quarantines.
pub fn claims_csv(next: &BTreeMap<String, NextActions>) -> String {
    let mut c = Csv::new(&["member", "step", "split", "action", "kind"]);
    for (member, n) in next {
        for (i, a) in n.actions.iter().enumerate() {
            c.text(member)
                .num(i + 1)
                .text(&a.id)
                .text(&word(&a.action))
                .text(&word(&a.kind));
            c.end();
        }
        for (action, ids) in [("drain", &n.drains), ("fenced", &n.fenced)] {
            for id in ids {
                c.text(member).text("").text(id).text(action).text("");
                c.end();
            }
        }
    }
    c.finish()
}

/// One column of the sweep's table: its name (the step document's field, or `crash_` and the
/// crash figures' field) and how a step writes its cell.
type SweepColumn = (&'static str, fn(&Step, &mut Csv));

/// Every step's columns.
const STEP_COLUMNS: [SweepColumn; 11] = [
    ("value", |s, c| {
        c.num(s.value);
    }),
    ("members", |s, c| {
        c.num(s.members);
    }),
    ("max_load", |s, c| {
        c.num(s.max_load);
    }),
    ("mean_load", |s, c| {
        c.ratio(s.mean_load);
    }),
    ("max_over_mean", |s, c| {
        c.num(&s.max_over_mean);
    }),
    ("max_over_bound", |s, c| {
        c.num(&s.max_over_bound);
    }),
    ("queued", |s, c| {
        c.num(s.queued);
    }),
    ("moves", |s, c| {
        c.num(s.moves);
    }),
    ("bytes_moved", |s, c| {
        c.num(s.bytes_moved);
    }),
    ("at_cap", |s, c| {
        c.num(s.at_cap);
    }),
    ("bound_hit", |s, c| {
        c.num(s.bound_hit);
    }),
];

/// The columns of a sweep that simulated a crash of each step's heaviest member.
const CRASH_COLUMNS: [SweepColumn; 4] = [
    ("crash_member", |s, c| {
        c.maybe(s.crash.as_ref().map(|f| f.member.as_str()));
    }),
    ("crash_recovery_ms", |s, c| {
        c.maybe_num(s.crash.as_ref().and_then(|f| f.recovery_ms));
    }),
    ("crash_idle_split_ms", |s, c| {
        c.maybe_num(s.crash.as_ref().map(|f| f.idle_split_ms));
    }),
    ("crash_idle_weighted", |s, c| {
        c.maybe_num(s.crash.as_ref().map(|f| f.idle_weighted));
    }),
];

/// The column of a sweep of the fleet's size that removes members: who each step's fleet loses,
/// in the order removed, as the page's table names them (`worker-05, worker-03`).
const REMOVED_COLUMN: SweepColumn = ("removed", |s, c| {
    c.text(&s.removed.join(", "));
});

/// A sweep's steps as CSV: every step's columns, then the crash columns when any step simulated
/// a crash, then `removed` when any step removes members.
pub fn sweep_csv(steps: &[Step]) -> String {
    let crash = steps.iter().any(|s| s.crash.is_some());
    let removes = steps.iter().any(|s| !s.removed.is_empty());
    let columns: Vec<SweepColumn> = STEP_COLUMNS
        .into_iter()
        .chain(CRASH_COLUMNS.into_iter().filter(|_| crash))
        .chain(std::iter::once(REMOVED_COLUMN).filter(|_| removes))
        .collect();
    let head: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    let mut c = Csv::new(&head);
    for s in steps {
        for (_, cell) in &columns {
            cell(s, &mut c);
        }
        c.end();
    }
    c.finish()
}

/// The tables of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffTable {
    Members,
    Owners,
}

impl DiffTable {
    /// The table named `members` or `owners`.
    pub fn named(name: &str) -> Option<DiffTable> {
        match name {
            "members" => Some(DiffTable::Members),
            "owners" => Some(DiffTable::Owners),
            _ => None,
        }
    }
}

/// A table of a comparison as CSV: each member's load and cap before and after, or each split
/// whose owner changed.
pub fn diff_csv(d: &Diff, table: DiffTable) -> String {
    match table {
        DiffTable::Members => {
            let mut c = Csv::new(&["name", "load_before", "load_after", "cap_before", "cap_after"]);
            for m in &d.members {
                c.text(&m.name).maybe_num(m.load_before).maybe_num(m.load_after);
                c.maybe_num(m.cap_before).maybe_num(m.cap_after);
                c.end();
            }
            c.finish()
        }
        DiffTable::Owners => {
            let mut c = Csv::new(&["split", "before", "after"]);
            for o in &d.owner_changes {
                c.text(&o.split)
                    .maybe(o.before.as_deref())
                    .maybe(o.after.as_deref());
                c.end();
            }
            c.finish()
        }
    }
}
