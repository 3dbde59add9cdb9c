//! The integer plan's pass over a column whose values are all below 2^15
//! (a string column's lengths and shared prefixes, mostly) in 16-bit
//! lanes, eight values at a time: the compiler keeps the lanes in vector
//! registers (SSE2 has signed 16-bit min and max), where the 64-bit pass
//! takes a scalar min, max, zigzag and compare per value.

use super::Int;

/// Values per step: eight 16-bit lanes fill a 128-bit register.
const L: usize = 8;

/// Steps per block: a lane counts at most one change a step in an `i16`,
/// added to the total after each block, before it could wrap.
const BLOCK: usize = 4096;

/// What [`super::plan_u63`]'s pass gathers from `values`, every one below
/// 2^15 and at least two of them: the smallest and largest value, the
/// smallest and largest zigzag of the differences of neighbours, and the
/// number of runs of equal values. Differences of values below 2^15 lie in
/// (-2^15, 2^15), exact in an `i16`, and their zigzags below 2^16; a
/// zigzag's top bit is flipped so that signed order is its unsigned order.
pub(super) fn pass_u15<T: Int>(values: &[T]) -> (u64, u64, u64, u64, usize) {
    let n = values.len();
    debug_assert!(n >= 2 && values.iter().all(|v| v.wide() < 1 << 15));
    let narrow = |v: &T| v.wide() as i16;
    let flip = |d: i16| ((d << 1) ^ (d >> 15)) ^ i16::MIN;
    let (mut lo, mut hi) = ([i16::MAX; L], [0i16; L]);
    let (mut dlo, mut dhi) = ([i16::MAX; L], [i16::MIN; L]);
    let mut runs = 1usize;
    // Each value from the second on, beside the one before it.
    let (cur, prev) = (&values[1..], &values[..n - 1]);
    let steps = cur.len() / L;
    let mut step = 0;
    while step < steps {
        let end = (step + BLOCK).min(steps);
        let mut changes = [0i16; L];
        for s in step..end {
            let c: &[T; L] = cur[s * L..s * L + L].try_into().expect("a step");
            let p: &[T; L] = prev[s * L..s * L + L].try_into().expect("a step");
            for k in 0..L {
                let (v, q) = (narrow(&c[k]), narrow(&p[k]));
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
                let z = flip(v.wrapping_sub(q));
                dlo[k] = dlo[k].min(z);
                dhi[k] = dhi[k].max(z);
                changes[k] += i16::from(v != q);
            }
        }
        runs += changes.iter().map(|&c| c as usize).sum::<usize>();
        step = end;
    }
    let first = narrow(&values[0]);
    let (mut lo, mut hi) = (lo.into_iter().fold(first, i16::min), hi.into_iter().fold(first, i16::max));
    let (mut dlo, mut dhi) = (dlo.into_iter().fold(i16::MAX, i16::min), dhi.into_iter().fold(i16::MIN, i16::max));
    for (c, p) in cur[steps * L..].iter().zip(&prev[steps * L..]) {
        let (v, q) = (narrow(c), narrow(p));
        lo = lo.min(v);
        hi = hi.max(v);
        let z = flip(v.wrapping_sub(q));
        dlo = dlo.min(z);
        dhi = dhi.max(z);
        runs += usize::from(v != q);
    }
    let unflip = |z: i16| u64::from((z ^ i16::MIN) as u16);
    (lo as u64, hi as u64, unflip(dlo), unflip(dhi), runs)
}
