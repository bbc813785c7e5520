//! `spate-planner report`: the review document (docs/user-guide.md), its charts as SVG files
//! beside it or inlined. The files of one report are written all or nothing (`output.rs`), and
//! an image file that exists already is replaced only with `--force`: the person named the
//! report's file, not its images.

use crate::output::{dir_of, Outputs};
use crate::support::parse_range;
use spate_planner_core::{diff, diff_rules, sweep, Axis, Review};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    #[command(flatten)]
    leader: crate::leader_flags::LeaderFlags,
    /// Include a sweep adding 0, 1, … members (a range FROM..TO).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_add_members: Option<String>,
    /// The cap of the sweep's added members.
    #[arg(long, requires = "sweep_add_members")]
    cap: Option<u32>,
    /// Include a sweep of the leader's default cap (a range FROM..TO).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_default_cap: Option<String>,
    /// Include a sweep of every member's cap (a range FROM..TO).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_member_cap: Option<String>,
    /// Include a comparison with this earlier snapshot (both planned by the rules --rules or the
    /// what-if file sets, else each by the rules its store names).
    #[arg(long, value_name = "SNAPSHOT")]
    before: Option<PathBuf>,
    /// Include what upgrading (or not) changes: the scenario planned by Spate 0.1's rules and by
    /// 0.3's, side by side (`diff-rules`).
    #[arg(long)]
    compare_rules: bool,
    /// Write the report here (its SVG images beside it, unless --inline); default: standard
    /// output, images inlined.
    #[arg(short, long, value_name = "FILE.md")]
    output: Option<PathBuf>,
    /// Inline the images as data: URIs (one self-contained file).
    #[arg(long)]
    inline: bool,
    /// Replace image files that exist already beside the report (review-*.svg).
    #[arg(long)]
    force: bool,
    /// A link to the view the report is of, written at its head (as the dashboard's report).
    #[arg(long, value_name = "URL")]
    link: Option<String>,
}

fn report_sweep(args: &ReportArgs) -> Result<Option<(Axis, std::ops::RangeInclusive<u32>)>, String> {
    Ok(
        match (
            &args.sweep_add_members,
            &args.sweep_default_cap,
            &args.sweep_member_cap,
        ) {
            (Some(r), _, _) => Some((Axis::AddMembers { cap: args.cap }, parse_range(r)?)),
            (_, Some(r), _) => Some((Axis::DefaultCap, parse_range(r)?)),
            (_, _, Some(r)) => Some((Axis::MemberCap, parse_range(r)?)),
            _ => None,
        },
    )
}

pub fn run_report(args: &ReportArgs) -> ExitCode {
    match report_command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("report", &e);
            ExitCode::FAILURE
        }
    }
}

fn report_command(args: &ReportArgs) -> Result<(), String> {
    use spate_planner_core::{review, ReviewInputs};
    let fleet = crate::support::load(&args.snapshot)?;
    let analysis = args.leader.analyse(&fleet)?;
    let scenario = analysis.planned_scenario();
    let steps = match report_sweep(args)? {
        Some((axis, range)) => Some((
            axis,
            sweep(&fleet, &scenario, axis, range, None).map_err(|e| format!("{e} [{}]", e.code()))?,
        )),
        None => None,
    };
    let d = match &args.before {
        Some(p) => Some(
            diff(&crate::support::load(p)?, &fleet, scenario.rules)
                .map_err(|e| format!("{e} [{}]", e.code))?,
        ),
        None => None,
    };
    let rd = match args.compare_rules {
        true => Some(diff_rules(&fleet, &scenario).map_err(|e| format!("{e} [{}]", e.code))?),
        false => None,
    };
    let r = review(&ReviewInputs {
        fleet: &fleet,
        analysis: &analysis,
        sweep: steps.as_ref().map(|(a, s)| (*a, s.as_slice())),
        diff: d.as_ref(),
        rules_diff: rd.as_ref(),
        version: env!("CARGO_PKG_VERSION"),
        link: args.link.as_deref(),
    });
    let Some(out) = &args.output else {
        return crate::stdout::all(r.inlined().as_bytes()).map_err(|e| e.to_string());
    };
    write_report(&r, out, args.inline, args.force)
}

/// The report's files: the Markdown at `out` and, unless `inline`, each image beside it. None
/// is written unless all are; an existing image is refused unless `force`.
fn write_report(r: &Review, out: &std::path::Path, inline: bool, force: bool) -> Result<(), String> {
    let mut files = Outputs::default();
    let text = if inline { r.inlined() } else { r.markdown.clone() };
    if !inline {
        let existing: Vec<String> = r
            .images
            .iter()
            .map(|img| dir_of(out).join(&img.name))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .map(|p| p.display().to_string())
            .collect();
        if !existing.is_empty() && !force {
            return Err(format!(
                "{} exist(s) already: the report's images would replace them (give --force to replace them, or --inline for one file); nothing was written",
                existing.join(", ")
            ));
        }
        for img in &r.images {
            let p = dir_of(out).join(&img.name);
            files
                .stage(&p, img.svg.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}; nothing was written", p.display()))?;
        }
    }
    files
        .stage(out, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}; nothing was written", out.display()))?;
    files
        .commit()
        .map_err(|e| format!("cannot write {e}; the report was not written"))
}
