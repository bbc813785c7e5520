//! The headline figures as a table (the Timeline's, `simulate --compare`'s, the report's): each
//! figure's label, kind and help words, its value in configuration A and B as the document gives
//! it (a decimal string, exact), the difference B − A computed exactly with its sign, and each
//! in words (`docs/simulator.md`, "Figures").

use crate::outcome::Figures;
use crate::words::{binary_bytes, duration_text, thousands};
use serde::Serialize;

/// How a figure is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FigureKind {
    /// A duration in ms: `1 min 2 s`.
    Ms,
    /// Split-milliseconds, written in split-seconds (rounded half up): `14,570 split-s`.
    SplitMs,
    /// Byte-milliseconds, written in bytes × seconds (binary units): `5.15 TiB·s`.
    ByteMs,
    /// A count: `1,000`.
    Count,
}

/// One figure of the table: its key in the document's `figures`, words and how to read it.
pub struct FigureDef {
    pub key: &'static str,
    pub label: &'static str,
    pub kind: FigureKind,
    pub help: &'static str,
    value: fn(&Figures) -> Option<u128>,
}

macro_rules! figure {
    ($key:ident, $label:expr, $kind:ident, $help:expr) => {
        FigureDef {
            key: stringify!($key),
            label: $label,
            kind: FigureKind::$kind,
            help: $help,
            value: |f| Some(u128::from(f.$key)),
        }
    };
}

/// The figures of the table, in its order.
pub const FIGURES: [FigureDef; 14] = [
    FigureDef {
        key: "recovery_ms",
        label: "recovery",
        kind: FigureKind::Ms,
        help: "From the first event until every split the events took (running on a member as it crashed or stopped, or failed) runs again (or has completed) and keeps running to the end.",
        value: |f| f.recovery_ms.map(u128::from),
    },
    figure!(idle_split_ms, "idle split-seconds", SplitMs, "Sum over splits of the time they were runnable and read by nobody (unheld, queued, withheld, or held by a dead process)."),
    FigureDef {
        key: "idle_weighted",
        label: "idle work (weighted)",
        kind: FigureKind::ByteMs,
        help: "The same, each split weighted by its size (at least 1 byte): bytes × seconds of work nobody read.",
        value: |f| Some(f.idle_weighted),
    },
    figure!(attempts_burned, "attempts burned", Count, "Attempts consumed: reclaims, expired takeovers, quarantines (the claim race's too) and failures."),
    figure!(splits_quarantined, "quarantined", Count, "Splits quarantined (attempts exhausted), by a scan or a failure."),
    figure!(splits_parked_by_race, "parked by the claim race", Count, "Splits quarantined right after a claim that wrote the last attempt but one, by a peer that saw the claim's record before its lease (the claim race): they never run again."),
    figure!(moves, "moves", Count, "Claims by another worker than the split's previous holder."),
    figure!(forced_drains, "forced drains", Count, "Releases forced by the drain deadline or a declined revocation."),
    figure!(replayed_ms, "work replayed", Ms, "Per forced drain, the time since the split's last commit: work the next owner reads again."),
    figure!(leadership_gap_ms, "leadership gap", Ms, "Time with no live leader, in all."),
    figure!(longest_leadership_gap_ms, "longest leadership gap", Ms, "The longest stretch with no live leader."),
    figure!(elections, "elections", Count, "Leader elections."),
    figure!(publishes, "publishes", Count, "Steps in which the leader wrote at least one assignment record."),
    figure!(claims, "claims", Count, "Claims of splits, by every worker."),
];

/// One row of the table. Values are decimal strings (exact whatever their size); `None`: the
/// figure has no value (`recovery_ms` when not recovered, or without events).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FigureRow {
    pub key: &'static str,
    pub label: &'static str,
    pub kind: FigureKind,
    pub help: &'static str,
    pub a: Option<String>,
    pub a_text: String,
    /// Without configuration B: `None`, as `b_text`, `diff`, `diff_text`.
    pub b: Option<String>,
    pub b_text: Option<String>,
    /// B − A, exact and signed: `+1000`, `-32300`, `0`; `None` when either has no value.
    pub diff: Option<String>,
    /// B − A in words with its sign (`−32.3 s`, `+1,000`), `same`, or `—` when either has no
    /// value.
    pub diff_text: Option<String>,
    /// B's value differs from A's (either has none and the other has one included).
    pub changed: bool,
}

/// A value of `kind` in words.
pub fn value_text(kind: FigureKind, v: u128) -> String {
    match kind {
        FigureKind::Ms => duration_text(u64::try_from(v).unwrap_or(u64::MAX)),
        FigureKind::SplitMs => format!("{} split-s", thousands(v / 1000 + u128::from(v % 1000 >= 500))),
        FigureKind::ByteMs => format!("{}·s", binary_bytes(v / 1000)),
        FigureKind::Count => thousands(v),
    }
}

fn maybe_text(kind: FigureKind, v: Option<u128>, has_events: bool) -> String {
    match v {
        Some(v) => value_text(kind, v),
        None if has_events => "not recovered".to_string(),
        None => "no events".to_string(),
    }
}

/// B − A: exact and in words (`None` in the first when either is missing).
fn difference(kind: FigureKind, a: Option<u128>, b: Option<u128>) -> (Option<String>, String) {
    let (Some(a), Some(b)) = (a, b) else {
        return (None, "—".to_string());
    };
    match b.cmp(&a) {
        std::cmp::Ordering::Equal => (Some("0".to_string()), "same".to_string()),
        std::cmp::Ordering::Greater => (
            Some(format!("+{}", b - a)),
            format!("+{}", value_text(kind, b - a)),
        ),
        std::cmp::Ordering::Less => (
            Some(format!("-{}", a - b)),
            format!("−{}", value_text(kind, a - b)),
        ),
    }
}

/// The table of configuration A's figures, with B's and the difference B − A when `b` is given.
/// `has_events`: whether the script has events (a recovery without a value is then "not
/// recovered", else "no events").
pub fn figures_table(a: &Figures, b: Option<&Figures>, has_events: bool) -> Vec<FigureRow> {
    FIGURES
        .iter()
        .map(|def| {
            let va = (def.value)(a);
            let vb = b.map(|b| (def.value)(b));
            let (diff, diff_text) = match vb {
                Some(vb) => {
                    let (d, t) = difference(def.kind, va, vb);
                    (d, Some(t))
                }
                None => (None, None),
            };
            FigureRow {
                key: def.key,
                label: def.label,
                kind: def.kind,
                help: def.help,
                a: va.map(|v| v.to_string()),
                a_text: maybe_text(def.kind, va, has_events),
                b: vb.flatten().map(|v| v.to_string()),
                b_text: vb.map(|v| maybe_text(def.kind, v, has_events)),
                changed: vb.is_some_and(|vb| vb != va),
                diff,
                diff_text,
            }
        })
        .collect()
}
