//! `spate-planner bench --sim`: the timing simulator's figures on its benchmark scenario.

use crate::support::parse_size;
use spate_planner_sim::{bench_scenario, simulate, FleetIndex, Options};
use std::process::ExitCode;
use std::time::Instant;

/// `spate-planner bench --sim`: the time to simulate 10 minutes of each size's benchmark
/// scenario (a crash and a rolling restart of 10 members; `bench_scenario`), with equal and
/// with byte weights; the median of `repeat` runs. Then the Timeline's scrubber on the last run:
/// the time to index it (`FleetIndex::new`) and the mean time of the fleet at an instant
/// (`FleetIndex::at`) over 100 instants across the run.
pub(crate) fn run(sizes: &[String], repeat: usize) -> ExitCode {
    let sizes: Vec<String> = if sizes.is_empty() {
        vec!["2000x40".into(), "10000x100".into()]
    } else {
        sizes.to_vec()
    };
    crate::stdout::print_line(format_args!(
        "weights splits members simulated_ms ms claims moves publishes timeline_events index_ms at_ms"
    ));
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
            let (index_ms, at_ms) = scrub(&o, &start, &script);
            crate::stdout::print_line(format_args!(
                "{} {n} {m} {} {:.1} {} {} {} {} {index_ms:.1} {at_ms:.2}",
                if bytes { "bytes" } else { "equal" },
                f.end_ms,
                times[times.len() / 2],
                f.claims,
                f.moves,
                f.publishes,
                o.timeline.len()
            ));
        }
    }
    ExitCode::SUCCESS
}

/// The scrubber's costs on a run: indexing it, and the mean of the fleet at 100 instants.
fn scrub(
    o: &spate_planner_sim::Outcome,
    start: &spate_planner_sim::Start,
    script: &spate_planner_sim::Script,
) -> (f64, f64) {
    let t = Instant::now();
    let ix = FleetIndex::new(o, start, script);
    let index_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let mut idle = 0;
    for k in 0..100u64 {
        idle += std::hint::black_box(ix.at(ix.end_ms() * k / 99)).idle.len();
    }
    std::hint::black_box(idle);
    (index_ms, t.elapsed().as_secs_f64() * 1e3 / 100.0)
}
