//! From a snapshot to exactly what the production leader feeds its decision core
//! (decision-core.md section 7).
//!
//! Problems the leader would not survive are errors (a record of another schema, an id that does
//! not match its key, a bad integer). Problems it does survive become [`Warning`]s, and the model
//! gives them the leader's effect: an unreadable presence value keeps the member at the default
//! cap; a progress record without a spec is not assignable; `_probe.*` keys are ignored; records
//! of another job (another `fp`) are left out.

use crate::hash::stable_hash_str;
use crate::records::{
    parse_keyed_record, parse_record, AssignmentVal, LeaderVal, LeaseVal, PlanRecord, SplitProgressRecord,
    SplitSpecRecord, WorkerVal,
};
use crate::snapshot::{Snapshot, SnapshotError, Source};
use crate::state::{LeaseEntry, SplitState};
use crate::synth::LeaderInputs;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Spate's default `max_in_flight`, the leader's default cap when the user sets none.
pub const SPATE_DEFAULT_CAP: u32 = 8;

/// Something the leader survives, reported with where it was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// Stable code: `unreadable_presence`, `no_spec`, `spec_without_progress`,
    /// `lease_without_progress`, `foreign_fp`, `no_plan`, `unknown_key`.
    pub code: &'static str,
    pub bucket: String,
    pub key: String,
    pub message: String,
}

/// A live member, from its presence key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Member {
    /// `max_in_flight` of the presence value: `Some(n)` with n > 0 is the member's own cap;
    /// `None` (missing, 0, or unreadable) means the leader's default cap.
    pub max_in_flight: Option<u32>,
    /// Whether the presence value parsed.
    pub readable: bool,
    pub revision: u64,
    /// Time the presence key has left before it expires, in ms (negative: overdue).
    pub left_ms: i64,
}

/// Store facts about one split beyond its [`SplitState`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SplitInfo {
    /// Time the lease has left, in ms (negative: expired but not yet removed), if leased.
    pub lease_left_ms: Option<i64>,
}

/// How the seed was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SeedSource {
    /// `stable_hash_str(0, plan.fingerprint)`.
    Plan,
    /// No plan record: the `fp` most split records carry.
    SplitRecords,
    /// Nothing to find it from (0).
    None,
}

/// A job's coordination state as the leader sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fleet {
    pub job: String,
    pub source: Source,
    pub taken_at_ms: i64,
    pub state_bucket: String,
    pub lease_bucket: String,
    /// The lease TTL (the lease bucket's `max_age`).
    pub lease_ttl_ms: u64,
    pub plan: Option<PlanRecord>,
    pub seed: u64,
    pub seed_source: SeedSource,
    pub leader: Option<LeaderVal>,
    pub members: BTreeMap<String, Member>,
    pub splits: BTreeMap<String, SplitState>,
    pub info: BTreeMap<String, SplitInfo>,
    /// The leader's last published assignment, `assign.{instance}`.
    pub published: BTreeMap<String, AssignmentVal>,
    /// Spec records with no progress record (not splits the core knows yet).
    pub orphan_specs: usize,
    pub warnings: Vec<Warning>,
}

/// What the user decides beyond the store (decision-core.md section 7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderSettings {
    /// The leader's own `max_in_flight`: the cap of members without a positive one.
    pub default_cap: u32,
    /// Departed instances still inside the rebalance delay: their splits are reserved.
    pub departed: BTreeSet<String>,
}

impl Default for LeaderSettings {
    fn default() -> Self {
        LeaderSettings {
            default_cap: SPATE_DEFAULT_CAP,
            departed: BTreeSet::new(),
        }
    }
}

/// Standard base64, padding optional: the encoding of the records' opaque payloads.
const B64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

/// The store layout says these payloads are base64; a record with anything else is malformed.
fn check_base64(bucket: &str, key: &str, field: &str, value: Option<&str>) -> Result<(), SnapshotError> {
    use base64::Engine;
    match value {
        Some(v) if B64.decode(v).is_err() => Err(SnapshotError::new(
            "invalid_record",
            format!("field {field} is not base64 (the store layout's encoding of opaque payloads)"),
        )
        .at_key(bucket, key)
        .at_path(field.to_string())),
        _ => Ok(()),
    }
}

fn age_left(ttl_ms: u64, taken_at_ms: i64, created_ms: i64) -> i64 {
    (ttl_ms.min(i64::MAX as u64) as i64).saturating_sub(taken_at_ms.saturating_sub(created_ms))
}

impl Fleet {
    /// Reads a snapshot file's text into the leader's view of the job.
    pub fn load_text(text: &str) -> Result<Fleet, SnapshotError> {
        Fleet::from_snapshot(&Snapshot::parse(text)?)
    }

    /// The leader's view of a parsed snapshot.
    pub fn from_snapshot(snap: &Snapshot) -> Result<Fleet, SnapshotError> {
        let st = &snap.state.name;
        let ls = &snap.lease.name;
        let mut warnings = Vec::new();
        let warn = |w: &mut Vec<Warning>, code, bucket: &str, key: &str, message: String| {
            w.push(Warning {
                code,
                bucket: bucket.to_string(),
                key: key.to_string(),
                message,
            })
        };

        let mut plan = None;
        let mut progress: BTreeMap<String, (SplitProgressRecord, u64)> = BTreeMap::new();
        let mut specs: BTreeMap<String, SplitSpecRecord> = BTreeMap::new();
        let mut published = BTreeMap::new();
        for e in &snap.state.entries {
            let k = e.key.as_str();
            if let Some(id) = k.strip_prefix("split.") {
                let p: SplitProgressRecord = parse_keyed_record(st, k, id, &e.value)?;
                check_base64(st, k, "state", p.state.as_deref())?;
                progress.insert(id.to_string(), (p, e.revision));
            } else if let Some(id) = k.strip_prefix("spec.") {
                let sp: SplitSpecRecord = parse_keyed_record(st, k, id, &e.value)?;
                check_base64(st, k, "descriptor", Some(&sp.descriptor))?;
                specs.insert(id.to_string(), sp);
            } else if let Some(inst) = k.strip_prefix("assign.") {
                published.insert(inst.to_string(), parse_record::<AssignmentVal>(st, k, &e.value)?);
            } else if k == "plan" {
                let p: PlanRecord = parse_record(st, k, &e.value)?;
                check_base64(st, k, "planner_state", p.planner_state.as_deref())?;
                plan = Some(p);
            } else if !k.starts_with("_probe.") {
                warn(
                    &mut warnings,
                    "unknown_key",
                    st,
                    k,
                    "not a key Spate writes in the state bucket; ignored".into(),
                );
            }
        }

        let mut leader = None;
        let mut members = BTreeMap::new();
        let mut leases: BTreeMap<String, (LeaseVal, u64, i64)> = BTreeMap::new();
        let ttl = snap.lease.max_age_ms;
        for e in &snap.lease.entries {
            let k = e.key.as_str();
            let left = age_left(ttl, snap.taken_at_ms, e.created_ms);
            if let Some(id) = k.strip_prefix("split.") {
                leases.insert(
                    id.to_string(),
                    (parse_record::<LeaseVal>(ls, k, &e.value)?, e.revision, left),
                );
            } else if let Some(inst) = k.strip_prefix("worker.") {
                let member = match parse_record::<WorkerVal>(ls, k, &e.value) {
                    Ok(w) => Member {
                        max_in_flight: (w.max_in_flight > 0).then_some(w.max_in_flight),
                        readable: true,
                        revision: e.revision,
                        left_ms: left,
                    },
                    Err(err) => {
                        warn(&mut warnings, "unreadable_presence", ls, k,
                            format!("presence value unreadable ({}); the leader counts the member at the default cap", err.kind_text()));
                        Member {
                            max_in_flight: None,
                            readable: false,
                            revision: e.revision,
                            left_ms: left,
                        }
                    }
                };
                members.insert(inst.to_string(), member);
            } else if k == "leader" {
                leader = Some(parse_record::<LeaderVal>(ls, k, &e.value)?);
            } else if !k.starts_with("_probe.") {
                warn(
                    &mut warnings,
                    "unknown_key",
                    ls,
                    k,
                    "not a key Spate writes in the lease bucket; ignored".into(),
                );
            }
        }

        // The seed: the plan's fingerprint hash, else the fp most split records carry.
        let (seed, seed_source) = match &plan {
            Some(p) => (stable_hash_str(0, &p.fingerprint), SeedSource::Plan),
            None => {
                let mut count: BTreeMap<u64, usize> = BTreeMap::new();
                for (p, _) in progress.values() {
                    *count.entry(p.fp).or_default() += 1;
                }
                warn(&mut warnings, "no_plan", st, "plan",
                    "no plan record: the seed is taken from the split records' fp, and the fingerprint cannot be checked".into());
                match count
                    .into_iter()
                    .max_by_key(|&(fp, n)| (n, std::cmp::Reverse(fp)))
                {
                    Some((fp, _)) => (fp, SeedSource::SplitRecords),
                    None => (0, SeedSource::None),
                }
            }
        };

        let foreign = |fp: u64| fp != seed;
        let mut splits = BTreeMap::new();
        let mut info = BTreeMap::new();
        for (id, (p, rev)) in progress {
            let key = format!("split.{id}");
            if foreign(p.fp) {
                warn(&mut warnings, "foreign_fp", st, &key,
                    format!("fp {} is not this job's {seed}: a record of another job sharing the prefix (fatal to Spate); left out", p.fp));
                continue;
            }
            let spec = match specs.remove(&id) {
                Some(s) if foreign(s.fp) => {
                    warn(&mut warnings, "foreign_fp", st, &format!("spec.{id}"),
                        format!("fp {} is not this job's {seed}: a record of another job sharing the prefix (fatal to Spate); left out", s.fp));
                    None
                }
                other => other,
            };
            if spec.is_none() {
                warn(
                    &mut warnings,
                    "no_spec",
                    st,
                    &key,
                    "progress record without a spec: not assignable until the spec is seen".into(),
                );
            }
            let lease = leases.remove(&id).map(|(value, rev, left)| {
                info.insert(
                    id.clone(),
                    SplitInfo {
                        lease_left_ms: Some(left),
                    },
                );
                LeaseEntry { value, rev }
            });
            splits.insert(
                id,
                SplitState {
                    progress: p,
                    progress_rev: rev,
                    spec,
                    lease,
                },
            );
        }
        let orphan_specs = specs.len();
        for id in specs.keys() {
            warn(
                &mut warnings,
                "spec_without_progress",
                st,
                &format!("spec.{id}"),
                "spec without a progress record: the leader does not plan it yet".into(),
            );
        }
        for id in leases.keys() {
            warn(
                &mut warnings,
                "lease_without_progress",
                ls,
                &format!("split.{id}"),
                "lease on a split with no progress record (or one left out); ignored".into(),
            );
        }

        Ok(Fleet {
            job: snap.job.clone(),
            source: snap.source.clone(),
            taken_at_ms: snap.taken_at_ms,
            state_bucket: st.clone(),
            lease_bucket: ls.clone(),
            lease_ttl_ms: ttl,
            plan,
            seed,
            seed_source,
            leader,
            members,
            splits,
            info,
            published,
            orphan_specs,
            warnings,
        })
    }

    /// The leader's inputs for these settings (decision-core.md section 7).
    pub fn leader_inputs(&self, settings: &LeaderSettings) -> LeaderInputs {
        let reserved = self
            .splits
            .iter()
            .filter(|(_, s)| {
                s.progress
                    .owner
                    .as_ref()
                    .is_some_and(|o| settings.departed.contains(o))
            })
            .map(|(id, _)| id.clone())
            .collect();
        LeaderInputs {
            members: self.members.keys().cloned().collect(),
            splits: self.splits.clone(),
            reserved,
            caps: self
                .members
                .iter()
                .filter_map(|(m, p)| p.max_in_flight.map(|c| (m.clone(), c)))
                .collect(),
            default_cap: settings.default_cap,
            seed: self.seed,
        }
    }

    /// Instances that own splits (lease or progress) but are not members: candidates for
    /// "departed within the rebalance delay".
    pub fn departed_owners(&self) -> BTreeSet<String> {
        self.splits
            .values()
            .flat_map(|s| {
                [
                    s.progress.owner.as_deref(),
                    s.lease.as_ref().map(|l| l.value.owner.as_str()),
                ]
            })
            .flatten()
            .filter(|o| !self.members.contains_key(*o))
            .map(str::to_string)
            .collect()
    }
}
