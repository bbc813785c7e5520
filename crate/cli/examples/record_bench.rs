//! The recording benchmark's writer (run by `scripts/bench-record`, which starts the NATS server
//! and `serve --record`): rewrites a restored demo job's keys at Spate's pace for a while, as a
//! running fleet does, and says how many writes it made.
//!
//! Spate's pace (docs/recording-format.md, "Size"; /work/shared/spec/timing.md): every worker's
//! heartbeat, every R = 10 s, rewrites its presence, the leader's key and each split lease it
//! holds; each owned split's progress record is rewritten when the worker commits progress
//! (every PROGRESS_S seconds here, an assumption of the workload).
//!
//! Usage: record_bench NATS_URL SNAPSHOT SECONDS [PROGRESS_S]

use async_nats::jetstream;
use spate_planner_core::Snapshot;
use std::time::{Duration, Instant};

/// A heartbeat's period, R = L/3 with Spate's default lease TTL of 30 s.
const RENEW_S: u64 = 10;
/// Writes are spread over ticks of this length.
const TICK: Duration = Duration::from_millis(100);

struct Key {
    subject: String,
    value: Vec<u8>,
    /// Every this many ticks, at tick `offset` of the period.
    period: u64,
    offset: u64,
    progress: bool,
}

/// The keys a running fleet rewrites: the lease bucket's every `RENEW_S`, progress records of
/// leased splits every `progress_s`.
fn keys(snap: &Snapshot, progress_s: u64) -> Vec<Key> {
    let ticks = |s: u64| s * 1000 / TICK.as_millis() as u64;
    let leased: std::collections::HashSet<&str> = snap.lease.entries.iter().map(|e| e.key.as_str()).collect();
    let lease = snap
        .lease
        .entries
        .iter()
        .map(|e| (&snap.lease.name, e, ticks(RENEW_S), false));
    let progress = snap
        .state
        .entries
        .iter()
        .filter(|e| e.key.starts_with("split.") && leased.contains(e.key.as_str()))
        .map(|e| (&snap.state.name, e, ticks(progress_s), true));
    lease
        .chain(progress)
        .enumerate()
        .map(|(i, (bucket, e, period, progress))| Key {
            subject: format!("$KV.{bucket}.{}", e.key),
            value: e.value.clone(),
            period,
            offset: (i as u64 * 7919) % period,
            progress,
        })
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (url, file, seconds, progress_s) = match &args[..] {
        [_, u, f, s] => (u, f, s, "30"),
        [_, u, f, s, p] => (u, f, s, p.as_str()),
        _ => {
            eprintln!("usage: record_bench NATS_URL SNAPSHOT SECONDS [PROGRESS_S]");
            std::process::exit(2);
        }
    };
    let snap = Snapshot::parse(&std::fs::read_to_string(file).expect("snapshot")).expect("a snapshot");
    let keys = keys(&snap, progress_s.parse().expect("PROGRESS_S"));
    let js = jetstream::new(async_nats::connect(url.as_str()).await.expect("connect to NATS"));
    let run = Duration::from_secs(seconds.parse().expect("SECONDS"));
    let start = Instant::now();
    let (mut tick, mut writes, mut progress) = (0u64, 0u64, 0u64);
    while start.elapsed() < run {
        let mut acks = Vec::new();
        for k in keys.iter().filter(|k| tick % k.period == k.offset) {
            let ack = js
                .publish(k.subject.clone(), k.value.clone().into())
                .await
                .expect("publish");
            acks.push(ack);
            progress += k.progress as u64;
        }
        writes += acks.len() as u64;
        for a in acks {
            a.await.expect("acknowledged");
        }
        tick += 1;
        let next = TICK * tick as u32;
        if let Some(wait) = next.checked_sub(start.elapsed()) {
            tokio::time::sleep(wait).await;
        }
    }
    let took = start.elapsed().as_secs_f64();
    println!(
        "writes {writes} in {took:.1} s ({:.0}/s: {:.0}/s lease renewals, {:.0}/s progress rewrites)",
        writes as f64 / took,
        (writes - progress) as f64 / took,
        progress as f64 / took
    );
}
