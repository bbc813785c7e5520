//! A strict reader over a JSON value that names the path of every field it refuses.
//!
//! serde's `deny_unknown_fields` refuses unknown fields but does not say where they are; the
//! script format promises errors naming the field path (`events[2].member`), so the script is
//! read field by field through [`Obj`], which refuses leftovers by name.

use super::config::Chance;
use super::options::SimError;
use serde_json::{Map, Value};
use spate_planner_core::ErrorCode;

/// A JSON object being read; every field taken is removed, and [`Obj::finish`] refuses the rest.
pub(crate) struct Obj {
    path: String,
    map: Map<String, Value>,
}

/// `a.b`, or `b` at the root.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

pub(crate) fn invalid(path: &str, message: impl Into<String>) -> SimError {
    SimError::new(ErrorCode::InvalidScript, path, message)
}

impl Obj {
    pub(crate) fn new(v: Value, path: &str) -> Result<Obj, SimError> {
        match v {
            Value::Object(map) => Ok(Obj {
                path: path.to_string(),
                map,
            }),
            other => Err(invalid(
                if path.is_empty() { "$" } else { path },
                format!("expected an object, found {}", kind(&other)),
            )),
        }
    }

    pub(crate) fn path(&self, key: &str) -> String {
        join(&self.path, key)
    }

    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    pub(crate) fn u64(&mut self, key: &str) -> Result<Option<u64>, SimError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => as_u64(&v, &self.path(key)).map(Some),
        }
    }

    pub(crate) fn u32(&mut self, key: &str) -> Result<Option<u32>, SimError> {
        match self.u64(key)? {
            None => Ok(None),
            Some(n) => u32::try_from(n)
                .map(Some)
                .map_err(|_| invalid(&self.path(key), format!("{n} does not fit in 32 bits"))),
        }
    }

    /// A probability from 0 to 1 (`claim_race`).
    pub(crate) fn chance(&mut self, key: &str) -> Result<Option<Chance>, SimError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => {
                let p = v.as_f64().and_then(Chance::from_f64);
                p.map(Some).ok_or_else(|| {
                    invalid(
                        &self.path(key),
                        format!("{key} is a probability from 0 to 1, found {v}"),
                    )
                })
            }
        }
    }

    pub(crate) fn string(&mut self, key: &str) -> Result<Option<String>, SimError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(invalid(
                &self.path(key),
                format!("expected a string, found {}", kind(&other)),
            )),
        }
    }

    pub(crate) fn bool(&mut self, key: &str) -> Result<Option<bool>, SimError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(invalid(
                &self.path(key),
                format!("expected true or false, found {}", kind(&other)),
            )),
        }
    }

    pub(crate) fn require<T>(&self, key: &str, v: Option<T>) -> Result<T, SimError> {
        v.ok_or_else(|| invalid(&self.path(key), format!("missing field {key:?}")))
    }

    /// Refuses any field not in `allowed`, naming the first (in key order). Called before the
    /// fields are read, so a misspelt field is reported as unknown rather than as missing.
    pub(crate) fn only(&self, allowed: &[&str]) -> Result<(), SimError> {
        match self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(invalid(&join(&self.path, k), format!("unknown field {k:?}"))),
        }
    }

    /// Refuses any field not taken, naming the first (in key order).
    pub(crate) fn finish(self) -> Result<(), SimError> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(k) => Err(invalid(&join(&self.path, k), format!("unknown field {k:?}"))),
        }
    }
}

pub(crate) fn as_u64(v: &Value, path: &str) -> Result<u64, SimError> {
    v.as_u64().ok_or_else(|| match v.as_f64() {
        Some(f) if f >= 0.0 && !v.is_i64() => invalid(path, spate_planner_core::json::not_a_u64(f)),
        _ => invalid(
            path,
            format!("expected an integer from 0 to 18446744073709551615, found {v}"),
        ),
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A number past u64 in a script is said to be one ("larger than the largest u64"), not
    /// shown as the floating-point number JSON readers turn it into; others say what they are.
    #[test]
    fn a_number_past_u64_is_named_so() {
        let past: Value = serde_json::from_str("18446744073709551616").unwrap();
        let e = as_u64(&past, "seed").unwrap_err();
        assert_eq!(e.path, "seed");
        assert!(
            e.message
                .contains("larger than the largest u64 (18446744073709551615)"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("e+19"), "{}", e.message);
        let max: Value = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(as_u64(&max, "seed").unwrap(), u64::MAX);
        let neg: Value = serde_json::from_str("-1").unwrap();
        assert!(as_u64(&neg, "seed").unwrap_err().message.contains("found -1"));
    }
}
