//! Lossless JSON ↔ XBF 2 (SPEC.md, "JSON mapping"); behind the `json` feature.
//!
//! JSON text becomes an XBF 2 value whose type is inferred from the whole
//! document: arrays whose elements share a shape become a `vec` of one
//! type, so that an array of records becomes `vec<struct>` with every field
//! name sent once. Converting back gives the same JSON value: the same key
//! order, `1` stays `1` and `1.0` stays `1.0`, integers up to 256 bits keep
//! every digit, and `null` stays distinct from a missing key.
//!
//! The parser is this module's own: serde_json reads numbers as f64 unless
//! its `arbitrary_precision` feature changes `serde_json::Value` for the
//! whole build, and it bounds depth by recursing. The one here keeps each
//! number's text, checks the depth limit before a level opens on a stack of
//! its own (no input can overflow the thread's), and finds repeated keys
//! with a set, in one pass; a property test checks that it accepts what
//! serde_json accepts. Inference then merges objects by the shared rules
//! of [`crate::infer`] (SPEC.md §19.1), in time linear in the keys.
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

use std::collections::HashSet;

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::infer::{Ints, Obj, Slot};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::value::{AnyValue, EnumValue, MapValue, OptionValue, StructValue, Value, VecValue, I256, U256};

pub use crate::infer::{OBJECT_STRUCT, OPTIONAL_KEY_ENUM};
/// How many levels of arrays and objects a document may nest by default:
/// as many as XBF readers allow in a message (SPEC.md §16.1).
pub const DEFAULT_MAX_DEPTH: usize = crate::options::DEFAULT_MAX_DEPTH;
/// The most levels [`JsonOptions::max_depth`] allows. Parsing needs no stack
/// per level, but inference and conversion recurse once per level; this many
/// fit in a 2 MiB thread stack even in a debug build (measured: the
/// `deepest_allowed_document_fits_a_small_stack` test; 512 do not).
pub const MAX_DEPTH_CEILING: usize = 256;

fn json_err(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::TypeMismatch, detail)
}

/// How JSON is read: the nesting limit.
///
/// ```
/// let opts = xbf::json::JsonOptions::default().max_depth(2)?;
/// assert!(opts.convert_str("[[1]]").is_ok());
/// assert_eq!(opts.convert_str("[[[1]]]").unwrap_err().kind(), xbf::ErrorKind::TooDeep);
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonOptions {
    max_depth: usize,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions { max_depth: DEFAULT_MAX_DEPTH }
    }
}

impl JsonOptions {
    /// At most `levels` nested arrays and objects, and an inferred type at
    /// most as deep. Range: 0 to [`MAX_DEPTH_CEILING`] (256), as for
    /// [`DecodeOptions::max_depth`](crate::DecodeOptions::max_depth); past
    /// it, `invalid-options`. Past [`DEFAULT_MAX_DEPTH`], the message must be
    /// read with a decoder's `max_depth` as high.
    pub fn max_depth(mut self, levels: usize) -> Result<Self> {
        if levels > MAX_DEPTH_CEILING {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("max_depth {levels} is more than the ceiling of {MAX_DEPTH_CEILING} levels"),
            ));
        }
        self.max_depth = levels;
        Ok(self)
    }

    /// Parses JSON text, keeping every number as written. Fails with
    /// `too-deep` as soon as an array or object opens past the limit,
    /// with `duplicate-key` on a key that an object already has, and with
    /// `invalid-json` on anything else that is not JSON (RFC 8259); the
    /// error's offset is the byte where it was found.
    pub fn parse(&self, text: &str) -> Result<Json> {
        Parser { text, bytes: text.as_bytes(), pos: 0, max_depth: self.max_depth }.document()
    }

    /// [`parse`](Self::parse) of bytes, which must be UTF-8.
    pub fn parse_slice(&self, bytes: &[u8]) -> Result<Json> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::at(ErrorKind::InvalidUtf8, e.valid_up_to() as u64, "JSON text must be UTF-8"))?;
        self.parse(text)
    }

    /// The XBF 2 value of a parsed document (see the module documentation).
    pub fn convert(&self, doc: &Json) -> Result<Value> {
        let mut shape = Shape::Never;
        shape.absorb(doc)?;
        let ty = shape.metadata()?;
        if ty.depth() > self.max_depth {
            return Err(Error::new(
                ErrorKind::TooDeep,
                format!("the inferred type nests {} levels, more than {}", ty.depth(), self.max_depth),
            ));
        }
        build(doc, &ty, Levels { open: 0, max: self.max_depth })
    }

    /// Parses JSON text into an XBF 2 value.
    pub fn convert_str(&self, text: &str) -> Result<Value> {
        self.convert(&self.parse(text)?)
    }

    /// Parses JSON bytes (UTF-8) into an XBF 2 value.
    pub fn convert_slice(&self, bytes: &[u8]) -> Result<Value> {
        self.convert(&self.parse_slice(bytes)?)
    }

    /// Reads all of `reader` as JSON into an XBF 2 value.
    pub fn convert_reader<R: std::io::Read>(&self, mut reader: R) -> Result<Value> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(|e| Error::new(ErrorKind::Io, format!("cannot read JSON: {e}")))?;
        self.convert_slice(&bytes)
    }
}

/// Parses JSON text into an XBF 2 value (see the module documentation).
pub fn from_json_str(text: &str) -> Result<Value> {
    JsonOptions::default().convert_str(text)
}

/// Parses JSON bytes (UTF-8) into an XBF 2 value.
pub fn from_json_slice(bytes: &[u8]) -> Result<Value> {
    JsonOptions::default().convert_slice(bytes)
}

/// Reads JSON from `reader` into an XBF 2 value.
pub fn from_json_reader<R: std::io::Read>(reader: R) -> Result<Value> {
    JsonOptions::default().convert_reader(reader)
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
    /// An object, keys in their order (no key twice).
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Whether two documents are the same JSON value: the same key order,
    /// integers equal as integers, floats equal as f64 (bit for bit, so
    /// `-0.0` is not `0.0`), and an integer never equal to a float; the
    /// integer `-0` is the float `-0.0` (SPEC.md §19).
    pub fn same_value(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Number(a), Json::Number(b)) => match (is_int(a), is_int(b)) {
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

    /// Parses JSON text with the default [`JsonOptions`].
    pub fn parse(text: &str) -> Result<Json> {
        JsonOptions::default().parse(text)
    }
}

/// An array or object being read, outermost first on the parser's stack.
enum Frame {
    Array(Vec<Json>),
    Object {
        members: Vec<(String, Json)>,
        /// The keys so far, once the object has many (a short list is
        /// searched instead: most objects have few keys).
        seen: Option<HashSet<String>>,
        /// The key whose value is being read.
        key: String,
    },
}

/// Objects with fewer keys are checked for duplicates by a scan.
const SCAN_KEYS: usize = 16;

/// An RFC 8259 parser that keeps its own stack instead of recursing, so
/// that the depth limit is checked before each level opens and no input
/// can overflow the thread's stack; every byte is looked at once.
struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
}

impl Parser<'_> {
    fn document(mut self) -> Result<Json> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            self.ws();
            let mut value = match self.peek() {
                Some(b'[') => {
                    self.open(stack.len())?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        Json::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        continue 'value;
                    }
                }
                Some(b'{') => {
                    self.open(stack.len())?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Json::Object(Vec::new())
                    } else {
                        let mut seen = None;
                        let key = self.key(&[], &mut seen)?;
                        stack.push(Frame::Object { members: Vec::new(), seen, key });
                        continue 'value;
                    }
                }
                Some(b'"') => Json::String(self.string()?),
                Some(b't') => self.literal("true", Json::Bool(true))?,
                Some(b'f') => self.literal("false", Json::Bool(false))?,
                Some(b'n') => self.literal("null", Json::Null)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(self.unexpected("a value")),
            };
            // Close every array and object that this value completes.
            loop {
                self.ws();
                match stack.pop() {
                    None if self.pos < self.bytes.len() => return Err(self.unexpected("the end of the text")),
                    None => return Ok(value),
                    Some(Frame::Array(mut items)) => {
                        items.push(value);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                stack.push(Frame::Array(items));
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                value = Json::Array(items);
                            }
                            _ => return Err(self.unexpected("',' or ']'")),
                        }
                    }
                    Some(Frame::Object { mut members, mut seen, key }) => {
                        members.push((key, value));
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.ws();
                                let key = self.key(&members, &mut seen)?;
                                stack.push(Frame::Object { members, seen, key });
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                value = Json::Object(members);
                            }
                            _ => return Err(self.unexpected("',' or '}'")),
                        }
                    }
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn unexpected(&self, what: &str) -> Error {
        let found = match self.text[self.pos..].chars().next() {
            Some(c) => format!("{c:?}"),
            None => "the end of the text".into(),
        };
        Error::at(ErrorKind::InvalidJson, self.pos as u64, format!("invalid JSON: expected {what}, found {found}"))
    }

    /// Steps into an array or object at `depth` open levels, if allowed.
    fn open(&mut self, depth: usize) -> Result<()> {
        if depth >= self.max_depth {
            return Err(Error::at(
                ErrorKind::TooDeep,
                self.pos as u64,
                format!("the document nests more than {} levels of arrays and objects", self.max_depth),
            ));
        }
        self.pos += 1;
        self.ws();
        Ok(())
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.unexpected("a value"))
        }
    }

    /// An object's next key and its `:`; `members` and `seen` are the keys
    /// before it, which it must differ from.
    fn key(&mut self, members: &[(String, Json)], seen: &mut Option<HashSet<String>>) -> Result<String> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a key (a string)"));
        }
        let at = self.pos;
        let key = self.string()?;
        let twice = match seen {
            Some(set) => !set.insert(key.clone()),
            None if members.len() < SCAN_KEYS => members.iter().any(|(k, _)| *k == key),
            None => {
                let mut set: HashSet<String> = members.iter().map(|(k, _)| k.clone()).collect();
                let twice = !set.insert(key.clone());
                *seen = Some(set);
                twice
            }
        };
        if twice {
            // RFC 8259 leaves the meaning of a repeated name open; keeping
            // either value would lose the other, silently.
            return Err(Error::at(
                ErrorKind::DuplicateKey,
                at as u64,
                format!("the key {key:?} appears twice in one object"),
            ));
        }
        self.ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("':'"));
        }
        self.pos += 1;
        Ok(key)
    }

    fn string(&mut self) -> Result<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            match self.peek() {
                Some(b'"') => {
                    out.push_str(&self.text[run..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(&self.text[run..self.pos]);
                    self.escape(&mut out)?;
                    run = self.pos;
                }
                Some(0..=0x1f) => return Err(self.unexpected("a character (control characters must be escaped)")),
                Some(_) => self.pos += 1,
                None => {
                    return Err(Error::at(ErrorKind::InvalidJson, start as u64, "invalid JSON: the string never ends"))
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<()> {
        let at = self.pos;
        self.pos += 1;
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let hi = self.hex4()?;
                let code = match hi {
                    0xd800..=0xdbff if self.bytes[self.pos..].starts_with(b"\\u") => {
                        self.pos += 2;
                        match self.hex4()? {
                            lo @ 0xdc00..=0xdfff => 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00),
                            _ => 0xd800,
                        }
                    }
                    c => c,
                };
                let c = char::from_u32(code).ok_or_else(|| {
                    Error::at(
                        ErrorKind::InvalidJson,
                        at as u64,
                        "invalid JSON: a \\u escape of a lone surrogate (no Unicode text holds one)",
                    )
                })?;
                out.push(c);
                return Ok(());
            }
            _ => return Err(self.unexpected("an escape (one of \"\\/bfnrtu)")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self.peek().and_then(|b| (b as char).to_digit(16));
            let Some(d) = digit else { return Err(self.unexpected("a hex digit")) };
            code = code * 16 + d;
            self.pos += 1;
        }
        Ok(code)
    }

    /// A number as written: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Result<Json> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.unexpected("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits1()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.digits1()?;
        }
        Ok(Json::Number(self.text[start..self.pos].to_owned()))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn digits1(&mut self) -> Result<()> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.unexpected("a digit"));
        }
        self.digits();
        Ok(())
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

/// The shapes of JSON values: the core's lattice, with nothing kept per key.
type Shape = crate::infer::Shape<()>;

/// The needs of one integer, or `None` if no 256-bit type holds it.
fn ints_of(text: &str) -> Option<Ints> {
    if text.starts_with('-') {
        let v = I256::from_str_radix(text, 10).ok()?;
        Some(Ints { ubits: 0, sbits: 257 - (!v).leading_zeros() })
    } else {
        let v = U256::from_str_radix(text, 10).ok()?;
        Some(Ints { ubits: 256 - v.leading_zeros(), sbits: 0 })
    }
}

/// An integer's value, sign apart from magnitude.
fn int_of(text: &str) -> Option<(bool, U256)> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let m = U256::from_str_radix(digits, 10).ok()?;
    Some((neg && m != U256::ZERO, m))
}

/// Whether a JSON number is an integer: no fraction, no exponent, and not
/// `-0`, which only a float can hold (SPEC.md §19).
fn is_int(text: &str) -> bool {
    !text.contains(['.', 'e', 'E']) && text != "-0"
}

impl crate::infer::Shape<()> {
    /// The shape of one value.
    fn of(j: &Json) -> Result<Shape> {
        Ok(match j {
            Json::Null => Shape::Null,
            Json::Bool(_) => Shape::Bool,
            Json::Number(text) if is_int(text) => {
                Shape::Int(ints_of(text).ok_or_else(|| {
                    json_err(format!("the integer {text} is wider than XBF's widest type (256 bits)"))
                })?)
            }
            Json::Number(text) => {
                check_float(text)?;
                Shape::Float
            }
            Json::String(_) => Shape::Str,
            Json::Array(_) | Json::Object(_) => {
                let mut s = Shape::Never;
                s.absorb(j)?;
                s
            }
        })
    }

    /// Widens this shape to also describe `j`. Arrays and objects are
    /// walked in place (each object's keys go straight into the merge), so
    /// that inference takes time linear in the document.
    fn absorb(&mut self, j: &Json) -> Result<()> {
        match (&mut *self, j) {
            // Each value at an `any` place is inferred on its own when built.
            (Shape::Any, _) => return Ok(()),
            (Shape::Nullable(inner), _) if *j != Json::Null => {
                inner.absorb(j)?;
                if matches!(**inner, Shape::Any) {
                    *self = Shape::Any;
                }
                return Ok(());
            }
            (Shape::Never, Json::Array(_)) => *self = Shape::Vec(Box::new(Shape::Never)),
            (Shape::Never, Json::Object(_)) => *self = Shape::Obj(Box::new(Obj::new(OBJECT_STRUCT))),
            _ => {}
        }
        match (&mut *self, j) {
            (Shape::Vec(elem), Json::Array(items)) => items.iter().try_for_each(|item| elem.absorb(item)),
            (Shape::Obj(o), Json::Object(members)) => {
                o.objects.begin();
                members.iter().try_for_each(|(k, v)| o.objects.key(k, Slot::default).shape.absorb(v))
            }
            _ => {
                let other = Shape::of(j)?;
                *self = std::mem::take(self).join(other);
                Ok(())
            }
        }
    }
}

/// The f64 of a JSON number, refused where f64 cannot hold it: past its
/// range, or so small that it would become zero (SPEC.md §19: no number
/// changes silently).
fn check_float(text: &str) -> Result<f64> {
    let x: f64 = text.parse().map_err(|_| json_err(format!("{text} is not a number")))?;
    if !x.is_finite() {
        return Err(json_err(format!("the number {text} is outside the range of f64")));
    }
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    if x == 0.0 && mantissa.bytes().any(|b| matches!(b, b'1'..=b'9')) {
        return Err(json_err(format!("the number {text} is too small for f64 (it would become 0)")));
    }
    Ok(x)
}

// ----------------------------------------------------------- JSON to value

/// The nesting levels (SPEC.md §16.1) open around a type being built, and
/// the limit: each `any` value opens a level and its own type more, which
/// the inferred type alone does not show.
#[derive(Clone, Copy)]
struct Levels {
    open: usize,
    max: usize,
}

impl Levels {
    fn inside(self, n: usize) -> Levels {
        Levels { open: self.open + n, ..self }
    }
}

fn build(j: &Json, ty: &Metadata, at: Levels) -> Result<Value> {
    match (ty, j) {
        (Metadata::Any, _) => {
            let own = Shape::of(j)?.metadata()?;
            if at.open + 1 + own.depth() > at.max {
                return Err(Error::new(
                    ErrorKind::TooDeep,
                    format!(
                        "a value of type any inside {} levels has a type of {} more, past the limit of {}",
                        at.open,
                        own.depth(),
                        at.max
                    ),
                ));
            }
            let v = build(j, &own, at.inside(1))?;
            Ok(Value::Any(Box::new(AnyValue::new(own, v)?)))
        }
        (Metadata::Option(inner), Json::Null) => Ok(Value::Option(OptionValue::none((**inner).clone()))),
        (Metadata::Option(inner), _) => {
            Ok(Value::Option(OptionValue::some((**inner).clone(), build(j, inner, at.inside(1))?)?))
        }
        (Metadata::Primitive(P::Unit), Json::Null) => Ok(Value::Unit),
        (Metadata::Primitive(P::Bool), Json::Bool(b)) => Ok(Value::Bool(*b)),
        (Metadata::Primitive(P::F64), Json::Number(text)) => Ok(Value::F64(check_float(text)?)),
        (Metadata::Primitive(p), Json::Number(text)) => int_value(text, *p),
        (Metadata::Primitive(P::String), Json::String(s)) => Ok(Value::String(s.clone())),
        (Metadata::Vec(elem), Json::Array(items)) => {
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                values.push(build(item, elem, at.inside(1)).map_err(|e| e.within(PathSegment::Index(i as u64)))?);
            }
            Ok(Value::Vec(VecValue::new((**elem).clone(), values)?))
        }
        (Metadata::Map(m), Json::Object(members)) => {
            let mut entries = Vec::with_capacity(members.len());
            for (k, v) in members {
                let v =
                    build(v, &m.value, at.inside(1)).map_err(|e| e.within(PathSegment::Field(k.as_str().into())))?;
                entries.push((Value::String(k.clone()), v));
            }
            Ok(Value::Map(MapValue::new(m.key.clone(), m.value.clone(), entries)?))
        }
        (Metadata::Struct(s), Json::Object(members)) => {
            // The fields follow every object's key order (SPEC.md §19.1), so
            // one pass over the members finds each field or its absence.
            let mut rest = members.iter().peekable();
            let mut values = Vec::with_capacity(s.len());
            for (name, fty) in s.fields() {
                let found = rest.next_if(|(k, _)| k == name).map(|(_, v)| v);
                let v = match (fty, found) {
                    (Metadata::Enum(e), found) if e.name() == OPTIONAL_KEY_ENUM => match found {
                        None => EnumValue::new(e.clone(), "absent", Value::Unit)?.into(),
                        Some(fj) => {
                            let (_, pty) = e.variant("present").expect("the enum has it");
                            let payload =
                                build(fj, pty, at.inside(2)).map_err(|e| e.within(PathSegment::Field(name.into())))?;
                            EnumValue::new(e.clone(), "present", payload)?.into()
                        }
                    },
                    (_, Some(fj)) => {
                        build(fj, fty, at.inside(1)).map_err(|e| e.within(PathSegment::Field(name.into())))?
                    }
                    (_, None) => return Err(json_err(format!("no key {name:?}"))),
                };
                values.push(v);
            }
            if let Some((k, _)) = rest.next() {
                return Err(json_err(format!("the key {k:?} is not where the inferred type {ty} has it")));
            }
            Ok(Value::Struct(StructValue::new(s.clone(), values)?))
        }
        _ => Err(json_err(format!("a {} does not fit the inferred type {ty}", kind_of(j)))),
    }
}

fn kind_of(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

fn int_value(text: &str, p: P) -> Result<Value> {
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
mod tests;
