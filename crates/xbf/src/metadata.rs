//! The type tree that an XBF message carries before its value.

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::error::{Error, ErrorKind, Result};
use crate::wire::{varint, Discriminant};

/// The 17 primitive types, with their wire discriminants as the enum's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PrimitiveType {
    /// A boolean: one byte, 0 or 1.
    Bool = 0,
    /// An unsigned 8-bit integer.
    U8 = 1,
    /// An unsigned 16-bit integer.
    U16 = 2,
    /// An unsigned 32-bit integer.
    U32 = 3,
    /// An unsigned 64-bit integer.
    U64 = 4,
    /// An unsigned 128-bit integer.
    U128 = 5,
    /// An unsigned 256-bit integer.
    U256 = 6,
    /// A signed 8-bit integer.
    I8 = 7,
    /// A signed 16-bit integer.
    I16 = 8,
    /// A signed 32-bit integer.
    I32 = 9,
    /// A signed 64-bit integer.
    I64 = 10,
    /// A signed 128-bit integer.
    I128 = 11,
    /// A signed 256-bit integer.
    I256 = 12,
    /// An IEEE 754 binary32 float.
    F32 = 13,
    /// An IEEE 754 binary64 float.
    F64 = 14,
    /// A byte string of any length.
    Bytes = 15,
    /// A UTF-8 string of any length.
    String = 16,
    /// XBF 2: the unit type (JSON's null); its value takes no bytes.
    Unit = 0x13,
    /// XBF 2: a calendar date, days since 1970-01-01.
    Date = 0x1a,
    /// XBF 2: an instant, microseconds since 1970-01-01T00:00:00Z.
    Timestamp = 0x1b,
    /// XBF 2: a `u16` written fixed-width instead of as a varint.
    FixedU16 = 0x1c,
    /// XBF 2: a `u32` written fixed-width.
    FixedU32 = 0x1d,
    /// XBF 2: a `u64` written fixed-width.
    FixedU64 = 0x1e,
    /// XBF 2: a `u128` written fixed-width.
    FixedU128 = 0x1f,
    /// XBF 2: an `i16` written fixed-width.
    FixedI16 = 0x20,
    /// XBF 2: an `i32` written fixed-width.
    FixedI32 = 0x21,
    /// XBF 2: an `i64` written fixed-width.
    FixedI64 = 0x22,
    /// XBF 2: an `i128` written fixed-width.
    FixedI128 = 0x23,
}

impl PrimitiveType {
    /// All primitives, in discriminant order: the 17 of v1, then XBF 2's.
    pub const ALL: [PrimitiveType; 28] = [
        PrimitiveType::Bool,
        PrimitiveType::U8,
        PrimitiveType::U16,
        PrimitiveType::U32,
        PrimitiveType::U64,
        PrimitiveType::U128,
        PrimitiveType::U256,
        PrimitiveType::I8,
        PrimitiveType::I16,
        PrimitiveType::I32,
        PrimitiveType::I64,
        PrimitiveType::I128,
        PrimitiveType::I256,
        PrimitiveType::F32,
        PrimitiveType::F64,
        PrimitiveType::Bytes,
        PrimitiveType::String,
        PrimitiveType::Unit,
        PrimitiveType::Date,
        PrimitiveType::Timestamp,
        PrimitiveType::FixedU16,
        PrimitiveType::FixedU32,
        PrimitiveType::FixedU64,
        PrimitiveType::FixedU128,
        PrimitiveType::FixedI16,
        PrimitiveType::FixedI32,
        PrimitiveType::FixedI64,
        PrimitiveType::FixedI128,
    ];

    /// The one-byte wire discriminant.
    pub const fn discriminant(self) -> u8 {
        self as u8
    }

    /// The primitive with this discriminant, if it is one, in either version.
    pub fn from_discriminant(d: u8) -> Option<PrimitiveType> {
        match d {
            0..=16 => Some(PrimitiveType::ALL[usize::from(d)]),
            0x13 => Some(PrimitiveType::Unit),
            0x1a..=0x23 => Some(PrimitiveType::ALL[usize::from(d - 0x1a) + 18]),
            _ => None,
        }
    }

    /// Whether XBF v1 has this type (the 17 primitives of the paper).
    pub const fn is_v1(self) -> bool {
        (self as u8) <= 16
    }

    /// For a fixed-width integer type of XBF 2, the integer type it writes
    /// fixed-width (whose values it shares); otherwise the type itself.
    pub const fn integer_type(self) -> PrimitiveType {
        match self {
            PrimitiveType::FixedU16 => PrimitiveType::U16,
            PrimitiveType::FixedU32 => PrimitiveType::U32,
            PrimitiveType::FixedU64 => PrimitiveType::U64,
            PrimitiveType::FixedU128 => PrimitiveType::U128,
            PrimitiveType::FixedI16 => PrimitiveType::I16,
            PrimitiveType::FixedI32 => PrimitiveType::I32,
            PrimitiveType::FixedI64 => PrimitiveType::I64,
            PrimitiveType::FixedI128 => PrimitiveType::I128,
            other => other,
        }
    }

    /// The fixed-width form of a 16- to 128-bit integer type, if it has one.
    pub const fn fixed_form(self) -> Option<PrimitiveType> {
        Some(match self {
            PrimitiveType::U16 => PrimitiveType::FixedU16,
            PrimitiveType::U32 => PrimitiveType::FixedU32,
            PrimitiveType::U64 => PrimitiveType::FixedU64,
            PrimitiveType::U128 => PrimitiveType::FixedU128,
            PrimitiveType::I16 => PrimitiveType::FixedI16,
            PrimitiveType::I32 => PrimitiveType::FixedI32,
            PrimitiveType::I64 => PrimitiveType::FixedI64,
            PrimitiveType::I128 => PrimitiveType::FixedI128,
            _ => return None,
        })
    }

    /// The type word used in SPEC.md and the conformance vectors, e.g. `"u16"`.
    pub const fn name(self) -> &'static str {
        match self {
            PrimitiveType::Bool => "bool",
            PrimitiveType::U8 => "u8",
            PrimitiveType::U16 => "u16",
            PrimitiveType::U32 => "u32",
            PrimitiveType::U64 => "u64",
            PrimitiveType::U128 => "u128",
            PrimitiveType::U256 => "u256",
            PrimitiveType::I8 => "i8",
            PrimitiveType::I16 => "i16",
            PrimitiveType::I32 => "i32",
            PrimitiveType::I64 => "i64",
            PrimitiveType::I128 => "i128",
            PrimitiveType::I256 => "i256",
            PrimitiveType::F32 => "f32",
            PrimitiveType::F64 => "f64",
            PrimitiveType::Bytes => "bytes",
            PrimitiveType::String => "string",
            PrimitiveType::Unit => "unit",
            PrimitiveType::Date => "date",
            PrimitiveType::Timestamp => "timestamp",
            PrimitiveType::FixedU16 => "fixed-u16",
            PrimitiveType::FixedU32 => "fixed-u32",
            PrimitiveType::FixedU64 => "fixed-u64",
            PrimitiveType::FixedU128 => "fixed-u128",
            PrimitiveType::FixedI16 => "fixed-i16",
            PrimitiveType::FixedI32 => "fixed-i32",
            PrimitiveType::FixedI64 => "fixed-i64",
            PrimitiveType::FixedI128 => "fixed-i128",
        }
    }

    /// The primitive with this type word.
    pub fn from_name(name: &str) -> Option<PrimitiveType> {
        PrimitiveType::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The size of a value in v1 (where every integer is fixed-width), or
    /// `None` for bytes and string, whose size depends on the value.
    pub const fn fixed_size(self) -> Option<usize> {
        match self.integer_type() {
            PrimitiveType::Unit => Some(0),
            PrimitiveType::Bool | PrimitiveType::U8 | PrimitiveType::I8 => Some(1),
            PrimitiveType::U16 | PrimitiveType::I16 => Some(2),
            PrimitiveType::U32 | PrimitiveType::I32 | PrimitiveType::F32 | PrimitiveType::Date => Some(4),
            PrimitiveType::U64 | PrimitiveType::I64 | PrimitiveType::F64 | PrimitiveType::Timestamp => Some(8),
            PrimitiveType::U128 | PrimitiveType::I128 => Some(16),
            PrimitiveType::U256 | PrimitiveType::I256 => Some(32),
            _ => None,
        }
    }

    /// The fewest bytes a value takes in XBF 2: varint types take at least
    /// one, fixed-width types their width.
    pub const fn min_size_v2(self) -> u64 {
        match self {
            PrimitiveType::Unit => 0,
            PrimitiveType::U16
            | PrimitiveType::U32
            | PrimitiveType::U64
            | PrimitiveType::U128
            | PrimitiveType::I16
            | PrimitiveType::I32
            | PrimitiveType::I64
            | PrimitiveType::I128
            | PrimitiveType::Date
            | PrimitiveType::Timestamp
            | PrimitiveType::Bytes
            | PrimitiveType::String => 1,
            other => match other.fixed_size() {
                Some(n) => n as u64,
                None => 1,
            },
        }
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The metadata (type) of an XBF value.
///
/// XBF v1 has primitives, vecs and structs; XBF 2 adds options, fixed-size
/// arrays, tuples, maps, enums and `any` (plus the primitives `unit`,
/// `date`, `timestamp` and the fixed-width integers).
///
/// Cloning is cheap: composite metadata is shared behind [`Arc`], so the
/// values of a decoded vec all point at one copy of their type.
///
/// ```
/// use xbf::{Metadata, PrimitiveType, StructMetadata};
///
/// let point = StructMetadata::new("Point", [
///     ("first", Metadata::from(PrimitiveType::I8)),
///     ("last", PrimitiveType::I8.into()),
/// ]).unwrap();
/// let points = Metadata::vec(point.into());
/// assert_eq!(points.to_string(), "vec<struct Point { first: i8, last: i8 }>");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Metadata {
    /// A type without parameters: the 17 primitives of v1, and in XBF 2
    /// unit, date, timestamp and the fixed-width integers.
    Primitive(PrimitiveType),
    /// A homogeneous list of any length; the element type.
    Vec(Arc<Metadata>),
    /// A named struct.
    Struct(Arc<StructMetadata>),
    /// XBF 2: a value that may be absent.
    Option(Arc<Metadata>),
    /// XBF 2: exactly `len` elements of one type, with no count on the wire.
    Array(Arc<ArrayMetadata>),
    /// XBF 2: a fixed sequence of values of their own types.
    Tuple(Arc<[Metadata]>),
    /// XBF 2: keys of one type mapped to values of another, in order.
    Map(Arc<MapMetadata>),
    /// XBF 2: a tagged union of named variants, each with a payload type.
    Enum(Arc<EnumMetadata>),
    /// XBF 2: a value that carries its own type.
    Any,
}

/// The type of a fixed-size array.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayMetadata {
    /// The number of elements.
    pub len: u64,
    /// The element type.
    pub element: Metadata,
}

/// The type of a map.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapMetadata {
    /// The key type.
    pub key: Metadata,
    /// The value type.
    pub value: Metadata,
}

impl Metadata {
    /// The unit type.
    pub const UNIT: Metadata = Metadata::Primitive(PrimitiveType::Unit);

    /// The metadata of a vec whose elements are of type `element`.
    pub fn vec(element: Metadata) -> Metadata {
        Metadata::Vec(Arc::new(element))
    }

    /// An option of `inner`.
    pub fn option(inner: Metadata) -> Metadata {
        Metadata::Option(Arc::new(inner))
    }

    /// An array of `len` elements of type `element`.
    pub fn array(len: u64, element: Metadata) -> Metadata {
        Metadata::Array(Arc::new(ArrayMetadata { len, element }))
    }

    /// A tuple of these element types.
    pub fn tuple(elements: impl IntoIterator<Item = Metadata>) -> Metadata {
        Metadata::Tuple(elements.into_iter().collect())
    }

    /// A map from `key` to `value`.
    pub fn map(key: Metadata, value: Metadata) -> Metadata {
        Metadata::Map(Arc::new(MapMetadata { key, value }))
    }

    /// The wire discriminant that opens this metadata.
    pub fn discriminant(&self) -> u8 {
        match self {
            Metadata::Primitive(p) => p.discriminant(),
            Metadata::Vec(_) => Discriminant::Vec.byte(),
            Metadata::Struct(_) => Discriminant::Struct.byte(),
            Metadata::Option(_) => Discriminant::Option.byte(),
            Metadata::Array(_) => Discriminant::Array.byte(),
            Metadata::Tuple(_) => Discriminant::Tuple.byte(),
            Metadata::Map(_) => Discriminant::Map.byte(),
            Metadata::Enum(_) => Discriminant::Enum.byte(),
            Metadata::Any => Discriminant::Any.byte(),
        }
    }

    /// The primitive type, if this is one.
    pub fn as_primitive(&self) -> Option<PrimitiveType> {
        match self {
            Metadata::Primitive(p) => Some(*p),
            _ => None,
        }
    }

    /// The element type, if this is a vec.
    pub fn as_vec(&self) -> Option<&Metadata> {
        match self {
            Metadata::Vec(elem) => Some(elem),
            _ => None,
        }
    }

    /// The struct metadata, if this is a struct.
    pub fn as_struct(&self) -> Option<&Arc<StructMetadata>> {
        match self {
            Metadata::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The types directly inside this one (elements, fields, variants' payloads).
    pub fn children(&self) -> Vec<&Metadata> {
        match self {
            Metadata::Primitive(_) | Metadata::Any => Vec::new(),
            Metadata::Vec(t) | Metadata::Option(t) => vec![t],
            Metadata::Array(a) => vec![&a.element],
            Metadata::Struct(s) => s.fields().map(|(_, t)| t).collect(),
            Metadata::Enum(e) => e.variants().map(|(_, t)| t).collect(),
            Metadata::Tuple(ts) => ts.iter().collect(),
            Metadata::Map(m) => vec![&m.key, &m.value],
        }
    }

    /// Levels of nesting: 0 for a primitive or `any`, 1 for `vec<u8>`.
    pub fn depth(&self) -> usize {
        match self {
            Metadata::Primitive(_) | Metadata::Any => 0,
            _ => 1 + self.children().into_iter().map(Metadata::depth).max().unwrap_or(0),
        }
    }

    /// Whether every type in this tree exists in XBF v1.
    pub fn is_v1(&self) -> bool {
        match self {
            Metadata::Primitive(p) => p.is_v1(),
            Metadata::Vec(t) => t.is_v1(),
            Metadata::Struct(s) => s.fields().all(|(_, t)| t.is_v1()),
            _ => false,
        }
    }

    /// The fewest bytes a v1 value of this type can take (0 for structs whose
    /// fields all take none, such as the empty struct).
    pub fn min_size_v1(&self) -> u64 {
        match self {
            Metadata::Primitive(p) => p.fixed_size().unwrap_or(8) as u64,
            Metadata::Struct(s) => s.fields().map(|(_, m)| m.min_size_v1()).fold(0u64, u64::saturating_add),
            _ => 8,
        }
    }

    /// The fewest bytes an XBF 2 value of this type can take.
    pub fn min_size_v2(&self) -> u64 {
        match self {
            Metadata::Primitive(p) => p.min_size_v2(),
            Metadata::Array(a) => a.len.saturating_mul(a.element.min_size_v2()),
            Metadata::Struct(s) => s.fields().map(|(_, m)| m.min_size_v2()).fold(0u64, u64::saturating_add),
            Metadata::Tuple(ts) => ts.iter().map(Metadata::min_size_v2).fold(0u64, u64::saturating_add),
            Metadata::Vec(_) | Metadata::Option(_) | Metadata::Map(_) | Metadata::Enum(_) | Metadata::Any => 1,
        }
    }

    /// Whether values of this type take no bytes at all (unit, and structs,
    /// tuples and arrays of only such members). Stops at the first member
    /// that takes bytes, so it is cheap for ordinary types.
    pub fn is_zero_size(&self) -> bool {
        match self {
            Metadata::Primitive(p) => *p == PrimitiveType::Unit,
            Metadata::Struct(s) => s.fields().all(|(_, t)| t.is_zero_size()),
            Metadata::Tuple(ts) => ts.iter().all(Metadata::is_zero_size),
            Metadata::Array(a) => a.len == 0 || a.element.is_zero_size(),
            _ => false,
        }
    }
}

impl From<PrimitiveType> for Metadata {
    fn from(p: PrimitiveType) -> Metadata {
        Metadata::Primitive(p)
    }
}

impl From<StructMetadata> for Metadata {
    fn from(s: StructMetadata) -> Metadata {
        Metadata::Struct(Arc::new(s))
    }
}

impl From<Arc<StructMetadata>> for Metadata {
    fn from(s: Arc<StructMetadata>) -> Metadata {
        Metadata::Struct(s)
    }
}

impl From<Arc<EnumMetadata>> for Metadata {
    fn from(e: Arc<EnumMetadata>) -> Metadata {
        Metadata::Enum(e)
    }
}

impl From<EnumMetadata> for Metadata {
    fn from(e: EnumMetadata) -> Metadata {
        Metadata::Enum(Arc::new(e))
    }
}

/// A name and a list of uniquely named, typed members: the fields of a
/// struct, or the variants of an enum.
#[derive(Clone)]
struct Members {
    name: Box<str>,
    members: IndexMap<Box<str>, Metadata>,
}

/// Members in another order are another type: the order is the layout of
/// a struct's fields and the index of an enum's variants. (IndexMap's own
/// equality ignores the order.)
impl PartialEq for Members {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.members.len() == other.members.len() && self.members.iter().eq(&other.members)
    }
}

impl Eq for Members {}

impl std::hash::Hash for Members {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        for (k, v) in &self.members {
            k.hash(state);
            v.hash(state);
        }
    }
}

impl Members {
    fn new<N: Into<Box<str>>, F: Into<Metadata>>(
        what: &str,
        name: impl Into<Box<str>>,
        members: impl IntoIterator<Item = (N, F)>,
    ) -> Result<Members> {
        // Sized from the members' count where the iterator knows it (a
        // list of fields does): the map's table and entries are then not
        // rebuilt as they fill, which on a wide struct cost about as much
        // as the inserts.
        let members = members.into_iter();
        let mut m = Members { name: name.into(), members: IndexMap::with_capacity(members.size_hint().0) };
        for (n, t) in members {
            m.push(what, n.into(), t.into())?;
        }
        Ok(m)
    }

    fn push(&mut self, what: &str, name: Box<str>, ty: Metadata) -> Result<()> {
        use indexmap::map::Entry;
        match self.members.entry(name) {
            Entry::Occupied(o) => {
                Err(Error::new(ErrorKind::DuplicateField, format!("{} has two {what}s named {:?}", self.name, o.key())))
            }
            Entry::Vacant(v) => {
                v.insert(ty);
                Ok(())
            }
        }
    }

    fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Metadata)> {
        self.members.iter().map(|(k, v)| (&**k, v))
    }

    fn get(&self, name: &str) -> Option<(usize, &Metadata)> {
        self.members.get_full(name).map(|(i, _, m)| (i, m))
    }

    fn get_index(&self, index: usize) -> Option<(&str, &Metadata)> {
        self.members.get_index(index).map(|(k, v)| (&**k, v))
    }
}

/// A struct's name and its fields in wire order; field names are unique.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct StructMetadata(Members);

impl StructMetadata {
    /// A struct type; fails with `duplicate-field` if two fields share a name.
    pub fn new<N, F>(name: impl Into<Box<str>>, fields: impl IntoIterator<Item = (N, F)>) -> Result<StructMetadata>
    where
        N: Into<Box<str>>,
        F: Into<Metadata>,
    {
        Members::new("field", name, fields).map(StructMetadata)
    }

    pub(crate) fn empty(name: impl Into<Box<str>>) -> StructMetadata {
        StructMetadata(Members { name: name.into(), members: IndexMap::new() })
    }

    pub(crate) fn with_capacity(name: Box<str>, n: usize) -> StructMetadata {
        StructMetadata(Members { name, members: IndexMap::with_capacity(n) })
    }

    /// Appends a field; fails with `duplicate-field` if the name is taken.
    pub(crate) fn push_field(&mut self, name: Box<str>, ty: Metadata) -> Result<()> {
        self.0.push("field", name, ty)
    }

    /// The struct's name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.0.members.len()
    }

    /// Whether the struct has no fields.
    pub fn is_empty(&self) -> bool {
        self.0.members.is_empty()
    }

    /// The fields, in wire order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = (&str, &Metadata)> {
        self.0.iter()
    }

    /// The position and type of the field with this name.
    pub fn field(&self, name: &str) -> Option<(usize, &Metadata)> {
        self.0.get(name)
    }

    /// The name and type of the field at this position.
    pub fn field_at(&self, index: usize) -> Option<(&str, &Metadata)> {
        self.0.get_index(index)
    }
}

/// XBF 2: an enum's name and its variants in wire order, each with a payload
/// type (`unit` for a variant without data); variant names are unique.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EnumMetadata(Members);

impl EnumMetadata {
    /// An enum type; fails with `duplicate-field` if two variants share a name.
    pub fn new<N, F>(name: impl Into<Box<str>>, variants: impl IntoIterator<Item = (N, F)>) -> Result<EnumMetadata>
    where
        N: Into<Box<str>>,
        F: Into<Metadata>,
    {
        Members::new("variant", name, variants).map(EnumMetadata)
    }

    pub(crate) fn with_capacity(name: Box<str>, n: usize) -> EnumMetadata {
        EnumMetadata(Members { name, members: IndexMap::with_capacity(n) })
    }

    pub(crate) fn push_variant(&mut self, name: Box<str>, ty: Metadata) -> Result<()> {
        self.0.push("variant", name, ty)
    }

    /// The enum's name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The number of variants.
    pub fn len(&self) -> usize {
        self.0.members.len()
    }

    /// Whether the enum has no variants (it then has no values).
    pub fn is_empty(&self) -> bool {
        self.0.members.is_empty()
    }

    /// The variants and their payload types, in wire order.
    pub fn variants(&self) -> impl ExactSizeIterator<Item = (&str, &Metadata)> {
        self.0.iter()
    }

    /// The index and payload type of the variant with this name.
    pub fn variant(&self, name: &str) -> Option<(usize, &Metadata)> {
        self.0.get(name)
    }

    /// The name and payload type of the variant at this index.
    pub fn variant_at(&self, index: usize) -> Option<(&str, &Metadata)> {
        self.0.get_index(index)
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// A name as written in declarations: bare if it is an identifier, quoted if not.
pub(crate) struct Name<'a>(pub(crate) &'a str);

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_identifier(self.0) {
            f.write_str(self.0)
        } else {
            write!(f, "{:?}", self.0)
        }
    }
}

impl Metadata {
    fn write_decl(&self, f: &mut fmt::Formatter<'_>, pretty: bool, indent: usize) -> fmt::Result {
        match self {
            Metadata::Primitive(p) => f.write_str(p.name()),
            Metadata::Any => f.write_str("any"),
            Metadata::Vec(elem) => {
                f.write_str("vec<")?;
                elem.write_decl(f, pretty, indent)?;
                f.write_str(">")
            }
            Metadata::Option(inner) => {
                f.write_str("option<")?;
                inner.write_decl(f, pretty, indent)?;
                f.write_str(">")
            }
            Metadata::Array(a) => {
                f.write_str("[")?;
                a.element.write_decl(f, pretty, indent)?;
                write!(f, "; {}]", a.len)
            }
            Metadata::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    t.write_decl(f, pretty, indent)?;
                }
                f.write_str(if ts.len() == 1 { ",)" } else { ")" })
            }
            Metadata::Map(m) => {
                f.write_str("map<")?;
                m.key.write_decl(f, pretty, indent)?;
                f.write_str(", ")?;
                m.value.write_decl(f, pretty, indent)?;
                f.write_str(">")
            }
            Metadata::Struct(s) => s.0.write_decl(f, "struct", pretty, indent),
            Metadata::Enum(e) => e.0.write_decl(f, "enum", pretty, indent),
        }
    }
}

impl Members {
    fn write_decl(&self, f: &mut fmt::Formatter<'_>, keyword: &str, pretty: bool, indent: usize) -> fmt::Result {
        write!(f, "{keyword} {} {{", Name(&self.name))?;
        if self.members.is_empty() {
            return f.write_str("}");
        }
        for (i, (name, ty)) in self.iter().enumerate() {
            if pretty {
                write!(f, "\n{:width$}{}", "", Name(name), width = (indent + 1) * 4)?;
            } else {
                write!(f, "{}{}", if i == 0 { " " } else { ", " }, Name(name))?;
            }
            // An enum variant without data is written bare, as in Rust.
            if keyword == "struct" || *ty != Metadata::UNIT {
                f.write_str(": ")?;
                ty.write_decl(f, pretty, indent + 1)?;
            }
            if pretty {
                f.write_str(",")?;
            }
        }
        if pretty {
            write!(f, "\n{:width$}}}", "", width = indent * 4)
        } else {
            f.write_str(" }")
        }
    }
}

/// A readable type declaration: `vec<struct Point { first: i8, last: i8 }>`;
/// with `{:#}`, one field a line, indented.
impl fmt::Display for Metadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_decl(f, f.alternate(), 0)
    }
}

impl fmt::Debug for Metadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Metadata({self})")
    }
}

impl fmt::Display for StructMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_decl(f, "struct", f.alternate(), 0)
    }
}

impl fmt::Debug for StructMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StructMetadata({self})")
    }
}

impl fmt::Display for EnumMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_decl(f, "enum", f.alternate(), 0)
    }
}

impl fmt::Debug for EnumMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EnumMetadata({self})")
    }
}

/// The metadata's bytes on the wire (SPEC.md §8, §12): a type's
/// discriminant, then what it holds. v1 writes lengths as fixed-width
/// integers (struct field counts as `u16`: the caller checked that they
/// fit), XBF 2 as varints.
impl Metadata {
    /// Appends the bytes of this type in v1 (`v2` false) or XBF 2.
    pub(crate) fn write_bytes(&self, v2: bool, out: &mut Vec<u8>) {
        // Functions always inlined rather than closures: `text`, called for
        // every member's name, was left out of line.
        #[inline(always)]
        fn len(v2: bool, n: usize, out: &mut Vec<u8>) {
            if v2 {
                // Names' and counts' lengths are mostly under 128: one byte,
                // without the 128-bit split of `varint::put`.
                if n < 0x80 {
                    out.push(n as u8);
                } else {
                    varint::put(out, n as u128);
                }
            } else {
                out.extend_from_slice(&(n as u64).to_le_bytes());
            }
        }
        #[inline(always)]
        fn text(v2: bool, s: &str, out: &mut Vec<u8>) {
            len(v2, s.len(), out);
            out.extend_from_slice(s.as_bytes());
        }
        out.push(self.discriminant());
        match self {
            Metadata::Primitive(_) | Metadata::Any => {}
            Metadata::Vec(t) | Metadata::Option(t) => t.write_bytes(v2, out),
            Metadata::Array(a) => {
                varint::put(out, u128::from(a.len));
                a.element.write_bytes(v2, out);
            }
            Metadata::Tuple(ts) => {
                len(v2, ts.len(), out);
                ts.iter().for_each(|t| t.write_bytes(v2, out));
            }
            Metadata::Map(m) => {
                m.key.write_bytes(v2, out);
                m.value.write_bytes(v2, out);
            }
            Metadata::Struct(s) => {
                // Room for the struct's names and a few bytes a field at
                // once (a wide struct's output grew by doubling, a copy each
                // time); a field's type of more bytes than that grows it.
                out.reserve(s.name().len() + 4 + s.fields().map(|(name, _)| name.len() + 3).sum::<usize>());
                text(v2, s.name(), out);
                if v2 {
                    len(v2, s.len(), out);
                } else {
                    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
                }
                for (name, t) in s.fields() {
                    text(v2, name, out);
                    t.write_member(v2, out);
                }
            }
            Metadata::Enum(e) => {
                text(v2, e.name(), out);
                len(v2, e.len(), out);
                for (name, t) in e.variants() {
                    text(v2, name, out);
                    t.write_member(v2, out);
                }
            }
        }
    }

    /// [`Metadata::write_bytes`] of a field's or variant's type: a
    /// primitive's (most fields') one byte written here, without the call.
    #[inline(always)]
    fn write_member(&self, v2: bool, out: &mut Vec<u8>) {
        match self {
            Metadata::Primitive(p) => out.push(p.discriminant()),
            _ => self.write_bytes(v2, out),
        }
    }

    /// The XBF 2 bytes of this type (what its fingerprint is taken over).
    pub(crate) fn bytes_v2(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_bytes(true, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discriminants_and_names() {
        for (i, p) in PrimitiveType::ALL.into_iter().take(17).enumerate() {
            assert_eq!(usize::from(p.discriminant()), i);
            assert!(p.is_v1());
        }
        for p in PrimitiveType::ALL {
            assert_eq!(PrimitiveType::from_discriminant(p.discriminant()), Some(p));
            assert_eq!(PrimitiveType::from_name(p.name()), Some(p));
        }
        assert_eq!(PrimitiveType::from_discriminant(17), None);
        assert_eq!(PrimitiveType::String.discriminant(), 16);
    }

    #[test]
    fn duplicate_fields_are_refused() {
        let err = StructMetadata::new("S", [("a", PrimitiveType::U8), ("a", PrimitiveType::U16)]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateField);
    }

    /// A wide struct made from a sized list (its map sized at once) keeps
    /// the fields in the order given, finds each by name, and still refuses
    /// a name met again at the end of the list, or once the iterator's
    /// count was outgrown (a `size_hint` of less than it yields).
    #[test]
    fn wide_structs_keep_order_and_refuse_duplicates() {
        let names: Vec<String> = (0..100).map(|i| format!("f{i}")).collect();
        let s = StructMetadata::new("W", names.iter().map(|n| (n.as_str(), PrimitiveType::U8))).unwrap();
        assert!(s.fields().map(|(n, _)| n).eq(names.iter().map(String::as_str)));
        assert_eq!(s.field("f57").map(|(i, _)| i), Some(57));
        assert_eq!(s.field_at(99).map(|(n, _)| n), Some("f99"));
        let again = names.iter().chain(std::iter::once(&names[3])).map(|n| (n.as_str(), PrimitiveType::U8));
        assert_eq!(StructMetadata::new("W", again).unwrap_err().kind(), ErrorKind::DuplicateField);
        let unknown = names.iter().filter(|_| true).map(|n| (n.as_str(), PrimitiveType::U8));
        assert_eq!(StructMetadata::new("W", unknown).unwrap().len(), 100);
    }

    /// The bytes as written before the one-byte lengths, the struct's room
    /// and the primitives written in line: every length through
    /// `varint::put` (XBF 2) or as a `u64` (v1), every type through one
    /// recursive function.
    fn reference_bytes(m: &Metadata, v2: bool, out: &mut Vec<u8>) {
        let len = |n: usize, out: &mut Vec<u8>| {
            if v2 {
                varint::put(out, n as u128);
            } else {
                out.extend_from_slice(&(n as u64).to_le_bytes());
            }
        };
        out.push(m.discriminant());
        match m {
            Metadata::Primitive(_) | Metadata::Any => {}
            Metadata::Vec(t) | Metadata::Option(t) => reference_bytes(t, v2, out),
            Metadata::Array(a) => {
                varint::put(out, u128::from(a.len));
                reference_bytes(&a.element, v2, out);
            }
            Metadata::Tuple(ts) => {
                len(ts.len(), out);
                ts.iter().for_each(|t| reference_bytes(t, v2, out));
            }
            Metadata::Map(m) => {
                reference_bytes(&m.key, v2, out);
                reference_bytes(&m.value, v2, out);
            }
            Metadata::Struct(s) => {
                len(s.name().len(), out);
                out.extend_from_slice(s.name().as_bytes());
                if v2 {
                    len(s.len(), out);
                } else {
                    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
                }
                for (name, t) in s.fields() {
                    len(name.len(), out);
                    out.extend_from_slice(name.as_bytes());
                    reference_bytes(t, v2, out);
                }
            }
            Metadata::Enum(e) => {
                len(e.name().len(), out);
                out.extend_from_slice(e.name().as_bytes());
                len(e.len(), out);
                for (name, t) in e.variants() {
                    len(name.len(), out);
                    out.extend_from_slice(name.as_bytes());
                    reference_bytes(t, v2, out);
                }
            }
        }
    }

    /// Names and counts on both sides of a varint's one byte (127, 128,
    /// 300 bytes; 127 and 128 fields), fields of every kind of type
    /// (primitives written in line, nested structs, enums, vecs, maps), in
    /// both versions where v1 has them: the bytes of the reference above.
    #[test]
    fn write_bytes_as_the_reference() {
        let name = |n: usize, c: char| std::iter::repeat(c).take(n).collect::<String>();
        let inner = Metadata::from(StructMetadata::new(name(128, 'i'), [("x", PrimitiveType::F64)]).unwrap());
        let variants = [(name(127, 'a'), Metadata::from(PrimitiveType::Unit)), (name(300, 'b'), inner.clone())];
        let en = Metadata::from(EnumMetadata::new("E", variants).unwrap());
        let map = Metadata::Map(Arc::new(MapMetadata { key: PrimitiveType::String.into(), value: inner.clone() }));
        let kinds = [
            Metadata::from(PrimitiveType::U8),
            PrimitiveType::String.into(),
            Metadata::vec(inner.clone()),
            Metadata::option(PrimitiveType::I64.into()),
            inner.clone(),
            en,
            map,
            Metadata::Any,
        ];
        for fields in [0usize, 1, 5, 127, 128, 200] {
            for name_len in [0usize, 1, 127, 128, 300] {
                let fs = (0..fields).map(|f| (format!("{}{f}", name(name_len, 'f')), kinds[f % kinds.len()].clone()));
                let m = Metadata::from(StructMetadata::new(name(name_len, 'S'), fs).unwrap());
                let (mut got, mut want) = (Vec::new(), Vec::new());
                m.write_bytes(true, &mut got);
                reference_bytes(&m, true, &mut want);
                assert_eq!(got, want, "{fields} fields, names of {name_len} bytes");
                // v1: structs of primitives and vecs only.
                let fs = (0..fields).map(|f| (format!("{}{f}", name(name_len, 'f')), kinds[f % 3].clone()));
                let m = Metadata::from(StructMetadata::new(name(name_len, 'S'), fs).unwrap());
                let (mut got, mut want) = (Vec::new(), Vec::new());
                m.write_bytes(false, &mut got);
                reference_bytes(&m, false, &mut want);
                assert_eq!(got, want, "v1, {fields} fields, names of {name_len} bytes");
            }
        }
    }

    #[test]
    fn display_declarations() {
        let inner = StructMetadata::new("Inner", [("x", PrimitiveType::F64)]).unwrap();
        let outer = StructMetadata::new(
            "Outer",
            [
                ("name", Metadata::from(PrimitiveType::String)),
                ("items", Metadata::vec(inner.into())),
                ("odd name", PrimitiveType::Bool.into()),
            ],
        )
        .unwrap();
        let m = Metadata::from(outer);
        assert_eq!(
            m.to_string(),
            "struct Outer { name: string, items: vec<struct Inner { x: f64 }>, \"odd name\": bool }"
        );
        assert_eq!(
            format!("{m:#}"),
            "struct Outer {\n    name: string,\n    items: vec<struct Inner {\n        x: f64,\n    }>,\n    \"odd name\": bool,\n}"
        );
        let empty = Metadata::from(StructMetadata::new::<&str, Metadata>("", []).unwrap());
        assert_eq!(empty.to_string(), "struct \"\" {}");
    }

    #[test]
    fn depth_and_min_size() {
        let e = Metadata::from(StructMetadata::new::<&str, Metadata>("E", []).unwrap());
        assert_eq!(e.min_size_v1(), 0);
        assert_eq!(e.depth(), 1);
        let v = Metadata::vec(Metadata::vec(PrimitiveType::U8.into()));
        assert_eq!(v.depth(), 2);
        assert_eq!(v.min_size_v1(), 8);
        let s = StructMetadata::new("S", [("a", PrimitiveType::U128), ("b", PrimitiveType::String)]).unwrap();
        assert_eq!(Metadata::from(s).min_size_v1(), 24);
    }
}
