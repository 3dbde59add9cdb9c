//! One key's values as `gather` reads them: [`RawColumn`], each record's
//! kind of value (`K_*`) and the values of each kind in their own buffers,
//! and what inference learns of them (the kinds met, the bits of the ints).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyLong, PyString};
use pyo3::Borrowed;

use xbf::infer::Ints;

use crate::infer::Shape;
use crate::learned::ColumnKinds;
use crate::pyobj::compact_ascii;
use crate::raw::{append_short, long_value, small_int, str_bytes, Long, StrEntries};

/// The kind of each value of a key of the records, as it was read: the
/// type is known only once every record was read (an int column may turn
/// out an option, or `any`).
pub(crate) const K_NULL: u8 = 0;
pub(crate) const K_BOOL: u8 = 1;
pub(crate) const K_INT: u8 = 2;
/// An int above `i64::MAX` (kept in `ints` as its bits).
pub(crate) const K_UINT: u8 = 3;
pub(crate) const K_FLOAT: u8 = 4;
pub(crate) const K_STR: u8 = 5;
/// The record lacks the key.
pub(crate) const K_ABSENT: u8 = 6;

/// No kind yet: every value takes [`RawColumn::push_slow`].
const K_NONE_YET: u8 = 7;

/// The values of one key of the records: each record's kind (absent
/// included), and the values of each kind in order.
///
/// While every record so far has the key with values of one kind (the usual
/// column), the kinds are not written per value: `kinds` stays empty and
/// `kind` is that kind; `finish` writes them out. Once the kinds mix (or a
/// record lacks the key), `mixed` is set and `kinds` holds one per record.
/// `kind` is then the kind [`RawColumn::push`] tries first (the last kind
/// met other than None and ints above `i64::MAX`).
pub(crate) struct RawColumn {
    pub(crate) kinds: Vec<u8>,
    pub(crate) seen: [bool; 6],
    pub(crate) bools: Vec<bool>,
    /// Ints as the bits of an i64 (those above `i64::MAX` as their u64 bits).
    pub(crate) ints: Vec<u64>,
    /// The bits of the ints (set by `finish`).
    pub(crate) int_bits: Option<Ints>,
    pub(crate) floats: Vec<f64>,
    /// The strings one after the other, and where each ends: private to
    /// this module, whose writes keep them valid (the text UTF-8, the ends
    /// increasing on its character boundaries, the last at most its length)
    /// for [`RawColumn::take_strings`]' unchecked hand-off; read them with
    /// [`RawColumn::text`] and [`RawColumn::ends`].
    text: Vec<u8>,
    ends: Vec<usize>,
    /// Whether some record lacks the key.
    pub(crate) absent: bool,
    /// Records read: the index of the next record.
    len: usize,
    /// Whether `kinds` holds each record's kind (else read them with
    /// [`RawColumn::kinds`]).
    pub(super) mixed: bool,
    /// The kind of every value so far (not `mixed`), or the kind tried first.
    kind: u8,
}

impl Default for RawColumn {
    fn default() -> Self {
        Self {
            kinds: Vec::new(),
            seen: [false; 6],
            bools: Vec::new(),
            ints: Vec::new(),
            int_bits: None,
            floats: Vec::new(),
            text: Vec::new(),
            ends: Vec::new(),
            absent: false,
            len: 0,
            mixed: false,
            kind: K_NONE_YET,
        }
    }
}

impl RawColumn {
    /// The shape inference gives the key: the kinds joined as `Shape::absorb`
    /// joins them one value at a time (their join does not depend on order).
    pub(crate) fn shape<'py>(&self) -> Shape<'py> {
        // One kind or none (most columns): its shape, as the join of it
        // alone with `Never` gives, without the join's shapes made and
        // dropped for each kind (on a wide record's set-up, a few hundred
        // instructions a column).
        let (null, bool, float, str) = (
            self.seen[K_NULL as usize],
            self.seen[K_BOOL as usize],
            self.seen[K_FLOAT as usize],
            self.seen[K_STR as usize],
        );
        if null as u8 + bool as u8 + self.int_bits.is_some() as u8 + float as u8 + str as u8 <= 1 {
            return match self.int_bits {
                Some(bits) => Shape::Int(bits),
                None if null => Shape::Null,
                None if bool => Shape::Bool,
                None if float => Shape::Float,
                None if str => Shape::Str,
                None => Shape::Never,
            };
        }
        let mut s = Shape::Never;
        let kinds = [
            self.seen[K_NULL as usize].then_some(Shape::Null),
            self.seen[K_BOOL as usize].then_some(Shape::Bool),
            self.int_bits.map(Shape::Int),
            self.seen[K_FLOAT as usize].then_some(Shape::Float),
            self.seen[K_STR as usize].then_some(Shape::Str),
        ];
        for k in kinds.into_iter().flatten() {
            s = s.join(k);
        }
        s
    }

    /// What inference learns of the column: the kinds met and the bits of
    /// its ints (its shape, given whether some record lacks the key).
    pub(crate) fn kinds_met(&self) -> ColumnKinds {
        ColumnKinds { seen: self.seen, int_bits: self.int_bits, absent: self.absent }
    }

    /// Empty again, keeping the capacity of its buffers (an `xbf.Encoder`
    /// reuses them on its next call).
    pub(crate) fn clear(&mut self) {
        self.kinds.clear();
        self.seen = [false; 6];
        self.bools.clear();
        self.ints.clear();
        self.int_bits = None;
        self.floats.clear();
        self.text.clear();
        self.ends.clear();
        self.absent = false;
        self.len = 0;
        self.mixed = false;
        self.kind = K_NONE_YET;
    }

    /// The strings one after the other (UTF-8).
    pub(crate) fn text(&self) -> &[u8] {
        &self.text
    }

    /// Where each string of [`RawColumn::text`] ends.
    pub(crate) fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// Moves the strings into `node` (a string node) without the core's
    /// check of the text and the ends (`take_utf8` read all of it again:
    /// its UTF-8 and its ends), which this module wrote valid.
    pub(crate) fn take_strings(&mut self, node: &mut xbf::ColumnNode) -> xbf::Result<()> {
        let (text, ends) = (std::mem::take(&mut self.text), std::mem::take(&mut self.ends));
        // SAFETY: `text` and `ends` are written only in this module (private
        // fields), each write keeping them valid: a string is appended whole
        // (`append_str`, `str_run`) from `str_bytes` (CPython's UTF-8 of an
        // exact str, which it makes only for a str without lone surrogates)
        // or from a compact-ASCII str's characters (`compact_ascii`), its end
        // pushed as the text's length after it (so the ends increase, each
        // on a boundary, the last the length); `reserve_text` copies the
        // text whole; `clear` empties both; `untake_strings` puts back what
        // a string node held, which the core keeps valid (the buffers moved
        // in here, or strings it checked).
        unsafe { node.take_utf8_unchecked(text, ends) }
    }

    /// Moves back the strings [`RawColumn::take_strings`] moved into
    /// `node` (with its room, for the next call).
    pub(crate) fn untake_strings(&mut self, node: &mut xbf::ColumnNode) -> xbf::Result<()> {
        (self.text, self.ends) = node.drain_joined()?;
        Ok(())
    }

    /// Bytes held by its buffers.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.kinds.capacity()
            + self.bools.capacity()
            + 8 * (self.ints.capacity() + self.floats.capacity() + self.ends.capacity())
            + self.text.capacity()
    }

    /// One kind per record from now on (`kinds` written out for the records
    /// read), with room for the kinds of all `n` records of the list at
    /// once (the runs' reservations of a batch's room grew it by doubling,
    /// a copy each time).
    fn mix(&mut self, n: usize) {
        if !self.mixed {
            self.mixed = true;
            self.kinds.clear();
            self.kinds.reserve(n.max(self.len));
            self.kinds.resize(self.len, self.kind);
        }
    }

    /// Marks the records before record `i` (of the list's `n`) that had no
    /// value of this key as lacking it.
    #[inline]
    pub(super) fn pad_to(&mut self, i: usize, n: usize) {
        if self.len < i {
            self.mix(n);
            self.absent = true;
            self.kinds.resize(i, K_ABSENT);
            self.len = i;
        }
    }

    /// The column of `n` records complete: the records after the last that
    /// had the key lack it, and the bits of the ints are known.
    pub(super) fn finish(&mut self, n: usize) {
        self.pad_to(n, n);
        self.int_bits = self.ints_bits();
    }

    /// Each record's kind (of a finished column): `kinds`, or the one kind
    /// of a column whose values all have it, written out (only the rows
    /// writer and the types `option` and `any` read them per record).
    pub(crate) fn kinds(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.mixed {
            std::borrow::Cow::Borrowed(&self.kinds)
        } else {
            std::borrow::Cow::Owned(vec![self.kind; self.len])
        }
    }

    /// The bits of the ints (`Ints::of_i64` joined over them, and 64
    /// unsigned bits for ints above `i64::MAX`), from the gathered values at
    /// once rather than per value as they are read: the largest number of
    /// bits is that of the OR of the values (of their complements for the
    /// negative ones).
    fn ints_bits(&self) -> Option<Ints> {
        let some_uint = self.seen[K_UINT as usize];
        if !self.seen[K_INT as usize] && !some_uint {
            return None;
        }
        if !some_uint {
            // Most columns have no negative int: then the OR of the values is
            // all there is to know, a pass the baseline's SSE2 vectorises
            // (the masks below are a signed 64-bit max to the compiler, which
            // SSE2 lacks and emulates with about ten instructions an int).
            let all = self.ints.iter().fold(0u64, |a, &x| a | x);
            if (all as i64) >= 0 {
                return Some(Ints { ubits: 64 - all.leading_zeros(), sbits: 0 });
            }
        }
        let (mut pos, mut neg, mut any_neg) = (0u64, 0u64, 0u64);
        let mut join = |x: u64| {
            // All ones for a negative value, else 0.
            let m = ((x as i64) >> 63) as u64;
            pos |= x & !m;
            neg |= !x & m;
            any_neg |= m;
        };
        if some_uint {
            // Only the i64s (those above `i64::MAX` are not negative).
            let ints = self.kinds.iter().filter(|&&k| k == K_INT || k == K_UINT).zip(&self.ints);
            ints.filter(|(&k, _)| k == K_INT).for_each(|(_, &x)| join(x));
        } else {
            self.ints.iter().for_each(|&x| join(x));
        }
        let bits =
            Ints { ubits: 64 - pos.leading_zeros(), sbits: if any_neg != 0 { 65 - neg.leading_zeros() } else { 0 } };
        Some(if some_uint { bits.join(Ints { ubits: 64, sbits: 0 }) } else { bits })
    }

    /// Adds record `i`'s value of this key (of `n` records); `false` for
    /// a value this path does not take. Runs no Python code (exact types
    /// only; see `gather`'s borrowed walk). The value is first taken as one
    /// of the column's kind (`kind`): one test of its type, no kind written
    /// while the column has one, the int read in place; anything else in
    /// [`RawColumn::push_slow`]. Inlined into the record loop: as a call it
    /// cost 6% more instructions on flights-20k (callgrind). `next`: the
    /// caller knows that record `i - 1` had the key (it had the same keys),
    /// so that no record before `i` lacks it.
    #[inline(always)]
    pub(super) fn push(&mut self, v: &Bound<'_, PyAny>, i: usize, n: usize, small_ints: bool, next: bool) -> bool {
        debug_assert!(!next || self.len == i, "record {i} follows one that had the key");
        if next || self.len == i {
            let pushed = self.take_as(self.kind, v);
            if pushed {
                if self.mixed {
                    self.kinds.push(self.kind);
                }
                self.len = i + 1;
                return true;
            }
            // None in a column that writes its kinds: no kind to set (None
            // is not tried first in a column of other kinds), so what
            // `push_slow` does, without its tests of the other types
            // (movies.json has thousands of nulls a call).
            if self.mixed && v.is_none() {
                self.seen[K_NULL as usize] = true;
                self.kinds.push(K_NULL);
                self.len = i + 1;
                return true;
            }
        }
        self.push_slow(v, i, n, small_ints)
    }

    /// Takes `v` as a value of kind `kind` (into that kind's buffer);
    /// `false` if it is not one this path reads in place (the kinds and the
    /// length are the caller's). Inlined with a constant `kind` into
    /// [`RawColumn::push_entries`]' loops, where the test of the kind folds.
    #[inline(always)]
    fn take_as(&mut self, kind: u8, v: &Bound<'_, PyAny>) -> bool {
        match kind {
            K_STR => match v.downcast_exact::<PyString>().ok().and_then(|s| str_bytes(s)) {
                Some(s) => {
                    self.append_str(s);
                    true
                }
                None => false,
            },
            K_INT => match v.downcast_exact::<PyLong>().ok().and_then(small_int) {
                Some(x) => {
                    self.ints.push(x as u64);
                    true
                }
                None => false,
            },
            K_FLOAT => match v.downcast_exact::<PyFloat>() {
                Ok(f) => {
                    self.floats.push(f.value());
                    true
                }
                Err(_) => false,
            },
            K_BOOL => match v.downcast_exact::<PyBool>() {
                Ok(b) => {
                    self.bools.push(b.is_true());
                    true
                }
                Err(_) => false,
            },
            K_NULL => v.is_none(),
            _ => false,
        }
    }

    /// The values of records `i`.. (record `i + r`'s is entry `j` of
    /// `batch[r]`) added in order, as [`RawColumn::push`] of each would add
    /// them; `false` for a value this path does not take. Each record
    /// before `i` had the key. One loop for the column's kind, with no
    /// dispatch on it a value, while the values keep it; a value of another
    /// kind through `push`, then the loop of the kind it left.
    ///
    /// # Safety
    ///
    /// Each entry of `batch` is that of a live dict whose table is str keyed
    /// with more than `j` entries, entry `j`'s value non-null, and
    /// [`DictEntries::of`](crate::raw::DictEntries::of)'s contract holds for all of them: no Python code
    /// runs and no Python object is made while entries are read (`push`
    /// runs none, and makes one only where it fails: an exception object,
    /// after which this returns `false` at once and reads no entry again).
    #[inline(never)]
    pub(super) unsafe fn push_entries(
        &mut self,
        py: Python<'_>,
        batch: &[StrEntries],
        j: usize,
        (i, n, small_ints): (usize, usize, bool),
    ) -> bool {
        debug_assert_eq!(self.len, i, "record {i} follows one that had the key");
        // SAFETY: the caller's contract: entry `j` of each table, a live
        // value (non-null) the dict holds, unchanged during the call.
        let value_ptr = |r: usize| unsafe { batch[r].get(j).1 };
        // SAFETY: as above (non-null: a live entry's value).
        let value = |r: usize| unsafe { Borrowed::from_ptr(py, value_ptr(r)) };
        let end = batch.len();
        let mut r = 0;
        while r < end {
            // The rest of the batch, for the runs of strs, ints and floats,
            // which index it by the record in the run (below its length,
            // so with no bounds test a value). Their values are live objects
            // the dicts hold, unchanged during the call (the caller's
            // contract: `Rows::value`'s).
            let rows = Rows { rows: &batch[r..], j };
            r = match (self.kind, self.mixed) {
                // SAFETY: as said of `rows`.
                (K_STR, false) => r + unsafe { self.str_run::<false>(rows, n - (i + r)) },
                // SAFETY: as said of `rows`.
                (K_STR, true) => r + unsafe { self.str_run::<true>(rows, n - (i + r)) },
                // A column that writes its kinds and has met both ints and
                // floats (movies' IMDB Rating: 7 among 6.5s): one run takes
                // None and both, where a run of one kind ended at each
                // value of the other, which `push` and `push_slow` took.
                // (Not for a column that met one of them only: each run
                // would ask room of the other's buffer, unused.)
                (K_INT, true) if self.seen[K_FLOAT as usize] => {
                    // SAFETY: each value read is live (as above).
                    let ints = (&mut self.ints, K_INT, |v| unsafe { value_int(py, v) });
                    // SAFETY: as above.
                    let floats = (&mut self.floats, K_FLOAT, |v| unsafe { value_float(py, v) });
                    // SAFETY: as said of `rows`.
                    let (to, null, last) = unsafe { two_kinds_run(&mut self.kinds, ints, floats, rows) };
                    self.seen[K_NULL as usize] |= null;
                    self.kind = last.unwrap_or(self.kind);
                    r + to
                }
                // As above, floats first. Only where ints are read in place
                // (`small_ints`): else an int is never the kind tried first,
                // and `push_slow` takes each.
                (K_FLOAT, true) if small_ints && self.seen[K_INT as usize] => {
                    // SAFETY: each value read is live (as above).
                    let floats = (&mut self.floats, K_FLOAT, |v| unsafe { value_float(py, v) });
                    // SAFETY: as above.
                    let ints = (&mut self.ints, K_INT, |v| unsafe { value_int(py, v) });
                    // SAFETY: as said of `rows`.
                    let (to, null, last) = unsafe { two_kinds_run(&mut self.kinds, floats, ints, rows) };
                    self.seen[K_NULL as usize] |= null;
                    self.kind = last.unwrap_or(self.kind);
                    r + to
                }
                (K_INT, mixed) => {
                    // SAFETY: each value read is live (as above).
                    let take = |v| unsafe { value_int(py, v) };
                    let (kinds, ints) = (&mut self.kinds, &mut self.ints);
                    // SAFETY: as said of `rows`.
                    let (to, null) = unsafe { run_into(mixed, kinds, ints, K_INT, take, rows) };
                    self.seen[K_NULL as usize] |= null;
                    r + to
                }
                (K_FLOAT, mixed) => {
                    // SAFETY: each value read is live (as above).
                    let take = |v| unsafe { value_float(py, v) };
                    let (kinds, floats) = (&mut self.kinds, &mut self.floats);
                    // SAFETY: as said of `rows`.
                    let (to, null) = unsafe { run_into(mixed, kinds, floats, K_FLOAT, take, rows) };
                    self.seen[K_NULL as usize] |= null;
                    r + to
                }
                (K_BOOL, _) => self.run_of::<K_BOOL>(&value, r, end),
                (K_NULL, _) => self.run_of::<K_NULL>(&value, r, end),
                _ => r,
            };
            self.len = i + r;
            if r < batch.len() {
                if !self.push(&value(r), i + r, n, small_ints, true) {
                    return false;
                }
                r += 1;
            }
        }
        true
    }

    /// The values from record `r` (of the batch) up to the first that is
    /// not of kind `KIND` (the column's), taken as that kind, and their
    /// kinds written at once if the column writes them; the record reached
    /// (the length is the caller's).
    #[inline(always)]
    fn run_of<'a, 'py, const KIND: u8>(
        &mut self,
        value: &impl Fn(usize) -> Borrowed<'a, 'py, PyAny>,
        start: usize,
        end: usize,
    ) -> usize {
        let mut r = start;
        while r < end && self.take_as(KIND, &value(r)) {
            r += 1;
        }
        if self.mixed {
            self.kinds.resize(self.kinds.len() + (r - start), KIND);
        }
        r
    }

    /// [`RawColumn::run_of`] of strings (`K_STR`), up to the first value
    /// that is not an exact compact-ASCII str of at most 32 bytes (which
    /// `push` then takes) nor, in a column that writes its kinds (`MIXED`,
    /// which is `self.mixed`), None: room for up to [`STR_RUN`] strings
    /// asked of the text and the ends (and the kinds) at once, then each
    /// string's bytes copied into it and its end written (and each value's
    /// kind), their places kept in locals. (`append_str` a string reloaded
    /// and stored the text's and the ends' lengths and checked their room
    /// after every string's bytes were stored, and the value went through
    /// `downcast_exact` and `str_bytes`' `Option`; a None ended the run and
    /// went through `push`.) The number of records taken is returned (the
    /// length is the caller's). `left`: the records from the first of
    /// `rows` to the end of the list (for [`RawColumn::reserve_text`]).
    ///
    /// # Safety
    ///
    /// As [`Rows::value`], for each of `rows`.
    #[inline(always)]
    unsafe fn str_run<const MIXED: bool>(&mut self, rows: Rows<'_>, left: usize) -> usize {
        debug_assert_eq!(MIXED, self.mixed);
        let mut null = false;
        let mut r = 0;
        while r < rows.len() {
            let run = rows.from(r, STR_RUN);
            let n = run.len();
            let (text_len, ends_len, kinds_len) = (self.text.len(), self.ends.len(), self.kinds.len());
            // The text's room for the rest of the list, as the strings so far
            // project it: once a run of strings is in, and whenever the room
            // runs short.
            let room = self.text.capacity() - text_len;
            if room < 32 * n || (STR_RUN..2 * STR_RUN).contains(&ends_len) {
                self.reserve_text(left - r, room < 32 * n);
            }
            // Room for `n` strings of up to 32 bytes: string `k` starts at
            // most `32 * k` bytes in, and `copy_str` writes up to 32 bytes.
            self.text.reserve(32 * n);
            self.ends.reserve(n);
            if MIXED {
                self.kinds.reserve(n);
            }
            // The room not yet written, `32 * n` bytes: string `k` (of at
            // most 32 bytes, as each before it) starts at most `32 * k`
            // bytes in, so its 32-byte window is inside (`k < n`), with no
            // test a string (`first_chunk_mut` of the room left tested it,
            // and the room left was a third changing variable).
            let room = self.text.spare_capacity_mut()[..32 * n].as_mut_ptr().cast::<u8>();
            let ends = &mut self.ends.spare_capacity_mut()[..n];
            let kinds = if MIXED { &mut self.kinds.spare_capacity_mut()[..n] } else { &mut [] };
            // SAFETY: the caller's contract for `run` (part of `rows`); `room`
            // is the text's `32 * n` bytes of spare room (above), `ends` and
            // `kinds` (`MIXED`) room for `n` each.
            let Copied { k, e, end, null: none_met } = unsafe { copy_strs::<MIXED>(run, room, text_len, ends, kinds) };
            null |= none_met;
            // SAFETY: the text's spare capacity was written up to byte `end`
            // (`copy_str` writes each string's bytes, one after the
            // other, within the room reserved), the first `e` ends, and
            // (`MIXED`) the first `k` kinds.
            unsafe {
                self.text.set_len(end);
                self.ends.set_len(ends_len + e);
                if MIXED {
                    self.kinds.set_len(kinds_len + k);
                }
            }
            r += k;
            if k < n {
                break;
            }
        }
        if MIXED {
            self.seen[K_NULL as usize] |= null;
        }
        r
    }

    /// [`RawColumn::push`] of a value of any kind, and of the first of a
    /// column; sets the kind `push` tries first. `small_ints`: whether ints
    /// may be read in place (`raw::small_ints_ok`).
    #[inline(never)]
    fn push_slow(&mut self, v: &Bound<'_, PyAny>, i: usize, n: usize, small_ints: bool) -> bool {
        let kind = if let Ok(s) = v.downcast_exact::<PyString>() {
            // A lone surrogate: the general path raises.
            let Some(s) = str_bytes(s) else { return false };
            if self.ends.is_empty() {
                // Room for the rest of the list at once, guessed from
                // the first string's length (none asked for when a reused
                // buffer has it). On a short list (a few runs), also the
                // room a run of strings asks past the text's end
                // (`str_run`, and `reserve_text`'s projection), which is
                // then much of the guess: without it the first run of a
                // list of a few hundred records found the room short, and
                // a new buffer was made. Not on a longer one, where the
                // projection's check after the first run, short of that
                // room, made a new buffer while the text was small when the
                // first string was shorter than most, which with the room
                // the text outgrew later, copied whole.
                self.ends.reserve(n - i);
                let guess = (n - i).saturating_mul(s.len() + 4).min(1 << 24);
                let run_room = if n - i <= SHORT_LIST { 32 * STR_RUN.min(n - i) } else { 0 };
                self.text.reserve(guess + run_room);
            }
            self.append_str(s);
            K_STR
        } else if let Ok(f) = v.downcast_exact::<PyFloat>() {
            if self.floats.is_empty() {
                self.floats.reserve(n - i);
            }
            self.floats.push(f.value());
            K_FLOAT
        } else if v.is_none() {
            K_NULL
        } else if let Ok(b) = v.downcast_exact::<PyBool>() {
            self.bools.push(b.is_true());
            K_BOOL
        } else if let Ok(x) = v.downcast_exact::<PyLong>() {
            let (kind, x) = match long_value(x) {
                Some(Long::I64(x)) => (K_INT, x as u64),
                Some(Long::U64(x)) => (K_UINT, x),
                None => return false,
            };
            if self.ints.is_empty() {
                self.ints.reserve(n - i);
            }
            self.ints.push(x);
            kind
        } else {
            return false;
        };
        self.seen[kind as usize] = true;
        // Whether `push` may try this kind first: not for ints above
        // `i64::MAX`, nor for ints that cannot be read in place; a column
        // that has them writes its kinds per value.
        let fast = match kind {
            K_UINT => false,
            K_INT => small_ints,
            _ => true,
        };
        if !fast {
            self.mix(n);
        }
        if !self.mixed && self.len == i && (i == 0 || self.kind == kind) {
            // Still one kind for every record.
            self.kind = kind;
        } else {
            self.pad_to(i, n);
            self.mix(n);
            self.kinds.push(kind);
            // None is not tried first in a column of other kinds.
            if fast && kind != K_NULL {
                self.kind = kind;
            }
        }
        self.len = i + 1;
        true
    }
}

/// The values of a run of ints or floats (`buf`, of kind `kind`, the
/// column's), from the first of `rows` up to their end or the first value
/// that `take` does not read, nor (in a column that writes its kinds: `mixed`,
/// whose `kinds` are written here) None: room for the run asked of `buf`
/// (and `kinds`) once, each value written at its place, kept in a local,
/// the lengths set after the loop (`Vec::push` reloaded, checked and stored
/// the length a value). The number of records taken, and whether a None
/// was read (the kinds met are the caller's).
///
/// # Safety
///
/// As [`Rows::value`], for each of `rows`; the GIL is held.
// Out of line, as `copy_strs` and for the same reason: inlined into
// `push_entries`, the loop kept the entry's offset on the stack and loaded
// the int type's address again a value.
#[inline(never)]
unsafe fn run_into<T>(
    mixed: bool,
    kinds: &mut Vec<u8>,
    buf: &mut Vec<T>,
    kind: u8,
    take: impl Fn(*mut pyo3::ffi::PyObject) -> Option<T>,
    rows: Rows<'_>,
) -> (usize, bool) {
    let n = rows.len();
    // SAFETY: each value read below is one of `rows` (`k < n ==
    // rows.len()`), under the caller's contract.
    let value = |k: usize| unsafe { rows.value(k) };
    let (kinds_len, buf_len) = (kinds.len(), buf.len());
    buf.reserve(n);
    let vals = &mut buf.spare_capacity_mut()[..n];
    // `k` values read, `m` of them taken into `buf` (the others None).
    let (mut k, mut m) = (0, 0);
    if mixed {
        kinds.reserve(n);
        let ks = &mut kinds.spare_capacity_mut()[..n];
        // SAFETY: the GIL is held (the caller's contract); `Py_None` only
        // takes None's address.
        let none = unsafe { pyo3::ffi::Py_None() };
        while k < n {
            let v = value(k);
            if v == none {
                ks[k].write(K_NULL);
            } else if let Some(x) = take(v) {
                debug_assert!(m <= k && k < n);
                // SAFETY: `m <= k < n == vals.len()` (`m` values among the
                // `k` read before this one); the index test the compiler
                // could not drop, a value.
                unsafe { vals.get_unchecked_mut(m) }.write(x);
                m += 1;
                ks[k].write(kind);
            } else {
                break;
            }
            k += 1;
        }
        // SAFETY: the first `k` kinds of the spare capacity were written.
        unsafe { kinds.set_len(kinds_len + k) };
    } else {
        while k < n {
            let Some(x) = take(value(k)) else { break };
            vals[k].write(x);
            k += 1;
        }
        m = k;
    }
    // SAFETY: the first `m` values of the spare capacity were written.
    unsafe { buf.set_len(buf_len + m) };
    (k, m < k)
}

/// [`run_into`] of a column that writes its kinds, for values of two kinds
/// (`first`, tried first, then `second`: each a buffer, its kind and how
/// a value of it is read) and None, up to the end of `rows` or the first
/// value neither reads nor None: each value into its kind's buffer, in
/// order, its kind written, as `push` and `push_slow` take them one at a
/// time. The number of records taken, whether a None was read, and the
/// kind of the last value taken that was not None (the kind the column
/// then tries first), if any.
///
/// # Safety
///
/// As [`run_into`].
#[inline(never)]
unsafe fn two_kinds_run<T, U>(
    kinds: &mut Vec<u8>,
    (buf, kind, take): (&mut Vec<T>, u8, impl Fn(*mut pyo3::ffi::PyObject) -> Option<T>),
    (other, other_kind, take_other): (&mut Vec<U>, u8, impl Fn(*mut pyo3::ffi::PyObject) -> Option<U>),
    rows: Rows<'_>,
) -> (usize, bool, Option<u8>) {
    let n = rows.len();
    // SAFETY: each value read below is one of `rows` (`k < n ==
    // rows.len()`), under the caller's contract.
    let value = |k: usize| unsafe { rows.value(k) };
    let (kinds_len, buf_len, other_len) = (kinds.len(), buf.len(), other.len());
    buf.reserve(n);
    other.reserve(n);
    kinds.reserve(n);
    let vals = &mut buf.spare_capacity_mut()[..n];
    let others = &mut other.spare_capacity_mut()[..n];
    let ks = &mut kinds.spare_capacity_mut()[..n];
    // SAFETY: the GIL is held (the caller's contract); `Py_None` only takes
    // None's address.
    let none = unsafe { pyo3::ffi::Py_None() };
    // `k` values read, `m` of them taken into `buf`, `o` into `other`.
    let (mut k, mut m, mut o) = (0, 0, 0);
    while k < n {
        let v = value(k);
        if v == none {
            ks[k].write(K_NULL);
        } else if let Some(x) = take(v) {
            debug_assert!(m <= k && k < n);
            // SAFETY: `m <= k < n == vals.len()` (`m` values among the `k`
            // read before this one).
            unsafe { vals.get_unchecked_mut(m) }.write(x);
            m += 1;
            ks[k].write(kind);
        } else if let Some(y) = take_other(v) {
            debug_assert!(o <= k && k < n);
            // SAFETY: `o <= k < n == others.len()`, as `m` above.
            unsafe { others.get_unchecked_mut(o) }.write(y);
            o += 1;
            ks[k].write(other_kind);
        } else {
            break;
        }
        k += 1;
    }
    // The last kind taken that was not None: read back from the kinds
    // written (once a run, not tracked a value).
    // SAFETY: the first `k` kinds were written (above).
    let last = ks[..k].iter().rev().map(|x| unsafe { x.assume_init() }).find(|&x| x != K_NULL);
    // SAFETY: the first `k` kinds, `m` values and `o` others of the spare
    // capacities were written.
    unsafe {
        kinds.set_len(kinds_len + k);
        buf.set_len(buf_len + m);
        other.set_len(other_len + o);
    }
    (k, m + o < k, last)
}

/// The values of one key (entry `j` of each table) of records of a batch
/// (`rows`, from some record on), as [`RawColumn::push_entries`] is given
/// them: what its runs read, record `k` of the run as `rows[k]`, so that a
/// loop bounded by the run's length has no bounds test a value.
#[derive(Clone, Copy)]
struct Rows<'b> {
    rows: &'b [StrEntries],
    j: usize,
}

impl<'b> Rows<'b> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.rows.len()
    }

    /// Up to `most` of the records from record `from` on (`from` at most
    /// the length).
    #[inline(always)]
    fn from(&self, from: usize, most: usize) -> Rows<'b> {
        let rows = &self.rows[from..];
        Rows { rows: &rows[..rows.len().min(most)], j: self.j }
    }

    /// Record `k`'s value.
    ///
    /// # Safety
    ///
    /// `k < self.len()`, and each of `rows` is the entries of a live dict
    /// whose table is str keyed with more than `j` entries, entry `j`'s
    /// value non-null, read under [`DictEntries::of`](crate::raw::DictEntries::of)'s contract (the
    /// value, a live object the dict holds, stays alive and unchanged while
    /// it is used: no Python code runs, no Python object is made).
    #[inline(always)]
    unsafe fn value(&self, k: usize) -> *mut pyo3::ffi::PyObject {
        // SAFETY: the caller's contract.
        unsafe { self.rows[k].get(self.j).1 }
    }
}

/// The value of `v` as [`RawColumn::take_as`] takes a `K_INT`: an exact
/// int of at most two 30-bit digits, read in place (as its i64's bits).
///
/// # Safety
///
/// `v` is a live object, kept alive by the caller; the GIL is held.
#[inline(always)]
unsafe fn value_int(py: Python<'_>, v: *mut pyo3::ffi::PyObject) -> Option<u64> {
    // SAFETY: the caller's contract (a live object, non-null): its type is
    // read first (which `downcast_exact` reads again: one load to the
    // compiler), after which the compiler knows the pointer non-null and
    // drops `Borrowed::from_ptr`'s test of it, a value.
    let v = unsafe {
        if pyo3::ffi::Py_TYPE(v) != std::ptr::addr_of_mut!(pyo3::ffi::PyLong_Type) {
            return None;
        }
        Borrowed::from_ptr(py, v)
    };
    v.downcast_exact::<PyLong>().ok().and_then(|x| small_int(x)).map(|x| x as u64)
}

/// The value of `v` as [`RawColumn::take_as`] takes a `K_FLOAT`: an exact
/// float.
///
/// # Safety
///
/// As [`value_int`].
#[inline(always)]
unsafe fn value_float(py: Python<'_>, v: *mut pyo3::ffi::PyObject) -> Option<f64> {
    // SAFETY: the caller's contract (a live object, non-null): its type is
    // read first (which `downcast_exact` reads again: one load to the
    // compiler), after which the compiler knows the pointer non-null and
    // drops `Borrowed::from_ptr`'s test of it, a value.
    let v = unsafe {
        if pyo3::ffi::Py_TYPE(v) != std::ptr::addr_of_mut!(pyo3::ffi::PyFloat_Type) {
            return None;
        }
        Borrowed::from_ptr(py, v)
    };
    v.downcast_exact::<PyFloat>().ok().map(|f| f.value())
}

/// What [`copy_strs`] took of a run: `k` values, `e` strings among them
/// (the others None), the text's end after them, and whether a None was
/// among them.
struct Copied {
    k: usize,
    e: usize,
    end: usize,
    null: bool,
}

/// The loop of [`RawColumn::str_run`] over one run of up to [`STR_RUN`]
/// values: up to the first that is not an exact compact-ASCII str of at
/// most 32 bytes nor (`MIXED`) None, each string's bytes copied into
/// `room` (the text's spare room, whose first byte is the text's byte
/// `text_len`) one after the other, its end written in `ends` (and, with
/// `MIXED`, each value's kind in `kinds`). A function of its own, whose
/// only values are the loop's: inlined into `push_entries`, whose other
/// loops keep many values live, the entry's offset was kept on the stack
/// and reloaded a string, with the str type's address.
///
/// # Safety
///
/// As [`Rows::value`] for each of `run`; `room` is valid for writes of
/// `32 * run.len()` bytes, `ends.len() == run.len()` and, with `MIXED`,
/// `kinds.len() == run.len()`; the GIL is held.
#[inline(never)]
unsafe fn copy_strs<const MIXED: bool>(
    run: Rows<'_>,
    room: *mut u8,
    text_len: usize,
    ends: &mut [std::mem::MaybeUninit<usize>],
    kinds: &mut [std::mem::MaybeUninit<u8>],
) -> Copied {
    let n = run.len();
    // Of `n` each, as the compiler then knows (no bounds test a value).
    let ends = &mut ends[..n];
    let kinds = if MIXED { &mut kinds[..n] } else { kinds };
    // SAFETY: the GIL is held (the caller's contract); `Py_None` only takes
    // None's address.
    let none = unsafe { pyo3::ffi::Py_None() };
    let mut null = false;
    // The room's place for the text's byte `end` (`room` at `text_len`):
    // each string written at the text's end so far, which is its end to
    // write (one variable where two were kept, the room's offset and the
    // end). An address below the room (`wrapping_sub`), never used but
    // offset back into it.
    let base = room.wrapping_sub(text_len);
    let at_end = |end: usize| base.wrapping_add(end);
    // `k` values read, `e` strings among them (`k` itself where no None is
    // taken: its end's index then tested by the loop's).
    let (mut end, mut k, mut e) = (text_len, 0, 0);
    while k < n {
        // SAFETY: the caller's contract (`k < n == run.len()`).
        let v = unsafe { run.value(k) };
        if MIXED && v == none {
            kinds[k].write(K_NULL);
            null = true;
            k += 1;
            continue;
        }
        // SAFETY: the caller's contract (a live value, unchanged).
        let Some((s, len)) = (unsafe { compact_ascii(v) }) else { break };
        debug_assert!(end - text_len + 32 <= 32 * n, "string {k} of {n} at {end}");
        // SAFETY: `room[end - text_len..][..32]` is inside the room: string
        // `k` starts at most `32 * k` bytes in (each before it at most 32
        // bytes), and `k < n`; it is written by nothing else. `s` is a
        // compact-ASCII str's `len` characters and their NUL, after its
        // object's header, from the object's pointer (`compact_ascii`),
        // alive and unchanged (the caller's contract): 8-byte aligned (an
        // object's address is, and the header is whole words), with each
        // aligned word holding one of those bytes mapped.
        if !unsafe { copy_str(at_end(end), s, len) } {
            break;
        }
        end += len;
        if MIXED {
            debug_assert!(e <= k && k < n);
            // SAFETY: `e <= k < n == ends.len()` (`e` strings among the `k`
            // values before this one); the index test the compiler could
            // not drop, a value.
            unsafe { ends.get_unchecked_mut(e) }.write(end);
        } else {
            ends[k].write(end);
        }
        e += 1;
        if MIXED {
            kinds[k].write(K_STR);
        }
        k += 1;
    }
    Copied { k, e, end, null }
}

/// Strings of one run of [`RawColumn::str_run`] at most (a batch's): the
/// room it asks of the text at once is 32 bytes a string.
const STR_RUN: usize = 64;

/// Records left at most for which a string column's first reservation
/// (`push_slow`) adds the room of a run of strings.
const SHORT_LIST: usize = 4 * STR_RUN;

/// Writes the `len` bytes at `p`, the characters of a compact-ASCII str,
/// at `dst` when there are at most 32 of them: every byte of `dst[..len]`
/// (those after it, up to 32 bytes, with anything); `false`, with nothing
/// written, for a longer string. A string of at most 8 bytes (most codes,
/// states, short names) is one load of the 8-byte word at `p` (the string,
/// its NUL, then whatever follows it in that word) and one store, with
/// nothing to shift: the word starts where the string starts. One of 9 to
/// 16 bytes is one load and store of the 16 bytes at `p`. Longer strings as
/// two pieces of 16 bytes, the first at the start and the second ending at
/// the string's end. The test of the 32 bytes comes last: a short string
/// passes one test of its length.
///
/// # Safety
///
/// `dst` is valid for writes of 32 bytes; `p` is where the characters of a
/// str object start as [`compact_ascii`] gives them, with the object's
/// provenance: 8-byte aligned, the `len` characters and the NUL after them
/// readable, and each aligned 8-byte word holding one of those bytes
/// readable as [`word_at`] reads it.
#[inline(always)]
unsafe fn copy_str(dst: *mut u8, p: *const u8, len: usize) -> bool {
    // SAFETY: the caller's contract. Reads: the aligned words at `p` and
    // `p + 8` (the latter only when `len > 8`, so holding character 8) each
    // hold a byte of the string or its NUL (`word_at`); a longer string's
    // pieces are inside `p[..len]`. Writes stay in `dst[..32]` (`len <= 32`
    // where any is made).
    unsafe {
        if len <= 8 {
            dst.cast::<[u8; 8]>().write_unaligned(word_at(p, len).to_le_bytes());
        } else if len <= 16 {
            dst.cast::<[u8; 16]>().write_unaligned(words_at(p, len));
        } else if len <= 32 {
            dst.cast::<[u8; 16]>().write_unaligned(p.cast::<[u8; 16]>().read_unaligned());
            dst.add(len - 16).cast::<[u8; 16]>().write_unaligned(p.add(len - 16).cast::<[u8; 16]>().read_unaligned());
        } else {
            return false;
        }
    }
    true
}

/// Bytes from a str object's start to its compact-ASCII characters (the
/// `PyASCIIObject` header: 48 in 3.11, 40 from 3.12), which [`word_at`]
/// subtracts from the characters' pointer and adds back in its load's
/// operand, so that the compiler uses the object's pointer it has (one
/// addition fewer a string). Any value would be correct; 0 where the layout
/// is not known (where `compact_ascii` takes no str).
#[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
const DATA_AT: usize = std::mem::size_of::<pyo3::ffi::PyASCIIObject>();
#[cfg(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))]
const DATA_AT: usize = 0;
// The characters start on a word: an object's address is 8-byte aligned (it
// holds pointers), and so is the header's end.
const _: () = assert!(DATA_AT.is_multiple_of(8));

/// The 8 bytes at `p`, the characters of a compact-ASCII str of at most 8
/// of them, as a little-endian `u64`: the string in its first `len` bytes,
/// then its NUL, then, for a string of fewer than 7 characters, bytes past
/// the object (in the same aligned word: a heap block's rounding, or the
/// next object's bytes), which [`copy_str`] writes into the room past the
/// string and nothing reads. Those may be bytes never written, and memory
/// no Rust allocation holds: a Rust load of them would be undefined
/// behaviour even though they are never used, so on x86-64 the word is read
/// by one `mov` of inline assembly, which reads memory as a foreign
/// function does and gives a plain integer whatever the bytes were. The
/// word is 8-byte aligned (`p` is) and holds the string's first byte (or
/// its NUL): a word that holds one byte of mapped memory is mapped
/// (pages are whole aligned words), so the load cannot fault.
///
/// # Safety
///
/// `p` is 8-byte aligned, `len <= 8` (the string's length: read only by
/// the version without assembly) and the `len` bytes at `p` and the one
/// after them readable (the aligned word holding the first is then mapped
/// and read as above).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn word_at(p: *const u8, len: usize) -> u64 {
    let _ = len;
    let w: u64;
    // SAFETY: the caller's contract (an aligned, mapped word at `p`); the
    // block only reads it, into `w`, and touches no stack or flags. The
    // operand's register is `p - DATA_AT`, the displacement `DATA_AT`: the
    // address read is `p`.
    unsafe {
        std::arch::asm!(
            "mov {w}, qword ptr [{o} + {at}]",
            o = in(reg) p.wrapping_sub(DATA_AT),
            at = const DATA_AT,
            w = lateout(reg) w,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    w
}

/// [`word_at`] of the 16 bytes at `p` (two aligned words), the characters
/// of a compact-ASCII str of 9 to 16 of them: the first word all the
/// string's, the second holding its character 8 (so mapped, as
/// [`word_at`]'s), then its other characters, its NUL and, for a string of
/// fewer than 15 characters, bytes past the object, as [`word_at`]'s.
///
/// # Safety
///
/// `p` is 8-byte aligned, `8 < len <= 16` (as [`word_at`]'s) and the `len`
/// bytes at `p` readable.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn words_at(p: *const u8, len: usize) -> [u8; 16] {
    let _ = len;
    let w: std::arch::x86_64::__m128i;
    // SAFETY: as in `word_at`, for the two aligned words at `p` (the
    // caller's contract); `movups` needs no alignment, and SSE is in
    // x86-64's baseline.
    unsafe {
        std::arch::asm!(
            "movups {w}, xmmword ptr [{o} + {at}]",
            o = in(reg) p.wrapping_sub(DATA_AT),
            at = const DATA_AT,
            w = lateout(xmm_reg) w,
            options(pure, readonly, nostack, preserves_flags),
        );
        std::mem::transmute::<std::arch::x86_64::__m128i, [u8; 16]>(w)
    }
}

/// [`word_at`] without the assembly: only the string's `len` characters
/// are read, the bytes after them 0.
///
/// # Safety
///
/// `len <= 8` and the `len` bytes at `p` are readable.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn word_at(p: *const u8, len: usize) -> u64 {
    let mut b = [0u8; 8];
    // SAFETY: the caller's contract; `b` holds `len` bytes.
    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len) };
    u64::from_le_bytes(b)
}

/// [`words_at`] without the assembly, as [`word_at`]'s.
///
/// # Safety
///
/// `len <= 16` and the `len` bytes at `p` are readable.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn words_at(p: *const u8, len: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    // SAFETY: the caller's contract; `b` holds `len` bytes.
    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len) };
    b
}

impl RawColumn {
    /// Room in the text for the strings of `left` more records when the
    /// strings so far project more than it has (their mean length; `short`:
    /// the room ran out), or nothing: a new buffer of the projection and a
    /// quarter more (at most 16 MiB more at once; at least twice the old
    /// buffer when the room ran out), the text copied into it. Not `reserve`,
    /// whose `realloc` copies the whole old buffer: the first string's guess
    /// (`push_slow`), when short, was outgrown with all of it copied (and
    /// again as it doubled); now the text moves while it is a run or two.
    #[inline(never)]
    fn reserve_text(&mut self, left: usize, short: bool) {
        let (len, cap) = (self.text.len(), self.text.capacity());
        let per = len.div_ceil(self.ends.len().max(1));
        let projected = left.saturating_mul(per).saturating_add(32 * STR_RUN);
        if !short && len.saturating_add(projected) <= cap {
            return;
        }
        let want = projected.saturating_add(projected / 4).min(1 << 24);
        let mut text = Vec::with_capacity(if short { (len + want).max(2 * cap) } else { len + want });
        text.extend_from_slice(&self.text);
        self.text = text;
    }

    /// Appends a string to the text and its end to `ends`.
    #[inline(always)]
    fn append_str(&mut self, s: &[u8]) {
        append_short(&mut self.text, s);
        self.ends.push(self.text.len());
    }
}

#[cfg(test)]
mod tests {
    use super::{RawColumn, K_BOOL, K_FLOAT, K_INT, K_NULL, K_STR, K_UINT};
    use xbf::infer::{Ints, Shape};

    /// A column's shape, one kind or several, against its kinds joined in
    /// turn from `Never` (the shape's fast path for one kind must give
    /// what the join gives).
    #[test]
    fn shape_is_the_join_of_the_kinds() {
        let bits = [Ints { ubits: 0, sbits: 0 }, Ints { ubits: 7, sbits: 0 }, Ints { ubits: 64, sbits: 9 }];
        for mask in 0u32..32 {
            for (b, &int_bits) in bits.iter().enumerate() {
                if mask & 4 == 0 && b > 0 {
                    continue;
                }
                let mut col = RawColumn::default();
                let has = |k: u32| mask & (1 << k) != 0;
                col.seen[K_NULL as usize] = has(0);
                col.seen[K_BOOL as usize] = has(1);
                col.seen[K_INT as usize] = has(2);
                col.int_bits = has(2).then_some(int_bits);
                col.seen[K_FLOAT as usize] = has(3);
                col.seen[K_STR as usize] = has(4);
                let mut want: Shape<()> = Shape::Never;
                let kinds = [
                    has(0).then_some(Shape::Null),
                    has(1).then_some(Shape::Bool),
                    has(2).then_some(Shape::Int(int_bits)),
                    has(3).then_some(Shape::Float),
                    has(4).then_some(Shape::Str),
                ];
                for k in kinds.into_iter().flatten() {
                    want = want.join(k);
                }
                assert_eq!(format!("{:?}", col.shape()), format!("{want:?}"), "kinds {mask:05b}, bits {int_bits:?}");
            }
        }
    }

    /// The bits of a column's ints as `finish` works them out at once, against
    /// `Ints::of_i64` joined one value at a time as they were before.
    #[test]
    fn ints_bits_join_as_one_at_a_time() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [0, 1, -1, 2, -2, i64::MAX, i64::MIN, 1 << 30, -(1 << 30), (1 << 60) - 1, -(1 << 60)];
        for round in 0..400 {
            let mut col = RawColumn::default();
            let (mut want, mut any) = (Ints { ubits: 0, sbits: 0 }, false);
            for _ in 0..(round % 9) {
                let r = next();
                // Values of every width, edges, some above i64::MAX, some None.
                let kind = match r % 7 {
                    0 => K_UINT,
                    1 => K_NULL,
                    _ => K_INT,
                };
                if kind == K_NULL {
                    col.kinds.push(K_NULL);
                    col.seen[K_NULL as usize] = true;
                    continue;
                }
                let v = match (r >> 3) % 3 {
                    0 => edges[(r >> 8) as usize % edges.len()] as u64,
                    1 => next() >> (next() % 64),
                    _ => (next() >> (next() % 64)).wrapping_neg(),
                };
                let (v, bits) = if kind == K_UINT {
                    (v | 1 << 63, Ints { ubits: 64, sbits: 0 })
                } else {
                    (v, Ints::of_i64(v as i64))
                };
                col.kinds.push(kind);
                col.seen[kind as usize] = true;
                col.ints.push(v);
                want = want.join(bits);
                any = true;
            }
            assert_eq!(col.ints_bits(), any.then_some(want), "ints {:?}", col.ints);
        }
    }

    /// A column of non-negative ints (its bits from their OR alone) and the
    /// same with one negative int or one above `i64::MAX` at each place (the
    /// pass that tells them apart), against `Ints::of_i64` one at a time.
    #[test]
    fn ints_bits_of_non_negative_columns() {
        for top in 0..64 {
            let base: Vec<i64> = (0..9).map(|k| ((1u64 << top) - 1) as i64 >> (k % 3)).collect();
            for (odd, at) in [(None, 0), (Some(-1i64), 0), (Some(i64::MIN), 4), (Some((1i64 << top).wrapping_neg()), 8)]
            {
                let mut vals = base.clone();
                if let Some(v) = odd {
                    vals[at] = v;
                }
                let mut col = RawColumn::default();
                col.seen[K_INT as usize] = true;
                col.ints = vals.iter().map(|&v| v as u64).collect();
                let want = vals.iter().map(|&v| Ints::of_i64(v)).reduce(Ints::join);
                assert_eq!(col.ints_bits(), want, "ints {vals:?}");
                // One above `i64::MAX` as well (the kinds written).
                col.ints.push(1 << 63);
                col.kinds = vec![K_INT; vals.len()];
                col.kinds.push(K_UINT);
                col.seen[K_UINT as usize] = true;
                let want = want.map(|w| w.join(Ints { ubits: 64, sbits: 0 }));
                assert_eq!(col.ints_bits(), want, "ints {vals:?} and 2**63");
            }
        }
    }

    /// `copy_str` writes every byte of the string, at every length up to 32,
    /// over any bytes already there, whatever the bytes after the string
    /// (a short string's load takes the aligned words from its start, past
    /// its end); a longer string it refuses, writing nothing.
    #[test]
    fn copy_str_copies_every_length() {
        let src: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37).wrapping_add(1)).collect();
        for tail in [0u8, 0xff, b't'] {
            for len in 0..=64 {
                for s in [&src[..len], &src[64 - len..]] {
                    // The string at the start of 8-byte aligned memory (as a
                    // str's characters after its header), then its NUL, then
                    // `tail` bytes to the end of the next 16.
                    let mut obj = vec![0u64; (len + 1).div_ceil(8) + 2];
                    // SAFETY: `obj` holds `8 * obj.len()` bytes, at least
                    // `len + 17`.
                    let bytes = unsafe { std::slice::from_raw_parts_mut(obj.as_mut_ptr().cast::<u8>(), 8 * obj.len()) };
                    bytes.fill(tail);
                    bytes[..len].copy_from_slice(s);
                    bytes[len] = 0;
                    let mut dst = [0xeeu8; 32];
                    // SAFETY: `dst` is 32 bytes; the string starts 8-byte
                    // aligned, and the words from its start to 16 bytes past
                    // its NUL are the buffer's.
                    let copied = unsafe { super::copy_str(dst.as_mut_ptr(), obj.as_ptr().cast::<u8>(), len) };
                    assert_eq!(copied, len <= 32, "length {len}");
                    if copied {
                        assert_eq!(&dst[..len], s, "length {len}, tail {tail}");
                    } else {
                        assert_eq!(dst, [0xee; 32], "length {len}: nothing written");
                    }
                }
            }
        }
    }

    #[test]
    fn append_str_appends_every_length() {
        let src: Vec<u8> = (0..80u8).map(|b| b.wrapping_mul(37).wrapping_add(1)).collect();
        for first in [0, 3, 31, 33] {
            for len in 0..=src.len() {
                let mut col = RawColumn::default();
                col.append_str(&src[..first]);
                col.append_str(&src[..len]);
                col.append_str(&src[src.len() - len..]);
                col.finish(1);
                let want: Vec<u8> = [&src[..first], &src[..len], &src[src.len() - len..]].concat();
                assert_eq!(col.text, want, "first {first}, length {len}");
                assert_eq!(col.ends, [first, first + len, first + 2 * len]);
            }
        }
    }
}
