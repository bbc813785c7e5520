//! The decision core's integration tests, as one test binary: each file beside this one is a module (its tests
//! are named `file::test`), and the helpers they share are compiled once. One binary
//! instead of one per file: the dependencies' generic code is built and linked once.
//! Not here: `conformance.rs`, its own binary (see Cargo.toml).

mod common;

mod assignment;
mod assignment_0_3;
mod at_risk;
mod bad_inputs;
mod claims;
mod claims_0_3;
mod docs_codes;
mod exports;
mod fuzz_corpus;
mod gauges;
mod hash;
mod incidents;
mod input_bounds;
mod join_order;
mod leader_view;
mod live;
mod live_events;
mod partial;
mod recording;
mod report;
mod review;
mod review_compose;
mod review_markdown;
mod rules;
mod snapshot;
