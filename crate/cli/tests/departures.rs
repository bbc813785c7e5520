//! What `plan` says of a departed instance (issue 33), by the rules of decision-core.md section 7
//! and timing.md sections 3.2 and 5.3: a crash writes nothing, so the splits it held still name
//! it and are withheld for the rebalance delay; a graceful stop clears the owner of each split it
//! holds before its presence goes, so its lingering `assign.{X}` record withholds nothing. One
//! store of each kind, and the same two departures as what-if changes.

use serde_json::{json, Value};
use spate_planner_core::stable_hash_str;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");
const FINGERPRINT: &str = "s3://bucket/departures@v1";
const AT: i64 = 1_767_225_600_000;

fn entry(key: &str, revision: u64, value: Value) -> Value {
    json!({"key": key, "revision": revision, "created_ms": AT - 1000, "value": value})
}

/// w1 leads and holds `a`; `gone` is the departed instance: after a crash its two splits still
/// name it and its leases are still there; after a graceful stop both splits name nobody and
/// its leases are gone. Either way its `assign.gone` record lingers with no presence.
fn store(crashed: bool) -> Value {
    let fp = stable_hash_str(0, FINGERPRINT);
    let mut state = vec![entry(
        "plan",
        1,
        json!({"finality":"final","fingerprint":FINGERPRINT,"generation":1,"planned":3,"planner_state":null,"schema":3,"updated_at_ms":AT - 9000}),
    )];
    let mut lease = vec![
        entry(
            "worker.w1",
            50,
            json!({"max_in_flight": 8, "nonce": "n-w1", "schema": 3}),
        ),
        entry(
            "leader",
            51,
            json!({"schema":3,"owner":"w1","nonce":"lead","generation":1}),
        ),
        entry(
            "split.a",
            52,
            json!({"epoch":1,"nonce":"n-w1","owner":"w1","schema":3}),
        ),
    ];
    let gone_owner = crashed.then_some("gone");
    for (i, (id, owner)) in [("a", Some("w1")), ("b", gone_owner), ("c", gone_owner)]
        .into_iter()
        .enumerate()
    {
        let r = 2 + 2 * i as u64;
        state.push(entry(
            &format!("spec.{id}"),
            r,
            json!({"descriptor":"AAAA","fp":fp,"generation":1,"id":id,"schema":3,"weight":1_000_000}),
        ));
        state.push(entry(&format!("split.{id}"), r + 1, json!({"attempts":0,"completed":false,"epoch":1,"fp":fp,"id":id,"owner":owner,"schema":3,"state":null,"status":"runnable","watermark":null,"written_at_ms":AT - 5000})));
    }
    state.push(entry(
        "assign.w1",
        20,
        json!({"generation":1,"schema":3,"splits":["a"]}),
    ));
    state.push(entry(
        "assign.gone",
        21,
        json!({"generation":1,"schema":3,"splits":["b","c"]}),
    ));
    if crashed {
        for id in ["b", "c"] {
            lease.push(entry(
                &format!("split.{id}"),
                60,
                json!({"epoch":1,"nonce":"n-gone","owner":"gone","schema":3}),
            ));
        }
    }
    json!({
        "format": "spate-planner-snapshot/1", "job": "departures",
        "source": {"kind": "demo", "note": "hand-written"}, "taken_at_ms": AT,
        "state": {"history": 1, "max_age_ms": 0, "name": "spate_coordination_departures_state", "entries": state},
        "lease": {"history": 1, "max_age_ms": 30000, "name": "spate_coordination_departures_lease", "entries": lease},
    })
}

fn write(name: &str, v: &Value) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("spate-departures-{}-{name}.json", std::process::id()));
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

fn plan(args: &[&str]) -> (String, Value) {
    let text = Command::new(BIN).arg("plan").args(args).output().unwrap();
    assert!(text.status.success(), "{}", String::from_utf8_lossy(&text.stderr));
    let json = Command::new(BIN)
        .arg("plan")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    (
        String::from_utf8(text.stdout).unwrap(),
        serde_json::from_slice(&json.stdout).unwrap(),
    )
}

/// The one line of `plan`'s findings naming `who`.
fn line_of(text: &str, who: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("note:") && l.contains(&format!("{who:?}")))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    lines[0].to_string()
}

#[test]
fn a_crash_in_the_store_withholds_its_splits_and_a_graceful_stop_withholds_nothing() {
    let crash = write("crash", &store(true));
    let (text, doc) = plan(&[crash.to_str().unwrap()]);
    let l = line_of(&text, "gone");
    assert!(l.contains("2 split(s) withheld until its delay ends"), "{l}");
    assert_eq!(doc["reserved"], json!(["b", "c"]));
    assert_eq!(doc["departed"][0]["withheld"], 2);

    let graceful = write("graceful", &store(false));
    let (text, doc) = plan(&[graceful.to_str().unwrap()]);
    let l = line_of(&text, "gone");
    assert!(
        !l.contains("withheld until") && !l.contains("split(s) withheld"),
        "{l}"
    );
    assert!(l.contains("Nothing is withheld"), "{l}");
    assert_eq!(doc["reserved"], json!([]));
    assert_eq!(doc["departed"][0]["withheld"], 0);
    assert_eq!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "departed_released")
            .count(),
        1
    );
}

#[test]
fn a_graceful_what_if_releases_what_the_member_held_and_a_crash_what_if_withholds_it() {
    let file = write("what-if", &store(false));
    let scenario = |how: &str| {
        let p = write(
            &format!("scenario-{how}"),
            &json!({"changes":[{"op":"remove_member","member":"w1","departure":how}]}),
        );
        p.to_str().unwrap().to_string()
    };
    let (g, s) = (scenario("graceful"), scenario("crash"));
    let (text, doc) = plan(&[file.to_str().unwrap(), "--what-if", &g]);
    let l = line_of(&text, "w1");
    assert!(
        l.contains("stopped gracefully") && l.contains("released the 1 split(s) it held"),
        "{l}"
    );
    assert!(
        l.contains("Nothing is withheld") && !l.contains("split(s) withheld"),
        "{l}"
    );
    let d = doc["departed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["instance"] == "w1")
        .unwrap()
        .clone();
    assert_eq!(
        (
            d["departure"].clone(),
            d["withheld"].clone(),
            d["released"].clone()
        ),
        (json!("graceful"), json!(0), json!(1))
    );

    let (text, doc) = plan(&[file.to_str().unwrap(), "--what-if", &s]);
    let l = line_of(&text, "w1");
    assert!(
        l.contains("crashed") && l.contains("1 split(s) withheld") && !l.contains("released"),
        "{l}"
    );
    assert_eq!(doc["reserved"], json!(["a"]));
}
