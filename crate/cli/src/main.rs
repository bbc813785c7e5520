//! `spate-planner`: the planner's native command-line program.

#![warn(unreachable_pub)]

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use commands::{
    bench, claims, conformance, converge, demo, diff, diff_rules, plan, replay, report, restore, serve,
    simulate, snapshot, sweep, watch,
};
use std::io::IsTerminal;
use std::process::ExitCode;

mod api;
mod assets;
mod base_path;
mod bench_live;
mod bench_sim;
mod commands;
mod cut;
mod dashboard;
mod headers;
mod health;
mod hosts;
mod human;
mod leader_flags;
mod listen;
mod live;
mod metrics;
mod nats;
mod output;
mod stdout;
mod store;
mod support;
mod term;

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
    /// Plan a snapshot: the leader's next decision, with optional what-if changes.
    Plan(plan::PlanArgs),
    /// Each worker's next reconcile: the claims and quarantines it takes, what it drains.
    Claims(claims::ClaimsArgs),
    /// The plan's figures across a range of fleet sizes or caps.
    Sweep(sweep::SweepArgs),
    /// The plan carried out and replanned, round after round, until a round moves nothing.
    Converge(converge::Args),
    /// Compare two snapshots of a job: members, caps, owners, figures, and the leader's decision.
    Diff(diff::DiffArgs),
    /// The store planned by Spate 0.1's rules and by 0.3's, side by side: what upgrading changes.
    DiffRules(diff_rules::Args),
    /// A Markdown review report (with SVG charts): the plan, and optionally a sweep and a comparison.
    Report(report::ReportArgs),
    /// Copy a job's two buckets from a live NATS server into a snapshot file (read-only).
    Snapshot(snapshot::Args),
    /// Write a snapshot's entries into new buckets on a server (for tests and demos).
    #[command(hide = true)]
    Restore(restore::RestoreArgs),
    /// Write a realistic synthetic snapshot (the dashboard's demo fleet).
    Demo(demo::DemoArgs),
    /// Serve the built dashboard on 127.0.0.1 or --bind ADDR (with --server: live jobs from NATS).
    Serve(serve::Args),
    /// Follow a live job and print the plan's figures, one line per change.
    Watch(watch::Args),
    /// Replay a recording (serve/watch --record) on the dashboard, or write the job at a moment.
    Replay(replay::Args),
    /// Simulate a fleet's timing: crashes, stops, starts and their consequences (docs/simulator.md).
    Simulate(simulate::Args),
}

/// The command line read, its help wrapped at the terminal's width (clap's `wrap_help`), or at
/// 80 columns when the help is not shown on a terminal (piped, or in a file).
fn parsed() -> Cli {
    let mut cmd = Cli::command();
    if !std::io::stdout().is_terminal() {
        cmd = cmd.term_width(80);
    }
    let matches = cmd.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

fn main() -> ExitCode {
    let cli = parsed();
    match cli.command {
        Command::Conformance { files } => conformance::run(&files),
        Command::Bench(args) => bench::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Plan(args) => plan::plan(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Claims(args) => claims::run(&args),
        Command::Sweep(args) => sweep::run_sweep(&args),
        Command::Converge(args) => converge::run(&args),
        Command::Diff(args) => diff::run_diff(&args),
        Command::DiffRules(args) => diff_rules::run(&args),
        Command::Report(args) => report::run_report(&args),
        Command::Snapshot(args) => snapshot::run(&args),
        Command::Restore(args) => restore::restore(&args),
        Command::Watch(args) => watch::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Simulate(args) => simulate::run(&args),
    }
}
