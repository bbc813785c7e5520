//! `stable_hash` and `stable_hash_str` equal foldhash 0.2.0's 64-bit results (natively, where
//! the crate computes them with the full 128-bit multiply; `src/hash.rs`), so every target gives
//! the production leader's values.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use common::cases::cases;
use core::hash::BuildHasher;
use foldhash::fast::FixedState;
use proptest::prelude::*;
use spate_planner_core::{stable_hash, stable_hash_str};

fn reference_u64(seed: u64, v: u64) -> u64 {
    FixedState::with_seed(seed).hash_one(v)
}
fn reference_str(seed: u64, v: &str) -> u64 {
    FixedState::with_seed(seed).hash_one(v)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(4000)))]
    #[test]
    fn matches_foldhash_natively_for_integers(seed in any::<u64>(), v in any::<u64>()) {
        prop_assert_eq!(stable_hash(seed, v), reference_u64(seed, v));
    }

    #[test]
    fn matches_foldhash_natively_for_strings(seed in any::<u64>(), s in "\\PC{0,300}") {
        prop_assert_eq!(stable_hash_str(seed, &s), reference_str(seed, &s));
    }
}

/// Every byte length 0..=1024, several seeds: each branch of the long-input path, and
/// the lengths (352, 448, 544, ...) where the 96-byte loop leaves exactly 256 bytes.
#[test]
fn matches_foldhash_natively_for_every_length() {
    let text: String = (0..1024u32)
        .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
        .collect();
    for seed in [0u64, 1, 7, u64::MAX, 0x1234_5678_9abc_def0] {
        for len in 0..=1024 {
            let s = &text[..len];
            assert_eq!(stable_hash_str(seed, s), reference_str(seed, s), "len {len}");
        }
    }
}
