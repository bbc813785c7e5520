//! A snapshot is one instant of each bucket, under writes (issue 18).
//!
//! A writer keeps a 20,000-split job busy through a real NATS server — lease renewals, presence
//! renewals, progress rewrites, releases, claims, deletes and purges with quick re-creates —
//! and logs every write the server acknowledged (bucket, key, revision, value or removal). Meanwhile
//! `spate-planner snapshot` exports the job again and again, and `serve --server` reads its
//! first state. Every file is checked against the log: the state the log implies at the
//! revision the file records for each bucket must be the file's entries exactly (keys,
//! revisions, values). Once the writes stop, the live server's state must be the store's. Then
//! buckets at their edges: never written, ending in markers, every message expired.

use crate::busy_fleet;
use crate::live_client;
use crate::nats_server;
use crate::patience;

use async_nats::jetstream::{self, kv};
use busy_fleet::{keep_writing, publish, Fleet, Logged, Side, JOB};
use live_client::{export, get, Serve};
use nats_server::NatsServer;
use patience::PATIENCE;
use spate_planner_core::{Bucket, Snapshot};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the writer writes while the job is exported again and again (at least; and until
/// [`EXPORTS`] exports are made, however slow the machine).
const WRITING: Duration = Duration::from_secs(7);
/// The fewest exports made under the writes.
const EXPORTS: usize = 5;

/// A bucket as a map: key to (revision, value).
type Entries = BTreeMap<String, (u64, Vec<u8>)>;

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
            Some(g) if g.0 != w.0 => {
                out.push(format!("{k}: revision {} in the file, {} in the log", g.0, w.0))
            }
            Some(g) if g.1 != w.1 => out.push(format!("{k}: another value at revision {}", g.0)),
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

async fn last_sequence(js: &jetstream::Context, side: Side) -> u64 {
    let mut s = js.get_stream(format!("KV_{}", side.bucket())).await.unwrap();
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

/// Whether the log holds every write up to `cut` in `side`: the writer logs its writes in the
/// order they were made, so once it logged one above the cut, it logged all below.
fn logged_past(log: &Mutex<Vec<Logged>>, side: Side, cut: u64) -> bool {
    let log = log.lock().unwrap();
    log.iter().rev().any(|l| l.side == side && l.revision > cut)
}

/// Exports the job again and again for [`WRITING`] and at least [`EXPORTS`] times
/// (`spate-planner snapshot`, as a user runs it), each file checked against the log once the log
/// has passed its revisions: the revisions of each.
fn export_repeatedly(url: String, log: Arc<Mutex<Vec<Logged>>>) -> Vec<(u64, u64)> {
    let (started, mut cuts) = (Instant::now(), Vec::new());
    while started.elapsed() < WRITING || cuts.len() < EXPORTS {
        let snap = Snapshot::parse(&export(&url, JOB)).unwrap();
        let at = (snap.state.revision.unwrap_or(0), snap.lease.revision.unwrap_or(0));
        while !(logged_past(&log, Side::State, at.0) && logged_past(&log, Side::Lease, at.1)) {
            std::thread::sleep(Duration::from_millis(5));
        }
        cuts.push(check(
            &log.lock().unwrap(),
            &snap,
            &format!("export {}", cuts.len()),
        ));
    }
    cuts
}

/// Once the writes stopped: the live server catches up to the store's last revisions, and its
/// state is the store's (the log's last word on every key).
async fn live_catches_up(port: u16, js: &jetstream::Context, log: &[Logged]) {
    let end = format!(
        "{}-{}",
        last_sequence(js, Side::State).await,
        last_sequence(js, Side::Lease).await
    );
    let deadline = Instant::now() + PATIENCE;
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
    edge_job(&js, JOB, Duration::from_secs(300)).await;
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut fleet = Fleet::default();
    for chunk in fleet.initial().chunks(2048) {
        publish(&js, chunk.to_vec(), &log).await;
    }

    let stop = Arc::new(AtomicBool::new(false));
    let writer = tokio::spawn(keep_writing(js.clone(), fleet, log.clone(), stop.clone()));
    let exports = tokio::task::spawn_blocking({
        let (url, log) = (url.clone(), log.clone());
        move || export_repeatedly(url, log)
    });
    // Live mode's first state, read while the writes go on.
    tokio::time::sleep(WRITING / 3).await;
    let serve = Serve::start(&["--server", &url]);
    let (first_live, first_revisions) = live_snapshot(serve.port).await;
    let cuts = exports.await.unwrap();
    stop.store(true, Ordering::SeqCst);
    let (writes, took) = writer.await.unwrap();
    let log = std::mem::take(&mut *log.lock().unwrap());

    let rate = writes as f64 / took.as_secs_f64();
    eprintln!(
        "{writes} writes in {took:?} ({rate:.0}/s); {} exports, each the store at its revisions: {cuts:?}",
        cuts.len()
    );
    // Each export was made under writes: the store moved between one and the next. (The rate,
    // 2,000 writes a second on an idle machine, is printed, not asserted: a busy machine writes
    // fewer, and the exports are checked the same.)
    assert!(cuts.len() >= EXPORTS, "only {} exports", cuts.len());
    for pair in cuts.windows(2) {
        assert!(
            pair[0].0 <= pair[1].0 && pair[0].1 <= pair[1].1 && pair[0] != pair[1],
            "no write between two exports: {cuts:?}"
        );
    }
    let live_cut = check(&log, &first_live, "the live server's first state");
    assert_eq!(
        first_revisions,
        format!("{}-{}", live_cut.0, live_cut.1),
        "X-Spate-Revisions is the first state's cut"
    );
    live_catches_up(serve.port, &js, &log).await;
    serve.stop();
}

/// A job's two buckets as Spate creates them: history 1, the lease bucket with `max_age` and
/// limit markers.
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
    Snapshot::parse(&export(url, job)).unwrap()
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
    let deadline = Instant::now() + PATIENCE;
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
