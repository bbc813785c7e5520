//! Reading entries into records, one entry at a time, with the leader's tolerance.
//!
//! [`Records`] holds every entry of both buckets parsed and keyed, with the warnings each one
//! raised. A whole snapshot is read once ([`Records::from_snapshot`]); a live job changes one key
//! at a time ([`Records::put`], [`Records::remove`]) without reading any other entry again.

use super::model::{Member, Warning, Warnings};
use super::version;
use crate::codes::WarningCode;
use crate::records::{
    parse_keyed_record, parse_record, AssignmentVal, LeaderVal, LeaseVal, PlanRecord, SplitProgressRecord,
    SplitSpecRecord, SplitStatus, WorkerVal,
};
use crate::snapshot::{Bucket, Entry, Snapshot, SnapshotError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

/// One parsed entry of the state bucket.
#[derive(Clone, Debug)]
pub(crate) enum StateItem {
    Plan(PlanRecord),
    Progress(SplitProgressRecord, u64),
    Spec(SplitSpecRecord),
    Assign(AssignmentVal),
    /// Read, but nothing the leader uses (an unreadable assignment, an unknown or probe key).
    Ignored,
}

/// One parsed entry of the lease bucket.
#[derive(Clone, Debug)]
pub(crate) enum LeaseItem {
    Leader(LeaderVal),
    /// A presence value (`None`: unreadable), with the entry's revision and creation time.
    Presence(Option<WorkerVal>, u64, i64),
    /// A split lease, with the entry's revision and creation time.
    Lease(LeaseVal, u64, i64),
    Ignored,
}

/// An entry's record and the warnings it raised.
#[derive(Clone, Debug)]
pub(crate) struct Parsed<T> {
    pub item: T,
    pub warnings: Vec<Warning>,
}

/// Every entry of both buckets, parsed, by key.
#[derive(Clone, Debug, Default)]
pub struct Records {
    pub(crate) state: BTreeMap<String, Parsed<StateItem>>,
    pub(crate) lease: BTreeMap<String, Parsed<LeaseItem>>,
    /// The keys whose entry raised a warning.
    warned: BTreeSet<(Side, String)>,
}

/// Which bucket an entry is in (`state` or `lease` in the live stream's changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    State,
    Lease,
}

/// Keys Spate writes that the leader never reads: the start probes (`_probe.{instance}`, and
/// 0.3.0's `_probe.{instance}.{nonce}`) and 0.3.0's `verdict` (polled stores only).
fn silently_ignored(key: &str) -> bool {
    key.starts_with("_probe.") || key == "verdict"
}

/// The 0.3.0 probe keys of one bucket, in key order.
fn probes_0_3<T>(m: &BTreeMap<String, T>) -> Vec<String> {
    m.range::<str, _>((Bound::Included("_probe."), Bound::Unbounded))
        .take_while(|(k, _)| k.starts_with("_probe."))
        .filter(|(k, _)| version::is_0_3_probe(k))
        .map(|(k, _)| k.clone())
        .collect()
}

impl Side {
    /// `state` or `lease`.
    pub fn label(self) -> &'static str {
        match self {
            Side::State => "state",
            Side::Lease => "lease",
        }
    }
}

impl Records {
    /// Parses every entry of a snapshot (whose keys are unique in each bucket: the snapshot
    /// reader refuses a repeated key), building each map at once.
    pub fn from_snapshot(snap: &Snapshot) -> Result<Records, SnapshotError> {
        let state = parse_all(&snap.state, state_entry)?;
        let lease = parse_all(&snap.lease, lease_entry)?;
        let mut warned = BTreeSet::new();
        warned.extend(warned_keys(Side::State, &state));
        warned.extend(warned_keys(Side::Lease, &lease));
        Ok(Records { state, lease, warned })
    }

    /// [`Records::from_snapshot`], but an entry that does not parse is left out and returned
    /// with its error instead of refusing the whole snapshot (a recording replayed from a state
    /// that holds a value the leader would refuse: its frames are refused until it is mended).
    pub fn from_snapshot_keeping(snap: &Snapshot) -> (Records, Vec<(Side, String, SnapshotError)>) {
        let mut out = Records {
            state: BTreeMap::new(),
            lease: BTreeMap::new(),
            warned: BTreeSet::new(),
        };
        let mut refused = Vec::new();
        for (side, bucket) in [(Side::State, &snap.state), (Side::Lease, &snap.lease)] {
            for e in &bucket.entries {
                if let Err(err) = out.put(side, &bucket.name, e) {
                    refused.push((side, e.key.clone(), err));
                }
            }
        }
        (out, refused)
    }

    /// Parses one entry and puts it in place of the key's previous record. On an error the key
    /// keeps no record (the caller decides whether the whole state is refused).
    pub fn put(&mut self, side: Side, bucket: &str, e: &Entry) -> Result<(), SnapshotError> {
        self.remove(side, &e.key);
        let warned = match side {
            Side::State => {
                let p = state_entry(bucket, e)?;
                let warned = !p.warnings.is_empty();
                self.state.insert(e.key.clone(), p);
                warned
            }
            Side::Lease => {
                let p = lease_entry(bucket, e)?;
                let warned = !p.warnings.is_empty();
                self.lease.insert(e.key.clone(), p);
                warned
            }
        };
        if warned {
            self.warned.insert((side, e.key.clone()));
        }
        Ok(())
    }

    /// Removes a key's record.
    pub fn remove(&mut self, side: Side, key: &str) {
        match side {
            Side::State => drop(self.state.remove(key)),
            Side::Lease => drop(self.lease.remove(key)),
        }
        if !self.warned.is_empty() {
            self.warned.remove(&(side, key.to_string()));
        }
    }

    /// The warnings every entry raised, state bucket first, each in key order.
    pub(crate) fn warnings(&self) -> impl Iterator<Item = &Warning> {
        self.warned.iter().flat_map(|(side, key)| {
            let w = match side {
                Side::State => self.state.get(key).map(|p| &p.warnings),
                Side::Lease => self.lease.get(key).map(|p| &p.warnings),
            };
            w.into_iter().flatten()
        })
    }

    /// The 0.3.0 probe keys (`_probe.{instance}.{32 hex}`) of both buckets, state bucket first,
    /// each in key order: a hint of a 0.3.0 worker (decision-core-0.3.md section 9).
    pub(crate) fn probes_0_3(&self) -> Vec<String> {
        let mut out = probes_0_3(&self.state);
        out.extend(probes_0_3(&self.lease));
        out
    }

    /// The record of a state bucket key.
    pub(crate) fn state_item(&self, key: &str) -> Option<&StateItem> {
        self.state.get(key).map(|p| &p.item)
    }

    /// The record of a lease bucket key.
    pub(crate) fn lease_item(&self, key: &str) -> Option<&LeaseItem> {
        self.lease.get(key).map(|p| &p.item)
    }

    /// The owner of the lease a lease bucket key holds (`split.{id}`), if it holds one.
    pub(crate) fn lease_owner(&self, key: &str) -> Option<&str> {
        match self.lease_item(key)? {
            LeaseItem::Lease(v, ..) => Some(&v.owner),
            _ => None,
        }
    }

    /// The status of the progress record a state bucket key holds (`split.{id}`), if any.
    pub(crate) fn progress_status(&self, key: &str) -> Option<SplitStatus> {
        match self.state_item(key)? {
            StateItem::Progress(p, _) => Some(p.status),
            _ => None,
        }
    }

    /// The members (presence keys), with the time each has left at `now_ms`.
    pub(crate) fn members(&self, ttl_ms: u64, now_ms: i64) -> BTreeMap<String, Member> {
        let from = (Bound::Included("worker."), Bound::Unbounded);
        self.lease
            .range::<str, _>(from)
            .take_while(|(k, _)| k.starts_with("worker."))
            .filter_map(|(k, p)| match &p.item {
                LeaseItem::Presence(v, rev, created) => {
                    let m = member(v.as_ref(), *rev, age_left(ttl_ms, now_ms, *created));
                    Some((after(k, "worker."), m))
                }
                _ => None,
            })
            .collect()
    }
}

/// Every entry of `bucket` parsed by `parse`, by key (its keys are unique). Parsed in the file's
/// order (the first entry that does not parse is the error), then put in key order by sorting
/// the keys with their places, not the records: each record is moved once, and the map is
/// built from a sequence already sorted (a run its sort only checks).
fn parse_all<T>(
    bucket: &Bucket,
    parse: impl Fn(&str, &Entry) -> Result<Parsed<T>, SnapshotError>,
) -> Result<BTreeMap<String, Parsed<T>>, SnapshotError> {
    let mut parsed = Vec::with_capacity(bucket.entries.len());
    for e in &bucket.entries {
        parsed.push(Some(parse(&bucket.name, e)?));
    }
    let mut order: Vec<(&str, usize)> = bucket
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.key.as_str(), i))
        .collect();
    // (keys are unique: their order alone sorts them)
    order.sort_unstable_by(|a, b| crate::natural::byte_cmp(a.0, b.0));
    let mut sorted = Vec::with_capacity(order.len());
    for (key, i) in order {
        if let Some(p) = parsed.get_mut(i).and_then(Option::take) {
            sorted.push((key.to_owned(), p));
        }
    }
    Ok(sorted.into_iter().collect())
}

/// The keys of `records` whose entry raised a warning.
fn warned_keys<T>(
    side: Side,
    records: &BTreeMap<String, Parsed<T>>,
) -> impl Iterator<Item = (Side, String)> + '_ {
    records
        .iter()
        .filter(|(_, p)| !p.warnings.is_empty())
        .map(move |(k, _)| (side, k.clone()))
}

/// A presence value's member, with the time its key has left.
fn member(v: Option<&WorkerVal>, revision: u64, left_ms: i64) -> Member {
    Member {
        max_in_flight: v.and_then(|v| (v.max_in_flight > 0).then_some(v.max_in_flight)),
        readable: v.is_some(),
        nonce: v.map(|v| v.nonce.clone()),
        revision,
        left_ms,
    }
}

/// Standard base64, padding optional: the encoding of the records' opaque payloads.
const B64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

/// The store layout says these payloads are base64. The leader never decodes them, so one that
/// is not is a warning (whoever decodes it later fails), not a refused snapshot.
fn check_payload(w: &mut Warnings, bucket: &str, key: &str, field: &str, value: Option<&str>) {
    use base64::Engine;
    if let Some(v) = value {
        if B64.decode(v).is_err() {
            w.push(
                WarningCode::BadPayload,
                bucket,
                key,
                format!("field {field} is not base64; the leader does not decode it, but the worker that claims this split (or the planner run that resumes) will fail"),
            );
        }
    }
}

/// One entry of the state bucket: plan, spec, progress record or published assignment.
fn state_entry(bucket: &str, e: &Entry) -> Result<Parsed<StateItem>, SnapshotError> {
    let k = e.key.as_str();
    let mut w = Warnings::default();
    let item = if let Some(id) = k.strip_prefix("split.") {
        let p: SplitProgressRecord = parse_keyed_record(bucket, k, id, &e.value)?;
        check_payload(&mut w, bucket, k, "state", p.state.as_deref());
        StateItem::Progress(p, e.revision)
    } else if let Some(id) = k.strip_prefix("spec.") {
        let sp: SplitSpecRecord = parse_keyed_record(bucket, k, id, &e.value)?;
        check_payload(&mut w, bucket, k, "descriptor", Some(&sp.descriptor));
        StateItem::Spec(sp)
    } else if k.starts_with("assign.") {
        read_assignment(&mut w, bucket, e)
    } else if k == "plan" {
        let p: PlanRecord = parse_record(bucket, k, &e.value)?;
        check_payload(&mut w, bucket, k, "planner_state", p.planner_state.as_deref());
        StateItem::Plan(p)
    } else {
        if !silently_ignored(k) {
            w.push(
                WarningCode::UnknownKey,
                bucket,
                k,
                "not a key Spate writes in the state bucket; ignored",
            );
        }
        StateItem::Ignored
    };
    Ok(Parsed { item, warnings: w.0 })
}

fn read_assignment(w: &mut Warnings, bucket: &str, e: &Entry) -> StateItem {
    match parse_record::<AssignmentVal>(bucket, &e.key, &e.value) {
        Ok(a) => StateItem::Assign(a),
        Err(err) => {
            w.push(
                WarningCode::UnreadableAssignment,
                bucket,
                &e.key,
                format!(
                    "assignment value unreadable ({}); the leader ignores it (and rewrites it at its next publish)",
                    err.kind_text()
                ),
            );
            StateItem::Ignored
        }
    }
}

/// One entry of the lease bucket: leader, presence or split lease.
fn lease_entry(bucket: &str, e: &Entry) -> Result<Parsed<LeaseItem>, SnapshotError> {
    let k = e.key.as_str();
    let mut w = Warnings::default();
    let item = if k.starts_with("split.") {
        LeaseItem::Lease(
            parse_record::<LeaseVal>(bucket, k, &e.value)?,
            e.revision,
            e.created_ms,
        )
    } else if k.starts_with("worker.") {
        let v = parse_record::<WorkerVal>(bucket, k, &e.value)
            .map_err(|err| {
                let msg = format!(
                    "presence value unreadable ({}); the leader counts the member at the default cap",
                    err.kind_text()
                );
                w.push(WarningCode::UnreadablePresence, bucket, k, msg);
            })
            .ok();
        LeaseItem::Presence(v, e.revision, e.created_ms)
    } else if k == "leader" {
        LeaseItem::Leader(parse_record::<LeaderVal>(bucket, k, &e.value)?)
    } else {
        if !silently_ignored(k) {
            w.push(
                WarningCode::UnknownKey,
                bucket,
                k,
                "not a key Spate writes in the lease bucket; ignored",
            );
        }
        LeaseItem::Ignored
    };
    Ok(Parsed { item, warnings: w.0 })
}

/// The state bucket's records, joined by kind.
pub(super) struct StateRecords {
    pub plan: Option<PlanRecord>,
    /// Progress records by split id, with their revision.
    pub progress: BTreeMap<String, (SplitProgressRecord, u64)>,
    pub specs: BTreeMap<String, SplitSpecRecord>,
    pub published: BTreeMap<String, AssignmentVal>,
}

/// The lease bucket's records, joined by kind.
pub(super) struct LeaseRecords {
    pub leader: Option<LeaderVal>,
    pub members: BTreeMap<String, Member>,
    /// Split leases by split id: value, revision, creation time.
    pub leases: BTreeMap<String, (LeaseVal, u64, i64)>,
}

fn after(key: &str, prefix: &str) -> String {
    key.strip_prefix(prefix).unwrap_or(key).to_string()
}

impl Records {
    /// The records' items, each bucket in key order: moved out (a snapshot read once) or cloned
    /// (a live job that keeps its records).
    pub(super) fn into_items(
        self,
    ) -> (
        impl Iterator<Item = (String, StateItem)>,
        impl Iterator<Item = (String, LeaseItem)>,
    ) {
        (
            self.state.into_iter().map(|(k, p)| (k, p.item)),
            self.lease.into_iter().map(|(k, p)| (k, p.item)),
        )
    }
}

/// The state records by kind. Each map is built at once from its records in key order.
pub(super) fn state_records(items: impl Iterator<Item = (String, StateItem)>) -> StateRecords {
    let mut plan = None;
    let (mut progress, mut specs, mut published) = (Vec::new(), Vec::new(), Vec::new());
    for (k, item) in items {
        match item {
            StateItem::Plan(x) => plan = Some(x),
            StateItem::Progress(x, rev) => progress.push((after(&k, "split."), (x, rev))),
            StateItem::Spec(x) => specs.push((after(&k, "spec."), x)),
            StateItem::Assign(x) => published.push((after(&k, "assign."), x)),
            StateItem::Ignored => {}
        }
    }
    StateRecords {
        plan,
        progress: progress.into_iter().collect(),
        specs: specs.into_iter().collect(),
        published: published.into_iter().collect(),
    }
}

/// Time an entry of a bucket with `max_age = ttl_ms` has left at `taken_at_ms`.
pub(super) fn age_left(ttl_ms: u64, taken_at_ms: i64, created_ms: i64) -> i64 {
    (ttl_ms.min(i64::MAX as u64) as i64).saturating_sub(taken_at_ms.saturating_sub(created_ms))
}

/// The lease records by kind, with the time each has left at `taken_at_ms`. Each map is built
/// at once from its records in key order.
pub(super) fn lease_records(
    items: impl Iterator<Item = (String, LeaseItem)>,
    ttl_ms: u64,
    taken_at_ms: i64,
) -> LeaseRecords {
    let mut leader = None;
    let (mut members, mut leases) = (Vec::new(), Vec::new());
    for (k, item) in items {
        match item {
            LeaseItem::Leader(x) => leader = Some(x),
            LeaseItem::Presence(v, rev, created) => {
                let m = member(v.as_ref(), rev, age_left(ttl_ms, taken_at_ms, created));
                members.push((after(&k, "worker."), m));
            }
            LeaseItem::Lease(x, rev, created) => leases.push((after(&k, "split."), (x, rev, created))),
            LeaseItem::Ignored => {}
        }
    }
    LeaseRecords {
        leader,
        members: members.into_iter().collect(),
        leases: leases.into_iter().collect(),
    }
}
