//! Where the decoder's bytes come from: a slice, whose length bounds every
//! claim a message makes, or an `io::Read`, which is read only as far as the
//! bytes really arrive.

use std::io::{self, Read};

use crate::error::{Error, Result};
use crate::wire::varint::{Fault, Partial};
use crate::wire::{self, Cursor};

/// A byte source for the decoder. Every read reports errors at the offset
/// where the item that failed began.
pub(crate) trait Input {
    /// Bytes consumed so far.
    fn offset(&self) -> u64;
    /// Bytes known to remain (`None` when reading a stream).
    fn remaining(&self) -> Option<u64>;
    /// Exactly `N` bytes.
    fn array<const N: usize>(&mut self) -> Result<[u8; N]>;
    /// Exactly `len` bytes, allocated only as far as the input holds them.
    fn bytes(&mut self, len: u64) -> Result<Vec<u8>>;
    /// Whether the input is exhausted; reads at most one byte from a stream.
    fn at_end(&mut self) -> Result<bool>;
    /// The next byte, or `None` at the end of the input.
    fn next_byte(&mut self) -> Result<Option<u8>>;
    /// Up to `len` bytes: fewer only where the input ends first.
    fn bytes_up_to(&mut self, len: u64) -> Result<Vec<u8>>;

    #[inline]
    fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    /// A canonical varint of at most `bits` bits, errors at its first byte.
    fn varint(&mut self, bits: u32) -> Result<u128> {
        let start = self.offset();
        let first = self.u8()?;
        self.varint_after(first, start, bits)
    }

    /// The rest of a varint whose first byte, at `start`, was just read:
    /// byte by byte, as a stream delivers them.
    fn varint_after(&mut self, first: u8, start: u64, bits: u32) -> Result<u128> {
        let mut p = Partial::new(bits);
        let mut b = first;
        loop {
            match p.push(b) {
                Ok(Some(x)) => return Ok(x),
                Ok(None) => {}
                Err(fault) => return Err(fault.at(start)),
            }
            b = self.u8().map_err(|e| match e.kind() {
                crate::ErrorKind::Truncated => Fault::Truncated.at(start),
                _ => e,
            })?;
        }
    }
}

/// A slice: [`wire::Cursor`], whose bounds checks and messages every slice
/// reader shares.
pub(crate) struct SliceInput<'a> {
    c: Cursor<'a>,
}

impl<'a> SliceInput<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        SliceInput { c: Cursor::new(bytes) }
    }

    /// Moves past the first `n` bytes (offsets still count from the start).
    pub(crate) fn skip(&mut self, n: usize) {
        self.c.seek(n);
    }

    /// The bytes not yet consumed.
    #[inline]
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.c.rest()
    }

    /// The bytes from offset `from` to the current one.
    #[inline]
    pub(crate) fn since(&self, from: usize) -> &'a [u8] {
        self.c.since(from)
    }

    /// Consumes `n` bytes of [`rest`](Self::rest) (`n` at most its length).
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.c.advance(n);
    }

    #[inline]
    pub(crate) fn take(&mut self, len: u64) -> Result<&'a [u8]> {
        self.c.take_claim(len.into())
    }
}

impl Input for SliceInput<'_> {
    #[inline]
    fn offset(&self) -> u64 {
        self.c.offset()
    }

    #[inline]
    fn remaining(&self) -> Option<u64> {
        Some(self.c.remaining())
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.c.array()
    }

    fn bytes(&mut self, len: u64) -> Result<Vec<u8>> {
        self.take(len).map(<[u8]>::to_vec)
    }

    fn at_end(&mut self) -> Result<bool> {
        Ok(self.c.at_end())
    }

    fn next_byte(&mut self) -> Result<Option<u8>> {
        Ok(self.c.u8().ok())
    }

    fn bytes_up_to(&mut self, len: u64) -> Result<Vec<u8>> {
        let n = self.c.remaining().min(len);
        self.bytes(n)
    }

    #[inline]
    fn u8(&mut self) -> Result<u8> {
        self.c.u8()
    }

    #[inline]
    fn varint(&mut self, bits: u32) -> Result<u128> {
        self.c.varint(bits)
    }
}

pub(crate) struct IoInput<R> {
    reader: R,
    pos: u64,
    /// The whole input's length, when the caller knows it (a file, a
    /// slice): counts are then checked against what remains, as over a
    /// slice (SPEC.md §16.2).
    len: Option<u64>,
}

impl<R: io::Read> IoInput<R> {
    pub(crate) fn new(reader: R) -> Self {
        IoInput { reader, pos: 0, len: None }
    }

    /// An input known to hold exactly `len` bytes.
    pub(crate) fn with_len(reader: R, len: u64) -> Self {
        IoInput { reader, pos: 0, len: Some(len) }
    }
}

impl<R: io::Read> Input for IoInput<R> {
    fn offset(&self) -> u64 {
        self.pos
    }

    fn remaining(&self) -> Option<u64> {
        self.len.map(|len| len.saturating_sub(self.pos))
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut buf = [0u8; N];
        self.reader.read_exact(&mut buf).map_err(|e| Error::io(self.pos, e))?;
        self.pos += N as u64;
        Ok(buf)
    }

    fn bytes(&mut self, len: u64) -> Result<Vec<u8>> {
        // read_to_end grows the buffer as data arrives, so a huge claimed
        // length costs only what the stream really delivers.
        let mut buf = Vec::new();
        let got = (&mut self.reader).take(len).read_to_end(&mut buf).map_err(|e| Error::io(self.pos, e))? as u64;
        if got < len {
            return Err(wire::cursor::truncated(self.pos, len, got));
        }
        self.pos += len;
        Ok(buf)
    }

    fn at_end(&mut self) -> Result<bool> {
        Ok(self.next_byte()?.is_none())
    }

    fn next_byte(&mut self) -> Result<Option<u8>> {
        let mut byte = [0u8; 1];
        loop {
            match self.reader.read(&mut byte) {
                Ok(0) => return Ok(None),
                Ok(_) => {
                    self.pos += 1;
                    return Ok(Some(byte[0]));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(self.pos, e)),
            }
        }
    }

    fn bytes_up_to(&mut self, len: u64) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        let got = (&mut self.reader).take(len).read_to_end(&mut buf).map_err(|e| Error::io(self.pos, e))?;
        self.pos += got as u64;
        Ok(buf)
    }
}

/// A decoder can borrow an input for a while (a stream reads its framing
/// with one and keeps the input).
impl<T: Input> Input for &mut T {
    fn offset(&self) -> u64 {
        (**self).offset()
    }

    fn remaining(&self) -> Option<u64> {
        (**self).remaining()
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        (**self).array()
    }

    fn bytes(&mut self, len: u64) -> Result<Vec<u8>> {
        (**self).bytes(len)
    }

    fn at_end(&mut self) -> Result<bool> {
        (**self).at_end()
    }

    fn next_byte(&mut self) -> Result<Option<u8>> {
        (**self).next_byte()
    }

    fn bytes_up_to(&mut self, len: u64) -> Result<Vec<u8>> {
        (**self).bytes_up_to(len)
    }

    fn u8(&mut self) -> Result<u8> {
        (**self).u8()
    }

    fn varint(&mut self, bits: u32) -> Result<u128> {
        (**self).varint(bits)
    }
}
