//! A busy Spate fleet for the consistent-cut test: a writer that keeps a 20,000-split job
//! changing through a real NATS server — lease renewals, presence renewals, progress rewrites,
//! releases, claims, deletes and purges with quick re-creates — and logs every write the server
//! acknowledged (bucket, key, revision, value or removal).

use async_nats::jetstream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const JOB: &str = "cut";
const SPLITS: usize = 20_000;
const WORKERS: usize = 40;
/// The writer's pace: comfortably above the 1,000 writes/s asked for.
const RATE: f64 = 2_000.0;
/// Publishes in flight before their acknowledgements are awaited.
const BATCH: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    State,
    Lease,
}

/// One write the server acknowledged: `value` is `None` for a delete or purge.
pub struct Logged {
    pub side: Side,
    pub key: String,
    pub revision: u64,
    pub value: Option<Vec<u8>>,
}

impl Side {
    /// The job's bucket on this side.
    pub fn bucket(self) -> String {
        let b = match self {
            Side::State => "state",
            Side::Lease => "lease",
        };
        format!("spate_coordination_{JOB}_{b}")
    }
}

fn subject(side: Side, key: &str) -> String {
    format!("$KV.{}.{key}", side.bucket())
}

/// A small deterministic generator (xorshift64*), so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// What the writer knows of the job: who holds each split's lease (and at which epoch).
pub struct Fleet {
    holder: Vec<Option<(usize, u64)>>,
    written: u64,
}

impl Default for Fleet {
    fn default() -> Fleet {
        Fleet {
            holder: vec![None; SPLITS],
            written: 0,
        }
    }
}

fn lease_value(worker: usize, epoch: u64) -> Vec<u8> {
    format!(r#"{{"schema":3,"owner":"w-{worker}","nonce":"n-{worker}","epoch":{epoch}}}"#).into_bytes()
}

fn progress_value(split: usize, holder: Option<(usize, u64)>, at: u64) -> Vec<u8> {
    let (owner, epoch) = match holder {
        Some((w, e)) => (format!("\"w-{w}\""), e),
        None => ("null".to_string(), 0),
    };
    format!(
        r#"{{"schema":3,"id":"s{split:05}","fp":7,"epoch":{epoch},"status":"runnable","owner":{owner},"attempts":0,"watermark":{at},"state":null,"completed":false,"written_at_ms":{}}}"#,
        1_767_000_000_000u64 + at
    )
    .into_bytes()
}

/// The writes of one step: (bucket, key, value or removal, purge rather than delete).
pub type Op = (Side, String, Option<Vec<u8>>, bool);

impl Fleet {
    /// The job's first writes: the plan, every spec and progress record, presence, the leader and
    /// most leases.
    pub fn initial(&mut self) -> Vec<Op> {
        let plan = r#"{"schema":3,"fingerprint":"cut","generation":1,"finality":"final","planned":20000,"planner_state":null,"updated_at_ms":1767000000000}"#;
        let mut ops = vec![(Side::State, "plan".to_string(), Some(plan.into()), false)];
        for w in 0..WORKERS {
            let v = format!(r#"{{"schema":3,"nonce":"n-{w}","max_in_flight":600}}"#);
            ops.push((Side::Lease, format!("worker.w-{w}"), Some(v.into_bytes()), false));
        }
        for s in 0..SPLITS {
            let spec = format!(
                r#"{{"schema":3,"id":"s{s:05}","fp":7,"generation":1,"weight":{},"descriptor":"ZA=="}}"#,
                1 + s % 97
            );
            ops.push((
                Side::State,
                format!("spec.s{s:05}"),
                Some(spec.into_bytes()),
                false,
            ));
            if s % 10 != 0 {
                self.holder[s] = Some((s % WORKERS, 1));
                ops.push((
                    Side::Lease,
                    format!("split.s{s:05}"),
                    Some(lease_value(s % WORKERS, 1)),
                    false,
                ));
            }
            ops.push((
                Side::State,
                format!("split.s{s:05}"),
                Some(progress_value(s, self.holder[s], 0)),
                false,
            ));
        }
        ops
    }

    /// One step of a running fleet.
    fn step(&mut self, rng: &mut Rng) -> Vec<Op> {
        self.written += 1;
        let s = rng.below(SPLITS);
        let key = format!("split.s{s:05}");
        let at = self.written;
        match (rng.below(100), self.holder[s]) {
            // a lease renewed
            (0..=39, Some((w, e))) => vec![(Side::Lease, key, Some(lease_value(w, e)), false)],
            // a presence renewed
            (40..=49, _) => {
                let w = rng.below(WORKERS);
                let v = format!(r#"{{"schema":3,"nonce":"n-{w}","max_in_flight":600}}"#);
                vec![(Side::Lease, format!("worker.w-{w}"), Some(v.into_bytes()), false)]
            }
            // progress written
            (50..=74, h) => vec![(Side::State, key, Some(progress_value(s, h, at)), false)],
            // a lease released (deleted), or purged
            (75..=86, Some(_)) => {
                self.holder[s] = None;
                vec![(Side::Lease, key, None, at % 5 == 0)]
            }
            // deleted and at once created again by another worker (the marker lasts a moment)
            (87..=92, Some((w, e))) => {
                let next = ((w + 1) % WORKERS, e + 1);
                self.holder[s] = Some(next);
                vec![
                    (Side::Lease, key.clone(), None, false),
                    (Side::Lease, key, Some(lease_value(next.0, next.1)), false),
                ]
            }
            // a free split claimed: its lease created, its progress record names the owner
            (_, None) => {
                let next = (rng.below(WORKERS), at);
                self.holder[s] = Some(next);
                vec![
                    (Side::Lease, key.clone(), Some(lease_value(next.0, next.1)), false),
                    (Side::State, key, Some(progress_value(s, Some(next), at)), false),
                ]
            }
            // an assignment published
            (_, Some(_)) => {
                let w = rng.below(WORKERS);
                let v = format!(r#"{{"schema":3,"generation":{at},"splits":["s{s:05}"]}}"#);
                vec![(Side::State, format!("assign.w-{w}"), Some(v.into_bytes()), false)]
            }
        }
    }
}

/// Publishes `ops` (pipelined) and logs each acknowledged write with its revision.
pub async fn publish(js: &jetstream::Context, ops: Vec<Op>, log: &Mutex<Vec<Logged>>) {
    let mut acks = Vec::with_capacity(ops.len());
    for (side, key, value, purge) in ops {
        let subject = subject(side, &key);
        let ack = match &value {
            Some(v) => js.publish(subject, v.clone().into()).await.unwrap(),
            None => {
                let mut h = async_nats::HeaderMap::new();
                h.insert("KV-Operation", if purge { "PURGE" } else { "DEL" });
                if purge {
                    h.insert("Nats-Rollup", "sub");
                }
                js.publish_with_headers(subject, h, Default::default())
                    .await
                    .unwrap()
            }
        };
        acks.push((side, key, value, ack));
    }
    let mut logged = Vec::with_capacity(acks.len());
    for (side, key, value, ack) in acks {
        let revision = ack.await.unwrap().sequence;
        logged.push(Logged {
            side,
            key,
            revision,
            value,
        });
    }
    log.lock().unwrap().extend(logged);
}

/// Writes at [`RATE`] until `stop`; returns the writes made and the time taken.
pub async fn keep_writing(
    js: jetstream::Context,
    mut fleet: Fleet,
    log: Arc<Mutex<Vec<Logged>>>,
    stop: Arc<AtomicBool>,
) -> (u64, Duration) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let started = Instant::now();
    let mut writes = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let mut ops = Vec::new();
        while ops.len() < BATCH {
            ops.extend(fleet.step(&mut rng));
        }
        writes += ops.len() as u64;
        publish(&js, ops, &log).await;
        let due = Duration::from_secs_f64(writes as f64 / RATE);
        if let Some(ahead) = due.checked_sub(started.elapsed()) {
            tokio::time::sleep(ahead).await;
        }
    }
    (writes, started.elapsed())
}
