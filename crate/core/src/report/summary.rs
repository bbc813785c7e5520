//! The summary of a plan: who is overloaded now and after the plan, and who is at its lane cap —
//! the figures the dashboard's summary strip and fleet chart show, decided here so that the strip,
//! the chart and the command line cannot disagree.
//!
//! Each side is measured against its own, named mean: the work members own **now** against the
//! mean of the work owned now (`mean_now`), the **planned** work against the planned mean
//! (`mean_planned`). A member is "over the mean" when its load is more than
//! [`OVER_MEAN_PERCENT`] percent above that side's mean (compared exactly, in integers); the
//! chart marks exactly the members listed here. An empty side (no member, or nothing owned) has
//! mean 0, max/mean 0 and nobody over it.

use super::{MemberReport, Report};
use crate::exact::count;
use serde::Serialize;

/// "Over the mean" is more than this many percent above it (a byte above is not news).
pub(super) const OVER_MEAN_PERCENT: u32 = 5;

/// The mean a side is measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Mean {
    /// The mean of the work the members own now (`load_now`).
    MeanNow,
    /// The mean of the planned work (`load_planned`).
    MeanPlanned,
}

/// One side (now, or planned) of the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SummarySide {
    /// The mean this side's figures are measured against.
    pub measured_against: Mean,
    /// The members' total load on this side (saturating).
    pub total: u64,
    /// `total / members` (0 with no member).
    pub mean_load: f64,
    pub max_load: u64,
    /// `max_load / mean_load` with three decimals (`0.000` when the mean is 0).
    pub max_over_mean: String,
    /// Members more than [`OVER_MEAN_PERCENT`] percent above the mean.
    pub over_mean: u32,
    /// Members whose lanes are all used (lanes at or above the cap).
    pub at_cap: u32,
}

/// A member singled out (the heaviest now, the heaviest planned).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Heaviest {
    pub name: String,
    pub load_now: u64,
    pub load_planned: u64,
    /// Its load now over the mean now, three decimals.
    pub now_over_mean: String,
    /// Its planned load over the planned mean, three decimals.
    pub planned_over_mean: String,
}

/// One member's marks, in the report's member order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Marks {
    pub name: String,
    pub over_now: bool,
    pub over_planned: bool,
    pub at_cap_now: bool,
    pub at_cap_planned: bool,
    /// Its load now over the mean now, three decimals.
    pub now_over_mean: String,
    /// Its planned load over the planned mean, three decimals.
    pub planned_over_mean: String,
}

/// The summary of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Summary {
    pub members: u32,
    pub over_mean_percent: u32,
    pub now: SummarySide,
    pub planned: SummarySide,
    /// The member with the largest load now (ties: the first in the report's order).
    pub heaviest_now: Option<Heaviest>,
    /// The member with the largest planned load (ties: the first in the report's order).
    pub heaviest_planned: Option<Heaviest>,
    pub marks: Vec<Marks>,
    /// Splits that change hands, and their weight.
    pub moves: u32,
    pub weight_moved: u64,
}

/// One side's loads: the total, and whether a load is over the mean.
struct Loads {
    total: u64,
    n: u128,
}

impl Loads {
    fn of(members: &[MemberReport], load: fn(&MemberReport) -> u64) -> Loads {
        Loads {
            total: members.iter().fold(0u64, |t, m| t.saturating_add(load(m))),
            n: members.len() as u128,
        }
    }

    fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.total as f64 / self.n as f64
        }
    }

    /// `load > mean × (1 + OVER_MEAN_PERCENT / 100)`, exactly.
    fn over(&self, load: u64) -> bool {
        load as u128 * self.n * 100 > self.total as u128 * (100 + OVER_MEAN_PERCENT as u128)
    }

    /// `load / mean` with three decimals; 0 when the mean is 0.
    fn ratio(&self, load: u64) -> String {
        let mean = self.mean();
        let r = if mean > 0.0 { load as f64 / mean } else { 0.0 };
        format!("{r:.3}")
    }
}

fn now(m: &MemberReport) -> u64 {
    m.load_now
}

fn planned(m: &MemberReport) -> u64 {
    m.load_planned
}

/// Whether a member uses every lane its cap allows, now or after the plan.
pub fn at_cap(m: &MemberReport, planned: bool) -> bool {
    (if planned { m.lanes } else { m.lanes_now }) >= m.cap
}

fn side(members: &[MemberReport], loads: &Loads, against: Mean) -> SummarySide {
    let load = if against == Mean::MeanNow { now } else { planned };
    let max_load = members.iter().map(load).max().unwrap_or(0);
    SummarySide {
        measured_against: against,
        total: loads.total,
        mean_load: loads.mean(),
        max_load,
        max_over_mean: loads.ratio(max_load),
        over_mean: count(members.iter().filter(|m| loads.over(load(m))).count()),
        at_cap: count(
            members
                .iter()
                .filter(|m| at_cap(m, against == Mean::MeanPlanned))
                .count(),
        ),
    }
}

/// The first member with the largest `load`.
fn heaviest(
    members: &[MemberReport],
    load: fn(&MemberReport) -> u64,
    l: (&Loads, &Loads),
) -> Option<Heaviest> {
    let mut best: Option<&MemberReport> = None;
    for m in members {
        if best.is_none_or(|b| load(m) > load(b)) {
            best = Some(m);
        }
    }
    best.map(|m| Heaviest {
        name: m.name.clone(),
        load_now: m.load_now,
        load_planned: m.load_planned,
        now_over_mean: l.0.ratio(m.load_now),
        planned_over_mean: l.1.ratio(m.load_planned),
    })
}

/// The summary of a plan's report.
pub fn summary(r: &Report) -> Summary {
    let members = &r.members;
    let (ln, lp) = (Loads::of(members, now), Loads::of(members, planned));
    let marks = members
        .iter()
        .map(|m| Marks {
            name: m.name.clone(),
            over_now: ln.over(m.load_now),
            over_planned: lp.over(m.load_planned),
            at_cap_now: at_cap(m, false),
            at_cap_planned: at_cap(m, true),
            now_over_mean: ln.ratio(m.load_now),
            planned_over_mean: lp.ratio(m.load_planned),
        })
        .collect();
    Summary {
        members: count(members.len()),
        over_mean_percent: OVER_MEAN_PERCENT,
        now: side(members, &ln, Mean::MeanNow),
        planned: side(members, &lp, Mean::MeanPlanned),
        heaviest_now: heaviest(members, now, (&ln, &lp)),
        heaviest_planned: heaviest(members, planned, (&ln, &lp)),
        marks,
        moves: r.churn.moves,
        weight_moved: r.churn.weight_moved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const GIB: u64 = 1 << 30;

    fn member(name: &str, now: u64, planned: u64, lanes: u32, lanes_now: u32) -> MemberReport {
        MemberReport {
            name: name.into(),
            cap: 4,
            default_cap: false,
            lanes,
            lanes_now,
            load_now: now,
            load_planned: planned,
            load_change: i128::from(planned) - i128::from(now),
            gained: 0,
            lost: 0,
        }
    }

    fn report(members: Vec<MemberReport>) -> Report {
        Report {
            members,
            moves: Vec::new(),
            queue: Vec::new(),
            counts: Default::default(),
            balance: Default::default(),
            churn: Default::default(),
            improving_moves: 0,
            bound_hit: false,
            improvable: false,
        }
    }

    #[test]
    fn each_side_against_its_own_mean() {
        // now 35 + 10 + 18 = 63 GiB, mean 21: only w-1 (35 > 22.05) is over; planned 20 + 20 +
        // 23 = 63, mean 21: only w-3 (23 > 22.05)
        let r = report(vec![
            member("w-1", 35 * GIB, 20 * GIB, 4, 2),
            member("w-2", 10 * GIB, 20 * GIB, 1, 1),
            member("w-3", 18 * GIB, 23 * GIB, 1, 1),
        ]);
        let s = summary(&r);
        assert_eq!(s.now.measured_against, Mean::MeanNow);
        assert_eq!(s.planned.measured_against, Mean::MeanPlanned);
        assert_eq!((s.now.over_mean, s.planned.over_mean), (1, 1));
        assert_eq!((s.now.at_cap, s.planned.at_cap), (0, 1));
        let h = s.heaviest_now.unwrap();
        assert_eq!((h.name.as_str(), h.now_over_mean.as_str()), ("w-1", "1.667"));
        assert_eq!(h.planned_over_mean, "0.952");
        assert_eq!(s.heaviest_planned.unwrap().name, "w-3");
        assert_eq!(s.now.max_over_mean, "1.667");
        let over: Vec<_> = s.marks.iter().map(|m| (m.over_now, m.over_planned)).collect();
        assert_eq!(over, [(true, false), (false, false), (false, true)]);
        assert!(!s.marks[0].at_cap_now && s.marks[0].at_cap_planned && !s.marks[2].at_cap_planned);
    }

    #[test]
    fn over_is_exact_at_the_threshold() {
        // mean 100: 105 is not more than 5% over it, 106 is
        let at = summary(&report(vec![
            member("a", 105, 105, 0, 0),
            member("b", 95, 94, 0, 0),
        ]));
        assert_eq!((at.now.over_mean, at.planned.over_mean), (0, 1));
    }

    #[test]
    fn an_empty_plan_has_mean_zero_and_nobody_over_it() {
        let s = summary(&report(vec![member("a", 0, 0, 0, 0)]));
        assert_eq!(
            (s.now.max_over_mean.as_str(), s.planned.mean_load),
            ("0.000", 0.0)
        );
        assert_eq!((s.now.over_mean, s.planned.over_mean), (0, 0));
        let none = summary(&report(Vec::new()));
        assert_eq!(
            (
                none.members,
                none.heaviest_now,
                none.planned.max_over_mean.as_str()
            ),
            (0, None, "0.000")
        );
    }

    #[test]
    fn ties_go_to_the_first_member() {
        let s = summary(&report(vec![member("a", 5, 7, 0, 0), member("b", 5, 7, 0, 0)]));
        assert_eq!(s.heaviest_now.unwrap().name, "a");
        assert_eq!(s.heaviest_planned.unwrap().name, "a");
    }

    #[test]
    fn loads_near_u64_max_do_not_overflow() {
        let s = summary(&report(vec![
            member("a", u64::MAX, u64::MAX, 0, 0),
            member("b", 1, 0, 0, 0),
        ]));
        assert_eq!(s.now.total, u64::MAX);
        assert!(s.marks[0].over_now);
    }
}
