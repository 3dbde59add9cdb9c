//! Lossless JSON ↔ XBF 2 (SPEC.md, "JSON mapping"); behind the `json` feature.
//!
//! JSON text becomes an XBF 2 value whose type is inferred from the whole
//! document: arrays whose elements share a shape become a `vec` of one
//! type, so that an array of records becomes `vec<struct>` with every field
//! name sent once. Converting back gives the same JSON value: the same key
//! order, `1` stays `1` and `1.0` stays `1.0`, integers up to 256 bits keep
//! every digit, and `null` stays distinct from a missing key.
//!
//! ```
//! let json = r#"[{"id": 1, "tag": "a"}, {"id": 2, "tag": null, "x": 1.0}]"#;
//! let value = xbf::json::from_json_str(json)?;
//! assert_eq!(
//!     value.metadata().to_string(),
//!     "vec<struct Object { id: u64, tag: option<string>, x: enum \"json.optional\" { absent, present: f64 } }>"
//! );
//! assert_eq!(xbf::json::to_json_string(&value, false)?, r#"[{"id":1,"tag":"a"},{"id":2,"tag":null,"x":1.0}]"#);
//! # Ok::<(), xbf::Error>(())
//! ```

use std::sync::Arc;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{EnumMetadata, Metadata, PrimitiveType as P, StructMetadata};
use crate::value::{AnyValue, EnumValue, OptionValue, StructValue, Value, VecValue, I256, U256};

/// The name of the enum that marks a key some objects lack:
/// `enum "json.optional" { absent, present: T }`.
pub const OPTIONAL_KEY_ENUM: &str = "json.optional";
/// The name given to structs inferred from JSON objects.
pub const OBJECT_STRUCT: &str = "Object";

fn json_err(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::TypeMismatch, detail)
}

/// Parses JSON text into an XBF 2 value (see the module documentation).
pub fn from_json_str(text: &str) -> Result<Value> {
    let doc = Json::parse(text)?;
    let shape = Shape::of(&doc)?;
    let ty = shape.metadata();
    if ty.depth() > 128 {
        return Err(json_err(format!("the document nests {} levels; XBF readers allow 128", ty.depth())));
    }
    build(&doc, &ty)
}

/// Reads JSON from `reader` into an XBF 2 value.
pub fn from_json_reader<R: std::io::Read>(mut reader: R) -> Result<Value> {
    let mut text = String::new();
    reader.read_to_string(&mut text).map_err(|e| json_err(format!("cannot read JSON: {e}")))?;
    from_json_str(&text)
}

/// The JSON text of an XBF value, compact or indented (see [`to_json`] for
/// the forms of the types JSON lacks).
pub fn to_json_string(value: &Value, pretty: bool) -> Result<String> {
    let doc = to_json(value)?;
    let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) };
    text.map_err(|e| json_err(e.to_string()))
}

// -------------------------------------------------------------- JSON tree

/// A JSON document with every number kept as its text, so that no digit
/// and no `.0` is lost (serde_json's own `Value` would turn integers past
/// 64 bits into floats).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in their order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Whether two documents are the same JSON value: the same key order,
    /// integers equal as integers, floats equal as f64 (bit for bit, so
    /// `-0.0` is not `0.0`), and an integer never equal to a float.
    pub fn same_value(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Number(a), Json::Number(b)) => match (is_integer_text(a), is_integer_text(b)) {
                (true, true) => int_of(a) == int_of(b),
                (false, false) => {
                    let bits = |t: &str| t.parse::<f64>().ok().map(f64::to_bits);
                    bits(a).is_some() && bits(a) == bits(b)
                }
                _ => false,
            },
            (Json::Array(a), Json::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_value(y)),
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && va.same_value(vb))
            }
            _ => self == other,
        }
    }

    /// Parses JSON text (nesting limited to 128 levels by serde_json).
    pub fn parse(text: &str) -> Result<Json> {
        let raw: Box<RawValue> = serde_json::from_str(text).map_err(|e| json_err(format!("invalid JSON: {e}")))?;
        Json::from_raw(&raw)
    }

    /// Each level reads its members as raw text and parses them in turn:
    /// numbers thus keep their text.
    fn from_raw(raw: &RawValue) -> Result<Json> {
        let text = raw.get();
        let bad = |e: serde_json::Error| json_err(format!("invalid JSON: {e}"));
        Ok(match text.as_bytes().first() {
            Some(b'n') => Json::Null,
            Some(b't') => Json::Bool(true),
            Some(b'f') => Json::Bool(false),
            Some(b'"') => Json::String(serde_json::from_str(text).map_err(bad)?),
            Some(b'[') => {
                let items: Vec<Box<RawValue>> = serde_json::from_str(text).map_err(bad)?;
                Json::Array(items.iter().map(|i| Json::from_raw(i)).collect::<Result<_>>()?)
            }
            Some(b'{') => {
                let Members(members) = serde_json::from_str(text).map_err(bad)?;
                let mut out = Vec::with_capacity(members.len());
                for (k, v) in members {
                    if out.iter().any(|(seen, _): &(String, Json)| *seen == k) {
                        return Err(json_err(format!("the key {k:?} appears twice in one object")));
                    }
                    out.push((k, Json::from_raw(&v)?));
                }
                Json::Object(out)
            }
            _ => Json::Number(text.to_owned()),
        })
    }
}

/// An object's members as raw values, in order, duplicates kept.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    members.push((k, map.next_value::<Box<RawValue>>()?));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(text) => RawValue::from_string(text.clone()).map_err(serde::ser::Error::custom)?.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Json::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

// ------------------------------------------------------------------ shapes

/// What the inference knows of the values at one place of the document.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// No value seen (the elements of empty arrays).
    Never,
    Null,
    Bool,
    Int(Ints),
    Float,
    Str,
    Arr(Box<Shape>),
    Obj(Obj),
    /// Values of the inner shape, or null.
    Nullable(Box<Shape>),
    /// Values of different kinds: each carries its own type.
    Any,
}

/// What the integers at one place need: the bits of the largest
/// non-negative one (as unsigned) and of the most negative one (as two's
/// complement, sign included); 0 where there are none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ints {
    ubits: u32,
    sbits: u32,
}

#[derive(Clone, Debug, PartialEq)]
struct Obj {
    /// Keys in the order every object agrees with, with their shapes and how
    /// many objects have them.
    fields: Vec<(String, Shape, u64)>,
    /// How many objects were merged.
    count: u64,
}

impl Ints {
    /// The needs of one integer, or `None` if no 256-bit type holds it.
    fn of(text: &str) -> Option<Ints> {
        if text.starts_with('-') {
            let v = I256::from_str_radix(text, 10).ok()?;
            if v >= 0 {
                // "-0" is the integer 0.
                return Some(Ints { ubits: 0, sbits: 0 });
            }
            Some(Ints { ubits: 0, sbits: 257 - (!v).leading_zeros() })
        } else {
            let v = U256::from_str_radix(text, 10).ok()?;
            Some(Ints { ubits: 256 - v.leading_zeros(), sbits: 0 })
        }
    }

    fn join(self, other: Ints) -> Ints {
        Ints { ubits: self.ubits.max(other.ubits), sbits: self.sbits.max(other.sbits) }
    }

    /// The narrowest XBF integer type that holds them all: unsigned when
    /// none is negative (varints are then smallest), else signed.
    fn primitive(self) -> Option<P> {
        if self.sbits == 0 {
            return Some(match self.ubits {
                0..=64 => P::U64,
                65..=128 => P::U128,
                _ => P::U256,
            });
        }
        match self.sbits.max(self.ubits + 1) {
            0..=64 => Some(P::I64),
            65..=128 => Some(P::I128),
            129..=256 => Some(P::I256),
            _ => None,
        }
    }
}

/// An integer's value, sign apart from magnitude ("-0" is 0).
fn int_of(text: &str) -> Option<(bool, U256)> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let m = U256::from_str_radix(digits, 10).ok()?;
    Some((neg && m != U256::ZERO, m))
}

fn is_integer_text(text: &str) -> bool {
    !text.contains(['.', 'e', 'E'])
}

impl Shape {
    fn of(j: &Json) -> Result<Shape> {
        Ok(match j {
            Json::Null => Shape::Null,
            Json::Bool(_) => Shape::Bool,
            Json::Number(text) => {
                if is_integer_text(text) {
                    Shape::Int(Ints::of(text).ok_or_else(|| {
                        json_err(format!("the integer {text} is wider than XBF's widest type (256 bits)"))
                    })?)
                } else {
                    check_float(text)?;
                    Shape::Float
                }
            }
            Json::String(_) => Shape::Str,
            Json::Array(items) => {
                let mut elem = Shape::Never;
                for item in items {
                    elem = elem.join(Shape::of(item)?);
                }
                Shape::Arr(Box::new(elem))
            }
            Json::Object(members) => {
                let mut fields = Vec::with_capacity(members.len());
                for (k, v) in members {
                    fields.push((k.clone(), Shape::of(v)?, 1));
                }
                Shape::Obj(Obj { fields, count: 1 })
            }
        })
    }

    /// The least shape that describes values of both, losing nothing.
    fn join(self, other: Shape) -> Shape {
        use Shape::*;
        match (self, other) {
            (Never, s) | (s, Never) => s,
            (Any, _) | (_, Any) => Any,
            (Null, Null) => Null,
            (Null, Nullable(s)) | (Nullable(s), Null) => Nullable(s),
            (Null, s) | (s, Null) => Nullable(Box::new(s)),
            (Nullable(a), Nullable(b)) => nullable(a.join(*b)),
            (Nullable(a), b) | (b, Nullable(a)) => nullable(a.join(b)),
            (Bool, Bool) => Bool,
            (Int(a), Int(b)) => {
                let both = a.join(b);
                // Past 256 bits with a sign: no one type holds both.
                if both.primitive().is_some() {
                    Int(both)
                } else {
                    Any
                }
            }
            (Float, Float) => Float,
            (Str, Str) => Str,
            (Arr(a), Arr(b)) => Arr(Box::new(a.join(*b))),
            (Obj(a), Obj(b)) => a.join(b).map_or(Any, Obj),
            // 1 and 1.0 must stay apart, so ints and floats do not mix.
            _ => Any,
        }
    }

    fn metadata(&self) -> Metadata {
        match self {
            Shape::Never | Shape::Null => Metadata::UNIT,
            Shape::Bool => P::Bool.into(),
            Shape::Int(c) => c.primitive().expect("joins keep a type").into(),
            Shape::Float => P::F64.into(),
            Shape::Str => P::String.into(),
            Shape::Arr(e) => Metadata::vec(e.metadata()),
            Shape::Nullable(s) => Metadata::option(s.metadata()),
            Shape::Any => Metadata::Any,
            Shape::Obj(o) => {
                let fields = o.fields.iter().map(|(k, s, n)| {
                    let ty = s.metadata();
                    (k.as_str(), if *n < o.count { optional_key(ty) } else { ty })
                });
                StructMetadata::new(OBJECT_STRUCT, fields).expect("JSON object keys are unique").into()
            }
        }
    }
}

/// `Nullable` of a shape that may already be nullable.
fn nullable(s: Shape) -> Shape {
    match s {
        Shape::Null | Shape::Nullable(_) => s,
        s => Shape::Nullable(Box::new(s)),
    }
}

impl Obj {
    /// Merges another object's keys, if both orders can be kept: every
    /// object's keys must appear in the merged order.
    fn join(mut self, other: Obj) -> Option<Obj> {
        let mut last: Option<usize> = None;
        for (key, shape, n) in other.fields {
            match self.fields.iter().position(|(k, _, _)| *k == key) {
                Some(i) => {
                    if last.is_some_and(|l| i <= l) {
                        return None;
                    }
                    let (_, s, count) = &mut self.fields[i];
                    *s = std::mem::replace(s, Shape::Never).join(shape);
                    *count += n;
                    last = Some(i);
                }
                None => {
                    let at = last.map_or(0, |l| l + 1);
                    self.fields.insert(at, (key, shape, n));
                    last = Some(at);
                }
            }
        }
        self.count += other.count;
        Some(self)
    }
}

fn optional_key(ty: Metadata) -> Metadata {
    let e = EnumMetadata::new(OPTIONAL_KEY_ENUM, [("absent", Metadata::UNIT), ("present", ty)])
        .expect("two distinct variant names");
    Metadata::Enum(Arc::new(e))
}

fn check_float(text: &str) -> Result<f64> {
    let x: f64 = text.parse().map_err(|_| json_err(format!("{text} is not a number")))?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(json_err(format!("the number {text} is outside the range of f64")))
    }
}

// ----------------------------------------------------------- JSON to value

fn build(j: &Json, ty: &Metadata) -> Result<Value> {
    match (ty, j) {
        (Metadata::Any, _) => {
            let own = Shape::of(j)?.metadata();
            let v = build(j, &own)?;
            Ok(Value::Any(Box::new(AnyValue::new(own, v)?)))
        }
        (Metadata::Option(inner), Json::Null) => Ok(Value::Option(OptionValue::none((**inner).clone()))),
        (Metadata::Option(inner), _) => Ok(Value::Option(OptionValue::some((**inner).clone(), build(j, inner)?)?)),
        (Metadata::Primitive(P::Unit), Json::Null) => Ok(Value::Unit),
        (Metadata::Primitive(P::Bool), Json::Bool(b)) => Ok(Value::Bool(*b)),
        (Metadata::Primitive(P::F64), Json::Number(text)) => Ok(Value::F64(check_float(text)?)),
        (Metadata::Primitive(p), Json::Number(text)) => int_value(text, *p),
        (Metadata::Primitive(P::String), Json::String(s)) => Ok(Value::String(s.clone())),
        (Metadata::Vec(elem), Json::Array(items)) => {
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                values.push(build(item, elem).map_err(|e| e.within(PathSegment::Index(i as u64)))?);
            }
            Ok(Value::Vec(VecValue::new((**elem).clone(), values)?))
        }
        (Metadata::Struct(s), Json::Object(members)) => {
            let get = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| v);
            let mut values = Vec::with_capacity(s.len());
            for (name, fty) in s.fields() {
                let v = match (fty, get(name)) {
                    (Metadata::Enum(e), found) if e.name() == OPTIONAL_KEY_ENUM => match found {
                        None => EnumValue::new(e.clone(), "absent", Value::Unit)?.into(),
                        Some(fj) => {
                            let (_, pty) = e.variant("present").expect("the enum has it");
                            EnumValue::new(e.clone(), "present", build(fj, pty)?)?.into()
                        }
                    },
                    (_, Some(fj)) => build(fj, fty).map_err(|e| e.within(PathSegment::Field(name.into())))?,
                    (_, None) => return Err(json_err(format!("no key {name:?}"))),
                };
                values.push(v);
            }
            Ok(Value::Struct(StructValue::new(s.clone(), values)?))
        }
        _ => Err(json_err(format!("{j:?} does not fit the inferred type {ty}"))),
    }
}

fn int_value(text: &str, p: P) -> Result<Value> {
    // JSON's "-0" is the integer 0 (JSON allows no other leading zeros).
    let text = if text == "-0" { "0" } else { text };
    let bad = || json_err(format!("{text} does not fit {p}"));
    Ok(match p {
        P::I64 => Value::I64(text.parse().map_err(|_| bad())?),
        P::U64 => Value::U64(text.parse().map_err(|_| bad())?),
        P::I128 => Value::I128(text.parse().map_err(|_| bad())?),
        P::U128 => Value::U128(text.parse().map_err(|_| bad())?),
        P::I256 => Value::I256(I256::from_str_radix(text, 10).map_err(|_| bad())?),
        P::U256 => Value::U256(U256::from_str_radix(text, 10).map_err(|_| bad())?),
        _ => return Err(bad()),
    })
}

// ----------------------------------------------------------- value to JSON

fn number(x: impl ToString) -> Json {
    Json::Number(x.to_string())
}

/// The shortest text that reads back as the same float, with a `.` or an
/// exponent so that it stays a float (serde_json's float printing).
fn float<F: Serialize + Into<f64> + Copy>(x: F) -> Result<Json> {
    if x.into().is_finite() {
        Ok(Json::Number(serde_json::to_string(&x).map_err(|e| json_err(e.to_string()))?))
    } else {
        Err(json_err(format!("{} has no JSON form", x.into())))
    }
}

/// The JSON value of an XBF value. Types JSON lacks are written as JSON
/// can: bytes as a hex string, dates and timestamps as ISO 8601 strings,
/// maps with string keys as objects and others as arrays of `[key, value]`,
/// enum values as `"variant"` or `{"variant": payload}`. NaN and the
/// infinities have no JSON form and fail.
pub fn to_json(v: &Value) -> Result<Json> {
    Ok(match v {
        Value::Unit => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::U8(x) => number(x),
        Value::U16(x) => number(x),
        Value::U32(x) => number(x),
        Value::U64(x) => number(x),
        Value::U128(x) => number(x),
        Value::U256(x) => number(x),
        Value::I8(x) => number(x),
        Value::I16(x) => number(x),
        Value::I32(x) => number(x),
        Value::I64(x) => number(x),
        Value::I128(x) => number(x),
        Value::I256(x) => number(x),
        Value::F32(x) => float(*x)?,
        Value::F64(x) => float(*x)?,
        Value::Bytes(b) => Json::String(b.iter().map(|x| format!("{x:02x}")).collect()),
        Value::String(s) => Json::String(s.clone()),
        Value::Date(d) => Json::String(crate::time::format_date(i64::from(*d))),
        Value::Timestamp(t) => Json::String(crate::time::format_timestamp(*t)),
        Value::Vec(items) | Value::Array(items) => Json::Array(seq(items.items())?),
        Value::Tuple(t) => Json::Array(seq(t.items())?),
        Value::Option(o) => match o.value() {
            None => Json::Null,
            Some(inner) => to_json(inner)?,
        },
        Value::Any(a) => to_json(a.value())?,
        Value::Struct(s) => {
            let mut members = Vec::with_capacity(s.values().len());
            for (name, fv) in s.fields() {
                let fv = match fv {
                    Value::Enum(e) if e.metadata().name() == OPTIONAL_KEY_ENUM => match e.variant() {
                        "absent" => continue,
                        _ => e.payload(),
                    },
                    other => other,
                };
                members.push((name.to_owned(), to_json(fv).map_err(|e| e.within(PathSegment::Field(name.into())))?));
            }
            Json::Object(members)
        }
        Value::Map(m) => {
            if m.entries().iter().all(|(k, _)| k.as_str().is_some()) {
                let members =
                    m.entries().iter().map(|(k, val)| Ok((k.as_str().expect("checked").to_owned(), to_json(val)?)));
                Json::Object(members.collect::<Result<_>>()?)
            } else {
                let pairs = m.entries().iter().map(|(k, val)| Ok(Json::Array(vec![to_json(k)?, to_json(val)?])));
                Json::Array(pairs.collect::<Result<_>>()?)
            }
        }
        Value::Enum(e) => match e.payload() {
            Value::Unit => Json::String(e.variant().to_owned()),
            p => Json::Object(vec![(e.variant().to_owned(), to_json(p)?)]),
        },
    })
}

fn seq(items: &[Value]) -> Result<Vec<Json>> {
    items.iter().enumerate().map(|(i, v)| to_json(v).map_err(|e| e.within(PathSegment::Index(i as u64)))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) {
        let v = from_json_str(text).unwrap();
        let bytes = crate::encode_message(&v).unwrap();
        let back = crate::decode_message(&bytes).unwrap();
        let out = to_json_string(&back, false).unwrap();
        let a = Json::parse(text).unwrap();
        let b = Json::parse(&out).unwrap();
        assert!(a.same_value(&b), "{text} came back as {out}");
    }

    #[test]
    fn scalars_keep_their_kind_and_digits() {
        for t in [
            "1",
            "1.0",
            "-0.0",
            "1e300",
            "-0",
            "1E-7",
            "123456789012345678901234567890.5",
            "0.1",
            "null",
            "true",
            "\"é\\u0000\"",
            "18446744073709551615",
            "-9223372036854775808",
            "340282366920938463463374607431768211455",
            "-57896044618658097711785492504343953926634992332820282019728792003956564819968",
            "115792089237316195423570985008687907853269984665640564039457584007913129639935",
        ] {
            round_trip(t);
        }
    }

    #[test]
    fn containers_keep_order_nulls_and_missing_keys() {
        round_trip(r#"{"b": 1, "a": [1, 2.5, "x", null, [], {}], "c": {"z": null}}"#);
        round_trip(r#"[{"a": 1, "b": 2}, {"a": 3}, {"b": 4}, {"a": null, "c": true}, {}]"#);
        round_trip(r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}]"#);
        round_trip(r#"[[1, 2], [], [3], null, [null, 4]]"#);
        round_trip(r#"[1, -1, 18446744073709551615]"#);
        round_trip(r#"[]"#);
        round_trip(r#"[[], [[]], [[[]]]]"#);
    }

    #[test]
    fn same_value_tells_kinds_and_orders_apart() {
        let p = |t: &str| Json::parse(t).unwrap();
        assert!(p("1e300").same_value(&p("1e+300")));
        assert!(p("-0").same_value(&p("0")));
        assert!(!p("1").same_value(&p("1.0")));
        assert!(!p("0.0").same_value(&p("-0.0")));
        assert!(!p(r#"{"a":1,"b":2}"#).same_value(&p(r#"{"b":2,"a":1}"#)));
        assert!(p("18446744073709551616").same_value(&p("18446744073709551616")));
        assert!(!p("18446744073709551616").same_value(&p("18446744073709551617")));
    }

    #[test]
    fn records_become_a_vec_of_struct() {
        let v = from_json_str(r#"[{"x": 1, "y": "a"}, {"x": 2, "y": null}, {"x": 3}]"#).unwrap();
        assert_eq!(
            v.metadata().to_string(),
            "vec<struct Object { x: u64, y: enum \"json.optional\" { absent, present: option<string> } }>"
        );
        let mixed = from_json_str(r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}]"#).unwrap();
        assert_eq!(mixed.metadata().to_string(), "vec<any>");
    }

    #[test]
    fn what_json_cannot_hold_is_refused() {
        let too_wide = "1157920892373161954235709850086879078532699846656405640394575840079131296399351";
        assert!(from_json_str(too_wide).unwrap_err().to_string().contains("256 bits"));
        assert!(from_json_str("1e400").is_err());
        assert!(from_json_str("[1,").is_err());
        assert!(to_json(&Value::F64(f64::NAN)).is_err());
        assert!(from_json_str(r#"{"a": 1, "a": 2}"#).unwrap_err().to_string().contains("twice"));
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(from_json_str(&deep).is_err());
    }

    #[test]
    fn integers_take_the_narrowest_type_that_holds_them_all() {
        let ty = |t: &str| from_json_str(t).unwrap().metadata().to_string();
        assert_eq!(ty("[1, 18446744073709551615]"), "vec<u64>");
        assert_eq!(ty("[-1, 9223372036854775807]"), "vec<i64>");
        assert_eq!(ty("[-1, 9223372036854775808]"), "vec<i128>");
        assert_eq!(ty("[-9223372036854775808]"), "vec<i64>");
        assert_eq!(ty("[-9223372036854775809]"), "vec<i128>");
        assert_eq!(ty("[340282366920938463463374607431768211456]"), "vec<u256>");
        let huge = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(ty(&format!("[-1, {huge}]")), "vec<any>");
    }
}
