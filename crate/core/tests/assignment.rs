//! Property tests of `desired_assignment`: the production implementation equals the plain
//! transcription of the spec, and the spec's invariants 1-5 hold (docs/work-assignment.md).

use crate::common;

use common::cases::cases;

use common::{arb_fleet, arb_fleet_at, arb_skewed_fleet, shaped_fleet, split, Fleet, FleetExt, Scale};
use proptest::prelude::*;
use spate_planner_core::{
    assign::{plan, plan_with_hash, Pass, Plan},
    reference, stable_hash_str, Assignment, SplitStatus,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn run(f: &Fleet) -> Plan {
    plan(&f.assign_inputs())
}

fn run_reference(f: &Fleet) -> (Assignment, usize) {
    reference::desired_assignment(&f.members, &f.splits, &f.reserved, &f.caps, f.default_cap, f.seed)
}

/// Each member's load under an assignment (saturating, as the leader sums).
fn loads(f: &Fleet, a: &Assignment) -> BTreeMap<String, u64> {
    let pool = f.pool();
    a.iter()
        .map(|(m, ids)| {
            (
                m.clone(),
                ids.iter().fold(0u64, |l, id| l.saturating_add(pool[id.as_str()])),
            )
        })
        .collect()
}

/// The fleet with ownership replaced by `a`: assigned splits get a lease and `progress.owner`
/// naming their member, the others get neither.
fn owned_as(f: &Fleet, a: &Assignment) -> Fleet {
    let owner_of: BTreeMap<&str, &str> = a
        .iter()
        .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
        .collect();
    let mut g = f.clone();
    for (id, s) in Arc::make_mut(&mut g.splits).iter_mut() {
        let o = owner_of.get(id.as_str()).copied();
        let w = s.spec.as_ref().map(|sp| sp.weight);
        *s = split(
            id,
            w,
            s.progress.status,
            s.progress.completed,
            o,
            o,
            s.progress.epoch,
            s.progress.attempts,
        );
    }
    g
}

/// Some admitted improving move in `a`, by brute force (the spec's admission rule).
/// `load` is the leader's running load of each member.
fn some_improving_move(
    f: &Fleet,
    a: &Assignment,
    load: &BTreeMap<String, u64>,
) -> Option<(String, String, String)> {
    let pool = f.pool();
    for (from, ids) in a {
        for (to, held) in a {
            if to == from || held.len() >= f.cap(to) {
                continue;
            }
            for id in ids {
                let w = pool[id.as_str()];
                if load[from] > load[to].saturating_add(w) {
                    return Some((id.clone(), from.clone(), to.clone()));
                }
            }
        }
    }
    None
}

fn check_invariants(f: &Fleet) -> Result<(), TestCaseError> {
    let p = run(f);
    let a = &p.assignment;
    let pool = f.pool();
    // Whether some load sum can saturate; then the leader's running loads (which subtract from a
    // saturated sum) are no longer plain sums, and re-planning from scratch may differ.
    let saturates = pool.values().try_fold(0u64, |t, w| t.checked_add(*w)).is_none();

    // 1. Deterministic.
    prop_assert_eq!(&run(f), &p);

    // One entry per member; caps respected; only pooled splits; no split twice (2).
    prop_assert_eq!(
        a.keys().collect::<BTreeSet<_>>(),
        f.members.iter().collect::<BTreeSet<_>>()
    );
    let mut seen = BTreeSet::new();
    for (m, ids) in a {
        prop_assert!(
            ids.len() <= f.cap(m),
            "{} holds {} > cap {}",
            m,
            ids.len(),
            f.cap(m)
        );
        prop_assert!(ids.windows(2).all(|w| w[0] < w[1]), "list of {} not sorted", m);
        for id in ids {
            prop_assert!(pool.contains_key(id.as_str()), "{} is not assignable", id);
            prop_assert!(seen.insert(id.clone()), "{} assigned twice", id);
        }
    }

    // 4. Local optimum, unless the bound was hit, which is then reported.
    let improving = some_improving_move(f, a, &p.explain.loads_by_name());
    if p.explain.bound_hit {
        prop_assert_eq!(p.explain.improvable, improving.is_some());
    } else {
        prop_assert!(improving.is_none(), "improving move left: {:?}", improving);
        prop_assert!(!p.explain.improvable);
    }
    if !p.explain.bound_hit && !saturates {
        // 3. Fixpoint.
        let again = run(&owned_as(f, a));
        prop_assert_eq!(&again.assignment, a);
        prop_assert!(again.explain.moves.is_empty());
    }

    // 5. Total: an assignable split is unassigned only when every lane is full.
    let unassigned: Vec<_> = pool.keys().filter(|id| !seen.contains(**id)).collect();
    if !unassigned.is_empty() {
        for (m, ids) in a {
            prop_assert_eq!(
                ids.len(),
                f.cap(m),
                "{:?} unassigned while {} has a free lane",
                unassigned,
                m
            );
        }
    }
    prop_assert_eq!(p.explain.queue.len(), unassigned.len());

    // The explanation agrees with the plan.
    prop_assert_eq!(p.explain.placements.len(), f.splits.len());
    prop_assert_eq!(p.explain.placements.iter().flatten().count(), seen.len());
    for (id, pl) in f.splits.keys().zip(&p.explain.placements) {
        let Some(pl) = pl else { continue };
        let member = &p.explain.members[pl.member];
        prop_assert!(a[member].contains(id));
        prop_assert_eq!(pl.pass == Pass::Improve, pl.last_move.is_some());
        if let Some(i) = pl.last_move {
            prop_assert_eq!(&p.explain.moves[i].split, id);
            prop_assert_eq!(&p.explain.moves[i].to, member);
        }
    }
    // Loads are running sums: equal to the plain sums unless the fleet's total saturates.
    if !saturates {
        prop_assert_eq!(&p.explain.loads_by_name(), &loads(f, a));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// The production implementation equals the plain transcription, result and move count.
    #[test]
    fn production_equals_reference(f in arb_fleet(12, 300)) {
        let p = run(&f);
        let (a, moves) = run_reference(&f);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// The same with small fleets, where ties and full lanes are common.
    #[test]
    fn production_equals_reference_small_fleets(f in arb_fleet(4, 40)) {
        let p = run(&f);
        let (a, moves) = run_reference(&f);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// Skewed ownership (the scale-out shape), where the improving pass does most of the work.
    #[test]
    fn production_equals_reference_skewed(f in arb_skewed_fleet(12, 300)) {
        let p = run(&f);
        let (a, moves) = run_reference(&f);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
        check_invariants(&f)?;
    }

    /// With a hash that takes only a few values, (gain, hash) ties between distinct splits are
    /// common, so the scan-order tie-breaks (from, to, position) decide: still identical.
    #[test]
    fn production_equals_reference_under_hash_collisions(
        f in prop_oneof![arb_fleet(12, 200), arb_skewed_fleet(8, 200)],
        buckets in 1u64..4,
    ) {
        let h = |seed: u64, s: &str| stable_hash_str(seed, s) % buckets;
        let p = plan_with_hash(&f.assign_inputs(), h);
        let (a, moves) = reference::desired_assignment_with_hash(&f.members, &f.splits, &f.reserved, &f.caps, f.default_cap, f.seed, h);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// Invariants 1-5 of decision-core.md section 5, and the explanation's consistency, on
    /// every weight scale (the fixpoint only where sums cannot saturate).
    #[test]
    fn assignment_invariants_hold(f in arb_fleet(12, 300)) {
        check_invariants(&f)?;
    }

    /// The same on the spec's two scales alone: 1..50 and 1e9..8e9.
    #[test]
    fn assignment_invariants_hold_on_spec_scales(f in prop_oneof![arb_fleet_at(Scale::Small, 12, 300), arb_fleet_at(Scale::Bytes, 12, 300)]) {
        check_invariants(&f)?;
    }
}

/// Heavily skewed ownership on byte-scale weights (the scale-out shape), differential.
#[test]
fn scale_out_equals_reference() {
    let members: Vec<String> = (0..12).map(|i| format!("m{i:02}")).collect();
    let names: Vec<&str> = members.iter().map(String::as_str).collect();
    let weights: Vec<u64> = (0..240u64)
        .map(|i| 1_000_000 + (i * 7919 % 200) * 1_000_000)
        .collect();
    let f = shaped_fleet(&names, &weights, |i| Some(format!("m{:02}", i % 6)), 48, 99);
    let p = run(&f);
    let (a, moves) = run_reference(&f);
    assert_eq!(p.assignment, a);
    assert_eq!(p.explain.moves.len(), moves);
    assert!(
        moves > 50,
        "the shape should need many improving moves, made {moves}"
    );
}

/// Equal weights and equal loads everywhere: every choice is a tie-break.
#[test]
fn all_ties_equal_reference() {
    for seed in [0u64, 1, 7, u64::MAX] {
        let names = ["a", "b", "c", "d", "e"];
        let f = shaped_fleet(
            &names,
            &[5; 37],
            |i| (i % 3 == 0).then(|| "a".to_string()),
            9,
            seed,
        );
        let (a, _) = run_reference(&f);
        assert_eq!(run(&f).assignment, a, "seed {seed}");
    }
}

/// Weights of u64::MAX saturate loads and never panic; the result matches the reference.
#[test]
fn saturating_weights_equal_reference() {
    let names = ["a", "b", "c"];
    let weights = [
        u64::MAX,
        u64::MAX,
        u64::MAX - 1,
        1,
        0,
        u64::MAX / 2,
        u64::MAX / 2 + 1,
    ];
    let f = shaped_fleet(
        &names,
        &weights,
        |i| Some(["a", "b", "zz"][i % 3].to_string()),
        3,
        5,
    );
    let (a, moves) = run_reference(&f);
    let p = run(&f);
    assert_eq!(p.assignment, a);
    assert_eq!(p.explain.moves.len(), moves);
}

/// The 4096-move bound is detected and reported, with the same result as the reference.
#[test]
fn move_bound_is_reported() {
    let weights = vec![1u64; 9000];
    let f = shaped_fleet(&["a", "b"], &weights, |_| Some("a".to_string()), 9000, 3);
    let p = run(&f);
    assert!(p.explain.bound_hit);
    assert!(p.explain.improvable, "a balanced result would need 4500 moves");
    assert_eq!(p.explain.moves.len(), reference::MAX_IMPROVING_MOVES);
    assert_eq!(p.assignment["b"].len(), 4096);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (a, moves) = run_reference(&f);
        assert_eq!(p.assignment, a);
        assert_eq!(moves, 4096);
    }
}

/// Exactly 4096 moves balance 8192 unit splits on two members: the bound is hit and nothing
/// more improves, so `improvable` is false (the other outcome of the bound).
#[test]
fn move_bound_hit_at_a_local_optimum_is_not_improvable() {
    let f = shaped_fleet(&["a", "b"], &vec![1u64; 8192], |_| Some("a".to_string()), 9000, 3);
    let p = run(&f);
    assert!(p.explain.bound_hit);
    assert!(!p.explain.improvable, "4096 moves reach 4096/4096");
    assert_eq!((p.assignment["a"].len(), p.assignment["b"].len()), (4096, 4096));
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (a, moves) = run_reference(&f);
        assert_eq!((p.assignment, p.explain.moves.len()), (a, moves));
    }
}

/// Random fleets large enough to reach the 4096-move bound (at least ~4150 moves are needed),
/// against the plain transcription; `improvable` is checked by brute force. The tests above pin
/// both outcomes of `improvable` on fixed fleets. Native only: the transcription takes seconds.
#[cfg(not(target_arch = "wasm32"))]
mod near_the_bound {
    use super::*;
    use proptest::test_runner::FileFailurePersistence;

    proptest! {
        // Its failures are kept in a file of their own: proptest replays every seed of
        // assignment.proptest-regressions (found by the other tests here) before its own cases,
        // and under this test's strategy they are five more random fleets of 8,300 splits (12 s
        // instead of 2), not the failures they were saved for.
        #![proptest_config(ProptestConfig {
            failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("near-bound-regressions"))),
            ..ProptestConfig::with_cases(cases(1))
        })]

        #[test]
        fn production_equals_reference_at_the_move_bound(
            n in 8300usize..8400,
            members in 2usize..4,
            heavy in prop::collection::vec(1u64..3, 0..40),
            seed in any::<u64>(),
        ) {
            let names: Vec<String> = (0..members).map(|i| format!("m{i}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut weights = vec![1u64; n];
            weights.extend(heavy);
            let f = shaped_fleet(&refs, &weights, |_| Some("m0".to_string()), 20_000, seed);
            let p = run(&f);
            let (a, moves) = run_reference(&f);
            prop_assert_eq!(&p.assignment, &a);
            prop_assert_eq!(p.explain.moves.len(), moves);
            prop_assert!(p.explain.bound_hit);
            let more = some_improving_move(&f, &p.assignment, &p.explain.loads_by_name());
            prop_assert_eq!(p.explain.improvable, more.is_some());
        }
    }
}

/// Queued splits are exactly the ones beyond the fleet's lanes, in pool order.
#[test]
fn queue_is_what_exceeds_the_lanes() {
    let f = shaped_fleet(&["a", "b"], &[10, 9, 8, 7, 6, 5], |_| None, 2, 1);
    let p = run(&f);
    assert_eq!(p.explain.queue, vec!["s00004".to_string(), "s00005".to_string()]);
    assert!(p.assignment.values().all(|v| v.len() == 2));
}

/// No members: an empty result, whatever the splits.
#[test]
fn no_members_no_entries() {
    let f = shaped_fleet(&[], &[1, 2, 3], |_| Some("x".into()), 2, 1);
    assert!(run(&f).assignment.is_empty());
    let g = Fleet {
        splits: BTreeMap::from([(
            "q".into(),
            split("q", None, SplitStatus::Runnable, false, None, None, 0, 0),
        )])
        .into(),
        ..f
    };
    assert!(run(&g).assignment.is_empty());
}

/// Two members offer moves of equal gain to the same light member: the larger split hash wins
/// wherever it is, also when it belongs to the member scanned second (a mutant that stopped
/// at an equal gain kept the first member's split).
#[test]
fn equal_gains_from_two_members_go_to_the_larger_hash() {
    let mut winners_in_b = 0;
    for seed in 0u64..16 {
        // a holds s00000, s00001 and b holds s00002, s00003, each of weight 5; t holds nothing.
        let f = shaped_fleet(
            &["a", "b", "t"],
            &[5; 4],
            |i| Some(["a", "b"][i / 2].to_string()),
            4,
            seed,
        );
        let p = run(&f);
        // Every candidate gains 5 * (10 - 0 - 5) = 25; the tie falls to the larger split hash.
        let want = (0..4)
            .map(|i| format!("s{i:05}"))
            .max_by_key(|id| stable_hash_str(seed, id))
            .unwrap();
        assert_eq!(
            p.explain.moves.len(),
            1,
            "seed {seed}: one move balances what can be"
        );
        assert_eq!(p.explain.moves[0].split, want, "seed {seed}");
        assert_eq!(p.explain.moves[0].to, "t");
        assert_eq!(p.explain.moves[0].gain, 25);
        assert_eq!(run_reference(&f).0, p.assignment, "seed {seed}");
        winners_in_b += usize::from(p.explain.moves[0].from == "b");
    }
    assert!(
        winners_in_b > 0,
        "the fixture must let b's split win for some seed"
    );
}
