//! The metrics benchmark's client side (run by `scripts/bench-metrics`, which starts the NATS
//! server and `spate-planner serve`): how long `/metrics` takes when the job's state is planned
//! (the first scrape, and the first after each change) and when the plan is kept.
//!
//! Usage: metrics_bench NATS_URL HTTP_PORT JOB

use async_nats::jetstream;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One scrape on a fresh connection: (milliseconds to the last byte, the text).
async fn scrape(port: u16) -> (f64, String) {
    let (ms, text) = fetch(port).await;
    assert!(
        text.starts_with("HTTP/1.1 200") || text.starts_with("HTTP/1.0 200"),
        "{text}"
    );
    (ms, text)
}

/// One request for `/metrics` on a fresh connection, whatever its answer: (milliseconds to the
/// last byte, the answer).
async fn fetch(port: u16) -> (f64, String) {
    let t = Instant::now();
    let mut s = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect to serve");
    let req = format!("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("request");
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.expect("answer");
    let ms = t.elapsed().as_secs_f64() * 1e3;
    (ms, String::from_utf8_lossy(&all).into_owned())
}

/// A sample's value in the text (the first series of `name`).
fn value(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name) && !l.starts_with('#'))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

fn summary(label: &str, mut v: Vec<f64>) {
    v.sort_by(f64::total_cmp);
    println!(
        "{label}: median {:.1} ms, min {:.1}, max {:.1} ({} scrapes)",
        v[v.len() / 2],
        v[0],
        v[v.len() - 1],
        v.len()
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (url, port, job) = (&args[1], args[2].parse::<u16>().expect("port"), &args[3]);
    let js = jetstream::new(async_nats::connect(url.as_str()).await.expect("connect to NATS"));
    let lease = js
        .get_key_value(format!("spate_coordination_{job}_lease"))
        .await
        .expect("the job's lease bucket");
    let (first, text) = scrape(port).await;
    println!("first scrape (the state planned): {first:.1} ms");
    println!(
        "  the text: {} bytes; plan {:.1} ms",
        text.len(),
        value(&text, "spate_planner_plan_duration_seconds").unwrap_or(0.0) * 1e3
    );
    let mut kept = Vec::new();
    for _ in 0..10 {
        kept.push(scrape(port).await.0);
    }
    summary("scrape, the state unchanged (the plan kept)", kept);
    let (mut planned, mut plans) = (Vec::new(), Vec::new());
    let revision = format!("spate_planner_revision{{spate_job=\"{job}\",bucket=\"lease\"}}");
    for i in 0..5u32 {
        let before = value(&scrape(port).await.1, &revision).unwrap_or(0.0);
        let v = format!(r#"{{"schema":3,"nonce":"nb","max_in_flight":{}}}"#, 2 + i % 5);
        lease
            .put("worker.bench-extra", v.into_bytes().into())
            .await
            .expect("put");
        // the first scrape whose figures are of the changed state is the one that planned it
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let (ms, text) = scrape(port).await;
            if value(&text, &revision).unwrap_or(0.0) > before {
                planned.push(ms);
                plans.push(value(&text, "spate_planner_plan_duration_seconds").unwrap_or(0.0) * 1e3);
                break;
            }
        }
    }
    summary("scrape after a change (the state planned)", planned);
    summary("  of which the plan", plans);
    for per_second in [0, 180] {
        looping_scrapers(port, &lease, per_second).await;
    }
    let _ = lease.delete("worker.bench-extra").await;
}

/// Ten clients each scraping in a loop, one after another, for 10 s while the job changes
/// `per_second` times a second: scrapes per second, and the server's CPU per second of
/// wall-clock (from its own `process_cpu_seconds_total`).
async fn looping_scrapers(port: u16, lease: &async_nats::jetstream::kv::Store, per_second: u32) {
    const CLIENTS: usize = 10;
    let run = Duration::from_secs(10);
    let cpu = |t: &str| value(t, "process_cpu_seconds_total").unwrap_or(0.0);
    let before = cpu(&scrape(port).await.1);
    let start = Instant::now();
    let writer = async {
        let mut i = 0u32;
        while per_second > 0 && start.elapsed() < run {
            let v = format!(r#"{{"schema":3,"nonce":"nb","max_in_flight":{}}}"#, 2 + i % 5);
            lease
                .put("worker.bench-extra", v.into_bytes().into())
                .await
                .expect("put");
            i += 1;
            let due = start + Duration::from_secs_f64(f64::from(i) / f64::from(per_second));
            tokio::time::sleep_until(due.into()).await;
        }
        i
    };
    // each client: (answered, refused: the server's bound on scrapes at once says 503)
    let clients = (0..CLIENTS).map(|_| async {
        let (mut ok, mut refused) = (0u32, 0u32);
        while start.elapsed() < run {
            let (_, text) = fetch(port).await;
            if text.starts_with("HTTP/1.1 200") || text.starts_with("HTTP/1.0 200") {
                ok += 1;
            } else {
                refused += 1;
            }
        }
        (ok, refused)
    });
    let (writes, counts) = tokio::join!(writer, futures_util::future::join_all(clients));
    let wall = start.elapsed().as_secs_f64();
    let used = cpu(&scrape(port).await.1) - before;
    let ok: u32 = counts.iter().map(|c| c.0).sum();
    let refused: u32 = counts.iter().map(|c| c.1).sum();
    println!(
        "{CLIENTS} clients scraping in a loop, {per_second} changes/s ({writes} written): {:.0} scrapes/s answered, {:.0}/s refused (503), the server's CPU {:.0}% of a core ({:.2} ms of CPU an answered scrape)",
        f64::from(ok) / wall,
        f64::from(refused) / wall,
        used / wall * 100.0,
        used * 1e3 / f64::from(ok.max(1))
    );
}
