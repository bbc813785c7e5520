//! One followed job: its state in memory, the ring of recent events, and the broadcast every
//! connected page (and `watch`) listens to.
//!
//! Memory is bounded: the broadcast keeps at most [`QUEUE`] batches of at most [`BATCH`] changes
//! for all listeners together; a listener that falls further behind is told it lagged and gets a
//! full resync instead. The ring keeps at most [`RING_EVENTS`] events and [`RING_BYTES`] bytes,
//! as pieces of the batches' own bytes. The state's texts (the snapshot file of
//! `GET /api/snapshot` and the stream's `snapshot` event) are built once per batch sequence,
//! shared by every client sent them, and dropped as soon as the state moves.

use super::limits::{self, Busy, Heavy};
use super::ring::Ring;
use super::stats::Stats;
use super::wire::{self, FileText, Status};
use axum::body::Bytes;
use spate_planner_core::{live::Regression, JobState, LiveChange, Revisions, Side};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{broadcast, Semaphore};

/// At most this many changes per batch (the follower gathers what is ready, up to this).
pub(crate) const BATCH: usize = 1024;
/// Batches kept for listeners that are behind.
pub(crate) const QUEUE: usize = 64;
pub(crate) const RING_EVENTS: usize = 16_384;
pub(crate) const RING_BYTES: usize = 16 << 20;

/// What listeners receive.
pub(crate) enum Batch {
    /// Framed change events (coalesced), and every change applied, in order, when (ms since
    /// the Unix epoch); `seq` orders batches and full states.
    Events {
        seq: u64,
        at_ms: i64,
        text: Bytes,
        changes: Vec<LiveChange>,
    },
    /// The state was replaced (rebuilt after a reconnect or a gap): send the full state.
    Resync { seq: u64 },
    /// A framed status event.
    Status { text: Bytes, status: Status },
}

struct Shared {
    state: JobState,
    ring: Ring,
    seq: u64,
    status: Status,
    /// The snapshot file at `seq`, built once for every client that asks for it.
    file: Option<FileText>,
    /// The framed full state at `seq`, built once for every page that needs it.
    full: Option<Bytes>,
}

impl Shared {
    /// The state moved: a new batch sequence, and the texts of the old one dropped.
    fn moved(&mut self) -> u64 {
        self.seq += 1;
        self.file = None;
        self.full = None;
        self.seq
    }
}

pub(crate) struct Hub {
    pub job: String,
    /// The server's addresses, without credentials.
    pub server: String,
    shared: Mutex<Shared>,
    tx: broadcast::Sender<Arc<Batch>>,
    /// The job's event streams open (at most [`limits::STREAMS_PER_JOB`]).
    pub streams: Arc<Semaphore>,
    /// What following the job has done (`/metrics`).
    pub stats: Stats,
}

fn frame_status(s: &Status) -> Bytes {
    Bytes::from(wire::frame("status", None, &wire::status_json(s)))
}

impl Hub {
    pub(crate) fn new(job: &str, server: &str, state: JobState) -> Arc<Hub> {
        let ring = Ring::new(state.revisions(), RING_EVENTS, RING_BYTES);
        let (tx, _) = broadcast::channel(QUEUE);
        Arc::new(Hub {
            job: job.to_string(),
            server: server.to_string(),
            shared: Mutex::new(Shared {
                state,
                ring,
                seq: 0,
                status: Status::Live,
                file: None,
                full: None,
            }),
            tx,
            streams: Arc::new(Semaphore::new(limits::STREAMS_PER_JOB)),
            stats: Stats::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Batch>> {
        self.tx.subscribe()
    }

    pub(crate) fn listeners(&self) -> usize {
        self.tx.receiver_count()
    }

    /// The event streams open on the job now.
    pub(crate) fn streams_open(&self) -> usize {
        limits::STREAMS_PER_JOB.saturating_sub(self.streams.available_permits())
    }

    /// The batch sequence the state stands at: it moves with every change applied.
    pub(crate) fn seq(&self) -> u64 {
        self.lock().seq
    }

    pub(crate) fn status(&self) -> Status {
        self.lock().status.clone()
    }

    /// Applies changes in order and sends them: the pages' events coalesced (a key changed
    /// several times in one batch is sent once, with its last change), every change as it was
    /// applied for `watch` and the recorder.
    pub(crate) fn publish(&self, changes: Vec<LiveChange>) -> Result<(), Regression> {
        if changes.is_empty() {
            return Ok(());
        }
        let mut sh = self.lock();
        let mut last: HashMap<(Side, &str), usize> = HashMap::new();
        let mut pairs = Vec::with_capacity(changes.len());
        for (i, c) in changes.iter().enumerate() {
            sh.state.apply(c)?;
            pairs.push(sh.state.revisions());
            last.insert((c.side, c.key()), i);
        }
        self.stats.applied(changes.len());
        let keep: Vec<bool> = changes
            .iter()
            .enumerate()
            .map(|(i, c)| last.get(&(c.side, c.key())) == Some(&i))
            .collect();
        let mut text = String::new();
        let mut events = Vec::new();
        for ((c, pair), keep) in changes.iter().zip(pairs).zip(keep) {
            if keep {
                let start = text.len();
                text.push_str(&wire::frame("change", Some(pair), &c.to_json()));
                events.push((pair, start..text.len()));
            }
        }
        let text = Bytes::from(text);
        for (pair, range) in events {
            sh.ring.push(pair, text.slice(range));
        }
        let batch = Batch::Events {
            seq: sh.moved(),
            at_ms: crate::support::now_ms(),
            text,
            changes,
        };
        let _ = self.tx.send(Arc::new(batch));
        Ok(())
    }

    /// Drops the lease entries whose age reached the bucket's `max_age` by `now_ms`.
    pub(crate) fn expire(&self, now_ms: i64) {
        let due = self.lock().state.take_due(now_ms);
        // Expiries never regress: they do not move a revision.
        let _ = self.publish(due);
    }

    pub(crate) fn next_deadline(&self) -> Option<i64> {
        self.lock().state.next_deadline()
    }

    /// Replaces the whole state (a fresh watch after a reconnect or a gap); every listener gets
    /// the full state.
    pub(crate) fn replace(&self, state: JobState) {
        let mut sh = self.lock();
        let pair = state.revisions();
        sh.state = state;
        sh.ring.reset(pair);
        let seq = sh.moved();
        self.stats.resynced();
        let _ = self.tx.send(Arc::new(Batch::Resync { seq }));
    }

    /// Sets the status, telling listeners when it changed.
    pub(crate) fn set_status(&self, status: Status) {
        let mut sh = self.lock();
        if sh.status == status {
            return;
        }
        sh.status = status.clone();
        let text = frame_status(&status);
        let _ = self.tx.send(Arc::new(Batch::Status { text, status }));
    }

    /// The full state as a framed `snapshot` event, and the batch sequence it stands at.
    pub(crate) fn full(&self) -> (u64, Bytes) {
        let mut sh = self.lock();
        (sh.seq, full_locked(&mut sh, &self.server))
    }

    /// What a page connecting now is sent first: the changes since `since` when the ring still
    /// holds them, else the full state (held by a permit from `heavy`, or refused); then the
    /// status. With the sequence it stands at.
    pub(crate) fn initial(
        &self,
        since: Option<Revisions>,
        heavy: impl FnOnce() -> Result<Heavy, Busy>,
    ) -> Result<(u64, Vec<Bytes>), Busy> {
        let mut sh = self.lock();
        let mut out = match since.and_then(|p| sh.ring.since(p)) {
            Some(events) => events,
            None => {
                let permit = heavy()?;
                vec![limits::held(full_locked(&mut sh, &self.server), &permit)]
            }
        };
        out.push(frame_status(&sh.status));
        Ok((sh.seq, out))
    }

    /// The state as a snapshot file's text (`GET /api/snapshot`), and the revisions it stands
    /// at (read together: a page resumes the stream from them).
    pub(crate) fn snapshot_file(&self) -> (Revisions, FileText) {
        let mut sh = self.lock();
        (sh.state.revisions(), file_locked(&mut sh, &self.server))
    }

    /// The state as a snapshot, and the batch sequence it stands at (`watch`'s first state).
    pub(crate) fn snapshot(&self) -> (u64, spate_planner_core::Snapshot) {
        let sh = self.lock();
        let source = wire::live_source(&self.server, sh.state.revisions());
        (sh.seq, sh.state.snapshot(crate::support::now_ms(), source))
    }
}

fn file_locked(sh: &mut Shared, server: &str) -> FileText {
    if let Some(file) = &sh.file {
        return file.clone();
    }
    let file = wire::file_text(&sh.state, server, crate::support::now_ms());
    sh.file = Some(file.clone());
    file
}

fn full_locked(sh: &mut Shared, server: &str) -> Bytes {
    if let Some(text) = &sh.full {
        return text.clone();
    }
    let file = file_locked(sh, server);
    let text = Bytes::from(wire::snapshot_event(&sh.state, &file.text()));
    sh.full = Some(text.clone());
    text
}
