//! A store written record by record, as Spate writes it, for tests of the leader's view and the
//! workers' claims: the fixtures state the store, the tests state the rules' answers.
#![allow(dead_code)]

use serde_json::json;
use spate_planner_core::{snapshot::bucket_names, stable_hash_str, Bucket, Entry, Fleet, Snapshot, Source};

pub const FINGERPRINT: &str = "s3://bucket/job@1";

#[derive(Clone, Default)]
pub struct Store {
    state: Vec<(String, String)>,
    lease: Vec<(String, String)>,
    plan: bool,
    generation: u64,
    /// The plan record's `elector` (owner, nonce): a 0.3.0 leader's.
    elector: Option<(String, String)>,
}

pub fn fp() -> u64 {
    stable_hash_str(0, FINGERPRINT)
}

impl Store {
    /// A store with a plan record (generation 1) and nothing else.
    pub fn new() -> Store {
        Store {
            plan: true,
            generation: 1,
            ..Store::default()
        }
    }
    pub fn without_plan(mut self) -> Store {
        self.plan = false;
        self
    }
    pub fn generation(mut self, g: u64) -> Store {
        self.generation = g;
        self
    }
    /// The plan record names its elector, as a 0.3.0 election writes it.
    pub fn elector(mut self, owner: &str, nonce: &str) -> Store {
        self.elector = Some((owner.to_string(), nonce.to_string()));
        self
    }
    pub fn state(mut self, key: &str, value: impl ToString) -> Store {
        self.state.push((key.to_string(), value.to_string()));
        self
    }
    pub fn lease_entry(mut self, key: &str, value: impl ToString) -> Store {
        self.lease.push((key.to_string(), value.to_string()));
        self
    }
    /// `worker.{x}` with nonce `n-{x}` and `max_in_flight` (absent when `None`).
    pub fn presence(self, x: &str, cap: Option<u32>) -> Store {
        let v = match cap {
            Some(c) => json!({"schema": 3, "nonce": format!("n-{x}"), "max_in_flight": c}),
            None => json!({"schema": 3, "nonce": format!("n-{x}")}),
        };
        self.lease_entry(&format!("worker.{x}"), v)
    }
    pub fn leader(self, x: &str) -> Store {
        let g = self.generation;
        self.lease_entry(
            "leader",
            json!({"schema": 3, "owner": x, "nonce": "lead", "generation": g}),
        )
    }
    /// A runnable split with a spec of `weight`, owned (progress) by `owner`.
    pub fn split(self, id: &str, weight: u64, owner: Option<&str>, epoch: u64, attempts: u32) -> Store {
        let spec =
            json!({"schema": 3, "id": id, "fp": fp(), "generation": 1, "weight": weight, "descriptor": ""});
        self.state(&format!("spec.{id}"), spec)
            .progress(id, "runnable", owner, epoch, attempts)
    }
    pub fn progress(self, id: &str, status: &str, owner: Option<&str>, epoch: u64, attempts: u32) -> Store {
        let p = json!({"schema": 3, "id": id, "fp": fp(), "epoch": epoch, "status": status, "owner": owner,
            "attempts": attempts, "watermark": null, "state": null, "completed": status == "completed", "written_at_ms": 0});
        self.state(&format!("split.{id}"), p)
    }
    /// A lease on split `id` by `owner` under `nonce`.
    pub fn lease(self, id: &str, owner: &str, nonce: &str) -> Store {
        self.lease_entry(
            &format!("split.{id}"),
            json!({"schema": 3, "owner": owner, "nonce": nonce, "epoch": 1}),
        )
    }
    /// A lease by `owner` under its current presence nonce `n-{owner}`.
    pub fn held(self, id: &str, owner: &str) -> Store {
        let nonce = format!("n-{owner}");
        self.lease(id, owner, &nonce)
    }
    pub fn assign(self, x: &str, generation: u64, ids: &[&str]) -> Store {
        self.state(
            &format!("assign.{x}"),
            json!({"schema": 3, "generation": generation, "splits": ids}),
        )
    }

    pub fn snapshot(&self) -> Snapshot {
        let (s, l) = bucket_names("j");
        let entries = |v: &[(String, String)]| -> Vec<Entry> {
            v.iter()
                .enumerate()
                .map(|(i, (k, val))| Entry {
                    key: k.clone(),
                    revision: i as u64 + 2,
                    created_ms: 0,
                    value: val.as_bytes().to_vec(),
                })
                .collect()
        };
        let mut state = entries(&self.state);
        if self.plan {
            let mut plan = json!({"schema": 3, "fingerprint": FINGERPRINT, "generation": self.generation,
                "finality": "open", "planned": 0, "planner_state": null, "updated_at_ms": 0});
            if let Some((owner, nonce)) = &self.elector {
                plan["elector"] = json!({"owner": owner, "nonce": nonce});
            }
            state.insert(
                0,
                Entry {
                    key: "plan".into(),
                    revision: 1,
                    created_ms: 0,
                    value: plan.to_string().into_bytes(),
                },
            );
        }
        Snapshot {
            job: "j".into(),
            source: Source::default(),
            taken_at_ms: 0,
            state: Bucket {
                name: s,
                history: 1,
                max_age_ms: 0,
                revision: None,
                entries: state,
            },
            lease: Bucket {
                name: l,
                history: 1,
                max_age_ms: 30_000,
                revision: None,
                entries: entries(&self.lease),
            },
        }
    }

    pub fn fleet(&self) -> Fleet {
        Fleet::load_text(&self.snapshot().to_json()).expect("the fixture loads")
    }
}
