//! Runs conformance vectors (`spate-conformance/1`) against this decision core.
//!
//! Shared by the native runner (`spate-planner conformance`) and the wasm runner
//! (`tests/conformance/run.mjs`), so both judge a case the same way: the result is computed,
//! turned into JSON, and compared value for value (integers exactly) with `expect`.

use crate::state::SplitState;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The format tag the runner accepts.
pub const FORMAT: &str = "spate-conformance/1";

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseOutcome {
    pub name: String,
    pub op: String,
    /// `None` when the case passed.
    pub failure: Option<Failure>,
}

/// Why a case failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// `expect`, as compact JSON.
    pub expected: String,
    /// What this core computed, as compact JSON (or the error that stopped it).
    pub got: String,
    /// Where the two first differ, as a JSON path with both values.
    pub first_difference: String,
}

impl CaseOutcome {
    /// One human line for a failing case.
    pub fn failure_line(&self) -> Option<String> {
        self.failure.as_ref().map(|f| {
            format!(
                "FAIL {} ({}): first difference {}; expected {} got {}",
                self.name,
                self.op,
                f.first_difference,
                clip(&f.expected),
                clip(&f.got)
            )
        })
    }
}

fn clip(s: &str) -> String {
    const MAX: usize = 400;
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &s[..end], s.len())
}

#[derive(Deserialize)]
struct VectorFile {
    format: String,
    cases: Vec<Value>,
}

/// Runs every case of one vector file. Errors only when the file itself is unusable (not JSON,
/// not this format); a malformed case is a failing case.
pub fn run_file(text: &str) -> Result<Vec<CaseOutcome>, String> {
    let file: VectorFile =
        serde_json::from_str(text).map_err(|e| format!("not a conformance vector file: {e}"))?;
    if file.format != FORMAT {
        return Err(format!("format {:?} is not {FORMAT:?}", file.format));
    }
    Ok(file
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| run_case(i, c))
        .collect())
}

/// Runs one case value (`{name, op, input, expect}`).
pub fn run_case(index: usize, case: &Value) -> CaseOutcome {
    let name = case.get("name").and_then(Value::as_str).unwrap_or("").to_string();
    let name = if name.is_empty() {
        format!("#{index}")
    } else {
        name
    };
    let op = case.get("op").and_then(Value::as_str).unwrap_or("?").to_string();
    let expect = case.get("expect").cloned().unwrap_or(Value::Null);
    let got = case
        .get("input")
        .ok_or_else(|| "case has no input".to_string())
        .and_then(|input| compute(&op, input));
    let failure = match got {
        Ok(got) if got == expect => None,
        Ok(got) => Some(Failure {
            expected: expect.to_string(),
            got: got.to_string(),
            first_difference: first_difference("$", &expect, &got)
                .unwrap_or_else(|| "(none found)".to_string()),
        }),
        Err(e) => Some(Failure {
            expected: expect.to_string(),
            got: format!("error: {e}"),
            first_difference: "$ (no result)".to_string(),
        }),
    };
    CaseOutcome { name, op, failure }
}

fn parse<T: for<'de> Deserialize<'de>>(op: &str, input: &Value) -> Result<T, String> {
    T::deserialize(input).map_err(|e| format!("bad {op} input: {e}"))
}

#[derive(Deserialize)]
struct HashU64 {
    seed: u64,
    value: u64,
}
#[derive(Deserialize)]
struct HashStr {
    seed: u64,
    value: String,
}
#[derive(Deserialize)]
struct Jitter {
    seed: u64,
    round: u64,
    base_ms: u64,
}
#[derive(Deserialize)]
struct Live {
    presence: BTreeSet<String>,
    instance: String,
}
#[derive(Deserialize)]
struct Assign {
    members: BTreeSet<String>,
    splits: BTreeMap<String, SplitState>,
    reserved: BTreeSet<String>,
    caps: BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
}
#[derive(Deserialize)]
struct Claims {
    splits: BTreeMap<String, SplitState>,
    owned: BTreeSet<String>,
    instance: String,
    max_attempts: u32,
}

/// Computes the result of one op as JSON in the vectors' `expect` shape.
pub fn compute(op: &str, input: &Value) -> Result<Value, String> {
    Ok(match op {
        "hash_u64" => {
            let i: HashU64 = parse(op, input)?;
            json!({ "hash": crate::hash::stable_hash(i.seed, i.value) })
        }
        "hash_str" => {
            let i: HashStr = parse(op, input)?;
            json!({ "hash": crate::hash::stable_hash_str(i.seed, &i.value) })
        }
        "jitter" => {
            let i: Jitter = parse(op, input)?;
            let nanos = crate::timing::jitter(i.seed, i.round, Duration::from_millis(i.base_ms)).as_nanos();
            let nanos = u64::try_from(nanos).map_err(|_| format!("jitter of {nanos} ns exceeds u64"))?;
            json!({ "nanos": nanos })
        }
        "live_workers" => {
            let i: Live = parse(op, input)?;
            json!({ "count": crate::timing::live_workers(&i.presence, &i.instance) })
        }
        "assign" => {
            let i: Assign = parse(op, input)?;
            let a = crate::assign::desired_assignment(
                &i.members,
                &i.splits,
                &i.reserved,
                &i.caps,
                i.default_cap,
                i.seed,
            );
            json!({ "assignment": a })
        }
        "claims" => {
            let i: Claims = parse(op, input)?;
            let c = crate::claims::claim_candidates(
                &i.splits,
                |id| i.owned.contains(id),
                &i.instance,
                i.max_attempts,
            );
            json!({ "candidates": c })
        }
        other => return Err(format!("unknown op {other:?}")),
    })
}

/// The first place (JSON path) where `a` and `b` differ, with both values there.
pub fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_difference(&p, u, v) {
                            return Some(d);
                        }
                    }
                    (Some(u), None) => {
                        return Some(format!("{p}: expected {}, got nothing", clip(&u.to_string())))
                    }
                    (None, Some(v)) => {
                        return Some(format!("{p}: expected nothing, got {}", clip(&v.to_string())))
                    }
                    (None, None) => {}
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), u, v) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: expected {} items, got {}", x.len(), y.len()))
        }
        _ if a == b => None,
        _ => Some(format!(
            "{path}: expected {}, got {}",
            clip(&a.to_string()),
            clip(&b.to_string())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_wrong_expectation_fails_with_its_first_difference() {
        let text = r#"{"format":"spate-conformance/1","cases":[
            {"name":"ok","op":"hash_u64","input":{"seed":7,"value":1},"expect":{"hash":15575724145496192045}},
            {"name":"off-by-one","op":"hash_u64","input":{"seed":7,"value":1},"expect":{"hash":15575724145496192046}},
            {"name":"bad-op","op":"nope","input":{},"expect":{}}]}"#;
        let out = run_file(text).unwrap();
        assert!(out[0].failure.is_none());
        let f = out[1].failure.as_ref().unwrap();
        assert_eq!(
            f.first_difference,
            "$.hash: expected 15575724145496192046, got 15575724145496192045"
        );
        assert!(out[2].failure.as_ref().unwrap().got.contains("unknown op"));
    }

    #[test]
    fn another_format_is_refused() {
        assert!(run_file(r#"{"format":"x","cases":[]}"#)
            .unwrap_err()
            .contains("spate-conformance/1"));
        assert!(run_file("not json").is_err());
    }
}
