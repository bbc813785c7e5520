//! One change to a job's buckets and its JSON form, the live stream's `change` event data
//! (docs/live-protocol.md): written by the server and read by the page's worker and `watch`
//! through the same serde struct, [`Wire`].

use crate::codes::ErrorCode;
use crate::fleet::Side;
use crate::snapshot::{line_entry_json, parse_entry_json, stream_entry_json, Entry, SnapshotError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// Where a copy of a job stands: each bucket's revision (the highest stream sequence applied).
/// Written `S-L`, as the stream's event ids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Revisions {
    pub state: u64,
    pub lease: u64,
}

impl fmt::Display for Revisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.state, self.lease)
    }
}

impl std::str::FromStr for Revisions {
    type Err = ();
    fn from_str(s: &str) -> Result<Revisions, ()> {
        let (a, b) = s.trim().split_once('-').ok_or(())?;
        Ok(Revisions {
            state: a.parse().map_err(|_| ())?,
            lease: b.parse().map_err(|_| ())?,
        })
    }
}

/// What happened to one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveOp {
    /// A value was written.
    Put(Entry),
    /// A delete marker (`purge`: a purge marker, which is also how NATS reports a `max_age`
    /// expiry on a bucket with limit markers).
    Delete {
        key: String,
        revision: u64,
        created_ms: i64,
        purge: bool,
    },
    /// The entry at `revision` outlived the bucket's `max_age`: dropped by the server.
    Expire { key: String, revision: u64 },
}

/// A change to one of a job's two buckets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveChange {
    pub side: Side,
    pub op: LiveOp,
}

/// The `op` field.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum OpName {
    Put,
    Delete,
    Purge,
    Expire,
}

/// A change as JSON: `{"bucket","op","entry"}` for a put (`entry`: a snapshot entry line),
/// `{"bucket","op","key","revision","created_ms"}` for a marker, and without `created_ms` for
/// an expiry.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire<'a> {
    bucket: Side,
    op: OpName,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    entry: Option<&'a RawValue>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    key: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    revision: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created_ms: Option<i64>,
}

fn invalid(message: String) -> SnapshotError {
    SnapshotError::new(ErrorCode::InvalidValue, message)
}

impl LiveChange {
    /// The key changed.
    pub fn key(&self) -> &str {
        match &self.op {
            LiveOp::Put(e) => &e.key,
            LiveOp::Delete { key, .. } | LiveOp::Expire { key, .. } => key,
        }
    }

    /// The revision the change is at (an expiry: the revision of the entry it drops).
    pub fn revision(&self) -> u64 {
        match &self.op {
            LiveOp::Put(e) => e.revision,
            LiveOp::Delete { revision, .. } | LiveOp::Expire { revision, .. } => *revision,
        }
    }

    /// The change as the `change` event's data. A value holding a carriage return is written
    /// as `text` (the stream cannot carry a CR).
    pub fn to_json(&self) -> String {
        self.written(stream_entry_json)
    }

    /// The change on one line (a recording's): a value holding a carriage return or a newline
    /// is written as `text`, the same bytes. [`LiveChange::parse`] reads it.
    pub fn to_line(&self) -> String {
        self.written(line_entry_json)
    }

    /// The change's JSON, its entry (a put's) written by `entry_json`.
    fn written(&self, entry_json: fn(&Entry) -> String) -> String {
        let line = match &self.op {
            LiveOp::Put(e) => Some(entry_json(e)),
            _ => None,
        };
        let entry = line
            .as_deref()
            .and_then(|l| serde_json::from_str::<&RawValue>(l).ok());
        let (op, key, revision, created_ms) = match &self.op {
            LiveOp::Put(_) => (OpName::Put, None, None, None),
            LiveOp::Delete {
                key,
                revision,
                created_ms,
                purge,
            } => {
                let op = if *purge { OpName::Purge } else { OpName::Delete };
                (op, Some(key), Some(*revision), Some(*created_ms))
            }
            LiveOp::Expire { key, revision } => (OpName::Expire, Some(key), Some(*revision), None),
        };
        let wire = Wire {
            bucket: self.side,
            op,
            entry,
            key: key.map(|k| Cow::Borrowed(k.as_str())),
            revision,
            created_ms,
        };
        serde_json::to_string(&wire).unwrap_or_default()
    }

    /// Reads a `change` event's data. `bucket_name(side)` names the bucket in errors.
    pub fn parse(data: &str, bucket_name: impl Fn(Side) -> String) -> Result<LiveChange, SnapshotError> {
        let w: Wire = serde_json::from_str(data).map_err(|e| invalid(format!("not a change event: {e}")))?;
        let side = w.bucket;
        let op = match (w.op, w.entry, w.key, w.revision) {
            (OpName::Put, Some(raw), _, _) => LiveOp::Put(parse_entry_json(&bucket_name(side), raw.get())?),
            (op @ (OpName::Delete | OpName::Purge), _, Some(key), Some(revision)) => LiveOp::Delete {
                key: key.into_owned(),
                revision,
                created_ms: w.created_ms.unwrap_or(0),
                purge: matches!(op, OpName::Purge),
            },
            (OpName::Expire, _, Some(key), Some(revision)) => LiveOp::Expire {
                key: key.into_owned(),
                revision,
            },
            (op, ..) => {
                let name = serde_json::to_string(&op).unwrap_or_default();
                return Err(invalid(format!("change {name} without the fields it needs")));
            }
        };
        Ok(LiveChange { side, op })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn entry(v: &[u8]) -> Entry {
        Entry {
            key: "k\"1".into(),
            revision: 7,
            created_ms: 1_767_000_000_000,
            value: v.to_vec(),
        }
    }

    fn name(side: Side) -> String {
        side.label().to_string()
    }

    #[test]
    fn changes_are_written_as_the_protocol_says_and_read_back() {
        let put = LiveChange {
            side: Side::State,
            op: LiveOp::Put(entry(b"{\"a\": 1}")),
        };
        let cr = LiveChange {
            side: Side::State,
            op: LiveOp::Put(entry(b"{\"a\":\r\n1}")),
        };
        let purge = LiveChange {
            side: Side::Lease,
            op: LiveOp::Delete {
                key: "worker.a".into(),
                revision: 9,
                created_ms: 5,
                purge: true,
            },
        };
        let expire = LiveChange {
            side: Side::Lease,
            op: LiveOp::Expire {
                key: "split.s".into(),
                revision: 3,
            },
        };
        let want = [
            r#"{"bucket":"state","op":"put","entry":{"key":"k\"1","revision":7,"created_ms":1767000000000,"value":{"a": 1}}}"#,
            r#"{"bucket":"state","op":"put","entry":{"key":"k\"1","revision":7,"created_ms":1767000000000,"text":"{\"a\":\r\n1}"}}"#,
            r#"{"bucket":"lease","op":"purge","key":"worker.a","revision":9,"created_ms":5}"#,
            r#"{"bucket":"lease","op":"expire","key":"split.s","revision":3}"#,
        ];
        for (c, want) in [put, cr, purge, expire].iter().zip(want) {
            assert_eq!(c.to_json(), want);
            assert_eq!(&LiveChange::parse(want, name).unwrap(), c, "{want}");
        }
    }

    #[test]
    fn entry_lines_follow_the_snapshot_format() {
        use crate::snapshot::entry_json;
        assert_eq!(
            entry_json(&entry(b"{\"a\": 1}")),
            r#"{"key":"k\"1","revision":7,"created_ms":1767000000000,"value":{"a": 1}}"#
        );
        assert_eq!(
            entry_json(&entry(b"opaque")),
            r#"{"key":"k\"1","revision":7,"created_ms":1767000000000,"text":"opaque"}"#
        );
        assert_eq!(
            entry_json(&entry(b"\x00\xff")),
            r#"{"key":"k\"1","revision":7,"created_ms":1767000000000,"base64":"AP8="}"#
        );
        assert_eq!(
            stream_entry_json(&entry(b"\x00\xff")),
            entry_json(&entry(b"\x00\xff")),
            "only a CR changes the stream's line"
        );
    }

    #[test]
    fn a_change_without_its_fields_or_of_another_bucket_is_refused() {
        for bad in [
            r#"{"bucket":"x","op":"put"}"#,
            r#"{"bucket":"state","op":"delete"}"#,
            r#"{"bucket":"state","op":"put","key":"k","revision":1}"#,
            r#"{"bucket":"state","op":"delete","key":"k","revision":1,"extra":1}"#,
            "nope",
        ] {
            let e = LiveChange::parse(bad, name).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidValue, "{bad}");
        }
        let e = LiveChange::parse(r#"{"bucket":"lease","op":"put","entry":{"key":"k"}}"#, name).unwrap_err();
        assert_eq!(
            e.path.as_deref(),
            Some("lease"),
            "the entry's errors name the bucket"
        );
    }

    #[test]
    fn revisions_parse() {
        assert_eq!(
            "12-40".parse::<Revisions>(),
            Ok(Revisions { state: 12, lease: 40 })
        );
        assert!("12".parse::<Revisions>().is_err());
        assert!("a-b".parse::<Revisions>().is_err());
        assert_eq!(Revisions { state: 1, lease: 2 }.to_string(), "1-2");
    }
}
