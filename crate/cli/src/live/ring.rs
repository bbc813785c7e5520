//! The recent changes a reconnecting page may resume from: a bounded ring of framed events, each
//! with the pair of revisions after it. Events are shared bytes (pieces of the batch that sent
//! them), so resuming a page copies none of them.

use axum::body::Bytes;
use spate_planner_core::Revisions;
use std::collections::VecDeque;

pub(crate) struct Ring {
    /// The pair before the first event kept.
    base: Revisions,
    events: VecDeque<(Revisions, Bytes)>,
    bytes: usize,
    max_events: usize,
    max_bytes: usize,
}

impl Ring {
    pub(crate) fn new(base: Revisions, max_events: usize, max_bytes: usize) -> Ring {
        Ring {
            base,
            events: VecDeque::new(),
            bytes: 0,
            max_events,
            max_bytes,
        }
    }

    /// Forgets everything: the state was replaced, at `base`.
    pub(crate) fn reset(&mut self, base: Revisions) {
        self.base = base;
        self.events.clear();
        self.bytes = 0;
    }

    /// Keeps `event` (after which the revisions are `pair`), dropping the oldest beyond the bounds.
    pub(crate) fn push(&mut self, pair: Revisions, event: Bytes) {
        self.bytes += event.len();
        self.events.push_back((pair, event));
        while self.events.len() > self.max_events || self.bytes > self.max_bytes {
            let Some((p, e)) = self.events.pop_front() else {
                break;
            };
            self.bytes -= e.len();
            self.base = p;
        }
    }

    /// The events a copy standing at `pair` lacks, or `None` when the ring no longer reaches
    /// back to it. Events that leave the pair unchanged (expiries) are idempotent, so resuming
    /// after the first event that reached `pair` is safe.
    pub(crate) fn since(&self, pair: Revisions) -> Option<Vec<Bytes>> {
        let start = if pair == self.base {
            0
        } else {
            self.events.iter().position(|(p, _)| *p == pair)? + 1
        };
        Some(self.events.iter().skip(start).map(|(_, e)| e.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: u64, l: u64) -> Revisions {
        Revisions { state: s, lease: l }
    }

    #[test]
    fn resumes_or_says_it_cannot() {
        let mut r = Ring::new(p(1, 1), 3, 1 << 20);
        r.push(p(2, 1), "a".into());
        r.push(p(2, 2), "b".into());
        r.push(p(2, 2), "x".into()); // an expiry: same pair
        assert_eq!(r.since(p(1, 1)).unwrap().len(), 3);
        let after_b: Vec<Bytes> = r.since(p(2, 2)).unwrap();
        assert_eq!(after_b, ["x"]);
        assert!(r.since(p(9, 9)).is_none());
        r.push(p(3, 2), "c".into());
        assert!(r.since(p(1, 1)).is_none(), "evicted");
        assert_eq!(r.since(p(2, 1)).unwrap().len(), 3);
    }
}
