//! One followed job: its state in memory, the ring of recent events, and the broadcast every
//! connected page (and `watch`) listens to.
//!
//! Memory is bounded: the broadcast keeps at most [`QUEUE`] batches of at most [`BATCH`] changes
//! for all listeners together; a listener that falls further behind is told it lagged and gets a
//! full resync instead. The ring keeps at most [`RING_EVENTS`] events and [`RING_BYTES`] bytes,
//! as pieces of the batches' own bytes. The state's texts (the snapshot file of
//! `GET /api/snapshot` and the stream's `snapshot` event) are built once per batch sequence and
//! shared by every client sent them; the newest of each is kept until a newer one is built (or
//! the state is read again), and one superseded lives on only while clients are still being sent
//! it. While [`limits::OLDER_TEXTS`] superseded texts are being sent, a client is answered with the
//! newest text kept (a stream: with the ring's changes since it) instead of a new one.

use super::limits::{self, Limits, Text};
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
    /// The newest snapshot file built, shared by every client that asks for it.
    file: Option<Kept<FileText>>,
    /// The newest framed full state built, shared by every page that needs it.
    full: Option<Kept<Bytes>>,
    /// The store's revisions as last heard from it and when (ms since the Unix epoch): a change
    /// applied or an answer to the follower's probe (`live/heard.rs`).
    heard: Option<(Revisions, i64)>,
    /// Why the job's recording stopped (`serve --record`), told with every status.
    recording: Option<String>,
}

/// A text kept: the batch sequence and the revisions it stands at, the counted text, and what
/// is sent of it.
struct Kept<T> {
    seq: u64,
    pair: Revisions,
    text: Text,
    sent: T,
}

impl Shared {
    /// The state moved: a new batch sequence (the texts kept now stand at an older one).
    fn moved(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The texts kept no longer answer for the state (read again).
    fn forget_texts(&mut self) {
        if let Some(k) = self.file.take() {
            k.text.supersede();
        }
        if let Some(k) = self.full.take() {
            k.text.supersede();
        }
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

fn frame_status(s: &Status, recording: Option<&str>) -> Bytes {
    Bytes::from(wire::frame("status", None, &wire::status_json_with(s, recording)))
}

impl Hub {
    pub(crate) fn new(job: &str, server: &str, state: JobState) -> Arc<Hub> {
        let ring = Ring::new(state.revisions(), RING_EVENTS, RING_BYTES);
        let read = Some((state.revisions(), crate::support::now_ms()));
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
                // the state was just read from the store
                heard: read,
                recording: None,
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

    /// Presence keys (`worker.*`) and progress records (`split.*`) of the state held: the job
    /// list's cheap counts (no plan).
    pub(crate) fn counts(&self) -> (usize, usize) {
        let sh = self.lock();
        let count = |side: Side, prefix: &str| {
            sh.state
                .bucket(side)
                .entries()
                .filter(|e| e.key.starts_with(prefix))
                .count()
        };
        (count(Side::Lease, "worker."), count(Side::State, "split."))
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
        // what the store sent (an expiry is this server's own doing, not word from the store)
        if changes
            .iter()
            .any(|c| !matches!(c.op, spate_planner_core::live::LiveOp::Expire { .. }))
        {
            sh.heard = Some((sh.state.revisions(), crate::support::now_ms()));
        }
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
        sh.forget_texts();
        sh.heard = Some((pair, crate::support::now_ms()));
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
        let text = frame_status(&status, sh.recording.as_deref());
        let _ = self.tx.send(Arc::new(Batch::Status { text, status }));
    }

    /// The job's recording stopped (`why`): every page is told with the status, now and later.
    pub(crate) fn recording_stopped(&self, why: &str) {
        let mut sh = self.lock();
        sh.recording = Some(why.to_string());
        let status = sh.status.clone();
        let text = frame_status(&status, Some(why));
        let _ = self.tx.send(Arc::new(Batch::Status { text, status }));
    }

    /// What a page connecting now is sent first: the changes since `since` when the ring still
    /// holds them, else the full state ([`full_locked`]); then the status. With the sequence it
    /// brings the page to. A page that must be resynced is sent the same (with `since` none).
    pub(crate) fn initial(&self, since: Option<Revisions>, limits: &Limits) -> (u64, Vec<Bytes>) {
        let mut sh = self.lock();
        let (seq, mut out) = match since.and_then(|p| sh.ring.since(p)) {
            Some(events) => (sh.seq, events),
            None => full_locked(&mut sh, &self.server, limits),
        };
        out.push(frame_status(&sh.status, sh.recording.as_deref()));
        (seq, out)
    }

    /// The state as a snapshot file's text (`GET /api/snapshot`), and the revisions it stands
    /// at (read together: a page resumes the stream from them): the current state's, or, while
    /// `limits` is crowded, the newest kept (an older state, at its own revisions).
    pub(crate) fn snapshot_file(&self, limits: &Limits) -> (Revisions, FileText) {
        let mut sh = self.lock();
        file_locked(&mut sh, &self.server, limits, true)
    }

    /// The store's revisions as last heard from it, and when (ms since the Unix epoch).
    pub(crate) fn heard(&self) -> Option<(Revisions, i64)> {
        self.lock().heard
    }

    /// The store answered (the follower's probe) at `at_ms`, its buckets at `store`: heard,
    /// and no longer silent.
    pub(crate) fn answered(&self, store: Revisions, at_ms: i64) {
        let mut sh = self.lock();
        let held = sh.state.revisions();
        let pair = Revisions {
            state: store.state.max(held.state),
            lease: store.lease.max(held.lease),
        };
        sh.heard = Some((pair, at_ms));
        if matches!(sh.status, Status::Silent(_)) {
            drop(sh);
            self.set_status(Status::Live);
        }
    }

    /// The store has not been heard from for too long (`why`): a live job is said silent (a
    /// job reconnecting or in error keeps that status).
    pub(crate) fn unheard(&self, why: String) {
        let live = matches!(self.lock().status, Status::Live | Status::Silent(_));
        if live {
            self.set_status(Status::Silent(why));
        }
    }

    /// The state as a snapshot, and the batch sequence it stands at (`watch`'s first state).
    pub(crate) fn snapshot(&self) -> (u64, spate_planner_core::Snapshot) {
        let sh = self.lock();
        let source = wire::live_source(&self.server, sh.state.revisions());
        (sh.seq, sh.state.snapshot(crate::support::now_ms(), source))
    }
}

/// The snapshot file of the state now (built once per state and kept), or, when `older_ok` and
/// `limits` is crowded, the newest kept; with the revisions it stands at.
fn file_locked(sh: &mut Shared, server: &str, limits: &Limits, older_ok: bool) -> (Revisions, FileText) {
    if let Some(k) = &sh.file {
        if k.seq == sh.seq || (older_ok && limits.crowded()) {
            return (k.pair, k.sent.clone());
        }
    }
    let built = wire::file_text(&sh.state, server, crate::support::now_ms());
    let text = limits.text(built.bytes().clone());
    let sent = built.on(text.bytes());
    let pair = sh.state.revisions();
    let kept = Kept {
        seq: sh.seq,
        pair,
        text,
        sent: sent.clone(),
    };
    if let Some(old) = sh.file.replace(kept) {
        old.text.supersede();
    }
    (pair, sent)
}

/// The full state for a page: the current state's `snapshot` event (built once per state and
/// kept), or, while `limits` is crowded, the newest kept and the ring's changes since it; with
/// the batch sequence that brings the page to.
fn full_locked(sh: &mut Shared, server: &str, limits: &Limits) -> (u64, Vec<Bytes>) {
    if let Some(k) = &sh.full {
        if k.seq == sh.seq {
            return (sh.seq, vec![k.sent.clone()]);
        }
        if let Some(events) = limits.crowded().then(|| sh.ring.since(k.pair)).flatten() {
            return (sh.seq, [vec![k.sent.clone()], events].concat());
        }
    }
    let (pair, file) = file_locked(sh, server, limits, false);
    let text = limits.text(Bytes::from(wire::snapshot_event(&sh.state, &file.text())));
    let sent = text.bytes();
    let kept = Kept {
        seq: sh.seq,
        pair,
        text,
        sent: sent.clone(),
    };
    if let Some(old) = sh.full.replace(kept) {
        old.text.supersede();
    }
    (sh.seq, vec![sent])
}
