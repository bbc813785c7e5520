//! How the planner's documents carry 64-bit integers: as decimal strings.
//!
//! Weights and loads are byte counts up to `u64::MAX`; JavaScript's numbers (and many JSON tools)
//! round integers above 2^53. So every document the planner prints or hands to the page is
//! serialized through [`Exact`], which writes each `u64`, `i64`, `u128` and `i128` as a decimal
//! string and leaves everything else alone. Counts are `u32` in the document types, so they stay
//! JSON numbers. This is the one mechanism: the command line's `--json` output and the values the
//! wasm layer hands to JavaScript go through it, so both carry the same shape.
//!
//! The store's own records (snapshot files) are not documents of the planner and keep their
//! integers as JSON numbers, exactly as Spate writes them.

use serde::ser::{self, Serialize, Serializer};

/// Reading back what [`Exact`] writes: 64- and 128-bit integers from a JSON number or a decimal
/// string (JavaScript writes exact values as strings, and the planner's own documents carry
/// them so). For `#[serde(deserialize_with = "…")]`.
pub mod wide {
    use serde::de::{self, Deserializer, Visitor};
    use std::fmt;

    macro_rules! wide {
        ($visitor:ident, $t:ty, $read:ident) => {
            struct $visitor;

            impl Visitor<'_> for $visitor {
                type Value = $t;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    write!(
                        f,
                        "an integer in 0..={} (a number or a decimal string)",
                        <$t>::MAX
                    )
                }
                fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                    Ok(v.into())
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(E::invalid_value(de::Unexpected::Str(v), &self));
                    }
                    v.parse()
                        .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }

            pub fn $read<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                d.deserialize_any($visitor)
            }
        };
    }

    wide!(Wide64, u64, u64);
    wide!(Wide128, u128, u128);

    /// A present `u64` (a field that is absent takes its default; `null` is refused).
    pub fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        u64(d).map(Some)
    }

    struct Nullable;

    impl<'de> Visitor<'de> for Nullable {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("null or an integer in 0..=18446744073709551615")
        }
        fn visit_none<E: de::Error>(self) -> Result<Option<u64>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<u64>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
            u64(d).map(Some)
        }
    }

    /// A `u64` or `null` (`None`, as [`super::Exact`] writes it).
    pub fn nullable_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        d.deserialize_option(Nullable)
    }
}

/// Serializes the wrapped value with 64- and 128-bit integers as decimal strings.
pub struct Exact<'a, T: ?Sized>(pub &'a T);

impl<T: Serialize + ?Sized> Serialize for Exact<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Wrap(s))
    }
}

/// A document as compact JSON text, 64-bit integers as strings.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Exact(value))
}

/// A count for a document: `n`, or `u32::MAX` if it does not fit (it always does for inputs the
/// planner accepts).
pub fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

struct Wrap<S>(S);

macro_rules! forward {
    ($($method:ident($t:ty);)*) => {
        $(fn $method(self, v: $t) -> Result<S::Ok, S::Error> {
            self.0.$method(v)
        })*
    };
}

macro_rules! as_text {
    ($($method:ident($t:ty);)*) => {
        $(fn $method(self, v: $t) -> Result<S::Ok, S::Error> {
            self.0.collect_str(&v)
        })*
    };
}

impl<S: Serializer> Serializer for Wrap<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Wrap<S::SerializeSeq>;
    type SerializeTuple = Wrap<S::SerializeTuple>;
    type SerializeTupleStruct = Wrap<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Wrap<S::SerializeTupleVariant>;
    type SerializeMap = Wrap<S::SerializeMap>;
    type SerializeStruct = Wrap<S::SerializeStruct>;
    type SerializeStructVariant = Wrap<S::SerializeStructVariant>;

    forward! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_f32(f32);
        serialize_f64(f64); serialize_char(char); serialize_str(&str); serialize_bytes(&[u8]);
    }
    as_text! {
        serialize_i64(i64); serialize_u64(u64); serialize_i128(i128); serialize_u128(u128);
    }

    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Exact(v))
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(self, name: &'static str, i: u32, v: &'static str) -> Result<S::Ok, S::Error> {
        self.0.serialize_unit_variant(name, i, v)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Exact(v))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_variant(name, i, variant, &Exact(v))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(Wrap)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Wrap)
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Wrap)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0.serialize_tuple_variant(name, i, variant, len).map(Wrap)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(Wrap)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Wrap)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0.serialize_struct_variant(name, i, variant, len).map(Wrap)
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! compound {
    ($tr:ident, $method:ident) => {
        impl<C: ser::$tr> ser::$tr for Wrap<C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
                self.0.$method(&Exact(v))
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.0.end()
            }
        }
    };
}
compound!(SerializeSeq, serialize_element);
compound!(SerializeTuple, serialize_element);
compound!(SerializeTupleStruct, serialize_field);
compound!(SerializeTupleVariant, serialize_field);

macro_rules! named_compound {
    ($tr:ident) => {
        impl<C: ser::$tr> ser::$tr for Wrap<C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), C::Error> {
                self.0.serialize_field(key, &Exact(v))
            }
            fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
                self.0.skip_field(key)
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.0.end()
            }
        }
    };
}
named_compound!(SerializeStruct);
named_compound!(SerializeStructVariant);

impl<C: ser::SerializeMap> ser::SerializeMap for Wrap<C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), C::Error> {
        // Keys are written as they are: JSON object keys are strings already.
        self.0.serialize_key(k)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), C::Error> {
        self.0.serialize_value(&Exact(v))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.0.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Serialize)]
    enum Kind {
        Load { weight: u64 },
        Pair(u64, u32),
    }

    #[derive(Serialize)]
    struct Doc {
        count: u32,
        weight: u64,
        taken_at: i64,
        gain: u128,
        ratio: f64,
        maybe: Option<u64>,
        none: Option<u64>,
        list: Vec<u64>,
        map: BTreeMap<String, u64>,
        kinds: Vec<Kind>,
        name: &'static str,
    }

    #[test]
    fn wide_integers_become_strings_and_nothing_else_changes() {
        let doc = Doc {
            count: 7,
            weight: u64::MAX,
            taken_at: -5,
            gain: u128::MAX,
            ratio: 1.5,
            maybe: Some(9_007_199_254_740_993),
            none: None,
            list: vec![1, 2],
            map: BTreeMap::from([("a".to_string(), 3)]),
            kinds: vec![Kind::Load { weight: 4 }, Kind::Pair(5, 6)],
            name: "n",
        };
        assert_eq!(
            to_json(&doc).unwrap(),
            concat!(
                r#"{"count":7,"weight":"18446744073709551615","taken_at":"-5","#,
                r#""gain":"340282366920938463463374607431768211455","ratio":1.5,"#,
                r#""maybe":"9007199254740993","none":null,"list":["1","2"],"map":{"a":"3"},"#,
                r#""kinds":[{"Load":{"weight":"4"}},{"Pair":["5",6]}],"name":"n"}"#
            )
        );
    }

    #[test]
    fn counts_saturate_rather_than_wrap() {
        assert_eq!(count(3), 3);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(count(usize::MAX), u32::MAX);
    }
}
