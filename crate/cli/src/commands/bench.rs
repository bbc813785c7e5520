//! `spate-planner bench`: figures for desired_assignment on the three fleet shapes.

use crate::support::parse_size;
use spate_planner_core::{
    assign::Plan,
    reference,
    synth::{bench_fleet, max_min_ratio, Shape},
    LeaderInputs, Rules,
};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Sizes as SPLITSxMEMBERS (default: 2000x40 10000x100 100000x1000). Each size is timed by
    /// Spate 0.1's rules (`fast`) and by 0.3's (`fast-0.3`).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<String>,
    /// Runs per figure; the median is printed.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Also time the plain transcription of the spec on sizes up to this many splits.
    #[arg(long, default_value_t = 0)]
    reference_up_to: usize,
    /// Time the timing simulator instead (10 simulated minutes with a crash and a rolling
    /// restart of 10 members; default sizes 2000x40 10000x100).
    #[arg(long)]
    sim: bool,
    /// Time one frame of a live job instead (a change applied, the fleet joined, planned and
    /// summarised; default size 100000x1000).
    #[arg(long)]
    live: bool,
}

fn ms_of(f: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64() * 1e3
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn median_ms(repeat: usize, mut f: impl FnMut()) -> f64 {
    median((0..repeat.max(1)).map(|_| ms_of(&mut f)).collect())
}

/// The medians of `f` and `g` run in turn (f g f g …), so that a machine whose speed drifts
/// during the run slows both alike.
fn paired_median_ms(repeat: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let (tf, tg): (Vec<f64>, Vec<f64>) = (0..repeat.max(1)).map(|_| (ms_of(&mut f), ms_of(&mut g))).unzip();
    (median(tf), median(tg))
}

fn print_fast(label: &str, shape: Shape, (n, m): (usize, usize), ms: f64, plan: &Plan) {
    crate::stdout::print_line(format_args!(
        "{label} {} {n} {m} {ms:.2} {} {} {:.4}",
        shape.name(),
        plan.explain.moves.len(),
        plan.explain.bound_hit,
        max_min_ratio(plan)
    ));
}

pub(crate) fn run(args: &Args) -> ExitCode {
    if args.sim {
        return crate::bench_sim::run(&args.sizes, args.repeat);
    }
    if args.live {
        let size = args.sizes.first().map_or("100000x1000", String::as_str);
        let Some((n, m)) = parse_size(size) else {
            eprintln!("bad size {size:?}: expected SPLITSxMEMBERS, e.g. 10000x100");
            return ExitCode::FAILURE;
        };
        return match crate::bench_live::run(n, m, args.repeat.max(5)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                crate::term::fail("bench", &e);
                ExitCode::FAILURE
            }
        };
    }
    let sizes: Vec<String> = if args.sizes.is_empty() {
        vec!["2000x40".into(), "10000x100".into(), "100000x1000".into()]
    } else {
        args.sizes.clone()
    };
    crate::stdout::print_line(format_args!(
        "impl shape splits members ms moves bound_hit max/min"
    ));
    for s in &sizes {
        let Some((n, m)) = parse_size(s) else {
            eprintln!("bad size {s:?}: expected SPLITSxMEMBERS, e.g. 10000x100");
            return ExitCode::FAILURE;
        };
        for shape in Shape::ALL {
            let fleet = bench_fleet(shape, n, m);
            // Spate 0.3's rules on the same fleet (its `previous`: a quiet fleet's last publish),
            // timed in turn with 0.1's
            let fleet_0_3 = LeaderInputs {
                rules: Rules::V0_3,
                ..fleet.clone()
            };
            let (mut plan, mut plan_0_3) = (None, None);
            let (ms, ms_0_3) = paired_median_ms(
                args.repeat,
                || plan = Some(fleet.plan()),
                || plan_0_3 = Some(fleet_0_3.plan()),
            );
            let plan = plan.expect("ran at least once");
            print_fast("fast", shape, (n, m), ms, &plan);
            print_fast(
                "fast-0.3",
                shape,
                (n, m),
                ms_0_3,
                &plan_0_3.expect("ran at least once"),
            );
            if n <= args.reference_up_to {
                let ms = median_ms(1, || {
                    let LeaderInputs {
                        members,
                        splits,
                        reserved,
                        caps,
                        default_cap,
                        seed,
                        ..
                    } = &fleet;
                    let (a, _) =
                        reference::desired_assignment(members, splits, reserved, caps, *default_cap, *seed);
                    assert_eq!(
                        a,
                        plan.assignment,
                        "the reference disagrees on {} {n}x{m}",
                        shape.name()
                    );
                });
                crate::stdout::print_line(format_args!("reference {} {n} {m} {ms:.2} - - -", shape.name()));
            }
        }
    }
    ExitCode::SUCCESS
}
