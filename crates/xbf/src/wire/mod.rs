//! The wire layer: the bytes every XBF reader and writer agrees on, and
//! nothing else. Header marker and flags, the discriminants of composite
//! types, column encoding ids, canonical LEB128 varints and zigzag, and one
//! bounds-checked byte cursor.
//!
//! This module is a leaf: it uses only `crate::error` (which uses only
//! `std`), so every decoder and encoder above it (the `Value`, serde and
//! derive paths, rows and columns, the Python binding, the CLI's `inspect`)
//! can share it without an import cycle. A change to the varint rules or to
//! a byte's meaning goes here, and only here; fast paths elsewhere may
//! pre-check the common case but fall through to these routines for
//! anything unusual, so that errors come from one place.

pub(crate) mod cursor;
mod encoding;
pub mod varint;

pub use cursor::Cursor;
pub use encoding::ColumnEncoding;

/// A version of the wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Version {
    /// The XBF paper's format: fixed-width integers, u64 lengths.
    V1,
    /// XBF 2: varints, the types real data needs, schemas by reference.
    V2,
}

/// The first byte of an XBF 2 message: `0xC0 | version`.
pub const V2_MARKER: u8 = 0xC2;
/// Header flag: an 8-byte schema fingerprint replaces the metadata.
pub const FLAG_SCHEMA_REF: u8 = 0x01;
/// Header flag: columnar layout (SPEC.md §22).
pub const FLAG_COLUMNAR: u8 = 0x02;
/// Header flag: a record stream follows.
pub const FLAG_STREAM: u8 = 0x04;
/// Header flag: stream blocks carry a CRC-32C.
pub const FLAG_CHECKSUM: u8 = 0x08;
/// Every header flag this crate knows.
pub const KNOWN_FLAGS: u8 = FLAG_SCHEMA_REF | FLAG_COLUMNAR | FLAG_STREAM | FLAG_CHECKSUM;

/// The discriminant byte of a composite type's metadata. (Primitive types
/// are [`PrimitiveType`](crate::PrimitiveType), whose discriminants are its
/// `u8` values.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Discriminant {
    /// A vec: its element type follows.
    Vec = 0x11,
    /// A struct: name, then fields.
    Struct = 0x12,
    /// XBF 2: an option of the type that follows.
    Option = 0x14,
    /// XBF 2: a fixed-size array: length, then element type.
    Array = 0x15,
    /// XBF 2: a tuple: count, then the types.
    Tuple = 0x16,
    /// XBF 2: a map: key type, then value type.
    Map = 0x17,
    /// XBF 2: an enum: name, then variants.
    Enum = 0x18,
    /// XBF 2: `any`, a value that carries its own type.
    Any = 0x19,
}

impl Discriminant {
    /// The composite type whose discriminant is `byte`, in XBF 2 (`v2`) or v1.
    #[inline]
    pub const fn from_byte(byte: u8, v2: bool) -> Option<Discriminant> {
        use Discriminant::*;
        match byte {
            0x11 => Some(Vec),
            0x12 => Some(Struct),
            0x14 if v2 => Some(Option),
            0x15 if v2 => Some(Array),
            0x16 if v2 => Some(Tuple),
            0x17 if v2 => Some(Map),
            0x18 if v2 => Some(Enum),
            0x19 if v2 => Some(Any),
            _ => None,
        }
    }

    /// The byte on the wire.
    #[inline]
    pub const fn byte(self) -> u8 {
        self as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discriminants_round_trip_and_v1_knows_two() {
        use Discriminant::*;
        for d in [Vec, Struct, Option, Array, Tuple, Map, Enum, Any] {
            assert_eq!(Discriminant::from_byte(d.byte(), true), Some(d));
        }
        let v1: std::vec::Vec<_> = (0..=255).filter_map(|b| Discriminant::from_byte(b, false)).collect();
        assert_eq!(v1, [Vec, Struct]);
        assert_eq!(Discriminant::from_byte(0x13, true), None);
    }
}
