//! What following a job has done, for `/metrics`: changes applied, full reads, and how far
//! behind the store the watch was at its last batch. Counted where it happens (the hub, the
//! follower) with atomics, read at a scrape without a lock.

use spate_planner_core::Side;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

/// No batch seen yet (the lag's value before the first).
const NONE: i64 = i64::MIN;

/// A followed job's counters and the last batch's lag.
pub(crate) struct Stats {
    changes: AtomicU64,
    resyncs: AtomicU64,
    /// Plans made of the job's states (by `/metrics`).
    plans: AtomicU64,
    /// Milliseconds from the NATS server writing the oldest change of the last batch to this
    /// server applying it ([`NONE`] before the first batch).
    lag_ms: AtomicI64,
    /// Per bucket (state, lease): the messages of its stream after the last entry the watch
    /// delivered, as that entry said (its `delta`).
    pending: [AtomicU64; 2],
    /// The splits at risk by the last plan that could be made ([`NONE`] before one).
    at_risk: AtomicI64,
}

impl Default for Stats {
    fn default() -> Stats {
        Stats {
            changes: AtomicU64::new(0),
            resyncs: AtomicU64::new(0),
            plans: AtomicU64::new(0),
            lag_ms: AtomicI64::new(NONE),
            pending: [AtomicU64::new(0), AtomicU64::new(0)],
            at_risk: AtomicI64::new(NONE),
        }
    }
}

/// What the entries of one batch said, gathered as they arrive.
#[derive(Default)]
pub(crate) struct Seen {
    oldest_ms: Option<i64>,
    pending: [Option<u64>; 2],
}

fn index(side: Side) -> usize {
    match side {
        Side::State => 0,
        Side::Lease => 1,
    }
}

impl Seen {
    /// An entry of bucket `side`, written at `created_ms` (the NATS server's clock), with
    /// `pending` messages of its stream after it.
    pub(crate) fn entry(&mut self, side: Side, created_ms: i64, pending: u64) {
        self.oldest_ms = Some(self.oldest_ms.map_or(created_ms, |o| o.min(created_ms)));
        self.pending[index(side)] = Some(pending);
    }
}

impl Stats {
    /// A plan of the state is being made.
    pub(crate) fn planning(&self) {
        self.plans.fetch_add(1, Relaxed);
    }

    /// A plan of the state found `n` splits at risk of quarantine.
    pub(crate) fn planned_at_risk(&self, n: u32) {
        self.at_risk.store(n.into(), Relaxed);
    }

    /// The splits at risk by the last plan made, if one was.
    pub(crate) fn at_risk(&self) -> Option<u32> {
        u32::try_from(self.at_risk.load(Relaxed)).ok()
    }

    pub(crate) fn plans(&self) -> u64 {
        self.plans.load(Relaxed)
    }

    /// `n` changes were applied to the state.
    pub(crate) fn applied(&self, n: usize) {
        self.changes.fetch_add(n as u64, Relaxed);
    }

    /// The state was read afresh.
    pub(crate) fn resynced(&self) {
        self.resyncs.fetch_add(1, Relaxed);
    }

    /// A batch whose entries said `seen` was applied at `now_ms`.
    pub(crate) fn batch(&self, seen: &Seen, now_ms: i64) {
        if let Some(oldest) = seen.oldest_ms {
            self.lag_ms.store(now_ms.saturating_sub(oldest), Relaxed);
        }
        for (slot, p) in self.pending.iter().zip(seen.pending) {
            if let Some(p) = p {
                slot.store(p, Relaxed);
            }
        }
    }

    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Relaxed)
    }

    pub(crate) fn resyncs(&self) -> u64 {
        self.resyncs.load(Relaxed)
    }

    /// The last batch's lag in seconds, if a batch came.
    pub(crate) fn lag_seconds(&self) -> Option<f64> {
        match self.lag_ms.load(Relaxed) {
            NONE => None,
            ms => Some(ms as f64 / 1000.0),
        }
    }

    /// The watch's pending messages: (state, lease).
    pub(crate) fn pending(&self) -> (u64, u64) {
        (self.pending[0].load(Relaxed), self.pending[1].load(Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_lags_by_its_oldest_change() {
        let stats = Stats::default();
        assert_eq!(stats.lag_seconds(), None);
        let mut seen = Seen::default();
        seen.entry(Side::Lease, 10_000, 7);
        seen.entry(Side::State, 9_500, 3);
        seen.entry(Side::Lease, 10_200, 6);
        stats.batch(&seen, 10_750);
        assert_eq!(stats.lag_seconds(), Some(1.25));
        assert_eq!(stats.pending(), (3, 6));
        // a batch of expiries only (no entry from the watch) keeps what the last one said
        stats.batch(&Seen::default(), 20_000);
        assert_eq!(stats.lag_seconds(), Some(1.25));
        stats.applied(3);
        stats.applied(2);
        stats.resynced();
        assert_eq!((stats.changes(), stats.resyncs()), (5, 1));
    }
}
