//! A deterministic discrete-event simulator of Spate's coordination timing.
//!
//! **Contract.** [`simulate`] takes a starting fleet ([`Start`]: a loaded snapshot or a steady
//! synthetic fleet), a [`Script`] (configuration, data-plane behaviour, seed, timed events) and
//! [`Options`], and returns an [`Outcome`]: the timeline, each split's phase intervals, the
//! headline figures and the final state. It follows the release the fleet runs (the script's
//! `rules`, else the one the snapshot names): Spate 0.1's time rules (`timing.md`, the shared
//! spec) or 0.3's (`timing-0.3.md`), each as listed in its §9 "must model exactly", in the step
//! order of §2.5, and takes every decision through the core's own
//! [`spate_planner_core::desired_assignment`] and [`spate_planner_core::claim_candidates`] by
//! the same rules (never a copy of them). `docs/simulator.md` says what is modelled, the fixed order of
//! simultaneous events, and every rule that is not followed, with the reason.
//!
//! Pure and deterministic: no I/O, no clock, no randomness but draws hashed from the script's
//! seed; ordered maps only. The same inputs give the same outcome natively and in wasm32. Time
//! is a u64 count of milliseconds with saturating arithmetic; nothing reachable from the inputs
//! panics, and a run that would exceed [`Options::max_events`] stops with an error instead.

#![warn(unreachable_pub)]

mod at;
mod bench;
mod config;
mod crash;
mod defaults;
mod draw;
mod duties;
mod engine;
mod handlers;
mod marks;
mod ops;
mod options;
mod outcome;
mod parse;
mod predict;
mod queue;
mod recovery;
mod run;
mod script;
mod section;
mod seeds;
mod series;
mod setup;
mod start;
mod step;
mod store;
mod table;
mod timing;
mod track;
#[cfg(feature = "ts")]
pub mod typescript;
mod words;
mod worker;
mod writes;

pub use at::{FleetAt, FleetIndex, IdleAt, Initial, MemberAt, MemberState, PhaseCounts};
pub use bench::bench_scenario;
pub use config::{Chance, Config, DataPlane, Dist, MemberConfig, DEFAULT_LEASE_MS, MAX_DURATION_MS};
pub use crash::CrashScript;
pub use defaults::{defaults, Defaults};
pub use marks::{first_event_ms, mark_text, marks, Counts, Mark, MarkKind, MarkShown, Summary};
pub use options::{Options, SimError, MAX_WORK};
pub use outcome::{
    ClaimRow, Document, Figures, FinalState, Interval, MemberRow, NotRecovered, Outcome, Phase, Record,
    RecoveryText, ReleaseReason, SplitList, Stuck, TimelineEvent, What,
};
pub use predict::{CrashPrediction, PREDICTION_SEEDS};
pub use recovery::{recovery_text, stuck_groups, StuckGroup};
pub use run::simulate;
pub use script::{
    apply_override, Op, Script, ScriptEvent, DEFAULT_UNTIL_MS, FORMAT, MAX_ADDED_SPLITS, MAX_PREFIX_BYTES,
    MAX_SCRIPT_BYTES, MAX_SCRIPT_EVENTS, MAX_UNTIL_MS,
};
pub use section::{
    timeline_section, Names, RunError, RunSide, RunState, SectionImage, SectionInput, Which, MARKS_LISTED,
};
pub use seeds::SeedsSummary;
pub use series::{
    bucket_ms, quantile, touched, Chart, Folded, Metric, Series, IDLE_LABEL, MAX_BUCKETS, TOP_MEMBERS,
};
pub use start::{Start, StartFrom};
pub use table::{figures_table, value_text, FigureDef, FigureKind, FigureRow, FIGURES};
pub use words::{binary_bytes, clock_text, duration_text, thousands};
