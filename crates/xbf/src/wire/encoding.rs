//! Column encoding ids (SPEC.md §22.2): the first byte of every column.

use std::fmt;

/// How a column of a columnar message is written: its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[non_exhaustive]
pub enum ColumnEncoding {
    /// Integers: one varint each.
    Varint = 0,
    /// Integers: a minimum and the differences from it, bit-packed.
    FrameOfReference = 1,
    /// Integers: the first value and the zigzagged differences of
    /// neighbours, bit-packed.
    Delta = 2,
    /// Integers: (count, value) runs.
    RunLength = 3,
    /// Integers, in a block of an XBF file only: canonical Huffman codes.
    Entropy = 4,
    /// Integers, in a block of an XBF file only: runs of run-length and
    /// literal groups.
    Runs = 5,
    /// 256-bit integers: 32 bytes each.
    Plain256 = 8,
    /// Floats: their IEEE bytes.
    PlainFloat = 16,
    /// Floats: integer counts of 10^-e, with exceptions.
    Decimal = 17,
    /// Floats: a dictionary of distinct values and an index column.
    FloatDictionary = 18,
    /// Floats: each XORed with the one before (Gorilla).
    XorFloat = 19,
    /// Strings and bytes: lengths, then the bytes.
    PlainStrings = 32,
    /// Strings and bytes: a dictionary of distinct values and an index column.
    Dictionary = 33,
    /// Strings and bytes: shared-prefix lengths and suffixes.
    Prefix = 34,
    /// Strings and bytes, in a block of an XBF file only: an FSST symbol
    /// table, the lengths, then the values' bytes as codes.
    Fsst = 35,
    /// The column of types of an `any` node.
    Types = 48,
    /// Any column, compressed with zstd: the raw body's length, then a
    /// zstd frame of it.
    Zstd = 0x80,
}

impl ColumnEncoding {
    /// The encoding whose id is `byte`, if one is.
    pub const fn from_byte(byte: u8) -> Option<ColumnEncoding> {
        use ColumnEncoding::*;
        Some(match byte {
            0 => Varint,
            1 => FrameOfReference,
            2 => Delta,
            3 => RunLength,
            4 => Entropy,
            5 => Runs,
            8 => Plain256,
            16 => PlainFloat,
            17 => Decimal,
            18 => FloatDictionary,
            19 => XorFloat,
            32 => PlainStrings,
            33 => Dictionary,
            34 => Prefix,
            35 => Fsst,
            48 => Types,
            0x80 => Zstd,
            _ => return None,
        })
    }

    /// The id on the wire.
    #[inline]
    pub const fn byte(self) -> u8 {
        self as u8
    }

    /// Its name in `xbf stats` and [`ColumnStats`](crate::ColumnStats).
    pub const fn name(self) -> &'static str {
        use ColumnEncoding::*;
        match self {
            Varint => "varint",
            FrameOfReference => "frame-of-reference",
            Delta => "delta",
            RunLength => "run-length",
            Entropy => "entropy",
            Runs => "runs",
            Plain256 => "plain-256",
            PlainFloat => "plain-float",
            Decimal => "decimal",
            FloatDictionary => "float-dictionary",
            XorFloat => "xor-float",
            PlainStrings => "plain-strings",
            Dictionary => "dictionary",
            Prefix => "prefix",
            Fsst => "fsst",
            Types => "types",
            Zstd => "zstd",
        }
    }
}

impl fmt::Display for ColumnEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        let known: Vec<ColumnEncoding> = (0..=255).filter_map(ColumnEncoding::from_byte).collect();
        assert_eq!(known.len(), 17);
        for e in known {
            assert_eq!(ColumnEncoding::from_byte(e.byte()), Some(e));
            assert_eq!(format!("{e:<12}|"), format!("{:<12}|", e.name()));
        }
    }
}
