//! Runs conformance vectors (`spate-conformance/1`) against this decision core.
//!
//! Shared by the native runner (`spate-planner conformance`) and the wasm runner
//! (`tests/conformance/run.mjs`), so both judge a case the same way: the result is computed,
//! turned into JSON, and compared value for value (integers exactly) with `expect`. A case is
//! judged by the rules of the release its `spate_version` names (the case's own, else the file's,
//! else 0.1): 0.1 (which covers 0.2) or 0.3. A case of another release fails; a 0.3 case is never
//! judged by 0.1's rules.

use crate::assign::AssignInputs;
use crate::records::AssignmentVal;
use crate::rules::Rules;
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

mod read;

use read::{Case, Entry, VectorFile};

/// Runs every case of one vector file. Errors only when the file itself is unusable (not JSON,
/// not this format); a malformed case, or one of a release this core does not implement, is a
/// failing case.
pub fn run_file(text: &str) -> Result<Vec<CaseOutcome>, String> {
    let file: VectorFile =
        serde_json::from_str(text).map_err(|e| format!("not a conformance vector file: {e}"))?;
    if file.format != FORMAT {
        return Err(format!("format {:?} is not {FORMAT:?}", file.format));
    }
    let version = file.spate_version.as_ref();
    Ok(file
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| judge(i, c, version))
        .collect())
}

/// The rules a case needs: its own `spate_version` (`case`), else the file's, else `"0.1"`.
/// `0.1` and `0.2` decide alike; `0.3` is Spate 0.3.0; anything else is not implemented.
pub fn case_rules(case: Option<&Value>, file_version: Option<&Value>) -> Result<Rules, String> {
    match case.or(file_version) {
        None => Ok(Rules::V0_1),
        Some(Value::String(v)) => v
            .parse()
            .map_err(|e| format!("spate_version {v:?} is not implemented here: {e}")),
        Some(other) => Err(format!("spate_version {other} is not a string")),
    }
}

/// A case's string field (`name`, `op`), or "" when absent or not a string.
fn text_of(v: &Option<Value>) -> &str {
    v.as_ref().and_then(Value::as_str).unwrap_or("")
}

/// Runs one case (`{name, op, input, expect}`, with an optional `spate_version`), given as its
/// JSON text, with the file's `spate_version`, if any.
pub fn run_case(index: usize, case: &str, file_version: Option<&Value>) -> CaseOutcome {
    match serde_json::from_str::<Entry>(case) {
        Ok(entry) => judge(index, &entry, file_version),
        Err(e) => judged(index, Err(format!("not a case: {e}")), file_version),
    }
}

fn judge(index: usize, entry: &Entry, file_version: Option<&Value>) -> CaseOutcome {
    match entry {
        Entry::Case(c) => judged(index, Ok(c), file_version),
        Entry::NotACase(what) => judged(
            index,
            Err(format!("not a case: {what}, not an object")),
            file_version,
        ),
    }
}

/// The outcome of a case read (or the reason it could not be).
fn judged(index: usize, parsed: Result<&Case, String>, file_version: Option<&Value>) -> CaseOutcome {
    let (name, op) = match &parsed {
        Ok(c) => (text_of(&c.name), text_of(&c.op)),
        Err(_) => ("", ""),
    };
    let name = if name.is_empty() {
        format!("#{index}")
    } else {
        name.to_string()
    };
    let op = if op.is_empty() { "?" } else { op }.to_string();
    let expect = match parsed.as_ref().ok().and_then(|c| c.expect) {
        Some(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
        None => Value::Null,
    };
    let got = parsed.and_then(|c| {
        let rules = case_rules(c.spate_version.as_ref(), file_version)?;
        let input = c.input.ok_or_else(|| "case has no input".to_string())?;
        compute(rules, &op, input.get())
    });
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

fn parse<T: for<'de> Deserialize<'de>>(op: &str, input: &str) -> Result<T, String> {
    serde_json::from_str(input).map_err(|e| format!("bad {op} input: {e}"))
}

// Every input is read strictly: a field the release's op does not take (a 0.3 `previous` in a
// 0.1 case, say) fails the case instead of being ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HashU64 {
    seed: u64,
    value: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HashStr {
    seed: u64,
    value: String,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Jitter {
    seed: u64,
    round: u64,
    base_ms: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spread {
    seed: u64,
    base_ms: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Live {
    presence: BTreeSet<String>,
    instance: String,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Live03 {
    presence: BTreeSet<String>,
    instance: Option<String>,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Assign {
    members: BTreeSet<String>,
    splits: BTreeMap<String, SplitState>,
    reserved: BTreeSet<String>,
    caps: BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Assign03 {
    members: BTreeSet<String>,
    splits: BTreeMap<String, SplitState>,
    reserved: BTreeSet<String>,
    previous: BTreeMap<String, String>,
    caps: BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Claims {
    splits: BTreeMap<String, SplitState>,
    owned: BTreeSet<String>,
    instance: String,
    max_attempts: u32,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Claims03 {
    splits: BTreeMap<String, SplitState>,
    owned: BTreeSet<String>,
    instance: String,
    run: String,
    max_attempts: u32,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Revisioned {
    value: AssignmentVal,
    #[allow(dead_code)] // last_assignees reads no revision
    rev: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LastAssignees {
    records: BTreeMap<String, Revisioned>,
    members: BTreeSet<String>,
}

fn nanos(d: Duration, what: &str) -> Result<Value, String> {
    let n = u64::try_from(d.as_nanos()).map_err(|_| format!("{what} of {} ns exceeds u64", d.as_nanos()))?;
    Ok(json!({ "nanos": n }))
}

/// Computes the result of one op, by `rules`, from its input's JSON text, as JSON in the
/// vectors' `expect` shape.
pub fn compute(rules: Rules, op: &str, input: &str) -> Result<Value, String> {
    Ok(match (rules, op) {
        (_, "hash_u64") => {
            let i: HashU64 = parse(op, input)?;
            json!({ "hash": crate::hash::stable_hash(i.seed, i.value) })
        }
        (_, "hash_str") => {
            let i: HashStr = parse(op, input)?;
            json!({ "hash": crate::hash::stable_hash_str(i.seed, &i.value) })
        }
        (_, "jitter") => {
            let i: Jitter = parse(op, input)?;
            nanos(
                crate::timing::jitter(i.seed, i.round, Duration::from_millis(i.base_ms)),
                op,
            )?
        }
        (Rules::V0_3, "spread") => {
            let i: Spread = parse(op, input)?;
            nanos(
                crate::timing::spread(i.seed, Duration::from_millis(i.base_ms)),
                op,
            )?
        }
        (Rules::V0_1, "live_workers") => {
            let i: Live = parse(op, input)?;
            json!({ "count": crate::timing::live_workers(&i.presence, Some(&i.instance)) })
        }
        (Rules::V0_3, "live_workers") => {
            let i: Live03 = parse(op, input)?;
            json!({ "count": crate::timing::live_workers(&i.presence, i.instance.as_deref()) })
        }
        (Rules::V0_1, "assign") => {
            let i: Assign = parse(op, input)?;
            let inputs =
                AssignInputs::v0_1(&i.members, &i.splits, &i.reserved, &i.caps, i.default_cap, i.seed);
            json!({ "assignment": crate::assign::desired_assignment(&inputs) })
        }
        (Rules::V0_3, "assign") => {
            let i: Assign03 = parse(op, input)?;
            let inputs = AssignInputs {
                rules,
                members: &i.members,
                splits: &i.splits,
                reserved: &i.reserved,
                previous: &i.previous,
                caps: &i.caps,
                default_cap: i.default_cap,
                seed: i.seed,
            };
            json!({ "assignment": crate::assign::desired_assignment(&inputs) })
        }
        (Rules::V0_1, "claims") => {
            let i: Claims = parse(op, input)?;
            let owned = |id: &str| i.owned.contains(id);
            let c =
                crate::claims::claim_candidates(rules, &i.splits, owned, &i.instance, None, i.max_attempts);
            json!({ "candidates": c })
        }
        (Rules::V0_3, "claims") => {
            let i: Claims03 = parse(op, input)?;
            let owned = |id: &str| i.owned.contains(id);
            let run = Some(i.run.as_str());
            let c =
                crate::claims::claim_candidates(rules, &i.splits, owned, &i.instance, run, i.max_attempts);
            json!({ "candidates": c })
        }
        (Rules::V0_3, "last_assignees") => {
            let i: LastAssignees = parse(op, input)?;
            let records = i.records.into_iter().map(|(x, r)| (x, r.value)).collect();
            json!({ "previous": crate::assign::last_assignees(&records, &i.members) })
        }
        (rules, "spread" | "last_assignees") => {
            return Err(format!(
                "op {op:?} is Spate 0.3's; this case needs {rules}'s rules"
            ))
        }
        (_, other) => return Err(format!("unknown op {other:?}")),
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
    fn each_case_is_judged_by_the_release_it_names() {
        // A claims case whose own lease on a record naming no owner is a create in 0.3 (a
        // reclaim in 0.1): the file says 0.3, the second case says 0.1, the third a release
        // this core does not implement.
        let split = r#"{"progress":{"schema":3,"id":"s","fp":1,"epoch":0,"status":"runnable","owner":null,"attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":0},"progress_rev":1,"spec":{"schema":3,"id":"s","fp":1,"generation":1,"weight":1,"descriptor":""},"lease":{"value":{"schema":3,"owner":"w","nonce":"n","epoch":1},"rev":2}}"#;
        let input =
            format!(r#"{{"splits":{{"s":{split}}},"owned":[],"instance":"w","run":"n","max_attempts":4}}"#);
        let case = |version: &str, kind: &str| {
            format!(
                r#"{{"name":"c","op":"claims",{version}"input":{input},"expect":{{"candidates":[{{"id":"s","action":"claim","kind":"{kind}"}}]}}}}"#
            )
        };
        let text = format!(
            r#"{{"format":"spate-conformance/1","spate_version":"0.3","cases":[{},{},{},{}]}}"#,
            case("", "create"),
            case(r#""spate_version":"0.3","#, "create"),
            case(r#""spate_version":"0.1","#, "reclaim"),
            case(r#""spate_version":"0.4","#, "create"),
        );
        let out = run_file(&text).unwrap();
        assert!(out[0].failure.is_none(), "{:?}", out[0].failure);
        assert!(out[1].failure.is_none(), "{:?}", out[1].failure);
        let f = out[2].failure.as_ref().expect("0.1 takes no run: the case fails");
        assert!(f.got.contains("unknown field `run`"), "{}", f.got);
        let f = out[3].failure.as_ref().expect("0.4 is not implemented");
        assert!(f.got.contains("\"0.4\" is not implemented"), "{}", f.got);
        // With no version anywhere, the case is 0.1's, and a 0.3-only op fails it.
        let text = r#"{"format":"spate-conformance/1","cases":[{"name":"s","op":"spread","input":{"seed":1,"base_ms":10},"expect":{}}]}"#;
        let f = run_file(text).unwrap()[0].failure.clone().unwrap();
        assert!(f.got.contains("Spate 0.3's"), "{}", f.got);
    }

    #[test]
    fn another_format_is_refused() {
        assert!(run_file(r#"{"format":"x","cases":[]}"#)
            .unwrap_err()
            .contains("spate-conformance/1"));
        assert!(run_file("not json").is_err());
    }
}
