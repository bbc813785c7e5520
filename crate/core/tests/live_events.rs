//! A live job's frame events (docs/live-protocol.md, "A frame's events"): the rows the page's
//! timeline shows, and that they are the events the rules give of the two whole states a frame
//! goes between (a plain transcription of the rules, kept by the test). Natively and in wasm32.

use crate::common;

use common::cases::cases;
use common::changes::{gone, put};
use common::store::{fp, Store};
use proptest::prelude::*;
use serde_json::{json, Value};
use spate_planner_core::{live::EventKind, Fleet, LiveEvent, LiveJob, Snapshot};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const NOW: i64 = 1_000;

fn rows(job: &mut LiveJob) -> Vec<(EventKind, String)> {
    let f = job.frame(NOW).unwrap();
    f.events.into_iter().map(|e| (e.kind, e.text)).collect()
}

fn status(id: &str, status: &str) -> String {
    json!({"schema":3,"id":id,"fp":fp(),"epoch":1,"status":status,"owner":null,"attempts":0,"watermark":null,"state":null,"completed":status == "completed","written_at_ms":0}).to_string()
}

fn lease(owner: &str) -> String {
    json!({"schema":3,"owner":owner,"nonce":"n","epoch":1}).to_string()
}

fn row(kind: EventKind, text: &str) -> (EventKind, String) {
    (kind, text.to_string())
}

#[test]
fn the_first_frame_has_no_rows() {
    let mut job = LiveJob::from_snapshot(&Store::new().presence("a", Some(1)).snapshot()).unwrap();
    assert_eq!(rows(&mut job), []);
    assert_eq!(rows(&mut job), [], "nothing happened since");
}

#[test]
fn a_claim_is_a_lease_of_a_new_owner_and_a_completion_or_quarantine_a_change_of_status() {
    let start = Store::new()
        .progress("s1", "runnable", Some("a"), 1, 0)
        .progress("s2", "completed", None, 1, 0)
        .held("s1", "a")
        .assign("b", 1, &[])
        .snapshot();
    let mut job = LiveJob::from_snapshot(&start).unwrap();
    rows(&mut job);
    for c in [
        put("lease", "split.s1", 101, &lease("a")),                // renewal
        put("lease", "split.s3", 102, &lease("b")),                // a claim
        put("state", "split.s2", 103, &status("s2", "completed")), // a rewrite of a completed split
        put("state", "split.s1", 104, &status("s1", "completed")),
        put("state", "split.s4", 105, &status("s4", "quarantined")),
        put(
            "state",
            "assign.a",
            106,
            r#"{"schema":3,"generation":1,"splits":[]}"#,
        ),
        gone("state", "delete", "assign.b", 107),
        put("lease", "assign.c", 108, "{}"),
    ] {
        job.apply(&c).unwrap();
    }
    assert_eq!(
        rows(&mut job),
        [
            row(EventKind::Claimed, "split claimed: s3 by b"),
            row(EventKind::Completed, "split completed: s1"),
            row(EventKind::Quarantined, "split quarantined: s4"),
            row(EventKind::Published, "assignment published for: a"),
            row(EventKind::Published, "assignment removed for: b"),
        ]
    );
    job.apply(&gone("lease", "delete", "split.s1", 109)).unwrap();
    assert_eq!(rows(&mut job), [], "a lease removed is no claim");
    job.apply(&put("lease", "split.s3", 110, &lease("c"))).unwrap();
    job.apply(&put("lease", "split.s1", 111, &lease("a"))).unwrap();
    assert_eq!(
        rows(&mut job),
        [row(
            EventKind::Claimed,
            "2 splits claimed: s3 by c (from b), s1 by a"
        )]
    );
}

#[test]
fn a_key_written_and_put_back_between_two_frames_is_no_event() {
    let start = Store::new()
        .progress("s1", "runnable", Some("a"), 1, 0)
        .held("s1", "a")
        .snapshot();
    let mut job = LiveJob::from_snapshot(&start).unwrap();
    rows(&mut job);
    job.apply(&put("lease", "split.s1", 101, &lease("b"))).unwrap();
    job.apply(&put("lease", "split.s1", 102, &lease("a"))).unwrap();
    assert_eq!(rows(&mut job), [], "the owner shown is the owner now");
}

#[test]
fn a_state_read_again_compares_with_the_fleet_shown_and_says_so() {
    let mut before = LiveJob::from_snapshot(&Store::new().presence("a", Some(1)).snapshot()).unwrap();
    rows(&mut before);
    let mut again = Store::new().presence("b", None).snapshot();
    again.state.revision = Some(40);
    again.lease.revision = Some(50);
    let mut job = LiveJob::from_snapshot(&again).unwrap();
    job.resync_from(&before);
    assert_eq!(
        rows(&mut job),
        [
            row(EventKind::Joined, "member joined: b"),
            row(EventKind::Left, "member left: a"),
            row(
                EventKind::Resync,
                "the whole state was read again (revisions 40-50)"
            ),
        ]
    );
}

// ---- the rules, transcribed: the events between two whole states ----

/// "a, b and 3 more": at most 8 names, then the count of the rest.
fn names_text(names: &[String]) -> String {
    let shown = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 8 {
        format!("{shown} and {} more", names.len() - 8)
    } else {
        shown
    }
}

/// A row naming `names` ("one" for one, "N many" for more), none when there are none.
fn named(out: &mut Vec<LiveEvent>, kind: EventKind, one: &str, many: &str, names: Vec<String>) {
    if names.is_empty() {
        return;
    }
    let text = if names.len() == 1 {
        format!("{one}: {}", names_text(&names))
    } else {
        format!("{} {many}: {}", names.len(), names_text(&names))
    };
    let names = names.into_iter().take(8).collect();
    out.push(LiveEvent { kind, text, names });
}

fn cap_text(cap: Option<u32>) -> String {
    cap.map_or("no cap of its own".to_string(), |c| format!("cap {c}"))
}

fn none_or<T: ToString>(v: Option<T>) -> String {
    v.map_or("(none)".to_string(), |v| v.to_string())
}

/// Members joined, left and with another cap; the leader and the plan generation changed.
fn fleet_events(out: &mut Vec<LiveEvent>, was: &Fleet, now: &Fleet) {
    let joined = now
        .members
        .keys()
        .filter(|m| !was.members.contains_key(*m))
        .cloned()
        .collect();
    let left = was
        .members
        .keys()
        .filter(|m| !now.members.contains_key(*m))
        .cloned()
        .collect();
    let mut caps = Vec::new();
    for (m, n) in &now.members {
        if let Some(w) = was.members.get(m).filter(|w| w.max_in_flight != n.max_in_flight) {
            caps.push(format!(
                "{m} {} → {}",
                cap_text(w.max_in_flight),
                cap_text(n.max_in_flight)
            ));
        }
    }
    named(out, EventKind::Joined, "member joined", "members joined", joined);
    named(out, EventKind::Left, "member left", "members left", left);
    named(out, EventKind::Cap, "cap changed", "caps changed", caps);
    let leader = |f: &Fleet| f.leader.as_ref().map(|l| l.owner.clone());
    if leader(was) != leader(now) {
        let text = format!("leader {} → {}", none_or(leader(was)), none_or(leader(now)));
        let names = leader(now).into_iter().filter(|l| !l.is_empty()).collect();
        out.push(LiveEvent {
            kind: EventKind::Leader,
            text,
            names,
        });
    }
    let generation = |f: &Fleet| f.plan.as_ref().map(|p| p.generation);
    if generation(was) != generation(now) {
        let text = format!(
            "plan generation {} → {}",
            none_or(generation(was)),
            none_or(generation(now))
        );
        out.push(LiveEvent {
            kind: EventKind::Plan,
            text,
            names: Vec::new(),
        });
    }
}

/// Each key of a bucket: (revision, the value read as JSON).
fn keyed(s: &Snapshot, lease: bool) -> BTreeMap<String, (u64, Value)> {
    let b = if lease { &s.lease } else { &s.state };
    let read = |v: &[u8]| serde_json::from_slice(v).unwrap_or(Value::Null);
    b.entries
        .iter()
        .map(|e| (e.key.clone(), (e.revision, read(&e.value))))
        .collect()
}

fn field<'a>(v: Option<&'a (u64, Value)>, name: &str) -> Option<&'a str> {
    v.and_then(|(_, v)| v.get(name)).and_then(Value::as_str)
}

/// Splits claimed, completed and quarantined, assignments published, in the order written;
/// assignments removed, in key order.
fn key_events(out: &mut Vec<LiveEvent>, was: &Snapshot, now: &Snapshot) {
    let (wl, nl, ws, ns) = (
        keyed(was, true),
        keyed(now, true),
        keyed(was, false),
        keyed(now, false),
    );
    let (mut claimed, mut completed, mut quarantined, mut published) = (vec![], vec![], vec![], vec![]);
    for (key, n) in &nl {
        let (Some(id), Some(o)) = (key.strip_prefix("split."), field(Some(n), "owner")) else {
            continue;
        };
        match field(wl.get(key), "owner") {
            Some(w) if w != o => claimed.push((n.0, format!("{id} by {o} (from {w})"))),
            None => claimed.push((n.0, format!("{id} by {o}"))),
            _ => {}
        }
    }
    for (key, n) in &ns {
        if let Some(id) = key.strip_prefix("split.") {
            let (w, s) = (field(ws.get(key), "status"), field(Some(n), "status"));
            for (to, list) in [("completed", &mut completed), ("quarantined", &mut quarantined)] {
                if s == Some(to) && w != Some(to) {
                    list.push((n.0, id.to_string()));
                }
            }
        } else if let Some(x) = key.strip_prefix("assign.") {
            if ws.get(key).map(|w| w.0) != Some(n.0) {
                published.push((n.0, x.to_string()));
            }
        }
    }
    let removed = ws
        .keys()
        .filter(|k| !ns.contains_key(*k))
        .filter_map(|k| k.strip_prefix("assign."));
    let removed = removed.map(str::to_string).collect();
    let by_rev = |mut v: Vec<(u64, String)>| {
        v.sort();
        v.into_iter().map(|(_, n)| n).collect()
    };
    named(
        out,
        EventKind::Claimed,
        "split claimed",
        "splits claimed",
        by_rev(claimed),
    );
    named(
        out,
        EventKind::Completed,
        "split completed",
        "splits completed",
        by_rev(completed),
    );
    named(
        out,
        EventKind::Quarantined,
        "split quarantined",
        "splits quarantined",
        by_rev(quarantined),
    );
    let (one, many) = ("assignment published for", "assignments published for");
    named(out, EventKind::Published, one, many, by_rev(published));
    named(
        out,
        EventKind::Published,
        "assignment removed for",
        "assignments removed for",
        removed,
    );
}

fn events_between(was: &Snapshot, now: &Snapshot) -> Vec<LiveEvent> {
    let mut out = Vec::new();
    let fleet = |s: &Snapshot| Fleet::from_snapshot(s).unwrap();
    fleet_events(&mut out, &fleet(was), &fleet(now));
    key_events(&mut out, was, now);
    out
}

/// One generated change: a put of a key of the kinds the rows read, or a delete.
#[derive(Clone, Debug)]
enum Op {
    Presence(u8, Option<u32>),
    Leader(u8),
    Plan(u64),
    Status(u8, u8),
    Lease(u8, u8),
    Assign(u8),
    Delete(bool, u8),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..4, prop::option::of(0u32..3)).prop_map(|(m, c)| Op::Presence(m, c)),
        (0u8..3).prop_map(Op::Leader),
        (1u64..4).prop_map(Op::Plan),
        (0u8..4, 0u8..3).prop_map(|(s, t)| Op::Status(s, t)),
        (0u8..4, 0u8..3).prop_map(|(s, o)| Op::Lease(s, o)),
        (0u8..3).prop_map(Op::Assign),
        (any::<bool>(), 0u8..4).prop_map(|(st, s)| Op::Delete(st, s)),
    ]
}

/// The change event of `op` at revision `rev`.
fn event(op: &Op, rev: u64) -> String {
    let plan = |g: u64| json!({"schema":3,"fingerprint":common::store::FINGERPRINT,"generation":g,"finality":"open","planned":0,"planner_state":null,"updated_at_ms":0});
    match op {
        Op::Presence(m, c) => put(
            "lease",
            &format!("worker.w{m}"),
            rev,
            &json!({"schema":3,"nonce":"n","max_in_flight":c}).to_string(),
        ),
        Op::Leader(o) => put(
            "lease",
            "leader",
            rev,
            &json!({"schema":3,"owner":format!("w{o}"),"nonce":"l","generation":1}).to_string(),
        ),
        Op::Plan(g) => put("state", "plan", rev, &plan(*g).to_string()),
        Op::Status(s, t) => {
            let st = ["runnable", "completed", "quarantined"][*t as usize];
            put(
                "state",
                &format!("split.s{s}"),
                rev,
                &status(&format!("s{s}"), st),
            )
        }
        Op::Lease(s, o) => put("lease", &format!("split.s{s}"), rev, &lease(&format!("w{o}"))),
        Op::Assign(m) => put(
            "state",
            &format!("assign.w{m}"),
            rev,
            r#"{"schema":3,"generation":1,"splits":[]}"#,
        ),
        Op::Delete(true, s) => gone("state", "delete", &format!("split.s{s}"), rev),
        Op::Delete(false, s) => gone("lease", "purge", &format!("split.s{s}"), rev),
    }
}

fn first() -> Snapshot {
    Store::new()
        .presence("w0", Some(2))
        .presence("w1", None)
        .leader("w0")
        .progress("s0", "runnable", Some("w0"), 1, 0)
        .progress("s1", "completed", None, 1, 0)
        .held("s0", "w0")
        .assign("w0", 1, &["s0"])
        .snapshot()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// After any bursts of changes, each frame's events are those the rules give of the whole
    /// state the last frame showed and the whole state now; and until the frame, the state
    /// shown is that last one.
    #[test]
    fn a_frames_events_are_the_events_between_its_two_whole_states(
        bursts in prop::collection::vec(prop::collection::vec(arb_op(), 0..6), 0..8),
    ) {
        let mut job = LiveJob::from_snapshot(&first()).unwrap();
        job.frame(NOW).unwrap();
        let mut was = job.snapshot(NOW);
        let mut rev = 100;
        for burst in &bursts {
            for op in burst {
                rev += 1;
                job.apply(&event(op, rev)).unwrap();
            }
            prop_assert_eq!(job.shown_snapshot(NOW).to_json(), was.to_json());
            let got = job.frame(NOW).unwrap().events;
            let now = job.snapshot(NOW);
            prop_assert_eq!(got, events_between(&was, &now));
            was = now;
        }
    }
}
