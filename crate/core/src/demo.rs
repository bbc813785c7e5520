//! A realistic synthetic snapshot: the dashboard's built-in demo fleet and `spate-planner demo`.
//!
//! Byte weights as Spate's S3 source makes them (objects packed into ~64 MiB splits, big objects
//! alone, up to several GiB), most splits leased by their owners, some completed, some
//! quarantined, a few whose spec has not been seen, a member that departed moments ago (its
//! splits still name it and its assignment record lingers, so the leader withholds them), one
//! member whose presence value is unreadable, one older presence value
//! without `max_in_flight`, published assignments, a leader, and a start-up probe key.

use crate::codes::ErrorCode;
use crate::hash::stable_hash_str;
use crate::records::{Finality, SCHEMA};
use crate::snapshot::{bucket_names, valid_job_name, Bucket, Entry, Snapshot, SnapshotError, Source};
use crate::synth::SplitMix64;
use serde_json::json;
use std::collections::BTreeMap;

const MIB: u64 = 1 << 20;

/// The most splits a demo has (its file is about 570 bytes a split: 1,000,000 make ~550 MiB,
/// about what the dashboard reads).
pub(crate) const MAX_DEMO_SPLITS: usize = 1_000_000;

/// The most members a demo has.
pub(crate) const MAX_DEMO_MEMBERS: usize = 100_000;

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

impl DemoParams {
    /// Checks the parameters: a valid job name, 1 to [`MAX_DEMO_MEMBERS`] members, at most
    /// [`MAX_DEMO_SPLITS`] splits. The error names the parameter.
    pub fn check(&self) -> Result<(), SnapshotError> {
        let bad = |code, path: &str, message: String| Err(SnapshotError::new(code, message).at_path(path));
        if !valid_job_name(&self.job) {
            return bad(
                ErrorCode::InvalidJob,
                "job",
                format!("job name {:?} is not [A-Za-z0-9_-]{{1,64}}", self.job),
            );
        }
        if self.members == 0 {
            return bad(
                ErrorCode::InvalidField,
                "members",
                "a demo fleet has at least 1 member".into(),
            );
        }
        if self.members > MAX_DEMO_MEMBERS {
            let m = format!(
                "{} members; a demo fleet has at most {MAX_DEMO_MEMBERS}",
                self.members
            );
            return bad(ErrorCode::TooLarge, "members", m);
        }
        if self.splits > MAX_DEMO_SPLITS {
            let m = format!(
                "{} splits; a demo fleet has at most {MAX_DEMO_SPLITS}",
                self.splits
            );
            return bad(ErrorCode::TooLarge, "splits", m);
        }
        Ok(())
    }
}

/// The entries being written, with the store's running revision.
struct Writer {
    now: i64,
    rev: u64,
    state: Vec<Entry>,
    lease: Vec<Entry>,
}

impl Writer {
    fn entry(&mut self, key: String, age_ms: i64, value: Vec<u8>) -> Entry {
        self.rev += 1;
        Entry {
            key,
            revision: self.rev,
            created_ms: self.now - age_ms,
            value,
        }
    }
    fn state(&mut self, key: String, age_ms: i64, v: serde_json::Value) {
        let e = self.entry(key, age_ms, v.to_string().into_bytes());
        self.state.push(e);
    }
    fn lease(&mut self, key: String, age_ms: i64, value: Vec<u8>) {
        let e = self.entry(key, age_ms, value);
        self.lease.push(e);
    }
}

/// One demo split's fate: status, completion, owner, leased, attempts, epoch.
type Fate = (&'static str, bool, Option<String>, bool, u32, u64);

/// The demo's splits, and per member the ids it holds a lease on; the departed member's
/// runnable splits under the key `gone`.
struct Splits<'a> {
    names: &'a [String],
    gone: &'a str,
    fp: u64,
    held: BTreeMap<String, Vec<String>>,
}

impl Splits<'_> {
    fn fate(&self, rng: &mut SplitMix64, roll: u64) -> Fate {
        let members = self.names.len();
        let owner_pick = (rng.next_u64() % (members as u64 + 1)) as usize;
        let owner = Some(
            self.names
                .get(owner_pick)
                .map_or(self.gone, String::as_str)
                .to_string(),
        );
        match roll {
            1..=12 => ("completed", true, owner, false, 1u32, 2u64),
            13..=14 => ("quarantined", false, owner, false, 4, 5),
            15..=20 => ("runnable", false, None, false, 0, 0), // never owned
            21..=23 => ("runnable", false, None, false, 1, 2), // released
            _ => {
                let leased = owner.as_deref() != Some(self.gone) && rng.next_u64() % 10 != 0;
                let attempts = (rng.next_u64() % 2) as u32;
                ("runnable", false, owner, leased, attempts, 1 + rng.next_u64() % 3)
            }
        }
    }

    /// Writes split `i`: its spec (mostly), progress record and lease.
    fn write(&mut self, w: &mut Writer, rng: &mut SplitMix64, i: usize) {
        let id = format!("part-{i:06}");
        // Mostly packed ~64 MiB splits; one in twelve a big object of its own.
        let weight = if rng.next_u64() % 12 == 0 {
            rng.range(64 * MIB, 6 * 1024 * MIB)
        } else {
            rng.range(40 * MIB, 64 * MIB)
        };
        let roll = rng.next_u64() % 100;
        if roll != 0 {
            let spec = json!({"schema": SCHEMA, "id": id, "fp": self.fp, "generation": 3, "weight": weight, "descriptor": "AAAA"});
            w.state(format!("spec.{id}"), 3_500_000, spec);
        }
        let (status, completed, owner, leased, attempts, epoch) = self.fate(rng, roll);
        let progress = json!({"schema": SCHEMA, "id": id, "fp": self.fp, "epoch": epoch, "status": status,
            "owner": owner, "attempts": attempts, "watermark": null, "state": null,
            "completed": completed, "written_at_ms": w.now - 60_000});
        w.state(format!("split.{id}"), (rng.next_u64() % 600_000) as i64, progress);
        let Some(o) = owner else { return };
        if status == "runnable" && o == self.gone {
            self.held.entry(o.clone()).or_default().push(id.clone());
        }
        if leased {
            self.held.entry(o.clone()).or_default().push(id.clone());
            let value = json!({"schema": SCHEMA, "owner": o, "nonce": format!("n-{o}"), "epoch": epoch});
            w.lease(
                format!("split.{id}"),
                (rng.next_u64() % 25_000) as i64,
                value.to_string().into_bytes(),
            );
        }
    }
}

/// Presence values and assignment records of the live members.
fn write_members(w: &mut Writer, names: &[String], held: &mut BTreeMap<String, Vec<String>>) {
    for (i, m) in names.iter().enumerate() {
        let value = match i {
            // One member's presence value is unreadable (written by a newer build, say).
            3 if names.len() > 3 => {
                br#"{"schema":4,"nonce":"n-worker-03","max_in_flight":8,"zone":"b"}"#.to_vec()
            }
            // An older worker that does not publish max_in_flight.
            5 if names.len() > 5 => json!({"schema": SCHEMA, "nonce": format!("n-{m}")})
                .to_string()
                .into_bytes(),
            _ => {
                let cap = [96, 128, 160, 256][i % 4];
                json!({"schema": SCHEMA, "nonce": format!("n-{m}"), "max_in_flight": cap})
                    .to_string()
                    .into_bytes()
            }
        };
        w.lease(format!("worker.{m}"), 4_000, value);
        let mut ids = held.remove(m).unwrap_or_default();
        ids.sort();
        w.state(
            format!("assign.{m}"),
            20_000,
            json!({"schema": SCHEMA, "generation": 3, "splits": ids}),
        );
    }
}

/// The demo snapshot for `p`, or why `p` is out of bounds ([`DemoParams::check`]).
/// Deterministic in `p`.
pub fn demo_snapshot(p: &DemoParams) -> Result<Snapshot, SnapshotError> {
    p.check()?;
    let mut rng = SplitMix64::new(p.seed ^ 0x5eed);
    let fingerprint = format!("s3://example-bucket/{}/ingest@v3", p.job);
    let names: Vec<String> = (0..p.members).map(|i| format!("worker-{:02}", i)).collect();
    let gone = "worker-gone-7f3a";
    let mut w = Writer {
        now: p.taken_at_ms,
        rev: 0,
        state: Vec::new(),
        lease: Vec::new(),
    };
    let plan = json!({"schema": SCHEMA, "fingerprint": fingerprint, "generation": 3,
        "finality": Finality::Final, "planned": p.splits as u64, "planner_state": null,
        "updated_at_ms": p.taken_at_ms - 3_600_000});
    w.state("plan".into(), 3_600_000, plan);
    let mut splits = Splits {
        names: &names,
        gone,
        fp: stable_hash_str(0, &fingerprint),
        held: BTreeMap::new(),
    };
    for i in 0..p.splits {
        splits.write(&mut w, &mut rng, i);
    }
    write_members(&mut w, &names, &mut splits.held);
    // The departed member's record lingers until the leader's first publish after its delay.
    let gone_ids = splits.held.remove(gone).unwrap_or_default();
    w.state(
        format!("assign.{gone}"),
        40_000,
        json!({"schema": SCHEMA, "generation": 3, "splits": gone_ids}),
    );
    let leader = json!({"schema": SCHEMA, "owner": names[0], "nonce": "n-lead", "generation": 3});
    w.lease("leader".into(), 2_000, leader.to_string().into_bytes());
    w.lease(format!("_probe.{}", names[0]), 1_000, b"probe".to_vec());
    Ok(finish(p, names.len(), w))
}

fn finish(p: &DemoParams, members: usize, w: Writer) -> Snapshot {
    let (state_name, lease_name) = bucket_names(&p.job);
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
        taken_at_ms: p.taken_at_ms,
        state: Bucket {
            name: state_name,
            history: 1,
            max_age_ms: 0,
            revision: None,
            entries: w.state,
        },
        lease: Bucket {
            name: lease_name,
            history: 1,
            max_age_ms: 30_000,
            revision: None,
            entries: w.lease,
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
        })
        .unwrap();
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

    #[test]
    fn parameters_out_of_bounds_are_refused_by_name() {
        let refused = |p: DemoParams| {
            let e = demo_snapshot(&p).unwrap_err();
            (e.code.as_str(), e.path.unwrap_or_default())
        };
        let d = DemoParams::default;
        assert_eq!(
            refused(DemoParams { members: 0, ..d() }),
            ("invalid_field", "members".into())
        );
        let members = MAX_DEMO_MEMBERS + 1;
        assert_eq!(
            refused(DemoParams { members, ..d() }),
            ("too_large", "members".into())
        );
        assert_eq!(
            refused(DemoParams {
                members: usize::MAX,
                ..d()
            }),
            ("too_large", "members".into())
        );
        let splits = MAX_DEMO_SPLITS + 1;
        assert_eq!(
            refused(DemoParams { splits, ..d() }),
            ("too_large", "splits".into())
        );
        assert_eq!(
            refused(DemoParams {
                job: "no job".into(),
                ..d()
            }),
            ("invalid_job", "job".into())
        );
        let edge = DemoParams {
            splits: 0,
            members: 1,
            ..d()
        };
        assert_eq!(
            demo_snapshot(&edge).unwrap().state.entries.len(),
            3,
            "plan, assign.worker-00, assign.worker-gone"
        );
    }
}
