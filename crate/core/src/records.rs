//! The store's records (store-layout.md), schema 3, parsed strictly.
//!
//! Every value in the two buckets is compact JSON. Parsing is strict, as in production: unknown
//! fields are an error. The schema number is checked where Spate checks it — plan, spec and
//! progress records ([`Record::CHECKS_SCHEMA`]); presence, lease, leader and assignment values of
//! another schema are read as Spate reads them (decision-core.md section 7). Integers are parsed
//! exactly (u64 up to 18446744073709551615; negative, fractional or too-large values are
//! errors). Opaque payloads (`descriptor`, `state`, `planner_state`) are kept as the strings the
//! store holds; the decision core never reads them.

use crate::codes::ErrorCode;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The record schema this planner understands (Spate coordination 0.1.x).
pub const SCHEMA: u32 = 3;

/// `status` of a split's progress record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SplitStatus {
    Runnable,
    Completed,
    Quarantined,
}

/// `split.{id}` in the state bucket: the durable, mutable progress of one split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitProgressRecord {
    pub schema: u32,
    pub id: String,
    pub fp: u64,
    /// 0 = never owned.
    pub epoch: u64,
    pub status: SplitStatus,
    pub owner: Option<String>,
    pub attempts: u32,
    pub watermark: Option<i64>,
    pub state: Option<String>,
    pub completed: bool,
    pub written_at_ms: i64,
}

/// `spec.{id}` in the state bucket: the immutable description of one split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSpecRecord {
    pub schema: u32,
    pub id: String,
    pub fp: u64,
    pub generation: u64,
    pub weight: u64,
    pub descriptor: String,
}

/// `split.{id}` in the lease bucket: the live lease on a split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseVal {
    pub schema: u32,
    pub owner: String,
    pub nonce: String,
    pub epoch: u64,
}

/// `finality` of the plan record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Finality {
    Open,
    Final,
}

/// `plan` in the state bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanRecord {
    pub schema: u32,
    pub fingerprint: String,
    pub generation: u64,
    pub finality: Finality,
    pub planned: u64,
    pub planner_state: Option<String>,
    pub updated_at_ms: i64,
    /// Spate 0.3.0: the instance and nonce of the worker that won the last election
    /// (decision-core-0.3.md section 7). Absent in 0.1.x/0.2.x stores; left out when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elector: Option<Elector>,
}

/// `plan.elector` (Spate 0.3.0): who won the last election. Both fields required, nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Elector {
    pub owner: String,
    pub nonce: String,
}

/// `assign.{instance}` in the state bucket: the leader's last published instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignmentVal {
    pub schema: u32,
    pub generation: u64,
    pub splits: Vec<String>,
}

/// `leader` in the lease bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderVal {
    pub schema: u32,
    pub owner: String,
    pub nonce: String,
    pub generation: u64,
}

/// `worker.{instance}` in the lease bucket: a member's presence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerVal {
    pub schema: u32,
    pub nonce: String,
    /// Missing in older values: read as 0 (then the leader uses its default cap).
    #[serde(default)]
    pub max_in_flight: u32,
}

/// A record type of the store: knows its schema field and what to call itself in errors.
pub trait Record: for<'de> Deserialize<'de> {
    const NAME: &'static str;
    /// Whether Spate refuses a value of this record with another `schema` number.
    const CHECKS_SCHEMA: bool;
    fn schema(&self) -> u32;
}

macro_rules! record {
    ($t:ty, $name:literal, $checks:literal) => {
        impl Record for $t {
            const NAME: &'static str = $name;
            const CHECKS_SCHEMA: bool = $checks;
            fn schema(&self) -> u32 {
                self.schema
            }
        }
    };
}
record!(SplitProgressRecord, "SplitProgressRecord", true);
record!(SplitSpecRecord, "SplitSpecRecord", true);
record!(PlanRecord, "PlanRecord", true);
record!(LeaseVal, "LeaseVal", false);
record!(AssignmentVal, "AssignmentVal", false);
record!(LeaderVal, "LeaderVal", false);
record!(WorkerVal, "WorkerVal", false);

/// Why a record value was refused. Always names the bucket and key it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub bucket: String,
    pub key: String,
    pub kind: RecordErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordErrorKind {
    /// Not valid JSON for this record (syntax, a missing or unknown field, a bad integer, ...).
    Invalid { record: &'static str, detail: String },
    /// A well-formed record of a schema other than [`SCHEMA`].
    Schema { record: &'static str, found: u64 },
    /// The record's `id` is not the id in its key.
    IdMismatch { record: &'static str, id: String },
}

impl RecordError {
    /// A stable machine-readable code for this kind of error.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            RecordErrorKind::Invalid { .. } => ErrorCode::InvalidRecord,
            RecordErrorKind::Schema { .. } => ErrorCode::WrongSchema,
            RecordErrorKind::IdMismatch { .. } => ErrorCode::IdMismatch,
        }
    }
}

impl RecordError {
    /// What is wrong, without the bucket and key.
    pub fn kind_text(&self) -> String {
        match &self.kind {
            RecordErrorKind::Invalid { record, detail } => format!("not a valid {record}: {detail}"),
            RecordErrorKind::Schema { record, found } => {
                format!("{record} has schema {found}, this planner reads schema {SCHEMA}")
            }
            RecordErrorKind::IdMismatch { record, id } => {
                format!("{record} has id {id:?}, which does not match its key")
            }
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bucket {}, key {:?}: {}",
            self.bucket,
            self.key,
            self.kind_text()
        )
    }
}

impl std::error::Error for RecordError {}

#[derive(Deserialize)]
struct SchemaOnly {
    schema: u64,
}

/// Parses one record value strictly. `bucket` and `key` only name the source in errors.
///
/// For records whose schema Spate checks, a value whose `schema` is not [`SCHEMA`] is reported
/// as a schema error even when its fields also differ, since that is the real cause.
pub fn parse_record<T: Record>(bucket: &str, key: &str, bytes: &[u8]) -> Result<T, RecordError> {
    let err = |kind| RecordError {
        bucket: bucket.to_string(),
        key: key.to_string(),
        kind,
    };
    match serde_json::from_slice::<T>(bytes) {
        Ok(rec) if rec.schema() == SCHEMA || !T::CHECKS_SCHEMA => Ok(rec),
        Ok(rec) => Err(err(RecordErrorKind::Schema {
            record: T::NAME,
            found: rec.schema() as u64,
        })),
        Err(e) => match serde_json::from_slice::<SchemaOnly>(bytes) {
            Ok(s) if T::CHECKS_SCHEMA && s.schema != SCHEMA as u64 => Err(err(RecordErrorKind::Schema {
                record: T::NAME,
                found: s.schema,
            })),
            _ => Err(err(RecordErrorKind::Invalid {
                record: T::NAME,
                detail: match failing_field::<T>(bytes) {
                    Some(field) => format!("field {field}: {}", crate::json::message(&e)),
                    None => crate::json::message(&e),
                },
            })),
        },
    }
}

/// The field (a path: `owner.nonce`, `members[2]`) where reading `bytes` as `T` fails, when the
/// failure is inside the record rather than in its shape as a whole.
fn failing_field<T: Record>(bytes: &[u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let e = serde_path_to_error::deserialize::<_, T>(&mut de).err()?;
    let path = e.path().to_string();
    (path != ".").then_some(path)
}

/// Parses a record that carries its own id (`split.{id}`, `spec.{id}`) and checks it against
/// the id in the key.
pub fn parse_keyed_record<T: Record + HasId>(
    bucket: &str,
    key: &str,
    key_id: &str,
    bytes: &[u8],
) -> Result<T, RecordError> {
    let rec: T = parse_record(bucket, key, bytes)?;
    if rec.id() != key_id {
        return Err(RecordError {
            bucket: bucket.to_string(),
            key: key.to_string(),
            kind: RecordErrorKind::IdMismatch {
                record: T::NAME,
                id: rec.id().to_string(),
            },
        });
    }
    Ok(rec)
}

/// Records that repeat their key's id.
pub trait HasId {
    fn id(&self) -> &str;
}
impl HasId for SplitProgressRecord {
    fn id(&self) -> &str {
        &self.id
    }
}
impl HasId for SplitSpecRecord {
    fn id(&self) -> &str {
        &self.id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const PROGRESS: &str = r#"{"schema":3,"id":"s1","fp":18446744073709551615,"epoch":2,"status":"runnable","owner":"w1","attempts":1,"watermark":null,"state":null,"completed":false,"written_at_ms":1767697204891}"#;

    #[test]
    fn u64_fields_parse_exactly() {
        let p: SplitProgressRecord = parse_keyed_record("st", "split.s1", "s1", PROGRESS.as_bytes()).unwrap();
        assert_eq!(p.fp, u64::MAX);
        assert_eq!(p.status, SplitStatus::Runnable);
    }

    #[test]
    fn unknown_field_is_an_error_naming_the_key() {
        let v = PROGRESS.replace("\"completed\"", "\"extra\":1,\"completed\"");
        let e = parse_record::<SplitProgressRecord>("st", "split.s1", v.as_bytes()).unwrap_err();
        assert_eq!(e.code(), "invalid_record");
        let msg = e.to_string();
        assert!(msg.contains("split.s1") && msg.contains("extra"), "{msg}");
    }

    #[test]
    fn other_schema_is_reported_as_schema_even_with_other_fields() {
        let v = PROGRESS
            .replace("\"schema\":3", "\"schema\":4")
            .replace("\"attempts\":1,", "\"tries\":1,");
        let e = parse_record::<SplitProgressRecord>("st", "split.s1", v.as_bytes()).unwrap_err();
        assert_eq!(
            e.kind,
            RecordErrorKind::Schema {
                record: "SplitProgressRecord",
                found: 4
            }
        );
    }

    #[test]
    fn id_must_match_key() {
        let e = parse_keyed_record::<SplitProgressRecord>("st", "split.s2", "s2", PROGRESS.as_bytes())
            .unwrap_err();
        assert_eq!(e.code(), "id_mismatch");
    }

    #[test]
    fn out_of_range_negative_and_fractional_integers_are_errors() {
        for bad in ["18446744073709551616", "-1", "1.5", "1e3"] {
            let v = PROGRESS.replace("\"epoch\":2", &format!("\"epoch\":{bad}"));
            let e = parse_record::<SplitProgressRecord>("st", "split.s1", v.as_bytes()).unwrap_err();
            assert_eq!(e.code(), "invalid_record", "{bad}");
        }
    }

    #[test]
    fn presence_of_another_schema_is_read_as_spate_reads_it() {
        let w: WorkerVal =
            parse_record("ls", "worker.a", br#"{"schema":2,"nonce":"n","max_in_flight":4}"#).unwrap();
        assert_eq!((w.schema, w.max_in_flight), (2, 4));
        let e =
            parse_record::<WorkerVal>("ls", "worker.a", br#"{"schema":2,"nonce":"n","x":1}"#).unwrap_err();
        assert_eq!(
            e.code(),
            ErrorCode::InvalidRecord,
            "unknown fields are still refused"
        );
        let a: AssignmentVal =
            parse_record("st", "assign.a", br#"{"schema":9,"generation":1,"splits":[]}"#).unwrap();
        assert_eq!(a.schema, 9);
    }

    #[test]
    fn worker_without_max_in_flight_reads_zero() {
        let w: WorkerVal = parse_record("ls", "worker.a", br#"{"schema":3,"nonce":"n"}"#).unwrap();
        assert_eq!(w.max_in_flight, 0);
    }
}
