//! How long reading a snapshot takes natively, step by step: the file's JSON into entries
//! (`Snapshot::parse`), the entries into records (`Records::from_snapshot`), and the entries
//! into the leader's view (`Fleet::from_snapshot`, which reads the records again). Median of N
//! runs, in ms. The dashboard's figure for the same work is `spate:parse`
//! (tests/bench/first-render.mjs).
//!
//! Usage: cargo run --release --example parse_bench -- FILE [RUNS]
use spate_planner_core::fleet::{Fleet, Records};
use spate_planner_core::snapshot::Snapshot;
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: parse_bench FILE [RUNS]");
    let runs: usize = args.next().map_or(7, |r| r.parse().expect("RUNS is a number"));
    let bytes = std::fs::read(&file).expect("read the file");
    let (mut parse, mut records, mut fleet) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let snap = Snapshot::parse_bytes(&bytes).expect("a snapshot");
        parse.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        std::hint::black_box(Records::from_snapshot(&snap).expect("records"));
        records.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let f = Fleet::from_snapshot(&snap).expect("a fleet");
        fleet.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(f);
    }
    println!("snapshot_parse_ms {:.1}", median(parse));
    println!("records_from_snapshot_ms {:.1}", median(records));
    println!("fleet_from_snapshot_ms {:.1}", median(fleet));
}
