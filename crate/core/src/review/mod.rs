//! What a person reads or shares of a whole analysis: the headline [`findings`], the JSON
//! documents of `plan --json` and `claims --json` ([`document`]) with their splits at risk of
//! quarantine ([`exposure`]), the fleet chart
//! ([`fleet_chart`], the dashboard's SVG export), the Markdown review ([`markdown`]) with its
//! charts, composed once ([`compose`]) for the command line and the page, a job's figures as gauges ([`gauges`], `serve`'s `/metrics`), a moment's figures ([`MomentFigures`]: `watch`, the live page's points, `/metrics`), and the tables as CSV
//! ([`tables`], through the one writer of [`csv`]). These sit above the pipeline, the sweep and
//! the comparison, which they present; nothing below imports them.

mod compose;
mod csv;
mod document;
mod exposure;
mod figures;
mod findings;
mod fleet_chart;
mod gauges;
mod incident;
mod incident_replay;
mod incident_text;
mod markdown;
pub mod markdown_text;
mod moment;
mod plan_sections;
mod tables;

pub use compose::{compose, ReviewError, ReviewRequest, SweepRequest};
pub use document::{
    claims_document, claims_rules_note, claims_view, find_splits, fleet_info, plan_document, plan_view,
};
#[cfg(feature = "ts")]
pub(crate) use document::{ClaimsDocument, FleetInfo, PlanDocument, SplitLine};
pub use exposure::{exposure, Exposure};
pub use figures::{plan_figures, Figure, FigureValue};
pub use findings::{findings, Finding, Level};
pub use fleet_chart::{fleet_chart, FleetChart, Palette};
pub use gauges::{gauges, Gauges, LoadGauges, PublishedGauges, SplitStates};
pub use incident::{
    claim_race_per_mille, CrashSettings, IncidentInputs, IncidentLog, RecoveryModel, SeedRun,
};
pub use incident_replay::RecordedIncidents;
pub use incident_text::{incident_views, IncidentView};
pub use markdown::{Image, Review};
pub use moment::MomentFigures;
pub use tables::{claims_csv, diff_csv, plan_csv, sweep_csv, DiffTable, PlanTable};
#[cfg(feature = "testing")]
pub use {fleet_chart::SLIDE_ROWS, gauges::last_publish_ms};
