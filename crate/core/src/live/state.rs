//! A job's two buckets held in memory: every live entry, each bucket's revision (the highest
//! stream sequence applied), and the lease deadlines entries expire by. The server holds one
//! per followed job; a [`crate::LiveJob`] (the page's worker, `watch`) is built on one.
//!
//! Changes must come in revision order: a put or a marker whose revision is not above its
//! bucket's is a [`Regression`] (the stream went back: the state must be read afresh). Time is
//! an argument: [`JobState::take_due`] says which lease entries reached the bucket's `max_age`.

use super::change::{LiveChange, LiveOp, Revisions};
use crate::codes::ErrorCode;
use crate::fleet::Side;
use crate::snapshot::{Bucket, Entry, Snapshot, SnapshotError, Source};
use foldhash::{HashMap, HashMapExt};
use std::collections::{BTreeMap, BTreeSet};

/// A change whose revision is not above the bucket's: the stream went back (a bucket deleted
/// and created again, or a watch that restarted from elsewhere). The state must be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regression {
    pub bucket: String,
    pub key: String,
    /// The change's revision, and the bucket's.
    pub revision: u64,
    pub at: u64,
}

impl Regression {
    /// As an error naming the bucket and key.
    pub fn error(&self) -> SnapshotError {
        let message = format!(
            "a change of key {:?} at revision {} is not after bucket {}'s revision {}: the stream went back",
            self.key, self.revision, self.bucket, self.at
        );
        let mut e = SnapshotError::new(ErrorCode::InvalidValue, message);
        (e.bucket, e.key) = (Some(self.bucket.clone()), Some(self.key.clone()));
        e
    }
}

/// One bucket in memory: entries by revision (the order a snapshot lists them in) and by key.
#[derive(Clone, Debug)]
pub struct BucketState {
    pub name: String,
    pub history: u64,
    pub max_age_ms: u64,
    /// The highest revision applied (entries and markers), or the cut the bucket was read at.
    pub revision: u64,
    by_rev: BTreeMap<u64, Entry>,
    by_key: HashMap<String, u64>,
}

impl BucketState {
    /// From a bucket as read: it stands at its recorded revision (the cut) or its highest
    /// entry's. Refused when two entries share a revision (a stream has one message per
    /// sequence, so such a file was not read from one).
    fn new(bucket: Bucket) -> Result<BucketState, SnapshotError> {
        let mut b = BucketState {
            name: bucket.name,
            history: bucket.history,
            max_age_ms: bucket.max_age_ms,
            revision: bucket.revision.unwrap_or(0),
            by_rev: BTreeMap::new(),
            by_key: HashMap::with_capacity(bucket.entries.len()),
        };
        for e in bucket.entries {
            b.revision = b.revision.max(e.revision);
            if let Some(other) = b.by_rev.get(&e.revision) {
                let message = format!(
                    "keys {:?} and {:?} are both at revision {}: a bucket's revisions are its stream's sequences, one per message",
                    other.key, e.key, e.revision
                );
                let mut err = SnapshotError::new(ErrorCode::InvalidField, message);
                (err.bucket, err.key) = (Some(b.name.clone()), Some(e.key.clone()));
                return Err(err);
            }
            b.insert(e);
        }
        Ok(b)
    }

    /// Inserts `e`, returning the entry it replaces.
    fn insert(&mut self, e: Entry) -> Option<Entry> {
        let old = self.remove(&e.key);
        self.by_key.insert(e.key.clone(), e.revision);
        self.by_rev.insert(e.revision, e);
        old
    }

    /// Removes `key`, returning its entry.
    fn remove(&mut self, key: &str) -> Option<Entry> {
        let rev = self.by_key.remove(key)?;
        self.by_rev.remove(&rev)
    }

    /// The entry of `key`, if the bucket holds it.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.by_key.get(key).and_then(|r| self.by_rev.get(r))
    }

    /// The entries in revision order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.by_rev.values()
    }

    /// The bucket as a snapshot records it: entries in revision order.
    pub fn to_bucket(&self) -> Bucket {
        self.bucket_with(self.by_rev.values().cloned().collect(), self.revision)
    }

    /// This bucket's configuration with `entries`, at `revision`.
    pub(super) fn bucket_with(&self, entries: Vec<Entry>, revision: u64) -> Bucket {
        Bucket {
            name: self.name.clone(),
            history: self.history,
            max_age_ms: self.max_age_ms,
            revision: Some(revision),
            entries,
        }
    }

    fn deadline(&self, e: &Entry) -> Option<(i64, u64)> {
        (self.max_age_ms > 0).then(|| (e.created_ms.saturating_add(self.max_age_ms as i64), e.revision))
    }
}

/// A job's state: both buckets, and the lease deadlines in order.
#[derive(Clone, Debug)]
pub struct JobState {
    pub job: String,
    pub state: BucketState,
    pub lease: BucketState,
    /// (deadline ms, revision) of every lease entry, when the lease bucket has a `max_age`.
    expiry: BTreeSet<(i64, u64)>,
}

impl JobState {
    /// The state of the buckets as read (see [`BucketState`] for where each stands).
    pub fn new(job: &str, state: Bucket, lease: Bucket) -> Result<JobState, SnapshotError> {
        let lease = BucketState::new(lease)?;
        let expiry = lease.entries().filter_map(|e| lease.deadline(e)).collect();
        Ok(JobState {
            job: job.to_string(),
            state: BucketState::new(state)?,
            lease,
            expiry,
        })
    }

    /// The state of a snapshot's buckets (its entries moved), and its source.
    pub fn of_snapshot(snap: Snapshot) -> Result<(JobState, Source), SnapshotError> {
        Ok((JobState::new(&snap.job, snap.state, snap.lease)?, snap.source))
    }

    pub fn revisions(&self) -> Revisions {
        Revisions {
            state: self.state.revision,
            lease: self.lease.revision,
        }
    }

    pub fn bucket(&self, side: Side) -> &BucketState {
        match side {
            Side::State => &self.state,
            Side::Lease => &self.lease,
        }
    }

    fn bucket_mut(&mut self, side: Side) -> &mut BucketState {
        match side {
            Side::State => &mut self.state,
            Side::Lease => &mut self.lease,
        }
    }

    /// Applies a change. Puts and markers must come in revision order; an expiry removes the
    /// key only if the entry held is at its revision, and moves no revision.
    pub fn apply(&mut self, c: &LiveChange) -> Result<(), Regression> {
        let b = self.bucket_mut(c.side);
        if !matches!(c.op, LiveOp::Expire { .. }) && c.revision() <= b.revision {
            return Err(Regression {
                bucket: b.name.clone(),
                key: c.key().to_string(),
                revision: c.revision(),
                at: b.revision,
            });
        }
        let (removed, added) = match &c.op {
            LiveOp::Put(e) => {
                b.revision = e.revision;
                (b.insert(e.clone()), b.deadline(e))
            }
            LiveOp::Delete { key, revision, .. } => {
                b.revision = *revision;
                (b.remove(key), None)
            }
            LiveOp::Expire { key, revision } => match b.get(key) {
                Some(e) if e.revision == *revision => (b.remove(key), None),
                _ => (None, None),
            },
        };
        let removed = removed.and_then(|e| b.deadline(&e));
        if c.side == Side::Lease {
            if let Some(r) = removed {
                self.expiry.remove(&r);
            }
            if let Some(a) = added {
                self.expiry.insert(a);
            }
        }
        Ok(())
    }

    /// When the oldest lease entry runs out (ms since the Unix epoch).
    pub fn next_deadline(&self) -> Option<i64> {
        self.expiry.first().map(|(d, _)| *d)
    }

    /// The lease entries whose age reached `max_age` by `now_ms`, as changes to apply; their
    /// deadlines are forgotten (so a deadline passed is never waited for twice).
    pub fn take_due(&mut self, now_ms: i64) -> Vec<LiveChange> {
        let later = self.expiry.split_off(&(now_ms.saturating_add(1), 0));
        let due = std::mem::replace(&mut self.expiry, later);
        due.into_iter()
            .filter_map(|(_, rev)| self.lease.by_rev.get(&rev))
            .map(|e| LiveChange {
                side: Side::Lease,
                op: LiveOp::Expire {
                    key: e.key.clone(),
                    revision: e.revision,
                },
            })
            .collect()
    }

    /// The state as a snapshot taken at `taken_at_ms`: entries in revision order, each bucket
    /// at its revision (what the exporter writes at these revisions).
    pub fn snapshot(&self, taken_at_ms: i64, source: Source) -> Snapshot {
        Snapshot {
            job: self.job.clone(),
            source,
            taken_at_ms,
            state: self.state.to_bucket(),
            lease: self.lease.to_bucket(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn entry(key: &str, revision: u64, created_ms: i64) -> Entry {
        Entry {
            key: key.into(),
            revision,
            created_ms,
            value: b"{}".to_vec(),
        }
    }

    fn bucket(name: &str, max_age_ms: u64, revision: u64, entries: Vec<Entry>) -> Bucket {
        Bucket {
            name: name.into(),
            history: 1,
            max_age_ms,
            revision: Some(revision),
            entries,
        }
    }

    fn job() -> JobState {
        let state = bucket("s", 0, 1, vec![entry("plan", 1, 0)]);
        let lease = bucket(
            "l",
            1000,
            3,
            vec![entry("worker.a", 2, 100), entry("worker.b", 3, 50)],
        );
        JobState::new("j", state, lease).unwrap()
    }

    fn put(side: Side, e: Entry) -> LiveChange {
        LiveChange {
            side,
            op: LiveOp::Put(e),
        }
    }

    #[test]
    fn puts_deletes_and_revision_order() {
        let mut j = job();
        assert_eq!(j.revisions(), Revisions { state: 1, lease: 3 });
        j.apply(&put(Side::State, entry("split.x", 5, 0))).unwrap();
        j.apply(&put(Side::State, entry("plan", 6, 0))).unwrap();
        let keys: Vec<String> = j.state.to_bucket().entries.into_iter().map(|e| e.key).collect();
        assert_eq!(keys, ["split.x", "plan"], "revision order");
        let del = LiveChange {
            side: Side::State,
            op: LiveOp::Delete {
                key: "split.x".into(),
                revision: 7,
                created_ms: 0,
                purge: false,
            },
        };
        j.apply(&del).unwrap();
        assert!(j.state.get("split.x").is_none());
        assert_eq!(j.revisions(), Revisions { state: 7, lease: 3 });
        let old = put(Side::State, entry("plan", 7, 0));
        assert!(
            j.apply(&old).is_err(),
            "a revision not above the bucket's is a regression"
        );
    }

    #[test]
    fn leases_expire_in_deadline_order_and_only_at_their_revision() {
        let mut j = job();
        assert_eq!(j.next_deadline(), Some(1050));
        assert!(j.take_due(1049).is_empty());
        let due = j.take_due(1100);
        assert_eq!(due.len(), 2);
        // worker.a was renewed meanwhile: its old expiry must not remove the new entry.
        j.apply(&put(Side::Lease, entry("worker.a", 4, 1090))).unwrap();
        for c in &due {
            j.apply(c).unwrap();
        }
        assert!(j.lease.get("worker.b").is_none());
        assert_eq!(j.lease.get("worker.a").map(|e| e.revision), Some(4));
        assert_eq!(j.next_deadline(), Some(2090));
        assert_eq!(
            j.revisions(),
            Revisions { state: 1, lease: 4 },
            "expiry moves no revision"
        );
    }

    #[test]
    fn a_bucket_stands_at_its_cut_and_two_entries_at_one_revision_are_refused() {
        let state = bucket("s", 0, 40, vec![entry("plan", 1, 0)]);
        let lease = bucket("l", 0, 0, vec![entry("worker.a", 2, 0)]);
        let j = JobState::new("j", state.clone(), lease.clone()).unwrap();
        assert_eq!(j.revisions(), Revisions { state: 40, lease: 2 });
        let twice = bucket("l", 0, 2, vec![entry("worker.a", 2, 0), entry("worker.b", 2, 0)]);
        let e = JobState::new("j", state, twice).unwrap_err();
        assert_eq!(
            (e.bucket.as_deref(), e.key.as_deref()),
            (Some("l"), Some("worker.b"))
        );
    }
}
