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
/// Not inlined: its vector code is then compiled alone, the same in every
/// build whatever its callers become (inlined into a caller, the
/// extension's build with thin LTO compiled it into other code).
#[inline(never)]
pub(super) fn pass_u15<const VARINTS: bool, T: Int>(values: &[T]) -> Gathered {
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
