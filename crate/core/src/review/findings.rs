//! The headline findings of an analysis, most serious first: what a person must read before the
//! figures. The command line prints them at the top; the dashboard shows them above the chart.

use crate::codes::FindingCode;
use crate::fleet::{CapSource, Fleet};
use crate::pipeline::Analysis;
use crate::rules::Rules;
use crate::scenario::{DepartedState, SPATE_RECONCILE_INTERVAL_MS};
use serde::Serialize;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Level {
    /// Spate itself stops: the plan beside it is hypothetical.
    Fatal,
    /// The plan differs from what a person might assume.
    Warning,
    /// Worth knowing.
    Notice,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Finding {
    pub level: Level,
    pub code: FindingCode,
    pub message: String,
}

fn secs(ms: u64) -> String {
    format!("{} s", ms / 1000)
}

/// The findings of `a` (an analysis of `fleet`), most serious first.
pub fn findings(fleet: &Fleet, a: &Analysis) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut push = |level, code, message: String| out.push(Finding { level, code, message });
    if !fleet.foreign.is_empty() {
        push(Level::Fatal, FindingCode::ForeignRecords, format!(
            "{} record(s) belong to another job (another fp), e.g. {:?}: Spate stops every worker of this job on them. The plan shown is the plan if those records were removed.",
            fleet.foreign.len(), fleet.foreign[0]));
    }
    if let Some(why) = a.no_publish {
        push(
            Level::Warning,
            FindingCode::NoPublish,
            format!("{}.", capitalise(why.explain())),
        );
    }
    let cap = &a.applied.default_cap;
    if cap.source == CapSource::SpateDefault {
        push(
            Level::Warning,
            FindingCode::DefaultCapUnknown,
            format!("Default cap {}.", cap.explain()),
        );
    }
    for d in a
        .applied
        .departed
        .iter()
        .filter(|d| d.state == DepartedState::Withheld)
    {
        push(Level::Notice, FindingCode::DepartedWithheld, format!(
            "{:?} departed recently; {} split(s) withheld until its delay ends, at most rebalance delay + reconcile interval ({} + {}) after it left.",
            d.instance, d.withheld, secs(a.applied.rebalance_delay_ms), secs(SPATE_RECONCILE_INTERVAL_MS)));
    }
    if let Some(p) = &a.published {
        if !p.stale.is_empty() {
            push(Level::Notice, FindingCode::StaleAssignments, format!(
                "{} assignment record(s) are older than the plan's generation (written before the last election), e.g. {:?}.",
                p.stale.len(), p.stale[0]));
        }
        if let Some((id, ms)) = p.conflicts.iter().next() {
            push(
                Level::Warning,
                FindingCode::ConflictingAssignments,
                format!(
                    "{} split(s) are named in more than one assignment record, e.g. {id:?} in {ms:?}.",
                    p.conflicts.len()
                ),
            );
        }
    }
    if a.applied.rules.rules == Rules::V0_1 {
        if let Some(key) = fleet.probes_0_3.first() {
            push(Level::Notice, FindingCode::MixedFleetHint, format!(
                "The plan follows {}, but {} 0.3.0 probe key(s), e.g. {key:?}, were left by a 0.3.0 worker's start: 0.3.0 workers may have joined under a 0.1.x/0.2.x leader, and they claim by 0.3's rules. No record says which workers run which version.",
                a.applied.rules.explain(), fleet.probes_0_3.len()));
        }
    }
    if a.report.bound_hit && a.report.improvable {
        push(Level::Notice, FindingCode::BoundHit, "The leader stops at 4096 improving moves and more remain: its next rounds will move more (see convergence).".into());
    }
    out.sort_by_key(|f| f.level);
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
