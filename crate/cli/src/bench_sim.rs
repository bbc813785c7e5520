//! `spate-planner bench --sim`: the timing simulator's figures on its benchmark scenario.

use crate::support::parse_size;
use spate_planner_sim::{bench_scenario, simulate, Options};
use std::process::ExitCode;
use std::time::Instant;

/// `spate-planner bench --sim`: the time to simulate 10 minutes of each size's benchmark
/// scenario (a crash and a rolling restart of 10 members; `bench_scenario`), with equal and
/// with byte weights; the median of `repeat` runs.
pub fn run(sizes: &[String], repeat: usize) -> ExitCode {
    let sizes: Vec<String> = if sizes.is_empty() {
        vec!["2000x40".into(), "10000x100".into()]
    } else {
        sizes.to_vec()
    };
    println!("weights splits members simulated_ms ms claims moves publishes timeline_events");
    for s in &sizes {
        let Some((n, m)) = parse_size(s) else {
            eprintln!("bad size {s:?}: expected SPLITSxMEMBERS, e.g. 10000x100");
            return ExitCode::FAILURE;
        };
        for bytes in [false, true] {
            let (start, script) = bench_scenario(n, m, bytes);
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..repeat.max(1) {
                let t = Instant::now();
                match simulate(&start, &script, &Options::default()) {
                    Ok(o) => last = Some(o),
                    Err(e) => {
                        eprintln!("{s}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            times.sort_by(f64::total_cmp);
            let Some(o) = last else { continue };
            let f = &o.figures;
            println!(
                "{} {n} {m} {} {:.1} {} {} {} {}",
                if bytes { "bytes" } else { "equal" },
                f.end_ms,
                times[times.len() / 2],
                f.claims,
                f.moves,
                f.publishes,
                o.timeline.len()
            );
        }
    }
    ExitCode::SUCCESS
}
