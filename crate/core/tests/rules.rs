//! Which release's rules decide, and that the choice reaches every view (issue 24): the rules a
//! store names (decision-core-0.3.md section 8), the scenario's `rules`, the check of the
//! elector against the leader key, the hint of a mixed fleet, and the two releases' plans of the
//! upstream #820 and #824 situations in the plan, the side by side (`diff_rules`), convergence
//! rounds, sweeps, the comparison of two snapshots and a live job. Each fixture states a store;
//! each expected plan is what the rules of decision-core.md and decision-core-0.3.md say (or
//! their plain transcription, `reference`). Natively and under wasm32.

use crate::common;

use common::changes::put;
use common::store::{fp, Store, FINGERPRINT};
use serde_json::json;
use spate_planner_core::{
    analyse,
    codes::{FindingCode, WarningCode},
    converge, diff, diff_rules, reference,
    review::findings,
    sweep,
    sweep::Axis,
    Analysis, Assignment, ErrorCode, Fleet, LiveJob, Rules, RulesSource, Scenario,
};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn by(fleet: &Fleet, rules: Option<Rules>) -> Analysis {
    let s = Scenario {
        rules,
        ..Scenario::default()
    };
    analyse(fleet, &s).unwrap()
}

fn assignment(pairs: &[(&str, &[&str])]) -> Assignment {
    pairs
        .iter()
        .map(|(m, ids)| (m.to_string(), ids.iter().map(|s| s.to_string()).collect()))
        .collect()
}

/// The #824 situation (0.3 section 2.2): w2 took `x` over (its record at epoch 2, owner w2), w1's
/// epoch-1 lease on it lingers; w1 holds `y`. One lane each; the last publish gave `y` to w1 and
/// `x` to w2. With `elector`, a 0.3.0 leader (w1) won the last election.
fn store_824(elector: bool) -> Store {
    let s = Store::new()
        .presence("w1", Some(1))
        .presence("w2", Some(1))
        .leader("w1")
        .split("x", 50, Some("w2"), 2, 0)
        .lease("x", "w1", "n-w1")
        .split("y", 40, Some("w1"), 1, 0)
        .held("y", "w1")
        .assign("w1", 1, &["y"])
        .assign("w2", 1, &["x"]);
    match elector {
        true => s.elector("w1", "lead"),
        false => s,
    }
}

/// 0.1 (decision-core.md section 5 step 3): `x` (heavier, first in pool order) sticks to its
/// lease's owner w1, filling w1's one lane; `y` then has no lane with w1 and goes to w2 in the
/// fill pass. 0.3 (section 2, walk 3a): `y`'s lease is current (its record names w1) and keeps
/// w1's lane; `x`'s lease is behind its record, so walk 3b gives it to `previous`, w2.
fn plan_824(rules: Rules) -> Assignment {
    match rules {
        Rules::V0_1 => assignment(&[("w1", &["x"]), ("w2", &["y"])]),
        Rules::V0_3 => assignment(&[("w1", &["y"]), ("w2", &["x"])]),
    }
}

/// The weight that changes hands from the current owners (the lease's owner, else the
/// record's): 0.1 moves `y` (40) from w1; 0.3 moves `x` (50) from the lease's w1 to w2.
fn moved_824(rules: Rules) -> u64 {
    match rules {
        Rules::V0_1 => 40,
        Rules::V0_3 => 50,
    }
}

#[test]
fn the_store_names_the_rules_and_the_scenario_overrides_them() {
    let cases = [
        (store_824(true), Rules::V0_3, RulesSource::Elector),
        (store_824(false), Rules::V0_1, RulesSource::NoElector),
        (
            Store::new().generation(0).presence("w1", Some(1)),
            Rules::V0_1,
            RulesSource::StoreNamesNoVersion,
        ),
        (
            store_824(false).without_plan(),
            Rules::V0_1,
            RulesSource::StoreNamesNoVersion,
        ),
    ];
    for (i, (store, rules, source)) in cases.into_iter().enumerate() {
        let a = by(&store.fleet(), None);
        assert_eq!(
            (a.applied.rules.rules, a.applied.rules.source),
            (rules, source),
            "case {i}"
        );
        assert_eq!(
            a.applied.inputs.rules, rules,
            "case {i}: the inputs decide by them"
        );
    }
    // a scenario file's `rules` (docs/scenario-format.md), "0.2" read as 0.1
    for (text, rules) in [
        (r#"{"rules":"0.1"}"#, Rules::V0_1),
        (r#"{"rules":"0.2"}"#, Rules::V0_1),
    ] {
        let a = analyse(&store_824(true).fleet(), &Scenario::parse(text).unwrap()).unwrap();
        assert_eq!(
            (a.applied.rules.rules, a.applied.rules.source),
            (rules, RulesSource::User)
        );
        assert_eq!(a.assignment, plan_824(Rules::V0_1), "{text}");
    }
    let a = analyse(
        &store_824(false).fleet(),
        &Scenario::parse(r#"{"rules":"0.3"}"#).unwrap(),
    )
    .unwrap();
    assert_eq!(a.assignment, plan_824(Rules::V0_3));
    for bad in [r#"{"rules":"0.4"}"#, r#"{"rules":3}"#, r#"{"rules":"v0.3"}"#] {
        let e = Scenario::parse(bad).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidScenario, "rules"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn the_plan_of_824_is_each_releases() {
    for elector in [true, false] {
        let fleet = store_824(elector).fleet();
        for rules in [Rules::V0_1, Rules::V0_3] {
            let a = by(&fleet, Some(rules));
            assert_eq!(a.assignment, plan_824(rules), "{rules}");
            assert_eq!(a.report.churn.weight_moved, moved_824(rules), "{rules}");
        }
        let detected = if elector { Rules::V0_3 } else { Rules::V0_1 };
        assert_eq!(by(&fleet, None).assignment, plan_824(detected));
    }
}

#[test]
fn the_side_by_side_of_824_names_the_splits_that_stop_moving() {
    let fleet = store_824(true).fleet();
    let d = diff_rules(&fleet, &Scenario::default()).unwrap();
    assert_eq!(
        (d.today.rules, d.today.source),
        (Rules::V0_3, RulesSource::Elector)
    );
    // 0.1 plans both away from the member the last publish named; 0.3 keeps both
    assert_eq!((d.v0_1.reassigned, d.v0_3.reassigned), (2, 0));
    assert_eq!((d.v0_1.weight_reassigned, d.v0_3.weight_reassigned), (90, 0));
    assert_eq!(d.kept_only_by_0_3, vec!["x".to_string(), "y".to_string()]);
    assert!(d.kept_only_by_0_1.is_empty());
    let apart: Vec<_> = d
        .placed_apart
        .iter()
        .map(|p| {
            (
                p.split.as_str(),
                p.published.as_deref(),
                p.by_0_1.as_deref(),
                p.by_0_3.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        apart,
        vec![
            ("x", Some("w2"), Some("w1"), Some("w2")),
            ("y", Some("w1"), Some("w2"), Some("w1"))
        ]
    );
    assert_eq!((d.v0_1.churn.weight_moved, d.v0_3.churn.weight_moved), (40, 50));
    assert_eq!(
        d.v0_1.loads,
        BTreeMap::from([("w1".into(), 50), ("w2".into(), 40)])
    );
    assert_eq!(
        d.v0_3.loads,
        BTreeMap::from([("w1".into(), 40), ("w2".into(), 50)])
    );
    // the scenario's rules only say which side is today; both sides are the same
    let picked = diff_rules(&fleet, &Scenario::parse(r#"{"rules":"0.1"}"#).unwrap()).unwrap();
    assert_eq!(
        (picked.today.rules, picked.today.source),
        (Rules::V0_1, RulesSource::User)
    );
    assert_eq!((picked.v0_1, picked.v0_3), (d.v0_1, d.v0_3));
}

#[test]
fn convergence_rounds_follow_the_rules() {
    let fleet = store_824(true).fleet();
    for rules in [Rules::V0_1, Rules::V0_3] {
        let a = by(&fleet, Some(rules));
        let c = converge(&a.applied.inputs, 5);
        let rounds = &c.rounds;
        assert!(c.converged, "{rules}");
        // round 1 is the leader's plan by these rules; carried out, it moves nothing more
        assert_eq!(rounds[0].weight_moved, moved_824(rules), "{rules}");
        assert_eq!(rounds.len(), 2, "{rules}: {rounds:?}");
        assert_eq!(rounds[1].moves, 0, "{rules}");
    }
}

#[test]
fn sweep_steps_follow_the_rules() {
    let fleet = store_824(false).fleet();
    for (rules, want) in [
        (None, Rules::V0_1),
        (Some(Rules::V0_1), Rules::V0_1),
        (Some(Rules::V0_3), Rules::V0_3),
    ] {
        let base = Scenario {
            rules,
            ..Scenario::default()
        };
        for axis in [Axis::AddMembers { cap: None }, Axis::MemberCap] {
            let from = if axis == Axis::MemberCap { 1 } else { 0 };
            let steps = sweep(&fleet, &base, axis, from..=from, None).unwrap();
            // adding no member, or every cap at the 1 it is: the plan itself
            assert_eq!(steps[0].bytes_moved, moved_824(want), "{rules:?} {axis:?}");
        }
    }
}

#[test]
fn the_comparison_of_two_snapshots_follows_the_rules() {
    // later, the leader has published exactly what it had: by 0.3 that is its decision; by 0.1 it
    // is not (0.1 would have swapped x and y)
    let before = store_824(true).fleet();
    let after = store_824(true).fleet();
    let d = diff(&before, &after, None).unwrap();
    assert_eq!(d.before.rules.rules, Rules::V0_3);
    assert!(d.decision.published && d.decision.matches, "{:?}", d.decision);
    let d = diff(&before, &after, Some(Rules::V0_1)).unwrap();
    assert_eq!(
        (d.before.rules.rules, d.before.rules.source),
        (Rules::V0_1, RulesSource::User)
    );
    assert!(!d.decision.matches);
    assert_eq!(
        d.decision.differences.keys().cloned().collect::<Vec<_>>(),
        vec!["x".to_string(), "y".to_string()]
    );
    assert_eq!(d.figures_before.bytes_moved, moved_824(Rules::V0_1));
    // a 0.1 store: each side by its own store's rules unless picked
    let old = store_824(false).fleet();
    let d = diff(&old, &after, None).unwrap();
    assert_eq!(
        (d.before.rules.rules, d.after.rules.rules),
        (Rules::V0_1, Rules::V0_3)
    );
    assert!(!d.decision.matches, "the earlier 0.1 leader's plan swaps x and y");
    assert!(diff(&old, &after, Some(Rules::V0_3)).unwrap().decision.matches);
}

#[test]
fn a_live_job_plans_by_the_rules_its_plan_record_names_as_it_changes() {
    let mut job = LiveJob::from_snapshot(&store_824(false).snapshot()).unwrap();
    let fleet = job.fleet(0).unwrap();
    let a = by(&fleet, None);
    assert_eq!(
        (a.applied.rules.rules, a.assignment.clone()),
        (Rules::V0_1, plan_824(Rules::V0_1))
    );
    // a 0.3.0 worker wins the election: its plan write carries the elector
    let plan = json!({"schema": 3, "fingerprint": FINGERPRINT, "generation": 1, "finality": "open", "planned": 0,
        "planner_state": null, "updated_at_ms": 0, "elector": {"owner": "w1", "nonce": "lead"}});
    job.apply(&put("state", "plan", 100, &plan.to_string())).unwrap();
    let a = by(&job.fleet(0).unwrap(), None);
    assert_eq!(
        (a.applied.rules.rules, a.applied.rules.source),
        (Rules::V0_3, RulesSource::Elector)
    );
    assert_eq!(a.assignment, plan_824(Rules::V0_3));
    assert_eq!(
        by(&job.fleet(0).unwrap(), Some(Rules::V0_1)).assignment,
        plan_824(Rules::V0_1)
    );
}

#[test]
fn an_elector_the_leader_key_disagrees_with_is_a_warning_and_the_rules_stay_0_3() {
    let agree = store_824(true).fleet();
    assert!(agree
        .warnings
        .iter()
        .all(|w| w.code != WarningCode::ElectorMismatch));
    for (store, says) in [
        (
            store_824(false).elector("w2", "lead"),
            "leader.owner \"w1\" is not elector.owner \"w2\"",
        ),
        (
            store_824(false).elector("w1", "other"),
            "leader.nonce \"lead\" is not elector.nonce \"other\"",
        ),
    ] {
        let f = store.fleet();
        let w: Vec<_> = f
            .warnings
            .iter()
            .filter(|w| w.code == WarningCode::ElectorMismatch)
            .collect();
        assert_eq!(w.len(), 1, "{:?}", f.warnings);
        assert_eq!(
            (w[0].bucket.as_str(), w[0].key.as_str()),
            ("spate_coordination_j_state", "plan")
        );
        assert!(w[0].message.contains(says), "{}", w[0].message);
        assert_eq!(f.store_rules().rules, Rules::V0_3);
    }
    // the leader's generation one ahead of the plan's: an election under way
    let s = Store::new()
        .generation(2)
        .leader("w1")
        .generation(1)
        .presence("w1", Some(1))
        .elector("w1", "lead");
    let f = s.fleet();
    assert!(f.warnings.iter().any(|w| w.code == WarningCode::ElectorMismatch
        && w.message.contains("leader.generation 2 is not plan.generation 1")));
    // no leader key: the elected leader is gone; nothing to check against
    let gone = Store::new().presence("w1", Some(1)).elector("w1", "lead").fleet();
    assert!(gone
        .warnings
        .iter()
        .all(|w| w.code != WarningCode::ElectorMismatch));
}

#[test]
fn a_0_3_probe_under_a_0_1_leader_is_the_mixed_fleet_hint() {
    let probe = format!("_probe.w2.{}", "0123456789abcdef0123456789abcdef");
    let hinted = |store: Store, rules: Option<Rules>| {
        let f = store.fleet();
        let a = by(&f, rules);
        findings(&f, &a)
            .into_iter()
            .filter(|x| x.code == FindingCode::MixedFleetHint)
            .collect::<Vec<_>>()
    };
    let mixed = hinted(
        store_824(false)
            .lease_entry(&probe, "probe")
            .state(&probe, "probe"),
        None,
    );
    assert_eq!(mixed.len(), 1);
    assert!(
        mixed[0].message.contains(&format!("{probe:?}")),
        "{}",
        mixed[0].message
    );
    assert!(
        mixed[0].message.contains("2 0.3.0 probe key(s)"),
        "{}",
        mixed[0].message
    );
    // 0.1's own probe key is no hint; under 0.3's rules (the store's or picked) there is nothing to hint
    assert!(hinted(store_824(false).lease_entry("_probe.w2", "probe"), None).is_empty());
    assert!(hinted(store_824(true).lease_entry(&probe, "probe"), None).is_empty());
    assert!(hinted(store_824(false).lease_entry(&probe, "probe"), Some(Rules::V0_3)).is_empty());
    // and the probe key is no record: no warning names it
    let f = store_824(false).lease_entry(&probe, "probe").fleet();
    assert!(f.warnings.iter().all(|w| w.key != probe), "{:?}", f.warnings);
}

// ---- upstream #820 ----

const MEMBERS: usize = 8;

/// The #820 situation (0.3 section 2.2; the vectors' `regression-820-second`): eight members of
/// three lanes, each holding two splits (`a{i}0`, `a{i}1`); the last publish also gave each one
/// unclaimed split `q0{i}` (no lease, no owner: its claim not seen yet) and left `q08`..`q19`
/// queued. Then `a50` completed, freeing one of w5's lanes.
fn store_820() -> Store {
    let mut s = Store::new().leader("w0");
    for i in 0..MEMBERS {
        let w = format!("w{i}");
        s = s.presence(&w, Some(3));
        for j in 0..2 {
            let id = format!("a{i}{j}");
            s = if (i, j) == (5, 0) {
                s.state(
                    "spec.a50",
                    json!({"schema":3,"id":"a50","fp":fp(),"generation":1,"weight":1,"descriptor":""}),
                )
                .progress("a50", "completed", Some(&w), 1, 0)
            } else {
                s.split(&id, 1, Some(&w), 1, 0).held(&id, &w)
            };
        }
        let published = [format!("a{i}0"), format!("a{i}1"), format!("q0{i}")];
        let refs: Vec<&str> = published.iter().map(String::as_str).collect();
        s = s.assign(&w, 1, &refs);
    }
    for q in 0..20 {
        s = s.split(&format!("q{q:02}"), 1, None, 1, 0);
    }
    s
}

/// 0.3: walk 3a keeps each held `a`; walk 3b keeps each `q0{i}` with its `previous` w{i}; the
/// fill pass gives w5's freed lane the first queued split, `q08`; every load is then 3, so no
/// improving move.
fn plan_820_by_0_3() -> Assignment {
    (0..MEMBERS)
        .map(|i| {
            let mut ids = vec![format!("a{i}0"), format!("a{i}1"), format!("q0{i}")];
            if i == 5 {
                ids = vec!["a51".into(), "q05".into(), "q08".into()];
            }
            (format!("w{i}"), ids)
        })
        .collect()
}

#[test]
fn the_plan_of_820_is_each_releases() {
    let fleet = store_820().fleet();
    let a3 = by(&fleet, Some(Rules::V0_3));
    assert_eq!(a3.assignment, plan_820_by_0_3());
    let a1 = by(&fleet, Some(Rules::V0_1));
    let i = &a1.applied.inputs;
    let (want, _) =
        reference::desired_assignment(&i.members, &i.splits, &i.reserved, &i.caps, i.default_cap, i.seed);
    assert_eq!(a1.assignment, want);
    // 0.1 sends every unclaimed split to the fill pass: the first, q00, to the lightest member
    // (w5, one split held), away from its published w0
    assert!(
        a1.assignment["w5"].contains(&"q00".to_string()),
        "{:?}",
        a1.assignment
    );
    // each plan gives the nine free lanes an unclaimed split (a move from nobody): the moves
    // do not tell the two apart, the splits planned elsewhere than published do
    assert_eq!((a1.report.churn.moves, a3.report.churn.moves), (9, 9));
    assert_eq!(
        by(&fleet, None).applied.rules.rules,
        Rules::V0_1,
        "a 0.1.x/0.2.x leader"
    );
}

#[test]
fn the_side_by_side_of_820_names_the_batch_that_stops_flapping() {
    let fleet = store_820().fleet();
    let d = diff_rules(&fleet, &Scenario::default()).unwrap();
    let a1 = by(&fleet, Some(Rules::V0_1));
    // by rule: the published q0{i} that 0.1's plan places elsewhere (a50 completed: no one's)
    let published: BTreeMap<String, String> = (0..MEMBERS)
        .map(|i| (format!("q0{i}"), format!("w{i}")))
        .collect();
    let moved_by_0_1: Vec<String> = published
        .iter()
        .filter(|(id, m)| !a1.assignment[*m].contains(id))
        .map(|(id, _)| id.clone())
        .collect();
    assert!(moved_by_0_1.contains(&"q00".to_string()));
    assert_eq!(d.kept_only_by_0_3, moved_by_0_1);
    assert!(d.kept_only_by_0_1.is_empty());
    assert_eq!(d.v0_3.reassigned, 0, "the completed a50 is reassigned by neither");
    assert_eq!(d.v0_1.reassigned as usize, moved_by_0_1.len());
    assert_eq!(d.v0_1.weight_reassigned, moved_by_0_1.len() as u64);
    assert_eq!(
        (d.today.rules, d.today.source),
        (Rules::V0_1, RulesSource::NoElector)
    );
    for p in &d.placed_apart {
        let by_0_3 = plan_820_by_0_3()
            .into_iter()
            .find(|(_, ids)| ids.contains(&p.split))
            .map(|(m, _)| m);
        assert_eq!(p.by_0_3, by_0_3, "{}", p.split);
    }
}
