//! The two releases' rules on real stores (issue 24): situations written through a real NATS
//! server as Spate writes them, exported with `spate-planner snapshot`, then planned on the
//! command line. A 0.3.0 store (its plan record names the elector, its starts left
//! `_probe.{instance}.{nonce}` keys) is detected as 0.3 and plans as the conformance vectors
//! computed by the real 0.3.0 code expect; a 0.1.x/0.2.x store in the upstream #820 situation
//! shows, with `plan --rules`, `diff-rules` and `report --compare-rules`, which splits stop
//! moving on upgrading; `watch` follows the rules the store names or `--rules` picks.

use crate::nats_server;
use crate::store_writer;

use async_nats::jetstream;
use nats_server::NatsServer;
use serde_json::{json, Value};
use spate_planner_core::{analyse, reference, Fleet, Rules, Scenario};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use store_writer::{export, fp, run, Writer, BIN, FINGERPRINT};

/// A 0.3.0 run nonce: 32 lowercase hex characters (decision-core-0.3.md section 7).
const NONCE: &str = "0123456789abcdef0123456789abcdef";

/// The case `name` of tests/vectors-0.3.json.
fn vector(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors-0.3.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name);
    case.unwrap_or_else(|| panic!("no case {name}")).clone()
}

/// The leader of a written case: a member whose own cap is the case's default cap (its presence
/// gives the leader's default cap).
fn leader_of(input: &Value) -> String {
    let caps = input["caps"].as_object().unwrap();
    let members = input["members"].as_array().unwrap();
    let m = members.iter().find(|m| !caps.contains_key(m.as_str().unwrap()));
    m.expect("a member with the default cap")
        .as_str()
        .unwrap()
        .to_string()
}

/// Writes an `assign` case of the vectors into `job` as a store shows it: each member's presence
/// with its cap (the leader's is the default cap) and the leader key; each split's spec, progress
/// record and lease as the case gives them (the job's `fp` for the case's); and `previous` as the
/// `assign.*` records it is built from (`last_assignees`, 0.3 section 3). With `elector`, a 0.3.0
/// leader won the last election: the plan names it, and its start left probe keys.
async fn write_case(js: &jetstream::Context, job: &str, case: &Value, elector: bool) -> Writer {
    let input = &case["input"];
    let w = Writer::new(js, job).await;
    let leader = leader_of(input);
    let nonce = format!("n-{leader}");
    let mut plan = json!({"schema":3,"fingerprint":FINGERPRINT,"generation":1,"finality":"open","planned":1,
        "planner_state":null,"updated_at_ms":0});
    if elector {
        plan["elector"] = json!({"owner": leader, "nonce": nonce});
        let probe = format!("_probe.{leader}.{NONCE}");
        w.state(&probe, "probe").await.lease(&probe, "probe").await;
    }
    w.state("plan", plan).await;
    w.lease(
        "leader",
        json!({"schema":3,"owner":leader,"nonce":nonce,"generation":1}),
    )
    .await;
    for m in input["members"].as_array().unwrap() {
        let m = m.as_str().unwrap();
        let cap = input["caps"].get(m).unwrap_or(&input["default_cap"]);
        w.lease(
            &format!("worker.{m}"),
            json!({"schema":3,"nonce":format!("n-{m}"),"max_in_flight":cap}),
        )
        .await;
    }
    for (id, s) in input["splits"].as_object().unwrap() {
        let mut progress = s["progress"].clone();
        progress["fp"] = json!(fp());
        w.state(&format!("split.{id}"), progress).await;
        if !s["spec"].is_null() {
            let mut spec = s["spec"].clone();
            spec["fp"] = json!(fp());
            w.state(&format!("spec.{id}"), spec).await;
        }
        if !s["lease"].is_null() {
            w.lease(&format!("split.{id}"), &s["lease"]["value"]).await;
        }
    }
    let mut records: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, m) in input["previous"].as_object().unwrap() {
        records.entry(m.as_str().unwrap()).or_default().push(id.as_str());
    }
    for (m, ids) in records {
        w.assign(m, &ids).await;
    }
    w
}

fn plan(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["plan", path.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    store_writer::json(&args)
}

/// 0.1's answer on the store's inputs, from the plain transcription of decision-core.md.
fn by_0_1_reference(path: &Path) -> Value {
    let fleet = Fleet::load_text(&std::fs::read_to_string(path).unwrap()).unwrap();
    let s = Scenario {
        rules: Some(Rules::V0_1),
        ..Scenario::default()
    };
    let i = analyse(&fleet, &s).unwrap().applied.inputs;
    let (a, _) =
        reference::desired_assignment(&i.members, &i.splits, &i.reserved, &i.caps, i.default_cap, i.seed);
    serde_json::to_value(a).unwrap()
}

/// The cases whose answer no tie-break decides (a lone split, or every lane but one taken by the
/// sticky walks): the vectors' seed (7) is no store's, whose seed is its fingerprint's hash.
const SEEDLESS: [&str; 9] = [
    "regression-824-claiming",
    "regression-824-held",
    "regression-824-released",
    "regression-824-taken-over",
    "regression-824-held-by-another",
    "regression-824-reclaimed",
    "regression-departed-lease-owner-seed-0",
    "regression-last-assignee-at-cap",
    "regression-820-second",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_0_3_store_is_detected_and_plans_as_the_vectors_expect() {
    let server = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(server.url()).await.unwrap());
    for (i, name) in SEEDLESS.iter().enumerate() {
        let case = vector(name);
        let job = format!("v03-{i}");
        write_case(&js, &job, &case, true).await;
        let file = export(&server.url(), &job);
        let p = plan(&file, &[]);
        assert_eq!(
            (p["rules"].as_str(), p["rules_source"].as_str()),
            (Some("0.3"), Some("elector")),
            "{name}"
        );
        assert_eq!(p["assignment"], case["expect"]["assignment"], "{name}");
        assert_eq!(
            p["warnings"],
            json!([]),
            "{name}: probe keys ignored; elector and leader agree"
        );
        // by 0.1's rules (--rules), the store plans as 0.1's transcription says
        let p1 = plan(&file, &["--rules", "0.1"]);
        assert_eq!(p1["rules_source"], "user", "{name}");
        assert_eq!(p1["assignment"], by_0_1_reference(&file), "{name}");
    }
}

/// A 0.3.0 store in the #824 situation (0.3 section 2.2): w2 took `x` over (record at epoch 2),
/// w1's epoch-1 lease on it lingers; w1 holds `y`; one lane each. 0.1 keeps `x` with the lease's
/// owner w1, so `y`, held by w1, goes to w2: both move. 0.3 ignores the lease that is not
/// current: `y` stays with w1 (walk 3a), `x` with its previous assignee w2 (walk 3b).
async fn write_824(js: &jetstream::Context) -> Writer {
    let w = Writer::new(js, "v03").await;
    w.state(
        "plan",
        json!({"schema":3,"fingerprint":FINGERPRINT,"generation":1,"finality":"open","planned":2,"planner_state":null,"updated_at_ms":0,
            "elector":{"owner":"w1","nonce":"n-w1"}}),
    )
    .await;
    w.lease(
        "leader",
        json!({"schema":3,"owner":"w1","nonce":"n-w1","generation":1}),
    )
    .await;
    w.state(&format!("_probe.w1.{NONCE}"), "probe").await;
    w.lease(&format!("_probe.w1.{NONCE}"), "probe").await;
    w.presence("w1", 1).await;
    w.presence("w2", 1).await;
    w.split("x", 50, Some("w2"), 0).await;
    w.state(
        "split.x",
        json!({"schema":3,"id":"x","fp":fp(),"epoch":2,"status":"runnable","owner":"w2","attempts":0,
            "watermark":null,"state":null,"completed":false,"written_at_ms":0}),
    )
    .await;
    w.held("x", "w1", "n-w1").await;
    w.split("y", 40, Some("w1"), 0).await;
    w.held("y", "w1", "n-w1").await;
    w.assign("w1", &["y"]).await;
    w.assign("w2", &["x"]).await;
    w
}

/// The first line `watch` prints for `job`, with `extra` flags.
fn watch_first_line(url: &str, job: &str, extra: &[&str]) -> String {
    use std::io::BufRead;
    let mut args = vec!["watch", "--server", url, "--job", job];
    args.extend_from_slice(extra);
    let mut child = std::process::Command::new(BIN)
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let read = std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let _ = child.kill();
    let _ = child.wait();
    read.unwrap();
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_824_store_plans_claims_compares_and_watches_by_0_3s_rules() {
    let server = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(server.url()).await.unwrap());
    write_824(&js).await;
    let file = export(&server.url(), "v03");
    let path = file.to_str().unwrap();
    let p = plan(&file, &[]);
    assert_eq!(
        (p["rules"].as_str(), p["rules_source"].as_str()),
        (Some("0.3"), Some("elector"))
    );
    assert_eq!(p["assignment"], json!({"w1": ["y"], "w2": ["x"]}));
    assert_eq!(
        p["warnings"],
        json!([]),
        "probe keys ignored; elector and leader agree"
    );
    assert_eq!(store_writer::json(&["claims", path, "--json"])["rules"], "0.3");
    let by_0_1 = plan(&file, &["--rules", "0.1"]);
    assert_eq!(by_0_1["rules_source"], "user");
    assert_eq!(by_0_1["assignment"], json!({"w1": ["x"], "w2": ["y"]}));
    let d = store_writer::json(&["diff-rules", path, "--json"]);
    assert_eq!(d["today"]["source"], "elector");
    assert_eq!(d["kept_only_by_0_3"], json!(["x", "y"]));
    assert_eq!(d["kept_only_by_0_1"], json!([]));
    assert_eq!(
        (d["v0_1"]["reassigned"].as_u64(), d["v0_3"]["reassigned"].as_u64()),
        (Some(2), Some(0))
    );
    // the comparison of the snapshot with itself: by 0.3 the published records are the
    // leader's decision; by 0.1 (--rules) they are not
    let same = store_writer::json(&["diff", path, path, "--json"]);
    assert_eq!(same["decision"]["matches"], true);
    let by_0_1 = store_writer::json(&["diff", path, path, "--json", "--rules", "0.1"]);
    assert_eq!(by_0_1["decision"]["matches"], false);
    assert_eq!(
        by_0_1["before"]["rules"],
        json!({"rules": "0.1", "source": "user"})
    );
    // watch: the rules the store names, or --rules; the published assignment is 0.3's plan
    let url = server.url();
    let line = watch_first_line(&url, "v03", &[]);
    assert!(
        line.contains("from published 0,") && line.ends_with("rules 0.3\n"),
        "{line}"
    );
    let line = watch_first_line(&url, "v03", &["--rules", "0.1"]);
    assert!(
        line.contains("from published 2,") && line.ends_with("rules 0.1\n"),
        "{line}"
    );
    // the simulator follows the release the store names, unless told another
    let sim = store_writer::json(&["simulate", path, "--json", "--config", "until_ms=1000"]);
    assert_eq!(
        (&sim["rules"], &sim["rules_source"]),
        (&json!("0.3"), &json!("elector"))
    );
    let sim = store_writer::json(&[
        "simulate",
        path,
        "--json",
        "--rules",
        "0.1",
        "--config",
        "until_ms=1000",
    ]);
    assert_eq!(
        (&sim["rules"], &sim["rules_source"]),
        (&json!("0.1"), &json!("user"))
    );
}

/// The ids of an assignment document, by member.
fn members_of(a: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (m, ids) in a.as_object().unwrap() {
        for id in ids.as_array().unwrap() {
            out.insert(id.as_str().unwrap().to_string(), m.clone());
        }
    }
    out
}

/// Upstream #820 on a 0.1.x/0.2.x store (no elector): the vectors' `regression-820-second`.
/// Eight members of three lanes each hold two splits; the last publish also gave each one split
/// nobody has claimed yet (no lease, no owner); then `a50` completed. 0.1 sends every unclaimed
/// split to the fill pass, so the completion moves the whole batch; 0.3 keeps each with its
/// `previous` member and gives only w5's freed lane a queued split.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_820_batch_stops_moving_on_upgrading() {
    let server = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(server.url()).await.unwrap());
    let case = vector("regression-820-second");
    write_case(&js, "v01", &case, false).await;
    let file = export(&server.url(), "v01");
    let path = file.to_str().unwrap();
    let today = plan(&file, &[]);
    assert_eq!(
        (today["rules"].as_str(), today["rules_source"].as_str()),
        (Some("0.1"), Some("no_elector"))
    );
    assert_eq!(today["assignment"], by_0_1_reference(&file));
    let upgraded = plan(&file, &["--rules", "0.3"]);
    assert_eq!(upgraded["assignment"], case["expect"]["assignment"]);
    // the splits 0.1 plans elsewhere than the last publish named: the unclaimed batch
    let previous = &case["input"]["previous"];
    let by_0_1 = members_of(&today["assignment"]);
    let moved: Vec<String> = previous
        .as_object()
        .unwrap()
        .iter()
        .filter(|(id, m)| by_0_1.contains_key(*id) && by_0_1[*id] != m.as_str().unwrap())
        .map(|(id, _)| id.clone())
        .collect();
    assert!(moved.len() >= 7, "0.1 moves the batch: {moved:?}");
    assert!(moved.iter().all(|id| id.starts_with('q')), "{moved:?}");
    let d = store_writer::json(&["diff-rules", path, "--json"]);
    assert_eq!(d["today"], json!({"rules": "0.1", "source": "no_elector"}));
    assert_eq!(d["kept_only_by_0_3"], json!(moved));
    assert_eq!(d["kept_only_by_0_1"], json!([]));
    assert_eq!(d["v0_1"]["reassigned"].as_u64(), Some(moved.len() as u64));
    assert_eq!(
        d["v0_3"]["reassigned"], 0,
        "the completed a50 is reassigned by neither"
    );
    // each plan gives the nine free lanes an unclaimed split (a move from nobody): the moves do
    // not tell the two apart, the splits planned elsewhere than published do
    assert_eq!(
        (
            d["v0_1"]["churn"]["moves"].as_u64(),
            d["v0_3"]["churn"]["moves"].as_u64()
        ),
        (Some(9), Some(9))
    );
    let apart: BTreeSet<&str> = d["placed_apart"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["split"].as_str().unwrap())
        .collect();
    assert!(moved.iter().all(|id| apart.contains(id.as_str())));
    // the review document carries the same side by side
    let o = run(&["report", path, "--compare-rules"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(
        md.contains("## What upgrading changes: Spate 0.1 and 0.3 side by side"),
        "{md}"
    );
    let line = format!(
        "Reassigned by 0.1, kept by 0.3 (stop moving on upgrading) ({}): ",
        moved.len()
    );
    let listed = md
        .lines()
        .find(|l| l.starts_with(&line))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        moved.iter().all(|id| listed.contains(&format!("`{id}`"))),
        "{listed}"
    );
    assert!(
        md.contains(&format!(
            "| 0.1 (today) | 9 (9 B) | {} ({} B) |",
            moved.len(),
            moved.len()
        )),
        "{md}"
    );
}
