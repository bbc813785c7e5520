//! `spate-planner plan` and `spate-planner demo`.

use spate_planner_core::demo::{demo_snapshot, DemoParams};
use spate_planner_core::fleet::{Fleet, SPATE_DEFAULT_CAP};
use spate_planner_core::report::{human_bytes, plan_document, published_changes, report, Reason, Report};
use spate_planner_core::scenario::Scenario;
use spate_planner_core::LeaderInputs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct PlanArgs {
    /// A snapshot file (docs/snapshot-format.md).
    snapshot: PathBuf,
    /// The leader's default cap: its own max_in_flight, used for members without one.
    #[arg(long, default_value_t = SPATE_DEFAULT_CAP)]
    default_cap: u32,
    /// Fleet changes to apply before planning (docs/scenario-format.md).
    #[arg(long, value_name = "FILE")]
    what_if: Option<PathBuf>,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    json: bool,
    /// Print how long each phase took on standard error.
    #[arg(long)]
    timings: bool,
    /// How many moves and queued splits the human report lists.
    #[arg(long, default_value_t = 40)]
    limit: usize,
}

#[derive(clap::Args)]
pub struct DemoArgs {
    #[arg(long, default_value_t = 2000)]
    splits: usize,
    #[arg(long, default_value_t = 24)]
    members: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "demo")]
    job: String,
    /// Output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Reads and loads a snapshot file, with the error a person needs.
pub fn load(path: &Path) -> Result<Fleet, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        format!(
            "{}: not a snapshot: invalid UTF-8 at byte {}",
            path.display(),
            e.valid_up_to()
        )
    })?;
    Fleet::load_text(text).map_err(|e| format!("{}: {e} [{}]", path.display(), e.code))
}

/// The inputs the leader would plan with: the snapshot, the default cap and the scenario.
pub fn inputs(
    fleet: &Fleet,
    default_cap: u32,
    what_if: Option<&Path>,
) -> Result<(LeaderInputs, Scenario), String> {
    let scenario = match what_if {
        None => Scenario::default(),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            Scenario::parse(&text).map_err(|e| format!("{}: {e} [{}]", p.display(), e.code))?
        }
    };
    let inputs = scenario
        .apply(fleet, default_cap)
        .map_err(|e| format!("{e} [{}]", e.code))?;
    Ok((inputs, scenario))
}

pub fn plan(args: &PlanArgs) -> ExitCode {
    let t0 = std::time::Instant::now();
    let mut marks: Vec<(&str, f64)> = Vec::new();
    let mut mark = |what| marks.push((what, t0.elapsed().as_secs_f64() * 1e3));
    let result = (|| -> Result<(), String> {
        let fleet = load(&args.snapshot)?;
        mark("read and load");
        let (inputs, scenario) = inputs(&fleet, args.default_cap, args.what_if.as_deref())?;
        mark("inputs");
        let plan = inputs.plan();
        mark("plan");
        let rep = report(&inputs, &plan);
        mark("report");
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        if args.json {
            let doc = plan_document(&fleet, &inputs, &scenario, &plan, &rep);
            writeln!(out, "{doc}").map_err(|e| e.to_string())?;
        } else {
            human(&mut out, &fleet, &inputs, &scenario, &plan, &rep, args.limit)
                .map_err(|e| e.to_string())?;
        }
        out.flush().map_err(|e| e.to_string())?;
        mark("output");
        Ok(())
    })();
    if args.timings {
        let mut last = 0.0;
        for (what, at) in &marks {
            eprintln!("timing {what}: {:.1} ms", at - last);
            last = *at;
        }
        eprintln!("timing total: {last:.1} ms");
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner plan: {e}");
            ExitCode::FAILURE
        }
    }
}

fn reason_text(r: Reason) -> &'static str {
    match r {
        Reason::Unowned => "unowned: fill",
        Reason::OwnerGone => "owner gone",
        Reason::OverCap => "owner over cap",
        Reason::Improve => "improving move",
        Reason::Queued => "queued: no free lane",
    }
}

fn human(
    out: &mut impl Write,
    fleet: &Fleet,
    inputs: &LeaderInputs,
    scenario: &Scenario,
    plan: &spate_planner_core::Plan,
    rep: &Report,
    limit: usize,
) -> std::io::Result<()> {
    writeln!(
        out,
        "job {} ({}), snapshot taken at {} ms",
        fleet.job, fleet.source.kind, fleet.taken_at_ms
    )?;
    match &fleet.plan {
        Some(p) => writeln!(
            out,
            "seed {} from the plan's fingerprint {:?}",
            inputs.seed, p.fingerprint
        )?,
        None => writeln!(out, "seed {} ({:?})", inputs.seed, fleet.seed_source)?,
    }
    writeln!(
        out,
        "default cap {}; {} what-if change(s)",
        inputs.default_cap,
        scenario.changes.len()
    )?;
    if !fleet.warnings.is_empty() {
        writeln!(out, "\nwarnings ({}):", fleet.warnings.len())?;
        for w in fleet.warnings.iter().take(limit) {
            writeln!(
                out,
                "  [{}] bucket {}, key {:?}: {}",
                w.code, w.bucket, w.key, w.message
            )?;
        }
        if fleet.warnings.len() > limit {
            writeln!(
                out,
                "  ... and {} more (--json lists all)",
                fleet.warnings.len() - limit
            )?;
        }
    }
    writeln!(out, "\nmembers ({}):", rep.members.len())?;
    let width = rep
        .members
        .iter()
        .map(|m| m.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(
        out,
        "  {:<width$}  {:>10}    {:>10}  {:>11}  {:>6}  {:>6}",
        "member", "load now", "planned", "lanes", "gained", "lost"
    )?;
    for m in &rep.members {
        let lanes = format!("{}/{}{}", m.lanes, m.cap, if m.default_cap { "*" } else { "" });
        writeln!(
            out,
            "  {:<width$}  {:>10} -> {:>10}  {:>11}  {:>6}  {:>6}",
            m.name,
            human_bytes(m.load_now),
            human_bytes(m.load_planned),
            lanes,
            format!("+{}", m.gained),
            format!("-{}", m.lost)
        )?;
    }
    writeln!(out, "  (* the default cap)")?;
    let c = &rep.churn;
    writeln!(
        out,
        "\nmoves ({}, {} in all, {} from live members):",
        c.moves,
        human_bytes(c.weight_moved),
        c.from_live_members
    )?;
    for mv in rep.moves.iter().take(limit) {
        let gain = mv.gain.map(|g| format!(" (gain {g})")).unwrap_or_default();
        writeln!(
            out,
            "  {}  {}  {} -> {}  {}{}",
            mv.split,
            human_bytes(mv.weight),
            mv.from.as_deref().unwrap_or("(none)"),
            mv.to.as_deref().unwrap_or("(queue)"),
            reason_text(mv.reason),
            gain
        )?;
    }
    if rep.moves.len() > limit {
        writeln!(
            out,
            "  ... and {} more (--json lists all)",
            rep.moves.len() - limit
        )?;
    }
    writeln!(out, "\nqueue ({}):", rep.queue.len())?;
    for id in rep.queue.iter().take(limit) {
        writeln!(out, "  {id}")?;
    }
    if rep.queue.len() > limit {
        writeln!(out, "  ... and {} more", rep.queue.len() - limit)?;
    }
    let k = &rep.counts;
    writeln!(
        out,
        "\nsplits: {} in all; {} assigned, {} queued, {} reserved, {} completed, {} quarantined, {} waiting for a spec",
        k.splits, k.assigned, k.queued, k.reserved, k.completed, k.quarantined, k.waiting_for_spec
    )?;
    let b = &rep.balance;
    writeln!(
        out,
        "balance: total {}, max {}, mean {}, lower bound {}; max/lower bound {:.4}, max/mean {:.4}",
        human_bytes(b.total),
        human_bytes(b.max_load),
        human_bytes(b.mean_load as u64),
        human_bytes(b.lower_bound),
        b.max_over_bound,
        b.max_over_mean
    )?;
    if let Some(n) = published_changes(&fleet.published, &plan.assignment) {
        writeln!(out, "the leader's published assignment differs for {n} split(s)")?;
    }
    writeln!(
        out,
        "improving moves: {} (4096-move bound {}{})",
        rep.improving_moves,
        if rep.bound_hit { "hit" } else { "not hit" },
        if rep.improvable { "; more moves remain" } else { "" }
    )?;
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "snapshot".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub fn demo(args: &DemoArgs) -> ExitCode {
    if !spate_planner_core::snapshot::valid_job_name(&args.job) {
        eprintln!(
            "spate-planner demo: job name {:?} is not [A-Za-z0-9_-]{{1,64}}",
            args.job
        );
        return ExitCode::FAILURE;
    }
    let snap = demo_snapshot(&DemoParams {
        job: args.job.clone(),
        splits: args.splits,
        members: args.members,
        seed: args.seed,
        ..DemoParams::default()
    });
    let text = snap.to_json();
    let written = match &args.output {
        Some(p) => write_atomically(p, text.as_bytes()),
        None => std::io::stdout().lock().write_all(text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner demo: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
