//! The Timeline's marks and a run's summary (docs/simulator.md, "The marks and the summary").
//! The rules checked: a mark for each crash, graceful stop, start, cap change, election, splits
//! added, failure and ignored event, in time order; consecutive marks of one kind at one instant
//! are one mark naming each (events that make no mark in between do not part them); the recovery
//! is marked `recovery_ms` after the first scripted event (the earliest `at_ms`), after the marks
//! at its instant, and only when there is one; each mark's sentence is its clock time, its kind in
//! words and at most three names. The summary counts claims, quarantines, elections and every
//! timeline event, and carries the document's rules and figures.

use crate::sim_support;

use sim_support::{run, script};
use spate_planner_core::{ClaimKind, Rules, RulesChoice};
use spate_planner_sim::{
    mark_text, marks, Counts, Figures, FinalState, Mark, MarkKind, Outcome, Start, Summary, TimelineEvent,
    What,
};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn at(t_ms: u64, what: What) -> TimelineEvent {
    TimelineEvent { t_ms, what }
}

fn member(name: &str) -> String {
    name.to_string()
}

fn claim(m: &str, split: &str) -> What {
    What::Claim {
        member: member(m),
        split: split.into(),
        kind: ClaimKind::Expired,
        attempt: 1,
    }
}

/// An outcome with `timeline` and `recovery_ms`, nothing else.
fn outcome(timeline: Vec<TimelineEvent>, recovery_ms: Option<u64>) -> Outcome {
    Outcome {
        rules: RulesChoice::user(Rules::V0_1),
        timeline,
        splits: BTreeMap::new(),
        figures: Figures {
            recovery_ms,
            ..Figures::default()
        },
        end: FinalState {
            members: BTreeMap::new(),
            lanes: BTreeMap::new(),
            leader: None,
            default_cap: None,
            reserved: Default::default(),
            splits: BTreeMap::new(),
            holders: BTreeMap::new(),
            published: BTreeMap::new(),
        },
    }
}

fn mark(t_ms: u64, kind: MarkKind, who: &[&str]) -> Mark {
    Mark {
        t_ms,
        kind,
        who: who.iter().map(|w| w.to_string()).collect(),
    }
}

/// Every kind of marked event, and some that make no mark.
fn busy_timeline() -> Vec<TimelineEvent> {
    vec![
        at(10_000, What::Crashed { member: member("w1") }),
        at(10_000, What::PresenceExpired { member: member("w9") }),
        at(
            20_000,
            What::Started {
                member: member("n1"),
                nonce: "a".into(),
                cap: 8,
            },
        ),
        at(20_000, claim("n1", "s1")),
        at(
            20_000,
            What::Started {
                member: member("n2"),
                nonce: "b".into(),
                cap: 8,
            },
        ),
        at(
            35_000,
            What::LeaderElected {
                member: member("w2"),
                generation: 4,
            },
        ),
        at(
            36_000,
            What::SplitsAdded {
                count: 500,
                prefix: "new-".into(),
            },
        ),
        at(
            37_000,
            What::Failed {
                member: member("w2"),
                split: "s3".into(),
                attempt: 2,
                quarantined: false,
            },
        ),
        at(
            38_000,
            What::Ignored {
                index: 3,
                reason: "w7 is not running".into(),
            },
        ),
        at(
            39_000,
            What::CapSet {
                member: member("w2"),
                cap: 4,
            },
        ),
        at(39_000, What::Stopped { member: member("w3") }),
        at(40_000, What::Crashed { member: member("w4") }),
        at(40_000, What::Crashed { member: member("w5") }),
        at(41_000, What::JobFinished),
    ]
}

const SCRIPT: &str = r#"{"format":"spate-planner-script/1","until_ms":60000,"events":[
    {"at_ms":20000,"op":"start","member":"n1"},{"at_ms":10000,"op":"crash","member":"w1"}]}"#;

#[test]
fn each_marked_event_is_a_mark_in_time_order_and_one_kind_at_one_instant_is_folded() {
    use MarkKind::*;
    let got = marks(&outcome(busy_timeline(), Some(30_000)), &script(SCRIPT));
    let want = vec![
        mark(10_000, Crash, &["w1"]),
        // the claim between the two starts makes no mark: one start mark names both
        mark(20_000, Start, &["n1", "n2"]),
        mark(35_000, Election, &["w2"]),
        mark(36_000, Splits, &["500 × new-…"]),
        mark(37_000, Fail, &["w2"]),
        mark(38_000, Ignored, &["w7 is not running"]),
        // two kinds at one instant: two marks
        mark(39_000, Cap, &["w2"]),
        mark(39_000, Stop, &["w3"]),
        mark(40_000, Crash, &["w4", "w5"]),
        // 30 s after the first event, which the script lists second: after the crashes at 40 s
        mark(40_000, Recovered, &[]),
    ];
    assert_eq!(got, want);
}

#[test]
fn the_same_kind_at_one_instant_apart_from_another_kind_is_two_marks() {
    let timeline = vec![
        at(5_000, What::Crashed { member: member("a") }),
        at(5_000, What::Stopped { member: member("b") }),
        at(5_000, What::Crashed { member: member("c") }),
    ];
    let got = marks(&outcome(timeline, None), &script(SCRIPT));
    let kinds: Vec<(MarkKind, Vec<String>)> = got.into_iter().map(|m| (m.kind, m.who)).collect();
    assert_eq!(
        kinds,
        vec![
            (MarkKind::Crash, vec![member("a")]),
            (MarkKind::Stop, vec![member("b")]),
            (MarkKind::Crash, vec![member("c")]),
        ]
    );
}

#[test]
fn no_recovery_mark_without_a_recovery_or_without_events() {
    let not_recovered = marks(&outcome(busy_timeline(), None), &script(SCRIPT));
    assert!(not_recovered.iter().all(|m| m.kind != MarkKind::Recovered));
    assert_eq!(not_recovered.len(), 9);
    let no_events = script(r#"{"format":"spate-planner-script/1","until_ms":60000,"events":[]}"#);
    let quiet = marks(&outcome(Vec::new(), Some(0)), &no_events);
    assert_eq!(quiet, Vec::<Mark>::new());
    // the events took nothing: recovered at the first event itself
    let at_once = marks(&outcome(Vec::new(), Some(0)), &script(SCRIPT));
    assert_eq!(at_once, vec![mark(10_000, MarkKind::Recovered, &[])]);
}

#[test]
fn a_marks_sentence_is_its_clock_time_its_words_and_at_most_three_names() {
    assert_eq!(
        mark_text(&mark(45_000, MarkKind::Crash, &["worker-03"])),
        "0:45 crashed: worker-03"
    );
    assert_eq!(
        mark_text(&mark(3_723_000, MarkKind::Start, &["a", "b", "c", "d", "e"])),
        "1:02:03 started: a, b, c and 2 more"
    );
    assert_eq!(
        mark_text(&mark(60_000, MarkKind::Recovered, &[])),
        "1:00 recovered: every split the events took runs again"
    );
    assert_eq!(
        mark_text(&mark(0, MarkKind::Cap, &["a", "b", "c"])),
        "0:00 lane cap changed: a, b, c"
    );
}

#[test]
fn the_summary_counts_claims_quarantines_elections_and_events() {
    let mut timeline = busy_timeline();
    timeline.push(at(
        42_000,
        What::Quarantine {
            member: member("w2"),
            split: "s3".into(),
            attempt: 3,
        },
    ));
    timeline.push(at(43_000, claim("w2", "s4")));
    // The claim race parks s4 at its claim (timing.md §6.7): counted apart from quarantines,
    // and marked.
    timeline.push(at(
        43_000,
        What::ParkedByRace {
            member: member("w2"),
            by: member("w1"),
            split: "s4".into(),
            attempt: 4,
        },
    ));
    let o = outcome(timeline, Some(30_000));
    let s = Summary::new(&o, &script(SCRIPT));
    assert_eq!(
        s.counts,
        Counts {
            claims: 2,
            quarantines: 1,
            parked_by_race: 1,
            elections: 1,
            events: 17,
        }
    );
    assert_eq!(s.first_event_ms, Some(10_000));
    assert_eq!(s.marks.len(), 11);
    let parked = s.marks.iter().find(|m| m.mark.kind == MarkKind::Parked);
    assert_eq!(
        parked.map(|m| m.text.as_str()),
        Some("0:43 parked by the claim race right after a claim, never to run again: s4")
    );
    assert_eq!(s.marks[1].text, "0:20 started: n1, n2");
    assert_eq!(s.marks[1].mark, mark(20_000, MarkKind::Start, &["n1", "n2"]));
}

#[test]
fn the_summary_of_a_real_run_carries_its_documents_rules_and_figures() {
    let start = Start::steady(40, 4, 8, 1);
    let sc = script(
        r#"{"format":"spate-planner-script/1","seed":3,"until_ms":120000,
        "events":[{"at_ms":5000,"op":"crash","member":"worker-01"}]}"#,
    );
    let o = run(&start, &sc);
    let doc = o.to_json();
    let summary = serde_json::to_value(Summary::new(&o, &sc)).expect("the summary is JSON");
    for k in ["rules", "rules_source", "rules_note", "figures"] {
        assert_eq!(summary[k], doc[k], "{k}");
    }
    let count = |k: &str| doc[k].as_array().map(Vec::len);
    assert_eq!(
        summary["counts"]["claims"].as_u64().map(|n| n as usize),
        count("claims")
    );
    assert_eq!(
        summary["counts"]["elections"].as_u64().map(|n| n as usize),
        count("elections")
    );
    assert_eq!(
        summary["counts"]["events"].as_u64().map(|n| n as usize),
        count("timeline")
    );
    assert_eq!(summary["marks"][0]["kind"], "crash");
    assert_eq!(summary["marks"][0]["t_ms"], 5000);
    assert_eq!(summary["marks"][0]["text"], "0:05 crashed: worker-01");
    assert_eq!(summary["first_event_ms"], 5000);
}
