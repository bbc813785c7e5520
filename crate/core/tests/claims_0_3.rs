//! Property tests of Spate 0.3's `claim_candidates` (decision-core-0.3.md section 4), each
//! written from the spec's text: the safety property of decision-core.md section 6; a candidate
//! is a reclaim exactly when a lease is present and the record names an owner; a candidate whose
//! record names no owner never consumes an attempt; and exactness (a split with a spec is
//! returned exactly when it is runnable, not owned, under no foreign lease, and
//! `awaits_lease_expiry` does not hold). And `next_actions` under 0.3 follows the same rules.

use crate::common;

use common::arb_fleet;
use common::cases::cases;
use proptest::prelude::*;
use spate_planner_core::{claim_candidates, claims::ClaimAction, ClaimKind, Rules, SplitState, SplitStatus};
use std::collections::{BTreeMap, BTreeSet};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const RUN: &str = "run";

/// Section 4 step 2, from the text: runnable, the record names an owner, `attempts + 1 >=
/// max_attempts`, and a lease under `instance` with a nonce other than `run`.
fn awaits_lease_expiry(s: &SplitState, instance: &str, max_attempts: u32) -> bool {
    s.progress.status == SplitStatus::Runnable
        && s.progress.owner.is_some()
        && u64::from(s.progress.attempts) + 1 >= u64::from(max_attempts)
        && s.lease
            .as_ref()
            .is_some_and(|l| l.value.owner == instance && l.value.nonce != RUN)
}

/// The splits of `f` with each lease's nonce set to the worker's own `run` or another's.
fn with_nonces(splits: &BTreeMap<String, SplitState>, own_run: &[bool]) -> BTreeMap<String, SplitState> {
    let mut out = splits.clone();
    for (i, s) in out.values_mut().enumerate() {
        if let Some(l) = s.lease.as_mut() {
            l.value.nonce = if own_run[i % own_run.len()] {
                RUN.into()
            } else {
                "other".into()
            };
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn claim_candidates_follow_section_4(
        f in arb_fleet(6, 120),
        own_run in prop::collection::vec(any::<bool>(), 1..40),
        owned_picks in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        instance in prop::sample::select(vec!["a", "b", "gone-0", "nobody"]),
        max_attempts in 0u32..7,
    ) {
        let splits = with_nonces(&f.splits, &own_run);
        let ids: Vec<&String> = splits.keys().collect();
        let owned: BTreeSet<String> = if ids.is_empty() { BTreeSet::new() } else {
            owned_picks.iter().map(|p| ids[p.index(ids.len())].clone()).collect()
        };
        let c = claim_candidates(Rules::V0_3, &splits, |id| owned.contains(id), instance, Some(RUN), max_attempts);
        let listed: BTreeMap<&str, (ClaimKind, ClaimAction)> = c.iter().map(|x| (x.id.as_str(), (x.kind, x.action))).collect();
        prop_assert_eq!(listed.len(), c.len(), "no split twice");
        for (id, s) in &splits {
            let foreign = s.lease.as_ref().is_some_and(|l| l.value.owner != instance);
            let eligible = s.progress.status == SplitStatus::Runnable
                && !owned.contains(id)
                && !foreign
                && !awaits_lease_expiry(s, instance, max_attempts);
            let Some(&(kind, action)) = listed.get(id.as_str()) else {
                // exactness: a split with a spec is left out only when it is not eligible
                prop_assert!(!(eligible && s.spec.is_some()), "{} is eligible but not listed", id);
                continue;
            };
            prop_assert!(eligible, "{} listed but not eligible", id);
            // a reclaim exactly when a lease is present and the record names an owner
            let reclaim = s.lease.is_some() && s.progress.owner.is_some();
            prop_assert_eq!(kind == ClaimKind::Reclaim, reclaim, "{}", id);
            // a record naming no owner never costs an attempt
            let costs = matches!(kind, ClaimKind::Reclaim | ClaimKind::Expired);
            if s.progress.owner.is_none() {
                prop_assert!(!costs, "{} names no owner but is {:?}", id, kind);
                let want = if s.progress.epoch == 0 { ClaimKind::Create } else { ClaimKind::Released };
                prop_assert_eq!(kind, want, "{}", id);
            } else if s.lease.is_none() {
                prop_assert_eq!(kind, ClaimKind::Expired, "{}", id);
            }
            // safety (decision-core.md section 6): a quarantine exactly when the kind costs an
            // attempt and the count that follows reaches max_attempts
            let quarantine = costs && u64::from(s.progress.attempts) + 1 >= u64::from(max_attempts);
            prop_assert_eq!(action == ClaimAction::Quarantine, quarantine, "{}", id);
            if action == ClaimAction::Claim {
                prop_assert!(s.spec.is_some(), "{} claimed without a spec", id);
            }
        }
        // ordered by kind (create, released, reclaim, expired), then id
        let rank = |k: ClaimKind| [ClaimKind::Create, ClaimKind::Released, ClaimKind::Reclaim, ClaimKind::Expired]
            .iter().position(|x| *x == k).unwrap();
        prop_assert!(c.windows(2).all(|w| (rank(w[0].kind), &w[0].id) < (rank(w[1].kind), &w[1].id)));
    }
}
