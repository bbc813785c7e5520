//! Sweeps and comparisons (design reviews): each sweep step is the plan of the same what-if
//! written by hand; comparisons of hand-built pairs of stores name what changed.

use crate::common;

use common::store::Store;
use spate_planner_core::{
    analyse, diff,
    diff::Chronology,
    sweep,
    sweep::{smallest_meeting, sweep_document, today, Axis, Targets},
    Fleet, Scenario,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Two members (caps 3 and 2) holding six splits of weights 60..10 unevenly.
fn fleet() -> Store {
    let mut s = Store::new()
        .presence("w1", Some(3))
        .presence("w2", Some(2))
        .leader("w1");
    for (i, w) in [60u64, 50, 40, 30, 20, 10].into_iter().enumerate() {
        let id = format!("s{i}");
        s = s.split(&id, w, Some("w1"), 1, 0).held(&id, "w1");
    }
    s
}

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text).unwrap()
}

#[test]
fn each_add_members_step_is_the_hand_written_what_if() {
    let f = fleet().fleet();
    let steps = sweep(
        &f,
        &Scenario::default(),
        Axis::AddMembers { cap: Some(2) },
        0..=2,
        None,
    )
    .unwrap();
    let by_hand = [
        r#"{}"#,
        r#"{"changes":[{"op":"add_member","member":"added-01","cap":2}]}"#,
        r#"{"changes":[{"op":"add_member","member":"added-01","cap":2},{"op":"add_member","member":"added-02","cap":2}]}"#,
    ];
    for (step, text) in steps.iter().zip(by_hand) {
        let r = analyse(&f, &scenario(text)).unwrap().report;
        assert_eq!(step.members as usize, r.members.len(), "{text}");
        assert_eq!(
            (step.max_load, step.queued, step.moves, step.bytes_moved),
            (
                r.balance.max_load,
                r.counts.queued,
                r.churn.moves,
                r.churn.weight_moved
            )
        );
        assert_eq!(step.max_over_mean, format!("{:.4}", r.balance.max_over_mean));
    }
    // With caps 3 + 2 only five of six splits fit: one queued, until a member is added.
    assert_eq!((steps[0].queued, steps[1].queued), (1, 0));
    assert_eq!(steps[0].at_cap, 2);
}

#[test]
fn default_cap_and_member_cap_steps_are_the_hand_written_what_ifs() {
    let f = fleet().fleet();
    let steps = sweep(&f, &Scenario::default(), Axis::MemberCap, 1..=3, None).unwrap();
    for step in &steps {
        let text = format!(
            r#"{{"changes":[{{"op":"set_cap","member":"w1","cap":{v}}},{{"op":"set_cap","member":"w2","cap":{v}}}]}}"#,
            v = step.value
        );
        let r = analyse(&f, &scenario(&text)).unwrap().report;
        assert_eq!(
            (step.max_load, step.queued),
            (r.balance.max_load, r.counts.queued),
            "cap {}",
            step.value
        );
    }
    // caps 1 and 1: two lanes, four splits queued; caps 3 and 3: all six fit.
    assert_eq!((steps[0].queued, steps[2].queued), (4, 0));
    // the default cap axis changes nothing for members with their own caps...
    let d = sweep(&f, &Scenario::default(), Axis::DefaultCap, 1..=2, None).unwrap();
    assert_eq!(d[0].max_load, d[1].max_load);
    // ...and everything for members without one (on top of a what-if that clears their caps)
    let base = scenario(
        r#"{"changes":[{"op":"set_cap","member":"w1","cap":0},{"op":"set_cap","member":"w2","cap":0}]}"#,
    );
    let d = sweep(&f, &base, Axis::DefaultCap, 1..=3, None).unwrap();
    assert_eq!(d.iter().map(|s| s.queued).collect::<Vec<_>>(), vec![4, 2, 0]);
}

#[test]
fn the_smallest_step_meeting_the_targets_is_named() {
    let f = fleet().fleet();
    let steps = sweep(
        &f,
        &Scenario::default(),
        Axis::AddMembers { cap: Some(2) },
        0..=3,
        None,
    )
    .unwrap();
    let best = smallest_meeting(&steps, 10.0, 0).map(|s| s.value);
    assert_eq!(best, Some(1), "step 0 queues a split");
    assert_eq!(
        smallest_meeting(&steps, 0.5, 0),
        None,
        "max/mean is never below 1"
    );
}

/// The earlier store: w1 and w2; the leader (w1) will move s1 to w2.
fn before() -> Store {
    Store::new()
        .presence("w1", Some(4))
        .presence("w2", Some(4))
        .leader("w1")
        .split("s0", 10, Some("w1"), 1, 0)
        .held("s0", "w1")
        .split("s1", 10, Some("w1"), 1, 0)
        .held("s1", "w1")
        .assign("w1", 1, &["s0", "s1"])
        .assign("w2", 1, &[])
}

#[test]
fn a_comparison_names_what_changed_and_checks_the_leaders_decision() {
    let b = before().fleet();
    let planned = analyse(&b, &Scenario::default()).unwrap().assignment;
    let w2_gets = planned["w2"].clone();
    assert_eq!(w2_gets.len(), 1, "one split of 10 moves: 20 > 0 + 10");
    let moved = w2_gets[0].as_str();
    let stays = if moved == "s0" { "s1" } else { "s0" };
    // Later: the leader published exactly that, w2 took the split, w3 joined, w2's cap changed.
    let after = Store::new()
        .presence("w1", Some(4))
        .presence("w2", Some(6))
        .presence("w3", Some(4))
        .leader("w1")
        .split("s0", 10, Some(if moved == "s0" { "w2" } else { "w1" }), 2, 0)
        .split("s1", 10, Some(if moved == "s1" { "w2" } else { "w1" }), 2, 0)
        .assign("w1", 1, &[stays])
        .assign("w2", 1, &[moved])
        .fleet();
    let d = diff(&b, &after, None).unwrap();
    assert_eq!(
        (d.joined.clone(), d.left.clone()),
        (vec!["w3".to_string()], vec![])
    );
    let w2 = d.members.iter().find(|m| m.name == "w2").unwrap();
    assert_eq!(
        (w2.cap_before, w2.cap_after, w2.load_before, w2.load_after),
        (Some(4), Some(6), Some(0), Some(10))
    );
    assert_eq!(d.owner_changes.len(), 1);
    assert_eq!(
        (
            d.owner_changes[0].split.as_str(),
            d.owner_changes[0].after.as_deref()
        ),
        (moved, Some("w2"))
    );
    assert!(
        d.decision.published && d.decision.matches,
        "{:?}",
        d.decision.differences
    );
    assert_eq!((d.figures_before.moves, d.figures_before.max_load_now), (1, 20));

    // A later store whose leader published something else does not match.
    let other = Store::new()
        .presence("w1", Some(4))
        .presence("w2", Some(4))
        .leader("w1")
        .split("s0", 10, Some("w1"), 1, 0)
        .split("s1", 10, Some("w1"), 1, 0)
        .assign("w1", 1, &["s0", "s1"])
        .fleet();
    let d = diff(&b, &other, None).unwrap();
    assert!(!d.decision.matches);
    assert_eq!(
        d.decision.differences[moved],
        (Some("w2".to_string()), Some("w1".to_string()))
    );
    assert!(d.owner_changes.is_empty() && d.joined.is_empty());
}

/// Today's fleet on each axis, from the rule (a step that changes nothing is today's fleet): no
/// member added; the default cap the scenario plans with; every member's cap when they are one.
#[test]
fn the_sweep_marks_the_step_that_is_todays_fleet() {
    let f = fleet().fleet();
    let none = Scenario::default();
    let add = Axis::AddMembers { cap: None };
    let marked = |base: &Scenario, axis: Axis, values: std::ops::RangeInclusive<u32>| -> Vec<u32> {
        sweep(&f, base, axis, values, None)
            .unwrap()
            .iter()
            .filter(|s| s.today)
            .map(|s| s.value)
            .collect()
    };
    assert_eq!(marked(&none, add, 0..=3), [0]);
    assert_eq!(today(&f, &none, add).unwrap().note, "no member added");
    // the default cap is the leader's own (w1's 3); the step at it plans the base as it is
    let dc = today(&f, &none, Axis::DefaultCap).unwrap();
    let at = dc.value.unwrap();
    assert_eq!(at, 3);
    assert_eq!(dc.note, format!("the default cap now ({at})"));
    let steps = sweep(&f, &none, Axis::DefaultCap, at..=at, None).unwrap();
    let plain = analyse(&f, &none).unwrap().report;
    assert_eq!(
        (steps[0].today, steps[0].max_load, steps[0].moves),
        (true, plain.balance.max_load, plain.churn.moves)
    );
    assert_eq!(
        marked(&scenario(r#"{"default_cap":5}"#), Axis::DefaultCap, 1..=9),
        [5]
    );
    // caps 3 and 2 differ: no step is today's fleet
    let mixed = today(&f, &none, Axis::MemberCap).unwrap();
    assert_eq!(mixed.value, None);
    assert_eq!(
        mixed.note,
        "the members' caps differ now (2–3): no step is today's fleet"
    );
    assert!(marked(&none, Axis::MemberCap, 1..=4).is_empty());
    let same = scenario(r#"{"changes":[{"op":"set_cap","member":"w2","cap":3}]}"#);
    assert_eq!(marked(&same, Axis::MemberCap, 1..=4), [3]);
    // the document names it, and the smallest value meeting the targets given
    let steps = sweep(&f, &none, add, 0..=2, None).unwrap();
    let targets = Targets {
        max_over_mean: 10.0,
        max_queued: 0,
    };
    let doc = sweep_document(&f, &none, add, &steps, Some(targets)).unwrap();
    assert_eq!(
        (doc.today.value, doc.smallest_meeting),
        (Some(0), smallest_meeting(&steps, 10.0, 0).map(|s| s.value))
    );
}

/// A comparison says which way it runs, exactly (i64 milliseconds beyond 2^53), the caps that
/// changed and each member's change, counted as the core counts them.
#[test]
fn a_comparison_says_which_way_it_runs_and_what_each_member_gained() {
    let at = |ms: i64| {
        let mut snap = before().snapshot();
        snap.taken_at_ms = ms;
        Fleet::from_snapshot(&snap).unwrap()
    };
    let (early, late) = (at(9_007_199_254_740_992), at(9_007_199_254_740_993));
    let forward = diff(&early, &late, None).unwrap();
    assert_eq!(
        (forward.chronology, forward.chronology_warning),
        (Chronology::Forward, None)
    );
    let back = diff(&late, &early, None).unwrap();
    assert_eq!(back.chronology, Chronology::Backwards);
    assert!(back.chronology_warning.unwrap().contains("runs backwards"));
    let same = diff(&early, &early, None).unwrap();
    assert_eq!(same.chronology, Chronology::SameInstant);
    assert!(same.chronology_warning.unwrap().contains("same instant"));
    // w2's cap 4 → 6, w3 joins with 10, w1 goes from 20 to 0
    let after = Store::new()
        .presence("w2", Some(6))
        .presence("w3", Some(4))
        .leader("w2")
        .split("s0", 10, Some("w3"), 2, 0)
        .held("s0", "w3")
        .split("s1", 10, Some("w2"), 2, 0)
        .held("s1", "w2")
        .fleet();
    let d = diff(&before().fleet(), &after, None).unwrap();
    let change: Vec<(&str, i128)> = d
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.load_change))
        .collect();
    assert_eq!(change, [("w1", -20), ("w2", 10), ("w3", 10)]);
    assert_eq!(d.cap_changes.len(), 1);
    assert_eq!(
        (
            d.cap_changes[0].name.as_str(),
            d.cap_changes[0].before,
            d.cap_changes[0].after
        ),
        ("w2", 4, 6)
    );
    assert_eq!(d.owner_changed, 2);
    assert_eq!(d.decision.differing as usize, d.decision.differences.len());
    assert_eq!(
        d.decision.verdict,
        "The later snapshot has no published assignment (no assign.* records) to check against the planner."
    );
    assert_eq!(
        d.figures_before.max_over_mean_planned.len(),
        6,
        "four decimals: {}",
        d.figures_before.max_over_mean_planned
    );
}

/// Four members of cap 2 (w10 holds nothing, w2 one split of 10, w1 and w9 two each) and one
/// split nobody holds: six splits of weight 10.
fn four_members() -> Store {
    let mut s = Store::new().leader("w1");
    for m in ["w1", "w2", "w9", "w10"] {
        s = s.presence(m, Some(2));
    }
    for (id, owner) in [("a", "w1"), ("b", "w1"), ("c", "w9"), ("d", "w9"), ("e", "w2")] {
        s = s.split(id, 10, Some(owner), 1, 0).held(id, owner);
    }
    s.split("f", 10, None, 1, 0)
}

/// A sweep of the fleet's size: below today's count each step is the what-if of its members
/// stopping gracefully, in the order asked (what each carries now, lightest or heaviest first,
/// ties by natural name order; or the last by name first), above it of members added; today's
/// count is today's fleet; the verdict names the fewest members that meet the targets and who
/// the fleet loses to get there.
#[test]
fn a_members_sweep_removes_members_in_the_order_asked_and_names_the_fewest_meeting_the_targets() {
    let f = four_members().fleet();
    let none = Scenario::default();
    let order = |name: &str| {
        let axis = Axis::parse(name, None).unwrap();
        sweep(&f, &none, axis, 0..=4, None).unwrap()[0].removed.clone()
    };
    assert_eq!(order("members"), ["w10", "w2", "w9", "w1"]);
    assert_eq!(order("members_lightest_first"), ["w10", "w2", "w9", "w1"]);
    assert_eq!(order("members_heaviest_first"), ["w1", "w9", "w2", "w10"]);
    assert_eq!(order("members_last_named_first"), ["w10", "w9", "w2", "w1"]);
    assert_eq!(
        Axis::parse("members_sideways", None).unwrap_err().code(),
        spate_planner_core::ErrorCode::InvalidSweep
    );

    let axis = Axis::parse("members", Some(2)).unwrap();
    let steps = sweep(&f, &none, axis, 1..=5, None).unwrap();
    let by_hand = [
        r#"{"changes":[{"op":"remove_member","member":"w10","departure":"graceful"},{"op":"remove_member","member":"w2","departure":"graceful"},{"op":"remove_member","member":"w9","departure":"graceful"}]}"#,
        r#"{"changes":[{"op":"remove_member","member":"w10","departure":"graceful"},{"op":"remove_member","member":"w2","departure":"graceful"}]}"#,
        r#"{"changes":[{"op":"remove_member","member":"w10","departure":"graceful"}]}"#,
        r#"{}"#,
        r#"{"changes":[{"op":"add_member","member":"added-01","cap":2}]}"#,
    ];
    for (step, text) in steps.iter().zip(by_hand) {
        let r = analyse(&f, &scenario(text)).unwrap().report;
        assert_eq!(step.members as usize, r.members.len(), "{text}");
        assert_eq!(step.value, step.members, "{text}");
        assert_eq!(
            (step.max_load, step.queued, step.moves),
            (r.balance.max_load, r.counts.queued, r.churn.moves),
            "{text}"
        );
    }
    let removed: Vec<Vec<String>> = steps.iter().map(|s| s.removed.clone()).collect();
    assert_eq!(removed[1], ["w10", "w2"]);
    assert!(removed[3].is_empty() && removed[4].is_empty());
    let marked: Vec<u32> = steps.iter().filter(|s| s.today).map(|s| s.value).collect();
    assert_eq!(marked, [4]);
    assert_eq!(today(&f, &none, axis).unwrap().note, "4 members now");

    // lanes: 2 members hold 4 of 6 splits (2 queued); 3 hold all 6, 2 each (max/mean 1);
    // 4 and 5 hold them unevenly (max 20 against a mean of 15 or 12)
    let q: Vec<u32> = steps.iter().map(|s| s.queued).collect();
    assert_eq!(q, [4, 2, 0, 0, 0]);
    let targets = Targets {
        max_over_mean: 1.05,
        max_queued: 0,
    };
    let doc = sweep_document(&f, &none, axis, &steps, Some(targets)).unwrap();
    assert_eq!(doc.smallest_meeting, Some(3));
    let v = doc.verdict.unwrap();
    assert!(
        v.starts_with("Fewest members meeting the targets (max/mean at most 1.05 and at most 0 queued): 3 — 3 members, max/mean 1.0000, 0 queued,"),
        "{v}"
    );
    assert!(v.contains("it loses 1 (the lightest first): w10"), "{v}");
}
