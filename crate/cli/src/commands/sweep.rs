//! `spate-planner sweep`: the plan's figures across a range of fleet sizes or caps (a design
//! review's question: how many members, which caps), optionally with a crash priced at each step.

use spate_planner_core::{
    human_bytes,
    review::sweep_csv,
    sweep,
    sweep::{sweep_document, Axis, Step, Targets},
    to_json, CrashModel, Rules, Scenario,
};
use spate_planner_sim::CrashScript;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("adds").args(["add_members", "members"]).multiple(true)))]
pub(crate) struct SweepArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    /// Add 0, 1, … members (added-01, added-02, …): a range FROM..TO (inclusive) or one value.
    #[arg(long, value_name = "RANGE", group = "axis")]
    add_members: Option<String>,
    /// The fleet's size over a range FROM..TO of member counts: below today's count members
    /// stop gracefully (in --remove's order), above it added-01, added-02, … join.
    #[arg(long, value_name = "RANGE", group = "axis")]
    members: Option<String>,
    /// Which members a shrinking fleet (--members) loses first: lightest-first (what each
    /// carries now; the default), heaviest-first, or last-named-first.
    #[arg(long, value_name = "ORDER", requires = "members")]
    remove: Option<String>,
    /// The cap of added members (default: the leader's default cap).
    #[arg(long, requires = "adds")]
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
    /// Target: the largest max/mean load ratio acceptable (with --max-queued): the verdict names
    /// the first (smallest) value that meets both, or says that none does.
    #[arg(long, value_name = "RATIO")]
    max_over_mean: Option<f64>,
    /// Target: the most queued splits acceptable.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_queued: u32,
    /// Also simulate, at each step, a crash of its heaviest member in the fleet settled on the
    /// step's plan (Spate's timing rules; docs/simulator.md): recovery time and idle work.
    #[arg(long)]
    crash_heaviest: bool,
    /// The timing configuration of --crash-heaviest: a script file (docs/script-format.md) whose
    /// config, data plane, seed and horizon are used (its events are not). Default: Spate's.
    #[arg(long, value_name = "FILE", requires = "crash_heaviest")]
    script: Option<PathBuf>,
    /// Decide by this release's rules: 0.1 (also 0.2) or 0.3. Default: the release the store
    /// names. Overrides the what-if file's rules.
    #[arg(long, value_name = "VERSION")]
    rules: Option<Rules>,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
    /// Print the steps as CSV instead.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
}

fn axis(args: &SweepArgs) -> Result<(Axis, std::ops::RangeInclusive<u32>), String> {
    crate::support::sweep_axis(&crate::support::SweepFlags {
        add_members: args.add_members.as_deref(),
        default_cap: args.default_cap.as_deref(),
        member_cap: args.member_cap.as_deref(),
        members: args.members.as_deref(),
        remove: args.remove.as_deref(),
        cap: args.cap,
    })?
    .ok_or_else(|| "give one of --add-members, --members, --default-cap or --member-cap".into())
}

pub(crate) fn run_sweep(args: &SweepArgs) -> ExitCode {
    match sweep_command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("sweep", &e);
            ExitCode::FAILURE
        }
    }
}

fn sweep_command(args: &SweepArgs) -> Result<(), String> {
    let (axis, range) = axis(args)?;
    let fleet = crate::support::load(&args.snapshot)?;
    let base = match &args.what_if {
        None => Scenario::default(),
        Some(p) => crate::support::scenario(p)?,
    };
    let mut base = base;
    if args.rules.is_some() {
        base.rules = args.rules;
    }
    let script = crate::support::crash_script(args.crash_heaviest, args.script.as_deref())?;
    let model = script.as_ref().map(CrashScript);
    let crash = model.as_ref().map(|m| m as &dyn CrashModel);
    let steps = sweep(&fleet, &base, axis, range, crash).map_err(|e| format!("{e} [{}]", e.code()))?;
    let targets = args.max_over_mean.map(|r| Targets {
        max_over_mean: r,
        max_queued: args.max_queued,
    });
    let doc =
        sweep_document(&fleet, &base, axis, &steps, targets).map_err(|e| format!("{e} [{}]", e.code))?;
    let mut out = crate::stdout::out();
    if args.csv {
        write!(out, "{}", sweep_csv(&steps)).map_err(|e| e.to_string())?;
    } else if args.json {
        let text = to_json(&doc).map_err(|e| format!("cannot write JSON: {e}"))?;
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
    } else {
        sweep_table(&mut out, &steps, args).map_err(|e| e.to_string())?;
        writeln!(out, "today's fleet: {}", doc.today.note).map_err(|e| e.to_string())?;
        if let Some(v) = &doc.verdict {
            writeln!(out, "{}", crate::term::shown(v)).map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())
}

/// The members a step removes, at most five named (a sweep of the fleet's size).
fn removed_note(removed: &[String]) -> String {
    match removed.len() {
        0 => String::new(),
        n => {
            let shown = removed
                .iter()
                .take(5)
                .map(|m| crate::term::shown(m))
                .collect::<Vec<_>>()
                .join(", ");
            let more = if n > 5 {
                format!(" and {} more", n - 5)
            } else {
                String::new()
            };
            format!("  (without {shown}{more})")
        }
    }
}

fn sweep_table(out: &mut impl Write, steps: &[Step], args: &SweepArgs) -> std::io::Result<()> {
    let crash_head = if args.crash_heaviest {
        format!("  {:<12} {:>9} {:>12}", "crashed", "recovery", "idle split-s")
    } else {
        String::new()
    };
    writeln!(
        out,
        "{:>6} {:>8} {:>11} {:>9} {:>10} {:>7} {:>6} {:>11} {:>7}{crash_head}",
        "value", "members", "max load", "max/mean", "max/bound", "queued", "moves", "moved", "at cap"
    )?;
    for s in steps {
        writeln!(
            out,
            "{:>6} {:>8} {:>11} {:>9} {:>10} {:>7} {:>6} {:>11} {:>7}{}{}{}{}",
            s.value,
            s.members,
            human_bytes(s.max_load),
            s.max_over_mean,
            s.max_over_bound,
            s.queued,
            s.moves,
            human_bytes(s.bytes_moved),
            s.at_cap,
            crash_cells(s),
            if s.bound_hit { "  (move bound hit)" } else { "" },
            if s.today { "  (today's fleet)" } else { "" },
            removed_note(&s.removed)
        )?;
    }
    if args.crash_heaviest {
        writeln!(
            out,
            "crashed: each step's heaviest member, crashed at t = 0 in the fleet settled on its plan; recovery: until every split it ran runs again (never: not within the simulation)"
        )?;
    }
    Ok(())
}

/// The crash columns of a step ("" without a crash).
fn crash_cells(s: &Step) -> String {
    match &s.crash {
        None => String::new(),
        Some(c) => format!(
            "  {:<12} {:>9} {:>12}",
            crate::term::shown(&c.member),
            c.recovery_s
                .as_deref()
                .map_or_else(|| "never".to_string(), |s| format!("{s} s")),
            c.idle_split_s
        ),
    }
}
