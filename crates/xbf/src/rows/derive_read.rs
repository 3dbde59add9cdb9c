//! The input side of the derive path: values read straight from the
//! message's bytes, with the dynamic decoder's checks, error kinds and
//! offsets (its slow paths are the dynamic decoder's own routines).

use crate::error::{Error, ErrorKind, Result};
use crate::rows::input::{Input, SliceInput};
use crate::rows::value_read::{invalid_bool, relocate, Decoder};
use crate::wire::varint;

/// The 7-bit groups of up to eight varint bytes in `w` (little-endian),
/// side by side: the continuation bits dropped, each group shifted down.
#[inline]
fn gather(w: u64) -> u64 {
    let w = w & 0x7f7f_7f7f_7f7f_7f7f;
    let w = (w & 0x007f_007f_007f_007f) | ((w & 0x7f00_7f00_7f00_7f00) >> 1);
    let w = (w & 0x0000_3fff_0000_3fff) | ((w & 0x3fff_0000_3fff_0000) >> 2);
    (w & 0x0000_0000_0fff_ffff) | ((w & 0x0fff_ffff_0000_0000) >> 4)
}

/// Where [`Decode`](crate::fast::Decode) impls read a value; made by
/// [`from_slice`](crate::fast::from_slice).
pub struct Reader<'de, 'o> {
    pub(crate) d: Decoder<'o, SliceInput<'de>>,
}

impl<'de> Reader<'de, '_> {
    /// The offset of the next byte, from the start of the message.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.d.input.offset()
    }

    /// Whether the message is XBF 2 (varints) rather than v1.
    #[inline]
    pub fn is_v2(&self) -> bool {
        self.d.v2
    }

    /// An unsigned varint of an integer type `bytes` (2, 4 or 8) wide.
    #[inline]
    fn varint_of(&mut self, bytes: usize) -> Result<u64> {
        match bytes {
            2 => self.varint::<16>(),
            4 => self.varint::<32>(),
            _ => self.varint::<64>(),
        }
    }

    /// An unsigned varint of at most `BITS` (<= 64) bits. A one-byte
    /// varint (lengths, small counts, flags) is read where it is called;
    /// a longer one by a routine of its own per width, so that the width
    /// checks are constants and the callers stay small: faster than one
    /// routine taking the width as an argument on bench/'s records, and
    /// inlining the longer routine too was not (BENCHMARKS.md, "Measured
    /// design decisions").
    #[inline(always)]
    fn varint<const BITS: u32>(&mut self) -> Result<u64> {
        if let Some(&b) = self.d.input.rest().first() {
            if b < 0x80 {
                self.d.input.advance(1);
                return Ok(u64::from(b));
            }
        }
        self.varint_multi::<BITS>()
    }

    /// A varint whose first byte goes on (or none is left): the common
    /// cases here, the rest (and every error) by the dynamic decoder's
    /// routine.
    #[inline(never)]
    fn varint_multi<const BITS: u32>(&mut self) -> Result<u64> {
        // Eight bytes at hand: the varint ends at the first byte without
        // its high bit, found in one step, and its 7-bit groups are
        // gathered with shifts and masks. Anything unusual (not canonical,
        // too wide) goes the slow way, which reports it.
        if let Some(head) = self.d.input.rest().get(..8) {
            let w = u64::from_le_bytes(head.try_into().unwrap_or([0xff; 8]));
            let stops = !w & 0x8080_8080_8080_8080;
            if stops == 0 {
                // Longer than 8 bytes: only a 64-bit varint can be.
                return if BITS >= 64 { self.varint_long(w) } else { self.varint_slow(BITS) };
            }
            let len = (stops.trailing_zeros() as usize + 1) / 8;
            // The varint's bytes: every bit up to its last byte's high bit.
            let x = gather(w & (stops ^ (stops - 1)));
            // Canonical (its last group is not zero) and within `BITS`;
            // a varint too long for `BITS` fails the second test too.
            if x >> (7 * (len - 1)) != 0 && (BITS >= 64 || x >> BITS == 0) {
                self.d.input.advance(len);
                return Ok(x);
            }
        }
        self.varint_slow(BITS)
    }

    /// A 64-bit varint whose first eight bytes, `w`, all go on: 9 bytes
    /// (57 to 63 bits, as nanosecond timestamps are) or 10 (the top bit
    /// set); anything else is the slow way's to report.
    #[inline(never)]
    fn varint_long(&mut self, w: u64) -> Result<u64> {
        let rest = self.d.input.rest();
        let low = gather(w);
        match (rest.get(8), rest.get(9)) {
            (Some(&b8), _) if b8 < 0x80 && b8 != 0 => {
                self.d.input.advance(9);
                Ok(low | u64::from(b8) << 56)
            }
            (Some(&b8), Some(1)) if b8 >= 0x80 => {
                self.d.input.advance(10);
                Ok(low | u64::from(b8 & 0x7f) << 56 | 1 << 63)
            }
            _ => self.varint_slow(64),
        }
    }

    #[cold]
    #[inline(never)]
    fn varint_slow(&mut self, bits: u32) -> Result<u64> {
        self.d.uvarint(bits).map(|x| x as u64)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let rest = self.d.input.rest();
        match rest.get(..N) {
            Some(b) => {
                let a: [u8; N] = b.try_into().unwrap_or([0; N]);
                self.d.input.advance(N);
                Ok(a)
            }
            None => self.d.input.array(),
        }
    }

    /// One byte (a `u8`, or an `i8` in two's complement).
    #[inline]
    pub fn byte(&mut self) -> Result<u8> {
        self.array::<1>().map(|b| b[0])
    }

    /// A bool; a byte other than `00` and `01` is `invalid-bool`.
    #[inline]
    pub fn bool(&mut self) -> Result<bool> {
        let at = self.offset();
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(invalid_bool(at, b)),
        }
    }

    /// An unsigned integer of a type `bytes` (2, 4 or 8) wide.
    #[inline]
    pub fn unsigned(&mut self, bytes: usize) -> Result<u64> {
        if self.d.v2 {
            return self.varint_of(bytes);
        }
        Ok(match bytes {
            2 => u64::from(u16::from_le_bytes(self.array()?)),
            4 => u64::from(u32::from_le_bytes(self.array()?)),
            _ => u64::from_le_bytes(self.array()?),
        })
    }

    /// A signed integer of a type `bytes` (2, 4 or 8) wide.
    #[inline]
    pub fn signed(&mut self, bytes: usize) -> Result<i64> {
        if self.d.v2 {
            let u = self.varint_of(bytes)?;
            return Ok(varint::unzigzag64(u));
        }
        Ok(match bytes {
            2 => i64::from(i16::from_le_bytes(self.array()?)),
            4 => i64::from(i32::from_le_bytes(self.array()?)),
            _ => i64::from_le_bytes(self.array()?),
        })
    }

    /// A `u128`.
    pub fn u128(&mut self) -> Result<u128> {
        if self.d.v2 {
            self.d.uvarint(128)
        } else {
            self.array().map(u128::from_le_bytes)
        }
    }

    /// An `i128`.
    pub fn i128(&mut self) -> Result<i128> {
        if self.d.v2 {
            self.d.uvarint(128).map(crate::wire::varint::unzigzag)
        } else {
            self.array().map(i128::from_le_bytes)
        }
    }

    /// An `f32`.
    #[inline]
    pub fn f32(&mut self) -> Result<f32> {
        self.array().map(f32::from_le_bytes)
    }

    /// An `f64`.
    #[inline]
    pub fn f64(&mut self) -> Result<f64> {
        self.array().map(f64::from_le_bytes)
    }

    /// A length or count as written (no check against the input).
    #[inline]
    fn length(&mut self) -> Result<u64> {
        if self.d.v2 {
            self.varint::<64>()
        } else {
            self.d.length()
        }
    }

    /// A count of items of at least `min_size` bytes each, checked against
    /// the input that remains (`truncated` at the count otherwise), so
    /// that it can size an allocation. Zero-size items never reach here.
    #[inline]
    pub fn count(&mut self, min_size: u64) -> Result<usize> {
        let at = self.offset();
        let n = self.length()?;
        if n.saturating_mul(min_size) > self.d.input.rest().len() as u64 {
            self.d.check_fits(at, n, min_size)?;
        }
        // Fits in the input, so in usize.
        Ok(n as usize)
    }

    /// Checks, at the first byte of an array value, that `len` items of at
    /// least `min_size` bytes fit in the input.
    #[inline]
    pub fn array_fits(&self, len: u64, min_size: u64) -> Result<()> {
        if len.saturating_mul(min_size) > self.d.input.rest().len() as u64 {
            self.d.check_fits(self.offset(), len, min_size)?;
        }
        Ok(())
    }

    /// The next `n` bytes, which [`array_fits`](Self::array_fits) or
    /// [`count`](Self::count) found to be there.
    #[inline]
    pub(crate) fn plain(&mut self, n: usize) -> Result<&'de [u8]> {
        let at = self.offset();
        self.take(at, n as u64)
    }

    #[inline]
    fn take(&mut self, at: u64, len: u64) -> Result<&'de [u8]> {
        self.d.input.take(len).map_err(|e| relocate(e, at))
    }

    /// A string, borrowed from the input.
    #[inline]
    pub fn str(&mut self) -> Result<&'de str> {
        let at = self.offset();
        let len = self.length()?;
        let bytes = self.take(at, len)?;
        crate::utf8::str_from(bytes).map_err(|e| {
            Error::at(ErrorKind::InvalidUtf8, at, format!("invalid UTF-8 at byte {} of the string", e.valid_up_to()))
        })
    }

    /// A bytes value, borrowed from the input.
    #[inline]
    pub fn bytes(&mut self) -> Result<&'de [u8]> {
        let at = self.offset();
        let len = self.length()?;
        self.take(at, len)
    }

    /// An option's tag: whether a value follows (`invalid-bool` unless the
    /// byte is `00` or `01`).
    #[inline]
    pub fn tag(&mut self) -> Result<bool> {
        self.bool()
    }

    /// An enum's variant index, below `count` (`unknown-variant` at the
    /// index otherwise); `name` is the enum's, for the message.
    #[inline]
    pub fn variant(&mut self, count: usize, name: &str) -> Result<usize> {
        let at = self.offset();
        let index = self.length()?;
        match usize::try_from(index) {
            Ok(i) if i < count => Ok(i),
            _ => Err(Error::at(
                ErrorKind::UnknownVariant,
                at,
                format!("enum {name} has {count} variants; there is no variant {index}"),
            )),
        }
    }
}
