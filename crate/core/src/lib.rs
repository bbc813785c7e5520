//! The Spate 0.1 decision core, as spate-planner runs it natively and in WebAssembly.
//!
//! This crate is a deterministic implementation of the work-assignment logic of the Spate
//! coordination protocol (record schema 3): the desired assignment of weighted splits to live
//! members, the claim candidates of a worker, the stable hashes and the jitter — and, around
//! them, the path from a store snapshot to what the planner shows. It contains no I/O, reads no
//! clock and draws no randomness: time and seeds are arguments, so the same inputs give
//! bit-identical results on x86-64, aarch64 and wasm32. It has no JavaScript binding dependency;
//! `spate-planner-wasm` wraps it for the browser.
//!
//! The data path, one private module each, in layers (a module imports only from layers below
//! it): `snapshot` (the file) → `fleet` (the leader's view of the store) → `scenario` (what-if
//! changes) → [`LeaderInputs`] → `assign` (the plan) → `report` (a plan's figures) →
//! `pipeline` ([`analyse`] runs the path; `worker` gives each worker's next actions) → `sweep`
//! and `diff` (many plans, two snapshots) → `review` (the documents a person reads: findings,
//! the JSON documents, the Markdown review). `live` holds a job's state, the rules and the
//! message that change it, and keeps it current one change at a time, frame by frame.
//! Everything a dependent uses is re-exported here; the module paths are not part of the API.
//! The timing simulator is its own crate (`spate-planner-sim`), which the sweep reaches only
//! through the [`CrashModel`] its caller passes.
//!
//! The normative behaviour is `decision-core.md`; the project's statement of the contract, with
//! the test that checks each invariant, is `docs/work-assignment.md`. The plain transcription of
//! the spec and the conformance runner are test-facing (feature `conformance`).
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
mod pipeline;
mod records;
#[cfg(feature = "conformance")]
pub mod reference;
mod report;
mod review;
mod rules;
mod rules_diff;
mod scenario;
mod snapshot;
mod state;
mod sweep;
mod synth;
mod timing;
mod worker;

// The kernel: the protocol's pure functions and the records they read.
pub use assign::{
    desired_assignment, last_assignees, plan, plan_with_hash, AssignInputs, Assignment, Explain, Pass,
    Placement, Plan, MAX_IMPROVING_MOVES,
};
pub use claims::{claim_candidates, ClaimAction, ClaimCandidate, ClaimKind};
pub use hash::{stable_hash, stable_hash_str};
pub use records::{
    parse_keyed_record, parse_record, AssignmentVal, Elector, Finality, HasId, LeaderVal, LeaseVal,
    PlanRecord, Record, RecordError, RecordErrorKind, SplitProgressRecord, SplitSpecRecord, SplitStatus,
    WorkerVal, SCHEMA,
};
pub use rules::{Rules, RulesChoice, RulesSource};
pub use rules_diff::{diff_rules, PlacedApart, RulesDiff, RulesSide, RULES_DIFF_FORMAT};
pub use state::{LeaseEntry, SplitState};
pub use timing::{jitter, live_workers, spread};

// From a store snapshot to the leader's inputs.
pub use codes::{ErrorCode, FindingCode, WarningCode};
pub use fleet::{
    CapSource, CapUnknown, DefaultCap, Fleet, Member, Meta, Records, SeedSource, Side, SplitInfo, Warning,
    SPATE_DEFAULT_CAP,
};
pub use leader::LeaderInputs;
pub use live::{
    names_text, BucketState, EventKind, JobState, LiveChange, LiveEvent, LiveFrame, LiveJob, LiveOp,
    Regression, Revisions, MAX_NAMES,
};
pub use scenario::{
    Applied, Change, Departed, DepartedState, Departure, Origin, Refused, Scenario, ScenarioError,
    FORMAT as SCENARIO_FORMAT, MAX_ADDED_SPLITS, MAX_CHANGES, MAX_NAME_BYTES, MAX_PREFIX_BYTES,
    MAX_SCENARIO_BYTES, OPS as SCENARIO_OPS, SPATE_REBALANCE_DELAY_MS, SPATE_RECONCILE_INTERVAL_MS,
};
pub use snapshot::{
    bucket_names, entry_json, parse_entry_json, stream_entry_json, valid_job_name, Bucket, Entry, Snapshot,
    SnapshotError, Source, FORMAT as SNAPSHOT_FORMAT, MAX_SNAPSHOT_BYTES,
};

// A plan's figures, many plans, two snapshots, and the documents a person reads.
pub use diff::{diff, DecisionCheck, Diff, Figures, Identity, MemberChange, OwnerChange};
pub use pipeline::{analyse, analyse_partly, next_claims, Analysis, AssignmentSource, NoPublish};
pub use report::{
    converge, human_bytes, published_distance, report, summary, Balance, Churn, Counts, Heaviest, Marks,
    Mean, MemberReport, MoveReport, PublishedDistance, Reason, Report, Round, Summary, SummarySide,
    OVER_MEAN_PERCENT,
};
pub use review::{
    claims_csv, claims_document, claims_rules_note, claims_view, diff_csv, find_splits, findings,
    fleet_chart, fleet_info, plan_csv, plan_document, plan_view, review, sweep_csv, DiffTable, Finding,
    FleetChart, Image, Level, Palette, PlanTable, Review, ReviewInputs, CLAIMS_FORMAT, PLAN_FORMAT,
    SLIDE_ROWS,
};
pub use sweep::{
    added_name, crash_heaviest, smallest_meeting, step_scenario, sweep, sweep_step, Axis, CrashError,
    CrashFigures, CrashModel, Step, SweepError, MAX_STEPS, NOT_SIMULATED,
};
pub use worker::{fenced, holds, next_actions, next_actions_of_all, NextActions, WorkerView};

// Fleets for demos, benchmarks and tests, exact JSON, and text for markup.
pub use chart::escape;
pub use demo::{demo_snapshot, DemoParams, MAX_DEMO_MEMBERS, MAX_DEMO_SPLITS};
pub use exact::{count, to_json, Exact};
pub use json::{message as json_message, not_a_u64, strict_value, without_bom, U64_MAX_TEXT};
pub use synth::{bench_fleet, max_min_ratio, runnable_split, Shape, SplitMix64};
