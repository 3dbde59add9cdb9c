//! `xbf vectors decode` (hidden): the Rust side of scripts/difffuzz.py.
//!
//! Reads lines `m HEX` (decode one message), `s HEX` (read a record
//! stream) or `f HEX` (read an XBF file forward and from the end) on standard input and writes one JSON line for each on standard
//! output, so that the differential fuzzer compares implementations line by
//! line:
//!
//! - a message: `{"type": TYPE, "value": VALUE}` or `{"error": ERROR}`;
//! - a stream: `{"type": TYPE | null, "records": [VALUE...], "error": ERROR | null}`;
//! - a file: `{"error": ERROR | null, "end_error": ERROR | null}`;
//! - ERROR is `{"kind", "offset" (null where unknown), "path"}`;
//! - a panic (a bug) is `{"panic": message}`, and the batch goes on.
//!
//! TYPE and VALUE are the conformance vectors' forms (vectors/README.md),
//! except that a NaN is written `"NaN:" + its bits in hex` (8 or 16 digits)
//! so that payloads are compared, not only NaN-ness.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use serde_json::{json, Value as Json};
use xbf::{Error, Metadata, Value};

use crate::vectors::{from_hex, to_hex};

pub fn decode() -> ExitCode {
    // Panics are answered as `{"panic": why}` lines, not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let stdin = io::stdin().lock();
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { return ExitCode::FAILURE };
        let (mode, hex) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let Some(bytes) = from_hex(hex.trim()) else {
            eprintln!("xbf vectors decode: not lowercase hex: {line}");
            return ExitCode::from(2);
        };
        // A panic is a finding, reported as its own outcome; the batch goes on.
        let caught = |f: fn(&[u8]) -> Json| {
            std::panic::catch_unwind(|| f(&bytes)).unwrap_or_else(|p| {
                let why =
                    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                json!({"panic": why.unwrap_or_default()})
            })
        };
        let answer = match mode {
            "m" => caught(message),
            "s" => caught(stream),
            "f" => caught(file),
            _ => {
                eprintln!("xbf vectors decode: a line is `m HEX`, `s HEX` or `f HEX`, not {line:?}");
                return ExitCode::from(2);
            }
        };
        if writeln!(out, "{answer}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn message(bytes: &[u8]) -> Json {
    match crate::io::decode_options().decode_typed_message(bytes) {
        Ok((ty, v)) => json!({"type": type_json(&ty), "value": value_json(&v)}),
        Err(e) => json!({"error": error_json(&e)}),
    }
}

fn stream(bytes: &[u8]) -> Json {
    // The length is known, as every batch decoder's is (SPEC.md 15.3).
    let reader = match crate::io::decode_options().stream_reader_with_length(bytes, bytes.len() as u64) {
        Ok(r) => r,
        Err(e) => return json!({"type": null, "records": [], "error": error_json(&e)}),
    };
    let ty = type_json(reader.metadata());
    let mut records = Vec::new();
    for item in reader {
        match item {
            Ok(v) => records.push(value_json(&v)),
            Err(e) => return json!({"type": ty, "records": records, "error": error_json(&e)}),
        }
    }
    json!({"type": ty, "records": records, "error": null})
}

/// An XBF file (SPEC.md §24), read forward and from the end: the errors each
/// read ends with (scripts/vector_errors.py fills the file vectors from them).
fn file(bytes: &[u8]) -> Json {
    let (_, _, forward) = crate::vectors::files::read_forward(bytes);
    let (_, from_end) = crate::vectors::files::read_from_end(bytes);
    json!({"error": forward.as_ref().map(error_json), "end_error": from_end.as_ref().map(error_json)})
}

fn error_json(e: &Error) -> Json {
    json!({"kind": e.kind().name(), "offset": e.offset(), "path": e.path_string()})
}

/// A type in the vectors' form (the inverse of vectors.rs's `parse_type`).
pub fn type_json(ty: &Metadata) -> Json {
    let named = |items: &mut dyn Iterator<Item = (&str, &Metadata)>| -> Json {
        items.map(|(n, t)| json!([n, type_json(t)])).collect()
    };
    match ty {
        Metadata::Primitive(p) => json!(p.name()),
        Metadata::Any => json!("any"),
        Metadata::Vec(e) => json!({"vec": type_json(e)}),
        Metadata::Option(e) => json!({"option": type_json(e)}),
        Metadata::Array(a) => json!({"array": type_json(&a.element), "len": a.len}),
        Metadata::Tuple(ts) => json!({"tuple": ts.iter().map(type_json).collect::<Vec<_>>()}),
        Metadata::Map(m) => json!({"map": [type_json(&m.key), type_json(&m.value)]}),
        Metadata::Struct(s) => json!({"struct": s.name(), "fields": named(&mut s.fields())}),
        Metadata::Enum(e) => json!({"enum": e.name(), "variants": named(&mut e.variants())}),
        // A type added later: written so that the fuzzer reports it, never hidden.
        other => json!(format!("no vector form: {other}")),
    }
}

fn float_json(x: f64, bits: String) -> Json {
    if x.is_nan() {
        json!(format!("NaN:{bits}"))
    } else if x.is_infinite() {
        json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(x)
    }
}

/// A value in the vectors' form, NaNs with their bits.
pub fn value_json(v: &Value) -> Json {
    let all = |items: &[Value]| items.iter().map(value_json).collect::<Vec<_>>();
    match v {
        Value::Bool(b) => json!(b),
        Value::U8(x) => json!(x),
        Value::U16(x) => json!(x),
        Value::U32(x) => json!(x),
        Value::I8(x) => json!(x),
        Value::I16(x) => json!(x),
        Value::I32(x) => json!(x),
        Value::Date(x) => json!(x),
        Value::U64(x) => json!(x.to_string()),
        Value::U128(x) => json!(x.to_string()),
        Value::U256(x) => json!(x.to_string()),
        Value::I64(x) => json!(x.to_string()),
        Value::I128(x) => json!(x.to_string()),
        Value::I256(x) => json!(x.to_string()),
        Value::Timestamp(x) => json!(x.to_string()),
        Value::F32(x) => float_json(f64::from(*x), format!("{:08x}", x.to_bits())),
        Value::F64(x) => float_json(*x, format!("{:016x}", x.to_bits())),
        Value::Bytes(b) => json!(to_hex(b)),
        Value::String(s) => json!(s),
        Value::Unit => Json::Null,
        Value::Vec(items) | Value::Array(items) => json!(all(items.items())),
        Value::Tuple(t) => json!(all(t.items())),
        Value::Struct(s) => Json::Object(s.fields().map(|(n, v)| (n.to_owned(), value_json(v))).collect()),
        Value::Option(o) => match o.value() {
            None => Json::Null,
            Some(v) => json!({"some": value_json(v)}),
        },
        Value::Map(m) => {
            json!(m.entries().iter().map(|(k, v)| json!([value_json(k), value_json(v)])).collect::<Vec<_>>())
        }
        Value::Enum(e) => json!({"variant": e.variant(), "value": value_json(e.payload())}),
        Value::Any(a) => json!({"type": type_json(a.metadata()), "value": value_json(a.value())}),
        other => json!(format!("no vector form: {other}")),
    }
}
