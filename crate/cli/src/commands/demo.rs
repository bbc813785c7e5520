//! `spate-planner demo`: a realistic synthetic snapshot.

use spate_planner_core::{demo_snapshot, DemoParams};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct DemoArgs {
    /// Splits (at most 1000000).
    #[arg(long, default_value_t = 2000)]
    splits: usize,
    /// Members (1 to 100000).
    #[arg(long, default_value_t = 24)]
    members: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "demo")]
    job: String,
    /// Output file (default: standard output). Written atomically: complete or not at all.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: &DemoArgs) -> ExitCode {
    let params = DemoParams {
        job: args.job.clone(),
        splits: args.splits,
        members: args.members,
        seed: args.seed,
        ..DemoParams::default()
    };
    let snap = match demo_snapshot(&params) {
        Ok(s) => s,
        Err(e) => {
            let option = e.path.as_deref().unwrap_or("parameters");
            eprintln!("spate-planner demo: --{option}: {} [{}]", e.message, e.code);
            return ExitCode::FAILURE;
        }
    };
    let text = snap.to_json();
    let written = match &args.output {
        Some(p) => crate::support::write_atomically(p, text.as_bytes()),
        None => crate::stdout::all(text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner demo: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
