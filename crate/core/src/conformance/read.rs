//! Reading a vector file in one pass straight from its text: each case's `input` and `expect`
//! are kept as their text (`RawValue`, borrowed from the file), from which the op's typed struct
//! is read later. No JSON tree of the inputs (most of a file's bytes) is built, copied or freed.
//! A case that is not an object is read as such and fails alone.

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

#[derive(Deserialize)]
pub(super) struct VectorFile<'a> {
    pub format: String,
    /// The release whose logic every case needs, unless a case says otherwise.
    #[serde(default)]
    pub spate_version: Option<Value>,
    #[serde(borrow)]
    pub cases: Vec<Entry<'a>>,
}

/// One case, its input and expected result left as text.
#[derive(Deserialize)]
pub(super) struct Case<'a> {
    #[serde(default)]
    pub name: Option<Value>,
    #[serde(default)]
    pub op: Option<Value>,
    #[serde(default)]
    pub spate_version: Option<Value>,
    #[serde(borrow, default)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub expect: Option<&'a RawValue>,
}

/// An element of `cases`: a case, or what stands there instead (said in words).
pub(super) enum Entry<'a> {
    Case(Case<'a>),
    NotACase(&'static str),
}

impl<'de: 'a, 'a> Deserialize<'de> for Entry<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry<'a>, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a case")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entry<'de>, A::Error> {
        Case::deserialize(MapAccessDeserializer::new(map)).map(Entry::Case)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Entry::NotACase("an array"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Entry<'de>, E> {
        Ok(Entry::NotACase("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Entry<'de>, E> {
        Ok(Entry::NotACase("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Entry<'de>, E> {
        Ok(Entry::NotACase("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Entry<'de>, E> {
        Ok(Entry::NotACase("a number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Entry<'de>, E> {
        Ok(Entry::NotACase("a string"))
    }

    fn visit_unit<E>(self) -> Result<Entry<'de>, E> {
        Ok(Entry::NotACase("null"))
    }
}
