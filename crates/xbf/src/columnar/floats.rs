//! Float columns, lossless: most real floats began as short decimals
//! (prices, coordinates), so the writer tries storing each as an integer
//! count of 10^-e (the idea of ALP, SIGMOD 2023) with the integer column
//! encodings, keeping the values that do not come back bit for bit as
//! exceptions. Floats that are not short decimals (measurements, random
//! coordinates) are XORed with the value before them, keeping only the bits
//! that changed (the Gorilla method); otherwise the plain IEEE bytes.

use crate::error::{Error, ErrorKind, Result};
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::cursor::Cursor;
use super::ints;

/// A float type's width and the largest exponent whose power of ten the
/// type holds exactly (so that the division below is exact in every language).
pub(crate) trait Float: Copy {
    const BYTES: usize;
    /// Bits of the XOR encoding's leading-zero and length fields.
    const FIELD: u32;
    const MAX_EXP: u8;
    fn to_bits64(self) -> u64;
    fn to_f64(self) -> f64;
    fn from_bits64(b: u64) -> Self;
    /// `n / 10^e`, the decoder's one formula.
    fn from_decimal(n: i64, e: u8) -> Self;
    fn scaled(self, e: u8) -> Option<i64>;
    /// A bound, relative to `self * 10^e`, on how far that product can be
    /// from the integer `n` of a decimal that gives `self` back: twice the
    /// largest distance the type's rounding allows (see [`exact_decimal`]).
    const NEAR: f64;
}

impl Float for f64 {
    const BYTES: usize = 8;
    const FIELD: u32 = 6;
    const MAX_EXP: u8 = 18;
    const NEAR: f64 = 1.0 / (1u64 << 51) as f64;
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn from_decimal(n: i64, e: u8) -> Self {
        n as f64 / POW10_F64[usize::from(e)]
    }
    fn scaled(self, e: u8) -> Option<i64> {
        round_within(self * POW10_F64[usize::from(e)], 9_000_000_000_000_000)
    }
}

impl Float for f32 {
    const BYTES: usize = 4;
    const FIELD: u32 = 5;
    const MAX_EXP: u8 = 10;
    const NEAR: f64 = 1.0 / (1u64 << 22) as f64;
    fn to_bits64(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn from_decimal(n: i64, e: u8) -> Self {
        n as f32 / POW10_F32[usize::from(e)]
    }
    fn scaled(self, e: u8) -> Option<i64> {
        round_within(f64::from(self) * POW10_F64[usize::from(e)], 16_000_000)
    }
}

/// 10^e for e up to 22, each exact in an f64 (5^22 < 2^53): the values of
/// `10f64.powi(e)`, whose products of exact powers of ten are exact too,
/// without a call each.
const POW10_F64: [f64; 23] = {
    let mut t = [1.0f64; 23];
    let mut i = 1;
    while i < 23 {
        t[i] = t[i - 1] * 10.0;
        i += 1;
    }
    t
};

/// 10^e for e up to 10, each exact in an f32 (5^10 < 2^24).
const POW10_F32: [f32; 11] = {
    let mut t = [1.0f32; 11];
    let mut i = 1;
    while i < 11 {
        t[i] = t[i - 1] * 10.0;
        i += 1;
    }
    t
};

/// `x.round()` (half away from zero) as an integer if its magnitude is
/// below `limit`; `None` otherwise and for NaN and the infinities. The same
/// as `let s = x.round(); (s.abs() < limit as f64).then_some(s as i64)`
/// for limits below 2^53, without the call to `round`: `x - trunc(x)` is
/// exact for every float.
#[inline]
fn round_within(x: f64, limit: i64) -> Option<i64> {
    if x.is_nan() || x.abs() >= 4.0e18 {
        return None;
    }
    let t = x as i64;
    let f = x - t as f64;
    let r = if f >= 0.5 {
        t + 1
    } else if f <= -0.5 {
        t - 1
    } else {
        t
    };
    (r.unsigned_abs() < limit as u64).then_some(r)
}

fn plain<F: Float>(values: &[F]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + values.len() * F::BYTES);
    out.push(E::PlainFloat.byte());
    for v in values {
        out.extend_from_slice(&v.to_bits64().to_le_bytes()[..F::BYTES]);
    }
    out
}

/// The integer `n` with `n / 10^e` giving `v` back bit for bit, where
/// `v.scaled(e)` gives one: `matches!(v.scaled(e), Some(n) if
/// F::from_decimal(n, e).to_bits64() == v.to_bits64())`, without the
/// division where it cannot hold. If `n / 10^e` rounds to `v`, then
/// `|n - v·10^e| <= |v·10^e|·2^-p` (half a unit in the last place of `v`,
/// `p` the type's precision: 53 or 24), and the product computed, `x`, is
/// within `|x|·2^-53` of `v·10^e`; so an `x` further than `|x|·2^-(p-2)`
/// (`F::NEAR`, twice both together) from its nearest integer cannot be one.
/// (A tiny or subnormal `v` rounds to `n = 0`, which gives back only +0.)
#[inline]
fn exact_decimal<F: Float>(v: F, e: u8) -> Option<i64> {
    let x = v.to_f64() * POW10_F64[usize::from(e)];
    if x.is_nan() || x.abs() >= 4.0e18 {
        return None;
    }
    // Rounded half away from zero, without branches (fractions are noise).
    let t = x as i64;
    let f = x - t as f64;
    let n = t + i64::from(f >= 0.5) - i64::from(f <= -0.5);
    let off = f.abs().min(1.0 - f.abs());
    let limit = if F::BYTES == 8 { 9_000_000_000_000_000 } else { 16_000_000 };
    if n.unsigned_abs() >= limit || off > x.abs() * F::NEAR {
        return None;
    }
    (F::from_decimal(n, e).to_bits64() == v.to_bits64()).then_some(n)
}

/// The exponents `e` (bit `e`) at which [`exact_decimal`]`(v, e)` holds,
/// with two or three checks instead of one per exponent.
///
/// Why it is the same set: if `v` is `n / 10^e` rounded, with `|10n| <=
/// 2^(p-3)` (`p` the type's precision, 53 or 24), then the product
/// `v·10^(e+1)` is within `|10n|·(2^(1-p) + 2^-106)` of `10n`, less than a
/// quarter and within `F::NEAR` of it, so rounds to `10n`; and `10n /
/// 10^(e+1)` is the same real number as `n / 10^e`, so rounds to the same
/// `v`: `v` fits `e + 1` too. And a fit's `n` is at most `|v·10^e|·(1 +
/// F::NEAR)` (the check bounds its distance from the product). So up to
/// `top`, the largest exponent at which `|v|·10^e` is below `2^(p-3)` by
/// more than that factor, the exponents `v` fits are those from its
/// smallest up to `top`: found by one check at `top` and a binary search
/// below it. The exponents above `top` are checked one by one, until the
/// product reaches the integers' limit (no fit there nor above: its integer
/// would be the limit or more). NaN and the infinities fit none.
#[inline]
fn fit_mask<F: Float>(v: F) -> u32 {
    let a = v.to_f64().abs();
    if !a.is_finite() {
        return 0;
    }
    // 2^(p-3) less a margin far above `F::NEAR`, and the integers' limit.
    let (bound, limit, precision) = if F::BYTES == 8 {
        ((1u64 << 50) as f64 * (1.0 - 1.0 / (1u64 << 40) as f64), 9.0e15, 53)
    } else {
        ((1u64 << 21) as f64 * (1.0 - 1.0 / (1u64 << 18) as f64), 1.6e7, 24)
    };
    let max = i32::from(F::MAX_EXP);
    let pow = |e: i32| POW10_F64[e as usize];
    // `top`: guessed from the binary exponent of `a` (log10(2) ~ 1233/4096),
    // then moved to the exact one (-1 if `a` passes the bound at 0).
    let k = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mut top = (((precision - 4 - k) * 1233) >> 12).clamp(-1, max);
    while top >= 0 && a * pow(top) > bound {
        top -= 1;
    }
    while top < max && a * pow(top + 1) <= bound {
        top += 1;
    }
    let fits = |e: i32| exact_decimal(v, e as u8).is_some();
    let mut mask = 0u32;
    if top >= 0 && fits(top) {
        let (mut lo, mut hi) = (0, top);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if fits(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        mask = ((2u32 << top) - 1) & !((1u32 << lo) - 1);
    }
    for e in top + 1..=max {
        if a * pow(e) >= limit {
            break;
        }
        if fits(e) {
            mask |= 1 << e;
        }
    }
    mask
}

fn decimal<F: Float>(values: &[F], e: u8) -> Vec<u8> {
    DecimalParts::of(values, e).encode_below(values, e, usize::MAX).expect("below the largest size")
}

/// `x` rounded half away from zero, as [`exact_decimal`] rounds it (`x`
/// finite and below 2^63 in magnitude).
#[inline]
fn nearest(x: f64) -> i64 {
    let t = x as i64;
    let f = x - t as f64;
    t + i64::from(f >= 0.5) - i64::from(f <= -0.5)
}

/// What the decimal encoding at one exponent writes: each value's integer
/// (zigzagged; 0 for an exception) and the positions of the exceptions.
struct DecimalParts {
    ints: Vec<u64>,
    exceptions: Vec<u64>,
}

impl DecimalParts {
    /// Each value checked with [`exact_decimal`].
    fn of<F: Float>(values: &[F], e: u8) -> Self {
        let mut parts = DecimalParts { ints: Vec::with_capacity(values.len()), exceptions: Vec::new() };
        for (i, v) in values.iter().enumerate() {
            match exact_decimal(*v, e) {
                Some(n) => parts.ints.push(varint::zigzag(n.into()) as u64),
                None => {
                    parts.ints.push(0);
                    parts.exceptions.push(i as u64);
                }
            }
        }
        parts
    }

    /// The integers of values that all fit (`exact_decimal` of each).
    fn known(ns: &[i64]) -> Self {
        DecimalParts { ints: ns.iter().map(|&n| varint::zigzag(n.into()) as u64).collect(), exceptions: Vec::new() }
    }

    /// From each value's [`fit_mask`] (`misses` of them without `e`): the
    /// integer of a value that fits `e` is its product rounded, as
    /// `exact_decimal` found it.
    fn masked<F: Float>(values: &[F], e: u8, masks: &[u32], misses: usize) -> Self {
        let mut parts = DecimalParts { ints: Vec::with_capacity(values.len()), exceptions: Vec::with_capacity(misses) };
        let scale = POW10_F64[usize::from(e)];
        for (i, (v, m)) in values.iter().zip(masks).enumerate() {
            if m >> e & 1 == 1 {
                parts.ints.push(varint::zigzag(nearest(v.to_f64() * scale).into()) as u64);
            } else {
                parts.ints.push(0);
                parts.exceptions.push(i as u64);
            }
        }
        parts
    }

    /// The encoding (`values` the column's), if it takes fewer than
    /// `limit` bytes: its size is worked out first, and only then written.
    fn encode_below<F: Float>(&self, values: &[F], e: u8, limit: usize) -> Option<Vec<u8>> {
        let body = ints::Planned::new(&self.ints);
        let k = self.exceptions.len();
        let pos = (k > 0).then(|| ints::Planned::new(&self.exceptions));
        let size =
            2 + body.block_size() + varint::len(k as u128) + pos.as_ref().map_or(0, |p| p.block_size() + k * F::BYTES);
        if size >= limit {
            return None;
        }
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(&[E::Decimal.byte(), e]);
        body.write_block(&mut out);
        varint::put(&mut out, k as u128);
        if let Some(pos) = pos {
            pos.write_block(&mut out);
            for &i in &self.exceptions {
                out.extend_from_slice(&values[i as usize].to_bits64().to_le_bytes()[..F::BYTES]);
            }
        }
        debug_assert_eq!(out.len(), size);
        Some(out)
    }
}

/// The distinct values (by bits, in first-seen order) and each value's
/// index among them; `None` when most values are distinct.
fn dictionary<F: Float>(values: &[F]) -> Option<(Vec<F>, Vec<u64>)> {
    // Room for as many distinct values as the dictionary may take (it
    // gives up past half the column), without growing on the way.
    let room = (values.len() / 2 + 17).min(4096);
    let mut index: std::collections::HashMap<u64, u64, super::FastHash> =
        std::collections::HashMap::with_capacity_and_hasher(room, super::FastHash::default());
    let mut distinct = Vec::new();
    let mut ids = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        let id = *index.entry(v.to_bits64()).or_insert_with(|| {
            distinct.push(*v);
            distinct.len() as u64 - 1
        });
        ids.push(id);
        if distinct.len() > values.len() / 2 + 16 || super::mostly_distinct(i + 1, distinct.len(), values.len()) {
            return None;
        }
    }
    Some((distinct, ids))
}

/// Calls `emit(bits, width)` for each field of the XOR encoding's bit
/// stream over `values` (all but the first value): a 0 bit for a value equal
/// to the one before; otherwise a 1 bit, then either a 0 bit and the XOR's
/// bits inside the window of the last value that opened one, or a 1 bit, the
/// XOR's leading zeros and its length less one (`F::FIELD` bits each) and
/// its bits from the first to the last 1, which opens a new window.
fn xor_fields<F: Float>(values: &[F], mut emit: impl FnMut(u64, u32) -> bool) {
    let width = 8 * F::BYTES as u32;
    let mut window: Option<(u32, u32)> = None;
    let mut prev = match values.first() {
        Some(v) => v.to_bits64(),
        None => return,
    };
    for v in &values[1..] {
        let bits = v.to_bits64();
        let x = bits ^ prev;
        prev = bits;
        if x == 0 {
            if !emit(0, 1) {
                return;
            }
            continue;
        }
        let lead = x.leading_zeros() - (64 - width);
        let trail = x.trailing_zeros();
        let len = width - lead - trail;
        match window {
            // The window holds the XOR and costs fewer bits than a new one.
            Some((wl, wlen)) if lead >= wl && trail >= width - wl - wlen && wlen <= len + 2 * F::FIELD => {
                if !(emit(0b01, 2) && emit(x >> (width - wl - wlen), wlen)) {
                    return;
                }
            }
            _ => {
                window = Some((lead, len));
                if !(emit(0b11, 2)
                    && emit(u64::from(lead), F::FIELD)
                    && emit(u64::from(len - 1), F::FIELD)
                    && emit(x >> trail, len))
                {
                    return;
                }
            }
        }
    }
}

/// The bytes of the XOR encoding of `values` (at least one), without writing it.
fn xor_size<F: Float>(values: &[F]) -> usize {
    xor_size_below(values, usize::MAX).expect("below the largest size")
}

/// [`xor_size`] if it is below `limit`; `None` as soon as the bits so far
/// reach it. The fields [`xor_fields`] would emit, counted without emitting
/// them (the tests check it against that count).
fn xor_size_below<F: Float>(values: &[F], limit: usize) -> Option<usize> {
    let size = |bits: u64| 1 + F::BYTES + bits.div_ceil(8) as usize;
    if size(0) >= limit {
        return None;
    }
    let width = 8 * F::BYTES as u32;
    let Some((first, rest)) = values.split_first() else { return Some(size(0)) };
    let mut prev = first.to_bits64();
    // The open window as its leading zeros and trailing zeros, and its
    // length; none open: a window no XOR fits in.
    let (mut wl, mut wt, mut wlen) = (width, width, 0u32);
    let mut bits = 0u64;
    for v in rest {
        let b = v.to_bits64();
        let x = b ^ prev;
        prev = b;
        if x == 0 {
            bits += 1;
        } else {
            let lead = x.leading_zeros() - (64 - width);
            let trail = x.trailing_zeros();
            let len = width - lead - trail;
            if lead >= wl && trail >= wt && wlen <= len + 2 * F::FIELD {
                bits += 2 + u64::from(wlen);
            } else {
                (wl, wt, wlen) = (lead, trail, len);
                bits += 2 + 2 * u64::from(F::FIELD) + u64::from(len);
            }
        }
        if size(bits) >= limit {
            return None;
        }
    }
    Some(size(bits))
}

fn xor<F: Float>(values: &[F]) -> Vec<u8> {
    let mut out = Vec::with_capacity(xor_size(values));
    out.push(E::XorFloat.byte());
    out.extend_from_slice(&values[0].to_bits64().to_le_bytes()[..F::BYTES]);
    let mut acc: u128 = 0;
    let mut filled = 0u32;
    xor_fields(values, |v, w| {
        acc |= u128::from(v) << filled;
        filled += w;
        while filled >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            filled -= 8;
        }
        true
    });
    if filled > 0 {
        out.push(acc as u8);
    }
    out
}

/// Reads bits least significant first, as the frame of reference packs them.
struct Bits<'a> {
    bytes: &'a [u8],
    bit: usize,
}

impl Bits<'_> {
    /// The next `w` bits (at most 64), or `None` past the end.
    fn read(&mut self, w: u32) -> Option<u64> {
        let end = self.bit + w as usize;
        if end > self.bytes.len() * 8 {
            return None;
        }
        let mut v: u64 = 0;
        let mut got = 0u32;
        while got < w {
            let byte = self.bytes[self.bit / 8];
            let off = (self.bit % 8) as u32;
            let take = (8 - off).min(w - got);
            let part = (u64::from(byte) >> off) & ((1u64 << take) - 1);
            v |= part << got;
            got += take;
            self.bit += take as usize;
        }
        Some(v)
    }
}

/// Reads the payload of an XOR column of `n` values: the rest of `c`.
fn decode_xor<F: Float>(c: &mut Cursor<'_>, n: u64) -> Result<Vec<F>> {
    let at = c.offset();
    if n == 0 {
        return Err(c.invalid(at, "an XOR column of no values".into()));
    }
    let first = c.take(F::BYTES)?;
    let stream_at = c.offset();
    let stream = c.take(c.remaining() as usize)?;
    // Every value after the first takes at least one bit.
    if (n - 1).div_ceil(8) > stream.len() as u64 {
        return Err(Error::at(
            ErrorKind::Truncated,
            stream_at,
            format!("{} values cannot fit in {} bytes of bits", n - 1, stream.len()),
        ));
    }
    let width = 8 * F::BYTES as u32;
    let short =
        || Error::at(ErrorKind::Truncated, stream_at, format!("the bits end before the {n} values of the column"));
    let mut bits = Bits { bytes: stream, bit: 0 };
    let mut out = Vec::with_capacity(n as usize);
    let mut prev = raw::<F>(first).to_bits64();
    out.push(F::from_bits64(prev));
    let mut window: Option<(u32, u32)> = None;
    for i in 1..n {
        if bits.read(1).ok_or_else(short)? == 1 {
            let (lead, len) = if bits.read(1).ok_or_else(short)? == 1 {
                let lead = bits.read(F::FIELD).ok_or_else(short)? as u32;
                let len = bits.read(F::FIELD).ok_or_else(short)? as u32 + 1;
                if lead + len > width {
                    return Err(c.invalid(
                        stream_at,
                        format!("value {i}: {lead} leading zeros and {len} bits pass the {width} bits of the float"),
                    ));
                }
                window = Some((lead, len));
                (lead, len)
            } else {
                window
                    .ok_or_else(|| c.invalid(stream_at, format!("value {i} reuses a window before any was opened")))?
            };
            prev ^= bits.read(len).ok_or_else(short)? << (width - lead - len);
        }
        out.push(F::from_bits64(prev));
    }
    if bits.bit.div_ceil(8) != stream.len() {
        return Err(c.invalid(
            stream_at,
            format!("{} bytes of the XOR bits are left over", stream.len() - bits.bit.div_ceil(8)),
        ));
    }
    if bits.bit % 8 != 0 && stream[bits.bit / 8] >> (bits.bit % 8) != 0 {
        return Err(c.invalid(stream_at, "the padding bits of the XOR column are not 0".into()));
    }
    Ok(out)
}

/// Lossy, on request: the smallest encoding of `values` rounded to short
/// decimals, each within `tolerance` (an absolute bound, positive and
/// finite) of its value. The exponent is the smallest whose half unit,
/// 10^-e / 2, is within the bound, or the next one: at the first, values
/// halfway between two decimals may be a rounding error too far from both
/// and stay exact, so both are tried and the smaller kept.
pub(crate) fn encode_lossy<F: Float>(values: &[F], tolerance: f64) -> Vec<u8> {
    let Some(e) = (0..=F::MAX_EXP).find(|&e| 0.5 / 10f64.powi(i32::from(e)) <= tolerance) else {
        return encode(values);
    };
    let at = |e: u8| {
        let mut rounded = values.to_vec();
        quantize(&mut rounded, tolerance, e);
        encode_hinted(&rounded, Some(e))
    };
    let mut best = at(e);
    if e < F::MAX_EXP {
        let next = at(e + 1);
        if next.len() < best.len() {
            best = next;
        }
    }
    best
}

/// Rounds each value to `e` decimals, as the decimal encoding's formula
/// gives them back, where that is within `tolerance` of it. NaN, the
/// infinities, both zeros, values too large for 64-bit integers and those
/// whose rounded forms are all a rounding error too far stay as they are.
fn quantize<F: Float>(values: &mut [F], tolerance: f64, e: u8) {
    for v in values.iter_mut() {
        let x = v.to_f64();
        if !x.is_finite() || x == 0.0 {
            continue;
        }
        if let Some(n) = v.scaled(e) {
            // The nearest, else the other neighbour of a midpoint.
            let other = if F::from_decimal(n, e).to_f64() > x { n - 1 } else { n + 1 };
            for m in [n, other] {
                let q = F::from_decimal(m, e);
                if (q.to_f64() - x).abs() <= tolerance {
                    *v = q;
                    break;
                }
            }
        }
    }
}

/// The smallest lossless encoding of `values`.
pub(crate) fn encode<F: Float>(values: &[F]) -> Vec<u8> {
    encode_hinted(values, None)
}

/// The encodings worth compressing: `best`, and plain too if it is not (a
/// general compressor finds repeats in the IEEE bytes that XOR hides).
pub(crate) fn candidates<F: Float>(values: &[F], best: Vec<u8>) -> Vec<Vec<u8>> {
    if best.first() == Some(&E::PlainFloat.byte()) {
        return vec![best];
    }
    vec![best, plain(values)]
}

/// The smallest lossless encoding of `values`, trying the decimal encoding
/// with exponent `hint` too (the one that [`quantize`] rounded them to).
fn encode_hinted<F: Float>(values: &[F], hint: Option<u8>) -> Vec<u8> {
    let mut best = encode_direct(values);
    if let Some(e) = hint.filter(|_| !values.is_empty()) {
        let candidate = decimal(values, e);
        if candidate.len() < best.len() {
            best = candidate;
        }
    }
    // On a long column, XOR must look close to winning on its first values
    // before it is sized in full.
    const SAMPLE: usize = 4096;
    let promising = values.len() <= 4 * SAMPLE
        || xor_size(&values[..SAMPLE]) * values.len() < best.len() * SAMPLE + best.len() * SAMPLE / 8;
    if !values.is_empty() && promising && xor_size_below(values, best.len()).is_some() {
        best = xor(values);
    }
    if let Some((distinct, ids)) = dictionary(values) {
        let mut d = vec![E::FloatDictionary.byte()];
        varint::put(&mut d, distinct.len() as u128);
        let inner = encode_direct(&distinct);
        varint::put(&mut d, inner.len() as u128);
        d.extend_from_slice(&inner);
        d.extend_from_slice(&ints::encode(&ids));
        if d.len() < best.len() {
            best = d;
        }
    }
    best
}

/// The smaller of the plain and the decimal encoding.
fn encode_direct<F: Float>(values: &[F]) -> Vec<u8> {
    let plain_len = 1 + values.len() * F::BYTES;
    if values.is_empty() {
        return plain(values);
    }
    // The exponent that leaves the fewest exceptions is found on a sample,
    // then the few best candidates are encoded in full: the three of fewest
    // misses (the smaller exponent first among equals), or the one with none.
    let sample: Vec<F> = values.iter().step_by((values.len() / 256).max(1)).copied().collect();
    let fits = |v: &F, e: u8| exact_decimal(*v, e).is_some();
    // An exponent that misses more than half the sample is never tried, nor
    // one that cannot be among the three (the exponents come in increasing
    // order, so one that only ties loses).
    let useless = sample.len() / 2 + 1;
    // An exponent with no misses is one the first value fits: those are
    // tried first, each until its first miss, and the smallest that has
    // none is the only candidate (as the count below would find, without
    // counting the others).
    let mut ns = Vec::with_capacity(sample.len());
    let zero = (0..=F::MAX_EXP).filter(|&e| fits(&sample[0], e)).find(|&e| {
        ns.clear();
        ns.extend(sample.iter().map_while(|&v| exact_decimal(v, e)));
        ns.len() == sample.len()
    });
    // When the sample is the whole column, its integers are the decimal's.
    if let Some(e) = zero.filter(|_| sample.len() == values.len()) {
        return DecimalParts::known(&ns).encode_below(values, e, plain_len).unwrap_or_else(|| plain(values));
    }
    let mut best3: Vec<(usize, u8)> = Vec::with_capacity(4);
    if let Some(e) = zero {
        best3.push((0, e));
    }
    // Otherwise the misses of every exponent, from the exponents each
    // sampled value fits (a few checks each, not one per exponent).
    // (When the sample is the whole column, they give the decimals' integers.)
    let mut fit_counts = [0usize; 32];
    let mut masks = Vec::new();
    if zero.is_none() {
        masks.reserve_exact(sample.len());
        for v in &sample {
            let mask = fit_mask(*v);
            masks.push(mask);
            let mut m = mask;
            while m != 0 {
                fit_counts[m.trailing_zeros() as usize] += 1;
                m &= m - 1;
            }
        }
    }
    for e in (0..=F::MAX_EXP).filter(|_| zero.is_none()) {
        let bound = if best3.len() == 3 { best3[2].0.min(useless) } else { useless };
        let misses = sample.len() - fit_counts[usize::from(e)];
        if misses >= bound {
            continue;
        }
        let at = best3.iter().position(|&(m, _)| m > misses).unwrap_or(best3.len());
        best3.insert(at, (misses, e));
        best3.truncate(3);
    }
    let tries = if best3.first().is_some_and(|&(m, _)| m == 0) { 1 } else { 3 };
    // Each candidate sized first, written only if it is the smallest so far.
    let mut best: Option<Vec<u8>> = None;
    for &(misses, e) in best3.iter().take(tries) {
        let parts = if masks.len() == values.len() {
            DecimalParts::masked(values, e, &masks, misses)
        } else {
            DecimalParts::of(values, e)
        };
        if let Some(candidate) = parts.encode_below(values, e, best.as_ref().map_or(plain_len, Vec::len)) {
            best = Some(candidate);
        }
    }
    best.unwrap_or_else(|| plain(values))
}

fn raw<F: Float>(bytes: &[u8]) -> F {
    let mut b = [0u8; 8];
    b[..F::BYTES].copy_from_slice(bytes);
    F::from_bits64(u64::from_le_bytes(b))
}

/// Reads a float column body of exactly `n` values.
pub(crate) fn decode<F: Float>(c: &mut Cursor<'_>, n: u64) -> Result<Vec<F>> {
    let at = c.offset();
    let enc = c.u8()?;
    match E::from_byte(enc) {
        Some(E::PlainFloat) => {
            let bytes = c.take_checked(u128::from(n) * F::BYTES as u128)?;
            Ok(bytes.chunks_exact(F::BYTES).map(raw).collect())
        }
        Some(E::Decimal) => {
            let e_at = c.offset();
            let e = c.u8()?;
            if e > F::MAX_EXP {
                return Err(c.invalid(e_at, format!("the exponent {e} passes {}", F::MAX_EXP)));
            }
            let mut body = c.block()?;
            // Zigzag values of at most 64 bits: each maps back into i64.
            let ints: Vec<u64> = ints::decode(&mut body, n, 64)?;
            body.finish("integer block")?;
            let out: Vec<F> =
                ints.into_iter().map(|z| F::from_decimal((z >> 1) as i64 ^ -((z & 1) as i64), e)).collect();
            let mut out = out;
            let count_at = c.offset();
            let k = c.varint(64)? as u64;
            if k > n {
                return Err(c.invalid(count_at, format!("{k} exceptions in a column of {n} values")));
            }
            if k > 0 {
                let mut pos = c.block()?;
                let positions: Vec<u64> = ints::decode(&mut pos, k, 64)?;
                pos.finish("exception positions")?;
                let bytes = c.take_checked(u128::from(k) * F::BYTES as u128)?;
                // Strictly ascending positions: one form for a column, and
                // no exception that overwrites another.
                if positions.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(c.invalid(count_at, "the exception positions are not strictly ascending".into()));
                }
                for (p, b) in positions.iter().zip(bytes.chunks_exact(F::BYTES)) {
                    let slot = usize::try_from(*p).ok().and_then(|p| out.get_mut(p)).ok_or_else(|| {
                        c.invalid(count_at, format!("an exception at position {p} of a column of {n}"))
                    })?;
                    *slot = raw(b);
                }
            }
            Ok(out)
        }
        Some(E::FloatDictionary) => {
            let d_at = c.offset();
            let d = c.varint(64)? as u64;
            // No more distinct values than values: this bounds what the
            // dictionary allocates by the n already charged to the budget.
            // (Not by the bytes left: a decimal inner column of width 0
            // holds any number of values in a few bytes.)
            if d > n {
                return Err(c.invalid(d_at, format!("a dictionary of {d} values for a column of {n}")));
            }
            let mut inner = c.block()?;
            if matches!(E::from_byte(inner.clone_first_byte()), Some(E::FloatDictionary | E::XorFloat)) {
                return Err(c.invalid(d_at, "a dictionary's values are neither plain nor decimal".into()));
            }
            let distinct: Vec<F> = decode(&mut inner, d)?;
            inner.finish("dictionary")?;
            let ids: Vec<u64> = ints::decode(c, n, 64)?;
            ids.iter()
                .map(|&i| {
                    distinct
                        .get(usize::try_from(i).unwrap_or(usize::MAX))
                        .copied()
                        .ok_or_else(|| c.invalid(d_at, format!("a dictionary index {i} past its {d} values")))
                })
                .collect()
        }
        Some(E::XorFloat) => decode_xor(c, n),
        _ => Err(Error::at(ErrorKind::UnknownDiscriminant, at, format!("0x{enc:02x} is not a float column encoding"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<F: Float + std::fmt::Debug>(values: &[F]) -> Vec<u8> {
        let bytes = encode(values);
        let mut c = Cursor::new(&bytes, 0);
        let back: Vec<F> = decode(&mut c, values.len() as u64).unwrap();
        assert!(c.at_end());
        let bits = |v: &[F]| v.iter().map(|x| x.to_bits64()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(values));
        bytes
    }

    #[test]
    fn a_dictionary_may_hold_more_values_than_bytes() {
        // 20 distinct halves, one repeated: a dictionary whose decimal values
        // are a delta of width 0 (SPEC.md vector "a float dictionary of more
        // values than bytes"). Readers once refused it, expecting a byte a value.
        let mut v: Vec<f64> = (0..19).map(|i| 22.5 + f64::from(i)).collect();
        v.extend([40.5, 41.5]);
        let bytes = round_trip(&v);
        assert_eq!(bytes[0], 0x12, "{bytes:02x?}");
        assert!(bytes.len() - 2 < 20, "fewer bytes after d than its 20 values");
        // The original report: 111 halves, from the TypeScript cross-language test.
        let v: Vec<f64> = (0..111).map(|i| (f64::from(i) * 0.37).round() + 0.5).collect();
        round_trip(&v);
    }

    /// The planning of `encode_direct` before its speed-ups (`powi` and
    /// `round` calls, every exponent counted in full), kept to check that
    /// the faster one chooses the same bytes.
    fn encode_direct_reference<F: Float>(values: &[F]) -> Vec<u8> {
        fn scaled<F: Float>(v: F, e: u8) -> Option<i64> {
            let s = (v.to_f64() * 10f64.powi(i32::from(e))).round();
            let limit = if F::BYTES == 8 { 9.0e15 } else { 1.6e7 };
            (s.abs() < limit).then_some(s as i64)
        }
        fn from_decimal<F: Float>(n: i64, e: u8) -> u64 {
            if F::BYTES == 8 {
                (n as f64 / 10f64.powi(i32::from(e))).to_bits()
            } else {
                u64::from((n as f32 / 10f32.powi(i32::from(e))).to_bits())
            }
        }
        let mut best = plain(values);
        if values.is_empty() {
            return best;
        }
        let sample: Vec<F> = values.iter().step_by((values.len() / 256).max(1)).copied().collect();
        let mut by_misses: Vec<(usize, u8)> = (0..=F::MAX_EXP)
            .map(|e| {
                let misses = sample
                    .iter()
                    .filter(|v| !matches!(scaled(**v, e), Some(n) if from_decimal::<F>(n, e) == v.to_bits64()))
                    .count();
                (misses, e)
            })
            .collect();
        by_misses.sort();
        let tries = if by_misses[0].0 == 0 { 1 } else { 3 };
        for &(misses, e) in by_misses.iter().take(tries) {
            if misses * 2 > sample.len() {
                break;
            }
            let candidate = decimal(values, e);
            if candidate.len() < best.len() {
                best = candidate;
            }
        }
        best
    }

    #[test]
    fn fast_planning_chooses_what_the_full_count_chose() {
        for e in 0..=18u8 {
            assert_eq!(POW10_F64[usize::from(e)].to_bits(), 10f64.powi(i32::from(e)).to_bits());
        }
        for e in 0..=10u8 {
            assert_eq!(POW10_F32[usize::from(e)].to_bits(), 10f32.powi(i32::from(e)).to_bits());
        }
        let mut seed = 3u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 11
        };
        let odd =
            [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX, 9.0e15, -8.999999999999999e15];
        for x in odd.iter().chain(&[0.5, -0.5, 1.5, -2.5, 4503599627370495.5, 0.49999999999999994, 1e18, 3.0e18]) {
            for e in 0..=18 {
                let s = (x * 10f64.powi(e)).round();
                assert_eq!(x.scaled(e as u8), (s.abs() < 9.0e15).then_some(s as i64), "{x} at {e}");
            }
        }
        // The check without division where it cannot hold, against the check.
        let check = |v: f64| {
            for e in 0..=18u8 {
                let full = matches!(v.scaled(e), Some(n) if f64::from_decimal(n, e).to_bits() == v.to_bits());
                assert_eq!(exact_decimal(v, e).is_some(), full, "{v:e} at {e}");
                if let Some(n) = exact_decimal(v, e) {
                    assert_eq!(Some(n), v.scaled(e));
                }
            }
            let w = v as f32;
            for e in 0..=10u8 {
                let full = matches!(w.scaled(e), Some(n) if f32::from_decimal(n, e).to_bits() == w.to_bits());
                assert_eq!(exact_decimal(w, e).is_some(), full, "{w:e} (f32) at {e}");
            }
            // The exponents found with a few checks, against all of them.
            let mask = |fits: &dyn Fn(u8) -> bool, max: u8| (0..=max).filter(|&e| fits(e)).fold(0, |m, e| m | 1 << e);
            assert_eq!(fit_mask(v), mask(&|e| exact_decimal(v, e).is_some(), 18), "{v:e}");
            assert_eq!(fit_mask(w), mask(&|e| exact_decimal(w, e).is_some(), 10), "{w:e} (f32)");
        };
        for &x in &odd {
            check(x);
        }
        // Decimals whose integers sit near 2^46..2^54 and the f32 bounds,
        // where the mask's shortcut gives way to checks one by one.
        for bits in [20, 21, 22, 23, 24, 25, 46, 47, 48, 49, 50, 51, 52, 53, 54] {
            for d in 0..19 {
                let n = (1u64 << bits) - 3 + (next() % 7);
                check(n as f64 / 10f64.powi(d));
                check((n / 7) as f64 / 10f64.powi(d));
            }
        }
        for i in 0..200_000u64 {
            let r = next();
            let digits = (r % 19) as i32;
            let mantissa = (next() % 10u64.pow(1 + (i % 17) as u32)) as f64;
            let v = match i % 4 {
                0 => mantissa / 10f64.powi(digits),
                1 => f64::from_bits(r << 11 | i),
                2 => f64::from_bits((mantissa / 10f64.powi(digits)).to_bits() + 1),
                _ => mantissa * 10f64.powi(digits % 6) + 0.5,
            };
            check(v);
            check(-v);
        }
        for round in 0..400 {
            let n = [1, 2, 7, 100, 252, 1000, 3000][round % 7];
            let digits = (round / 7) % 9;
            let kind = round % 5;
            let values: Vec<f64> = (0..n)
                .map(|i| {
                    let r = next();
                    match kind {
                        // Short decimals of `digits` places, some exceptions.
                        0 => (r % 1_000_000) as f64 / 10f64.powi(digits as i32) * if i % 3 == 0 { -1.0 } else { 1.0 },
                        1 if r % 10 == 0 => f64::from_bits(r << 11),
                        1 => (r % 100_000) as f64 / 10f64.powi(digits as i32),
                        2 => odd[(r % odd.len() as u64) as usize],
                        3 => (r % 7) as f64 * 0.1,
                        _ => f64::from_bits(next() << 1),
                    }
                })
                .collect();
            assert_eq!(encode_direct(&values), encode_direct_reference(&values), "round {round}");
            let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            assert_eq!(encode_direct(&v32), encode_direct_reference(&v32), "round {round}, f32");
        }
    }

    #[test]
    fn prices_become_small_integers() {
        let prices: Vec<f64> =
            (0..252).map(|i| 2500.0 + f64::from(i) * 1.37 + 0.01).map(|x| (x * 100.0).round() / 100.0).collect();
        let bytes = round_trip(&prices);
        assert_eq!(bytes[0], E::Decimal.byte());
        assert!(bytes.len() < 252 * 3, "{} bytes", bytes.len());
    }

    #[test]
    fn exceptions_and_odd_values_survive() {
        round_trip(&[0.1, 0.2, f64::NAN, -0.0, 1e300, f64::INFINITY, 3.25, 5e-324]);
        round_trip(&[1.5f32, 0.1, f32::NAN, -0.0]);
        // Square roots move slowly: their XORs with the one before are short.
        let roots: Vec<f64> = (1..500).map(|i| (f64::from(i)).sqrt()).collect();
        assert_eq!(round_trip(&roots)[0], E::XorFloat.byte());
        // Random bits share nothing with their neighbours.
        let mut seed = 99u64;
        let noise: Vec<f64> = (0..500)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                f64::from_bits(seed >> 2 | 0x3ff0_0000_0000_0000 ^ seed << 62)
            })
            .collect();
        assert_eq!(round_trip(&noise)[0], E::PlainFloat.byte());
        let few: Vec<f64> = (0..1000).map(|i| f64::from(i % 7).sqrt()).collect();
        assert_eq!(round_trip(&few)[0], E::FloatDictionary.byte());
        round_trip::<f64>(&[]);
    }

    /// [`xor_size_below`] as the sum of the fields [`xor_fields`] emits,
    /// kept to check the count without them.
    fn xor_size_below_reference<F: Float>(values: &[F], limit: usize) -> Option<usize> {
        let mut bits = 0u64;
        let size = |bits: u64| 1 + F::BYTES + bits.div_ceil(8) as usize;
        let mut below = size(0) < limit;
        xor_fields(values, |_, w| {
            bits += u64::from(w);
            below = size(bits) < limit;
            below
        });
        below.then_some(size(bits))
    }

    #[test]
    fn xor_size_counts_what_the_fields_take() {
        let mut seed = 5u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 11
        };
        for round in 0..300 {
            let n = [1, 2, 3, 17, 100, 500][round % 6];
            let values: Vec<f64> = (0..n)
                .map(|i| match (round / 6) % 5 {
                    0 => f64::from_bits(next() << 11),
                    1 => (next() % 1000) as f64 / 100.0,
                    2 => (i as f64).sqrt() + (next() % 3) as f64,
                    3 if next() % 4 == 0 => f64::NAN,
                    3 => [0.0, -0.0, 1.0, f64::INFINITY][(next() % 4) as usize],
                    _ => f64::from_bits(0x3ff0_0000_0000_0000 | (next() % 64) << (next() % 50)),
                })
                .collect();
            let full = xor_size_below_reference(&values, usize::MAX);
            for limit in [0, 1, 9, 10, 11, 50, 200, 1000, 4000, usize::MAX] {
                assert_eq!(xor_size_below(&values, limit), xor_size_below_reference(&values, limit), "{round} {limit}");
            }
            let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            for limit in [0, 5, 6, 40, 300, usize::MAX] {
                assert_eq!(xor_size_below(&v32, limit), xor_size_below_reference(&v32, limit), "{round} {limit}");
            }
            assert_eq!(full, Some(xor(&values).len()));
        }
    }

    #[test]
    fn xor_takes_slowly_moving_measurements() {
        // A random walk with full-precision steps: no short decimals, but
        // neighbours share sign, exponent and the top of the mantissa.
        let mut x = 20.0f64;
        let mut seed = 12345u64;
        let walk: Vec<f64> = (0..1000)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x += ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e-3;
                x
            })
            .collect();
        let bytes = round_trip(&walk);
        assert_eq!(bytes[0], E::XorFloat.byte());
        assert!(bytes.len() < 1000 * 8, "{} bytes", bytes.len());
        let walk32: Vec<f32> = walk.iter().map(|&v| v as f32).collect();
        assert_eq!(round_trip(&walk32)[0], E::XorFloat.byte());
        // Repeats, odd values and one value.
        for v in [
            vec![1.0, 1.0, 1.0, f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX, 1.0],
            vec![std::f64::consts::PI],
        ] {
            let bytes = xor(&v);
            let mut c = Cursor::new(&bytes, 0);
            let back: Vec<f64> = decode(&mut c, v.len() as u64).unwrap();
            assert_eq!(
                back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
            assert_eq!(xor_size(&v), bytes.len());
        }
        let v32 = [f32::MIN_POSITIVE, -f32::MAX, f32::NAN, 1e-45, 1.0];
        let bytes = xor(&v32);
        let mut c = Cursor::new(&bytes, 0);
        let back: Vec<f32> = decode(&mut c, 5).unwrap();
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            v32.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn xor_garbage_fails() {
        let kind = |bytes: &[u8], n: u64| {
            let mut c = Cursor::new(bytes, 0);
            decode::<f64>(&mut c, n).map(|_| ()).unwrap_err().kind()
        };
        let one = [E::XorFloat.byte(), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f];
        // Too few bits for the values that follow the first.
        assert_eq!(kind(&one, 2), ErrorKind::Truncated);
        // No values at all.
        assert_eq!(kind(&one, 0), ErrorKind::InvalidColumn);
        // A reuse of a window before any: bits 1, 0.
        assert_eq!(kind(&[&one[..], &[0b01]].concat(), 2), ErrorKind::InvalidColumn);
        // A new window of 63 leading zeros and 64 bits.
        let mut bad = one.to_vec();
        bad.extend_from_slice(&[0b1111_1111, 0b1111_1111, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(kind(&bad, 2), ErrorKind::InvalidColumn);
        // Bits 0 (equal), then nonzero padding.
        assert_eq!(kind(&[&one[..], &[0b10]].concat(), 2), ErrorKind::InvalidColumn);
        // A byte too many.
        assert_eq!(kind(&[&one[..], &[0, 0]].concat(), 2), ErrorKind::InvalidColumn);
        // A window whose bits end early.
        assert_eq!(kind(&[&one[..], &[0b0000_0011, 0b1111_1100]].concat(), 2), ErrorKind::Truncated);
    }
}
