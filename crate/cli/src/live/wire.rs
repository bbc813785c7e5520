//! The live stream's framing (docs/live-protocol.md): Server-Sent Events whose `snapshot`
//! event is a snapshot file's text, `change` events one change each (its JSON is the core's,
//! `LiveChange::to_json`), and `status` events.

use axum::body::Bytes;
use spate_planner_core::{entry_json, stream_entry_json, JobState, Revisions, Source};
use std::borrow::Cow;
use std::ops::Range;

/// An event in SSE framing: `event:`, `id:` when given, and the data one `data:` line per line.
pub fn frame(event: &str, id: Option<Revisions>, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + data.len() / 40 + 64);
    out.push_str("event: ");
    out.push_str(event);
    out.push('\n');
    if let Some(id) = id {
        out.push_str(&format!("id: {id}\n"));
    }
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The connection's state, for the page to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Live,
    Reconnecting(String),
    Error(String),
}

pub fn status_json(s: &Status) -> String {
    let (status, message) = match s {
        Status::Live => ("live", None),
        Status::Reconnecting(m) => ("reconnecting", Some(m)),
        Status::Error(m) => ("error", Some(m)),
    };
    match message {
        None => format!("{{\"status\":\"{status}\"}}"),
        Some(m) => format!(
            "{{\"status\":\"{status}\",\"message\":{}}}",
            serde_json::Value::from(m.as_str())
        ),
    }
}

/// Where a live copy came from, for its `source` field.
pub fn live_source(server: &str, pair: Revisions) -> Source {
    Source {
        kind: "nats".into(),
        server: Some(server.to_string()),
        note: Some(format!(
            "spate-planner {} live, state revision {}, lease revision {}",
            env!("CARGO_PKG_VERSION"),
            pair.state,
            pair.lease
        )),
    }
}

/// The state as a snapshot file's text (what `GET /api/snapshot` returns).
pub fn snapshot_file(state: &JobState, server: &str, now_ms: i64) -> String {
    state
        .snapshot(now_ms, live_source(server, state.revisions()))
        .to_json()
}

/// A snapshot file's text, shared by every client sent it, and where its `taken_at_ms` value
/// is: each client gets the same bytes with the time it asked put in their place.
#[derive(Clone)]
pub struct FileText {
    bytes: Bytes,
    time: Option<Range<usize>>,
}

/// The start of the line of `taken_at_ms` in a snapshot file (`spate_planner_core::snapshot`).
const TIME_LINE: &str = "\n  \"taken_at_ms\": ";

impl FileText {
    pub fn new(text: String) -> FileText {
        let time = text.find(TIME_LINE).and_then(|at| {
            let start = at + TIME_LINE.len();
            let len = text[start..].find(|c: char| !c.is_ascii_digit() && c != '-')?;
            Some(start..start + len)
        });
        FileText {
            bytes: Bytes::from(text),
            time,
        }
    }

    /// The text (valid UTF-8: it was a `String`).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }

    /// The text taken at `now_ms`, as pieces of the shared bytes and the time between them.
    pub fn at(&self, now_ms: i64) -> Vec<Bytes> {
        match &self.time {
            Some(t) => vec![
                self.bytes.slice(..t.start),
                Bytes::from(now_ms.to_string()),
                self.bytes.slice(t.end..),
            ],
            None => vec![self.bytes.clone()],
        }
    }
}

/// [`snapshot_file`] as a [`FileText`].
pub fn file_text(state: &JobState, server: &str, now_ms: i64) -> FileText {
    FileText::new(snapshot_file(state, server, now_ms))
}

/// The state as a `snapshot` event: its snapshot file's text `file`, with the pair as the event
/// id. Entries whose value holds a CR are written as `text` (the stream cannot carry a CR).
pub fn snapshot_event(state: &JobState, file: &str) -> String {
    let mut text = Cow::Borrowed(file);
    if file.contains('\r') {
        let mut owned = file.to_string();
        for b in [&state.state, &state.lease] {
            for e in b.entries().filter(|e| e.value.contains(&b'\r')) {
                owned = owned.replacen(&entry_json(e), &stream_entry_json(e), 1);
            }
        }
        text = Cow::Owned(owned);
    }
    frame("snapshot", Some(state.revisions()), text.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_lines() {
        assert_eq!(
            frame("x", Some(Revisions { state: 1, lease: 2 }), "a\nb"),
            "event: x\nid: 1-2\ndata: a\ndata: b\n\n"
        );
        assert_eq!(
            status_json(&Status::Error("bucket \"b\"".into())),
            r#"{"status":"error","message":"bucket \"b\""}"#
        );
    }

    #[test]
    fn a_file_text_takes_the_time_it_is_sent_at() {
        let text = "{\n  \"format\": \"f\",\n  \"taken_at_ms\": 1767000000000,\n  \"state\": 1\n}\n";
        let file = FileText::new(text.to_string());
        let parts = file.at(1767000000042);
        assert_eq!(
            parts.concat(),
            text.replace("1767000000000", "1767000000042").as_bytes()
        );
        assert_eq!(
            parts[0].as_ptr(),
            file.bytes.as_ptr(),
            "the text is shared, not copied"
        );
        let plain = FileText::new("{}".into());
        assert_eq!(plain.at(5).concat(), b"{}");
    }
}
