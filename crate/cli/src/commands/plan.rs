//! `spate-planner plan`: the leader's next decision for a snapshot, with optional what-ifs.

use crate::leader_flags::LeaderFlags;
use spate_planner_core::{
    plan_document,
    review::{plan_csv, PlanTable},
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct PlanArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    #[command(flatten)]
    leader: LeaderFlags,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    json: bool,
    /// Print one of the plan's tables as CSV instead: moves, members, splits (every split) or
    /// at-risk (the splits at the last attempt, past it, and parked by the claim race).
    #[arg(long, value_name = "TABLE", value_parser = ["moves", "members", "splits", "at-risk"], conflicts_with = "json")]
    csv: Option<String>,
    /// The workers' max_attempts, which the store does not record: the splits at risk of
    /// quarantine are those at attempts max_attempts − 1. Default: the what-if file's, else
    /// Spate's 4.
    #[arg(long, value_name = "N")]
    max_attempts: Option<u32>,
    /// Print how long each phase took on standard error.
    #[arg(long)]
    timings: bool,
    /// How many moves and queued splits the human report lists.
    #[arg(long, default_value_t = 40)]
    limit: usize,
}

/// Phase timings for `--timings`.
struct Marks {
    start: std::time::Instant,
    marks: Vec<(&'static str, f64)>,
}

impl Marks {
    fn mark(&mut self, what: &'static str) {
        self.marks.push((what, self.start.elapsed().as_secs_f64() * 1e3));
    }
    fn print(&self) {
        let mut last = 0.0;
        for (what, at) in &self.marks {
            eprintln!("timing {what}: {:.1} ms", at - last);
            last = *at;
        }
        eprintln!("timing total: {last:.1} ms");
    }
}

pub(crate) fn plan(args: &PlanArgs) -> ExitCode {
    let mut marks = Marks {
        start: std::time::Instant::now(),
        marks: Vec::new(),
    };
    let result = run(args, &mut marks);
    if args.timings {
        marks.print();
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("plan", &e);
            ExitCode::FAILURE
        }
    }
}

fn run(args: &PlanArgs, marks: &mut Marks) -> Result<(), String> {
    let fleet = crate::support::load(&args.snapshot)?;
    marks.mark("read and load");
    let analysis = args.leader.analyse_at(&fleet, args.max_attempts)?;
    marks.mark("plan and report");
    let mut out = crate::stdout::out();
    if let Some(table) = args.csv.as_deref().and_then(PlanTable::named) {
        write!(out, "{}", plan_csv(&fleet, &analysis, table)).map_err(|e| e.to_string())?;
    } else if args.json {
        let doc =
            plan_document(&fleet, &analysis).map_err(|e| format!("cannot write the plan as JSON: {e}"))?;
        writeln!(out, "{doc}").map_err(|e| e.to_string())?;
    } else {
        crate::human::plan(&mut out, &fleet, &analysis, args.limit).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    marks.mark("output");
    Ok(())
}
