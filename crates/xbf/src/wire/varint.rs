//! XBF 2's integers: unsigned LEB128, canonical (no overlong forms, no bits
//! past the type's width), and zigzag for signed values (SPEC.md §11).
//!
//! Decoding is written once, as [`Partial::push`], a step that takes one
//! byte; [`decode`] runs it over a slice and the row decoder over a stream.

use crate::error::{Error, ErrorKind};

/// The most bytes a varint of 128 bits takes.
pub const MAX_LEN: usize = 19;

/// Writes `x` as LEB128 into `buf`; returns how many bytes it took.
#[inline]
pub fn encode(mut x: u128, buf: &mut [u8; MAX_LEN]) -> usize {
    let mut i = 0;
    while x >= 0x80 {
        buf[i] = (x as u8) | 0x80;
        x >>= 7;
        i += 1;
    }
    buf[i] = x as u8;
    i + 1
}

/// Appends `x` as LEB128 to `out`.
// Always inlined: left to the inliner, the row writer's `Out::int` called it
// in some builds and not in others (hotpaths serde-enc-rows 36.2 against
// 38.1 M instructions, BENCHMARKS.md); inlined, its callers keep only the
// 64-bit loop of the common case in line.
#[inline(always)]
pub fn put(out: &mut Vec<u8>, x: u128) {
    match u64::try_from(x) {
        Ok(x) => put_u64(out, x),
        Err(_) => {
            let mut buf = [0u8; MAX_LEN];
            let n = encode(x, &mut buf);
            out.extend_from_slice(&buf[..n]);
        }
    }
}

/// Appends `x` as LEB128 to `out`: [`put`] without 128-bit arithmetic, for
/// the writers' hot loops.
#[inline]
pub fn put_u64(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The bytes `x` takes as LEB128.
#[inline]
pub fn len(x: u128) -> usize {
    (128 - (x | 1).leading_zeros() as usize).div_ceil(7)
}

/// Zigzag: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
#[inline]
pub fn zigzag(x: i128) -> u128 {
    ((x << 1) ^ (x >> 127)) as u128
}

/// [`zigzag`] of a 64-bit integer.
#[inline]
pub fn zigzag64(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

/// The inverse of [`zigzag`].
#[inline]
pub fn unzigzag(u: u128) -> i128 {
    ((u >> 1) as i128) ^ -((u & 1) as i128)
}

/// The inverse of [`zigzag64`].
#[inline]
pub fn unzigzag64(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Why bytes are not a canonical varint of the width asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The input ends before the varint does.
    Truncated,
    /// The value needs more bits than the width (the `u32`) has.
    TooWide(u32),
    /// More bytes than a varint of the width (the `u32`) can take.
    TooLong(u32),
    /// A last byte of zero after others: an overlong form.
    Overlong,
}

impl Fault {
    /// The error kind every implementation reports for it.
    pub fn kind(self) -> ErrorKind {
        match self {
            Fault::Truncated => ErrorKind::Truncated,
            _ => ErrorKind::InvalidVarint,
        }
    }

    /// The error, for a varint that begins at byte `at`.
    #[cold]
    #[inline(never)]
    pub fn at(self, at: u64) -> Error {
        Error::at(self.kind(), at, self.to_string())
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Truncated => f.write_str("the input ends inside a varint"),
            Fault::TooWide(bits) => write!(f, "does not fit in {bits} bits"),
            Fault::TooLong(bits) => write!(f, "longer than a {bits}-bit varint can be"),
            Fault::Overlong => f.write_str("overlong: it ends with a zero byte"),
        }
    }
}

/// A varint being read, one byte at a time: the one place where the rules
/// of canonical LEB128 are checked.
#[derive(Clone, Copy, Debug)]
pub struct Partial {
    x: u128,
    shift: u32,
    bits: u32,
}

impl Partial {
    /// A varint of at most `bits` bits (1 to 128), none of it read yet.
    #[inline]
    pub fn new(bits: u32) -> Partial {
        debug_assert!((1..=128).contains(&bits));
        Partial { x: 0, shift: 0, bits }
    }

    /// Takes the next byte: the value once it is the last, `None` while
    /// more must follow.
    #[inline]
    pub fn push(&mut self, b: u8) -> Result<Option<u128>, Fault> {
        let low = u128::from(b & 0x7f);
        if self.shift + 7 > self.bits && low >> (self.bits - self.shift) != 0 {
            return Err(Fault::TooWide(self.bits));
        }
        self.x |= low << self.shift;
        if b & 0x80 == 0 {
            if b == 0 && self.shift > 0 {
                return Err(Fault::Overlong);
            }
            return Ok(Some(self.x));
        }
        self.shift += 7;
        if self.shift >= self.bits {
            return Err(Fault::TooLong(self.bits));
        }
        Ok(None)
    }
}

/// The canonical varint of at most `bits` bits at the start of `bytes`, and
/// how many bytes it took.
#[inline]
pub fn decode(bytes: &[u8], bits: u32) -> Result<(u128, usize), Fault> {
    let mut p = Partial::new(bits);
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(x) = p.push(b)? {
            return Ok((x, i + 1));
        }
    }
    Err(Fault::Truncated)
}

/// [`decode`] of a varint of at most `bits` (up to 64) bits, in 64-bit
/// arithmetic, for the readers' hot loops: `Some` exactly when [`decode`]
/// succeeds, with the same value and length; `None` when it fails (then
/// [`decode`] tells why). Checks the same rules, in the same order.
#[inline]
pub fn decode_u64(bytes: &[u8], bits: u32) -> Option<(u64, usize)> {
    debug_assert!((1..=64).contains(&bits));
    let mut x = 0u64;
    let mut shift = 0u32;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        let low = u64::from(b & 0x7f);
        if shift + 7 > bits && low >> (bits - shift) != 0 {
            return None;
        }
        x |= low << shift;
        if b & 0x80 == 0 {
            if b == 0 && shift > 0 {
                return None;
            }
            return Some((x, i + 1));
        }
        shift += 7;
        if shift >= bits {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_encodings() {
        let mut buf = [0; MAX_LEN];
        for (x, want) in [
            (0u128, &[0x00][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (1024, &[0x80, 0x08]),
            (16_383, &[0xff, 0x7f]),
            (16_384, &[0x80, 0x80, 0x01]),
        ] {
            let n = encode(x, &mut buf);
            assert_eq!(&buf[..n], want, "{x}");
            assert_eq!(len(x), n, "{x}");
            let mut out = Vec::new();
            put(&mut out, x);
            assert_eq!(out, want, "{x}");
            assert_eq!(decode(want, 64), Ok((x, n)));
        }
        assert_eq!(encode(u128::MAX, &mut buf), MAX_LEN);
        assert_eq!(len(u128::MAX), MAX_LEN);
        assert_eq!(decode(&buf, 128), Ok((u128::MAX, MAX_LEN)));
        assert_eq!(encode(u64::MAX.into(), &mut buf), 10);
        assert_eq!(len(u64::MAX.into()), 10);
    }

    #[test]
    fn non_canonical_forms_are_refused() {
        assert_eq!(decode(&[], 64), Err(Fault::Truncated));
        assert_eq!(decode(&[0x80], 64), Err(Fault::Truncated));
        assert_eq!(decode(&[0x80, 0x00], 64), Err(Fault::Overlong));
        assert_eq!(decode(&[0x80, 0x80, 0x04], 16), Err(Fault::TooWide(16)));
        assert_eq!(decode(&[0x80, 0x80, 0x03], 16), Ok((3 << 14, 3)));
        assert_eq!(decode(&[0x02], 1), Err(Fault::TooWide(1)));
        assert_eq!(decode(&[0xff, 0xff, 0xff, 0x80, 0x00], 28), Err(Fault::TooLong(28)));
        let e = Fault::TooWide(16).at(7);
        assert_eq!((e.kind(), e.offset(), e.detail()), (ErrorKind::InvalidVarint, Some(7), "does not fit in 16 bits"));
    }

    /// The 64-bit routine agrees with the general one on every input of up
    /// to two bytes and on long forms around each width's limits.
    #[test]
    fn decode_u64_agrees_with_decode() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for a in 0..=255u8 {
            inputs.push(vec![a]);
            for b in 0..=255u8 {
                inputs.push(vec![a, b]);
            }
        }
        let mut buf = [0; MAX_LEN];
        for shift in 0..64 {
            for x in [1u64 << shift, (1u64 << shift) - 1, u64::MAX >> (63 - shift)] {
                let n = encode(x.into(), &mut buf);
                inputs.push(buf[..n].to_vec());
                let mut long = buf[..n].to_vec();
                *long.last_mut().unwrap() |= 0x80;
                long.extend([0x80, 0x00]);
                inputs.push(long.clone());
                long.pop();
                long.push(0x01);
                inputs.push(long);
            }
        }
        inputs.push(vec![0xff; 11]);
        for bits in [1, 7, 8, 15, 16, 32, 63, 64] {
            for input in &inputs {
                let want = decode(input, bits).ok().map(|(x, n)| (x as u64, n));
                assert_eq!(decode_u64(input, bits), want, "{input:02x?} at {bits} bits");
            }
        }
    }

    #[test]
    fn zigzag_orders_by_magnitude() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(-2), 3);
        assert_eq!(zigzag(i128::MIN), u128::MAX);
        for x in [0, 1, -1, 63, -64, i128::MAX, i128::MIN, i64::MIN.into()] {
            assert_eq!(unzigzag(zigzag(x)), x);
        }
        for x in [0, 1, -1, i64::MAX, i64::MIN] {
            assert_eq!(u128::from(zigzag64(x)), zigzag(x.into()));
            assert_eq!(unzigzag64(zigzag64(x)), x);
        }
    }
}
