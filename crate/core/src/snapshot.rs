//! Snapshot files (docs/snapshot-format.md): writing them, and reading them strictly.
//!
//! A snapshot is a point-in-time copy of a job's two buckets: for each entry its key, revision,
//! creation time and value bytes, plus when the copy was taken and each bucket's configuration.
//! Values that are JSON are embedded verbatim (readable, and exact: not one byte is re-encoded);
//! others are kept as a string or as base64. This module only reads and writes the file; turning
//! it into the leader's inputs is [`crate::fleet`].

use crate::codes::ErrorCode;
use base64::Engine;
use foldhash::{HashSet, HashSetExt};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// The format tag of this version of the file.
pub const FORMAT: &str = "spate-planner-snapshot/1";

/// The largest snapshot file read, in bytes, by the dashboard and the command line alike
/// (parsing needs about 3 to 4 times this in memory).
pub const MAX_SNAPSHOT_BYTES: usize = 512 << 20;

/// Where a snapshot came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Source {
    /// `nats` (exported from a live server), `demo` (synthetic), or anything a tool sets.
    pub kind: String,
    /// The server URL, for `nats` (credentials are never written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Free text: the tool and version that wrote it, the demo's parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One entry of a bucket, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    /// The store revision (stream sequence).
    pub revision: u64,
    /// When the value was written, in ms since the Unix epoch.
    pub created_ms: i64,
    /// The value's bytes, exactly.
    pub value: Vec<u8>,
}

/// One bucket: its name, configuration and live entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub name: String,
    pub history: u64,
    /// The bucket's `max_age` in ms (0: none). For the lease bucket this is the lease TTL.
    pub max_age_ms: u64,
    /// The revision the entries are the bucket at (the cut: its stream's last sequence then);
    /// no entry's revision is above it. `None` in files written before it was recorded.
    pub revision: Option<u64>,
    pub entries: Vec<Entry>,
}

/// A whole snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub job: String,
    pub source: Source,
    /// When the copy was taken, in ms since the Unix epoch.
    pub taken_at_ms: i64,
    pub state: Bucket,
    pub lease: Bucket,
}

/// The bucket names Spate uses for `job`.
pub fn bucket_names(job: &str) -> (String, String) {
    (
        format!("spate_coordination_{job}_state"),
        format!("spate_coordination_{job}_lease"),
    )
}

/// Whether `job` is a valid Spate job name: `[A-Za-z0-9_-]{1,64}`.
pub fn valid_job_name(job: &str) -> bool {
    (1..=64).contains(&job.len())
        && job
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

// ---------------------------------------------------------------------------------------------
// Writing

#[derive(Serialize)]
struct EntryOut<'a> {
    key: &'a str,
    revision: u64,
    created_ms: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    base64: Option<String>,
}

/// Which bytes a value embedded verbatim may hold, by where the entry is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Embed {
    /// A snapshot file: any.
    Any,
    /// An event stream: no carriage return (SSE reads one as a line end).
    NoCr,
    /// One line of a line-delimited file (a recording): no carriage return and no newline.
    OneLine,
}

/// One entry as the snapshot file writes it: a one-line JSON object (`value` when the bytes
/// are exactly a JSON document, else `text` or `base64`). The live stream carries entries so.
pub fn entry_json(e: &Entry) -> String {
    entry_line(e, Embed::Any)
}

/// [`entry_json`] for an event stream, which cannot carry a carriage return (SSE reads one as a
/// line end): a JSON value holding a CR byte (as whitespace) is written as `text` instead.
pub fn stream_entry_json(e: &Entry) -> String {
    entry_line(e, Embed::NoCr)
}

/// [`entry_json`] on one line whatever the value (a recording's lines): a JSON value holding a
/// CR or a newline byte (as whitespace) is written as `text` instead, the same bytes.
pub fn line_entry_json(e: &Entry) -> String {
    entry_line(e, Embed::OneLine)
}

/// An entry line; `embed`: which bytes a value embedded verbatim may hold.
fn entry_line(e: &Entry, embed: Embed) -> String {
    let mut out = EntryOut {
        key: &e.key,
        revision: e.revision,
        created_ms: e.created_ms,
        value: None,
        text: None,
        base64: None,
    };
    let fits = |s: &str| match embed {
        Embed::Any => true,
        Embed::NoCr => !s.contains('\r'),
        Embed::OneLine => !s.contains(['\r', '\n']),
    };
    match std::str::from_utf8(&e.value) {
        Ok(s) => match serde_json::from_str::<&RawValue>(s) {
            // Embedded verbatim only when that reproduces every byte.
            Ok(raw) if raw.get() == s && !s.is_empty() && fits(s) => out.value = Some(raw),
            _ => out.text = Some(s),
        },
        Err(_) => out.base64 = Some(base64::engine::general_purpose::STANDARD.encode(&e.value)),
    }
    serde_json::to_string(&out).unwrap_or_default()
}

/// A bucket's head without its closing brace: `{"history":..,"max_age_ms":..,"name":..,"revision":..`.
fn bucket_head(b: &Bucket) -> String {
    let mut head = serde_json::json!({ "name": b.name, "history": b.history, "max_age_ms": b.max_age_ms });
    if let Some(r) = b.revision {
        head["revision"] = r.into();
    }
    let mut head = head.to_string();
    head.pop();
    head
}

fn write_bucket(out: &mut String, label: &str, b: &Bucket) {
    // `{"history":..,"max_age_ms":..,"name":..,"revision":..` then the entries, one per line.
    out.push_str(&format!("  \"{label}\": {},\n    \"entries\": [", bucket_head(b)));
    for (i, e) in b.entries.iter().enumerate() {
        out.push_str(if i == 0 { "\n      " } else { ",\n      " });
        out.push_str(&entry_json(e));
    }
    out.push_str(if b.entries.is_empty() { "]}" } else { "\n    ]}" });
}

/// A bucket on one line (its entries by [`line_entry_json`]).
fn bucket_line(out: &mut String, b: &Bucket) {
    out.push_str(&bucket_head(b));
    out.push_str(",\"entries\":[");
    for (i, e) in b.entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&line_entry_json(e));
    }
    out.push_str("]}");
}

impl Snapshot {
    /// The store's time of its newest entry in either bucket (ms since the Unix epoch): when the
    /// job last changed, as far as the snapshot shows (`None`: no entry).
    pub fn last_written_ms(&self) -> Option<i64> {
        self.state
            .entries
            .iter()
            .chain(&self.lease.entries)
            .map(|e| e.created_ms)
            .max()
    }

    /// The snapshot as file text: a readable JSON document, one entry per line.
    pub fn to_json(&self) -> String {
        let mut out =
            String::with_capacity(256 + (self.state.entries.len() + self.lease.entries.len()) * 200);
        out.push_str("{\n");
        out.push_str(&format!(
            "  \"format\": {},\n",
            serde_json::to_string(FORMAT).unwrap_or_default()
        ));
        out.push_str(&format!(
            "  \"job\": {},\n",
            serde_json::to_string(&self.job).unwrap_or_default()
        ));
        out.push_str(&format!(
            "  \"source\": {},\n",
            serde_json::to_string(&self.source).unwrap_or_default()
        ));
        out.push_str(&format!("  \"taken_at_ms\": {},\n", self.taken_at_ms));
        write_bucket(&mut out, "state", &self.state);
        out.push_str(",\n");
        write_bucket(&mut out, "lease", &self.lease);
        out.push_str("\n}\n");
        out
    }

    /// The snapshot as one line of JSON (no CR or newline byte in it; values that hold one are
    /// written as `text`, the same bytes): the same document as [`Snapshot::to_json`], which
    /// [`Snapshot::parse`] reads. A recording's full states are written so.
    pub fn to_line(&self) -> String {
        let mut out =
            String::with_capacity(256 + (self.state.entries.len() + self.lease.entries.len()) * 200);
        out.push_str(&format!(
            "{{\"format\":{},\"job\":{},\"source\":{},\"taken_at_ms\":{},\"state\":",
            serde_json::to_string(FORMAT).unwrap_or_default(),
            serde_json::to_string(&self.job).unwrap_or_default(),
            serde_json::to_string(&self.source).unwrap_or_default(),
            self.taken_at_ms
        ));
        bucket_line(&mut out, &self.state);
        out.push_str(",\"lease\":");
        bucket_line(&mut out, &self.lease);
        out.push('}');
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

/// Why a file is not a usable snapshot. `at` names the place: a JSON path, or bucket and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    /// Stable code (the record codes of [`crate::records::RecordError::code`] among them).
    pub code: ErrorCode,
    /// The bucket at fault, if any.
    pub bucket: Option<String>,
    /// The key at fault, if any.
    pub key: Option<String>,
    /// A path to the field at fault, if any (e.g. `state.entries[3].revision`).
    pub path: Option<String>,
    pub message: String,
}

impl SnapshotError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        SnapshotError {
            code,
            bucket: None,
            key: None,
            path: None,
            message: message.into(),
        }
    }
    pub(crate) fn at_key(mut self, bucket: &str, key: &str) -> Self {
        self.bucket = Some(bucket.to_string());
        self.key = Some(key.to_string());
        self
    }
    pub(crate) fn at_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.bucket, &self.key, &self.path) {
            (Some(b), Some(k), _) => write!(f, "bucket {b}, key {k:?}: {}", self.message),
            (_, _, Some(p)) => write!(f, "{p}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SnapshotError {}

impl From<crate::records::RecordError> for SnapshotError {
    fn from(e: crate::records::RecordError) -> Self {
        // The message without the bucket and key: Display puts them in front once.
        SnapshotError::new(e.code(), e.kind_text()).at_key(&e.bucket, &e.key)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileIn<'a> {
    format: String,
    job: String,
    #[serde(default)]
    source: Source,
    taken_at_ms: i64,
    #[serde(borrow)]
    state: BucketIn<'a>,
    #[serde(borrow)]
    lease: BucketIn<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BucketIn<'a> {
    name: String,
    history: u64,
    max_age_ms: u64,
    #[serde(default)]
    revision: Option<u64>,
    #[serde(borrow)]
    entries: Vec<EntryIn<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryIn<'a> {
    /// Borrowed from the file's text unless it holds an escape: made a `String` once, for the entry.
    #[serde(borrow)]
    key: Cow<'a, str>,
    revision: u64,
    created_ms: i64,
    #[serde(borrow, default)]
    value: Option<&'a RawValue>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    base64: Option<String>,
}

#[derive(Deserialize)]
struct FormatOnly {
    format: Option<serde_json::Value>,
}

/// serde_json's "at line L column C" is kept; the path is not known at that level.
fn json_error(text: &str, e: serde_json::Error) -> SnapshotError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Eof => SnapshotError::new(
            ErrorCode::Truncated,
            format!("the file ends early ({e}): it is truncated, or was cut while being written"),
        ),
        Category::Syntax | Category::Io => {
            SnapshotError::new(ErrorCode::NotJson, format!("not a JSON document: {e}"))
        }
        Category::Data => {
            // A JSON document, but not (this version of) a snapshot. Say which, if we can.
            match serde_json::from_str::<FormatOnly>(text) {
                Ok(FormatOnly {
                    format: Some(serde_json::Value::String(f)),
                }) if f != FORMAT => {
                    if f.starts_with("spate-planner-snapshot/") {
                        SnapshotError::new(
                            ErrorCode::UnsupportedFormat,
                            format!("snapshot format {f:?} is not supported; this planner reads {FORMAT:?}"),
                        )
                    } else {
                        SnapshotError::new(
                            ErrorCode::NotASnapshot,
                            format!("format {f:?} is not a snapshot ({FORMAT:?})"),
                        )
                    }
                }
                Ok(FormatOnly { format: None }) => SnapshotError::new(
                    ErrorCode::NotASnapshot,
                    format!("not a spate-planner snapshot: no \"format\" field ({FORMAT:?} expected)"),
                ),
                _ => SnapshotError::new(
                    ErrorCode::InvalidField,
                    format!("invalid snapshot: {}", crate::json::message(&e)),
                ),
            }
        }
    }
}

fn bucket_from(label: &str, b: BucketIn<'_>) -> Result<Bucket, SnapshotError> {
    let mut keys: HashSet<&str> = HashSet::with_capacity(b.entries.len());
    let mut entries = Vec::with_capacity(b.entries.len());
    for (i, e) in b.entries.iter().enumerate() {
        let path = || format!("{label}.entries[{i}]");
        if !keys.insert(&e.key) {
            return Err(SnapshotError::new(
                ErrorCode::DuplicateKey,
                format!(
                    "the key appears twice in the bucket (again at {}); a bucket holds one value per key",
                    path()
                ),
            )
            .at_key(&b.name, &e.key)
            .at_path(path()));
        }
        if let Some(cut) = b.revision.filter(|cut| e.revision > *cut) {
            return Err(SnapshotError::new(
                ErrorCode::AfterRevision,
                format!(
                    "revision {} is above the bucket's revision {cut} (at {}): the copy is the bucket at revision {cut}, so it holds nothing written later",
                    e.revision,
                    path()
                ),
            )
            .at_key(&b.name, &e.key)
            .at_path(format!("{}.revision", path())));
        }
        entries.push(entry_from(&b.name, path, e)?);
    }
    Ok(Bucket {
        name: b.name,
        history: b.history,
        max_age_ms: b.max_age_ms,
        revision: b.revision,
        entries,
    })
}

/// An entry's bytes from exactly one of `value`, `text` or `base64`. `path` names the entry in
/// errors (made only for one).
fn entry_from(bucket: &str, path: impl Fn() -> String, e: &EntryIn<'_>) -> Result<Entry, SnapshotError> {
    let at =
        |err: SnapshotError, field: &str| err.at_key(bucket, &e.key).at_path(format!("{}{field}", path()));
    let value = match (e.value, &e.text, &e.base64) {
        (Some(raw), None, None) => raw.get().as_bytes().to_vec(),
        (None, Some(t), None) => t.clone().into_bytes(),
        (None, None, Some(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64.as_bytes())
            .map_err(|err| {
                let msg = format!("the base64 value does not decode: {err}");
                at(SnapshotError::new(ErrorCode::InvalidValue, msg), ".base64")
            })?,
        _ => {
            let msg = "an entry needs exactly one of \"value\" (JSON), \"text\" or \"base64\"";
            return Err(at(SnapshotError::new(ErrorCode::InvalidValue, msg), ""));
        }
    };
    Ok(Entry {
        key: e.key.to_string(),
        revision: e.revision,
        created_ms: e.created_ms,
        value,
    })
}

/// One entry line of the snapshot format (as [`entry_json`] writes it, and the live stream
/// carries it), read strictly. `bucket` only names the source in errors.
pub fn parse_entry_json(bucket: &str, text: &str) -> Result<Entry, SnapshotError> {
    let e: EntryIn = serde_json::from_slice(text.as_bytes()).map_err(|err| {
        SnapshotError::new(ErrorCode::InvalidValue, format!("not a snapshot entry: {err}"))
            .at_path(bucket.to_string())
    })?;
    entry_from(bucket, || "entry".to_string(), &e)
}

impl Snapshot {
    /// Reads a snapshot file's text. Errors name the field, bucket or key at fault.
    pub fn parse(text: &str) -> Result<Snapshot, SnapshotError> {
        // A byte-order mark (as some editors save UTF-8) is not part of the document.
        let text = crate::json::without_bom(text);
        if text.trim().is_empty() {
            return Err(SnapshotError::new(
                ErrorCode::Empty,
                "the file is empty: not a snapshot",
            ));
        }
        // Read as bytes, as every record is (`records::parse_record`): one instance of the JSON
        // reader in the wasm module, whose hot functions the browser then optimizes once.
        let f: FileIn = serde_json::from_slice(text.as_bytes()).map_err(|e| json_error(text, e))?;
        if f.format != FORMAT {
            let code = if f.format.starts_with("spate-planner-snapshot/") {
                ErrorCode::UnsupportedFormat
            } else {
                ErrorCode::NotASnapshot
            };
            return Err(
                SnapshotError::new(code, format!("format {:?} is not {FORMAT:?}", f.format))
                    .at_path("format"),
            );
        }
        if !valid_job_name(&f.job) {
            return Err(SnapshotError::new(
                ErrorCode::InvalidJob,
                format!("job name {:?} is not [A-Za-z0-9_-]{{1,64}}", f.job),
            )
            .at_path("job"));
        }
        let (state_name, lease_name) = bucket_names(&f.job);
        for (label, want, got) in [
            ("state", &state_name, &f.state.name),
            ("lease", &lease_name, &f.lease.name),
        ] {
            if want != got {
                return Err(SnapshotError::new(
                    ErrorCode::BucketName,
                    format!("the {label} bucket of job {:?} is {want:?}, not {got:?}", f.job),
                )
                .at_path(format!("{label}.name")));
            }
        }
        Ok(Snapshot {
            job: f.job,
            source: f.source,
            taken_at_ms: f.taken_at_ms,
            state: bucket_from("state", f.state)?,
            lease: bucket_from("lease", f.lease)?,
        })
    }

    /// Reads a snapshot from bytes, which must be UTF-8.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            SnapshotError::new(
                ErrorCode::NotJson,
                format!("not a JSON document: invalid UTF-8 at byte {}", e.valid_up_to()),
            )
        })?;
        Snapshot::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn sample() -> Snapshot {
        let (s, l) = bucket_names("orders");
        Snapshot {
            job: "orders".into(),
            source: Source {
                kind: "test".into(),
                server: None,
                note: Some("unit".into()),
            },
            taken_at_ms: 1_767_000_000_000,
            state: Bucket {
                name: s,
                history: 1,
                max_age_ms: 0,
                revision: Some(u64::MAX),
                entries: vec![
                    Entry {
                        key: "a".into(),
                        revision: u64::MAX,
                        created_ms: -1,
                        value: br#"{"x":18446744073709551615}"#.to_vec(),
                    },
                    Entry {
                        key: "b".into(),
                        revision: 2,
                        created_ms: 0,
                        value: b"{ \"spaced\" : 1 } ".to_vec(),
                    },
                    Entry {
                        key: "c".into(),
                        revision: 3,
                        created_ms: 0,
                        value: vec![0xff, 0x00, 0x7b],
                    },
                    Entry {
                        key: "d".into(),
                        revision: 4,
                        created_ms: 0,
                        value: Vec::new(),
                    },
                ],
            },
            lease: Bucket {
                name: l,
                history: 1,
                max_age_ms: 30_000,
                revision: None,
                entries: vec![],
            },
        }
    }

    #[test]
    fn values_round_trip_byte_for_byte() {
        let s = sample();
        let text = s.to_json();
        assert!(text.contains(r#""value":{"x":18446744073709551615}"#), "{text}");
        assert_eq!(Snapshot::parse(&text).unwrap(), s);
    }

    #[test]
    fn structural_problems_have_codes() {
        let text = sample().to_json();
        let code = |t: &str| Snapshot::parse(t).unwrap_err().code;
        assert_eq!(code(""), "empty");
        assert_eq!(code("hello"), "not_json");
        assert_eq!(Snapshot::parse(&format!("\u{feff}{text}")).unwrap(), sample());
        assert_eq!(code(&text[..text.len() / 2]), "truncated");
        assert_eq!(code("{\"cases\":[]}"), "not_a_snapshot");
        assert_eq!(
            code(&text.replace("snapshot/1", "snapshot/2")),
            "unsupported_format"
        );
        assert_eq!(
            code(&text.replace("\"key\":\"b\"", "\"key\":\"a\"")),
            "duplicate_key"
        );
        assert_eq!(
            code(&text.replace("\"job\": \"orders\"", "\"job\": \"or ders\"")),
            "invalid_job"
        );
        assert_eq!(code(&text.replace("orders_lease", "other_lease")), "bucket_name");
        let e = Snapshot::parse(&text.replace("\"revision\":2", "\"revision\":-2")).unwrap_err();
        assert_eq!(e.code, "invalid_field");
        assert!(e.message.contains("line"), "{}", e.message);
    }
}
