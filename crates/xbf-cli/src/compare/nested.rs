//! JSON that is not an array of flat records (nested objects and arrays,
//! nulls, keys some records lack, a document that is not an array): the
//! generic encodings of such a document and what it takes to read it back.
//!
//! The document is kept as an [`xbf::json::Json`] tree, numbers as their
//! text, so that a round trip is checked against every digit, the key order,
//! and integers apart from floats ([`Json::same_value`]).

use std::fmt;
use std::fmt::Write as _;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use xbf::json::Json;
use xbf::{Metadata, Value};

/// A JSON document that is not flat records.
pub struct Nested {
    /// The document, numbers as written.
    pub doc: Json,
    /// Why it is not flat records, as CSV's "cannot hold ..." reason.
    pub why: String,
    /// The keys of the records, when the document is an array of objects
    /// that all have the same keys in the same order (records that can be
    /// written as arrays without their names).
    pub record_keys: Option<Vec<String>>,
    /// Why XBF 2's JSON mapping refused the document, if it did.
    pub xbf_error: Option<String>,
    /// Whether some integer is wider than 64 bits or written `-0` (then the
    /// JSON decoder keeps each number's text, as serde's visitors cannot).
    pub wide_ints: bool,
}

impl Nested {
    pub fn new(doc: Json, why: String, xbf_error: Option<String>) -> Nested {
        let record_keys = match &doc {
            Json::Array(items) if !items.is_empty() => {
                let keys = |j: &Json| match j {
                    Json::Object(m) => Some(m.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()),
                    _ => None,
                };
                let first = keys(&items[0]);
                first.filter(|f| items.iter().all(|i| keys(i).as_ref() == Some(f)))
            }
            _ => None,
        };
        fn wide(j: &Json) -> bool {
            match j {
                // serde_json reads "-0" as the float -0.0.
                Json::Number(t) => {
                    is_integer_text(t) && (t == "-0" || (t.parse::<i64>().is_err() && t.parse::<u64>().is_err()))
                }
                Json::Array(items) => items.iter().any(wide),
                Json::Object(members) => members.iter().any(|(_, v)| wide(v)),
                _ => false,
            }
        }
        let wide_ints = wide(&doc);
        Nested { doc, why, record_keys, xbf_error, wide_ints }
    }

    /// The in-memory size of the values alone: integers 8 bytes (16 or 32
    /// past 64 or 128 bits), floats 8, booleans 1, strings their UTF-8
    /// length, nulls 0; no keys, lengths or separators.
    pub fn native_size(&self) -> u64 {
        fn size(j: &Json) -> u64 {
            match j {
                Json::Null => 0,
                Json::Bool(_) => 1,
                Json::String(s) => s.len() as u64,
                Json::Number(t) if is_integer_text(t) => {
                    if t.parse::<i64>().is_ok() || t.parse::<u64>().is_ok() {
                        8
                    } else if t.parse::<i128>().is_ok() || t.parse::<u128>().is_ok() {
                        16
                    } else {
                        32
                    }
                }
                Json::Number(_) => 8,
                Json::Array(items) => items.iter().map(size).sum(),
                Json::Object(members) => members.iter().map(|(_, v)| size(v)).sum(),
            }
        }
        size(&self.doc)
    }

    /// A one-line description: how many values of each kind.
    pub fn summary(&self) -> String {
        #[derive(Default)]
        struct Counts {
            objects: u64,
            arrays: u64,
            scalars: u64,
            nulls: u64,
        }
        fn count(j: &Json, c: &mut Counts) {
            match j {
                Json::Null => c.nulls += 1,
                Json::Array(items) => {
                    c.arrays += 1;
                    items.iter().for_each(|i| count(i, c));
                }
                Json::Object(members) => {
                    c.objects += 1;
                    members.iter().for_each(|(_, v)| count(v, c));
                }
                _ => c.scalars += 1,
            }
        }
        let mut c = Counts::default();
        count(&self.doc, &mut c);
        let top = match &self.doc {
            Json::Array(items) => format!("an array of {} items", items.len()),
            Json::Object(m) => format!("an object of {} members", m.len()),
            _ => "a single value".to_owned(),
        };
        format!(
            "nested JSON, {top}: {} objects, {} arrays, {} numbers/strings/booleans, {} nulls",
            c.objects, c.arrays, c.scalars, c.nulls
        )
    }
}

fn kind(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn is_integer_text(text: &str) -> bool {
    !text.contains(['.', 'e', 'E'])
}

/// Why a (non-empty) document is not flat records, most telling first:
/// nesting, then nulls, then records with different keys.
pub fn not_flat_reason(doc: &Json) -> Option<String> {
    match doc {
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                match item {
                    Json::Object(_) => {}
                    Json::Array(_) => return Some(format!("nested data (record {i} is an array)")),
                    other => return Some(format!("values that are not records (item {i} is {})", kind(other))),
                }
            }
            let objects = || items.iter().filter_map(|i| if let Json::Object(m) = i { Some(m) } else { None });
            for (i, m) in objects().enumerate() {
                if let Some((k, v)) = m.iter().find(|(_, v)| matches!(v, Json::Array(_) | Json::Object(_))) {
                    return Some(format!("nested data (field {k:?} of record {i} is {})", kind(v)));
                }
            }
            for (i, m) in objects().enumerate() {
                if let Some((k, _)) = m.iter().find(|(_, v)| matches!(v, Json::Null)) {
                    return Some(format!("nulls (field {k:?} of record {i} is null)"));
                }
            }
            let first = objects().next()?;
            if first.is_empty() {
                return Some("records with no fields".into());
            }
            for (i, m) in objects().enumerate() {
                let has = |m: &[(String, Json)], k: &str| m.iter().any(|(key, _)| key == k);
                if let Some((k, _)) = m.iter().find(|(k, _)| !has(first, k)) {
                    return Some(format!(
                        "records with different fields (record {i} has a field {k:?} that record 0 lacks)"
                    ));
                }
                if let Some((k, _)) = first.iter().find(|(k, _)| !has(m, k)) {
                    return Some(format!("records with different fields (record {i} has no field {k:?})"));
                }
            }
            None
        }
        Json::Object(members) => {
            Some(match members.iter().find(|(_, v)| matches!(v, Json::Array(_) | Json::Object(_))) {
                Some((k, v)) => format!("nested data (the document is an object whose member {k:?} is {})", kind(v)),
                None => "a single object, not an array of records".into(),
            })
        }
        other => Some(format!("a single value ({}), not an array of records", kind(other))),
    }
}

/// Why XBF v1 cannot hold a value of this (XBF 2, inferred) type: the kinds
/// of types it has that v1 lacks, in words; `None` if v1 has them all.
pub fn v1_lacks(ty: &Metadata) -> Option<String> {
    fn walk(ty: &Metadata, out: &mut Vec<&'static str>) {
        let mut add = |s: &'static str| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        match ty {
            Metadata::Primitive(p) if p.is_v1() => {}
            Metadata::Primitive(xbf::PrimitiveType::Unit) => add("nulls"),
            Metadata::Primitive(_) => add("integers wider than 64 bits"),
            Metadata::Vec(e) => walk(e, out),
            Metadata::Struct(s) => s.fields().for_each(|(_, m)| walk(m, out)),
            Metadata::Option(inner) => {
                add("nulls");
                walk(inner, out);
            }
            Metadata::Enum(e) if e.name() == xbf::json::OPTIONAL_KEY_ENUM => {
                add("missing keys");
                e.variants().for_each(|(_, m)| walk(m, out));
            }
            Metadata::Any => add("mixed types"),
            _ => add("other XBF 2 types"),
        }
    }
    let mut found = Vec::new();
    walk(ty, &mut found);
    (!found.is_empty()).then(|| found.join(", "))
}

/// Shortens a message to about `max` characters.
pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

// ------------------------------------------- serde views of the document

/// The document for a self-describing serde format (MessagePack, CBOR):
/// numbers as integers where written without a fraction or exponent, else
/// as f64; objects as maps with their keys in order.
pub struct Typed<'a>(pub &'a Json);

fn number<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    if is_integer_text(text) {
        if let Ok(x) = text.parse::<u64>() {
            return s.serialize_u64(x);
        }
        if let Ok(x) = text.parse::<i64>() {
            return s.serialize_i64(x);
        }
        return Err(S::Error::custom(format_args!("cannot hold the integer {text}: wider than 64 bits")));
    }
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => s.serialize_f64(x),
        _ => Err(S::Error::custom(format_args!("cannot hold the number {text}: outside the range of f64"))),
    }
}

impl Serialize for Typed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(t) => number(t, s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(&Typed(i))?;
                }
                seq.end()
            }
            Json::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, &Typed(v))?;
                }
                map.end()
            }
        }
    }
}

/// Records written as arrays of their values, without the keys (which every
/// record has, in the same order); the values within are [`Typed`].
pub struct RecordArrays<'a>(pub &'a [Json]);

struct Values<'a>(&'a [(String, Json)]);

impl Serialize for RecordArrays<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            match item {
                Json::Object(m) => seq.serialize_element(&Values(m))?,
                _ => return Err(S::Error::custom("a record that is not an object")),
            }
        }
        seq.end()
    }
}

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (_, v) in self.0 {
            seq.serialize_element(&Typed(v))?;
        }
        seq.end()
    }
}

/// A document read back from a self-describing serde format.
pub struct Tree(pub Json);

/// The text of a float as serde_json writes it: shortest round trip, always
/// with a `.` or an exponent.
fn float_text<E: de::Error>(x: f64) -> Result<Json, E> {
    if x.is_finite() {
        Ok(Json::Number(serde_json::to_string(&x).map_err(E::custom)?))
    } else {
        Err(E::custom(format_args!("{x} is not a JSON number")))
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TreeVisitor).map(Tree)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-like value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        float_text(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(Tree(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(k) = map.next_key::<String>()? {
            let Tree(v) = map.next_value()?;
            members.push((k, v));
        }
        Ok(Json::Object(members))
    }
}

/// Gives records read as arrays their keys back.
pub fn name_records(doc: Json, keys: &[String]) -> Result<Json, String> {
    let Json::Array(items) = doc else { return Err("not an array of records".into()) };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Json::Array(values) if values.len() == keys.len() => {
                out.push(Json::Object(keys.iter().cloned().zip(values).collect()));
            }
            _ => return Err("a record that is not an array of one value per field".into()),
        }
    }
    Ok(Json::Array(out))
}

// -------------------------------------------------------------------- XML

/// Whether XML 1.0 can hold the character.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Escapes text or an attribute value; `\r` (and in attributes `\t`, `\n`)
/// as character references, which XML parsers do not normalize.
fn xml_escape(s: &str, attr: bool, out: &mut String) -> Result<(), String> {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attr => out.push_str("&quot;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attr => out.push_str("&#10;"),
            '\t' if attr => out.push_str("&#9;"),
            c if xml_char(c) => out.push(c),
            c => return Err(format!("cannot hold the character U+{:04X}: XML 1.0 has no such character", c as u32)),
        }
    }
    Ok(())
}

/// The document in the element vocabulary of the W3C XPath 3.1 function
/// `json-to-xml` (map, array, string, number, boolean, null; members carry
/// `key="..."`), without the namespace. Numbers are written as in the JSON.
pub fn xml_encode(doc: &Json) -> Result<Vec<u8>, String> {
    fn node(j: &Json, key: Option<&str>, out: &mut String) -> Result<(), String> {
        let name = match j {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "map",
        };
        out.push('<');
        out.push_str(name);
        if let Some(k) = key {
            out.push_str(" key=\"");
            xml_escape(k, true, out)?;
            out.push('"');
        }
        match j {
            Json::Null => {
                out.push_str("/>");
                return Ok(());
            }
            Json::Bool(b) => {
                let _ = write!(out, ">{b}");
            }
            Json::Number(t) => {
                out.push('>');
                out.push_str(t);
            }
            Json::String(s) => {
                out.push('>');
                xml_escape(s, false, out)?;
            }
            Json::Array(items) => {
                out.push('>');
                for i in items {
                    node(i, None, out)?;
                }
            }
            Json::Object(members) => {
                out.push('>');
                for (k, v) in members {
                    node(v, Some(k), out)?;
                }
            }
        }
        let _ = write!(out, "</{name}>");
        Ok(())
    }
    let mut out = String::new();
    node(doc, None, &mut out)?;
    Ok(out.into_bytes())
}

/// Reads [`xml_encode`]'s form back.
pub fn xml_decode(bytes: &[u8]) -> Result<Json, String> {
    use quick_xml::events::{BytesStart, Event};

    struct Frame {
        name: Vec<u8>,
        key: Option<String>,
        text: String,
        items: Vec<(Option<String>, Json)>,
    }
    fn open(e: &BytesStart) -> Result<Frame, String> {
        let key = match e.try_get_attribute("key").map_err(|e| e.to_string())? {
            Some(a) => Some(a.unescape_value().map_err(|e| e.to_string())?.into_owned()),
            None => None,
        };
        Ok(Frame { name: e.name().as_ref().to_vec(), key, text: String::new(), items: Vec::new() })
    }
    fn close(f: Frame) -> Result<(Option<String>, Json), String> {
        let j = match f.name.as_slice() {
            b"null" => Json::Null,
            b"boolean" => match f.text.as_str() {
                "true" => Json::Bool(true),
                "false" => Json::Bool(false),
                t => return Err(format!("{t:?} is not a boolean")),
            },
            b"number" => Json::Number(f.text),
            b"string" => Json::String(f.text),
            b"array" => Json::Array(f.items.into_iter().map(|(_, v)| v).collect()),
            b"map" => Json::Object(
                f.items
                    .into_iter()
                    .map(|(k, v)| k.map(|k| (k, v)).ok_or("a map member without a key"))
                    .collect::<Result<_, _>>()?,
            ),
            other => return Err(format!("unknown element <{}>", String::from_utf8_lossy(other))),
        };
        Ok((f.key, j))
    }

    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root = None;
    let mut buf = Vec::new();
    let mut done = |stack: &mut Vec<Frame>, item: (Option<String>, Json)| match stack.last_mut() {
        Some(parent) => parent.items.push(item),
        None => root = Some(item.1),
    };
    loop {
        match reader.read_event_into(&mut buf).map_err(|e| e.to_string())? {
            Event::Start(e) => stack.push(open(&e)?),
            Event::Empty(e) => {
                let item = close(open(&e)?)?;
                done(&mut stack, item);
            }
            Event::Text(t) => {
                let s = t.unescape().map_err(|e| e.to_string())?;
                stack.last_mut().ok_or("text outside the document")?.text.push_str(&s);
            }
            Event::End(_) => {
                let item = close(stack.pop().ok_or("an end tag with no start")?)?;
                done(&mut stack, item);
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !stack.is_empty() {
        return Err("the document ends inside an element".into());
    }
    root.ok_or_else(|| "no document".into())
}

/// The document as an XBF 2 value, its type inferred by XBF 2's JSON mapping.
pub fn xbf_value(text: &str) -> Result<Value, String> {
    xbf::json::from_json_str(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_round_trips() {
        let text = r#"{"a": [1, 2.50, -0.0, "x<&>\"\r\n\t", null, true, {}, []], "k\"\n": {"": ""}}"#;
        let doc = Json::parse(text).unwrap();
        let back = xml_decode(&xml_encode(&doc).unwrap()).unwrap();
        assert!(back.same_value(&doc), "{back:?}");
        assert!(xml_encode(&Json::String("\u{1}".into())).unwrap_err().contains("U+0001"));
    }

    #[test]
    fn reasons() {
        let r = |t: &str| not_flat_reason(&Json::parse(t).unwrap());
        assert_eq!(r(r#"[{"a": 1}]"#), None);
        assert!(r(r#"[{"a": 1}, {"a": null, "b": [1]}]"#).unwrap().starts_with("nested data"));
        assert!(r(r#"[{"a": 1}, {"a": null}]"#).unwrap().starts_with("nulls"));
        assert!(r(r#"[{"a": 1}, {"b": 1}]"#).unwrap().starts_with("records with different fields"));
        assert!(r(r#"{"a": {"b": 1}}"#).unwrap().starts_with("nested data"));
        assert!(r("42").unwrap().starts_with("a single value"));
    }
}
