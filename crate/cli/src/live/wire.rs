//! The live stream's framing (docs/live-protocol.md): Server-Sent Events whose `snapshot`
//! event is a snapshot file's text, `change` events one change each (its JSON is the core's,
//! `LiveChange::to_json`), and `status` events.

use spate_planner_core::{entry_json, stream_entry_json, JobState, Revisions, Source};

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

/// The state as a `snapshot` event: the snapshot file's text, with the pair as the event id.
/// Entries whose value holds a CR are written as `text` (the stream cannot carry a CR).
pub fn snapshot_event(state: &JobState, server: &str, now_ms: i64) -> String {
    let mut text = snapshot_file(state, server, now_ms);
    if text.contains('\r') {
        for b in [&state.state, &state.lease] {
            for e in b.entries().filter(|e| e.value.contains(&b'\r')) {
                text = text.replacen(&entry_json(e), &stream_entry_json(e), 1);
            }
        }
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
}
