//! Integer columns: every integer-valued column (integers, dates, lengths,
//! tags, booleans and option presence) is a list of unsigned values, written
//! with whichever of five encodings is smallest for them.

use crate::error::{Error, ErrorKind, Result};
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::cursor::Cursor;

mod lanes;
mod pack;
mod small;

/// A value of an integer column as the writer takes it: any unsigned width
/// up to 128 bits (columns of narrow values take less memory to walk).
pub(crate) trait Int: Copy + PartialEq {
    fn wide(self) -> u128;

    /// The column as `u64`s, where it is one (the writers' common case,
    /// which the packers specialise).
    fn u64s(_values: &[Self]) -> Option<&[u64]> {
        None
    }

    /// The column as bytes, where it is one (presence and bools).
    fn u8s(_values: &[Self]) -> Option<&[u8]> {
        None
    }

    /// The values' bits or'ed together (in the values' own width, which
    /// vectorises).
    fn all(values: &[Self]) -> u128 {
        values.iter().fold(0u128, |a, v| a | v.wide())
    }

    /// Whether every value of `group` is `v` (without a branch per value,
    /// in the widths that have bits to xor).
    #[inline]
    fn all_are(group: &[Self; 8], v: Self) -> bool {
        group.iter().fold(true, |a, &x| a & (x == v))
    }

    /// The column as `u64`s, where it is not one already but every value
    /// fits: a copy that [`encode_into`] plans and writes by the paths
    /// specialised for `u64` (the same bytes).
    fn narrowed(_values: &[Self]) -> Option<Vec<u64>> {
        None
    }
}

impl Int for u128 {
    #[inline]
    fn wide(self) -> u128 {
        self
    }

    /// (The tags of variants and `any` values and the lengths of maps are
    /// `u128` columns of small values; under [`NARROWED_FROM`] values the
    /// copy costs more than it saves.)
    fn narrowed(values: &[Self]) -> Option<Vec<u64>> {
        if values.len() < NARROWED_FROM {
            return None;
        }
        let high = values.iter().fold(0u64, |a, &v| a | (v >> 64) as u64);
        (high == 0).then(|| values.iter().map(|&v| v as u64).collect())
    }
}

/// The fewest values of a `u128` column that [`encode_into`] copies into
/// `u64`s.
const NARROWED_FROM: usize = 16;

impl Int for u64 {
    #[inline]
    fn wide(self) -> u128 {
        u128::from(self)
    }

    fn u64s(values: &[Self]) -> Option<&[u64]> {
        Some(values)
    }

    /// Eight lanes a step (four registers), so that the loop's own
    /// instructions are spread over more values.
    fn all(values: &[Self]) -> u128 {
        let groups = values.chunks_exact(8);
        let rest = groups.remainder().iter().fold(0, |a, &v| a | v);
        let lanes = groups.fold([0u64; 8], |mut acc, g| {
            acc.iter_mut().zip(g).for_each(|(a, &v)| *a |= v);
            acc
        });
        u128::from(lanes.iter().fold(rest, |a, &v| a | v))
    }

    #[inline]
    fn all_are(group: &[Self; 8], v: Self) -> bool {
        group.iter().fold(0, |a, &x| a | (x ^ v)) == 0
    }
}

impl Int for u8 {
    #[inline]
    fn wide(self) -> u128 {
        u128::from(self)
    }

    fn u8s(values: &[Self]) -> Option<&[u8]> {
        Some(values)
    }

    fn all(values: &[Self]) -> u128 {
        u128::from(values.iter().fold(0, |a, &v| a | v))
    }

    #[inline]
    fn all_are(group: &[Self; 8], v: Self) -> bool {
        u64::from_ne_bytes(*group) == u64::from_ne_bytes([v; 8])
    }
}

/// Where the run of values equal to `values[start]` ends: the first few
/// values one at a time (most runs of a column that is not mostly runs
/// are short), then eight at a time.
#[inline]
fn run_end<T: Int>(values: &[T], start: usize) -> usize {
    let (n, v) = (values.len(), values[start]);
    let mut j = start + 1;
    while j < n.min(start + 4) {
        if values[j] != v {
            return j;
        }
        j += 1;
    }
    while let Some(group) = values.get(j..j + 8) {
        if !T::all_are(group.try_into().expect("a group of eight"), v) {
            break;
        }
        j += 8;
    }
    while j < n && values[j] == v {
        j += 1;
    }
    j
}

fn bits_for(x: u128) -> u8 {
    (128 - x.leading_zeros()) as u8
}

/// Packs each value into `width` bits, least significant bit first.
fn pack(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = u128>, width: u8) {
    if width <= 64 {
        pack64(out, values.map(|v| v as u64), width)
    } else {
        pack128(out, values, width)
    }
}

/// [`pack`] in u128 arithmetic, a byte or eight at a time onto the growing
/// `Vec`: any width up to 128 (the tests' reference for [`pack64`]).
fn pack128(out: &mut Vec<u8>, values: impl Iterator<Item = u128>, width: u8) {
    let mut acc: u128 = 0;
    let mut filled: u32 = 0;
    for v in values {
        let mut v = v;
        let mut left = u32::from(width);
        while left > 0 {
            let take = left.min(128 - filled);
            let part = if take == 128 { v } else { v & ((1u128 << take) - 1) };
            acc |= part << filled;
            filled += take;
            left -= take;
            v = if take == 128 { 0 } else { v >> take };
            while filled >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                filled -= 8;
            }
        }
    }
    if filled > 0 {
        out.push(acc as u8);
    }
}

/// [`pack`] of values of `width` bits, 64 or fewer, the common case: a u64
/// holds the pending bits; when a value fills it, it leaves as eight bytes
/// and the value's bits that did not fit start the next. The bytes are made
/// room for at once, exactly (a `Vec` sized by the plan is not grown), so
/// that a word is stored without a capacity check (reserving and appending
/// each word instead measured slower).
fn pack64(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = u64>, width: u8) {
    if width == 0 {
        return;
    }
    let w = u32::from(width);
    let start = out.len();
    out.resize(start + (values.len() * w as usize).div_ceil(8), 0);
    if w <= 8 {
        return pack_narrow(&mut out[start..], values, w);
    }
    let mut words = out[start..].chunks_exact_mut(8);
    let mut acc: u64 = 0;
    let mut filled: u32 = 0;
    for v in values {
        acc |= v << filled;
        filled += w;
        if filled >= 64 {
            if let Some(word) = words.next() {
                word.copy_from_slice(&acc.to_le_bytes());
            }
            filled -= 64;
            // The bits of `v` past the word (none when it ended there: a
            // shift by 64 is none).
            acc = v.checked_shr(w - filled).unwrap_or(0);
        }
    }
    // The last `filled` bits: a whole word where they take eight bytes,
    // else the bytes past the words.
    let tail = if filled > 56 { words.next().unwrap_or_default() } else { words.into_remainder() };
    tail.copy_from_slice(&acc.to_le_bytes()[..tail.len()]);
}

/// [`pack64`] of values of 8 bits or fewer (a dictionary's indices, flags)
/// into `buf`, which holds exactly their bytes: eight values take `w`
/// bytes, gathered in one word with no test per value of whether it is
/// full, and stored whole where `buf` holds 8 bytes from there (the bytes
/// past the group's are zeros, which the next group's store replaces).
fn pack_narrow(buf: &mut [u8], mut values: impl ExactSizeIterator<Item = u64>, w: u32) {
    let step = w as usize;
    let mut at = 0;
    for _ in 0..values.len() / 8 {
        let mut acc = 0u64;
        for i in 0..8 {
            acc |= values.next().unwrap_or(0) << (i * w);
        }
        match buf.get_mut(at..at + 8) {
            Some(word) => word.copy_from_slice(&acc.to_le_bytes()),
            None => buf[at..at + step].copy_from_slice(&acc.to_le_bytes()[..step]),
        }
        at += step;
    }
    // Fewer than eight left, in fewer than 8 bytes.
    let (mut acc, mut filled) = (0u64, 0);
    for v in values {
        acc |= v << filled;
        filled += w;
    }
    let tail = &mut buf[at..];
    tail.copy_from_slice(&acc.to_le_bytes()[..tail.len()]);
}

fn zigzag_delta(v: u128, prev: u128) -> u128 {
    varint::zigzag(v.wrapping_sub(prev) as i128)
}

/// The sizes of the four encodings of a column, worked out in one pass,
/// and what the frames of reference need to be written.
struct Plan {
    size: usize,
    enc: E,
    min: u128,
    width: u8,
    delta_min: u128,
    delta_width: u8,
}

fn plan<T: Int>(values: &[T]) -> Plan {
    let Some(first) = values.first().map(|v| v.wide()) else {
        // No values: a frame of reference of base 0, width 0 ties with the
        // empty varint column, which comes first.
        return Plan { size: 0, enc: E::Varint, min: 0, width: 0, delta_min: 0, delta_width: 0 };
    };
    let all = T::all(values);
    if let (Some(bits), true) = (T::u8s(values), all <= 1) {
        return plan_bit_bytes(values, bits);
    }
    // (Zeros and ones too: the lanes gather what `plan_bits` counts, their
    // smallest and largest value standing for whether all or none are 1,
    // and `plan_gathered` then sizes them as `plan_bits` does: every varint
    // one byte, runs two bytes each at least.)
    if all >> 15 == 0 && values.len() >= 2 {
        if small::scalar(values.len()) {
            return plan_u63(values, first as u64);
        }
        // (The varints' size is counted in the pass where some take two
        // bytes: otherwise it is one byte a value.)
        let g = if all >> 7 == 0 { lanes::pass_u7_or_u15(values) } else { lanes::pass_u15::<true, _>(values) };
        return plan_gathered(values, first as u64, g);
    }
    if all <= 1 {
        return plan_bits(values, first as u64);
    }
    // Amounts, counts, times: values below 2^30 in 32-bit lanes.
    if let (Some(values64), true) = (T::u64s(values), all >> 30 == 0 && values.len() >= 2) {
        return plan_gathered(values, first as u64, lanes::pass_u30(values64));
    }
    if all >> 63 == 0 {
        return plan_u63(values, first as u64);
    }
    plan_narrow(values, first).unwrap_or_else(|| plan_wide(values, first))
}

/// [`plan`] when every value is below 2^63, the common case: the
/// differences of neighbours and their zigzags then fit in 64 bits too, and
/// the one pass runs in 64-bit arithmetic.
fn plan_u63<T: Int>(values: &[T], first: u64) -> Plan {
    let n = values.len();
    let mut prev = first;
    let (mut lo, mut hi) = (prev, prev);
    let (mut dlo, mut dhi) = (if n > 1 { u64::MAX } else { 0 }, 0u64);
    let mut runs = 1usize;
    let mut step = |v: &T| {
        let v = v.wide() as u64;
        lo = lo.min(v);
        hi = hi.max(v);
        let d = (v as i64).wrapping_sub(prev as i64);
        let z = ((d << 1) ^ (d >> 63)) as u64;
        dlo = dlo.min(z);
        dhi = dhi.max(z);
        runs += usize::from(v != prev);
        prev = v;
    };
    // Each value from the second on, eight at a time. A group that ends
    // in a repeat may be inside a run: the whole groups of that value
    // after it add nothing but differences of 0 (which the repeat did), and
    // are skipped (a column of amounts mostly 0 is mostly such groups; a
    // column of distinct values tests two values a group).
    let rest = &values[1..];
    let whole = rest.len() / 8;
    let group = |g: usize| -> &[T; 8] { rest[8 * g..8 * g + 8].try_into().expect("a group of eight") };
    let mut g = 0;
    while g < whole {
        let values = group(g);
        values.iter().for_each(&mut step);
        g += 1;
        if values[7] == values[6] {
            while g < whole && T::all_are(group(g), values[7]) {
                g += 1;
            }
        }
    }
    rest[8 * whole..].iter().for_each(&mut step);
    plan_gathered(values, first, Gathered { lo, hi, dlo, dhi, runs, varint_size: None })
}

/// What [`plan_u63`]'s pass gathers: the smallest and largest value, the
/// smallest and largest zigzag of the neighbours' differences (0 and 0 for
/// one value), the number of runs, and the varints' size where the pass
/// counted it.
struct Gathered {
    lo: u64,
    hi: u64,
    dlo: u64,
    dhi: u64,
    runs: usize,
    varint_size: Option<usize>,
}

/// [`plan_u63`] from what its pass gathered.
fn plan_gathered<T: Int>(values: &[T], first: u64, g: Gathered) -> Plan {
    let Gathered { lo, hi, dlo, dhi, runs, varint_size } = g;
    let n = values.len();
    let vlen = |v: u64| VARINT_LEN[(64 - v.leading_zeros()) as usize] as usize;
    let range = (u128::from(lo), u128::from(hi), u128::from(dlo), u128::from(dhi));
    let frames = Frames::of(n, u128::from(first), range);
    // The varints take `vlen(lo)` bytes each at least, and exactly that
    // where the largest takes as many.
    let mut exact = varint_size.or((vlen(hi) == vlen(lo)).then_some(n * vlen(lo)));
    let mut varint_size = exact.unwrap_or(n * vlen(lo));
    let mut others = frames.plan(varint_size, usize::MAX);
    let mut rle_size = None;
    let count = || values.iter().map(|v| vlen(v.wide() as u64)).sum::<usize>();
    if exact.is_none() && others.enc == E::Varint {
        // That least wins over the frames of reference (ties go to the
        // varints), so their exact size decides: unless runs that could
        // win, sized first where most values are inside a run, take less
        // than that least (then neither it nor the exact size can win, and
        // the choice is the same).
        if 2 * runs <= n && !runs_lose(runs, lo, frames.least().min(n * vlen(hi))) {
            let rle = rle_size_ranged(values, runs, lo, hi);
            if rle < varint_size {
                return frames.plan(varint_size, rle);
            }
            rle_size = Some(rle);
        }
        varint_size = count();
        exact = Some(varint_size);
        others = frames.plan(varint_size, usize::MAX);
    }
    if runs_lose(runs, lo, others.size) {
        return others;
    }
    // Where most values start a run, the varints' exact size (a cheaper
    // pass than the runs') bounds the runs' size closer.
    if rle_size.is_none() && 2 * runs > n {
        let varints = *exact.get_or_insert_with(count);
        if runs_least(runs, varints, n, hi) >= others.size {
            return others;
        }
    }
    // (The varints' size is exact where they won; where they lost to a
    // smaller size, their least loses to it too.)
    frames.plan(varint_size, rle_size.unwrap_or_else(|| rle_size_ranged(values, runs, lo, hi)))
}

/// What [`plan_u63`] gathers in its pass, gathered from what a writer
/// knows of the values (a dictionary's indices: [`Stats::of_ids`]), so
/// that the plan needs less of a pass of its own. Values below 2^63 only.
pub(crate) struct Stats {
    n: usize,
    first: u64,
    lo: u64,
    hi: u64,
    dlo: u64,
    dhi: u64,
    varint_size: usize,
    runs: usize,
}

impl Stats {
    pub(crate) fn new() -> Stats {
        Stats { n: 0, first: 0, lo: u64::MAX, hi: 0, dlo: u64::MAX, dhi: 0, varint_size: 0, runs: 0 }
    }

    /// What [`plan_u63`] gathers from the ids of a dictionary in
    /// first-seen order (`distinct` of them, fewer than 2^63): the first
    /// id is 0 and the largest `distinct - 1`, so one pass over the
    /// neighbours' differences finds the rest, and the varints' size.
    pub(crate) fn of_ids(ids: &[u64], distinct: usize) -> Stats {
        if ids.is_empty() {
            return Stats::new();
        }
        debug_assert!(ids[0] == 0 && ids.iter().all(|&id| id < distinct as u64));
        let hi = distinct as u64 - 1;
        // Ids below 2^15 in the 16-bit lanes (whose smallest and largest
        // are then 0 and `hi`).
        if hi >> 15 == 0 && ids.len() >= 2 {
            let (g, varint_size) = if hi >> 7 == 0 {
                (lanes::pass_u7_or_u15(ids), ids.len())
            } else {
                let g = lanes::pass_u15::<true, _>(ids);
                let size = g.varint_size.expect("counted in the lanes");
                (g, size)
            };
            return Stats { n: ids.len(), first: 0, lo: 0, hi, dlo: g.dlo, dhi: g.dhi, varint_size, runs: g.runs };
        }
        let (mut dlo, mut dhi, mut changes) = (u64::MAX, 0u64, 0usize);
        for (&a, &b) in ids.iter().zip(&ids[1..]) {
            let d = (b as i64).wrapping_sub(a as i64);
            let z = ((d << 1) ^ (d >> 63)) as u64;
            dlo = dlo.min(z);
            dhi = dhi.max(z);
            changes += usize::from(a != b);
        }
        let varint_size = ids.iter().map(|&id| VARINT_LEN[(64 - id.leading_zeros()) as usize] as usize).sum();
        let runs = 1 + changes;
        Stats { n: ids.len(), first: 0, lo: 0, hi, dlo, dhi, varint_size, runs }
    }

    /// The runs of equal values among those gathered.
    pub(crate) fn runs(&self) -> usize {
        self.runs
    }

    /// [`plan`] of the values gathered, `values`: what `plan_u63` (or
    /// `plan_bits`, which plans zeros and ones alike) finds.
    fn plan<T: Int>(&self, values: &[T]) -> Plan {
        debug_assert_eq!(values.len(), self.n);
        if self.n == 0 {
            return plan(values);
        }
        let dlo = if self.n > 1 { self.dlo } else { 0 };
        let range = (u128::from(self.lo), u128::from(self.hi), u128::from(dlo), u128::from(self.dhi));
        let frames = Frames::of(self.n, u128::from(self.first), range);
        let others = frames.plan(self.varint_size, usize::MAX);
        if runs_lose(self.runs, self.lo, others.size)
            || runs_least(self.runs, self.varint_size, self.n, self.hi) >= others.size
        {
            return others;
        }
        frames.plan(self.varint_size, rle_size_ranged(values, self.runs, self.lo, self.hi))
    }
}

/// [`plan`] of a column of zeros and ones (option presence, bools): every
/// varint one byte, and the differences of neighbours -1, 0 or 1, whose
/// zigzags 1, 0 and 2 follow from counting the steps down and up.
fn plan_bits<T: Int>(values: &[T], first: u64) -> Plan {
    let (mut ones, mut up, mut down) = (first as usize, 0usize, 0usize);
    let mut prev = first;
    for v in &values[1..] {
        let v = v.wide() as u64;
        ones += v as usize;
        up += usize::from(v > prev);
        down += usize::from(v < prev);
        prev = v;
    }
    plan_bit_counts(values, first, ones, up, down)
}

/// [`plan_bits`] of bytes (a builder's presence and bool columns), counted
/// eight at a time: the ones, and the changes (the neighbours' xor), of
/// which the steps up outnumber the steps down by the last value less the
/// first.
fn plan_bit_bytes<T: Int>(values: &[T], bits: &[u8]) -> Plan {
    let n = bits.len();
    debug_assert!(n >= 1 && bits.iter().all(|&b| b <= 1));
    let (mut ones, mut changes) = (usize::from(bits[0]), 0usize);
    // Each value from the second on beside the one before it, eight bytes
    // a word: the words' bytes are summed in two words (no byte passes 255
    // in a block of 255 words), whose eight bytes a multiplication adds up.
    let (cur, prev) = (&bits[1..], &bits[..n - 1]);
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let bytes_sum = |w: u64| {
        let pairs = (w & 0x00ff_00ff_00ff_00ff) + ((w >> 8) & 0x00ff_00ff_00ff_00ff);
        (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
    };
    let (cs, ps) = (cur.chunks_exact(8), prev.chunks_exact(8));
    let (c_rest, p_rest) = (cs.remainder(), ps.remainder());
    let mut words = cs.zip(ps);
    loop {
        let (mut o, mut x) = (0u64, 0u64);
        let mut k = 0;
        for (c, p) in words.by_ref().take(255) {
            let (c, p) = (word(c), word(p));
            o += c;
            x += c ^ p;
            k += 1;
        }
        ones += bytes_sum(o);
        changes += bytes_sum(x);
        if k < 255 {
            break;
        }
    }
    for (&c, &p) in c_rest.iter().zip(p_rest) {
        ones += usize::from(c);
        changes += usize::from(c ^ p);
    }
    let (first, last) = (usize::from(bits[0]), usize::from(bits[n - 1]));
    let up = (changes + last - first) / 2;
    plan_bit_counts(values, first as u64, ones, up, changes - up)
}

/// [`plan_bits`] from its counts: the ones, the steps up and the steps down.
fn plan_bit_counts<T: Int>(values: &[T], first: u64, ones: usize, up: usize, down: usize) -> Plan {
    let n = values.len();
    let (lo, hi) = (u128::from(ones == n), u128::from(ones > 0));
    let (dlo, dhi) = if n > 1 {
        let same = n - 1 - up - down;
        let zigzags = [(same > 0, 0u128), (down > 0, 1), (up > 0, 2)];
        let mut present = zigzags.iter().filter(|(p, _)| *p).map(|&(_, z)| z);
        let dlo = present.next().expect("n - 1 differences");
        (dlo, present.next_back().unwrap_or(dlo))
    } else {
        (0, 0)
    };
    let runs = 1 + up + down;
    let frames = Frames::of(n, u128::from(first), (lo, hi, dlo, dhi));
    let others = frames.plan(n, usize::MAX);
    if 2 * runs >= others.size {
        return others;
    }
    frames.plan(n, rle_size_ranged(values, runs, lo as u64, hi as u64))
}

/// Whether `runs` runs of values of `lo` or more take `others` bytes or
/// more (ties go to the others), so that they need not be sized: each run
/// takes its length's varint (a byte at least) and its value's (as long as
/// `lo`'s at least).
fn runs_lose(runs: usize, lo: u64, others: usize) -> bool {
    runs * (1 + VARINT_LEN[(64 - lo.leading_zeros()) as usize] as usize) >= others
}

/// The least size of `runs` runs of `n` values whose varints take
/// `varint_size` bytes, the largest value `hi`: each run's length takes a
/// byte at least, and its value's varint is all of the varints but those
/// of the `n - runs` values past a run's first, each as long as `hi`'s at
/// most.
fn runs_least(runs: usize, varint_size: usize, n: usize, hi: u64) -> usize {
    let rest = (n - runs) * VARINT_LEN[(64 - hi.leading_zeros()) as usize] as usize;
    runs + varint_size.saturating_sub(rest)
}

/// [`rle_size`] of values below 2^63, which make `runs` runs: where they
/// are eight values long or more on average, skipped run by run.
fn rle_size_u63<T: Int>(values: &[T], runs: usize) -> usize {
    let vlen = |v: u64| VARINT_LEN[(64 - v.leading_zeros()) as usize] as usize;
    if values.len() >= 8 * runs {
        let (mut size, mut i) = (0, 0);
        while i < values.len() {
            let end = run_end(values, i);
            size += vlen((end - i) as u64) + vlen(values[i].wide() as u64);
            i = end;
        }
        return size;
    }
    let (mut size, mut prev, mut run) = (0usize, values[0].wide() as u64, 0u64);
    for v in values {
        let v = v.wide() as u64;
        if v != prev {
            size += vlen(run) + vlen(prev);
            prev = v;
            run = 0;
        }
        run += 1;
    }
    size + vlen(run) + vlen(prev)
}

/// [`rle_size_u63`] of values from `lo` to `hi` (the smallest and the
/// largest), which make `runs` runs. Where every varint of a value takes as
/// many bytes, each run takes those for its value and one for its length,
/// and one more for a length from 2^7 (one more from 2^14, ...): a run
/// that long holds a whole aligned block of 64 values, so that only the
/// runs through such a block are measured (and none where the equal
/// neighbours, `n - runs`, are too few for one).
fn rle_size_ranged<T: Int>(values: &[T], runs: usize, lo: u64, hi: u64) -> usize {
    const BLOCK: usize = 64;
    let vlen = |v: u64| VARINT_LEN[(64 - v.leading_zeros()) as usize] as usize;
    if vlen(lo) != vlen(hi) {
        return rle_size_u63(values, runs);
    }
    let n = values.len();
    let mut size = runs * (1 + vlen(hi));
    if n - runs < (1 << 7) - 1 {
        return size;
    }
    // Where the runs measured so far end.
    let mut measured = 0;
    for b in (0..n / BLOCK).map(|b| b * BLOCK) {
        let v = values[b];
        let block = &values[b..b + BLOCK];
        if b + BLOCK <= measured || !block.chunks_exact(8).all(|g| T::all_are(g.try_into().expect("eight"), v)) {
            continue;
        }
        let mut start = b;
        while start > measured && values[start - 1] == v {
            start -= 1;
        }
        let end = run_end(values, b);
        size += vlen((end - start) as u64) - 1;
        measured = end;
    }
    size
}

/// [`plan`] in 64-bit arithmetic, the common case: `None` if a value is
/// wider than 64 bits. (The zigzag of a difference of two u64 takes 65.)
fn plan_narrow<T: Int>(values: &[T], first: u128) -> Option<Plan> {
    let n = values.len();
    let vlen = |v: u64| VARINT_LEN[(64 - v.leading_zeros()) as usize] as usize;
    let mut wide = first;
    let mut prev = first as u64;
    let (mut lo, mut hi) = (prev, prev);
    let (mut dlo, mut dhi) = (if n > 1 { u128::MAX } else { 0 }, 0u128);
    let (mut varint_size, mut runs) = (vlen(prev), 1usize);
    for v in &values[1..] {
        let v = v.wide();
        wide |= v;
        let v = v as u64;
        varint_size += vlen(v);
        lo = lo.min(v);
        hi = hi.max(v);
        let d = i128::from(v) - i128::from(prev);
        let z = ((d << 1) ^ (d >> 127)) as u128;
        dlo = dlo.min(z);
        dhi = dhi.max(z);
        runs += usize::from(v != prev);
        prev = v;
    }
    if wide >> 64 != 0 {
        return None;
    }
    let range = (u128::from(lo), u128::from(hi), dlo, dhi);
    // Every run takes two bytes at least: size the runs only if that could
    // beat the others (ties go to them).
    let others = finish_plan(values, first, varint_size, usize::MAX, range);
    if 2 * runs >= others.size {
        return Some(others);
    }
    Some(finish_plan(values, first, varint_size, rle_size(values), range))
}

/// The bytes of the run-length encoding of `values` (at least one).
fn rle_size<T: Int>(values: &[T]) -> usize {
    let (mut size, mut prev, mut run) = (0usize, values[0].wide(), 0usize);
    for v in values {
        let v = v.wide();
        if v != prev {
            size += varint::len(run as u128) + varint::len(prev);
            prev = v;
            run = 0;
        }
        run += 1;
    }
    size + varint::len(run as u128) + varint::len(prev)
}

fn plan_wide<T: Int>(values: &[T], first: u128) -> Plan {
    let (mut varint_size, mut rle_size) = (0usize, 0usize);
    let (mut lo, mut hi) = (first, first);
    let (mut prev, mut run) = (first, 0usize);
    for v in values {
        let v = v.wide();
        varint_size += varint::len(v);
        lo = lo.min(v);
        hi = hi.max(v);
        if v != prev {
            rle_size += varint::len(run as u128) + varint::len(prev);
            prev = v;
            run = 0;
        }
        run += 1;
    }
    rle_size += varint::len(run as u128) + varint::len(prev);
    let (dmin, dmax) = if values.len() > 1 { diff_range(values) } else { (0, 0) };
    finish_plan(values, first, varint_size, rle_size, (lo, hi, dmin, dmax))
}

/// The sizes of the frames of reference, and the smallest encoding.
fn finish_plan<T: Int>(
    values: &[T],
    first: u128,
    varint_size: usize,
    rle_size: usize,
    range: (u128, u128, u128, u128),
) -> Plan {
    Frames::of(values.len(), first, range).plan(varint_size, rle_size)
}

/// The two frames of reference of a column (`02` of its values, `03` of
/// the differences of neighbours): their sizes and what they need to be
/// written, worked out once for the planners, which then compare them with
/// the varints' size and the runs' as those become known.
#[derive(Clone, Copy)]
struct Frames {
    min: u128,
    width: u8,
    for_size: usize,
    delta_min: u128,
    delta_width: u8,
    /// `usize::MAX` for a column of fewer than two values.
    delta_size: usize,
}

impl Frames {
    /// The frames of `n` values, the first `first`, within `min..=max`, the
    /// zigzags of their differences within `dmin..=dmax`.
    fn of(n: usize, first: u128, (min, max, dmin, dmax): (u128, u128, u128, u128)) -> Frames {
        let width = bits_for(max - min);
        let for_size = varint::len(min) + 1 + (n * usize::from(width)).div_ceil(8);
        let (mut delta_width, mut delta_size) = (0, usize::MAX);
        if n > 1 {
            delta_width = bits_for(dmax - dmin);
            delta_size = varint::len(first) + varint::len(dmin) + 1 + ((n - 1) * usize::from(delta_width)).div_ceil(8);
        }
        Frames { min, width, for_size, delta_min: dmin, delta_width, delta_size }
    }

    /// The smaller of the two frames' sizes.
    fn least(&self) -> usize {
        self.for_size.min(self.delta_size)
    }

    /// The smallest encoding, given the varints' size and the runs'.
    fn plan(&self, varint_size: usize, rle_size: usize) -> Plan {
        // Ties go to the earlier encoding, as when each was written and
        // compared.
        let mut best = (varint_size, E::Varint);
        for candidate in [(self.for_size, E::FrameOfReference), (self.delta_size, E::Delta), (rle_size, E::RunLength)] {
            if candidate.0 < best.0 {
                best = candidate;
            }
        }
        let (size, enc) = best;
        let Frames { min, width, delta_min, delta_width, .. } = *self;
        Plan { size, enc, min, width, delta_min, delta_width }
    }
}

/// The smallest and largest zigzag-mapped difference of neighbours.
fn diff_range<T: Int>(values: &[T]) -> (u128, u128) {
    let (mut lo, mut hi) = (u128::MAX, 0u128);
    for w in values.windows(2) {
        let d = zigzag_delta(w[1].wide(), w[0].wide());
        lo = lo.min(d);
        hi = hi.max(d);
    }
    (lo, hi)
}

/// The bytes of a varint of a value of `i` significant bits (a table: a
/// length is looked up, not worked out, in the planners' loops and
/// strings.rs's `block_least`).
pub(super) const VARINT_LEN: [u8; 65] = {
    let mut t = [0u8; 65];
    let mut i = 0;
    while i <= 64 {
        t[i] = if i == 0 { 1 } else { i.div_ceil(7) as u8 };
        i += 1;
    }
    t
};

fn write_for(out: &mut Vec<u8>, values: impl ExactSizeIterator<Item = u128>, min: u128, width: u8) {
    varint::put(out, min);
    out.push(width);
    pack(out, values.map(|v| v - min), width);
}

/// The shortest encoding of `values`: the encoding byte, then its payload.
/// The sizes are worked out first and only the winner is written.
pub(crate) fn encode<T: Int>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(&mut out, values);
    out
}

/// [`encode`], appended to `out`.
pub(crate) fn encode_into<T: Int>(out: &mut Vec<u8>, values: &[T]) {
    match T::narrowed(values) {
        Some(narrow) => Planned::new(&narrow[..]).write(out),
        None => Planned::new(values).write(out),
    }
}

/// A column whose encoding was chosen, and the bytes it takes.
pub(crate) struct Planned<'a, T: Int = u128> {
    values: &'a [T],
    plan: Plan,
    /// The entropy-coded or cascaded-runs body, where the file writer
    /// enabled them and one is smaller (SPEC.md §22.2, encodings `04`, `05`).
    entropy: Option<Vec<u8>>,
}

impl<'a, T: Int> Planned<'a, T> {
    pub(crate) fn new(values: &'a [T]) -> Self {
        if small::below_file_encodings(values.len()) {
            return Self::plain(values);
        }
        let mut planned = Self::no_runs(values);
        if let Some(runs) = super::runs::encode(values, planned.size()) {
            planned.entropy = Some(runs);
        }
        planned
    }

    /// [`Planned::new`] of the values that `stats` gathered.
    pub(crate) fn with_stats(values: &'a [T], stats: &Stats) -> Self {
        if small::below_file_encodings(values.len()) {
            return Planned { values, plan: stats.plan(values), entropy: None };
        }
        let mut planned = Self::with_plan(values, stats.plan(values));
        if let Some(runs) = super::runs::encode(values, planned.size()) {
            planned.entropy = Some(runs);
        }
        planned
    }

    /// [`Planned::new`] without cascaded runs (for the blocks inside one).
    pub(crate) fn no_runs(values: &'a [T]) -> Self {
        Self::with_plan(values, plan(values))
    }

    fn with_plan(values: &'a [T], plan: Plan) -> Self {
        let entropy = super::entropy::encode(values, plan.size + 1);
        Planned { values, plan, entropy }
    }

    /// [`Planned::new`] among the encodings `00` to `03` only.
    pub(crate) fn plain(values: &'a [T]) -> Self {
        Planned { values, plan: plan(values), entropy: None }
    }

    /// The encoding byte and the payload.
    pub(crate) fn size(&self) -> usize {
        self.entropy.as_ref().map_or(self.plan.size + 1, Vec::len)
    }

    /// As a length-prefixed block.
    pub(crate) fn block_size(&self) -> usize {
        varint::len(self.size() as u128) + self.size()
    }

    pub(crate) fn write_block(&self, out: &mut Vec<u8>) {
        varint::put(out, self.size() as u128);
        self.write(out);
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        if let Some(body) = &self.entropy {
            out.extend_from_slice(body);
            return;
        }
        let (p, values) = (&self.plan, self.values);
        out.reserve(p.size + 1);
        let start = out.len();
        out.push(p.enc.byte());
        match p.enc {
            E::Varint => write_varints(out, values, p.size),
            // Where the packed values fit 64 bits (the common case), they
            // are worked out in 64-bit arithmetic: `v - min` below 2^64 is
            // the same modulo 2^64, and a difference whose zigzag is below
            // 2^64 lies in [-2^63, 2^63), where the wrapped 64-bit
            // difference is exact.
            E::FrameOfReference if p.width <= 64 => {
                varint::put(out, p.min);
                out.push(p.width);
                let min = p.min as u64;
                if let Some(values) = T::u64s(values) {
                    pack::pack_u64(out, values, min, p.width);
                } else if let (Some(bits), 1, 0) = (T::u8s(values), p.width, min) {
                    pack::pack_bits(out, bits);
                } else {
                    pack64(out, values.iter().map(|v| (v.wide() as u64).wrapping_sub(min)), p.width);
                }
            }
            E::FrameOfReference => write_for(out, values.iter().map(|v| v.wide()), p.min, p.width),
            E::Delta => {
                varint::put(out, values[0].wide());
                if p.delta_width <= 64 && p.delta_min.checked_add(1 << p.delta_width).is_some_and(|end| end <= 1 << 64)
                {
                    varint::put(out, p.delta_min);
                    out.push(p.delta_width);
                    let dmin = p.delta_min as u64;
                    if let Some(values) = T::u64s(values) {
                        pack::pack_deltas_u64(out, values, dmin, p.delta_width);
                    } else {
                        let deltas = values.windows(2).map(|w| {
                            let d = (w[1].wide() as u64).wrapping_sub(w[0].wide() as u64) as i64;
                            varint::zigzag64(d).wrapping_sub(dmin)
                        });
                        pack64(out, deltas, p.delta_width);
                    }
                } else {
                    let deltas = values.windows(2).map(|w| zigzag_delta(w[1].wide(), w[0].wide()));
                    write_for(out, deltas, p.delta_min, p.delta_width);
                }
            }
            _ => write_runs(out, values, p.size),
        }
        debug_assert_eq!(out.len() - start, p.size + 1);
    }
}

/// Appends `values` as varints, which take `size` bytes: the bytes are
/// made room for at once and each value written by index (no capacity
/// check or call per value), in 64-bit arithmetic where the value fits.
fn write_varints<T: Int>(out: &mut Vec<u8>, values: &[T], size: usize) {
    let mut at = out.len();
    out.resize(at + size, 0);
    let buf = &mut out[..];
    if let Some(values) = T::u64s(values) {
        // Eight values below 2^7 (most of a varint column, often) are
        // eight bytes, stored at once.
        let groups = values.chunks_exact(8);
        let rest = groups.remainder();
        for g in groups {
            let g: &[u64; 8] = g.try_into().expect("a group of eight");
            if g.iter().fold(0, |a, &v| a | v) < 0x80 {
                buf[at..at + 8].copy_from_slice(&g.map(|v| v as u8));
                at += 8;
            } else if (1 << 14..1 << 56).contains(&g.iter().fold(0, |a, &v| a | v)) && buf.len() - at >= 64 {
                // A group with a value of three bytes or more (amounts,
                // counts; of one or two bytes, the loop takes fewer), all
                // below 2^56, with room for eight words.
                g.iter().for_each(|&v| at = put_u64_word(buf, at, v));
            } else {
                g.iter().for_each(|&v| at = put_u64(buf, at, v));
            }
        }
        rest.iter().for_each(|&v| at = put_u64(buf, at, v));
        debug_assert_eq!(at, out.len());
        return;
    }
    for v in values {
        at = put_wide(buf, at, v.wide());
    }
    debug_assert_eq!(at, out.len());
}

/// Appends the runs of `values` (each its length's varint, then its
/// value's), which take `size` bytes, as [`write_varints`] does: the bytes
/// made room for at once and each varint written by index.
fn write_runs<T: Int>(out: &mut Vec<u8>, values: &[T], size: usize) {
    let mut at = out.len();
    out.resize(at + size, 0);
    let buf = &mut out[..];
    let mut i = 0;
    while i < values.len() {
        let end = run_end(values, i);
        at = put_u64(buf, at, (end - i) as u64);
        at = put_wide(buf, at, values[i].wide());
        i = end;
    }
    debug_assert_eq!(at, out.len());
}

/// Writes `v`'s varint into `buf` at `at`; where it ends.
#[inline(always)]
fn put_wide(buf: &mut [u8], at: usize, v: u128) -> usize {
    match u64::try_from(v) {
        Ok(x) => put_u64(buf, at, x),
        Err(_) => {
            let mut tmp = [0u8; varint::MAX_LEN];
            let n = varint::encode(v, &mut tmp);
            buf[at..at + n].copy_from_slice(&tmp[..n]);
            at + n
        }
    }
}

/// [`put_u64`] of `x`, below 2^56 (eight bytes at most), where `buf` has
/// eight bytes from `at`: the varint's bytes built in a word and stored
/// whole (the bytes past the varint's are zeros, which the next varint's
/// store replaces), with no test a byte, where a value of several bytes
/// took a test, a store and a bounds check a byte.
#[inline(always)]
fn put_u64_word(buf: &mut [u8], at: usize, x: u64) -> usize {
    let len = usize::from(VARINT_LEN[(64 - x.leading_zeros()) as usize]);
    buf[at..at + 8].copy_from_slice(&varint_word(x, len).to_le_bytes());
    at + len
}

/// The varint of `x`, below 2^56, which takes `len` bytes, as the bytes of
/// a little-endian word: its 7-bit groups spread to a byte each (halves of
/// 28 bits to 32-bit lanes, their halves to 16-bit lanes, theirs to bytes),
/// and the top bit set in each byte but the last. A part `x & high` moved
/// `s` bits up is `x + (x & high) * (2^s - 1)`: an and, a multiply (a `lea`
/// or a shift) and an add, one mask a step, where masking both parts and
/// or'ing them took two.
#[inline(always)]
fn varint_word(x: u64, len: usize) -> u64 {
    debug_assert!(x >> 56 == 0 && (1..=8).contains(&len));
    let up = |x: u64, high: u64, s: u32| x + (x & high) * ((1 << s) - 1);
    let x = up(x, 0x00ff_ffff_f000_0000, 4);
    let x = up(x, 0x0fff_c000_0fff_c000, 2);
    let x = up(x, 0x3f80_3f80_3f80_3f80, 1);
    x | VARINT_MORE[len]
}

/// The top bits of a varint of `len` bytes (up to 8; as many entries as
/// [`VARINT_LEN`] has lengths, so that no index is checked) in a word: one
/// in each byte but the last.
const VARINT_MORE: [u64; 11] = {
    let mut t = [0u64; 11];
    let mut len = 2;
    while len <= 8 {
        t[len] = 0x8080_8080_8080_8080 & ((1u64 << (8 * (len - 1))) - 1);
        len += 1;
    }
    t
};

/// Writes `x`'s varint into `buf` at `at`; where it ends.
#[inline(always)]
fn put_u64(buf: &mut [u8], mut at: usize, mut x: u64) -> usize {
    while x >= 0x80 {
        buf[at] = (x as u8) | 0x80;
        x >>= 7;
        at += 1;
    }
    buf[at] = x as u8;
    at + 1
}

/// What an integer column decodes into: `u128` for every column, `u64`
/// for columns of at most 64 bits (half the memory, no conversion after).
pub(crate) trait Lane: Copy {
    /// `v`, which the caller checked fits.
    fn lane(v: u128) -> Self;
}

impl Lane for u128 {
    #[inline]
    fn lane(v: u128) -> Self {
        v
    }
}

impl Lane for u64 {
    #[inline]
    fn lane(v: u128) -> Self {
        v as u64
    }
}

/// Narrower unsigned lanes, and `bool` for presence columns (`v == 1`):
/// values converted as they are decoded (an entropy-coded column converts
/// its distinct values once), not in a pass over the column after.
macro_rules! narrow_lanes {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            #[inline]
            fn lane(v: u128) -> Self {
                v as $t
            }
        }
    )*};
}
narrow_lanes!(u8, u16, u32);

impl Lane for bool {
    #[inline]
    fn lane(v: u128) -> Self {
        v == 1
    }
}

/// Signed lanes take the zigzag form of the column (SPEC.md §22.2) back to
/// the value.
macro_rules! signed_lanes {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            #[inline]
            fn lane(v: u128) -> Self {
                varint::unzigzag64(v as u64) as $t
            }
        }
    )*};
}
signed_lanes!(i8, i16, i32, i64);

/// Collects values, remembering the first that passes `max_bits` (the
/// column then fails, but only once the rest was read: errors of reading
/// come first).
struct Values<T> {
    out: Vec<T>,
    max_bits: u32,
    bad: Option<u128>,
}

impl<T: Lane> Values<T> {
    fn new(n: u64, max_bits: u32) -> Self {
        Values { out: Vec::with_capacity(n as usize), max_bits, bad: None }
    }

    #[inline]
    fn fits(&self, v: u128) -> bool {
        self.max_bits >= 128 || v >> self.max_bits == 0
    }

    #[inline]
    fn push(&mut self, v: u128) {
        if !self.fits(v) && self.bad.is_none() {
            self.bad = Some(v);
        }
        self.out.push(T::lane(v));
    }
}

/// Reads the FOR block of `n` values into `vals`.
fn read_for<T: Lane>(c: &mut Cursor<'_>, n: u64, vals: &mut Values<T>) -> Result<()> {
    let base = c.varint(128)?;
    let at = c.offset();
    let width = c.u8()?;
    if u32::from(width) > vals.max_bits {
        return Err(c.invalid(at, format!("a bit width of {width} passes the {} bits of the type", vals.max_bits)));
    }
    let bits = n as u128 * u128::from(width);
    let packed_at = c.offset();
    let packed = c.take_checked(bits.div_ceil(8))?;
    // The last byte's padding bits are 0 (SPEC.md §22.2), so that a column
    // has one form for its base, width and values.
    if bits % 8 != 0 && packed[packed.len() - 1] >> (bits % 8) != 0 {
        return Err(c.invalid(packed_at, "the padding bits of the frame of reference are not 0".into()));
    }
    // The common case: eight bytes from a value's first hold all of it, and
    // every value fits the column (so none is checked).
    if width <= 56 && base.checked_add((1u128 << width) - 1).is_some_and(|top| vals.fits(top)) {
        if width == 0 {
            // Every value is the base: a presence column with no null, a
            // constant column. One fill instead of a window read per value.
            vals.out.resize(vals.out.len() + n as usize, T::lane(base));
            return Ok(());
        }
        let mask = (1u64 << width) - 1;
        let w = usize::from(width);
        let window = |bit: usize| -> u64 {
            let i = bit / 8;
            let word = match packed.get(i..i + 8) {
                Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
                None => {
                    let mut b = [0u8; 8];
                    let rest = &packed[i.min(packed.len())..];
                    b[..rest.len()].copy_from_slice(rest);
                    u64::from_le_bytes(b)
                }
            };
            (word >> (bit % 8)) & mask
        };
        vals.out.extend((0..n as usize).map(|k| T::lane(base + u128::from(window(k * w)))));
        return Ok(());
    }
    let mut bit = 0usize;
    for _ in 0..n {
        let mut v: u128 = 0;
        let mut got = 0u32;
        while got < u32::from(width) {
            let byte = packed[bit / 8];
            let off = (bit % 8) as u32;
            let take = (8 - off).min(u32::from(width) - got);
            let part = (u128::from(byte) >> off) & ((1u128 << take) - 1);
            v |= part << got;
            got += take;
            bit += take as usize;
        }
        let value = base.checked_add(v).ok_or_else(|| c.invalid(at, "base + value overflows".into()))?;
        vals.push(value);
    }
    Ok(())
}

/// Reads an integer column body of exactly `n` values, each at most
/// `max_bits` wide, into `T` (`u64` needs `max_bits` ≤ 64); `n` was
/// already checked against the decoder's budget.
pub(crate) fn decode<T: Lane>(c: &mut Cursor<'_>, n: u64, max_bits: u32) -> Result<Vec<T>> {
    debug_assert!(std::mem::size_of::<T>() * 8 >= max_bits as usize);
    let at = c.offset();
    let enc = c.u8()?;
    let mut vals = Values::<T>::new(n, max_bits);
    match E::from_byte(enc) {
        Some(E::Varint) => {
            // Each varint takes at least a byte.
            c.check_fits(at, n, 1)?;
            for _ in 0..n {
                vals.push(c.varint(max_bits)?);
            }
        }
        Some(E::FrameOfReference) => read_for(c, n, &mut vals)?,
        Some(E::Entropy) if c.is_file() => super::entropy::decode(c, n, max_bits, &mut vals.out)?,
        Some(E::Runs) if c.is_file() => super::runs::decode(c, n, max_bits, &mut vals.out)?,
        Some(E::Delta) => {
            if n == 0 {
                return Err(c.invalid(at, "a delta column of no values".into()));
            }
            let first = c.varint(128)?;
            let mut deltas = Values::<u128>::new(0, 128);
            read_for(c, n - 1, &mut deltas)?;
            let mut v = first;
            vals.push(v);
            for d in deltas.out {
                v = v.wrapping_add(varint::unzigzag(d) as u128);
                vals.push(v);
            }
        }
        Some(E::RunLength) => {
            let mut runs = Vec::new();
            let mut count = 0u64;
            while count < n {
                let run_at = c.offset();
                let run = c.varint(64)? as u64;
                let value = c.varint(128)?;
                // `run > n - count`, not `count + run > n`: a run near 2^64
                // must not wrap the sum back under n.
                if run == 0 || run > n - count {
                    return Err(c.invalid(run_at, format!("a run of {run} values where {} remain", n - count)));
                }
                runs.push((run, value));
                count += run;
            }
            for (run, value) in runs {
                if !vals.fits(value) && vals.bad.is_none() {
                    vals.bad = Some(value);
                }
                vals.out.extend(std::iter::repeat(T::lane(value)).take(run as usize));
            }
        }
        other => {
            return Err(Error::at(
                ErrorKind::UnknownDiscriminant,
                at,
                match other {
                    Some(E::Entropy | E::Runs) => {
                        format!("0x{enc:02x} is an integer column encoding of XBF files only, not of messages")
                    }
                    _ => format!("0x{enc:02x} is not an integer column encoding"),
                },
            ))
        }
    }
    if let Some(bad) = vals.bad {
        return Err(c.invalid(at, format!("the value {bad} passes the {max_bits} bits of the column's type")));
    }
    Ok(vals.out)
}

#[cfg(test)]
mod tests;
