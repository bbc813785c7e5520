//! The `scenario` fuzz target: libFuzzer's inputs through `checks/scenario.rs`, which says what it
//! checks. The same function replays the seeds natively in every `scripts/test`
//! (crate/core/tests/fuzz_corpus.rs).
#![no_main]

#[path = "../checks/scenario.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::run(data));
