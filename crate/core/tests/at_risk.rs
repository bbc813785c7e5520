//! Splits at risk of quarantine and splits the claim race parked, from hand-made stores; every
//! expectation is worked out from the rules (timing.md §6.5 and §6.7 A8, A12; decision-core.md
//! sections 6 and 7: `max_attempts` A, Spate's default 4, not in the store).
//!
//! - A runnable record at `attempts = A − 1` is one non-graceful end from quarantine (its
//!   Expired takeover has `attempts + 1 ≥ A`), and every hand-over writing `A − 1` is exposed to
//!   the race (A8): at risk. Below, not. At `attempts ≥ A` and runnable: past the cap, apart.
//! - A quarantined record at `attempts = A` whose lease is in the store, owned by a live member
//!   under its current presence nonce, at the record's epoch − 1: parked by the race (A12).

use crate::common;

use common::store::Store;
use serde_json::{json, Value};
use spate_planner_core::{
    analyse_partly,
    claims::{AttemptsSource, MaxAttempts, SPATE_DEFAULT_MAX_ATTEMPTS},
    plan_document,
    review::{exposure, fleet_chart, gauges, plan_csv, FleetChart, Palette, PlanTable},
    risk::{at_risk, race_parked},
    Scenario,
};
use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A lease on `id` by `owner` under `nonce` at `epoch`.
fn lease(s: Store, id: &str, owner: &str, nonce: &str, epoch: u64) -> Store {
    s.lease_entry(
        &format!("split.{id}"),
        json!({"schema": 3, "owner": owner, "nonce": nonce, "epoch": epoch}),
    )
}

/// w1 and w2 live; splits at attempts 2, 3 (held by w1 under a lease, recorded for w2 with no
/// lease, released, owned by a departed instance) and 4, and one quarantined at 3.
fn store() -> Store {
    let s = Store::new()
        .presence("w1", Some(4))
        .presence("w2", Some(4))
        .leader("w1")
        .split("r2", 10, Some("w1"), 3, 2)
        .held("r2", "w1")
        .split("r3-leased", 100, Some("w1"), 4, 3)
        .split("r3-expired", 200, Some("w2"), 4, 3)
        .split("r3-released", 400, None, 4, 3)
        .split("r3-gone", 800, Some("gone"), 4, 3)
        .split("r4", 1000, Some("w2"), 5, 4)
        .held("r4", "w2")
        .state("spec.q3", json!({"schema": 3, "id": "q3", "fp": common::store::fp(), "generation": 1, "weight": 5, "descriptor": ""}))
        .progress("q3", "quarantined", None, 4, 3);
    lease(s, "r3-leased", "w1", "n-w1", 4)
}

fn members(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn ids(list: &[spate_planner_core::risk::RiskySplit]) -> Vec<&str> {
    list.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn at_a_4_the_runnable_splits_at_3_are_at_risk_and_4_is_past_the_cap() {
    let f = store().fleet();
    let r = at_risk(&f.splits, &members(&["w1", "w2"]), 4);
    // attempts 2 is two ends away; the quarantined split at 3 is not runnable
    assert_eq!(
        ids(&r.splits),
        ["r3-expired", "r3-gone", "r3-leased", "r3-released"]
    );
    assert_eq!(r.count, 4);
    assert_eq!(r.weight, 100 + 200 + 400 + 800);
    // held: the lease's owner, else the record's, when a live member
    let held: Vec<(&str, Option<&str>)> = r
        .splits
        .iter()
        .map(|s| (s.id.as_str(), s.held_by.as_deref()))
        .collect();
    assert_eq!(
        held,
        [
            ("r3-expired", Some("w2")),
            ("r3-gone", None),
            ("r3-leased", Some("w1")),
            ("r3-released", None)
        ]
    );
    assert_eq!(
        r.by_member
            .iter()
            .map(|(m, n)| (m.as_str(), *n))
            .collect::<Vec<_>>(),
        [("w1", 1), ("w2", 1)]
    );
    assert_eq!(r.unheld, 2);
    let leased = &r.splits[2];
    assert_eq!(
        (
            leased.owner.as_deref(),
            leased.lease_owner.as_deref(),
            leased.weight,
            leased.attempts
        ),
        (Some("w1"), Some("w1"), Some(100), 3)
    );
    assert_eq!(ids(&r.past_cap), ["r4"]);
    assert_eq!(r.past_cap_count, 1);
}

#[test]
fn a_higher_a_moves_the_line_and_an_absent_member_holds_nothing() {
    let f = store().fleet();
    // A = 5: only r4 (attempts 4) is at risk; nothing is past the cap
    let r = at_risk(&f.splits, &members(&["w1", "w2"]), 5);
    assert_eq!(ids(&r.splits), ["r4"]);
    assert!(r.past_cap.is_empty());
    // A = 3: r2 is at risk, the splits at 3 and 4 are past the cap
    let r = at_risk(&f.splits, &members(&["w1", "w2"]), 3);
    assert_eq!(ids(&r.splits), ["r2"]);
    assert_eq!(r.past_cap.len(), 5);
    // w2 not a member: what it holds counts as held by no live member
    let r = at_risk(&f.splits, &members(&["w1"]), 4);
    assert_eq!(r.by_member.len(), 1);
    assert_eq!(r.unheld, 3);
}

#[test]
fn at_a_1_every_runnable_split_never_attempted_is_at_risk() {
    // A8: with A = 1 even a Create claim (writing attempts 0) is exposed to the race.
    let f = Store::new()
        .presence("w1", None)
        .split("new", 7, None, 0, 0)
        .split("held", 9, Some("w1"), 1, 0)
        .held("held", "w1")
        .split("once", 11, None, 2, 1)
        .fleet();
    let r = at_risk(&f.splits, &members(&["w1"]), 1);
    assert_eq!(ids(&r.splits), ["held", "new"]);
    assert_eq!(ids(&r.past_cap), ["once"]);
    assert_eq!(r.by_member.get("w1"), Some(&1));
    // A = 0: nothing is one attempt short; every runnable split is past the cap
    let r = at_risk(&f.splits, &members(&["w1"]), 0);
    assert!(r.splits.is_empty());
    assert_eq!(r.past_cap.len(), 3);
}

/// w1 and w2 live (nonces n-w1, n-w2); `q` quarantined at attempts `attempts`, epoch 6, with
/// the lease `(owner, nonce, epoch)` when given.
fn parked_store(attempts: u32, lease_of: Option<(&str, &str, u64)>) -> Store {
    let s = Store::new()
        .presence("w1", None)
        .presence("w2", None)
        .state("spec.q", json!({"schema": 3, "id": "q", "fp": common::store::fp(), "generation": 1, "weight": 64, "descriptor": ""}))
        .progress("q", "quarantined", None, 6, attempts);
    match lease_of {
        Some((owner, nonce, epoch)) => lease(s, "q", owner, nonce, epoch),
        None => s,
    }
}

fn parked_ids(s: &Store, a: u32) -> Vec<String> {
    race_parked(&s.fleet(), a).into_iter().map(|p| p.id).collect()
}

#[test]
fn the_race_signature_needs_every_part_of_it() {
    // the signature: attempts = A, lease of a live member under its current nonce, epoch − 1
    let sig = parked_store(4, Some(("w2", "n-w2", 5)));
    let p = race_parked(&sig.fleet(), 4);
    assert_eq!(p.len(), 1);
    assert_eq!(
        (
            p[0].id.as_str(),
            p[0].member.as_str(),
            p[0].epoch,
            p[0].lease_epoch,
            p[0].attempts,
            p[0].weight
        ),
        ("q", "w2", 6, 5, 4, Some(64))
    );
    // the lease at another epoch: not the claim the quarantine followed
    for epoch in [4, 6, 7] {
        let s = parked_store(4, Some(("w2", "n-w2", epoch)));
        assert!(parked_ids(&s, 4).is_empty(), "lease epoch {epoch}");
    }
    // the lease's owner departed (no presence key)
    assert!(parked_ids(&parked_store(4, Some(("gone", "n-gone", 5))), 4).is_empty());
    // a stale nonce: another process of w2 wrote the lease
    assert!(parked_ids(&parked_store(4, Some(("w2", "old", 5))), 4).is_empty());
    // no lease left: a race park and a rule park look the same
    assert!(parked_ids(&parked_store(4, None), 4).is_empty());
    // attempts other than A: a failure report below the cap, or another A
    assert!(parked_ids(&parked_store(3, Some(("w2", "n-w2", 5))), 4).is_empty());
    assert!(parked_ids(&sig, 5).is_empty());
    assert_eq!(parked_ids(&parked_store(5, Some(("w2", "n-w2", 5))), 5), ["q"]);
}

#[test]
fn a_runnable_record_or_an_epoch_0_record_is_never_race_parked() {
    let runnable = Store::new().presence("w1", None).split("r", 1, Some("w1"), 6, 4);
    assert!(parked_ids(&lease(runnable, "r", "w1", "n-w1", 5), 4).is_empty());
    // epoch 0 has no epoch − 1 (no wrap to u64::MAX)
    let zero = Store::new()
        .presence("w1", None)
        .progress("z", "quarantined", None, 0, 4);
    assert!(parked_ids(&lease(zero, "z", "w1", "n-w1", u64::MAX), 4).is_empty());
}

fn plan_json(s: &Store, max_attempts: Option<u32>) -> Value {
    let f = s.fleet();
    let sc = Scenario {
        max_attempts,
        ..Scenario::default()
    };
    let a = analyse_partly(&f, &sc);
    serde_json::from_str(&plan_document(&f, &a).unwrap()).unwrap()
}

#[test]
fn the_plan_document_says_where_a_comes_from() {
    let doc = plan_json(&store(), None);
    let x = &doc["at_risk"];
    assert_eq!(x["max_attempts"], SPATE_DEFAULT_MAX_ATTEMPTS);
    assert_eq!(x["max_attempts_source"], "spate_default");
    assert!(
        x["max_attempts_note"]
            .as_str()
            .unwrap()
            .starts_with("4, Spate's default; the store does not record it"),
        "{x}"
    );
    assert_eq!(x["count"], 4);
    assert_eq!(x["weight"], "1500", "a u64, exact as a string");
    assert_eq!(x["by_member"], json!({"w1": 1, "w2": 1}));
    assert_eq!(x["unheld"], 2);
    assert_eq!(x["past_cap_count"], 1);
    assert_eq!(x["race_parked_count"], 0);
    assert_eq!(
        x["headline"],
        "4 split(s) at risk: at attempts 3 of 4, one non-graceful end (or one racy hand-over) from quarantine; held by \"w1\" (1), \"w2\" (1); 2 held by no live member."
    );
    assert!(x["past_cap_note"].as_str().unwrap().contains("\"r4\" at 4"));
    assert!(x["race_parked_note"].is_null());
    assert_eq!(x["splits"].as_array().unwrap().len(), 4);
    assert_eq!(x["past_cap"][0]["id"], "r4");

    let doc = plan_json(&store(), Some(5));
    let x = &doc["at_risk"];
    assert_eq!(
        (x["max_attempts"].as_u64(), x["count"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(x["max_attempts_source"], "user");
    assert!(x["max_attempts_note"]
        .as_str()
        .unwrap()
        .contains("set by the user"));
    assert_eq!(
        x["headline"],
        "1 split(s) at risk: at attempts 4 of 5, one non-graceful end (or one racy hand-over) from quarantine; held by \"w2\" (1)."
    );
    assert_eq!(doc["scenario"]["max_attempts"], 5);
}

#[test]
fn a_fleet_with_nothing_at_risk_says_so_and_names_a_race_park() {
    let doc = plan_json(&parked_store(4, Some(("w1", "n-w1", 5))), None);
    let x = &doc["at_risk"];
    assert_eq!(x["count"], 0);
    assert_eq!(
        x["headline"],
        "No split at risk: none is runnable at attempts 3 of 4."
    );
    assert_eq!(x["race_parked_count"], 1);
    assert_eq!(
        x["race_parked_note"],
        "1 quarantined split(s) parked by the claim race (the claimant's lease still live, one epoch behind the record): \"q\" right after \"w1\"'s claim."
    );
    assert_eq!(x["race_parked"][0]["member"], "w1");
}

#[test]
fn the_scenario_reads_and_writes_max_attempts() {
    let s = Scenario::parse(r#"{"format":"spate-planner-scenario/1","max_attempts":6}"#).unwrap();
    assert_eq!(s.max_attempts, Some(6));
    assert!(s.to_json().unwrap().contains("\"max_attempts\":6"));
    assert!(!Scenario::default().to_json().unwrap().contains("max_attempts"));
    let bad = Scenario::parse(r#"{"format":"spate-planner-scenario/1","max_attempts":-1}"#).unwrap_err();
    assert_eq!(bad.path, "max_attempts");
    assert!(
        bad.message.contains("-1 is not a max_attempts"),
        "{}",
        bad.message
    );
    let f = store().fleet();
    let a = analyse_partly(&f, &s);
    assert_eq!(
        a.applied.max_attempts,
        MaxAttempts {
            value: 6,
            source: AttemptsSource::User
        }
    );
}

#[test]
fn the_dashboard_view_has_the_counts_without_the_lists() {
    let f = store().fleet();
    let a = analyse_partly(&f, &Scenario::default());
    let view = exposure(&f, &a, a.applied.max_attempts, false);
    assert_eq!((view.count, view.unheld, view.past_cap_count), (4, 2, 1));
    let text = serde_json::to_value(&view).unwrap();
    for list in ["splits", "past_cap", "race_parked"] {
        assert!(text.get(list).is_none(), "{list} in the view");
    }
}

#[test]
fn the_at_risk_table_lists_every_state_with_a() {
    let s = lease(store(), "q3", "w1", "n-w1", 3).state(
        "split.q4",
        json!({"schema": 3, "id": "q4", "fp": common::store::fp(), "epoch": 7, "status": "quarantined", "owner": null,
            "attempts": 4, "watermark": null, "state": null, "completed": false, "written_at_ms": 0}),
    );
    let s = lease(s, "q4", "w2", "n-w2", 6);
    let f = s.fleet();
    let a = analyse_partly(&f, &Scenario::default());
    let csv = plan_csv(&f, &a, PlanTable::AtRisk);
    let want = "id,state,attempts,max_attempts,epoch,weight,owner,lease_owner,held_by\r\n\
        r3-expired,at_risk,3,4,4,200,w2,,w2\r\n\
        r3-gone,at_risk,3,4,4,800,gone,,\r\n\
        r3-leased,at_risk,3,4,4,100,w1,w1,w1\r\n\
        r3-released,at_risk,3,4,4,400,,,\r\n\
        r4,past_cap,4,4,5,1000,w2,w2,w2\r\n\
        q4,race_parked,4,4,7,,,w2,\r\n";
    assert_eq!(csv, want);
    assert_eq!(PlanTable::named("at-risk"), Some(PlanTable::AtRisk));
}

#[test]
fn the_gauges_count_what_the_document_lists() {
    let s = parked_store(4, Some(("w1", "n-w1", 5)))
        .split("r", 3, Some("w2"), 2, 3)
        .held("r", "w2");
    let snap = s.snapshot();
    let g = gauges(&snap, None).unwrap();
    assert_eq!((g.at_risk, g.past_cap, g.race_parked), (1, 0, 1));
    assert_eq!(g.max_attempts, MaxAttempts::of(None));
    let g = gauges(&snap, Some(3)).unwrap();
    // at A = 3, r (attempts 3) is past the cap and q's attempts 4 are not 3
    assert_eq!((g.at_risk, g.past_cap, g.race_parked), (0, 1, 0));
    assert_eq!(g.max_attempts.source, AttemptsSource::User);
}

fn chart(s: &Store) -> String {
    let f = s.fleet();
    let a = analyse_partly(&f, &Scenario::default());
    fleet_chart(
        &a,
        &FleetChart {
            title: "Fleet",
            lines: &[],
            order: None,
            palette: &Palette::default(),
            rows: None,
        },
    )
}

/// The member `name`'s group of the chart.
fn group<'a>(svg: &'a str, name: &str) -> &'a str {
    let at = svg.find(&format!(r#"<g data-member="{name}">"#)).unwrap();
    &svg[at..at + svg[at..].find("</g>").unwrap()]
}

#[test]
fn the_exported_chart_marks_the_members_holding_splits_at_risk_and_only_then_says_so() {
    let svg = chart(&store());
    // w1 holds r3-leased, w2 r3-expired (and r4, past the cap: not at risk)
    for m in ["w1", "w2"] {
        let g = group(&svg, m);
        assert!(g.contains(">⚠1</text>"), "{g}");
        assert!(g.contains("; 1 split(s) at risk of quarantine</title>"), "{g}");
    }
    assert!(
        svg.contains(">⚠n: splits at risk of quarantine</text>"),
        "the legend"
    );
    // nothing at risk: no mark, no legend item
    let quiet = Store::new()
        .presence("w1", Some(4))
        .leader("w1")
        .split("r2", 10, Some("w1"), 3, 2)
        .held("r2", "w1");
    let svg = chart(&quiet);
    assert!(!svg.contains('⚠') && !svg.contains("at risk"), "{svg}");
}
