//! The leader's view of a job, as data: the [`Fleet`] and what it is made of (members, split
//! facts, the seed's source, the snapshot's identity) and the [`Warning`]s of a load. Loading is
//! `load.rs`'s; everything in this folder builds on these types.

use crate::codes::WarningCode;
use crate::records::{AssignmentVal, LeaderVal, PlanRecord};
use crate::snapshot::{Bucket, Snapshot, Source};
use crate::state::SplitState;
use foldhash::{HashSet, HashSetExt};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Spate's default `max_in_flight`, the leader's default cap when the store does not show it.
pub(super) const SPATE_DEFAULT_CAP: u32 = 8;

/// Something the leader survives, reported with where it was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Warning {
    pub code: WarningCode,
    pub bucket: String,
    pub key: String,
    pub message: String,
}

/// `warnings` by code: one group per code with its warnings in the order found, the largest
/// group first (groups of one size in the order their code was first found). The page's
/// notices, the review and `plan` list them so.
pub fn warning_groups(warnings: &[Warning]) -> Vec<(WarningCode, Vec<&Warning>)> {
    let mut groups: Vec<(WarningCode, Vec<&Warning>)> = Vec::new();
    for w in warnings {
        match groups.iter_mut().find(|(c, _)| *c == w.code) {
            Some((_, items)) => items.push(w),
            None => groups.push((w.code, vec![w])),
        }
    }
    // a stable sort keeps the order found among groups of one size
    groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
    groups
}

/// The warnings of one load, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Warnings(pub Vec<Warning>);

impl Warnings {
    pub(crate) fn push(&mut self, code: WarningCode, bucket: &str, key: &str, message: impl Into<String>) {
        self.0.push(Warning {
            code,
            bucket: bucket.to_string(),
            key: key.to_string(),
            message: message.into(),
        });
    }
}

/// A live member, from its presence key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Member {
    /// `max_in_flight` of the presence value: `Some(n)` with n > 0 is the member's own cap;
    /// `None` (missing, 0, or unreadable) means the leader's default cap.
    pub max_in_flight: Option<u32>,
    /// Whether the presence value parsed.
    pub readable: bool,
    /// The presence value's nonce (the running process), when readable.
    pub nonce: Option<String>,
    pub revision: u64,
    /// Time the presence key has left before it expires, in ms (negative: overdue).
    pub left_ms: i64,
}

/// Store facts about one split beyond its [`SplitState`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SplitInfo {
    /// When the split's lease entry was written (the NATS server's clock, ms since the epoch):
    /// [`Fleet::lease_left_ms`] counts its time left from it.
    pub lease_created_ms: i64,
}

/// How the seed was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SeedSource {
    /// `stable_hash_str(0, plan.fingerprint)`.
    Plan,
    /// No plan record: the `fp` most split records carry.
    SplitRecords,
    /// Nothing to find it from (0).
    None,
}

/// What a fleet knows of its snapshot beyond the entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub job: String,
    pub source: Source,
    pub taken_at_ms: i64,
    pub state_bucket: String,
    pub lease_bucket: String,
    pub lease_ttl_ms: u64,
    pub state_revision: u64,
    pub lease_revision: u64,
}

impl Meta {
    /// The snapshot's identity and buckets.
    pub fn of(snap: &Snapshot) -> Meta {
        let top = |b: &Bucket| {
            b.revision
                .unwrap_or_else(|| b.entries.iter().map(|e| e.revision).max().unwrap_or(0))
        };
        Meta {
            job: snap.job.clone(),
            source: snap.source.clone(),
            taken_at_ms: snap.taken_at_ms,
            state_bucket: snap.state.name.clone(),
            lease_bucket: snap.lease.name.clone(),
            lease_ttl_ms: snap.lease.max_age_ms,
            state_revision: top(&snap.state),
            lease_revision: top(&snap.lease),
        }
    }
}

/// A job's coordination state as the leader sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fleet {
    pub job: String,
    pub source: Source,
    pub taken_at_ms: i64,
    pub state_bucket: String,
    pub lease_bucket: String,
    /// The lease TTL (the lease bucket's `max_age`).
    pub lease_ttl_ms: u64,
    /// The store's position the snapshot shows, per bucket: its recorded revision (the cut), or
    /// in files without one the highest entry revision.
    pub state_revision: u64,
    pub lease_revision: u64,
    pub plan: Option<PlanRecord>,
    pub seed: u64,
    pub seed_source: SeedSource,
    pub leader: Option<LeaderVal>,
    pub members: BTreeMap<String, Member>,
    /// Shared (cheap to clone): plans copy it only when a what-if changes a split.
    pub splits: Arc<BTreeMap<String, SplitState>>,
    /// Leased splits' facts (shared, as the splits).
    pub info: Arc<BTreeMap<String, SplitInfo>>,
    /// The leader's last published assignment, `assign.{instance}` (readable records only;
    /// shared, as the splits).
    pub published: Arc<BTreeMap<String, AssignmentVal>>,
    /// Spec records with no progress record (not splits the core knows yet).
    pub orphan_specs: usize,
    /// Keys of records of another job (another `fp`): Spate stops every worker on them. They are
    /// left out of [`Fleet::splits`], so the plan is what it would be without them.
    pub foreign: Vec<String>,
    /// 0.3.0 probe keys (`_probe.{instance}.{32 hex}`, both buckets): left behind by a 0.3.0
    /// worker's start. Under a 0.1.x/0.2.x leader, the only hint of a mixed fleet.
    pub probes_0_3: Vec<String>,
    pub warnings: Vec<Warning>,
}

impl Fleet {
    /// Instances that own splits (lease or progress) but are not members.
    pub fn departed_owners(&self) -> BTreeSet<String> {
        let mut owners: HashSet<&str> = HashSet::new();
        for s in self.splits.values() {
            owners.extend(s.progress.owner.as_deref());
            owners.extend(s.lease.as_ref().map(|l| l.value.owner.as_str()));
        }
        owners
            .into_iter()
            .filter(|o| !self.members.contains_key(*o))
            .map(str::to_string)
            .collect()
    }
}
