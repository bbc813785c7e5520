//! The observed state of one split (decision-core.md section 1).

use crate::records::{LeaseVal, SplitProgressRecord, SplitSpecRecord, SplitStatus};
use serde::{Deserialize, Serialize};

/// A live lease entry: its value and store revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseEntry {
    pub value: LeaseVal,
    pub rev: u64,
}

/// Everything the decision core knows of one split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitState {
    /// The durable progress record.
    pub progress: SplitProgressRecord,
    /// The progress record's store revision (the CAS target).
    pub progress_rev: u64,
    /// The immutable spec, if it has been observed.
    pub spec: Option<SplitSpecRecord>,
    /// The live lease, if one exists.
    pub lease: Option<LeaseEntry>,
}

impl SplitState {
    /// The current owner: the lease's owner when a lease exists, else `progress.owner`.
    pub fn current_owner(&self) -> Option<&str> {
        match &self.lease {
            Some(l) => Some(l.value.owner.as_str()),
            None => self.progress.owner.as_deref(),
        }
    }

    /// Whether the lease counts in Spate 0.3's sticky walk (`lease_is_current`,
    /// decision-core-0.3.md section 2.1): it is ahead of the progress record's epoch (a claim
    /// whose record write is not visible yet), or the record names the lease's owner. False
    /// without a lease.
    pub fn lease_is_current(&self) -> bool {
        self.lease.as_ref().is_some_and(|l| {
            l.value.epoch > self.progress.epoch
                || self.progress.owner.as_deref() == Some(l.value.owner.as_str())
        })
    }

    /// Whether the leader may place this split at all (before `reserved` is considered):
    /// runnable, spec present, not completed.
    pub fn is_assignable(&self) -> bool {
        self.progress.status == SplitStatus::Runnable && self.spec.is_some() && !self.progress.completed
    }

    /// The weight the assignment uses: `max(1, spec.weight)`, or `None` without a spec.
    pub fn assign_weight(&self) -> Option<u64> {
        self.spec.as_ref().map(|s| s.weight.max(1))
    }
}
