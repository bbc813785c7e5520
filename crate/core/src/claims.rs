//! `claim_candidates` (decision-core.md section 6; Spate 0.3: decision-core-0.3.md section 4):
//! what a worker may claim, in order.
//!
//! The releases differ only for a split under a lease with the worker's own id: 0.1 reclaims it
//! whatever the record says; 0.3 reclaims it only when the record names an owner (else it is a
//! create or a release, costing no attempt), and skips it on its last attempt when the lease is
//! another process's under the same id (`awaits_lease_expiry`).

use crate::records::SplitStatus;
use crate::rules::Rules;
use crate::state::SplitState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a worker would come to hold a split. The declaration order is the priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// Spate's default `max_attempts` (decision-core.md section 7): the store does not record it.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) const SPATE_DEFAULT_MAX_ATTEMPTS: u32 = 4;

/// Where a `max_attempts` comes from: the store never records it (each worker sets its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum AttemptsSource {
    /// Set by the user (`--max-attempts`, the scenario's `max_attempts`, the dashboard's field).
    User,
    /// Not given: Spate's default 4.
    SpateDefault,
}

/// The `max_attempts` the workers are taken to run with, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MaxAttempts {
    pub value: u32,
    pub source: AttemptsSource,
}

impl MaxAttempts {
    /// The value given, else Spate's default.
    pub fn of(given: Option<u32>) -> MaxAttempts {
        match given {
            Some(value) => MaxAttempts {
                value,
                source: AttemptsSource::User,
            },
            None => MaxAttempts {
                value: SPATE_DEFAULT_MAX_ATTEMPTS,
                source: AttemptsSource::SpateDefault,
            },
        }
    }

    /// One phrase for people: the value and where it comes from.
    pub fn explain(&self) -> String {
        match self.source {
            AttemptsSource::User => format!(
                "{}, set by the user (--max-attempts or the scenario's max_attempts); the store does not record it",
                self.value
            ),
            AttemptsSource::SpateDefault => format!(
                "{}, Spate's default; the store does not record it (set --max-attempts if the workers run with another)",
                self.value
            ),
        }
    }
}

/// What the worker does with a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
/// expired) and then id, by `rules`. `owned(id)` tells whether the worker already holds the
/// split; `run` is the worker's own nonce (read by 0.3; `None` when unknown, and then every lease
/// under its id is taken to be its own process's).
///
/// Guarantees (property-tested): every candidate is runnable, not held by this worker, not under
/// a foreign lease, and is a quarantine exactly when its kind consumes an attempt and the
/// attempt count that would follow reaches `max_attempts`. Weight never affects the order.
pub fn claim_candidates(
    rules: Rules,
    splits: &BTreeMap<String, SplitState>,
    owned: impl Fn(&str) -> bool,
    instance: &str,
    run: Option<&str>,
    max_attempts: u32,
) -> Vec<ClaimCandidate> {
    let mut out: Vec<ClaimCandidate> = splits
        .iter()
        .filter(|(id, s)| s.progress.status == SplitStatus::Runnable && !owned(id))
        .filter_map(|(id, s)| {
            let worker = Claimant {
                rules,
                instance,
                run,
                max_attempts,
            };
            worker.candidacy(s).map(|(kind, action)| ClaimCandidate {
                id: id.clone(),
                action,
                kind,
            })
        })
        .collect();
    // Stable: ids stay ascending within a kind.
    out.sort_by_key(|c| c.kind);
    out
}

/// The worker a candidacy is judged for.
#[derive(Clone, Copy)]
pub(crate) struct Claimant<'a> {
    pub rules: Rules,
    pub instance: &'a str,
    pub run: Option<&'a str>,
    pub max_attempts: u32,
}

impl Claimant<'_> {
    /// What a runnable split the worker does not hold is to it: its kind and action, or `None`
    /// when it is no candidate (under a foreign lease, awaiting its lease's expiry, or a claim
    /// without a spec).
    pub(crate) fn candidacy(&self, s: &SplitState) -> Option<(ClaimKind, ClaimAction)> {
        let p = &s.progress;
        let kind = match (&s.lease, &p.owner) {
            (Some(l), _) if l.value.owner != self.instance => return None,
            (Some(_), _) if self.rules == Rules::V0_1 => ClaimKind::Reclaim,
            (Some(_), Some(_)) if self.awaits_lease_expiry(s) => return None,
            (Some(_), Some(_)) => ClaimKind::Reclaim,
            (_, None) if p.epoch == 0 => ClaimKind::Create,
            (_, None) => ClaimKind::Released,
            (None, Some(_)) => ClaimKind::Expired,
        };
        let attempts = p.attempts as u64 + u64::from(kind.consumes_attempt());
        if kind.consumes_attempt() && attempts >= self.max_attempts as u64 {
            Some((kind, ClaimAction::Quarantine))
        } else if s.spec.is_some() {
            Some((kind, ClaimAction::Claim))
        } else {
            None
        }
    }

    /// 0.3's `awaits_lease_expiry`: another process under this id holds a lease on a split whose
    /// record names an owner, on its last attempt; the worker waits for that lease to go.
    fn awaits_lease_expiry(&self, s: &SplitState) -> bool {
        let p = &s.progress;
        p.status == SplitStatus::Runnable
            && p.owner.is_some()
            && p.attempts as u64 + 1 >= self.max_attempts as u64
            && s.lease.as_ref().is_some_and(|l| {
                l.value.owner == self.instance && self.run.is_some_and(|r| l.value.nonce != r)
            })
    }
}
