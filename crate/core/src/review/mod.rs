//! What a person reads or shares of a whole analysis: the headline [`findings`], the JSON
//! documents of `plan --json` and `claims --json` ([`document`]), the fleet chart
//! ([`fleet_chart`], the dashboard's SVG export) and the Markdown review ([`markdown`]) with its
//! charts. These sit above the pipeline, the sweep and the comparison,
//! which they present; nothing below imports them.

mod document;
mod figures;
mod findings;
mod fleet_chart;
mod markdown;
mod plan_sections;

pub use document::{
    claims_document, claims_rules_note, claims_view, find_splits, fleet_info, plan_document, plan_view,
    CLAIMS_FORMAT, PLAN_FORMAT,
};
pub use figures::{plan_figures, Figure, FigureValue};
pub use findings::{findings, Finding, Level};
pub use fleet_chart::{fleet_chart, FleetChart, Palette};
pub use markdown::{review, Image, Review, ReviewInputs};
