//! `spate-planner simulate`: a deterministic simulation of a fleet's timing (docs/simulator.md).

use crate::support::{load, parse_size};
use spate_planner_core::{demo_snapshot, json::message as json_message, DemoParams, Fleet, Rules};
use spate_planner_sim::{
    apply_override, duration_text, figures_table, recovery_text, simulate, Chance, FigureRow, Figures,
    Options, Outcome, RecoveryText, Script, SeedsSummary, Start, StartFrom, Stuck, What, MAX_SCRIPT_BYTES,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A snapshot file (docs/snapshot-format.md); or use --demo.
    #[arg(required_unless_present = "demo", conflicts_with = "demo")]
    snapshot: Option<PathBuf>,
    /// Simulate the demo fleet of this size, SPLITSxMEMBERS (as `spate-planner demo` writes it).
    #[arg(long, value_name = "SPLITSxMEMBERS")]
    demo: Option<String>,
    /// The script (docs/script-format.md); without one: defaults, no events.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Set a script field: `seed`, `until_ms`, a config field (`rebalance_delay_ms=0`),
    /// `data_plane.FIELD`, or `members.NAME.FIELD`. Repeatable; applied after the file.
    #[arg(long = "config", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Also simulate configuration B: the same script with this field set (as --config, applied
    /// after it; repeatable), and print the figures of A and B with the difference B − A
    /// (`--json`: both documents and the table).
    #[arg(long = "compare", value_name = "KEY=VALUE")]
    compare: Vec<String>,
    /// Print one JSON document instead of the timeline and figures.
    #[arg(long)]
    json: bool,
    /// Also list every presence write (each heartbeat), lease renewal, reconcile listing and
    /// replan tick.
    #[arg(long)]
    verbose: bool,
    /// Run the naive engine (every event steps every worker); same result, slower.
    #[arg(long, hide = true)]
    naive: bool,
    /// The release whose timing and decisions the fleet follows: 0.1 (also 0.2) or 0.3. Wins
    /// over the script's `rules`; without either, the release the snapshot names.
    #[arg(long, value_name = "VERSION")]
    rules: Option<Rules>,
    /// The claim race's p (timing.md §6.7): the chance, per live peer and per claim that writes
    /// the last attempt but one, that the peer parks the split. 0 to 1; 0 turns the race off.
    /// Wins over the script's `config.claim_race` (`--config` and `--compare` are applied after
    /// it); without either, the release's measured rate (0.05 under 0.1, 0.13 under 0.3).
    #[arg(long, value_name = "P", value_parser = parse_chance)]
    claim_race: Option<Chance>,
    /// Run the script over N seeds (its seed and the N − 1 after it) and print, for each, its
    /// recovery and the splits the claim race parked, then how many seeds recovered and how
    /// many park splits. 1 to 10000.
    #[arg(long, value_name = "N", conflicts_with = "compare", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    seeds: Option<u64>,
}

/// `--claim-race`: a number from 0 to 1.
fn parse_chance(text: &str) -> Result<Chance, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(Chance::from_f64)
        .ok_or_else(|| format!("{text:?} is not a probability from 0 to 1 (0.05, say; 0 turns the race off)"))
}

/// The fleet to simulate: the snapshot (or demo) as it is, or settled on its plan (`start`) by
/// the script's rules (else the ones the snapshot names).
fn start_of(fleet: &Fleet, script: &Script) -> Result<Start, String> {
    Start::with_rules(fleet, script.start, script.rules_for(fleet)).map_err(|e| format!("{e} [{}]", e.code))
}

/// The snapshot file's fleet, or the demo's.
fn fleet_of(args: &Args) -> Result<Fleet, String> {
    Ok(match (&args.snapshot, &args.demo) {
        (Some(p), _) => load(p)?,
        (None, Some(size)) => {
            let (splits, members) = parse_size(size)
                .filter(|&(s, m)| s <= 1_000_000 && (1..=10_000).contains(&m))
                .ok_or_else(|| {
                    format!("--demo {size:?}: expected SPLITSxMEMBERS, e.g. 2000x24 (at most 1000000x10000)")
                })?;
            let snap = demo_snapshot(&DemoParams {
                splits,
                members,
                ..DemoParams::default()
            })
            .map_err(|e| format!("--demo: {e} [{}]", e.code))?;
            Fleet::from_snapshot(&snap).map_err(|e| format!("demo: {e}"))?
        }
        (None, None) => return Err("give a snapshot file or --demo SPLITSxMEMBERS".into()),
    })
}

/// The script of configuration A (`compare` empty) or B (A's with the `--compare` fields set).
fn script_of(args: &Args, compare: &[String]) -> Result<Script, String> {
    let mut doc: serde_json::Value = match &args.script {
        Some(p) => {
            let text = crate::support::read_text(p, "script", MAX_SCRIPT_BYTES)?;
            spate_planner_core::json::strict_value(&text)
                .map_err(|e| format!("{}: not JSON: {} [invalid_script]", p.display(), json_message(&e)))?
        }
        None => serde_json::json!({}),
    };
    // --claim-race sets the file's field, before --config and --compare (B may set it again).
    if let Some(p) = args.claim_race {
        apply_override(&mut doc, "claim_race", &p.as_f64().to_string())
            .map_err(|e| format!("--claim-race: {e} [{}]", e.code))?;
    }
    let flags = args.overrides.iter().map(|o| ("--config", o));
    for (flag, o) in flags.chain(compare.iter().map(|o| ("--compare", o))) {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| format!("{flag} {o:?}: expected KEY=VALUE"))?;
        apply_override(&mut doc, k, v).map_err(|e| format!("{flag} {o:?}: {e} [{}]", e.code))?;
    }
    let name = args
        .script
        .as_ref()
        .map_or("--config".into(), |p| p.display().to_string());
    let script = Script::from_value(doc).map_err(|e| format!("{name}: {e} [{}]", e.code))?;
    Ok(Script {
        rules: args.rules.or(script.rules),
        ..script
    })
}

/// Simulates configuration A (`compare` empty) or B on the fleet.
fn run_one(args: &Args, fleet: &Fleet, compare: &[String]) -> Result<(Script, Outcome), String> {
    let script = script_of(args, compare)?;
    let start = start_of(fleet, &script)?;
    let opts = Options {
        naive: args.naive,
        trace_renewals: args.verbose,
        ..Options::default()
    };
    let o = simulate(&start, &script, &opts).map_err(|e| format!("{e} [{}]", e.code))?;
    Ok((script, o))
}

/// Configurations A and B (`--compare`): both documents and the table of their figures with
/// the difference B − A.
fn compared(args: &Args, fleet: &Fleet, out: &mut impl Write) -> Result<(), String> {
    let (script, a) = run_one(args, fleet, &[])?;
    let (script_b, b) = run_one(args, fleet, &args.compare)?;
    let table = figures_table(&a.figures, Some(&b.figures), !script.events.is_empty());
    if args.json {
        let doc = serde_json::json!({
            "format": "spate-planner-simulation-comparison/1",
            "b_overrides": args.compare,
            "figures_table": table,
            "a": a.document_of(&script),
            "b": b.document_of(&script_b),
        });
        writeln!(out, "{doc}").map_err(|e| e.to_string())
    } else {
        let io = |e: std::io::Error| e.to_string();
        table_human(out, &table).map_err(io)?;
        for (which, s, o) in [("A", &script, &a), ("B", &script_b, &b)] {
            recovery_lines(out, &recovery_of(s, o), &format!("{which}: ")).map_err(io)?;
        }
        Ok(())
    }
}

/// What the recovery figure of `o` rests on, in the simulator's words.
fn recovery_of(script: &Script, o: &Outcome) -> RecoveryText {
    recovery_text(
        &o.figures,
        !script.events.is_empty(),
        script.start == StartFrom::Planned,
    )
}

/// The recovery sentences, one per line (a name from the store or the script escaped).
fn recovery_lines(out: &mut impl Write, text: &RecoveryText, prefix: &str) -> std::io::Result<()> {
    for l in text.lines() {
        writeln!(out, "{prefix}{}", crate::term::shown(l))?;
    }
    Ok(())
}

/// `--seeds N`: the script over seeds `seed..seed + N`, each run's recovery and race parks, then
/// the simulator's summary over them ([`SeedsSummary`]).
fn over_seeds(args: &Args, fleet: &Fleet, n: u64, out: &mut impl Write) -> Result<(), String> {
    let script = script_of(args, &[])?;
    let start = start_of(fleet, &script)?;
    let opts = Options {
        naive: args.naive,
        ..Options::default()
    };
    let mut runs = Vec::new();
    for seed in (0..n).map(|i| script.seed.wrapping_add(i)) {
        let one = Script {
            seed,
            ..script.clone()
        };
        let o = simulate(&start, &one, &opts).map_err(|e| format!("seed {seed}: {e} [{}]", e.code))?;
        runs.push((seed, o.figures));
    }
    let figures: Vec<Figures> = runs.iter().map(|(_, f)| f.clone()).collect();
    let summary = SeedsSummary::of(&figures);
    let io = |e: std::io::Error| e.to_string();
    if args.json {
        let rows: Vec<serde_json::Value> = runs
            .iter()
            .map(|(seed, f)| serde_json::json!({"seed": seed.to_string(), "figures": f}))
            .collect();
        let doc = serde_json::json!({
            "format": "spate-planner-simulation-seeds/1",
            "runs": rows,
            "summary": summary,
            "sentences": summary.sentences(),
        });
        return writeln!(out, "{doc}").map_err(io);
    }
    writeln!(out, "{:>20}  {:>16}  {:>8}", "seed", "recovery", "parked").map_err(io)?;
    for (seed, f) in &runs {
        let rec = f.recovery_ms.map_or("not recovered".into(), duration_text);
        writeln!(out, "{seed:>20}  {rec:>16}  {:>8}", f.splits_parked_by_race).map_err(io)?;
    }
    for line in summary.sentences() {
        writeln!(out, "{line}").map_err(io)?;
    }
    Ok(())
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let result = (|| -> Result<(), String> {
        let fleet = fleet_of(args)?;
        let mut out = crate::stdout::out();
        if let Some(n) = args.seeds {
            over_seeds(args, &fleet, n, &mut out)?;
        } else if !args.compare.is_empty() {
            compared(args, &fleet, &mut out)?;
        } else {
            let (script, o) = run_one(args, &fleet, &[])?;
            if args.json {
                writeln!(out, "{}", serde_json::json!(o.document_of(&script))).map_err(|e| e.to_string())?;
            } else {
                human(&mut out, &o, args.verbose).map_err(|e| e.to_string())?;
                writeln!(out).map_err(|e| e.to_string())?;
                recovery_lines(&mut out, &recovery_of(&script, &o), "").map_err(|e| e.to_string())?;
            }
        }
        out.flush().map_err(|e| e.to_string())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("simulate", &e);
            ExitCode::FAILURE
        }
    }
}

/// One timeline line, or `None` for the events only `--verbose` shows.
fn line(what: &What, verbose: bool) -> Option<String> {
    let traced = matches!(
        what,
        What::PresenceWritten { .. }
            | What::LeaseRenewed { .. }
            | What::Reconciled { .. }
            | What::ReplanTick { .. }
    );
    if !verbose && traced {
        return None;
    }
    Some(fleet_line(what).unwrap_or_else(|| split_line(what)))
}

/// Lines about members, leadership and publishing (`None` for a split's events).
fn fleet_line(what: &What) -> Option<String> {
    let s = match what {
        What::PresenceWritten { member, cap } => match cap {
            Some(c) => format!("{member} writes its presence (max_in_flight {c})"),
            None => format!("{member} writes its presence (no readable max_in_flight)"),
        },
        What::LeaseRenewed { member, split } => format!("{member} renews the lease of {split}"),
        What::Reconciled { member } => format!("{member} lists both buckets (reconcile)"),
        What::ReplanTick { member } => format!("{member}'s replan tick"),
        What::Ignored { index, reason } => format!("events[{index}] ignored: {reason}"),
        What::Crashed { member } => format!("{member} crashes"),
        What::Stopped { member } => format!("{member} stops gracefully"),
        What::Started { member, nonce, cap } => {
            format!("{member} starts (nonce {nonce}, max_in_flight {cap})")
        }
        What::CapSet { member, cap } => format!("{member} now has max_in_flight {cap}"),
        What::PresenceExpired { member } => format!("presence of {member} expires"),
        What::PresenceDeleted { member } => format!("{member} deletes its presence"),
        What::LeaderElected { member, generation } => {
            format!("{member} is elected leader (generation {generation})")
        }
        What::LeaderKeyExpired { owner } => format!("the leader key of {owner} expires"),
        What::LeaderResigned { member } => format!("{member} gives up leadership"),
        What::Published {
            leader,
            generation,
            records,
        } => {
            let recs: Vec<String> = records
                .iter()
                .map(|r| format!("{} ({})", r.member, r.splits.len()))
                .collect();
            format!("{leader} publishes generation {generation}: {}", recs.join(", "))
        }
        What::AssignDeleted { leader, member } => format!("{leader} deletes assign.{member}"),
        What::SplitsAdded { count, prefix } => format!("{count} splits {prefix}* land"),
        What::PlanWritten { member, generation } => {
            format!("{member} writes the plan (generation {generation})")
        }
        What::JobFinished => "every split is completed or quarantined: the job is finished".to_string(),
        _ => return None,
    };
    Some(s)
}

/// Lines about one split: claims, drains, releases, expiry, completion.
fn split_line(what: &What) -> String {
    use spate_planner_sim::ReleaseReason as R;
    match what {
        What::Claim {
            member,
            split,
            kind,
            attempt,
        } => {
            let kind = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string));
            format!(
                "{member} claims {split} ({}, attempts {attempt})",
                kind.unwrap_or_default()
            )
        }
        What::Quarantine {
            member,
            split,
            attempt,
        } => format!("{member} quarantines {split} (attempts {attempt})"),
        What::ParkedByRace {
            member,
            by,
            split,
            attempt,
        } => format!(
            "{by} parks {split} (attempts {attempt}): it saw {member}'s claim record before its lease (the claim race); {member} loses it and it never runs again"
        ),
        What::RevokeRequested { member, split } => format!("{member} revokes {split}: draining"),
        What::RevokeCancelled { member, split } => format!("{member} keeps {split}: revocation cancelled"),
        What::DeclineForgotten { member, split } => {
            format!("{member} keeps {split}: the decline of a cancelled revocation")
        }
        What::Released {
            member,
            split,
            reason,
            replayed_ms,
        } => match reason {
            R::Drained => format!("{member} releases {split} (drained)"),
            R::Forced => format!("{member} releases {split} (forced; {replayed_ms} ms replayed)"),
            R::Declined => format!("{member} releases {split} (declined; {replayed_ms} ms replayed)"),
            R::Departure => format!("{member} releases {split} (departure)"),
        },
        What::LeaseExpired { split, owner } => format!("the lease of {split} held by {owner} expires"),
        What::Lost { member, split } => format!("{member} loses {split}"),
        What::Completed { member, split } => format!("{member} completes {split}"),
        What::Failed {
            member,
            split,
            attempt,
            quarantined,
        } => {
            let q = if *quarantined { ", quarantined" } else { "" };
            format!("{member} fails {split} (attempts {attempt}{q})")
        }
        _ => String::new(), // every other event is a fleet line
    }
}

fn human(out: &mut impl Write, o: &Outcome, verbose: bool) -> std::io::Result<()> {
    writeln!(out, "rules: {}", o.rules.explain())?;
    writeln!(out, "timeline (ms):")?;
    for e in &o.timeline {
        // A line is this module's words and names from the store or the script: escaping the
        // whole line escapes the names (the words have no control character or backslash).
        if let Some(l) = line(&e.what, verbose) {
            writeln!(out, "{:>10}  {}", e.t_ms, crate::term::shown(&l))?;
        }
    }
    figures(out, &o.figures)
}

fn figures(out: &mut impl Write, f: &Figures) -> std::io::Result<()> {
    writeln!(out, "\nfigures:")?;
    let rec = f
        .recovery_ms
        .map_or("never (not before the end)".to_string(), |r| format!("{r} ms"));
    let rows = [
        ("time to full recovery", rec),
        ("splits the events took", f.splits_taken.to_string()),
        ("of them not running at the end", stuck_text(f)),
        (
            "before the first event",
            format!("{} idle, {} quarantined", f.idle_before, f.quarantined_before),
        ),
        ("others not running at the end", f.others_not_running.to_string()),
        (
            "idle split-seconds",
            format!("{:.1}", f.idle_split_ms as f64 / 1e3),
        ),
        (
            "idle split-seconds, weighted",
            format!("{:.1}", f.idle_weighted as f64 / 1e3),
        ),
        ("attempts burned", f.attempts_burned.to_string()),
        ("splits quarantined", f.splits_quarantined.to_string()),
        ("parked by the claim race", f.splits_parked_by_race.to_string()),
        ("moves", f.moves.to_string()),
        ("forced drains", f.forced_drains.to_string()),
        ("work replayed by forced drains", format!("{} ms", f.replayed_ms)),
        (
            "leadership gap",
            format!(
                "{} ms (longest {} ms)",
                f.leadership_gap_ms, f.longest_leadership_gap_ms
            ),
        ),
        (
            "elections / publishes / claims",
            format!("{} / {} / {}", f.elections, f.publishes, f.claims),
        ),
        ("simulated", format!("{} ms", f.end_ms)),
    ];
    for (k, v) in rows {
        writeln!(out, "  {k:<32} {v}")?;
    }
    Ok(())
}

/// The figures of A and B and B − A, one line each (the simulator's words).
fn table_human(out: &mut impl Write, rows: &[FigureRow]) -> std::io::Result<()> {
    writeln!(out, "{:<26} {:>16} {:>16} {:>16}", "figure", "A", "B", "B − A")?;
    for r in rows {
        let (b, diff) = (
            r.b_text.as_deref().unwrap_or(""),
            r.diff_text.as_deref().unwrap_or(""),
        );
        writeln!(out, "{:<26} {:>16} {:>16} {:>16}", r.label, r.a_text, b, diff)?;
    }
    Ok(())
}

/// The taken splits that do not run at the end, counted by reason: `3 (2 no_free_lane, 1 quarantined)`.
fn stuck_text(f: &Figures) -> String {
    let mut by: std::collections::BTreeMap<Stuck, usize> = std::collections::BTreeMap::new();
    for n in &f.not_recovered {
        *by.entry(n.reason).or_default() += 1;
    }
    let parts: Vec<String> = by
        .iter()
        .map(|(r, n)| {
            format!(
                "{n} {}",
                serde_json::to_value(r)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            )
        })
        .collect();
    match parts.len() {
        0 => "0".to_string(),
        _ => format!("{} ({})", f.not_recovered.len(), parts.join(", ")),
    }
}
