//! `spate-planner report`: the review document (docs/user-guide.md), its charts as SVG files
//! beside it or inlined. The files of one report are written all or nothing (`output.rs`), and
//! an image file that exists already is replaced only with `--force`: the person named the
//! report's file, not its images.

use crate::output::{dir_of, Outputs};
use spate_planner_core::{
    compose,
    review::{Review, SweepRequest},
    sweep::Targets,
    CrashModel, ReviewRequest,
};
use spate_planner_sim::CrashScript;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("adds").args(["sweep_add_members", "sweep_members"]).multiple(true)))]
pub(crate) struct ReportArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    #[command(flatten)]
    leader: crate::leader_flags::LeaderFlags,
    /// Include a sweep adding 0, 1, … members (a range FROM..TO).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_add_members: Option<String>,
    /// Include a sweep of the fleet's size (a range FROM..TO of member counts: below today's
    /// count members stop gracefully in --remove's order, above it members are added).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_members: Option<String>,
    /// Which members the --sweep-members fleet loses first: lightest-first (the default),
    /// heaviest-first or last-named-first.
    #[arg(long, value_name = "ORDER", requires = "sweep_members")]
    remove: Option<String>,
    /// The cap of the sweep's added members.
    #[arg(long, requires = "adds")]
    cap: Option<u32>,
    /// Include a sweep of the leader's default cap (a range FROM..TO).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_default_cap: Option<String>,
    /// Include a sweep of every member's cap (a range FROM..TO).
    #[arg(long, value_name = "RANGE", group = "sweep_axis")]
    sweep_member_cap: Option<String>,
    /// Also simulate, at each step of the sweep, a crash of its heaviest member in the fleet
    /// settled on the step's plan (as `sweep --crash-heaviest`, and the page's Sweep tab with
    /// its crash box ticked): the report's sweep gains the crashed member, the recovery time and
    /// the idle split-seconds, and a chart of the recovery.
    #[arg(long, requires = "sweep_axis")]
    crash_heaviest: bool,
    /// The timing configuration of --crash-heaviest: a script file (docs/script-format.md) whose
    /// config, data plane, seed and horizon are used (its events are not). Default: Spate's.
    #[arg(long, value_name = "FILE", requires = "crash_heaviest")]
    script: Option<PathBuf>,
    /// The sweep's target: the largest max/mean load ratio acceptable (with --max-queued); the
    /// report's sweep says which step first meets both, or that none does.
    #[arg(long, value_name = "RATIO", requires = "sweep_axis")]
    max_over_mean: Option<f64>,
    /// The sweep's target: the most queued splits acceptable.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_queued: u32,
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

pub(crate) fn run_report(args: &ReportArgs) -> ExitCode {
    match report_command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("report", &e);
            ExitCode::FAILURE
        }
    }
}

fn report_command(args: &ReportArgs) -> Result<(), String> {
    let fleet = crate::support::load(&args.snapshot)?;
    let analysis = args.leader.analyse(&fleet)?;
    let axis = crate::support::sweep_axis(&crate::support::SweepFlags {
        add_members: args.sweep_add_members.as_deref(),
        default_cap: args.sweep_default_cap.as_deref(),
        member_cap: args.sweep_member_cap.as_deref(),
        members: args.sweep_members.as_deref(),
        remove: args.remove.as_deref(),
        cap: args.cap,
    })?;
    let script = crate::support::crash_script(args.crash_heaviest, args.script.as_deref())?;
    let model = script.as_ref().map(CrashScript);
    let before = match &args.before {
        Some(p) => Some(crate::support::load(p)?),
        None => None,
    };
    let r = compose(&ReviewRequest {
        fleet: &fleet,
        analysis: &analysis,
        sweep: axis.map(|(axis, range)| SweepRequest {
            axis,
            range,
            targets: args.max_over_mean.map(|r| Targets {
                max_over_mean: r,
                max_queued: args.max_queued,
            }),
            crash: model.as_ref().map(|m| m as &dyn CrashModel),
        }),
        before: before.as_ref(),
        compare_rules: args.compare_rules,
        version: env!("CARGO_PKG_VERSION"),
        link: args.link.as_deref(),
    })
    .map_err(|e| format!("{e} [{}]", e.code()))?;
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
