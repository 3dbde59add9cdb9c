//! Dynamic values: any XBF value, with its type carried alongside.

use std::fmt;
use std::sync::Arc;

pub use ethnum::{I256, U256};

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{ArrayMetadata, EnumMetadata, MapMetadata, Metadata, Name, PrimitiveType, StructMetadata};

/// Any XBF value.
///
/// Vecs and structs can only be built through [`VecValue::new`] and
/// [`StructValue::new`], which check that every element and field matches
/// the declared type, so a `Value` always encodes to a well-formed message.
///
/// ```
/// use xbf::{Value, VecValue, PrimitiveType};
///
/// let v = Value::from(VecValue::new(PrimitiveType::U16.into(), vec![42u16.into(), 1024u16.into()]).unwrap());
/// assert_eq!(v.metadata().to_string(), "vec<u16>");
/// assert_eq!(v.to_string(), "[42, 1024]");
/// ```
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// A `u8`.
    U8(u8),
    /// A `u16`.
    U16(u16),
    /// A `u32`.
    U32(u32),
    /// A `u64`.
    U64(u64),
    /// A `u128`.
    U128(u128),
    /// A `u256`.
    U256(U256),
    /// An `i8`.
    I8(i8),
    /// An `i16`.
    I16(i16),
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// An `i128`.
    I128(i128),
    /// An `i256`.
    I256(I256),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// Bytes.
    Bytes(Vec<u8>),
    /// A string.
    String(String),
    /// A vec.
    Vec(VecValue),
    /// A struct.
    Struct(StructValue),
    /// XBF 2: the unit value (JSON's null).
    Unit,
    /// XBF 2: a date, in days since 1970-01-01.
    Date(i32),
    /// XBF 2: an instant, in microseconds since 1970-01-01T00:00:00Z.
    Timestamp(i64),
    /// XBF 2: a value that may be absent.
    Option(OptionValue),
    /// XBF 2: a fixed-size array (its length is the number of items).
    Array(VecValue),
    /// XBF 2: a tuple.
    Tuple(TupleValue),
    /// XBF 2: a map.
    Map(MapValue),
    /// XBF 2: an enum value: a variant and its payload.
    Enum(EnumValue),
    /// XBF 2: a value that carries its own type.
    Any(Box<AnyValue>),
}

/// XBF 2: an optional value and the type it has when present.
#[derive(Clone, PartialEq)]
pub struct OptionValue {
    inner: Arc<Metadata>,
    value: Option<Box<Value>>,
}

/// XBF 2: a tuple's element types and values.
#[derive(Clone, PartialEq)]
pub struct TupleValue {
    types: Arc<[Metadata]>,
    items: Box<[Value]>,
}

/// XBF 2: a map's type and its entries, in order, with unique keys.
#[derive(Clone, PartialEq)]
pub struct MapValue {
    ty: Arc<MapMetadata>,
    entries: Vec<(Value, Value)>,
}

/// XBF 2: one variant of an enum type, with its payload.
#[derive(Clone, PartialEq)]
pub struct EnumValue {
    ty: Arc<EnumMetadata>,
    index: usize,
    payload: Box<Value>,
}

/// XBF 2: a value of `any` type: its own type and the value.
#[derive(Clone, PartialEq)]
pub struct AnyValue {
    ty: Metadata,
    value: Value,
}

/// A homogeneous list: an element type and values that all match it.
#[derive(Clone, PartialEq)]
pub struct VecValue {
    element: Arc<Metadata>,
    items: Vec<Value>,
}

/// A struct value: its type and one value per field, in field order.
#[derive(Clone, PartialEq)]
pub struct StructValue {
    ty: Arc<StructMetadata>,
    fields: Box<[Value]>,
}

impl Value {
    /// The type of this value.
    pub fn metadata(&self) -> Metadata {
        match self {
            Value::Vec(v) => Metadata::Vec(v.element.clone()),
            Value::Struct(s) => Metadata::Struct(s.ty.clone()),
            Value::Option(o) => Metadata::Option(o.inner.clone()),
            Value::Array(a) => {
                Metadata::Array(Arc::new(ArrayMetadata { len: a.items.len() as u64, element: (*a.element).clone() }))
            }
            Value::Tuple(t) => Metadata::Tuple(t.types.clone()),
            Value::Map(m) => Metadata::Map(m.ty.clone()),
            Value::Enum(e) => Metadata::Enum(e.ty.clone()),
            Value::Any(_) => Metadata::Any,
            other => Metadata::Primitive(other.primitive_type().expect("scalar values are primitives")),
        }
    }

    /// The primitive type, if this is a primitive value.
    pub fn primitive_type(&self) -> Option<PrimitiveType> {
        Some(match self {
            Value::Bool(_) => PrimitiveType::Bool,
            Value::U8(_) => PrimitiveType::U8,
            Value::U16(_) => PrimitiveType::U16,
            Value::U32(_) => PrimitiveType::U32,
            Value::U64(_) => PrimitiveType::U64,
            Value::U128(_) => PrimitiveType::U128,
            Value::U256(_) => PrimitiveType::U256,
            Value::I8(_) => PrimitiveType::I8,
            Value::I16(_) => PrimitiveType::I16,
            Value::I32(_) => PrimitiveType::I32,
            Value::I64(_) => PrimitiveType::I64,
            Value::I128(_) => PrimitiveType::I128,
            Value::I256(_) => PrimitiveType::I256,
            Value::F32(_) => PrimitiveType::F32,
            Value::F64(_) => PrimitiveType::F64,
            Value::Bytes(_) => PrimitiveType::Bytes,
            Value::String(_) => PrimitiveType::String,
            Value::Unit => PrimitiveType::Unit,
            Value::Date(_) => PrimitiveType::Date,
            Value::Timestamp(_) => PrimitiveType::Timestamp,
            Value::Vec(_)
            | Value::Struct(_)
            | Value::Option(_)
            | Value::Array(_)
            | Value::Tuple(_)
            | Value::Map(_)
            | Value::Enum(_)
            | Value::Any(_) => return None,
        })
    }

    /// Whether this value is of type `ty`.
    pub fn conforms_to(&self, ty: &Metadata) -> bool {
        match (self, ty) {
            (Value::Vec(v), Metadata::Vec(elem)) => Arc::ptr_eq(&v.element, elem) || *v.element == **elem,
            (Value::Struct(s), Metadata::Struct(t)) => Arc::ptr_eq(&s.ty, t) || *s.ty == **t,
            (Value::Option(o), Metadata::Option(t)) => Arc::ptr_eq(&o.inner, t) || *o.inner == **t,
            (Value::Array(a), Metadata::Array(t)) => a.items.len() as u64 == t.len && *a.element == t.element,
            (Value::Tuple(v), Metadata::Tuple(t)) => Arc::ptr_eq(&v.types, t) || *v.types == **t,
            (Value::Map(m), Metadata::Map(t)) => Arc::ptr_eq(&m.ty, t) || *m.ty == **t,
            (Value::Enum(e), Metadata::Enum(t)) => Arc::ptr_eq(&e.ty, t) || *e.ty == **t,
            (Value::Any(_), Metadata::Any) => true,
            // An integer is of both the varint and the fixed-width type of its
            // width: they differ only in how XBF 2 writes them.
            (v, Metadata::Primitive(p)) => v.primitive_type() == Some(p.integer_type()),
            _ => false,
        }
    }

    /// Wraps a value as `any`, with the value's own type.
    pub fn any(value: Value) -> Value {
        Value::Any(Box::new(AnyValue { ty: value.metadata(), value }))
    }

    fn expect_type(&self, ty: &Metadata) -> Result<()> {
        if self.conforms_to(ty) {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::TypeMismatch, format!("expected {ty}, found {}", self.metadata())))
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value as a `u64`, if it is an integer of any width that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(x) => Some(x.into()),
            Value::U16(x) => Some(x.into()),
            Value::U32(x) => Some(x.into()),
            Value::U64(x) => Some(x),
            Value::U128(x) => x.try_into().ok(),
            Value::U256(x) => x.try_into().ok(),
            Value::I8(x) => x.try_into().ok(),
            Value::I16(x) => x.try_into().ok(),
            Value::I32(x) => x.try_into().ok(),
            Value::I64(x) => x.try_into().ok(),
            Value::I128(x) => x.try_into().ok(),
            Value::I256(x) => x.try_into().ok(),
            _ => None,
        }
    }

    /// The value as an `i64`, if it is an integer of any width that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::U8(x) => Some(x.into()),
            Value::U16(x) => Some(x.into()),
            Value::U32(x) => Some(x.into()),
            Value::U64(x) => x.try_into().ok(),
            Value::U128(x) => x.try_into().ok(),
            Value::U256(x) => x.try_into().ok(),
            Value::I8(x) => Some(x.into()),
            Value::I16(x) => Some(x.into()),
            Value::I32(x) => Some(x.into()),
            Value::I64(x) => Some(x),
            Value::I128(x) => x.try_into().ok(),
            Value::I256(x) => x.try_into().ok(),
            _ => None,
        }
    }

    /// The value as an `f64`, if it is a float.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(x) => Some(x.into()),
            Value::F64(x) => Some(x),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes, if this is a bytes value.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The vec, if this is one.
    pub fn as_vec(&self) -> Option<&VecValue> {
        match self {
            Value::Vec(v) => Some(v),
            _ => None,
        }
    }

    /// The struct, if this is one.
    pub fn as_struct(&self) -> Option<&StructValue> {
        match self {
            Value::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The field `name` of a struct value.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.as_struct()?.get(name)
    }
}

impl VecValue {
    /// A vec of `element`s; fails with `type-mismatch` (naming the index) if
    /// an item is of another type.
    pub fn new(element: Metadata, items: Vec<Value>) -> Result<VecValue> {
        for (i, item) in items.iter().enumerate() {
            item.expect_type(&element).map_err(|e| e.within(PathSegment::Index(i as u64)))?;
        }
        Ok(VecValue { element: Arc::new(element), items })
    }

    /// For the decoder, whose items match by construction.
    pub(crate) fn new_unchecked(element: Arc<Metadata>, items: Vec<Value>) -> VecValue {
        VecValue { element, items }
    }

    /// The element type.
    pub fn element_type(&self) -> &Metadata {
        &self.element
    }

    /// The items.
    pub fn items(&self) -> &[Value] {
        &self.items
    }

    /// The items, by value.
    pub fn into_items(self) -> Vec<Value> {
        self.items
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Appends an item; fails with `type-mismatch` if it is of another type.
    pub fn push(&mut self, item: Value) -> Result<()> {
        item.expect_type(&self.element).map_err(|e| e.within(PathSegment::Index(self.items.len() as u64)))?;
        self.items.push(item);
        Ok(())
    }
}

impl StructValue {
    /// A value of struct type `ty`; fails with `type-mismatch` unless there is
    /// one value per field, each of the field's type.
    pub fn new(ty: impl Into<Arc<StructMetadata>>, fields: Vec<Value>) -> Result<StructValue> {
        let ty = ty.into();
        if fields.len() != ty.len() {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("struct {} has {} fields, {} values given", ty.name(), ty.len(), fields.len()),
            ));
        }
        for ((name, fty), v) in ty.fields().zip(&fields) {
            v.expect_type(fty).map_err(|e| e.within(PathSegment::Field(name.into())))?;
        }
        Ok(StructValue { ty, fields: fields.into_boxed_slice() })
    }

    /// A struct value whose type is made from the names and the values' own
    /// types; fails with `duplicate-field` if two names are the same.
    ///
    /// ```
    /// use xbf::{StructValue, Value};
    ///
    /// let p = StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))]).unwrap();
    /// assert_eq!(Value::from(p).to_string(), "Point { first: 42, last: -5 }");
    /// ```
    pub fn from_fields<N: Into<Box<str>>>(
        name: impl Into<Box<str>>,
        fields: impl IntoIterator<Item = (N, Value)>,
    ) -> Result<StructValue> {
        let mut ty = StructMetadata::empty(name);
        let mut values = Vec::new();
        for (n, v) in fields {
            ty.push_field(n.into(), v.metadata())?;
            values.push(v);
        }
        Ok(StructValue { ty: Arc::new(ty), fields: values.into_boxed_slice() })
    }

    /// For the decoder, whose fields match by construction.
    pub(crate) fn new_unchecked(ty: Arc<StructMetadata>, fields: Box<[Value]>) -> StructValue {
        StructValue { ty, fields }
    }

    /// The struct's type.
    pub fn metadata(&self) -> &Arc<StructMetadata> {
        &self.ty
    }

    /// The struct's name.
    pub fn name(&self) -> &str {
        self.ty.name()
    }

    /// The value of the field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.ty.field(name).map(|(i, _)| &self.fields[i])
    }

    /// The field values, in field order.
    pub fn values(&self) -> &[Value] {
        &self.fields
    }

    /// The fields as (name, value), in field order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = (&str, &Value)> {
        self.ty.fields().map(|(n, _)| n).zip(self.fields.iter())
    }
}

impl OptionValue {
    /// An absent value of type `inner`.
    pub fn none(inner: Metadata) -> OptionValue {
        OptionValue { inner: Arc::new(inner), value: None }
    }

    /// A present value; fails with `type-mismatch` unless it is of type `inner`.
    pub fn some(inner: Metadata, value: Value) -> Result<OptionValue> {
        value.expect_type(&inner)?;
        Ok(OptionValue { inner: Arc::new(inner), value: Some(Box::new(value)) })
    }

    pub(crate) fn new_unchecked(inner: Arc<Metadata>, value: Option<Value>) -> OptionValue {
        OptionValue { inner, value: value.map(Box::new) }
    }

    /// The type of the value when present.
    pub fn inner_type(&self) -> &Metadata {
        &self.inner
    }

    /// The value, if present.
    pub fn value(&self) -> Option<&Value> {
        self.value.as_deref()
    }
}

impl TupleValue {
    /// A tuple; fails with `type-mismatch` unless there is one item per type,
    /// each of its type.
    pub fn new(types: Vec<Metadata>, items: Vec<Value>) -> Result<TupleValue> {
        if types.len() != items.len() {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("a tuple of {} types given {} items", types.len(), items.len()),
            ));
        }
        for (i, (t, v)) in types.iter().zip(&items).enumerate() {
            v.expect_type(t).map_err(|e| e.within(PathSegment::Position(i as u64)))?;
        }
        Ok(TupleValue { types: types.into(), items: items.into_boxed_slice() })
    }

    /// A tuple whose types are its items' own.
    pub fn from_items(items: Vec<Value>) -> TupleValue {
        TupleValue { types: items.iter().map(Value::metadata).collect(), items: items.into() }
    }

    pub(crate) fn new_unchecked(types: Arc<[Metadata]>, items: Box<[Value]>) -> TupleValue {
        TupleValue { types, items }
    }

    /// The element types.
    pub fn types(&self) -> &[Metadata] {
        &self.types
    }

    /// The items.
    pub fn items(&self) -> &[Value] {
        &self.items
    }
}

impl MapValue {
    /// A map from `key` to `value` types; fails with `type-mismatch` if an
    /// entry is of other types and with `duplicate-key` if two keys are equal
    /// (floats compare by their bits).
    pub fn new(key: Metadata, value: Metadata, entries: Vec<(Value, Value)>) -> Result<MapValue> {
        let mut seen = std::collections::HashSet::with_capacity(entries.len());
        for (i, (k, v)) in entries.iter().enumerate() {
            let at = |e: Error| e.within(PathSegment::Index(i as u64));
            k.expect_type(&key).map_err(at)?;
            v.expect_type(&value).map_err(at)?;
            if !seen.insert(key_bytes(k)) {
                return Err(at(Error::new(ErrorKind::DuplicateKey, format!("key {k} appears twice"))));
            }
        }
        Ok(MapValue { ty: Arc::new(MapMetadata { key, value }), entries })
    }

    pub(crate) fn new_unchecked(ty: Arc<MapMetadata>, entries: Vec<(Value, Value)>) -> MapValue {
        MapValue { ty, entries }
    }

    /// The key type.
    pub fn key_type(&self) -> &Metadata {
        &self.ty.key
    }

    /// The value type.
    pub fn value_type(&self) -> &Metadata {
        &self.ty.value
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[(Value, Value)] {
        &self.entries
    }

    /// The value of the first entry whose key equals `key`.
    pub fn get(&self, key: &Value) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl EnumValue {
    /// The variant `variant` of `ty` with its payload; fails with
    /// `unknown-variant` or `type-mismatch`.
    pub fn new(ty: impl Into<Arc<EnumMetadata>>, variant: &str, payload: Value) -> Result<EnumValue> {
        let ty = ty.into();
        let (index, pty) = ty.variant(variant).ok_or_else(|| {
            Error::new(ErrorKind::UnknownVariant, format!("enum {} has no variant {variant:?}", ty.name()))
        })?;
        payload.expect_type(pty).map_err(|e| e.within(PathSegment::Field(variant.into())))?;
        Ok(EnumValue { ty, index, payload: Box::new(payload) })
    }

    pub(crate) fn new_unchecked(ty: Arc<EnumMetadata>, index: usize, payload: Value) -> EnumValue {
        EnumValue { ty, index, payload: Box::new(payload) }
    }

    /// The enum's type.
    pub fn metadata(&self) -> &Arc<EnumMetadata> {
        &self.ty
    }

    /// The variant's index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The variant's name.
    pub fn variant(&self) -> &str {
        self.ty.variant_at(self.index).map_or("", |(n, _)| n)
    }

    /// The payload (`Value::Unit` for a variant without data).
    pub fn payload(&self) -> &Value {
        &self.payload
    }
}

impl AnyValue {
    /// A value of `any` type whose own type is `ty`; fails with
    /// `type-mismatch` unless the value is of that type.
    pub fn new(ty: Metadata, value: Value) -> Result<AnyValue> {
        value.expect_type(&ty)?;
        Ok(AnyValue { ty, value })
    }

    pub(crate) fn new_unchecked(ty: Metadata, value: Value) -> AnyValue {
        AnyValue { ty, value }
    }

    /// The value's own type.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.value
    }
}

macro_rules! from_scalar {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$v(x)
            }
        }
    )*};
}

from_scalar!(
    bool => Bool, u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128, U256 => U256,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64, i128 => I128, I256 => I256,
    f32 => F32, f64 => F64, String => String, VecValue => Vec, StructValue => Struct,
    OptionValue => Option, TupleValue => Tuple, MapValue => Map, EnumValue => Enum,
);

/// The identity of a map key, to tell duplicates apart: for two values of
/// one type, equal exactly when their XBF 2 bytes are (so floats compare by
/// their bits), so that [`MapValue::new`] and every decoder refuse the same
/// maps. A flat form of its own rather than the wire's, since the type is
/// fixed: fixed-width members at their width, variable ones after their
/// length, an `any` after its metadata's bytes.
pub(crate) fn key_bytes(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    key_into(v, &mut out);
    out
}

fn key_into(v: &Value, out: &mut Vec<u8>) {
    let len = |n: usize, out: &mut Vec<u8>| out.extend_from_slice(&(n as u64).to_le_bytes());
    match v {
        Value::Bool(x) => out.push(u8::from(*x)),
        Value::U8(x) => out.push(*x),
        Value::I8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U128(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::U256(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I128(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::I256(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::F32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::F64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Date(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Timestamp(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Unit => {}
        Value::Bytes(b) => {
            len(b.len(), out);
            out.extend_from_slice(b);
        }
        Value::String(s) => {
            len(s.len(), out);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Vec(v) => {
            len(v.items.len(), out);
            v.items.iter().for_each(|x| key_into(x, out));
        }
        Value::Array(v) => v.items.iter().for_each(|x| key_into(x, out)),
        Value::Struct(s) => s.fields.iter().for_each(|x| key_into(x, out)),
        Value::Tuple(t) => t.items.iter().for_each(|x| key_into(x, out)),
        Value::Option(o) => match &o.value {
            None => out.push(0),
            Some(x) => {
                out.push(1);
                key_into(x, out);
            }
        },
        Value::Map(m) => {
            len(m.entries.len(), out);
            for (k, x) in &m.entries {
                key_into(k, out);
                key_into(x, out);
            }
        }
        Value::Enum(e) => {
            len(e.index, out);
            key_into(&e.payload, out);
        }
        Value::Any(a) => {
            a.ty.write_bytes(true, out);
            key_into(&a.value, out);
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

/// Readable text: `Point { first: 42, last: -5 }`, `[1, 2]`, `"text"`,
/// bytes as `h'00ff'`, floats always with a fraction or exponent (`1.0`).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(x) => write!(f, "{x}"),
            Value::U8(x) => write!(f, "{x}"),
            Value::U16(x) => write!(f, "{x}"),
            Value::U32(x) => write!(f, "{x}"),
            Value::U64(x) => write!(f, "{x}"),
            Value::U128(x) => write!(f, "{x}"),
            Value::U256(x) => write!(f, "{x}"),
            Value::I8(x) => write!(f, "{x}"),
            Value::I16(x) => write!(f, "{x}"),
            Value::I32(x) => write!(f, "{x}"),
            Value::I64(x) => write!(f, "{x}"),
            Value::I128(x) => write!(f, "{x}"),
            Value::I256(x) => write!(f, "{x}"),
            Value::F32(x) => write!(f, "{x:?}"),
            Value::F64(x) => write!(f, "{x:?}"),
            Value::Bytes(b) => {
                f.write_str("h'")?;
                for byte in b {
                    write!(f, "{byte:02x}")?;
                }
                f.write_str("'")
            }
            Value::String(s) => write!(f, "{s:?}"),
            Value::Vec(v) => write_seq(f, "[", v.items.iter(), "]"),
            Value::Struct(s) => {
                write!(f, "{}", Name(s.name()))?;
                if s.fields.is_empty() {
                    return f.write_str(" {}");
                }
                f.write_str(" {")?;
                for (i, (name, v)) in s.fields().enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    write!(f, "{}", Name(name))?;
                    write!(f, ": {v}")?;
                }
                f.write_str(" }")
            }
            Value::Unit => f.write_str("null"),
            Value::Date(d) => f.write_str(&crate::time::format_date(i64::from(*d))),
            Value::Timestamp(t) => f.write_str(&crate::time::format_timestamp(*t)),
            Value::Option(o) => match o.value() {
                None => f.write_str("null"),
                Some(v) => write!(f, "{v}"),
            },
            Value::Array(v) => write_seq(f, "[", v.items.iter(), "]"),
            Value::Tuple(t) => write_seq(f, "(", t.items.iter(), if t.items.len() == 1 { ",)" } else { ")" }),
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Enum(e) => {
                write!(f, "{}", Name(e.variant()))?;
                match &*e.payload {
                    Value::Unit => Ok(()),
                    p => write!(f, "({p})"),
                }
            }
            Value::Any(a) => write!(f, "{}", a.value),
        }
    }
}

fn write_seq<'a>(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: impl Iterator<Item = &'a Value>,
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str(close)
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}: {}", self.metadata())
    }
}

macro_rules! debug_as_value {
    ($($t:ident => $v:ident),*) => {$(
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&Value::$v(self.clone()), f)
            }
        }
    )*};
}

debug_as_value!(OptionValue => Option, TupleValue => Tuple, MapValue => Map, EnumValue => Enum);

impl fmt::Debug for AnyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.value, self.ty)
    }
}

impl fmt::Debug for VecValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&Value::Vec(self.clone()), f)
    }
}

impl fmt::Debug for StructValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&Value::Struct(self.clone()), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec_rejects_mixed_items() {
        let err = VecValue::new(PrimitiveType::U8.into(), vec![1u8.into(), 2u16.into()]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::TypeMismatch);
        assert_eq!(err.to_string(), "in [1]: type-mismatch: expected u8, found u16");
    }

    #[test]
    fn struct_checks_count_and_types() {
        let ty = Arc::new(StructMetadata::new("P", [("a", PrimitiveType::U8), ("b", PrimitiveType::Bool)]).unwrap());
        assert!(StructValue::new(ty.clone(), vec![1u8.into()]).is_err());
        let err = StructValue::new(ty.clone(), vec![1u8.into(), 1u8.into()]).unwrap_err();
        assert_eq!(err.to_string(), "in .b: type-mismatch: expected bool, found u8");
        let ok = StructValue::new(ty, vec![1u8.into(), true.into()]).unwrap();
        assert_eq!(ok.get("b"), Some(&Value::Bool(true)));
        assert_eq!(ok.get("c"), None);
    }

    #[test]
    fn empty_vec_keeps_its_type() {
        let v = Value::from(VecValue::new(Metadata::vec(PrimitiveType::String.into()), vec![]).unwrap());
        assert_eq!(v.metadata().to_string(), "vec<vec<string>>");
        assert!(!v.conforms_to(&Metadata::vec(PrimitiveType::String.into())));
    }

    #[test]
    fn display_values() {
        let v = StructValue::from_fields(
            "R",
            [
                ("b", Value::Bytes(vec![0, 255])),
                ("f", Value::F64(1.0)),
                ("s", Value::from("a\"b")),
                ("big", Value::U256(U256::MAX)),
            ],
        )
        .unwrap();
        assert_eq!(
            Value::from(v).to_string(),
            format!("R {{ b: h'00ff', f: 1.0, s: \"a\\\"b\", big: {} }}", U256::MAX)
        );
    }

    #[test]
    fn integer_accessors_widen_and_narrow() {
        assert_eq!(Value::U8(7).as_u64(), Some(7));
        assert_eq!(Value::I8(-1).as_u64(), None);
        assert_eq!(Value::I8(-1).as_i64(), Some(-1));
        assert_eq!(Value::U128(u128::MAX).as_u64(), None);
        assert_eq!(Value::I256(I256::from(-3)).as_i64(), Some(-3));
    }
}
