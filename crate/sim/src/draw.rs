//! Everything the simulator draws, derived from the script's seed by `stable_hash_str`.
//!
//! Each draw hashes the seed with a label naming what is drawn (`nonce/worker-03/2`), so a value
//! never depends on how many draws came before it: the same inputs give the same draws on every
//! target and in both engines.

use super::config::Dist;
use spate_planner_core::stable_hash_str;
use std::time::Duration;

/// A 64-bit value for `label`.
pub(crate) fn draw(seed: u64, label: &str) -> u64 {
    stable_hash_str(seed, label)
}

/// Uniform-ish in `0..n` (0 when `n` is 0).
pub(crate) fn below(seed: u64, label: &str, n: u64) -> u64 {
    draw(seed, label).checked_rem(n).unwrap_or(0)
}

/// A value of `d` for `label`.
pub(crate) fn sample(seed: u64, label: &str, d: &Dist) -> u64 {
    match *d {
        Dist::Const(v) => v,
        Dist::Uniform { min, max } => {
            let span = max - min;
            min + if span == u64::MAX {
                draw(seed, label)
            } else {
                below(seed, label, span + 1)
            }
        }
    }
}

/// The nonce of incarnation `inc` of process `member`: a UUID v4 in form (Spate uses a fresh
/// random one per process; the simulator's comes from the seed).
pub(crate) fn nonce(seed: u64, member: &str, inc: u32) -> String {
    let a = draw(seed, &format!("nonce-a/{member}/{inc}"));
    let b = draw(seed, &format!("nonce-b/{member}/{inc}"));
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// A duration in whole ms, rounded up: the simulator's clock ticks in milliseconds and a timer
/// fires at the first tick at or after its deadline.
pub(crate) fn ceil_ms(d: Duration) -> u64 {
    let ns = d.as_nanos();
    u64::try_from(ns.div_ceil(1_000_000)).unwrap_or(u64::MAX)
}
