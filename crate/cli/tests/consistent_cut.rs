//! A snapshot is one instant of each bucket, under writes (issue 18).
//!
//! A writer keeps a 20,000-split job busy through a real NATS server — lease renewals, presence
//! renewals, progress rewrites, releases, claims, deletes and purges with quick re-creates —
//! and logs every write the server acknowledged (bucket, key, revision, value or removal). Meanwhile
//! `spate-planner snapshot` exports the job again and again, and `serve --server` reads its
//! first state. Every file is then checked against the log: the state the log implies at the
//! revision the file records for each bucket must be the file's entries exactly (keys,
//! revisions, values). Once the writes stop, the live server's state must be the store's.

mod live_client;
mod nats_server;

use async_nats::jetstream::{self, kv};
use live_client::{get, Serve, BIN};
use nats_server::NatsServer;
use spate_planner_core::snapshot::{Bucket, Snapshot};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const JOB: &str = "cut";
const SPLITS: usize = 20_000;
const WORKERS: usize = 40;
/// The writer's pace: comfortably above the 1,000 writes/s asked for.
const RATE: f64 = 2_000.0;
const WRITING: Duration = Duration::from_secs(12);
/// Publishes in flight before their acknowledgements are awaited.
const BATCH: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Side {
    State,
    Lease,
}

/// One write the server acknowledged: `value` is `None` for a delete or purge.
struct Logged {
    side: Side,
    key: String,
    revision: u64,
    value: Option<Vec<u8>>,
}

/// A bucket as a map: key to (revision, value).
type Entries = BTreeMap<String, (u64, Vec<u8>)>;

fn subject(side: Side, key: &str) -> String {
    let b = match side {
        Side::State => "state",
        Side::Lease => "lease",
    };
    format!("$KV.spate_coordination_{JOB}_{b}.{key}")
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
struct Fleet {
    holder: Vec<Option<(usize, u64)>>,
    written: u64,
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
type Op = (Side, String, Option<Vec<u8>>, bool);

impl Fleet {
    /// The job's first writes: the plan, every spec and progress record, presence, the leader and
    /// most leases.
    fn initial(&mut self) -> Vec<Op> {
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
async fn publish(js: &jetstream::Context, ops: Vec<Op>, log: &Mutex<Vec<Logged>>) {
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
async fn keep_writing(
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

/// The bucket the log implies at revision `cut`: each key's last write at or below it.
fn state_at(log: &[Logged], side: Side, cut: u64) -> Entries {
    let mut last: BTreeMap<&str, &Logged> = BTreeMap::new();
    for l in log.iter().filter(|l| l.side == side && l.revision <= cut) {
        if last.get(l.key.as_str()).is_none_or(|p| p.revision < l.revision) {
            last.insert(&l.key, l);
        }
    }
    last.into_iter()
        .filter_map(|(k, l)| Some((k.to_string(), (l.revision, l.value.clone()?))))
        .collect()
}

fn entries_of(b: &Bucket) -> Entries {
    b.entries
        .iter()
        .map(|e| (e.key.clone(), (e.revision, e.value.clone())))
        .collect()
}

/// The differences between what the log implies and what a file holds, a few of them.
fn differences(want: &Entries, got: &Entries) -> String {
    let mut out = Vec::new();
    for (k, w) in want {
        match got.get(k) {
            None => out.push(format!("{k}: missing (revision {})", w.0)),
            Some(g) if g != w => out.push(format!("{k}: revision {} in the file, {} in the log", g.0, w.0)),
            _ => {}
        }
    }
    for (k, g) in got {
        if !want.contains_key(k) {
            out.push(format!(
                "{k}: in the file at revision {}, not live in the log",
                g.0
            ));
        }
    }
    let n = out.len();
    out.truncate(5);
    format!("{n} differences: {}", out.join("; "))
}

/// Checks a snapshot's two buckets against the log at the revisions it records.
fn check(log: &[Logged], snap: &Snapshot, what: &str) -> (u64, u64) {
    let mut cuts = [0u64; 2];
    for (i, (side, b)) in [(Side::State, &snap.state), (Side::Lease, &snap.lease)]
        .into_iter()
        .enumerate()
    {
        let cut = b
            .revision
            .unwrap_or_else(|| panic!("{what}: bucket {} records no revision", b.name));
        let (want, got) = (state_at(log, side, cut), entries_of(b));
        assert!(
            want == got,
            "{what}: bucket {} at revision {cut}: {}",
            b.name,
            differences(&want, &got)
        );
        cuts[i] = cut;
    }
    (cuts[0], cuts[1])
}

/// One export through `spate-planner snapshot`, into `out`.
fn export(url: &str, out: &std::path::Path) {
    let o = std::process::Command::new(BIN)
        .args(["snapshot", "--server", url, "--job", JOB, "--timeout", "10", "-o"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

async fn last_sequence(js: &jetstream::Context, side: Side) -> u64 {
    let b = match side {
        Side::State => "state",
        Side::Lease => "lease",
    };
    let mut s = js
        .get_stream(format!("KV_spate_coordination_{JOB}_{b}"))
        .await
        .unwrap();
    s.info().await.unwrap().state.last_sequence
}

/// `/api/snapshot` now: the file and its `X-Spate-Revisions` header.
async fn live_snapshot(port: u16) -> (Snapshot, String) {
    let (status, head, body) = get(port, &format!("/api/snapshot?job={JOB}")).await;
    assert_eq!(status, 200, "{body}");
    let revisions = head
        .lines()
        .find_map(|l| l.strip_prefix("x-spate-revisions: "))
        .unwrap_or_else(|| panic!("no X-Spate-Revisions: {head}"))
        .to_string();
    (Snapshot::parse(&body).unwrap(), revisions)
}

async fn buckets(js: &jetstream::Context) {
    for (b, max_age) in [("state", Duration::ZERO), ("lease", Duration::from_secs(300))] {
        js.create_key_value(kv::Config {
            bucket: format!("spate_coordination_{JOB}_{b}"),
            history: 1,
            max_age,
            limit_markers: (!max_age.is_zero()).then_some(Duration::from_secs(1)),
            ..Default::default()
        })
        .await
        .unwrap();
    }
}

/// A directory removed when the test ends, however it ends.
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Exports the job again and again for [`WRITING`]: the files written.
fn export_repeatedly(url: String, dir: PathBuf) -> Vec<PathBuf> {
    let (started, mut files) = (Instant::now(), Vec::new());
    while started.elapsed() < WRITING {
        let out = dir.join(format!("export-{}.json", files.len()));
        export(&url, &out);
        files.push(out);
    }
    files
}

/// Once the writes stopped: the live server catches up to the store's last revisions, and its
/// state is the store's (the log's last word on every key).
async fn live_catches_up(port: u16, js: &jetstream::Context, log: &[Logged]) {
    let end = format!(
        "{}-{}",
        last_sequence(js, Side::State).await,
        last_sequence(js, Side::Lease).await
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let (live, revisions) = loop {
        let (snap, revisions) = live_snapshot(port).await;
        if revisions == end || Instant::now() > deadline {
            break (snap, revisions);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(revisions, end, "the live server did not catch up");
    check(log, &live, "the live server after the writes");
    assert_eq!(entries_of(&live.state), state_at(log, Side::State, u64::MAX));
    assert_eq!(entries_of(&live.lease), state_at(log, Side::Lease, u64::MAX));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_export_under_writes_is_the_store_at_its_recorded_revisions() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    buckets(&js).await;
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut fleet = Fleet {
        holder: vec![None; SPLITS],
        written: 0,
    };
    for chunk in fleet.initial().chunks(2048) {
        publish(&js, chunk.to_vec(), &log).await;
    }

    let stop = Arc::new(AtomicBool::new(false));
    let writer = tokio::spawn(keep_writing(js.clone(), fleet, log.clone(), stop.clone()));
    let dir = Removed(std::env::temp_dir().join(format!("spate-cut-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let exports = tokio::task::spawn_blocking({
        let (url, dir) = (url.clone(), dir.0.clone());
        move || export_repeatedly(url, dir)
    });
    // Live mode's first state, read while the writes go on.
    tokio::time::sleep(WRITING / 3).await;
    let serve = Serve::start(&["--server", &url]);
    let (first_live, first_revisions) = live_snapshot(serve.port).await;
    let files = exports.await.unwrap();
    stop.store(true, Ordering::SeqCst);
    let (writes, took) = writer.await.unwrap();
    let log = std::mem::take(&mut *log.lock().unwrap());

    let rate = writes as f64 / took.as_secs_f64();
    eprintln!(
        "{writes} writes in {took:?} ({rate:.0}/s) during {} exports",
        files.len()
    );
    assert!(rate > 1_000.0, "the writer managed only {rate:.0} writes/s");
    assert!(files.len() >= 5, "only {} exports in {WRITING:?}", files.len());
    let mut cuts = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let snap = Snapshot::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        cuts.push(check(&log, &snap, &format!("export {i}")));
    }
    eprintln!("every export is the store at its revisions: {cuts:?}");
    let live_cut = check(&log, &first_live, "the live server's first state");
    assert_eq!(
        first_revisions,
        format!("{}-{}", live_cut.0, live_cut.1),
        "X-Spate-Revisions is the first state's cut"
    );
    live_catches_up(serve.port, &js, &log).await;
    serve.stop();
}

/// A job's two buckets, the lease bucket with `max_age` and limit markers.
async fn edge_job(js: &jetstream::Context, job: &str, max_age: Duration) -> (kv::Store, kv::Store) {
    let config = |b: &str, max_age: Duration| kv::Config {
        bucket: format!("spate_coordination_{job}_{b}"),
        history: 1,
        max_age,
        limit_markers: (!max_age.is_zero()).then_some(Duration::from_secs(1)),
        ..Default::default()
    };
    let state = js
        .create_key_value(config("state", Duration::ZERO))
        .await
        .unwrap();
    let lease = js.create_key_value(config("lease", max_age)).await.unwrap();
    (state, lease)
}

fn exported(url: &str, job: &str) -> Snapshot {
    let o = std::process::Command::new(BIN)
        .args(["snapshot", "--server", url, "--job", job, "--timeout", "5"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Snapshot::parse(&String::from_utf8(o.stdout).unwrap()).unwrap()
}

fn keys(b: &Bucket) -> Vec<(&str, u64)> {
    b.entries.iter().map(|e| (e.key.as_str(), e.revision)).collect()
}

/// Buckets at their edges: never written (cut at 0), ending in delete and purge markers (cut at
/// the last marker), and leases whose expiry markers ran out too (every message gone: cut at
/// the last sequence, nothing in it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buckets_at_their_edges_are_cut_at_their_last_sequence() {
    let nats = NatsServer::start(true);
    let url = nats.url();
    let js = jetstream::new(async_nats::connect(&url).await.unwrap());
    let (state, lease) = edge_job(&js, "marks", Duration::from_secs(300)).await;
    for k in ["a", "b", "c"] {
        state.put(k, "{}".into()).await.unwrap();
    }
    state.delete("b").await.unwrap();
    state.purge("c").await.unwrap();
    lease.put("worker.w", "{}".into()).await.unwrap();
    lease.delete("worker.w").await.unwrap();
    let snap = exported(&url, "marks");
    assert_eq!(
        (snap.state.revision, keys(&snap.state)),
        (Some(5), vec![("a", 1)])
    );
    assert_eq!((snap.lease.revision, keys(&snap.lease)), (Some(2), vec![]));

    let (_, lease) = edge_job(&js, "gone", Duration::from_secs(1)).await;
    lease.put("worker.a", "{}".into()).await.unwrap();
    lease.put("worker.b", "{}".into()).await.unwrap();
    let mut stream = js.get_stream("KV_spate_coordination_gone_lease").await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen_markers = false;
    loop {
        let s = stream.info().await.unwrap().state.clone();
        if s.last_sequence == 4 && !seen_markers {
            // Both leases expired: their markers are the bucket's last messages.
            seen_markers = true;
            let snap = exported(&url, "gone");
            assert_eq!((snap.lease.revision, keys(&snap.lease)), (Some(4), vec![]));
        }
        if s.last_sequence == 4 && s.messages == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the leases and markers did not expire: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let snap = exported(&url, "gone");
    assert_eq!((snap.state.revision, keys(&snap.state)), (Some(0), vec![]));
    assert_eq!((snap.lease.revision, keys(&snap.lease)), (Some(4), vec![]));
}
