//! A live job's recording (docs/recording-format.md): line-delimited JSON, append-only. Each
//! segment is a header line, a full state (a snapshot document on one line, each bucket at its
//! revision) and then what happened, one line each with the time it was received: a change (the
//! live stream's `change` data, [`LiveChange`]), the connection's status, or a full state read
//! again. Writing is one function per line; reading is strict, every error naming its line and
//! field, except a last line cut short (the recorder stopped while writing it), which is left
//! out with a warning.

use super::change::{LiveChange, LiveOp, Revisions};
use crate::codes::ErrorCode;
use crate::fleet::Side;
use crate::snapshot::{valid_job_name, Snapshot, SnapshotError, Source};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The format tag of this version of the recording, its header's `format`.
pub const RECORDING_FORMAT: &str = "spate-planner-recording/1";

/// The largest recording read at once, in bytes (`replay`, the page): a snapshot's limit.
pub const MAX_RECORDING_BYTES: usize = crate::snapshot::MAX_SNAPSHOT_BYTES;

/// Why a full state was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StateReason {
    /// The recorder started: the first state it had (what came before is not recorded).
    Start,
    /// A new segment began (by size): the same state as the changes before it gave.
    Rotate,
    /// The server read the whole job again (a reconnect, a gap, a bucket back).
    Resync,
    /// The recorder fell behind the server's changes and took the whole state again.
    Lagged,
}

/// A segment's first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordingHeader {
    pub format: String,
    pub job: String,
    /// The segment's number (1, 2, …: the file's), in the recorder's directory.
    pub segment: u64,
    /// When the segment was begun (ms since the Unix epoch).
    pub started_ms: i64,
    /// Where the job was read: `nats` and the server's addresses, never its credentials.
    pub source: Source,
}

/// The connection's status, as the live stream's `status` event says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedStatus {
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What one line after a header holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    State { reason: StateReason, snapshot: Snapshot },
    Change(LiveChange),
    Status(RecordedStatus),
}

/// One line after a header: when it was received, its line number (from 1) and what it holds,
/// and where the job stands once it is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordItem {
    pub at_ms: i64,
    pub line: usize,
    pub what: Recorded,
    pub revisions: Revisions,
}

impl RecordingHeader {
    pub fn new(job: &str, segment: u64, started_ms: i64, source: Source) -> RecordingHeader {
        RecordingHeader {
            format: RECORDING_FORMAT.to_string(),
            job: job.to_string(),
            segment,
            started_ms,
            source,
        }
    }

    /// The header line (without its newline); `format` is its first member.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A full state's line (without its newline).
pub fn state_line(at_ms: i64, reason: StateReason, snap: &Snapshot) -> String {
    let reason = serde_json::to_string(&reason).unwrap_or_default();
    format!(
        "{{\"t\":{at_ms},\"reason\":{reason},\"state\":{}}}",
        snap.to_line()
    )
}

/// A change's line (without its newline).
pub fn change_line(at_ms: i64, c: &LiveChange) -> String {
    format!("{{\"t\":{at_ms},\"change\":{}}}", c.to_line())
}

/// A status line (without its newline).
pub fn status_line(at_ms: i64, s: &RecordedStatus) -> String {
    let s = serde_json::to_string(s).unwrap_or_default();
    format!("{{\"t\":{at_ms},\"status\":{s}}}")
}

/// A line after a header, as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemIn<'a> {
    t: i64,
    #[serde(default)]
    reason: Option<StateReason>,
    #[serde(borrow, default)]
    state: Option<&'a RawValue>,
    #[serde(borrow, default)]
    change: Option<&'a RawValue>,
    #[serde(default)]
    status: Option<RecordedStatus>,
}

/// A recording read whole: its job, where it was read, its segments' headers and every line
/// after them, in order.
#[derive(Clone, Debug)]
pub struct Recording {
    pub job: String,
    pub source: Source,
    pub segments: Vec<RecordingHeader>,
    pub items: Vec<RecordItem>,
    /// What was left out, and why (a last line cut short).
    pub warnings: Vec<String>,
}

/// An error at `line` (and `field` in it): the path `line N[.field]`.
fn at_line(code: ErrorCode, line: usize, field: &str, message: impl std::fmt::Display) -> SnapshotError {
    let path = match field {
        "" => format!("line {line}"),
        f => format!("line {line}.{f}"),
    };
    SnapshotError::new(code, message.to_string()).at_path(path)
}

/// An error of a nested document (a state, a change) at `line`: its code, bucket and key kept,
/// its path put under the line's field.
fn nested(e: SnapshotError, line: usize, field: &str) -> SnapshotError {
    let path = match &e.path {
        Some(p) => format!("line {line}.{field}.{p}"),
        None => format!("line {line}.{field}"),
    };
    // An error naming its bucket and key shows those, not its path: the line goes in its words.
    let message = match (&e.bucket, &e.key) {
        (Some(_), Some(_)) => format!("line {line}.{field}: {}", e.message),
        _ => e.message,
    };
    let mut out = SnapshotError::new(e.code, message);
    (out.bucket, out.key, out.path) = (e.bucket, e.key, Some(path));
    out
}

/// Whether a line is a header: its first member is `format`, a recording's (of any version).
fn is_header(line: &str) -> bool {
    let after = |s: &str, p: &str| s.trim_start().strip_prefix(p).map(str::to_string);
    after(line, "{")
        .and_then(|s| after(&s, "\"format\""))
        .and_then(|s| after(&s, ":"))
        .and_then(|s| after(&s, "\"spate-planner-recording/"))
        .is_some()
}

/// Where the job stands after a full state: each bucket's recorded revision (or its highest
/// entry's).
fn revisions_of(snap: &Snapshot) -> Revisions {
    let at = |b: &crate::snapshot::Bucket| {
        let top = b.entries.iter().map(|e| e.revision).max().unwrap_or(0);
        b.revision.unwrap_or(0).max(top)
    };
    Revisions {
        state: at(&snap.state),
        lease: at(&snap.lease),
    }
}

/// Line `n` read as `T`; text cut short is `truncated`, anything else not `what` is
/// `invalid_field`, the line named.
fn read_line<'a, T: serde::Deserialize<'a>>(n: usize, text: &'a str, what: &str) -> Result<T, SnapshotError> {
    serde_json::from_str(text).map_err(|e| {
        let code = match e.is_eof() {
            true => ErrorCode::Truncated,
            false => ErrorCode::InvalidField,
        };
        at_line(code, n, "", format!("not {what}: {}", crate::json::message(&e)))
    })
}

/// Reading, line by line.
struct Reader {
    rec: Recording,
    /// The line of the last header, and whether its full state was read since.
    header_line: usize,
    stated: bool,
    revisions: Revisions,
}

impl Reader {
    fn header(&mut self, n: usize, text: &str) -> Result<(), SnapshotError> {
        let h: RecordingHeader = read_line(n, text, "a recording header")?;
        if h.format != RECORDING_FORMAT {
            let code = if h.format.starts_with("spate-planner-recording/") {
                ErrorCode::UnsupportedFormat
            } else {
                ErrorCode::NotARecording
            };
            let msg = format!("format {:?} is not {RECORDING_FORMAT:?}", h.format);
            return Err(at_line(code, n, "format", msg));
        }
        if !valid_job_name(&h.job) {
            let msg = format!("job name {:?} is not [A-Za-z0-9_-]{{1,64}}", h.job);
            return Err(at_line(ErrorCode::InvalidJob, n, "job", msg));
        }
        if self.rec.segments.is_empty() {
            (self.rec.job, self.rec.source) = (h.job.clone(), h.source.clone());
        } else if h.job != self.rec.job {
            let msg = format!(
                "this segment records job {:?}, the recording's first job {:?}",
                h.job, self.rec.job
            );
            return Err(at_line(ErrorCode::InvalidJob, n, "job", msg));
        }
        if !self.stated && !self.rec.segments.is_empty() {
            self.rec.warnings.push(format!(
                "line {}: the segment begun here holds no state (its recorder stopped at once)",
                self.header_line
            ));
        }
        self.rec.segments.push(h);
        (self.header_line, self.stated) = (n, false);
        Ok(())
    }

    fn item(&mut self, n: usize, text: &str) -> Result<(), SnapshotError> {
        let it: ItemIn = read_line(n, text, "a recording line")?;
        let what = match (it.state, it.change, it.status, it.reason) {
            (Some(raw), None, None, Some(reason)) => {
                let snapshot = Snapshot::parse(raw.get()).map_err(|e| nested(e, n, "state"))?;
                self.state(n, &snapshot)?;
                Recorded::State { reason, snapshot }
            }
            (Some(_), None, None, None) => {
                return Err(at_line(
                    ErrorCode::InvalidField,
                    n,
                    "reason",
                    "a full state needs its reason",
                ))
            }
            (None, Some(raw), None, None) => Recorded::Change(self.change(n, raw.get())?),
            (None, None, Some(s), None) => Recorded::Status(s),
            _ => {
                let msg = "a line holds exactly one of \"state\" (with \"reason\"), \"change\" or \"status\"";
                return Err(at_line(ErrorCode::InvalidField, n, "", msg));
            }
        };
        if !self.stated {
            let msg = format!(
                "a segment begins with a full state, after its header (line {})",
                self.header_line
            );
            return Err(at_line(ErrorCode::InvalidField, n, "", msg));
        }
        self.rec.items.push(RecordItem {
            at_ms: it.t,
            line: n,
            what,
            revisions: self.revisions,
        });
        Ok(())
    }

    fn state(&mut self, n: usize, snap: &Snapshot) -> Result<(), SnapshotError> {
        if snap.job != self.rec.job {
            let msg = format!(
                "a state of job {:?} in a recording of job {:?}",
                snap.job, self.rec.job
            );
            return Err(at_line(ErrorCode::InvalidJob, n, "state.job", msg));
        }
        self.revisions = revisions_of(snap);
        self.stated = true;
        Ok(())
    }

    /// A change, in revision order: a put or marker above its bucket's revision (an expiry
    /// moves none).
    fn change(&mut self, n: usize, text: &str) -> Result<LiveChange, SnapshotError> {
        let (state, lease) = crate::snapshot::bucket_names(&self.rec.job);
        let c = LiveChange::parse(text, |side| match side {
            Side::State => state.clone(),
            Side::Lease => lease.clone(),
        })
        .map_err(|e| nested(e, n, "change"))?;
        if self.stated && !matches!(c.op, LiveOp::Expire { .. }) {
            let at = match c.side {
                Side::State => &mut self.revisions.state,
                Side::Lease => &mut self.revisions.lease,
            };
            if c.revision() <= *at {
                let msg = format!(
                    "key {:?} at revision {} is not after the {} bucket's revision {}: a recording's changes are in the order they were made",
                    c.key(),
                    c.revision(),
                    c.side.label(),
                    at
                );
                return Err(at_line(ErrorCode::InvalidValue, n, "change.revision", msg));
            }
            *at = c.revision();
        }
        Ok(c)
    }
}

impl Recording {
    /// Reads a recording's text: one segment, or several one after another (as `replay` joins
    /// a directory's). Errors name the line (`path`: `line N` or `line N.field`) and, inside a
    /// state or change, the bucket and key. A segment's last line cut short (the text's last,
    /// without its newline, or one before the next segment's header) is left out, with a
    /// warning: its recorder stopped while writing it.
    pub fn parse(text: &str) -> Result<Recording, SnapshotError> {
        if text.len() > MAX_RECORDING_BYTES {
            let msg = format!(
                "the recording is {} MiB; at most {} MiB are read at once (replay a part: one segment)",
                text.len() >> 20,
                MAX_RECORDING_BYTES >> 20
            );
            return Err(SnapshotError::new(ErrorCode::TooLarge, msg));
        }
        let text = crate::json::without_bom(text);
        if text.trim().is_empty() {
            return Err(SnapshotError::new(
                ErrorCode::Empty,
                "the file is empty: not a recording",
            ));
        }
        let mut r = Reader {
            rec: Recording {
                job: String::new(),
                source: Source::default(),
                segments: Vec::new(),
                items: Vec::new(),
                warnings: Vec::new(),
            },
            header_line: 0,
            stated: false,
            revisions: Revisions::default(),
        };
        let ended = text.ends_with('\n');
        let lines: Vec<&str> = text.strip_suffix('\n').unwrap_or(text).split('\n').collect();
        for (i, &line) in lines.iter().enumerate() {
            let n = i + 1;
            // The last line of a segment: of the text (without its newline), or before a header.
            let ends_segment = match lines.get(i + 1) {
                None => !ended,
                Some(next) => is_header(next),
            };
            let read = match (n, line.trim().is_empty()) {
                (_, true) => Err(at_line(
                    ErrorCode::InvalidField,
                    n,
                    "",
                    "an empty line: a recording holds one JSON object a line",
                )),
                (1, _) if !is_header(line) => Err(not_a_recording(line)),
                (_, _) if is_header(line) => r.header(n, line),
                _ => r.item(n, line),
            };
            match read {
                Err(e) if ends_segment && n > 1 && e.code == ErrorCode::Truncated => {
                    r.rec.warnings.push(format!(
                        "line {n} is cut short (the recorder stopped while writing it) and is left out: {e}"
                    ));
                }
                other => other?,
            }
        }
        if r.rec.items.is_empty() {
            return Err(at_line(
                ErrorCode::Truncated,
                r.header_line.max(1),
                "",
                "the recording holds no state: it ends after its header",
            ));
        }
        Ok(r.rec)
    }

    /// Reads a recording from bytes, which must be UTF-8.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Recording, SnapshotError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let msg = format!("not a recording: invalid UTF-8 at byte {}", e.valid_up_to());
            SnapshotError::new(ErrorCode::NotJson, msg)
        })?;
        Recording::parse(text)
    }

    /// Whether `bytes` begin as a recording does (its header's first member), to tell a
    /// recording from a snapshot before reading either.
    pub fn sniff(bytes: &[u8]) -> bool {
        let head = &bytes[..bytes.len().min(64)];
        is_header(&String::from_utf8_lossy(head))
    }
}

/// The first line is no header: say what it looks like.
fn not_a_recording(line: &str) -> SnapshotError {
    let what = if line.trim() == "{" || line.contains("spate-planner-snapshot/") {
        "a snapshot file (spate-planner plan reads it)".to_string()
    } else {
        "something else".to_string()
    };
    let msg = format!(
        "not a recording: its first line is no header ({{\"format\":\"{RECORDING_FORMAT}\",…}}): this is {what}"
    );
    at_line(ErrorCode::NotARecording, 1, "", msg)
}
