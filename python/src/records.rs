//! Lists of flat records (dicts of str keys whose values are None, bool,
//! float, str or ints of at most 64 bits, all of exact types) to the
//! columnar layout in one pass that both infers the type and gathers each
//! key's values, then through the core's column builder. Records may lack
//! keys or give them in other orders: the keys are merged as inference
//! merges them (`xbf::infer::Objects`), so the type is the one
//! `Shape::of` gives, and the bytes those of the general path.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyLong, PyString};
use pyo3::Borrowed;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::sync::Arc;

use xbf::infer::{Ints, Resolved, Slot, MAP_KEY_RATIO, MAP_MIN_KEYS, OBJECT_STRUCT};
use xbf::{EncodeOptions, Metadata, PrimitiveType as P, Repeats};

use crate::columns::uvarint_len;
use crate::errors::encode_err;
use crate::infer::{Obj, Shape};
use crate::learned::{ColumnKinds, Learned};
use crate::plan::is_optional_key;
use crate::raw::{
    append_short, dict_entries_ok, dict_next, dict_next_borrowed, list_item, long_value, small_int, small_ints_ok,
    str_bytes, DictEntries, Long,
};

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
    /// The strings one after the other (UTF-8), and where each ends.
    pub(crate) text: Vec<u8>,
    pub(crate) ends: Vec<usize>,
    /// Whether some record lacks the key.
    pub(crate) absent: bool,
    /// Records read: the index of the next record.
    len: usize,
    /// Whether `kinds` holds each record's kind (else read them with
    /// [`RawColumn::kinds`]).
    mixed: bool,
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

    /// Bytes held by its buffers.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.kinds.capacity()
            + self.bools.capacity()
            + 8 * (self.ints.capacity() + self.floats.capacity() + self.ends.capacity())
            + self.text.capacity()
    }

    /// One kind per record from now on (`kinds` written out for the records
    /// read).
    fn mix(&mut self) {
        if !self.mixed {
            self.mixed = true;
            self.kinds.clear();
            self.kinds.resize(self.len, self.kind);
        }
    }

    /// Marks the records before record `i` that had no value of this key as
    /// lacking it.
    #[inline]
    fn pad_to(&mut self, i: usize) {
        if self.len < i {
            self.mix();
            self.absent = true;
            self.kinds.resize(i, K_ABSENT);
            self.len = i;
        }
    }

    /// The column of `n` records complete: the records after the last that
    /// had the key lack it, and the bits of the ints are known.
    fn finish(&mut self, n: usize) {
        self.pad_to(n);
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
    fn push(&mut self, v: &Bound<'_, PyAny>, i: usize, n: usize, small_ints: bool, next: bool) -> bool {
        debug_assert!(!next || self.len == i, "record {i} follows one that had the key");
        if next || self.len == i {
            let pushed = match self.kind {
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
            };
            if pushed {
                if self.mixed {
                    self.kinds.push(self.kind);
                }
                self.len = i + 1;
                return true;
            }
        }
        self.push_slow(v, i, n, small_ints)
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
                // buffer has it).
                self.ends.reserve(n - i);
                self.text.reserve((n - i).saturating_mul(s.len() + 4).min(1 << 24));
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
            self.mix();
        }
        if !self.mixed && self.len == i && (i == 0 || self.kind == kind) {
            // Still one kind for every record.
            self.kind = kind;
        } else {
            self.pad_to(i);
            self.mix();
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

impl RawColumn {
    /// Appends a string to the text and its end to `ends`.
    #[inline(always)]
    fn append_str(&mut self, s: &[u8]) {
        append_short(&mut self.text, s);
        self.ends.push(self.text.len());
    }
}

/// The keys met so far, each a column (numbered in order of first
/// appearance, as inference numbers its fields): key objects are compared
/// by identity first (JSON parsers and `csv` share one key object across
/// records), by content only the first time a key object is met.
#[derive(Default)]
struct Keys<'py> {
    /// Key objects met, each with its column.
    known: Vec<(Bound<'py, PyAny>, usize)>,
    /// Each column's name, and the first key object of that name.
    names: Vec<String>,
    objects: Vec<Bound<'py, PyString>>,
    by_name: HashMap<String, usize>,
}

/// Key objects remembered at most: records whose key objects are all new
/// (each dict built with fresh strings) are looked up by content.
const KEY_CACHE: usize = 256;

impl<'py> Keys<'py> {
    /// The column of key `k` (a new one if the key is new); `None` for a
    /// key that is not an exact str of valid UTF-8.
    fn column(&mut self, k: &Bound<'py, PyAny>) -> Option<usize> {
        if let Some(&(_, col)) = self.known.iter().find(|(known, _)| known.is(k)) {
            return Some(col);
        }
        let ks = k.downcast_exact::<PyString>().ok()?;
        let name = ks.to_str().ok()?;
        let col = match self.by_name.get(name) {
            Some(&col) => col,
            None => {
                let col = self.names.len();
                self.names.push(name.to_owned());
                self.objects.push(ks.clone());
                self.by_name.insert(name.to_owned(), col);
                col
            }
        };
        if self.known.len() < KEY_CACHE {
            self.known.push((k.clone(), col));
        }
        Some(col)
    }
}

/// The keys of records, in their order (as columns), and how many records
/// had them: given to inference's `Objects` once the list is read
/// (`Objects::key` hashes each name and each pair of neighbours, which cost
/// a fifth of `dumps` on countries.json, whose records lack keys here and
/// there; callgrind).
struct Run {
    cols: Vec<usize>,
    records: u64,
}

/// Each order of keys met (a [`Run`]), in the order first met, and the
/// index of each: looked up once for each record whose keys differ from the
/// record before (on countries.json, three records in eleven).
#[derive(Default)]
struct Runs {
    runs: Vec<Run>,
    /// Each run's index by its keys, once there are more than
    /// [`Runs::SCAN`] (fewer are compared one by one: no hash, which cost
    /// more than the comparisons).
    by_cols: FxHashMap<Vec<usize>, usize>,
}

impl Runs {
    /// Runs looked up by comparing their keys one run after another.
    const SCAN: usize = 8;

    /// The index of the run of keys `cols`, a new run (of no record yet) if
    /// none has them.
    fn index(&mut self, cols: &[usize]) -> usize {
        let found = if self.runs.len() <= Self::SCAN {
            self.runs.iter().position(|r| r.cols == cols)
        } else {
            self.by_cols.get(cols).copied()
        };
        if let Some(r) = found {
            return r;
        }
        let r = self.runs.len();
        self.runs.push(Run { cols: cols.to_vec(), records: 0 });
        if self.runs.len() > Self::SCAN {
            if self.by_cols.is_empty() {
                // The map from now on: every run so far in it.
                self.by_cols.extend(self.runs.iter().enumerate().map(|(i, run)| (run.cols.clone(), i)));
            } else {
                self.by_cols.insert(cols.to_vec(), r);
            }
        }
        r
    }
}

/// The type inferred for a list of flat records, its metadata bytes (XBF
/// 2), and the column of each struct field (`slots`, in the struct's
/// order): what an `xbf.Encoder` reuses when the next list has the same
/// keys and kinds of values.
pub(crate) struct RecordsType {
    pub(crate) ty: Metadata,
    pub(crate) meta: Vec<u8>,
    slots: Vec<usize>,
}

/// A list of flat records read in one pass that both infers the type and
/// gathers the columns: each key's values (`cols`) and the type.
pub(crate) struct Gathered {
    pub(crate) cols: Vec<RawColumn>,
    typed: Arc<RecordsType>,
    n: usize,
}

/// How [`same_keys`]'s walk of a record ended.
enum SameKeys<'a, 'py> {
    /// Every key was the record before's, each value gathered.
    All,
    /// Key `matched` (the keys before it matched, their values gathered) is
    /// not the record before's: the entry `k`, `v`, before entry `pos`.
    Differs { matched: usize, pos: pyo3::ffi::Py_ssize_t, k: Borrowed<'a, 'py, PyAny>, v: Borrowed<'a, 'py, PyAny> },
    /// A value this path does not take (the caller takes the general path).
    Fails,
}

/// The entries `e` of record `i` (`d`, of `n`) walked against the key
/// objects of the record before (`keys`, in its order, each with its
/// column), each value gathered into its column (`cols`) as its key is
/// checked; deleted entries are skipped, as `PyDict_Next` does. A function
/// of its own rather than a loop of `gather`, whose many variables the loop
/// kept on the stack, and one for each layout of entries (`STR_KEYED`: of
/// [`DictEntries::str_keyed`] tables). [`same_keys_dense`] walks the usual
/// table (str keys, none deleted).
///
/// # Safety
///
/// `e` is `d`'s entries, and [`DictEntries::of`]'s contract holds for the
/// walk: no Python code runs and no Python object is made ([`RawColumn::push`]
/// makes none and runs none for the values it takes; where it fails, the
/// walk stops at once). `STR_KEYED` is `e.str_keyed()`.
#[inline(never)]
unsafe fn same_keys<'a, 'py, const STR_KEYED: bool>(
    d: &'a Bound<'py, PyDict>,
    e: DictEntries,
    keys: &[(*mut pyo3::ffi::PyObject, usize)],
    cols: &mut [RawColumn],
    (i, n, small_ints): (usize, usize, bool),
) -> SameKeys<'a, 'py> {
    let mut pos = 0;
    for (matched, &(key, col)) in keys.iter().enumerate() {
        let (k, v) = loop {
            if pos >= e.len {
                return SameKeys::Fails;
            }
            // SAFETY: `pos < e.len`, `STR_KEYED` as `e` is, and the caller's
            // contract (`d`'s table unchanged since `e` was read).
            let (k, v) = unsafe {
                if STR_KEYED {
                    e.get_str_keyed(pos)
                } else {
                    e.get(pos)
                }
            };
            pos += 1;
            if !v.is_null() {
                break (k, v);
            }
        };
        // SAFETY: `v` is a live entry's value (non-null), a reference the
        // dict holds, unchanged during the walk (the caller's contract).
        let v = unsafe { Borrowed::from_ptr(d.py(), v) };
        if k != key {
            // SAFETY: as `v`, the live entry's key.
            let k = unsafe { Borrowed::from_ptr(d.py(), k) };
            return SameKeys::Differs { matched, pos: pos as pyo3::ffi::Py_ssize_t, k, v };
        }
        if !cols[col].push(&v, i, n, small_ints, true) {
            return SameKeys::Fails;
        }
    }
    SameKeys::All
}

/// [`same_keys`] of a table of str keys with no deleted entry (as many
/// entries as keys): entry `j` is the record's `j`-th item, no entry
/// skipped.
///
/// # Safety
///
/// As [`same_keys`], and `e.str_keyed()` and `e.len == keys.len()`.
#[inline(never)]
unsafe fn same_keys_dense<'a, 'py>(
    d: &'a Bound<'py, PyDict>,
    e: DictEntries,
    keys: &[(*mut pyo3::ffi::PyObject, usize)],
    cols: &mut [RawColumn],
    (i, n, small_ints): (usize, usize, bool),
) -> SameKeys<'a, 'py> {
    debug_assert!(e.str_keyed() && e.len == keys.len());
    for (j, &(key, col)) in keys.iter().enumerate() {
        // SAFETY: `j < keys.len() == e.len`, a table of str keys, and the
        // caller's contract (`d`'s table unchanged since `e` was read).
        let (k, v) = unsafe { e.get_str_keyed(j) };
        // As many live entries (`d.len()`) as entries: none is deleted, so
        // no value is NULL; checked all the same (one test).
        if v.is_null() {
            return SameKeys::Fails;
        }
        // SAFETY: `v` is a live entry's value (non-null), a reference the
        // dict holds, unchanged during the walk (the caller's contract).
        let v = unsafe { Borrowed::from_ptr(d.py(), v) };
        if k != key {
            // SAFETY: as `v`, the live entry's key.
            let k = unsafe { Borrowed::from_ptr(d.py(), k) };
            return SameKeys::Differs { matched: j, pos: (j + 1) as pyo3::ffi::Py_ssize_t, k, v };
        }
        if !cols[col].push(&v, i, n, small_ints, true) {
            return SameKeys::Fails;
        }
    }
    SameKeys::All
}

/// The records of `obj` gathered (see [`Gathered`]); `None` for anything
/// else (the caller then takes the general path, which gives the same
/// bytes, or the error): values of other types, keys other than exact str,
/// keys that make a map rather than a struct, key orders that conflict.
///
/// With `learned` (an `xbf.Encoder`'s), the columns' buffers are those of
/// its last call, and the type is the one it inferred then when these
/// records have the same keys in one order with the same kinds of values
/// (see [`Learned`]); otherwise it learns this call's.
pub(crate) fn gather(obj: &Bound<'_, PyAny>, mut learned: Option<&mut Learned>) -> PyResult<Option<Gathered>> {
    let Ok(list) = obj.downcast_exact::<PyList>() else { return Ok(None) };
    let n = list.len();
    // Whether ints are read in place (checked once a process).
    let small_ints = small_ints_ok(obj.py());
    // Whether records' dicts are read in place (checked once a process).
    let in_place = dict_entries_ok(obj.py());
    let mut cols: Vec<RawColumn> = Vec::new();
    let mut spare = learned.as_deref_mut().map(Learned::take_spare).unwrap_or_default();
    let mut keys = Keys::default();
    // Each order of keys met, with the records that had it; `run`, the one
    // of the record before.
    let mut runs = Runs::default();
    let mut run = 0;
    let mut all_keys = 0u64;
    // The key objects of the record before, in its order, and their
    // columns: a record with the same ones repeats its run. `prev_keys` are
    // their addresses (which `prev` keeps alive) with their columns, and
    // `prev_cols` the columns alone (the run's keys).
    let mut prev: Vec<Bound<'_, PyAny>> = Vec::new();
    let mut prev_keys: Vec<(*mut pyo3::ffi::PyObject, usize)> = Vec::new();
    let mut prev_cols: Vec<usize> = Vec::new();
    for i in 0..n {
        // The list's item borrowed, not counted (`list_item`): the fast path
        // below runs no Python code, so nothing changes the list that holds
        // it; the slow way, which may, takes its own reference first.
        let Some(item) = list_item(list, i) else { return Ok(None) };
        let Ok(d) = item.downcast_exact::<PyDict>() else { return Ok(None) };
        let mut pos = 0;
        // The fast path: the keys of the record before, in its order, by
        // identity; each value gathered as its key is checked.
        let mut matched = 0;
        let mut pending = None;
        if i > 0 && d.len() == prev.len() {
            // SAFETY (both walks): the keys and values are borrowed from `d`,
            // and no Python code runs and no Python object is made from here
            // to the end of this walk: `push` reads exact str, float, int,
            // bool and None through C API calls that run none and allocate no
            // Python object (so no garbage collection either); where one
            // fails (raising), the walk stops at once, the references unused
            // after. So `d`'s table stays as `DictEntries::of` found it.
            // SAFETY: the GIL is held, and the walk's argument above.
            let entries = unsafe { DictEntries::of(d, in_place) };
            if let Some(e) = entries {
                // Its entries read in place, in a function of its own.
                let (cols, at) = (&mut cols[..], (i, n, small_ints));
                // SAFETY: `e` is `d`'s entries, and the walk's argument above;
                // each function's layout of entries checked.
                let walk = unsafe {
                    if e.str_keyed() && e.len == prev_keys.len() {
                        same_keys_dense(d, e, &prev_keys, cols, at)
                    } else if e.str_keyed() {
                        same_keys::<true>(d, e, &prev_keys, cols, at)
                    } else {
                        same_keys::<false>(d, e, &prev_keys, cols, at)
                    }
                };
                match walk {
                    SameKeys::All => {}
                    SameKeys::Differs { matched: m, pos: p, k, v } => {
                        (matched, pos) = (m, p);
                        pending = Some((k.to_owned(), v.to_owned()));
                    }
                    SameKeys::Fails => return Ok(None),
                }
            } else {
                for &(key, col) in &prev_keys {
                    // SAFETY: the walk's argument above.
                    let Some((k, v)) = (unsafe { dict_next_borrowed(d, &mut pos) }) else { return Ok(None) };
                    if k.as_ptr() != key {
                        pending = Some((k.to_owned(), v.to_owned()));
                        break;
                    }
                    if !cols[col].push(&v, i, n, small_ints, true) {
                        return Ok(None);
                    }
                    matched += 1;
                }
            }
            if pending.is_none() {
                runs.runs[run].records += 1;
                all_keys += prev.len() as u64;
                continue;
            }
        }
        // The slow way, from the first key that differs: each key looked up.
        // Its own reference to the record: what it runs may change the list.
        let d = d.clone();
        let d = &d;
        prev.truncate(matched);
        prev_keys.truncate(matched);
        prev_cols.truncate(matched);
        let mut next = pending;
        loop {
            let Some((k, v)) = next.take().or_else(|| dict_next(d, &mut pos)) else { break };
            let Some(col) = keys.column(&k) else { return Ok(None) };
            if col == cols.len() {
                // Keys that look like data (a map so far, as
                // `Objects::is_map` counts): the general path. (Otherwise a
                // kind for every record and key is no more than the general
                // path's value for every record and field.)
                let distinct = col as u64 + 1;
                let so_far = all_keys + prev.len() as u64 + 1;
                if distinct > MAP_MIN_KEYS && distinct.saturating_mul(i as u64 + 1) > MAP_KEY_RATIO * so_far {
                    return Ok(None);
                }
                cols.push(spare.pop().unwrap_or_default());
            }
            if !cols[col].push(&v, i, n, small_ints, false) {
                return Ok(None);
            }
            prev_keys.push((k.as_ptr(), col));
            prev_cols.push(col);
            prev.push(k);
        }
        all_keys += prev.len() as u64;
        run = runs.index(&prev_cols);
        runs.runs[run].records += 1;
    }
    if let Some(l) = learned.as_deref_mut() {
        l.keep_spare(spare);
    }
    if cols.is_empty() {
        return Ok(None);
    }
    for col in &mut cols {
        col.finish(n);
    }
    // One order of keys, all the records': the type depends only on the
    // keys' names and the kinds of their values (one edge path, no key
    // optional, never a map), so the one learned for the same is reused.
    let one_order = runs.runs.len() == 1;
    if one_order {
        if let Some(typed) = learned.as_deref().and_then(|l| l.type_for(&keys.objects, &cols)) {
            return Ok(Some(Gathered { cols, typed, n }));
        }
    }
    // Inference's objects, given each order of keys once, in the order
    // they were first met, then repeated: the same edges, counts and fields,
    // in the same order of first appearance (a key first appears in the
    // first record of its order), as one record at a time would give;
    // checked below, field by field, against the columns.
    let mut o = Obj::new(OBJECT_STRUCT);
    for run in &runs.runs {
        o.objects.begin();
        for &col in &run.cols {
            o.objects.key(&keys.names[col], || Slot { key: keys.objects[col].clone(), shape: Shape::Never });
        }
        if !o.objects.last().iter().map(|&s| s as usize).eq(run.cols.iter().copied()) {
            return Ok(None);
        }
        o.objects.repeat_n(run.records - 1);
    }
    for (f, col) in o.objects.fields_mut().iter_mut().zip(&cols) {
        f.shape.shape = col.shape();
    }
    // The struct's fields in its order, each with its column (the fields of
    // `o` are in order of first appearance, as the columns).
    let Resolved::Struct(order) = o.objects.resolve() else { return Ok(None) };
    let fields = o.objects.fields();
    let slots: Vec<usize> = order
        .iter()
        .map(|f| fields.iter().position(|g| std::ptr::eq(g, *f)).expect("a field of the objects"))
        .collect();
    let shape = Shape::Vec(Box::new(Shape::Obj(Box::new(o))));
    let ty = shape.metadata().map_err(encode_err)?;
    let Metadata::Vec(elem) = &ty else { return Ok(None) };
    if !matches!(&**elem, Metadata::Struct(_)) || elem.is_zero_size() {
        return Ok(None);
    }
    let meta = EncodeOptions::v2().encode_metadata(&ty).map_err(encode_err)?;
    let typed = Arc::new(RecordsType { ty, meta, slots });
    if one_order {
        if let Some(l) = learned {
            l.learn(&keys.objects, &cols, typed.clone());
        }
    }
    Ok(Some(Gathered { cols, typed, n }))
}

impl Gathered {
    /// The core's `Layout::Auto` test (`xbf::worth_columns`, which
    /// `columns::worth_columns` runs on Python objects) on these records: a
    /// list of `n` records whose fields are all scalars. Measured: the walk
    /// on the objects (a list of keys and one of values made for each of the
    /// first four records) cost ~25,000 instructions a call on sp500.
    pub(crate) fn worth_columns(&self) -> bool {
        // 0: the list, 1: a record (its fields add no items).
        xbf::worth_columns(0u8, &|level| {
            if level == 0 {
                Repeats::List(self.n, vec![1; self.n.min(4)])
            } else {
                Repeats::Fields(Vec::new())
            }
        })
    }

    /// The struct type of the records.
    fn record(&self) -> &xbf::StructMetadata {
        self.typed.record()
    }
}

impl RecordsType {
    /// The struct type of the records.
    fn record(&self) -> &xbf::StructMetadata {
        match &self.ty {
            Metadata::Vec(elem) => match &**elem {
                Metadata::Struct(s) => s,
                _ => unreachable!("gather makes a vec of structs"),
            },
            _ => unreachable!("gather makes a vec of structs"),
        }
    }
}

impl Gathered {
    /// The columnar message, written through the core's column builder, and
    /// the least the rows message can take (each varint one byte: its exact
    /// size needs a walk of every value, which only a close call needs);
    /// `None` for a type this path does not take. The gathered columns are moved into the builder (no copy) and,
    /// when `keep` (the rows may be wanted, or an encoder reuses the
    /// buffers), moved back after.
    pub(crate) fn columns(&mut self, zstd: Option<i32>, keep: bool) -> PyResult<Option<(Vec<u8>, usize)>> {
        let typed = self.typed.clone();
        let fields: Vec<&Metadata> = typed.record().fields().map(|(_, t)| t).collect();
        let mut columns = xbf::Columns::new(&typed.ty);
        let records = columns.root().push_len(self.n).map_err(encode_err)?;
        // The rows message: the length of the list, then each record's fields.
        let mut rows_min = uvarint_len(self.n as u64);
        let mut filled = 0;
        let mut failed = false;
        for (i, (&fty, &slot)) in fields.iter().zip(&typed.slots).enumerate() {
            let node = records.field(i).map_err(encode_err)?;
            match fill_key(node, fty, &mut self.cols[slot]).map_err(encode_err)? {
                Some(r) => rows_min += r,
                None => {
                    failed = true;
                    break;
                }
            }
            filled += 1;
        }
        let cols = if failed {
            None
        } else {
            Some(
                EncodeOptions::v2()
                    .compress_columns(zstd)
                    .map_err(encode_err)?
                    .encode_columns_kept(&mut columns)
                    .map_err(encode_err)?,
            )
        };
        let rows_min = 2 + typed.meta.len() + rows_min;
        // The columns back where the rows (or the next call) read them.
        let records = columns.root().push_len(0).map_err(encode_err)?;
        if keep || failed || cols.as_ref().is_some_and(|c| c.len() >= rows_min) {
            for (i, (&fty, &slot)) in fields.iter().zip(&typed.slots).enumerate().take(filled) {
                unfill_key(records.field(i).map_err(encode_err)?, fty, &mut self.cols[slot]).map_err(encode_err)?;
            }
        }
        Ok(cols.map(|c| (c, rows_min)))
    }

    /// The rows message (XBF 2) of the records, the bytes the rows encoder
    /// writes for this type, from the gathered columns; `size` a guess of
    /// its length. `None` for a type this path does not take.
    pub(crate) fn rows(&self, size: usize) -> PyResult<Option<Vec<u8>>> {
        let fields: Vec<&Metadata> = self.record().fields().map(|(_, t)| t).collect();
        crate::records_rows::rows_of(&self.typed.meta, &fields, &self.cols, &self.typed.slots, self.n, size)
            .map_err(encode_err)
    }
}

/// Pushes the values of one key into its column node of type `ty`: for a
/// key some records lack, a `json.optional` tag for each record, then the
/// values of those that have it. The least they take in the rows layout
/// (each varint one byte), or `None` for a type this path does not take. The column's buffers are
/// moved into the node ([`unfill_key`] moves them back).
fn fill_key(node: &mut xbf::ColumnNode, ty: &Metadata, col: &mut RawColumn) -> xbf::Result<Option<usize>> {
    if !col.absent {
        // Only `option` and `any` read the kinds (a column of one kind has
        // neither type).
        let kinds = if col.mixed {
            std::mem::take(&mut col.kinds)
        } else if matches!(ty, Metadata::Option(_) | Metadata::Any) {
            col.kinds().into_owned()
        } else {
            Vec::new()
        };
        let r = fill(node, ty, col, &kinds);
        if col.mixed {
            col.kinds = kinds;
        }
        return r;
    }
    let Some(present_ty) = optional_key_inner(ty) else { return Ok(None) };
    let tags: Vec<usize> = col.kinds.iter().map(|&k| usize::from(k != K_ABSENT)).collect();
    let kinds: Vec<u8> = col.kinds.iter().copied().filter(|&k| k != K_ABSENT).collect();
    let mut nodes = node.extend_variants(&tags)?;
    // A byte for each record's tag (0 or 1), then the values present.
    Ok(fill(nodes.swap_remove(1), present_ty, col, &kinds)?.map(|r| r + tags.len()))
}

/// The type of the present values of a key some records lack (variant 1 of
/// its `json.optional` enum).
fn optional_key_inner(ty: &Metadata) -> Option<&Metadata> {
    let Metadata::Enum(e) = ty else { return None };
    e.variant_at(1).filter(|_| is_optional_key(ty)).map(|(_, t)| t)
}

/// The primitive types of flat records' values.
fn prim(t: &Metadata) -> Option<P> {
    match t {
        Metadata::Primitive(p @ (P::Unit | P::Bool | P::F64 | P::String | P::U64 | P::I64)) => Some(*p),
        _ => None,
    }
}

/// Moves the values of `col` of primitive type `p` into `node` (those of
/// all its kinds but None: inference gave them this type); the least they
/// take in rows (each varint one byte).
fn take_scalars(node: &mut xbf::ColumnNode, p: P, col: &mut RawColumn) -> xbf::Result<usize> {
    use std::mem::take;
    Ok(match p {
        P::Unit => 0,
        P::Bool => {
            let n = col.bools.len();
            node.take_bool(take(&mut col.bools))?;
            n
        }
        P::F64 => {
            let n = col.floats.len();
            node.take_f64(take(&mut col.floats))?;
            8 * n
        }
        P::String => {
            let rows = col.ends.last().map_or(0, |&end| end + col.ends.len());
            // One check of the whole text (each string was valid).
            let text = String::from_utf8(take(&mut col.text)).map_err(|e| {
                xbf::Error::new(xbf::ErrorKind::TypeMismatch, format!("strings that are not UTF-8: {e}"))
            })?;
            node.take_str(text, take(&mut col.ends))?;
            rows
        }
        P::U64 => {
            let rows = col.ints.len();
            node.take_u64(take(&mut col.ints))?;
            rows
        }
        P::I64 => {
            let rows = col.ints.len();
            // The bits of each i64, as i64s: collected in place.
            node.take_i64(take(&mut col.ints).into_iter().map(|x| x as i64).collect())?;
            rows
        }
        _ => unreachable!("a primitive of flat records"),
    })
}

/// Moves back into `col` what [`take_scalars`] moved into `node`.
fn untake_scalars(node: &mut xbf::ColumnNode, p: P, col: &mut RawColumn) -> xbf::Result<()> {
    match p {
        P::Unit => {}
        P::Bool => col.bools = node.drain_bool()?,
        P::F64 => col.floats = node.drain_f64()?,
        P::String => (col.text, col.ends) = node.drain_joined()?,
        P::U64 => col.ints = node.drain_u64()?,
        P::I64 => col.ints = node.drain_i64()?.into_iter().map(|x| x as u64).collect(),
        _ => unreachable!("a primitive of flat records"),
    }
    Ok(())
}

/// Moves back into `col` the buffers [`fill_key`] moved into `node` (none
/// for a column of `any`, which is copied).
fn unfill_key(node: &mut xbf::ColumnNode, ty: &Metadata, col: &mut RawColumn) -> xbf::Result<()> {
    let (node, ty) = match optional_key_inner(ty) {
        Some(t) if col.absent => (node.extend_variants(&[])?.swap_remove(1), t),
        _ => (node, ty),
    };
    let (node, ty) = match ty {
        Metadata::Option(inner) => (node.extend_options(&[])?, &**inner),
        t => (node, t),
    };
    match prim(ty) {
        Some(p) => untake_scalars(node, p, col),
        None => Ok(()),
    }
}

/// Pushes the values of one key (`kinds`: of the records that have it) into
/// its column node of type `ty`, as
/// `to_value` would have converted them; the least they take in the rows
/// layout (each varint one byte), or `None` for a type that path does not
/// take.
fn fill(node: &mut xbf::ColumnNode, ty: &Metadata, col: &mut RawColumn, kinds: &[u8]) -> xbf::Result<Option<usize>> {
    // The values of a primitive type (inference gave it to every value but
    // None), copied: for `any`, whose nodes are not moved back.
    let scalars = |node: &mut xbf::ColumnNode, p: P, col: &RawColumn| -> xbf::Result<usize> {
        Ok(match p {
            P::Unit => 0,
            P::Bool => {
                node.extend_bool(&col.bools)?;
                col.bools.len()
            }
            P::F64 => {
                node.extend_f64(&col.floats)?;
                8 * col.floats.len()
            }
            P::String => {
                // One check of the whole text (each string was valid).
                let text = std::str::from_utf8(&col.text).map_err(|e| {
                    xbf::Error::new(xbf::ErrorKind::TypeMismatch, format!("strings that are not UTF-8: {e}"))
                })?;
                node.extend_str(text, &col.ends)?;
                col.ends.last().map_or(0, |&end| end + col.ends.len())
            }
            _ => unreachable!("ints of any are split by sign"),
        })
    };
    match ty {
        Metadata::Any => {
            // Each scalar as a value of `any`: its type (as `to_value`
            // chooses: ints from 0 up as u64), the types in first-seen
            // order; then the values of each type at once.
            const TYPES: [P; 6] = [P::Unit, P::Bool, P::U64, P::I64, P::F64, P::String];
            let (mut order, mut slot_at) = (Vec::new(), [usize::MAX; 6]);
            let (mut u64s, mut i64s) = (Vec::new(), Vec::new());
            let mut ints = col.ints.iter();
            let tags: Vec<usize> = kinds
                .iter()
                .map(|&kind| {
                    let slot = match kind {
                        K_NULL => 0,
                        K_BOOL => 1,
                        K_INT | K_UINT => {
                            let x = *ints.next().expect("an int for each int kind");
                            if kind == K_UINT || (x as i64) >= 0 {
                                u64s.push(x);
                                2
                            } else {
                                i64s.push(x as i64);
                                3
                            }
                        }
                        K_FLOAT => 4,
                        _ => 5,
                    };
                    if slot_at[slot] == usize::MAX {
                        slot_at[slot] = order.len();
                        order.push(slot);
                    }
                    slot_at[slot]
                })
                .collect();
            let types: Vec<Metadata> = order.iter().map(|&slot| TYPES[slot].into()).collect();
            let nodes = node.extend_any(&types, &tags)?;
            // A byte for each value's type, then the values.
            let mut rows = tags.len();
            for (node, &slot) in nodes.into_iter().zip(&order) {
                rows += match slot {
                    2 => {
                        node.extend_u64(&u64s)?;
                        u64s.len()
                    }
                    3 => {
                        node.extend_i64(&i64s)?;
                        i64s.len()
                    }
                    _ => scalars(node, TYPES[slot], col)?,
                };
            }
            Ok(Some(rows))
        }
        Metadata::Option(inner) => {
            let Some(p) = prim(inner) else { return Ok(None) };
            let present: Vec<bool> = kinds.iter().map(|&k| k != K_NULL).collect();
            let inner = node.extend_options(&present)?;
            Ok(Some(present.len() + take_scalars(inner, p, col)?))
        }
        t => {
            let Some(p) = prim(t) else { return Ok(None) };
            Ok(Some(take_scalars(node, p, col)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RawColumn, Runs, K_INT, K_NULL, K_UINT};
    use xbf::infer::Ints;

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

    /// Runs found by comparison (up to `Runs::SCAN`) and then by hash: the
    /// index of each order of keys is that of its first appearance.
    #[test]
    fn runs_index_each_order_by_first_appearance() {
        for orders in [1usize, 2, Runs::SCAN, Runs::SCAN + 1, 40] {
            let mut runs = Runs::default();
            let mut first: Vec<Vec<usize>> = Vec::new();
            for i in 0..200usize {
                // Orders of different lengths and shared prefixes, met out of order.
                let o = (i * 7 + i / 3) % orders;
                let cols: Vec<usize> = (0..o % 5).chain([o, 100 - o]).collect();
                let want = first.iter().position(|c| *c == cols).unwrap_or_else(|| {
                    first.push(cols.clone());
                    first.len() - 1
                });
                assert_eq!(runs.index(&cols), want, "{orders} orders, record {i}");
            }
            assert_eq!(runs.runs.iter().map(|r| r.cols.clone()).collect::<Vec<_>>(), first);
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
