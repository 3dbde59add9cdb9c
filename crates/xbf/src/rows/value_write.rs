//! Encoding metadata, values and messages, in v1 or XBF 2.
//!
//! A [`Value`] is checked against its type when it is built, so encoding a
//! value cannot fail; only a type can be out of a version's reach (v1 has no
//! options, maps, ...; it counts at most 65,535 struct fields), and writers
//! can fail.

use std::io::{self, Write};

use crate::metadata::Metadata;
use crate::value::Value;
use crate::wire::{varint, Version, FLAG_SCHEMA_REF, V2_MARKER};

pub(crate) struct Encoder<W> {
    pub(crate) w: W,
    v2: bool,
}

impl<W: Write> Encoder<W> {
    pub(crate) fn new(w: W, version: Version) -> Self {
        Encoder { w, v2: version == Version::V2 }
    }

    /// For XBF 2 the header (with `extra_flags`) and the metadata or its
    /// fingerprint; for v1 the metadata alone.
    pub(crate) fn message_head(&mut self, ty: &Metadata, by_reference: bool, extra_flags: u8) -> io::Result<()> {
        if !self.v2 {
            return self.metadata(ty);
        }
        let flags = extra_flags | if by_reference { FLAG_SCHEMA_REF } else { 0 };
        self.w.write_all(&[V2_MARKER, flags])?;
        if by_reference {
            self.w.write_all(&crate::schema::fingerprint(ty))
        } else {
            self.metadata(ty)
        }
    }

    fn len(&mut self, n: usize) -> io::Result<()> {
        if self.v2 {
            self.uvarint(n as u128)
        } else {
            self.w.write_all(&(n as u64).to_le_bytes())
        }
    }

    fn uvarint(&mut self, x: u128) -> io::Result<()> {
        let mut buf = [0u8; varint::MAX_LEN];
        let n = varint::encode(x, &mut buf);
        self.w.write_all(&buf[..n])
    }

    fn str(&mut self, s: &str) -> io::Result<()> {
        self.len(s.len())?;
        self.w.write_all(s.as_bytes())
    }

    pub(crate) fn metadata(&mut self, ty: &Metadata) -> io::Result<()> {
        let mut bytes = Vec::new();
        ty.write_bytes(self.v2, &mut bytes);
        self.w.write_all(&bytes)
    }

    /// Whether an integer of type `ty` is written fixed-width.
    fn fixed(&self, ty: &Metadata) -> bool {
        !self.v2 || matches!(ty, Metadata::Primitive(p) if p.integer_type() != *p)
    }

    fn unsigned(&mut self, x: u128, le: &[u8], ty: &Metadata) -> io::Result<()> {
        if self.fixed(ty) {
            self.w.write_all(le)
        } else {
            self.uvarint(x)
        }
    }

    fn signed(&mut self, x: i128, le: &[u8], ty: &Metadata) -> io::Result<()> {
        if self.fixed(ty) {
            self.w.write_all(le)
        } else {
            self.uvarint(varint::zigzag(x))
        }
    }

    /// Writes `v`, of type `ty` (which only matters for how integers are
    /// written; composite values carry their members' types).
    pub(crate) fn value(&mut self, v: &Value, ty: &Metadata) -> io::Result<()> {
        match v {
            Value::Bool(x) => self.w.write_all(&[u8::from(*x)]),
            Value::U8(x) => self.w.write_all(&[*x]),
            Value::I8(x) => self.w.write_all(&x.to_le_bytes()),
            Value::U16(x) => self.unsigned((*x).into(), &x.to_le_bytes(), ty),
            Value::U32(x) => self.unsigned((*x).into(), &x.to_le_bytes(), ty),
            Value::U64(x) => self.unsigned((*x).into(), &x.to_le_bytes(), ty),
            Value::U128(x) => self.unsigned(*x, &x.to_le_bytes(), ty),
            Value::I16(x) => self.signed((*x).into(), &x.to_le_bytes(), ty),
            Value::I32(x) => self.signed((*x).into(), &x.to_le_bytes(), ty),
            Value::I64(x) => self.signed((*x).into(), &x.to_le_bytes(), ty),
            Value::I128(x) => self.signed(*x, &x.to_le_bytes(), ty),
            Value::U256(x) => self.w.write_all(&x.to_le_bytes()),
            Value::I256(x) => self.w.write_all(&x.to_le_bytes()),
            Value::F32(x) => self.w.write_all(&x.to_le_bytes()),
            Value::F64(x) => self.w.write_all(&x.to_le_bytes()),
            Value::Bytes(b) => {
                self.len(b.len())?;
                self.w.write_all(b)
            }
            Value::String(s) => self.str(s),
            Value::Unit => Ok(()),
            Value::Date(d) => self.uvarint(varint::zigzag((*d).into())),
            Value::Timestamp(t) => self.uvarint(varint::zigzag((*t).into())),
            Value::Vec(v) => {
                self.len(v.len())?;
                let elem = v.element_type();
                v.items().iter().try_for_each(|item| self.value(item, elem))
            }
            Value::Array(v) => {
                let elem = v.element_type();
                v.items().iter().try_for_each(|item| self.value(item, elem))
            }
            Value::Struct(s) => {
                let types = s.metadata().fields().map(|(_, t)| t);
                s.values().iter().zip(types).try_for_each(|(f, t)| self.value(f, t))
            }
            Value::Option(o) => match o.value() {
                None => self.w.write_all(&[0]),
                Some(inner) => {
                    self.w.write_all(&[1])?;
                    self.value(inner, o.inner_type())
                }
            },
            Value::Tuple(t) => t.items().iter().zip(t.types()).try_for_each(|(v, ty)| self.value(v, ty)),
            Value::Map(m) => {
                self.len(m.len())?;
                m.entries().iter().try_for_each(|(k, v)| {
                    self.value(k, m.key_type())?;
                    self.value(v, m.value_type())
                })
            }
            Value::Enum(e) => {
                self.len(e.index())?;
                let (_, pty) = e.metadata().variant_at(e.index()).expect("the index was checked");
                self.value(e.payload(), pty)
            }
            Value::Any(a) => {
                self.metadata(a.metadata())?;
                self.value(a.value(), a.metadata())
            }
        }
    }
}
