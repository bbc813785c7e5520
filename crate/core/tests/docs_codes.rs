//! The docs' tables of codes are the enums': a code added, renamed or dropped in the code and not
//! in the docs (or the other way round) fails here. Natively and under wasm32 (the docs are
//! compiled in).

use spate_planner_core::{
    codes::{FindingCode, WarningCode},
    ErrorCode,
};
use std::collections::BTreeSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const SNAPSHOT_FORMAT: &str = include_str!("../../../docs/snapshot-format.md");
const SCENARIO_FORMAT: &str = include_str!("../../../docs/scenario-format.md");
const BAD_INPUTS: &str = include_str!("../../../docs/bad-inputs.md");
const LEADER_VIEW: &str = include_str!("../../../docs/leader-view.md");
const SCRIPT_FORMAT: &str = include_str!("../../../docs/script-format.md");

/// The codes in the first column of the table whose header row is `header`.
fn first_column(doc: &str, header: &str) -> BTreeSet<String> {
    let start = doc
        .find(header)
        .unwrap_or_else(|| panic!("no table headed {header:?}"));
    doc[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1))
        .filter_map(|cell| cell.trim().strip_prefix('`').and_then(|c| c.split('`').next()))
        .map(str::to_string)
        .collect()
}

/// Every `code` in backticks in the table's column `n` (a cell may name several).
fn column_codes(doc: &str, header: &str, n: usize) -> BTreeSet<String> {
    let start = doc
        .find(header)
        .unwrap_or_else(|| panic!("no table headed {header:?}"));
    doc[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split(" | ").nth(n))
        .flat_map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn strings(codes: &[impl std::fmt::Display]) -> BTreeSet<String> {
    codes.iter().map(|c| c.to_string()).collect()
}

#[test]
fn the_warnings_table_lists_every_warning_code() {
    assert_eq!(
        first_column(SNAPSHOT_FORMAT, "| code | found | effect |"),
        strings(WarningCode::ALL)
    );
}

#[test]
fn the_findings_table_lists_every_finding_code() {
    assert_eq!(
        first_column(LEADER_VIEW, "| code | level | when |"),
        strings(FindingCode::ALL)
    );
}

#[test]
fn every_error_code_in_the_docs_exists_and_every_one_is_documented() {
    let errors = strings(ErrorCode::ALL);
    let scenario = first_column(SCENARIO_FORMAT, "| code | when |");
    let script = first_column(SCRIPT_FORMAT, "| code | when |");
    let bad_inputs = column_codes(BAD_INPUTS, "| input | answer | code | test |", 2);
    // the tables were read (a parser that finds nothing would pass the loops below)
    assert!(
        bad_inputs.contains("truncated") && bad_inputs.contains("bad_payload"),
        "{bad_inputs:?}"
    );
    assert!(
        scenario.contains("not_departed") && scenario.contains("unknown_member"),
        "{scenario:?}"
    );
    let known: BTreeSet<String> = errors
        .iter()
        .chain(&strings(WarningCode::ALL))
        .chain(&strings(FindingCode::ALL))
        .cloned()
        .chain(["bad_link".to_string()]) // the page's own code for an unreadable link
        .collect();
    assert!(script.contains("too_many_events"), "{script:?}");
    for c in scenario.iter().chain(&bad_inputs).chain(&script) {
        assert!(known.contains(c), "the docs name {c:?}, which is no code");
    }
    let documented: BTreeSet<&String> = scenario.iter().chain(&bad_inputs).chain(&script).collect();
    for c in &errors {
        let in_text = SNAPSHOT_FORMAT.contains(&format!("`{c}`")) || documented.contains(c);
        assert!(in_text, "error code {c:?} is documented nowhere");
    }
}
