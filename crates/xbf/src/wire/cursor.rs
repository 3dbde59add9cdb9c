//! One cursor over bytes in memory, with one set of bounds checks: every
//! reader of a slice (rows, columns, file footers) takes its bytes through
//! it, so "needs N bytes" is checked and worded in one place.

use crate::error::{Error, ErrorKind, Result};

use super::varint;

/// A position in a byte slice whose reads are checked against what
/// remains. Offsets in errors count from `base`, the offset of the slice's
/// first byte in the message.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
}

/// `truncated`: `need` bytes asked for at `offset`, `have` left.
#[cold]
#[inline(never)]
pub(crate) fn truncated(offset: u64, need: impl std::fmt::Display, have: u64) -> Error {
    Error::at(ErrorKind::Truncated, offset, format!("needs {need} bytes, {have} remain"))
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`, which start the message.
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0, base: 0 }
    }

    /// A cursor at the start of `bytes`, which start at message offset `base`.
    #[inline]
    pub fn with_base(bytes: &'a [u8], base: u64) -> Self {
        Cursor { bytes, pos: 0, base }
    }

    /// The message offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// How far into its slice the cursor is.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> u64 {
        (self.bytes.len() - self.pos) as u64
    }

    /// Whether every byte was read.
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    /// The next byte, not consumed.
    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The bytes not yet consumed.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }

    /// The bytes from slice position `from` to the current one.
    #[inline]
    pub fn since(&self, from: usize) -> &'a [u8] {
        &self.bytes[from.min(self.pos)..self.pos]
    }

    /// Consumes `n` bytes of [`rest`](Self::rest), `n` at most its length
    /// (a fast path that has checked them already).
    #[inline]
    pub fn advance(&mut self, n: usize) {
        debug_assert!(n <= self.bytes.len() - self.pos);
        self.pos += n;
    }

    /// Moves to slice position `pos` (at most the slice's end).
    #[inline]
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.bytes.len());
    }

    /// The next byte.
    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(truncated(self.offset(), 1, 0)),
        }
    }

    /// The next `N` bytes.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        Ok(s.try_into().expect("take returns N bytes"))
    }

    /// The next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let rest = &self.bytes[self.pos..];
        if n > rest.len() {
            return Err(truncated(self.offset(), n, rest.len() as u64));
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    /// The next `n` bytes, where `n` is any claim an input makes.
    #[inline]
    pub fn take_claim(&mut self, n: u128) -> Result<&'a [u8]> {
        match usize::try_from(n) {
            Ok(k) if k <= self.bytes.len() - self.pos => self.take(k),
            _ => Err(truncated(self.offset(), n, self.remaining())),
        }
    }

    /// Fails with `truncated` at `at` unless `n` items of `min` bytes fit in
    /// what remains (checked before anything is allocated for them).
    pub fn check_fits(&self, at: u64, n: u64, min: u64) -> Result<()> {
        if n.saturating_mul(min) > self.remaining() {
            return Err(Error::at(
                ErrorKind::Truncated,
                at,
                format!("{n} items of at least {min} bytes do not fit in the {} bytes that remain", self.remaining()),
            ));
        }
        Ok(())
    }

    /// A canonical varint of at most `bits` bits ([`varint::decode`]);
    /// errors are at the varint's first byte.
    #[inline]
    pub fn varint(&mut self, bits: u32) -> Result<u128> {
        // Most varints (lengths, ids, small values) are one byte.
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 && (bits >= 8 || b >> bits == 0) {
                self.pos += 1;
                return Ok(u128::from(b));
            }
        }
        self.varint_long(bits)
    }

    fn varint_long(&mut self, bits: u32) -> Result<u128> {
        match varint::decode(self.rest(), bits) {
            Ok((x, n)) => {
                self.pos += n;
                Ok(x)
            }
            Err(fault) => Err(fault.at(self.offset())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-byte shortcut of `varint` gives what the full routine gives,
    /// values and errors alike, for every first byte and width.
    #[test]
    fn one_byte_varints_read_as_the_full_routine_reads_them() {
        for bits in [1, 2, 7, 8, 16, 32, 64, 128] {
            for first in 0..=255u8 {
                for input in [vec![first], vec![first, 0x01], vec![first, 0x00]] {
                    let (mut a, mut b) = (Cursor::with_base(&input, 5), Cursor::with_base(&input, 5));
                    let (x, y) = (a.varint(bits), b.varint_long(bits));
                    match (x, y) {
                        (Ok(x), Ok(y)) => assert_eq!((x, a.position()), (y, b.position()), "{input:?} at {bits} bits"),
                        (Err(x), Err(y)) => {
                            assert_eq!((x.kind(), x.offset(), x.detail()), (y.kind(), y.offset(), y.detail()))
                        }
                        (x, y) => panic!("{input:?} at {bits} bits: {x:?} against {y:?}"),
                    }
                }
            }
        }
        // Nothing to read: truncated at the cursor.
        let e = Cursor::with_base(&[], 9).varint(64).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(9)));
    }

    #[test]
    fn reads_past_the_end_say_what_they_needed() {
        let mut c = Cursor::with_base(&[1, 2, 3], 10);
        assert_eq!(c.take(2).unwrap(), [1, 2]);
        let e = c.take(2).unwrap_err();
        assert_eq!((e.kind(), e.offset(), e.detail()), (ErrorKind::Truncated, Some(12), "needs 2 bytes, 1 remain"));
        let e = c.take_claim(u128::MAX).unwrap_err();
        assert_eq!(e.detail(), format!("needs {} bytes, 1 remain", u128::MAX));
        assert_eq!(c.array::<1>().unwrap(), [3]);
        assert!(c.at_end());
        assert_eq!(c.u8().unwrap_err().detail(), "needs 1 bytes, 0 remain");
    }
}
