//! Every figure of a plan as the dashboard's Details table (and a live moment's plan) lists it:
//! the counts, loads, balance and churn of the report, the 4096-move bound, the leader's default
//! cap and whether it publishes, each with its label and a typed value. The page writes a count
//! with thousands separators and bytes in binary units, and shows a ratio or a text as given: it
//! decides nothing.

use crate::fleet::CapSource;
use crate::pipeline::Analysis;
use crate::report::ratio4;
use serde::Serialize;

/// A figure's value, by kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FigureValue {
    /// A count (splits, members, moves).
    Count(u32),
    /// Bytes (a decimal string in the documents).
    Bytes(u64),
    /// A ratio, written with four decimals.
    Ratio(String),
    /// Words.
    Text(String),
}

/// One figure: its label, its value, the unit of a count if any, and a sentence beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Figure {
    pub label: &'static str,
    pub value: FigureValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub unit: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub note: Option<String>,
}

fn figure(label: &'static str, value: FigureValue) -> Figure {
    Figure {
        label,
        value,
        unit: None,
        note: None,
    }
}

fn cap_source_words(s: CapSource) -> &'static str {
    match s {
        CapSource::User => "set by you",
        CapSource::LeaderPresence => "the leader's presence",
        CapSource::SpateDefault => "Spate's default",
    }
}

/// The figures of `a`, in the order the Details table lists them.
pub fn plan_figures(a: &Analysis) -> Vec<Figure> {
    use FigureValue::{Bytes, Count, Ratio, Text};
    let r = &a.report;
    let (c, b) = (&r.counts, &r.balance);
    let bound = match (r.bound_hit, r.improvable) {
        (true, true) => "hit, more moves remain",
        (true, false) => "hit",
        (false, _) => "not hit",
    };
    let cap = &a.applied.default_cap;
    let mut out = vec![
        figure("members", Count(crate::exact::count(r.members.len()))),
        figure("splits assigned", Count(c.assigned)),
        figure("queued beyond the lanes", Count(c.queued)),
        figure("reserved (withheld)", Count(c.reserved)),
        figure("completed", Count(c.completed)),
        figure("quarantined", Count(c.quarantined)),
        figure("waiting for a spec", Count(c.waiting_for_spec)),
        figure("total weight", Bytes(b.total)),
        figure("max load", Bytes(b.max_load)),
        figure("mean load", Bytes(b.mean_load.round() as u64)),
        figure("max / mean", Ratio(ratio4(b.max_over_mean))),
        figure("max / lower bound", Ratio(ratio4(b.max_over_bound))),
        figure("moves (churn)", Count(r.churn.moves)),
        figure("weight moved", Bytes(r.churn.weight_moved)),
        figure("improving moves", Count(r.improving_moves)),
        figure("4096-move bound", Text(bound.into())),
        Figure {
            note: Some(cap.explain()),
            ..figure(
                "default cap",
                Text(format!("{} ({})", cap.value, cap_source_words(cap.source))),
            )
        },
    ];
    let publishes = a.no_publish.is_none();
    out.push(figure(
        "leader publishes",
        Text(
            if publishes {
                "yes"
            } else {
                "nothing: the current assignments stand"
            }
            .into(),
        ),
    ));
    let differs = match (&a.published, publishes) {
        (_, false) => figure("differs from the published assignment", Text("—".into())),
        (None, true) => figure(
            "differs from the published assignment",
            Text("nothing published".into()),
        ),
        (Some(p), true) => Figure {
            unit: Some(if p.changes == 1 { "split" } else { "splits" }),
            ..figure("differs from the published assignment", Count(p.changes))
        },
    };
    out.push(differs);
    out
}
