//! The recovery's words (docs/simulator.md, "Why a split does not run again" and "Figures"), as
//! `simulate`, the Timeline tab and the review document's Timeline section say them: each
//! reason's sentence names the member the reason names; the not-recovered splits are grouped by
//! reason, the largest group first; the sentences say what the events took, which never ran
//! again, what else stopped and what was idle before the first event (whose: the snapshot's, or
//! the settled fleet's when the run starts from the plan). Built from those rules on figures
//! written here, then once through a real run.

use crate::sim_support;

use sim_support::*;
use spate_planner_sim::{recovery_text, stuck_groups, Figures, NotRecovered, Start, Stuck, Summary};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn nr(split: &str, reason: Stuck, member: Option<&str>) -> NotRecovered {
    NotRecovered {
        split: split.into(),
        reason,
        member: member.map(str::to_string),
        words: String::new(),
    }
}

fn figures() -> Figures {
    Figures {
        splits_taken: 12,
        others_not_running: 1,
        idle_before: 460,
        quarantined_before: 43,
        not_recovered: vec![
            nr("p-1", Stuck::Withheld, Some("worker-03")),
            nr("p-2", Stuck::Quarantined, None),
            nr("p-3", Stuck::Withheld, Some("worker-03")),
            nr("p-4", Stuck::NoFreeLane, None),
            nr("p-5", Stuck::MemberFull, Some("worker-05")),
            nr("p-6", Stuck::MemberFull, Some("worker-07")),
        ],
        ..Figures::default()
    }
}

#[test]
fn the_not_recovered_splits_are_grouped_by_reason_the_largest_first_with_the_members_they_name() {
    let groups = stuck_groups(&figures().not_recovered);
    let seen: Vec<(Stuck, u64, Vec<&str>, Vec<&str>)> = groups
        .iter()
        .map(|g| {
            (
                g.reason,
                g.count,
                g.members.iter().map(String::as_str).collect(),
                g.splits.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (Stuck::Withheld, 2, vec!["worker-03"], vec!["p-1", "p-3"]),
            (
                Stuck::MemberFull,
                2,
                vec!["worker-05", "worker-07"],
                vec!["p-5", "p-6"]
            ),
            (Stuck::Quarantined, 1, vec![], vec!["p-2"]),
            (Stuck::NoFreeLane, 1, vec![], vec!["p-4"]),
        ]
    );
    // more than three members: the first three and how many more
    let many: Vec<NotRecovered> = (1..=5)
        .map(|i| nr(&format!("s-{i}"), Stuck::Pending, Some(&format!("w-{i}"))))
        .collect();
    assert_eq!(
        stuck_groups(&many)[0].phrase(),
        "5 given to w-1, w-2, w-3 and 2 more, not claimed yet"
    );
}

#[test]
fn the_sentences_say_what_the_events_took_what_never_ran_again_and_why_and_what_was_idle_before() {
    let s = recovery_text(&figures(), true, false);
    assert_eq!(
        s.taken.as_deref(),
        Some("The events took 12 splits (running on a member as it crashed or stopped, or failed).")
    );
    assert_eq!(
        s.stuck.as_deref(),
        Some("Not recovered: 6 of them never ran again — 2 still withheld by the rebalance delay (worker-03 departed); 2 given to worker-05 or worker-07, whose lanes are all held; 1 quarantined: its attempts ran out; 1 no free lane: the leader's plan queues it.")
    );
    assert_eq!(
        s.others.as_deref(),
        Some("1 other split that ran before the first event does not run at the end (the leader moved it, and had no lane).")
    );
    assert_eq!(
        s.before.as_deref(),
        Some("Before the first event 460 splits were idle and 43 quarantined: the snapshot's own, not the events' doing (start from the fleet settled on its plan to leave its motion out).")
    );
    let planned = recovery_text(&figures(), true, true);
    assert_eq!(
        planned.before.as_deref(),
        Some("Before the first event 460 splits were idle and 43 quarantined: the settled fleet's own (what its plan queues, and its quarantined splits), not the events' doing.")
    );
    assert_eq!(
        recovery_text(&figures(), false, false).lines(),
        Vec::<&str>::new(),
        "no events: nothing to say"
    );
    let all_back = Figures {
        splits_taken: 1_234,
        ..Figures::default()
    };
    assert_eq!(
        recovery_text(&all_back, true, false).lines(),
        vec!["The events took 1,234 splits (running on a member as it crashed or stopped, or failed); every one runs again."]
    );
    assert_eq!(
        recovery_text(&Figures::default(), true, false).taken.as_deref(),
        Some(
            "The events took no split (none ran on a member that crashed or stopped): recovery is immediate."
        )
    );
}

#[test]
fn every_reason_has_words_naming_its_member() {
    let named = [
        Stuck::LeasedByGone,
        Stuck::Withheld,
        Stuck::MemberFull,
        Stuck::Pending,
    ];
    for r in [
        Stuck::ParkedByRace,
        Stuck::Quarantined,
        Stuck::LeasedByGone,
        Stuck::NoLeader,
        Stuck::Withheld,
        Stuck::NoSpec,
        Stuck::NoFreeLane,
        Stuck::MemberFull,
        Stuck::Pending,
    ] {
        let w = r.words(Some("w-9"));
        assert_eq!(w.contains("w-9"), named.contains(&r), "{r:?}: {w}");
        assert!(!w.contains('_'), "{r:?} in words, not its code: {w}");
    }
}

/// A real run: each of 4 workers holds K = 8 of 32, and after one's crash nobody has a free
/// lane (timing.md §8 (a) 7): its 8 splits never run again, each with its reason's words, and
/// the summary the page shows says the sentences `recovery_text` makes.
#[test]
fn a_run_carries_the_words_each_split_and_the_summary_show() {
    let start = Start::steady(32, 4, 8, 1);
    let script =
        script(r#"{"until_ms": 300000, "events": [{"at_ms": 0, "op": "crash", "member": "worker-04"}]}"#);
    let o = run(&start, &script);
    assert_eq!(o.figures.not_recovered.len(), 8);
    for n in &o.figures.not_recovered {
        assert_eq!(
            (n.reason, n.words.as_str()),
            (Stuck::NoFreeLane, "no free lane: the leader's plan queues it"),
            "{n:?}"
        );
    }
    let summary = Summary::new(&o, &script);
    assert_eq!(
        summary.recovery.stuck.as_deref(),
        Some("Not recovered: 8 of them never ran again — 8 no free lane: the leader's plan queues it.")
    );
    assert_eq!(summary.recovery, recovery_text(&o.figures, true, false));
}
