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
//! The data path, one module each: [`snapshot`] (the file) → [`fleet`] (the leader's view of the
//! store) → [`scenario`] (what-if changes) → [`leader::LeaderInputs`] → [`assign`] (the plan) →
//! [`report`] (figures, documents); [`pipeline::analyse`] runs it, and [`worker`] gives each
//! worker's next actions.
//!
//! The normative behaviour is `decision-core.md`; the project's statement of the contract, with
//! the test that checks each invariant, is `docs/work-assignment.md`. The plain transcription of
//! the spec and the conformance runner are test-facing (feature `conformance`).
#![forbid(unsafe_code)]

pub mod assign;
pub mod chart;
pub mod claims;
pub mod codes;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod demo;
pub mod diff;
pub mod exact;
pub mod fleet;
pub mod hash;
pub mod leader;
pub mod live;
pub mod pipeline;
pub mod records;
#[cfg(feature = "conformance")]
pub mod reference;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod state;
pub mod sweep;
pub mod synth;
pub mod timing;
pub mod worker;

use std::collections::BTreeMap;

/// A desired assignment: every member to its sorted split ids (one entry per member).
pub type Assignment = BTreeMap<String, Vec<String>>;

pub use assign::{desired_assignment, plan, Explain, Pass, Plan};
pub use claims::{claim_candidates, ClaimAction, ClaimCandidate, ClaimKind};
pub use hash::{stable_hash, stable_hash_str};
pub use leader::LeaderInputs;
pub use state::{LeaseEntry, SplitState};
pub use timing::{jitter, live_workers};
