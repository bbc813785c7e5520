//! A live job: a job's state kept current one change at a time, shown in frames.
//!
//! [`LiveJob`] holds the job's [`JobState`] (the entries), every entry parsed ([`Records`]: a
//! change parses only its own key again), and the fleet's parts as last joined. Each change is
//! applied as it arrives; [`LiveJob::frame`] gives the leader's view at a moment — only the
//! splits, members and records the changes touched are joined again (the whole join only when
//! the seed may change), so it is the fleet a whole join gives — and what happened since the
//! last frame ([`LiveEvent`]). Until the next frame, [`LiveJob::shown_snapshot`] is the state
//! that frame showed: each key changed since keeps what it held then.

use super::change::{LiveChange, LiveOp, Revisions};
use super::events::{self, is_news, KeyChange, KeyFacts, LiveEvent, Shown};
use super::presence::{fleet_change, FleetChange, Held};
use super::state::JobState;
use crate::fleet::{Fleet, Meta, Parts, Records, Side};
use crate::snapshot::{Entry, Snapshot, SnapshotError, Source};
use foldhash::HashSet;
use std::collections::{BTreeMap, BTreeSet};

/// One frame: the fleet at its moment, and what happened since the frame before.
#[derive(Clone, Debug)]
pub struct LiveFrame {
    pub fleet: Fleet,
    pub events: Vec<LiveEvent>,
    /// The membership and leadership changes since the frame before, in the order they were
    /// applied, each with the store's time.
    pub changes: Vec<FleetChange>,
}

/// A job kept current by changes.
#[derive(Clone, Debug)]
pub struct LiveJob {
    state: JobState,
    source: Source,
    records: Records,
    /// Keys whose current value the leader would refuse (the state is then refused as a whole,
    /// as a snapshot holding it would be), with why.
    refused: BTreeMap<(Side, String), SnapshotError>,
    /// The fleet's parts as last joined (`None`: not joined yet).
    parts: Option<Parts>,
    /// Keys changed since the parts were last joined.
    dirty: BTreeSet<(Side, String)>,
    /// Keys changed since the last frame, with what each held then.
    since: BTreeMap<(Side, String), KeyFacts>,
    /// The last frame's fleet, as the events compare it (`None`: no frame yet).
    shown: Option<Shown>,
    /// Where the last frame stood (the first state's revisions before any frame).
    shown_at: Revisions,
    /// Set when this job's state replaced another's: the next frame says so, at these revisions.
    resync: Option<Revisions>,
    /// Membership and leadership changes since the last frame.
    fleet_changes: Vec<FleetChange>,
    /// The store's time of the newest write applied (an entry's or a marker's creation time).
    last_written_ms: Option<i64>,
}

impl LiveJob {
    /// The state of a snapshot (the live stream's first state). Refused as the loader refuses.
    pub fn from_snapshot(snap: &Snapshot) -> Result<LiveJob, SnapshotError> {
        LiveJob::from_parsed(snap.clone())
    }

    /// [`LiveJob::from_snapshot`] of a snapshot it keeps (its entries are moved, not copied).
    pub fn from_parsed(snap: Snapshot) -> Result<LiveJob, SnapshotError> {
        let records = Records::from_snapshot(&snap)?;
        LiveJob::of_records(snap, records, BTreeMap::new())
    }

    /// [`LiveJob::from_parsed`], but a value the leader would refuse is taken in as a change
    /// bringing it is: the job is made, and its frames are refused until the value is replaced
    /// ([`LiveJob::refusal`]). A recording replays from such a state (its recorder started
    /// while the store held the value); only a snapshot that is not a job's is refused.
    pub fn from_parsed_keeping_refused(snap: Snapshot) -> Result<LiveJob, SnapshotError> {
        let (records, refused) = match Records::from_snapshot(&snap) {
            Ok(records) => (records, BTreeMap::new()),
            Err(_) => {
                let (records, refused) = Records::from_snapshot_keeping(&snap);
                let refused = refused.into_iter().map(|(side, key, e)| ((side, key), e));
                (records, refused.collect())
            }
        };
        LiveJob::of_records(snap, records, refused)
    }

    fn of_records(
        snap: Snapshot,
        records: Records,
        refused: BTreeMap<(Side, String), SnapshotError>,
    ) -> Result<LiveJob, SnapshotError> {
        let last_written_ms = snap.last_written_ms();
        let (state, source) = JobState::of_snapshot(snap)?;
        Ok(LiveJob {
            shown_at: state.revisions(),
            state,
            source,
            records,
            refused,
            parts: None,
            dirty: BTreeSet::new(),
            since: BTreeMap::new(),
            shown: None,
            resync: None,
            fleet_changes: Vec::new(),
            last_written_ms,
        })
    }

    /// The highest revision applied in each bucket: the stream's `S-L`.
    pub fn revisions(&self) -> Revisions {
        self.state.revisions()
    }

    /// The store's time of the newest write applied (ms since the Unix epoch): when the job last
    /// changed by the store's clock, not the reader's (`None`: nothing written yet).
    pub fn last_written_ms(&self) -> Option<i64> {
        self.last_written_ms
    }

    /// Where the last frame stood.
    pub fn shown_revisions(&self) -> Revisions {
        self.shown_at
    }

    /// Applies one `change` event's data (`{"bucket","op","entry"|"key","revision"}`).
    pub fn apply(&mut self, data: &str) -> Result<bool, SnapshotError> {
        let c = LiveChange::parse(data, |side| self.state.bucket(side).name.clone())?;
        self.apply_change(&c)
    }

    /// Applies one change; true when it is **news**: a membership or leadership change, or what
    /// the timeline tells of a key (a claim, a split completed or quarantined, a publish), not a
    /// lease renewal or a progress write that moves only the watermark. Refused when it goes back
    /// (its revision is not above its bucket's: the job must be read afresh); a value the leader
    /// would refuse is taken in, and refuses the frames until it is replaced
    /// ([`LiveJob::refusal`]).
    pub fn apply_change(&mut self, c: &LiveChange) -> Result<bool, SnapshotError> {
        let slot = (c.side, c.key().to_string());
        let prior = self.facts(c.side, c.key());
        let was = (!self.since.contains_key(&slot)).then(|| prior.clone());
        let before = self.held(c.side, c.key());
        self.state.apply(c).map_err(|r| r.error())?;
        let max_age_ms = self.state.bucket(c.side).max_age_ms;
        let written = match &c.op {
            LiveOp::Put(e) => Some(e.created_ms),
            LiveOp::Delete { created_ms, .. } => Some(*created_ms),
            LiveOp::Expire { .. } => None,
        };
        self.last_written_ms = self.last_written_ms.max(written);
        if let Some(was) = was {
            self.since.insert(slot.clone(), was);
        }
        match &c.op {
            LiveOp::Put(e) => {
                let name = &self.state.bucket(c.side).name;
                match self.records.put(c.side, name, e) {
                    Ok(()) => drop(self.refused.remove(&slot)),
                    Err(err) => drop(self.refused.insert(slot.clone(), err)),
                }
            }
            // A marker or expiry of an entry the state no longer holds as it was changes nothing.
            _ if self.state.bucket(c.side).get(c.key()).is_some() => return Ok(false),
            _ => {
                self.records.remove(c.side, c.key());
                self.refused.remove(&slot);
            }
        }
        let after = self.held(c.side, c.key());
        let fleet_news = fleet_change(c.side, &c.op, (before.as_ref(), after.as_ref()), max_age_ms);
        let key_news = is_news(&KeyChange {
            side: c.side,
            key: c.key(),
            was: &prior,
            now: self.facts(c.side, c.key()),
        });
        let news = key_news || fleet_news.is_some();
        self.fleet_changes.extend(fleet_news);
        self.dirty.insert(slot);
        Ok(news)
    }

    /// What a lease-bucket key holds now, as fleet changes compare it (from its parsed record).
    fn held(&self, side: Side, key: &str) -> Option<Held> {
        if side != Side::Lease || !(key.starts_with("worker.") || key == "leader") {
            return None;
        }
        let created_ms = self.state.bucket(side).get(key)?.created_ms;
        self.records
            .lease_item(key)
            .map(|item| Held::of(item, created_ms))
    }

    /// What the events read of a key now.
    fn facts(&self, side: Side, key: &str) -> KeyFacts {
        let split = key.starts_with("split.");
        KeyFacts {
            entry: self.state.bucket(side).get(key).cloned(),
            owner: (split && side == Side::Lease)
                .then(|| self.records.lease_owner(key).map(str::to_string))
                .flatten(),
            status: (split && side == Side::State)
                .then(|| self.records.progress_status(key))
                .flatten(),
        }
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

    /// The next frame at `now_ms`: the fleet ([`LiveJob::fleet`]) and what happened since the
    /// last frame. Refused as the fleet is; the events then wait for the frame that shows them.
    pub fn frame(&mut self, now_ms: i64) -> Result<LiveFrame, SnapshotError> {
        let fleet = self.fleet(now_ms)?;
        let now = Shown::of(&fleet);
        let mut rows = Vec::new();
        if let Some(was) = &self.shown {
            events::fleet_rows(&mut rows, was, &now);
        }
        if let Some(at) = self.resync.take() {
            rows.push(events::resync_row(&at.to_string()));
        }
        let since = std::mem::take(&mut self.since);
        let changes = since.iter().map(|((side, key), was)| KeyChange {
            side: *side,
            key,
            was,
            now: self.facts(*side, key),
        });
        events::key_rows(&mut rows, changes);
        self.shown = Some(now);
        self.shown_at = self.revisions();
        let changes = std::mem::take(&mut self.fleet_changes);
        Ok(LiveFrame {
            fleet,
            events: rows,
            changes,
        })
    }

    /// Whether membership or leadership changes wait for the next frame.
    pub fn has_fleet_changes(&self) -> bool {
        !self.fleet_changes.is_empty()
    }

    /// This job's state replaces `previous`'s (the whole state read again): its next frame
    /// compares its fleet with the one `previous` showed, and says the state was read again.
    pub fn resync_from(&mut self, previous: &LiveJob) {
        self.shown = previous.shown.clone();
        self.resync = Some(self.revisions());
    }

    /// This job's state takes the place of `previous`'s without having been read again (a
    /// replay that jumps to another moment): its next frame compares its fleet with the one
    /// `previous` showed, and says nothing of a state read again.
    pub fn continue_from(&mut self, previous: &LiveJob) {
        self.shown = previous.shown.clone();
    }

    fn meta(&self, now_ms: i64) -> Meta {
        Meta {
            job: self.state.job.clone(),
            source: self.source.clone(),
            taken_at_ms: now_ms,
            state_bucket: self.state.state.name.clone(),
            lease_bucket: self.state.lease.name.clone(),
            lease_ttl_ms: self.state.lease.max_age_ms,
            state_revision: self.state.state.revision,
            lease_revision: self.state.lease.revision,
        }
    }

    /// The state as a snapshot taken at `now_ms`: what `spate-planner snapshot` writes at these
    /// revisions (entries in revision order, values byte for byte).
    pub fn snapshot(&self, now_ms: i64) -> Snapshot {
        self.state.snapshot(now_ms, self.source.clone())
    }

    /// The state the last frame showed, as a snapshot taken at `now_ms` (the changes since are
    /// left out: each key changed since holds what it held then).
    pub fn shown_snapshot(&self, now_ms: i64) -> Snapshot {
        let bucket = |side: Side, at: u64| {
            let b = self.state.bucket(side);
            let since = self.since.iter().filter(|((s, _), _)| *s == side);
            let changed: HashSet<&str> = since.clone().map(|((_, k), _)| k.as_str()).collect();
            let kept = b.entries().filter(|e| !changed.contains(e.key.as_str()));
            let mut entries: Vec<Entry> = kept.cloned().collect();
            entries.extend(since.filter_map(|(_, was)| was.entry.clone()));
            entries.sort_by_key(|e| e.revision);
            b.bucket_with(entries, at)
        };
        Snapshot {
            job: self.state.job.clone(),
            source: self.source.clone(),
            taken_at_ms: now_ms,
            state: bucket(Side::State, self.shown_at.state),
            lease: bucket(Side::Lease, self.shown_at.lease),
        }
    }
}
