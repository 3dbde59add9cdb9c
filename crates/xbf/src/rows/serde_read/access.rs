//! The serde access types of the row reader ([`super`]): sequences,
//! structs, maps and enums handed to a visitor one member at a time, and
//! runs of plain primitives read at once.

use serde::de::{
    self, value::StrDeserializer, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};

use super::{place, visit_plain, De, Elems, Hint, ValDe};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType};

/// A run of plain primitives as a serde sequence.
pub(super) struct PlainSeq<'de> {
    pub(super) p: PrimitiveType,
    pub(super) size: usize,
    pub(super) bytes: &'de [u8],
    pub(super) start: u64,
    pub(super) i: u64,
}

impl<'de> SeqAccess<'de> for PlainSeq<'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.bytes.len() < self.size {
            return Ok(None);
        }
        let (b, rest) = self.bytes.split_at(self.size);
        self.bytes = rest;
        let i = self.i;
        self.i += 1;
        let at = self.start + i * self.size as u64;
        match seed.deserialize(PlainDe { p: self.p, b }) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(place(e, at).within(PathSegment::Index(i))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() / self.size)
    }
}

/// One plain primitive of a [`PlainSeq`].
pub(super) struct PlainDe<'b> {
    pub(super) p: PrimitiveType,
    pub(super) b: &'b [u8],
}

impl<'de> Deserializer<'de> for PlainDe<'_> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        visit_plain(self.p, self.b, v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier enum
    }
}

/// A struct's fields, exactly the reader's, as a serde sequence.
pub(super) struct FieldSeq<'a, 'de, 'o, F> {
    pub(super) de: &'a mut De<'de, 'o>,
    pub(super) fields: F,
    pub(super) depth: usize,
}

impl<'de, 'm, F: ExactSizeIterator<Item = (&'m str, &'m Metadata)>> SeqAccess<'de> for FieldSeq<'_, 'de, '_, F> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some((name, ty)) = self.fields.next() else { return Ok(None) };
        match seed.deserialize(ValDe { de: self.de, ty, depth: self.depth }) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e.within(PathSegment::Field(name.into()))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

pub(super) struct SeqAcc<'a, 'de, 'o, 'm> {
    pub(super) de: &'a mut De<'de, 'o>,
    pub(super) elems: Elems<'m>,
    pub(super) left: u64,
    pub(super) i: u64,
    pub(super) depth: usize,
    pub(super) tuple: bool,
}

impl SeqAcc<'_, '_, '_, '_> {
    #[inline]
    pub(super) fn seg(&self) -> PathSegment {
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

pub(super) struct StructAccess<'a, 'de, 'o, 'm> {
    pub(super) de: &'a mut De<'de, 'o>,
    pub(super) s: &'m crate::metadata::StructMetadata,
    pub(super) next: usize,
    pub(super) depth: usize,
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

pub(super) struct MapAcc<'a, 'de, 'o, 'm> {
    pub(super) de: &'a mut De<'de, 'o>,
    pub(super) key: &'m Metadata,
    pub(super) value: &'m Metadata,
    pub(super) left: u64,
    pub(super) i: u64,
    pub(super) depth: usize,
    /// The bytes of the keys read so far: equal bytes are equal keys
    /// (SPEC.md §13.2), which the reader's map type may not notice.
    pub(super) seen: std::collections::HashSet<&'de [u8]>,
}

impl<'de> MapAccess<'de> for MapAcc<'_, 'de, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.i;
        let at = self.de.offset();
        let key = seed
            .deserialize(ValDe { de: self.de, ty: self.key, depth: self.depth })
            .map_err(|e| e.within(PathSegment::Field("key".into())).within(PathSegment::Index(i)))?;
        let bytes = self.de.d.input.since(at as usize);
        if !self.seen.insert(bytes) {
            return Err(crate::rows::value_read::duplicate_key(at)
                .within(PathSegment::Field("key".into()))
                .within(PathSegment::Index(i)));
        }
        Ok(Some(key))
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

pub(super) struct EnumAcc<'a, 'de, 'o, 'm> {
    pub(super) de: &'a mut De<'de, 'o>,
    pub(super) name: &'m str,
    pub(super) ty: &'m Metadata,
    pub(super) depth: usize,
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
pub(super) struct OneEntry<'a, 'de, 'o, 'm> {
    pub(super) acc: Option<EnumAcc<'a, 'de, 'o, 'm>>,
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
