//! Writing serde values straight into bytes, guided by the metadata traced
//! from their type: no intermediate `Value`, integers through the same
//! varint routine as the dynamic encoder.

use serde::ser::{self, Serialize};

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType, StructMetadata};
use crate::rows::value_write::Encoder;
use crate::wire::varint;
use crate::wire::Version;

use super::serde_value::ValueSer;

/// The output buffer and the version being written.
pub(crate) struct Out {
    pub(crate) buf: Vec<u8>,
    pub(crate) v2: bool,
}

impl Out {
    #[inline]
    fn uvarint(&mut self, x: u128) {
        varint::put(&mut self.buf, x);
    }

    #[inline]
    fn len(&mut self, n: usize) {
        if self.v2 {
            self.uvarint(n as u128)
        } else {
            self.buf.extend_from_slice(&(n as u64).to_le_bytes())
        }
    }

    /// Writes a length in front of the bytes written since `start`.
    fn insert_len(&mut self, start: usize, n: usize) {
        let mut tmp = Vec::with_capacity(10);
        if self.v2 {
            varint::put_u64(&mut tmp, n as u64);
        } else {
            tmp.extend_from_slice(&(n as u64).to_le_bytes());
        }
        self.buf.splice(start..start, tmp);
    }

    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.buf.extend_from_slice(b);
    }

    /// The value that a field skipped by `skip_serializing_if` is written
    /// as: zero, empty or none, and an enum's first variant.
    pub(crate) fn zero(&mut self, ty: &Metadata) -> Result<()> {
        match ty {
            Metadata::Primitive(p) => match p {
                PrimitiveType::Unit => {}
                PrimitiveType::Bytes | PrimitiveType::String => self.len(0),
                p if self.v2 && p.integer_type() == *p && p.min_size_v2() == 1 => self.buf.push(0),
                p => {
                    let n = p.fixed_size().unwrap_or(0);
                    self.buf.resize(self.buf.len() + n, 0);
                }
            },
            Metadata::Vec(_) | Metadata::Map(_) => self.len(0),
            Metadata::Option(_) => self.buf.push(0),
            Metadata::Array(a) => {
                for _ in 0..a.len {
                    self.zero(&a.element)?;
                }
            }
            Metadata::Tuple(ts) => ts.iter().try_for_each(|t| self.zero(t))?,
            Metadata::Struct(s) => s.fields().try_for_each(|(_, t)| self.zero(t))?,
            Metadata::Enum(e) => {
                let Some((_, p)) = e.variant_at(0) else {
                    return Err(Error::new(ErrorKind::TypeMismatch, format!("enum {} has no value", e.name())));
                };
                self.len(0);
                self.zero(p)?;
            }
            Metadata::Any => self.buf.push(PrimitiveType::Unit.discriminant()),
        }
        Ok(())
    }

    fn int(&mut self, ty: &Metadata, x: Int) -> Result<()> {
        let Metadata::Primitive(p) = ty else { return Err(mismatch(ty, "an integer")) };
        let p = *p;
        let (signed, bytes) = match p.integer_type() {
            PrimitiveType::U8 => (false, 1),
            PrimitiveType::U16 => (false, 2),
            PrimitiveType::U32 => (false, 4),
            PrimitiveType::U64 => (false, 8),
            PrimitiveType::U128 => (false, 16),
            PrimitiveType::I8 => (true, 1),
            PrimitiveType::I16 => (true, 2),
            PrimitiveType::I32 => (true, 4),
            PrimitiveType::I64 => (true, 8),
            PrimitiveType::I128 => (true, 16),
            PrimitiveType::F32 => return self.float(ty, x.as_f64()),
            PrimitiveType::F64 => return self.float(ty, x.as_f64()),
            _ => return Err(mismatch(ty, "an integer")),
        };
        let fixed = !self.v2 || bytes == 1 || p.integer_type() != p;
        let bits = bytes * 8;
        let out_of_range = || Error::new(ErrorKind::TypeMismatch, format!("{x} does not fit in {p}"));
        if signed {
            let v: i128 = match x {
                Int::I(v) => v,
                Int::U(u) => i128::try_from(u).map_err(|_| out_of_range())?,
            };
            if bits < 128 && (v < -(1i128 << (bits - 1)) || v >= (1i128 << (bits - 1))) {
                return Err(out_of_range());
            }
            if fixed {
                self.buf.extend_from_slice(&v.to_le_bytes()[..bytes]);
            } else {
                self.uvarint(varint::zigzag(v));
            }
        } else {
            let v: u128 = match x {
                Int::U(u) => u,
                Int::I(v) => u128::try_from(v).map_err(|_| out_of_range())?,
            };
            if bits < 128 && v >> bits != 0 {
                return Err(out_of_range());
            }
            if fixed {
                self.buf.extend_from_slice(&v.to_le_bytes()[..bytes]);
            } else {
                self.uvarint(v);
            }
        }
        Ok(())
    }

    fn float(&mut self, ty: &Metadata, x: f64) -> Result<()> {
        match ty {
            Metadata::Primitive(PrimitiveType::F64) => self.buf.extend_from_slice(&x.to_le_bytes()),
            Metadata::Primitive(PrimitiveType::F32) => self.buf.extend_from_slice(&(x as f32).to_le_bytes()),
            _ => return Err(mismatch(ty, "a float")),
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Int {
    U(u128),
    I(i128),
}

impl Int {
    fn as_f64(self) -> f64 {
        match self {
            Int::U(u) => u as f64,
            Int::I(i) => i as f64,
        }
    }
}

impl std::fmt::Display for Int {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Int::U(u) => write!(f, "{u}"),
            Int::I(i) => write!(f, "{i}"),
        }
    }
}

fn mismatch(ty: &Metadata, found: &str) -> Error {
    Error::new(
        ErrorKind::TypeMismatch,
        format!("the type's Serialize impl wrote {found} where its Deserialize impl reads {ty}"),
    )
}

/// Writes `v` as a value of type `ty`.
#[inline]
pub(crate) fn write_value<T: ?Sized + Serialize>(out: &mut Out, ty: &Metadata, v: &T) -> Result<()> {
    if let Metadata::Any = ty {
        let value = v.serialize(ValueSer)?;
        let version = if out.v2 { Version::V2 } else { Version::V1 };
        let mut enc = Encoder::new(&mut out.buf, version);
        let own = value.metadata();
        enc.metadata(&own).and_then(|()| enc.value(&value, &own)).map_err(Error::from)
    } else {
        v.serialize(TSer { out, ty })
    }
}

/// Fails with `unsupported`, naming the path, unless v1 can hold `ty`.
pub(crate) fn check_v1(ty: &Metadata) -> Result<()> {
    let r = check_v1_inner(ty);
    match ty {
        Metadata::Struct(s) => r.map_err(|e| e.within(PathSegment::Root(s.name().into()))),
        _ => r,
    }
}

fn check_v1_inner(ty: &Metadata) -> Result<()> {
    match ty {
        Metadata::Primitive(p) if p.is_v1() => Ok(()),
        Metadata::Vec(e) => check_v1_inner(e).map_err(|e| e.within(PathSegment::Element)),
        Metadata::Struct(s) => {
            if s.len() > usize::from(u16::MAX) {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!("struct {} has {} fields; v1 counts at most 65535", s.name(), s.len()),
                ));
            }
            s.fields().try_for_each(|(n, t)| check_v1_inner(t).map_err(|e| e.within(PathSegment::Field(n.into()))))
        }
        other => Err(Error::new(ErrorKind::Unsupported, format!("XBF v1 has no type {other}"))),
    }
}

pub(crate) struct TSer<'a, 'm> {
    pub(crate) out: &'a mut Out,
    pub(crate) ty: &'m Metadata,
}

fn variant<'m>(ty: &'m Metadata, index: u32, name: &str) -> Result<(usize, &'m Metadata)> {
    let Metadata::Enum(e) = ty else { return Err(mismatch(ty, &format!("enum variant {name}"))) };
    if let Some((n, p)) = e.variant_at(index as usize) {
        if n == name {
            return Ok((index as usize, p));
        }
    }
    e.variant(name)
        .ok_or_else(|| Error::new(ErrorKind::TypeMismatch, format!("enum {} has no variant {name}", e.name())))
}

impl<'a, 'm> ser::Serializer for TSer<'a, 'm> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, 'm>;
    type SerializeTuple = SeqSer<'a, 'm>;
    type SerializeTupleStruct = SeqSer<'a, 'm>;
    type SerializeTupleVariant = SeqSer<'a, 'm>;
    type SerializeMap = MapSer<'a, 'm>;
    type SerializeStruct = StructSer<'a, 'm>;
    type SerializeStructVariant = StructSer<'a, 'm>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        match self.ty {
            Metadata::Primitive(PrimitiveType::Bool) => {
                self.out.buf.push(u8::from(v));
                Ok(())
            }
            ty => Err(mismatch(ty, "a bool")),
        }
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        if let Metadata::Primitive(PrimitiveType::I8) = self.ty {
            self.out.buf.push(v as u8);
            return Ok(());
        }
        self.out.int(self.ty, Int::I(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.out.int(self.ty, Int::I(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.out.int(self.ty, Int::I(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.out.int(self.ty, Int::I(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.out.int(self.ty, Int::I(v))
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        if let Metadata::Primitive(PrimitiveType::U8) = self.ty {
            self.out.buf.push(v);
            return Ok(());
        }
        self.out.int(self.ty, Int::U(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.out.int(self.ty, Int::U(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        if self.out.v2 {
            if let Metadata::Primitive(PrimitiveType::U32) = self.ty {
                self.out.uvarint(v.into());
                return Ok(());
            }
        }
        self.out.int(self.ty, Int::U(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        if self.out.v2 {
            if let Metadata::Primitive(PrimitiveType::U64) = self.ty {
                self.out.uvarint(v.into());
                return Ok(());
            }
        }
        self.out.int(self.ty, Int::U(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.out.int(self.ty, Int::U(v))
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        match self.ty {
            Metadata::Primitive(PrimitiveType::F32) => {
                self.out.buf.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            ty => self.out.float(ty, v.into()),
        }
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.out.float(self.ty, v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut b = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut b))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        match self.ty {
            Metadata::Primitive(PrimitiveType::String) => {
                self.out.bytes(v.as_bytes());
                Ok(())
            }
            ty => Err(mismatch(ty, "a string")),
        }
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        match self.ty {
            Metadata::Primitive(PrimitiveType::Bytes) => {
                self.out.bytes(v);
                Ok(())
            }
            Metadata::Vec(e) if **e == Metadata::Primitive(PrimitiveType::U8) => {
                self.out.bytes(v);
                Ok(())
            }
            ty => Err(mismatch(ty, "bytes")),
        }
    }
    fn serialize_none(self) -> Result<()> {
        match self.ty {
            Metadata::Option(_) => {
                self.out.buf.push(0);
                Ok(())
            }
            ty => Err(mismatch(ty, "None")),
        }
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        match self.ty {
            Metadata::Option(inner) => {
                self.out.buf.push(1);
                write_value(self.out, inner, value)
            }
            ty => Err(mismatch(ty, "Some")),
        }
    }
    fn serialize_unit(self) -> Result<()> {
        match self.ty {
            Metadata::Primitive(PrimitiveType::Unit) => Ok(()),
            ty if ty.is_zero_size() => Ok(()),
            ty => Err(mismatch(ty, "unit")),
        }
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, index: u32, v: &'static str) -> Result<()> {
        let (i, p) = variant(self.ty, index, v)?;
        self.out.len(i);
        self.out.zero(p)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<()> {
        write_value(self.out, self.ty, value)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        index: u32,
        v: &'static str,
        value: &T,
    ) -> Result<()> {
        let (i, p) = variant(self.ty, index, v)?;
        self.out.len(i);
        write_value(self.out, p, value).map_err(|e| e.within(PathSegment::Field(v.into())))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 'm>> {
        match self.ty {
            Metadata::Vec(e) => {
                let start = self.out.buf.len();
                if let Some(n) = len {
                    self.out.len(n);
                }
                Ok(SeqSer { out: self.out, elems: Elems::Same(e), count: 0, expect: len, start, tuple: false })
            }
            Metadata::Array(a) => Ok(SeqSer {
                out: self.out,
                elems: Elems::Same(&a.element),
                count: 0,
                expect: Some(a.len as usize),
                start: usize::MAX,
                tuple: false,
            }),
            ty => Err(mismatch(ty, "a sequence")),
        }
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a, 'm>> {
        match self.ty {
            Metadata::Tuple(ts) => Ok(SeqSer {
                out: self.out,
                elems: Elems::Each(ts),
                count: 0,
                expect: Some(len),
                start: usize::MAX,
                tuple: true,
            }),
            Metadata::Array(_) | Metadata::Vec(_) => self.serialize_seq(Some(len)),
            ty => Err(mismatch(ty, "a tuple")),
        }
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqSer<'a, 'm>> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        v: &'static str,
        len: usize,
    ) -> Result<SeqSer<'a, 'm>> {
        let (i, p) = variant(self.ty, index, v)?;
        self.out.len(i);
        TSer { out: self.out, ty: p }.serialize_tuple(len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 'm>> {
        match self.ty {
            Metadata::Map(m) => {
                let start = self.out.buf.len();
                if let Some(n) = len {
                    self.out.len(n);
                }
                Ok(MapSer { out: self.out, key: &m.key, value: &m.value, count: 0, expect: len, start })
            }
            ty => Err(mismatch(ty, "a map")),
        }
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<StructSer<'a, 'm>> {
        match self.ty {
            Metadata::Struct(s) => Ok(StructSer { out: self.out, s, next: 0 }),
            ty => Err(mismatch(ty, "a struct")),
        }
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        v: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, 'm>> {
        let (i, p) = variant(self.ty, index, v)?;
        self.out.len(i);
        TSer { out: self.out, ty: p }.serialize_struct(v, len)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

pub(crate) enum Elems<'m> {
    Same(&'m Metadata),
    Each(&'m [Metadata]),
}

pub(crate) struct SeqSer<'a, 'm> {
    out: &'a mut Out,
    elems: Elems<'m>,
    count: usize,
    expect: Option<usize>,
    /// Where a vec of unknown length starts (its length is inserted there).
    start: usize,
    tuple: bool,
}

impl SeqSer<'_, '_> {
    #[inline]
    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let i = self.count;
        let ty = match &self.elems {
            Elems::Same(t) => *t,
            Elems::Each(ts) => ts.get(i).ok_or_else(|| {
                Error::new(ErrorKind::TypeMismatch, format!("a tuple of {} elements given more", ts.len()))
            })?,
        };
        self.count += 1;
        let before = self.out.buf.len();
        let r = write_value(self.out, ty, value);
        if let Err(e) = r {
            let seg = if self.tuple { PathSegment::Position(i as u64) } else { PathSegment::Index(i as u64) };
            return Err(e.within(seg));
        }
        if i == 0 {
            // Room for the rest, guessed from the first element's size.
            if let Some(n) = self.expect {
                if n >= 16 {
                    let each = self.out.buf.len() - before;
                    let want = each.saturating_mul(n - 1).min(1 << 30);
                    self.out.buf.reserve(want);
                }
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        match self.expect {
            Some(n) if n != self.count => Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("{} elements written where {n} were announced", self.count),
            )),
            Some(_) => Ok(()),
            None => {
                self.out.insert_len(self.start, self.count);
                Ok(())
            }
        }
    }
}

macro_rules! seq_impl {
    ($tr:ident, $m:ident) => {
        impl ser::$tr for SeqSer<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $m<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    };
}
seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);
seq_impl!(SerializeTupleVariant, serialize_field);

pub(crate) struct MapSer<'a, 'm> {
    out: &'a mut Out,
    key: &'m Metadata,
    value: &'m Metadata,
    count: usize,
    expect: Option<usize>,
    start: usize,
}

impl ser::SerializeMap for MapSer<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let i = self.count as u64;
        write_value(self.out, self.key, key)
            .map_err(|e| e.within(PathSegment::Field("key".into())).within(PathSegment::Index(i)))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let i = self.count as u64;
        self.count += 1;
        write_value(self.out, self.value, value)
            .map_err(|e| e.within(PathSegment::Field("value".into())).within(PathSegment::Index(i)))
    }
    fn end(self) -> Result<()> {
        match self.expect {
            Some(n) if n != self.count => Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("{} entries written where {n} were announced", self.count),
            )),
            Some(_) => Ok(()),
            None => {
                self.out.insert_len(self.start, self.count);
                Ok(())
            }
        }
    }
}

#[inline(always)]
fn rd<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N].try_into().expect("N bytes")
}

/// Whether two field names are equal: short names are compared with a few
/// overlapping loads rather than a call to `memcmp`.
#[inline(always)]
fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1 => a[0] == b[0],
        2..=3 => rd::<2>(a, 0) == rd::<2>(b, 0) && a[n - 1] == b[n - 1],
        4..=7 => rd::<4>(a, 0) == rd::<4>(b, 0) && rd::<4>(a, n - 4) == rd::<4>(b, n - 4),
        8..=16 => rd::<8>(a, 0) == rd::<8>(b, 0) && rd::<8>(a, n - 8) == rd::<8>(b, n - 8),
        _ => a == b,
    }
}

pub(crate) struct StructSer<'a, 'm> {
    out: &'a mut Out,
    s: &'m StructMetadata,
    next: usize,
}

impl<'m> StructSer<'_, 'm> {
    /// Moves to the field named `key`, writing skipped fields as zero.
    #[inline]
    fn seek(&mut self, key: &'static str) -> Result<&'m Metadata> {
        let s: &'m StructMetadata = self.s;
        loop {
            match s.field_at(self.next) {
                Some((name, ty)) if same_name(name, key) => {
                    self.next += 1;
                    return Ok(ty);
                }
                Some((name, ty)) => {
                    self.next += 1;
                    self.out.zero(ty).map_err(|e| e.within(PathSegment::Field(name.into())))?;
                }
                None => {
                    return Err(Error::new(
                        ErrorKind::TypeMismatch,
                        format!("struct {} has no field {key} (or it was written out of order)", self.s.name()),
                    ))
                }
            }
        }
    }

    fn finish(mut self) -> Result<()> {
        while let Some((name, ty)) = self.s.field_at(self.next) {
            self.next += 1;
            self.out.zero(ty).map_err(|e| e.within(PathSegment::Field(name.into())))?;
        }
        Ok(())
    }
}

macro_rules! struct_impl {
    ($tr:ident) => {
        impl ser::$tr for StructSer<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
                let ty = self.seek(key)?;
                write_value(self.out, ty, value).map_err(|e| e.within(PathSegment::Field(key.into())))
            }
            fn skip_field(&mut self, key: &'static str) -> Result<()> {
                let ty = self.seek(key)?;
                self.out.zero(ty).map_err(|e| e.within(PathSegment::Field(key.into())))
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    };
}
struct_impl!(SerializeStruct);
struct_impl!(SerializeStructVariant);
