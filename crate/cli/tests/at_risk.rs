//! `plan` and `claims` on a store with splits one attempt from quarantine and one the claim race
//! parked (timing.md §6.5, §6.7 A8 and A12): the human line near the answer and the list, the
//! JSON documents' `at_risk`, `plan --csv at-risk`, and `--max-attempts` (the store does not
//! record it: every output says where the value comes from).

use serde_json::{json, Value};
use spate_planner_core::{snapshot::bucket_names, stable_hash_str, Bucket, Entry, Snapshot, Source};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");
const FINGERPRINT: &str = "s3://bucket/job@1";

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("spate-at-risk-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn entries(list: &[(&str, Value)]) -> Vec<Entry> {
    list.iter()
        .zip(1..)
        .map(|((key, v), revision)| Entry {
            key: key.to_string(),
            revision,
            created_ms: 0,
            value: v.to_string().into_bytes(),
        })
        .collect()
}

fn split(id: &str, status: &str, owner: Option<&str>, epoch: u64, attempts: u32) -> Value {
    json!({"schema": 3, "id": id, "fp": stable_hash_str(0, FINGERPRINT), "epoch": epoch, "status": status,
        "owner": owner, "attempts": attempts, "watermark": null, "state": null, "completed": false, "written_at_ms": 0})
}

fn spec(id: &str, weight: u64) -> Value {
    json!({"schema": 3, "id": id, "fp": stable_hash_str(0, FINGERPRINT), "generation": 1, "weight": weight, "descriptor": ""})
}

fn lease(owner: &str, epoch: u64) -> Value {
    json!({"schema": 3, "owner": owner, "nonce": format!("n-{owner}"), "epoch": epoch})
}

/// w1 and w2 live. `a` at attempts 3 leased by w1; `b` at 3 recorded for w2 with no lease; `c`
/// at 2; `r` runnable at 4; `q` quarantined at 4 (epoch 6) under w2's lease at epoch 5. Written
/// to `{tag}.json` (each test its own: they run at once).
fn snapshot(tag: &str) -> String {
    let (s, l) = bucket_names("j");
    let plan = json!({"schema": 3, "fingerprint": FINGERPRINT, "generation": 1, "finality": "open",
        "planned": 0, "planner_state": null, "updated_at_ms": 0});
    let state = [
        ("plan", plan),
        ("spec.a", spec("a", 1 << 30)),
        ("split.a", split("a", "runnable", Some("w1"), 4, 3)),
        ("spec.b", spec("b", 2 << 30)),
        ("split.b", split("b", "runnable", Some("w2"), 4, 3)),
        ("spec.c", spec("c", 100)),
        ("split.c", split("c", "runnable", None, 3, 2)),
        ("spec.r", spec("r", 100)),
        ("split.r", split("r", "runnable", None, 5, 4)),
        ("spec.q", spec("q", 100)),
        ("split.q", split("q", "quarantined", None, 6, 4)),
    ];
    let presence = |x: &str| json!({"schema": 3, "nonce": format!("n-{x}"), "max_in_flight": 4});
    let leases = [
        (
            "leader",
            json!({"schema": 3, "owner": "w1", "nonce": "n-w1", "generation": 1}),
        ),
        ("worker.w1", presence("w1")),
        ("worker.w2", presence("w2")),
        ("split.a", lease("w1", 4)),
        ("split.q", lease("w2", 5)),
    ];
    let bucket = |name: String, max_age_ms, list: &[(&str, Value)]| Bucket {
        name,
        history: 1,
        max_age_ms,
        revision: None,
        entries: entries(list),
    };
    let snap = Snapshot {
        job: "j".into(),
        source: Source::default(),
        taken_at_ms: 0,
        state: bucket(s, 0, &state),
        lease: bucket(l, 30_000, &leases),
    };
    let p = dir().join(format!("{tag}.json"));
    std::fs::write(&p, snap.to_json()).unwrap();
    p.to_str().unwrap().to_string()
}

fn run(args: &[&str]) -> Output {
    let o = Command::new(BIN).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn text(args: &[&str]) -> String {
    String::from_utf8(run(args).stdout).unwrap()
}

fn doc(args: &[&str]) -> Value {
    serde_json::from_slice(&run(args).stdout).unwrap()
}

const DEFAULT_NOTE: &str = "max_attempts 4, Spate's default; the store does not record it";
const HEADLINE_4: &str = "2 split(s) at risk: at attempts 3 of 4, one non-graceful end (or one racy hand-over) from quarantine; held by \"w1\" (1), \"w2\" (1).";

#[test]
fn plan_says_how_many_are_at_risk_near_the_answer_and_lists_them() {
    let snap = snapshot("human");
    let out = text(&["plan", &snap]);
    let line = out.find(HEADLINE_4).unwrap_or_else(|| panic!("{out}"));
    // after the header's first line (and any finding), before the seed and the figures
    assert!(line < out.find("\nseed ").unwrap(), "{out}");
    assert!(out.contains(DEFAULT_NOTE), "{out}");
    assert!(
        out.contains("1 runnable split(s) at attempts 4 or more, e.g. \"r\" at 4"),
        "{out}"
    );
    assert!(out.contains("\"q\" right after \"w2\"'s claim"), "{out}");
    assert!(out.contains("\nat risk, at attempts max_attempts − 1 (2):\n  a  attempts 3  1.0 GiB  owner w1  lease w1  held by w1\n  b  attempts 3  2.0 GiB  owner w2  lease none  held by w2\n"), "{out}");
    assert!(out.contains("\nparked by the claim race (1):\n  q  parked by the claim race right after w2's claim (lease epoch 5, record epoch 6, attempts 4)\n"), "{out}");
}

#[test]
fn max_attempts_moves_the_line_and_says_it_was_set() {
    let snap = snapshot("flag");
    let out = text(&["plan", &snap, "--max-attempts", "5"]);
    assert!(
        out.contains("max_attempts 5, set by the user (--max-attempts"),
        "{out}"
    );
    assert!(out.contains("1 split(s) at risk: at attempts 4 of 5"), "{out}");
    // q's attempts 4 are not A = 5: no race signature
    assert!(!out.contains("parked by the claim race"), "{out}");
    let d = doc(&["plan", &snap, "--max-attempts", "5", "--json"]);
    let x = &d["at_risk"];
    assert_eq!(
        (x["max_attempts"].as_u64(), x["count"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(x["max_attempts_source"], "user");
    assert_eq!(x["splits"][0]["id"], "r");
    // a what-if file's max_attempts, and the flag over it
    let file = dir().join("a3.json");
    std::fs::write(&file, r#"{"max_attempts":3}"#).unwrap();
    let f = file.to_str().unwrap();
    let d = doc(&["plan", &snap, "--what-if", f, "--json"]);
    assert_eq!(d["at_risk"]["max_attempts"], 3);
    assert_eq!(d["at_risk"]["splits"][0]["id"], "c");
    let d = doc(&["plan", &snap, "--what-if", f, "--max-attempts", "4", "--json"]);
    assert_eq!(d["at_risk"]["max_attempts"], 4);
    let bad = Command::new(BIN)
        .args(["plan", &snap, "--max-attempts=-1"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--max-attempts"));
}

#[test]
fn plan_json_and_csv_carry_the_same_splits() {
    let snap = snapshot("csv");
    let d = doc(&["plan", &snap, "--json"]);
    let x = &d["at_risk"];
    assert_eq!(x["max_attempts_source"], "spate_default");
    assert_eq!(x["headline"], HEADLINE_4);
    assert_eq!(x["by_member"], json!({"w1": 1, "w2": 1}));
    assert_eq!(x["weight"], (3u64 << 30).to_string());
    assert_eq!(
        (x["past_cap_count"].as_u64(), x["race_parked_count"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(x["race_parked"][0]["lease_epoch"], "5");
    let csv = text(&["plan", &snap, "--csv", "at-risk"]);
    assert_eq!(
        csv,
        "id,state,attempts,max_attempts,epoch,weight,owner,lease_owner,held_by\r\n\
         a,at_risk,3,4,4,1073741824,w1,w1,w1\r\n\
         b,at_risk,3,4,4,2147483648,w2,,w2\r\n\
         r,past_cap,4,4,5,100,,,\r\n\
         q,race_parked,4,4,6,100,,w2,\r\n"
    );
}

#[test]
fn claims_says_it_too_by_its_max_attempts() {
    let snap = snapshot("claims");
    let out = text(&["claims", &snap]);
    assert!(out.contains(DEFAULT_NOTE), "{out}");
    let line = out.find(HEADLINE_4).unwrap_or_else(|| panic!("{out}"));
    assert!(line < out.find("\nw1: holds").unwrap(), "{out}");
    assert!(
        out.contains("\nat risk, at attempts max_attempts − 1 (2):\n"),
        "{out}"
    );
    let d = doc(&["claims", &snap, "--json"]);
    assert_eq!(d["max_attempts"], 4);
    assert_eq!(d["at_risk"]["count"], 2);
    assert_eq!(d["at_risk"]["max_attempts_source"], "spate_default");
    // A = 3: b's expired takeover (attempts 3 + 1 ≥ 3) is a quarantine, and c is at risk
    let d = doc(&["claims", &snap, "--json", "--max-attempts", "3"]);
    assert_eq!(d["max_attempts"], 3);
    assert_eq!(d["at_risk"]["max_attempts_source"], "user");
    assert_eq!(d["at_risk"]["splits"][0]["id"], "c");
    let b: Vec<&Value> = d["claims"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|v| v.as_array().unwrap())
        .filter(|a| a["split"] == "b")
        .collect();
    assert!(
        !b.is_empty() && b.iter().all(|a| a["action"] == "quarantine"),
        "{b:?}"
    );
}
