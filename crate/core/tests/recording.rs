//! Recordings (docs/recording-format.md): written one line each, read back exactly, strict
//! with coded errors naming the line and field, a last line cut short tolerated; and replayed:
//! the job at each moment is the first state with every line up to it applied by the format's
//! rules (a plain transcription of them, kept by the test), whatever order the moments are
//! visited in. Natively and in wasm32.

use crate::common;

use common::store::Store;
use spate_planner_core::{
    live::{
        change_line, state_line, status_line, EventKind, LiveOp, RecordedStatus, RecordingHeader, StateReason,
    },
    Entry, ErrorCode, LiveChange, Recording, Replay, Revisions, Side, Snapshot, Source,
};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const T0: i64 = 1_767_225_600_000;

fn entry(key: &str, revision: u64, value: &str) -> Entry {
    Entry {
        key: key.into(),
        revision,
        created_ms: T0,
        value: value.as_bytes().to_vec(),
    }
}

fn put(side: Side, key: &str, revision: u64, value: &str) -> LiveChange {
    LiveChange {
        side,
        op: LiveOp::Put(entry(key, revision, value)),
    }
}

fn delete(side: Side, key: &str, revision: u64) -> LiveChange {
    let op = LiveOp::Delete {
        key: key.into(),
        revision,
        created_ms: T0,
        purge: false,
    };
    LiveChange { side, op }
}

fn expire(key: &str, revision: u64) -> LiveChange {
    let op = LiveOp::Expire {
        key: key.into(),
        revision,
    };
    LiveChange {
        side: Side::Lease,
        op,
    }
}

fn presence(x: &str, cap: u32) -> String {
    format!(r#"{{"schema":3,"nonce":"n-{x}","max_in_flight":{cap}}}"#)
}

/// The first state: a plan, two members (lease revisions 2 and 3).
fn first() -> Snapshot {
    let mut s = Store::new()
        .presence("a", Some(2))
        .presence("b", Some(2))
        .snapshot();
    s.source = Source {
        kind: "nats".into(),
        server: Some("nats://127.0.0.1:4222".into()),
        note: Some("test".into()),
    };
    s
}

fn header(segment: u64) -> String {
    let source = first().source;
    RecordingHeader::new("j", segment, T0, source).to_line()
}

/// The changes after [`first`], each at its own time (the last two in one batch).
fn changes() -> Vec<(i64, LiveChange)> {
    vec![
        (T0 + 10, put(Side::Lease, "worker.c", 4, &presence("c", 3))),
        // a value holding a newline and a carriage return: a recording's line holds neither
        (T0 + 20, put(Side::State, "note", 5, "{\"a\":\r\n 1}")),
        (T0 + 30, delete(Side::Lease, "worker.a", 5)),
        (T0 + 40, put(Side::Lease, "worker.b", 6, &presence("b", 5))),
        (T0 + 40, expire("worker.c", 4)),
    ]
}

fn recording_text() -> String {
    let mut lines = vec![header(1), state_line(T0, StateReason::Start, &first())];
    lines.push(status_line(
        T0 + 5,
        &RecordedStatus {
            status: "live".into(),
            message: None,
        },
    ));
    lines.extend(changes().iter().map(|(t, c)| change_line(*t, c)));
    lines.join("\n") + "\n"
}

/// The rules of the format, transcribed: a put replaces its key, a delete removes it, an
/// expiry removes it only if the entry held is at its revision; a full state replaces all.
type Buckets = BTreeMap<(Side, String), Entry>;

fn buckets_of(s: &Snapshot) -> Buckets {
    let mut out = Buckets::new();
    for (side, b) in [(Side::State, &s.state), (Side::Lease, &s.lease)] {
        for e in &b.entries {
            out.insert((side, e.key.clone()), e.clone());
        }
    }
    out
}

fn apply(b: &mut Buckets, c: &LiveChange) {
    let slot = (c.side, c.key().to_string());
    match &c.op {
        LiveOp::Put(e) => drop(b.insert(slot, e.clone())),
        LiveOp::Delete { .. } => drop(b.remove(&slot)),
        LiveOp::Expire { revision, .. } => {
            if b.get(&slot).map(|e| e.revision) == Some(*revision) {
                b.remove(&slot);
            }
        }
    }
}

#[test]
fn every_line_is_one_line_and_reads_back_exactly() {
    let text = recording_text();
    assert!(!text.contains('\r'), "no carriage return anywhere");
    assert_eq!(text.lines().count(), 8);
    let rec = Recording::parse(&text).unwrap();
    assert_eq!(rec.job, "j");
    assert_eq!(rec.segments.len(), 1);
    assert_eq!(rec.source.server.as_deref(), Some("nats://127.0.0.1:4222"));
    assert!(rec.warnings.is_empty());
    assert_eq!(rec.items.len(), 7);
    assert_eq!(rec.items[0].line, 2, "lines count from 1, the header first");
    let read: Vec<LiveChange> = rec
        .items
        .iter()
        .filter_map(|i| match &i.what {
            spate_planner_core::live::Recorded::Change(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    let want: Vec<LiveChange> = changes().into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        read, want,
        "every byte of every value, the CR and newline included"
    );
    let revs: Vec<String> = rec.items.iter().map(|i| i.revisions.to_string()).collect();
    assert_eq!(revs, ["1-3", "1-3", "1-4", "5-4", "5-5", "5-6", "5-6"]);
    // The state line's document is a snapshot file's, which the snapshot reader reads.
    let line = text.lines().nth(1).unwrap();
    let doc: serde_json::Value = serde_json::from_str(line).unwrap();
    let snap = Snapshot::parse(&doc["state"].to_string()).unwrap();
    assert_eq!(snap, first());
}

#[test]
fn each_moment_is_the_first_state_with_the_lines_up_to_it_applied_in_any_order() {
    let rec = Recording::parse(&recording_text()).unwrap();
    let mut expected = Vec::new();
    let mut b = buckets_of(&first());
    expected.push(b.clone()); // the state
    expected.push(b.clone()); // the status
    for (_, c) in changes() {
        apply(&mut b, &c);
        expected.push(b.clone());
    }
    let n = expected.len();
    let mut replay = Replay::new(rec);
    assert_eq!(replay.moments(), n);
    // forward, backward, and jumping about
    let order: Vec<usize> = (0..n).chain((0..n).rev()).chain([3, 0, 6, 2, 5, 1]).collect();
    for m in order {
        let frame = replay.seek(m).unwrap();
        assert_eq!(frame.moment, m);
        let snap = replay.snapshot().unwrap();
        assert_eq!(buckets_of(&snap), expected[m], "moment {m}");
        assert_eq!(snap.taken_at_ms, frame.at_ms, "taken at the moment's time");
        let note = snap.source.note.unwrap_or_default();
        assert!(note.contains("replay of a recording"), "{note}");
    }
    assert!(replay.seek(n).is_err(), "no moment past the last");
}

#[test]
fn frames_tell_what_happened_between_moments_at_their_recorded_time() {
    let mut replay = Replay::new(Recording::parse(&recording_text()).unwrap());
    let f = replay.seek(1).unwrap();
    assert!(f.events.is_empty(), "the first frame has none");
    assert_eq!(f.statuses.len(), 1, "the status recorded before it");
    let f = replay.seek(2).unwrap();
    assert_eq!(f.at_ms, T0 + 10);
    let kinds: Vec<(EventKind, &str)> = f.events.iter().map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(kinds, [(EventKind::Joined, "member joined: c")]);
    assert_eq!(f.fleet.members.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    let f = replay.seek(6).unwrap();
    let texts: Vec<&str> = f.events.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["2 members left: a, c", "cap changed: b cap 2 → cap 5"]);
    assert_eq!(f.revisions, Revisions { state: 5, lease: 6 });
}

#[test]
fn moments_are_found_by_time_and_by_revisions() {
    let replay = Replay::new(Recording::parse(&recording_text()).unwrap());
    assert_eq!(replay.at_time(T0 - 1), None);
    assert_eq!(replay.at_time(T0 + 39), Some(4));
    assert_eq!(replay.at_time(T0 + 40), Some(6), "the last line received then");
    let r = |state, lease| Revisions { state, lease };
    assert_eq!(replay.at_revisions(r(5, 4)), Some(3));
    assert_eq!(replay.at_revisions(r(5, 6)), Some(5), "the first moment at them");
    assert_eq!(replay.at_revisions(r(9, 9)), None);
}

#[test]
fn segments_join_and_a_resync_is_a_row_a_rotation_none() {
    let mut b = buckets_of(&first());
    let mut text = recording_text();
    for (_, c) in changes() {
        apply(&mut b, &c);
    }
    // a rotation: the next segment begins with the same state
    let mut same = first();
    let entries = |side: Side| -> Vec<Entry> {
        let mut v: Vec<Entry> = b
            .iter()
            .filter(|((s, _), _)| *s == side)
            .map(|(_, e)| e.clone())
            .collect();
        v.sort_by_key(|e| e.revision);
        v
    };
    (same.state.entries, same.state.revision) = (entries(Side::State), Some(5));
    (same.lease.entries, same.lease.revision) = (entries(Side::Lease), Some(6));
    text += &format!(
        "{}\n{}\n",
        header(2),
        state_line(T0 + 50, StateReason::Rotate, &same)
    );
    text += &format!(
        "{}\n",
        change_line(T0 + 60, &put(Side::Lease, "worker.d", 7, &presence("d", 1)))
    );
    text += &format!("{}\n", state_line(T0 + 70, StateReason::Resync, &first()));
    let rec = Recording::parse(&text).unwrap();
    assert_eq!(rec.segments.iter().map(|s| s.segment).collect::<Vec<_>>(), [1, 2]);
    let mut replay = Replay::new(rec);
    replay.seek(6).unwrap();
    let rotated = replay.seek(7).unwrap();
    assert!(rotated.events.is_empty(), "a rotation changes nothing");
    replay.seek(8).unwrap();
    let resync = replay.seek(9).unwrap();
    let kinds: Vec<EventKind> = resync.events.iter().map(|e| e.kind).collect();
    assert!(kinds.contains(&EventKind::Resync), "{kinds:?}");
    assert_eq!(buckets_of(&replay.snapshot().unwrap()), buckets_of(&first()));
    // the second segment alone replays too
    let second: String = text.lines().skip(8).map(|l| format!("{l}\n")).collect();
    let mut alone = Replay::new(Recording::parse(&second).unwrap());
    alone.seek(0).unwrap();
    assert_eq!(buckets_of(&alone.snapshot().unwrap()), buckets_of(&same));
}

/// The error's code and path.
fn refused(text: &str) -> (ErrorCode, String) {
    let e = Recording::parse(text).unwrap_err();
    (e.code, e.path.unwrap_or_default())
}

#[test]
fn bad_recordings_are_refused_naming_the_line_and_field() {
    let good = recording_text();
    let lines: Vec<&str> = good.lines().collect();
    let with = |n: usize, line: &str| {
        let mut v = lines.clone();
        v[n - 1] = line;
        v.join("\n") + "\n"
    };
    assert_eq!(refused(""), (ErrorCode::Empty, String::new()));
    assert_eq!(
        refused(&first().to_json()),
        (ErrorCode::NotARecording, "line 1".into())
    );
    let v2 = lines[0].replace("recording/1", "recording/2");
    assert_eq!(
        refused(&with(1, &v2)),
        (ErrorCode::UnsupportedFormat, "line 1.format".into())
    );
    let other = lines[0].replace("\"job\":\"j\"", "\"job\":\"no job\"");
    assert_eq!(
        refused(&with(1, &other)),
        (ErrorCode::InvalidJob, "line 1.job".into())
    );
    let no_state = [lines[0], lines[3]].join("\n") + "\n";
    assert_eq!(refused(&no_state), (ErrorCode::InvalidField, "line 2".into()));
    assert_eq!(refused(&with(4, "")), (ErrorCode::InvalidField, "line 4".into()));
    let extra = lines[3].replacen("{", "{\"x\":1,", 1);
    assert_eq!(refused(&with(4, &extra)).0, ErrorCode::InvalidField);
    let back = change_line(T0, &put(Side::Lease, "worker.z", 3, "{}"));
    assert_eq!(
        refused(&with(4, &back)),
        (ErrorCode::InvalidValue, "line 4.change.revision".into())
    );
    let bad_b64 = r#"{"t":1,"change":{"bucket":"state","op":"put","entry":{"key":"k","revision":9,"created_ms":1,"base64":"!"}}}"#;
    let e = Recording::parse(&with(4, bad_b64)).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidValue);
    assert_eq!(e.key.as_deref(), Some("k"), "the key inside the change is named");
    assert!(e.path.unwrap_or_default().starts_with("line 4.change"));
    let bad_state = lines[1].replace("\"history\":1", "\"history\":-1");
    assert_eq!(refused(&with(2, &bad_state)).1, "line 2.state");
    let no_reason = lines[1].replace("\"reason\":\"start\",", "");
    assert_eq!(
        refused(&with(2, &no_reason)),
        (ErrorCode::InvalidField, "line 2.reason".into())
    );
    let cut_inside = with(4, &lines[3][..20]);
    assert_eq!(refused(&cut_inside), (ErrorCode::Truncated, "line 4".into()));
    let other_job = header(2).replace("\"job\":\"j\"", "\"job\":\"k\"");
    assert_eq!(
        refused(&(good.clone() + &other_job + "\n")),
        (ErrorCode::InvalidJob, "line 9.job".into())
    );
}

#[test]
fn a_last_line_cut_short_is_left_out_with_a_warning() {
    let good = recording_text();
    let cut = &good[..good.len() - 12];
    let rec = Recording::parse(cut).unwrap();
    assert_eq!(rec.items.len(), 6, "all but the last line");
    assert_eq!(rec.warnings.len(), 1);
    assert!(
        rec.warnings[0].starts_with("line 8 is cut short"),
        "{}",
        rec.warnings[0]
    );
    // a whole last line without its newline is read
    let whole = Recording::parse(good.trim_end()).unwrap();
    assert_eq!((whole.items.len(), whole.warnings.len()), (7, 0));
    // cut short before the next segment (a recorder stopped, then started again)
    let two = format!(
        "{}\n{}{}\n{}\n",
        cut,
        header(2),
        "",
        state_line(T0 + 50, StateReason::Start, &first())
    );
    let rec = Recording::parse(&two).unwrap();
    assert_eq!(
        (rec.items.len(), rec.segments.len(), rec.warnings.len()),
        (7, 2, 1)
    );
    // a header alone: nothing to replay
    assert_eq!(refused(&(header(1) + "\n")).0, ErrorCode::Truncated);
}

#[test]
fn samples_spread_over_the_recorded_time() {
    let replay = Replay::new(Recording::parse(&recording_text()).unwrap());
    assert_eq!(
        replay.samples(100),
        (0..7).collect::<Vec<_>>(),
        "every moment when few"
    );
    // times T0, T0+5, +10, +20, +30, +40, +40: three instants T0, T0+20, T0+40
    assert_eq!(replay.samples(3), [0, 3, 6]);
    assert_eq!(replay.samples(5), [0, 2, 3, 4, 6], "T0, +10, +20, +30, +40");
}

fn lease_json(owner: &str) -> String {
    format!(r#"{{"schema":3,"owner":"{owner}","nonce":"n-{owner}","epoch":2}}"#)
}

#[test]
fn stepping_goes_by_news_with_renewals_and_rewrites_folded() {
    // The first state's members a and b (lease revisions 2 and 3); each line below says whether
    // it is news by the timeline's rules: a member joining, leaving or changing its cap, a
    // split claimed by another owner, an assignment published, a connection status; not a
    // presence or lease renewed with the same value, nor a key the timeline does not read.
    let lines: Vec<(String, bool)> = vec![
        (
            change_line(T0 + 1, &put(Side::Lease, "worker.a", 4, &presence("a", 2))),
            false,
        ),
        (
            change_line(T0 + 2, &put(Side::Lease, "split.s", 5, &lease_json("a"))),
            true,
        ),
        (
            change_line(T0 + 3, &put(Side::Lease, "split.s", 6, &lease_json("a"))),
            false,
        ),
        (
            change_line(T0 + 4, &put(Side::Lease, "split.s", 7, &lease_json("b"))),
            true,
        ),
        (change_line(T0 + 5, &put(Side::State, "note", 2, "{}")), false),
        (
            change_line(
                T0 + 6,
                &put(
                    Side::State,
                    "assign.a",
                    3,
                    r#"{"schema":3,"generation":1,"splits":[]}"#,
                ),
            ),
            true,
        ),
        (
            change_line(T0 + 7, &put(Side::Lease, "worker.b", 8, &presence("b", 2))),
            false,
        ),
        (
            change_line(T0 + 8, &put(Side::Lease, "worker.b", 9, &presence("b", 6))),
            true,
        ),
        (
            status_line(
                T0 + 9,
                &RecordedStatus {
                    status: "reconnecting".into(),
                    message: None,
                },
            ),
            true,
        ),
        (
            change_line(T0 + 10, &put(Side::Lease, "worker.c", 10, &presence("c", 1))),
            true,
        ),
        (change_line(T0 + 11, &delete(Side::Lease, "worker.a", 11)), true),
        (
            change_line(T0 + 12, &put(Side::Lease, "worker.b", 12, &presence("b", 6))),
            false,
        ),
    ];
    let mut text = vec![header(1), state_line(T0, StateReason::Start, &first())];
    text.extend(lines.iter().map(|(l, _)| l.clone()));
    let replay = Replay::new(Recording::parse(&(text.join("\n") + "\n")).unwrap());
    // moment k + 1 is after line k; the first and the last moment are always steps
    let mut want = vec![0];
    want.extend(
        lines
            .iter()
            .enumerate()
            .filter(|(_, (_, news))| *news)
            .map(|(k, _)| k + 1),
    );
    want.push(lines.len());
    assert_eq!(replay.news_moments().unwrap(), want);
}

/// A recording begun while the store held a plan record of another schema (its first state
/// holds it), mended 1.2 s later, refused again and mended again: the moments that cannot be
/// planned are named in stretches, never stepped to, and every other moment replays.
#[test]
fn moments_that_cannot_be_planned_are_named_and_skipped_even_from_the_first_state() {
    let mut start = first();
    let plan = start
        .state
        .entries
        .iter_mut()
        .find(|e| e.key == "plan")
        .expect("the first state has a plan");
    let good = String::from_utf8(plan.value.clone()).unwrap();
    let bad = good.replace("\"schema\":3", "\"schema\":4");
    assert_ne!(good, bad, "the plan record names its schema");
    plan.value = bad.clone().into_bytes();
    let lines = [
        change_line(T0 + 100, &put(Side::Lease, "worker.c", 100, &presence("c", 1))),
        change_line(T0 + 1200, &put(Side::State, "plan", 1000, &good)),
        change_line(T0 + 1300, &put(Side::Lease, "worker.d", 101, &presence("d", 1))),
        change_line(T0 + 1400, &put(Side::State, "plan", 1001, &bad)),
        change_line(T0 + 1500, &put(Side::Lease, "worker.e", 102, &presence("e", 1))),
        change_line(T0 + 2600, &put(Side::State, "plan", 1002, &good)),
        status_line(
            T0 + 2700,
            &RecordedStatus {
                status: "live".into(),
                message: None,
            },
        ),
    ];
    let mut text = vec![header(1), state_line(T0, StateReason::Start, &start)];
    text.extend(lines.iter().cloned());
    let mut replay = Replay::new(Recording::parse(&(text.join("\n") + "\n")).unwrap());
    let outline = replay.outline().unwrap();
    let spans: Vec<(usize, usize)> = outline.refused.iter().map(|s| (s.first, s.last)).collect();
    assert_eq!(spans, [(0, 1), (4, 5)]);
    for (s, line) in outline.refused.iter().zip([2, 6]) {
        assert_eq!(s.error.code, ErrorCode::WrongSchema, "{}", s.error);
        assert_eq!(s.error.key.as_deref(), Some("plan"));
        assert_eq!(s.error.bucket.as_deref(), Some("spate_coordination_j_state"));
        assert_eq!(
            s.error.path.as_deref().map(|p| p.split('.').next()),
            Some(Some(&*format!("line {line}")))
        );
    }
    // the first step is the first moment that can be planned; none is inside a stretch
    assert_eq!(outline.steps, [2, 3, 6, 7]);
    assert_eq!(replay.news_moments().unwrap(), outline.steps);
    for m in 0..8 {
        let framed = replay.seek(m);
        let refused = spans.iter().any(|&(a, b)| (a..=b).contains(&m));
        assert_eq!(framed.is_err(), refused, "moment {m}");
        if let Err(e) = framed {
            assert_eq!(e.code, ErrorCode::WrongSchema);
        }
    }
    // members that joined while the job could not be planned are there once it can
    let frame = replay.seek(6).unwrap();
    let names: Vec<&str> = frame.fleet.members.keys().map(String::as_str).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
    // a refused moment is still written as the store held it
    replay.goto(0).unwrap();
    let snap = replay.snapshot().unwrap();
    let held = snap.state.entries.iter().find(|e| e.key == "plan").unwrap();
    assert_eq!(held.value, bad.as_bytes());
}
