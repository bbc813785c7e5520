//! The on-call card's recovery prediction: the core's incidents ask a [`RecoveryModel`] how long
//! a crash takes to heal, and this is the simulator's answer. The live state just after the
//! member's presence lapsed is put back as it was just before (the member present again under
//! the nonce its leases name), the member crashes at t = 0, and each seed is one run by the
//! rules, delay and attempt limit the incident names. Each run's recovery counts from the
//! simulated lapse of the member's presence, as the store showed the lapse (not the crash).

use super::options::Options;
use super::outcome::What;
use super::run::simulate;
use super::script::{Op, Script, ScriptEvent, MAX_UNTIL_MS};
use super::start::{Start, StartFrom};
use spate_planner_core::{
    fleet::Member,
    review::{CrashSettings, RecoveryModel, SeedRun},
    Fleet, RulesChoice,
};

/// How many seeds a prediction runs by default.
pub const PREDICTION_SEEDS: u32 = 8;

/// Predicts a crash's recovery by `seeds` runs of the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrashPrediction {
    pub seeds: u32,
}

impl Default for CrashPrediction {
    fn default() -> Self {
        CrashPrediction {
            seeds: PREDICTION_SEEDS,
        }
    }
}

/// `fleet` with `member` present again, as it was before its presence lapsed: under the nonce
/// of a lease in its name (none: no nonce), at the leader's default cap (its own is not kept).
fn before_the_crash(fleet: &Fleet, member: &str) -> Fleet {
    let nonce = fleet
        .splits
        .values()
        .filter_map(|s| s.lease.as_ref())
        .find(|l| l.value.owner == member)
        .map(|l| l.value.nonce.clone());
    let mut f = fleet.clone();
    let left_ms = i64::try_from(f.lease_ttl_ms).unwrap_or(i64::MAX);
    let m = Member {
        max_in_flight: None,
        readable: true,
        nonce,
        revision: 0,
        left_ms,
    };
    f.members.insert(member.to_string(), m);
    f
}

impl RecoveryModel for CrashPrediction {
    fn crash_runs(
        &self,
        fleet: &Fleet,
        member: &str,
        settings: &CrashSettings,
    ) -> Result<Vec<SeedRun>, String> {
        let before = before_the_crash(fleet, member);
        let start = Start::with_rules(&before, StartFrom::Snapshot, RulesChoice::user(settings.rules))
            .map_err(|e| e.to_string())?;
        let mut script = Script {
            rules: Some(settings.rules),
            events: vec![ScriptEvent {
                at_ms: 0,
                op: Op::Crash {
                    member: member.to_string(),
                },
            }],
            ..Script::default()
        };
        script.config.rebalance_delay_ms = settings.rebalance_delay_ms;
        // Spate refuses a replan interval below the lease (timing.md §1): a job whose lease is
        // longer than the default replan interval runs with the interval at the lease.
        let lease = script.config.lease_ms(fleet.lease_ttl_ms);
        script.config.replan_interval_ms = script.config.replan_interval_ms.max(lease);
        // Long enough for the slowest recovery the rules allow (the lease lapses, the window,
        // the leader's reconcile tick, the claims), with room to spare.
        let slowest = lease
            .saturating_mul(2)
            .saturating_add(settings.rebalance_delay_ms)
            .saturating_add(120_000);
        script.until_ms = script.until_ms.max(slowest).min(MAX_UNTIL_MS);
        script.config.max_attempts = settings.max_attempts;
        (1..=u64::from(self.seeds))
            .map(|seed| {
                let run = Script {
                    seed,
                    ..script.clone()
                };
                let o = simulate(&start, &run, &Options::default()).map_err(|e| e.to_string())?;
                // The store showed the lapse, not the crash: count from the simulated lapse.
                let lapse = o
                    .timeline
                    .iter()
                    .find(|e| matches!(&e.what, What::PresenceExpired { member: m } if m == member))
                    .map_or(0, |e| e.t_ms);
                let f = o.figures;
                Ok(SeedRun {
                    recovery_ms: f.recovery_ms.map(|r| r.saturating_sub(lapse)),
                    quarantined: f.splits_quarantined,
                    parked: f.splits_parked_by_race,
                })
            })
            .collect()
    }
}
