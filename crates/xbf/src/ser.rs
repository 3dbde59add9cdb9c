//! Encoding v1 metadata, values and messages.
//!
//! A [`Value`] is checked against its type when it is built, so encoding a
//! value cannot fail; only metadata can be out of v1's reach (a struct of
//! more than 65,535 fields), and writers can fail.

use std::io::{self, Write};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, StructMetadata};
use crate::value::Value;

fn write_err(e: io::Error) -> Error {
    Error::new(ErrorKind::Io, e.to_string())
}

/// Writes a length or count: u64, little-endian.
fn write_len<W: Write>(w: &mut W, len: usize) -> io::Result<()> {
    w.write_all(&(len as u64).to_le_bytes())
}

fn write_str<W: Write>(w: &mut W, s: &str) -> io::Result<()> {
    write_len(w, s.len())?;
    w.write_all(s.as_bytes())
}

/// Checks that every struct in `ty` fits v1's 16-bit field count, so that a
/// failure happens before any byte is written.
fn check_v1(ty: &Metadata) -> Result<()> {
    match ty {
        Metadata::Primitive(_) => Ok(()),
        Metadata::Vec(elem) => check_v1(elem),
        Metadata::Struct(s) => {
            if s.len() > usize::from(u16::MAX) {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!(
                        "struct {} has {} fields; v1 counts at most 65535",
                        s.name(),
                        s.len()
                    ),
                ));
            }
            s.fields().try_for_each(|(_, m)| check_v1(m))
        }
    }
}

fn write_metadata<W: Write>(w: &mut W, ty: &Metadata) -> io::Result<()> {
    w.write_all(&[ty.discriminant()])?;
    match ty {
        Metadata::Primitive(_) => Ok(()),
        Metadata::Vec(elem) => write_metadata(w, elem),
        Metadata::Struct(s) => write_struct_metadata(w, s),
    }
}

fn write_struct_metadata<W: Write>(w: &mut W, s: &StructMetadata) -> io::Result<()> {
    write_str(w, s.name())?;
    // check_v1 ran first, so the count fits.
    w.write_all(&(s.len() as u16).to_le_bytes())?;
    for (name, ty) in s.fields() {
        write_str(w, name)?;
        write_metadata(w, ty)?;
    }
    Ok(())
}

fn write_value<W: Write>(w: &mut W, v: &Value) -> io::Result<()> {
    match v {
        Value::Bool(x) => w.write_all(&[u8::from(*x)]),
        Value::U8(x) => w.write_all(&[*x]),
        Value::U16(x) => w.write_all(&x.to_le_bytes()),
        Value::U32(x) => w.write_all(&x.to_le_bytes()),
        Value::U64(x) => w.write_all(&x.to_le_bytes()),
        Value::U128(x) => w.write_all(&x.to_le_bytes()),
        Value::U256(x) => w.write_all(&x.to_le_bytes()),
        Value::I8(x) => w.write_all(&x.to_le_bytes()),
        Value::I16(x) => w.write_all(&x.to_le_bytes()),
        Value::I32(x) => w.write_all(&x.to_le_bytes()),
        Value::I64(x) => w.write_all(&x.to_le_bytes()),
        Value::I128(x) => w.write_all(&x.to_le_bytes()),
        Value::I256(x) => w.write_all(&x.to_le_bytes()),
        Value::F32(x) => w.write_all(&x.to_le_bytes()),
        Value::F64(x) => w.write_all(&x.to_le_bytes()),
        Value::Bytes(b) => {
            write_len(w, b.len())?;
            w.write_all(b)
        }
        Value::String(s) => write_str(w, s),
        Value::Vec(v) => {
            write_len(w, v.len())?;
            v.items().iter().try_for_each(|item| write_value(w, item))
        }
        Value::Struct(s) => s.values().iter().try_for_each(|f| write_value(w, f)),
    }
}

/// Encodes a whole v1 message: the value's metadata, then the value.
///
/// ```
/// use xbf::{StructValue, Value};
///
/// let p = StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))]).unwrap();
/// let bytes = xbf::encode_message(&p.into()).unwrap();
/// assert_eq!(bytes.len(), 45);
/// assert_eq!(&bytes[43..], &[0x2a, 0xfb]);
/// ```
pub fn encode_message(value: &Value) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_message(&mut out, value)?;
    Ok(out)
}

/// Writes a whole v1 message to `writer` (wrap files and sockets in an
/// [`io::BufWriter`]: values are written a field at a time).
pub fn write_message<W: Write>(mut writer: W, value: &Value) -> Result<()> {
    let ty = value.metadata();
    check_v1(&ty)?;
    write_metadata(&mut writer, &ty).map_err(write_err)?;
    write_value(&mut writer, value).map_err(write_err)
}

/// Encodes metadata alone.
pub fn encode_metadata(ty: &Metadata) -> Result<Vec<u8>> {
    check_v1(ty)?;
    let mut out = Vec::new();
    write_metadata(&mut out, ty).map_err(write_err)?;
    Ok(out)
}

/// Encodes a value alone, without its metadata (the "data only" form for a
/// reader that already holds the type; see [`DecodeOptions::decode_value`](crate::DecodeOptions::decode_value)).
pub fn encode_value(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(&mut out, value).expect("writing to a Vec cannot fail");
    out
}
