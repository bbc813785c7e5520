//! `spate-planner claims`: each worker's next full reconcile, as the workers' rules decide it.

use crate::leader_flags::LeaderFlags;
use spate_planner_core::{
    claims_document, next_claims,
    review::{claims_csv, claims_rules_note, exposure},
    AssignmentSource,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct ClaimsArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    /// Only this live member (default: every live member).
    #[arg(long, value_name = "INSTANCE")]
    instance: Option<String>,
    /// Act on the planned assignment (once the leader publishes it) instead of the published
    /// assign.{instance} records.
    #[arg(long)]
    after_plan: bool,
    /// Spate's max_attempts: a reclaim or expired takeover reaching it quarantines the split,
    /// and the splits at attempts max_attempts − 1 are at risk. The store does not record it.
    /// Default: the what-if file's, else Spate's 4.
    #[arg(long, value_name = "N")]
    max_attempts: Option<u32>,
    #[command(flatten)]
    leader: LeaderFlags,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    json: bool,
    /// Print the actions as CSV instead (one record per claim, quarantine, drain and fenced split).
    #[arg(long, conflicts_with = "json")]
    csv: bool,
}

pub(crate) fn run(args: &ClaimsArgs) -> ExitCode {
    match claims(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("claims", &e);
            ExitCode::FAILURE
        }
    }
}

fn claims(args: &ClaimsArgs) -> Result<(), String> {
    let fleet = crate::support::load(&args.snapshot)?;
    let a = args.leader.analyse_at(&fleet, args.max_attempts)?;
    let max = a.applied.max_attempts;
    let source = if args.after_plan {
        AssignmentSource::Plan
    } else {
        AssignmentSource::Published
    };
    let next = next_claims(&fleet, &a, args.instance.as_deref(), source, max.value)
        .map_err(|e| format!("--instance: {} [{}]", e.message, e.code))?;
    let mut out = crate::stdout::out();
    if args.csv {
        write!(out, "{}", claims_csv(&next)).map_err(|e| e.to_string())?;
    } else if args.json {
        let doc = claims_document(&fleet, &a, &next, source, max)
            .map_err(|e| format!("cannot write the claims as JSON: {e}"))?;
        writeln!(out, "{doc}").map_err(|e| e.to_string())?;
    } else {
        writeln!(out, "{}", claims_rules_note(a.applied.rules)).map_err(|e| e.to_string())?;
        let risk = exposure(&fleet, &a, max, true);
        crate::human::attempts_line(&mut out, &risk).map_err(|e| e.to_string())?;
        crate::human::risk_lines(&mut out, &risk).map_err(|e| e.to_string())?;
        crate::human::claims(
            &mut out,
            &next,
            |x| a.applied.inputs.cap_of(x),
            |x| source.has_assignment(&fleet, &a, x),
        )
        .map_err(|e| e.to_string())?;
        crate::human::risk_section(&mut out, &risk, usize::MAX).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}
