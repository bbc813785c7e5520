//! The live-mode benchmark's client side (run by `scripts/bench-live`, which starts the NATS
//! server and `spate-planner serve`): time to the first full state, change-to-page latency,
//! throughput at 1,000 changes a second, and the server's CPU when idle.
//!
//! Usage: live_bench NATS_URL HTTP_PORT JOB SERVE_PID

use async_nats::jetstream;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

type Lines = tokio::io::Lines<BufReader<TcpStream>>;

/// Opens the event stream (HTTP/1.0: the body is the bare stream).
async fn open(port: u16, job: &str) -> Lines {
    let mut s = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect to serve");
    let req = format!("GET /api/live?job={job} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("request");
    BufReader::new(s).lines()
}

/// Reads until the end of the first `snapshot` event; its size in bytes.
async fn first_state(lines: &mut Lines) -> usize {
    let (mut in_snapshot, mut bytes) = (false, 0);
    while let Ok(Some(l)) = lines.next_line().await {
        if l == "event: snapshot" {
            in_snapshot = true;
        } else if in_snapshot && l.is_empty() {
            return bytes;
        } else if in_snapshot {
            bytes += l.len() + 1;
        }
    }
    panic!("the stream ended before a full state")
}

/// The CPU time (user + system) the process used so far, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the parenthesised name: state, ppid, ..., utime (field 14 of the line), stime (15).
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    (ticks(11) + ticks(12)) as f64 / 100.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn time_to_first_state(port: u16, job: &str) {
    let mut times = Vec::new();
    let mut size = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let mut lines = open(port, job).await;
        size = first_state(&mut lines).await;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "time to first full state (connect to last byte, {:.1} MB): {:.0} / {:.0} / {:.0} ms (three pages in a row)",
        size as f64 / 1e6,
        times[0],
        times[1],
        times[2]
    );
}

/// Waits for `change` events on the keys `prefix{n}`; returns receive instants by n.
async fn receive(mut lines: Lines, prefix: String, n: usize) -> Vec<Option<Instant>> {
    let mut got = vec![None; n];
    let mut left = n;
    while left > 0 {
        let Ok(Ok(Some(l))) = tokio::time::timeout(Duration::from_secs(20), lines.next_line()).await else {
            break;
        };
        let Some(i) = l.find(&prefix) else { continue };
        let digits: String = l[i + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        if let Ok(k) = digits.parse::<usize>() {
            if k < n && got[k].is_none() {
                got[k] = Some(Instant::now());
                left -= 1;
            }
        }
    }
    got
}

async fn latency(js: &jetstream::Context, port: u16, job: &str) {
    let mut lines = open(port, job).await;
    first_state(&mut lines).await;
    let n = 200;
    let rx = tokio::spawn(receive(lines, "\"worker.lat-".into(), n));
    let mut sent = Vec::new();
    let subject = format!("$KV.spate_coordination_{job}_lease.worker.lat-");
    for k in 0..n {
        let v = format!("{{\"schema\":3,\"nonce\":\"l{k}\",\"max_in_flight\":2}}");
        sent.push(Instant::now());
        js.publish(format!("{subject}{k}"), v.into())
            .await
            .expect("publish")
            .await
            .expect("ack");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let got = rx.await.expect("receiver");
    let mut ms: Vec<f64> = got
        .iter()
        .zip(&sent)
        .filter_map(|(g, s)| g.map(|g| g.duration_since(*s).as_secs_f64() * 1e3))
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "change-to-page latency ({} of {n} changes at 50/s): p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        ms.len(),
        percentile(&ms, 0.5),
        percentile(&ms, 0.95),
        ms.last().copied().unwrap_or(0.0)
    );
}

async fn throughput(js: &jetstream::Context, port: u16, job: &str, pid: u32) {
    let mut lines = open(port, job).await;
    first_state(&mut lines).await;
    let (n, per_tick) = (10_000usize, 10);
    let rx = tokio::spawn(receive(lines, "\"split.tp-".into(), n));
    let subject = format!("$KV.spate_coordination_{job}_lease.split.tp-");
    let (start, cpu0) = (Instant::now(), cpu_seconds(pid));
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    let mut acks = Vec::new();
    for k in 0..n {
        if k % per_tick == 0 {
            tick.tick().await;
        }
        let v = format!("{{\"schema\":3,\"owner\":\"w-{k}\",\"nonce\":\"t\",\"epoch\":1}}");
        acks.push(
            js.publish(format!("{subject}{k}"), v.into())
                .await
                .expect("publish"),
        );
        if acks.len() >= 500 {
            for a in acks.drain(..) {
                a.await.expect("ack");
            }
        }
    }
    for a in acks {
        a.await.expect("ack");
    }
    let published = start.elapsed().as_secs_f64();
    let got = rx.await.expect("receiver");
    let last = got.iter().flatten().max().copied();
    let received = got.iter().filter(|g| g.is_some()).count();
    let cpu = cpu_seconds(pid) - cpu0;
    let done = last
        .map(|l| l.duration_since(start).as_secs_f64())
        .unwrap_or(f64::NAN);
    println!(
        "throughput: {n} changes published in {published:.1} s ({:.0}/s); the page got {received} in {done:.1} s ({:.0}/s, last {:.0} ms after the last publish); server CPU {:.0}% of a core",
        n as f64 / published,
        received as f64 / done,
        ((done - published) * 1e3).max(0.0),
        cpu / done * 100.0
    );
}

async fn idle(pid: u32, seconds: u64) {
    let cpu0 = cpu_seconds(pid);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let cpu = cpu_seconds(pid) - cpu0;
    println!(
        "server CPU when idle (one page connected, {seconds} s): {:.2} s used, {:.2}% of a core",
        cpu,
        cpu / seconds as f64 * 100.0
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, port, job, pid] = &args[..] else {
        eprintln!("usage: live_bench NATS_URL HTTP_PORT JOB SERVE_PID");
        std::process::exit(2);
    };
    let (port, pid): (u16, u32) = (port.parse().expect("port"), pid.parse().expect("pid"));
    let client = async_nats::connect(url.as_str()).await.expect("connect to NATS");
    let js = jetstream::new(client);
    time_to_first_state(port, job).await;
    let mut page = open(port, job).await;
    first_state(&mut page).await;
    idle(pid, 10).await;
    latency(&js, port, job).await;
    throughput(&js, port, job, pid).await;
    drop(page);
}
