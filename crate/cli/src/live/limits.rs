//! What the live endpoints may take of the server at once (docs/live-protocol.md, "Limits").
//!
//! A job's state is sent as one shared text per revision (`hub.rs`): a client being sent it
//! holds a reference to those bytes, not a copy, and takes no permit, so slow readers never
//! keep another client from being answered. What could still grow with the clients is the
//! number of *different* texts alive at once, each kept alive by the clients still being sent
//! it. So every text is a [`Text`], counted once it is superseded (the hub built a newer one)
//! until its last reader is done: while [`OLDER_TEXTS`] superseded texts are still being sent,
//! the hub answers with the newest text it has instead of building another (an older state at
//! its own revisions; a stream then gets the changes since, from the ring). Event streams are
//! capped per job and in all; past a cap the answer is 503 with `Retry-After`.

use axum::body::Bytes;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Superseded texts of full states still being sent, over all jobs, past which no new text is
/// built while an older one can answer.
pub(crate) const OLDER_TEXTS: usize = 4;
/// Event streams open at once on one job.
pub(crate) const STREAMS_PER_JOB: usize = 32;
/// Event streams open at once in all.
pub(crate) const STREAMS: usize = 128;
/// The `Retry-After` of a 503, in seconds.
pub(crate) const RETRY_AFTER_S: u64 = 2;

/// The permits an open event stream holds (its job's and the server's), released when it ends.
#[derive(Debug)]
pub(crate) struct Stream {
    _job: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

/// Why a request is answered 503.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Busy(pub String);

pub(crate) struct Limits {
    streams: Arc<Semaphore>,
    /// Superseded texts still alive (being sent).
    older: Arc<AtomicUsize>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new(STREAMS)
    }
}

impl Limits {
    pub(crate) fn new(streams: usize) -> Limits {
        Limits {
            streams: Arc::new(Semaphore::new(streams)),
            older: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A text of a full state, counted by these limits once superseded.
    pub(crate) fn text(&self, bytes: Bytes) -> Text {
        Text(Arc::new(Counted {
            bytes,
            superseded: AtomicBool::new(false),
            older: self.older.clone(),
        }))
    }

    /// Superseded texts still being sent.
    pub(crate) fn older(&self) -> usize {
        self.older.load(Ordering::Acquire)
    }

    /// Whether so many superseded texts are still being sent that a newer one should not be
    /// built while an older one can answer.
    pub(crate) fn crowded(&self) -> bool {
        self.older() >= OLDER_TEXTS
    }

    /// The permits for one more event stream on the job whose streams `job` counts.
    pub(crate) fn stream(&self, job: &Arc<Semaphore>, name: &str) -> Result<Stream, Busy> {
        let busy = |what: String| Busy(format!("{what}; try again in {RETRY_AFTER_S} s"));
        let job = job
            .clone()
            .try_acquire_owned()
            .map_err(|_| busy(format!("{STREAMS_PER_JOB} pages follow job {name} already")))?;
        let all = self
            .streams
            .clone()
            .try_acquire_owned()
            .map_err(|_| busy(format!("{STREAMS} live streams are open already")))?;
        Ok(Stream { _job: job, _all: all })
    }
}

/// A full state's text, shared: [`Text::bytes`] hands out the same bytes (no copy) as often as
/// asked, each keeping the text alive until the connection has written it or closed.
#[derive(Clone)]
pub(crate) struct Text(Arc<Counted>);

struct Counted {
    bytes: Bytes,
    superseded: AtomicBool,
    older: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if self.superseded.load(Ordering::Acquire) {
            self.older.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        &self.0.bytes
    }
}

impl Text {
    /// The text's bytes, sharing them (and keeping the text alive while any piece is).
    pub(crate) fn bytes(&self) -> Bytes {
        Bytes::from_owner(self.clone())
    }

    /// The holder (the hub) lets go of the text: from now on it counts as superseded until its
    /// last reader is done (at once, when there is none).
    pub(crate) fn supersede(self) {
        if !self.0.superseded.swap(true, Ordering::AcqRel) {
            self.0.older.fetch_add(1, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_superseded_text_counts_until_its_last_piece_is_dropped() {
        let limits = Limits::new(2);
        let text = limits.text(Bytes::from_static(b"the whole state"));
        let whole = text.bytes();
        let (a, b) = (whole.slice(..3), whole.slice(3..));
        drop(whole);
        assert_eq!(
            a.as_ptr(),
            text.as_ref().as_ptr(),
            "a piece is the shared text, not a copy"
        );
        assert_eq!(limits.older(), 0, "a text held is not counted");
        text.supersede();
        assert_eq!(limits.older(), 1, "pieces in flight keep the superseded text");
        drop(a);
        assert_eq!(limits.older(), 1);
        drop(b);
        assert_eq!(limits.older(), 0);
        limits.text(Bytes::from_static(b"unread")).supersede();
        assert_eq!(limits.older(), 0, "a text nobody reads is gone at once");
    }

    #[test]
    fn crowded_once_enough_superseded_texts_are_read() {
        let limits = Limits::new(2);
        let held: Vec<Bytes> = (0..OLDER_TEXTS)
            .map(|_| {
                let t = limits.text(Bytes::from_static(b"s"));
                let b = t.bytes();
                t.supersede();
                b
            })
            .collect();
        assert!(limits.crowded());
        drop(held);
        assert!(!limits.crowded());
    }

    #[test]
    fn streams_are_capped_per_job_and_in_all() {
        let limits = Limits::new(3);
        let (j1, j2) = (Arc::new(Semaphore::new(2)), Arc::new(Semaphore::new(2)));
        let a = limits.stream(&j1, "a").unwrap();
        let _b = limits.stream(&j1, "a").unwrap();
        let refused = limits.stream(&j1, "a").unwrap_err();
        assert!(refused.0.contains("follow job a already"), "{}", refused.0);
        let _c = limits.stream(&j2, "b").unwrap();
        let refused = limits.stream(&j2, "b").unwrap_err();
        assert!(
            refused.0.contains("live streams are open already"),
            "{}",
            refused.0
        );
        drop(a);
        assert!(limits.stream(&j2, "b").is_ok());
    }
}
