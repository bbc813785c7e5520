//! The seed, and the join of progress records, specs and leases into splits.

use super::read::StateRecords;
use super::{SeedSource, SplitInfo, Warnings};
use crate::codes::WarningCode;
use crate::hash::stable_hash_str;
use crate::records::{LeaseVal, SplitProgressRecord, SplitSpecRecord};
use crate::state::{LeaseEntry, SplitState};
use std::collections::BTreeMap;

/// The seed: the plan's fingerprint hash, else the `fp` most split records carry (ties: the
/// smaller), else 0.
pub(super) fn seed(state: &StateRecords, bucket: &str, w: &mut Warnings) -> (u64, SeedSource) {
    if let Some(p) = &state.plan {
        return (stable_hash_str(0, &p.fingerprint), SeedSource::Plan);
    }
    w.push(
        WarningCode::NoPlan,
        bucket,
        "plan",
        "no plan record: the leader publishes nothing (the current assignments stand); the seed is taken from the split records' fp, and the fingerprint cannot be checked",
    );
    let mut count: BTreeMap<u64, usize> = BTreeMap::new();
    for (p, _) in state.progress.values() {
        *count.entry(p.fp).or_default() += 1;
    }
    match count
        .into_iter()
        .max_by_key(|&(fp, n)| (n, std::cmp::Reverse(fp)))
    {
        Some((fp, _)) => (fp, SeedSource::SplitRecords),
        None => (0, SeedSource::None),
    }
}

/// Splits joined from their records, and what could not be joined.
pub(super) struct Joined {
    pub splits: BTreeMap<String, SplitState>,
    pub info: BTreeMap<String, SplitInfo>,
    pub orphan_specs: usize,
    pub foreign: Vec<String>,
}

fn foreign_warning(w: &mut Warnings, joined: &mut Joined, bucket: &str, key: String, fp: u64, seed: u64) {
    w.push(
        WarningCode::ForeignFp,
        bucket,
        &key,
        format!("fp {fp} is not this job's {seed}: a record of another job sharing the prefix; Spate stops every worker of the job on it; left out of the plan"),
    );
    joined.foreign.push(key);
}

/// Joins each progress record with its spec and lease. Records of another job are left out.
pub(super) fn splits(
    progress: BTreeMap<String, (SplitProgressRecord, u64)>,
    mut specs: BTreeMap<String, SplitSpecRecord>,
    mut leases: BTreeMap<String, (LeaseVal, u64, i64)>,
    seed: u64,
    (st, ls): (&str, &str),
    w: &mut Warnings,
) -> Joined {
    let mut out = Joined {
        splits: BTreeMap::new(),
        info: BTreeMap::new(),
        orphan_specs: 0,
        foreign: Vec::new(),
    };
    for (id, (p, rev)) in progress {
        if p.fp != seed {
            foreign_warning(w, &mut out, st, format!("split.{id}"), p.fp, seed);
            continue;
        }
        let spec = match specs.remove(&id) {
            Some(s) if s.fp != seed => {
                foreign_warning(w, &mut out, st, format!("spec.{id}"), s.fp, seed);
                None
            }
            other => other,
        };
        if spec.is_none() {
            w.push(
                WarningCode::NoSpec,
                st,
                &format!("split.{id}"),
                "progress record without a spec: not assignable until the spec is seen",
            );
        }
        let lease = leases.remove(&id).map(|(value, rev, left)| {
            out.info.insert(
                id.clone(),
                SplitInfo {
                    lease_left_ms: Some(left),
                },
            );
            LeaseEntry { value, rev }
        });
        let state = SplitState {
            progress: p,
            progress_rev: rev,
            spec,
            lease,
        };
        out.splits.insert(id, state);
    }
    out.orphan_specs = specs.len();
    for (id, s) in &specs {
        if s.fp != seed {
            foreign_warning(w, &mut out, st, format!("spec.{id}"), s.fp, seed);
        } else {
            w.push(
                WarningCode::SpecWithoutProgress,
                st,
                &format!("spec.{id}"),
                "spec without a progress record: the leader does not plan it yet",
            );
        }
    }
    for id in leases.keys() {
        w.push(
            WarningCode::LeaseWithoutProgress,
            ls,
            &format!("split.{id}"),
            "lease on a split with no progress record (or one left out); ignored",
        );
    }
    out
}
