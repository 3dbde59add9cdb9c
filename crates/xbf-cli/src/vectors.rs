//! `xbf vectors check`: runs conformance vector files through this crate's
//! implementation of XBF.
//!
//! A vector file is a JSON array of vectors in the project's conformance form:
//! valid ones carry a type, a value and the message's hex; invalid ones carry
//! hex and the error kind that decoding it must fail with.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value as Json;
use xbf::{
    ErrorKind, Metadata, PrimitiveType, StructMetadata, StructValue, Value, VecValue, I256, U256,
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
const KNOWN_VERSIONS: &[u64] = &[1];

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
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
            let name = vector
                .get("name")
                .and_then(Json::as_str)
                .map_or_else(|| format!("#{i}"), str::to_owned);
            match run_vector(vector) {
                Outcome::Pass => {
                    tally.passed += 1;
                    if args.verbose {
                        println!("ok   {label}: {name}");
                    }
                }
                Outcome::Skip => tally.skipped += 1,
                Outcome::Fail(why) => {
                    tally.failed += 1;
                    println!("FAIL {label}: {name}: {why}");
                }
            }
        }
    }
    if tally.skipped > 0 {
        println!(
            "{} passed, {} failed, {} skipped (versions other than {:?})",
            tally.passed, tally.failed, tally.skipped, KNOWN_VERSIONS
        );
    } else {
        println!("{} passed, {} failed", tally.passed, tally.failed);
    }
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
    let json: Json =
        serde::Deserialize::deserialize(&mut de).map_err(|e| format!("not JSON: {e}"))?;
    de.end().map_err(|e| format!("not JSON: {e}"))?;
    match json {
        Json::Array(v) => Ok(v),
        _ => Err("a vector file is a JSON array".into()),
    }
}

enum Outcome {
    Pass,
    Skip,
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
        return Outcome::Skip;
    }
    match check_vector(v) {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::Fail(why),
    }
}

fn check_vector(v: &Json) -> Result<(), String> {
    let hex = v
        .get("hex")
        .and_then(Json::as_str)
        .ok_or("no \"hex\" string")?;
    let bytes = from_hex(hex).ok_or("\"hex\" is not lowercase hex")?;
    if let Some(kind) = v.get("error") {
        let kind = kind.as_str().ok_or("\"error\" is not a string")?;
        let want =
            ErrorKind::from_name(kind).ok_or_else(|| format!("unknown error kind {kind:?}"))?;
        return match xbf::decode_message(&bytes) {
            Ok(value) => Err(format!("decoded as {value:?}, expected error {kind}")),
            Err(e) if e.kind() == want => Ok(()),
            Err(e) => Err(format!("failed with {e}, expected {kind}")),
        };
    }
    let ty =
        parse_type(v.get("type").ok_or("no \"type\"")?).map_err(|e| format!("bad type: {e}"))?;
    let expected = parse_value(v.get("value").ok_or("no \"value\"")?, &ty)
        .map_err(|e| format!("bad value: {e}"))?;

    let decoded = xbf::decode_message(&bytes).map_err(|e| format!("decode failed: {e}"))?;
    if decoded.metadata() != ty {
        return Err(format!(
            "decoded type {}, expected {ty}",
            decoded.metadata()
        ));
    }
    if !same(&decoded, &expected) {
        return Err(format!("decoded {decoded}, expected {expected}"));
    }
    let encoded = xbf::encode_message(&expected).map_err(|e| format!("encode failed: {e}"))?;
    if encoded != bytes {
        return Err(format!("encoded {}, expected {hex}", to_hex(&encoded)));
    }
    Ok(())
}

/// Value equality where any NaN equals any NaN (the vector form writes all
/// NaNs as "NaN") and -0.0 differs from 0.0.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        (Value::Vec(x), Value::Vec(y)) => {
            x.element_type() == y.element_type()
                && x.len() == y.len()
                && x.items().iter().zip(y.items()).all(|(a, b)| same(a, b))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.metadata() == y.metadata()
                && x.values().iter().zip(y.values()).all(|(a, b)| same(a, b))
        }
        _ => a == b,
    }
}

fn parse_type(j: &Json) -> Result<Metadata, String> {
    match j {
        Json::String(word) => PrimitiveType::from_name(word)
            .map(Metadata::from)
            .ok_or_else(|| format!("unknown type word {word:?}")),
        Json::Object(o) if o.len() == 1 && o.contains_key("vec") => {
            Ok(Metadata::vec(parse_type(&o["vec"])?))
        }
        Json::Object(o) if o.len() == 2 && o.contains_key("struct") && o.contains_key("fields") => {
            let name = o["struct"].as_str().ok_or("struct name is not a string")?;
            let fields = o["fields"]
                .as_array()
                .ok_or("struct fields are not an array")?;
            let mut parsed = Vec::with_capacity(fields.len());
            for f in fields {
                match f.as_array().map(Vec::as_slice) {
                    Some([Json::String(n), t]) => parsed.push((n.as_str(), parse_type(t)?)),
                    _ => return Err(format!("field {f} is not [name, type]")),
                }
            }
            StructMetadata::new(name, parsed)
                .map(Metadata::from)
                .map_err(|e| e.to_string())
        }
        other => Err(format!("{other} is not a type")),
    }
}

fn parse_value(j: &Json, ty: &Metadata) -> Result<Value, String> {
    match ty {
        Metadata::Primitive(p) => parse_primitive(j, *p),
        Metadata::Vec(elem) => {
            let items = j.as_array().ok_or_else(|| format!("{j} is not an array"))?;
            let items = items
                .iter()
                .map(|item| parse_value(item, elem))
                .collect::<Result<Vec<_>, _>>()?;
            VecValue::new((**elem).clone(), items)
                .map(Value::from)
                .map_err(|e| e.to_string())
        }
        Metadata::Struct(s) => {
            let obj = j
                .as_object()
                .ok_or_else(|| format!("{j} is not an object"))?;
            if obj.len() != s.len() {
                return Err(format!(
                    "{} keys for a struct of {} fields",
                    obj.len(),
                    s.len()
                ));
            }
            let mut fields = Vec::with_capacity(s.len());
            for (name, fty) in s.fields() {
                let fj = obj.get(name).ok_or_else(|| format!("no key {name:?}"))?;
                fields.push(parse_value(fj, fty)?);
            }
            StructValue::new(s.clone(), fields)
                .map(Value::from)
                .map_err(|e| e.to_string())
        }
        _ => Err(format!("type {ty} has no vector form")),
    }
}

fn parse_primitive(j: &Json, p: PrimitiveType) -> Result<Value, String> {
    let bad = || format!("{j} is not a {p} value");
    // 64-bit and wider integers are decimal strings; narrower ones numbers.
    let small_int = || j.as_i64().ok_or_else(bad);
    let digits = || j.as_str().ok_or_else(bad);
    Ok(match p {
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
        PrimitiveType::Bytes => {
            Value::Bytes(from_hex(j.as_str().ok_or_else(bad)?).ok_or_else(bad)?)
        }
        PrimitiveType::String => Value::String(j.as_str().ok_or_else(bad)?.to_owned()),
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

fn from_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    s.as_bytes()
        .chunks_exact(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
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
        assert!(check_vector(&good).is_ok());
        let wrong_value = json!({"name": "u16", "type": "u16", "value": 1025, "hex": "020004"});
        assert!(check_vector(&wrong_value)
            .unwrap_err()
            .contains("expected 1025"));
        let wrong_type = json!({"name": "u16", "type": "i16", "value": 1024, "hex": "020004"});
        assert!(check_vector(&wrong_type)
            .unwrap_err()
            .contains("decoded type u16"));
        let wrong_kind = json!({"name": "b", "hex": "0002", "error": "truncated"});
        assert!(check_vector(&wrong_kind)
            .unwrap_err()
            .contains("invalid-bool"));
        let decodes = json!({"name": "b", "hex": "0001", "error": "invalid-bool"});
        assert!(check_vector(&decodes).is_err());
    }

    #[test]
    fn nan_matches_nan_but_zero_signs_differ() {
        assert!(same(&Value::F64(f64::NAN), &Value::F64(-f64::NAN)));
        assert!(!same(&Value::F64(0.0), &Value::F64(-0.0)));
        assert!(!same(&Value::F32(1.0), &Value::F32(f32::NAN)));
    }

    #[test]
    fn unknown_versions_are_skipped() {
        let v2 = json!({"name": "x", "version": 2, "type": "unit", "value": null, "hex": "ff"});
        assert!(matches!(run_vector(&v2), Outcome::Skip));
    }

    #[test]
    fn inexact_f32_is_a_bad_vector() {
        let v = json!({"name": "f", "type": "f32", "value": 0.1, "hex": "0dcdcccc3d"});
        assert!(check_vector(&v)
            .unwrap_err()
            .contains("not exactly representable"));
    }
}
