//! A worker's next full reconcile: what it claims, quarantines and drains (timing.md section 6,
//! on decision-core.md section 6's `claim_candidates`).
//!
//! Per live member X:
//! - X **holds** the splits whose lease names X under X's current presence nonce. A lease with
//!   X's name and another nonce is a restarted predecessor's: a `reclaim` candidate, not held.
//! - Its candidates are `claim_candidates` with that held set, in that order. Every quarantine is
//!   taken (not gated by assignment or lanes). A claim is taken only if the split is in X's
//!   assignment and X holds fewer splits than its cap; each claim taken counts toward the cap.
//! - With no assignment record X claims nothing and keeps what it holds; otherwise it drains the
//!   held splits its assignment no longer names.
//!
//! [`Workers`] answers the same for every worker of a fleet at once: the candidates all workers
//! share (the splits with no lease) are found once, so a worker's answer costs its own leases and
//! its assignment, not the whole fleet.

use crate::claims::{candidate_of, claim_candidates, ClaimAction, ClaimCandidate, ClaimKind};
use crate::state::SplitState;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What one worker is told and holds, as its next reconcile sees it.
#[derive(Clone, Copy, Debug)]
pub struct WorkerView<'a> {
    pub instance: &'a str,
    /// Its presence nonce; `None` when unknown (then any lease naming it counts as held).
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
    /// Candidates passed over: claims not in its assignment, or beyond its cap.
    pub skipped: u32,
}

/// Whether `s` is held by the worker: its lease names it, under its nonce when that is known.
pub fn holds(s: &SplitState, instance: &str, nonce: Option<&str>) -> bool {
    s.lease
        .as_ref()
        .is_some_and(|l| l.value.owner == instance && nonce.is_none_or(|n| l.value.nonce == n))
}

/// The worker's next reconcile over `splits`.
pub fn next_actions(splits: &BTreeMap<String, SplitState>, w: &WorkerView) -> NextActions {
    let held: BTreeSet<&str> = splits
        .iter()
        .filter(|(_, s)| holds(s, w.instance, w.nonce))
        .map(|(id, _)| id.as_str())
        .collect();
    let candidates = claim_candidates(splits, |id| held.contains(id), w.instance, w.max_attempts);
    let mut owned = held.len();
    let mut out = NextActions {
        actions: Vec::new(),
        drains: Vec::new(),
        held: held.iter().map(|s| s.to_string()).collect(),
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

/// A fleet's splits prepared for many workers' next reconciles: the candidates every worker
/// shares (the splits with no lease: create, released and expired, in claim order) and, per
/// instance, the splits whose lease names it. [`Workers::next_actions`] is exactly
/// [`next_actions`] for each worker.
pub struct Workers<'a> {
    splits: &'a BTreeMap<String, SplitState>,
    max_attempts: u32,
    /// The candidates of the splits with no lease, in claim order.
    shared: Vec<ClaimCandidate>,
    /// Where the expired ones start in `shared` (a worker's reclaims come before them).
    expired_from: usize,
    /// The position in `shared` of each claim (not quarantine) candidate.
    claim_at: BTreeMap<&'a str, usize>,
    /// The positions of the quarantines in `shared` (every worker takes them).
    quarantines: Vec<usize>,
    /// Per lease owner, the splits its lease names, in id order.
    leased: BTreeMap<&'a str, Vec<(&'a str, &'a SplitState)>>,
}

impl<'a> Workers<'a> {
    /// Prepares `splits` for workers acting with `max_attempts`.
    pub fn new(splits: &'a BTreeMap<String, SplitState>, max_attempts: u32) -> Workers<'a> {
        let mut leased: BTreeMap<&str, Vec<(&str, &SplitState)>> = BTreeMap::new();
        let mut shared = Vec::new();
        for (id, s) in splits {
            match &s.lease {
                Some(l) => leased.entry(l.value.owner.as_str()).or_default().push((id, s)),
                // with no lease, the instance does not matter
                None => shared.extend(candidate_of(id, s, "", max_attempts)),
            }
        }
        shared.sort_by_key(|c| c.kind);
        let expired_from = shared.partition_point(|c| c.kind < ClaimKind::Expired);
        let mut claim_at = BTreeMap::new();
        let mut quarantines = Vec::new();
        for (i, c) in shared.iter().enumerate() {
            match c.action {
                ClaimAction::Claim => {
                    if let Some((id, _)) = splits.get_key_value(&c.id) {
                        claim_at.insert(id.as_str(), i);
                    }
                }
                ClaimAction::Quarantine => quarantines.push(i),
            }
        }
        Workers {
            splits,
            max_attempts,
            shared,
            expired_from,
            claim_at,
            quarantines,
            leased,
        }
    }

    /// The worker's next reconcile: [`next_actions`] over the splits prepared.
    pub fn next_actions(&self, w: &WorkerView) -> NextActions {
        if w.max_attempts != self.max_attempts {
            return next_actions(self.splits, w);
        }
        let mine = self.leased.get(w.instance).map_or(&[][..], Vec::as_slice);
        let (held, others): (Vec<_>, Vec<_>) = mine.iter().partition(|(_, s)| holds(s, w.instance, w.nonce));
        // its predecessors' leases (another nonce): reclaims, between the released and the expired
        let reclaims: Vec<ClaimCandidate> = others
            .iter()
            .filter_map(|(id, s)| candidate_of(id, s, w.instance, self.max_attempts))
            .collect();
        // of the shared candidates only the quarantines and the claims it is assigned can be taken
        let mut picks = self.quarantines.clone();
        if let Some(a) = w.assignment {
            picks.extend(a.iter().filter_map(|id| self.claim_at.get(id.as_str())));
        }
        picks.sort_unstable();
        let split = picks.partition_point(|&i| i < self.expired_from);
        let ordered = picks[..split]
            .iter()
            .map(|&i| &self.shared[i])
            .chain(&reclaims)
            .chain(picks[split..].iter().map(|&i| &self.shared[i]));
        let mut out = NextActions {
            actions: Vec::new(),
            drains: Vec::new(),
            held: held.iter().map(|(id, _)| id.to_string()).collect(),
            skipped: 0,
        };
        let mut owned = held.len();
        for c in ordered {
            let take = match c.action {
                ClaimAction::Quarantine => true,
                ClaimAction::Claim => {
                    w.assignment.is_some_and(|a| a.contains(&c.id)) && owned < w.cap as usize
                }
            };
            if take {
                owned += usize::from(c.action == ClaimAction::Claim);
                out.actions.push(c.clone());
            }
        }
        let candidates = self.shared.len() + reclaims.len();
        out.skipped = u32::try_from(candidates - out.actions.len()).unwrap_or(u32::MAX);
        if let Some(a) = w.assignment {
            out.drains = held
                .iter()
                .filter(|(id, _)| !a.contains(*id))
                .map(|(id, _)| id.to_string())
                .collect();
        }
        out
    }
}
