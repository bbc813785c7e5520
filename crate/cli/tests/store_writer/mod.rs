//! A job's two buckets written record by record as Spate writes them, through a real NATS
//! server, and the command line run on their export: the fixtures of the leader's view and of
//! the two releases' rules (`leader_store.rs`, `rules_store.rs`).
#![allow(dead_code)]

use async_nats::jetstream::{self, kv};
use serde_json::{json, Value};
use spate_planner_core::stable_hash_str;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");
pub const FINGERPRINT: &str = "s3://bucket/orders@7";

pub fn fp() -> u64 {
    stable_hash_str(0, FINGERPRINT)
}

/// A job's two buckets, created as Spate creates them.
pub struct Writer {
    pub state: kv::Store,
    pub lease: kv::Store,
}

impl Writer {
    pub async fn new(js: &jetstream::Context, job: &str) -> Writer {
        let config = |bucket: String, max_age| kv::Config {
            bucket,
            history: 1,
            max_age,
            ..Default::default()
        };
        let state = js
            .create_key_value(config(format!("spate_coordination_{job}_state"), Duration::ZERO))
            .await
            .unwrap();
        let lease = js
            .create_key_value(config(
                format!("spate_coordination_{job}_lease"),
                Duration::from_secs(30),
            ))
            .await
            .unwrap();
        Writer { state, lease }
    }
    pub async fn state(&self, key: &str, v: impl ToString) -> &Self {
        self.state
            .put(key, v.to_string().into_bytes().into())
            .await
            .unwrap();
        self
    }
    pub async fn lease(&self, key: &str, v: impl ToString) -> &Self {
        self.lease
            .put(key, v.to_string().into_bytes().into())
            .await
            .unwrap();
        self
    }
    pub async fn plan(&self) -> &Self {
        self.state(
            "plan",
            json!({"schema":3,"fingerprint":FINGERPRINT,"generation":1,"finality":"open","planned":9,"planner_state":null,"updated_at_ms":0}),
        )
        .await
    }
    pub async fn presence(&self, x: &str, cap: u32) -> &Self {
        self.lease(
            &format!("worker.{x}"),
            json!({"schema":3,"nonce":format!("n-{x}"),"max_in_flight":cap}),
        )
        .await
    }
    pub async fn split(&self, id: &str, weight: u64, owner: Option<&str>, attempts: u32) -> &Self {
        let epoch = u64::from(owner.is_some());
        self.state(
            &format!("spec.{id}"),
            json!({"schema":3,"id":id,"fp":fp(),"generation":1,"weight":weight,"descriptor":""}),
        )
        .await;
        self.state(
            &format!("split.{id}"),
            json!({"schema":3,"id":id,"fp":fp(),"epoch":epoch,"status":"runnable","owner":owner,"attempts":attempts,
                "watermark":null,"state":null,"completed":false,"written_at_ms":0}),
        )
        .await
    }
    pub async fn held(&self, id: &str, owner: &str, nonce: &str) -> &Self {
        self.lease(
            &format!("split.{id}"),
            json!({"schema":3,"owner":owner,"nonce":nonce,"epoch":1}),
        )
        .await
    }
    pub async fn assign(&self, x: &str, ids: &[&str]) -> &Self {
        self.state(
            &format!("assign.{x}"),
            json!({"schema":3,"generation":1,"splits":ids}),
        )
        .await
    }
}

pub fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// The JSON document a command prints; the command must succeed.
pub fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `job` exported from `url` with `spate-planner snapshot` into a file of this test's.
pub fn export(url: &str, job: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spate-store-writer-{}-{job}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("snap.json");
    let o = run(&[
        "snapshot",
        "--server",
        url,
        "--job",
        job,
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    file
}
