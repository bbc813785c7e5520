//! Synthetic fleets for benchmarks and demos, generated deterministically from a seed.
//!
//! The generator is a small SplitMix64 stream (pure, seeded), so the same arguments give the
//! same fleet natively and in wasm32, and a benchmark in Node plans exactly the fleet the native
//! benchmark plans.

use crate::assign::Plan;
use crate::hash::stable_hash_str;
use crate::leader::LeaderInputs;
use crate::records::{LeaseVal, SplitProgressRecord, SplitSpecRecord, SplitStatus, SCHEMA};
use crate::rules::Rules;
use crate::state::{LeaseEntry, SplitState};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// SplitMix64: a tiny, well-known 64-bit generator. Not for anything but synthetic data.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi` (slightly biased; fine for synthetic data).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
}

/// A runnable split with a spec of weight `weight`, owned (lease and progress) by `owner`.
pub fn runnable_split(id: &str, fp: u64, weight: u64, owner: Option<&str>) -> SplitState {
    SplitState {
        progress: SplitProgressRecord {
            schema: SCHEMA,
            id: id.to_string(),
            fp,
            epoch: u64::from(owner.is_some()),
            status: SplitStatus::Runnable,
            owner: owner.map(str::to_string),
            attempts: 0,
            watermark: None,
            state: None,
            completed: false,
            written_at_ms: 0,
        },
        progress_rev: 1,
        spec: Some(SplitSpecRecord {
            schema: SCHEMA,
            id: id.to_string(),
            fp,
            generation: 1,
            weight,
            descriptor: String::new(),
        }),
        lease: owner.map(|o| LeaseEntry {
            value: LeaseVal {
                schema: SCHEMA,
                owner: o.to_string(),
                nonce: "bench".into(),
                epoch: 1,
            },
            rev: 2,
        }),
    }
}

/// The benchmark's fleet shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Nothing owned yet.
    Cold,
    /// Every split owned by the first half of the members; the other half is new.
    ScaleOut,
    /// Owned evenly by all members, then one member is gone.
    MemberLoss,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::Cold, Shape::ScaleOut, Shape::MemberLoss];
    pub fn name(self) -> &'static str {
        match self {
            Shape::Cold => "cold",
            Shape::ScaleOut => "scale-out",
            Shape::MemberLoss => "member-loss",
        }
    }
    pub fn parse(s: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// A benchmark fleet: `splits` splits of 1 MB to 200 MB on `members` members (at least 2), lane
/// cap `2 * splits / members + 8`, planned by 0.1's rules. Its `previous` (read by 0.3) is a
/// quiet fleet's: the last publish named each owned split's owner.
pub fn bench_fleet(shape: Shape, splits: usize, members: usize) -> LeaderInputs {
    let members = members.max(2);
    let fingerprint = format!("bench-{}-{splits}-{members}", shape.name());
    let seed = stable_hash_str(0, &fingerprint);
    let names: Vec<String> = (0..members).map(|i| format!("worker-{i:04}")).collect();
    let mut rng = SplitMix64::new(seed);
    let half = members / 2;
    let mut map = BTreeMap::new();
    let mut previous = Vec::new();
    for i in 0..splits {
        let id = format!("split-{i:07}");
        let w = rng.range(1_000_000, 200_000_000);
        let owner = match shape {
            Shape::Cold => None,
            Shape::ScaleOut => Some(names[i % half].as_str()),
            Shape::MemberLoss => Some(names[i % members].as_str()),
        };
        map.insert(id.clone(), runnable_split(&id, seed, w, owner));
        if let Some(o) = owner {
            previous.push((id, o.to_string()));
        }
    }
    let mut member_set: BTreeSet<String> = names.iter().cloned().collect();
    if shape == Shape::MemberLoss {
        member_set.remove(&names[members / 3]);
    }
    LeaderInputs {
        rules: Rules::V0_1,
        members: member_set,
        splits: map.into(),
        reserved: BTreeSet::new(),
        previous: Arc::new(previous.into_iter().collect()),
        caps: BTreeMap::new(),
        default_cap: (2 * splits / members + 8) as u32,
        seed,
    }
}

/// Balance of a plan: the heaviest member's load over the lightest's (`inf` when the lightest
/// holds nothing, 1 when nobody holds anything).
pub fn max_min_ratio(plan: &Plan) -> f64 {
    let max = plan.explain.loads.iter().copied().max().unwrap_or(0);
    let min = plan.explain.loads.iter().copied().min().unwrap_or(0);
    match (max, min) {
        (0, _) => 1.0,
        (_, 0) => f64::INFINITY,
        _ => max as f64 / min as f64,
    }
}
