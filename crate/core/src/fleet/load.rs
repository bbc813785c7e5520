//! Loading: a snapshot's text, a parsed snapshot or a live job's records into the [`Fleet`]
//! (every entry parsed into [`Records`], then the splits joined, `parts.rs`).

use super::model::{Fleet, Meta, Warning};
use super::parts::Parts;
use super::read::{self, Records};
use crate::snapshot::{Snapshot, SnapshotError};

impl Fleet {
    /// Reads a snapshot file's text into the leader's view of the job.
    pub fn load_text(text: &str) -> Result<Fleet, SnapshotError> {
        Fleet::from_snapshot(&Snapshot::parse(text)?)
    }

    /// The leader's view of a parsed snapshot.
    pub fn from_snapshot(snap: &Snapshot) -> Result<Fleet, SnapshotError> {
        let records = Records::from_snapshot(snap)?;
        Ok(Fleet::from_records(records, &Meta::of(snap)))
    }

    /// The leader's view of parsed records (a snapshot's, or a live job's at one moment).
    pub fn from_records(records: Records, meta: &Meta) -> Fleet {
        let record_warnings: Vec<Warning> = records.warnings().cloned().collect();
        let probes = records.probes_0_3();
        let (state_items, lease_items) = records.into_items();
        let state = read::state_records(state_items);
        let lease = read::lease_records(lease_items, meta.lease_ttl_ms, meta.taken_at_ms);
        let parts = Parts::join(state, lease.leases, lease.leader, meta);
        parts.fleet(meta, lease.members, record_warnings.iter(), probes)
    }

    /// Time the lease of split `id` has left at [`Fleet::taken_at_ms`], in ms (negative: expired
    /// but not yet removed), if it is leased.
    pub fn lease_left_ms(&self, id: &str) -> Option<i64> {
        let created = self.info.get(id)?.lease_created_ms;
        Some(read::age_left(self.lease_ttl_ms, self.taken_at_ms, created))
    }
}
