//! The review report: one Markdown document a design review can be built from without
//! screenshots — the snapshot's identity, the planner's version, the scenario, the findings, the
//! figures, the member loads, and (when given) a sweep's curves, a comparison and what upgrading
//! (or not) changes (the store planned by Spate 0.1's rules and by 0.3's) — with its charts as
//! SVG images, beside it or inlined.
//!
//! Every string from the store (job, member, split and instance names, the source, findings'
//! messages, which quote names) reaches the Markdown as a code span, a fenced block or with every
//! punctuation character escaped (`markdown_text.rs`): no tag, link, image or emphasis can come
//! from the data wherever the document is rendered.

use super::findings::findings;
use super::fleet_chart::{fleet_chart, FleetChart, Palette, SLIDE_ROWS};
use super::markdown_text::{code_cell, code_span, fenced, text};
use super::plan_sections;
use crate::chart::{line_chart, paired_bars, Scale, Series};
use crate::diff::Diff;
use crate::fleet::Fleet;
use crate::natural::natural_cmp;
use crate::pipeline::Analysis;
use crate::report::human_bytes;
use crate::rules_diff::{RulesDiff, RulesSide};
use crate::sweep::{Axis, Step, Targets, Today, Verdict};
use crate::utc::utc_text;
use base64::Engine;
use std::fmt::Write;

/// What the report covers ([`super::compose`] makes it from a request).
pub(super) struct ReviewInputs<'a> {
    pub fleet: &'a Fleet,
    pub analysis: &'a Analysis,
    pub sweep: Option<&'a SweepSection>,
    pub diff: Option<&'a Diff>,
    /// The scenario planned by both releases' rules (`spate-planner diff-rules`), if wanted.
    pub rules_diff: Option<&'a RulesDiff>,
    /// The planner's version, for the record.
    pub version: &'a str,
    /// A link that reopens the view the document was made from (the dashboard's), if any.
    pub link: Option<&'a str>,
}

/// A sweep as the report shows it: its steps (with their crash figures, if priced), which value
/// is today's fleet, and the verdict on the targets, if given.
pub(super) struct SweepSection {
    pub axis: Axis,
    pub steps: Vec<Step>,
    pub today: Today,
    pub targets: Option<Targets>,
    pub verdict: Option<Verdict>,
}

/// One chart of the report.
pub struct Image {
    /// File name, as the Markdown links it.
    pub name: String,
    pub svg: String,
}

/// The report: Markdown linking its images by file name.
pub struct Review {
    pub markdown: String,
    pub images: Vec<Image>,
}

impl Review {
    /// The Markdown with every image inlined as a `data:` URI (one self-contained file). Only
    /// the report's own image lines are rewritten (each image is a line of its own).
    pub fn inlined(&self) -> String {
        let mut md = String::with_capacity(self.markdown.len());
        for line in self.markdown.split_inclusive('\n') {
            let body = line.trim_end_matches('\n');
            let img = self
                .images
                .iter()
                .find(|i| body.starts_with("![") && body.ends_with(&format!("]({})", i.name)));
            match img {
                Some(i) => {
                    let b64 = base64::engine::general_purpose::STANDARD.encode(i.svg.as_bytes());
                    let alt = &body[..body.len() - i.name.len() - 1];
                    md.push_str(&format!("{alt}data:image/svg+xml;base64,{b64})"));
                    md.push_str(&line[body.len()..]);
                }
                None => md.push_str(line),
            }
        }
        md
    }
}

/// The link to the view a report is of: an `http(s)` address as an autolink (no space, `<` or
/// `>` can end it early: they are left out, as a browser's address has them escaped), any other
/// text as a code span, so no `javascript:` or other scheme becomes a link.
fn view_link(link: &str) -> String {
    let lower = link.get(..8).unwrap_or(link).to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        format!("<{}>", link.replace(['<', '>', ' ', '\n', '\r'], ""))
    } else {
        code_span(link)
    }
}

/// The whole report.
pub(super) fn review(r: &ReviewInputs) -> Review {
    let mut md = String::new();
    let mut images = Vec::new();
    header(&mut md, r);
    summary(&mut md, r.analysis);
    plan_sections::summary_lines(&mut md, r.analysis);
    loads(&mut md, &mut images, r);
    plan_sections::members(&mut md, r.analysis);
    plan_sections::moves(&mut md, r.analysis);
    if let Some(s) = r.sweep {
        sweep(&mut md, &mut images, s);
    }
    if let Some(d) = r.diff {
        comparison(&mut md, &mut images, d);
    }
    if let Some(d) = r.rules_diff {
        upgrade(&mut md, d);
    }
    Review { markdown: md, images }
}

fn header(md: &mut String, r: &ReviewInputs) {
    let f = r.fleet;
    let _ = writeln!(md, "# Plan review: job {}\n", code_span(&f.job));
    let _ = writeln!(md, "| | |\n| --- | --- |");
    let _ = writeln!(md, "| job | {} |", code_cell(&f.job));
    let _ = writeln!(md, "| snapshot taken at | {} |", utc_text(f.taken_at_ms));
    let _ = writeln!(
        md,
        "| store revisions | state {}, lease {} |",
        f.state_revision, f.lease_revision
    );
    let _ = writeln!(md, "| source | {} |", code_cell(&f.source.kind));
    let _ = writeln!(md, "| planner | spate-planner {} |", r.version);
    let _ = writeln!(
        md,
        "| default cap | {} |",
        text(&r.analysis.applied.default_cap.explain())
    );
    let _ = writeln!(md, "| rules | {} |\n", text(&r.analysis.applied.rules.explain()));
    if let Some(link) = r.link {
        let _ = writeln!(md, "Link to this view: {}\n", view_link(link));
    }
    let scenario = r.analysis.scenario.to_json().unwrap_or_default();
    let _ = writeln!(
        md,
        "Scenario (`spate-planner-scenario/1`):\n\n{}\n",
        fenced(&scenario, "json")
    );
    plan_sections::refused(md, r.analysis);
    let list = findings(f, r.analysis);
    if !list.is_empty() {
        let _ = writeln!(md, "## Findings\n");
        for x in list {
            let _ = writeln!(md, "- **{:?}** ({}): {}", x.level, x.code, text(&x.message));
        }
        md.push('\n');
    }
    snapshot_warnings(md, f);
}

/// Keys listed per warning code (`spate-planner snapshot`'s file and `plan --json` have them all).
const WARNING_KEYS: usize = 20;

/// The snapshot's warnings, as the page's notices group them: one line per code with its count
/// (the largest group first) and its first message, then the first keys.
fn snapshot_warnings(md: &mut String, f: &Fleet) {
    if f.warnings.is_empty() {
        return;
    }
    let groups = crate::fleet::warning_groups(&f.warnings);
    let _ = writeln!(
        md,
        "## Snapshot warnings\n\n{} warning(s) in the snapshot, of {} kind(s) (the leader survives these):\n",
        f.warnings.len(),
        groups.len()
    );
    for (code, items) in groups {
        let first = if items.len() > 1 { " (first of them)" } else { "" };
        let _ = writeln!(
            md,
            "- `{code}` × {}: {}{first}",
            items.len(),
            text(&items[0].message)
        );
        for w in items.iter().take(WARNING_KEYS) {
            let _ = writeln!(
                md,
                "  - bucket {}, key {}: {}",
                code_span(&w.bucket),
                code_span(&w.key),
                text(&w.message)
            );
        }
        if items.len() > WARNING_KEYS {
            let _ = writeln!(md, "  - … and {} more", items.len() - WARNING_KEYS);
        }
    }
    md.push('\n');
}

fn summary(md: &mut String, a: &Analysis) {
    let r = &a.report;
    let b = &r.balance;
    let _ = writeln!(md, "## The plan\n\n| figure | value |\n| --- | --- |");
    let rows = [
        ("members", r.members.len().to_string()),
        (
            "splits assigned / queued / withheld",
            format!(
                "{} / {} / {}",
                r.counts.assigned, r.counts.queued, r.counts.reserved
            ),
        ),
        (
            "moves",
            format!("{} ({})", r.churn.moves, human_bytes(r.churn.weight_moved)),
        ),
        ("max load (planned)", human_bytes(b.max_load)),
        ("max / mean", format!("{:.4}", b.max_over_mean)),
        ("max / lower bound", format!("{:.4}", b.max_over_bound)),
        (
            "leader publishes",
            if a.no_publish.is_none() {
                "yes".into()
            } else {
                "no: the current assignments stand".into()
            },
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(md, "| {k} | {v} |");
    }
    if let Some(p) = &a.published {
        let _ = writeln!(
            md,
            "| differs from the published assignment | {} split(s) |",
            p.changes
        );
    }
    md.push('\n');
}

/// The fleet chart (the dashboard's), in the light theme, sized for a slide: the heaviest
/// members in the report's order, the rest summed up (the table below lists every member).
fn loads(md: &mut String, images: &mut Vec<Image>, r: &ReviewInputs) {
    let lines = [format!(
        "job {}; snapshot taken at {}",
        r.fleet.job,
        utc_text(r.fleet.taken_at_ms)
    )];
    let chart = FleetChart {
        title: "Load per member, now and planned",
        lines: &lines,
        order: None,
        palette: &Palette::default(),
        rows: Some(SLIDE_ROWS),
    };
    images.push(Image {
        name: "review-loads.svg".into(),
        svg: fleet_chart(r.analysis, &chart),
    });
    let _ = writeln!(md, "![Load per member, now and planned](review-loads.svg)\n");
}

/// The sweep's section: its verdict, where today's fleet is, the table, what its columns mean,
/// and its charts.
fn sweep(md: &mut String, images: &mut Vec<Image>, x: &SweepSection) {
    let (what, steps) = (x.axis.label(), x.steps.as_slice());
    let crashed = steps.iter().any(|s| s.crash.is_some());
    let _ = writeln!(md, "## Sweep: {what}\n");
    if let Some(v) = &x.verdict {
        let _ = writeln!(md, "**Verdict:** {}\n", text(&v.text));
    }
    let now = match x.today.value {
        Some(v) if steps.iter().any(|s| s.value == v) => {
            format!("Today's fleet: {} (the row marked now).", x.today.note)
        }
        Some(_) => format!("Today's fleet: {}; outside this range.", x.today.note),
        None => format!("Today's fleet: {}.", x.today.note),
    };
    let _ = writeln!(md, "{}\n", text(&now));
    sweep_table(md, x, crashed);
    if crashed {
        let _ = writeln!(
            md,
            "\nCrashed: each step's heaviest member, crashed at t = 0 in the fleet settled on its plan. Recovery: until every split it ran runs again (never: not within the simulation). Idle split-seconds: the runnable splits' time unread, summed."
        );
    }
    if let Some(t) = x.targets {
        let _ = writeln!(
            md,
            "\nTargets: max/mean at most {}, at most {} queued.",
            t.max_over_mean, t.max_queued
        );
    }
    sweep_charts(md, images, what, steps, crashed);
}

/// The sweep's table: a row a step, with its crash columns and whether it meets the targets.
fn sweep_table(md: &mut String, x: &SweepSection, crashed: bool) {
    let what = x.axis.label();
    let (crash_head, crash_rule) = match crashed {
        true => (" crashed | recovery | idle split-seconds |", " --- | --- | --- |"),
        false => ("", ""),
    };
    let (target_head, target_rule) = match x.verdict {
        Some(_) => (" targets |", " --- |"),
        None => ("", ""),
    };
    let _ = writeln!(
        md,
        "| {what} | members | max load | max/mean | max/bound | queued | moves | moved | at cap |{crash_head}{target_head}"
    );
    let _ = writeln!(
        md,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |{crash_rule}{target_rule}"
    );
    for (i, s) in x.steps.iter().enumerate() {
        let _ = writeln!(md, "{}", sweep_row(x, i, s, crashed));
    }
}

/// One step's row of the sweep's table.
fn sweep_row(x: &SweepSection, i: usize, s: &Step, crashed: bool) -> String {
    let mut marks = Vec::new();
    if s.today {
        marks.push("now");
    }
    if s.bound_hit {
        marks.push("move bound hit");
    }
    let value = match marks.is_empty() {
        true => s.value.to_string(),
        false => format!("{} ({})", s.value, marks.join(", ")),
    };
    let crash = match (crashed, &s.crash) {
        (false, _) => String::new(),
        (true, None) => " — | — | — |".into(),
        (true, Some(c)) => format!(
            " {} | {} | {} |",
            code_cell(&c.member),
            c.recovery_s
                .as_deref()
                .map_or_else(|| "never".to_string(), |r| format!("{r} s")),
            c.idle_split_s
        ),
    };
    let meets = match &x.verdict {
        None => String::new(),
        Some(v) if Some(s.value) == v.smallest => " meets (first) |".into(),
        Some(v) if v.meets.get(i) == Some(&true) => " meets |".into(),
        Some(_) => " — |".into(),
    };
    format!(
        "| {value} | {} | {} | {} | {} | {} | {} | {} | {} |{crash}{meets}",
        s.members,
        human_bytes(s.max_load),
        s.max_over_mean,
        s.max_over_bound,
        s.queued,
        s.moves,
        human_bytes(s.bytes_moved),
        s.at_cap
    )
}

/// The sweep's charts (files beside the review): balance, queued and moves, and the recovery
/// from a crash when the sweep has crash columns.
fn sweep_charts(md: &mut String, images: &mut Vec<Image>, what: &str, steps: &[Step], crashed: bool) {
    let pts = |f: &dyn Fn(&Step) -> f64| steps.iter().map(|s| (s.value as f64, f(s))).collect::<Vec<_>>();
    let ratio = Series {
        name: "max / mean",
        points: pts(&|s| s.max_over_mean.parse().unwrap_or(0.0)),
    };
    images.push(Image {
        name: "review-sweep-balance.svg".into(),
        svg: line_chart("Balance", what, &[ratio], Scale::Number, &|v| format!("{v:.2}")),
    });
    let counts = [
        Series {
            name: "queued",
            points: pts(&|s| s.queued as f64),
        },
        Series {
            name: "moves",
            points: pts(&|s| s.moves as f64),
        },
    ];
    images.push(Image {
        name: "review-sweep-counts.svg".into(),
        svg: line_chart("Queued splits and moves", what, &counts, Scale::Number, &|v| {
            format!("{v:.0}")
        }),
    });
    let _ = writeln!(md, "\n![Balance over the sweep](review-sweep-balance.svg)\n\n![Queued splits and moves over the sweep](review-sweep-counts.svg)\n");
    if !crashed {
        return;
    }
    let recovery = Series {
        name: "recovery (s)",
        points: steps
            .iter()
            .filter_map(|s| {
                let ms = s.crash.as_ref()?.recovery_ms?;
                Some((s.value as f64, ms as f64 / 1000.0))
            })
            .collect(),
    };
    images.push(Image {
        name: "review-sweep-recovery.svg".into(),
        svg: line_chart(
            "Recovery from a crash of the heaviest member",
            what,
            &[recovery],
            Scale::Number,
            &|v| format!("{v:.1} s"),
        ),
    });
    let _ = writeln!(
        md,
        "![Recovery from a crash of the heaviest member over the sweep](review-sweep-recovery.svg)\n"
    );
}

fn comparison(md: &mut String, images: &mut Vec<Image>, d: &Diff) {
    let _ = writeln!(md, "## Compared with an earlier state\n");
    let _ = writeln!(
        md,
        "Earlier snapshot: job {}, taken at {}, {} members, {} splits. Later (this review's): taken at {}.\n",
        code_span(&d.before.job),
        utc_text(d.before.taken_at_ms),
        d.before.members,
        d.before.splits,
        utc_text(d.after.taken_at_ms)
    );
    for w in &d.warnings {
        let _ = writeln!(md, "> **Warning:** {}\n", text(w));
    }
    let verdict = text(&d.decision.verdict);
    let names = |v: &[String]| {
        let mut v: Vec<&String> = v.iter().collect();
        v.sort_by(|a, b| natural_cmp(a, b));
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(|s| code_span(s)).collect::<Vec<_>>().join(", ")
        }
    };
    let _ = writeln!(
        md,
        "{verdict}\n\nJoined: {}. Left: {}. Splits that changed owner: {}.\n",
        names(&d.joined),
        names(&d.left),
        d.owner_changes.len()
    );
    let (b, a) = (&d.figures_before, &d.figures_after);
    let _ = writeln!(md, "| figure | before | after |\n| --- | --- | --- |");
    let _ = writeln!(
        md,
        "| max load now | {} | {} |",
        human_bytes(b.max_load_now),
        human_bytes(a.max_load_now)
    );
    let _ = writeln!(
        md,
        "| max / mean planned | {} | {} |",
        b.max_over_mean_planned, a.max_over_mean_planned
    );
    let _ = writeln!(md, "| queued | {} | {} |", b.queued, a.queued);
    let _ = writeln!(md, "| moves pending | {} | {} |\n", b.moves, a.moves);
    let mut members: Vec<_> = d.members.iter().collect();
    members.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    let bars: Vec<(String, f64, f64)> = members
        .into_iter()
        .map(|m| {
            (
                m.name.clone(),
                m.load_before.unwrap_or(0) as f64,
                m.load_after.unwrap_or(0) as f64,
            )
        })
        .collect();
    images.push(Image {
        name: "review-compare.svg".into(),
        svg: paired_bars(
            "Load per member, before and after",
            ("before", "after"),
            &bars,
            Scale::Bytes,
            &|v| human_bytes(v as u64),
        ),
    });
    let _ = writeln!(md, "![Load per member before and after](review-compare.svg)\n");
}

/// How many split ids each list of the upgrade section names (`diff-rules --json` has them all).
const UPGRADE_LIST: usize = 40;

fn upgrade_row(md: &mut String, s: &RulesSide, today: bool) {
    let _ = writeln!(
        md,
        "| {}{} | {} ({}) | {} ({}) | {} | {} | {} |",
        s.rules.name(),
        if today { " (today)" } else { "" },
        s.churn.moves,
        human_bytes(s.churn.weight_moved),
        s.reassigned,
        human_bytes(s.weight_reassigned),
        s.queued,
        human_bytes(s.max_load),
        s.max_over_mean
    );
}

fn id_list(md: &mut String, title: &str, ids: &[String]) {
    let shown: Vec<String> = ids.iter().take(UPGRADE_LIST).map(|s| code_span(s)).collect();
    let more = match ids.len().saturating_sub(UPGRADE_LIST) {
        0 => String::new(),
        n => format!(" … and {n} more"),
    };
    let list = if ids.is_empty() {
        "none".to_string()
    } else {
        shown.join(", ")
    };
    let _ = writeln!(md, "{title} ({}): {list}{more}.\n", ids.len());
}

/// The store planned by 0.1's rules and by 0.3's, side by side (`spate-planner diff-rules`).
fn upgrade(md: &mut String, d: &RulesDiff) {
    let _ = writeln!(md, "## What upgrading changes: Spate 0.1 and 0.3 side by side\n");
    let _ = writeln!(
        md,
        "The same scenario planned by each release's rules. Today: {}.\n",
        text(&d.today.explain())
    );
    let _ = writeln!(
        md,
        "| rules | moves (moved) | reassigned (weight) | queued | max load | max / mean |"
    );
    let _ = writeln!(md, "| --- | --- | --- | --- | --- | --- |");
    upgrade_row(md, &d.v0_1, d.today.rules == d.v0_1.rules);
    upgrade_row(md, &d.v0_3, d.today.rules == d.v0_3.rules);
    let _ = writeln!(
        md,
        "\nMoves: splits that change hands from their current owner. Reassigned: splits planned elsewhere than the last publish named.\n"
    );
    id_list(
        md,
        "Reassigned by 0.1, kept by 0.3 (stop moving on upgrading)",
        &d.kept_only_by_0_3,
    );
    id_list(md, "Reassigned by 0.3, kept by 0.1", &d.kept_only_by_0_1);
    let _ = writeln!(
        md,
        "Splits the two plans place apart: {}.\n",
        d.placed_apart.len()
    );
    if d.placed_apart.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "| split | published | by 0.1 | by 0.3 |\n| --- | --- | --- | --- |"
    );
    let who = |m: &Option<String>| m.as_deref().map_or_else(|| "—".to_string(), code_cell);
    for p in d.placed_apart.iter().take(UPGRADE_LIST) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            code_cell(&p.split),
            who(&p.published),
            who(&p.by_0_1),
            who(&p.by_0_3)
        );
    }
    if d.placed_apart.len() > UPGRADE_LIST {
        let _ = writeln!(md, "\n… and {} more.", d.placed_apart.len() - UPGRADE_LIST);
    }
    md.push('\n');
}
