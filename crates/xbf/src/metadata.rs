//! The type tree that an XBF message carries before its value.

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::error::{Error, ErrorKind, Result};

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
}

/// The discriminant of a vec's metadata.
pub const VEC_DISCRIMINANT: u8 = 17;
/// The discriminant of a struct's metadata.
pub const STRUCT_DISCRIMINANT: u8 = 18;

impl PrimitiveType {
    /// All primitives, in discriminant order.
    pub const ALL: [PrimitiveType; 17] = [
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
    ];

    /// The one-byte wire discriminant.
    pub const fn discriminant(self) -> u8 {
        self as u8
    }

    /// The primitive with this discriminant, if it is one (0 to 16).
    pub fn from_discriminant(d: u8) -> Option<PrimitiveType> {
        PrimitiveType::ALL.get(usize::from(d)).copied()
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
        }
    }

    /// The primitive with this type word.
    pub fn from_name(name: &str) -> Option<PrimitiveType> {
        PrimitiveType::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The size of a value on the wire, or `None` for bytes and string,
    /// whose size depends on the value.
    pub const fn fixed_size(self) -> Option<usize> {
        match self {
            PrimitiveType::Bool | PrimitiveType::U8 | PrimitiveType::I8 => Some(1),
            PrimitiveType::U16 | PrimitiveType::I16 => Some(2),
            PrimitiveType::U32 | PrimitiveType::I32 | PrimitiveType::F32 => Some(4),
            PrimitiveType::U64 | PrimitiveType::I64 | PrimitiveType::F64 => Some(8),
            PrimitiveType::U128 | PrimitiveType::I128 => Some(16),
            PrimitiveType::U256 | PrimitiveType::I256 => Some(32),
            PrimitiveType::Bytes | PrimitiveType::String => None,
        }
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The metadata (type) of an XBF value: a primitive, a vec of one element
/// type, or a named struct with named, typed fields.
///
/// Cloning is cheap: vec and struct metadata are shared behind [`Arc`], so
/// the values of a decoded vec all point at one copy of their type.
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
    /// One of the 17 primitive types.
    Primitive(PrimitiveType),
    /// A homogeneous list; the element type.
    Vec(Arc<Metadata>),
    /// A named struct.
    Struct(Arc<StructMetadata>),
}

impl Metadata {
    /// The metadata of a vec whose elements are of type `element`.
    pub fn vec(element: Metadata) -> Metadata {
        Metadata::Vec(Arc::new(element))
    }

    /// The wire discriminant that opens this metadata.
    pub fn discriminant(&self) -> u8 {
        match self {
            Metadata::Primitive(p) => p.discriminant(),
            Metadata::Vec(_) => VEC_DISCRIMINANT,
            Metadata::Struct(_) => STRUCT_DISCRIMINANT,
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

    /// Levels of vec and struct nesting: 0 for a primitive, 1 for `vec<u8>`.
    pub fn depth(&self) -> usize {
        match self {
            Metadata::Primitive(_) => 0,
            Metadata::Vec(elem) => 1 + elem.depth(),
            Metadata::Struct(s) => 1 + s.fields().map(|(_, m)| m.depth()).max().unwrap_or(0),
        }
    }

    /// The fewest bytes a v1 value of this type can take (0 for structs whose
    /// fields all take none, such as the empty struct).
    pub fn min_size_v1(&self) -> u64 {
        match self {
            Metadata::Primitive(p) => p.fixed_size().unwrap_or(8) as u64,
            Metadata::Vec(_) => 8,
            Metadata::Struct(s) => s
                .fields()
                .map(|(_, m)| m.min_size_v1())
                .fold(0u64, u64::saturating_add),
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

/// A struct's name and its fields in wire order; field names are unique.
#[derive(Clone, PartialEq, Eq)]
pub struct StructMetadata {
    name: Box<str>,
    fields: IndexMap<Box<str>, Metadata>,
}

impl std::hash::Hash for StructMetadata {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        for (k, v) in &self.fields {
            k.hash(state);
            v.hash(state);
        }
    }
}

impl StructMetadata {
    /// A struct type; fails with `duplicate-field` if two fields share a name.
    pub fn new<N, F>(
        name: impl Into<Box<str>>,
        fields: impl IntoIterator<Item = (N, F)>,
    ) -> Result<StructMetadata>
    where
        N: Into<Box<str>>,
        F: Into<Metadata>,
    {
        let mut s = StructMetadata::empty(name);
        for (n, m) in fields {
            s.push_field(n.into(), m.into())?;
        }
        Ok(s)
    }

    pub(crate) fn empty(name: impl Into<Box<str>>) -> StructMetadata {
        StructMetadata {
            name: name.into(),
            fields: IndexMap::new(),
        }
    }

    pub(crate) fn with_capacity(name: Box<str>, n: usize) -> StructMetadata {
        StructMetadata {
            name,
            fields: IndexMap::with_capacity(n),
        }
    }

    /// Appends a field; fails with `duplicate-field` if the name is taken.
    pub(crate) fn push_field(&mut self, name: Box<str>, ty: Metadata) -> Result<()> {
        use indexmap::map::Entry;
        match self.fields.entry(name) {
            Entry::Occupied(o) => Err(Error::new(
                ErrorKind::DuplicateField,
                format!("struct {} has two fields named {:?}", self.name, o.key()),
            )),
            Entry::Vacant(v) => {
                v.insert(ty);
                Ok(())
            }
        }
    }

    /// The struct's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether the struct has no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The fields, in wire order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = (&str, &Metadata)> {
        self.fields.iter().map(|(k, v)| (&**k, v))
    }

    /// The position and type of the field with this name.
    pub fn field(&self, name: &str) -> Option<(usize, &Metadata)> {
        self.fields.get_full(name).map(|(i, _, m)| (i, m))
    }

    /// The name and type of the field at this position.
    pub fn field_at(&self, index: usize) -> Option<(&str, &Metadata)> {
        self.fields.get_index(index).map(|(k, v)| (&**k, v))
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

struct Name<'a>(&'a str);

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
            Metadata::Vec(elem) => {
                f.write_str("vec<")?;
                elem.write_decl(f, pretty, indent)?;
                f.write_str(">")
            }
            Metadata::Struct(s) => s.write_decl(f, pretty, indent),
        }
    }
}

impl StructMetadata {
    fn write_decl(&self, f: &mut fmt::Formatter<'_>, pretty: bool, indent: usize) -> fmt::Result {
        write!(f, "struct {} {{", Name(&self.name))?;
        if self.fields.is_empty() {
            return f.write_str("}");
        }
        for (i, (name, ty)) in self.fields().enumerate() {
            if pretty {
                write!(
                    f,
                    "\n{:width$}{}: ",
                    "",
                    Name(name),
                    width = (indent + 1) * 4
                )?;
            } else {
                write!(f, "{}{}: ", if i == 0 { " " } else { ", " }, Name(name))?;
            }
            ty.write_decl(f, pretty, indent + 1)?;
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
        self.write_decl(f, f.alternate(), 0)
    }
}

impl fmt::Debug for StructMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StructMetadata({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discriminants_and_names() {
        for (i, p) in PrimitiveType::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(p.discriminant()), i);
            assert_eq!(PrimitiveType::from_discriminant(p.discriminant()), Some(p));
            assert_eq!(PrimitiveType::from_name(p.name()), Some(p));
        }
        assert_eq!(PrimitiveType::from_discriminant(17), None);
        assert_eq!(PrimitiveType::String.discriminant(), 16);
    }

    #[test]
    fn duplicate_fields_are_refused() {
        let err = StructMetadata::new("S", [("a", PrimitiveType::U8), ("a", PrimitiveType::U16)])
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateField);
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
        let s = StructMetadata::new(
            "S",
            [("a", PrimitiveType::U128), ("b", PrimitiveType::String)],
        )
        .unwrap();
        assert_eq!(Metadata::from(s).min_size_v1(), 24);
    }
}
