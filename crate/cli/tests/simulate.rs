//! `spate-planner simulate` on the command line: the JSON contract other tools rely on, and a
//! crash's recovery within timing.md's range with Spate's defaults.

use serde_json::{json, Value};
use spate_planner_core::{snapshot::bucket_names, stable_hash_str, Bucket, Entry, Snapshot, Source};
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// timing.md section 8's fleet: w1..w4 (cap 8), 16 splits of weight 1, each worker holding 4,
/// w1 leading; written as a snapshot file.
fn fleet_file(name: &str) -> PathBuf {
    let fp = stable_hash_str(0, "fp");
    let mut state = vec![(
        "plan".to_string(),
        json!({"schema":3,"fingerprint":"fp","generation":1,"finality":"open","planned":16,"planner_state":null,"updated_at_ms":0}),
    )];
    let mut lease = vec![(
        "leader".to_string(),
        json!({"schema":3,"owner":"w1","nonce":"n-w1","generation":1}),
    )];
    let mut held: Vec<Vec<String>> = vec![Vec::new(); 4];
    for i in 0..16 {
        let (id, w) = (format!("s{i:02}"), format!("w{}", i % 4 + 1));
        state.push((
            format!("spec.{id}"),
            json!({"schema":3,"id":id,"fp":fp,"generation":1,"weight":1,"descriptor":""}),
        ));
        state.push((format!("split.{id}"), json!({"schema":3,"id":id,"fp":fp,"epoch":1,"status":"runnable","owner":w,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0})));
        lease.push((
            format!("split.{id}"),
            json!({"schema":3,"owner":w,"nonce":format!("n-{w}"),"epoch":1}),
        ));
        held[i % 4].push(id);
    }
    for (k, ids) in held.iter().enumerate() {
        let w = format!("w{}", k + 1);
        lease.push((
            format!("worker.{w}"),
            json!({"schema":3,"nonce":format!("n-{w}"),"max_in_flight":8}),
        ));
        state.push((
            format!("assign.{w}"),
            json!({"schema":3,"generation":1,"splits":ids}),
        ));
    }
    let entries = |v: Vec<(String, Value)>| -> Vec<Entry> {
        v.into_iter()
            .enumerate()
            .map(|(i, (key, val))| Entry {
                key,
                revision: i as u64 + 1,
                created_ms: 0,
                value: val.to_string().into_bytes(),
            })
            .collect()
    };
    let (sn, ln) = bucket_names("j");
    let snap = Snapshot {
        job: "j".into(),
        source: Source::default(),
        taken_at_ms: 0,
        state: Bucket {
            name: sn,
            history: 1,
            max_age_ms: 0,
            revision: None,
            entries: entries(state),
        },
        lease: Bucket {
            name: ln,
            history: 1,
            max_age_ms: 30_000,
            revision: None,
            entries: entries(lease),
        },
    };
    let p = dir().join(format!("fleet-{name}.json"));
    std::fs::write(&p, snap.to_json()).unwrap();
    p
}

/// Each call writes its own files (tests run in parallel).
fn simulate(name: &str, script: &str, extra: &[&str]) -> Value {
    let file = dir().join(format!("script-{name}.json"));
    std::fs::write(&file, script).unwrap();
    let fleet = fleet_file(name);
    let mut args = vec![
        "simulate",
        fleet.to_str().unwrap(),
        "--script",
        file.to_str().unwrap(),
        "--json",
    ];
    args.extend(extra);
    let o = Command::new(BIN).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_json_document_keeps_its_contract() {
    let doc = simulate(
        "contract",
        r#"{"format":"spate-planner-script/1","seed":7,"until_ms":300000,"events":[{"at_ms":0,"op":"crash","member":"w4"}]}"#,
        &[],
    );
    assert_eq!(doc["format"], "spate-planner-simulation/1");
    let claims = doc["claims"].as_array().unwrap();
    let kinds = ["create", "released", "reclaim", "expired"];
    let mut last = 0;
    for c in claims {
        let t = c["t_ms"].as_u64().unwrap();
        assert!(t >= last, "claims in time order");
        last = t;
        assert!(kinds.contains(&c["kind"].as_str().unwrap()), "{c}");
        assert!(
            c["member"].is_string() && c["split"].is_string() && c["attempt"].is_u64(),
            "{c}"
        );
    }
    assert!(doc["quarantines"].is_array() && doc["elections"].is_array());
    let f = &doc["figures"];
    assert!(
        f["idle_split_ms"].is_u64() && f["attempts_burned"].is_u64(),
        "{f}"
    );
    // With Spate's defaults a crashed worker's splits run again 38-80 s after the crash.
    let r = f["recovery_ms"]
        .as_u64()
        .expect("the fleet recovers within 300 s");
    assert!((38_000..80_000).contains(&r), "recovery after {r} ms");
    // The crashed worker's four splits are taken over as expired claims, one attempt burnt each,
    // all in the same step.
    assert_eq!(claims.len(), 4, "{claims:?}");
    assert!(
        claims
            .iter()
            .all(|c| c["kind"] == "expired" && c["attempt"] == 1 && c["t_ms"].as_u64() == Some(r)),
        "{claims:?}"
    );
    assert_eq!(f["attempts_burned"], 4);
    // what the recovery rests on, in the simulator's words (docs/simulator.md)
    assert_eq!(
        doc["recovery"],
        json!({"taken": "The events took 4 splits (running on a member as it crashed or stopped, or failed); every one runs again.",
            "stuck": null, "others": null, "before": null})
    );
}

/// At capacity (4 members × 8 lanes, the crashed one's 8 splits with no free lane: timing.md
/// §8 (a) 7) the human output ends with the sentences the Timeline tab shows, each split's
/// reason in words in the document.
#[test]
fn the_recovery_is_said_in_words_on_the_terminal_and_in_the_document() {
    let script = r#"{"until_ms":300000,"events":[{"at_ms":0,"op":"crash","member":"w4"}]}"#;
    let file = dir().join("script-words.json");
    std::fs::write(&file, script).unwrap();
    let fleet = fleet_file("words");
    let caps = ["w1", "w2", "w3", "w4"].map(|w| format!("members.{w}.max_in_flight=4"));
    let config: Vec<&str> = caps.iter().flat_map(|c| ["--config", c.as_str()]).collect();
    let mut args = vec![
        "simulate",
        fleet.to_str().unwrap(),
        "--script",
        file.to_str().unwrap(),
    ];
    args.extend(&config);
    let o = Command::new(BIN).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let said = "The events took 4 splits (running on a member as it crashed or stopped, or failed).\nNot recovered: 4 of them never ran again — 4 no free lane: the leader's plan queues it.\n";
    assert!(text.ends_with(said), "{text}");
    let doc = simulate("words-json", script, &config);
    let stuck = doc["figures"]["not_recovered"].as_array().unwrap();
    assert_eq!(stuck.len(), 4);
    assert!(
        stuck
            .iter()
            .all(|n| n["words"] == "no free lane: the leader's plan queues it"),
        "{stuck:?}"
    );
}

#[test]
fn the_same_seed_gives_the_same_document_and_overrides_apply() {
    let script = r#"{"seed":3,"until_ms":120000,"events":[{"at_ms":0,"op":"crash","member":"w3"}]}"#;
    let a = simulate("a", script, &[]);
    let b = simulate("b", script, &[]);
    assert_eq!(a, b);
    let no_delay = simulate("c", script, &["--config", "rebalance_delay_ms=0"]);
    let r = no_delay["figures"]["recovery_ms"].as_u64().expect("recovers");
    assert!(
        r > 18_000 && r <= 30_000,
        "with no delay: claimed at lease expiry, {r} ms"
    );
}

/// `--compare`: configuration B is A's script with the fields set; the table holds both values as
/// each document gives them and B − A exact with its sign (docs/simulator.md, "The figures of A
/// and B"). With no rebalance delay the crashed worker's splits are claimed at lease expiry,
/// sooner than after the delay (timing.md §5.3): B's recovery is shorter, the difference negative.
#[test]
fn compare_gives_both_documents_and_the_signed_differences() {
    let script = r#"{"seed":3,"until_ms":120000,"events":[{"at_ms":0,"op":"crash","member":"w3"}]}"#;
    let doc = simulate("cmp", script, &["--compare", "rebalance_delay_ms=0"]);
    assert_eq!(doc["format"], "spate-planner-simulation-comparison/1");
    assert_eq!(doc["a"], simulate("cmp-a", script, &[]));
    assert_eq!(
        doc["b"],
        simulate("cmp-b", script, &["--config", "rebalance_delay_ms=0"])
    );
    let rows = doc["figures_table"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        14,
        "one row per figure, the claim race's parks included"
    );
    for r in rows {
        let key = r["key"].as_str().unwrap();
        let (a, b) = (&doc["a"]["figures"][key], &doc["b"]["figures"][key]);
        let num = |v: &Value| {
            v.as_u64()
                .map(i128::from)
                .or_else(|| v.as_str().map(|s| s.parse::<i128>().unwrap()))
        };
        let (Some(a), Some(b)) = (num(a), num(b)) else {
            assert_eq!(r["diff"], Value::Null, "{r}");
            continue;
        };
        assert_eq!(r["a"], a.to_string(), "{r}");
        assert_eq!(r["b"], b.to_string(), "{r}");
        let diff = match b - a {
            0 => "0".to_string(),
            d if d > 0 => format!("+{d}"),
            d => d.to_string(),
        };
        assert_eq!(r["diff"], diff, "{r}");
        assert_eq!(r["changed"], a != b, "{r}");
    }
    let rec = rows.iter().find(|r| r["key"] == "recovery_ms").unwrap();
    assert!(rec["diff"].as_str().unwrap().starts_with('-'), "{rec}");
    assert!(rec["diff_text"].as_str().unwrap().starts_with('−'), "{rec}");
}

/// The rules: the store's (this fleet's plan has no elector: 0.1) unless the script's `rules`,
/// `--config rules=...` or `--rules` say otherwise (`--rules` winning); a crash recovers by 0.3's
/// timing in (38, 62) s (timing-0.3.md §8 (a)); a bad value is refused naming the field.
#[test]
fn the_rules_come_from_the_script_or_the_command_line() {
    let crash = |rules: &str| {
        format!(
            r#"{{"format":"spate-planner-script/1",{rules}"seed":5,"until_ms":120000,"events":[{{"at_ms":0,"op":"crash","member":"w2"}}]}}"#
        )
    };
    let store = simulate("rules-store", &crash(""), &[]);
    assert_eq!(
        (&store["rules"], &store["rules_source"]),
        (&json!("0.1"), &json!("no_elector"))
    );
    let by_script = simulate("rules-script", &crash(r#""rules":"0.3","#), &[]);
    assert_eq!(
        (&by_script["rules"], &by_script["rules_source"]),
        (&json!("0.3"), &json!("user"))
    );
    let r = by_script["figures"]["recovery_ms"].as_u64().expect("recovers");
    assert!(r > 38_000 && r < 62_000, "recovery by 0.3 after {r} ms");
    let by_flag = simulate("rules-flag", &crash(""), &["--rules", "0.3"]);
    assert_eq!(by_flag, by_script, "--rules 0.3 is the script's rules");
    let by_config = simulate("rules-config", &crash(""), &["--config", "rules=0.3"]);
    assert_eq!(by_config, by_script);
    let flag_wins = simulate("rules-wins", &crash(r#""rules":"0.3","#), &["--rules", "0.1"]);
    assert_eq!(flag_wins["rules"], "0.1");
    let file = dir().join("script-rules-bad.json");
    std::fs::write(&file, crash(r#""rules":"0.4","#)).unwrap();
    let fleet = fleet_file("rules-bad");
    let o = Command::new(BIN)
        .args([
            "simulate",
            fleet.to_str().unwrap(),
            "--script",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("script rules:") && err.contains("[invalid_script]"),
        "{err}"
    );
}

/// `--claim-race P` (timing.md §6.7): with `max_attempts` 2 a crash's Expired takeovers write
/// attempts 1 = A − 1, so each may be parked. P = 1 parks all 4 (none recovers), P = 0 none;
/// it is set before `--compare`, which may set it again; out of 0..=1 it is refused by name.
/// `--seeds N` says in how many seeds the race parked splits.
#[test]
fn the_claim_race_is_set_on_the_command_line_and_counted_over_seeds() {
    let s = r#"{"until_ms": 200000, "config": {"max_attempts": 2},
        "events": [{"at_ms": 0, "op": "crash", "member": "w4"}]}"#;
    let on = simulate("race-on", s, &["--claim-race", "1"]);
    assert_eq!(on["figures"]["splits_parked_by_race"], 4);
    assert_eq!(on["figures"]["recovery_ms"], Value::Null);
    let reasons: Vec<&Value> = on["figures"]["not_recovered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["reason"])
        .collect();
    assert_eq!(reasons, vec![&json!("parked_by_race"); 4]);
    let off = simulate("race-off", s, &["--claim-race", "0"]);
    assert_eq!(off["figures"]["splits_parked_by_race"], 0);
    assert!(off["figures"]["recovery_ms"].as_u64().is_some());
    let both = simulate(
        "race-compare",
        s,
        &["--claim-race", "1", "--compare", "claim_race=0"],
    );
    assert_eq!(both["a"]["figures"]["splits_parked_by_race"], 4);
    assert_eq!(both["b"]["figures"]["splits_parked_by_race"], 0);
    let seeds = simulate("race-seeds", s, &["--claim-race", "1", "--seeds", "3"]);
    assert_eq!(seeds["format"], "spate-planner-simulation-seeds/1");
    assert_eq!(seeds["summary"]["parked_seeds"], 3);
    assert_eq!(seeds["summary"]["parked_splits"], 12);
    assert_eq!(seeds["runs"].as_array().map(Vec::len), Some(3));
    let said = seeds["sentences"].to_string();
    assert!(
        said.contains("3 of 3 seeds park splits by the claim race (12 splits in all)"),
        "{said}"
    );

    let fleet = fleet_file("race-bad");
    let o = Command::new(BIN)
        .args(["simulate", fleet.to_str().unwrap(), "--claim-race", "1.5"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--claim-race") && err.contains("not a probability from 0 to 1"),
        "{err}"
    );
}
