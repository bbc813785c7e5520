//! A worker's next full reconcile: what it claims, quarantines and drains (timing.md section 6,
//! on decision-core.md section 6's `claim_candidates`).
//!
//! Per live member X:
//! - X **holds** the splits whose lease names X under X's current presence nonce, while the
//!   lease's epoch is not behind the split's progress record's epoch. A lease with X's name and
//!   another nonce is a restarted predecessor's: a `reclaim` candidate, not held. A lease behind
//!   its record was fenced: another claim moved the record past it, and Spate's worker drops the
//!   split the moment it sees that record, so it is not held, not drained and takes no lane.
//! - Its candidates are `claim_candidates` with that held set, by the fleet's rules (0.1, or 0.3
//!   with X's nonce as `run`), in that order. Every quarantine is
//!   taken (not gated by assignment or lanes). A claim is taken only if the split is in X's
//!   assignment and X holds fewer splits than its cap; each claim taken counts toward the cap.
//! - With no assignment record X claims nothing and keeps what it holds; otherwise it drains the
//!   held splits its assignment no longer names.
//!
//! [`next_actions`] is the definition, one worker at a time; [`next_actions_of_all`] gives the
//! same for a whole fleet without scanning every split once per worker ([`fleet`]).

mod fleet;

#[cfg(not(feature = "testing"))]
pub(crate) use fleet::next_actions_of_all;
#[cfg(feature = "testing")]
pub use fleet::next_actions_of_all;

use crate::claims::{ClaimAction, ClaimCandidate};
use crate::rules::Rules;
use crate::state::SplitState;
use serde::Serialize;
use std::collections::BTreeSet;

/// What one worker is told and holds, as its next reconcile sees it.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) struct WorkerView<'a> {
    /// The release whose claim rules it follows.
    pub rules: Rules,
    pub instance: &'a str,
    /// Its presence nonce (0.3's `run`); `None` when unknown (then any lease naming it counts as
    /// held).
    pub nonce: Option<&'a str>,
    /// Its lane budget: its advertised `max_in_flight`, else the leader's default cap.
    pub cap: u32,
    /// Its assignment record's splits; `None` when it has no record.
    pub assignment: Option<&'a BTreeSet<String>>,
    pub max_attempts: u32,
}

/// The worker's actions, in the order it takes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NextActions {
    /// Claims and quarantines taken, in order.
    pub actions: Vec<ClaimCandidate>,
    /// Held splits its assignment no longer names: it asks their sources to drain.
    pub drains: Vec<String>,
    /// Splits it holds before acting.
    pub held: Vec<String>,
    /// Splits whose lease names it under its nonce but is behind the progress record: it was
    /// fenced and dropped them (not held, not drained, no lane).
    pub fenced: Vec<String>,
    /// Candidates passed over: claims not in its assignment, or beyond its cap.
    pub skipped: u32,
}

impl NextActions {
    /// Whether the worker does anything at its next reconcile: claims, quarantines or drains a
    /// split, or drops one it was fenced from.
    pub fn acts(&self) -> bool {
        !(self.actions.is_empty() && self.drains.is_empty() && self.fenced.is_empty())
    }

    /// Why it passed candidates over, in words (`None` when it skipped none), for a worker with
    /// `cap` lanes that has an assignment record or not. With no record it claims nothing; when
    /// its lanes never filled (held plus claims taken stay below its cap), every candidate it
    /// skipped was a claim its assignment does not name; otherwise either reason may apply.
    pub fn skipped_why(&self, cap: u32, has_assignment: bool) -> Option<String> {
        if self.skipped == 0 {
            return None;
        }
        if !has_assignment {
            return Some("it has no assignment record, so it claims nothing".into());
        }
        let claims = self
            .actions
            .iter()
            .filter(|a| a.action == ClaimAction::Claim)
            .count();
        Some(if self.held.len() + claims < cap as usize {
            "not in its assignment".into()
        } else {
            format!("not in its assignment, or beyond its cap of {cap} lanes")
        })
    }
}

/// `s`'s lease epoch, when the lease names the worker under its nonce (when that is known).
fn own_lease_epoch(s: &SplitState, instance: &str, nonce: Option<&str>) -> Option<u64> {
    s.lease
        .as_ref()
        .filter(|l| l.value.owner == instance && nonce.is_none_or(|n| l.value.nonce == n))
        .map(|l| l.value.epoch)
}

/// Whether `s` is held by the worker: its lease names it, under its nonce when that is known,
/// and the lease is not fenced (its epoch is not behind the progress record's).
pub fn holds(s: &SplitState, instance: &str, nonce: Option<&str>) -> bool {
    own_lease_epoch(s, instance, nonce).is_some_and(|e| e >= s.progress.epoch)
}

/// Whether `s`'s lease names the worker (under its nonce when that is known) but is behind the
/// progress record's epoch: the worker was fenced and dropped the split.
pub fn fenced(s: &SplitState, instance: &str, nonce: Option<&str>) -> bool {
    own_lease_epoch(s, instance, nonce).is_some_and(|e| e < s.progress.epoch)
}

/// The worker's next reconcile over `splits`.
#[cfg(feature = "testing")]
pub fn next_actions(splits: &std::collections::BTreeMap<String, SplitState>, w: &WorkerView) -> NextActions {
    let held: BTreeSet<&str> = splits
        .iter()
        .filter(|(_, s)| holds(s, w.instance, w.nonce))
        .map(|(id, _)| id.as_str())
        .collect();
    let candidates = crate::claims::claim_candidates(
        w.rules,
        splits,
        |id| held.contains(id),
        w.instance,
        w.nonce,
        w.max_attempts,
    );
    let mut owned = held.len();
    let mut out = NextActions {
        actions: Vec::new(),
        drains: Vec::new(),
        held: held.iter().map(|s| s.to_string()).collect(),
        fenced: splits
            .iter()
            .filter(|(_, s)| fenced(s, w.instance, w.nonce))
            .map(|(id, _)| id.clone())
            .collect(),
        skipped: 0,
    };
    for c in candidates {
        let take = match c.action {
            ClaimAction::Quarantine => true,
            ClaimAction::Claim => w.assignment.is_some_and(|a| a.contains(&c.id)) && owned < w.cap as usize,
        };
        if !take {
            out.skipped = out.skipped.saturating_add(1);
            continue;
        }
        if c.action == ClaimAction::Claim {
            owned += 1;
        }
        out.actions.push(c);
    }
    if let Some(a) = w.assignment {
        out.drains = held
            .iter()
            .filter(|id| !a.contains(**id))
            .map(|s| s.to_string())
            .collect();
    }
    out
}
