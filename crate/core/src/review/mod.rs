//! What a person reads or shares of a whole analysis: the headline [`findings`], the JSON
//! documents of `plan --json` and `claims --json` ([`document`]), and the Markdown review
//! ([`markdown`]) with its charts. These sit above the pipeline, the sweep and the comparison,
//! which they present; nothing below imports them.

mod document;
mod findings;
mod markdown;

pub use document::{
    claims_document, claims_rules_note, claims_view, find_splits, fleet_info, plan_document, plan_view,
    CLAIMS_FORMAT, PLAN_FORMAT,
};
pub use findings::{findings, Finding, Level};
pub use markdown::{review, Image, Review, ReviewInputs};
