//! `spate-planner`: the planner's native command-line program.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;
mod conformance;
mod export;
mod plan;
mod serve;
mod simulate;

#[derive(Parser)]
#[command(
    name = "spate-planner",
    version,
    about = "See and review how a Spate fleet shares its work"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run conformance vector files (format spate-conformance/1) against the decision core.
    Conformance {
        /// Vector files.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Time desired_assignment on synthetic fleets (cold, scale-out, member-loss).
    Bench(bench::Args),
    /// Plan a snapshot: what the leader will decide, with optional what-if changes.
    Plan(plan::PlanArgs),
    /// Copy a job's two buckets from a live NATS server into a snapshot file (read-only).
    Snapshot(export::Args),
    /// Write a snapshot's entries into new buckets on a server (for tests and demos).
    #[command(hide = true)]
    Restore(export::RestoreArgs),
    /// Write a realistic synthetic snapshot (the dashboard's demo fleet).
    Demo(plan::DemoArgs),
    /// Serve the built dashboard on 127.0.0.1.
    Serve(serve::Args),
    /// Simulate a fleet's timing: crashes, stops, starts and their consequences (docs/simulator.md).
    Simulate(simulate::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Conformance { files } => conformance::run(&files),
        Command::Bench(args) => bench::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Plan(args) => plan::plan(&args),
        Command::Demo(args) => plan::demo(&args),
        Command::Snapshot(args) => export::run(&args),
        Command::Restore(args) => export::restore(&args),
        Command::Simulate(args) => simulate::run(&args),
    }
}
