//! The documents: a snapshot (posted, or a followed job's state) planned as `plan --json` and
//! `claims --json` plan it, with the request's scenario and options as the CLI's `--what-if`,
//! `--max-attempts`, `--strict`, `--after-plan` and `--instance`. The core decides; this only
//! converts. The answer is the CLI's standard output to the byte: the document and a newline.

use super::error::Problem;
use super::request::{Ask, Doc};
use spate_planner_core::{
    analyse_partly, claims_document, next_claims, plan_document, AssignmentSource, Fleet, Scenario,
};

/// The posted snapshot's text, loaded as `plan FILE` loads the file.
pub(crate) fn load(text: &str) -> Result<Fleet, Problem> {
    Fleet::load_text(text).map_err(Problem::snapshot)
}

/// `doc` of `fleet` planned as asked, as the CLI prints it with `--json`.
pub(crate) fn document(fleet: &Fleet, ask: &Ask, doc: Doc) -> Result<String, Problem> {
    let mut scenario = match &ask.scenario {
        None => Scenario::default(),
        Some(text) => Scenario::parse_file(text).map_err(|e| Problem::scenario(e, "scenario"))?,
    };
    if ask.max_attempts.is_some() {
        scenario.max_attempts = ask.max_attempts;
    }
    let a = analyse_partly(fleet, &scenario);
    if ask.strict && !a.refused.is_empty() {
        return Err(Problem::strict(&a.refused, "scenario"));
    }
    let written = match doc {
        Doc::Plan => plan_document(fleet, &a),
        Doc::Claims => {
            let max = a.applied.max_attempts;
            let source = if ask.after_plan {
                AssignmentSource::Plan
            } else {
                AssignmentSource::Published
            };
            let next = next_claims(fleet, &a, ask.instance.as_deref(), source, max.value)
                .map_err(|e| Problem::refused(e.code.as_str(), e.message).field("instance"))?;
            claims_document(fleet, &a, &next, source, max)
        }
    };
    let mut text =
        written.map_err(|e| Problem::internal(format!("cannot write the document as JSON: {e}")))?;
    text.push('\n');
    Ok(text)
}
