//! `jitter` and `live_workers` (decision-core.md sections 3 and 4), and Spate 0.3's `spread`
//! and optional-member `live_workers` (decision-core-0.3.md section 1).

use crate::hash::stable_hash;
use std::collections::BTreeSet;
use std::time::Duration;

/// A deterministic spread of `base` for round `round`: within `[0.8 * base, 1.2 * base)`.
///
/// Computes exactly `base.mul_f64(0.8 + 0.4 * h / 1024.0)` (IEEE-754 arithmetic, the same on
/// every target), except that a product beyond `Duration::MAX` saturates instead of panicking.
pub fn jitter(seed: u64, round: u64, base: Duration) -> Duration {
    let h = stable_hash(seed, round) % 1024;
    mul_f64(base, 0.8 + 0.4 * h as f64 / 1024.0)
}

/// `base.mul_f64(x)` (IEEE-754 arithmetic, the same on every target), saturating at
/// `Duration::MAX` where `Duration::mul_f64` (`from_secs_f64(x * self.as_secs_f64())`) panics.
fn mul_f64(base: Duration, x: f64) -> Duration {
    Duration::try_from_secs_f64(x * base.as_secs_f64()).unwrap_or(Duration::MAX)
}

/// Spate 0.3's `spread`: a deterministic point of `[0, base)` (0 for a zero `base`), where a
/// worker places its first reconcile tick. Exactly `base.mul_f64(h / 1024.0)` with
/// `h = stable_hash(seed, u64::MAX) % 1024`.
pub fn spread(seed: u64, base: Duration) -> Duration {
    let h = stable_hash(seed, u64::MAX) % 1024;
    mul_f64(base, h as f64 / 1024.0)
}

/// The number of live workers: the presence set, plus `member` once if one is given and it is
/// not (yet) in it. Spate 0.1 always passes its own instance (self counts once); 0.3 may pass
/// none.
pub fn live_workers(presence: &BTreeSet<String>, member: Option<&str>) -> usize {
    presence.len() + usize::from(member.is_some_and(|m| !presence.contains(m)))
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
        assert_eq!(live_workers(&p, Some("a")), 2);
        assert_eq!(live_workers(&p, Some("c")), 3);
        assert_eq!(live_workers(&BTreeSet::new(), Some("c")), 1);
        assert_eq!(live_workers(&p, None), 2, "0.3: no member given, none added");
    }

    #[test]
    fn spread_lies_in_zero_to_base() {
        for seed in 0..2000u64 {
            let base = Duration::from_millis(1000 + seed);
            let s = spread(seed, base);
            assert!(s < base, "seed {seed}: {s:?}");
            let h = stable_hash(seed, u64::MAX) % 1024;
            assert_eq!(s, base.mul_f64(h as f64 / 1024.0));
        }
        assert_eq!(spread(5, Duration::ZERO), Duration::ZERO);
    }
}
