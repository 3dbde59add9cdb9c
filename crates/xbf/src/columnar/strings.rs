//! String and bytes columns: plain, a dictionary of distinct values (for
//! repeats), or each value as the length of the prefix it shares with the
//! previous one plus the rest (for sorted values, URLs, ids).

use crate::error::{Error, ErrorKind, Result};
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::cursor::Cursor;
use super::ints::{self, Planned, Stats};
use super::Budget;

/// A column of strings or bytes as the encoders read it: a list of the
/// values, or their bytes one after the other with where each ends (what a
/// `Columns` builder and the Python binding's gather hold), read in place
/// so that no list of slices is built for it. One algorithm reads both.
trait Texts<'a>: Copy {
    /// The number of values.
    fn count(self) -> usize;
    /// The first `to` values.
    fn first(self, to: usize) -> Self;
    /// The values in order.
    fn iter(self) -> impl ExactSizeIterator<Item = &'a [u8]>;
    /// Each value's length, in order.
    fn lens(self) -> impl Iterator<Item = usize>;
    /// The values from index `from` up to `to`, in order.
    fn iter_range(self, from: usize, to: usize) -> impl ExactSizeIterator<Item = &'a [u8]>;
    /// The lengths of the values from index `from` up to `to`, in order.
    fn lens_range(self, from: usize, to: usize) -> impl Iterator<Item = usize>;
    /// The bytes of all the values.
    fn bytes(self) -> usize;
    /// The bytes of the values from index `from` up to `to`.
    fn bytes_range(self, from: usize, to: usize) -> usize;
    /// All the values' bytes one after the other, where they are held so.
    fn joined(self) -> Option<&'a [u8]>;
    /// The values from index `from` on, each where it is under 8 bytes
    /// with its first bytes as a word (any bytes past it).
    fn heads(self, from: usize) -> impl Iterator<Item = (&'a [u8], u64)>;
    /// The index of each value from `from` on among those `table` holds,
    /// written to `out`, while the values are under 8 bytes and found
    /// there (and `out` has room): how many were.
    fn find_short(self, from: usize, table: &super::WordIds, out: &mut [u64]) -> usize;
    /// The index of each value from `from` on among the short values
    /// `table` holds, written to `out`, while the values are under 8 bytes
    /// (and `out` has room), a value not there added with the index
    /// `add(i, value)` gives it (`i` its place in `out`): how many were, or
    /// `None` where `add` refused one ([`super::WordIds::take`]).
    fn take_short(
        self,
        from: usize,
        table: &mut super::WordIds,
        out: &mut [u64],
        add: impl FnMut(usize, &'a [u8]) -> Option<u64>,
    ) -> Option<usize>;
}

impl<'a> Texts<'a> for &'a [&'a [u8]] {
    fn count(self) -> usize {
        self.len()
    }
    fn first(self, to: usize) -> Self {
        &self[..to]
    }
    fn iter(self) -> impl ExactSizeIterator<Item = &'a [u8]> {
        <[&[u8]]>::iter(self).copied()
    }
    fn lens(self) -> impl Iterator<Item = usize> {
        <[&[u8]]>::iter(self).map(|v| v.len())
    }
    fn iter_range(self, from: usize, to: usize) -> impl ExactSizeIterator<Item = &'a [u8]> {
        self[from..to].iter().copied()
    }
    fn lens_range(self, from: usize, to: usize) -> impl Iterator<Item = usize> {
        self[from..to].iter().map(|v| v.len())
    }
    fn bytes(self) -> usize {
        self.lens().sum()
    }
    fn bytes_range(self, from: usize, to: usize) -> usize {
        self.lens_range(from, to).sum()
    }
    fn joined(self) -> Option<&'a [u8]> {
        None
    }
    fn heads(self, from: usize) -> impl Iterator<Item = (&'a [u8], u64)> {
        self[from..].iter().map(|&v| (v, if v.len() < 8 { short_bytes(v) } else { 0 }))
    }
    #[inline(never)]
    fn find_short(self, from: usize, table: &super::WordIds, out: &mut [u64]) -> usize {
        let mut found = 0;
        for (v, id) in self[from..].iter().zip(out) {
            let Some(known) = (v.len() < 8).then(|| table.find(short_key(short_bytes(v), v.len())).ok()).flatten()
            else {
                break;
            };
            *id = known;
            found += 1;
        }
        found
    }
    #[inline(never)]
    fn take_short(
        self,
        from: usize,
        table: &mut super::WordIds,
        out: &mut [u64],
        mut add: impl FnMut(usize, &'a [u8]) -> Option<u64>,
    ) -> Option<usize> {
        let values = &self[from..];
        let key = |i: usize| values.get(i).filter(|v| v.len() < 8).map(|v| short_key(short_bytes(v), v.len()));
        table.take(out, key, |i| add(i, values[i])).ok()
    }
}

/// Values held as their bytes joined and the offset where each ends
/// (nondecreasing, the last at most `text`'s length).
#[derive(Clone, Copy)]
struct Joined<'a> {
    text: &'a [u8],
    ends: &'a [usize],
}

impl Joined<'_> {
    /// Where value `i` starts.
    fn start(self, i: usize) -> usize {
        i.checked_sub(1).map_or(0, |i| self.ends[i])
    }
}

impl<'a> Texts<'a> for Joined<'a> {
    fn count(self) -> usize {
        self.ends.len()
    }
    fn first(self, to: usize) -> Self {
        Joined { text: self.text, ends: &self.ends[..to] }
    }
    // (A map over the ends, not a `scan`: its length is known, so a
    // `Vec` collected or extended from it is sized once.)
    fn iter(self) -> impl ExactSizeIterator<Item = &'a [u8]> {
        self.iter_range(0, self.ends.len())
    }
    fn lens(self) -> impl Iterator<Item = usize> {
        self.lens_range(0, self.ends.len())
    }
    fn iter_range(self, from: usize, to: usize) -> impl ExactSizeIterator<Item = &'a [u8]> {
        let (text, mut start) = (self.text, self.start(from));
        self.ends[from..to].iter().map(move |&end| &text[std::mem::replace(&mut start, end)..end])
    }
    fn lens_range(self, from: usize, to: usize) -> impl Iterator<Item = usize> {
        let mut start = self.start(from);
        self.ends[from..to].iter().map(move |&end| end - std::mem::replace(&mut start, end))
    }
    fn bytes(self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }
    /// (Where the values' ends go back, the bytes their lengths sum to:
    /// [`Texts::lens_range`] wraps alike.)
    fn bytes_range(self, from: usize, to: usize) -> usize {
        if from == to {
            0
        } else {
            self.ends[to - 1].wrapping_sub(self.start(from))
        }
    }
    fn joined(self) -> Option<&'a [u8]> {
        Some(&self.text[..self.bytes()])
    }
    /// A value under 8 bytes read as the 8 bytes from where it starts
    /// (byte by byte only for the last few values of the text).
    fn heads(self, from: usize) -> impl Iterator<Item = (&'a [u8], u64)> {
        let (text, mut start) = (self.text, self.start(from));
        self.ends[from..].iter().map(move |&end| {
            let v = &text[start..end];
            let head = if v.len() >= 8 { 0 } else { word_from(text, start).unwrap_or_else(|| short_bytes(v)) };
            start = end;
            (v, head)
        })
    }
    /// A function of its own, so that its few values stay in registers:
    /// the value's start, the table's slots and key, the text and ends.
    #[inline(never)]
    fn find_short(self, from: usize, table: &super::WordIds, out: &mut [u64]) -> usize {
        let (text, mut start, mut found) = (self.text, self.start(from), 0);
        // The last key and its index (no key is `FREE`).
        let mut last = (super::FREE, 0);
        for (&end, id) in self.ends[from..].iter().zip(out) {
            // (Ends that go back make a length past 8: such a value is
            // left to the caller, which reads it as a slice and fails. A
            // value whose 8 bytes are read ends within them, so within the
            // text.)
            let len = end.wrapping_sub(start);
            let Some(w) = word_from(text, start).filter(|_| len < 8) else {
                break;
            };
            // A value equal to the one before takes its index unhashed
            // (columns of few values often repeat one in a row).
            let key = short_key(w, len);
            if key != last.0 {
                let Ok(known) = table.find(key) else {
                    break;
                };
                last = (key, known);
            }
            *id = last.1;
            found += 1;
            start = end;
        }
        found
    }
    /// [`Texts::find_short`] that adds the new short values it meets: one
    /// loop, the table's fields in locals ([`super::WordIds::take`]).
    #[inline(never)]
    fn take_short(
        self,
        from: usize,
        table: &mut super::WordIds,
        out: &mut [u64],
        mut add: impl FnMut(usize, &'a [u8]) -> Option<u64>,
    ) -> Option<usize> {
        let (text, ends, first) = (self.text, &self.ends[from..], self.start(from));
        // (Both as long, so that a value's index is checked once.)
        let m = ends.len().min(out.len());
        let (ends, out) = (&ends[..m], &mut out[..m]);
        let mut start = first;
        let key = |i: usize| {
            let end = *ends.get(i)?;
            // (Ends that go back make a length past 8: such a value is
            // left to the caller, which reads it as a slice and fails. A
            // value whose 8 bytes are read ends within them, so within the
            // text.)
            let len = end.wrapping_sub(start);
            let w = word_from(text, start).filter(|_| len < 8)?;
            start = end;
            Some(short_key(w, len))
        };
        let value = |i: usize| &text[i.checked_sub(1).map_or(first, |i| ends[i])..ends[i]];
        table.take(out, key, |i| add(i, value(i))).ok()
    }
}

/// The three encodings, planned: what each needs and the bytes it takes.
struct Plain<'a> {
    lens: Planned<'a, u64>,
    bytes: usize,
}

impl<'a> Plain<'a> {
    fn new<'v>(values: impl Texts<'v>, lens: &'a mut Vec<u64>) -> Plain<'a> {
        room_for(lens, values.count());
        lens.extend(values.lens().map(|l| l as u64));
        let bytes = values.bytes();
        Plain { lens: Planned::new(lens), bytes }
    }
    fn size(&self) -> usize {
        1 + self.lens.block_size() + self.bytes
    }
    /// Values held joined are copied at once.
    fn write<'v>(&self, values: impl Texts<'v>) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size());
        out.push(E::PlainStrings.byte());
        self.lens.write_block(&mut out);
        match values.joined() {
            Some(all) => out.extend_from_slice(all),
            None => values.iter().for_each(|v| out.extend_from_slice(v)),
        }
        out
    }
}

/// A dictionary's distinct values, their lengths and each value's index.
type DictParts<'a> = (Vec<&'a [u8]>, Vec<u64>, Vec<u64>);

/// A value of 8 bytes or more as a key of the dictionary: compared (and
/// hashed, by `FastHash::long`) a word at a time, its last word read
/// overlapping the one before (no loop over its last bytes, no call to
/// compare them).
#[derive(Clone, Copy)]
struct Long<'a>(&'a [u8]);

impl Long<'_> {
    /// The 8 bytes at `i` (at most `len - 8`).
    #[inline]
    fn word(&self, i: usize) -> u64 {
        super::word_at(self.0, i)
    }
}

impl PartialEq for Long<'_> {
    fn eq(&self, other: &Self) -> bool {
        let len = self.0.len();
        if len != other.0.len() {
            return false;
        }
        let mut i = 0;
        while i + 8 < len {
            if self.word(i) != other.word(i) {
                return false;
            }
            i += 8;
        }
        self.word(len - 8) == other.word(len - 8)
    }
}

impl Eq for Long<'_> {}

/// The dictionary of a whole column (see [`Distinct::finish`]); `None`
/// when the values are mostly distinct, which a dictionary cannot win.
#[cfg(test)]
fn dictionary<'a>(values: impl Texts<'a>) -> Option<(DictParts<'a>, Stats)> {
    let mut d = Distinct::new(values.count());
    d.run(values, usize::MAX).then(|| d.finish(Vec::new()))
}

/// Room for as many distinct values as the dictionary of `n` values may
/// take (it gives up past half the column), without growing on the way.
fn dictionary_room(n: usize) -> usize {
    (n / 2 + 17).min(4096)
}

/// The distinct values of a list and each value's index among them, or
/// `None` (see [`dictionary`]).
#[cfg(test)]
fn distinct_of<'a>(values: impl Texts<'a>) -> Option<(Vec<&'a [u8]>, Vec<u64>)> {
    let mut d = Distinct::new(values.count());
    d.run(values, usize::MAX).then(|| d.lists())
}

/// [`distinct_of`] of values held joined.
#[cfg(test)]
fn distinct_joined<'a>(text: &'a [u8], ends: &'a [usize]) -> Option<(Vec<&'a [u8]>, Vec<u64>)> {
    distinct_of(Joined { text, ends })
}

/// The most repeats [`sampled_distinct`]'s positions may hold in a column it
/// rules out for a dictionary.
const SAMPLE_REPEATS: usize = 8;

/// Whether values at random positions show a column too distinct for a
/// dictionary, which gives up past `n / 2 + 16` distinct values: `k`
/// positions drawn (about 9·√n, with `k(k - 1) ≥ 80n`; a position drawn
/// again is drawn anew) hold at most [`SAMPLE_REPEATS`] repeats. A column of
/// at most `n / 2 + 16` distinct values holds at least `(n - 32) / 2` pairs
/// of positions with equal values, so `k` random positions meet about
/// `k(k - 1)/2 · (n - 32)/(n(n - 1))`, 38 to 40, repeats there, and eight or
/// fewer with a probability under 3·10⁻⁹ (a Poisson count; the sample of
/// about 7·√n positions and two repeats this replaced: under 4.1·10⁻⁹, and
/// more than this one at every length); a column of nearly all distinct
/// values meets next to none, and one
/// with a repeat in twenty values (names of places, people, titles) a few.
/// Only where `k` is at most a third of the column (a draw costs about
/// what adding a value to the dictionary does, which takes half the column
/// before it gives up; a column it does not rule out pays both), and where
/// [`super::mostly_distinct`] does not apply (at most 8,192 values: past
/// that it stops a dictionary of many new values early, and a column of
/// many values, few of them repeats, would cost more draws than the sample
/// saves); it stops at the repeat past [`SAMPLE_REPEATS`] (a column of
/// repeats costs a few draws). The positions come from a fixed
/// sequence: the choice is the same every time.
fn sampled_distinct<'a>(values: impl Texts<'a>) -> bool {
    let n = values.count();
    let k = (80.0 * n as f64).sqrt() as usize + 2;
    if 3 * k > n || n > 8192 {
        return false;
    }
    let key = super::FastHash::default();
    let mut table = super::HashIds::with_room(k);
    let value = |i: usize| values.iter_range(i, i + 1).next().expect("a value");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let (mut drawn, mut repeats) = (0, 0);
    while drawn < k {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let i = ((u128::from(state >> 32) * n as u128) >> 32) as usize;
        let v = value(i);
        // (Equal values are hashed alike: a short one as its word, a long
        // one as the dictionary hashes it.)
        let h = if v.len() < 8 {
            std::hash::BuildHasher::hash_one(&key, short_key(short_bytes(v), v.len()))
        } else {
            key.long(v)
        };
        match table.find(h, |at| value(at as usize) == v) {
            // (The same position again: not a repeat.)
            Ok(at) if at == i as u64 => continue,
            Ok(_) => {
                repeats += 1;
                if repeats > SAMPLE_REPEATS {
                    return false;
                }
            }
            Err(slot) => table.add_at(slot, h, i as u64),
        }
        drawn += 1;
    }
    true
}

/// How many of a column's first values [`encode_with`] puts in the
/// dictionary before it chooses which encoding to measure first.
const PROBE: usize = 256;

/// Shared prefixes are measured run by run ([`Prefix::rest_of_runs`]) in a
/// column of at most one run of equal values in this many values.
const RUNS_FEW: usize = 4;

/// How many indices [`Texts::find_short`] and [`Texts::take_short`]
/// write at a time.
const FIND_BLOCK: usize = 256;

/// [`Distinct::run`] adds new short values in [`Texts::take_short`] where
/// more than one value in this many so far was new (elsewhere
/// [`Texts::find_short`] finds short values, and leaves a new one to its
/// other loops).
const NEW_OFTEN: usize = 8;

/// How many short values found in a row [`Distinct::run`] takes in its own
/// loop before it hands the values to [`Texts::find_short`].
const SHORTS_IN_A_ROW: usize = 4;

/// A column's dictionary as it is built, a run of values at a time: the
/// distinct values so far, each value's index among them, the tables
/// that find them and the bytes of the distinct values.
struct Distinct<'a> {
    /// The values in the whole column (it gives up past half of them).
    n: usize,
    room: usize,
    key: super::FastHash,
    short: super::WordIds,
    long: Option<super::HashIds>,
    /// The kept slots and list of slots taken the table of long values is
    /// made in, until it is.
    long_spare: (Vec<(u64, u64)>, Vec<usize>),
    /// The index of a long value found in `long` or added to it lately, by
    /// [`recent_slot`] (none until one is found where half the values so
    /// far were repeats: `RECENT` slots then, made as zeros), checked
    /// against the value before it is taken (a slot where none was points
    /// at the first value, which the check rules out).
    recent: Vec<u64>,
    /// The kept slots `recent` is made of when it is made (what they hold
    /// is checked as any slot is: an index of an earlier column's value
    /// only misses), if [`RECENT`] of them.
    recent_spare: Vec<u64>,
    /// The block [`Texts::find_short`] and [`Texts::take_short`] write
    /// their indices to ([`FIND_BLOCK`] of them).
    block: Vec<u64>,
    distinct: Vec<&'a [u8]>,
    ids: Vec<u64>,
    /// The last long value and its index.
    last: (&'a [u8], u64),
    bytes: usize,
}

/// The tables of a dictionary that gave them back, every slot free, kept
/// for the next one in the thread (the next column of the message, or of
/// the next message): so that a column pays neither a growth an earlier
/// one paid, nor making and clearing the tables anew. Each table probes
/// only as many slots as its own column's values take (a column of few
/// values a small table), and frees the slots it took one by one where
/// they are few, else the whole of it. At most [`KEPT_SLOTS`] slots of
/// each table, [`RECENT`] recent indices and a block of [`FIND_BLOCK`]
/// indices are kept a thread (about 140 KiB).
#[derive(Default)]
struct Tables {
    short: (Vec<(u64, u64)>, Vec<usize>),
    long: (Vec<(u64, u64)>, Vec<usize>),
    recent: Vec<u64>,
    block: Vec<u64>,
}

/// The most slots of either table kept (64 KiB): a column that took more
/// gives its table up (a message of one large column keeps no memory of
/// its size).
const KEPT_SLOTS: usize = 4096;

thread_local! {
    static TABLES: std::cell::Cell<Option<Tables>> = const { std::cell::Cell::new(None) };
}

/// The lists a column's encoding fills (the dictionary's distinct values,
/// their lengths and each value's index; plain's lengths; the shared
/// prefixes' two lists), given back empty when it is written and kept for
/// the next column in the thread, as the dictionary's tables are
/// ([`Tables`]): a message of many small columns neither allocates nor
/// frees them column by column. A list of room for more than
/// [`KEPT_BYTES`] is not kept (its column's next one makes its own), so
/// that a thread keeps at most 288 KiB of them.
#[derive(Default)]
struct Lists {
    /// (Of no values: the room of a list of any column's values.)
    distinct: Vec<&'static [u8]>,
    ids: Vec<u64>,
    dict_lens: Vec<u64>,
    lens: Vec<u64>,
    shared: Vec<u64>,
    rest_lens: Vec<u64>,
    runs: RunLists,
}

/// The lists [`Prefix::rest_of_runs`] works in: where each run starts
/// ([`run_starts`]), each run's length, value's length and shared prefix,
/// and the two blocks' pieces.
#[derive(Default)]
struct RunLists {
    starts: Vec<usize>,
    runs: Vec<(usize, u64, u64)>,
    shared_pieces: Vec<(u64, usize)>,
    rest_pieces: Vec<(u64, usize)>,
}

/// The most room a kept list may have, in bytes (the indices of 4,096
/// values, the distinct values of 4,096 or 2,048 more).
const KEPT_BYTES: usize = 32 << 10;

thread_local! {
    static LISTS: std::cell::Cell<Option<Lists>> = const { std::cell::Cell::new(None) };
}

impl Lists {
    /// The thread's kept lists (new ones if none are kept).
    fn take() -> Lists {
        LISTS.try_with(std::cell::Cell::take).ok().flatten().unwrap_or_default()
    }

    /// The lists emptied and kept for the next column (each list of more
    /// than [`KEPT_BYTES`] of room dropped). (Not inlined: once a column.)
    #[inline(never)]
    fn keep(mut self) {
        fn emptied<T>(v: &mut Vec<T>) {
            v.clear();
            if v.capacity() * std::mem::size_of::<T>() > KEPT_BYTES {
                *v = Vec::new();
            }
        }
        emptied(&mut self.distinct);
        emptied(&mut self.ids);
        emptied(&mut self.dict_lens);
        emptied(&mut self.lens);
        emptied(&mut self.shared);
        emptied(&mut self.rest_lens);
        emptied(&mut self.runs.starts);
        emptied(&mut self.runs.runs);
        emptied(&mut self.runs.shared_pieces);
        emptied(&mut self.runs.rest_pieces);
        // (A thread ending has no lists to keep them in.)
        let _ = LISTS.try_with(|l| l.set(Some(self)));
    }
}

/// Room for `n` items in `v`, empty: a new list where its room is short
/// (growing a kept list would copy all its old room, items or not).
fn room_for<T>(v: &mut Vec<T>, n: usize) {
    debug_assert!(v.is_empty());
    if v.capacity() < n {
        *v = Vec::with_capacity(n);
    }
}

/// A list of values emptied, its room kept, as a list of values of any
/// lifetime (collected in place: the same allocation, and no item).
fn unbound(mut values: Vec<&[u8]>) -> Vec<&'static [u8]> {
    values.clear();
    values.into_iter().map(|_| -> &'static [u8] { &[] }).collect()
}

impl Drop for Distinct<'_> {
    /// The tables given back, their slots freed, for the next dictionary.
    /// (Not inlined: a column's dictionary is dropped once.)
    #[inline(never)]
    fn drop(&mut self) {
        let mut short = self.short.take_slots();
        let mut long = match self.long.take() {
            Some(table) => table.into_slots(),
            None => std::mem::take(&mut self.long_spare),
        };
        if short.0.len() > KEPT_SLOTS {
            short = (Vec::new(), Vec::new());
        }
        if long.0.len() > KEPT_SLOTS {
            long = (Vec::new(), Vec::new());
        }
        let recent = if self.recent.is_empty() { &mut self.recent_spare } else { &mut self.recent };
        let tables = Tables { short, long, recent: std::mem::take(recent), block: std::mem::take(&mut self.block) };
        // (A thread ending has no tables to keep them in.)
        let _ = TABLES.try_with(|t| t.set(Some(tables)));
    }
}

impl<'a> Distinct<'a> {
    /// A dictionary of none of a column's `n` values yet.
    #[cfg(test)]
    fn new(n: usize) -> Self {
        Self::new_in(n, Vec::new(), Vec::new())
    }

    /// [`Distinct::new`] whose distinct values and indices are listed in
    /// `distinct` and `ids` (empty; their room kept from an earlier column,
    /// [`Lists`]).
    fn new_in(n: usize, mut distinct: Vec<&'a [u8]>, mut ids: Vec<u64>) -> Self {
        debug_assert!(distinct.is_empty() && ids.is_empty());
        let room = dictionary_room(n);
        let key = super::FastHash::default();
        let Tables { short, long, recent, mut block } =
            TABLES.try_with(std::cell::Cell::take).ok().flatten().unwrap_or_default();
        block.resize(FIND_BLOCK, 0);
        Distinct {
            n,
            room,
            key,
            short: super::WordIds::in_slots(key, short.0, short.1, room),
            long: None,
            long_spare: long,
            recent: Vec::new(),
            recent_spare: recent,
            block,
            distinct: {
                room_for(&mut distinct, room);
                distinct
            },
            ids: {
                room_for(&mut ids, n);
                ids
            },
            last: (&[], 0),
            bytes: 0,
        }
    }

    /// The distinct values and each value's index among them.
    #[cfg(test)]
    fn lists(&mut self) -> (Vec<&'a [u8]>, Vec<u64>) {
        (std::mem::take(&mut self.distinct), std::mem::take(&mut self.ids))
    }

    /// The distinct values, their lengths and each value's index among
    /// them, with the statistics of the indices (gathered in one pass over
    /// them once the dictionary is known to be whole: the first index is 0
    /// and the largest `distinct - 1`, so fewer are gathered than value by
    /// value, and none for a dictionary that gives up).
    fn finish(mut self, mut lens: Vec<u64>) -> (DictParts<'a>, Stats) {
        let (distinct, ids) = (std::mem::take(&mut self.distinct), std::mem::take(&mut self.ids));
        lens.clear();
        room_for(&mut lens, distinct.len());
        lens.extend(distinct.iter().map(|v| v.len() as u64));
        let stats = Stats::of_ids(&ids, distinct.len());
        ((distinct, lens, ids), stats)
    }

    /// Takes `values` from the first not taken yet (`values` is the column
    /// or its first values: [`Texts::first`]) to their end: `false` if the
    /// dictionary gives up, when its values are mostly distinct (more than
    /// half the column, or [`super::mostly_distinct`]) or their bytes pass
    /// `most` (a bound the caller knows it cannot win past). Values of up
    /// to 7 bytes are looked up as one word (the bytes and the length,
    /// compared whole: `WordIds`), the others by their hash and then their
    /// bytes. Three loops take turns: [`Texts::find_short`] takes short
    /// values found among those before (most values, in a column of short
    /// values a dictionary wins) into a block on the stack, or, where new
    /// values came often so far (a wide table's numbers held as strings),
    /// [`Texts::take_short`] takes short values found or new; at any other
    /// value, one loop looks long values up and adds none, and leaves at a
    /// new value for one that adds values until it finds one it has (mostly
    /// distinct columns stay in it); the values go back to the first loops
    /// after a few short values found in a row. A long value equal to the
    /// last long one takes its index without being hashed (a short one is
    /// looked up: its word costs less to place than to keep and compare).
    fn run(&mut self, values: impl Texts<'a>, most: usize) -> bool {
        /// Where a new value goes: its word and free slot in the short
        /// values' table, or its hash and free slot (if the table is made) in
        /// the long values'.
        enum New {
            Short(u64, usize),
            Long(u64, Option<usize>),
        }
        let Distinct { n, room, key, short, long, long_spare, recent, recent_spare, block, distinct, ids, last, bytes } =
            self;
        let (n, key) = (*n, *key);
        let give_up = n / 2 + 16;
        // Whether a long value is the last one (its last word compared first:
        // values of one length often share their first words).
        let is_last = |v: &[u8], last: &[u8]| {
            v.len() == last.len() && Long(v).word(v.len() - 8) == Long(last).word(v.len() - 8) && Long(v) == Long(last)
        };
        let block = &mut block[..FIND_BLOCK];
        // The table of long values, made in the kept slots where it is not
        // yet (a test each new long value takes: not a call).
        let long_table =
            |long: &'_ mut Option<super::HashIds>, spare: &mut Vec<(u64, u64)>, spare_taken: &mut Vec<usize>| {
                if long.is_none() {
                    *long = Some(super::HashIds::in_slots(std::mem::take(spare), std::mem::take(spare_taken), *room));
                }
            };
        'short: loop {
            // (A block filled is followed by another.)
            loop {
                let seen = ids.len();
                // Where more than one value in eight so far was new, the loop
                // that adds new short values too; else the one that only
                // finds them (a little cheaper a value found: the table is
                // only read), which stops at a new one.
                let found = if distinct.len() * NEW_OFTEN > seen {
                    // A new short value: the test each new value takes (after
                    // `seen + i + 1` values).
                    let add = |i: usize, v: &'a [u8]| {
                        let id = distinct.len() as u64;
                        distinct.push(v);
                        *bytes += v.len();
                        let d = distinct.len();
                        (d <= give_up && *bytes <= most && !super::mostly_distinct(seen + i + 1, d, n)).then_some(id)
                    };
                    let Some(found) = values.take_short(seen, short, block, add) else {
                        return false;
                    };
                    found
                } else {
                    values.find_short(seen, short, block)
                };
                ids.extend_from_slice(&block[..found]);
                if found < FIND_BLOCK {
                    break;
                }
            }
            let mut values = values.heads(ids.len());
            // Short values found in a row here, a few of which send the
            // values after them to `find_short` (one alone does not pay for
            // the call, in columns where short and long values take turns).
            let mut shorts = 0;
            loop {
                // Values found among those before (back to `find_short` after
                // a few short ones in a row), until a new one.
                let (mut v, new) = loop {
                    let Some((v, head)) = values.next() else {
                        return true;
                    };
                    let id = if v.len() < 8 {
                        let word = short_key(head, v.len());
                        match short.find(word) {
                            Ok(id) => {
                                ids.push(id);
                                shorts += 1;
                                if shorts == SHORTS_IN_A_ROW {
                                    continue 'short;
                                }
                                continue;
                            }
                            Err(at) => break (v, New::Short(word, at)),
                        }
                    } else {
                        shorts = 0;
                        if !is_last(v, last.0) {
                            // The index the value's slot of `recent` holds,
                            // if it is the value's; else its hash looked up.
                            let at = (!recent.is_empty()).then(|| recent_slot(v));
                            let cached = at
                                .and_then(|at| recent.get(at))
                                .and_then(|&id| distinct.get(id as usize).map(|&d| (d, id)));
                            match cached.filter(|&(d, _)| Long(d) == Long(v)) {
                                Some((_, id)) => *last = (v, id),
                                None => {
                                    let h = key.long(v);
                                    let found = match &long {
                                        Some(table) => table.find(h, |id| Long(distinct[id as usize]) == Long(v)),
                                        None => break (v, New::Long(h, None)),
                                    };
                                    match found {
                                        Ok(id) => {
                                            *last = (v, id);
                                            match at {
                                                Some(at) => recent[at] = id,
                                                // Made once half the values so far
                                                // were repeats (in a column of
                                                // mostly new values a slot would
                                                // mostly miss, and the slots cost
                                                // more to clear than they save).
                                                None if distinct.len() * 2 <= ids.len() => {
                                                    *recent = match recent_spare.len() {
                                                        RECENT => std::mem::take(recent_spare),
                                                        _ => vec![0; RECENT],
                                                    };
                                                    recent[recent_slot(v)] = id;
                                                }
                                                None => {}
                                            }
                                        }
                                        Err(at) => break (v, New::Long(h, Some(at))),
                                    }
                                }
                            }
                        }
                        last.1
                    };
                    ids.push(id);
                };
                let mut next = distinct.len() as u64;
                match new {
                    New::Short(word, at) => short.add_at(at, word, next),
                    New::Long(h, at) => {
                        long_table(long, &mut long_spare.0, &mut long_spare.1);
                        let table = long.as_mut().expect("a table of long values");
                        let at = at.unwrap_or_else(|| table.find(h, |_| false).expect_err("a new table"));
                        table.add_at(at, h, next);
                        *last = (v, next);
                        if !recent.is_empty() {
                            recent[recent_slot(v)] = next;
                        }
                    }
                }
                // The new value, and the values after it, added where new,
                // until one is found among those before.
                let mut id = next;
                loop {
                    ids.push(id);
                    if id != next {
                        shorts = usize::from(v.len() < 8);
                        break;
                    }
                    distinct.push(v);
                    *bytes += v.len();
                    if distinct.len() > give_up || *bytes > most || super::mostly_distinct(ids.len(), distinct.len(), n)
                    {
                        return false;
                    }
                    let Some((w, head)) = values.next() else {
                        return true;
                    };
                    v = w;
                    next = distinct.len() as u64;
                    id = if v.len() < 8 {
                        short.find_or_add(short_key(head, v.len()), next)
                    } else {
                        if !is_last(v, last.0) {
                            let h = key.long(v);
                            long_table(long, &mut long_spare.0, &mut long_spare.1);
                            let table = long.as_mut().expect("a table of long values");
                            let found = table.find(h, |id| Long(distinct[id as usize]) == Long(v));
                            let id = found.unwrap_or_else(|at| {
                                table.add_at(at, h, next);
                                if !recent.is_empty() {
                                    recent[recent_slot(v)] = next;
                                }
                                next
                            });
                            *last = (v, id);
                        }
                        last.1
                    };
                }
            }
        }
    }
}

/// The 8 bytes of `text` from `at`, little-endian, where it holds them.
#[inline]
fn word_from(text: &[u8], at: usize) -> Option<u64> {
    let w = text.get(at..)?.get(..8)?;
    Some(u64::from_le_bytes(w.try_into().expect("8 bytes")))
}

/// A value of `len` bytes (under 8) as one word, from its head: its
/// bytes, little-endian, and its length in the top byte.
#[inline]
fn short_key(head: u64, len: usize) -> u64 {
    debug_assert!(len < 8);
    head & low_bytes(len) | (len as u64) << 56
}

/// A mask of the low `n` bytes of a word, `n` under 8 (for 8 it is 0, not
/// all ones: callers pass lengths under 8 only).
#[inline]
fn low_bytes(n: usize) -> u64 {
    (1u64 << ((8 * n as u32) & 63)).wrapping_sub(1)
}

/// The bytes of a value of up to 7 bytes, little-endian, zero past them
/// (read in at most three loads, overlapping where the length is not a
/// power of two; the overlapping bytes are the same).
#[inline]
fn short_bytes(v: &[u8]) -> u64 {
    let n = v.len();
    debug_assert!(n < 8);
    if n >= 4 {
        let lo = u64::from(u32::from_le_bytes(v[..4].try_into().expect("4 bytes")));
        let hi = u64::from(u32::from_le_bytes(v[n - 4..].try_into().expect("4 bytes")));
        lo | hi << (8 * (n - 4))
    } else if n > 0 {
        u64::from(v[0]) | u64::from(v[n / 2]) << (8 * (n / 2)) | u64::from(v[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

/// How many slots [`Distinct`] keeps of long values found or added lately.
const RECENT: usize = 1024;

/// A long value's slot among [`RECENT`]: its length and its first and last
/// words, mixed by one multiplication, so that a column's few long values
/// are found again by their own slot without being hashed whole and
/// looked up. (Not keyed: values made to share a slot only miss it, and
/// are then looked up by their keyed hash.)
#[inline]
fn recent_slot(v: &[u8]) -> usize {
    let w = Long(v).word(0) ^ Long(v).word(v.len() - 8).rotate_left(29) ^ v.len() as u64;
    (w.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT.trailing_zeros())) as usize
}

struct Dict<'a, 'v> {
    distinct: &'a [&'v [u8]],
    lens: Planned<'a, u64>,
    ids: Planned<'a, u64>,
    bytes: usize,
}

impl<'a, 'v> Dict<'a, 'v> {
    #[cfg(test)]
    fn new(parts: &'a DictParts<'v>) -> Self {
        Self::planned(parts, Planned::new(&parts.2))
    }

    /// The dictionary whose indices `stats` gathered.
    fn with_stats((parts, stats): &'a (DictParts<'v>, Stats)) -> Self {
        Self::planned(parts, Planned::with_stats(&parts.2, stats))
    }

    fn planned(parts: &'a DictParts<'v>, ids: Planned<'a, u64>) -> Self {
        let bytes = parts.0.iter().map(|v| v.len()).sum();
        Dict { distinct: &parts.0, lens: Planned::new(&parts.1), ids, bytes }
    }
    fn size(&self) -> usize {
        1 + varint::len(self.distinct.len() as u128)
            + self.lens.block_size()
            + varint::len(self.bytes as u128)
            + self.bytes
            + self.ids.size()
    }
    fn write(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size());
        out.push(E::Dictionary.byte());
        varint::put(&mut out, self.distinct.len() as u128);
        self.lens.write_block(&mut out);
        varint::put(&mut out, self.bytes as u128);
        for v in self.distinct {
            out.extend_from_slice(v);
        }
        self.ids.write(&mut out);
        out
    }
}

struct Prefix<'a> {
    /// Each value's prefix shared with the one before, as planned.
    lens: &'a [u64],
    shared: Planned<'a, u64>,
    rest_lens: Planned<'a, u64>,
    rest: usize,
}

impl<'a> Prefix<'a> {
    /// Each value's prefix shared with the one before and the length of
    /// the rest, into `shared` and `rest_lens`, and the bytes of all the
    /// rests if under `limit`; `None` once they reach it (the encoding then
    /// cannot win), found a block of values at a time, so that a column it
    /// loses is not read to its end. Goes on from the values `shared`
    /// already holds (`values` is the column or its first values,
    /// [`Texts::first`]). (Each list extended from iterators of known
    /// length, written without a capacity check per value.)
    fn rest<'v>(
        values: impl Texts<'v>,
        shared: &mut Vec<u64>,
        rest_lens: &mut Vec<u64>,
        limit: usize,
    ) -> Option<usize> {
        const BLOCK: usize = 512;
        let (n, done) = (values.count(), shared.len());
        if done == 0 {
            room_for(shared, n);
            room_for(rest_lens, n);
        } else {
            shared.reserve_exact(n - done);
            rest_lens.reserve_exact(n - done);
        }
        let value = |i: usize| values.iter_range(i, i + 1).next();
        let mut rest = rest_lens.iter().sum::<u64>() as usize;
        for from in (done..n).step_by(BLOCK) {
            let to = n.min(from + BLOCK);
            let block = values.iter_range(from, to);
            // (The value before, moved into the closure: held in a register
            // by the loop it is folded in, not stored back each value.)
            let mut prev: &[u8] = from.checked_sub(1).and_then(value).unwrap_or(&[]);
            shared.extend(block.map(move |v| common_prefix(std::mem::replace(&mut prev, v), v) as u64));
            rest_lens.extend(values.lens_range(from, to).zip(&shared[from..]).map(|(len, &p)| len as u64 - p));
            rest += rest_lens[from..].iter().sum::<u64>() as usize;
            if rest >= limit {
                return None;
            }
        }
        (rest < limit).then_some(rest)
    }

    /// [`Prefix::rest`] of a column whose values make few runs (`starts`,
    /// where each starts: [`run_starts`]): a value equal to the one before
    /// shares all of it and has no rest, so only each run's first value is
    /// compared with the one before, and the two lists are runs filled at
    /// once. `None` also where the encoding cannot take fewer than `beat`
    /// bytes (a dictionary's size, which wins ties): the two blocks' least
    /// sizes ([`block_least`]) are known from the runs before the lists are
    /// made. The lists are made from the first value (what `shared`
    /// already holds is made again). (Out of line: inlined, it changed how
    /// the encoder's other loops were compiled.)
    #[inline(never)]
    fn rest_of_runs<'v>(
        values: impl Texts<'v>,
        starts: &[usize],
        shared: &mut Vec<u64>,
        rest_lens: &mut Vec<u64>,
        limit: usize,
        beat: usize,
        lists: &mut RunLists,
    ) -> Option<usize> {
        let n = values.count();
        // Each run's length, its value's length and what that shares with
        // the value before.
        let mut prev: &[u8] = &[];
        let runs = &mut lists.runs;
        runs.clear();
        room_for(runs, starts.len());
        runs.extend(starts.iter().enumerate().map(|(j, &a)| {
            let v = values.iter_range(a, a + 1).next().expect("a value");
            let p = common_prefix(std::mem::replace(&mut prev, v), v);
            (starts.get(j + 1).copied().unwrap_or(n) - a, v.len() as u64, p as u64)
        }));
        let (runs, shared_pieces, rest_pieces) = (&lists.runs[..], &mut lists.shared_pieces, &mut lists.rest_pieces);
        let rest = runs.iter().map(|&(_, len, p)| len - p).sum::<u64>() as usize;
        if rest >= limit {
            return None;
        }
        if !super::entropy::enabled() {
            // Each run: its first value, then the others (`m - 1` of them,
            // maybe none) sharing all their bytes. (Listed first, then read
            // as slices: pieces made on the fly by a `flat_map` over arrays
            // cost several times what `block_least` does with each.)
            shared_pieces.clear();
            rest_pieces.clear();
            room_for(shared_pieces, 2 * runs.len());
            room_for(rest_pieces, 2 * runs.len());
            for &(m, len, p) in runs {
                shared_pieces.extend([(p, 1), (len, m - 1)]);
                rest_pieces.extend([(len - p, 1), (0, m - 1)]);
            }
            // (A block of one value or more takes 3 bytes at least, its
            // length, encoding byte and a byte of payload: where the shared
            // prefixes' block rules the encoding out with that for the
            // rests', the rests' block is not sized.)
            let least = 1 + block_least(n, shared_pieces.iter().copied()) + rest;
            let rests_least = if n > 0 { 3 } else { 0 };
            if least + rests_least >= beat || least + block_least(n, rest_pieces.iter().copied()) >= beat {
                return None;
            }
        }
        shared.clear();
        rest_lens.clear();
        room_for(shared, n);
        room_for(rest_lens, n);
        for &(m, len, p) in runs {
            shared.push(p);
            shared.resize(shared.len() + m - 1, len);
            rest_lens.push(len - p);
            rest_lens.resize(rest_lens.len() + m - 1, 0);
        }
        Some(rest)
    }

    fn plan(shared: &'a [u64], rest_lens: &'a [u64], rest: usize) -> Prefix<'a> {
        Prefix { lens: shared, shared: Planned::new(shared), rest_lens: Planned::new(rest_lens), rest }
    }
    fn size(&self) -> usize {
        1 + self.shared.block_size() + self.rest_lens.block_size() + self.rest
    }
    fn write<'v>(&self, values: impl Texts<'v>) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size());
        out.push(E::Prefix.byte());
        self.shared.write_block(&mut out);
        self.rest_lens.write_block(&mut out);
        for (v, &p) in values.iter().zip(self.lens) {
            out.extend_from_slice(&v[p as usize..]);
        }
        out
    }
}

/// Where each run of equal indices of a whole dictionary starts (the
/// first at 0), `runs` of them: eight indices at a time where they equal
/// the one before them (columns of few values in long runs), then one at
/// a time to where the next run starts.
#[inline(never)]
fn run_starts(ids: &[u64], runs: usize, starts: &mut Vec<usize>) {
    let n = ids.len();
    starts.clear();
    room_for(starts, runs);
    if n == 0 {
        return;
    }
    starts.push(0);
    let mut i = 1;
    while i < n {
        let v = ids[i - 1];
        while let Some(group) = ids.get(i..i + 8) {
            if !group.iter().fold(true, |all, &id| all & (id == v)) {
                break;
            }
            i += 8;
        }
        while i < n && ids[i] == v {
            i += 1;
        }
        if i < n {
            starts.push(i);
            i += 1;
        }
    }
}

/// The size of the integer block of `n` values that `pieces` gives (each
/// value its count of times, counts of 0 skipped), as [`Planned::new`]
/// sizes it among the encodings `00` to `03`: the varints', the frame of
/// reference's, the differences' and the runs' sizes worked out from the
/// pieces, the smallest taken. (Not a bound where the file encodings are
/// on: they may take less.)
fn block_least(n: usize, pieces: impl Iterator<Item = (u64, usize)>) -> usize {
    let vlen = |v: u64| usize::from(super::ints::VARINT_LEN[(64 - v.leading_zeros()) as usize]);
    let bits = |x: u64| (64 - x.leading_zeros()) as usize;
    let (mut lo, mut hi, mut dlo, mut dhi) = (u64::MAX, 0u64, u64::MAX, 0u64);
    let (mut varints, mut rle, mut run) = (0usize, 0usize, 0usize);
    let (mut first, mut prev) = (None, 0u64);
    for (v, count) in pieces.filter(|&(_, count)| count > 0) {
        lo = lo.min(v);
        hi = hi.max(v);
        varints += count * vlen(v);
        if first.is_none() {
            first = Some(v);
        } else {
            let d = (v as i64).wrapping_sub(prev as i64);
            let z = ((d << 1) ^ (d >> 63)) as u64;
            dlo = dlo.min(z);
            dhi = dhi.max(z);
            if v != prev {
                rle += vlen(run as u64) + vlen(prev);
                run = 0;
            }
        }
        if count > 1 {
            dlo = 0;
        }
        run += count;
        prev = v;
    }
    let Some(first) = first else {
        return 0;
    };
    rle += vlen(run as u64) + vlen(prev);
    let for_size = vlen(lo) + 1 + (n * bits(hi - lo)).div_ceil(8);
    let delta_size =
        if n > 1 { vlen(first) + vlen(dlo) + 1 + ((n - 1) * bits(dhi - dlo)).div_ceil(8) } else { usize::MAX };
    let size = varints.min(for_size).min(delta_size).min(rle) + 1;
    varint::len(size as u128) + size
}

/// The encodings worth compressing for `values`: the smallest, and plain
/// too if it is not (a general compressor may shrink plain text more).
/// In a file, where FSST wins, the smallest of the other three is one too
/// (zstd shrinks shared prefixes or a dictionary more than FSST's codes).
pub(crate) fn candidates(values: &[&[u8]]) -> Vec<Vec<u8>> {
    candidates_of(values)
}

/// [`candidates`] of values held joined: `text` their bytes one after the
/// other, `ends` where each ends (nondecreasing, at most `text.len()`).
pub(crate) fn candidates_joined(text: &[u8], ends: &[usize]) -> Vec<Vec<u8>> {
    candidates_of(Joined { text, ends })
}

fn candidates_of<'a>(values: impl Texts<'a>) -> Vec<Vec<u8>> {
    let mut out = vec![encode_with(values, super::entropy::enabled())];
    if out[0][0] == E::Fsst.byte() {
        out.push(encode_with(values, false));
    }
    if out[out.len() - 1][0] != E::PlainStrings.byte() {
        let mut lens = Vec::new();
        out.push(Plain::new(values, &mut lens).write(values));
    }
    out
}

/// The smallest of the three encodings of `values` (the first of equals,
/// in the order plain, dictionary, shared prefixes); only it is written.
pub(crate) fn encode(values: &[&[u8]]) -> Vec<u8> {
    encode_with(values, super::entropy::enabled())
}

/// [`encode`] of values held joined: `text` their bytes one after the
/// other, `ends` where each ends (nondecreasing, at most `text.len()`);
/// copied at once if plain wins.
pub(crate) fn encode_joined(text: &[u8], ends: &[usize]) -> Vec<u8> {
    encode_with(Joined { text, ends }, super::entropy::enabled())
}

/// [`encode`], FSST among the encodings if `fsst` (in files only); its
/// lists kept from column to column ([`Lists`]).
fn encode_with<'a>(values: impl Texts<'a>, fsst: bool) -> Vec<u8> {
    let mut lists = Lists::take();
    let out = encode_in(values, fsst, &mut lists);
    lists.keep();
    out
}

/// [`encode_with`] in `lists` (empty; the dictionary's are given back to
/// them, emptied or not).
fn encode_in<'a>(values: impl Texts<'a>, fsst: bool, lists: &mut Lists) -> Vec<u8> {
    let n = values.count();
    let Lists { distinct, ids, dict_lens, lens, shared, rest_lens, runs: run_lists } = lists;
    // Plain takes the bytes and a block of lengths of two bytes at least:
    // its lengths are planned only if neither a dictionary nor shared
    // prefixes beat that (ties go to plain).
    let bytes = values.bytes();
    let plain_least = 3 + bytes;
    // Shared prefixes take their remaining bytes and two blocks of at least
    // two bytes: planned only if that may beat the others (ties go to them;
    // [`rests_under`]). Whether the values share prefixes at all is asked
    // only of a column that gets that far (and once).
    let mut shares = (n <= SHARES_SAMPLED_PAST).then_some(n > 0);
    // The dictionary of the first values. Where it is large there (a new
    // value in eight) and shared prefixes take under half its bytes there
    // (sorted dates, times, ids), shared prefixes are measured first: a
    // dictionary takes its distinct values' bytes and two lengths of a byte
    // at least, so their exact size stops it as soon as its bytes pass it
    // (the sizes compared are exact either way: only which is measured
    // first, and what is not finished, changes).
    let mut dictionary = Distinct::new_in(n, std::mem::take(distinct), std::mem::take(ids));
    let probe = n.min(PROBE);
    let mut whole = !sampled_distinct(values) && dictionary.run(values.first(probe), usize::MAX);
    let mut first_rest = None;
    if whole
        && probe < n
        && dictionary.distinct.len() * 8 > probe
        && *shares.get_or_insert_with(|| shares_prefixes(values))
    {
        Prefix::rest(values.first(probe), shared, rest_lens, usize::MAX);
        if 2 * rest_lens.iter().sum::<u64>() < dictionary.bytes as u64
            && rests_under(values, plain_least.saturating_sub(5), bytes)
        {
            first_rest = Some(Prefix::rest(values, shared, rest_lens, plain_least - 5));
        }
    }
    let first_prefix = first_rest.flatten().map(|rest| Prefix::plan(shared, rest_lens, rest));
    let beaten_past = first_prefix.as_ref().map_or(usize::MAX, |p| p.size() - 3);
    whole = whole && dictionary.run(values, beaten_past);
    let parts = if whole {
        Some(dictionary.finish(std::mem::take(dict_lens)))
    } else {
        *distinct = unbound(std::mem::take(&mut dictionary.distinct));
        *ids = std::mem::take(&mut dictionary.ids);
        drop(dictionary);
        None
    };
    let dict = parts.as_ref().map(Dict::with_stats);
    let dict_size = dict.as_ref().map_or(usize::MAX, Dict::size);
    let others = plain_least.min(dict_size);
    // Of a column of few values in long runs (a dictionary's indices show
    // them), only the runs' first values are compared, and the encoding may
    // be ruled out against the dictionary before its lists are made.
    let runs = parts.as_ref().filter(|(_, stats)| stats.runs() * RUNS_FEW <= n);
    // A column of at most one block of the lengths' bound ([`rests_under`],
    // which reads every value's length, with no block after the first to
    // stop before) is bounded first only where the bound is likely to rule
    // the encoding out: a dictionary of fewer bytes than the column has runs
    // of equal values (each run's first value may add to the bound), not in
    // long runs. Elsewhere the exact rests rule the encoding out wherever
    // the bound does (they are at least the bound, and [`Prefix::rest`] and
    // [`Prefix::rest_of_runs`] stop once they reach the limit), and the
    // bound rarely does: where no dictionary is whole the limit is the
    // plain bytes, which a bound of each value's growth over the one before
    // nearly never reaches.
    let bounded =
        n > RESTS_BLOCK || runs.is_none() && parts.as_ref().is_some_and(|(_, stats)| dict_size < stats.runs());
    let prefix = match first_rest {
        Some(_) => first_prefix,
        None => (*shares.get_or_insert_with(|| shares_prefixes(values))
            && (!bounded || rests_under(values, others.saturating_sub(5), bytes)))
        .then(|| {
            let limit = others.saturating_sub(5);
            match runs {
                Some(((_, _, ids), stats)) => {
                    let mut starts = std::mem::take(&mut run_lists.starts);
                    run_starts(ids, stats.runs(), &mut starts);
                    let rest = Prefix::rest_of_runs(values, &starts, shared, rest_lens, limit, dict_size, run_lists);
                    run_lists.starts = starts;
                    rest
                }
                None => Prefix::rest(values, shared, rest_lens, limit),
            }
        })
        .flatten()
        .map(|rest| Prefix::plan(shared, rest_lens, rest)),
    };
    let prefix_size = prefix.as_ref().map_or(usize::MAX, Prefix::size);
    let plain = (dict_size >= plain_least && prefix_size >= others).then(|| Plain::new(values, lens));
    let sizes = [plain.as_ref().map(Plain::size), dict.as_ref().map(Dict::size), prefix.as_ref().map(Prefix::size)];
    let best = (0..3).filter(|&i| sizes[i].is_some()).min_by_key(|&i| (sizes[i], i)).expect("an encoding");
    // In an XBF file, FSST (`23`) where it is smaller still, measured by
    // compressing the column: its table is trained on a sample. Its codes
    // take at least a byte for each value that is not empty and for each 8
    // bytes: not tried where the best is below that (a dictionary of few
    // values, whose indices take less than a byte).
    let floor = || (bytes / 8).max(values.lens().filter(|&l| l > 0).count());
    let mut written = None;
    if fsst && sizes[best].is_some_and(|s| s >= 512 && s > floor()) {
        let list: Vec<&[u8]> = values.iter().collect();
        let fsst = match values.joined() {
            Some(all) => super::fsst::encode(&list, all),
            None => super::fsst::encode(&list, &list.concat()),
        };
        written = fsst.filter(|b| Some(b.len()) < sizes[best]);
    }
    let out = written.unwrap_or_else(|| match best {
        0 => plain.as_ref().expect("plain").write(values),
        1 => dict.as_ref().expect("a dictionary").write(),
        _ => prefix.as_ref().expect("shared prefixes").write(values),
    });
    // The dictionary's lists given back.
    drop((plain, dict, prefix));
    if let Some(((d, l, i), _)) = parts {
        (*distinct, *dict_lens, *ids) = (unbound(d), l, i);
    }
    out
}

/// The number of leading bytes `a` and `b` share, 8 bytes at a time: the
/// last word read overlapping the one before, and values under 8 bytes
/// read whole as one word each (no loop over single bytes).
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    if n == 0 || a[0] != b[0] {
        return 0;
    }
    if n < 4 {
        // (The first bytes are equal: at most two more to compare.)
        let mut i = 1;
        while i < n && a[i] == b[i] {
            i += 1;
        }
        return i;
    }
    if n < 8 {
        // The first `n` bytes of each, zero past them: they differ at the
        // first byte that differs, or nowhere.
        let x = short_bytes(&a[..n]) ^ short_bytes(&b[..n]);
        return if x == 0 { n } else { (x.trailing_zeros() / 8) as usize };
    }
    let mut i = 0;
    while i + 8 < n {
        let x = super::word_at(a, i) ^ super::word_at(b, i);
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // The last 8 bytes of the shorter length (those before `i` are equal,
    // so a difference among them lies at `i` or past it).
    let x = super::word_at(a, n - 8) ^ super::word_at(b, n - 8);
    if x == 0 {
        n
    } else {
        n - 8 + (x.trailing_zeros() / 8) as usize
    }
}

/// The most values of a column [`shares_prefixes`] takes as sharing them
/// without reading it.
const SHARES_SAMPLED_PAST: usize = 8192;

/// Whether shared prefixes may win: in a long column, the first thousand
/// values share half a byte each at least with the one before (counted
/// until they have).
fn shares_prefixes<'a>(values: impl Texts<'a>) -> bool {
    if values.count() <= SHARES_SAMPLED_PAST {
        return true;
    }
    // (The first value shares nothing with the empty one before it.)
    let mut prev: &[u8] = &[];
    let mut shared = 0;
    for v in values.iter().take(1024) {
        shared += common_prefix(std::mem::replace(&mut prev, v), v);
        if shared >= 512 {
            return true;
        }
    }
    false
}

/// How many values [`rests_under`] sums before it compares.
const RESTS_BLOCK: usize = 256;

/// Whether the rests of shared prefixes may take under `limit` bytes: a
/// value shares at most the length of the one before, so the rests take
/// at least what each value is longer than that one (a bound known from
/// the lengths alone), summed a block of values at a time and stopped
/// once it reaches `limit` (a column the dictionary wins by far is not
/// read to its end; the sum only grows, so the answer is the whole sum's),
/// or once the values left cannot make it reach `limit` (each adds at most
/// its length: where no dictionary beats plain, whose bytes are the limit,
/// a block or two decide). `bytes` is the values' bytes.
fn rests_under<'a>(values: impl Texts<'a>, limit: usize, bytes: usize) -> bool {
    let n = values.count();
    let (mut prev, mut least) = (0, 0);
    // The bytes of the values not summed yet.
    let mut left = bytes;
    for from in (0..n).step_by(RESTS_BLOCK) {
        let to = n.min(from + RESTS_BLOCK);
        least +=
            values.lens_range(from, to).map(|len| len.saturating_sub(std::mem::replace(&mut prev, len))).sum::<usize>();
        if least >= limit {
            return false;
        }
        left = left.wrapping_sub(values.bytes_range(from, to));
        if left < limit - least {
            return true;
        }
    }
    least < limit
}

/// Sums lengths that were each checked to be at most the column's size.
pub(crate) fn total(lens: &[u64]) -> u128 {
    lens.iter().fold(0u128, |a, &b| a.saturating_add(u128::from(b)))
}

fn split(bytes: &[u8], lens: &[u64]) -> Vec<Vec<u8>> {
    let mut at = 0usize;
    lens.iter()
        .map(|&l| {
            let s = bytes[at..at + l as usize].to_vec();
            at += l as usize;
            s
        })
        .collect()
}

/// Reads a string or bytes column body of exactly `n` values; a PLAIN or
/// PREFIX column's bytes run to the end of the column.
///
/// A dictionary or shared prefixes can make a few bytes stand for many, so
/// the bytes the values will take are charged to `budget` before any is made.
pub(crate) fn decode(c: &mut Cursor<'_>, n: u64, budget: &mut Budget) -> Result<Vec<Vec<u8>>> {
    let at = c.offset();
    let enc = c.u8()?;
    match E::from_byte(enc) {
        Some(E::PlainStrings) => {
            let lens = read_ints(c, n)?;
            let bytes = c.take_checked(total(&lens))?;
            Ok(split(bytes, &lens))
        }
        Some(E::Dictionary) => {
            let ReadDict { lens, values, ids, .. } = read_dict(c, n, at, budget)?;
            let d = lens.len() as u64;
            let distinct = split(values, &lens);
            ids.iter()
                .map(|&i| {
                    distinct
                        .get(i as usize)
                        .cloned()
                        .filter(|_| i < d)
                        .ok_or_else(|| c.invalid(at, format!("a dictionary index {i} past its {d} values")))
                })
                .collect()
        }
        Some(E::Prefix) => {
            let (shared, rest_lens, rest) = read_prefix(c, n, at, budget)?;
            let mut out: Vec<Vec<u8>> = Vec::with_capacity(n as usize);
            let mut at_rest = 0usize;
            for (i, (&p, &r)) in shared.iter().zip(&rest_lens).enumerate() {
                let prev = if i == 0 { &[][..] } else { &out[i - 1][..] };
                if p > prev.len() as u64 {
                    return Err(c.invalid(at, format!("value {i} shares {p} bytes with a value of {}", prev.len())));
                }
                let mut v = prev[..p as usize].to_vec();
                v.extend_from_slice(&rest[at_rest..at_rest + r as usize]);
                at_rest += r as usize;
                out.push(v);
            }
            Ok(out)
        }
        Some(E::Fsst) if c.is_file() => {
            let d = super::fsst::decode(c, n, at, budget)?;
            Ok(split(&d.bytes, &d.lens))
        }
        _ => Err(Error::at(ErrorKind::UnknownDiscriminant, at, format!("0x{enc:02x} is not a string column encoding"))),
    }
}

/// Reads a string or bytes column body of exactly `n` values, `c` at its
/// encoding byte, in Arrow's layout: the values' bytes one after the other
/// in one buffer, and `n + 1` offsets into it. The budget is charged as
/// [`decode`] charges it, and also for the buffer of a plain column.
// Not called by the `Value` and serde readers; the Arrow path's column
// decoder is its caller (and the tests and the FSST measurement).
#[allow(dead_code)]
pub(crate) fn decode_joined(c: &mut Cursor<'_>, n: u64, budget: &mut Budget) -> Result<(Vec<u8>, Vec<usize>)> {
    let offsets = |lens: &[u64]| -> Vec<usize> {
        std::iter::once(0)
            .chain(lens.iter().scan(0usize, |end, &l| {
                *end += l as usize;
                Some(*end)
            }))
            .collect()
    };
    if c.clone_first_byte() == E::Fsst.byte() && c.is_file() {
        let at = c.offset();
        c.u8()?;
        let d = super::fsst::decode(c, n, at, budget)?;
        let offsets = offsets(&d.lens);
        return Ok((d.bytes, offsets));
    }
    let at = c.offset();
    let (built, spans, _) = decode_spans(c, n, budget)?;
    let lens: Vec<u64> = spans.iter().map(|&(a, b)| (b - a) as u64).collect();
    if built.is_none() {
        budget.charge(at, total(&lens))?;
    }
    let mut out = Vec::with_capacity(usize::try_from(total(&lens)).unwrap_or(0));
    match &built {
        Some(b) => spans.iter().for_each(|&(a, e)| out.extend_from_slice(&b[a..e])),
        None => {
            // The spans are positions in the cursor's bytes, all read by now.
            let read = c.since(0);
            spans.iter().for_each(|&(a, e)| out.extend_from_slice(&read[a..e]))
        }
    }
    Ok((out, offsets(&lens)))
}

/// A dictionary column's parts (its encoding byte read), with the budget
/// charged for the bytes of the `n` values they make.
struct ReadDict<'a> {
    /// The distinct values' lengths and bytes, which start at `start` of
    /// the cursor's bytes.
    lens: Vec<u64>,
    values: &'a [u8],
    start: usize,
    /// Each value's index in the dictionary, not yet checked against it.
    ids: Vec<u64>,
}

fn read_dict<'a>(c: &mut Cursor<'a>, n: u64, at: u64, budget: &mut Budget) -> Result<ReadDict<'a>> {
    let d_at = c.offset();
    let d = c.varint(64)? as u64;
    // Each distinct value has a length in the lengths block.
    c.check_fits(d_at, d, 1)?;
    let lens = read_ints(c, d)?;
    let mut block = c.block()?;
    let start = c.position() - block.remaining() as usize;
    let values = block.take_checked(total(&lens))?;
    block.finish("dictionary")?;
    let ids: Vec<u64> = ints::decode(c, n, 64)?;
    let size =
        ids.iter().map(|&i| lens.get(i as usize).map_or(0, |&l| u128::from(l))).fold(0u128, u128::saturating_add);
    budget.charge(at, size)?;
    Ok(ReadDict { lens, values, start, ids })
}

/// A prefix-coded column's parts (its encoding byte read): the bytes each
/// value shares with the one before, the lengths of the rest, and the
/// rests; the budget is charged for the values' bytes.
fn read_prefix<'a>(c: &mut Cursor<'a>, n: u64, at: u64, budget: &mut Budget) -> Result<(Vec<u64>, Vec<u64>, &'a [u8])> {
    let shared = read_ints(c, n)?;
    let rest_lens = read_ints(c, n)?;
    let rest = c.take_checked(total(&rest_lens))?;
    budget.charge(at, total(&shared).saturating_add(total(&rest_lens)))?;
    Ok((shared, rest_lens, rest))
}

/// A length-prefixed integer block of `n` values, each at most as large as
/// the whole column, so that sums of them cannot overflow.
pub(crate) fn read_ints(c: &mut Cursor<'_>, n: u64) -> Result<Vec<u64>> {
    let mut block = c.block()?;
    let at = block.offset();
    let values: Vec<u64> = ints::decode(&mut block, n, 64)?;
    block.finish("integer block")?;
    let limit = c.remaining() + (1 << 32);
    if let Some(v) = values.iter().find(|&&v| v > limit) {
        return Err(Error::at(ErrorKind::Truncated, at, format!("a length of {v} passes the column")));
    }
    Ok(values)
}

/// Where a value lies: its start and end in the column's bytes, or in the
/// buffer its values were rebuilt into.
pub(crate) type Span = (usize, usize);

/// Reads a string or bytes column body of exactly `n` values, as `decode`
/// does, without making each value: `c` must start at the body's first
/// byte, and each span is a position in the body, except that shared
/// prefixes are rebuilt into the returned buffer, which the spans then
/// index. Also returns the region every span lies in: the values of a
/// plain column, a dictionary's values (some of which no span may use),
/// the whole rebuilt buffer. The budget is charged as `decode` charges it.
pub(crate) fn decode_spans(
    c: &mut Cursor<'_>,
    n: u64,
    budget: &mut Budget,
) -> Result<(Option<Vec<u8>>, Vec<Span>, Span)> {
    let at = c.offset();
    let runs = |lens: &[u64], mut start: usize| -> Vec<Span> {
        lens.iter()
            .map(|&l| {
                let span = (start, start + l as usize);
                start = span.1;
                span
            })
            .collect()
    };
    let enc = c.u8()?;
    match E::from_byte(enc) {
        Some(E::PlainStrings) => {
            let lens = read_ints(c, n)?;
            let start = c.position();
            let body = c.take_checked(total(&lens))?;
            Ok((None, runs(&lens, start), (start, start + body.len())))
        }
        Some(E::Dictionary) => {
            let ReadDict { lens, values, start, ids } = read_dict(c, n, at, budget)?;
            let (d, values) = (lens.len(), values.len());
            let distinct = runs(&lens, start);
            ids.iter()
                .map(|&i| {
                    distinct
                        .get(usize::try_from(i).unwrap_or(usize::MAX))
                        .copied()
                        .ok_or_else(|| c.invalid(at, format!("a dictionary index {i} past its {d} values")))
                })
                .collect::<Result<Vec<Span>>>()
                .map(|spans| (None, spans, (start, start + values)))
        }
        Some(E::Prefix) => {
            let (shared, rest_lens, rest) = read_prefix(c, n, at, budget)?;
            let size = total(&shared).saturating_add(total(&rest_lens));
            // Charged to the budget just above, so bounded by it; sized
            // once so that the values are not copied on every doubling.
            let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            let mut spans: Vec<Span> = Vec::with_capacity(n as usize);
            let mut at_rest = 0usize;
            let mut prev: Span = (0, 0);
            for (i, (&p, &r)) in shared.iter().zip(&rest_lens).enumerate() {
                if p > (prev.1 - prev.0) as u64 {
                    return Err(
                        c.invalid(at, format!("value {i} shares {p} bytes with a value of {}", prev.1 - prev.0))
                    );
                }
                let start = out.len();
                out.extend_from_within(prev.0..prev.0 + p as usize);
                out.extend_from_slice(&rest[at_rest..at_rest + r as usize]);
                at_rest += r as usize;
                prev = (start, out.len());
                spans.push(prev);
            }
            let all = (0, out.len());
            Ok((Some(out), spans, all))
        }
        Some(E::Fsst) if c.is_file() => {
            let d = super::fsst::decode(c, n, at, budget)?;
            let spans = runs(&d.lens, 0);
            let all = (0, d.bytes.len());
            Ok((Some(d.bytes), spans, all))
        }
        _ => Err(Error::at(ErrorKind::UnknownDiscriminant, at, format!("0x{enc:02x} is not a string column encoding"))),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn put_block(out: &mut Vec<u8>, block: &[u8]) {
        varint::put(out, block.len() as u128);
        out.extend_from_slice(block);
    }

    fn round_trip(values: &[&str]) -> u8 {
        let bytes: Vec<&[u8]> = values.iter().map(|s| s.as_bytes()).collect();
        let enc = encode(&bytes);
        let mut c = Cursor::new(&enc, 0);
        let back = decode(&mut c, values.len() as u64, &mut Budget::new(1 << 20)).unwrap();
        assert!(c.at_end());
        assert_eq!(back, bytes);
        enc[0]
    }

    /// The writer before its speed-ups: one map of slices, and all three
    /// encodings planned in full; kept to check the same bytes come out.
    fn encode_reference(values: &[&[u8]]) -> Vec<u8> {
        let mut lens = Vec::new();
        let plain = Plain::new(values, &mut lens);
        let parts = (|| {
            let mut index: HashMap<&[u8], u64> = HashMap::new();
            let mut distinct: Vec<&[u8]> = Vec::new();
            let mut ids = Vec::new();
            for (i, &v) in values.iter().enumerate() {
                let id = *index.entry(v).or_insert_with(|| {
                    distinct.push(v);
                    distinct.len() as u64 - 1
                });
                ids.push(id);
                if distinct.len() > values.len() / 2 + 16
                    // (the give-up test as it was: at the 4,096th value only)
                    || (values.len() > 8192 && i + 1 == 4096 && distinct.len() > 3072)
                {
                    return None;
                }
            }
            let lens = distinct.iter().map(|v| v.len() as u64).collect();
            Some((distinct, lens, ids))
        })();
        let dict = parts.as_ref().map(Dict::new);
        let (mut shared, mut rest_lens) = (Vec::new(), Vec::new());
        let prefix = shares_prefixes(values).then(|| {
            // (Each list planned by a pass of its own, as it was.)
            let mut rest = 0;
            let mut prev: &[u8] = &[];
            for v in values {
                let p = common_prefix(prev, v);
                shared.push(p as u64);
                rest_lens.push((v.len() - p) as u64);
                rest += v.len() - p;
                prev = v;
            }
            Prefix { lens: &shared, shared: Planned::new(&shared), rest_lens: Planned::new(&rest_lens), rest }
        });
        let sizes = [Some(plain.size()), dict.as_ref().map(Dict::size), prefix.as_ref().map(Prefix::size)];
        let best = (0..3).filter(|&i| sizes[i].is_some()).min_by_key(|&i| (sizes[i], i)).expect("plain");
        match best {
            0 => plain.write(values),
            1 => dict.expect("a dictionary").write(),
            _ => prefix.expect("shared prefixes").write(values),
        }
    }

    #[test]
    fn the_faster_writer_writes_what_the_full_one_did() {
        let mut next = crate::columnar::lcg(5, 16);
        let words = ["", "a", "a\0", "ab", "abcdefg", "abcdefgh", "abcdefghi", "Drama", "Contemporary Fiction", "é"];
        for round in 0..600 {
            let n = [0, 1, 2, 5, 40, 300, 9000][round % 7];
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| match round % 5 {
                    0 => words[(next() % words.len() as u64) as usize].as_bytes().to_vec(),
                    1 => format!("2001/01/{:02} {:02}:{:02}", 1 + i / 1440 % 28, i / 60 % 24, i % 60).into_bytes(),
                    2 => (0..next() % 12).map(|_| (next() % 3) as u8).collect(),
                    3 => format!("{}", next() % (1 + round as u64 * 3)).into_bytes(),
                    _ => format!("https://example.org/item/{}", i * 7 + (next() % 3) as usize).into_bytes(),
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            writes_the_reference(&slices, &format!("round {round}"));
            // The same column held joined, with bytes past its last value.
            let (text, ends) = joined(&slices);
            assert_eq!(encode_joined(&[&text[..], b"past"].concat(), &ends), encode(&slices), "round {round}");
        }
    }

    #[test]
    fn columns_of_few_values_in_runs_write_what_the_full_writer_did() {
        // Few distinct values in runs (a country column), each shape the
        // run-by-run prefixes meet: one value, empty values, values that
        // are prefixes of each other, long values, runs of one.
        let mut next = crate::columnar::lcg(77, 20);
        let sets: [&[&str]; 6] = [
            &["USA"],
            &["USA", "Canada", "Puerto Rico", "Guam", "N Mariana Islands"],
            &["", "a", "ab", "abc"],
            &["abcdefghijklmnop", "abcdefghijklmnoq", "abcdefgh", "abcdefghijklmnopqrstuvwxyz0123456789", "b"],
            &["0", "1"],
            &["x", "", "xx", "xxx", "xxxxxxxxx", "xxxxxxxxxx"],
        ];
        for round in 0..504 {
            let n = [1, 2, 7, 8, 9, 17, 100, 1000, 1023, 1024, 3376, 9000][round % 12];
            let set = sets[round / 12 % sets.len()];
            // Runs of about this many values on average (5 and 6: a run in
            // four to eight values, measured run by run since RUNS_FEW is 4).
            let mean = [1u64, 4, 5, 6, 9, 40, 300][round / 72 % 7];
            let mut values: Vec<&[u8]> = Vec::with_capacity(n);
            while values.len() < n {
                let v = set[(next() % set.len() as u64) as usize].as_bytes();
                for _ in 0..1 + next() % (2 * mean) {
                    values.push(v);
                }
            }
            values.truncate(n);
            writes_the_reference(&values, &format!("round {round}"));
        }
    }

    #[test]
    fn run_starts_are_where_an_index_changes() {
        let mut next = crate::columnar::lcg(78, 20);
        for round in 0..400 {
            let n = (next() % 200) as usize;
            let mean = 1 + next() % 30;
            let mut ids: Vec<u64> = Vec::new();
            while ids.len() < n {
                let id = next() % 4;
                ids.extend(std::iter::repeat(id).take((1 + next() % (2 * mean)) as usize));
            }
            ids.truncate(n);
            let starts: Vec<usize> = (0..n).filter(|&i| i == 0 || ids[i] != ids[i - 1]).collect();
            let mut got = vec![7];
            run_starts(&ids, starts.len(), &mut got);
            assert_eq!(got, starts, "round {round}");
        }
    }

    #[test]
    fn a_block_least_is_the_planned_size() {
        // Lists given as pieces (a value, its count), as the shared prefixes
        // of a column in runs are: their size worked out from the pieces is
        // the plan's (and never more with the file encodings on).
        let mut next = crate::columnar::lcg(79, 20);
        for round in 0..2000 {
            let pieces: Vec<(u64, usize)> = (0..1 + next() % 12)
                .map(|_| {
                    let v = match round % 4 {
                        0 => next() % 2,
                        1 => next() % 20,
                        2 => next() % 70_000,
                        _ => next() << 20,
                    };
                    (v, (next() % [2, 5, 300, 3000][round / 4 % 4]) as usize)
                })
                .collect();
            let list: Vec<u64> = pieces.iter().flat_map(|&(v, c)| std::iter::repeat(v).take(c)).collect();
            let least = block_least(list.len(), pieces.iter().copied());
            if list.is_empty() {
                assert_eq!(least, 0);
                continue;
            }
            assert_eq!(least, Planned::new(&list).block_size(), "round {round}: {pieces:?}");
        }
    }

    #[test]
    fn the_rests_of_runs_are_the_rests() {
        // Measured run by run, with nothing to beat: the same lists and
        // rest as value by value, the file encodings on or off (on, no
        // bound is taken); and a bound never rules out a size under it.
        let mut next = crate::columnar::lcg(80, 20);
        let set: [&[u8]; 7] = [b"", b"a", b"ab", b"abc", b"abcdefghijk", b"abcdefghijz", b"b"];
        // (One set of its lists for every round, as a thread keeps them.)
        let mut lists = RunLists::default();
        for round in 0..400 {
            let _on = (round % 2 == 1).then(crate::columnar::entropy::Enabled::new);
            let n = (1 + next() % 3000) as usize;
            let mut values: Vec<&[u8]> = Vec::with_capacity(n);
            while values.len() < n {
                let v = set[(next() % set.len() as u64) as usize];
                values.extend(std::iter::repeat(v).take((1 + next() % 60) as usize));
            }
            values.truncate(n);
            let Some(((_, _, ids), _)) = dictionary(&values[..]) else {
                panic!("a dictionary of {} values", set.len());
            };
            let runs = 1 + ids.windows(2).filter(|w| w[0] != w[1]).count();
            let mut starts = Vec::new();
            run_starts(&ids, runs, &mut starts);
            let (mut shared, mut rest_lens) = (Vec::new(), Vec::new());
            let rest = Prefix::rest(&values[..], &mut shared, &mut rest_lens, usize::MAX).expect("a rest");
            // (Lists with items of an earlier round in them.)
            let (mut s2, mut r2) = (vec![9], vec![9]);
            let limit = [usize::MAX, rest, rest + 1][round % 3];
            let got = Prefix::rest_of_runs(&values[..], &starts, &mut s2, &mut r2, limit, usize::MAX, &mut lists);
            assert_eq!(got, (rest < limit).then_some(rest), "round {round}");
            if got.is_some() {
                assert_eq!((s2, r2), (shared.clone(), rest_lens.clone()), "round {round}");
            }
            // The exact rests rule the encoding out wherever the lengths'
            // bound does (`encode_with` does not bound a short column
            // measured run by run first).
            let least: usize =
                values.iter().scan(0, |prev, v| Some(v.len().saturating_sub(std::mem::replace(prev, v.len())))).sum();
            for limit in [least.saturating_sub(1), least, least + 1] {
                if !rests_under(&values[..], limit, values.iter().map(|v| v.len()).sum()) {
                    let (mut s4, mut r4) = (Vec::new(), Vec::new());
                    let got =
                        Prefix::rest_of_runs(&values[..], &starts, &mut s4, &mut r4, limit, usize::MAX, &mut lists);
                    assert_eq!(got, None, "round {round}, limit {limit}");
                }
            }
            let size = Prefix::plan(&shared, &rest_lens, rest).size();
            let (mut s3, mut r3) = (Vec::new(), Vec::new());
            for beat in [size, size + 1] {
                let kept = Prefix::rest_of_runs(&values[..], &starts, &mut s3, &mut r3, usize::MAX, beat, &mut lists);
                // (Ruled out only at a size it cannot beat; with the file
                // encodings on, never.)
                let expected = round % 2 == 1 || beat > size;
                assert_eq!(kept.is_some(), expected, "round {round}, beat {beat}, size {size}");
            }
        }
    }

    #[test]
    fn prefixes_measured_first_leave_the_choice_as_it_was() {
        // Sorted values, each a few times in a row (dates, times, ids):
        // shared prefixes are measured first and stop the dictionary where
        // its bytes pass theirs, or the dictionary wins (few distinct
        // values); and columns where the first values say otherwise.
        let mut next = crate::columnar::lcg(41, 20);
        for round in 0..120 {
            let n = [257, 300, 700, 2000, 5000, 10_000][round % 6];
            let mut values: Vec<Vec<u8>> = Vec::with_capacity(n);
            let mut day = 0u64;
            while values.len() < n {
                let v = match round % 4 {
                    0 => format!("1990-{:02}-{:02}", 1 + day / 28 % 12, 1 + day % 28),
                    1 => format!("item/{:07}", day * 13),
                    2 => format!("{:x}", (day * 2_654_435_761) % 1_000_003),
                    _ => format!("k{}", day % (1 + round as u64 * 5)),
                };
                for _ in 0..1 + next() % [1, 2, 4, 9][round / 4 % 4] {
                    values.push(v.clone().into_bytes());
                }
                day += 1 + next() % 2;
            }
            values.truncate(n);
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            writes_the_reference(&slices, &format!("round {round}"));
        }
    }

    #[test]
    fn a_sample_rules_out_only_columns_a_dictionary_gives_up() {
        let mut next = crate::columnar::lcg(47, 20);
        for n in [200, 500, 725, 726, 840, 1000, 1500, 3376, 5000, 8192, 8193, 20_000] {
            // (Where the draws are at most a third of the column, and not
            // past 8,192 values.)
            let sampled = (726..=8192).contains(&n);
            // Nearly all distinct (a repeat in 500 values, or in 50 as the
            // names of airports: about three in a hundred): ruled out where
            // sampled.
            for every in [500, 50] {
                let keys: Vec<u64> = (0..n as u64).map(|i| if i % every == 7 { i - 1 } else { i }).collect();
                let values: Vec<Vec<u8>> = keys.iter().map(|k| format!("{k:x}").into_bytes()).collect();
                let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
                assert_eq!(sampled_distinct(&slices[..]), sampled, "{n} distinct, a repeat in {every}");
                // (and of 8 bytes or more, hashed as the dictionary's long values)
                let long: Vec<Vec<u8>> = keys.iter().map(|k| format!("long/{k:x}").into_bytes()).collect();
                let slices: Vec<&[u8]> = long.iter().map(Vec::as_slice).collect();
                assert_eq!(sampled_distinct(&slices[..]), sampled, "{n} distinct, long, a repeat in {every}");
            }
            // As many distinct values as a dictionary may hold (`n / 2 +
            // 16`: pairs and a few alone, the fewest repeats there can be),
            // in a row, spread or shuffled: never ruled out.
            for order in 0..3 {
                let (n64, m) = (n as u64, (n as u64 - 32) / 2);
                let mut keys: Vec<u64> = (0..n64)
                    .map(|i| match (i + 32 >= n64, order) {
                        (true, _) => n64 + i,
                        (_, 0) => (i / 2).min(m - 1),
                        _ => i % m,
                    })
                    .collect();
                if order == 2 {
                    for i in (1..n).rev() {
                        keys.swap(i, (next() % (i as u64 + 1)) as usize);
                    }
                }
                let distinct: std::collections::HashSet<u64> = keys.iter().copied().collect();
                assert!(distinct.len() <= n / 2 + 16, "{n}, order {order}");
                let values: Vec<Vec<u8>> = keys.iter().map(|k| format!("v{k}").into_bytes()).collect();
                let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
                assert!(!sampled_distinct(&slices[..]), "{n}, order {order}");
                let (text, ends) = joined(&slices);
                assert!(!sampled_distinct(Joined { text: &text, ends: &ends }), "{n}, order {order}");
            }
        }
    }

    #[test]
    fn the_rests_go_on_from_where_they_stopped() {
        let mut next = crate::columnar::lcg(43, 20);
        for round in 0..60 {
            let n = [1, 2, 300, 1500][round % 4];
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| format!("row/{:05}/{}", i * 3 + (next() % 3) as usize, next() % 7).into_bytes())
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let (text, ends) = joined(&slices);
            let whole = Joined { text: &text, ends: &ends };
            let (mut s1, mut r1) = (Vec::new(), Vec::new());
            let at_once = Prefix::rest(whole, &mut s1, &mut r1, usize::MAX);
            for first in [0, 1, n / 2, n] {
                let (mut s2, mut r2) = (Vec::new(), Vec::new());
                Prefix::rest(whole.first(first), &mut s2, &mut r2, usize::MAX);
                assert_eq!(Prefix::rest(whole, &mut s2, &mut r2, usize::MAX), at_once, "round {round}");
                assert_eq!((&s2, &r2), (&s1, &r1), "round {round}, from {first}");
                // (and a limit the first values' rests already reach)
                let (mut s3, mut r3) = (Vec::new(), Vec::new());
                let first_rest = Prefix::rest(&slices[..first], &mut s3, &mut r3, usize::MAX).unwrap();
                if first_rest > 0 {
                    assert_eq!(Prefix::rest(&slices[..], &mut s3, &mut r3, first_rest), None, "round {round}");
                }
            }
        }
    }

    /// Checks that `values` are written as [`encode_reference`] writes
    /// them, as a list and held joined (`what` names the case).
    fn writes_the_reference(values: &[&[u8]], what: &str) {
        let body = encode(values);
        assert_eq!(body, encode_reference(values), "{what}");
        let (text, ends) = joined(values);
        assert_eq!(encode_joined(&text, &ends), body, "{what}");
    }

    /// Columns of at most one block of the rests' bound, on either side of
    /// where it is taken first (a dictionary of fewer bytes than the
    /// column's runs, not in long runs) or left to the exact rests: few
    /// values of lengths that vary (the bound rules shared prefixes out),
    /// or of one length (it does not), numbers held as strings (about half
    /// of them distinct: a dictionary as large as plain), values mostly
    /// distinct (none whole), sorted (shared prefixes win), in long runs:
    /// each writes what the full writer does, and each encoding wins some.
    #[test]
    fn small_columns_bounded_or_not_write_the_reference() {
        let mut next = crate::columnar::lcg(43, 20);
        let statuses = ["active", "inactive", "pending", "on hold", "closed", "archived for good"];
        let mut won = [0usize; 3];
        for round in 0..420 {
            let n = 1 + (next() % 256) as usize;
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| match round % 7 {
                    0 => statuses[(next() % 3) as usize].as_bytes().to_vec(),
                    1 => statuses[(next() % statuses.len() as u64) as usize].as_bytes().to_vec(),
                    2 => ["open", "done", "wait"][(next() % 3) as usize].as_bytes().to_vec(),
                    3 => format!("{}", (next() % (n as u64 / 2 + 1)) as i64 * 1000 - 566_000).into_bytes(),
                    4 => format!("user-{}-{}", next() % 100_000, i).into_bytes(),
                    5 => format!("2019-{:02}-{:02}", 1 + i / 28 % 12, 1 + i % 28).into_bytes(),
                    _ => statuses[i * 5 / n].as_bytes().to_vec(),
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            writes_the_reference(&slices, &format!("round {round}"));
            let e = encode(&slices)[0];
            won[[E::PlainStrings.byte(), E::Dictionary.byte(), E::Prefix.byte()]
                .iter()
                .position(|&b| b == e)
                .unwrap()] += 1;
        }
        assert!(won.iter().all(|&w| w > 0), "{won:?}");
    }

    /// `rests_under`, which stops summing once the bound reaches the limit
    /// or once the values left cannot make it reach it, answers as the whole
    /// column's bound does, at every limit around it and around the
    /// column's bytes (columns of one block, of several and a part, of
    /// lengths that grow and fall, or that grow at the end: the last block
    /// decides), for values listed and held joined.
    #[test]
    fn the_rests_bound_stopped_early_is_the_whole_ones() {
        let mut next = crate::columnar::lcg(37, 16);
        for round in 0..600 {
            let n = [0, 1, 2, 255, 256, 257, 700, 1500][round % 8];
            let spread = [1, 3, 9, 40][round % 4];
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| match round % 3 {
                    // Lengths that grow by one each value in the last block:
                    // the bound gains all its bytes there.
                    2 if i + 256 >= n => vec![b'x'; i + 256 - n + 1],
                    2 => Vec::new(),
                    _ => vec![b'x'; (next() % spread) as usize],
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let (text, ends) = joined(&slices);
            let bytes = text.len();
            let whole: usize =
                slices.iter().scan(0, |prev, v| Some(v.len().saturating_sub(std::mem::replace(prev, v.len())))).sum();
            let limits = [0, 1, whole / 3, whole / 2, whole.saturating_sub(1), whole, whole + 1, usize::MAX];
            let near_bytes = [bytes.saturating_sub(2), bytes.saturating_sub(1), bytes, bytes + 1, bytes + 2];
            for limit in limits.into_iter().chain(near_bytes) {
                let what = format!("round {round}, limit {limit}");
                assert_eq!(rests_under(&slices[..], limit, bytes), whole < limit, "{what}");
                assert_eq!(rests_under(Joined { text: &text, ends: &ends }, limit, bytes), whole < limit, "{what}");
            }
        }
    }

    /// The bytes of values held joined from one index to another are
    /// their lengths' sum, as for values listed.
    #[test]
    fn bytes_of_a_range_are_the_lengths_sum() {
        let values: [&[u8]; 6] = [b"", b"abc", b"", b"de", b"f\xc3\xa9ghijkl", b""];
        let (text, ends) = joined(&values);
        let held = Joined { text: &text, ends: &ends };
        for from in 0..=values.len() {
            for to in from..=values.len() {
                let sum: usize = values[from..to].iter().map(|v| v.len()).sum();
                assert_eq!(held.bytes_range(from, to), sum, "{from}..{to}");
                assert_eq!((&values[..]).bytes_range(from, to), sum, "{from}..{to}");
            }
        }
    }

    /// The values' bytes one after the other and where each ends.
    fn joined(values: &[&[u8]]) -> (Vec<u8>, Vec<usize>) {
        let text = values.concat();
        let ends = values.iter().scan(0, |end, v| Some(*end + v.len()).inspect(|&e| *end = e)).collect();
        (text, ends)
    }

    #[test]
    fn the_common_prefix_is_the_bytes_compared_one_by_one() {
        let text = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let mut next = crate::columnar::lcg(7, 20);
        for _ in 0..20_000 {
            let (la, lb) = ((next() % 30) as usize, (next() % 30) as usize);
            let a = &text[..la];
            // `b` shares some of `a` and then differs in one byte, or not.
            let mut b = text[..lb].to_vec();
            if lb > 0 && next() % 3 > 0 {
                let at = (next() as usize) % lb;
                b[at] ^= 1 << (next() % 8);
            }
            let slow = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            assert_eq!(common_prefix(a, &b), slow, "{a:?} {b:?}");
            assert_eq!(common_prefix(&b, a), slow, "{b:?} {a:?}");
        }
    }

    #[test]
    fn a_short_value_is_the_word_it_was() {
        let bytes = b"abcdefg\0\xff\x80";
        for start in 0..bytes.len() {
            for len in 0..(bytes.len() - start).min(8) {
                let v = &bytes[start..start + len];
                let folded =
                    v.iter().enumerate().fold((v.len() as u64) << 56, |w, (i, &b)| w | u64::from(b) << (8 * i));
                assert_eq!(short_key(short_bytes(v), len), folded, "{v:?}");
                // Read from the text (its 8 bytes from the value's start,
                // where there are 8, with bytes of other values past it).
                if let Some(w) = bytes.get(start..start + 8) {
                    assert_eq!(short_key(u64::from_le_bytes(w.try_into().unwrap()), len), folded, "{v:?}");
                }
            }
        }
    }

    #[test]
    fn the_rests_stop_at_their_limit_and_are_whole_below_it() {
        let mut next = crate::columnar::lcg(23, 20);
        for round in 0..300 {
            // Sorted-ish values (long shared prefixes) or random ones, over
            // several blocks of the pass or within one.
            let n = [0, 1, 2, 9, 511, 512, 513, 1500, 4000][round % 9];
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| match round % 3 {
                    0 => format!("item/{:06}", i * 3 + (next() % 3) as usize).into_bytes(),
                    1 => (0..next() % 14).map(|_| b'a' + (next() % 2) as u8).collect(),
                    _ => vec![b'x'; (next() % 20) as usize],
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            // Each value's shared prefix and rest, compared byte by byte.
            let mut prev: &[u8] = &[];
            let (shared, rests): (Vec<u64>, Vec<u64>) = slices
                .iter()
                .map(|&v| {
                    let p = std::mem::replace(&mut prev, v).iter().zip(v).take_while(|(a, b)| a == b).count();
                    (p as u64, (v.len() - p) as u64)
                })
                .unzip();
            let whole = rests.iter().sum::<u64>() as usize;
            let (text, ends) = joined(&slices);
            for limit in [0, 1, whole / 3, whole, whole + 1, usize::MAX] {
                let (mut s1, mut r1, mut s2, mut r2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                let got = Prefix::rest(&slices[..], &mut s1, &mut r1, limit);
                assert_eq!(got, Prefix::rest(Joined { text: &text, ends: &ends }, &mut s2, &mut r2, limit));
                if whole < limit {
                    assert_eq!(got, Some(whole), "round {round}, limit {limit}");
                    assert_eq!((&s1, &r1), (&shared, &rests), "round {round}");
                    assert_eq!((&s2, &r2), (&shared, &rests), "round {round}");
                } else {
                    assert_eq!(got, None, "round {round}, limit {limit}");
                }
            }
        }
    }

    /// The dictionary of `slices`, held as a list and joined, is the
    /// reference's; gives the joined text, its ends and the dictionary.
    #[allow(clippy::type_complexity)]
    fn dictionary_is_the_reference<'a>(
        slices: &'a [&'a [u8]],
        round: usize,
    ) -> (Vec<u8>, Vec<usize>, Option<(Vec<&'a [u8]>, Vec<u64>)>) {
        let general = distinct_of(slices);
        assert_eq!(general, distinct_reference(slices), "round {round}");
        let (text, ends) = joined(slices);
        assert_eq!(distinct_joined(&text, &ends), general, "round {round}");
        (text, ends, general)
    }

    /// The dictionary by a `HashMap`, giving up where the writer does.
    fn distinct_reference<'a>(values: &[&'a [u8]]) -> Option<(Vec<&'a [u8]>, Vec<u64>)> {
        let n = values.len();
        let (mut index, mut distinct, mut ids) = (HashMap::new(), Vec::new(), Vec::new());
        for &v in values {
            ids.push(*index.entry(v).or_insert_with(|| {
                distinct.push(v);
                distinct.len() as u64 - 1
            }));
            if distinct.len() > n / 2 + 16 || crate::columnar::mostly_distinct(ids.len(), distinct.len(), n) {
                return None;
            }
        }
        Some((distinct, ids))
    }

    /// Long values that share their length and their first and last words
    /// (so [`recent_slot`]'s slot) and differ between them, or share a
    /// slot by chance among many, repeating in any order: each takes its
    /// own index, not the one a value sharing its slot left there.
    #[test]
    fn long_values_sharing_a_recent_slot_keep_their_indices() {
        let mut next = crate::columnar::lcg(23, 20);
        for round in 0..200 {
            let n = [40, 300, 3000][round % 3];
            let kinds = 1 + next() % [4, 40, 600][round % 3];
            let values: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let k = next() % kinds;
                    match round % 2 {
                        // "AAAAAAAA" k "ZZZZZZZZ", of one length.
                        0 => [&b"AAAAAAAA"[..], format!("{k:04}").as_bytes(), b"ZZZZZZZZ"].concat(),
                        // Of lengths 8 to 40.
                        _ => (0..8 + k % 33).map(|i| (k >> (i % 9)) as u8 ^ i as u8).collect(),
                    }
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            dictionary_is_the_reference(&slices, round);
        }
        // The first kind's values do share a slot.
        let (a, b) = (b"AAAAAAAA0001ZZZZZZZZ", b"AAAAAAAA0002ZZZZZZZZ");
        assert_eq!(recent_slot(a), recent_slot(b));
    }

    /// Whether the tables the thread keeps for the next dictionary are
    /// all free (none kept counts as free).
    fn kept_tables_are_free() -> bool {
        TABLES.with(|t| {
            let tables = t.take();
            let free = tables.as_ref().is_none_or(|k| {
                k.short.0.iter().all(|s| s.0 == crate::columnar::FREE) && k.long.0.iter().all(|s| s.1 == u64::MAX)
            });
            t.set(tables);
            free
        })
    }

    /// Whether the lists the thread keeps for the next column are all
    /// empty (none kept counts as empty).
    fn kept_lists_are_empty() -> bool {
        LISTS.with(|l| {
            let lists = l.take();
            let empty = lists.as_ref().is_none_or(|k| {
                k.distinct.is_empty()
                    && k.ids.is_empty()
                    && k.dict_lens.is_empty()
                    && k.lens.is_empty()
                    && k.shared.is_empty()
                    && k.rest_lens.is_empty()
            });
            l.set(lists);
            empty
        })
    }

    /// The room of the lists a column filled, kept for the next column
    /// in the thread: a dictionary's whether it is whole or gives up, the
    /// shared prefixes' and plain's; not past `KEPT_BYTES`.
    #[test]
    fn a_column_leaves_its_lists_room_to_the_next() {
        let room = || {
            LISTS.with(|l| {
                let lists = l.take().unwrap_or_default();
                let room = [
                    lists.distinct.capacity(),
                    lists.ids.capacity(),
                    lists.dict_lens.capacity(),
                    lists.lens.capacity(),
                    lists.shared.capacity(),
                    lists.rest_lens.capacity(),
                ];
                l.set(Some(lists));
                room
            })
        };
        let texts = |n: usize, spread: usize| -> Vec<Vec<u8>> {
            (0..n).map(|i| format!("value {}", (i * 7919) % spread).into_bytes()).collect()
        };
        // (A dictionary that is whole, then one that gives up, then one too
        // large to keep, then the first again.)
        for (n, spread, kept) in [(300, 20, true), (300, 300, true), (9000, 20, false), (300, 20, true)] {
            let values = texts(n, spread);
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let _ = encode(&slices);
            assert!(kept_lists_are_empty(), "{n} values of {spread}");
            let [distinct, ids, dict_lens, lens, shared, rest_lens] = room();
            assert_eq!(ids >= n, kept, "{n} values of {spread}: {ids}");
            assert!(8 * ids <= KEPT_BYTES && 16 * distinct <= KEPT_BYTES, "{n} values of {spread}");
            if kept {
                // (Its distinct values, and a list of each value's shared
                // prefix, were made.)
                assert!(distinct >= spread.min(n / 2), "{n} values of {spread}: {distinct}");
                assert!(shared >= n && rest_lens >= n, "{n} values of {spread}");
            }
            assert!(
                [dict_lens, lens, shared, rest_lens].iter().all(|&r| 8 * r <= KEPT_BYTES),
                "{n} values of {spread}"
            );
        }
    }

    /// Columns one after the other in a thread (the dictionary's tables
    /// kept from one to the next): a column holding an earlier one's values
    /// in another order, with other indices; columns of very different
    /// sizes (a small one after a large one whose tables grew, and the
    /// other way round); one whose dictionary gives up half way: each
    /// column's dictionary and bytes are those it has alone, and every
    /// slot is free again after each.
    #[test]
    fn columns_after_others_keep_nothing_of_them() {
        let mut next = crate::columnar::lcg(41, 20);
        let word = |k: u64, len: usize| -> Vec<u8> { (0..len).map(|i| (k >> (8 * (i % 8))) as u8 ^ i as u8).collect() };
        // Short and long values of keys below `spread`, a few of them long.
        let mut column = |n: usize, spread: u64| -> Vec<Vec<u8>> {
            (0..n)
                .map(|_| {
                    let k = next() % spread;
                    word(k, [3, 5, 7, 8, 12, 30][(k % 6) as usize])
                })
                .collect()
        };
        let a = column(300, 40);
        // `a`'s values, the other way round: the same values, new indices.
        let b: Vec<Vec<u8>> = a.iter().rev().cloned().collect();
        let large = column(9000, 3000);
        let small = column(5, 3);
        // Distinct for its first values, then repeats: the dictionary gives
        // up on it (mostly distinct) or not, by where it stops.
        let mixed: Vec<Vec<u8>> = (0..400u64).map(|i| word(if i < 250 { 1000 + i } else { i % 7 }, 9)).collect();
        let orders: [&[&Vec<Vec<u8>>]; 4] = [
            &[&a, &b, &large, &small, &a],
            &[&small, &large, &b, &a, &mixed, &small],
            &[&large, &small, &large, &mixed, &b],
            &[&mixed, &a, &mixed, &large, &a],
        ];
        for (o, order) in orders.iter().enumerate() {
            for (c, col) in order.iter().enumerate() {
                let slices: Vec<&[u8]> = col.iter().map(Vec::as_slice).collect();
                assert_eq!(distinct_of(&slices[..]), distinct_reference(&slices), "order {o}, column {c}");
                assert!(kept_tables_are_free(), "order {o}, column {c}");
                writes_the_reference(&slices, &format!("order {o}, column {c}"));
                assert!(kept_tables_are_free(), "order {o}, column {c}");
                assert!(kept_lists_are_empty(), "order {o}, column {c}");
            }
        }
    }

    #[test]
    fn the_joined_dictionary_is_the_general_ones() {
        let mut next = crate::columnar::lcg(17, 20);
        for round in 0..400 {
            let n = [0, 1, 2, 7, 60, 500, 9000][round % 7];
            let spread = 1 + next() % [3, 50, 5000][round % 3];
            // Values of every length around 8 (short ones at the text's end
            // too), repeating or mostly distinct, a byte apart.
            // In some rounds each value likely repeats one of the last two
            // (runs, and short and long values between each other's repeats).
            let sticky = round % 5 < 2;
            let mut keys: Vec<u64> = Vec::with_capacity(n);
            for i in 0..n {
                let k = match next() % 4 {
                    r @ (0 | 1) if sticky && i > r as usize => keys[i - 1 - r as usize],
                    _ => next() % spread,
                };
                keys.push(k);
            }
            // In some rounds every value is short (long runs of short
            // values found, over several of `take_short`'s blocks), in
            // some a long one comes now and then among them.
            let width = [13, 8, 13, 8, 13][round % 5];
            let values: Vec<Vec<u8>> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| {
                    let len = if round % 10 == 3 && i % 37 == 5 { 9 + (k % 3) as usize } else { (k % width) as usize };
                    (0..len).map(|i| (k >> (i % 8)) as u8 & 3).collect()
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let (text, ends, general) = dictionary_is_the_reference(&slices, round);
            let past = [&text[..], b"\xff\xff\xff"].concat();
            assert_eq!(distinct_joined(&past, &ends), general, "round {round}");
        }
    }

    #[test]
    fn short_values_in_runs_or_not_take_their_first_index() {
        // Runs of a few short values, then values that change at nearly
        // every step, then runs again, over several of `take_short`'s
        // blocks (`WordIds::take` gives a value equal to the one before
        // its index unhashed).
        let mut next = crate::columnar::lcg(31, 20);
        for round in 0..40 {
            let values: Vec<Vec<u8>> = (0..3000)
                .map(|i| {
                    let k = match (i / (300 + round * 37)) % 3 {
                        0 => (i / 50) % 7,
                        1 => next() as usize % 40,
                        _ => (i / 3) % 5,
                    };
                    format!("v{k}").into_bytes()
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let (text, ends) = joined(&slices);
            let got = distinct_joined(&text, &ends);
            assert!(got.is_some(), "round {round}");
            assert_eq!(got, distinct_of(&slices[..]), "round {round}");
            assert_eq!(got, distinct_reference(&slices), "round {round}");
        }
    }

    /// [`distinct_reference`] that also gives up where its distinct
    /// values' bytes pass `most`.
    fn distinct_reference_most<'a>(values: &[&'a [u8]], most: usize) -> Option<(Vec<&'a [u8]>, Vec<u64>)> {
        let n = values.len();
        let (mut index, mut distinct, mut ids, mut bytes) = (HashMap::new(), Vec::new(), Vec::new(), 0);
        for &v in values {
            let next = distinct.len() as u64;
            let id = *index.entry(v).or_insert(next);
            ids.push(id);
            if id == next {
                distinct.push(v);
                bytes += v.len();
                if distinct.len() > n / 2 + 16
                    || bytes > most
                    || crate::columnar::mostly_distinct(ids.len(), distinct.len(), n)
                {
                    return None;
                }
            }
        }
        Some((distinct, ids))
    }

    #[test]
    fn new_short_values_among_repeats_are_added_where_they_come() {
        // The wide tables' shape: a value repeated ("0") with new short
        // values every few values, now and then a long one, in columns
        // that keep their dictionary or give it up (past half the column,
        // past 3,072 distinct among the first 4,096 of a long column, or
        // past a bound on its bytes reached inside a block of short values).
        let mut next = crate::columnar::lcg(53, 20);
        for round in 0..240 {
            let n = [0, 1, 3, 17, 240, 300, 2000, 9000, 12_000][round % 9];
            let zeros = [10, 30, 70, 90][round / 9 % 4];
            let spread = [10, 1000, 1 << 30][round % 3];
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| match next() % 100 {
                    r if r < zeros => b"0".to_vec(),
                    r if round % 2 == 1 && r == 99 => format!("a longer value {}", i % 7).into_bytes(),
                    _ => format!("{}", next() % spread).into_bytes(),
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let (text, ends) = joined(&slices);
            let whole_bytes: usize = slices.iter().map(|v| v.len()).sum();
            for most in [usize::MAX, 0, 5, whole_bytes / 7, whole_bytes / 2] {
                let expected = distinct_reference_most(&slices, most);
                let mut list = Distinct::new(n);
                let got = list.run(&slices[..], most).then(|| list.lists());
                assert_eq!(got, expected, "round {round}, most {most}");
                let mut text_too = Distinct::new(n);
                let got = text_too.run(Joined { text: &text, ends: &ends }, most).then(|| text_too.lists());
                assert_eq!(got, expected, "round {round}, most {most}, joined");
                // Taken in two runs, the first over the column's first values.
                let mut two = Distinct::new(n);
                let whole = Joined { text: &text, ends: &ends };
                let got = (two.run(whole.first(n.min(PROBE)), most) && two.run(whole, most)).then(|| two.lists());
                assert_eq!(got, expected, "round {round}, most {most}, in two runs");
            }
        }
    }

    /// Short columns whose share of new values changes along the column
    /// (few new, then one in two or three, then few again: `Distinct::run`
    /// switches between `find_short` and `take_short` as the share crosses
    /// one in `NEW_OFTEN`), some with long values among them: the same
    /// dictionary as the reference, or the same give-up.
    #[test]
    fn a_column_switching_loops_keeps_its_indices() {
        let mut next = crate::columnar::lcg(71, 20);
        for round in 0..300 {
            let n = 1 + (next() % 600) as usize;
            let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
            let (a, b) = (a.min(b), a.max(b));
            let values: Vec<Vec<u8>> = (0..n)
                .map(|i| {
                    let often = (a..b).contains(&i);
                    match next() % 12 {
                        0 if round % 3 == 0 => format!("longer value {}", next() % 40).into_bytes(),
                        r if often && r < 6 => format!("{}", next() % 100_000).into_bytes(),
                        r if !often && r == 1 => format!("{}", next() % 100_000).into_bytes(),
                        r => format!("{}", r % 3).into_bytes(),
                    }
                })
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            let (text, ends) = joined(&slices);
            let expected = distinct_reference(&slices);
            assert_eq!(distinct_of(&slices[..]), expected, "round {round}");
            assert_eq!(distinct_joined(&text, &ends), expected, "round {round}, joined");
            let whole_bytes: usize = slices.iter().map(|v| v.len()).sum();
            let most = whole_bytes / 3;
            let mut d = Distinct::new(n);
            let got = d.run(Joined { text: &text, ends: &ends }, most).then(|| d.lists());
            assert_eq!(got, distinct_reference_most(&slices, most), "round {round}, most {most}");
        }
    }

    #[test]
    fn a_long_column_gives_up_its_dictionary_where_it_did() {
        // 3,072 and 3,073 distinct values among the first 4,096 of 9,000:
        // the first keeps its dictionary, the second gives it up (now at
        // its 3,073rd value, before at its 4,096th) with the same bytes.
        // (Long values, and short ones.)
        for (k, width) in [3072usize, 3073, 3500].into_iter().flat_map(|k| [(k, 12), (k, 7)]) {
            let values: Vec<Vec<u8>> = (0..9000)
                .map(|i| format!("key-{:08}", (i % k) * 7919 % 100_003).as_bytes()[12 - width..].to_vec())
                .collect();
            let slices: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
            assert_eq!(encode(&slices), encode_reference(&slices), "{k} distinct");
            assert_eq!(dictionary(&slices[..]).is_some(), k == 3072, "{k} distinct");
            let (text, ends) = joined(&slices);
            assert_eq!(dictionary(Joined { text: &text, ends: &ends }).is_some(), k == 3072, "{k} distinct");
        }
    }

    #[test]
    fn each_encoding_wins_where_it_should() {
        let repeated: Vec<&str> = (0..500).map(|i| ["Point", "Feature", "earthquake"][i % 3]).collect();
        assert_eq!(round_trip(&repeated), E::Dictionary.byte());
        let urls: Vec<String> =
            (0..300).map(|i| format!("https://earthquake.usgs.gov/eventpage/ci{}", 37_000_000 + i)).collect();
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        assert_eq!(round_trip(&urls), E::Prefix.byte());
        assert_eq!(round_trip(&["a", "xyz", "é"]), E::PlainStrings.byte());
        round_trip(&[]);
        round_trip(&["", "", "a", ""]);
    }

    #[test]
    fn every_encoding_decodes_joined() {
        let titles: Vec<String> =
            (0..400).map(|i| format!("The {} of Station {}", ["Return", "Night"][i % 2], i)).collect();
        let columns: Vec<Vec<&[u8]>> = vec![
            vec![b"a", b"xyz", "é".as_bytes()],
            (0..300).map(|i| [&b"Point"[..], b"Feature", b""][i % 3]).collect(),
            titles.iter().map(|s| s.as_bytes()).collect(),
        ];
        let mut seen = Vec::new();
        for values in &columns {
            let _file = super::super::entropy::Enabled::new();
            let (text, ends) = joined(values);
            assert_eq!(candidates_joined(&text, &ends), candidates(values));
            for body in candidates(values) {
                seen.push(body[0]);
                let mut c = Cursor::new(&body, 0).in_file();
                let (bytes, offsets) = decode_joined(&mut c, values.len() as u64, &mut Budget::new(1 << 20)).unwrap();
                assert!(c.at_end());
                assert_eq!(bytes, values.concat());
                let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
                assert_eq!(lens, values.iter().map(|v| v.len()).collect::<Vec<_>>());
            }
        }
        for e in [E::PlainStrings, E::Dictionary, E::Prefix, E::Fsst] {
            assert!(seen.contains(&e.byte()), "{e} not tried: {seen:?}");
        }
    }

    #[test]
    fn hostile_columns_fail_cleanly() {
        // PREFIX claiming to share 5 bytes with nothing.
        let shared = ints::encode(&[5u128]);
        let rest = ints::encode(&[0u128]);
        let mut bytes = vec![E::Prefix.byte()];
        put_block(&mut bytes, &shared);
        put_block(&mut bytes, &rest);
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::InvalidColumn);
        // DICT index past the dictionary.
        let mut bytes = vec![E::Dictionary.byte(), 1];
        put_block(&mut bytes, &ints::encode(&[1u128]));
        put_block(&mut bytes, b"a");
        bytes.extend_from_slice(&ints::encode(&[3u128]));
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::InvalidColumn);
        // PLAIN lengths past the column.
        let mut bytes = vec![E::PlainStrings.byte()];
        put_block(&mut bytes, &ints::encode(&[1u128 << 40]));
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::Truncated);
        // A dictionary of one long value, referenced a million times.
        let long = vec![b'x'; 1000];
        let ids = vec![0u128; 1_000_000];
        let mut bytes = vec![E::Dictionary.byte(), 1];
        put_block(&mut bytes, &ints::encode(&[1000u128]));
        put_block(&mut bytes, &long);
        bytes.extend_from_slice(&ints::encode(&ids));
        assert!(bytes.len() < 1100);
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1_000_000, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::TooLarge);
    }
}
