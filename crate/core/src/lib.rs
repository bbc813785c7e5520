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
//! The data path: [`snapshot`] (the file) → [`fleet`] (the leader's view of the store) →
//! [`scenario`] (what-if changes) → [`LeaderInputs`] → [`assign`] (the plan) → [`report`] (a
//! plan's figures) → [`pipeline`] ([`analyse`] runs the path; [`worker`] gives each worker's next
//! actions) → [`sweep`], [`diff`] and [`rules_diff`] (many plans, two snapshots, two releases'
//! rules) → [`review`] (the documents a person reads: findings, the JSON documents, the Markdown
//! review). [`live`] holds a job's state, the rules and the message that change it, and keeps it
//! current one change at a time, frame by frame. The modules are in layers
//! (docs/architecture.md; a module imports only from the layers below it, never through this
//! file), and there is no import loop between files or folders (`crate/cli/tests/layout.rs`).
//! The names most callers use are re-exported here, grouped by layer; the rest are reached by
//! their module's path (`spate_planner_core::review::Finding`). The timing simulator is its own
//! crate (`spate-planner-sim`), which the sweep reaches only through the [`CrashModel`] its
//! caller passes.
//!
//! The normative behaviour is `decision-core.md` and `decision-core-0.3.md`; the project's
//! statement of the contract, with the test that checks each invariant, is
//! `docs/work-assignment.md`. The plain transcriptions of the specs and the conformance runner
//! are test-facing (feature `conformance`); so are the few names only tests use (feature
//! `testing`).
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

pub mod assign;
pub mod chart;
pub mod claims;
pub mod codes;
#[cfg(feature = "conformance")]
pub mod conformance;
mod demo;
pub mod diff;
pub mod exact;
pub mod fleet;
mod hash;
pub mod json;
mod leader;
pub mod live;
pub mod natural;
pub mod pipeline;
pub mod records;
#[cfg(feature = "conformance")]
pub mod reference;
pub mod report;
pub mod review;
pub mod risk;
mod rules;
pub mod rules_diff;
pub mod scenario;
pub mod snapshot;
pub mod state;
pub mod sweep;
pub mod synth;
pub mod timing;
#[cfg(feature = "ts")]
pub mod typescript;
pub mod utc;
pub mod worker;

// The names most callers use, each group a layer of docs/architecture.md, the bottom first;
// everything else by its module's path.

// The bottom: error codes, exact u64 text, the release's rules, the stable hashes, the jitter, a
// split's state and the snapshot file.
pub use codes::ErrorCode;
pub use exact::{to_json, Exact};
pub use hash::{stable_hash, stable_hash_str};
pub use records::SplitStatus;
pub use rules::{Rules, RulesChoice, RulesSource};
pub use snapshot::{valid_job_name, Bucket, Entry, Snapshot, SnapshotError, Source, MAX_SNAPSHOT_BYTES};
pub use state::SplitState;
pub use timing::jitter;

// The decisions: the desired assignment, a worker's claim candidates, the leader's inputs; and
// the leader's view of a store.
pub use assign::{desired_assignment, Assignment};
pub use claims::{claim_candidates, ClaimKind};
pub use fleet::{Fleet, Side};
pub use leader::LeaderInputs;

// On those: demo snapshots, a live job and its recordings, what-if scenarios, the one path from a
// fleet to its analysis, a plan's figures.
pub use demo::{demo_snapshot, DemoParams};
pub use live::{JobState, LiveChange, LiveEvent, LiveJob, Recording, Replay, Revisions};
pub use pipeline::{analyse, analyse_partly, next_claims, Analysis, AssignmentSource};
pub use report::{converge, human_bytes};
pub use scenario::{Scenario, ScenarioError};

// Many analyses (two snapshots, two releases' rules, a sweep) and the documents a person reads.
pub use diff::diff;
pub use review::{claims_document, compose, plan_document, ReviewRequest};
pub use rules_diff::diff_rules;
pub use sweep::{sweep, CrashModel};
