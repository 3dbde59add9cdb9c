//! `xbf vectors check`: runs conformance vector files through this crate's
//! implementation of XBF.
//!
//! A vector file is a JSON array of vectors in the project's conformance form:
//! valid ones carry a type, a value and the message's hex; invalid ones carry
//! hex and the error kind, byte offset and path that decoding it must fail
//! with (vectors/README.md).

pub(crate) mod files;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value as Json;
use xbf::{
    AnyValue, DecodeOptions, EncodeOptions, EnumMetadata, EnumValue, ErrorKind, Layout, MapValue, Metadata,
    OptionValue, PrimitiveType, StreamOptions, StreamReader, StreamWriter, StructMetadata, StructValue, TupleValue,
    Value, VecValue, I256, U256,
};

/// Arguments of `xbf vectors check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Vector files (JSON arrays of vectors).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Also print a line for every vector that passes.
    #[arg(short, long)]
    verbose: bool,
}

/// The format versions this checker knows.
const KNOWN_VERSIONS: &[u64] = &[1, 2];

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped_versions: usize,
}

pub fn check(args: &CheckArgs) -> ExitCode {
    let mut tally = Tally::default();
    for path in &args.files {
        let label = path.display().to_string();
        let vectors = match load(path) {
            Ok(v) => v,
            Err(msg) => {
                println!("FAIL {label}: {msg}");
                tally.failed += 1;
                continue;
            }
        };
        for (i, vector) in vectors.iter().enumerate() {
            let name = vector.get("name").and_then(Json::as_str).map_or_else(|| format!("#{i}"), str::to_owned);
            match run_vector(vector) {
                Outcome::Pass => {
                    tally.passed += 1;
                    if args.verbose {
                        println!("ok   {label}: {name}");
                    }
                }
                Outcome::SkipVersion => tally.skipped_versions += 1,
                Outcome::Fail(why) => {
                    tally.failed += 1;
                    println!("FAIL {label}: {name}: {why}");
                }
            }
        }
    }
    let mut line = format!("{} passed, {} failed", tally.passed, tally.failed);
    if tally.skipped_versions > 0 {
        line.push_str(&format!(", {} skipped (versions other than {KNOWN_VERSIONS:?})", tally.skipped_versions));
    }
    println!("{line}");
    if tally.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn load(path: &PathBuf) -> Result<Vec<Json>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    // Vectors for deep nesting are deeper than serde_json's default limit.
    let mut de = serde_json::Deserializer::from_str(&text);
    de.disable_recursion_limit();
    let json: Json = serde::Deserialize::deserialize(&mut de).map_err(|e| format!("not JSON: {e}"))?;
    de.end().map_err(|e| format!("not JSON: {e}"))?;
    match json {
        Json::Array(v) => Ok(v),
        _ => Err("a vector file is a JSON array".into()),
    }
}

enum Outcome {
    Pass,
    SkipVersion,
    Fail(String),
}

fn run_vector(v: &Json) -> Outcome {
    let version = match v.get("version") {
        None => 1,
        Some(j) => match j.as_u64() {
            Some(n) => n,
            None => return Outcome::Fail(format!("version {j} is not a number")),
        },
    };
    if !KNOWN_VERSIONS.contains(&version) {
        return Outcome::SkipVersion;
    }
    let checked = if v.get("file").is_some() {
        files::check(v)
    } else if v.get("stream").is_some() {
        check_stream_vector(v)
    } else {
        check_vector(v, version)
    };
    match checked {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::Fail(why),
    }
}

fn check_vector(v: &Json, version: u64) -> Result<(), String> {
    let hex = v.get("hex").and_then(Json::as_str).ok_or("no \"hex\" string")?;
    let bytes = from_hex(hex).ok_or("\"hex\" is not lowercase hex")?;
    if let Some(kind) = v.get("error") {
        let kind = kind.as_str().ok_or("\"error\" is not a string")?;
        let want = Want::of(v, kind)?;
        return match xbf::decode_message(&bytes) {
            Ok(value) => Err(format!("decoded as {value:?}, expected error {kind}")),
            Err(e) => want.check(&e),
        };
    }
    let ty = parse_type(v.get("type").ok_or("no \"type\"")?).map_err(|e| format!("bad type: {e}"))?;
    let expected = parse_value(v.get("value").ok_or("no \"value\"")?, &ty).map_err(|e| format!("bad value: {e}"))?;

    let (decoded_ty, decoded) =
        DecodeOptions::default().decode_typed_message(&bytes).map_err(|e| format!("decode failed: {e}"))?;
    if decoded_ty != ty {
        return Err(format!("decoded type {decoded_ty}, expected {ty}"));
    }
    if !same(&decoded, &expected) {
        return Err(format!("decoded {decoded}, expected {expected}"));
    }
    // The layout the bytes use is the one to write: v2 encoders pick by default.
    let columnar = version == 2 && bytes.get(1).is_some_and(|f| f & 0x02 != 0);
    let layout = if columnar { Layout::Columnar } else { Layout::Rows };
    let opts = if version == 1 { EncodeOptions::v1() } else { EncodeOptions::v2().layout(layout) };
    let encoded = opts.encode_typed_message(&ty, &expected).map_err(|e| format!("encode failed: {e}"))?;
    if encoded != bytes {
        return Err(format!("encoded {}, expected {hex}", to_hex(&encoded)));
    }
    Ok(())
}

/// A record-stream vector: the reader must yield exactly `records`, then
/// fail with `error` if given; with `blocks`, writing the records in blocks
/// of those sizes must give the same bytes.
/// The bytes, record type and records of a stream or file vector.
pub(crate) fn records_vector(v: &Json) -> Result<(Vec<u8>, Metadata, Vec<Value>), String> {
    let hex = v.get("hex").and_then(Json::as_str).ok_or("no \"hex\" string")?;
    let bytes = from_hex(hex).ok_or("\"hex\" is not lowercase hex")?;
    let ty = parse_type(v.get("type").ok_or("no \"type\"")?).map_err(|e| format!("bad type: {e}"))?;
    let records = v.get("records").and_then(Json::as_array).ok_or("no \"records\" array")?;
    let records = records
        .iter()
        .map(|r| parse_value(r, &ty))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("bad record: {e}"))?;
    Ok((bytes, ty, records))
}

/// The error an invalid vector names: its kind, the byte and the path every
/// implementation must report (SPEC.md §17.2, vectors/README.md).
struct Want {
    kind: ErrorKind,
    offset: u64,
    path: String,
}

impl Want {
    fn of(v: &Json, kind: &str) -> Result<Want, String> {
        let kind = ErrorKind::from_name(kind).ok_or_else(|| format!("unknown error kind {kind:?}"))?;
        let offset = v.get("offset").and_then(Json::as_u64).ok_or("an invalid vector needs a numeric \"offset\"")?;
        let path = v.get("path").and_then(Json::as_str).ok_or("an invalid vector needs a \"path\" string")?;
        Ok(Want { kind, offset, path: path.to_owned() })
    }

    fn check(&self, e: &xbf::Error) -> Result<(), String> {
        if e.kind() == self.kind && e.offset() == Some(self.offset) && e.path_string() == self.path {
            return Ok(());
        }
        let path = if self.path.is_empty() { String::new() } else { format!(", in {}", self.path) };
        Err(format!("failed with {e}, expected at byte {}{path}: {}", self.offset, self.kind.name()))
    }
}

fn check_stream_vector(v: &Json) -> Result<(), String> {
    let (bytes, ty, records) = records_vector(v)?;
    let want_error = match v.get("error") {
        None => None,
        Some(k) => Some(Want::of(v, k.as_str().ok_or("\"error\" is not a string")?)?),
    };

    let mut got = Vec::new();
    let mut failure = None;
    match StreamReader::from_slice(&bytes) {
        Err(e) => failure = Some(e),
        Ok(reader) => {
            if *reader.metadata() != ty {
                return Err(format!("decoded type {}, expected {ty}", reader.metadata()));
            }
            for item in reader {
                match item {
                    Ok(r) => got.push(r),
                    Err(e) => failure = Some(e),
                }
            }
        }
    }
    if got.len() != records.len() || !got.iter().zip(&records).all(|(a, b)| same(a, b)) {
        let show = |rs: &[Value]| rs.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        return Err(format!("yielded [{}], expected [{}]", show(&got), show(&records)));
    }
    match (failure, want_error) {
        (None, None) => {}
        (Some(e), Some(want)) => want.check(&e)?,
        (Some(e), None) => return Err(format!("failed with {e}, expected a clean end")),
        (None, Some(want)) => return Err(format!("ended cleanly, expected {}", want.kind.name())),
    }

    if let Some(blocks) = v.get("blocks") {
        let sizes = blocks.as_array().ok_or("\"blocks\" is not an array")?;
        let flags = *bytes.get(1).ok_or("no flags byte")?;
        let opts = StreamOptions::default()
            .checksums(flags & 0x08 != 0)
            .schema_by_reference(flags & 0x01 != 0)
            .block_bytes(usize::MAX);
        let mut w = StreamWriter::new(Vec::new(), ty, opts).map_err(|e| e.to_string())?;
        let mut next = records.iter();
        for size in sizes {
            for _ in 0..size.as_u64().ok_or("a block size is not a number")? {
                let r = next.next().ok_or("\"blocks\" add up to more than the records")?;
                w.write(r).map_err(|e| e.to_string())?;
            }
            w.flush().map_err(|e| e.to_string())?;
        }
        let written = w.finish().map_err(|e| e.to_string())?;
        if written != bytes {
            return Err(format!("wrote {}, expected {}", to_hex(&written), to_hex(&bytes)));
        }
    }
    Ok(())
}

/// Value equality where any NaN equals any NaN (the vector form writes all
/// NaNs as "NaN") and -0.0 differs from 0.0.
fn same(a: &Value, b: &Value) -> bool {
    let all = |x: &[Value], y: &[Value]| x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b));
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        (Value::Vec(x), Value::Vec(y)) | (Value::Array(x), Value::Array(y)) => {
            x.element_type() == y.element_type() && all(x.items(), y.items())
        }
        (Value::Struct(x), Value::Struct(y)) => x.metadata() == y.metadata() && all(x.values(), y.values()),
        (Value::Option(x), Value::Option(y)) => {
            x.inner_type() == y.inner_type()
                && match (x.value(), y.value()) {
                    (Some(a), Some(b)) => same(a, b),
                    (None, None) => true,
                    _ => false,
                }
        }
        (Value::Tuple(x), Value::Tuple(y)) => x.types() == y.types() && all(x.items(), y.items()),
        (Value::Map(x), Value::Map(y)) => {
            x.key_type() == y.key_type()
                && x.value_type() == y.value_type()
                && x.len() == y.len()
                && x.entries().iter().zip(y.entries()).all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
        }
        (Value::Enum(x), Value::Enum(y)) => {
            x.metadata() == y.metadata() && x.index() == y.index() && same(x.payload(), y.payload())
        }
        (Value::Any(x), Value::Any(y)) => x.metadata() == y.metadata() && same(x.value(), y.value()),
        _ => a == b,
    }
}

fn parse_type(j: &Json) -> Result<Metadata, String> {
    let Json::Object(o) = j else {
        return match j {
            Json::String(word) if word == "any" => Ok(Metadata::Any),
            Json::String(word) => {
                PrimitiveType::from_name(word).map(Metadata::from).ok_or_else(|| format!("unknown type word {word:?}"))
            }
            other => Err(format!("{other} is not a type")),
        };
    };
    let keys: Vec<&str> = o.keys().map(String::as_str).collect();
    match keys.as_slice() {
        ["vec"] => Ok(Metadata::vec(parse_type(&o["vec"])?)),
        ["option"] => Ok(Metadata::option(parse_type(&o["option"])?)),
        ["array", "len"] | ["len", "array"] => {
            let len = o["len"].as_u64().ok_or("array len is not a whole number")?;
            Ok(Metadata::array(len, parse_type(&o["array"])?))
        }
        ["tuple"] => {
            let ts = o["tuple"].as_array().ok_or("tuple is not an array of types")?;
            Ok(Metadata::tuple(ts.iter().map(parse_type).collect::<Result<Vec<_>, _>>()?))
        }
        ["map"] => match o["map"].as_array().map(Vec::as_slice) {
            Some([k, v]) => Ok(Metadata::map(parse_type(k)?, parse_type(v)?)),
            _ => Err("map is not [key type, value type]".into()),
        },
        ["struct", "fields"] | ["fields", "struct"] => {
            let name = o["struct"].as_str().ok_or("struct name is not a string")?;
            StructMetadata::new(name, named_types(&o["fields"])?).map(Metadata::from).map_err(|e| e.to_string())
        }
        ["enum", "variants"] | ["variants", "enum"] => {
            let name = o["enum"].as_str().ok_or("enum name is not a string")?;
            EnumMetadata::new(name, named_types(&o["variants"])?).map(Metadata::from).map_err(|e| e.to_string())
        }
        _ => Err(format!("{j} is not a type")),
    }
}

/// `[["name", TYPE], ...]`: struct fields or enum variants.
fn named_types(j: &Json) -> Result<Vec<(&str, Metadata)>, String> {
    let list = j.as_array().ok_or_else(|| format!("{j} is not an array of [name, type]"))?;
    list.iter()
        .map(|f| match f.as_array().map(Vec::as_slice) {
            Some([Json::String(n), t]) => Ok((n.as_str(), parse_type(t)?)),
            _ => Err(format!("{f} is not [name, type]")),
        })
        .collect()
}

fn parse_value(j: &Json, ty: &Metadata) -> Result<Value, String> {
    let text = |e: xbf::Error| e.to_string();
    let list = |j: &Json| j.as_array().cloned().ok_or_else(|| format!("{j} is not an array"));
    match ty {
        Metadata::Primitive(p) => parse_primitive(j, *p),
        Metadata::Vec(elem) => {
            let items = list(j)?.iter().map(|item| parse_value(item, elem)).collect::<Result<Vec<_>, _>>()?;
            VecValue::new((**elem).clone(), items).map(Value::from).map_err(text)
        }
        Metadata::Array(a) => {
            let items = list(j)?;
            if items.len() as u64 != a.len {
                return Err(format!("{} items for an array of {}", items.len(), a.len));
            }
            let items = items.iter().map(|i| parse_value(i, &a.element)).collect::<Result<Vec<_>, _>>()?;
            VecValue::new(a.element.clone(), items).map(Value::Array).map_err(text)
        }
        Metadata::Struct(s) => {
            let obj = j.as_object().ok_or_else(|| format!("{j} is not an object"))?;
            if obj.len() != s.len() {
                return Err(format!("{} keys for a struct of {} fields", obj.len(), s.len()));
            }
            let mut fields = Vec::with_capacity(s.len());
            for (name, fty) in s.fields() {
                let fj = obj.get(name).ok_or_else(|| format!("no key {name:?}"))?;
                fields.push(parse_value(fj, fty)?);
            }
            StructValue::new(s.clone(), fields).map(Value::from).map_err(text)
        }
        Metadata::Option(inner) => match j {
            Json::Null => Ok(Value::Option(OptionValue::none((**inner).clone()))),
            Json::Object(o) if o.len() == 1 && o.contains_key("some") => {
                OptionValue::some((**inner).clone(), parse_value(&o["some"], inner)?).map(Value::Option).map_err(text)
            }
            _ => Err(format!("{j} is neither null nor {{\"some\": value}}")),
        },
        Metadata::Tuple(types) => {
            let items = list(j)?;
            if items.len() != types.len() {
                return Err(format!("{} items for a tuple of {}", items.len(), types.len()));
            }
            let items = items.iter().zip(types.iter()).map(|(i, t)| parse_value(i, t)).collect::<Result<_, _>>()?;
            TupleValue::new(types.to_vec(), items).map(Value::Tuple).map_err(text)
        }
        Metadata::Map(m) => {
            let mut entries = Vec::new();
            for p in list(j)? {
                match p.as_array().map(Vec::as_slice) {
                    Some([k, v]) => entries.push((parse_value(k, &m.key)?, parse_value(v, &m.value)?)),
                    _ => return Err(format!("{p} is not [key, value]")),
                }
            }
            MapValue::new(m.key.clone(), m.value.clone(), entries).map(Value::Map).map_err(text)
        }
        Metadata::Enum(e) => {
            let o = j.as_object().filter(|o| o.len() == 2).ok_or_else(|| format!("{j} is not {{variant, value}}"))?;
            let name = o.get("variant").and_then(Json::as_str).ok_or("no variant name")?;
            let (_, pty) = e.variant(name).ok_or_else(|| format!("no variant {name:?}"))?;
            let payload = parse_value(o.get("value").ok_or("no value")?, pty)?;
            EnumValue::new(e.clone(), name, payload).map(Value::Enum).map_err(text)
        }
        Metadata::Any => {
            let o = j.as_object().filter(|o| o.len() == 2).ok_or_else(|| format!("{j} is not {{type, value}}"))?;
            let own = parse_type(o.get("type").ok_or("no type")?)?;
            let value = parse_value(o.get("value").ok_or("no value")?, &own)?;
            AnyValue::new(own, value).map(|a| Value::Any(Box::new(a))).map_err(text)
        }
        _ => Err(format!("type {ty} has no vector form")),
    }
}

fn parse_primitive(j: &Json, p: PrimitiveType) -> Result<Value, String> {
    let bad = || format!("{j} is not a {p} value");
    // 64-bit and wider integers are decimal strings; narrower ones numbers.
    let small_int = || j.as_i64().ok_or_else(bad);
    let digits = || j.as_str().ok_or_else(bad);
    Ok(match p.integer_type() {
        PrimitiveType::Unit if j.is_null() => Value::Unit,
        PrimitiveType::Unit => return Err(bad()),
        PrimitiveType::Date => Value::Date(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::Timestamp => Value::Timestamp(digits()?.parse().map_err(|_| bad())?),
        PrimitiveType::Bool => Value::Bool(j.as_bool().ok_or_else(bad)?),
        PrimitiveType::U8 => Value::U8(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::U16 => Value::U16(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::U32 => Value::U32(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::I8 => Value::I8(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::I16 => Value::I16(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::I32 => Value::I32(small_int()?.try_into().map_err(|_| bad())?),
        PrimitiveType::U64 => Value::U64(digits()?.parse().map_err(|_| bad())?),
        PrimitiveType::U128 => Value::U128(digits()?.parse().map_err(|_| bad())?),
        PrimitiveType::I64 => Value::I64(digits()?.parse().map_err(|_| bad())?),
        PrimitiveType::I128 => Value::I128(digits()?.parse().map_err(|_| bad())?),
        PrimitiveType::U256 => Value::U256(U256::from_str_radix(digits()?, 10).map_err(|_| bad())?),
        PrimitiveType::I256 => Value::I256(I256::from_str_radix(digits()?, 10).map_err(|_| bad())?),
        PrimitiveType::F64 => Value::F64(parse_float(j).ok_or_else(bad)?),
        PrimitiveType::F32 => {
            let x = parse_float(j).ok_or_else(bad)?;
            let y = x as f32;
            if !x.is_nan() && f64::from(y) != x {
                return Err(format!("{j} is not exactly representable as f32"));
            }
            Value::F32(y)
        }
        PrimitiveType::Bytes => Value::Bytes(from_hex(j.as_str().ok_or_else(bad)?).ok_or_else(bad)?),
        PrimitiveType::String => Value::String(j.as_str().ok_or_else(bad)?.to_owned()),
        _ => return Err(format!("{p} has no vector form")),
    })
}

fn parse_float(j: &Json) -> Option<f64> {
    match j {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

pub(crate) fn from_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    s.as_bytes().chunks_exact(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hex_round_trip_and_rejects() {
        assert_eq!(from_hex("00ff7a"), Some(vec![0, 255, 0x7a]));
        assert_eq!(to_hex(&[0, 255, 0x7a]), "00ff7a");
        assert_eq!(from_hex("0"), None);
        assert_eq!(from_hex("FF"), None);
        assert_eq!(from_hex("zz"), None);
    }

    #[test]
    fn a_wrong_vector_fails() {
        let good = json!({"name": "u16", "type": "u16", "value": 1024, "hex": "020004"});
        assert!(check_vector(&good, 1).is_ok());
        let wrong_value = json!({"name": "u16", "type": "u16", "value": 1025, "hex": "020004"});
        assert!(check_vector(&wrong_value, 1).unwrap_err().contains("expected 1025"));
        let wrong_type = json!({"name": "u16", "type": "i16", "value": 1024, "hex": "020004"});
        assert!(check_vector(&wrong_type, 1).unwrap_err().contains("decoded type u16"));
        let wrong_kind = json!({"name": "b", "hex": "0002", "error": "truncated", "offset": 1, "path": ""});
        assert!(check_vector(&wrong_kind, 1).unwrap_err().contains("invalid-bool"));
        let decodes = json!({"name": "b", "hex": "0001", "error": "invalid-bool", "offset": 1, "path": ""});
        assert!(check_vector(&decodes, 1).is_err());
        let right = json!({"name": "b", "hex": "0002", "error": "invalid-bool", "offset": 1, "path": ""});
        assert!(check_vector(&right, 1).is_ok());
        let wrong_offset = json!({"name": "b", "hex": "0002", "error": "invalid-bool", "offset": 0, "path": ""});
        assert!(check_vector(&wrong_offset, 1).unwrap_err().contains("expected at byte 0"));
        let wrong_path = json!({"name": "b", "hex": "0002", "error": "invalid-bool", "offset": 1, "path": "x"});
        assert!(check_vector(&wrong_path, 1).unwrap_err().contains("in x"));
        let no_offset = json!({"name": "b", "hex": "0002", "error": "invalid-bool", "path": ""});
        assert!(check_vector(&no_offset, 1).unwrap_err().contains("\"offset\""));
    }

    #[test]
    fn nan_matches_nan_but_zero_signs_differ() {
        assert!(same(&Value::F64(f64::NAN), &Value::F64(-f64::NAN)));
        assert!(!same(&Value::F64(0.0), &Value::F64(-0.0)));
        assert!(!same(&Value::F32(1.0), &Value::F32(f32::NAN)));
    }

    #[test]
    fn unknown_versions_are_skipped() {
        let v2 = json!({"name": "x", "version": 3, "type": "unit", "value": null, "hex": "ff"});
        assert!(matches!(run_vector(&v2), Outcome::SkipVersion));
    }

    #[test]
    fn inexact_f32_is_a_bad_vector() {
        let v = json!({"name": "f", "type": "f32", "value": 0.1, "hex": "0dcdcccc3d"});
        assert!(check_vector(&v, 1).unwrap_err().contains("not exactly representable"));
    }
}
