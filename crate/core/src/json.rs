//! Reading JSON input as strictly as every input format promises: a byte-order mark before the
//! document is skipped (as some editors save UTF-8), an object with a key twice is refused (a
//! file whose meaning depends on which copy wins is not read), and an integer too large for 64
//! bits is said to be one rather than shown as the floating-point number serde_json reads it as.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The largest u64, as every message writes it.
pub const U64_MAX_TEXT: &str = "18446744073709551615";

/// 2^64 as an f64: the smallest float serde_json gives for an integer literal past u64.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// `text` without a leading byte-order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Why a JSON number is not a u64: a negative, fractional or exponent form, or one past 2^64.
pub fn not_a_u64(v: f64) -> String {
    if v >= TWO_POW_64 {
        format!("the number is larger than the largest u64 ({U64_MAX_TEXT})")
    } else {
        format!("the number {v} is not an integer in 0..={U64_MAX_TEXT} written in digits")
    }
}

/// The largest value of the integer type serde names (`u64`, `i64`, `u32`, …), as text.
fn largest(ty: &str) -> Option<(&'static str, f64)> {
    Some(match ty {
        "u64" => (U64_MAX_TEXT, TWO_POW_64),
        "i64" => ("9223372036854775807", 9_223_372_036_854_775_808.0),
        "u32" => ("4294967295", 4_294_967_296.0),
        "i32" => ("2147483647", 2_147_483_648.0),
        "u16" => ("65535", 65_536.0),
        "u8" => ("255", 256.0),
        _ => return None,
    })
}

/// serde_json's message for `e`, with "invalid type: floating point `1.8446744073709552e19`,
/// expected u64" (what it says of an integer literal past u64) said as what it is, naming the
/// integer type expected (`i64`, `u32`, …) and its largest value.
pub fn message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let Some(start) = text.find("invalid type: floating point `") else {
        return text;
    };
    let from = start + "invalid type: floating point `".len();
    let Some(len) = text[from..].find('`') else {
        return text;
    };
    let rest = &text[from + len + 1..];
    let ty = rest
        .strip_prefix(", expected ")
        .map(|r| r.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or(""));
    let Ok(v) = text[from..from + len].parse::<f64>() else {
        return text;
    };
    match ty.and_then(largest) {
        Some((max, limit)) if v >= limit => {
            let ty = ty.unwrap_or_default();
            let rest = rest.replacen(&format!(", expected {ty}"), "", 1);
            format!(
                "{}the number is larger than the largest {ty} ({max}){rest}",
                &text[..start]
            )
        }
        None if v >= TWO_POW_64 => {
            let rest = rest.replace(", expected u64", "");
            format!("{}{}{rest}", &text[..start], not_a_u64(v))
        }
        _ => text,
    }
}

/// A JSON document as a [`Value`], refusing an object that has a key twice (serde_json's own
/// `Value` keeps the last copy silently). The error names the key, with serde_json's position.
pub fn strict_value(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(without_bom(text));
    let v = Strict::deserialize(&mut de)?;
    de.end()?;
    Ok(v.0)
}

struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key {key:?} appears twice in one object"
                )));
            }
            let Strict(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_key_twice_is_refused_at_any_depth() {
        let e = strict_value(r#"{"a":1,"a":2}"#).unwrap_err().to_string();
        assert!(e.contains("the key \"a\" appears twice"), "{e}");
        let e = strict_value(r#"{"x":[{"op":"b","m":1,"m":1}]}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the key \"m\" appears twice") && e.contains("column"),
            "{e}"
        );
        assert_eq!(
            strict_value("\u{feff}{\"a\":[1,\"s\",null,true,-2,1.5]}").unwrap(),
            serde_json::json!({"a": [1, "s", null, true, -2, 1.5]})
        );
        assert!(strict_value("{} x").is_err());
    }

    #[test]
    fn an_integer_past_u64_is_said_to_be_one() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct R {
            n: u64,
        }
        let e = serde_json::from_str::<R>(r#"{"n":18446744073709551616}"#).unwrap_err();
        let m = message(&e);
        assert!(
            m.starts_with("the number is larger than the largest u64 (18446744073709551615)"),
            "{m}"
        );
        assert!(m.contains("line 1 column"), "{m}");
        assert!(!m.contains("floating point"), "{m}");
        let e = serde_json::from_str::<R>(r#"{"n":1.5}"#).unwrap_err();
        assert!(message(&e).contains("floating point `1.5`"), "{}", message(&e));
        assert_eq!(
            not_a_u64(1.5),
            "the number 1.5 is not an integer in 0..=18446744073709551615 written in digits"
        );
    }
}
