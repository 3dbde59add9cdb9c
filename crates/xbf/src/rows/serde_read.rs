//! Reading serde values straight from a message's bytes, driven by the
//! message's own metadata: struct fields are handed to the reader's type by
//! name, so its fields may be reordered, renamed, missing or extra; strings
//! and bytes are borrowed from the input; values the reader does not ask
//! for are skipped with the dynamic decoder's limits and checks.

use serde::de::{self, value::BorrowedStrDeserializer, Deserializer, Visitor};

mod access;

use self::access::{EnumAcc, FieldSeq, MapAcc, OneEntry, PlainSeq, SeqAcc, StructAccess};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType, StructMetadata};
use crate::rows::input::{Input, SliceInput};
use crate::rows::value_read::{invalid_bool, relocate, zero_size_values, Decoder};
use crate::wire::varint;

pub(crate) struct De<'de, 'o> {
    pub(crate) d: Decoder<'o, SliceInput<'de>>,
    /// Whether the reader's struct visitors take their fields as a sequence
    /// (see `schema::structs_as_seq`).
    seq_ok: bool,
    /// Above 0 while reading inside an `any`, whose metadata is decoded per
    /// value and freed after it (so its addresses must not be remembered).
    in_any: u32,
    /// Struct types met so far: the message struct's address, the address
    /// of the reader's field list, whether the two name the same fields in
    /// the same order, and whether the struct is zero-size.
    structs: [(usize, usize, bool, bool); STRUCT_CACHE],
    slot: usize,
}

const STRUCT_CACHE: usize = 8;

/// Whether the message's struct `s` has exactly the fields `fields`, in order.
fn same_fields(s: &StructMetadata, fields: &[&str]) -> bool {
    s.len() == fields.len() && s.fields().zip(fields).all(|((a, _), b)| a == *b)
}

/// The size of a primitive read as plain little-endian bytes (no varint,
/// no validation), or `None`.
#[inline]
fn plain_size(p: PrimitiveType, v2: bool) -> Option<usize> {
    use PrimitiveType as P;
    match p {
        P::U8 | P::I8 => Some(1),
        P::F32 => Some(4),
        P::F64 => Some(8),
        P::FixedU16 | P::FixedI16 => Some(2),
        P::FixedU32 | P::FixedI32 => Some(4),
        P::FixedU64 | P::FixedI64 => Some(8),
        P::FixedU128 | P::FixedI128 => Some(16),
        P::U16 | P::I16 if !v2 => Some(2),
        P::U32 | P::I32 if !v2 => Some(4),
        P::U64 | P::I64 if !v2 => Some(8),
        P::U128 | P::I128 if !v2 => Some(16),
        _ => None,
    }
}

/// Visits a plain primitive (see [`plain_size`]) held in `b`.
#[inline]
fn visit_plain<'de, V: Visitor<'de>>(p: PrimitiveType, b: &[u8], v: V) -> Result<V::Value> {
    use PrimitiveType as P;
    macro_rules! le {
        ($t:ty) => {
            <$t>::from_le_bytes(b.try_into().expect("sized by plain_size"))
        };
    }
    match p.integer_type() {
        P::U8 => v.visit_u8(b[0]),
        P::I8 => v.visit_i8(b[0] as i8),
        P::U16 => v.visit_u16(le!(u16)),
        P::U32 => v.visit_u32(le!(u32)),
        P::U64 => v.visit_u64(le!(u64)),
        P::U128 => v.visit_u128(le!(u128)),
        P::I16 => v.visit_i16(le!(i16)),
        P::I32 => v.visit_i32(le!(i32)),
        P::I64 => v.visit_i64(le!(i64)),
        P::I128 => v.visit_i128(le!(i128)),
        P::F32 => v.visit_f32(le!(f32)),
        P::F64 => v.visit_f64(le!(f64)),
        other => unreachable!("{other} is not plain"),
    }
}

/// Whether a value takes no bytes (checked cheaply for the common types).
#[inline]
fn zero(ty: &Metadata) -> bool {
    match ty {
        Metadata::Primitive(p) => *p == PrimitiveType::Unit,
        Metadata::Vec(_) | Metadata::Option(_) | Metadata::Map(_) | Metadata::Enum(_) | Metadata::Any => false,
        _ => ty.is_zero_size(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Any,
    Enum,
}

/// Gives an error without an offset (a serde custom error) the offset of
/// the value it is about.
#[inline]
fn place(e: Error, at: u64) -> Error {
    if e.offset().is_none() {
        let mut n = Error::at(e.kind(), at, e.detail());
        let segs: Vec<PathSegment> = e.path().cloned().collect();
        for s in segs.into_iter().rev() {
            n = n.within(s);
        }
        n
    } else {
        e
    }
}

impl<'de, 'o> De<'de, 'o> {
    pub(crate) fn new(d: Decoder<'o, SliceInput<'de>>, seq_ok: bool) -> Self {
        De { d, seq_ok, in_any: 0, structs: [(0, 0, false, false); STRUCT_CACHE], slot: 0 }
    }

    #[inline]
    fn offset(&self) -> u64 {
        self.d.input.offset()
    }

    /// Whether the message struct `s` has exactly the fields `fields` (in
    /// order), and whether it is zero-size; remembered per struct type.
    #[inline]
    fn struct_info(&mut self, s: &StructMetadata, fields: &'static [&'static str]) -> (bool, bool) {
        let key = (s as *const StructMetadata as usize, fields.as_ptr() as usize);
        if self.in_any == 0 {
            for &(a, b, same, zero) in &self.structs {
                if (a, b) == key {
                    return (same, zero);
                }
            }
        }
        let same = same_fields(s, fields);
        let zero = s.fields().all(|(_, t)| t.is_zero_size());
        if self.in_any == 0 {
            self.structs[self.slot] = (key.0, key.1, same, zero);
            self.slot = (self.slot + 1) % STRUCT_CACHE;
        }
        (same, zero)
    }

    /// An unsigned varint of at most `bits` (8 to 64) bits: the one-byte
    /// case here, longer ones by the wire's 64-bit routine, and anything it
    /// refuses (a fault, the input's end) by the slice cursor's, which
    /// reports it.
    #[inline]
    fn uvar(&mut self, bits: u32) -> Result<u64> {
        let rest = self.d.input.rest();
        if let Some(&b) = rest.first() {
            if b < 0x80 {
                self.d.input.advance(1);
                return Ok(u64::from(b));
            }
        }
        match varint::decode_u64(rest, bits) {
            Some((x, n)) => {
                self.d.input.advance(n);
                Ok(x)
            }
            None => self.uvar_slow(bits),
        }
    }

    #[cold]
    #[inline(never)]
    fn uvar_slow(&mut self, bits: u32) -> Result<u64> {
        self.d.uvarint(bits).map(|x| x as u64)
    }

    /// A length or count, as `Decoder::length` reads it.
    #[inline]
    fn length(&mut self) -> Result<u64> {
        if self.d.v2 {
            self.uvar(64)
        } else {
            self.d.length()
        }
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        self.d.input.u8()
    }

    #[inline]
    fn uvarint(&mut self, bits: u32) -> Result<u128> {
        if bits <= 64 {
            return self.uvar(bits).map(u128::from);
        }
        // One-byte varints, the commonest, without the general loop.
        let at = self.offset();
        let b = self.byte()?;
        if b < 0x80 {
            return Ok(u128::from(b));
        }
        self.d.uvarint_after(b, at, bits)
    }

    #[inline]
    fn take(&mut self, at: u64, len: u64) -> Result<&'de [u8]> {
        self.d.input.take(len).map_err(|e| relocate(e, at))
    }

    #[inline]
    fn str(&mut self) -> Result<&'de str> {
        let at = self.offset();
        let len = self.length()?;
        let bytes = self.take(at, len)?;
        crate::utf8::str_from(bytes).map_err(|e| {
            Error::at(ErrorKind::InvalidUtf8, at, format!("invalid UTF-8 at byte {} of the string", e.valid_up_to()))
        })
    }

    fn bytes(&mut self) -> Result<&'de [u8]> {
        let at = self.offset();
        let len = self.length()?;
        self.take(at, len)
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.d.input.array()
    }

    fn any_depth(&self, at: u64, depth: usize) -> Result<()> {
        if depth + 1 > self.d.opts.max_depth {
            return Err(Error::at(
                ErrorKind::TooDeep,
                at,
                format!("more than {} levels of nesting", self.d.opts.max_depth),
            ));
        }
        Ok(())
    }

    /// Visits a value of type `ty`, charging zero-size values to the budget
    /// as the dynamic decoder does.
    #[inline]
    fn visit<V: Visitor<'de>>(&mut self, ty: &Metadata, depth: usize, v: V, hint: Hint) -> Result<V::Value> {
        let at = self.offset();
        let r = if self.d.prepaid == 0 && zero(ty) {
            self.d.charge(at, zero_size_values(ty))?;
            self.d.prepaid += 1;
            let r = self.visit_of(ty, depth, v, hint);
            self.d.prepaid -= 1;
            r
        } else {
            self.visit_of(ty, depth, v, hint)
        };
        r.map_err(|e| place(e, at))
    }

    fn visit_of<V: Visitor<'de>>(&mut self, ty: &Metadata, depth: usize, v: V, hint: Hint) -> Result<V::Value> {
        let child = depth + 1;
        match ty {
            Metadata::Primitive(p) => self.primitive(*p, v, hint),
            Metadata::Vec(elem) => {
                let at = self.offset();
                let count = self.length()?;
                let paid = count > 0 && self.d.check_count(at, count, elem)?;
                self.seq(Elems::Same(elem), count, paid, child, false, v)
            }
            Metadata::Array(a) => {
                let at = self.offset();
                let paid = a.len > 0 && self.d.check_count(at, a.len, &a.element)?;
                self.seq(Elems::Same(&a.element), a.len, paid, child, false, v)
            }
            Metadata::Tuple(ts) => self.seq(Elems::Each(ts), ts.len() as u64, false, child, true, v),
            Metadata::Struct(s) => {
                let mut m = StructAccess { de: self, s, next: 0, depth: child };
                let r = v.visit_map(&mut m)?;
                // Fields the visitor left (it normally reads them all).
                while let Some((name, fty)) = s.field_at(m.next) {
                    m.next += 1;
                    m.de.skip(fty, child).map_err(|e| e.within(PathSegment::Field(name.into())))?;
                }
                Ok(r)
            }
            Metadata::Option(inner) => {
                let at = self.offset();
                match self.byte()? {
                    0 => v.visit_none(),
                    1 => v.visit_some(ValDe { de: self, ty: inner, depth: child }),
                    b => Err(invalid_bool(at, b)),
                }
            }
            Metadata::Map(m) => {
                let at = self.offset();
                let count = self.length()?;
                let paid = if m.key.is_zero_size() && m.value.is_zero_size() {
                    let entry = Metadata::tuple([m.key.clone(), m.value.clone()]);
                    self.d.check_count(at, count, &entry)?;
                    true
                } else {
                    let min = self.d.min_size(&m.key).saturating_add(self.d.min_size(&m.value));
                    self.d.check_fits(at, count, min)?;
                    false
                };
                self.d.prepaid += u32::from(paid);
                let mut acc = MapAcc {
                    de: self,
                    key: &m.key,
                    value: &m.value,
                    left: count,
                    i: 0,
                    depth: child,
                    seen: Default::default(),
                };
                let r = v.visit_map(&mut acc).and_then(|r| {
                    while acc.left > 0 {
                        let i = acc.i;
                        let d = &mut *acc.de;
                        d.skip(&m.key, child)
                            .map_err(|e| e.within(PathSegment::Field("key".into())))
                            .and_then(|()| {
                                d.skip(&m.value, child).map_err(|e| e.within(PathSegment::Field("value".into())))
                            })
                            .map_err(|e| e.within(PathSegment::Index(i)))?;
                        acc.i += 1;
                        acc.left -= 1;
                    }
                    Ok(r)
                });
                self.d.prepaid -= u32::from(paid);
                r
            }
            Metadata::Enum(e) => {
                let (_, name, pty) = self.d.variant(e)?;
                let acc = EnumAcc { de: self, name, ty: pty, depth: child };
                if hint == Hint::Enum {
                    v.visit_enum(acc)
                } else {
                    // Self-describing readers (buffered content, JSON-like
                    // values) see an enum as a map of one entry.
                    v.visit_map(OneEntry { acc: Some(acc) })
                }
            }
            Metadata::Any => {
                let at = self.offset();
                self.any_depth(at, depth)?;
                let own = self.d.metadata(child)?;
                self.in_any += 1;
                let r = self.visit(&own, child, v, hint);
                self.in_any -= 1;
                r
            }
        }
    }

    fn primitive<V: Visitor<'de>>(&mut self, p: PrimitiveType, v: V, hint: Hint) -> Result<V::Value> {
        use PrimitiveType as P;
        if self.d.v2 {
            match p {
                P::U16 => return v.visit_u16(self.uvarint(16)? as u16),
                P::U32 => return v.visit_u32(self.uvarint(32)? as u32),
                P::U64 => return v.visit_u64(self.uvarint(64)? as u64),
                P::U128 => return v.visit_u128(self.uvarint(128)?),
                P::I16 => return v.visit_i16(varint::unzigzag(self.uvarint(16)?) as i16),
                P::I32 => return v.visit_i32(varint::unzigzag(self.uvarint(32)?) as i32),
                P::I64 => return v.visit_i64(varint::unzigzag(self.uvarint(64)?) as i64),
                P::I128 => return v.visit_i128(varint::unzigzag(self.uvarint(128)?)),
                P::Date => return v.visit_i32(varint::unzigzag(self.uvarint(32)?) as i32),
                P::Timestamp => return v.visit_i64(varint::unzigzag(self.uvarint(64)?) as i64),
                _ => {}
            }
        }
        match p.integer_type() {
            P::Bool => {
                let at = self.offset();
                match self.byte()? {
                    0 => v.visit_bool(false),
                    1 => v.visit_bool(true),
                    b => Err(invalid_bool(at, b)),
                }
            }
            P::U8 => v.visit_u8(self.byte()?),
            P::I8 => v.visit_i8(self.byte()? as i8),
            P::U16 => v.visit_u16(u16::from_le_bytes(self.fixed()?)),
            P::U32 => v.visit_u32(u32::from_le_bytes(self.fixed()?)),
            P::U64 => v.visit_u64(u64::from_le_bytes(self.fixed()?)),
            P::U128 => v.visit_u128(u128::from_le_bytes(self.fixed()?)),
            P::I16 => v.visit_i16(i16::from_le_bytes(self.fixed()?)),
            P::I32 => v.visit_i32(i32::from_le_bytes(self.fixed()?)),
            P::I64 => v.visit_i64(i64::from_le_bytes(self.fixed()?)),
            P::I128 => v.visit_i128(i128::from_le_bytes(self.fixed()?)),
            P::F32 => v.visit_f32(f32::from_le_bytes(self.fixed()?)),
            P::F64 => v.visit_f64(f64::from_le_bytes(self.fixed()?)),
            // 256-bit integers reach Rust as their 32 little-endian bytes.
            P::U256 | P::I256 => {
                let at = self.offset();
                v.visit_borrowed_bytes(self.take(at, 32)?)
            }
            P::Bytes => v.visit_borrowed_bytes(self.bytes()?),
            P::String => {
                let s = self.str()?;
                if hint == Hint::Enum {
                    // A string read as an enum names a variant without data.
                    v.visit_enum(BorrowedStrDeserializer::new(s))
                } else {
                    v.visit_borrowed_str(s)
                }
            }
            P::Unit => v.visit_unit(),
            other => unreachable!("{other} is read as a varint above"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn seq<V: Visitor<'de>>(
        &mut self,
        elems: Elems<'_>,
        count: u64,
        paid: bool,
        depth: usize,
        tuple: bool,
        v: V,
    ) -> Result<V::Value> {
        self.d.prepaid += u32::from(paid);
        let mut acc = SeqAcc { de: self, elems, left: count, i: 0, depth, tuple };
        let r = v.visit_seq(&mut acc).and_then(|r| {
            // Elements the reader did not take (a shorter array or tuple).
            while acc.left > 0 {
                let ty = acc.elems.get(acc.i);
                let seg = acc.seg();
                acc.de.skip(ty, depth).map_err(|e| e.within(seg))?;
                acc.i += 1;
                acc.left -= 1;
            }
            Ok(r)
        });
        self.d.prepaid -= u32::from(paid);
        r
    }

    /// Moves past a value of type `ty` without building it, with the same
    /// checks and limits as the dynamic decoder (except that map keys are not
    /// checked for duplicates).
    pub(crate) fn skip(&mut self, ty: &Metadata, depth: usize) -> Result<()> {
        if self.d.prepaid == 0 && zero(ty) {
            self.d.charge(self.offset(), zero_size_values(ty))?;
            return Ok(());
        }
        self.skip_of(ty, depth)
    }

    fn skip_of(&mut self, ty: &Metadata, depth: usize) -> Result<()> {
        use PrimitiveType as P;
        let child = depth + 1;
        match ty {
            Metadata::Primitive(p) => {
                if self.d.v2 {
                    let bits = match p {
                        P::U16 | P::I16 => 16,
                        P::U32 | P::I32 | P::Date => 32,
                        P::U64 | P::I64 | P::Timestamp => 64,
                        P::U128 | P::I128 => 128,
                        _ => 0,
                    };
                    if bits > 0 {
                        self.uvarint(bits)?;
                        return Ok(());
                    }
                }
                match p.integer_type() {
                    P::Bool => {
                        let at = self.offset();
                        match self.byte()? {
                            0 | 1 => {}
                            b => return Err(invalid_bool(at, b)),
                        }
                    }
                    P::Bytes => {
                        self.bytes()?;
                    }
                    P::String => {
                        self.str()?;
                    }
                    P::Unit => {}
                    other => {
                        let at = self.offset();
                        self.take(at, other.fixed_size().unwrap_or(0) as u64)?;
                    }
                }
                Ok(())
            }
            Metadata::Vec(elem) => {
                let at = self.offset();
                let count = self.length()?;
                self.skip_items(elem, count, at, child)
            }
            Metadata::Array(a) => {
                let at = self.offset();
                self.skip_items(&a.element, a.len, at, child)
            }
            Metadata::Tuple(ts) => {
                for (i, t) in ts.iter().enumerate() {
                    self.skip(t, child).map_err(|e| e.within(PathSegment::Position(i as u64)))?;
                }
                Ok(())
            }
            Metadata::Struct(s) => {
                for (name, t) in s.fields() {
                    self.skip(t, child).map_err(|e| e.within(PathSegment::Field(name.into())))?;
                }
                Ok(())
            }
            Metadata::Option(inner) => {
                let at = self.offset();
                match self.byte()? {
                    0 => Ok(()),
                    1 => self.skip(inner, child),
                    b => Err(invalid_bool(at, b)),
                }
            }
            Metadata::Map(m) => {
                let at = self.offset();
                let count = self.length()?;
                if m.key.is_zero_size() && m.value.is_zero_size() {
                    let entry = Metadata::tuple([m.key.clone(), m.value.clone()]);
                    self.d.check_count(at, count, &entry)?;
                    // Entries of zero-size keys and values take no input.
                    return Ok(());
                }
                let min = self.d.min_size(&m.key).saturating_add(self.d.min_size(&m.value));
                self.d.check_fits(at, count, min)?;
                for i in 0..count {
                    self.skip(&m.key, child)
                        .map_err(|e| e.within(PathSegment::Field("key".into())))
                        .and_then(|()| {
                            self.skip(&m.value, child).map_err(|e| e.within(PathSegment::Field("value".into())))
                        })
                        .map_err(|e| e.within(PathSegment::Index(i)))?;
                }
                Ok(())
            }
            Metadata::Enum(e) => {
                let (_, name, pty) = self.d.variant(e)?;
                self.skip(pty, child).map_err(|err| err.within(PathSegment::Field(name.into())))
            }
            Metadata::Any => {
                let at = self.offset();
                self.any_depth(at, depth)?;
                let own = self.d.metadata(child)?;
                self.skip(&own, child)
            }
        }
    }

    fn skip_items(&mut self, elem: &Metadata, count: u64, at: u64, child: usize) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let paid = self.d.check_count(at, count, elem)?;
        if paid {
            // Zero-size items take no input and were charged at their count.
            return Ok(());
        }
        for i in 0..count {
            self.skip(elem, child).map_err(|e| e.within(PathSegment::Index(i)))?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Elems<'m> {
    Same(&'m Metadata),
    Each(&'m [Metadata]),
}

impl<'m> Elems<'m> {
    #[inline]
    fn get(&self, i: u64) -> &'m Metadata {
        match *self {
            Elems::Same(t) => t,
            Elems::Each(ts) => &ts[i as usize],
        }
    }
}

/// A value of a known type at the decoder's position, as a serde
/// `Deserializer`.
pub(crate) struct ValDe<'a, 'de, 'o, 'm> {
    pub(crate) de: &'a mut De<'de, 'o>,
    pub(crate) ty: &'m Metadata,
    pub(crate) depth: usize,
}

impl<'de> Deserializer<'de> for ValDe<'_, 'de, '_, '_> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.de.visit(self.ty, self.depth, v, Hint::Any)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.ty {
            Metadata::Option(_) | Metadata::Any => self.de.visit(self.ty, self.depth, v, Hint::Any),
            // A unit read as an option is None (JSON's null); any other
            // value read as an option is present.
            Metadata::Primitive(PrimitiveType::Unit) => {
                self.de.visit(self.ty, self.depth, de::IgnoredAny, Hint::Any)?;
                v.visit_none()
            }
            _ => v.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        self.de.visit(self.ty, self.depth, v, Hint::Enum)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        let at = self.de.offset();
        self.de.skip(self.ty, self.depth).map_err(|e| place(e, at))?;
        v.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    // Fast paths: when the message holds exactly the type asked for, read
    // it here; anything else goes the general way (`deserialize_any`), which
    // converts or refuses.
    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if let Metadata::Primitive(PrimitiveType::Bool) = self.ty {
            let at = self.de.offset();
            return match self.de.byte()? {
                0 => v.visit_bool(false),
                1 => v.visit_bool(true),
                b => Err(invalid_bool(at, b)),
            }
            .map_err(|e| place(e, at));
        }
        self.deserialize_any(v)
    }

    #[inline]
    fn deserialize_u8<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.plain(v)
    }
    #[inline]
    fn deserialize_i8<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.plain(v)
    }
    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.plain(v)
    }
    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.plain(v)
    }
    #[inline]
    fn deserialize_u16<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.unsigned(PrimitiveType::U16, 16, v)
    }
    #[inline]
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.unsigned(PrimitiveType::U32, 32, v)
    }
    #[inline]
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.unsigned(PrimitiveType::U64, 64, v)
    }
    #[inline]
    fn deserialize_i16<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.signed(PrimitiveType::I16, 16, v)
    }
    #[inline]
    fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.signed(PrimitiveType::I32, 32, v)
    }
    #[inline]
    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.signed(PrimitiveType::I64, 64, v)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if let Metadata::Primitive(PrimitiveType::String) = self.ty {
            let at = self.de.offset();
            let s = self.de.str()?;
            return v.visit_borrowed_str(s).map_err(|e| place(e, at));
        }
        self.deserialize_any(v)
    }
    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.deserialize_str(v)
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if let Metadata::Vec(elem) = self.ty {
            if let Metadata::Primitive(p) = **elem {
                if let Some(size) = plain_size(p, self.de.d.v2) {
                    let at = self.de.offset();
                    let count = self.de.length()?;
                    return self.de.plain_run(p, size, count, at, v);
                }
            }
        }
        self.deserialize_any(v)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value> {
        if let Metadata::Array(a) = self.ty {
            if let Metadata::Primitive(p) = a.element {
                if let Some(size) = plain_size(p, self.de.d.v2) {
                    if a.len > 0 {
                        let at = self.de.offset();
                        return self.de.plain_run(p, size, a.len, at, v);
                    }
                }
            }
        }
        self.deserialize_any(v)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        if let Metadata::Struct(s) = self.ty {
            if self.de.seq_ok {
                let (same, zero) = self.de.struct_info(s, fields);
                if same && !zero {
                    // The message's fields are the reader's, in its order:
                    // hand them over as a sequence, comparing no names.
                    let at = self.de.offset();
                    let mut acc = FieldSeq { de: &mut *self.de, fields: s.fields(), depth: self.depth + 1 };
                    let r = v.visit_seq(&mut acc).and_then(|r| {
                        // Fields the visitor left (a derived one takes all).
                        for (name, fty) in acc.fields.by_ref() {
                            acc.de.skip(fty, acc.depth).map_err(|e| e.within(PathSegment::Field(name.into())))?;
                        }
                        Ok(r)
                    });
                    return r.map_err(|e| place(e, at));
                }
            }
        }
        self.deserialize_any(v)
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char
        bytes byte_buf unit unit_struct
        tuple_struct map identifier
    }
}

impl<'de> ValDe<'_, 'de, '_, '_> {
    #[inline]
    fn plain<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        if let Metadata::Primitive(p) = *self.ty {
            if let Some(size) = plain_size(p, self.de.d.v2) {
                let at = self.de.offset();
                let b = self.de.take(at, size as u64)?;
                return visit_plain(p, b, v).map_err(|e| place(e, at));
            }
        }
        self.deserialize_any(v)
    }

    #[inline]
    fn unsigned<V: Visitor<'de>>(self, want: PrimitiveType, bits: u32, v: V) -> Result<V::Value> {
        if *self.ty == Metadata::Primitive(want) && self.de.d.v2 {
            let at = self.de.offset();
            let x = self.de.uvar(bits)?;
            let r = match want {
                PrimitiveType::U16 => v.visit_u16(x as u16),
                PrimitiveType::U32 => v.visit_u32(x as u32),
                _ => v.visit_u64(x),
            };
            return r.map_err(|e| place(e, at));
        }
        self.plain(v)
    }

    #[inline]
    fn signed<V: Visitor<'de>>(self, want: PrimitiveType, bits: u32, v: V) -> Result<V::Value> {
        if *self.ty == Metadata::Primitive(want) && self.de.d.v2 {
            let at = self.de.offset();
            let x = varint::unzigzag(u128::from(self.de.uvar(bits)?));
            let r = match want {
                PrimitiveType::I16 => v.visit_i16(x as i16),
                PrimitiveType::I32 => v.visit_i32(x as i32),
                _ => v.visit_i64(x as i64),
            };
            return r.map_err(|e| place(e, at));
        }
        self.plain(v)
    }
}

impl<'de, 'o> De<'de, 'o> {
    /// `count` plain primitives of `size` bytes each, at `at` (where their
    /// count was, for a vec), checked and taken at once and handed over one
    /// by one without further bounds checks.
    #[inline]
    fn plain_run<V: Visitor<'de>>(
        &mut self,
        p: PrimitiveType,
        size: usize,
        count: u64,
        at: u64,
        v: V,
    ) -> Result<V::Value> {
        let r = (|| {
            if count > 0 {
                // Plain items are never zero-size: this only checks the fit.
                self.d.check_count(at, count, &Metadata::Primitive(p))?;
            }
            let start = self.offset();
            let bytes = self.take(at, count * size as u64)?;
            v.visit_seq(PlainSeq { p, size, bytes, start, i: 0 })
        })();
        r.map_err(|e| place(e, at))
    }
}
