//! Property tests of `claim_candidates` (decision-core.md section 6): the safety property and
//! the order.

use crate::common;

use common::cases::cases;

use common::arb_fleet;
use proptest::prelude::*;
use spate_planner_core::{
    analyse, claim_candidates,
    claims::ClaimAction,
    next_claims,
    worker::{next_actions, next_actions_of_all, WorkerView},
    AssignmentSource, ClaimKind, Rules, Scenario, SplitState, SplitStatus,
};
use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

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
        let c = claim_candidates(Rules::V0_1, &f.splits, |id| owned.contains(id), instance, None, max_attempts);
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
        for (id, s) in f.splits.iter() {
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

// ---------------------------------------------------------------------------------------------
// A worker's next reconcile (worker::next_actions), against a plain transcription of the rules.

use common::store::Store;
use std::collections::BTreeMap;

/// The transcription's answer: actions taken (id, action, kind), drains, fenced splits.
type Transcribed = (Vec<(String, ClaimAction, ClaimKind)>, Vec<String>, Vec<String>);

/// The rules of the issue, line by line: held = leases naming X under X's nonce whose epoch is
/// not behind the progress record's (a lease behind its record was fenced: X dropped the split);
/// candidates per decision-core.md section 6; every quarantine taken; a claim only if assigned
/// and under cap.
fn transcription(
    splits: &BTreeMap<String, SplitState>,
    x: &str,
    nonce: Option<&str>,
    cap: u32,
    assignment: Option<&BTreeSet<String>>,
    max_attempts: u32,
) -> Transcribed {
    let fenced: Vec<String> = splits
        .iter()
        .filter(|(_, s)| {
            s.lease.as_ref().is_some_and(|l| {
                l.value.owner == x
                    && nonce.is_none_or(|n| l.value.nonce == n)
                    && s.progress.epoch > l.value.epoch
            })
        })
        .map(|(id, _)| id.clone())
        .collect();
    let held: BTreeSet<&String> = splits
        .iter()
        .filter(|(_, s)| {
            s.lease.as_ref().is_some_and(|l| {
                let fenced = s.progress.epoch > l.value.epoch;
                l.value.owner == x && nonce.is_none_or(|n| l.value.nonce == n) && !fenced
            })
        })
        .map(|(id, _)| id)
        .collect();
    let mut candidates = Vec::new();
    for (id, s) in splits {
        if s.progress.status != SplitStatus::Runnable || held.contains(id) {
            continue;
        }
        let kind = match (&s.lease, &s.progress.owner) {
            (Some(l), _) if l.value.owner == x => ClaimKind::Reclaim,
            (Some(_), _) => continue,
            (None, None) if s.progress.epoch == 0 => ClaimKind::Create,
            (None, None) => ClaimKind::Released,
            (None, Some(_)) => ClaimKind::Expired,
        };
        let consumes = kind == ClaimKind::Reclaim || kind == ClaimKind::Expired;
        let next = s.progress.attempts as u64 + u64::from(consumes);
        let action = if consumes && next >= max_attempts as u64 {
            ClaimAction::Quarantine
        } else if s.spec.is_some() {
            ClaimAction::Claim
        } else {
            continue;
        };
        let priority = [
            ClaimKind::Create,
            ClaimKind::Released,
            ClaimKind::Reclaim,
            ClaimKind::Expired,
        ]
        .iter()
        .position(|k| *k == kind)
        .unwrap();
        candidates.push((priority, id.clone(), action, kind));
    }
    candidates.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut owned = held.len();
    let mut taken = Vec::new();
    for (_, id, action, kind) in candidates {
        let assigned = assignment.is_some_and(|a| a.contains(&id));
        if action == ClaimAction::Quarantine || (assigned && owned < cap as usize) {
            if action == ClaimAction::Claim {
                owned += 1;
            }
            taken.push((id, action, kind));
        }
    }
    let drains = match assignment {
        Some(a) => held
            .iter()
            .filter(|id| !a.contains(**id))
            .map(|s| s.to_string())
            .collect(),
        None => Vec::new(),
    };
    (taken, drains, fenced)
}

fn as_tuples(n: &spate_planner_core::worker::NextActions) -> Vec<(String, ClaimAction, ClaimKind)> {
    n.actions
        .iter()
        .map(|c| (c.id.clone(), c.action, c.kind))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    /// next_actions equals the transcription: caps, nonces (a predecessor's lease is a reclaim,
    /// not held), fenced leases (behind their record: not held), attempts near the limit, with
    /// and without an assignment record; and the weights never change what a worker does.
    #[test]
    fn a_workers_next_reconcile_follows_the_rules(
        f in arb_fleet(6, 80),
        old_nonce in prop::collection::vec(any::<bool>(), 80),
        lease_epochs in prop::collection::vec(prop::option::weighted(0.3, 0u64..5), 80),
        instance in prop::sample::select(vec!["w0", "w1", "w2", "gone-0"]),
        know_nonce in any::<bool>(),
        cap in 0u32..6,
        picks in prop::option::of(prop::collection::vec(any::<prop::sample::Index>(), 0..40)),
        max_attempts in 0u32..6,
        new_weights in prop::collection::vec(1u64..u64::MAX, 80),
    ) {
        let mut splits = (*f.splits).clone();
        for (i, s) in splits.values_mut().enumerate() {
            if let Some(l) = s.lease.as_mut() {
                l.value.nonce = if old_nonce[i] { "old".into() } else { "cur".into() };
                if let Some(e) = lease_epochs[i] {
                    l.value.epoch = e;
                }
            }
        }
        let ids: Vec<String> = splits.keys().cloned().collect();
        let assignment: Option<BTreeSet<String>> = picks.map(|p| {
            if ids.is_empty() { BTreeSet::new() } else { p.iter().map(|i| ids[i.index(ids.len())].clone()).collect() }
        });
        let nonce = know_nonce.then_some("cur");
        let view = WorkerView { rules: Rules::V0_1, instance, nonce, cap, assignment: assignment.as_ref(), max_attempts };
        let got = next_actions(&splits, &view);
        let (want, drains, fenced) = transcription(&splits, instance, nonce, cap, assignment.as_ref(), max_attempts);
        prop_assert_eq!(as_tuples(&got), want);
        prop_assert_eq!(&got.drains, &drains);
        prop_assert_eq!(&got.fenced, &fenced);
        // weights never matter
        let mut reweighed = splits.clone();
        for (s, w) in reweighed.values_mut().zip(&new_weights) {
            if let Some(spec) = s.spec.as_mut() {
                spec.weight = *w;
            }
        }
        let again = next_actions(&reweighed, &view);
        prop_assert_eq!(as_tuples(&again), as_tuples(&got));
        prop_assert_eq!(again.drains, got.drains);
    }
}

/// One worker of [`the_fleet_at_once_equals_each_worker_alone`]: instance, whether its nonce is
/// known, cap, assignment picks, max_attempts.
type ViewSpec = (&'static str, bool, u32, Option<Vec<prop::sample::Index>>, u32);

fn arb_views() -> impl Strategy<Value = Vec<ViewSpec>> {
    let one = (
        prop::sample::select(vec!["w0", "w1", "w2", "w3", "gone-0", "nobody"]),
        any::<bool>(),
        0u32..6,
        prop::option::weighted(0.8, prop::collection::vec(any::<prop::sample::Index>(), 0..40)),
        prop_oneof![4 => Just(4u32), 1 => 0u32..6],
    );
    prop::collection::vec(one, 0..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// next_actions_of_all (one pass over the splits for the whole fleet) equals next_actions
    /// asked of each worker alone: shared candidates, own and predecessors' leases, fenced
    /// leases, caps, assignments, several max_attempts, repeated instances; by either release's
    /// rules.
    #[test]
    fn the_fleet_at_once_equals_each_worker_alone(
        f in arb_fleet(6, 100),
        old_nonce in prop::collection::vec(any::<bool>(), 100),
        lease_epochs in prop::collection::vec(prop::option::weighted(0.3, 0u64..5), 100),
        specs in arb_views(),
        rules in prop_oneof![Just(Rules::V0_1), Just(Rules::V0_3)],
    ) {
        let mut splits = (*f.splits).clone();
        for (i, s) in splits.values_mut().enumerate() {
            if let Some(l) = s.lease.as_mut() {
                l.value.nonce = if old_nonce[i] { "old".into() } else { "cur".into() };
                if let Some(e) = lease_epochs[i] {
                    l.value.epoch = e;
                }
            }
        }
        let ids: Vec<String> = splits.keys().cloned().collect();
        let assignments: Vec<Option<BTreeSet<String>>> = specs
            .iter()
            .map(|(_, _, _, picks, _)| picks.as_ref().map(|p| {
                if ids.is_empty() { BTreeSet::new() } else { p.iter().map(|i| ids[i.index(ids.len())].clone()).collect() }
            }))
            .collect();
        let views: Vec<WorkerView> = specs
            .iter()
            .zip(&assignments)
            .map(|((instance, know, cap, _, max_attempts), a)| WorkerView {
                rules,
                instance,
                nonce: know.then_some("cur"),
                cap: *cap,
                assignment: a.as_ref(),
                max_attempts: *max_attempts,
            })
            .collect();
        let all = next_actions_of_all(&splits, &views);
        prop_assert_eq!(all.len(), views.len());
        for (w, got) in views.iter().zip(&all) {
            prop_assert_eq!(got, &next_actions(&splits, w), "worker {}", w.instance);
        }
    }
}

fn claims_of(
    store: &Store,
    source: AssignmentSource,
    max_attempts: u32,
) -> BTreeMap<String, Vec<(String, ClaimAction, ClaimKind)>> {
    let fleet = store.fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    next_claims(&fleet, &a, None, source, max_attempts)
        .unwrap()
        .iter()
        .map(|(x, n)| (x.clone(), as_tuples(n)))
        .collect()
}

fn t(id: &str, action: ClaimAction, kind: ClaimKind) -> (String, ClaimAction, ClaimKind) {
    (id.to_string(), action, kind)
}

#[test]
fn a_restarted_worker_reclaims_its_predecessors_leases() {
    // w1 restarted: its presence carries nonce n-w1, the lease on `a` the old process's nonce.
    let store = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .lease("a", "w1", "old-process")
        .split("b", 1, Some("w1"), 1, 0)
        .held("b", "w1")
        .assign("w1", 1, &["a", "b"]);
    let c = claims_of(&store, AssignmentSource::Published, 4);
    assert_eq!(
        c["w1"],
        vec![t("a", ClaimAction::Claim, ClaimKind::Reclaim)],
        "b is held; a is a reclaim"
    );
}

#[test]
fn a_worker_at_its_cap_claims_nothing_but_still_quarantines() {
    let store = Store::new()
        .presence("w1", Some(1))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .held("a", "w1")
        .split("b", 1, None, 0, 0)
        .split("q", 1, Some("gone"), 3, 3)
        .assign("w1", 1, &["a", "b"]);
    let c = claims_of(&store, AssignmentSource::Published, 4);
    assert_eq!(c["w1"], vec![t("q", ClaimAction::Quarantine, ClaimKind::Expired)]);
    // a second worker without an assignment record also quarantines (not gated by assignment)
    let c = claims_of(
        &store.clone().presence("w2", Some(2)),
        AssignmentSource::Published,
        4,
    );
    assert_eq!(
        c["w2"],
        vec![t("q", ClaimAction::Quarantine, ClaimKind::Expired)],
        "w2 has no record: quarantine only"
    );
}

#[test]
fn each_claim_counts_toward_the_cap() {
    let store = Store::new()
        .presence("w1", Some(2))
        .leader("w1")
        .split("a", 1, None, 0, 0)
        .split("b", 1, None, 2, 1)
        .split("c", 1, Some("gone"), 1, 0)
        .assign("w1", 1, &["a", "b", "c"]);
    let c = claims_of(&store, AssignmentSource::Published, 4);
    assert_eq!(
        c["w1"],
        vec![
            t("a", ClaimAction::Claim, ClaimKind::Create),
            t("b", ClaimAction::Claim, ClaimKind::Released)
        ],
        "two lanes: the expired takeover of c waits"
    );
}

#[test]
fn without_a_record_a_worker_claims_nothing_and_keeps_what_it_holds() {
    let store = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .held("a", "w1")
        .split("b", 1, None, 0, 0);
    let fleet = store.fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let n = &next_claims(&fleet, &a, Some("w1"), AssignmentSource::Published, 4).unwrap()["w1"];
    assert!(n.actions.is_empty() && n.drains.is_empty());
    assert_eq!(n.held, vec!["a".to_string()]);
    // once the plan is published, w1 claims b (create) and keeps a
    let n = &next_claims(&fleet, &a, Some("w1"), AssignmentSource::Plan, 4).unwrap()["w1"];
    assert_eq!(as_tuples(n), vec![t("b", ClaimAction::Claim, ClaimKind::Create)]);
    let e = next_claims(&fleet, &a, Some("nobody"), AssignmentSource::Plan, 4).unwrap_err();
    assert_eq!(e.code, spate_planner_core::ErrorCode::NotAMember);
}

#[test]
fn held_splits_the_record_no_longer_names_are_drained() {
    let store = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .held("a", "w1")
        .split("b", 1, Some("w1"), 1, 0)
        .held("b", "w1")
        .assign("w1", 1, &["b"]);
    let fleet = store.fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let n = &next_claims(&fleet, &a, None, AssignmentSource::Published, 4).unwrap()["w1"];
    assert_eq!(n.drains, vec!["a".to_string()]);
}

#[test]
fn a_graceful_what_if_makes_the_next_claim_released() {
    let store = Store::new()
        .presence("w1", Some(4))
        .presence("w2", Some(4))
        .leader("w1")
        .split("a", 1, Some("w2"), 1, 0)
        .held("a", "w2")
        .assign("w1", 1, &[])
        .assign("w2", 1, &["a"]);
    let fleet = store.fleet();
    let s = Scenario::parse(r#"{"changes":[{"op":"remove_member","member":"w2","departure":"graceful"}]}"#)
        .unwrap();
    let a = analyse(&fleet, &s).unwrap();
    let n = &next_claims(&fleet, &a, Some("w1"), AssignmentSource::Plan, 4).unwrap()["w1"];
    assert_eq!(
        as_tuples(n),
        vec![t("a", ClaimAction::Claim, ClaimKind::Released)]
    );
    let s = Scenario::parse(
        r#"{"changes":[{"op":"remove_member","member":"w2","departure":"crash_after_delay"}]}"#,
    )
    .unwrap();
    let a = analyse(&fleet, &s).unwrap();
    let n = &next_claims(&fleet, &a, Some("w1"), AssignmentSource::Plan, 4).unwrap()["w1"];
    assert!(
        n.actions.is_empty(),
        "the crashed owner's lease still lives: a foreign lease is skipped"
    );
}

#[test]
fn a_fenced_lease_is_not_held_not_drained_and_takes_no_lane() {
    // w1's lease on `a` (epoch 1, its current nonce); a's record at `epoch`, owned by `owner`.
    let next = |owner: &str, epoch: u64| {
        let store = Store::new()
            .presence("w1", Some(1))
            .presence("w2", Some(4))
            .leader("w1")
            .split("a", 1, Some(owner), epoch, 0)
            .held("a", "w1")
            .split("b", 1, None, 0, 0)
            .assign("w1", 1, &["b"])
            .assign("w2", 1, &["a"]);
        let fleet = store.fleet();
        let a = analyse(&fleet, &Scenario::default()).unwrap();
        next_claims(&fleet, &a, Some("w1"), AssignmentSource::Published, 4).unwrap()["w1"].clone()
    };
    // w2's claim moved the record to epoch 2, past w1's lease: w1 was fenced and dropped `a`
    let n = next("w2", 2);
    assert!(n.held.is_empty(), "a fenced lease is not held: {:?}", n.held);
    assert_eq!(n.fenced, vec!["a".to_string()]);
    assert!(n.drains.is_empty(), "nor drained");
    assert_eq!(
        as_tuples(&n),
        vec![t("b", ClaimAction::Claim, ClaimKind::Create)],
        "its one lane is free for b"
    );
    // at the record's epoch the same lease is held: w1 is at its cap and drains `a`
    let n = next("w1", 1);
    assert_eq!(n.held, vec!["a".to_string()]);
    assert!(n.fenced.is_empty());
    assert_eq!(n.drains, vec!["a".to_string()]);
    assert!(n.actions.is_empty(), "no free lane for b");
}

/// The claims document's judgements, from the rules (crate/core/src/worker: a claim is taken only
/// if it is in the assignment and a lane is free; quarantines are never skipped): whether each
/// worker acts, why it skipped candidates, and the totals.
#[test]
fn the_claims_document_says_who_acts_and_why_candidates_were_skipped() {
    // w1 (cap 2) holds a, its record names a, b and c: it claims b (its lanes fill), then c is
    // beyond its cap; d is not in its record. w2 (cap 4) has a record naming nothing: every
    // candidate is outside its assignment and its lanes never fill. w3 has no record at all.
    // w4 holds e, its record names e: nothing to do.
    let store = Store::new()
        .presence("w1", Some(2))
        .presence("w2", Some(4))
        .presence("w3", Some(4))
        .presence("w4", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .held("a", "w1")
        .split("b", 1, None, 0, 0)
        .split("c", 1, None, 0, 0)
        .split("d", 1, None, 0, 0)
        .split("e", 1, Some("w4"), 1, 0)
        .held("e", "w4")
        .assign("w1", 1, &["a", "b", "c"])
        .assign("w2", 1, &[])
        .assign("w4", 1, &["e"]);
    let fleet = store.fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let source = AssignmentSource::Published;
    let next = next_claims(&fleet, &a, None, source, 4).unwrap();
    let doc: serde_json::Value = serde_json::from_str(
        &spate_planner_core::claims_document(&fleet, &a, &next, source, a.applied.max_attempts).unwrap(),
    )
    .unwrap();
    let w = &doc["workers"];
    // b, c and d are candidates of every worker (create claims): w1 takes b, skips c (cap) and d
    assert_eq!(w["w1"]["actions"], 1);
    assert_eq!(w["w1"]["skipped"], 2);
    assert_eq!(
        w["w1"]["skipped_why"],
        "not in its assignment, or beyond its cap of 2 lanes"
    );
    assert_eq!(doc["claims"]["w1"][0]["order"], 1);
    assert_eq!(doc["claims"]["w1"][0]["split"], "b");
    assert_eq!(
        (w["w2"]["skipped"].as_u64(), w["w2"]["skipped_why"].as_str()),
        (Some(3), Some("not in its assignment"))
    );
    assert_eq!(
        w["w3"]["skipped_why"],
        "it has no assignment record, so it claims nothing"
    );
    assert_eq!(w["w4"]["skipped_why"], "not in its assignment");
    let acts: Vec<bool> = ["w1", "w2", "w3", "w4"]
        .iter()
        .map(|x| w[x]["acts"].as_bool().unwrap())
        .collect();
    assert_eq!(acts, [true, false, false, false]);
    assert_eq!(
        doc["totals"],
        serde_json::json!({"members": 4, "actions": 1, "acting": 1, "idle": 3})
    );
    // nothing skipped: no words
    let quiet = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 1, Some("w1"), 1, 0)
        .held("a", "w1")
        .assign("w1", 1, &["a"]);
    let fleet = quiet.fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let next = next_claims(&fleet, &a, None, source, 4).unwrap();
    assert_eq!(next["w1"].skipped_why(4, true), None);
    assert!(!next["w1"].acts());
}

/// A worker that only drops a split it was fenced from acts (decision-core: a lease behind its
/// record is dropped at the worker's next look).
#[test]
fn a_worker_that_only_drops_a_fenced_split_acts() {
    let store = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("a", 1, Some("w2"), 3, 0)
        .held("a", "w1")
        .assign("w1", 1, &[]);
    let fleet = store.fleet();
    let a = analyse(&fleet, &Scenario::default()).unwrap();
    let n = &next_claims(&fleet, &a, None, AssignmentSource::Published, 4).unwrap()["w1"];
    assert_eq!(n.fenced, vec!["a".to_string()]);
    assert!(n.actions.is_empty() && n.drains.is_empty());
    assert!(n.acts());
}
