//! `spate-planner demo`: a realistic synthetic snapshot.

use spate_planner_core::{demo_snapshot, DemoParams};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct DemoArgs {
    #[arg(long, default_value_t = 2000)]
    splits: usize,
    #[arg(long, default_value_t = 24)]
    members: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "demo")]
    job: String,
    /// Output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: &DemoArgs) -> ExitCode {
    if !spate_planner_core::valid_job_name(&args.job) {
        eprintln!(
            "spate-planner demo: job name {:?} is not [A-Za-z0-9_-]{{1,64}}",
            args.job
        );
        return ExitCode::FAILURE;
    }
    let snap = demo_snapshot(&DemoParams {
        job: args.job.clone(),
        splits: args.splits,
        members: args.members,
        seed: args.seed,
        ..DemoParams::default()
    });
    let text = snap.to_json();
    let written = match &args.output {
        Some(p) => crate::support::write_atomically(p, text.as_bytes()),
        None => std::io::stdout().lock().write_all(text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner demo: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
