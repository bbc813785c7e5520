//! `spate-planner converge`: the plan carried out and the leader replanning, round after round,
//! until a round moves nothing (the dashboard's Convergence tab, the same document).

use crate::leader_flags::LeaderFlags;
use spate_planner_core::{converge, human_bytes, to_json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    #[command(flatten)]
    leader: LeaderFlags,
    /// Most rounds to run (at least one is).
    #[arg(long, default_value_t = 30)]
    max_rounds: u32,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    match rounds(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("converge", &e);
            ExitCode::FAILURE
        }
    }
}

fn rounds(args: &Args) -> Result<(), String> {
    let fleet = crate::support::load(&args.snapshot)?;
    let a = args.leader.analyse(&fleet)?;
    let c = converge(&a.applied.inputs, args.max_rounds);
    let mut out = crate::stdout::out();
    let io = |e: std::io::Error| e.to_string();
    if args.json {
        let text = to_json(&c).map_err(|e| format!("cannot write JSON: {e}"))?;
        writeln!(out, "{text}").map_err(io)?;
    } else {
        writeln!(
            out,
            "{:>5} {:>7} {:>12} {:>9} {:>5} {:>9}",
            "round", "moves", "moved", "improving", "bound", "max/mean"
        )
        .map_err(io)?;
        for r in &c.rounds {
            writeln!(
                out,
                "{:>5} {:>7} {:>12} {:>9} {:>5} {:>9}",
                r.round,
                r.moves,
                human_bytes(r.weight_moved),
                r.improving_moves,
                if r.bound_hit { "hit" } else { "-" },
                r.max_over_mean
            )
            .map_err(io)?;
        }
        writeln!(out, "{}", c.verdict).map_err(io)?;
    }
    out.flush().map_err(io)
}
