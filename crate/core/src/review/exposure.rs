//! The splits one step from quarantine and those the claim race parked, as the plan and claims
//! documents show them (`at_risk`), with the sentences the command line prints and the
//! dashboard's tile explains: the core's `risk` figures for one `max_attempts`, said with where
//! that value comes from (the store does not record it).

use crate::claims::{AttemptsSource, MaxAttempts};
use crate::exact::count;
use crate::fleet::Fleet;
use crate::pipeline::Analysis;
use crate::risk::{at_risk, race_parked, RaceParked, RiskySplit};
use serde::Serialize;
use std::collections::BTreeMap;

/// Names (and ids) a sentence gives before "and N more".
const NAMED: usize = 5;

/// The documents' `at_risk`. The split lists are left out of the dashboard's plan view (like the
/// assignment): it shows the counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Exposure {
    pub max_attempts: u32,
    pub max_attempts_source: AttemptsSource,
    /// The value and its source in words.
    pub max_attempts_note: String,
    /// Runnable splits at `attempts = max_attempts − 1`.
    pub count: u32,
    /// Their known weight, summed.
    pub weight: u64,
    /// Per live member holding any of them: how many (the lease's owner, else the record's).
    pub by_member: BTreeMap<String, u32>,
    /// Those no live member holds.
    pub unheld: u32,
    /// Runnable splits at `attempts ≥ max_attempts`.
    pub past_cap_count: u32,
    /// Quarantined splits with the claim race's signature.
    pub race_parked_count: u32,
    /// One sentence: how many are at risk, at which attempt, and who holds them.
    pub headline: String,
    /// One sentence on the splits past the cap (`null` when none).
    pub past_cap_note: Option<String>,
    /// One sentence on the splits the race parked (`null` when none).
    pub race_parked_note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub splits: Option<Vec<RiskySplit>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub past_cap: Option<Vec<RiskySplit>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub race_parked: Option<Vec<RaceParked>>,
}

/// The at-risk and race-parked splits of `a` (planned from `fleet`) for `max`: at risk among
/// the splits as planned (the snapshot's, with the scenario's changes), parked by the race in
/// the store as the snapshot shows it. `lists`: with the splits themselves.
pub fn exposure(fleet: &Fleet, a: &Analysis, max: MaxAttempts, lists: bool) -> Exposure {
    let inputs = &a.applied.inputs;
    let risk = at_risk(&inputs.splits, &inputs.members, max.value);
    let parked = race_parked(fleet, max.value);
    Exposure {
        max_attempts: max.value,
        max_attempts_source: max.source,
        max_attempts_note: max.explain(),
        count: risk.count,
        weight: risk.weight,
        headline: headline(max.value, risk.count, &risk.by_member, risk.unheld),
        by_member: risk.by_member,
        unheld: risk.unheld,
        past_cap_count: risk.past_cap_count,
        race_parked_count: count(parked.len()),
        past_cap_note: past_cap_note(max.value, &risk.past_cap),
        race_parked_note: race_parked_note(&parked),
        splits: lists.then_some(risk.splits),
        past_cap: lists.then_some(risk.past_cap),
        race_parked: lists.then_some(parked),
    }
}

/// `, and N more` when `shown` of `all` were named.
fn more(shown: usize, all: usize) -> String {
    if all > shown {
        format!(", and {} more", all - shown)
    } else {
        String::new()
    }
}

fn headline(max: u32, n: u32, by_member: &BTreeMap<String, u32>, unheld: u32) -> String {
    let Some(last) = max.checked_sub(1) else {
        return "No split at risk: with max_attempts 0, every takeover that consumes an attempt quarantines."
            .into();
    };
    if n == 0 {
        return format!("No split at risk: none is runnable at attempts {last} of {max}.");
    }
    let mut held: Vec<String> = by_member
        .iter()
        .take(NAMED)
        .map(|(m, k)| format!("{m:?} ({k})"))
        .collect();
    if held.is_empty() {
        held.push("no live member".into());
    }
    let unheld = if unheld > 0 && !by_member.is_empty() {
        format!("; {unheld} held by no live member")
    } else {
        String::new()
    };
    format!(
        "{n} split(s) at risk: at attempts {last} of {max}, one non-graceful end (or one racy hand-over) from quarantine; held by {}{}{unheld}.",
        held.join(", "),
        more(NAMED.min(by_member.len()), by_member.len())
    )
}

fn past_cap_note(max: u32, past: &[RiskySplit]) -> Option<String> {
    let first = past.first()?;
    Some(format!(
        "{} runnable split(s) at attempts {max} or more, e.g. {:?} at {}: by max_attempts {max} their next takeover quarantines them, but no write leaves a runnable record at the workers' own max_attempts or past it, so theirs is likely higher.",
        past.len(),
        first.id,
        first.attempts
    ))
}

fn race_parked_note(parked: &[RaceParked]) -> Option<String> {
    if parked.is_empty() {
        return None;
    }
    let named: Vec<String> = parked
        .iter()
        .take(NAMED)
        .map(|p| format!("{:?} right after {:?}'s claim", p.id, p.member))
        .collect();
    Some(format!(
        "{} quarantined split(s) parked by the claim race (the claimant's lease still live, one epoch behind the record): {}{}.",
        parked.len(),
        named.join(", "),
        more(named.len(), parked.len())
    ))
}
