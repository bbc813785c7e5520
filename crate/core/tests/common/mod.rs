//! Strategies and builders shared by the core's property tests (natively and under wasm32).
#![allow(dead_code)]

pub mod cases;
pub mod changes;
pub mod store;

use proptest::prelude::*;
use spate_planner_core::{
    records::{LeaseVal, SplitProgressRecord, SplitSpecRecord, SCHEMA},
    state::LeaseEntry,
    SplitState, SplitStatus,
};
use std::collections::{BTreeMap, BTreeSet};

/// The leader's inputs to `desired_assignment` (the core's own type).
pub use spate_planner_core::LeaderInputs as Fleet;

/// What the tests ask of a fleet, spelled out from the spec (not from the code under test).
pub trait FleetExt {
    /// `cap(m) = max(1, caps[m] or default_cap)`.
    fn cap(&self, m: &str) -> usize;
    /// Pooled splits (assignable, not reserved) with their weights.
    fn pool(&self) -> BTreeMap<&str, u64>;
}

impl FleetExt for Fleet {
    fn cap(&self, m: &str) -> usize {
        self.caps.get(m).copied().unwrap_or(self.default_cap).max(1) as usize
    }
    fn pool(&self) -> BTreeMap<&str, u64> {
        self.splits
            .iter()
            .filter(|(id, s)| s.is_assignable() && !self.reserved.contains(*id))
            .map(|(id, s)| (id.as_str(), s.spec.as_ref().map_or(0, |sp| sp.weight).max(1)))
            .collect()
    }
}

/// A split state from its few interesting fields.
#[allow(clippy::too_many_arguments)]
pub fn split(
    id: &str,
    weight: Option<u64>,
    status: SplitStatus,
    completed: bool,
    owner: Option<&str>,
    lease_owner: Option<&str>,
    epoch: u64,
    attempts: u32,
) -> SplitState {
    SplitState {
        progress: SplitProgressRecord {
            schema: SCHEMA,
            id: id.to_string(),
            fp: 1,
            epoch,
            status,
            owner: owner.map(str::to_string),
            attempts,
            watermark: None,
            state: None,
            completed,
            written_at_ms: 0,
        },
        progress_rev: 1,
        spec: weight.map(|w| SplitSpecRecord {
            schema: SCHEMA,
            id: id.to_string(),
            fp: 1,
            generation: 1,
            weight: w,
            descriptor: String::new(),
        }),
        lease: lease_owner.map(|o| LeaseEntry {
            value: LeaseVal {
                schema: SCHEMA,
                owner: o.to_string(),
                nonce: "n".into(),
                epoch: epoch.max(1),
            },
            rev: 2,
        }),
    }
}

/// Weight scales the spec names, plus the extremes and a mix.
#[derive(Clone, Copy, Debug)]
pub enum Scale {
    Small,
    Bytes,
    Extremes,
    Mixed,
}

pub fn arb_weight(scale: Scale) -> BoxedStrategy<u64> {
    match scale {
        Scale::Small => (1u64..=50).boxed(),
        Scale::Bytes => (1_000_000_000u64..=8_000_000_000).boxed(),
        Scale::Extremes => prop_oneof![
            Just(0u64),
            Just(1),
            Just(u64::MAX),
            Just(u64::MAX - 1),
            Just(u64::MAX / 2),
            Just(u64::MAX / 3)
        ]
        .boxed(),
        Scale::Mixed => prop_oneof![
            4 => 1u64..=50,
            4 => 1_000_000_000u64..=8_000_000_000,
            1 => Just(0u64),
            1 => Just(u64::MAX),
            1 => any::<u64>(),
        ]
        .boxed(),
    }
}

pub fn arb_scale() -> impl Strategy<Value = Scale> {
    prop_oneof![3 => Just(Scale::Small), 3 => Just(Scale::Bytes), 1 => Just(Scale::Extremes), 2 => Just(Scale::Mixed)]
}

/// Member names: plain, non-ASCII (byte order differs from UTF-16 order), and a few shapes.
const NAMES: &[&str] = &[
    "w0",
    "w1",
    "w2",
    "w3",
    "w4",
    "w5",
    "w6",
    "w7",
    "w8",
    "w9",
    "w10",
    "w11",
    "worker-a",
    "Z",
    "é",
    "日本",
    "\u{1F600}x",
    "\u{FF61}",
];
/// Owners that are not members of any generated fleet.
const STRANGERS: &[&str] = &["gone-0", "gone-1", "ghost"];

pub fn arb_id() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        'a',
        'b',
        'c',
        '0',
        '1',
        '9',
        '-',
        '.',
        '/',
        ':',
        'é',
        '日',
        '\u{1F600}',
        'Z',
        '_',
    ]);
    prop::collection::vec(alphabet, 1..10).prop_map(|cs| cs.into_iter().collect())
}

/// A fleet of 0..=max_members members and 0..=max_splits splits, on any weight scale.
pub fn arb_fleet(max_members: usize, max_splits: usize) -> impl Strategy<Value = Fleet> {
    arb_scale().prop_flat_map(move |scale| arb_fleet_at(scale, max_members, max_splits))
}

/// A fleet whose weights are drawn from one scale.
pub fn arb_fleet_at(scale: Scale, max_members: usize, max_splits: usize) -> impl Strategy<Value = Fleet> {
    prop::sample::subsequence(NAMES.to_vec(), 0..=max_members.min(NAMES.len()))
        .prop_flat_map(move |members| {
            let owners: Vec<Option<String>> = members
                .iter()
                .chain(STRANGERS)
                .map(|s| Some(s.to_string()))
                .chain([None, None])
                .collect();
            let owner = prop::sample::select(owners.clone());
            let status = prop_oneof![8 => Just(SplitStatus::Runnable), 1 => Just(SplitStatus::Completed), 1 => Just(SplitStatus::Quarantined)];
            let one = (
                arb_id(),
                prop::option::weighted(0.95, arb_weight(scale)),
                status,
                prop::bool::weighted(0.05),
                owner.clone(),
                // The lease mostly agrees with progress.owner, sometimes not.
                // 0: no lease, 1: leased by the progress owner, 2: leased by `other` (if any).
                prop_oneof![3 => Just(0u8), 5 => Just(1u8), 2 => Just(2u8)],
                owner.clone(),
                0u64..4,
                0u32..6,
            );
            (
                Just(members),
                prop::collection::vec(one, 0..=max_splits),
                prop::collection::vec(arb_id(), 0..6),
                prop::collection::vec((prop::sample::select(NAMES.to_vec()), 0u32..12), 0..6),
                prop_oneof![Just(0u32), 1u32..12, Just(u32::MAX)],
                any::<u64>(),
                prop::collection::vec(any::<prop::sample::Index>(), 0..4),
            )
                .prop_map(move |(members, raw, extra_reserved, caps, default_cap, seed, reserve_picks)| {
                    let mut splits = BTreeMap::new();
                    for (id, w, status, completed, owner, lease, other, epoch, attempts) in raw {
                        let lease_owner = match lease {
                            0 => None,
                            1 => owner.clone(),
                            _ => other,
                        };
                        let s = split(&id, w, status, completed, owner.as_deref(), lease_owner.as_deref(), epoch, attempts);
                        splits.insert(id, s);
                    }
                    let ids: Vec<String> = splits.keys().cloned().collect();
                    let mut reserved: BTreeSet<String> = extra_reserved.into_iter().collect();
                    if !ids.is_empty() {
                        for p in reserve_picks {
                            reserved.insert(ids[p.index(ids.len())].clone());
                        }
                    }
                    let caps = caps.into_iter().map(|(m, c)| (m.to_string(), c)).collect();
                    Fleet {
                        members: members.into_iter().map(str::to_string).collect(),
                        splits: splits.into(),
                        reserved,
                        caps,
                        default_cap,
                        seed,
                        ..Fleet::default()
                    }
                })
        })
}

/// A fleet built from a shape: `owned_by` gives each split's owner (lease and progress agree).
pub fn shaped_fleet(
    members: &[&str],
    weights: &[u64],
    owned_by: impl Fn(usize) -> Option<String>,
    cap: u32,
    seed: u64,
) -> Fleet {
    let mut splits = BTreeMap::new();
    for (i, &w) in weights.iter().enumerate() {
        let id = format!("s{i:05}");
        let o = owned_by(i);
        splits.insert(
            id.clone(),
            split(
                &id,
                Some(w),
                SplitStatus::Runnable,
                false,
                o.as_deref(),
                o.as_deref(),
                1,
                0,
            ),
        );
    }
    Fleet {
        members: members.iter().map(|s| s.to_string()).collect(),
        splits: splits.into(),
        reserved: BTreeSet::new(),
        caps: BTreeMap::new(),
        default_cap: cap,
        seed,
        ..Fleet::default()
    }
}

/// A skewed fleet: every split owned by one of the first `k` members (the scale-out shape),
/// with per-member caps; these need many improving moves.
pub fn arb_skewed_fleet(max_members: usize, max_splits: usize) -> impl Strategy<Value = Fleet> {
    (2..=max_members, arb_scale()).prop_flat_map(move |(n, scale)| {
        (
            Just(n),
            1..n,
            prop::collection::vec(arb_weight(scale), 0..=max_splits),
            prop::collection::vec(prop_oneof![Just(None), (1u32..40).prop_map(Some)], n),
            0u32..40,
            any::<u64>(),
        )
            .prop_map(|(n, k, weights, caps, default_cap, seed)| {
                let names: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
                let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                let mut f = shaped_fleet(
                    &refs,
                    &weights,
                    |i| Some(format!("m{}", i * 7 % k)),
                    default_cap,
                    seed,
                );
                f.caps = names
                    .iter()
                    .zip(caps)
                    .filter_map(|(m, c)| c.map(|c| (m.clone(), c)))
                    .collect();
                f
            })
    })
}

/// A fleet decided by Spate 0.3's rules: [`arb_fleet`]'s, with each lease's epoch left, moved one
/// ahead of its record's, to it, or one behind it (so leases are current and not, by both of
/// `lease_is_current`'s conditions), and a `previous` map naming members and strangers (some for
/// splits outside the pool).
pub fn arb_fleet_0_3(max_members: usize, max_splits: usize) -> impl Strategy<Value = Fleet> {
    let names: Vec<&str> = NAMES.iter().chain(STRANGERS).copied().collect();
    (
        arb_fleet(max_members, max_splits),
        prop::collection::vec(0u8..4, max_splits + 1),
        prop::collection::vec(
            prop::option::weighted(0.6, prop::sample::select(names)),
            max_splits + 1,
        ),
    )
        .prop_map(move |(mut f, shifts, named)| {
            f.rules = spate_planner_core::Rules::V0_3;
            let mut previous = BTreeMap::new();
            for (i, (id, s)) in std::sync::Arc::make_mut(&mut f.splits).iter_mut().enumerate() {
                let e = s.progress.epoch;
                if let Some(l) = s.lease.as_mut() {
                    l.value.epoch = match shifts[i] {
                        1 => e + 1,
                        2 => e,
                        3 => e.saturating_sub(1),
                        _ => l.value.epoch,
                    };
                }
                if let Some(m) = named[i] {
                    previous.insert(id.clone(), m.to_string());
                }
            }
            if let Some(m) = named[max_splits] {
                previous.insert("not-a-split".to_string(), m.to_string());
            }
            f.previous = previous.into();
            f
        })
}
