//! The leader's whole view read from a real store (issue 8): jobs written through a real NATS
//! server as Spate writes them, exported with `spate-planner snapshot`, then `plan --json` and
//! `claims --json` with no flags. Each job states a store; each assertion states what the leader's
//! or a worker's rules decide for it.

use crate::nats_server;
use crate::store_writer;

use async_nats::jetstream;
use nats_server::NatsServer;
use serde_json::{json, Value};
use spate_planner_core::{assign::AssignInputs, desired_assignment, Fleet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use store_writer::{export, fp, Writer};
/// Exports `job` and runs `plan --json` and `claims --json` on it with no flags.
fn export_and_plan(server: &NatsServer, job: &str) -> (PathBuf, Value, Value) {
    let file = export(&server.url(), job);
    let path = file.to_str().unwrap();
    let plan = store_writer::json(&["plan", path, "--json"]);
    let claims = store_writer::json(&["claims", path, "--json"]);
    (file, plan, claims)
}

fn placed(plan: &Value) -> BTreeSet<String> {
    plan["assignment"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
        })
        .collect()
}

fn actions(claims: &Value, x: &str) -> Vec<(String, String, String)> {
    claims["claims"][x]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let f = |k: &str| a[k].as_str().unwrap().to_string();
            (f("split"), f("action"), f("kind"))
        })
        .collect()
}

fn t(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

/// The leader w1 runs with max_in_flight 12; w2 writes a schema-2 presence with cap 4 and was
/// restarted (its lease on `g` carries the old process's nonce); w3 crashed moments ago (its
/// record lingers); w4 left long ago (no record); `q` sits at attempts 3 of 4.
async fn rich_job(js: &jetstream::Context) {
    let w = Writer::new(js, "rich").await;
    w.plan().await;
    w.presence("w1", 12).await;
    w.lease("worker.w2", json!({"schema":2,"nonce":"n-w2","max_in_flight":4}))
        .await;
    w.lease(
        "leader",
        json!({"schema":3,"owner":"w1","nonce":"lead","generation":1}),
    )
    .await;
    for (id, weight, owner) in [
        ("a", 50, "w1"),
        ("b", 40, "w2"),
        ("c", 30, "w3"),
        ("d", 30, "w3"),
        ("f", 20, "w4"),
    ] {
        w.split(id, weight, Some(owner), 0).await;
    }
    w.split("g", 10, Some("w2"), 0).await;
    w.split("q", 10, Some("w4"), 3).await;
    w.held("a", "w1", "n-w1").await;
    w.held("b", "w2", "n-w2").await;
    w.held("g", "w2", "old-process").await;
    // a bad payload the leader does not decode, and an assignment value it cannot read
    w.state(
        "split.h",
        json!({"schema":3,"id":"h","fp":fp(),"epoch":0,"status":"runnable","owner":null,"attempts":0,
            "watermark":null,"state":"not base64!","completed":false,"written_at_ms":0}),
    )
    .await;
    w.state(
        "spec.h",
        json!({"schema":3,"id":"h","fp":fp(),"generation":1,"weight":5,"descriptor":""}),
    )
    .await;
    w.state("assign.w9", "{garbage").await;
    w.assign("w1", &["a"]).await;
    w.assign("w2", &["b", "g"]).await;
    w.assign("w3", &["c", "d"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_flags_the_plan_is_the_leaders_next_decision() {
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client);
    rich_job(&js).await;
    let (file, plan, claims) = export_and_plan(&server, "rich");

    // The leader's own cap, from its presence.
    assert_eq!(plan["default_cap"], 12);
    assert_eq!(plan["default_cap_source"], "leader_presence");
    // The crashed w3's splits are withheld; w4 (no record) withholds nothing.
    assert_eq!(plan["reserved"], json!(["c", "d"]));
    assert_eq!(plan["departed"][0]["instance"], "w3");
    assert_eq!(plan["departed"][0]["withheld"], 2);
    let placed = placed(&plan);
    assert!(
        !placed.contains("c") && !placed.contains("d") && placed.contains("f"),
        "{placed:?}"
    );
    // And the whole assignment is the decision core's on those inputs: members w1 and w2,
    // w2's cap read from its schema-2 presence, the leader's cap as the default.
    let fleet = Fleet::load_text(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let members = BTreeSet::from(["w1".to_string(), "w2".to_string()]);
    let caps = BTreeMap::from([("w1".to_string(), 12), ("w2".to_string(), 4)]);
    let reserved = BTreeSet::from(["c".to_string(), "d".to_string()]);
    let want = desired_assignment(&AssignInputs::v0_1(
        &members,
        &fleet.splits,
        &reserved,
        &caps,
        12,
        fp(),
    ));
    assert_eq!(plan["assignment"], serde_json::to_value(&want).unwrap());
    // Warnings, not refusals.
    let codes: Vec<(&str, &str)> = plan["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["code"].as_str().unwrap(), w["key"].as_str().unwrap()))
        .collect();
    assert!(codes.contains(&("bad_payload", "split.h")), "{codes:?}");
    assert!(
        codes.contains(&("unreadable_assignment", "assign.w9")),
        "{codes:?}"
    );

    // Claims on the published records: w2 reclaims its predecessor's lease on g (one attempt);
    // both workers quarantine q (expired, attempts 3 + 1 >= 4) whatever their assignment.
    assert_eq!(
        actions(&claims, "w2"),
        vec![t("g", "claim", "reclaim"), t("q", "quarantine", "expired")]
    );
    assert_eq!(actions(&claims, "w1"), vec![t("q", "quarantine", "expired")]);
    assert_eq!(claims["drains"]["w1"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_the_leader_publishes_nothing_the_records_stand() {
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client);
    // No plan record.
    let w = Writer::new(&js, "noplan").await;
    w.presence("w1", 2).await;
    w.split("a", 5, Some("w1"), 0).await;
    w.split("b", 5, None, 0).await;
    w.held("a", "w1", "n-w1").await;
    w.assign("w1", &["a"]).await;
    // No members.
    let w = Writer::new(&js, "nomembers").await;
    w.plan().await;
    w.split("a", 5, Some("w7"), 0).await;

    let (_, plan, _) = export_and_plan(&server, "noplan");
    assert_eq!(
        (
            plan["leader_publishes"].clone(),
            plan["no_publish_reason"].clone()
        ),
        (json!(false), json!("no_plan"))
    );
    assert_eq!(plan["assignment"], json!({"w1": ["a"]}));
    assert_eq!(plan["report"]["moves"], json!([]));
    let (_, plan, _) = export_and_plan(&server, "nomembers");
    assert_eq!(plan["no_publish_reason"], "no_members");
    assert_eq!(plan["report"]["counts"]["queued"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_at_their_cap_claim_nothing_and_another_jobs_record_is_the_headline() {
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client);
    let w = Writer::new(&js, "full").await;
    w.plan().await;
    w.presence("w1", 1).await;
    w.lease(
        "leader",
        json!({"schema":3,"owner":"w1","nonce":"lead","generation":1}),
    )
    .await;
    w.split("a", 5, Some("w1"), 0).await;
    w.split("b", 5, None, 0).await;
    w.held("a", "w1", "n-w1").await;
    w.assign("w1", &["a", "b"]).await;
    w.state(
        "split.x",
        json!({"schema":3,"id":"x","fp":12345,"epoch":0,"status":"runnable","owner":null,"attempts":0,
            "watermark":null,"state":null,"completed":false,"written_at_ms":0}),
    )
    .await;
    let (_, plan, claims) = export_and_plan(&server, "full");
    assert_eq!(actions(&claims, "w1"), vec![], "one lane, held: b waits");
    assert_eq!(claims["workers"]["w1"]["held"], 1);
    assert_eq!(plan["findings"][0]["level"], "fatal");
    assert_eq!(plan["findings"][0]["code"], "foreign_records");
    assert_eq!(
        plan["report"]["queue"],
        json!(["b"]),
        "the leader's cap is 1 too (its own presence)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fenced_lease_is_not_held_and_takes_no_lane() {
    let server = NatsServer::start(true);
    let client = async_nats::connect(server.url()).await.unwrap();
    let js = jetstream::new(client);
    let w = Writer::new(&js, "fenced").await;
    w.plan().await;
    w.presence("w1", 1).await;
    w.presence("w2", 4).await;
    // w2's takeover moved a's record to epoch 2; w1's lease (epoch 1, its own nonce) lingers.
    w.split("a", 5, Some("w2"), 0).await;
    w.state(
        "split.a",
        json!({"schema":3,"id":"a","fp":fp(),"epoch":2,"status":"runnable","owner":"w2","attempts":0,
            "watermark":null,"state":null,"completed":false,"written_at_ms":0}),
    )
    .await;
    w.held("a", "w1", "n-w1").await;
    w.split("b", 5, None, 0).await;
    w.assign("w1", &["b"]).await;
    w.assign("w2", &["a"]).await;
    let (_, _, claims) = export_and_plan(&server, "fenced");
    assert_eq!(actions(&claims, "w1"), vec![t("b", "claim", "create")]);
    assert_eq!(claims["workers"]["w1"]["held"], 0);
    assert_eq!(claims["fenced"]["w1"], json!(["a"]));
    assert_eq!(claims["drains"]["w1"], json!([]));
}
