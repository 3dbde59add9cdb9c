//! Reading serde values straight from a message's bytes, driven by the
//! message's own metadata: struct fields are handed to the reader's type by
//! name, so its fields may be reordered, renamed, missing or extra; strings
//! and bytes are borrowed from the input; values the reader does not ask
//! for are skipped with the dynamic decoder's limits and checks.

use serde::de::{
    self, value::BorrowedStrDeserializer, value::StrDeserializer, DeserializeSeed, Deserializer, EnumAccess, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};

use crate::de::{invalid_bool, relocate, zero_size_values, Decoder};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType};
use crate::read::{Input, SliceInput};
use crate::varint;

pub(crate) struct De<'de, 'o> {
    pub(crate) d: Decoder<'o, SliceInput<'de>>,
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
    #[inline]
    fn offset(&self) -> u64 {
        self.d.input.offset()
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        self.d.input.u8()
    }

    #[inline]
    fn uvarint(&mut self, bits: u32) -> Result<u128> {
        // One-byte varints, the commonest, without the general loop.
        let at = self.offset();
        let b = self.byte()?;
        if b < 0x80 {
            return Ok(u128::from(b));
        }
        self.d.uvarint_after(b, at, bits)
    }

    fn take(&mut self, at: u64, len: u64) -> Result<&'de [u8]> {
        self.d.input.take(len).map_err(|e| relocate(e, at))
    }

    fn str(&mut self) -> Result<&'de str> {
        let at = self.offset();
        let len = self.d.length()?;
        let bytes = self.take(at, len)?;
        std::str::from_utf8(bytes).map_err(|e| {
            Error::at(ErrorKind::InvalidUtf8, at, format!("invalid UTF-8 at byte {} of the string", e.valid_up_to()))
        })
    }

    fn bytes(&mut self) -> Result<&'de [u8]> {
        let at = self.offset();
        let len = self.d.length()?;
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
                let count = self.d.length()?;
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
                let count = self.d.length()?;
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
                let mut acc = MapAcc { de: self, key: &m.key, value: &m.value, left: count, i: 0, depth: child };
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
                let at = self.offset();
                let index = self.d.length()?;
                let Some((name, pty)) = usize::try_from(index).ok().and_then(|i| e.variant_at(i)) else {
                    return Err(Error::at(
                        ErrorKind::UnknownVariant,
                        at,
                        format!("enum {} has {} variants; there is no variant {index}", e.name(), e.len()),
                    ));
                };
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
                self.visit(&own, child, v, hint)
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
                let count = self.d.length()?;
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
                let count = self.d.length()?;
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
                let at = self.offset();
                let index = self.d.length()?;
                let Some((name, pty)) = usize::try_from(index).ok().and_then(|i| e.variant_at(i)) else {
                    return Err(Error::at(
                        ErrorKind::UnknownVariant,
                        at,
                        format!("enum {} has {} variants; there is no variant {index}", e.name(), e.len()),
                    ));
                };
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

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier
    }
}

struct SeqAcc<'a, 'de, 'o, 'm> {
    de: &'a mut De<'de, 'o>,
    elems: Elems<'m>,
    left: u64,
    i: u64,
    depth: usize,
    tuple: bool,
}

impl SeqAcc<'_, '_, '_, '_> {
    #[inline]
    fn seg(&self) -> PathSegment {
        if self.tuple {
            PathSegment::Position(self.i)
        } else {
            PathSegment::Index(self.i)
        }
    }
}

impl<'de> SeqAccess<'de> for SeqAcc<'_, 'de, '_, '_> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let ty = self.elems.get(self.i);
        let r = seed.deserialize(ValDe { de: self.de, ty, depth: self.depth });
        match r {
            Ok(v) => {
                self.i += 1;
                self.left -= 1;
                Ok(Some(v))
            }
            Err(e) => Err(e.within(self.seg())),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::try_from(self.left).unwrap_or(usize::MAX))
    }
}

struct StructAccess<'a, 'de, 'o, 'm> {
    de: &'a mut De<'de, 'o>,
    s: &'m crate::metadata::StructMetadata,
    next: usize,
    depth: usize,
}

impl<'de> MapAccess<'de> for StructAccess<'_, 'de, '_, '_> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.s.field_at(self.next) {
            None => Ok(None),
            Some((name, _)) => seed.deserialize(StrDeserializer::<Error>::new(name)).map(Some),
        }
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let (name, ty) = self.s.field_at(self.next).ok_or_else(|| Error::new(ErrorKind::TypeMismatch, "no field"))?;
        self.next += 1;
        seed.deserialize(ValDe { de: self.de, ty, depth: self.depth })
            .map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.s.len() - self.next)
    }
}

struct MapAcc<'a, 'de, 'o, 'm> {
    de: &'a mut De<'de, 'o>,
    key: &'m Metadata,
    value: &'m Metadata,
    left: u64,
    i: u64,
    depth: usize,
}

impl<'de> MapAccess<'de> for MapAcc<'_, 'de, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.i;
        seed.deserialize(ValDe { de: self.de, ty: self.key, depth: self.depth })
            .map(Some)
            .map_err(|e| e.within(PathSegment::Field("key".into())).within(PathSegment::Index(i)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let i = self.i;
        self.i += 1;
        self.left -= 1;
        seed.deserialize(ValDe { de: self.de, ty: self.value, depth: self.depth })
            .map_err(|e| e.within(PathSegment::Field("value".into())).within(PathSegment::Index(i)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::try_from(self.left).unwrap_or(usize::MAX))
    }
}

struct EnumAcc<'a, 'de, 'o, 'm> {
    de: &'a mut De<'de, 'o>,
    name: &'m str,
    ty: &'m Metadata,
    depth: usize,
}

impl<'a, 'de, 'o, 'm> EnumAccess<'de> for EnumAcc<'a, 'de, 'o, 'm> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(StrDeserializer::<Error>::new(self.name))?;
        Ok((v, self))
    }
}

impl<'de> VariantAccess<'de> for EnumAcc<'_, 'de, '_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        // A payload the reader's variant does not have is skipped.
        let name = self.name;
        self.de.skip(self.ty, self.depth).map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let name = self.name;
        seed.deserialize(ValDe { de: self.de, ty: self.ty, depth: self.depth })
            .map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value> {
        let name = self.name;
        self.de.visit(self.ty, self.depth, v, Hint::Any).map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], v: V) -> Result<V::Value> {
        let name = self.name;
        self.de.visit(self.ty, self.depth, v, Hint::Any).map_err(|e| e.within(PathSegment::Field(name.into())))
    }
}

/// An enum value as a map of one entry, variant name to payload.
struct OneEntry<'a, 'de, 'o, 'm> {
    acc: Option<EnumAcc<'a, 'de, 'o, 'm>>,
}

impl<'de> MapAccess<'de> for OneEntry<'_, 'de, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match &self.acc {
            None => Ok(None),
            Some(acc) => seed.deserialize(StrDeserializer::<Error>::new(acc.name)).map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let acc = self.acc.take().ok_or_else(|| Error::new(ErrorKind::TypeMismatch, "no value"))?;
        let name = acc.name;
        seed.deserialize(ValDe { de: acc.de, ty: acc.ty, depth: acc.depth })
            .map_err(|e| e.within(PathSegment::Field(name.into())))
    }
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::TypeMismatch, msg.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        Error::new(
            ErrorKind::TypeMismatch,
            format!("missing field `{field}`: the data has no such field and the reader's type gives it no default"),
        )
    }
}
