//! The seed, and the join of progress records, specs and leases into splits.
//!
//! Each split id joins on its own ([`join_one`]): its progress record, spec and lease, and the
//! seed, decide its [`SplitState`], its lease's creation time and what it reports ([`Notes`]).
//! A whole join is every id's; a live job re-joins only the ids whose records changed
//! ([`Joined::set`]), and the result is the same, warnings in the same order.

use super::model::{SeedSource, SplitInfo, Warning, Warnings};
use super::read::StateRecords;
use crate::codes::WarningCode;
use crate::hash::stable_hash_str;
use crate::natural::byte_cmp;
use crate::records::{LeaseVal, SplitProgressRecord, SplitSpecRecord};
use crate::state::{LeaseEntry, SplitState};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The seed: the plan's fingerprint hash, else the `fp` most split records carry (ties: the
/// smaller), else 0.
pub(super) fn seed(state: &StateRecords, bucket: &str, w: &mut Warnings) -> (u64, SeedSource) {
    if let Some(p) = &state.plan {
        return (stable_hash_str(0, &p.fingerprint), SeedSource::Plan);
    }
    no_plan_warning(bucket, w);
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

/// The warning of a state with no plan record.
pub(super) fn no_plan_warning(bucket: &str, w: &mut Warnings) {
    w.push(
        WarningCode::NoPlan,
        bucket,
        "plan",
        "no plan record: the leader publishes nothing (the current assignments stand); the seed is taken from the split records' fp, and the fingerprint cannot be checked",
    );
}

/// What one split id reports, beyond its state. A whole join lists, in id order, every id's
/// `joined` warnings, then every id's `orphan`, then every id's `stray_lease`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Notes {
    /// Warnings of a progress record: of another job, or with no spec (or one of another job).
    joined: Vec<Warning>,
    /// The key of a record of another job found with the progress record (`split.` or `spec.`).
    foreign: Option<String>,
    /// A spec not joined (no progress record, or one of another job): its warning, and whether
    /// it is of another job.
    orphan: Option<(Warning, bool)>,
    /// A lease not joined: its warning.
    stray_lease: Option<Warning>,
}

impl Notes {
    fn is_empty(&self) -> bool {
        self.joined.is_empty()
            && self.foreign.is_none()
            && self.orphan.is_none()
            && self.stray_lease.is_none()
    }
}

/// A split id's records: progress (with its revision), spec, lease (with its revision and
/// creation time).
pub(crate) type SplitRecords = (
    Option<(SplitProgressRecord, u64)>,
    Option<SplitSpecRecord>,
    Option<(LeaseVal, u64, i64)>,
);

/// The bucket names, for the warnings: state, lease.
pub(crate) type Buckets<'a> = (&'a str, &'a str);

fn foreign_warning(bucket: &str, key: &str, fp: u64, seed: u64) -> Warning {
    Warning {
        code: WarningCode::ForeignFp,
        bucket: bucket.to_string(),
        key: key.to_string(),
        message: format!("fp {fp} is not this job's {seed}: a record of another job sharing the prefix; Spate stops every worker of the job on it; left out of the plan"),
    }
}

fn warning(code: WarningCode, bucket: &str, key: String, message: &str) -> Warning {
    Warning {
        code,
        bucket: bucket.to_string(),
        key,
        message: message.to_string(),
    }
}

/// A spec not joined to a progress record.
fn orphan(id: &str, s: &SplitSpecRecord, seed: u64, st: &str) -> (Warning, bool) {
    let key = format!("spec.{id}");
    if s.fp != seed {
        (foreign_warning(st, &key, s.fp, seed), true)
    } else {
        let message = "spec without a progress record: the leader does not plan it yet";
        (warning(WarningCode::SpecWithoutProgress, st, key, message), false)
    }
}

/// Joins one split id's records: its state (when its progress record is this job's), its
/// lease's creation time, and what it reports.
pub(crate) fn join_one(
    id: &str,
    (progress, spec, lease): SplitRecords,
    seed: u64,
    (st, ls): Buckets,
) -> (Option<SplitState>, Option<SplitInfo>, Notes) {
    let mut notes = Notes::default();
    let stray = |notes: &mut Notes| {
        let message = "lease on a split with no progress record (or one left out); ignored";
        notes.stray_lease = Some(warning(
            WarningCode::LeaseWithoutProgress,
            ls,
            format!("split.{id}"),
            message,
        ));
    };
    let (p, rev) = match progress {
        Some((p, rev)) if p.fp == seed => (p, rev),
        other => {
            if let Some((p, _)) = other {
                let key = format!("split.{id}");
                notes.joined.push(foreign_warning(st, &key, p.fp, seed));
                notes.foreign = Some(key);
            }
            notes.orphan = spec.map(|s| orphan(id, &s, seed, st));
            if lease.is_some() {
                stray(&mut notes);
            }
            return (None, None, notes);
        }
    };
    let spec = match spec {
        Some(s) if s.fp != seed => {
            let key = format!("spec.{id}");
            notes.joined.push(foreign_warning(st, &key, s.fp, seed));
            notes.foreign = Some(key);
            None
        }
        other => other,
    };
    if spec.is_none() {
        let message = "progress record without a spec: not assignable until the spec is seen";
        notes
            .joined
            .push(warning(WarningCode::NoSpec, st, format!("split.{id}"), message));
    }
    let info = lease.as_ref().map(|&(_, _, created)| SplitInfo {
        lease_created_ms: created,
    });
    let state = SplitState {
        progress: p,
        progress_rev: rev,
        spec,
        lease: lease.map(|(value, rev, _)| LeaseEntry { value, rev }),
    };
    (Some(state), info, notes)
}

/// Splits joined from their records, and what could not be joined.
#[derive(Clone, Debug, Default)]
pub(crate) struct Joined {
    pub splits: Arc<BTreeMap<String, SplitState>>,
    pub info: Arc<BTreeMap<String, SplitInfo>>,
    /// Only the ids that report something.
    notes: BTreeMap<String, Notes>,
}

/// Puts `value` at `id` in `map`, or removes it.
pub(crate) fn set_entry<T>(map: &mut BTreeMap<String, T>, id: &str, value: Option<T>) {
    match value {
        Some(v) => drop(map.insert(id.to_string(), v)),
        None => drop(map.remove(id)),
    }
}

impl Joined {
    /// Puts one id's join in place of its previous one.
    pub(super) fn set(
        &mut self,
        id: &str,
        (state, info, notes): (Option<SplitState>, Option<SplitInfo>, Notes),
    ) {
        set_entry(Arc::make_mut(&mut self.splits), id, state);
        set_entry(Arc::make_mut(&mut self.info), id, info);
        set_entry(&mut self.notes, id, (!notes.is_empty()).then_some(notes));
    }

    /// The join's warnings, in the order a whole join finds them.
    pub(super) fn warnings(&self) -> impl Iterator<Item = &Warning> {
        let n = || self.notes.values();
        let joined = n().flat_map(|x| x.joined.iter());
        joined
            .chain(n().filter_map(|x| x.orphan.as_ref().map(|(w, _)| w)))
            .chain(n().filter_map(|x| x.stray_lease.as_ref()))
    }

    /// Keys of records of another job: those found with a progress record, then the specs.
    pub(super) fn foreign(&self) -> Vec<String> {
        let n = || self.notes.iter();
        let with_progress = n().filter_map(|(_, x)| x.foreign.clone());
        let specs = n().filter(|(_, x)| x.orphan.as_ref().is_some_and(|o| o.1));
        with_progress
            .chain(specs.map(|(id, _)| format!("spec.{id}")))
            .collect()
    }

    /// Specs with no progress record joined.
    pub(super) fn orphan_specs(&self) -> usize {
        self.notes.values().filter(|x| x.orphan.is_some()).count()
    }
}

/// Joins each progress record with its spec and lease. Records of another job are left out.
pub(super) fn splits(
    progress: BTreeMap<String, (SplitProgressRecord, u64)>,
    specs: BTreeMap<String, SplitSpecRecord>,
    leases: BTreeMap<String, (LeaseVal, u64, i64)>,
    seed: u64,
    buckets: Buckets,
) -> Joined {
    let (mut splits, mut info, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    for (id, records) in by_id(progress, specs, leases) {
        let (state, i, n) = join_one(&id, records, seed, buckets);
        if let Some(i) = i {
            info.push((id.clone(), i));
        }
        if !n.is_empty() {
            notes.push((id.clone(), n));
        }
        if let Some(s) = state {
            splits.push((id, s));
        }
    }
    // Ids come in ascending order: each map is built at once.
    Joined {
        splits: Arc::new(splits.into_iter().collect()),
        info: Arc::new(info.into_iter().collect()),
        notes: notes.into_iter().collect(),
    }
}

/// Each split id of the three maps once, in ascending order, with its records (a merge of the
/// three ordered maps).
fn by_id(
    progress: BTreeMap<String, (SplitProgressRecord, u64)>,
    specs: BTreeMap<String, SplitSpecRecord>,
    leases: BTreeMap<String, (LeaseVal, u64, i64)>,
) -> impl Iterator<Item = (String, SplitRecords)> {
    let mut p = progress.into_iter().peekable();
    let mut s = specs.into_iter().peekable();
    let mut l = leases.into_iter().peekable();
    std::iter::from_fn(move || {
        let keys = [
            p.peek().map(|e| &e.0),
            s.peek().map(|e| &e.0),
            l.peek().map(|e| &e.0),
        ];
        let id = keys.into_iter().flatten().min_by(|a, b| byte_cmp(a, b))?.clone();
        let at = |key: &str| byte_cmp(key, &id).is_eq();
        let records = (
            p.next_if(|e| at(&e.0)).map(|e| e.1),
            s.next_if(|e| at(&e.0)).map(|e| e.1),
            l.next_if(|e| at(&e.0)).map(|e| e.1),
        );
        Some((id, records))
    })
}
