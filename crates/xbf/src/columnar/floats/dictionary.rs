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
use super::{DecimalParts, Float};

/// The distinct values (by bits, in first-seen order) and each value's
/// index among them; `None` when most values are distinct. `parts`: a
/// decimal encoding's parts of `values`, at any exponent.
pub(super) fn dictionary<F: Float>(values: &[F], parts: Option<&DecimalParts>) -> Option<(Vec<F>, Vec<u64>)> {
    if gives_up_surely(values) {
        return None;
    }
    match parts.and_then(|p| Table::new(values.len(), p).map(|t| (p, t))) {
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
/// measurements) whose dictionaries give up at half the column. `false`
/// (the dictionary is then built) as soon as more than one value in eight
/// looks repeated: there it may well be kept, and is worth building. (Not
/// inlined: the column encoder's own loops compile worse with it.)
#[inline(never)]
fn gives_up_surely<F: Float>(values: &[F]) -> bool {
    let n = values.len();
    let give_up = n / 2 + 16;
    if n <= give_up {
        return false;
    }
    // The walk ends within about 4,700 values: on a column of 8,192 or
    // fewer, the give-up count is at most 4,112; on a longer one, by value
    // 4,096 either more than 3,072 counted as distinct (`mostly_distinct`)
    // or more than one in eight looked repeated. So four to eight bits a
    // value up to 8,192 values (at half the column about one value in 16
    // shares its bit with one before, fewer than the one in eight that
    // stops the count: a table of half a byte to a byte a value to clear),
    // and 2^16 bits (8 KiB) for any longer column.
    let bits = if n > 8192 { 1 << 16 } else { (4 * n).next_power_of_two().max(64) };
    let shift = 64 - bits.trailing_zeros();
    let mut table = vec![0u64; bits / 64];
    // A power of two: the mask keeps each word's index in the table
    // without a bounds check.
    let last = table.len() - 1;
    let mut count = 0usize;
    let mut seen = 0usize;
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
        if seen - count > seen / 8 + 8 {
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
    /// up, so a few slots per value at most (the range is checked as it
    /// is found, a block of values at a time).
    fn new(n: usize, parts: &DecimalParts) -> Option<Table> {
        let most = 4 * n as u64 + 1024;
        let fitting = |i: &usize| parts.exceptions.binary_search(&(*i as u64)).is_err();
        let first = (0..parts.ints.len()).find(fitting)?;
        let z0 = parts.ints[first];
        let (mut lo, mut hi, mut parity) = (z0, z0, 0u64);
        if parts.exceptions.is_empty() {
            for block in parts.ints.chunks(64) {
                for &z in block {
                    lo = lo.min(z);
                    hi = hi.max(z);
                    parity |= z ^ z0;
                }
                if (hi - lo) >> 1 >= most {
                    return None;
                }
            }
        } else {
            for i in (first..parts.ints.len()).filter(fitting) {
                let z = parts.ints[i];
                lo = lo.min(z);
                hi = hi.max(z);
                parity |= z ^ z0;
            }
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
    if values.len() / 2 + 17 < usize::from(u16::MAX) {
        by_slots::<F, u16>(values, parts, table)
    } else if values.len() / 2 + 17 < u32::MAX as usize {
        by_slots::<F, u32>(values, parts, table)
    } else {
        by_hash(values)
    }
}

fn by_slots<F: Float, S: Slot>(values: &[F], parts: &DecimalParts, table: Table) -> Option<(Vec<F>, Vec<u64>)> {
    let mut found = Found::new(values.len());
    let mut slots = vec![S::default(); table.span];
    if parts.exceptions.is_empty() {
        for (i, (v, &z)) in values.iter().zip(&parts.ints).enumerate() {
            let slot = &mut slots[table.slot(z)];
            let id = if *slot == S::default() {
                let next = found.distinct.len() as u64;
                *slot = S::of(next);
                if !found.add(i, *v) {
                    return None;
                }
                next
            } else {
                slot.id()
            };
            found.ids.push(id);
        }
        return Some((found.distinct, found.ids));
    }
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
