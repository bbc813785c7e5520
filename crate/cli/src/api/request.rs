//! What a request asks, read strictly: the body of `POST /api/v1/plan` and `/claims` (JSON, at
//! most the server's `--api-max-body`, read only that far), or the query of the followed job's
//! routes. Anything unknown, given twice or of the wrong type is refused with the part named.

use super::error::{codes, Problem};
use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::value::RawValue;
use spate_planner_core::ErrorCode;

/// What to plan with, besides the snapshot: the CLI's `--what-if FILE` (its text),
/// `--max-attempts`, `--strict`, and for claims `--after-plan` and `--instance`.
#[derive(Debug, Default)]
pub(crate) struct Ask {
    /// The scenario's text, as a `--what-if` file holds it.
    pub scenario: Option<String>,
    pub max_attempts: Option<u32>,
    pub strict: bool,
    pub after_plan: bool,
    pub instance: Option<String>,
}

/// Which document a request asks for: they take different options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Doc {
    Plan,
    Claims,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanBody<'a> {
    #[serde(borrow)]
    snapshot: &'a RawValue,
    #[serde(borrow, default)]
    scenario: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "whole")]
    max_attempts: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    strict: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimsBody<'a> {
    #[serde(borrow)]
    snapshot: &'a RawValue,
    #[serde(borrow, default)]
    scenario: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "whole")]
    max_attempts: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    strict: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    after_plan: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    instance: Option<String>,
}

/// A member that is given has its type: `null` is not an absent option (only `scenario` may be
/// null, as the document says).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `max_attempts`: a whole number from 0 to 4294967295, which JSON Schema (and so the OpenAPI
/// document) lets a client write as `4` or `4.0`; a fraction, a sign or `null` is refused.
fn whole<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    use serde::de::Error;
    let n = serde_json::Number::deserialize(d)?;
    let value = match (n.as_u64(), n.as_f64()) {
        (Some(u), _) => u32::try_from(u).ok(),
        (None, Some(f)) if f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f) => Some(f as u32),
        _ => None,
    };
    value.map(Some).ok_or_else(|| {
        D::Error::custom(format!(
            "max_attempts {n}: give a whole number from 0 to 4294967295"
        ))
    })
}

/// The request's `Content-Type` must be `application/json` (with any parameters, such as
/// `charset=utf-8`); a body of another type, or of none, is 415.
pub(crate) fn check_json(headers: &HeaderMap) -> Result<(), Problem> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if essence == "application/json" {
        Ok(())
    } else {
        Err(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::UNSUPPORTED_MEDIA_TYPE,
            if ct.is_empty() {
                "the request has no Content-Type: send the body as application/json".to_string()
            } else {
                format!("the body is {ct:?}: send it as application/json")
            },
        )
        .field("body"))
    }
}

fn too_large(max: usize) -> Problem {
    Problem::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge.as_str(),
        format!(
            "the body is larger than this server takes: at most {} ({max} bytes; serve --api-max-body)",
            spate_planner_core::human_bytes(max as u64)
        ),
    )
    .field("body")
}

/// The body's bytes, at most `max` of them: a `Content-Length` past it is refused before
/// anything is read, and a body without one is read only up to one chunk past it.
pub(crate) async fn read_body(headers: &HeaderMap, body: Body, max: usize) -> Result<Vec<u8>, Problem> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large(max));
    }
    let mut bytes = Vec::with_capacity(declared.map_or(0, |n| n as usize));
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            Problem::bad(codes::INVALID_REQUEST, format!("the body could not be read: {e}")).field("body")
        })?;
        if bytes.len() + chunk.len() > max {
            return Err(too_large(max));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The body's JSON refused: not JSON at all (`not_json`, `truncated`, `empty`: 400), or not the
/// request object (`invalid_request`: 400).
fn body_error(e: &serde_json::Error) -> Problem {
    use serde_json::error::Category;
    let message = spate_planner_core::json::message(e);
    let code = match e.classify() {
        Category::Eof => ErrorCode::Truncated.as_str(),
        Category::Syntax | Category::Io => ErrorCode::NotJson.as_str(),
        Category::Data => codes::INVALID_REQUEST,
    };
    let what = if code == codes::INVALID_REQUEST {
        "not the request object"
    } else {
        "not a JSON document"
    };
    Problem::bad(code, format!("the body is {what}: {message}")).field("body")
}

/// The body as a request for `doc`: the snapshot's text and what to plan with.
pub(crate) fn parse_body(bytes: &[u8], doc: Doc) -> Result<(String, Ask), Problem> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Problem::bad(
            ErrorCode::NotJson.as_str(),
            format!(
                "the body is not a JSON document: invalid UTF-8 at byte {}",
                e.valid_up_to()
            ),
        )
        .field("body")
    })?;
    if text.trim().is_empty() {
        return Err(Problem::bad(
            ErrorCode::Empty.as_str(),
            "the body is empty: send {\"snapshot\": {…}}",
        )
        .field("body"));
    }
    let scenario = |s: Option<&RawValue>| s.filter(|s| s.get() != "null").map(|s| s.get().to_string());
    match doc {
        Doc::Plan => {
            let b: PlanBody = serde_json::from_str(text).map_err(|e| body_error(&e))?;
            Ok((
                b.snapshot.get().to_string(),
                Ask {
                    scenario: scenario(b.scenario),
                    max_attempts: b.max_attempts,
                    strict: b.strict.unwrap_or(false),
                    ..Ask::default()
                },
            ))
        }
        Doc::Claims => {
            let b: ClaimsBody = serde_json::from_str(text).map_err(|e| body_error(&e))?;
            Ok((
                b.snapshot.get().to_string(),
                Ask {
                    scenario: scenario(b.scenario),
                    max_attempts: b.max_attempts,
                    strict: b.strict.unwrap_or(false),
                    after_plan: b.after_plan.unwrap_or(false),
                    instance: b.instance,
                },
            ))
        }
    }
}

/// A query's parameters, `application/x-www-form-urlencoded` (`+` is a space), each at most
/// once and each one `doc` takes.
pub(crate) fn parse_query(query: Option<&str>, doc: Doc) -> Result<Ask, Problem> {
    let known: &[&str] = match doc {
        Doc::Plan => &["scenario", "max_attempts", "strict"],
        Doc::Claims => &["scenario", "max_attempts", "strict", "after_plan", "instance"],
    };
    let mut ask = Ask::default();
    let mut seen: Vec<String> = Vec::new();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = decode(k, "a parameter's name")?;
        let v = decode(v, &k)?;
        let bad = |why: String| Problem::bad(codes::INVALID_PARAMETER, why).field(k.clone());
        if !known.contains(&k.as_str()) {
            return Err(bad(format!(
                "unknown query parameter {k:?}: this route takes {}",
                known.join(", ")
            )));
        }
        if seen.contains(&k) {
            return Err(bad(format!("the query parameter {k:?} is given twice")));
        }
        seen.push(k.clone());
        match k.as_str() {
            "scenario" => ask.scenario = Some(v),
            "max_attempts" => {
                ask.max_attempts = Some(v.parse::<u32>().ok().filter(|_| plain_digits(&v)).ok_or_else(
                    || {
                        bad(format!(
                            "max_attempts {v:?}: give a whole number from 0 to 4294967295"
                        ))
                    },
                )?)
            }
            "instance" => ask.instance = Some(v),
            flag => {
                let on = match v.as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad(format!("{flag} {v:?}: give true or false"))),
                };
                if flag == "strict" {
                    ask.strict = on;
                } else {
                    ask.after_plan = on;
                }
            }
        }
    }
    Ok(ask)
}

/// Digits only (no sign: `u32::from_str` takes `+4`).
fn plain_digits(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())
}

/// A query component, `+` as a space and %-escapes decoded; it must be UTF-8.
fn decode(text: &str, what: &str) -> Result<String, Problem> {
    let spaced = text.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| {
            Problem::bad(
                codes::INVALID_PARAMETER,
                format!("{what}: the query is not UTF-8 once %-decoded"),
            )
            .field(what.to_string())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_read_strictly() {
        let a = parse_query(
            Some("scenario=%7B%22max_attempts%22%3A+3%7D&max_attempts=5&strict=true"),
            Doc::Plan,
        )
        .unwrap();
        assert_eq!(a.scenario.as_deref(), Some("{\"max_attempts\": 3}"));
        assert_eq!(a.max_attempts, Some(5));
        assert!(a.strict);
        let code = |q: &str, d| parse_query(Some(q), d).unwrap_err().doc;
        for (q, field) in [
            ("after_plan=true", "after_plan"),
            ("max_attempts=-1", "max_attempts"),
            ("max_attempts=%2B4", "max_attempts"),
            ("max_attempts=4294967296", "max_attempts"),
            ("strict=1", "strict"),
            ("strict=true&strict=true", "strict"),
            ("x=1", "x"),
        ] {
            let e = code(q, Doc::Plan);
            assert_eq!(
                (e.code.as_str(), e.field.as_deref()),
                (codes::INVALID_PARAMETER, Some(field)),
                "{q}"
            );
        }
        let c = parse_query(Some("after_plan=true&instance=w-1"), Doc::Claims).unwrap();
        assert!(c.after_plan);
        assert_eq!(c.instance.as_deref(), Some("w-1"));
        assert_eq!(code("scenario=%FF", Doc::Plan).field.as_deref(), Some("scenario"));
    }

    #[test]
    fn bodies_are_read_strictly() {
        let (snap, ask) = parse_body(
            br#"{"snapshot": {"a": [1, 2]}, "scenario": {"changes": []}, "max_attempts": 3}"#,
            Doc::Plan,
        )
        .unwrap();
        assert_eq!(snap, r#"{"a": [1, 2]}"#);
        assert_eq!(ask.scenario.as_deref(), Some(r#"{"changes": []}"#));
        assert_eq!(ask.max_attempts, Some(3));
        let (_, ask) = parse_body(br#"{"snapshot": 1, "scenario": null}"#, Doc::Plan).unwrap();
        assert_eq!(ask.scenario, None);
        let code = |b: &[u8], d| {
            let e = parse_body(b, d).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST);
            e.doc.code
        };
        assert_eq!(code(b"", Doc::Plan), "empty");
        assert_eq!(code(b"{\"snapshot\": {", Doc::Plan), "truncated");
        assert_eq!(code(b"nope", Doc::Plan), "not_json");
        assert_eq!(code(b"\xff", Doc::Plan), "not_json");
        assert_eq!(code(b"{}", Doc::Plan), "invalid_request");
        assert_eq!(code(b"[]", Doc::Plan), "invalid_request");
        assert_eq!(
            code(br#"{"snapshot":1,"after_plan":true}"#, Doc::Plan),
            "invalid_request"
        );
        assert_eq!(
            code(br#"{"snapshot":1,"snapshot":1}"#, Doc::Plan),
            "invalid_request"
        );
        assert_eq!(
            code(br#"{"snapshot":1,"max_attempts":-1}"#, Doc::Claims),
            "invalid_request"
        );
        assert!(parse_body(br#"{"snapshot":1,"after_plan":true,"instance":"w"}"#, Doc::Claims).is_ok());
    }

    #[test]
    fn only_json_bodies() {
        let with = |ct: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, ct.parse().unwrap());
            check_json(&h).is_ok()
        };
        assert!(with("application/json"));
        assert!(with("application/json; charset=utf-8"));
        assert!(with("Application/JSON"));
        assert!(!with("application/merge-patch+json"));
        assert!(!with("text/plain"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(check_json(&HeaderMap::new()).is_err());
    }
}
