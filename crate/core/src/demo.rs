//! A realistic synthetic snapshot: the dashboard's built-in demo fleet and `spate-planner demo`.
//!
//! Byte weights as Spate's S3 source makes them (objects packed into ~64 MiB splits, big objects
//! alone, up to several GiB), most splits leased by their owners, some completed, some
//! quarantined, a few whose spec has not been seen, a member that departed moments ago (its
//! splits still name it and its assignment record lingers, so the leader withholds them), one
//! member whose presence value is unreadable, one older presence value
//! without `max_in_flight`, published assignments, a leader, and a start-up probe key.

use crate::hash::stable_hash_str;
use crate::records::{Finality, SCHEMA};
use crate::snapshot::{bucket_names, Bucket, Entry, Snapshot, Source};
use crate::synth::SplitMix64;
use serde_json::json;
use std::collections::BTreeMap;

const MIB: u64 = 1 << 20;

/// Parameters of the demo.
#[derive(Clone, Debug)]
pub struct DemoParams {
    pub job: String,
    pub splits: usize,
    pub members: usize,
    pub seed: u64,
    /// When the snapshot is said to be taken (ms since the Unix epoch).
    pub taken_at_ms: i64,
}

impl Default for DemoParams {
    fn default() -> Self {
        DemoParams {
            job: "demo".into(),
            splits: 2000,
            members: 24,
            seed: 1,
            taken_at_ms: 1_767_225_600_000,
        }
    }
}

/// The demo snapshot for `p`. Deterministic in `p`.
pub fn demo_snapshot(p: &DemoParams) -> Snapshot {
    let mut rng = SplitMix64::new(p.seed ^ 0x5eed);
    let fingerprint = format!("s3://example-bucket/{}/ingest@v3", p.job);
    let fp = stable_hash_str(0, &fingerprint);
    let now = p.taken_at_ms;
    let (state_name, lease_name) = bucket_names(&p.job);
    let members = p.members.max(1);
    let names: Vec<String> = (0..members).map(|i| format!("worker-{:02}", i)).collect();
    let gone = "worker-gone-7f3a".to_string();
    let mut rev = 0u64;
    let mut next_rev = || {
        rev += 1;
        rev
    };
    let mut state = Vec::new();
    let mut lease = Vec::new();
    let put = |v: serde_json::Value| v.to_string().into_bytes();

    state.push(Entry {
        key: "plan".into(),
        revision: next_rev(),
        created_ms: now - 3_600_000,
        value: put(
            json!({"schema": SCHEMA, "fingerprint": fingerprint, "generation": 3,
            "finality": Finality::Final, "planned": p.splits as u64, "planner_state": null,
            "updated_at_ms": now - 3_600_000}),
        ),
    });

    let mut held: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut gone_assigned: Vec<String> = Vec::new();
    for i in 0..p.splits {
        let id = format!("part-{i:06}");
        // Mostly packed ~64 MiB splits; one in twelve a big object of its own.
        let weight = if rng.next_u64() % 12 == 0 {
            rng.range(64 * MIB, 6 * 1024 * MIB)
        } else {
            rng.range(40 * MIB, 64 * MIB)
        };
        let roll = rng.next_u64() % 100;
        let has_spec = roll != 0;
        if has_spec {
            state.push(Entry {
                key: format!("spec.{id}"),
                revision: next_rev(),
                created_ms: now - 3_500_000,
                value: put(
                    json!({"schema": SCHEMA, "id": id, "fp": fp, "generation": 3, "weight": weight,
                    "descriptor": "AAAA"}),
                ),
            });
        }
        // status and owner
        let owner_pick = (rng.next_u64() % (members as u64 + 1)) as usize;
        let owner = if owner_pick == members {
            Some(gone.clone())
        } else {
            Some(names[owner_pick].clone())
        };
        let (status, completed, owner, leased, attempts, epoch) = match roll {
            1..=12 => ("completed", true, owner, false, 1u32, 2u64),
            13..=14 => ("quarantined", false, owner, false, 4, 5),
            15..=20 => ("runnable", false, None, false, 0, 0), // never owned
            21..=23 => ("runnable", false, None, false, 1, 2), // released
            _ => {
                let leased = owner.as_deref() != Some(gone.as_str()) && rng.next_u64() % 10 != 0;
                (
                    "runnable",
                    false,
                    owner,
                    leased,
                    (rng.next_u64() % 2) as u32,
                    1 + rng.next_u64() % 3,
                )
            }
        };
        state.push(Entry {
            key: format!("split.{id}"),
            revision: next_rev(),
            created_ms: now - (rng.next_u64() % 600_000) as i64,
            value: put(
                json!({"schema": SCHEMA, "id": id, "fp": fp, "epoch": epoch, "status": status,
                "owner": owner, "attempts": attempts, "watermark": null, "state": null,
                "completed": completed, "written_at_ms": now - 60_000}),
            ),
        });
        if status == "runnable" && owner.as_deref() == Some(gone.as_str()) {
            gone_assigned.push(id.clone());
        }
        if let (true, Some(o)) = (leased, owner.as_ref()) {
            held.entry(o.clone()).or_default().push(id.clone());
            lease.push(Entry {
                key: format!("split.{id}"),
                revision: next_rev(),
                created_ms: now - (rng.next_u64() % 25_000) as i64,
                value: put(json!({"schema": SCHEMA, "owner": o, "nonce": format!("n-{o}"), "epoch": epoch})),
            });
        }
    }

    for (i, m) in names.iter().enumerate() {
        let value = match i {
            // One member's presence value is unreadable (written by a newer build, say).
            3 if members > 3 => {
                br#"{"schema":4,"nonce":"n-worker-03","max_in_flight":8,"zone":"b"}"#.to_vec()
            }
            // An older worker that does not publish max_in_flight.
            5 if members > 5 => put(json!({"schema": SCHEMA, "nonce": format!("n-{m}")})),
            _ => {
                let cap = [96, 128, 160, 256][i % 4];
                put(json!({"schema": SCHEMA, "nonce": format!("n-{m}"), "max_in_flight": cap}))
            }
        };
        lease.push(Entry {
            key: format!("worker.{m}"),
            revision: next_rev(),
            created_ms: now - 4_000,
            value,
        });
        let mut ids = held.remove(m).unwrap_or_default();
        ids.sort();
        state.push(Entry {
            key: format!("assign.{m}"),
            revision: next_rev(),
            created_ms: now - 20_000,
            value: put(json!({"schema": SCHEMA, "generation": 3, "splits": ids})),
        });
    }
    // The departed member's record lingers until the leader's first publish after its delay.
    state.push(Entry {
        key: format!("assign.{gone}"),
        revision: next_rev(),
        created_ms: now - 40_000,
        value: put(json!({"schema": SCHEMA, "generation": 3, "splits": gone_assigned})),
    });
    lease.push(Entry {
        key: "leader".into(),
        revision: next_rev(),
        created_ms: now - 2_000,
        value: put(json!({"schema": SCHEMA, "owner": names[0], "nonce": "n-lead", "generation": 3})),
    });
    lease.push(Entry {
        key: format!("_probe.{}", names[0]),
        revision: next_rev(),
        created_ms: now - 1_000,
        value: b"probe".to_vec(),
    });

    Snapshot {
        job: p.job.clone(),
        source: Source {
            kind: "demo".into(),
            server: None,
            note: Some(format!(
                "spate-planner demo --splits {} --members {} --seed {}",
                p.splits, members, p.seed
            )),
        },
        taken_at_ms: now,
        state: Bucket {
            name: state_name,
            history: 1,
            max_age_ms: 0,
            entries: state,
        },
        lease: Bucket {
            name: lease_name,
            history: 1,
            max_age_ms: 30_000,
            entries: lease,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::{CapSource, Fleet};
    use crate::scenario::{DepartedState, Scenario};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_demo_loads_with_the_warnings_it_is_built_to_show() {
        let snap = demo_snapshot(&DemoParams {
            splits: 500,
            members: 8,
            ..DemoParams::default()
        });
        let text = snap.to_json();
        let fleet = Fleet::load_text(&text).unwrap();
        assert_eq!(fleet.members.len(), 8);
        assert_eq!(fleet.splits.len(), 500);
        let codes: Vec<&str> = fleet.warnings.iter().map(|w| w.code.as_str()).collect();
        assert!(codes.contains(&"unreadable_presence"), "{codes:?}");
        assert!(codes.contains(&"no_spec"), "{codes:?}");
        assert!(!fleet.members["worker-03"].readable);
        assert_eq!(fleet.members["worker-05"].max_in_flight, None);
        assert_eq!(
            fleet.departed_owners().into_iter().collect::<Vec<_>>(),
            vec!["worker-gone-7f3a".to_string()]
        );
        let applied = Scenario::default().apply(&fleet).unwrap();
        // The leader (worker-00) advertises 96; the departed member's splits are withheld.
        assert_eq!(
            (applied.default_cap.value, applied.default_cap.source),
            (96, CapSource::LeaderPresence)
        );
        assert_eq!(applied.departed.len(), 1);
        assert_eq!(applied.departed[0].state, DepartedState::Withheld);
        assert!(applied.departed[0].withheld > 0);
        assert!(applied.inputs.plan().assignment.values().any(|v| !v.is_empty()));
    }
}
