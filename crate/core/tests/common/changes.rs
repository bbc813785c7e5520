//! The live stream's `change` events as docs/live-protocol.md writes them.

use spate_planner_core::{snapshot::entry_json, Entry};

/// A put of `value` at `rev` (created at 5 ms).
pub fn put(bucket: &str, key: &str, rev: u64, value: &str) -> String {
    let e = Entry {
        key: key.into(),
        revision: rev,
        created_ms: 5,
        value: value.as_bytes().to_vec(),
    };
    format!(r#"{{"bucket":"{bucket}","op":"put","entry":{}}}"#, entry_json(&e))
}

/// A `delete`, `purge` or `expire` of `key` at `rev`.
pub fn gone(bucket: &str, op: &str, key: &str, rev: u64) -> String {
    format!(r#"{{"bucket":"{bucket}","op":"{op}","key":"{key}","revision":{rev},"created_ms":5}}"#)
}
