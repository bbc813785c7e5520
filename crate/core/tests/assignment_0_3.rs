//! Property tests of Spate 0.3's `desired_assignment` (decision-core-0.3.md section 2): the
//! production implementation equals the plain transcription of 0.3, at the move bound and under
//! forced hash collisions too; the four fixpoints of section 2.3; and, on the input families where
//! section 10 says 0.1 and 0.3 decide alike, the two rule sets give the same plan.

use crate::common;

use common::cases::cases;
use common::{arb_fleet, arb_fleet_0_3, arb_skewed_fleet, split, Fleet};
use proptest::prelude::*;
use spate_planner_core::{
    assign::{plan, plan_with_hash, Plan},
    reference, stable_hash_str, Assignment, Rules, SplitState,
};
use std::collections::BTreeMap;
use std::sync::Arc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn run(f: &Fleet) -> Plan {
    plan(&f.assign_inputs())
}

fn run_reference(f: &Fleet) -> (Assignment, usize) {
    reference::desired_assignment_0_3(
        &f.members,
        &f.splits,
        &f.reserved,
        &f.previous,
        &f.caps,
        f.default_cap,
        f.seed,
    )
}

fn as_0_3(mut f: Fleet) -> Fleet {
    f.rules = Rules::V0_3;
    f
}

/// Split id -> member, of an assignment.
fn member_of(a: &Assignment) -> BTreeMap<String, String> {
    a.iter()
        .flat_map(|(m, ids)| ids.iter().map(move |id| (id.clone(), m.clone())))
        .collect()
}

/// Section 2.3's fed-back view of `a`: every split `a` assigns to m gets a lease (m, epoch 1)
/// and `progress.owner = m`; every other split gets neither. `previous` as given.
fn fed_back(f: &Fleet, a: &Assignment, previous: BTreeMap<String, String>) -> Fleet {
    let owner = member_of(a);
    let mut g = f.clone();
    for (id, s) in Arc::make_mut(&mut g.splits).iter_mut() {
        let o = owner.get(id).map(String::as_str);
        let w = s.spec.as_ref().map(|sp| sp.weight);
        *s = split(
            id,
            w,
            s.progress.status,
            s.progress.completed,
            o,
            o,
            1,
            s.progress.attempts,
        );
    }
    g.previous = Arc::new(previous);
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// The production implementation equals the plain transcription of 0.3, result and moves.
    #[test]
    fn production_equals_the_0_3_transcription(f in arb_fleet_0_3(12, 300)) {
        let p = run(&f);
        let (a, moves) = run_reference(&f);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// The same on small fleets, where full lanes make walks 3a and 3b compete.
    #[test]
    fn production_equals_the_0_3_transcription_small_fleets(f in arb_fleet_0_3(4, 40)) {
        let p = run(&f);
        let (a, moves) = run_reference(&f);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// Skewed ownership under 0.3 (previous empty), where the improving pass does the work.
    #[test]
    fn production_equals_the_0_3_transcription_skewed(f in arb_skewed_fleet(12, 300)) {
        let f = as_0_3(f);
        let p = run(&f);
        let (a, moves) = run_reference(&f);
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// With a hash that takes few values, the scan-order tie-breaks decide: still identical.
    #[test]
    fn production_equals_the_0_3_transcription_under_hash_collisions(
        f in arb_fleet_0_3(12, 200),
        buckets in 1u64..4,
    ) {
        let h = |seed: u64, s: &str| stable_hash_str(seed, s) % buckets;
        let p = plan_with_hash(&f.assign_inputs(), h);
        let (a, moves) = reference::desired_assignment_0_3_with_hash(
            &f.members, &f.splits, &f.reserved, &f.previous, &f.caps, f.default_cap, f.seed, h,
        );
        prop_assert_eq!(&p.assignment, &a);
        prop_assert_eq!(p.explain.moves.len(), moves);
    }

    /// Section 2.3, fixpoints 3a-3d: the fed-back view of a result reproduces it, with
    /// `previous` = the result (3a), empty (3b), with any subset of the assigned splits showing
    /// no lease and no owner (3c), and with every record moved to epoch 2 under a lingering epoch-1
    /// lease from an arbitrary instance (3d).
    #[test]
    fn the_four_fixpoints_hold(
        f in arb_fleet_0_3(10, 200),
        unseen in prop::collection::vec(any::<bool>(), 200),
        lingering in prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "ghost", "gone-0"]), 200),
    ) {
        let p = run(&f);
        // Not claimed when the move bound stops the improving pass, nor when a load sum
        // saturates (invariants 3 and 4 of decision-core.md section 5).
        prop_assume!(!p.explain.bound_hit);
        let a = p.assignment;
        let total = f.splits.values().filter_map(|s| s.assign_weight()).try_fold(0u64, |t, w| t.checked_add(w));
        prop_assume!(total.is_some());
        let prev = member_of(&a);
        let view = fed_back(&f, &a, prev.clone());
        prop_assert_eq!(&run(&view).assignment, &a, "3a");
        let view_b = fed_back(&f, &a, BTreeMap::new());
        prop_assert_eq!(&run(&view_b).assignment, &a, "3b");
        let mut view_c = view.clone();
        for (i, s) in Arc::make_mut(&mut view_c.splits).values_mut().enumerate() {
            if unseen[i % unseen.len()] {
                s.lease = None;
                s.progress.owner = None;
            }
        }
        prop_assert_eq!(&run(&view_c).assignment, &a, "3c");
        let mut view_d = view.clone();
        for (i, (id, s)) in Arc::make_mut(&mut view_d.splits).iter_mut().enumerate() {
            s.progress.epoch = 2;
            let who = lingering[i % lingering.len()];
            *s = with_lease(s, id, who, 1);
        }
        prop_assert_eq!(&run(&view_d).assignment, &a, "3d");
    }
}

/// `s` carrying a lease `(owner, epoch)`.
fn with_lease(s: &SplitState, id: &str, owner: &str, epoch: u64) -> SplitState {
    let w = s.spec.as_ref().map(|sp| sp.weight);
    let p = &s.progress;
    let mut out = split(
        id,
        w,
        p.status,
        p.completed,
        p.owner.as_deref(),
        Some(owner),
        epoch,
        p.attempts,
    );
    out.progress.epoch = p.epoch;
    out
}

/// Section 10, families 1 and 2: `previous` empty, and every pooled split has no lease and no
/// owner, or a lease from the instance its record names, or a lease ahead of a record naming
/// nobody (family 1, lanes may bind); with caps that cannot bind, records may also name an owner
/// without a lease (family 2).
fn agreeing(f: Fleet, shapes: &[u8], unbounded: bool) -> Fleet {
    let mut g = f;
    g.previous = Arc::default();
    let pooled = g.splits.len().max(1) as u32;
    for (i, (id, s)) in Arc::make_mut(&mut g.splits).iter_mut().enumerate() {
        let w = s.spec.as_ref().map(|sp| sp.weight);
        let p = s.progress.clone();
        let owner = p
            .owner
            .clone()
            .or(s.lease.as_ref().map(|l| l.value.owner.clone()));
        let o = owner.as_deref();
        let e = p.epoch;
        *s = match shapes[i % shapes.len()] % if unbounded { 4 } else { 3 } {
            0 => split(id, w, p.status, p.completed, None, None, e, p.attempts),
            1 => split(id, w, p.status, p.completed, o, o, e, p.attempts),
            2 => {
                let mut t = split(id, w, p.status, p.completed, None, o, e + 1, p.attempts);
                t.progress.epoch = e;
                t
            }
            _ => split(id, w, p.status, p.completed, o, None, e, p.attempts),
        };
    }
    if unbounded {
        g.default_cap = pooled;
        g.caps = g.members.iter().map(|m| (m.clone(), pooled)).collect();
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// Section 10, family 1: the two rule sets give the same plan.
    #[test]
    fn both_rule_sets_agree_where_leases_and_records_agree(
        f in arb_fleet(12, 300),
        shapes in prop::collection::vec(any::<u8>(), 1..50),
    ) {
        let g = agreeing(f, &shapes, false);
        let by_0_1 = run(&g);
        let by_0_3 = run(&as_0_3(g));
        prop_assert_eq!(by_0_1.assignment, by_0_3.assignment);
    }

    /// Section 10, family 2: no lane can bind, and records may name an owner without a lease.
    #[test]
    fn both_rule_sets_agree_when_no_lane_binds(
        f in arb_fleet(12, 300),
        shapes in prop::collection::vec(any::<u8>(), 1..50),
    ) {
        let g = agreeing(f, &shapes, true);
        let by_0_1 = run(&g);
        let by_0_3 = run(&as_0_3(g));
        prop_assert_eq!(by_0_1.assignment, by_0_3.assignment);
    }
}

/// The 4096-move bound under 0.3: every split named by `previous` for one member (walk 3b keeps
/// them there), the improving pass stops at the bound, equal to the transcription. Native only:
/// the transcription takes seconds.
#[cfg(not(target_arch = "wasm32"))]
mod near_the_bound {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(1)))]

        #[test]
        fn production_equals_the_0_3_transcription_at_the_move_bound(
            n in 8300usize..8400,
            members in 2usize..4,
            heavy in prop::collection::vec(1u64..3, 0..40),
            seed in any::<u64>(),
        ) {
            let names: Vec<String> = (0..members).map(|i| format!("m{i}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut weights = vec![1u64; n];
            weights.extend(heavy);
            let mut f = as_0_3(common::shaped_fleet(&refs, &weights, |_| None, 20_000, seed));
            f.previous = Arc::new(f.splits.keys().map(|id| (id.clone(), "m0".to_string())).collect());
            let p = run(&f);
            let (a, moves) = run_reference(&f);
            prop_assert_eq!(&p.assignment, &a);
            prop_assert_eq!(p.explain.moves.len(), moves);
            prop_assert!(p.explain.bound_hit);
        }
    }
}
