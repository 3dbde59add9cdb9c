//! The integer plan's pass over a column whose values are all below 2^15
//! (a string column's lengths and shared prefixes, mostly) in 16-bit
//! lanes, eight values at a time: the compiler keeps the lanes in vector
//! registers (SSE2 has signed 16-bit min and max), where the 64-bit pass
//! takes a scalar min, max, zigzag and compare per value.

use super::{Gathered, Int};

/// Values per step: eight 16-bit lanes fill a 128-bit register.
const L: usize = 8;

/// Steps per block: a lane counts at most two a step in an `i16`, added to
/// the total after each block, before it could wrap.
const BLOCK: usize = 4096;

/// What [`super::plan_u63`]'s pass gathers from `values`, every one below
/// 2^15 and at least two of them: the smallest and largest value, the
/// smallest and largest zigzag of the differences of neighbours, and the
/// number of runs of equal values; and, if `VARINTS` (a column with values
/// from 2^7, where they could be needed), the varints' size, which that
/// pass leaves to a pass of its own (a value below 2^15 takes one byte, one
/// more from 2^7 and one more from 2^14: both counted in one lane each, so
/// that the step keeps two counts, not three). Differences of values
/// below 2^15 lie in (-2^15, 2^15), exact in an `i16`, and their zigzags
/// below 2^16; a zigzag's top bit is flipped so that signed order is its
/// unsigned order.
///
/// (Each step narrows its values from the column as it reads them: first
/// narrowing a piece of the column into a buffer on the stack, then
/// reading that, cost more under callgrind.)
///
/// Not inlined, so that its vector code is compiled as a function of its
/// own. That alone did not make it the same in every build: in the Python
/// extension's (thin LTO, four codegen units), whenever the `u64` copies
/// landed in one codegen unit with their callers (`Stats::of_ids`,
/// `ints::plan`), which changes in strings.rs or ints.rs decide, LLVM
/// compiled them from what it knew of the callers' slices, unrolled and
/// three to four times larger, with more instructions a value.
#[inline(never)]
pub(super) fn pass_u15<const VARINTS: bool, T: Int>(values: &[T]) -> Gathered {
    // The slice is opaque here, so the code is compiled from this function
    // alone, whichever codegen unit it lands in (a pointer and a length
    // through a register: nothing a value).
    let values = std::hint::black_box(values);
    let n = values.len();
    debug_assert!(n >= 2 && values.iter().all(|v| v.wide() < 1 << 15));
    let narrow = |v: &T| v.wide() as i16;
    let first = narrow(&values[0]);
    let mut lanes =
        Lanes { lo: [first; L], hi: [first; L], dlo: [i16::MAX; L], dhi: [i16::MIN; L], counts: [[0; L]; 2] };
    // The neighbours that are equal, and the first value's varint's bytes
    // past its first, which no step sees.
    let mut counts = [0, usize::from(first >= 1 << 7) + usize::from(first >= 1 << 14)];
    // Each value from the second on, beside the one before it.
    let (cur, prev) = (&values[1..], &values[..n - 1]);
    let steps = cur.len() / L;
    let mut start = 0;
    let mut add = |lanes: &mut Lanes, all: bool| {
        for (total, c) in counts.iter_mut().zip(&mut lanes.counts) {
            *total += if all { c.iter().map(|&x| x as usize).sum::<usize>() } else { c[0] as usize };
            *c = [0; L];
        }
    };
    while start < steps {
        let end = (start + BLOCK).min(steps);
        for s in start..end {
            let c: &[T; L] = cur[s * L..s * L + L].try_into().expect("a step");
            let p: &[T; L] = prev[s * L..s * L + L].try_into().expect("a step");
            lanes.step::<VARINTS>(std::array::from_fn(|k| narrow(&c[k])), std::array::from_fn(|k| narrow(&p[k])));
        }
        add(&mut lanes, true);
        start = end;
    }
    for (c, p) in cur[steps * L..].iter().zip(&prev[steps * L..]) {
        lanes.step::<VARINTS>([narrow(c); L], [narrow(p); L]);
    }
    // (A value past the whole steps went into every lane, its counts too.)
    add(&mut lanes, false);
    // The runs: one, and one more at each neighbour that differs (counting
    // the equal ones takes one instruction less a step).
    let [equal, extra] = counts;
    let runs = n - equal;
    let unflip = |z: i16| u64::from((z ^ i16::MIN) as u16);
    let Lanes { lo, hi, dlo, dhi, .. } = lanes;
    let (lo, hi) = (lo.into_iter().fold(first, i16::min), hi.into_iter().fold(first, i16::max));
    let (dlo, dhi) = (dlo.into_iter().fold(i16::MAX, i16::min), dhi.into_iter().fold(i16::MIN, i16::max));
    Gathered {
        lo: lo as u64,
        hi: hi as u64,
        dlo: unflip(dlo),
        dhi: unflip(dhi),
        runs,
        varint_size: VARINTS.then_some(n + extra),
    }
}

/// Eight lanes of what the pass gathers (the zigzags with their top bit
/// flipped): the values equal to the one before, and (if counted) the
/// varints' bytes past their first (one from 2^7, two from 2^14).
struct Lanes {
    lo: [i16; L],
    hi: [i16; L],
    dlo: [i16; L],
    dhi: [i16; L],
    counts: [[i16; L]; 2],
}

impl Lanes {
    /// Each value `c[k]` beside the one before it, `p[k]`.
    #[inline(always)]
    fn step<const VARINTS: bool>(&mut self, c: [i16; L], p: [i16; L]) {
        for k in 0..L {
            self.lo[k] = self.lo[k].min(c[k]);
            self.hi[k] = self.hi[k].max(c[k]);
            let d = c[k].wrapping_sub(p[k]);
            let z = ((d << 1) ^ (d >> 15)) ^ i16::MIN;
            self.dlo[k] = self.dlo[k].min(z);
            self.dhi[k] = self.dhi[k].max(z);
            self.counts[0][k] += i16::from(c[k] == p[k]);
            if VARINTS {
                self.counts[1][k] += i16::from(c[k] >= 1 << 7) + i16::from(c[k] >= 1 << 14);
            }
        }
    }
}

/// Values per step of [`pass_u7`]: sixteen 8-bit lanes fill a 128-bit
/// register.
const L8: usize = 16;

/// Steps per block of [`pass_u7`]: a lane counts at most one a step in a
/// `u8`, added to the total after each block, before it could wrap.
const BLOCK8: usize = 255;

/// What [`pass_u15`] gathers from `values`, every one below 2^7 (a small
/// dictionary's indices, short strings' lengths) and more than [`L8`] of
/// them, in 8-bit lanes, sixteen values a step (twice `pass_u15`'s, for
/// about as many instructions a step). Every varint takes one byte, so
/// none is counted. Differences of values below 2^7 lie in (-2^7, 2^7),
/// exact in an `i8`, and their zigzags below 2^8, in unsigned order in a
/// `u8` (SSE2 has unsigned 8-bit min and max).
///
/// The values past the whole steps are taken by one more step over the
/// last sixteen values, which it shares with the steps before: the
/// smallest and largest are the same for values seen twice, and the equal
/// neighbours of the lanes seen before are masked out of its count.
///
/// (Not inlined, and the slice opaque, as in [`pass_u15`].)
#[inline(never)]
pub(super) fn pass_u7<T: Int>(values: &[T]) -> Gathered {
    let values = std::hint::black_box(values);
    let n = values.len();
    debug_assert!(n > L8 && values.iter().all(|v| v.wide() < 1 << 7));
    let first = values[0].wide() as u8;
    let mut lanes = Lanes8 { lo: [first; L8], hi: [first; L8], dlo: [u8::MAX; L8], dhi: [0; L8], equal: [0; L8] };
    let mut equal = 0usize;
    // Each value from the second on, beside the one before it.
    let (cur, prev) = (&values[1..], &values[..n - 1]);
    let steps = cur.len() / L8;
    let narrowed = |at: usize| narrowed_step(cur, prev, at);
    let mut start = 0;
    while start < steps {
        let end = (start + BLOCK8).min(steps);
        for s in start..end {
            let (c, p) = narrowed(s * L8);
            lanes.step(c, p, [1; L8]);
        }
        equal += lanes.take_equal();
        start = end;
    }
    let rest = cur.len() - steps * L8;
    if rest > 0 {
        // The last sixteen, of which the first `L8 - rest` were counted.
        let (c, p) = narrowed(cur.len() - L8);
        let mask = COUNTED[rest..rest + L8].try_into().expect("a step");
        lanes.step(c, p, mask);
        equal += lanes.take_equal();
    }
    let [lo, hi, dlo, dhi] = lanes.ends().map(u64::from);
    Gathered { lo, hi, dlo, dhi, runs: n - equal, varint_size: None }
}

/// The sixteen values of `cur` and of `prev` from `at`, as bytes. (A
/// function that is always inlined: as a closure, a change elsewhere in
/// the crate left it out of line in the Python extension's build, a call
/// a step.)
#[inline(always)]
fn narrowed_step<T: Int>(cur: &[T], prev: &[T], at: usize) -> ([u8; L8], [u8; L8]) {
    (bytes(cur[at..at + L8].try_into().expect("a step")), bytes(prev[at..at + L8].try_into().expect("a step")))
}

/// What [`pass_u7`] gathers from `values`, every one below 2^7 and at
/// least two of them: a list of [`L8`] values or fewer in [`pass_u15`]'s
/// lanes.
pub(super) fn pass_u7_or_u15<T: Int>(values: &[T]) -> Gathered {
    if values.len() > L8 {
        pass_u7(values)
    } else {
        pass_u15::<false, _>(values)
    }
}

/// `f` (the smaller or the larger) of sixteen lanes, each step beside the
/// lanes a half, a quarter, ... further on (the compiler keeps the lanes
/// in a vector register, a shuffle and a `pminub` or `pmaxub` a step; a
/// fold over them, or halves of fewer lanes, it compiled a lane at a time).
#[inline(always)]
fn fold16(a: [u8; L8], f: impl Fn(u8, u8) -> u8 + Copy) -> u8 {
    #[inline(always)]
    fn beside<const S: usize>(a: [u8; L8], f: impl Fn(u8, u8) -> u8) -> [u8; L8] {
        std::array::from_fn(|k| f(a[k], a[(k + S) % L8]))
    }
    beside::<1>(beside::<2>(beside::<4>(beside::<8>(a, f), f), f), f)[0]
}

/// Sixteen values below 2^7 as bytes, narrowed to `i16` and then to `i8`
/// with saturation, which changes none of them: SSE2 packs with
/// saturation (`packssdw`, `packsswb`), so that the sixteen take two
/// packing steps; narrowed by truncation, they were gathered a byte at a
/// time.
#[inline(always)]
fn bytes<T: Int>(values: &[T; L8]) -> [u8; L8] {
    let words: [i16; L8] = std::array::from_fn(|k| (values[k].wide() as i32).clamp(-(1 << 15), (1 << 15) - 1) as i16);
    std::array::from_fn(|k| words[k].clamp(-(1 << 7), (1 << 7) - 1) as i8 as u8)
}

/// Which lanes [`pass_u7`]'s last step counts where it takes `rest` new
/// values: `COUNTED[rest..rest + L8]`, whose last `rest` are 1.
const COUNTED: [u8; 2 * L8] = {
    let mut t = [0u8; 2 * L8];
    let mut i = L8;
    while i < 2 * L8 {
        t[i] = 1;
        i += 1;
    }
    t
};

/// Sixteen lanes of what [`pass_u7`] gathers: the values equal to the one
/// before are counted.
struct Lanes8 {
    lo: [u8; L8],
    hi: [u8; L8],
    dlo: [u8; L8],
    dhi: [u8; L8],
    equal: [u8; L8],
}

impl Lanes8 {
    /// Each value `c[k]` beside the one before it, `p[k]`; the lanes whose
    /// `counted[k]` is 0 are not counted (1 counts).
    #[inline(always)]
    fn step(&mut self, c: [u8; L8], p: [u8; L8], counted: [u8; L8]) {
        for k in 0..L8 {
            self.lo[k] = self.lo[k].min(c[k]);
            self.hi[k] = self.hi[k].max(c[k]);
            let d = c[k].wrapping_sub(p[k]) as i8;
            let z = ((d << 1) ^ (d >> 7)) as u8;
            self.dlo[k] = self.dlo[k].min(z);
            self.dhi[k] = self.dhi[k].max(z);
            // (1 where `z` is 0, that is where `c[k]` is `p[k]`, and the
            // lane is counted: a saturating subtraction, which the
            // compiler keeps; `c[k] == p[k]` it compared in 16-bit lanes,
            // before the narrowing to bytes.)
            self.equal[k] += counted[k].saturating_sub(z);
        }
    }

    /// The smallest and largest value and zigzag of the lanes. (Not
    /// inlined: inlined, the folds were compiled a lane at a time.)
    #[inline(never)]
    fn ends(&self) -> [u8; 4] {
        [fold16(self.lo, u8::min), fold16(self.hi, u8::max), fold16(self.dlo, u8::min), fold16(self.dhi, u8::max)]
    }

    /// The equal neighbours counted since the last call: the lanes' bytes
    /// added in pairs in two words (no sum passes 4 × 255), whose four
    /// 16-bit sums a multiplication adds up.
    #[inline(always)]
    fn take_equal(&mut self) -> usize {
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let pairs = |w: u64| (w & 0x00ff_00ff_00ff_00ff) + ((w >> 8) & 0x00ff_00ff_00ff_00ff);
        let sums = pairs(word(&self.equal[..8])) + pairs(word(&self.equal[8..]));
        self.equal = [0; L8];
        (sums.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
    }
}

/// Values per step of [`pass_u30`]: four 32-bit lanes fill a 128-bit
/// register.
const L32: usize = 4;

/// Values per group of [`pass_u30`]: two steps.
const G32: usize = 2 * L32;

/// Groups per block of [`pass_u30`]: a lane counts at most eight a group
/// in an `i32`, added to the total after each block, long before it could
/// wrap (few enough that the tests reach past one).
const BLOCK32: usize = 2048;

/// What [`super::plan_u63`]'s pass gathers from `values`, every one below
/// 2^30 and at least two of them, as [`pass_u15`] gathers it, in 32-bit
/// lanes, four values a step, two steps a group, the varints' size always
/// counted (a value below 2^30 takes one byte and one more from each of
/// 2^7, 2^14, 2^21 and 2^28).
///
/// Values below 2^30 have differences in (-2^30, 2^30), and zigzags below
/// 2^31: the differences of any two values or zigzags are exact in an
/// `i32`, so that each minimum and maximum is worked out by a subtraction
/// and its sign (SSE2 has no 32-bit min or max: a compare and a select
/// the compiler leaves scalar).
///
/// As in `plan_u63`'s pass, a group that ends in a repeat may be inside a
/// run: the whole groups of that value after it add nothing but equal
/// neighbours (and their varints), which are counted, not stepped over.
///
/// (Not inlined: its vector code is then compiled alone, whatever its
/// callers become.)
#[inline(never)]
pub(super) fn pass_u30(values: &[u64]) -> Gathered {
    let n = values.len();
    debug_assert!(n >= 2 && values.iter().all(|&v| v >> 30 == 0));
    let narrow = |v: &u64| *v as i32;
    let first = narrow(&values[0]);
    let mut lanes =
        Lanes32 { lo: [first; L32], hi: [first; L32], dlo: [i32::MAX; L32], dhi: [0; L32], counts: [[0; L32]; 2] };
    // The neighbours that are equal, and the varints' bytes past their
    // first (the first value's, which no step sees, to begin with).
    let mut counts = [0, extra_bytes(values[0])];
    let (cur, prev) = (&values[1..], &values[..n - 1]);
    let groups = cur.len() / G32;
    let mut start = 0;
    let add = |lanes: &mut Lanes32, counts: &mut [usize; 2], all: bool| {
        for (total, c) in counts.iter_mut().zip(&mut lanes.counts) {
            *total += if all { c.iter().map(|&x| x as usize).sum::<usize>() } else { c[0] as usize };
            *c = [0; L32];
        }
    };
    while start < groups {
        let end = (start + BLOCK32).min(groups);
        let mut g = start;
        while g < end {
            let c: &[u64; G32] = cur[g * G32..g * G32 + G32].try_into().expect("a group");
            let p: &[u64; G32] = prev[g * G32..g * G32 + G32].try_into().expect("a group");
            for h in (0..G32).step_by(L32) {
                lanes.step(std::array::from_fn(|k| narrow(&c[h + k])), std::array::from_fn(|k| narrow(&p[h + k])));
            }
            g += 1;
            // (The test of a repeat once a group of two steps, not once a
            // step: a branch between two steps leaves their code scalar.)
            if c[G32 - 1] == c[G32 - 2] {
                let v = c[G32 - 1];
                let from = g;
                while g < end && cur[g * G32..g * G32 + G32].iter().fold(0, |a, &x| a | (x ^ v)) == 0 {
                    g += 1;
                }
                let skipped = (g - from) * G32;
                counts[0] += skipped;
                counts[1] += skipped * extra_bytes(v);
            }
        }
        add(&mut lanes, &mut counts, true);
        start = end;
    }
    for (c, p) in cur[groups * G32..].iter().zip(&prev[groups * G32..]) {
        lanes.step([narrow(c); L32], [narrow(p); L32]);
    }
    // (A value past the whole steps went into every lane, its counts too.)
    add(&mut lanes, &mut counts, false);
    let [equal, extra] = counts;
    let Lanes32 { lo, hi, dlo, dhi, .. } = lanes;
    let widen = |x: i32| x as u64;
    Gathered {
        lo: widen(lo.into_iter().fold(first, i32::min)),
        hi: widen(hi.into_iter().fold(first, i32::max)),
        dlo: widen(dlo.into_iter().fold(i32::MAX, i32::min)),
        dhi: widen(dhi.into_iter().fold(0, i32::max)),
        runs: n - equal,
        varint_size: Some(n + extra),
    }
}

/// The bytes of `v`'s varint past its first, `v` below 2^35.
fn extra_bytes(v: u64) -> usize {
    VARINT_STEPS.iter().filter(|&&t| v >= t).count()
}

/// Where a varint takes one more byte, up to 2^28.
const VARINT_STEPS: [u64; 4] = [1 << 7, 1 << 14, 1 << 21, 1 << 28];

/// Four lanes of what [`pass_u30`] gathers: the values equal to the one
/// before, and the varints' bytes past their first.
struct Lanes32 {
    lo: [i32; L32],
    hi: [i32; L32],
    dlo: [i32; L32],
    dhi: [i32; L32],
    counts: [[i32; L32]; 2],
}

/// The smaller of `a` and `b`, whose difference is exact in an `i32`.
#[inline(always)]
fn min32(a: i32, b: i32) -> i32 {
    let d = a.wrapping_sub(b);
    b.wrapping_add(d & (d >> 31))
}

/// The larger of `a` and `b`, whose difference is exact in an `i32`.
#[inline(always)]
fn max32(a: i32, b: i32) -> i32 {
    let d = a.wrapping_sub(b);
    a.wrapping_sub(d & (d >> 31))
}

impl Lanes32 {
    /// Each value `c[k]` beside the one before it, `p[k]`.
    #[inline(always)]
    fn step(&mut self, c: [i32; L32], p: [i32; L32]) {
        for k in 0..L32 {
            self.lo[k] = min32(self.lo[k], c[k]);
            self.hi[k] = max32(self.hi[k], c[k]);
            let d = c[k].wrapping_sub(p[k]);
            let z = (d << 1) ^ (d >> 31);
            self.dlo[k] = min32(self.dlo[k], z);
            self.dhi[k] = max32(self.dhi[k], z);
            self.counts[0][k] += i32::from(c[k] == p[k]);
            self.counts[1][k] += VARINT_STEPS.iter().map(|&t| i32::from(c[k] >= t as i32)).sum::<i32>();
        }
    }
}
