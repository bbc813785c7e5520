//! Splits one step from quarantine, and splits the claim race parked (timing.md §6.5 and §6.7;
//! timing-0.3.md, the same rules): what a snapshot can show of both, for `max_attempts` A,
//! which the store does not record.
//!
//! - **At risk**: a runnable record at `attempts = A − 1`. One non-graceful end (a crash, whose
//!   takeover is Expired at `attempts + 1 ≥ A`, or a failure report) quarantines it; so can any
//!   hand-over that writes `A − 1` again (a Released or Expired claim; Create when A = 1), which
//!   a peer that folds the claim's record before its lease parks at once (A8).
//! - **Past the cap**: a runnable record at `attempts ≥ A`. Under the workers' real A no such
//!   record exists (every write that would reach A quarantines instead), so their A is higher
//!   than the one given; under the one given, its next takeover quarantines it. Listed apart.
//! - **Parked by the race** (A12): a quarantined record at `attempts = A` whose `split.{id}`
//!   lease is still in the store, owned by a live member under that member's current presence
//!   nonce, at the record's epoch − 1: parked by a peer right after that member's claim. (The
//!   member's own failure report at the cap whose lease delete failed leaves the same signature,
//!   more rarely.) Once the lease expires, a race park and a rule park look the same.

use crate::fleet::Fleet;
use crate::records::SplitStatus;
use crate::state::SplitState;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A runnable split at (or past) the last attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RiskySplit {
    pub id: String,
    pub attempts: u32,
    pub epoch: u64,
    /// Its spec's weight (bytes for Spate's S3 source), when the spec was seen.
    pub weight: Option<u64>,
    /// `progress.owner`.
    pub owner: Option<String>,
    /// The lease's owner, when a lease is in the store.
    pub lease_owner: Option<String>,
    /// The live member holding it now (the lease's owner, else the record's; as the report's
    /// load now counts it), if any.
    pub held_by: Option<String>,
}

/// The runnable splits at `attempts = A − 1`, and those past the cap.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AtRisk {
    /// How many are at `A − 1`.
    pub count: u32,
    /// Their known weight, summed.
    pub weight: u64,
    /// Per live member holding any: how many it holds (members holding none are left out).
    pub by_member: BTreeMap<String, u32>,
    /// Those no live member holds.
    pub unheld: u32,
    /// How many runnable records are at `attempts ≥ A`.
    pub past_cap_count: u32,
    /// The splits at `A − 1`, in id order.
    pub splits: Vec<RiskySplit>,
    /// The runnable splits at `attempts ≥ A`, in id order.
    pub past_cap: Vec<RiskySplit>,
}

/// The runnable splits of `splits` at `attempts = max_attempts − 1` (none when `max_attempts`
/// is 0) and at `attempts ≥ max_attempts`; a split's holder counts when it is one of `members`.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn at_risk(
    splits: &BTreeMap<String, SplitState>,
    members: &BTreeSet<String>,
    max_attempts: u32,
) -> AtRisk {
    let a = u64::from(max_attempts);
    let mut out = AtRisk::default();
    for (id, s) in splits.iter() {
        let p = &s.progress;
        if p.status != SplitStatus::Runnable {
            continue;
        }
        let n = u64::from(p.attempts);
        if n >= a {
            out.past_cap.push(risky(id, s, members));
        } else if n + 1 == a {
            let r = risky(id, s, members);
            out.weight = out.weight.saturating_add(r.weight.unwrap_or(0));
            match &r.held_by {
                Some(m) => *out.by_member.entry(m.clone()).or_insert(0) += 1,
                None => out.unheld += 1,
            }
            out.splits.push(r);
        }
    }
    out.count = crate::exact::count(out.splits.len());
    out.past_cap_count = crate::exact::count(out.past_cap.len());
    out
}

fn risky(id: &str, s: &SplitState, members: &BTreeSet<String>) -> RiskySplit {
    let p = &s.progress;
    RiskySplit {
        id: id.to_string(),
        attempts: p.attempts,
        epoch: p.epoch,
        weight: s.spec.as_ref().map(|sp| sp.weight),
        owner: p.owner.clone(),
        lease_owner: s.lease.as_ref().map(|l| l.value.owner.clone()),
        held_by: s
            .current_owner()
            .filter(|o| members.contains(*o))
            .map(str::to_string),
    }
}

/// A quarantined split with the claim race's signature (timing.md §6.7 A12).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RaceParked {
    pub id: String,
    /// The live member whose claim the race followed: the lease's owner.
    pub member: String,
    /// The record's epoch (the quarantine's) and the lease's (the claim's: one less).
    pub epoch: u64,
    pub lease_epoch: u64,
    pub attempts: u32,
    pub weight: Option<u64>,
    /// The time the lease has left at the snapshot, in ms, when known: the member no longer
    /// holds the split (A6), and the lease goes at its last write + the lease TTL.
    pub lease_left_ms: Option<i64>,
}

/// The quarantined splits of `fleet` (the store as the snapshot shows it) with the claim race's
/// signature for `max_attempts`: `attempts = max_attempts`, and a lease in the store owned by a
/// live member under its current presence nonce at the record's epoch − 1. In id order.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn race_parked(fleet: &Fleet, max_attempts: u32) -> Vec<RaceParked> {
    fleet
        .splits
        .iter()
        .filter_map(|(id, s)| {
            let p = &s.progress;
            let l = &s.lease.as_ref()?.value;
            let nonce = fleet.members.get(&l.owner)?.nonce.as_deref()?;
            let parked = p.status == SplitStatus::Quarantined
                && p.attempts == max_attempts
                && nonce == l.nonce
                && p.epoch.checked_sub(1) == Some(l.epoch);
            parked.then(|| RaceParked {
                id: id.clone(),
                member: l.owner.clone(),
                epoch: p.epoch,
                lease_epoch: l.epoch,
                attempts: p.attempts,
                weight: s.spec.as_ref().map(|sp| sp.weight),
                lease_left_ms: fleet.lease_left_ms(id),
            })
        })
        .collect()
}
