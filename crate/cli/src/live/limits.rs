//! What the live endpoints may take of the server at once (docs/live-protocol.md, "Limits").
//!
//! A job's state is sent as one shared text per revision (`hub.rs`); what could still grow
//! with the clients is the number of *different* texts held at once, each kept alive by the
//! clients still being sent it. So a full state (`/api/snapshot`, or the stream's `snapshot`
//! event) is sent only under one of [`HEAVY`] permits, and each piece of it sent holds the
//! permit until the connection has written it ([`held`]): at most `HEAVY` texts are in flight
//! beside the cached ones, however slow the clients. Event streams are capped per job and in
//! all; past a cap the answer is 503 with `Retry-After`.

use axum::body::Bytes;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Full states being sent at once, over all jobs.
pub(crate) const HEAVY: usize = 4;
/// Event streams open at once on one job.
pub(crate) const STREAMS_PER_JOB: usize = 32;
/// Event streams open at once in all.
pub(crate) const STREAMS: usize = 128;
/// The `Retry-After` of a 503, in seconds.
pub(crate) const RETRY_AFTER_S: u64 = 2;

/// A permit to send a full state, shared by the pieces of it in flight.
pub(crate) type Heavy = Arc<OwnedSemaphorePermit>;

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
    heavy: Arc<Semaphore>,
    streams: Arc<Semaphore>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new(HEAVY, STREAMS)
    }
}

impl Limits {
    pub(crate) fn new(heavy: usize, streams: usize) -> Limits {
        Limits {
            heavy: Arc::new(Semaphore::new(heavy)),
            streams: Arc::new(Semaphore::new(streams)),
        }
    }

    /// A permit to send a full state now, or why not.
    pub(crate) fn heavy(&self) -> Result<Heavy, Busy> {
        self.heavy.clone().try_acquire_owned().map(Arc::new).map_err(|_| {
            Busy(format!(
                "{HEAVY} full states are being sent already; try again in {RETRY_AFTER_S} s"
            ))
        })
    }

    /// A permit to send a full state, once one is free (a stream that must resync waits).
    pub(crate) async fn heavy_wait(&self) -> Option<Heavy> {
        self.heavy.clone().acquire_owned().await.ok().map(Arc::new)
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

/// What one piece of a full state in flight keeps alive: the shared text and the permit.
struct Holding {
    bytes: Bytes,
    _permit: Heavy,
}

impl AsRef<[u8]> for Holding {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// `bytes` (no copy) holding `permit` until the last reference to it is dropped, that is until
/// the connection has written it or closed.
pub(crate) fn held(bytes: Bytes, permit: &Heavy) -> Bytes {
    Bytes::from_owner(Holding {
        bytes,
        _permit: permit.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permit_is_free_only_when_every_piece_is_dropped() {
        let limits = Limits::new(1, 2);
        let permit = limits.heavy().unwrap();
        let text = Bytes::from_static(b"the whole state");
        let (a, b) = (held(text.slice(..3), &permit), held(text.slice(3..), &permit));
        drop(permit);
        assert_eq!(
            a.as_ptr(),
            text.as_ptr(),
            "a piece is the shared text, not a copy"
        );
        assert!(limits.heavy().is_err(), "pieces in flight hold the permit");
        drop(a);
        assert!(limits.heavy().is_err());
        drop(b);
        assert!(limits.heavy().is_ok());
    }

    #[test]
    fn streams_are_capped_per_job_and_in_all() {
        let limits = Limits::new(1, 3);
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
