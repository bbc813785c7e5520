//! The simulator's integration tests, as one test binary: each file beside this one is a module (its tests
//! are named `file::test`), and the helpers they share are compiled once. One binary
//! instead of one per file: the dependencies' generic code is built and linked once.
//! Not here: `sim_properties.rs`, its own binary (see Cargo.toml).

mod sim_support;

mod sim_at;
mod sim_claim_race;
mod sim_marks;
mod sim_predict;
mod sim_recovery;
mod sim_recovery_words;
mod sim_script;
mod sim_section;
mod sim_series;
mod sim_summary;
mod sim_summary_0_3;
mod sim_table;
mod sim_timelines;
mod sim_timelines_0_3;
mod sweep_crash;
