//! A job's two buckets held in memory: every live entry, each bucket's revision (the highest
//! stream sequence applied), and the lease deadlines the server expires entries by.

use spate_planner_core::{Bucket, Entry, Snapshot, Source};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// Which of the job's two buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    State,
    Lease,
}

impl Which {
    pub fn label(self) -> &'static str {
        match self {
            Which::State => "state",
            Which::Lease => "lease",
        }
    }
}

/// The two buckets' revisions: where a client's copy stands. Written `S-L`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub state: u64,
    pub lease: u64,
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.state, self.lease)
    }
}

impl std::str::FromStr for Pair {
    type Err = ();
    fn from_str(s: &str) -> Result<Pair, ()> {
        let (a, b) = s.trim().split_once('-').ok_or(())?;
        Ok(Pair {
            state: a.parse().map_err(|_| ())?,
            lease: b.parse().map_err(|_| ())?,
        })
    }
}

/// What happened to one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A value was written.
    Put(Entry),
    /// A delete marker (`purge`: a purge marker, which is also how NATS reports a `max_age`
    /// expiry on a bucket with limit markers).
    Delete {
        key: String,
        revision: u64,
        created_ms: i64,
        purge: bool,
    },
    /// The entry at `revision` outlived the bucket's `max_age`: dropped by this server.
    Expire { key: String, revision: u64 },
}

/// A change to one bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub which: Which,
    pub op: Op,
}

impl Change {
    pub fn key(&self) -> &str {
        match &self.op {
            Op::Put(e) => &e.key,
            Op::Delete { key, .. } | Op::Expire { key, .. } => key,
        }
    }
}

/// A change whose revision is not above the bucket's: the stream went back (a bucket deleted
/// and created again, or a watch that restarted from elsewhere). The state must be rebuilt.
#[derive(Debug)]
pub struct Regression {
    pub bucket: String,
    pub key: String,
}

/// One bucket in memory: entries by revision (the order a snapshot lists them in) and by key.
pub struct BucketState {
    pub name: String,
    pub history: u64,
    pub max_age_ms: u64,
    pub revision: u64,
    by_rev: BTreeMap<u64, Entry>,
    by_key: HashMap<String, u64>,
}

impl BucketState {
    /// From a bucket as read, at `revision`.
    pub fn new(bucket: Bucket, revision: u64) -> BucketState {
        let mut b = BucketState {
            name: bucket.name,
            history: bucket.history,
            max_age_ms: bucket.max_age_ms,
            revision,
            by_rev: BTreeMap::new(),
            by_key: HashMap::new(),
        };
        for e in bucket.entries {
            b.revision = b.revision.max(e.revision);
            b.insert(e);
        }
        b
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
        let old = self.by_rev.remove(&rev)?;
        Some(old)
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.by_key.get(key).and_then(|r| self.by_rev.get(r))
    }

    /// The bucket as a snapshot records it: entries in revision order.
    pub fn to_bucket(&self) -> Bucket {
        Bucket {
            name: self.name.clone(),
            history: self.history,
            max_age_ms: self.max_age_ms,
            revision: Some(self.revision),
            entries: self.by_rev.values().cloned().collect(),
        }
    }

    fn deadline(&self, e: &Entry) -> Option<i64> {
        (self.max_age_ms > 0).then(|| e.created_ms.saturating_add(self.max_age_ms as i64))
    }
}

/// A job's state: both buckets, and the lease deadlines in order.
pub struct JobState {
    pub job: String,
    pub state: BucketState,
    pub lease: BucketState,
    /// (deadline ms, revision) of every lease entry, when the lease bucket has a `max_age`.
    expiry: BTreeSet<(i64, u64)>,
}

impl JobState {
    pub fn new(job: &str, state: BucketState, lease: BucketState) -> JobState {
        let expiry = lease
            .by_rev
            .values()
            .filter_map(|e| lease.deadline(e).map(|d| (d, e.revision)))
            .collect();
        JobState {
            job: job.to_string(),
            state,
            lease,
            expiry,
        }
    }

    pub fn pair(&self) -> Pair {
        Pair {
            state: self.state.revision,
            lease: self.lease.revision,
        }
    }

    pub fn bucket(&self, which: Which) -> &BucketState {
        match which {
            Which::State => &self.state,
            Which::Lease => &self.lease,
        }
    }

    fn bucket_mut(&mut self, which: Which) -> &mut BucketState {
        match which {
            Which::State => &mut self.state,
            Which::Lease => &mut self.lease,
        }
    }

    /// Applies a change. Puts and markers must come in revision order.
    pub fn apply(&mut self, c: &Change) -> Result<(), Regression> {
        let b = self.bucket_mut(c.which);
        if !matches!(c.op, Op::Expire { .. }) && revision_of(&c.op) <= b.revision {
            return Err(Regression {
                bucket: b.name.clone(),
                key: c.key().to_string(),
            });
        }
        let (removed, added) = match &c.op {
            Op::Put(e) => {
                b.revision = e.revision;
                let deadline = b.deadline(e).map(|d| (d, e.revision));
                (b.insert(e.clone()), deadline)
            }
            Op::Delete { key, revision, .. } => {
                b.revision = *revision;
                (b.remove(key), None)
            }
            Op::Expire { key, revision } => match b.get(key) {
                Some(e) if e.revision == *revision => (b.remove(key), None),
                _ => (None, None),
            },
        };
        let removed = removed.and_then(|e| self.bucket(c.which).deadline(&e).map(|d| (d, e.revision)));
        if c.which == Which::Lease {
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
    pub fn take_due(&mut self, now_ms: i64) -> Vec<Change> {
        let later = self.expiry.split_off(&(now_ms.saturating_add(1), 0));
        let due = std::mem::replace(&mut self.expiry, later);
        due.into_iter()
            .filter_map(|(_, rev)| self.lease.by_rev.get(&rev))
            .map(|e| Change {
                which: Which::Lease,
                op: Op::Expire {
                    key: e.key.clone(),
                    revision: e.revision,
                },
            })
            .collect()
    }

    /// The state as a snapshot taken at `taken_at_ms`.
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

fn revision_of(op: &Op) -> u64 {
    match op {
        Op::Put(e) => e.revision,
        Op::Delete { revision, .. } | Op::Expire { revision, .. } => *revision,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, revision: u64, created_ms: i64) -> Entry {
        Entry {
            key: key.into(),
            revision,
            created_ms,
            value: b"{}".to_vec(),
        }
    }

    fn bucket(name: &str, max_age_ms: u64, entries: Vec<Entry>) -> Bucket {
        Bucket {
            name: name.into(),
            history: 1,
            max_age_ms,
            revision: None,
            entries,
        }
    }

    fn job() -> JobState {
        let state = BucketState::new(bucket("s", 0, vec![entry("plan", 1, 0)]), 1);
        let lease = BucketState::new(
            bucket(
                "l",
                1000,
                vec![entry("worker.a", 2, 100), entry("worker.b", 3, 50)],
            ),
            3,
        );
        JobState::new("j", state, lease)
    }

    fn put(which: Which, e: Entry) -> Change {
        Change {
            which,
            op: Op::Put(e),
        }
    }

    #[test]
    fn puts_deletes_and_revision_order() {
        let mut j = job();
        assert_eq!(j.pair(), Pair { state: 1, lease: 3 });
        j.apply(&put(Which::State, entry("split.x", 5, 0))).unwrap();
        j.apply(&put(Which::State, entry("plan", 6, 0))).unwrap();
        let keys: Vec<String> = j.state.to_bucket().entries.into_iter().map(|e| e.key).collect();
        assert_eq!(keys, ["split.x", "plan"], "revision order");
        let del = Change {
            which: Which::State,
            op: Op::Delete {
                key: "split.x".into(),
                revision: 7,
                created_ms: 0,
                purge: false,
            },
        };
        j.apply(&del).unwrap();
        assert!(j.state.get("split.x").is_none());
        assert_eq!(j.pair(), Pair { state: 7, lease: 3 });
        let old = put(Which::State, entry("plan", 7, 0));
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
        j.apply(&put(Which::Lease, entry("worker.a", 4, 1090))).unwrap();
        for c in &due {
            j.apply(c).unwrap();
        }
        assert!(j.lease.get("worker.b").is_none());
        assert_eq!(j.lease.get("worker.a").map(|e| e.revision), Some(4));
        assert_eq!(j.next_deadline(), Some(2090));
        assert_eq!(j.pair(), Pair { state: 1, lease: 4 }, "expiry moves no revision");
    }

    #[test]
    fn pairs_parse() {
        assert_eq!("12-40".parse::<Pair>(), Ok(Pair { state: 12, lease: 40 }));
        assert!("12".parse::<Pair>().is_err());
        assert!("a-b".parse::<Pair>().is_err());
        assert_eq!(Pair { state: 1, lease: 2 }.to_string(), "1-2");
    }
}
