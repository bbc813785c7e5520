//! The review document's sections on the plan itself, beside its figures: the changes of the
//! scenario that did not apply, the summary (who is over the mean and at the cap, now and
//! planned, each against the mean it names), every member, and the heaviest moves. The
//! dashboard's Markdown export is this document, so these are what the page used to write itself.

use super::markdown_text::{code_cell, code_span};
use crate::natural::natural_cmp;
use crate::pipeline::Analysis;
use crate::report::{human_bytes, summary};
use std::fmt::Write;

/// Moves listed (the heaviest).
const MOVES_LISTED: usize = 200;

/// The changes of the scenario left out of the plan, each with its reason.
pub(super) fn refused(md: &mut String, a: &Analysis) {
    if a.refused.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "Changes left out of the plan (they do not apply; the rest are planned):\n"
    );
    for r in &a.refused {
        let _ = writeln!(
            md,
            "- change {}: {} at {} ({})",
            r.index + 1,
            code_span(&r.message),
            code_span(&r.path),
            r.code
        );
    }
    md.push('\n');
}

/// Who is over the mean and at the cap, now and planned.
pub(super) fn summary_lines(md: &mut String, a: &Analysis) {
    let s = summary(&a.report);
    let _ = writeln!(md, "## Summary\n");
    for (what, h) in [("now", &s.heaviest_now), ("planned", &s.heaviest_planned)] {
        if let Some(h) = h {
            let _ = writeln!(
                md,
                "- heaviest {what}: {}, {} → {} ({}× the mean now → {}× the planned mean)",
                code_span(&h.name),
                human_bytes(h.load_now),
                human_bytes(h.load_planned),
                h.now_over_mean,
                h.planned_over_mean
            );
        }
    }
    let _ = writeln!(
        md,
        "- max / mean: {} now (against the mean now, {}) → {} planned (against the planned mean, {})",
        s.now.max_over_mean,
        human_bytes(s.now.mean_load as u64),
        s.planned.max_over_mean,
        human_bytes(s.planned.mean_load as u64)
    );
    let _ = writeln!(
        md,
        "- members more than {}% over the mean: {} → {}; at their lane cap: {} → {}",
        s.over_mean_percent, s.now.over_mean, s.planned.over_mean, s.now.at_cap, s.planned.at_cap
    );
    let _ = writeln!(md, "- {} moves, {} moved\n", s.moves, human_bytes(s.weight_moved));
}

/// Every member, in natural order: loads, lanes, what it gains and loses, and whether it is over its side's mean.
pub(super) fn members(md: &mut String, a: &Analysis) {
    let s = summary(&a.report);
    let _ = writeln!(
        md,
        "## Members\n\n| member | now | planned | lanes | gained | lost | over the mean |\n| --- | --- | --- | --- | --- | --- | --- |"
    );
    // in natural order (worker-2 before worker-10), as a person looks a member up
    let mut rows: Vec<_> = a.report.members.iter().zip(&s.marks).collect();
    rows.sort_by(|(x, _), (y, _)| natural_cmp(&x.name, &y.name));
    for (m, k) in rows {
        let over = match (k.over_now, k.over_planned) {
            (true, true) => "now and planned",
            (true, false) => "now",
            (false, true) => "planned",
            (false, false) => "",
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {}/{}{}{} | {} | {} | {over} |",
            code_cell(&m.name),
            human_bytes(m.load_now),
            human_bytes(m.load_planned),
            m.lanes,
            m.cap,
            if m.default_cap { "*" } else { "" },
            if k.at_cap_planned { " full" } else { "" },
            m.gained,
            m.lost
        );
    }
    let _ = writeln!(md, "\n(* the default cap)\n");
}

/// The heaviest moves (by weight, then split id).
pub(super) fn moves(md: &mut String, a: &Analysis) {
    let all = &a.report.moves;
    let mut heaviest: Vec<_> = all.iter().collect();
    heaviest.sort_by(|x, y| y.weight.cmp(&x.weight).then(x.split.cmp(&y.split)));
    heaviest.truncate(MOVES_LISTED);
    let shown = if all.len() > heaviest.len() {
        format!(", the {} heaviest", heaviest.len())
    } else {
        String::new()
    };
    let _ = writeln!(
        md,
        "## Moves ({}{shown})\n\n| split | weight | from | to | why |\n| --- | --- | --- | --- | --- |",
        all.len()
    );
    for mv in heaviest {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            code_cell(&mv.split),
            human_bytes(mv.weight),
            mv.from.as_deref().map_or("—".into(), code_cell),
            mv.to.as_deref().map_or("queue".into(), code_cell),
            mv.reason.words()
        );
    }
    md.push('\n');
}
