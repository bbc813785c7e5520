//! A live job: a snapshot kept current one change at a time (docs/live-protocol.md).
//!
//! The page's worker loads the live stream's first event (a snapshot file's text) into a
//! [`LiveJob`], then applies each `change` event: only the changed key is parsed again; the
//! other records are kept as they were read. [`LiveJob::fleet`] gives the leader's view at a
//! moment: the records are joined whole once, then only the splits, members and records the
//! changes touched are joined again (the whole join only when the seed may change), and the
//! result is the fleet a whole join gives. [`LiveJob::snapshot`] writes the state as the
//! exporter would at that revision (the same entries, in revision order, the same bytes).

use crate::codes::ErrorCode;
use crate::fleet::{Fleet, Meta, Parts, Records, Side};
use crate::snapshot::{parse_entry_json, Bucket, Entry, Snapshot, SnapshotError, Source};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, BTreeSet};

/// A bucket's configuration and current entries.
#[derive(Clone, Debug)]
struct BucketState {
    name: String,
    history: u64,
    max_age_ms: u64,
    entries: BTreeMap<String, Entry>,
    /// The highest revision applied (entries and deletes).
    position: u64,
}

impl BucketState {
    fn of(b: Bucket) -> BucketState {
        let top = b.entries.iter().map(|e| e.revision).max().unwrap_or(0);
        let position = b.revision.unwrap_or(top);
        BucketState {
            name: b.name,
            history: b.history,
            max_age_ms: b.max_age_ms,
            entries: b.entries.into_iter().map(|e| (e.key.clone(), e)).collect(),
            position,
        }
    }

    fn bucket(&self) -> Bucket {
        let mut entries: Vec<Entry> = self.entries.values().cloned().collect();
        entries.sort_by_key(|e| e.revision);
        Bucket {
            name: self.name.clone(),
            history: self.history,
            max_age_ms: self.max_age_ms,
            revision: Some(self.position),
            entries,
        }
    }
}

/// One `change` event's data.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangeIn<'a> {
    bucket: String,
    op: String,
    #[serde(borrow, default)]
    entry: Option<&'a RawValue>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    revision: Option<u64>,
    #[serde(default)]
    #[allow(dead_code)]
    created_ms: Option<i64>,
}

/// A job kept current by changes.
#[derive(Clone, Debug)]
pub struct LiveJob {
    job: String,
    source: Source,
    state: BucketState,
    lease: BucketState,
    records: Records,
    /// Keys whose current value the leader would refuse (the state is then refused as a whole,
    /// as a snapshot holding it would be), with why.
    refused: BTreeMap<String, SnapshotError>,
    /// The fleet's parts as last joined (`None`: not joined yet).
    parts: Option<Parts>,
    /// Keys changed since the parts were last joined.
    dirty: BTreeSet<(Side, String)>,
}

fn invalid(message: String) -> SnapshotError {
    SnapshotError::new(ErrorCode::InvalidValue, message)
}

impl LiveJob {
    /// The state of a snapshot (the live stream's first event). Refused as the loader refuses.
    pub fn from_snapshot(snap: &Snapshot) -> Result<LiveJob, SnapshotError> {
        LiveJob::from_parsed(snap.clone())
    }

    /// [`LiveJob::from_snapshot`] of a snapshot it keeps (its entries are moved, not copied).
    pub fn from_parsed(snap: Snapshot) -> Result<LiveJob, SnapshotError> {
        let records = Records::from_snapshot(&snap)?;
        Ok(LiveJob {
            job: snap.job,
            source: snap.source,
            state: BucketState::of(snap.state),
            lease: BucketState::of(snap.lease),
            records,
            refused: BTreeMap::new(),
            parts: None,
            dirty: BTreeSet::new(),
        })
    }

    /// The highest revision applied in each bucket: the stream's `S-L`.
    pub fn revisions(&self) -> (u64, u64) {
        (self.state.position, self.lease.position)
    }

    /// Applies one `change` event's data (`{"bucket","op","entry"|"key","revision"}`).
    pub fn apply(&mut self, data: &str) -> Result<(), SnapshotError> {
        let c: ChangeIn =
            serde_json::from_str(data).map_err(|e| invalid(format!("not a change event: {e}")))?;
        let side = match c.bucket.as_str() {
            "state" => Side::State,
            "lease" => Side::Lease,
            other => return Err(invalid(format!("change of an unknown bucket {other:?}"))),
        };
        match (c.op.as_str(), c.entry, c.key, c.revision) {
            ("put", Some(raw), _, _) => {
                let name = self.bucket(side).name.clone();
                self.put(side, parse_entry_json(&name, raw.get())?);
                Ok(())
            }
            ("delete" | "purge", _, Some(key), Some(rev)) => {
                self.remove(side, &key, rev, None);
                Ok(())
            }
            ("expire", _, Some(key), Some(rev)) => {
                self.remove(side, &key, rev, Some(rev));
                Ok(())
            }
            (op, ..) => Err(invalid(format!("change {op:?} without the fields it needs"))),
        }
    }

    fn bucket(&mut self, side: Side) -> &mut BucketState {
        match side {
            Side::State => &mut self.state,
            Side::Lease => &mut self.lease,
        }
    }

    fn refusal_key(side: Side, key: &str) -> String {
        format!("{}:{key}", if side == Side::State { "state" } else { "lease" })
    }

    fn put(&mut self, side: Side, e: Entry) {
        let b = self.bucket(side);
        b.position = b.position.max(e.revision);
        let name = b.name.clone();
        b.entries.insert(e.key.clone(), e.clone());
        let rk = Self::refusal_key(side, &e.key);
        self.dirty.insert((side, e.key.clone()));
        match self.records.put(side, &name, &e) {
            Ok(()) => drop(self.refused.remove(&rk)),
            Err(err) => drop(self.refused.insert(rk, err)),
        }
    }

    /// Removes `key` (only if its entry is at `only_at`, when given: an expiry of that write).
    fn remove(&mut self, side: Side, key: &str, rev: u64, only_at: Option<u64>) {
        let b = self.bucket(side);
        b.position = b.position.max(rev);
        if only_at.is_some_and(|r| b.entries.get(key).is_some_and(|e| e.revision != r)) {
            return;
        }
        b.entries.remove(key);
        self.records.remove(side, key);
        self.dirty.insert((side, key.to_string()));
        self.refused.remove(&Self::refusal_key(side, key));
    }

    /// Why the state is refused (a key holds a value the loader would refuse), if it is.
    pub fn refusal(&self) -> Option<&SnapshotError> {
        self.refused.values().next()
    }

    /// The leader's view at `now_ms` (lease time left counts from it). Refused while any key
    /// holds a value the loader would refuse (the changes are then taken in once it is mended).
    /// The fleet shares its splits with the job: drop the previous one before asking for the
    /// next, so that the job updates them in place rather than copying them.
    pub fn fleet(&mut self, now_ms: i64) -> Result<Fleet, SnapshotError> {
        if let Some(e) = self.refusal() {
            return Err(e.clone());
        }
        let meta = self.meta(now_ms);
        let records = &self.records;
        let updated = self.parts.take().and_then(|mut p| {
            let all = self
                .dirty
                .iter()
                .all(|(side, key)| p.update(records, *side, key, &meta));
            all.then_some(p)
        });
        let parts = updated.unwrap_or_else(|| Parts::of_records(records, &meta));
        self.dirty.clear();
        let members = self.records.members(meta.lease_ttl_ms, now_ms);
        let fleet = parts.fleet(&meta, members, self.records.warnings(), self.records.probes_0_3());
        self.parts = Some(parts);
        Ok(fleet)
    }

    fn meta(&self, now_ms: i64) -> Meta {
        Meta {
            job: self.job.clone(),
            source: self.source.clone(),
            taken_at_ms: now_ms,
            state_bucket: self.state.name.clone(),
            lease_bucket: self.lease.name.clone(),
            lease_ttl_ms: self.lease.max_age_ms,
            state_revision: self.state.position,
            lease_revision: self.lease.position,
        }
    }

    /// The state as a snapshot taken at `now_ms`: what `spate-planner snapshot` writes at these
    /// revisions (entries in revision order, values byte for byte).
    pub fn snapshot(&self, now_ms: i64) -> Snapshot {
        Snapshot {
            job: self.job.clone(),
            source: self.source.clone(),
            taken_at_ms: now_ms,
            state: self.state.bucket(),
            lease: self.lease.bucket(),
        }
    }
}
