//! Property tests of `claim_candidates` (decision-core.md section 6): the safety property and
//! the order.

mod common;

use common::arb_fleet;
use proptest::prelude::*;
use spate_planner_core::records::SplitStatus;
use spate_planner_core::{claim_candidates, ClaimAction, ClaimKind};
use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A candidate is always runnable, never held by this worker, never under a foreign lease,
    /// and a quarantine exactly when its kind consumes an attempt and attempts' >= max_attempts.
    /// Every split that qualifies is listed, in kind priority then id order.
    #[test]
    fn claim_safety(
        f in arb_fleet(6, 120),
        owned_picks in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        instance in prop::sample::select(vec!["w0", "w1", "gone-0", "nobody"]),
        max_attempts in 0u32..7,
    ) {
        let ids: Vec<&String> = f.splits.keys().collect();
        let owned: BTreeSet<String> = if ids.is_empty() { BTreeSet::new() } else {
            owned_picks.iter().map(|p| ids[p.index(ids.len())].clone()).collect()
        };
        let c = claim_candidates(&f.splits, |id| owned.contains(id), instance, max_attempts);
        let mut listed = BTreeSet::new();
        for cand in &c {
            let s = &f.splits[&cand.id];
            prop_assert_eq!(s.progress.status, SplitStatus::Runnable);
            prop_assert!(!owned.contains(&cand.id));
            if let Some(l) = &s.lease {
                prop_assert_eq!(&l.value.owner, instance, "{} is under a foreign lease", cand.id);
            }
            let consumes = matches!(cand.kind, ClaimKind::Reclaim | ClaimKind::Expired);
            let next = s.progress.attempts as u64 + consumes as u64;
            prop_assert_eq!(cand.action == ClaimAction::Quarantine, consumes && next >= max_attempts as u64);
            if cand.action == ClaimAction::Claim {
                prop_assert!(s.spec.is_some());
            }
            listed.insert(cand.id.clone());
        }
        // Order: kind priority, then id.
        prop_assert!(c.windows(2).all(|w| (w[0].kind, &w[0].id) < (w[1].kind, &w[1].id)));
        // Completeness: every unlisted runnable, unowned split has a reason to be left out.
        for (id, s) in &f.splits {
            if listed.contains(id) || s.progress.status != SplitStatus::Runnable || owned.contains(id) {
                continue;
            }
            let foreign = s.lease.as_ref().is_some_and(|l| l.value.owner != instance);
            let consumes = s.lease.is_some() || s.progress.owner.is_some();
            let quarantine = consumes && s.progress.attempts as u64 + 1 >= max_attempts as u64;
            prop_assert!(foreign || (s.spec.is_none() && !quarantine), "{} was left out", id);
        }
    }
}
