//! What crosses into JavaScript and back: errors with their `code` and `path`, a core value as a
//! plain object with 64-bit integers as decimal strings, a u64 read from its decimal string.

use serde::Serialize;
use spate_planner_core::Exact;
use wasm_bindgen::prelude::*;

/// A JS `Error` with a stable `code` and, when given, the `path` (bucket, key or field) at fault.
pub(crate) fn error(code: &str, message: &str, path: Option<&str>) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = js_sys::Reflect::set(&e, &"code".into(), &code.into());
    if let Some(p) = path {
        let _ = js_sys::Reflect::set(&e, &"path".into(), &p.into());
    }
    e.into()
}

/// A core value as a plain JS object, 64-bit integers as decimal strings.
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    Exact(v)
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| {
            error(
                "internal",
                &format!("cannot convert a result for JavaScript: {e}"),
                None,
            )
        })
}

/// How a large core value crosses into JavaScript: `Json`, its JSON text (`to_json`: serde_json in
/// the module, 64-bit integers as decimal strings) read by the engine's `JSON.parse`, somewhat
/// faster for a large value (a plan of 11,748 moves: 32 ms instead of 38–48 in Node) than
/// `Objects`, the same object built property by property (`to_js`). Both give the same object for
/// the values the core makes, whose numbers are finite (JSON has no NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    Json,
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    Objects,
}

/// A core value as a plain JS object, 64-bit integers as decimal strings, made as `via` says.
pub(crate) fn to_js_via<T: Serialize + ?Sized>(v: &T, via: Via) -> Result<JsValue, JsValue> {
    if via == Via::Objects {
        return to_js(v);
    }
    let text = spate_planner_core::to_json(v).map_err(|e| {
        error(
            "internal",
            &format!("cannot convert a result for JavaScript: {e}"),
            None,
        )
    })?;
    js_sys::JSON::parse(&text)
}

pub(crate) fn parse_u64(field: &str, s: &str) -> Result<u64, JsValue> {
    s.parse::<u64>().map_err(|_| {
        error(
            "invalid_u64",
            &format!("{field}: {s:?} is not an integer in 0..=18446744073709551615"),
            Some(field),
        )
    })
}
