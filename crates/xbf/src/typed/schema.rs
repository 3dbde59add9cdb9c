//! Metadata from a Rust type: its `Deserialize` impl is driven by a tracing
//! deserializer that records what each step asks for, the way the
//! serde-reflection crate does. Enums take one pass per variant (a visitor
//! can only be given one variant per call); the result is cached per type.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde::Deserialize;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{EnumMetadata, Metadata, PrimitiveType, StructMetadata};

/// A type as traced, before enums are complete.
#[derive(Clone, Debug)]
enum Format {
    Unknown,
    Prim(PrimitiveType),
    Any,
    Vec(Box<Format>),
    Option(Box<Format>),
    Array(u64, Box<Format>),
    Tuple(Vec<Format>),
    Map(Box<Format>, Box<Format>),
    Struct(&'static str, Vec<(&'static str, Format)>),
    Enum(&'static str),
}

struct EnumEntry {
    name: &'static str,
    variants: &'static [&'static str],
    payloads: Vec<Option<Format>>,
    complete: Vec<bool>,
}

#[derive(Default)]
struct State {
    /// Enums by the type name of their visitor (distinct per generic instance).
    enums: HashMap<&'static str, EnumEntry>,
    /// Named containers being traced, to refuse recursive types.
    stack: Vec<(&'static str, &'static str)>,
    /// Set when an enum was left with variants still to trace.
    incomplete: bool,
    /// Set when the type asks for `deserialize_any` (content buffering).
    saw_any: bool,
    /// Probing whether every struct visitor reads its fields from a
    /// sequence (see [`structs_as_seq`]): structs are then driven by
    /// `visit_seq`, and any refusal (or a visitor that leaves elements, as
    /// one with aliases does) is recorded here.
    seq_probe: bool,
    seq_refused: bool,
}

/// The error the tracer raises; carried through serde as a custom error.
#[derive(Debug)]
pub(crate) struct TraceError(pub(crate) String);

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TraceError {}
impl de::Error for TraceError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        TraceError(msg.to_string())
    }
}

/// What tracing a type found.
#[derive(Clone, Debug)]
pub(crate) enum Traced {
    /// The type's metadata.
    Known(Metadata),
    /// A recursive type: XBF metadata cannot describe it.
    Recursive(String),
    /// A type the tracer cannot follow (it buffers content with
    /// `deserialize_any`: internally tagged and untagged enums, flatten, or
    /// a hand-written impl): values are described by their own shape.
    Opaque(String),
}

const MAX_PASSES: usize = 4096;
const MAX_DEPTH: usize = 256;

/// Traces `T` (uncached).
pub(crate) fn trace<'de, T: Deserialize<'de>>() -> Traced {
    let mut st = State::default();
    let mut root = Format::Unknown;
    for _ in 0..MAX_PASSES {
        st.incomplete = false;
        st.stack.clear();
        let r = T::deserialize(Tracer { st: &mut st, out: &mut root });
        if let Err(e) = r {
            if e.0.starts_with("recursive type") {
                return Traced::Recursive(e.0);
            }
            return Traced::Opaque(e.0);
        }
        if !st.incomplete {
            if st.saw_any && contains_unknown(&root) {
                return Traced::Opaque("the type buffers content".into());
            }
            return match resolve(&root, &st, 0) {
                Ok(m) => Traced::Known(m),
                Err(e) => Traced::Opaque(e.0),
            };
        }
    }
    Traced::Opaque("too many enum variants to trace".into())
}

fn contains_unknown(f: &Format) -> bool {
    match f {
        Format::Unknown => true,
        Format::Vec(x) | Format::Option(x) | Format::Array(_, x) => contains_unknown(x),
        Format::Tuple(xs) => xs.iter().any(contains_unknown),
        Format::Map(k, v) => contains_unknown(k) || contains_unknown(v),
        Format::Struct(_, fs) => fs.iter().any(|(_, f)| contains_unknown(f)),
        _ => false,
    }
}

fn resolve(f: &Format, st: &State, depth: usize) -> std::result::Result<Metadata, TraceError> {
    if depth > MAX_DEPTH {
        return Err(TraceError("the type nests too deep".into()));
    }
    let r = |f: &Format| resolve(f, st, depth + 1);
    Ok(match f {
        // A place never reached (an enum without variants, say) holds unit.
        Format::Unknown => Metadata::UNIT,
        Format::Prim(p) => Metadata::Primitive(*p),
        Format::Any => Metadata::Any,
        Format::Vec(x) => Metadata::vec(r(x)?),
        Format::Option(x) => Metadata::option(r(x)?),
        Format::Array(n, x) => Metadata::array(*n, r(x)?),
        Format::Tuple(xs) => Metadata::tuple(xs.iter().map(r).collect::<std::result::Result<Vec<_>, _>>()?),
        Format::Map(k, v) => Metadata::map(r(k)?, r(v)?),
        Format::Struct(name, fields) => {
            let fields = fields.iter().map(|(n, f)| Ok((*n, r(f)?))).collect::<std::result::Result<Vec<_>, _>>()?;
            StructMetadata::new(*name, fields).map_err(|e| TraceError(e.to_string()))?.into()
        }
        Format::Enum(key) => {
            let e = &st.enums[key];
            let mut vs = Vec::with_capacity(e.variants.len());
            for (i, name) in e.variants.iter().enumerate() {
                let p = match &e.payloads[i] {
                    Some(p) => r(p)?,
                    None => Metadata::UNIT,
                };
                vs.push((*name, p));
            }
            EnumMetadata::new(e.name, vs).map_err(|e| TraceError(e.to_string()))?.into()
        }
    })
}

/// The traced description of `T`, computed once per type and cached.
///
/// The cache is keyed by `std::any::type_name`, which is the same for every
/// lifetime of a type (so `Row<'a>` is traced once).
pub(crate) fn traced<'de, T: Deserialize<'de>>() -> Arc<Traced> {
    static CACHE: OnceLock<RwLock<HashMap<&'static str, Arc<Traced>>>> = OnceLock::new();
    let key = std::any::type_name::<T>();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(t) = cache.read().unwrap_or_else(|e| e.into_inner()).get(key) {
        return t.clone();
    }
    let t = Arc::new(trace::<T>());
    cache.write().unwrap_or_else(|e| e.into_inner()).insert(key, t.clone());
    t
}

/// Whether every struct that `T`'s `Deserialize` impl reads (as far as
/// tracing reaches) accepts its fields as a sequence in the order of the
/// `fields` it names, as serde's derived impls do: the decoder may then hand
/// a message struct whose fields are exactly those as a sequence, without
/// comparing names. Computed once per type and cached.
pub(crate) fn structs_as_seq<'de, T: Deserialize<'de>>() -> bool {
    static CACHE: OnceLock<RwLock<HashMap<&'static str, bool>>> = OnceLock::new();
    let key = std::any::type_name::<T>();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(t) = cache.read().unwrap_or_else(|e| e.into_inner()).get(key) {
        return *t;
    }
    let ok = matches!(&*traced::<T>(), Traced::Known(_)) && probe_seq::<T>();
    cache.write().unwrap_or_else(|e| e.into_inner()).insert(key, ok);
    ok
}

fn probe_seq<'de, T: Deserialize<'de>>() -> bool {
    let mut st = State { seq_probe: true, ..State::default() };
    let mut root = Format::Unknown;
    for _ in 0..MAX_PASSES {
        st.incomplete = false;
        st.stack.clear();
        let r = T::deserialize(Tracer { st: &mut st, out: &mut root });
        if r.is_err() || st.seq_refused {
            return false;
        }
        if !st.incomplete {
            return true;
        }
    }
    false
}

/// The metadata of `T`, or an error if it has none (recursive or opaque).
pub(crate) fn metadata_of<'de, T: Deserialize<'de>>() -> Result<Metadata> {
    match &*traced::<T>() {
        Traced::Known(m) => Ok(m.clone()),
        Traced::Recursive(why) | Traced::Opaque(why) => Err(Error::new(
            ErrorKind::Unsupported,
            format!("{} has no fixed XBF type: {why}", std::any::type_name::<T>()),
        )),
    }
}

struct Tracer<'s> {
    st: &'s mut State,
    out: &'s mut Format,
}

impl<'s> Tracer<'s> {
    fn enter(&mut self, name: &'static str, key: &'static str) -> std::result::Result<(), TraceError> {
        if self.st.stack.iter().any(|(_, k)| *k == key) {
            return Err(TraceError(format!(
                "recursive type {name}: XBF metadata is a finite tree and cannot describe a type that contains itself"
            )));
        }
        if self.st.stack.len() >= MAX_DEPTH {
            return Err(TraceError("recursive type: nests more than 256 levels".into()));
        }
        self.st.stack.push((name, key));
        Ok(())
    }
}

struct Expecting<'a, V>(&'a V);
impl<'de, V: Visitor<'de>> fmt::Display for Expecting<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
}

macro_rules! prim {
    ($name:ident, $p:ident, $visit:ident, $v:expr) => {
        fn $name<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
            *self.out = Format::Prim(PrimitiveType::$p);
            visitor.$visit($v)
        }
    };
}

impl<'de> Deserializer<'de> for Tracer<'_> {
    type Error = TraceError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
        *self.out = Format::Any;
        self.st.saw_any = true;
        visitor.visit_unit()
    }

    prim!(deserialize_bool, Bool, visit_bool, false);
    prim!(deserialize_i8, I8, visit_i8, 1);
    prim!(deserialize_i16, I16, visit_i16, 1);
    prim!(deserialize_i32, I32, visit_i32, 1);
    prim!(deserialize_i64, I64, visit_i64, 1);
    prim!(deserialize_i128, I128, visit_i128, 1);
    prim!(deserialize_u8, U8, visit_u8, 1);
    prim!(deserialize_u16, U16, visit_u16, 1);
    prim!(deserialize_u32, U32, visit_u32, 1);
    prim!(deserialize_u64, U64, visit_u64, 1);
    prim!(deserialize_u128, U128, visit_u128, 1);
    prim!(deserialize_f32, F32, visit_f32, 0.0);
    prim!(deserialize_f64, F64, visit_f64, 0.0);
    prim!(deserialize_char, String, visit_char, 'a');
    prim!(deserialize_str, String, visit_borrowed_str, "");
    prim!(deserialize_string, String, visit_borrowed_str, "");
    prim!(deserialize_bytes, Bytes, visit_borrowed_bytes, &[]);
    prim!(deserialize_byte_buf, Bytes, visit_borrowed_bytes, &[]);
    prim!(deserialize_identifier, String, visit_borrowed_str, "");

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
        let mut inner = Format::Unknown;
        let r = visitor.visit_some(Tracer { st: self.st, out: &mut inner });
        *self.out = Format::Option(Box::new(inner));
        r
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
        *self.out = Format::Prim(PrimitiveType::Unit);
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, TraceError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, TraceError> {
        self.enter(name, std::any::type_name::<V>())?;
        let r = visitor.visit_newtype_struct(Tracer { st: self.st, out: self.out });
        self.st.stack.pop();
        r
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
        let mut elem = Format::Unknown;
        let r = visitor.visit_seq(OneSeq { st: self.st, out: &mut elem, left: 1 });
        *self.out = Format::Vec(Box::new(elem));
        r
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> std::result::Result<V::Value, TraceError> {
        // serde's arrays say "an array of length N" (or "an empty array").
        let expecting = Expecting(&visitor).to_string();
        let is_array = expecting.starts_with("an array") || expecting.starts_with("an empty array");
        let mut elems = vec![Format::Unknown; len];
        let r = visitor.visit_seq(TupleSeq { st: self.st, outs: &mut elems, next: 0 });
        *self.out = if is_array {
            let elem = elems.first().cloned().unwrap_or(Format::Prim(PrimitiveType::Unit));
            Format::Array(len as u64, Box::new(elem))
        } else {
            Format::Tuple(elems)
        };
        r
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, TraceError> {
        self.enter(name, std::any::type_name::<V>())?;
        let mut elems = vec![Format::Unknown; len];
        let r = visitor.visit_seq(TupleSeq { st: self.st, outs: &mut elems, next: 0 });
        *self.out = Format::Tuple(elems);
        self.st.stack.pop();
        r
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
        let mut k = Format::Unknown;
        let mut v = Format::Unknown;
        let r = visitor.visit_map(OneMap { st: self.st, key: &mut k, value: &mut v, left: 1 });
        *self.out = Format::Map(Box::new(k), Box::new(v));
        r
    }

    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, TraceError> {
        self.enter(name, std::any::type_name::<V>())?;
        let mut outs = vec![Format::Unknown; fields.len()];
        let r = if self.st.seq_probe {
            let mut seq = TupleSeq { st: self.st, outs: &mut outs, next: 0 };
            let r = visitor.visit_seq(&mut seq);
            if r.is_err() || seq.next != fields.len() {
                self.st.seq_refused = true;
            }
            r
        } else {
            visitor.visit_map(StructMap { st: self.st, fields, outs: &mut outs, next: 0 })
        };
        *self.out = Format::Struct(name, fields.iter().copied().zip(outs).collect());
        self.st.stack.pop();
        r
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, TraceError> {
        let key = std::any::type_name::<V>();
        self.enter(name, key)?;
        let entry = self.st.enums.entry(key).or_insert_with(|| EnumEntry {
            name,
            variants,
            payloads: vec![None; variants.len()],
            complete: vec![false; variants.len()],
        });
        if entry.variants.is_empty() {
            self.st.stack.pop();
            return Err(TraceError(format!("enum {name} has no variants")));
        }
        let index = entry.complete.iter().position(|c| !c).unwrap_or(0);
        let before = std::mem::replace(&mut self.st.incomplete, false);
        let mut payload = Format::Prim(PrimitiveType::Unit);
        let r = visitor.visit_enum(OneVariant { st: self.st, out: &mut payload, index, variants });
        let inner_incomplete = self.st.incomplete;
        let entry = self.st.enums.get_mut(key).expect("inserted above");
        entry.payloads[index] = Some(payload);
        entry.complete[index] = !inner_incomplete;
        let all = entry.complete.iter().all(|c| *c);
        self.st.incomplete = before || !all;
        *self.out = Format::Enum(key);
        self.st.stack.pop();
        r
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, TraceError> {
        self.deserialize_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// A sequence of one element, whose type is traced.
struct OneSeq<'s> {
    st: &'s mut State,
    out: &'s mut Format,
    left: usize,
}

impl<'de> SeqAccess<'de> for OneSeq<'_> {
    type Error = TraceError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, TraceError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(Tracer { st: self.st, out: self.out }).map(Some)
    }
}

struct TupleSeq<'s> {
    st: &'s mut State,
    outs: &'s mut [Format],
    next: usize,
}

impl<'de> SeqAccess<'de> for TupleSeq<'_> {
    type Error = TraceError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, TraceError> {
        let Some(out) = self.outs.get_mut(self.next) else { return Ok(None) };
        self.next += 1;
        seed.deserialize(Tracer { st: self.st, out }).map(Some)
    }
}

struct OneMap<'s> {
    st: &'s mut State,
    key: &'s mut Format,
    value: &'s mut Format,
    left: usize,
}

impl<'de> MapAccess<'de> for OneMap<'_> {
    type Error = TraceError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> std::result::Result<Option<K::Value>, TraceError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(Tracer { st: self.st, out: self.key }).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> std::result::Result<V::Value, TraceError> {
        seed.deserialize(Tracer { st: self.st, out: self.value })
    }
}

struct StructMap<'s> {
    st: &'s mut State,
    fields: &'static [&'static str],
    outs: &'s mut [Format],
    next: usize,
}

impl<'de> MapAccess<'de> for StructMap<'_> {
    type Error = TraceError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> std::result::Result<Option<K::Value>, TraceError> {
        let Some(name) = self.fields.get(self.next) else { return Ok(None) };
        seed.deserialize(de::value::BorrowedStrDeserializer::new(name)).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> std::result::Result<V::Value, TraceError> {
        let i = self.next;
        self.next += 1;
        seed.deserialize(Tracer { st: self.st, out: &mut self.outs[i] })
    }
}

struct OneVariant<'s> {
    st: &'s mut State,
    out: &'s mut Format,
    index: usize,
    variants: &'static [&'static str],
}

impl<'de, 's> EnumAccess<'de> for OneVariant<'s> {
    type Error = TraceError;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> std::result::Result<(V::Value, Self), TraceError> {
        let name = self.variants[self.index];
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::new(name))?;
        Ok((v, self))
    }
}

impl<'de> VariantAccess<'de> for OneVariant<'_> {
    type Error = TraceError;
    fn unit_variant(self) -> std::result::Result<(), TraceError> {
        *self.out = Format::Prim(PrimitiveType::Unit);
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> std::result::Result<T::Value, TraceError> {
        seed.deserialize(Tracer { st: self.st, out: self.out })
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> std::result::Result<V::Value, TraceError> {
        let mut elems = vec![Format::Unknown; len];
        let r = visitor.visit_seq(TupleSeq { st: self.st, outs: &mut elems, next: 0 });
        *self.out = Format::Tuple(elems);
        r
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, TraceError> {
        let mut outs = vec![Format::Unknown; fields.len()];
        let r = visitor.visit_map(StructMap { st: self.st, fields, outs: &mut outs, next: 0 });
        let name = self.variants[self.index];
        *self.out = Format::Struct(name, fields.iter().copied().zip(outs).collect());
        r
    }
}
