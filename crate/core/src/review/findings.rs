//! The headline findings of an analysis, most serious first: what a person must read before the
//! figures. The command line prints them at the top; the dashboard shows them above the chart.

use crate::codes::FindingCode;
use crate::fleet::{CapSource, Fleet};
use crate::pipeline::Analysis;
use crate::rules::Rules;
use crate::scenario::{Departed, DepartedState, Departure, SPATE_RECONCILE_INTERVAL_MS};
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
    for d in &a.applied.departed {
        if let Some((code, message)) = departure_words(d, a.applied.rebalance_delay_ms) {
            push(Level::Notice, code, message);
        }
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

/// What a departure inside its rebalance window means for the plan, by the rules of
/// decision-core.md section 7 and timing.md sections 3.2 and 5.3: the leader withholds the splits
/// whose `progress.owner` still names the instance; a crash leaves every split it held in its
/// name (their leases expire on their own, and each next claim counts an attempt), a graceful
/// stop releases what it holds (owner cleared), so that nothing of it is withheld. `None` when
/// its window is not open (released, returned, or no delay).
fn departure_words(d: &Departed, delay_ms: u64) -> Option<(FindingCode, String)> {
    if d.state != DepartedState::Withheld {
        return None;
    }
    let until = format!(
        "until its delay ends, at most rebalance delay + reconcile interval ({} + {}) after it left",
        secs(delay_ms),
        secs(SPATE_RECONCILE_INTERVAL_MS)
    );
    let who = &d.instance;
    let n = d.withheld;
    let (code, text) = match (d.departure, n) {
        (Some(Departure::Graceful), 0) => (FindingCode::DepartedReleased, format!(
            "{who:?} stopped gracefully (what-if): it released the {} split(s) it held (owner cleared, lease deleted); they are placed at once and their next claims count no attempt. Nothing is withheld.",
            d.released)),
        (Some(Departure::Graceful), _) => (FindingCode::DepartedWithheld, format!(
            "{who:?} stopped gracefully (what-if): it released the {} split(s) it held, placed at once; {n} split(s) still in its name that it no longer held are withheld {until}.",
            d.released)),
        (Some(_), _) => (FindingCode::DepartedWithheld, format!(
            "{who:?} crashed (what-if): {n} split(s) withheld {until}; they stay in its name, its leases expire on their own, and each split's next claim counts an attempt.")),
        (None, 0) => (FindingCode::DepartedReleased, format!(
            "{who:?} departed recently (its assign record lingers without presence), but no split waiting to run names it as owner: it released what it held (a graceful stop) or held nothing. Nothing is withheld.")),
        (None, _) => (FindingCode::DepartedWithheld, format!(
            "{who:?} departed recently; {n} split(s) withheld {until}.")),
    };
    Some((code, text))
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
