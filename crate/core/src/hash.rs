//! `stable_hash` and `stable_hash_str` (decision-core.md section 2).
//!
//! The protocol defines these as foldhash 0.2.0's `fast::FixedState::with_seed(seed).hash_one(v)`
//! *as computed on a 64-bit target*. foldhash itself picks a cheaper, different mixing function
//! on wasm32 (no 64x64->128 multiply there), so calling the crate from the browser would give
//! different assignments than the production leader. This module therefore computes the 64-bit
//! function with explicit `u128` arithmetic, which every target (wasm32 included) evaluates the
//! same way. `tests::matches_foldhash_natively` and the conformance vectors prove it equal to the
//! crate on native targets; the same vectors run under wasm32 in Node and Chromium.

/// The six words of foldhash's fixed global seed (`SharedSeed::global_fixed`).
const SHARED: [u64; 6] = [
    0xc0ac_29b7_c97c_50dd,
    0x3f84_d5b5_b547_0917,
    0x9216_d5d9_8979_fb1b,
    0xd131_0ba6_98df_b5ac,
    0x2ffd_72db_d01a_dfb7,
    0xb8e1_afed_6a26_7e96,
];

/// `FixedState::with_seed` xors the caller's seed with this constant.
const PER_HASHER_XOR: u64 = 0x082e_fa98_ec4e_6c89;

/// Full 64x64 -> 128-bit product, folded by xoring its halves. Always the wide version.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn half_word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(w) as u64
}

/// Mixes a byte string into the accumulator, as `Hasher::write` does.
fn absorb_bytes(acc: u64, bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let acc = acc.rotate_right(len as u32);
    if len <= 16 {
        absorb_short(acc, bytes)
    } else {
        absorb_long(acc, bytes)
    }
}

fn absorb_short(acc: u64, b: &[u8]) -> u64 {
    let n = b.len();
    let (mut x, mut y) = (acc, SHARED[1]);
    if n >= 8 {
        x ^= word(b, 0);
        y ^= word(b, n - 8);
    } else if n >= 4 {
        x ^= half_word(b, 0);
        y ^= half_word(b, n - 4);
    } else if n > 0 {
        x ^= b[0] as u64;
        y ^= ((b[n - 1] as u64) << 8) | b[n / 2] as u64;
    }
    fold_mul(x, y)
}

fn absorb_long(acc: u64, bytes: &[u8]) -> u64 {
    let k = SHARED[0];
    let mut v = bytes;
    let mut s0 = acc;
    let mut s1 = acc.wrapping_add(SHARED[1]);
    if v.len() > 128 {
        let mut s2 = acc.wrapping_add(SHARED[2]);
        let mut s3 = acc.wrapping_add(SHARED[3]);
        if v.len() > 256 {
            let mut s4 = acc.wrapping_add(SHARED[4]);
            let mut s5 = acc.wrapping_add(SHARED[5]);
            while v.len() > 256 {
                s0 = fold_mul(word(v, 0) ^ s0, word(v, 48) ^ k);
                s1 = fold_mul(word(v, 8) ^ s1, word(v, 56) ^ k);
                s2 = fold_mul(word(v, 16) ^ s2, word(v, 64) ^ k);
                s3 = fold_mul(word(v, 24) ^ s3, word(v, 72) ^ k);
                s4 = fold_mul(word(v, 32) ^ s4, word(v, 80) ^ k);
                s5 = fold_mul(word(v, 40) ^ s5, word(v, 88) ^ k);
                v = &v[96..];
            }
            s0 ^= s4;
            s1 ^= s5;
        }
        // At least one 64-byte round runs here: the length is above 128 on entry.
        loop {
            s0 = fold_mul(word(v, 0) ^ s0, word(v, 32) ^ k);
            s1 = fold_mul(word(v, 8) ^ s1, word(v, 40) ^ k);
            s2 = fold_mul(word(v, 16) ^ s2, word(v, 48) ^ k);
            s3 = fold_mul(word(v, 24) ^ s3, word(v, 56) ^ k);
            v = &v[64..];
            if v.len() <= 128 {
                break;
            }
        }
        s0 ^= s2;
        s1 ^= s3;
    }
    // The tail: 16..=128 bytes, read from both ends in up to four pairs.
    let n = v.len();
    let mut i = 0;
    while i < 4 {
        let lo = 16 * i;
        if i > 0 && n < 32 * i {
            break;
        }
        s0 = fold_mul(word(v, lo) ^ s0, word(v, n - 16 - lo) ^ k);
        s1 = fold_mul(word(v, lo + 8) ^ s1, word(v, n - 8 - lo) ^ k);
        i += 1;
    }
    s0 ^ s1
}

/// The hasher's final step with a partly filled 128-bit sponge holding `lo` (high half zero).
#[inline(always)]
fn finish_sponge(acc: u64, lo: u64) -> u64 {
    fold_mul(lo ^ acc, SHARED[0])
}

/// `stable_hash(seed, value)`: foldhash 0.2.0 fast `FixedState::with_seed(seed).hash_one(value)`
/// for a `u64`, with the 64-bit target's result on every target.
pub fn stable_hash(seed: u64, value: u64) -> u64 {
    finish_sponge(seed ^ PER_HASHER_XOR, value)
}

/// `stable_hash_str(seed, value)`: as [`stable_hash`] for a `&str`, which feeds the UTF-8 bytes
/// and then one `0xFF` byte (the standard `Hash for str`).
pub fn stable_hash_str(seed: u64, value: &str) -> u64 {
    let acc = absorb_bytes(seed ^ PER_HASHER_XOR, value.as_bytes());
    finish_sponge(acc, 0xFF)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The measured values quoted in decision-core.md section 2 (64-bit results).
    #[test]
    fn spec_examples_hold_on_every_target() {
        assert_eq!(stable_hash(7, 1), 15575724145496192045);
        assert_eq!(stable_hash_str(7, "w1"), 15023769660716677941);
        // and not the wasm32 approximation, nor foldhash 0.1.5
        assert_ne!(stable_hash(7, 1), 7795655137390394718);
        assert_ne!(stable_hash(7, 1), 4906958109145746307);
    }
}
