//! When a followed job is stale: no change has come for longer than its lease TTL. A healthy
//! fleet renews its leases well within the TTL, so a longer silence means the workers (or the
//! stream) stopped. The core reads no clock: it is given when the last change arrived and says
//! from when the job is stale; the page compares that deadline with its clock.

use serde::Serialize;

/// The staleness rule applied to one moment of a followed job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Freshness {
    /// When the last change (or the first state) arrived, ms since the Unix epoch.
    pub last_change_ms: i64,
    /// The job's lease TTL (the lease bucket's max age), ms.
    pub lease_ttl_ms: u64,
    /// The job is stale from just after this moment on, if no change comes before it
    /// (`last_change_ms + lease_ttl_ms`); `None` when the TTL is 0 (no lease bucket age: never
    /// stale).
    pub stale_after_ms: Option<i64>,
}

/// The staleness rule for a job whose last change arrived at `last_change_ms`.
pub fn freshness(last_change_ms: i64, lease_ttl_ms: u64) -> Freshness {
    let ttl = i64::try_from(lease_ttl_ms).unwrap_or(i64::MAX);
    Freshness {
        last_change_ms,
        lease_ttl_ms,
        stale_after_ms: (lease_ttl_ms > 0).then(|| last_change_ms.saturating_add(ttl)),
    }
}

impl Freshness {
    /// Whether the job is stale at `now_ms`: no change for longer than the lease TTL.
    pub fn is_stale(&self, now_ms: i64) -> bool {
        self.stale_after_ms.is_some_and(|t| now_ms > t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn stale_only_after_a_whole_ttl_without_a_change() {
        let f = freshness(1_000, 30_000);
        assert_eq!(f.stale_after_ms, Some(31_000));
        assert!(!f.is_stale(1_000));
        assert!(!f.is_stale(31_000), "at exactly the TTL: not yet");
        assert!(f.is_stale(31_001));
        // no TTL: never stale; the largest values do not wrap
        assert!(!freshness(0, 0).is_stale(i64::MAX));
        assert_eq!(freshness(i64::MAX - 1, u64::MAX).stale_after_ms, Some(i64::MAX));
    }
}
