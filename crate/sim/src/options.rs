//! How a simulation runs, where its internal clock starts, and why a script cannot run.

use std::fmt;

/// Internal times are offset by this much, so that the history before t = 0 (a member's last
/// heartbeats, a departure a few seconds ago) is representable in u64.
pub(crate) const ORIGIN: u64 = 1 << 40;

/// The default work budget ([`Options::max_events`]). Each `start` costs a plan of the whole
/// fleet (its improving moves scan the members) and the rewrite of the records it changes, so
/// work grows faster than the square of the members started: 300 started at one instant on a
/// 2,000-split fleet take about 1.5 million units; 1,000 or 3,000 are stopped at this bound,
/// within about 2 s. The largest `bench --sim` scenario (10,000 x 100, byte weights) takes
/// about 2.3 million.
pub const MAX_WORK: u64 = 5_000_000;

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Run the naive engine (every event steps every worker over every split), for
    /// differential tests; the default fast engine gives the same outcome.
    pub naive: bool,
    /// Also record every split lease renewal, reconcile listing and replan tick in the
    /// timeline.
    pub trace_renewals: bool,
    /// Stop with `too_many_events` after this many units of work: each handled event and
    /// delivery, each worker step, each plan's members plus splits plus, per improving move,
    /// one per 16 members, each published record's splits, and each claim evaluation's
    /// assigned splits (plans and publishes are the costly part).
    pub max_events: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            naive: false,
            trace_renewals: false,
            max_events: MAX_WORK,
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
