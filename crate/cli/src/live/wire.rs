//! The live stream's framing (docs/live-protocol.md): Server-Sent Events whose `snapshot`
//! event is a snapshot file's text, `change` events one change each (its JSON is the core's,
//! `LiveChange::to_json`), and `status` events.

use axum::body::Bytes;
use spate_planner_core::{
    snapshot::{entry_json, stream_entry_json},
    JobState, Revisions, Source,
};
use std::borrow::Cow;
use std::ops::Range;

/// An event in SSE framing: `event:`, `id:` when given, and the data one `data:` line per line.
pub(crate) fn frame(event: &str, id: Option<Revisions>, data: &str) -> String {
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
pub(crate) enum Status {
    Live,
    Reconnecting(String),
    Error(String),
    /// Connected, but the store has not answered for longer than the bound (`live/heard.rs`):
    /// what is held may not be the store's now.
    Silent(String),
}

/// The status's word on the wire (the `status` event's `status`).
pub(crate) fn status_word(s: &Status) -> &'static str {
    match s {
        Status::Live => "live",
        Status::Reconnecting(_) => "reconnecting",
        Status::Error(_) => "error",
        Status::Silent(_) => "silent",
    }
}

/// [`status_json`] with `recording`: why the job's recording stopped (`serve --record`), which
/// the page shows beside the status.
pub(crate) fn status_json_with(s: &Status, recording: Option<&str>) -> String {
    let plain = status_json(s);
    match recording {
        None => plain,
        Some(why) => format!(
            "{},\"recording\":{}}}",
            &plain[..plain.len() - 1],
            serde_json::Value::from(why)
        ),
    }
}

pub(crate) fn status_json(s: &Status) -> String {
    let status = status_word(s);
    let message = match s {
        Status::Live => None,
        Status::Reconnecting(m) | Status::Error(m) | Status::Silent(m) => Some(m),
    };
    match message {
        None => format!("{{\"status\":\"{status}\"}}"),
        Some(m) => format!(
            "{{\"status\":\"{status}\",\"message\":{}}}",
            serde_json::Value::from(m.as_str())
        ),
    }
}

/// The `status` event a page is sent before a full state it must be sent again (it fell
/// behind, or the state was read again): until the state is in, the page is catching up, not
/// live; the hub's status follows the full state.
pub(crate) fn catching_up(why: &str) -> Bytes {
    let data = format!(
        "{{\"status\":\"catching_up\",\"message\":{}}}",
        serde_json::Value::from(why)
    );
    Bytes::from(frame("status", None, &data))
}

/// Where a live copy came from, for its `source` field.
pub(crate) fn live_source(server: &str, pair: Revisions) -> Source {
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
pub(crate) fn snapshot_file(state: &JobState, server: &str, now_ms: i64) -> String {
    state
        .snapshot(now_ms, live_source(server, state.revisions()))
        .to_json()
}

/// A snapshot file's text, shared by every client sent it, and where its `taken_at_ms` value
/// is: each client gets the same bytes with the time it asked put in their place.
#[derive(Clone)]
pub(crate) struct FileText {
    bytes: Bytes,
    time: Option<Range<usize>>,
}

/// The start of the line of `taken_at_ms` in a snapshot file (`spate_planner_core::snapshot`).
const TIME_LINE: &str = "\n  \"taken_at_ms\": ";

impl FileText {
    pub(crate) fn new(text: String) -> FileText {
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

    /// The shared bytes of the text.
    pub(crate) fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The same text held by other bytes of the same content (a counted `limits::Text`'s).
    pub(crate) fn on(&self, bytes: Bytes) -> FileText {
        FileText {
            bytes,
            time: self.time.clone(),
        }
    }

    /// The text (valid UTF-8: it was a `String`).
    pub(crate) fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }

    /// The text taken at `now_ms`, as pieces of the shared bytes and the time between them.
    pub(crate) fn at(&self, now_ms: i64) -> Vec<Bytes> {
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
pub(crate) fn file_text(state: &JobState, server: &str, now_ms: i64) -> FileText {
    FileText::new(snapshot_file(state, server, now_ms))
}

/// The state as a `snapshot` event: its snapshot file's text `file`, with the pair as the event
/// id. Entries whose value holds a CR are written as `text` (the stream cannot carry a CR).
pub(crate) fn snapshot_event(state: &JobState, file: &str) -> String {
    let text = match file.contains('\r') {
        true => Cow::Owned(without_cr(state, file)),
        false => Cow::Borrowed(file),
    };
    frame("snapshot", Some(state.revisions()), text.trim_end_matches('\n'))
}

/// `file` (the state's snapshot file) with each entry whose value holds a CR written as the
/// stream writes it, in one pass: the file lists the state's entries, then the lease's, each
/// bucket in revision order as [`JobState`] holds them, so each is looked for after the last.
fn without_cr(state: &JobState, file: &str) -> String {
    let mut out = String::with_capacity(file.len() + 1024);
    let mut at = 0;
    for b in [&state.state, &state.lease] {
        for e in b.entries().filter(|e| e.value.contains(&b'\r')) {
            let written = entry_json(e);
            if let Some(i) = file[at..].find(&written) {
                out.push_str(&file[at..at + i]);
                out.push_str(&stream_entry_json(e));
                at += i + written.len();
            }
        }
    }
    out.push_str(&file[at..]);
    out
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

    /// A job whose buckets hold `n` entries each, every third value with a CR in its whitespace.
    fn with_crs(n: u64) -> JobState {
        use spate_planner_core::{Bucket, Entry};
        let bucket = |name: &str, first: u64| Bucket {
            name: name.into(),
            history: 1,
            max_age_ms: 0,
            revision: Some(first + n),
            entries: (0..n)
                .map(|i| Entry {
                    key: format!("k.{i:05}"),
                    revision: first + i + 1,
                    created_ms: 0,
                    value: match i % 3 {
                        0 => format!("{{\"i\":\r\n{i}}}").into_bytes(),
                        _ => format!("{{\"i\":{i}}}").into_bytes(),
                    },
                })
                .collect(),
        };
        let state = bucket("spate_coordination_j_state", 0);
        let lease = bucket("spate_coordination_j_lease", 10 * n);
        JobState::new("j", state, lease).unwrap()
    }

    #[test]
    fn the_snapshot_event_carries_no_cr_and_reads_as_the_file() {
        let state = with_crs(3_000);
        let file = snapshot_file(&state, "nats://h:1", 1767000000000);
        assert_eq!(
            file.matches('\r').count(),
            2_000,
            "a CR in every third value of both"
        );
        let event = snapshot_event(&state, &file);
        assert!(!event.contains('\r'), "a CR in the stream");
        // the event's data lines are a snapshot file holding the same bytes in every entry
        let data: Vec<&str> = event.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
        let sent = spate_planner_core::Snapshot::parse(&data.join("\n")).unwrap();
        let kept = spate_planner_core::Snapshot::parse(&file).unwrap();
        assert_eq!(sent, kept);
        assert_eq!(sent.lease.entries[2997].value, b"{\"i\":\r\n2997}".to_vec());
        assert_eq!(event.matches(r#""text":"{\"i\":\r\n"#).count(), 2_000);
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
