//! The Spate decision core, as spate-planner runs it natively and in WebAssembly: the rules of
//! Spate 0.1.x/0.2.x (`decision-core.md`) and of Spate 0.3 (`decision-core-0.3.md`), each store
//! decided by the release it names unless told otherwise ([`Rules`]).
//!
//! This crate is a deterministic implementation of the work-assignment logic of the Spate
//! coordination protocol (record schema 3): the desired assignment of weighted splits to live
//! members, the claim candidates of a worker, the stable hashes and the jitter — and, around
//! them, the path from a store snapshot to what the planner shows. It contains no I/O, reads no
//! clock and draws no randomness: time and seeds are arguments, so the same inputs give
//! bit-identical results on x86-64, aarch64 and wasm32. It has no JavaScript binding dependency;
//! `spate-planner-wasm` wraps it for the browser.
//!
//! The data path, one private module each: `snapshot` (the file) → `fleet` (the leader's view of
//! the store) → `scenario` (what-if changes) → [`LeaderInputs`] → `assign` (the plan) → `report`
//! (a plan's figures) → `pipeline` ([`analyse`] runs the path; `worker` gives each worker's next
//! actions) → `sweep`, `diff` and `rules_diff` (many plans, two snapshots, two releases' rules)
//! → `review` (the documents a person reads: findings, the JSON documents, the Markdown review).
//! `live` holds a job's state, the rules and the message that change it, and keeps it current
//! one change at a time, frame by frame. The modules are in layers (docs/architecture.md; a
//! module imports only from the layers below it, never through this file), and there is no
//! import loop between files or folders (`crate/cli/tests/layout.rs`). Everything a dependent
//! uses is re-exported here, grouped by layer; the module paths are not part of the API. The
//! timing simulator is its own crate (`spate-planner-sim`), which the sweep reaches only through
//! the [`CrashModel`] its caller passes.
//!
//! The normative behaviour is `decision-core.md` and `decision-core-0.3.md`; the project's
//! statement of the contract, with the test that checks each invariant, is
//! `docs/work-assignment.md`. The plain transcriptions of the specs and the conformance runner
//! are test-facing (feature `conformance`).
#![forbid(unsafe_code)]

mod assign;
mod chart;
mod claims;
mod codes;
#[cfg(feature = "conformance")]
pub mod conformance;
mod demo;
mod diff;
mod exact;
mod fleet;
mod hash;
mod json;
mod leader;
mod live;
mod natural;
mod pipeline;
mod records;
#[cfg(feature = "conformance")]
pub mod reference;
mod report;
mod review;
mod risk;
mod rules;
mod rules_diff;
mod scenario;
mod snapshot;
mod state;
mod sweep;
mod synth;
mod timing;
mod utc;
mod worker;

// Each group is a layer of docs/architecture.md, the bottom first: a module imports only from the
// layers below its own.

// The bottom: error and warning codes, strict JSON and exact u64 text, the release's rules, the
// stable hashes, the jitter, the store's records, a split's state and the snapshot file.
pub use chart::escape;
pub use codes::{ErrorCode, FindingCode, WarningCode};
pub use exact::{count, to_json, Exact};
pub use hash::{stable_hash, stable_hash_str};
pub use json::{message as json_message, not_a_u64, strict_value};
pub use natural::natural_cmp;
pub use records::{
    parse_keyed_record, parse_record, AssignmentVal, Elector, Finality, HasId, LeaderVal, LeaseVal,
    PlanRecord, Record, RecordError, RecordErrorKind, SplitProgressRecord, SplitSpecRecord, SplitStatus,
    WorkerVal, SCHEMA,
};
pub use rules::{Rules, RulesChoice, RulesSource};
pub use snapshot::{
    bucket_names, entry_json, line_entry_json, stream_entry_json, valid_job_name, Bucket, Entry, Snapshot,
    SnapshotError, Source, FORMAT as SNAPSHOT_FORMAT, MAX_SNAPSHOT_BYTES,
};
pub use state::{LeaseEntry, SplitState};
pub use timing::{jitter, live_workers, spread};
pub use utc::{utc_millis_text, utc_text};

// The decisions: the desired assignment and its explanation, a worker's claim candidates, the
// leader's inputs, each worker's next actions; and the leader's view of a store.
pub use assign::{
    desired_assignment, last_assignees, plan, plan_with_hash, AssignInputs, Assignment, Explain, Pass,
    Placement, Plan, MAX_IMPROVING_MOVES,
};
pub use claims::{
    claim_candidates, AttemptsSource, ClaimAction, ClaimCandidate, ClaimKind, MaxAttempts,
    SPATE_DEFAULT_MAX_ATTEMPTS,
};
pub use fleet::{
    warning_groups, CapSource, CapUnknown, DefaultCap, Fleet, Member, Meta, Records, SeedSource, Side,
    SplitInfo, Warning,
};
pub use leader::LeaderInputs;
pub use risk::{at_risk, race_parked, AtRisk, RaceParked, RiskySplit};
pub use worker::{fenced, holds, next_actions, next_actions_of_all, NextActions, WorkerView};

// On those: a plan's figures, synthetic fleets for benchmarks and tests, a live job; then what-if
// scenarios, the one path from a fleet to its analysis, and demo snapshots.
pub use demo::{demo_snapshot, DemoParams};
pub use live::{
    change_line, freshness, names_text, state_line, status_line, BucketState, EventKind, FleetChange,
    FleetChangeKind, Freshness, JobState, LiveChange, LiveEvent, LiveFrame, LiveJob, LiveOp, Outline,
    RecordItem, Recorded, RecordedStatus, Recording, RecordingHeader, RefusedSpan, Regression, Replay,
    ReplayFrame, Revisions, StateReason, MAX_RECORDING_BYTES, RECORDING_FORMAT, REPLAY_FAR,
};
pub use pipeline::{analyse, analyse_partly, next_claims, Analysis, AssignmentSource, NoPublish};
pub use report::{
    converge, human_bytes, published_distance, ratio4, reason_words, relief, report, summary, Balance, Churn,
    Convergence, Counts, Heaviest, Marks, Mean, MemberReport, MoveReport, PublishedDistance, Reason,
    ReasonWords, Report, Round, Summary, SummarySide, CONVERGE_FORMAT,
};
pub use scenario::{
    Applied, Change, Departed, DepartedState, Departure, Origin, Refused, Scenario, ScenarioError,
    FORMAT as SCENARIO_FORMAT, MAX_ADDED_SPLITS, MAX_CHANGES, MAX_NAME_BYTES, MAX_PREFIX_BYTES,
    MAX_SCENARIO_BYTES,
};
pub use synth::{bench_fleet, max_min_ratio, runnable_split, Shape, SplitMix64};

// Many analyses: two snapshots, two releases' rules, a sweep; and at the top the documents a
// person reads.
pub use diff::{
    diff, CapChange, Chronology, DecisionCheck, Diff, Figures, Identity, MemberChange, OwnerChange,
};
/// Markdown made from data, as every document writes store strings (the simulator's Timeline
/// section too).
pub use review::markdown_text;
pub use review::{
    claim_race_per_mille, claims_csv, claims_document, claims_rules_note, claims_view, compose, diff_csv,
    exposure, find_splits, findings, fleet_chart, fleet_info, gauges, incident_views, last_publish_ms,
    plan_csv, plan_document, plan_figures, plan_view, sweep_csv, CrashSettings, DiffTable, Exposure, Figure,
    FigureValue, Finding, FleetChart, Gauges, Image, IncidentInputs, IncidentLog, IncidentView, Level,
    LoadGauges, Palette, PlanTable, PublishedGauges, RecordedIncidents, RecoveryModel, Review, ReviewError,
    ReviewRequest, SeedRun, SplitStates, SweepRequest, SLIDE_ROWS,
};
pub use rules_diff::{diff_rules, PlacedApart, RulesDiff, RulesSide};
pub use sweep::{
    check_range, crash_heaviest, parse_range, smallest_meeting, step_scenario, sweep, sweep_document, today,
    verdict, Axis, CrashError, CrashFigures, CrashModel, RemoveOrder, Step, SweepDocument, SweepError,
    Targets, Today, Verdict, MAX_STEPS, SWEEP_FORMAT,
};
