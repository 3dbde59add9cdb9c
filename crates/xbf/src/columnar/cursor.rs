//! A cursor over a columnar message's bytes: offsets count from the start
//! of the message, and every read is checked against what remains.

use crate::error::{Error, ErrorKind, Result};

#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The message offset of `bytes[0]`.
    base: u64,
    /// Report `base` as every offset (for bytes that were decompressed).
    fixed: bool,
    /// The bytes are a block of an XBF file, where the file-only integer
    /// encodings (SPEC.md §22.2: `04`, `05`) may stand; in a message they are
    /// unknown, as to every reader that implements messages alone.
    file: bool,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8], base: u64) -> Self {
        Cursor { bytes, pos: 0, base, fixed: false, file: false }
    }

    /// The same cursor, reporting its base as every offset.
    pub(crate) fn fixed(mut self) -> Self {
        self.fixed = true;
        self
    }

    /// The same cursor, over a block of an XBF file.
    pub(crate) fn in_file(mut self) -> Self {
        self.file = true;
        self
    }

    /// Whether the bytes are a block of an XBF file.
    pub(crate) fn is_file(&self) -> bool {
        self.file
    }

    pub(crate) fn offset(&self) -> u64 {
        if self.fixed {
            self.base
        } else {
            self.base + self.pos as u64
        }
    }

    /// How far into its bytes the cursor is.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> u64 {
        (self.bytes.len() - self.pos) as u64
    }

    /// The next byte without reading it (0 at the end): a column's encoding.
    pub(crate) fn clone_first_byte(&self) -> u8 {
        self.bytes.get(self.pos).copied().unwrap_or(0)
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    /// An error about a column whose bytes contradict themselves.
    pub(crate) fn invalid(&self, at: u64, detail: String) -> Error {
        Error::at(ErrorKind::InvalidColumn, at, detail)
    }

    pub(crate) fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.bytes.len() - self.pos {
            return Err(Error::at(
                ErrorKind::Truncated,
                self.offset(),
                format!("needs {n} bytes, {} remain", self.remaining()),
            ));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// `n` bytes, where `n` may be any claim.
    pub(crate) fn take_checked(&mut self, n: u128) -> Result<&'a [u8]> {
        match usize::try_from(n) {
            Ok(n) if n <= self.bytes.len() - self.pos => self.take(n),
            _ => Err(Error::at(
                ErrorKind::Truncated,
                self.offset(),
                format!("needs {n} bytes, {} remain", self.remaining()),
            )),
        }
    }

    /// Fails with `truncated` at `at` unless `n` items of `min` bytes fit.
    pub(crate) fn check_fits(&self, at: u64, n: u64, min: u64) -> Result<()> {
        if n.saturating_mul(min) > self.remaining() {
            return Err(Error::at(
                ErrorKind::Truncated,
                at,
                format!("{n} items of at least {min} bytes do not fit in the {} bytes that remain", self.remaining()),
            ));
        }
        Ok(())
    }

    /// A canonical LEB128 varint of at most `bits` bits.
    #[inline]
    pub(crate) fn varint(&mut self, bits: u32) -> Result<u128> {
        // Most varints in columns (lengths, ids, small values) are one byte.
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 && (bits >= 8 || b >> bits == 0) {
                self.pos += 1;
                return Ok(u128::from(b));
            }
        }
        self.varint_long(bits)
    }

    fn varint_long(&mut self, bits: u32) -> Result<u128> {
        let start = self.offset();
        let mut x: u128 = 0;
        let mut shift = 0u32;
        loop {
            let b = self.u8().map_err(|_| Error::at(ErrorKind::Truncated, start, "the input ends inside a varint"))?;
            let low = u128::from(b & 0x7f);
            if shift + 7 > bits && low >> (bits - shift) != 0 {
                return Err(Error::at(ErrorKind::InvalidVarint, start, format!("does not fit in {bits} bits")));
            }
            x |= low << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    return Err(Error::at(ErrorKind::InvalidVarint, start, "overlong: it ends with a zero byte"));
                }
                return Ok(x);
            }
            shift += 7;
            if shift >= bits {
                return Err(Error::at(
                    ErrorKind::InvalidVarint,
                    start,
                    format!("longer than a {bits}-bit varint can be"),
                ));
            }
        }
    }

    /// A length-prefixed block: its varint length, then a cursor over it.
    pub(crate) fn block(&mut self) -> Result<Cursor<'a>> {
        let at = self.offset();
        let len = self.varint(64)?;
        let body_at = self.offset();
        let body = self.take_checked(len).map_err(|e| Error::at(ErrorKind::Truncated, at, e.detail()))?;
        let inner = Cursor { file: self.file, ..Cursor::new(body, body_at) };
        Ok(if self.fixed { inner.fixed() } else { inner })
    }

    /// Fails unless the block was read to its end (a column whose declared
    /// length disagrees with its data).
    pub(crate) fn finish(&self, what: &str) -> Result<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.invalid(self.offset(), format!("{} bytes of the {what} are left over", self.remaining())))
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
                    let (mut a, mut b) = (Cursor::new(&input, 5), Cursor::new(&input, 5));
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
        let e = Cursor::new(&[], 9).varint(64).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(9)));
    }
}
