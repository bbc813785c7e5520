//! The human reports of `plan` and `claims`: the answer first (findings), then the figures.
//! Every string from the store goes through [`shown`] (control characters escaped).

use crate::term::{shown, shown_or};
use spate_planner_core::{
    fleet::warning_groups,
    human_bytes,
    natural::natural_cmp,
    report::Report,
    review::{exposure, findings, Exposure, Level},
    risk::RiskySplit,
    utc::utc_text,
    worker::NextActions,
    Analysis, Fleet,
};
use std::collections::BTreeMap;
use std::io::{Result, Write};

/// The plan report.
pub(crate) fn plan(out: &mut impl Write, fleet: &Fleet, a: &Analysis, limit: usize) -> Result<()> {
    let risk = exposure(fleet, a, a.applied.max_attempts, true);
    // the answer first (what is wrong, what the plan does), then how it was planned, the
    // members and moves, and the snapshot's warnings last, one line per kind
    header(out, fleet, a, &risk)?;
    summary(out, &a.report)?;
    published(out, a)?;
    settings(out, fleet, a, &risk)?;
    members(out, &a.report)?;
    moves(out, &a.report, limit)?;
    risk_section(out, &risk, limit)?;
    warnings(out, fleet, limit)
}

/// How far the published assignment is from the plan (when the store holds one).
fn published(out: &mut impl Write, a: &Analysis) -> Result<()> {
    if let Some(p) = &a.published {
        writeln!(
            out,
            "published: {} assignment record(s); the {} differs for {} split(s){}{}",
            p.records,
            if a.no_publish.is_some() {
                "standing assignment"
            } else {
                "plan"
            },
            p.changes,
            if p.stale.is_empty() {
                String::new()
            } else {
                format!("; {} stale record(s)", p.stale.len())
            },
            if p.conflicts.is_empty() {
                String::new()
            } else {
                format!("; {} split(s) in two records", p.conflicts.len())
            },
        )?;
    }
    Ok(())
}

/// The job, what is wrong (the findings, the splits at risk) and the changes left out.
fn header(out: &mut impl Write, fleet: &Fleet, a: &Analysis, risk: &Exposure) -> Result<()> {
    writeln!(
        out,
        "job {} ({}), snapshot taken at {}",
        shown(&fleet.job),
        shown(&fleet.source.kind),
        utc_text(fleet.taken_at_ms)
    )?;
    for f in findings(fleet, a) {
        let tag = match f.level {
            Level::Fatal => "FATAL",
            Level::Warning => "warning",
            Level::Notice => "note",
        };
        writeln!(out, "{tag}: {}", shown(&f.message))?;
    }
    risk_lines(out, risk)?;
    for r in &a.refused {
        writeln!(
            out,
            "what-if change {} not applied (left out of the plan): {} at {} [{}]",
            r.index + 1,
            shown(&r.message),
            shown(&r.path),
            r.code
        )?;
    }
    Ok(())
}

/// How the plan was made: the seed, the default cap, the rules, the attempt limit, the what-ifs.
fn settings(out: &mut impl Write, fleet: &Fleet, a: &Analysis, risk: &Exposure) -> Result<()> {
    writeln!(out)?;
    match &fleet.plan {
        Some(p) => writeln!(
            out,
            "seed {} from the plan's fingerprint {:?}",
            a.applied.inputs.seed,
            shown(&p.fingerprint)
        )?,
        None => writeln!(out, "seed {} ({:?})", a.applied.inputs.seed, fleet.seed_source)?,
    }
    writeln!(out, "default cap {}", shown(&a.applied.default_cap.explain()))?;
    writeln!(out, "rules {}", shown(&a.applied.rules.explain()))?;
    attempts_line(out, risk)?;
    writeln!(
        out,
        "{} what-if change(s), {} left out",
        a.scenario.changes.len(),
        a.refused.len()
    )
}

fn warnings(out: &mut impl Write, fleet: &Fleet, limit: usize) -> Result<()> {
    if fleet.warnings.is_empty() {
        return Ok(());
    }
    let groups = warning_groups(&fleet.warnings);
    writeln!(
        out,
        "\nwarnings: {} in the snapshot, of {} kind(s) (the leader survives these):",
        fleet.warnings.len(),
        groups.len()
    )?;
    // a line per kind, then its first keys (each kind gets its share of the limit)
    let keys = (limit / groups.len().max(1)).clamp(1, 5);
    for (code, items) in groups {
        let first = if items.len() > 1 { " (first of them)" } else { "" };
        writeln!(
            out,
            "  [{code}] x {}: {}{first}",
            items.len(),
            shown(&items[0].message)
        )?;
        for w in items.iter().take(keys) {
            writeln!(out, "    bucket {}, key {:?}", shown(&w.bucket), shown(&w.key))?;
        }
        if items.len() > keys {
            writeln!(out, "    ... and {} more (--json lists all)", items.len() - keys)?;
        }
    }
    Ok(())
}

fn members(out: &mut impl Write, r: &Report) -> Result<()> {
    writeln!(out, "\nmembers ({}):", r.members.len())?;
    let width = r
        .members
        .iter()
        .map(|m| shown(&m.name).chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(
        out,
        "  {:<width$}  {:>10}    {:>10}  {:>11}  {:>6}  {:>6}",
        "member", "load now", "planned", "lanes", "gained", "lost"
    )?;
    for m in by_name(&r.members, |m| &m.name) {
        let lanes = format!("{}/{}{}", m.lanes, m.cap, if m.default_cap { "*" } else { "" });
        writeln!(
            out,
            "  {:<width$}  {:>10} -> {:>10}  {:>11}  {:>6}  {:>6}",
            shown(&m.name),
            human_bytes(m.load_now),
            human_bytes(m.load_planned),
            lanes,
            format!("+{}", m.gained),
            format!("-{}", m.lost)
        )?;
    }
    writeln!(out, "  (* the default cap)")
}

fn moves(out: &mut impl Write, r: &Report, limit: usize) -> Result<()> {
    let c = &r.churn;
    writeln!(
        out,
        "\nmoves ({}, {} in all, {} from live members):",
        c.moves,
        human_bytes(c.weight_moved),
        c.from_live_members
    )?;
    for mv in r.moves.iter().take(limit) {
        let relief = mv
            .relief
            .map(|r| format!(" (relief {})", human_bytes(r)))
            .unwrap_or_default();
        writeln!(
            out,
            "  {}  {}  {} -> {}  {}{}",
            shown(&mv.split),
            human_bytes(mv.weight),
            shown_or(mv.from.as_deref(), "(none)"),
            shown_or(mv.to.as_deref(), "(queue)"),
            mv.reason.words(),
            relief
        )?;
    }
    if r.moves.len() > limit {
        writeln!(out, "  ... and {} more (--json lists all)", r.moves.len() - limit)?;
    }
    writeln!(out, "\nqueue ({}):", r.queue.len())?;
    for id in r.queue.iter().take(limit) {
        writeln!(out, "  {}", shown(id))?;
    }
    if r.queue.len() > limit {
        writeln!(out, "  ... and {} more", r.queue.len() - limit)?;
    }
    Ok(())
}

fn summary(out: &mut impl Write, r: &Report) -> Result<()> {
    let k = &r.counts;
    writeln!(
        out,
        "\nsplits: {} in all; {} assigned, {} queued, {} reserved, {} completed, {} quarantined, {} waiting for a spec",
        k.splits, k.assigned, k.queued, k.reserved, k.completed, k.quarantined, k.waiting_for_spec
    )?;
    let b = &r.balance;
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
    let s = spate_planner_core::report::summary(r);
    writeln!(
        out,
        "over the mean (by more than {}%): {} now (against the mean now, {}) -> {} planned (against the planned mean, {}); at the lane cap: {} -> {}",
        s.over_mean_percent,
        s.now.over_mean,
        human_bytes(s.now.mean_load as u64),
        s.planned.over_mean,
        human_bytes(s.planned.mean_load as u64),
        s.now.at_cap,
        s.planned.at_cap
    )?;
    for (what, h) in [("now", &s.heaviest_now), ("planned", &s.heaviest_planned)] {
        if let Some(h) = h {
            writeln!(
                out,
                "heaviest {what}: {} ({} -> {}; {}x the mean now -> {}x the planned mean)",
                shown(&h.name),
                human_bytes(h.load_now),
                human_bytes(h.load_planned),
                h.now_over_mean,
                h.planned_over_mean
            )?;
        }
    }
    writeln!(
        out,
        "improving moves: {} (4096-move bound {}{})",
        r.improving_moves,
        if r.bound_hit { "hit" } else { "not hit" },
        if r.improvable { "; more moves remain" } else { "" }
    )
}

/// The claims report: per worker, its actions in order and what it drains.
pub(crate) fn claims(
    out: &mut impl Write,
    next: &BTreeMap<String, NextActions>,
    caps: impl Fn(&str) -> u32,
    has_assignment: impl Fn(&str) -> bool,
) -> Result<()> {
    let mut workers: Vec<_> = next.iter().collect();
    workers.sort_by(|a, b| natural_cmp(a.0, b.0));
    for (x, n) in workers {
        writeln!(out, "{}: holds {} of {} lane(s)", shown(x), n.held.len(), caps(x))?;
        if !n.acts() {
            writeln!(out, "  nothing to do")?;
        }
        for c in &n.actions {
            writeln!(
                out,
                "  {:<10} {:<8} {}",
                format!("{:?}", c.action).to_lowercase(),
                format!("{:?}", c.kind).to_lowercase(),
                shown(&c.id)
            )?;
        }
        for id in &n.drains {
            writeln!(out, "  drain      {}", shown(id))?;
        }
        for id in &n.fenced {
            writeln!(
                out,
                "  fenced     {} (its lease is behind the progress record: dropped, not held, no lane)",
                shown(id)
            )?;
        }
        if let Some(why) = n.skipped_why(caps(x), has_assignment(x)) {
            writeln!(out, "  ({} candidate(s) skipped: {why})", n.skipped)?;
        }
    }
    Ok(())
}

/// The comparison report.
pub(crate) fn diff(out: &mut impl Write, d: &spate_planner_core::diff::Diff, limit: usize) -> Result<()> {
    let (b, a) = (&d.before, &d.after);
    writeln!(
        out,
        "before: job {} at {}, {} members, {} splits",
        shown(&b.job),
        utc_text(b.taken_at_ms),
        b.members,
        b.splits
    )?;
    writeln!(
        out,
        "after:  job {} at {}, {} members, {} splits",
        shown(&a.job),
        utc_text(a.taken_at_ms),
        a.members,
        a.splits
    )?;
    let dc = &d.decision;
    writeln!(out, "{}", dc.verdict)?;
    for w in &d.warnings {
        writeln!(out, "warning: {}", shown(w))?;
    }
    writeln!(out, "joined: {}\nleft:   {}", names(&d.joined), names(&d.left))?;
    writeln!(out, "\nmembers:")?;
    let opt = |v: Option<u64>| v.map(human_bytes).unwrap_or_else(|| "-".into());
    let cap = |v: Option<u32>| v.map(|c| c.to_string()).unwrap_or_else(|| "-".into());
    for m in by_name(&d.members, |m| &m.name) {
        writeln!(
            out,
            "  {:<24} {:>10} -> {:>10}   cap {:>4} -> {:>4}",
            shown(&m.name),
            opt(m.load_before),
            opt(m.load_after),
            cap(m.cap_before),
            cap(m.cap_after)
        )?;
    }
    writeln!(out, "\nsplits that changed owner ({}):", d.owner_changes.len())?;
    for c in d.owner_changes.iter().take(limit) {
        let o = |v: &Option<String>| shown_or(v.as_deref(), "(none)").into_owned();
        writeln!(out, "  {}  {} -> {}", shown(&c.split), o(&c.before), o(&c.after))?;
    }
    let (fb, fa) = (&d.figures_before, &d.figures_after);
    writeln!(out, "\n{:<22} {:>12} {:>12}", "figure", "before", "after")?;
    for (name, x, y) in [
        (
            "max load now",
            human_bytes(fb.max_load_now),
            human_bytes(fa.max_load_now),
        ),
        (
            "max load planned",
            human_bytes(fb.max_load_planned),
            human_bytes(fa.max_load_planned),
        ),
        (
            "max/mean planned",
            fb.max_over_mean_planned.clone(),
            fa.max_over_mean_planned.clone(),
        ),
        ("queued", fb.queued.to_string(), fa.queued.to_string()),
        ("moves pending", fb.moves.to_string(), fa.moves.to_string()),
        ("completed", fb.completed.to_string(), fa.completed.to_string()),
        (
            "quarantined",
            fb.quarantined.to_string(),
            fa.quarantined.to_string(),
        ),
    ] {
        writeln!(out, "{name:<22} {x:>12} {y:>12}")?;
    }
    Ok(())
}

/// Names as a list, each quoted and [`shown`]: `["a", "b"]`.
/// `items` in the natural order of their names (worker-2 before worker-10), as a person reads
/// a list of members; the JSON documents keep the core's order.
fn by_name<T>(items: &[T], name: impl Fn(&T) -> &String) -> Vec<&T> {
    let mut v: Vec<&T> = items.iter().collect();
    v.sort_by(|a, b| natural_cmp(name(a), name(b)));
    v
}

fn names(v: &[String]) -> String {
    let quoted: Vec<String> = by_name(v, |s| s)
        .iter()
        .map(|s| format!("\"{}\"", shown(s)))
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// The splits at risk of quarantine, in a sentence each: those at the last attempt (always, so
/// the value judged by is said), past it, and parked by the claim race (when any).
pub(crate) fn risk_lines(out: &mut impl Write, x: &Exposure) -> Result<()> {
    writeln!(out, "{}", shown(&x.headline))?;
    for note in [&x.past_cap_note, &x.race_parked_note].into_iter().flatten() {
        writeln!(out, "{}", shown(note))?;
    }
    Ok(())
}

/// `max_attempts` and where it comes from.
pub(crate) fn attempts_line(out: &mut impl Write, x: &Exposure) -> Result<()> {
    writeln!(out, "max_attempts {}", x.max_attempts_note)
}

/// The lists of the splits at risk, past the cap and parked by the race (at most `limit` of
/// each); nothing when all three are empty.
pub(crate) fn risk_section(out: &mut impl Write, x: &Exposure, limit: usize) -> Result<()> {
    let lists = [
        ("at risk, at attempts max_attempts − 1", &x.splits),
        ("past the cap, at attempts max_attempts or more", &x.past_cap),
    ];
    for (title, list) in lists {
        let list: &[RiskySplit] = list.as_deref().unwrap_or_default();
        if list.is_empty() {
            continue;
        }
        writeln!(out, "\n{title} ({}):", list.len())?;
        for r in list.iter().take(limit) {
            writeln!(
                out,
                "  {}  attempts {}  {}  owner {}  lease {}  held by {}",
                shown(&r.id),
                r.attempts,
                r.weight.map_or("weight unknown".into(), human_bytes),
                shown_or(r.owner.as_deref(), "none"),
                shown_or(r.lease_owner.as_deref(), "none"),
                shown_or(r.held_by.as_deref(), "no live member"),
            )?;
        }
        more(out, list.len(), limit)?;
    }
    let parked = x.race_parked.as_deref().unwrap_or_default();
    if !parked.is_empty() {
        writeln!(out, "\nparked by the claim race ({}):", parked.len())?;
        for p in parked.iter().take(limit) {
            writeln!(
                out,
                "  {}  parked by the claim race right after {}'s claim (lease epoch {}, record epoch {}, attempts {})",
                shown(&p.id),
                shown(&p.member),
                p.lease_epoch,
                p.epoch,
                p.attempts
            )?;
        }
        more(out, parked.len(), limit)?;
    }
    Ok(())
}

fn more(out: &mut impl Write, all: usize, limit: usize) -> Result<()> {
    if all > limit {
        writeln!(out, "  ... and {} more (--json lists all)", all - limit)?;
    }
    Ok(())
}
