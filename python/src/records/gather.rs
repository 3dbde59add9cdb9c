//! The walk over the records: [`gather`] reads a list of dicts once, each
//! value into its key's column, the dicts' entries read in place while a
//! record repeats the keys of the one before ([`same_keys`],
//! [`same_keys_dense`]), then infers the records' type from the columns and
//! the orders of keys.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::Borrowed;
use std::sync::Arc;

use xbf::infer::{Resolved, Slot, MAP_KEY_RATIO, MAP_MIN_KEYS, OBJECT_STRUCT};
use xbf::{EncodeOptions, Metadata};

use super::column::RawColumn;
use super::keys::{Keys, Orders, Runs};
use super::{Gathered, RecordsType};
use crate::errors::encode_err;
use crate::infer::{Obj, Shape};
use crate::learned::Learned;
use crate::raw::{
    dict_entries_ok, dict_next, dict_next_borrowed, list_item, prefetch, small_ints_ok, DictEntries, StrEntries,
};

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
/// As [`same_keys`], with `e` `d`'s entries, a table of str keys of
/// `keys.len()` entries.
#[inline(never)]
unsafe fn same_keys_dense<'a, 'py>(
    d: &'a Bound<'py, PyDict>,
    e: StrEntries,
    keys: &[(*mut pyo3::ffi::PyObject, usize)],
    cols: &mut [RawColumn],
    (i, n, small_ints): (usize, usize, bool),
) -> SameKeys<'a, 'py> {
    for (j, &(key, col)) in keys.iter().enumerate() {
        // SAFETY: `j < keys.len()`, the table's entries, and the caller's
        // contract (`d`'s table unchanged since `e` was read).
        let (k, v) = unsafe { e.get(j) };
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

/// Records in one batch of [`dense_batch`] at most: their tables read
/// again, key by key, while in the cache. Each batch costs a
/// `push_entries` call a column (its set-up, a string column's
/// reservations: ~200 instructions), which 64 records a batch paid twice
/// as often; 128 records of 14 keys (birdstrikes) are ~100 KiB of values
/// and tables, in the L2 cache still.
const BATCH: usize = 128;

/// How many records ahead of the one it checks [`dense_batch`] asks for a
/// record's keys table (and twice as many for its dict object), when it
/// asks ([`prefetch_ahead`]).
const AHEAD: usize = 8;

/// Whether [`dense_batch`] asks for the memory of records ahead: when what
/// a walk of the `n` records of `keys` keys reads (about a cache line for
/// each record's dict, its table and each value) is more than this many
/// bytes, several times the L2 cache of today's cores, so that the records
/// met again in the next call are no longer in it. Below, the lines are
/// mostly in the cache already, and the requests only cost instructions.
const AHEAD_FROM_BYTES: usize = 8 << 20;

/// Whether a walk of `n` records of `keys` keys asks for records ahead
/// ([`AHEAD_FROM_BYTES`]).
fn prefetch_ahead(n: usize, keys: usize) -> bool {
    n.saturating_mul(keys + 2).saturating_mul(64) > AHEAD_FROM_BYTES
}

/// The records from `i` on (up to [`BATCH`] of them, up to the first that
/// differs) whose dicts have the key objects of the record before (`keys`,
/// each with its column) in its order, in a table of str keys with no
/// deleted entry: their entries (`batch`), whose number is returned. Their
/// values are then gathered a column at a time
/// ([`RawColumn::push_entries`]), with no test of the kind a value while
/// a column keeps it, rather than a record at a time as
/// [`same_keys_dense`] does.
///
/// With `ahead` ([`prefetch_ahead`]), the memory the walk reads next is
/// asked for as each record is checked ([`prefetch`]: a hint, which reads
/// nothing): the dict object of the record `2 * AHEAD` on, the keys table
/// of the record `AHEAD` on (its dict object asked for `AHEAD` records
/// before), and the values of the record checked, which `push_entries`
/// reads once the batch is checked. The walk is a chain of loads (list,
/// dict, table, value) that each miss the cache on a large list, since
/// nothing between calls keeps them there; asked for ahead, they are on
/// their way while the records before are read.
///
/// # Safety
///
/// The GIL is held, dicts' entries may be read in place
/// ([`dict_entries_ok`]), and `batch` is read only under
/// [`DictEntries::of`]'s contract.
unsafe fn dense_batch(
    list: &Bound<'_, PyList>,
    i: usize,
    keys: &[(*mut pyo3::ffi::PyObject, usize)],
    batch: &mut [StrEntries; BATCH],
    ahead: bool,
) -> usize {
    // SAFETY: the caller's contract.
    unsafe {
        if ahead {
            dense_batch_of::<true>(list, i, keys, batch)
        } else {
            dense_batch_of::<false>(list, i, keys, batch)
        }
    }
}

/// [`dense_batch`], a loop for each of `ahead`'s values (the loop without
/// is the one before it could ask).
///
/// # Safety
///
/// As [`dense_batch`].
#[inline(always)]
unsafe fn dense_batch_of<const AHEAD_ON: bool>(
    list: &Bound<'_, PyList>,
    i: usize,
    keys: &[(*mut pyo3::ffi::PyObject, usize)],
    batch: &mut [StrEntries; BATCH],
) -> usize {
    let mut b = 0;
    while b < BATCH {
        let r = i + b;
        // SAFETY: the caller's contract.
        let Some(e) = (unsafe { entries_with_keys::<AHEAD_ON>(list, r, keys) }) else { break };
        if AHEAD_ON {
            if let Some(item) = list_item(list, r + 2 * AHEAD) {
                prefetch(item.as_ptr());
            }
            if let Some(item) = list_item(list, r + AHEAD) {
                if let Ok(d) = item.downcast_exact::<PyDict>() {
                    // SAFETY: the GIL is held (the caller's contract) and `d`
                    // is a live dict, which the list holds.
                    unsafe { DictEntries::prefetch_table(d, keys.len()) };
                }
            }
        }
        batch[b] = e;
        b += 1;
    }
    b
}

/// The entries of record `r` of `list` if it is a dict whose table holds
/// str keys, none deleted, that are the key objects `keys` in that order
/// (compared by identity); `None` otherwise. With `PREFETCH`, each value
/// of the entries compared is asked for ([`prefetch`], for `push_entries`,
/// which reads them once the batch is checked), as its key is read: a loop
/// of its own over the values after this one cost ~4 instructions a key.
///
/// # Safety
///
/// As [`dense_batch`].
// Inlined: out of line, its set-up for the keys was made again a record,
// and the calls of `order_of` that fail at the length cost a call each.
#[inline(always)]
unsafe fn entries_with_keys<const PREFETCH: bool>(
    list: &Bound<'_, PyList>,
    r: usize,
    keys: &[(*mut pyo3::ffi::PyObject, usize)],
) -> Option<StrEntries> {
    let item = list_item(list, r)?;
    let d = item.downcast_exact::<PyDict>().ok()?;
    if d.len() != keys.len() {
        return None;
    }
    // SAFETY: the caller's contract.
    let e = unsafe { DictEntries::str_keyed_of(d, true, keys.len()) }?;
    // As many live entries (`d.len()`) as entries: none is deleted, so no
    // value is NULL (`push_entries` reads them); only the keys are compared,
    // two at a time (one branch for both: a loop of one a key cost six
    // instructions a key).
    let key = |j: usize| {
        // SAFETY: each `j` below is `< keys.len()`, the table's entries,
        // read under the caller's contract.
        let (k, v) = unsafe { e.get(j) };
        if PREFETCH {
            prefetch(v);
        }
        k as usize
    };
    let pairs = keys.chunks_exact(2);
    let last = pairs.remainder();
    for (p, pair) in pairs.enumerate() {
        let j = 2 * p;
        if (key(j) ^ pair[0].0 as usize) | (key(j + 1) ^ pair[1].0 as usize) != 0 {
            return None;
        }
    }
    match last {
        [(k, _)] if key(keys.len() - 1) != *k as usize => None,
        _ => Some(e),
    }
}

/// The order among `orders` whose key objects are those of record `i` of
/// `list` ([`entries_with_keys`]); `None` if none is.
///
/// # Safety
///
/// As [`dense_batch`].
unsafe fn order_of(list: &Bound<'_, PyList>, i: usize, orders: &Orders<'_>) -> Option<usize> {
    // SAFETY: the caller's contract.
    orders.orders.iter().position(|o| unsafe { entries_with_keys::<false>(list, i, &o.keys) }.is_some())
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
// Out of line (one call a `dumps`), so that profiles (python/bench/callgrind_parts.py) count the walk apart from
// its caller.
#[inline(never)]
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
    // A few orders of key objects met, to change to without the slow way.
    let mut orders = Orders::default();
    // Records from `i` on that repeat the keys of the record before, their
    // tables read in place (`dense_batch`), and the first record after them.
    let mut batch = [StrEntries::default(); BATCH];
    let mut batched_to = 0;
    // Whether the batches ask for the records ahead: from the first
    // record's number of keys (a guess: the records' keys may differ).
    let mut ahead = None;
    for i in 0..n {
        if i < batched_to {
            continue;
        }
        if i > 0 && in_place {
            let ask = *ahead.get_or_insert_with(|| prefetch_ahead(n, prev_keys.len()));
            // SAFETY: the GIL is held; the entries are read (by
            // `push_entries`) before any Python code runs or Python object
            // is made: `push` runs none, and makes none but where it fails
            // (an exception object), after which the walk stops at once and
            // reads no entry again (the walk's argument below); the list,
            // which holds the records, is unchanged.
            let mut b = unsafe { dense_batch(list, i, &prev_keys, &mut batch, ask) };
            if b == 0 && !orders.orders.is_empty() {
                // A record whose keys are not the record before's: if they
                // are the key objects of an order met before, that order
                // becomes the record before's, and the record starts a
                // batch of it. Its columns' records since each last had the
                // key lack it (as `push_slow` marks them).
                // SAFETY: the GIL is held, and the argument above.
                if let Some(o) = unsafe { order_of(list, i, &orders) } {
                    let o = &orders.orders[o];
                    prev.clear();
                    prev.extend(o.objects.iter().cloned());
                    prev_keys.clear();
                    prev_keys.extend_from_slice(&o.keys);
                    prev_cols.clear();
                    prev_cols.extend(o.keys.iter().map(|&(_, col)| col));
                    run = o.run;
                    for &col in &prev_cols {
                        cols[col].pad_to(i, n);
                    }
                    // SAFETY: as above (the key objects are kept alive by
                    // `prev`).
                    b = unsafe { dense_batch(list, i, &prev_keys, &mut batch, ask) };
                    debug_assert!(b > 0, "record {i} has the order's keys");
                }
            }
            if b == 1 {
                // One record (countries.json's first and last of a series,
                // each an order of its own): walked a value at a time, one
                // call rather than one per column.
                let Some(item) = list_item(list, i) else { return Ok(None) };
                let Ok(d) = item.downcast_exact::<PyDict>() else { return Ok(None) };
                // SAFETY: `batch[0]` is `d`'s entries (a table of str keys
                // with an entry for each of `prev_keys`, as `dense_batch`
                // found it), and the argument above.
                match unsafe { same_keys_dense(d, batch[0], &prev_keys, &mut cols, (i, n, small_ints)) } {
                    SameKeys::All => {}
                    _ => return Ok(None),
                }
            } else if b > 0 {
                for (j, &(_, col)) in prev_keys.iter().enumerate() {
                    // SAFETY: `batch` holds tables of str keys with an entry
                    // for each key (`j` among them), values non-null, and
                    // the argument above.
                    if !unsafe { cols[col].push_entries(obj.py(), &batch[..b], j, (i, n, small_ints)) } {
                        return Ok(None);
                    }
                }
            }
            if b > 0 {
                runs.runs[run].records += b as u64;
                all_keys += (prev.len() * b) as u64;
                batched_to = i + b;
                continue;
            }
        }
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
                        same_keys_dense(d, e.str_entries(), &prev_keys, cols, at)
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
        // Room for the record's keys at once (a wide record's grew each
        // buffer a few times), and for the first record's columns.
        let more = d.len().saturating_sub(matched);
        prev.reserve(more);
        prev_keys.reserve(more);
        prev_cols.reserve(more);
        if i == 0 {
            keys.reserve(more);
            cols.reserve(more);
        }
        let mut next = pending;
        loop {
            let Some((k, v)) = next.take().or_else(|| dict_next(d, &mut pos)) else { break };
            let Some(col) = keys.column(&k, i == 0) else { return Ok(None) };
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
        if in_place {
            orders.remember(&prev, &prev_keys, run);
        }
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
    let (ty, slots) = if one_order && runs.runs[0].cols.iter().copied().eq(0..cols.len()) {
        one_order_type(&keys, &cols)?
    } else {
        let Some(typed) = orders_type(&keys, &runs, &cols)? else { return Ok(None) };
        typed
    };
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

/// The type of records that all had the keys of `keys` in the order met
/// (their columns, `cols`, numbered in that order), and each field's
/// column (its own): the struct of those fields in that order, none
/// optional, each of its column's shape. What inference's objects give
/// ([`orders_type`]) for one order of keys, without them (they hash each
/// name and each pair of neighbours, and sort the fields by their edges
/// twice, which on wide records cost as much as their set-up): their edges
/// are the chain of the keys in that order, each key in every record, and
/// never a map (the keys of every record are all the distinct keys).
fn one_order_type(keys: &Keys<'_>, cols: &[RawColumn]) -> PyResult<(Metadata, Vec<usize>)> {
    let fields = keys.names.iter().zip(cols).map(|(name, col)| Ok((name.as_str(), col.shape().metadata()?)));
    let fields = fields.collect::<xbf::Result<Vec<_>>>().map_err(encode_err)?;
    let record = xbf::StructMetadata::new(OBJECT_STRUCT, fields).map_err(encode_err)?;
    Ok((Metadata::vec(record.into()), (0..cols.len()).collect()))
}

/// The type of records whose orders of keys are `runs` (their columns,
/// `cols`, numbered in order of first appearance), and the column of each
/// of its fields in its order; `None` where the keys do not make a struct
/// (a map, or orders that conflict: the general path).
fn orders_type(keys: &Keys<'_>, runs: &Runs, cols: &[RawColumn]) -> PyResult<Option<(Metadata, Vec<usize>)>> {
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
    for (f, col) in o.objects.fields_mut().iter_mut().zip(cols) {
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
    Ok(Some((shape.metadata().map_err(encode_err)?, slots)))
}
