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

mod dictionary;

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
    /// [`Float::from_decimal`] of the integer `n` held exactly by the
    /// float `y` (below 2^50 in magnitude), without converting it: `y`
    /// over `p`, the type's [`Float::pow10`] of the exponent.
    fn from_integral(y: f64, p: Self) -> Self;
    /// 10^e in the type (exact: e up to `MAX_EXP`).
    fn pow10(e: u8) -> Self;
    fn scaled(self, e: u8) -> Option<i64>;
    /// A bound, relative to `self * 10^e`, on how far that product can be
    /// from the integer `n` of a decimal that gives `self` back: twice the
    /// largest distance the type's rounding allows (see [`exact_decimal`]).
    const NEAR: f64;
    /// The magnitude from which a product `v·10^e`, rounded half away from
    /// zero, reaches the integers' limit (9·10^15 for f64, 16·10^6 for
    /// f32): for f64 the limit itself (the floats from 2^52 to 2^53 are
    /// the integers, so a product below 9·10^15 is an integer below it),
    /// for f32 half less (15,999,999.5 rounds up to the limit).
    const SCALED_BELOW: f64;
}

impl Float for f64 {
    const BYTES: usize = 8;
    const FIELD: u32 = 6;
    const MAX_EXP: u8 = 18;
    const NEAR: f64 = 1.0 / (1u64 << 51) as f64;
    const SCALED_BELOW: f64 = 9.0e15;
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
    fn from_integral(y: f64, p: Self) -> Self {
        y / p
    }
    fn pow10(e: u8) -> Self {
        POW10_F64[usize::from(e)]
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
    const SCALED_BELOW: f64 = 15_999_999.5;
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
    fn from_integral(y: f64, p: Self) -> Self {
        y as f32 / p
    }
    fn pow10(e: u8) -> Self {
        POW10_F32[usize::from(e)]
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
    // Zeroed once and filled in fixed-width slots: no length or capacity
    // check per value (an `extend_from_slice` per value has both).
    let mut out = vec![0u8; 1 + values.len() * F::BYTES];
    out[0] = E::PlainFloat.byte();
    for (slot, v) in out[1..].chunks_exact_mut(F::BYTES).zip(values) {
        slot.copy_from_slice(&v.to_bits64().to_le_bytes()[..F::BYTES]);
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
// `!(x.abs() < bound)` on purpose: NaN fails it too, in the one comparison.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
#[inline]
fn exact_decimal<F: Float>(v: F, e: u8) -> Option<i64> {
    let x = v.to_f64() * POW10_F64[usize::from(e)];
    // One comparison for NaN, the infinities and the integers' limit
    // (9·10^15, or 16·10^6 for f32): the products below `F::SCALED_BELOW`
    // in magnitude are exactly those that round (half away from zero) to
    // an integer below the limit (see there).
    if !(x.abs() < F::SCALED_BELOW) {
        return None;
    }
    // Rounded half away from zero, without branches (fractions are noise).
    let t = x as i64;
    let f = x - t as f64;
    let n = t + i64::from(f >= 0.5) - i64::from(f <= -0.5);
    // The distance to the nearest integer: `f.abs().min(1.0 - f.abs())`,
    // as a plain comparison (`f` is never NaN here: `min`'s handling of
    // NaN costs a few instructions more).
    let (a, b) = (f.abs(), 1.0 - f.abs());
    let off = if b < a { b } else { a };
    if off > x.abs() * F::NEAR {
        return None;
    }
    (F::from_decimal(n, e).to_bits64() == v.to_bits64()).then_some(n)
}

/// What [`exact_decimal_near`] leaves to [`exact_decimal`]: no integer
/// below 2^54 in magnitude zigzags to it.
const UNDECIDED: u64 = u64::MAX;

/// The powers of ten of one exponent that [`exact_decimal_near`] takes:
/// looked up once for a column, since a look-up in the loop over its
/// values (with its bounds check) keeps LLVM from vectorising the loop.
#[derive(Clone, Copy)]
struct Pow10<F> {
    /// 10^e as an f64, for the product.
    wide: f64,
    /// 10^e in the column's type, for the division.
    own: F,
}

impl<F: Float> Pow10<F> {
    fn of(e: u8) -> Self {
        Pow10 { wide: POW10_F64[usize::from(e)], own: F::pow10(e) }
    }
}

/// [`exact_decimal`]`(v, e)` zigzagged where the product `x = v·10^e` is
/// below `0.5 / F::NEAR` (2^50, or 2^21 for f32) in magnitude and `v`
/// fits, else [`UNDECIDED`] (for a value that does not fit, and for NaN,
/// the infinities and larger products), without a branch. Below that
/// bound, a product halfway between two integers is further than
/// `|x|·F::NEAR` from both, so fits neither: rounding to the nearest, ties
/// to even, gives the integer that rounding half away from zero gives
/// wherever the value can fit. That rounding is adding and subtracting
/// 1.5·2^52 (exact for `|x|` below 2^51), whose sum's bits hold the integer
/// too; and the rounded float is the integer exactly, so the division
/// needs no conversion. `p`: the powers of ten of `e` (exact in f64 and in
/// the column's own type for every `e` up to `MAX_EXP`: 10^10 is
/// 2^10·9,765,625, which f32 holds).
///
/// [`exact_decimal`]'s nearness test is left out: the division giving `v`
/// back implies it. If `y / 10^e` rounds to a normal `v` (a subnormal or
/// zero `v` has `y = 0`, which gives back only +0), then `|y - v·10^e| <=
/// |v·10^e|·2^-q` (`q` the precision, 53 or 24), and `x` is within
/// `|v·10^e|·2^-53` of `v·10^e`: so `|x - y|` is at most about
/// `|x|·2^-(q-1)` (for f64 `|x|·2^-52·(1 + 2^-53)`), within `|x|·F::NEAR`
/// with about a factor of two to spare (both sides exact in
/// `exact_decimal`'s test, which so passes). Nor can a product that is a
/// tie give `v` back.
#[inline(always)]
fn exact_decimal_near<F: Float>(v: F, p: Pow10<F>) -> u64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5·2^52
    let x = v.to_f64() * p.wide;
    let r = x + MAGIC;
    let y = r - MAGIC;
    let n = (r.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    // (`&`, not `&&`: no branch.)
    let fits = (x.abs() < 0.5 / F::NEAR) & (F::from_integral(y, p.own).to_bits64() == v.to_bits64());
    // All ones where it does not fit, or'd into the zigzag form.
    varint::zigzag64(n) | (u64::from(fits)).wrapping_sub(1)
}

/// Whether [`exact_decimal`]`(v, e)` holds, for any `v` but -0 (which
/// fits no exponent: its integer 0 gives back +0), without a branch: the
/// product's magnitude `a` rounded half up by adding and subtracting 2^52
/// (exact up to `F::SCALED_BELOW`, below 2^53: from 2^52 on `a` is an
/// integer already), a tie that went down to even moved up, and the
/// division compared with `|v|`. A negative `v` fits as `|v|` does (the
/// integer's sign is the product's, and the division is symmetric). The
/// nearness test is left out as in [`exact_decimal_near`] (the division
/// giving `v` back implies it, at any magnitude), and NaN and the
/// infinities fail the bound.
#[inline(always)]
fn fits_wide<F: Float>(v: F, p: Pow10<F>) -> bool {
    const TWO52: f64 = 4_503_599_627_370_496.0;
    let sign = 1u64 << (8 * F::BYTES - 1);
    let a = v.to_f64().abs() * p.wide;
    let r = if a < TWO52 { (a + TWO52) - TWO52 } else { a };
    let y = r + f64::from(u8::from(a - r == 0.5));
    (a < F::SCALED_BELOW) & (F::from_integral(y, p.own).to_bits64() == v.to_bits64() & !sign)
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
/// below it. Above `top`, only `top + 1` can have a product below the
/// integers' limit (no fit where the product reaches it: its integer
/// would be the limit or more): checked alone. NaN and the infinities fit
/// none.
#[inline]
fn fit_mask<F: Float>(v: F) -> u32 {
    let a = v.to_f64().abs();
    // (-0 fits none, as NaN and the infinities.)
    if !a.is_finite() || v.to_bits64() == 1 << (8 * F::BYTES - 1) {
        return 0;
    }
    // 2^(p-3) less a margin far above `F::NEAR`, and the integers' limit.
    let (bound, limit) = if F::BYTES == 8 { (TOP_BOUND_F64, 9.0e15) } else { (TOP_BOUND_F32, 1.6e7) };
    let max = i32::from(F::MAX_EXP);
    let pow = |e: i32| POW10_F64[e as usize];
    // `top` (-1 if `a` passes the bound at 0): that of the smallest
    // magnitude with `a`'s binary exponent, from a table, or one less
    // (`a` is below twice that magnitude, whose product at one exponent
    // less is a fifth of the one at `top`, below the bound).
    let table = if F::BYTES == 8 { &TOP_F64 } else { &TOP_F32 };
    let t = i32::from(table[(a.to_bits() >> 52) as usize]);
    let top = if t >= 0 && a * pow(t) > bound { t - 1 } else { t };
    // Up to `top` the products are below 2^50 (2^21 for f32), where
    // `exact_decimal_near` decides exactly what `exact_decimal` does,
    // without a branch; above it, the full check.
    let near = |e: i32| exact_decimal_near(v, Pow10::of(e as u8)) != UNDECIDED;
    let fits = |e: i32| fits_wide(v, Pow10::of(e as u8));
    let mut mask = 0u32;
    if top >= 0 && near(top) {
        let (mut lo, mut hi) = (0, top);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if near(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        mask = ((2u32 << top) - 1) & !((1u32 << lo) - 1);
    }
    // Above `top`, one exponent at most is below the integers' limit: the
    // product at `top + 1` passes the bound, so the one at `top + 2` passes
    // ten times the bound, more than the limit (1.1·10^16 against 9·10^15,
    // 2.1·10^7 against 1.6·10^7).
    let e = top + 1;
    if e <= max && a * pow(e) < limit && fits(e) {
        mask |= 1 << e;
    }
    mask
}

/// `fit_mask`'s `top` for each binary exponent (an f64's 11 bits: the
/// index) at its smallest magnitude `2^u`: the largest exponent `e` up to
/// `max` at which `2^u·10^e` is within the bound, -1 if none (for the
/// subnormals' field, whose magnitudes are below every bound, `max`).
/// The bound is `2^p` less a margin that no `2^u·10^e` falls in (its odd
/// part, `5^e`, is no power of two), so the condition is `10^e < 2^(p-u)`:
/// `e` is `floor((p-u)·log10(2))` (never an integer for `p - u` from 1),
/// by a multiplication exact over these exponents (the tests check the
/// table against the products). In integers: a `const fn` (the crate's
/// Rust has no floating point there).
const fn top_table(p: i32, max: i32) -> [i8; 2048] {
    let mut t = [0i8; 2048];
    let mut k = 0;
    while k < 2048 {
        let m = p + 1023 - k as i32;
        t[k] = if k == 0 {
            max as i8
        } else if m <= 0 {
            -1
        } else {
            let e = (m as i64 * 315_653) >> 20;
            if e > max as i64 {
                max as i8
            } else {
                e as i8
            }
        };
        k += 1;
    }
    t
}

/// `fit_mask`'s bound for f64: 2^50 less a margin.
const TOP_BOUND_F64: f64 = (1u64 << 50) as f64 * (1.0 - 1.0 / (1u64 << 40) as f64);
/// `fit_mask`'s bound for f32: 2^21 less a margin.
const TOP_BOUND_F32: f64 = (1u64 << 21) as f64 * (1.0 - 1.0 / (1u64 << 18) as f64);
/// [`top_table`] at f64's bound (`2^50` less a margin) and largest exponent.
static TOP_F64: [i8; 2048] = top_table(50, 18);
/// [`top_table`] at f32's bound (`2^21` less a margin) and largest exponent.
static TOP_F32: [i8; 2048] = top_table(21, 10);

#[cfg(test)]
fn decimal<F: Float>(values: &[F], e: u8) -> Vec<u8> {
    DecimalParts::of(values, e).plan::<F>(e).write(values)
}

/// `x` rounded half away from zero, as [`exact_decimal`] rounds it (`x`
/// finite and below 2^63 in magnitude).
#[inline]
fn nearest(x: f64) -> i64 {
    let t = x as i64;
    let f = x - t as f64;
    t + i64::from(f >= 0.5) - i64::from(f <= -0.5)
}

/// Whether [`exact_decimal_near`] decided each of `ns` (none is
/// [`UNDECIDED`]): one pass without a branch (vectorised), so that the
/// values are walked one by one only where one is left undecided. The
/// words OR'd, and the top bit tested: a decided integer's zigzag form is
/// below 2^52 (the integer below 2^50 in magnitude), [`UNDECIDED`] has it
/// (an OR is one instruction for two words, where SSE2 has no 64-bit
/// comparison).
#[inline]
fn all_decided(ns: &[u64]) -> bool {
    ns.iter().fold(0, |any, &z| any | z) >> 63 == 0
}

/// The zigzagged [`exact_decimal`]`(v, e)` of `values`' values into
/// `ns` (cleared first), up to the first value that does not fit `e`
/// (so `ns.len()` is its position, or `values.len()` if all fit). The
/// values are checked a block at a time by [`exact_decimal_near`] (no
/// branch a value), then the ones it leaves undecided one by one; the
/// first block is short so that a miss early in a column wastes few
/// checks, and each next one twice as long, up to 1,024 values (fewer
/// blocks' setup on a column that fits).
fn fitting_prefix<F: Float>(values: &[F], e: u8, ns: &mut Vec<u64>) {
    let p = Pow10::of(e);
    ns.clear();
    let mut len = 32;
    let mut rest = values;
    while !rest.is_empty() {
        let (block, after) = rest.split_at(len.min(rest.len()));
        rest = after;
        len = (2 * len).min(1024);
        let start = ns.len();
        ns.extend(block.iter().map(|&v| exact_decimal_near(v, p)));
        if all_decided(&ns[start..]) {
            continue;
        }
        let mut miss = None;
        for (k, (z, v)) in ns[start..].iter_mut().zip(block).enumerate() {
            if *z == UNDECIDED {
                match exact_decimal(*v, e) {
                    Some(n) => *z = varint::zigzag64(n),
                    None => {
                        miss = Some(start + k);
                        break;
                    }
                }
            }
        }
        if let Some(at) = miss {
            return ns.truncate(at);
        }
    }
}

/// What the decimal encoding at one exponent writes: each value's integer
/// (zigzagged; 0 for an exception) and the positions of the exceptions.
struct DecimalParts {
    ints: Vec<u64>,
    exceptions: Vec<u64>,
}

impl DecimalParts {
    /// Each value checked with [`exact_decimal`]: first by
    /// [`exact_decimal_near`] for all (fewer instructions and no branch to
    /// mispredict), then the values it leaves undecided one by one.
    fn of<F: Float>(values: &[F], e: u8) -> Self {
        let p = Pow10::of(e);
        let ints: Vec<u64> = values.iter().map(|&v| exact_decimal_near(v, p)).collect();
        let mut parts = DecimalParts { ints, exceptions: Vec::new() };
        if all_decided(&parts.ints) {
            return parts;
        }
        for (i, (z, v)) in parts.ints.iter_mut().zip(values).enumerate() {
            if *z == UNDECIDED {
                match exact_decimal(*v, e) {
                    Some(n) => *z = varint::zigzag64(n),
                    None => {
                        *z = 0;
                        parts.exceptions.push(i as u64);
                    }
                }
            }
        }
        parts
    }

    /// [`DecimalParts::of`] `values` whose first `ints.len()` values fit
    /// `e` with those integers (zigzagged): the rest checked.
    fn resumed<F: Float>(values: &[F], e: u8, mut ints: Vec<u64>) -> Self {
        let at = ints.len();
        let rest = DecimalParts::of(&values[at..], e);
        ints.extend_from_slice(&rest.ints);
        let exceptions = rest.exceptions.iter().map(|&i| i + at as u64).collect();
        DecimalParts { ints, exceptions }
    }

    /// The zigzagged integers of values that all fit (`exact_decimal` of
    /// each).
    fn known(ints: Vec<u64>) -> Self {
        DecimalParts { ints, exceptions: Vec::new() }
    }

    /// From each value's [`fit_mask`] (`misses` of them without `e`): the
    /// integer of a value that fits `e` is its product rounded, as
    /// `exact_decimal` found it.
    fn masked<F: Float>(values: &[F], e: u8, masks: &[u32], misses: usize) -> Self {
        let mut exceptions = Vec::with_capacity(misses);
        let scale = POW10_F64[usize::from(e)];
        let ints = (values.iter().zip(masks).enumerate())
            .map(|(i, (v, m))| {
                if m >> e & 1 == 1 {
                    varint::zigzag(nearest(v.to_f64() * scale).into()) as u64
                } else {
                    exceptions.push(i as u64);
                    0
                }
            })
            .collect();
        DecimalParts { ints, exceptions }
    }

    /// The encoding at exponent `e`, sized (not yet written).
    fn plan<F: Float>(&self, e: u8) -> DecimalPlan<'_> {
        let body = ints::Planned::new(&self.ints);
        let k = self.exceptions.len();
        let pos = (k > 0).then(|| ints::Planned::new(&self.exceptions));
        let size =
            2 + body.block_size() + varint::len(k as u128) + pos.as_ref().map_or(0, |p| p.block_size() + k * F::BYTES);
        DecimalPlan { e, exceptions: &self.exceptions, body, pos, size }
    }
}

/// The decimal encoding at one exponent with its integer blocks planned:
/// its size is known before it is written, so that only the candidate
/// chosen is.
struct DecimalPlan<'a> {
    e: u8,
    exceptions: &'a [u64],
    body: ints::Planned<'a, u64>,
    pos: Option<ints::Planned<'a, u64>>,
    /// The bytes it takes.
    size: usize,
}

impl DecimalPlan<'_> {
    /// The encoding (`values` the column's the parts were made of).
    fn write<F: Float>(&self, values: &[F]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size);
        out.extend_from_slice(&[E::Decimal.byte(), self.e]);
        self.body.write_block(&mut out);
        varint::put(&mut out, self.exceptions.len() as u128);
        if let Some(pos) = &self.pos {
            pos.write_block(&mut out);
            for &i in self.exceptions {
                out.extend_from_slice(&values[i as usize].to_bits64().to_le_bytes()[..F::BYTES]);
            }
        }
        debug_assert_eq!(out.len(), self.size);
        out
    }
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
/// them (the tests check it against that count). (Not inlined: inside the
/// column encoder its loop keeps its bounds on the stack.)
#[inline(never)]
fn xor_size_below<F: Float>(values: &[F], limit: usize) -> Option<usize> {
    let size = |bits: u64| 1 + F::BYTES + bits.div_ceil(8) as usize;
    // Every value after the first takes a bit at least: a column that
    // cannot get under `limit` even so is not walked.
    if size(values.len().saturating_sub(1) as u64) >= limit {
        return None;
    }
    let width = 8 * F::BYTES as u32;
    let Some((first, rest)) = values.split_first() else { return Some(size(0)) };
    let mut prev = first.to_bits64();
    // The open window as its leading zeros and trailing zeros, and its
    // length; none open: a window no XOR fits in.
    let (mut wl, mut wt, mut wlen) = (width, width, 0u32);
    // The bits so far and the one bit at least of each value still to
    // come: the total can only reach `limit` once this does, and this
    // reaches it first (the walk stops sooner). Each value adds what it
    // takes beyond that one bit.
    let mut bits = rest.len() as u64;
    // `size(bits) >= limit` as a count of bits, `bits >= stop` (past the
    // check above, `limit` is at least `size(0) + 1`); tested only where
    // the bits grow.
    let stop = ((limit - 2 - F::BYTES) as u64).saturating_mul(8).saturating_add(1);
    // The first values walked (a walk that ends among them needs no more),
    // then the rest bounded once by `xor_bits_reach` from the bits so far,
    // and walked on where that does not decide.
    let head = rest.len().min(32);
    for (part, values) in [&rest[..head], &rest[head..]].into_iter().enumerate() {
        if part == 1 && xor_bits_reach(prev, values, bits, stop) {
            return None;
        }
        for v in values {
            let b = v.to_bits64();
            let x = b ^ prev;
            prev = b;
            if x != 0 {
                let lead = x.leading_zeros() - (64 - width);
                let trail = x.trailing_zeros();
                let len = width - lead - trail;
                if lead >= wl && trail >= wt && wlen <= len + 2 * F::FIELD {
                    bits += 1 + u64::from(wlen);
                } else {
                    (wl, wt, wlen) = (lead, trail, len);
                    bits += 1 + 2 * u64::from(F::FIELD) + u64::from(len);
                }
                if bits >= stop {
                    return None;
                }
            }
        }
    }
    Some(size(bits))
}

/// Whether the bits [`xor_size_below`] counts surely reach `stop`, with
/// `bits` counted up to `rest` (the values after them, the one before
/// having the bits `prev`), by a bound on what `rest` adds that needs no
/// window: a changed value takes, past its first bit (already in `bits`),
/// one bit and its window's length, and a window holds the value's XOR
/// (the one it opens, its own length; one it reuses, at least that), so
/// more than `len - 1` bits, `len` the XOR's bits from its first to its
/// last 1 (`len - 1` is the distance between the two: the form that needs
/// no test for an equal value, whose XOR has no bits). A dozen
/// instructions a value without a branch, against the walk's two dozen:
/// most columns that reach the XOR sizing are short decimals, whose XORs
/// take about 50 bits each against the decimal encoding's few, and their
/// walk only ends at `stop`. After each block (the first of 16 values, so
/// that a walk about to end wastes few, then of 64), a bound that would
/// not pass `stop` by an eighth at the end at its rate so far gives way to
/// the walk (there the XOR may well be smaller, or the bound too
/// loose, its windows reused wider than its values; a question of speed
/// only: `false` is never wrong).
#[inline(never)]
fn xor_bits_reach<F: Float>(mut prev: u64, rest: &[F], mut bits: u64, stop: u64) -> bool {
    // The highest set bit's position, 0 for 0 (no branch).
    let top = |x: u64| (x | 1).ilog2();
    let (start, n, goal) = (bits as f64, rest.len() as f64, stop as f64 * 1.125);
    let (mut seen, mut len) = (0, 16);
    while seen < rest.len() {
        let block = &rest[seen..rest.len().min(seen + len)];
        seen += block.len();
        len = 64;
        // From the highest 1 to the lowest (isolated: `x & -x`).
        let span = |x: u64| u64::from(top(x) - top(x & x.wrapping_neg()));
        // Two values a step: no copy of the value before (each pair's
        // second is the next one's), and half the loop's own instructions.
        let mut pairs = block.chunks_exact(2);
        for pair in &mut pairs {
            let (a, b) = (pair[0].to_bits64(), pair[1].to_bits64());
            bits += span(a ^ prev) + span(b ^ a);
            prev = b;
        }
        for v in pairs.remainder() {
            let b = v.to_bits64();
            bits += span(b ^ prev);
            prev = b;
        }
        if bits >= stop {
            return true;
        }
        // (In floats: a guess, whose rounding does not matter.)
        if start + (bits as f64 - start) * (n / seen as f64) < goal {
            return false;
        }
    }
    false
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
/// Each candidate is sized first; only the smallest is written (the first
/// among equals, in the order plain or decimal, the hint's decimal, XOR,
/// the dictionary).
fn encode_hinted<F: Float>(values: &[F], hint: Option<u8>) -> Vec<u8> {
    // One on the stack per column: boxing the plan would cost an allocation.
    #[allow(clippy::large_enum_variant)]
    enum Pick<'a> {
        Plain,
        Decimal(DecimalPlan<'a>),
        Xor,
    }
    let tries = direct_tries(values);
    let mut pick = Pick::Plain;
    let mut best = 1 + values.len() * F::BYTES;
    if let Some(plan) = smallest::<F>(&tries, best) {
        best = plan.size;
        pick = Pick::Decimal(plan);
    }
    let hinted = hint.filter(|_| !values.is_empty()).map(|e| (e, DecimalParts::of(values, e)));
    if let Some((e, parts)) = &hinted {
        let plan = parts.plan::<F>(*e);
        if plan.size < best {
            best = plan.size;
            pick = Pick::Decimal(plan);
        }
    }
    // On a long column, XOR must look close to winning on its first values
    // before it is sized in full.
    const SAMPLE: usize = 4096;
    let promising =
        values.len() <= 4 * SAMPLE || xor_size(&values[..SAMPLE]) * values.len() < best * SAMPLE + best * SAMPLE / 8;
    if !values.is_empty() && promising {
        if let Some(size) = xor_size_below(values, best) {
            best = size;
            pick = Pick::Xor;
        }
    }
    // The integers of any decimal worked out stand for the values' bits.
    let parts = tries.first().or(hinted.as_ref()).map(|(e, parts)| (*e, parts));
    if let Some((distinct, ids)) = dictionary::dictionary(values, parts) {
        let inner_tries = direct_tries(&distinct);
        let inner_plain = 1 + distinct.len() * F::BYTES;
        let inner = smallest::<F>(&inner_tries, inner_plain);
        let inner_size = inner.as_ref().map_or(inner_plain, |p| p.size);
        let planned = ints::Planned::with_stats(&ids, &ints::Stats::of_ids(&ids, distinct.len()));
        let size =
            1 + varint::len(distinct.len() as u128) + varint::len(inner_size as u128) + inner_size + planned.size();
        if size < best {
            let mut d = Vec::with_capacity(size);
            d.push(E::FloatDictionary.byte());
            varint::put(&mut d, distinct.len() as u128);
            varint::put(&mut d, inner_size as u128);
            match inner {
                Some(p) => d.extend_from_slice(&p.write(&distinct)),
                None => d.extend_from_slice(&plain(&distinct)),
            }
            planned.write(&mut d);
            debug_assert_eq!(d.len(), size);
            return d;
        }
    }
    match pick {
        Pick::Plain => plain(values),
        Pick::Decimal(plan) => plan.write(values),
        Pick::Xor => xor(values),
    }
}

/// The smaller of the plain and the decimal encoding.
#[cfg(test)]
fn encode_direct<F: Float>(values: &[F]) -> Vec<u8> {
    let tries = direct_tries(values);
    match smallest::<F>(&tries, 1 + values.len() * F::BYTES) {
        Some(plan) => plan.write(values),
        None => plain(values),
    }
}

/// The first of the smallest of `tries` if it is smaller than `limit`
/// bytes, planned.
fn smallest<F: Float>(tries: &[(u8, DecimalParts)], limit: usize) -> Option<DecimalPlan<'_>> {
    let mut best: Option<DecimalPlan<'_>> = None;
    for (e, parts) in tries {
        let plan = parts.plan::<F>(*e);
        if plan.size < best.as_ref().map_or(limit, |b| b.size) {
            best = Some(plan);
        }
    }
    best
}

/// The decimal encodings that [`encode_direct`] weighs against plain, in
/// the order it tries them: each exponent with its parts over the whole
/// column (none for an empty one).
fn direct_tries<F: Float>(values: &[F]) -> Vec<(u8, DecimalParts)> {
    if values.is_empty() {
        return Vec::new();
    }
    // The exponent that leaves the fewest exceptions is found on a sample,
    // then the few best candidates are encoded in full: the three of fewest
    // misses (the smaller exponent first among equals), or the one with none.
    // (The sample: every `step`th value, the first included.)
    let step = (values.len() / 256).max(1);
    let sampled = values.len().div_ceil(step);
    let fits = |v: &F, e: u8| exact_decimal(*v, e).is_some();
    // An exponent that misses more than half the sample is never tried, nor
    // one that cannot be among the three (the exponents come in increasing
    // order, so one that only ties loses).
    let useless = sampled / 2 + 1;
    // An exponent with no misses is one the first value fits: those are
    // tried first, each until its first miss, and the smallest that has
    // none is the only candidate (as the count below would find, without
    // counting the others).
    // An exponent that a value missed at an exponent tried before does not
    // fit is skipped without a pass: its pass would stop at that value too.
    // Each pass walks the whole column, not the sample: where the column
    // fits, its integers are the decimal's (no second pass over it); its
    // first miss, if sampled, is the sample's first; if not, the sample is
    // checked on from the next sampled value.
    let mut ns = Vec::with_capacity(values.len());
    let mut missed: Vec<F> = Vec::new();
    let zero = (0..=F::MAX_EXP).filter(|&e| fits(&values[0], e)).find(|&e| {
        if !missed.iter().all(|v| fits(v, e)) {
            return false;
        }
        fitting_prefix(values, e, &mut ns);
        let at = ns.len();
        if at == values.len() {
            return true;
        }
        let miss = if at % step == 0 {
            Some(values[at])
        } else {
            values.iter().skip((at / step + 1) * step).step_by(step).copied().find(|v| !fits(v, e))
        };
        missed.extend(miss);
        miss.is_none()
    });
    if let Some(e) = zero {
        let parts =
            if ns.len() == values.len() { DecimalParts::known(ns) } else { DecimalParts::resumed(values, e, ns) };
        return vec![(e, parts)];
    }
    // (A column of fewer than 512 values is its own sample: not copied.)
    let copy: Vec<F>;
    let sample: &[F] = if step == 1 {
        values
    } else {
        copy = values.iter().step_by(step).copied().collect();
        &copy
    };
    let mut best3: Vec<(usize, u8)> = Vec::with_capacity(4);
    // Otherwise the misses of every exponent (none is without), from the
    // exponents each sampled value fits (a few checks each, not one per
    // exponent). (When the sample is the whole column, they give the
    // decimals' integers.)
    let mut fit_counts = [0usize; 32];
    let mut masks = Vec::with_capacity(sample.len());
    // The most values any exponent fits so far: once every exponent
    // missed `useless` of them, none is a candidate (their counts, cut
    // short, still give them that many misses or more), and the count
    // stops.
    let mut most = 0usize;
    for (k, v) in sample.iter().enumerate() {
        if k - most >= useless {
            break;
        }
        let mask = fit_mask(*v);
        masks.push(mask);
        let mut m = mask;
        while m != 0 {
            let count = &mut fit_counts[m.trailing_zeros() as usize];
            *count += 1;
            most = most.max(*count);
            m &= m - 1;
        }
    }
    for e in 0..=F::MAX_EXP {
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
    (best3.iter().take(tries))
        .map(|&(misses, e)| {
            let parts = if masks.len() == values.len() {
                DecimalParts::masked(values, e, &masks, misses)
            } else {
                DecimalParts::of(values, e)
            };
            (e, parts)
        })
        .collect()
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
mod tests;
