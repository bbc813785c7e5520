//! `spate-planner diff-rules`: the store planned by Spate 0.1's rules and by 0.3's, side by side.

use crate::leader_flags::LeaderFlags;
use crate::term::{shown, shown_or};
use spate_planner_core::{
    diff_rules, human_bytes,
    rules_diff::{RulesDiff, RulesSide},
    to_json,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    /// The what-if and leader settings both sides plan with (`--rules` only names "today").
    #[command(flatten)]
    leader: LeaderFlags,
    /// Print one JSON document instead of the report.
    #[arg(long)]
    json: bool,
    /// How many splits each list shows.
    #[arg(long, default_value_t = 40)]
    limit: usize,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    match command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("diff-rules", &e);
            ExitCode::FAILURE
        }
    }
}

fn command(args: &Args) -> Result<(), String> {
    let fleet = crate::support::load(&args.snapshot)?;
    // what applies of the scenario (each change left out named on standard error, as `plan`)
    let scenario = args.leader.analyse(&fleet)?.planned_scenario();
    let d = diff_rules(&fleet, &scenario).map_err(|e| format!("{e} [{}]", e.code))?;
    let mut out = crate::stdout::out();
    if args.json {
        let text = to_json(&d).map_err(|e| format!("cannot write JSON: {e}"))?;
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
    } else {
        human(&mut out, &d, args.limit).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

fn side_line(out: &mut impl Write, s: &RulesSide) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<6} {:>8} {:>11} {:>11} {:>11} {:>7} {:>11} {:>9}",
        s.rules.name(),
        s.churn.moves,
        human_bytes(s.churn.weight_moved),
        s.reassigned,
        human_bytes(s.weight_reassigned),
        s.queued,
        human_bytes(s.max_load),
        s.max_over_mean
    )
}

fn list(out: &mut impl Write, title: &str, ids: &[String], limit: usize) -> std::io::Result<()> {
    writeln!(out, "\n{title} ({}):", ids.len())?;
    for id in ids.iter().take(limit) {
        writeln!(out, "  {}", shown(id))?;
    }
    if ids.len() > limit {
        writeln!(out, "  ... and {} more (--json lists all)", ids.len() - limit)?;
    }
    Ok(())
}

fn human(out: &mut impl Write, d: &RulesDiff, limit: usize) -> std::io::Result<()> {
    writeln!(out, "job {}: today {}", shown(&d.job), d.today.explain())?;
    writeln!(
        out,
        "\n{:<6} {:>8} {:>11} {:>11} {:>11} {:>7} {:>11} {:>9}",
        "rules", "moves", "moved", "reassigned", "weight", "queued", "max load", "max/mean"
    )?;
    side_line(out, &d.v0_1)?;
    side_line(out, &d.v0_3)?;
    writeln!(
        out,
        "moves: splits that change hands from their current owner; reassigned: planned elsewhere than the last publish named"
    )?;
    list(
        out,
        "reassigned by 0.1, kept by 0.3 (stop moving on upgrading)",
        &d.kept_only_by_0_3,
        limit,
    )?;
    list(out, "reassigned by 0.3, kept by 0.1", &d.kept_only_by_0_1, limit)?;
    writeln!(out, "\nplaced apart ({}):", d.placed_apart.len())?;
    for p in d.placed_apart.iter().take(limit) {
        let name = |m: &Option<String>| shown_or(m.as_deref(), "-").into_owned();
        writeln!(
            out,
            "  {}: published {}, 0.1 {}, 0.3 {}",
            shown(&p.split),
            name(&p.published),
            name(&p.by_0_1),
            name(&p.by_0_3)
        )?;
    }
    Ok(())
}
