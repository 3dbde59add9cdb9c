//! A cursor over a columnar message's bytes: [`wire::Cursor`] (offsets from
//! the start of the message, every read checked against what remains), plus
//! what only columns need: offsets pinned to one byte for decompressed
//! bytes, and whether the bytes are a block of an XBF file.

use std::ops::{Deref, DerefMut};

use crate::error::{Error, ErrorKind, Result};
use crate::wire;

#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    c: wire::Cursor<'a>,
    /// Report `c`'s base as every offset (for bytes that were decompressed).
    fixed: bool,
    /// The bytes are a block of an XBF file, where the file-only integer
    /// encodings (SPEC.md §22.2: `04`, `05`) may stand; in a message they are
    /// unknown, as to every reader that implements messages alone.
    file: bool,
}

/// Reads, bounds checks and varints are the wire cursor's; only errors of
/// a fixed cursor are moved (see [`Cursor::fix`]).
impl<'a> Deref for Cursor<'a> {
    type Target = wire::Cursor<'a>;
    fn deref(&self) -> &wire::Cursor<'a> {
        &self.c
    }
}

impl DerefMut for Cursor<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.c
    }
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8], base: u64) -> Self {
        Cursor { c: wire::Cursor::with_base(bytes, base), fixed: false, file: false }
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

    /// The offset where the next byte is reported to be.
    pub(crate) fn offset(&self) -> u64 {
        if self.fixed {
            self.c.offset() - self.c.position() as u64
        } else {
            self.c.offset()
        }
    }

    /// The offset reported for the byte `n` bytes after the next one.
    pub(crate) fn offset_ahead(&self, n: usize) -> u64 {
        if self.fixed {
            self.offset()
        } else {
            self.c.offset() + n as u64
        }
    }

    /// An error of the wire cursor, at the offset this cursor reports.
    fn fix(&self, e: Error) -> Error {
        if self.fixed {
            Error::at(e.kind(), self.offset(), e.detail())
        } else {
            e
        }
    }

    /// The next byte without reading it (0 at the end): a column's encoding.
    pub(crate) fn clone_first_byte(&self) -> u8 {
        self.c.peek().unwrap_or(0)
    }

    /// An error about a column whose bytes contradict themselves.
    pub(crate) fn invalid(&self, at: u64, detail: String) -> Error {
        Error::at(ErrorKind::InvalidColumn, at, detail)
    }

    pub(crate) fn u8(&mut self) -> Result<u8> {
        self.c.u8().map_err(|e| self.fix(e))
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        self.c.take(n).map_err(|e| self.fix(e))
    }

    /// `n` bytes, where `n` may be any claim.
    pub(crate) fn take_checked(&mut self, n: u128) -> Result<&'a [u8]> {
        self.c.take_claim(n).map_err(|e| self.fix(e))
    }

    /// A canonical LEB128 varint of at most `bits` bits.
    #[inline]
    pub(crate) fn varint(&mut self, bits: u32) -> Result<u128> {
        match self.c.varint(bits) {
            Ok(x) => Ok(x),
            Err(e) => Err(self.fix(e)),
        }
    }

    /// A length-prefixed block: its varint length, then a cursor over it.
    pub(crate) fn block(&mut self) -> Result<Cursor<'a>> {
        let at = self.offset();
        let len = self.varint(64)?;
        let body_at = self.offset();
        let body = self.take_checked(len).map_err(|e| Error::at(ErrorKind::Truncated, at, e.detail()))?;
        Ok(Cursor { c: wire::Cursor::with_base(body, body_at), fixed: self.fixed, file: self.file })
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

    #[test]
    fn a_fixed_cursor_reports_its_base() {
        let mut c = Cursor::new(&[0x80, 0x80], 40).fixed();
        assert_eq!(c.u8().unwrap(), 0x80);
        assert_eq!(c.offset(), 40);
        let e = c.varint(64).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(40)));
        let e = c.take(3).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(40)));
        let mut inner = Cursor::new(&[2, 7, 8, 9], 40).fixed();
        let mut b = inner.block().unwrap();
        assert_eq!((b.offset(), b.u8().unwrap(), b.offset()), (40, 7, 40));
    }
}
