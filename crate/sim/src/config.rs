//! The simulated fleet's configuration (timing.md §1) and the data plane's behaviour.
//!
//! Every value is in milliseconds. Defaults are Spate 0.1's; [`Config::validate`] applies the
//! floors and relations Spate's own `config.rs` checks, so a configuration Spate would refuse to
//! start with is refused here too.

use serde::Serialize;
use std::collections::BTreeMap;

/// Spate's default lease duration (also the lease bucket's TTL).
pub const DEFAULT_LEASE_MS: u64 = 30_000;

/// Per-process settings Spate lets each worker choose (absent: the fleet-wide value).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemberConfig {
    pub max_in_flight: Option<u32>,
    pub reconcile_interval_ms: Option<u64>,
    pub replan_interval_ms: Option<u64>,
    pub rebalance_delay_ms: Option<u64>,
    pub drain_deadline_ms: Option<u64>,
    pub max_attempts: Option<u32>,
}

/// The fleet-wide configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Config {
    /// `L`; `None`: the snapshot's lease TTL (the bucket's `max_age`), else 30 s.
    pub lease_duration_ms: Option<u64>,
    pub reconcile_interval_ms: u64,
    pub replan_interval_ms: u64,
    pub rebalance_delay_ms: u64,
    pub drain_deadline_ms: u64,
    /// `O`: only checked against `L` and `X`, as Spate does (no store op takes time here).
    pub op_timeout_ms: u64,
    pub max_in_flight: u32,
    pub max_attempts: u32,
    /// Delay between a lease-bucket key's expiry and the delete event every watcher sees.
    pub detection_ms: u64,
    /// `p` of the claim race (timing.md §6.7): the chance, per live non-parting peer and per
    /// exposed claim, that the peer folds the claimant's record before its lease and parks the
    /// split. `None`: the release's measured rate ([`Chance::claim_race`]).
    pub claim_race: Option<Chance>,
    /// Per-member overrides, by instance name.
    pub members: BTreeMap<String, MemberConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            lease_duration_ms: None,
            reconcile_interval_ms: 30_000,
            replan_interval_ms: 60_000,
            rebalance_delay_ms: 20_000,
            drain_deadline_ms: 10_000,
            op_timeout_ms: 10_000,
            max_in_flight: 8,
            max_attempts: 4,
            detection_ms: 0,
            claim_race: None,
            members: BTreeMap::new(),
        }
    }
}

/// A probability, kept exactly as parts per billion so that configurations compare and every
/// target draws alike (no floating point once read). Written as a number from 0 to 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Chance(u32);

impl Chance {
    /// Parts per billion of certainty.
    pub const SCALE: u32 = 1_000_000_000;
    pub const ZERO: Chance = Chance(0);

    /// `p` from 0 to 1, rounded to the nearest billionth; `None` outside that range or not a
    /// number.
    pub fn from_f64(p: f64) -> Option<Chance> {
        if !(0.0..=1.0).contains(&p) {
            return None;
        }
        // In [0, 1e9] after the check, so the conversion neither wraps nor saturates.
        Some(Chance((p * f64::from(Chance::SCALE)).round() as u32))
    }

    /// The chance in parts per billion, `0..=SCALE`.
    pub fn per_billion(self) -> u32 {
        self.0
    }

    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / f64::from(Chance::SCALE)
    }

    /// The claim race's rate as measured on each release, per live peer and exposed claim:
    /// ≈ 0.05 on 0.1.0 (timing.md §6.7 A13: 6 of 35 claims on a 5-worker fleet) and ≈ 0.13 on
    /// 0.3.0 (timing-0.3.md §6.7 B13: 10 of 27); the core's one figure, which the on-call card's
    /// words use too.
    pub fn claim_race(rules: spate_planner_core::Rules) -> Chance {
        Chance(spate_planner_core::review::claim_race_per_mille(rules) * 1_000_000)
    }
}

impl Serialize for Chance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

/// A duration the data plane takes: fixed, or drawn uniformly from `min..=max` by the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dist {
    Const(u64),
    Uniform { min: u64, max: u64 },
}

/// What the data plane does (source behaviour, an input to the simulation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DataPlane {
    /// Time from RevokeRequested to the drained release (commit of the tail, then release).
    pub drain_ms: Dist,
    /// The source declines every revocation (cannot stop cleanly): forced at once.
    pub decline: bool,
    /// Running time a split needs to complete, from the start; `None`: splits never complete.
    pub run_ms: Option<Dist>,
    /// Each held split commits at this interval; `None`: ordinary commits are not modelled.
    pub commit_interval_ms: Option<u64>,
    /// How long one planner run takes (election, then every replan tick while the plan is open).
    pub planner_ms: u64,
}

impl Default for DataPlane {
    fn default() -> Self {
        DataPlane {
            drain_ms: Dist::Const(0),
            decline: false,
            run_ms: None,
            commit_interval_ms: None,
            planner_ms: 0,
        }
    }
}

/// One process's resolved settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProcCfg {
    /// `K`, the lane budget, which the process also advertises in its presence.
    pub k: u32,
    pub c: u64,
    pub q: u64,
    pub d: u64,
    pub x: u64,
    pub a: u32,
}

/// Why a configuration is refused: the path of the field and the rule.
pub(crate) type Refusal = (String, String);

impl Config {
    /// The lease duration against a snapshot whose bucket TTL is `ttl_ms` (0: unknown).
    pub fn lease_ms(&self, ttl_ms: u64) -> u64 {
        match self.lease_duration_ms {
            Some(l) => l,
            None if ttl_ms > 0 => ttl_ms,
            None => DEFAULT_LEASE_MS,
        }
    }

    /// The settings of process `name`; `cap` (from a `start` or `set_cap`) wins over the rest.
    pub(crate) fn proc_cfg(&self, name: &str, cap: Option<u32>) -> ProcCfg {
        let m = self.members.get(name).cloned().unwrap_or_default();
        ProcCfg {
            k: cap
                .filter(|&c| c > 0)
                .or(m.max_in_flight)
                .unwrap_or(self.max_in_flight),
            c: m.reconcile_interval_ms.unwrap_or(self.reconcile_interval_ms),
            q: m.replan_interval_ms.unwrap_or(self.replan_interval_ms),
            d: m.rebalance_delay_ms.unwrap_or(self.rebalance_delay_ms),
            x: m.drain_deadline_ms.unwrap_or(self.drain_deadline_ms),
            a: m.max_attempts.unwrap_or(self.max_attempts),
        }
    }

    /// Spate's validation (timing.md §1), with the simulator's one extra floor: a reconcile
    /// interval of at least 1 ms (0 would leave that timer permanently due).
    pub(crate) fn validate(&self, ttl_ms: u64) -> Result<(), Refusal> {
        let l = self.lease_ms(ttl_ms);
        let o = self.op_timeout_ms;
        let bad = |path: &str, rule: String| Err((path.to_string(), rule));
        if o < 50 {
            return bad("config.op_timeout_ms", "op_timeout must be at least 50 ms".into());
        }
        if l < 300 || l < o.saturating_mul(2) {
            return bad(
                "config.lease_duration_ms",
                format!("lease_duration {l} ms must be at least 300 ms and at least 2 x op_timeout ({o} ms)"),
            );
        }
        if l > MAX_DURATION_MS || self.detection_ms > MAX_DURATION_MS {
            return bad(
                "config.lease_duration_ms",
                format!("durations are at most {MAX_DURATION_MS} ms"),
            );
        }
        self.validate_proc("config", &self.proc_cfg("", None), l, o)?;
        for name in self.members.keys() {
            let path = format!("config.members.{name}");
            self.validate_proc(&path, &self.proc_cfg(name, None), l, o)?;
        }
        Ok(())
    }

    fn validate_proc(&self, at: &str, p: &ProcCfg, l: u64, o: u64) -> Result<(), Refusal> {
        let bad = |field: &str, rule: String| Err((format!("{at}.{field}"), rule));
        if p.k < 1 {
            return bad("max_in_flight", "max_in_flight must be at least 1".into());
        }
        if p.a < 1 {
            return bad("max_attempts", "max_attempts must be at least 1".into());
        }
        if p.q < l {
            return bad(
                "replan_interval_ms",
                format!(
                    "replan_interval {} ms must be at least lease_duration ({l} ms)",
                    p.q
                ),
            );
        }
        if p.x < o {
            return bad(
                "drain_deadline_ms",
                format!("drain_deadline {} ms must be at least op_timeout ({o} ms)", p.x),
            );
        }
        if p.c < 1 {
            return bad(
                "reconcile_interval_ms",
                "reconcile_interval must be at least 1 ms (Spate does not check it; 0 would spin)".into(),
            );
        }
        if [p.c, p.q, p.d, p.x].iter().any(|&v| v > MAX_DURATION_MS) {
            return bad(
                "reconcile_interval_ms",
                format!("durations are at most {MAX_DURATION_MS} ms"),
            );
        }
        Ok(())
    }
}

/// The longest duration a configuration may name (one year), so sums of times never saturate
/// in practice.
pub const MAX_DURATION_MS: u64 = 366 * 24 * 3_600_000;
