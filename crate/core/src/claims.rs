//! `claim_candidates` (decision-core.md section 6): what a worker may claim, in order.

use crate::records::SplitStatus;
use crate::state::SplitState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a worker would come to hold a split. The declaration order is the priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimKind {
    /// Never owned: no lease, no owner, epoch 0.
    Create,
    /// Released by its owner: no lease, no owner, epoch > 0.
    Released,
    /// This worker's own lease, which it no longer tracks.
    Reclaim,
    /// An owner is recorded but its lease is gone.
    Expired,
}

impl ClaimKind {
    /// Reclaims and takeovers of expired leases use up one attempt.
    pub fn consumes_attempt(self) -> bool {
        matches!(self, ClaimKind::Reclaim | ClaimKind::Expired)
    }
}

/// What the worker does with a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimAction {
    Claim,
    Quarantine,
}

/// One claim candidate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimCandidate {
    pub id: String,
    pub action: ClaimAction,
    pub kind: ClaimKind,
}

/// The claim candidates of `instance`, ordered by kind priority (create, released, reclaim,
/// expired) and then id. `owned(id)` tells whether the worker already holds the split.
///
/// Guarantees (property-tested): every candidate is runnable, not held by this worker, not under
/// a foreign lease, and is a quarantine exactly when its kind consumes an attempt and the
/// attempt count that would follow reaches `max_attempts`. Weight never affects the order.
pub fn claim_candidates(
    splits: &BTreeMap<String, SplitState>,
    owned: impl Fn(&str) -> bool,
    instance: &str,
    max_attempts: u32,
) -> Vec<ClaimCandidate> {
    let mut out: Vec<ClaimCandidate> = splits
        .iter()
        .filter(|(id, _)| !owned(id))
        .filter_map(|(id, s)| candidate_of(id, s, instance, max_attempts))
        .collect();
    // Stable: ids stay ascending within a kind.
    out.sort_by_key(|c| c.kind);
    out
}

/// What split `id` is to `instance` when it does not hold it: a candidate of some kind and
/// action, or `None` (not runnable, under a foreign lease, or no spec to run). A split with no
/// lease is the same candidate to every instance.
pub(crate) fn candidate_of(
    id: &str,
    s: &SplitState,
    instance: &str,
    max_attempts: u32,
) -> Option<ClaimCandidate> {
    if s.progress.status != SplitStatus::Runnable {
        return None;
    }
    let kind = match (&s.lease, &s.progress.owner) {
        (Some(l), _) if l.value.owner == instance => ClaimKind::Reclaim,
        (Some(_), _) => return None,
        (None, None) if s.progress.epoch == 0 => ClaimKind::Create,
        (None, None) => ClaimKind::Released,
        (None, Some(_)) => ClaimKind::Expired,
    };
    let attempts = if kind.consumes_attempt() {
        s.progress.attempts as u64 + 1
    } else {
        s.progress.attempts as u64
    };
    let action = if kind.consumes_attempt() && attempts >= max_attempts as u64 {
        ClaimAction::Quarantine
    } else if s.spec.is_some() {
        ClaimAction::Claim
    } else {
        return None;
    };
    Some(ClaimCandidate {
        id: id.to_string(),
        action,
        kind,
    })
}
