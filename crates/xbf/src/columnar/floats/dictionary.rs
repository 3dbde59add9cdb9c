//! The float dictionary's distinct values and each value's index among
//! them. Where a decimal encoding of the column was worked out, a value
//! that fits it is found by its integer in a table indexed by the integer
//! (no hashing): two values that fit have the same integer exactly when
//! they have the same bits (the integer is the product rounded, and gives
//! the value back), and a value that fits never has the bits of one that
//! does not. The values that do not fit, and every value where no decimal
//! was worked out or its integers spread too far, are found by their bits
//! hashed.

use super::super::hash::{self, WordIds};
use super::super::{mostly_distinct, FastHash};
use super::{exact_decimal, DecimalParts, Float};
use crate::wire::varint;

/// The distinct values (by bits, in first-seen order) and each value's
/// index among them; `None` when most values are distinct. `parts`: a
/// decimal encoding's parts of `values`, at any exponent (given with it).
pub(super) fn dictionary<F: Float>(values: &[F], parts: Option<(u8, &DecimalParts)>) -> Option<(Vec<F>, Vec<u64>)> {
    if gives_up_surely(values) {
        return None;
    }
    match parts.and_then(|(e, p)| Table::new(values, e, p).map(|t| (p, t))) {
        Some((p, table)) => by_table(values, p, table),
        None => by_hash(values),
    }
}

/// Whether the dictionary of `values` is sure to give up, found without
/// building it: each value's bits hashed to one bit of a table, the count
/// of bits set is at most the count of distinct values so far (values of
/// the same hash count once), so once it passes where the dictionary gives
/// up (more than half the column and 16 new, or [`mostly_distinct`]), so
/// does the count of distinct values, and the dictionary gives up. A few
/// instructions a value instead of a look-up, a push and an index each,
/// for the columns of mostly distinct values (prices, coordinates,
/// measurements) whose dictionaries give up at half the column, and for
/// those whose values repeat but not enough (a proof there saves the
/// dictionary's build up to where it gives up). `false` (the dictionary
/// is then built) as soon as the count, growing on at its rate over the
/// last 64 values, would end short of the give-up count: there the
/// dictionary is likely kept, and worth building. (Not inlined: the
/// column encoder's own loops compile worse with it.)
#[inline(never)]
fn gives_up_surely<F: Float>(values: &[F]) -> bool {
    let n = values.len();
    let give_up = n / 2 + 16;
    if n <= give_up {
        return false;
    }
    // The walk ends within 8,192 values: on a column of 8,192 or fewer,
    // at its end; on a longer one, at value 4,096 (past it only more than
    // half the column proves, unlikely for a table of its size). So four
    // to eight bits a value up to 8,192 values (at half the column about
    // one value in 16 shares its bit with one before, at the end one in
    // eight: a table of half a byte to a byte a value to clear), and 2^16
    // bits (8 KiB) for any longer column.
    let bits = if n > 8192 { 1 << 16 } else { (4 * n).next_power_of_two().max(64) };
    let shift = 64 - bits.trailing_zeros();
    let mut table = vec![0u64; bits / 64];
    // A power of two: the mask keeps each word's index in the table
    // without a bounds check.
    let last = table.len() - 1;
    let mut count = 0usize;
    let mut seen = 0usize;
    // Where the last window of values began, and the count there.
    let (mut window, mut count_then) = (0usize, 0usize);
    // The counts are compared a block of values at a time, not per value
    // (the comparisons cost more than the bits): `true` is still a proof
    // (the bits set at a block's end never outnumber the distinct values
    // up to there, and the dictionary gives up as soon as those pass its
    // bound), and a `false` a few values late only means the dictionary
    // is built.
    for block in values.chunks(8) {
        for v in block {
            let h = (v.to_bits64().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize;
            let (word, bit) = (&mut table[(h / 64) & last], 1u64 << (h % 64));
            count += usize::from(*word & bit == 0);
            *word |= bit;
        }
        seen += block.len();
        if count > give_up || mostly_distinct(seen, count, n) {
            return true;
        }
        // Every 64 values: where the count, growing on at the last 64
        // values' rate, would end short of the give-up count, the
        // dictionary is likely kept (and worth building): no proof is
        // likely.
        if seen - window >= 64 {
            let (w, new) = (seen - window, count - count_then);
            if count * w + new * (n - seen) < give_up * w {
                return false;
            }
            (window, count_then) = (seen, count);
        }
        if n > 8192 && seen >= 4096 {
            return false;
        }
    }
    false
}

/// The distinct values so far and the indices, and when to give up.
struct Found<F> {
    distinct: Vec<F>,
    ids: Vec<u64>,
    give_up: usize,
    n: usize,
}

impl<F: Float> Found<F> {
    fn new(n: usize) -> Self {
        // Room for as many distinct values as the dictionary may take (it
        // gives up past half the column), without growing on the way.
        let room = (n / 2 + 17).min(4096);
        Found { distinct: Vec::with_capacity(room), ids: Vec::with_capacity(n), give_up: n / 2 + 16, n }
    }

    /// Takes `v`, the `i`th value, as new; `false` if the dictionary gives
    /// up there.
    #[inline]
    fn add(&mut self, i: usize, v: F) -> bool {
        self.distinct.push(v);
        !(self.distinct.len() > self.give_up || mostly_distinct(i + 1, self.distinct.len(), self.n))
    }
}

/// The dictionary with each value's bits hashed.
fn by_hash<F: Float>(values: &[F]) -> Option<(Vec<F>, Vec<u64>)> {
    let mut found = Found::new(values.len());
    let mut index = BitsIds::with_room((values.len() / 2 + 17).min(4096));
    for (i, v) in values.iter().enumerate() {
        let next = found.distinct.len() as u64;
        let id = index.find_or_add(v.to_bits64(), next);
        if id == next && !found.add(i, *v) {
            return None;
        }
        found.ids.push(id);
    }
    Some((found.distinct, found.ids))
}

/// The all-ones word of bits (a NaN), which [`WordIds`] keeps out of its
/// slots (it marks a free one).
const FREE: u64 = hash::FREE;

/// The index each distinct word of bits got when it first came: a
/// [`WordIds`] (open addressing, at most half full: one probe and one
/// comparison for most values, where a general hash table probes twice to
/// add) made with room for what the dictionary may take before it gives
/// up, up to a bound (it grows past that), and the all-ones word's index
/// kept aside.
struct BitsIds {
    words: WordIds,
    all_ones: Option<u64>,
}

impl BitsIds {
    fn with_room(room: usize) -> Self {
        BitsIds { words: WordIds::with_room(FastHash::default(), room), all_ones: None }
    }

    /// The index of `bits`, or `next` if they are new (then added with
    /// index `next`, the count of distinct words so far).
    #[inline]
    fn find_or_add(&mut self, bits: u64, next: u64) -> u64 {
        if bits == FREE {
            return *self.all_ones.get_or_insert(next);
        }
        self.words.find_or_add(bits, next)
    }
}

/// Where the decimal integers (zigzagged) of the values that fit lie:
/// slot `(z - lo) >> shift` for `z`, `span` slots. Where they all have the
/// same sign, their zigzag forms have the same parity (0 is even, a
/// negative integer odd), and every other slot would stay empty: halved.
struct Table {
    lo: u64,
    shift: u32,
    span: usize,
}

impl Table {
    /// The integers' range, if a table over it is worth clearing: clearing
    /// a slot costs about what finding a value by its hash saves, and at
    /// least half the values are looked up before the dictionary can give
    /// up, so a few slots per value at most.
    ///
    /// Where every value fits (no exceptions), the range comes from the
    /// smallest and the largest value (a pass of float comparisons, not of
    /// 64-bit ones, which SSE2 lacks): a value's integer is its product
    /// `v·10^e` rounded, and both steps keep the order, so the smallest
    /// value has the smallest integer and the largest the largest. Of one
    /// sign, the zigzag forms keep (or reverse) that order and share their
    /// parity; of both, they run from 0 (a bound, perhaps below the
    /// smallest: the table then has a few slots more) to the larger of the
    /// two ends' forms. `e`: the exponent `parts` are of.
    fn new<F: Float>(values: &[F], e: u8, parts: &DecimalParts) -> Option<Table> {
        let n = values.len();
        let most = 4 * n as u64 + 1024;
        if parts.exceptions.is_empty() && n > 0 {
            let (small, large) = min_max(values);
            if let (Some(a), Some(b)) = (exact_decimal(small, e), exact_decimal(large, e)) {
                let (za, zb) = (varint::zigzag64(a), varint::zigzag64(b));
                let (lo, hi, shift) = match (a >= 0, b >= 0) {
                    (true, _) => (za, zb, 1),
                    (false, false) => (zb, za, 1),
                    (false, true) => (0, za.max(zb), 0),
                };
                let span = ((hi - lo) >> shift) + 1;
                return (span <= most).then_some(Table { lo, shift, span: span as usize });
            }
        }
        let fitting = |i: &usize| parts.exceptions.binary_search(&(*i as u64)).is_err();
        let first = (0..parts.ints.len()).find(fitting)?;
        let z0 = parts.ints[first];
        let (mut lo, mut hi, mut parity) = (z0, z0, 0u64);
        for i in (first..parts.ints.len()).filter(fitting) {
            let z = parts.ints[i];
            lo = lo.min(z);
            hi = hi.max(z);
            parity |= z ^ z0;
        }
        let shift = u32::from(parity & 1 == 0);
        let span = ((hi - lo) >> shift) + 1;
        (span <= most).then_some(Table { lo, shift, span: span as usize })
    }

    #[inline]
    fn slot(&self, z: u64) -> usize {
        ((z - self.lo) >> self.shift) as usize
    }
}

/// The smallest and the largest of `values` (at least one, none NaN), by
/// `<` (so -0 and +0 are alike: a column with -0 has an exception, and
/// takes the other way). Four of each kept, so that the loop has no chain
/// of comparisons from one value to the next.
fn min_max<F: Float>(values: &[F]) -> (F, F) {
    let first = values[0];
    let (mut lo, mut hi) = ([first; 4], [first; 4]);
    let mut blocks = values.chunks_exact(4);
    for block in &mut blocks {
        for k in 0..4 {
            let v = block[k];
            lo[k] = if v.to_f64() < lo[k].to_f64() { v } else { lo[k] };
            hi[k] = if v.to_f64() > hi[k].to_f64() { v } else { hi[k] };
        }
    }
    for &v in blocks.remainder() {
        lo[0] = if v.to_f64() < lo[0].to_f64() { v } else { lo[0] };
        hi[0] = if v.to_f64() > hi[0].to_f64() { v } else { hi[0] };
    }
    let pick = |a: F, b: F, less: bool| if (a.to_f64() < b.to_f64()) == less { a } else { b };
    let small = pick(pick(lo[0], lo[1], true), pick(lo[2], lo[3], true), true);
    let large = pick(pick(hi[0], hi[1], false), pick(hi[2], hi[3], false), false);
    (small, large)
}

/// A table slot: the index of the integer plus one, 0 for one not seen.
trait Slot: Copy + Default + PartialEq {
    fn of(id: u64) -> Self;
    fn id(self) -> u64;
}

impl Slot for u16 {
    fn of(id: u64) -> Self {
        (id + 1) as u16
    }
    fn id(self) -> u64 {
        u64::from(self) - 1
    }
}

impl Slot for u32 {
    fn of(id: u64) -> Self {
        (id + 1) as u32
    }
    fn id(self) -> u64 {
        u64::from(self) - 1
    }
}

/// The dictionary with the values that fit found by their integers
/// (`parts`' of `values`), the others by their bits hashed. Slots of 16
/// bits where the ids fit (the dictionary gives up past `n / 2 + 16`
/// distinct values), less to clear.
fn by_table<F: Float>(values: &[F], parts: &DecimalParts, table: Table) -> Option<(Vec<F>, Vec<u64>)> {
    // (Room for the ids a block of `by_slots_all` may add past the bound.)
    if values.len() / 2 + 17 + BLOCK < usize::from(u16::MAX) {
        by_slots::<F, u16>(values, parts, table)
    } else if values.len() / 2 + 17 + BLOCK < u32::MAX as usize {
        by_slots::<F, u32>(values, parts, table)
    } else {
        by_hash(values)
    }
}

fn by_slots<F: Float, S: Slot>(values: &[F], parts: &DecimalParts, table: Table) -> Option<(Vec<F>, Vec<u64>)> {
    if parts.exceptions.is_empty() {
        return by_slots_all::<F, S>(values, &parts.ints, table);
    }
    let mut found = Found::new(values.len());
    let mut slots = vec![S::default(); table.span];
    let mut others = BitsIds::with_room(parts.exceptions.len().min(4096));
    let mut exceptions = parts.exceptions.iter().copied().peekable();
    for (i, (v, &z)) in values.iter().zip(&parts.ints).enumerate() {
        let next = found.distinct.len() as u64;
        let id = if exceptions.next_if_eq(&(i as u64)).is_some() {
            others.find_or_add(v.to_bits64(), next)
        } else {
            let slot = &mut slots[table.slot(z)];
            if *slot == S::default() {
                *slot = S::of(next);
                next
            } else {
                slot.id()
            }
        };
        if id == next && !found.add(i, *v) {
            return None;
        }
        found.ids.push(id);
    }
    Some((found.distinct, found.ids))
}

/// [`by_slots`] where every value fits: each value's slot from its
/// integer alone, and the ids collected a block of [`BLOCK`] values at a
/// time (no check a value; the loop keeps its state in registers), the
/// give-up rule checked after each: the count of distinct values only
/// grows, so it passes `n / 2 + 16` within a column exactly when it has
/// at the end of some block; and [`mostly_distinct`]'s 4,096 values end a
/// block. (Not inlined: inside the column encoder the loop kept its state
/// on the stack.)
#[inline(never)]
fn by_slots_all<F: Float, S: Slot>(values: &[F], ints: &[u64], table: Table) -> Option<(Vec<F>, Vec<u64>)> {
    let n = values.len();
    let give_up = n / 2 + 16;
    let mut distinct: Vec<F> = Vec::with_capacity((n / 2 + 17).min(4096));
    let mut ids: Vec<u64> = Vec::with_capacity(n);
    let mut slots = vec![S::default(); table.span];
    let (lo, shift) = (table.lo, table.shift);
    for (vs, zs) in values.chunks(BLOCK).zip(ints.chunks(BLOCK)) {
        // Moved into the closure by value (the slice, the table's fields),
        // not read through references that the stores of ids might alias:
        // kept in registers.
        let (slots, found) = (&mut slots[..], &mut distinct);
        ids.extend(vs.iter().zip(zs).map(move |(v, &z)| {
            let slot = &mut slots[((z - lo) >> shift) as usize];
            if *slot == S::default() {
                *slot = S::of(found.len() as u64);
                found.push(*v);
            }
            slot.id()
        }));
        if distinct.len() > give_up || mostly_distinct(ids.len(), distinct.len(), n) {
            return None;
        }
    }
    Some((distinct, ids))
}

/// The values [`by_slots_all`] takes between two checks of the give-up
/// rule: a divisor of 4,096. A block may add this many distinct values
/// past the rule's bound before its check: the slots' type has room for
/// them (see [`by_table`]).
const BLOCK: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dictionary_sure_to_give_up_gives_up() {
        let mut next = crate::columnar::lcg(23, 11);
        let mut proven = 0;
        for round in 0..400 {
            let n = [0, 1, 32, 33, 34, 40, 252, 500, 3376, 9000, 20_000][round % 11];
            // Distinct values among `spread` (a few, about half the
            // column, all), some repeated runs, and all-ones NaN.
            let spread = [2, n as u64 / 2 + 10, n as u64 / 2 + 20, 1 << 40][(round / 11) % 4].max(1);
            let repeat = [1, 1, 2, 9][(round / 44) % 4];
            let mut values = Vec::with_capacity(n);
            while values.len() < n {
                let r = next() % spread;
                let v = if r == 1 { f64::from_bits(u64::MAX) } else { r as f64 * 0.01 };
                values.extend(std::iter::repeat_n(v, repeat.min(n - values.len())));
            }
            let hashed = by_hash(&values).map(|(d, ids)| (d.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), ids));
            if gives_up_surely(&values) {
                proven += 1;
                assert_eq!(hashed, None, "round {round}");
            }
            // The whole dictionary, which checks it first, as before.
            let found = dictionary(&values, None).map(|(d, ids)| (d.iter().map(|x| x.to_bits()).collect(), ids));
            assert_eq!(found, hashed, "round {round}");
        }
        assert!(proven > 30, "{proven} proven");
    }

    fn bits<F: Float>(d: Option<(Vec<F>, Vec<u64>)>) -> Option<(Vec<u64>, Vec<u64>)> {
        d.map(|(d, ids)| (d.iter().map(|x| x.to_bits64()).collect(), ids))
    }

    /// The table from the column's smallest and largest values holds every
    /// value's integer in a slot of its own, as the table from a scan of
    /// the integers does: the same one where the integers have one sign,
    /// one from 0 (as many slots more as the smallest integer's zigzag
    /// form) where they have both.
    #[test]
    fn a_table_from_the_ends_holds_every_integer() {
        let mut next = crate::columnar::lcg(29, 11);
        let mut tables = 0;
        for round in 0..600 {
            let n = [1, 2, 5, 64, 300, 1000][round % 6];
            let e = (round / 6 % 4) as u8;
            // Zero and up, both signs, or below zero (and each negated),
            // over a spread.
            let signs = round / 24 % 3;
            let spread = [3, 50, 2000][round / 72 % 3];
            let values: Vec<f64> = (0..n)
                .map(|_| {
                    let r = next();
                    let k = (r % spread) as f64;
                    let k = match signs {
                        0 => k,
                        1 if r % 3 == 0 => 0.0 - k,
                        1 => k,
                        _ => -k - 1.0,
                    };
                    k / 10f64.powi(i32::from(e))
                })
                .collect();
            // (-0 fits no exponent: a negated 0 stays +0.)
            let negated = values.iter().map(|&v| if v == 0.0 { 0.0 } else { -v }).collect();
            for values in [values, negated] {
                let parts = DecimalParts::of(&values, e);
                assert!(parts.exceptions.is_empty(), "round {round}");
                let Some(t) = Table::new(&values, e, &parts) else { continue };
                tables += 1;
                let (lo, hi) = (parts.ints.iter().min().unwrap(), parts.ints.iter().max().unwrap());
                let parity = parts.ints.iter().fold(0, |p, z| p | (z ^ parts.ints[0]));
                assert_eq!(t.shift, u32::from(parity & 1 == 0), "round {round}");
                let one_sign = values.iter().all(|&v| v >= 0.0) || values.iter().all(|&v| v < 0.0);
                assert_eq!(t.lo, if one_sign { *lo } else { 0 }, "round {round}");
                assert_eq!(t.span as u64, ((hi - t.lo) >> t.shift) + 1, "round {round}");
                for &z in &parts.ints {
                    assert!(z >= t.lo && (z - t.lo) & u64::from(t.shift) == 0 && t.slot(z) < t.span, "round {round}");
                }
                let found = bits(by_table(&values, &parts, t));
                assert_eq!(found, bits(by_hash(&values)), "round {round}");
            }
        }
        assert!(tables > 1000, "{tables} tables");
    }

    /// The dictionary by integers, which checks its give-up rule once a
    /// block, gives up where the one checking each value does: columns
    /// whose distinct values come to the bound, one either side of it, of
    /// the column's half and of the 3,072 among the first 4,096 values.
    #[test]
    fn by_integers_gives_up_where_hashing_does() {
        let mut checked = 0;
        for n in [600, 5000, 8193, 9000, 20_000] {
            let half = n / 2 + 16;
            for (first, total) in
                [(3071, 3071), (3072, 3072), (3073, 3073), (200, half - 1), (200, half), (200, half + 1)]
            {
                let head = n.min(4096);
                let first = first.min(head);
                let total = total.max(first).min(first + n - head);
                for scatter in [1, 7919] {
                    // Which positions bring a new value: `first` of the
                    // first 4,096 and the rest after them, spread out by
                    // an odd multiplier (a permutation), else a repeat.
                    let mut fresh = 0u64;
                    let values: Vec<f64> = (0..n)
                        .map(|i| {
                            let new = if i < head {
                                (i * scatter) % head < first
                            } else {
                                ((i - head) * scatter) % (n - head) < total - first
                            };
                            let k = if new {
                                fresh += 1;
                                fresh
                            } else {
                                1
                            };
                            k as f64
                        })
                        .collect();
                    let parts = DecimalParts::of(&values, 0);
                    let table = Table::new(&values, 0, &parts).expect("a table");
                    let found = bits(by_table(&values, &parts, table));
                    assert_eq!(found, bits(by_hash(&values)), "{n} {first} {total}");
                    let gives_up = total > half || (n > 8192 && first > 3072);
                    assert_eq!(found.is_none(), gives_up, "{n} {first} {total}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 60);
    }

    #[test]
    fn bits_ids_are_the_indices_of_first_appearance() {
        let mut next = crate::columnar::lcg(17, 11);
        for round in 0..100 {
            let n = [0, 1, 3, 50, 700, 9000][round % 6];
            let spread = 1 + next() % [2, 40, 1000, 1 << 40][round % 4];
            // Room for one (it grows, again and again), and all-ones words.
            let mut ids = BitsIds::with_room([1, 4096][round % 2]);
            let mut first = std::collections::HashMap::new();
            for _ in 0..n {
                let r = next() % spread;
                let bits = if r == 1 { FREE } else { r.wrapping_mul(0x9e37_79b9_7f4a_7c15) };
                let count = first.len() as u64;
                let want = *first.entry(bits).or_insert(count);
                assert_eq!(ids.find_or_add(bits, count), want, "round {round}");
            }
        }
    }
}
