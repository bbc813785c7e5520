//! The settings a script leaves unset, as the simulation takes them: [`Script::default`]'s, the
//! lease duration resolved against the snapshot's lease TTL. The dashboard's Timeline shows these
//! as each field's default, so it never keeps a copy of them.

use super::config::Dist;
use super::script::Script;
use super::start::StartFrom;
use serde::Serialize;
use spate_planner_core::Rules;

/// The value of each setting the dashboard offers, when a script does not set it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimDefaults"))]
pub struct Defaults {
    /// The release the fleet follows: the one the store names (`"0.1"` or `"0.3"`).
    pub rules: Rules,
    /// Where the fleet starts (`"snapshot"` or `"planned"`).
    pub start: StartFrom,
    pub rebalance_delay_ms: u64,
    /// `config.lease_duration_ms`: the snapshot's lease TTL, else Spate's 30 s.
    pub lease_duration_ms: u64,
    pub reconcile_interval_ms: u64,
    pub drain_deadline_ms: u64,
    pub max_attempts: u32,
    pub detection_ms: u64,
    /// `data_plane.drain_ms` (the lower end, were it a range).
    pub drain_ms: u64,
    pub seed: u64,
    pub until_ms: u64,
}

/// The defaults for a snapshot whose lease bucket's TTL is `lease_ttl_ms` (0: unknown) and whose
/// store names the release `rules` (`Fleet::store_rules`). Every other value is Spate's default,
/// the same in 0.1 and 0.3 (timing-0.3.md §1).
pub fn defaults(lease_ttl_ms: u64, rules: Rules) -> Defaults {
    let s = Script::default();
    let c = &s.config;
    Defaults {
        rules,
        start: s.start,
        rebalance_delay_ms: c.rebalance_delay_ms,
        lease_duration_ms: c.lease_ms(lease_ttl_ms),
        reconcile_interval_ms: c.reconcile_interval_ms,
        drain_deadline_ms: c.drain_deadline_ms,
        max_attempts: c.max_attempts,
        detection_ms: c.detection_ms,
        drain_ms: match s.data_plane.drain_ms {
            Dist::Const(v) => v,
            Dist::Uniform { min, .. } => min,
        },
        seed: s.seed,
        until_ms: s.until_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn spate_0_1_defaults_with_the_lease_from_the_snapshot() {
        let d = defaults(45_000, Rules::V0_1);
        assert_eq!(d.lease_duration_ms, 45_000);
        assert_eq!(defaults(0, Rules::V0_1).lease_duration_ms, 30_000);
        assert_eq!(defaults(0, Rules::V0_3).rules, Rules::V0_3, "the store's release");
        assert_eq!(
            (
                d.rebalance_delay_ms,
                d.reconcile_interval_ms,
                d.drain_deadline_ms,
                d.max_attempts
            ),
            (20_000, 30_000, 10_000, 4)
        );
        assert_eq!(
            (d.detection_ms, d.drain_ms, d.seed, d.until_ms),
            (0, 0, 0, 600_000)
        );
    }
}
