//! `jitter` and `live_workers` (decision-core.md sections 3 and 4).

use crate::hash::stable_hash;
use std::collections::BTreeSet;
use std::time::Duration;

/// A deterministic spread of `base` for round `round`: within `[0.8 * base, 1.2 * base)`.
///
/// Computes exactly `base.mul_f64(0.8 + 0.4 * h / 1024.0)` (IEEE-754 arithmetic, the same on
/// every target), except that a product beyond `Duration::MAX` saturates instead of panicking.
pub fn jitter(seed: u64, round: u64, base: Duration) -> Duration {
    let h = stable_hash(seed, round) % 1024;
    let factor = 0.8 + 0.4 * h as f64 / 1024.0;
    // `Duration::mul_f64` is `from_secs_f64(rhs * self.as_secs_f64())`, which panics on overflow.
    Duration::try_from_secs_f64(factor * base.as_secs_f64()).unwrap_or(Duration::MAX)
}

/// The number of live workers as `instance` counts them: the presence set, plus itself once if
/// it is not (yet) in it.
pub fn live_workers(presence: &BTreeSet<String>, instance: &str) -> usize {
    presence.len() + usize::from(!presence.contains(instance))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn jitter_stays_within_its_band() {
        for round in 0..2000u64 {
            let base = Duration::from_millis(1000 + round);
            let j = jitter(42, round, base);
            assert!(
                j >= base.mul_f64(0.8) && j < base.mul_f64(1.2),
                "round {round}: {j:?}"
            );
        }
    }

    #[test]
    fn jitter_equals_mul_f64_and_never_panics() {
        for (round, base) in [
            (1u64, Duration::from_millis(30_000)),
            (9, Duration::from_nanos(7)),
        ] {
            let h = stable_hash(3, round) % 1024;
            assert_eq!(
                jitter(3, round, base),
                base.mul_f64(0.8 + 0.4 * h as f64 / 1024.0)
            );
        }
        assert!(jitter(3, 1, Duration::MAX) >= Duration::MAX.mul_f64(0.5));
    }

    #[test]
    fn self_counts_once() {
        let p: BTreeSet<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(live_workers(&p, "a"), 2);
        assert_eq!(live_workers(&p, "c"), 3);
        assert_eq!(live_workers(&BTreeSet::new(), "c"), 1);
    }
}
