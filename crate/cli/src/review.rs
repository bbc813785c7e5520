//! `spate-planner sweep` and `spate-planner diff`: the design-review commands.

use spate_planner_core::diff::diff;
use spate_planner_core::exact;
use spate_planner_core::report::human_bytes;
use spate_planner_core::scenario::Scenario;
use spate_planner_core::sweep::{smallest_meeting, sweep, Axis, Step};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    /// Add 0, 1, … members (added-01, added-02, …): a range FROM..TO (inclusive) or one value.
    #[arg(long, value_name = "RANGE", group = "axis")]
    add_members: Option<String>,
    /// The cap of added members (default: the leader's default cap).
    #[arg(long, requires = "add_members")]
    cap: Option<u32>,
    /// The leader's default cap over a range FROM..TO (inclusive).
    #[arg(long, value_name = "RANGE", group = "axis")]
    default_cap: Option<String>,
    /// Every member's cap over a range FROM..TO (inclusive).
    #[arg(long, value_name = "RANGE", group = "axis")]
    member_cap: Option<String>,
    /// The scenario each step starts from (docs/scenario-format.md).
    #[arg(long, value_name = "FILE")]
    what_if: Option<PathBuf>,
    /// Target: the largest max/mean load ratio acceptable (with --max-queued, names the smallest
    /// step that meets both).
    #[arg(long, value_name = "RATIO")]
    max_over_mean: Option<f64>,
    /// Target: the most queued splits acceptable.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_queued: u32,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
}

/// `FROM..TO` (inclusive) or `N`.
pub fn parse_range(text: &str) -> Result<std::ops::RangeInclusive<u32>, String> {
    let num = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("{text:?} is not a range FROM..TO of whole numbers"))
    };
    let (a, b) = match text.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.trim_start_matches('='))?),
        None => (num(text)?, num(text)?),
    };
    if a > b {
        return Err(format!("{text:?}: the range is empty ({a} > {b})"));
    }
    Ok(a..=b)
}

fn axis(args: &SweepArgs) -> Result<(Axis, std::ops::RangeInclusive<u32>), String> {
    match (&args.add_members, &args.default_cap, &args.member_cap) {
        (Some(r), _, _) => Ok((Axis::AddMembers { cap: args.cap }, parse_range(r)?)),
        (_, Some(r), _) => Ok((Axis::DefaultCap, parse_range(r)?)),
        (_, _, Some(r)) => Ok((Axis::MemberCap, parse_range(r)?)),
        _ => Err("give one of --add-members, --default-cap or --member-cap".into()),
    }
}

pub fn run_sweep(args: &SweepArgs) -> ExitCode {
    match sweep_command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner sweep: {e}");
            ExitCode::FAILURE
        }
    }
}

#[derive(serde::Serialize)]
struct SweepDocument<'a> {
    format: &'static str,
    job: &'a str,
    taken_at_ms: i64,
    axis: Axis,
    scenario: &'a Scenario,
    steps: &'a [Step],
    smallest_meeting: Option<u32>,
}

fn sweep_command(args: &SweepArgs) -> Result<(), String> {
    let (axis, range) = axis(args)?;
    let fleet = crate::plan::load(&args.snapshot)?;
    let base = match &args.what_if {
        None => Scenario::default(),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            Scenario::parse(&text).map_err(|e| format!("{}: {e} [{}]", p.display(), e.code))?
        }
    };
    let steps = sweep(&fleet, &base, axis, range).map_err(|e| format!("{e} [{}]", e.code))?;
    let best = args
        .max_over_mean
        .and_then(|r| smallest_meeting(&steps, r, args.max_queued))
        .map(|s| s.value);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.json {
        let doc = SweepDocument {
            format: "spate-planner-sweep/1",
            job: &fleet.job,
            taken_at_ms: fleet.taken_at_ms,
            axis,
            scenario: &base,
            steps: &steps,
            smallest_meeting: best,
        };
        let text = exact::to_json(&doc).map_err(|e| format!("cannot write JSON: {e}"))?;
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
    } else {
        sweep_table(&mut out, &steps, args, best).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

fn sweep_table(
    out: &mut impl Write,
    steps: &[Step],
    args: &SweepArgs,
    best: Option<u32>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>6} {:>8} {:>11} {:>9} {:>10} {:>7} {:>6} {:>11} {:>7}",
        "value", "members", "max load", "max/mean", "max/bound", "queued", "moves", "moved", "at cap"
    )?;
    for s in steps {
        writeln!(
            out,
            "{:>6} {:>8} {:>11} {:>9} {:>10} {:>7} {:>6} {:>11} {:>7}{}",
            s.value,
            s.members,
            human_bytes(s.max_load),
            s.max_over_mean,
            s.max_over_bound,
            s.queued,
            s.moves,
            human_bytes(s.bytes_moved),
            s.at_cap,
            if s.bound_hit { "  (move bound hit)" } else { "" }
        )?;
    }
    if let Some(r) = args.max_over_mean {
        match best {
            Some(v) => writeln!(
                out,
                "smallest value with max/mean <= {r} and at most {} queued: {v}",
                args.max_queued
            )?,
            None => writeln!(
                out,
                "no value meets max/mean <= {r} with at most {} queued",
                args.max_queued
            )?,
        }
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The earlier snapshot.
    before: PathBuf,
    /// The later snapshot.
    after: PathBuf,
    /// Print one JSON document instead of the report.
    #[arg(long)]
    json: bool,
    /// How many owner changes and differences the report lists.
    #[arg(long, default_value_t = 40)]
    limit: usize,
}

pub fn run_diff(args: &DiffArgs) -> ExitCode {
    match diff_command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner diff: {e}");
            ExitCode::FAILURE
        }
    }
}

fn diff_command(args: &DiffArgs) -> Result<(), String> {
    let before = crate::plan::load(&args.before)?;
    let after = crate::plan::load(&args.after)?;
    let d = diff(&before, &after).map_err(|e| format!("{e} [{}]", e.code))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.json {
        let text = exact::to_json(&d).map_err(|e| format!("cannot write JSON: {e}"))?;
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
    } else {
        crate::human::diff(&mut out, &d, args.limit).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_inclusively() {
        assert_eq!(parse_range("0..24"), Ok(0..=24));
        assert_eq!(parse_range("2..=32"), Ok(2..=32));
        assert_eq!(parse_range("5"), Ok(5..=5));
        assert!(parse_range("9..3").is_err());
        assert!(parse_range("a..b").is_err());
    }
}
