//! The writer's hash for dictionaries and repeated values.

/// A fast hash for the writer's dictionaries (multiply and rotate over
/// 8-byte words), keyed once per process so that chosen inputs cannot
/// collide on purpose.
#[derive(Clone, Copy)]
pub(crate) struct FastHash(u64);

impl Default for FastHash {
    fn default() -> Self {
        static KEY: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        FastHash(*KEY.get_or_init(|| {
            use std::hash::{BuildHasher, Hasher};
            std::collections::hash_map::RandomState::new().build_hasher().finish()
        }))
    }
}

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

pub(crate) struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // The last bytes as a little-endian word, zero-padded (a byte
            // loop: a copy of a variable length is a call to memcpy).
            self.add(rest.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b)));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
    fn finish(&self) -> u64 {
        // Every bit mixed into the low ones, which pick the bucket, and the
        // high ones, which the table compares first.
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
}

impl FastHash {
    /// The hash of one word, as [`FastHasher`] finishes it after
    /// `write_u64(x)`. A bijection of `x` (a rotation and xor with the key,
    /// then multiplications by odd constants and xor-shifts, each
    /// invertible): equal hashes mean equal words, so a table of words
    /// compares hashes only. (The tests' keys.)
    #[cfg(test)]
    pub(crate) fn word(self, x: u64) -> u64 {
        let mut h = FastHasher(self.0);
        h.add(x);
        std::hash::Hasher::finish(&h)
    }

    /// The hash of a value of 8 bytes or more: its length, then its words,
    /// the last one read overlapping the one before (no loop over the
    /// last bytes).
    #[inline]
    pub(crate) fn long(self, v: &[u8]) -> u64 {
        debug_assert!(v.len() >= 8);
        let mut h = FastHasher(self.0);
        h.add(v.len() as u64);
        let mut i = 0;
        while i + 8 < v.len() {
            h.add(word_at(v, i));
            i += 8;
        }
        h.add(word_at(v, v.len() - 8));
        std::hash::Hasher::finish(&h)
    }
}

/// The 8 bytes of `v` at `i` (at most `v.len() - 8`), little-endian.
#[inline]
pub(crate) fn word_at(v: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"))
}

/// The index each distinct key got when it first came, found by the key's
/// hash (computed once by the caller, who keeps the keys), for the string
/// dictionary's values of 8 bytes or more: open addressing with linear
/// probing over (hash, index) slots, placed by the top bits of the hash
/// (which [`FastHash`] mixes), keys compared only where their whole hashes
/// match. Cheaper per look-up than a `hashbrown` table of (hash, index)
/// (no control bytes to match, no group scan); it doubles at half full, placing each
/// slot again by its stored hash. It may be made in slots kept free from
/// an earlier column ([`HashIds::in_slots`]), and give them back free.
pub(crate) struct HashIds {
    /// The slots: those past the table's size are free (a table made in a
    /// dictionary's kept slots uses the first of them).
    slots: Vec<(u64, u64)>,
    /// The table's size less one.
    mask: usize,
    /// 64 less the bits of a slot's position.
    shift: u32,
    len: usize,
    /// The slots taken, while they are few ([`FEW_TAKEN`]).
    taken: Vec<usize>,
    /// The most slots `taken` lists (none once the table grew).
    few: usize,
}

/// A table's slots taken are listed while they are at most one in this
/// many, and then freed one by one; else the whole table is
/// ([`HashIds::into_slots`], [`WordIds::take_slots`]).
const FEW_TAKEN: usize = 8;

/// A slot not taken: no index is all ones (there are fewer keys).
const NO_ID: u64 = u64::MAX;

/// Every one of `slots` of a [`HashIds`] made free (only its index: a free
/// slot's hash is never read).
fn free_ids(slots: &mut [(u64, u64)]) {
    for s in slots {
        s.1 = NO_ID;
    }
}

/// Every one of `slots` of a [`WordIds`] made free (only its word: a free
/// slot's index is never read).
fn free_words(slots: &mut [(u64, u64)]) {
    for s in slots {
        s.0 = FREE;
    }
}

/// The slots a growing table held, out of its first `old_size` (free ones
/// among them, which its caller skips), and `slots` made `size` free slots
/// to place them again in: the kept slots past the table where it has them
/// (free already; the table's own freed by `free`), else new ones made as
/// `free_slot`. What [`HashIds::grow`] and [`WordIds::grow`] share.
fn room_to_grow(
    slots: &mut Vec<(u64, u64)>,
    old_size: usize,
    size: usize,
    len: usize,
    free_slot: (u64, u64),
    is_free: impl Fn(&(u64, u64)) -> bool,
    free: fn(&mut [(u64, u64)]),
) -> Vec<(u64, u64)> {
    if slots.len() >= size {
        let mut old = Vec::with_capacity(len);
        old.extend(slots[..old_size].iter().copied().filter(|s| !is_free(s)));
        free(&mut slots[..old_size]);
        old
    } else {
        std::mem::replace(slots, vec![free_slot; size])
    }
}

impl HashIds {
    /// A table for `room` keys before it grows, up to 2,048 (its slots,
    /// twice as many, are cleared when it is made: a larger table costs
    /// more to clear than growing saves).
    pub(crate) fn with_room(room: usize) -> HashIds {
        let size = (2 * room).next_power_of_two().clamp(16, 4096);
        // (Its slots are not freed again: none listed.)
        Self::sized(vec![(0, NO_ID); size], Vec::new(), size, 0)
    }

    fn sized(slots: Vec<(u64, u64)>, taken: Vec<usize>, size: usize, few: usize) -> HashIds {
        HashIds { slots, mask: size - 1, shift: 64 - size.trailing_zeros(), len: 0, taken, few }
    }

    /// [`HashIds::with_room`] in `slots`, all free (as
    /// [`HashIds::into_slots`] gives them back), of which it uses as many
    /// as its room takes (made larger if they are fewer): a dictionary
    /// that keeps its tables from column to column clears only what its
    /// columns took. `taken` is kept for its room (its items dropped).
    pub(crate) fn in_slots(mut slots: Vec<(u64, u64)>, mut taken: Vec<usize>, room: usize) -> HashIds {
        debug_assert!(slots.iter().all(|s| s.1 == NO_ID));
        let size = (2 * room).next_power_of_two().clamp(16, 4096);
        if slots.len() < size {
            slots.resize(size, (0, NO_ID));
        }
        taken.clear();
        Self::sized(slots, taken, size, size / FEW_TAKEN)
    }

    /// The slots, every one free again, and the list of slots taken (for
    /// [`HashIds::in_slots`]): the slots taken freed one by one where they
    /// are all listed, else the whole table.
    pub(crate) fn into_slots(mut self) -> (Vec<(u64, u64)>, Vec<usize>) {
        let size = self.mask + 1;
        if self.taken.len() != self.len {
            free_ids(&mut self.slots[..size]);
        } else {
            for &at in &self.taken {
                self.slots[at] = (0, NO_ID);
            }
        }
        self.taken.clear();
        (self.slots, self.taken)
    }

    /// The index of the key hashed `h` for which `same(index)` holds, or
    /// `next` if none does (the key is then taken as new, with index
    /// `next`, which must be the count of keys so far).
    #[cfg(test)]
    pub(crate) fn find_or_add(&mut self, h: u64, next: u64, same: impl FnMut(u64) -> bool) -> u64 {
        self.find(h, same).unwrap_or_else(|at| {
            self.add_at(at, h, next);
            next
        })
    }

    /// The index of the key hashed `h` for which `same(index)` holds, or
    /// the free slot where it would go (for [`HashIds::add_at`]).
    #[inline]
    pub(crate) fn find(&self, h: u64, mut same: impl FnMut(u64) -> bool) -> Result<u64, usize> {
        let mask = self.mask;
        let mut i = (h >> self.shift) as usize;
        loop {
            let slot = self.slots[i];
            if slot.1 == NO_ID {
                return Err(i);
            }
            if slot.0 == h && same(slot.1) {
                return Ok(slot.1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds the key hashed `h` with index `id` at `slot`, the free slot
    /// [`HashIds::find`] gave for it (nothing added since).
    pub(crate) fn add_at(&mut self, slot: usize, h: u64, id: u64) {
        debug_assert!(id != NO_ID && self.slots[slot].1 == NO_ID);
        self.slots[slot] = (h, id);
        if self.len < self.few {
            self.taken.push(slot);
        }
        self.len += 1;
        if 2 * self.len > self.mask + 1 {
            self.grow();
        }
    }

    /// Twice the slots, each placed again by its hash (in the slots past
    /// the table where it has them, else in new ones).
    #[cold]
    fn grow(&mut self) {
        let (old_size, size) = (self.mask + 1, 2 * (self.mask + 1));
        let old = room_to_grow(&mut self.slots, old_size, size, self.len, (0, NO_ID), |&(_, id)| id == NO_ID, free_ids);
        self.shift -= 1;
        self.mask = size - 1;
        self.taken.clear();
        self.few = 0;
        let mask = self.mask;
        for (h, id) in old.into_iter().filter(|&(_, id)| id != NO_ID) {
            let mut i = (h >> self.shift) as usize;
            while self.slots[i].1 != NO_ID {
                i = (i + 1) & mask;
            }
            self.slots[i] = (h, id);
        }
    }
}

/// The index each distinct word got when it first came, for words that
/// are never `u64::MAX` (a string dictionary's short values: their length,
/// at most 7, in the top byte): open addressing with linear probing over
/// (word, index) slots, the word itself compared (no hash stored), placed
/// by multiply-shift: the top bits of the word times an odd multiplier
/// drawn from the process's key (a universal family: whatever two words,
/// at most 2 in 2^b of the multipliers give them one of 2^b slots, so
/// chosen inputs cannot crowd a slot without the key; one multiplication
/// a look-up, where the table compares the words whole and needs no more
/// mixing). Made anew ([`WordIds::new`]), it starts small and grows at
/// half full (fourfold while small, then twofold), so that a column of few
/// distinct values clears little memory (a table sized for the most a
/// column may hold costs more to clear than it saves), and none is cleared
/// that the values do not use; made in slots kept free from an earlier
/// column ([`WordIds::in_slots`]), it starts at its column's room where
/// they have it, and its slots are freed one by one where they are few.
pub(crate) struct WordIds {
    /// The slots: those past the table's size are free (a table made in a
    /// dictionary's kept slots uses the first of them).
    slots: Vec<(u64, u64)>,
    /// The table's size less one.
    mask: usize,
    /// 64 less the bits of a slot's position.
    shift: u32,
    len: usize,
    /// The odd multiplier, from the process's key.
    mul: u64,
    /// The slots taken, while they are few ([`FEW_TAKEN`]).
    taken: Vec<usize>,
    /// The most slots `taken` lists (none once the table grew).
    few: usize,
}

/// A slot not taken: no word of a short value is all ones (a caller with
/// words that may be keeps that one aside).
pub(crate) const FREE: u64 = u64::MAX;

impl WordIds {
    /// Slots to start with (a power of two).
    const FIRST: usize = 64;
    /// Below this many slots (1 MiB of them) the table grows fourfold.
    const FOURFOLD_BELOW: usize = 1 << 16;

    #[cfg(test)]
    pub(crate) fn new(key: FastHash) -> WordIds {
        Self::with_slots(key, Self::FIRST)
    }

    /// A table made with room for `room` words before it grows (at least
    /// 16 slots): for a caller that knows how many a column may hold before
    /// it gives up (the float dictionary), where growing from
    /// [`WordIds::new`]'s 64 slots costs more than clearing the room.
    pub(crate) fn with_room(key: FastHash, room: usize) -> WordIds {
        Self::with_slots(key, (2 * room).next_power_of_two().max(16))
    }

    fn with_slots(key: FastHash, size: usize) -> WordIds {
        // (Its slots are not freed again: none listed.)
        Self::sized(key, vec![(FREE, 0); size], Vec::new(), size, 0)
    }

    /// A table for `room` words before it grows, up to 2,048, in `slots`,
    /// all free (as [`WordIds::take_slots`] gives them back), of which it
    /// uses as many as the room takes where they are that many, else as
    /// many as they are (at least [`WordIds::new`]'s, made so if fewer):
    /// a dictionary that keeps its tables from column to column neither
    /// makes nor clears slots for each column, nor grows where an earlier
    /// column grew, and a column of few values probes a table of its own
    /// size. `taken` is kept for its room (its items dropped).
    pub(crate) fn in_slots(key: FastHash, mut slots: Vec<(u64, u64)>, mut taken: Vec<usize>, room: usize) -> WordIds {
        debug_assert!(slots.iter().all(|s| s.0 == FREE));
        // (The most slots kept that are a power of two.)
        let kept = slots.len().checked_ilog2().map_or(0, |b| 1 << b);
        let size = (2 * room).next_power_of_two().clamp(Self::FIRST, 4096).min(kept.max(Self::FIRST));
        if slots.len() < size {
            slots.resize(size, (FREE, 0));
        }
        taken.clear();
        Self::sized(key, slots, taken, size, size / FEW_TAKEN)
    }

    fn sized(key: FastHash, slots: Vec<(u64, u64)>, taken: Vec<usize>, size: usize, few: usize) -> WordIds {
        WordIds { slots, mask: size - 1, shift: 64 - size.trailing_zeros(), len: 0, mul: key.0 | 1, taken, few }
    }

    /// The slots, every one freed again, and the list of slots taken (for
    /// [`WordIds::in_slots`]): the slots taken freed one by one where they
    /// are all listed, else the whole table. The table is left empty, of
    /// no slots.
    pub(crate) fn take_slots(&mut self) -> (Vec<(u64, u64)>, Vec<usize>) {
        let (mut slots, mut taken) = (std::mem::take(&mut self.slots), std::mem::take(&mut self.taken));
        let size = self.mask + 1;
        if taken.len() != self.len {
            free_words(&mut slots[..size]);
        } else {
            for &at in &taken {
                slots[at] = (FREE, 0);
            }
        }
        taken.clear();
        self.len = 0;
        (slots, taken)
    }

    /// The slot where the probe for `word` starts: the top bits of the
    /// product (every bit of the word reaches them).
    #[inline]
    fn place(&self, word: u64) -> usize {
        (word.wrapping_mul(self.mul) >> self.shift) as usize
    }

    /// The index of `word`, or `next` if it is new (it is then added with
    /// index `next`, which must be the count of words so far).
    #[inline]
    pub(crate) fn find_or_add(&mut self, word: u64, next: u64) -> u64 {
        debug_assert!(word != FREE);
        let mask = self.mask;
        let mut i = self.place(word);
        loop {
            let slot = &mut self.slots[i];
            if slot.0 == word {
                return slot.1;
            }
            if slot.0 == FREE {
                *slot = (word, next);
                if self.len < self.few {
                    self.taken.push(i);
                }
                self.len += 1;
                if 2 * self.len > mask + 1 {
                    self.grow();
                }
                return next;
            }
            i = (i + 1) & mask;
        }
    }

    /// The index of `word`, or the free slot where it would go (for
    /// [`WordIds::add_at`]).
    #[inline]
    pub(crate) fn find(&self, word: u64) -> Result<u64, usize> {
        debug_assert!(word != FREE);
        let mask = self.mask;
        let mut i = self.place(word);
        loop {
            let slot = self.slots[i];
            if slot.0 == word {
                return Ok(slot.1);
            }
            if slot.0 == FREE {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The index of each word `key(i)` gives, for `i` from 0, written to
    /// `out[i]`, until `key` gives `None` or `out` is full: how many were
    /// written (`Ok`), or `Err(i)` where `add` refused the `i`th word. A
    /// word not in the table is added with the index `add(i)` gives it (the
    /// caller's count of what it holds, in which the table's words may be a
    /// part), or `add` gives `None` and the run stops there (nothing added
    /// for it).
    /// A word equal to the one before takes its index unprobed.
    ///
    /// One loop finds and adds, the table's slots, mask, shift and
    /// multiplier held in locals (an add does not move them, a growth is
    /// taken outside the loop and the loop entered again), so that neither
    /// a found word nor a new one reloads them: columns where a new value
    /// comes every few values take no other path.
    #[inline]
    pub(crate) fn take(
        &mut self,
        out: &mut [u64],
        mut key: impl FnMut(usize) -> Option<u64>,
        mut add: impl FnMut(usize) -> Option<u64>,
    ) -> Result<usize, usize> {
        let mut found = 0;
        // The last word and its index (no word is `FREE`).
        let mut last = (FREE, 0);
        'placed: loop {
            let (mul, shift) = (self.mul, self.shift);
            let slots = &mut self.slots[..self.mask + 1];
            let mask = slots.len() - 1;
            while found < out.len() {
                let Some(word) = key(found) else {
                    return Ok(found);
                };
                debug_assert!(word != FREE);
                if word != last.0 {
                    let mut i = (word.wrapping_mul(mul) >> shift) as usize;
                    let id = loop {
                        let slot = slots[i];
                        if slot.0 == word {
                            break slot.1;
                        }
                        if slot.0 == FREE {
                            let Some(id) = add(found) else {
                                return Err(found);
                            };
                            slots[i] = (word, id);
                            if self.len < self.few {
                                self.taken.push(i);
                            }
                            self.len += 1;
                            if 2 * self.len > slots.len() {
                                out[found] = id;
                                found += 1;
                                last = (word, id);
                                self.grow();
                                continue 'placed;
                            }
                            break id;
                        }
                        i = (i + 1) & mask;
                    };
                    last = (word, id);
                }
                out[found] = last.1;
                found += 1;
            }
            return Ok(found);
        }
    }

    /// Adds `word` with index `id` at `slot`, the free slot
    /// [`WordIds::find`] gave for it (nothing added since).
    pub(crate) fn add_at(&mut self, slot: usize, word: u64, id: u64) {
        debug_assert!(word != FREE && self.slots[slot].0 == FREE);
        self.slots[slot] = (word, id);
        if self.len < self.few {
            self.taken.push(slot);
        }
        self.len += 1;
        if 2 * self.len > self.mask + 1 {
            self.grow();
        }
    }

    /// Four times the slots while the table is small, each word placed
    /// again: a table that grows once is likely to grow again (a column of
    /// many distinct values), and each growth places every word again and
    /// clears the new slots. Past [`WordIds::FOURFOLD_BELOW`] slots it
    /// doubles, so that a large table holds at most four slots a word, as
    /// doubling at half full does, rather than eight.
    #[cold]
    fn grow(&mut self) {
        let old_size = self.mask + 1;
        let factor = if old_size < Self::FOURFOLD_BELOW { 4 } else { 2 };
        let size = factor * old_size;
        let old = room_to_grow(&mut self.slots, old_size, size, self.len, (FREE, 0), |&(w, _)| w == FREE, free_words);
        self.shift -= factor.trailing_zeros();
        self.mask = size - 1;
        self.taken.clear();
        self.few = 0;
        let mask = self.mask;
        for (word, id) in old.into_iter().filter(|&(w, _)| w != FREE) {
            let mut i = self.place(word);
            while self.slots[i].0 != FREE {
                i = (i + 1) & mask;
            }
            self.slots[i] = (word, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Each key's index of first appearance, as a `HashMap` gives it.
    fn reference(keys: &[u64]) -> Vec<u64> {
        let mut index: HashMap<u64, u64> = HashMap::new();
        keys.iter()
            .map(|&k| {
                let next = index.len() as u64;
                *index.entry(k).or_insert(next)
            })
            .collect()
    }

    #[test]
    fn ids_are_the_indices_of_first_appearance() {
        let mut next = crate::columnar::lcg(11, 20);
        let key = FastHash::default();
        for round in 0..200 {
            let n = [0, 1, 3, 50, 700, 5000][round % 6];
            let spread = 1 + next() % [2, 40, 1000, 1 << 40][round % 4];
            let keys: Vec<u64> = (0..n).map(|_| next() % spread).collect();
            // Hashed by the bijective word hash (room too small, so that
            // the table grows), and by a hash of few values (every probe
            // then runs into others' slots and asks `same`).
            let mut distinct: Vec<u64> = Vec::new();
            let (mut open, mut open_colliding) = (HashIds::with_room(1), HashIds::with_room(n / 3));
            let mut got = Vec::new();
            for &k in &keys {
                let next = distinct.len() as u64;
                let id = open.find_or_add(key.word(k), next, |_| true);
                // (Hashes of few values, spread over the top bits too.)
                let few = (k % 5).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                assert_eq!(open_colliding.find_or_add(few, next, |i| distinct[i as usize] == k), id);
                if id == distinct.len() as u64 {
                    distinct.push(k);
                }
                got.push(id);
            }
            assert_eq!(got, reference(&keys), "round {round}");
        }
    }

    /// `n` words drawn from `spread` values, as short values make them (a
    /// length in the top byte), and the largest that is not `FREE`.
    fn random_words(next: &mut impl FnMut() -> u64, n: usize, spread: u64) -> Vec<u64> {
        (0..n)
            .map(|_| match next() % spread {
                0 => FREE - 1,
                k => k << 8 >> 8 | (k % 8) << 56,
            })
            .collect()
    }

    #[test]
    fn word_ids_are_the_indices_of_first_appearance() {
        let mut next = crate::columnar::lcg(13, 20);
        for round in 0..200 {
            let n = [0, 1, 3, 50, 700, 5000][round % 6];
            let spread = 1 + next() % [2, 40, 1000, 1 << 40][round % 4];
            let keys = random_words(&mut next, n, spread);
            let mut ids = WordIds::new(FastHash::default());
            let mut count = 0u64;
            let got: Vec<u64> = keys
                .iter()
                .map(|&k| {
                    let id = ids.find_or_add(k, count);
                    count += u64::from(id == count);
                    id
                })
                .collect();
            assert_eq!(got, reference(&keys), "round {round}");
        }
    }

    /// `take`'s one loop gives the indices `find_or_add` does, over blocks
    /// of any size and runs stopped by `key` (growing in the middle of a
    /// run), the indices its `add` gives (here offset, as a dictionary's
    /// long values would), and stops where `add` refuses, adding nothing.
    #[test]
    fn taken_words_are_the_indices_of_first_appearance() {
        let mut next = crate::columnar::lcg(29, 20);
        for round in 0..300 {
            let n = [0, 1, 3, 50, 240, 700, 5000][round % 7];
            let spread = 1 + next() % [2, 40, 1000, 1 << 40][round % 4];
            let keys = random_words(&mut next, n, spread);
            let firsts = reference(&keys);
            let distinct = firsts.iter().max().map_or(0, |&m| m as usize + 1);
            let offset = next() % 3;
            // The adds refused from the `refuse`th on (none where it is past them).
            let refuse = (next() % (n as u64 + 2)) as usize;
            let mut ids = WordIds::new(FastHash::default());
            let (mut got, mut added, mut stopped) = (Vec::new(), 0usize, false);
            while got.len() < n && !stopped {
                let from = got.len();
                let mut out = vec![0u64; 1 + (next() % 300) as usize];
                // A run stopped by `key` after a few words, or where `out`
                // is full.
                let stop = n.min(from + 1 + (next() % 400) as usize).min(from + out.len());
                let r = ids.take(
                    &mut out,
                    |i| (from + i < stop).then(|| keys[from + i]),
                    |_| {
                        (added < refuse).then(|| {
                            added += 1;
                            offset + added as u64 - 1
                        })
                    },
                );
                let took = r.unwrap_or_else(|k| {
                    stopped = true;
                    k
                });
                got.extend_from_slice(&out[..took]);
            }
            let expected: Vec<u64> = firsts.iter().map(|&id| id + offset).collect();
            assert_eq!(got[..], expected[..got.len()], "round {round}");
            assert_eq!(stopped, distinct > refuse, "round {round}");
            assert_eq!(got.len(), if stopped { firsts.iter().position(|&id| id == refuse as u64).unwrap() } else { n });
            // Refused words were not added: the words taken are all found again.
            let mut all = vec![0u64; n];
            let again = ids.take(&mut all, |i| (i < got.len()).then(|| keys[i]), |_| None);
            assert_eq!(again, Ok(got.len()), "round {round}");
            assert_eq!(all[..got.len()], got[..]);
        }
    }

    #[test]
    fn the_long_hash_is_the_hashers() {
        use std::hash::{BuildHasher, Hasher};
        let key = FastHash::default();
        let text = b"The quick brown fox jumps over the lazy dog, twice over";
        for len in 8..text.len() {
            let v = &text[..len];
            let mut h = key.build_hasher();
            h.write_u64(len as u64);
            let mut i = 0;
            while i + 8 < len {
                h.write_u64(word_at(v, i));
                i += 8;
            }
            h.write_u64(word_at(v, len - 8));
            assert_eq!(key.long(v), h.finish());
        }
        let mut h = key.build_hasher();
        h.write_u64(12345);
        assert_eq!(key.word(12345), h.finish());
    }
}
