//! Reading each bucket's entries into records, with the leader's tolerance.

use super::{Member, Warnings};
use crate::codes::WarningCode;
use crate::records::{
    parse_keyed_record, parse_record, AssignmentVal, LeaderVal, LeaseVal, PlanRecord, SplitProgressRecord,
    SplitSpecRecord, WorkerVal,
};
use crate::snapshot::{Bucket, Entry, SnapshotError};
use std::collections::BTreeMap;

/// The state bucket's records.
pub(super) struct StateRecords {
    pub plan: Option<PlanRecord>,
    /// Progress records by split id, with their revision.
    pub progress: BTreeMap<String, (SplitProgressRecord, u64)>,
    pub specs: BTreeMap<String, SplitSpecRecord>,
    pub published: BTreeMap<String, AssignmentVal>,
}

/// The lease bucket's records.
pub(super) struct LeaseRecords {
    pub leader: Option<LeaderVal>,
    pub members: BTreeMap<String, Member>,
    /// Split leases by split id: value, revision, time left in ms.
    pub leases: BTreeMap<String, (LeaseVal, u64, i64)>,
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

/// Reads the state bucket: plan, specs, progress records, published assignments.
pub(super) fn state_bucket(b: &Bucket, w: &mut Warnings) -> Result<StateRecords, SnapshotError> {
    let st = b.name.as_str();
    let mut out = StateRecords {
        plan: None,
        progress: BTreeMap::new(),
        specs: BTreeMap::new(),
        published: BTreeMap::new(),
    };
    for e in &b.entries {
        let k = e.key.as_str();
        if let Some(id) = k.strip_prefix("split.") {
            let p: SplitProgressRecord = parse_keyed_record(st, k, id, &e.value)?;
            check_payload(w, st, k, "state", p.state.as_deref());
            out.progress.insert(id.to_string(), (p, e.revision));
        } else if let Some(id) = k.strip_prefix("spec.") {
            let sp: SplitSpecRecord = parse_keyed_record(st, k, id, &e.value)?;
            check_payload(w, st, k, "descriptor", Some(&sp.descriptor));
            out.specs.insert(id.to_string(), sp);
        } else if let Some(inst) = k.strip_prefix("assign.") {
            read_assignment(&mut out.published, w, st, inst, e);
        } else if k == "plan" {
            let p: PlanRecord = parse_record(st, k, &e.value)?;
            check_payload(w, st, k, "planner_state", p.planner_state.as_deref());
            out.plan = Some(p);
        } else if !k.starts_with("_probe.") {
            w.push(
                WarningCode::UnknownKey,
                st,
                k,
                "not a key Spate writes in the state bucket; ignored",
            );
        }
    }
    Ok(out)
}

fn read_assignment(
    published: &mut BTreeMap<String, AssignmentVal>,
    w: &mut Warnings,
    bucket: &str,
    instance: &str,
    e: &Entry,
) {
    match parse_record::<AssignmentVal>(bucket, &e.key, &e.value) {
        Ok(a) => {
            published.insert(instance.to_string(), a);
        }
        Err(err) => w.push(
            WarningCode::UnreadableAssignment,
            bucket,
            &e.key,
            format!(
                "assignment value unreadable ({}); the leader ignores it (and rewrites it at its next publish)",
                err.kind_text()
            ),
        ),
    }
}

/// Time an entry of a bucket with `max_age = ttl_ms` has left at `taken_at_ms`.
fn age_left(ttl_ms: u64, taken_at_ms: i64, created_ms: i64) -> i64 {
    (ttl_ms.min(i64::MAX as u64) as i64).saturating_sub(taken_at_ms.saturating_sub(created_ms))
}

/// Reads the lease bucket: the leader record, presence (members) and split leases.
pub(super) fn lease_bucket(
    b: &Bucket,
    taken_at_ms: i64,
    w: &mut Warnings,
) -> Result<LeaseRecords, SnapshotError> {
    let ls = b.name.as_str();
    let mut out = LeaseRecords {
        leader: None,
        members: BTreeMap::new(),
        leases: BTreeMap::new(),
    };
    for e in &b.entries {
        let k = e.key.as_str();
        let left = age_left(b.max_age_ms, taken_at_ms, e.created_ms);
        if let Some(id) = k.strip_prefix("split.") {
            let lease = parse_record::<LeaseVal>(ls, k, &e.value)?;
            out.leases.insert(id.to_string(), (lease, e.revision, left));
        } else if let Some(inst) = k.strip_prefix("worker.") {
            out.members.insert(inst.to_string(), presence(w, ls, e, left));
        } else if k == "leader" {
            out.leader = Some(parse_record::<LeaderVal>(ls, k, &e.value)?);
        } else if !k.starts_with("_probe.") {
            w.push(
                WarningCode::UnknownKey,
                ls,
                k,
                "not a key Spate writes in the lease bucket; ignored",
            );
        }
    }
    Ok(out)
}

/// A presence value as the leader reads it: unreadable means the default cap.
fn presence(w: &mut Warnings, bucket: &str, e: &Entry, left_ms: i64) -> Member {
    match parse_record::<WorkerVal>(bucket, &e.key, &e.value) {
        Ok(v) => Member {
            max_in_flight: (v.max_in_flight > 0).then_some(v.max_in_flight),
            readable: true,
            nonce: Some(v.nonce),
            revision: e.revision,
            left_ms,
        },
        Err(err) => {
            w.push(
                WarningCode::UnreadablePresence,
                bucket,
                &e.key,
                format!(
                    "presence value unreadable ({}); the leader counts the member at the default cap",
                    err.kind_text()
                ),
            );
            Member {
                max_in_flight: None,
                readable: false,
                nonce: None,
                revision: e.revision,
                left_ms,
            }
        }
    }
}
