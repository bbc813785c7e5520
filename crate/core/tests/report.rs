//! The report's reasons and counts, `owned_as` and `converge`, tested directly on fleets whose
//! answers follow from the spec's passes by hand. Natively and under wasm32.

use crate::common;

use common::{shaped_fleet, split, Fleet};
use spate_planner_core::{
    converge,
    report::{report, Reason},
    SplitStatus,
};
use std::collections::BTreeMap;
use std::sync::Arc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Members a (cap 2) and b (cap 1), default cap 2:
/// - `big` (9) owned by a: sticky on a.
/// - `mid` (8) owned by b: sticky on b (b now full).
/// - `odd` (7) owned by b: b is full, so it is unplaced: fill puts it on a (over cap).
/// - `lost` (6) owned by gone (not a member): fill, but a and b are full: queued.
/// - `new` (5) owned by nobody: queued too, but nothing changes hands.
fn reasons_fleet() -> Fleet {
    let owner = |i: usize| [Some("a"), Some("b"), Some("b"), Some("gone"), None][i].map(str::to_string);
    let mut f = shaped_fleet(&["a", "b"], &[9, 8, 7, 6, 5], owner, 2, 1);
    f.caps.insert("b".into(), 1);
    let ids = ["big", "mid", "odd", "lost", "new"];
    f.splits = (*f.splits)
        .clone()
        .into_values()
        .zip(ids)
        .map(|(mut s, id)| {
            s.progress.id = id.into();
            (id.to_string(), s)
        })
        .collect::<BTreeMap<_, _>>()
        .into();
    f
}

#[test]
fn every_reason_names_what_the_passes_did() {
    let f = reasons_fleet();
    let p = f.plan();
    let r = report(&f, &p);
    let by: BTreeMap<&str, (Option<&str>, Option<&str>, Reason)> = r
        .moves
        .iter()
        .map(|m| (m.split.as_str(), (m.from.as_deref(), m.to.as_deref(), m.reason)))
        .collect();
    assert_eq!(by["odd"], (Some("b"), Some("a"), Reason::OverCap));
    assert_eq!(by["lost"], (Some("gone"), None, Reason::Queued));
    assert!(!by.contains_key("big") && !by.contains_key("mid") && !by.contains_key("new"));
    assert_eq!(r.queue, vec!["lost".to_string(), "new".to_string()]);
    assert_eq!((r.counts.assigned, r.counts.queued), (3, 2));
    let a = &r.members[0];
    assert_eq!(
        (a.lanes_now, a.lanes, a.gained, a.lost, a.load_now, a.load_planned),
        (1, 2, 1, 0, 9, 16)
    );
    assert_eq!(
        (r.churn.moves, r.churn.weight_moved, r.churn.from_live_members),
        (2, 13, 1)
    );
}

#[test]
fn unowned_owner_gone_and_improve_reasons() {
    // a holds three splits of 4; b is empty; c (a stranger's) and u (nobody's) are filled.
    let owner = |i: usize| [Some("a"), Some("a"), Some("a"), Some("c"), None][i].map(str::to_string);
    let f = shaped_fleet(&["a", "b"], &[4, 4, 4, 3, 1], owner, 10, 7);
    let p = f.plan();
    let r = report(&f, &p);
    let reason = |id: &str| {
        r.moves
            .iter()
            .find(|m| m.split == id)
            .map(|m| (m.reason, m.gain.is_some()))
    };
    assert_eq!(
        reason("s00003"),
        Some((Reason::OwnerGone, false)),
        "fill puts it on the empty b"
    );
    assert_eq!(reason("s00004"), Some((Reason::Unowned, false)));
    // After fill: a = 12, b = 3 + 1 = 4. One split of 4 moves: 12 > 4 + 4, gain 4 * 4 = 16.
    let improved: Vec<_> = r.moves.iter().filter(|m| m.reason == Reason::Improve).collect();
    assert_eq!(improved.len(), 1);
    assert_eq!(improved[0].gain, Some(16));
    assert_eq!(
        (improved[0].from.as_deref(), improved[0].to.as_deref()),
        (Some("a"), Some("b"))
    );
}

#[test]
fn counts_by_state_cover_every_split() {
    let mut f = reasons_fleet();
    for (id, status, completed, weight) in [
        ("done", SplitStatus::Completed, true, Some(1)),
        ("flagged", SplitStatus::Runnable, true, Some(1)),
        ("parked", SplitStatus::Quarantined, false, Some(1)),
        ("nospec", SplitStatus::Runnable, false, None),
        ("held", SplitStatus::Runnable, false, Some(1)),
    ] {
        Arc::make_mut(&mut f.splits)
            .insert(id.into(), split(id, weight, status, completed, None, None, 0, 0));
    }
    f.reserved.insert("held".into());
    let r = report(&f, &f.plan());
    let c = &r.counts;
    assert_eq!(
        (
            c.splits,
            c.completed,
            c.quarantined,
            c.waiting_for_spec,
            c.reserved
        ),
        (10, 2, 1, 1, 1)
    );
    assert_eq!(
        c.assigned + c.queued + c.completed + c.quarantined + c.waiting_for_spec + c.reserved,
        c.splits
    );
}

#[test]
fn owned_as_carries_out_a_plan_and_never_overflows() {
    let mut f = shaped_fleet(
        &["a", "b"],
        &[5, 5, 5],
        |i| (i == 0).then(|| "a".to_string()),
        5,
        1,
    );
    Arc::make_mut(&mut f.splits)
        .get_mut("s00000")
        .unwrap()
        .progress
        .epoch = u64::MAX;
    Arc::make_mut(&mut f.splits).insert(
        "done".into(),
        split(
            "done",
            Some(1),
            SplitStatus::Completed,
            true,
            Some("z"),
            None,
            3,
            0,
        ),
    );
    let assignment = BTreeMap::from([
        ("a".to_string(), vec!["s00001".to_string()]),
        ("b".to_string(), vec!["s00000".to_string()]),
    ]);
    let g = f.owned_as(&assignment);
    let s0 = &g.splits["s00000"];
    assert_eq!(
        s0.progress.epoch,
        u64::MAX,
        "a new owner bumps the epoch, saturating"
    );
    assert_eq!(
        (s0.current_owner(), s0.progress.owner.as_deref()),
        (Some("b"), Some("b"))
    );
    assert_eq!(g.splits["s00001"].current_owner(), Some("a"));
    let s2 = &g.splits["s00002"];
    assert_eq!(
        (s2.lease.is_none(), s2.progress.owner.as_deref()),
        (true, None),
        "unassigned: released"
    );
    assert_eq!(g.splits["done"], f.splits["done"], "outside the pool: unchanged");
}

#[test]
fn converge_runs_until_nothing_moves() {
    // 9000 unit splits on a: the first plan stops at the 4096-move bound; the second finishes.
    let f = shaped_fleet(&["a", "b"], &vec![1u64; 9000], |_| Some("a".to_string()), 9000, 3);
    let c = converge(&f, 10);
    let rounds = &c.rounds;
    assert_eq!(rounds.len(), 3);
    assert_eq!((rounds[0].moves, rounds[0].bound_hit), (4096, true));
    assert_eq!(
        (rounds[1].moves, rounds[1].bound_hit),
        (404, false),
        "4500 - 4096 more"
    );
    assert_eq!(rounds[2].moves, 0);
    assert_eq!(rounds[2].max_over_mean, "1.0000");
    assert_eq!(
        (c.converged, c.verdict.as_str()),
        (true, "Converged: round 3 moves nothing.")
    );
    let one = converge(&f, 1);
    assert_eq!(one.rounds.len(), 1, "at most max_rounds");
    assert_eq!(
        (one.converged, one.verdict.as_str()),
        (false, "Still moving after 1 round.")
    );
    assert_eq!(converge(&f, 0).rounds.len(), 1, "at least one round");
}
