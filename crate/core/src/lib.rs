//! The Spate 0.1 decision core, as spate-planner runs it natively and in WebAssembly.
//!
//! This crate is a deterministic implementation of the work-assignment logic of the Spate
//! coordination protocol (record schema 3): the desired assignment of weighted splits to live
//! members, the claim candidates of a worker, the stable hashes and the jitter. It contains no
//! I/O, reads no clock and draws no randomness: time and seeds are arguments, so the same inputs
//! give bit-identical results on x86-64, aarch64 and wasm32. It has no JavaScript binding
//! dependency; `spate-planner-wasm` wraps it for the browser.
//!
//! The normative behaviour is `decision-core.md`; the project's statement of the contract, with
//! the test that checks each invariant, is `docs/work-assignment.md`.
#![forbid(unsafe_code)]

pub mod assign;
pub mod claims;
pub mod conformance;
pub mod demo;
pub mod fleet;
pub mod hash;
pub mod records;
pub mod reference;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod state;
pub mod synth;
pub mod timing;

use std::collections::BTreeMap;

/// A desired assignment: every member to its sorted split ids (one entry per member).
pub type Assignment = BTreeMap<String, Vec<String>>;

pub use assign::{desired_assignment, plan, Explain, Pass, Plan};
pub use claims::{claim_candidates, ClaimAction, ClaimCandidate, ClaimKind};
pub use hash::{stable_hash, stable_hash_str};
pub use state::{LeaseEntry, SplitState};
pub use synth::LeaderInputs;
pub use timing::{jitter, live_workers};
