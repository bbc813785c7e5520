//! A deterministic discrete-event simulator of Spate's coordination timing.
//!
//! **Contract.** [`simulate`] takes a starting fleet ([`Start`]: a loaded snapshot or a steady
//! synthetic fleet), a [`Script`] (configuration, data-plane behaviour, seed, timed events) and
//! [`Options`], and returns an [`Outcome`]: the timeline, each split's phase intervals, the
//! headline figures and the final state. It follows the rules of `timing.md` (the shared spec)
//! listed in its §9 "must model exactly", in the step order of its §2.5, and takes every
//! decision through the core's own [`spate_planner_core::desired_assignment`] and [`spate_planner_core::claim_candidates`]
//! (never a copy of them). `docs/simulator.md` says what is modelled, the fixed order of
//! simultaneous events, and every rule that is not followed, with the reason.
//!
//! Pure and deterministic: no I/O, no clock, no randomness but draws hashed from the script's
//! seed; ordered maps only. The same inputs give the same outcome natively and in wasm32. Time
//! is a u64 count of milliseconds with saturating arithmetic; nothing reachable from the inputs
//! panics, and a run that would exceed [`Options::max_events`] stops with an error instead.

mod config;
mod crash;
mod draw;
mod duties;
mod engine;
mod handlers;
mod ops;
mod outcome;
mod parse;
mod queue;
mod script;
mod setup;
mod start;
mod step;
mod store;
mod track;
mod worker;
mod writes;

pub use config::{Config, DataPlane, Dist, MemberConfig, DEFAULT_LEASE_MS, MAX_DURATION_MS};
pub use crash::CrashScript;
pub use outcome::{
    ClaimRow, Figures, FinalState, Interval, MemberRow, Outcome, Phase, Record, ReleaseReason, SplitList,
    TimelineEvent, What,
};
pub use script::{
    apply_override, Op, Script, ScriptEvent, DEFAULT_UNTIL_MS, FORMAT, MAX_ADDED_SPLITS, MAX_UNTIL_MS,
};
pub use start::{bench_scenario, Start};

use engine::Sim;
use std::fmt;

/// Internal times are offset by this much, so that the history before t = 0 (a member's last
/// heartbeats, a departure a few seconds ago) is representable in u64.
pub(crate) const ORIGIN: u64 = 1 << 40;

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Run the naive engine (every event steps every worker over every split), for
    /// differential tests; the default fast engine gives the same outcome.
    pub naive: bool,
    /// Also record every split lease renewal in the timeline.
    pub trace_renewals: bool,
    /// Stop with `too_many_events` after this many handled events and deliveries.
    pub max_events: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            naive: false,
            trace_renewals: false,
            max_events: 50_000_000,
        }
    }
}

/// Why a script cannot run: a stable code, the path of the field at fault, and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub code: spate_planner_core::ErrorCode,
    pub path: String,
    pub message: String,
}

impl SimError {
    pub(crate) fn new(
        code: spate_planner_core::ErrorCode,
        path: &str,
        message: impl Into<String>,
    ) -> SimError {
        SimError {
            code,
            path: path.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "script {}: {}", self.path, self.message)
    }
}

impl std::error::Error for SimError {}

/// Simulates `script` from `start` (see the module documentation).
pub fn simulate(start: &Start, script: &Script, opts: &Options) -> Result<Outcome, SimError> {
    script.check(start)?;
    let l = script.config.lease_ms(start.lease_ttl_ms);
    let mut sim = Sim::new(script, opts, start.seed, l);
    sim.load(start);
    let end = ORIGIN.saturating_add(script.until_ms);
    sim.run(end)?;
    sim.now = end;
    Ok(sim.finish())
}

impl Sim<'_> {
    fn finish(mut self) -> Outcome {
        if let Some(l) = self.leader.clone() {
            self.prune(&l);
        }
        let leader = self.workers.values().find(|w| w.leading);
        let end = FinalState {
            members: self
                .store
                .presence
                .iter()
                .map(|(m, p)| (m.clone(), p.cap))
                .collect(),
            lanes: self.workers.iter().map(|(m, w)| (m.clone(), w.cfg.k)).collect(),
            leader: leader.map(|w| w.name.clone()),
            default_cap: leader.map(|w| w.cfg.k),
            reserved: leader
                .map(|w| self.store.owned_by_any(w.departed.keys()))
                .unwrap_or_default(),
            splits: self.store.splits.clone(),
            holders: self.holder.clone(),
            published: self
                .store
                .assign
                .iter()
                .map(|(m, r)| (m.clone(), (r.generation, r.splits.to_vec())))
                .collect(),
        };
        let (timeline, splits, figures) = self.rec.finish(self.now);
        Outcome {
            timeline,
            splits,
            figures,
            end,
        }
    }
}
