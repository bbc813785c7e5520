//! How long a test waits for what must happen before it calls it missing. A passing run never
//! waits this long: the bound only ends a run that hangs, so it is wide enough for a debug build
//! on a busy machine (no test depends on wall-clock speed; speed is the benchmarks',
//! `scripts/bench-live`, `scripts/bench-snapshot`). A test that checks a timeout of the program
//! (a stalled server, a slow client) waits for that timeout plus this.
#![allow(dead_code)]

use std::time::Duration;

/// The longest wait for something that should happen, however busy the machine.
pub const PATIENCE: Duration = Duration::from_secs(120);
