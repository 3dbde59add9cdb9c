//! Raw `pyo3::ffi` calls kept because they measured >= 5% faster than the
//! safe PyO3 API. The crate's other `unsafe` code (the gather's reads of
//! string objects and its runs, pyobj.rs and records/column.rs) is listed
//! with its measured gains in python/UNSAFE.md.
//! (`unsafe_op_in_unsafe_fn` is denied here rather than crate-wide because
//! PyO3 0.22's `#[pymethods]`/`#[pyfunction]` expansions trip it.)

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::mem::MaybeUninit;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyList, PyLong, PyString, PyTuple, PyType};
use pyo3::Borrowed;

/// One step of `PyDict_Next`: the entry of `d` at or after `*pos`, as new
/// references, and `*pos` moved past it. Measured: about 10% of `dumps` on
/// lists of records against `PyDict::iter` (python/UNSAFE.md).
#[inline]
pub(crate) fn dict_next<'py>(
    d: &Bound<'py, PyDict>,
    pos: &mut ffi::Py_ssize_t,
) -> Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = d.py();
    let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: the GIL is held (`py` is a `Python<'py>` token). `d` is a live
    // dict (a `Bound<PyDict>`, so type-checked, and it holds a reference), and
    // `k`, `v`, `pos` are valid for writes. `*pos` is 0 or what the previous
    // call on this dict left there; CPython's PyDict_Next checks it against
    // the dict's current entry table on every call, so even if Python code
    // changed the dict between two calls, it reads only live entries (the
    // keys themselves are then checked again by the caller). When it returns
    // non-zero, `k` and `v` are non-null borrowed references owned by the
    // dict; they become owned references (`from_borrowed_ptr` increments
    // their counts) at once, before any Python code can run and mutate the
    // dict, so they stay valid after that.
    unsafe {
        if ffi::PyDict_Next(d.as_ptr(), pos, &mut k, &mut v) == 0 {
            return None;
        }
        Some((Bound::from_borrowed_ptr(py, k), Bound::from_borrowed_ptr(py, v)))
    }
}

/// [`dict_next`] without the reference counts: the entry of `d` at or after
/// `*pos`, borrowed from the dict. Measured: 2 of the 4 reference count
/// changes per value of `dumps` on lists of records (python/UNSAFE.md).
///
/// # Safety
///
/// The caller runs no Python code and creates no Python object (which may
/// start the garbage collector, and so finalizers) while it holds the two
/// references: only then does nothing change `d`, which keeps them alive.
#[inline]
pub(crate) unsafe fn dict_next_borrowed<'a, 'py>(
    d: &'a Bound<'py, PyDict>,
    pos: &mut ffi::Py_ssize_t,
) -> Option<(Borrowed<'a, 'py, PyAny>, Borrowed<'a, 'py, PyAny>)> {
    let py = d.py();
    let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: as for `dict_next` (the GIL is held, `d` is a live dict,
    // `*pos` is checked by CPython against the live entry table); when it
    // returns non-zero, `k` and `v` are non-null references borrowed from
    // the dict, valid as long as the dict does not change, which the
    // caller's contract (no Python code meanwhile) ensures.
    unsafe {
        if ffi::PyDict_Next(d.as_ptr(), pos, &mut k, &mut v) == 0 {
            return None;
        }
        Some((Borrowed::from_ptr(py, k), Borrowed::from_ptr(py, v)))
    }
}

/// Whether this build reads dicts' entries in place ([`DictEntries`]): the
/// layout of CPython 3.11 to 3.13 with the GIL (`python/build.rs` sets the
/// cfg), not abi3, PyPy or GraalPy.
pub(crate) const DICT_IN_PLACE: bool = cfg!(dict_entries_in_place);

/// The head of a dict's keys object in CPython 3.11 to 3.13 with the GIL
/// (`struct _dictkeysobject`, `Include/internal/pycore_dict.h`; the
/// free-threaded build has a lock after `dk_kind`, and no in-place walk):
/// the hash table's indices (`1 << dk_log2_index_bytes` bytes) follow at
/// once, then the entries.
#[cfg(dict_entries_in_place)]
#[repr(C)]
struct DictKeysHead {
    dk_refcnt: ffi::Py_ssize_t,
    dk_log2_size: u8,
    dk_log2_index_bytes: u8,
    /// 0: general entries (hash, key, value), 1: str keys (key, value),
    /// 2: split (the values elsewhere).
    dk_kind: u8,
    dk_version: u32,
    dk_usable: ffi::Py_ssize_t,
    /// Entries used so far, deleted ones (value NULL) included.
    dk_nentries: ffi::Py_ssize_t,
}

#[cfg(dict_entries_in_place)]
impl DictKeysHead {
    /// The keys object of dict `d` when its table is combined (`ma_values`
    /// NULL: the keys object holds the values too); else `None`.
    ///
    /// # Safety
    ///
    /// The GIL is held and `d` is a live dict (as [`DictEntries::of`]).
    #[inline(always)]
    unsafe fn combined(d: &Bound<'_, PyDict>) -> Option<*const DictKeysHead> {
        let p = d.as_ptr().cast::<ffi::PyDictObject>();
        // SAFETY: the GIL is held (the caller's contract) and `p` is a live
        // dict (a `Bound<PyDict>`, so type-checked: a dict or a subclass,
        // both with `PyDictObject`'s layout, which pyo3-ffi defines for this
        // version); its fields are read, not written. `ma_keys` of a dict is
        // never NULL (an empty dict points at CPython's shared empty keys).
        unsafe { (*p).ma_values.is_null().then(|| (*p).ma_keys.cast::<DictKeysHead>().cast_const()) }
    }

    /// Where the entries of a combined table start: right after the head
    /// and its `1 << dk_log2_index_bytes` bytes of hash indices.
    ///
    /// # Safety
    ///
    /// `keys` is from [`DictKeysHead::combined`], under its contract.
    #[inline(always)]
    unsafe fn entries(keys: *const DictKeysHead) -> *const *mut ffi::PyObject {
        // SAFETY: `keys` points at a live keys object whose layout starts
        // with this head (the caller's contract); the offset stays inside
        // that object (the indices, then the entries, follow the head).
        unsafe {
            keys.cast::<u8>().add(std::mem::size_of::<DictKeysHead>() + (1 << (*keys).dk_log2_index_bytes)).cast()
        }
    }
}

/// The entries of a dict's combined table, read in place: what
/// `PyDict_Next` walks, in its order (the order of insertion; a deleted
/// entry keeps its place with a NULL value), without a call a value.
/// Measured: `PyDict_Next` and the call's set-up were ~75 instructions a
/// value of `dumps` on lists of records (python/UNSAFE.md).
#[derive(Clone, Copy)]
pub(crate) struct DictEntries {
    /// The first entry's key (the hash, in general entries, is before it).
    first: *const *mut ffi::PyObject,
    /// Pointers from one entry to the next: 2 (str keys) or 3 (general).
    stride: usize,
    /// Entries, deleted ones included.
    pub(crate) len: usize,
}

impl DictEntries {
    /// The entries of `d` when its table is combined (`ma_values` NULL:
    /// every dict but instances' split `__dict__`s) and this build and
    /// process read them in place (`ok`: [`dict_entries_ok`]); else `None`
    /// (the caller walks with `PyDict_Next`).
    ///
    /// # Safety
    ///
    /// The caller holds the GIL and reads the entries ([`DictEntries::get`])
    /// only while no Python code has run and no Python object was made since
    /// this call (either could change `d`, and so move or free its table).
    #[inline(always)]
    pub(crate) unsafe fn of(d: &Bound<'_, PyDict>, ok: bool) -> Option<DictEntries> {
        #[cfg(dict_entries_in_place)]
        if ok {
            // SAFETY: the GIL is held (the caller's contract; `d` carries the
            // `'py` token too) and `d` is a live dict, kept alive by its
            // borrow (`DictKeysHead::combined`'s contract). `DictKeysHead` is
            // the head of the keys object in the versions this cfg is set for
            // (3.11 to 3.13, GIL; `python/build.rs`), checked against
            // `PyDict_Next` once a process (`dict_entries_ok`, `ok`). In a
            // combined table the keys object holds the values; its entries
            // (`DictKeysHead::entries`), `dk_nentries` of them, are each
            // `stride` pointers (the `PyDictUnicodeEntry` of kind 1, the
            // `PyDictKeyEntry` of kind 0, whose hash comes first). A kind
            // other than 0 or 1 (split keys are never combined) is not read.
            unsafe {
                let keys = DictKeysHead::combined(d)?;
                let kind = (*keys).dk_kind;
                if kind > 1 {
                    return None;
                }
                let stride = 3 - usize::from(kind);
                let first = DictKeysHead::entries(keys).add(stride - 2);
                return Some(DictEntries { first, stride, len: (*keys).dk_nentries as usize });
            }
        }
        let _ = (d, ok);
        None
    }

    /// Entry `i`'s key and value, as pointers borrowed from the dict; the
    /// value is NULL for a deleted entry (skip it, as `PyDict_Next` does).
    ///
    /// # Safety
    ///
    /// `i < self.len`, and the contract of [`DictEntries::of`] (no Python
    /// code run, no Python object made since) holds.
    #[inline(always)]
    pub(crate) unsafe fn get(&self, i: usize) -> (*mut ffi::PyObject, *mut ffi::PyObject) {
        // SAFETY: entry `i` of `len` lies in the keys object's entry array
        // (`of`), which is unchanged since `of` (the caller's contract); its
        // key and value are the two pointers at `first + i * stride`.
        unsafe {
            let e = self.first.add(i * self.stride);
            (*e, *e.add(1))
        }
    }

    /// Asks for the cache lines of dict `d`'s keys object ([`prefetch`]: a
    /// hint, read only as addresses) as far as its entries go when it is
    /// the table of `len` str keys, none deleted, of the size CPython gives
    /// a dict of `len` keys made one key at a time or all at once (the
    /// smallest of 8 slots or more of which two thirds hold them; a guess:
    /// a line more or less is asked for where it differs).
    ///
    /// # Safety
    ///
    /// The GIL is held and `d` is a live dict.
    #[inline(always)]
    pub(crate) unsafe fn prefetch_table(d: &Bound<'_, PyDict>, len: usize) {
        #[cfg(dict_entries_in_place)]
        {
            let p = d.as_ptr().cast::<ffi::PyDictObject>();
            // SAFETY: the GIL is held and `p` a live dict (the caller's
            // contract; `Bound<PyDict>` is type-checked): `ma_keys` is a
            // field of its `PyDictObject` layout, read, not written.
            let keys = unsafe { (*p).ma_keys }.cast::<u8>();
            let end = table_end_guess(len);
            let mut at = 0;
            while at < end {
                prefetch(keys.wrapping_add(at));
                at += 64;
            }
        }
        let _ = (d, len);
    }

    /// Whether the entries are those of str keys (two pointers each, read
    /// by [`DictEntries::get_str_keyed`]), the usual table of records.
    #[inline(always)]
    pub(crate) fn str_keyed(&self) -> bool {
        self.stride == 2
    }

    /// [`DictEntries::get`] of a table of str keys ([`DictEntries::str_keyed`]):
    /// the entry's place a shift rather than a multiplication by the stride.
    ///
    /// # Safety
    ///
    /// As [`DictEntries::get`], and `self.str_keyed()`.
    #[inline(always)]
    pub(crate) unsafe fn get_str_keyed(&self, i: usize) -> (*mut ffi::PyObject, *mut ffi::PyObject) {
        debug_assert!(self.str_keyed());
        // SAFETY: as in `get`, whose stride is 2 here (the caller's contract).
        unsafe {
            let e = self.first.add(2 * i);
            (*e, *e.add(1))
        }
    }
}

/// The entries of a table of str keys with none deleted, as a batch of
/// records holds them ([`DictEntries::str_keyed_of`]): the first entry's
/// key alone, the stride (2) known and the number of entries the caller's
/// (the records' keys). A pointer a record, where a [`DictEntries`] was
/// three: a batch's entries and a column's ends are then indexed alike.
#[derive(Clone, Copy)]
pub(crate) struct StrEntries {
    first: *const *mut ffi::PyObject,
}

impl Default for StrEntries {
    /// No table: a place in a batch not yet written (never read).
    fn default() -> Self {
        StrEntries { first: std::ptr::null() }
    }
}

impl StrEntries {
    /// Entry `i`'s key and value (non-null: no entry is deleted), as
    /// pointers borrowed from the dict.
    ///
    /// # Safety
    ///
    /// `i` is below the table's number of entries (the `len` it was read
    /// with), and the contract of [`DictEntries::of`] (no Python code run,
    /// no Python object made since) holds.
    #[inline(always)]
    pub(crate) unsafe fn get(&self, i: usize) -> (*mut ffi::PyObject, *mut ffi::PyObject) {
        // SAFETY: as `DictEntries::get_str_keyed` (the caller's contract).
        unsafe {
            let e = self.first.add(2 * i);
            (*e, *e.add(1))
        }
    }
}

impl DictEntries {
    /// The entries of `d` when, read in place as [`DictEntries::of`] reads
    /// them, they are a table of str keys with exactly `len` entries; else
    /// `None`. With `d.len() == len` (which the caller tests), none is
    /// deleted. The tests of `of` and `str_keyed` and of the length, in one
    /// function for the stride known (2): no stride worked out from the
    /// table's kind.
    ///
    /// # Safety
    ///
    /// As [`DictEntries::of`].
    #[inline(always)]
    pub(crate) unsafe fn str_keyed_of(d: &Bound<'_, PyDict>, ok: bool, len: usize) -> Option<StrEntries> {
        #[cfg(dict_entries_in_place)]
        if ok {
            // SAFETY: as in `of` (the caller's contract, the same layout);
            // only a table of kind 1 (str keys: entries of two pointers, the
            // key first) is read further.
            unsafe {
                let keys = DictKeysHead::combined(d)?;
                if (*keys).dk_kind != 1 || (*keys).dk_nentries as usize != len {
                    return None;
                }
                return Some(StrEntries { first: DictKeysHead::entries(keys) });
            }
        }
        let _ = (d, ok, len);
        None
    }

    /// These entries as [`StrEntries`] (a table of str keys: `str_keyed`).
    #[inline(always)]
    pub(crate) fn str_entries(&self) -> StrEntries {
        debug_assert!(self.str_keyed());
        StrEntries { first: self.first }
    }
}

/// Where the entries of a table of `len` str keys end, in bytes from the
/// start of its keys object, for [`DictEntries::prefetch_table`]: the head,
/// then the indices of the smallest table of 8 slots or more whose two
/// thirds hold `len` (CPython's size for a dict of `len` keys inserted one
/// at a time, or made at once: `{...}`, `dict.copy`), one byte a slot up to
/// 128 slots, two up to 32,768, four above, then the entries of two pointers.
#[cfg(dict_entries_in_place)]
fn table_end_guess(len: usize) -> usize {
    let slots = (len * 3 / 2 + 1).next_power_of_two().max(8);
    let index_bytes = slots
        * match slots {
            0..=128 => 1,
            129..=32768 => 2,
            _ => 4,
        };
    std::mem::size_of::<DictKeysHead>() + index_bytes + 2 * std::mem::size_of::<usize>() * len
}

/// A hint to the processor that the cache line holding `p` is read soon
/// (`prefetcht0`): `p` is not read, and may be any address (a prefetch of
/// one not mapped does nothing). Nothing where the target has no such
/// instruction in its baseline.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: `_mm_prefetch`'s only requirement is the `sse` target feature,
    // which this cfg has (it is in x86_64's baseline); the instruction reads
    // nothing the program sees and does not fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

/// Whether dicts' entries may be read in place ([`DictEntries`]) in this
/// process: this build has the layout (`DICT_IN_PLACE`), the interpreter is
/// CPython of the version it was built for, and a walk in place of probe
/// dicts (str keys with deletions and re-insertions, past one- and two-byte
/// indices; keys of other types) gives `PyDict_Next`'s pairs, pointer for
/// pointer. Checked once a process.
pub(crate) fn dict_entries_ok(py: Python<'_>) -> bool {
    static OK: GILOnceCell<bool> = GILOnceCell::new();
    *OK.get_or_init(py, || DICT_IN_PLACE && dict_probe(py).unwrap_or(false))
}

/// [`dict_entries_ok`]'s check (without the cache).
fn dict_probe(py: Python<'_>) -> PyResult<bool> {
    let minor = if cfg!(Py_3_13) {
        13
    } else if cfg!(Py_3_12) {
        12
    } else {
        11
    };
    let sys = py.import_bound("sys")?;
    if sys.getattr("implementation")?.getattr("name")?.extract::<String>()? != "cpython"
        || py.version_info().major != 3
        || py.version_info().minor != minor
    {
        return Ok(false);
    }
    // Str keys (entries of two pointers) with deletions and a re-insertion,
    // tables of 8, 16 and 32 slots; then general entries (hash, key, value).
    // Few and small: this runs in the first `dumps` call of a process.
    let mut probes = Vec::new();
    let keys: Vec<Bound<'_, PyString>> = (0..12).map(|i| PyString::new_bound(py, &format!("k{i}"))).collect();
    for n in [0, 1, 6, 12] {
        let d = PyDict::new_bound(py);
        for (i, k) in keys.iter().take(n).enumerate() {
            d.set_item(k, i)?;
        }
        for k in keys.iter().take(n).step_by(3) {
            d.del_item(k)?;
        }
        if n > 0 {
            d.set_item(&keys[0], "again")?;
        }
        probes.push(d);
    }
    let general = PyDict::new_bound(py);
    for (i, k) in keys.iter().take(5).enumerate() {
        general.set_item(i, k)?;
        general.set_item(k, i)?;
    }
    general.del_item(2)?;
    general.del_item(&keys[3])?;
    probes.push(general);
    Ok(probes.iter().all(|d| {
        let (mut pos, mut want) = (0, Vec::new());
        while let Some((k, v)) = dict_next(d, &mut pos) {
            want.push((k.as_ptr(), v.as_ptr()));
        }
        dict_pairs_in_place(d, true).is_some_and(|got| got == want)
    }))
}

/// The live pairs of `d` read in place, `None` where [`DictEntries::of`]
/// does not read it: the probe's walk, and the unit tests'.
fn dict_pairs_in_place(d: &Bound<'_, PyDict>, ok: bool) -> Option<Vec<(*mut ffi::PyObject, *mut ffi::PyObject)>> {
    // SAFETY: the GIL is held (`d`'s token); between `of` and the reads no
    // Python code runs and no Python object is made (pointers are copied
    // into a `Vec`, a Rust allocation).
    unsafe {
        let e = DictEntries::of(d, ok)?;
        Some((0..e.len).map(|i| e.get(i)).filter(|(_, v)| !v.is_null()).collect())
    }
}

/// Item `i` of `list`, borrowed from it (no reference count taken), `None`
/// past its end (the length is read again at each call). Measured: the
/// counted reference `PyList::iter` takes and drops an item was part of the
/// ~61 instructions a record of `dumps`' gather (python/UNSAFE.md).
///
/// The item stays valid only while the list keeps it: the caller runs no
/// Python code and makes no Python object while it holds the borrow (or
/// takes its own reference first, `Borrowed::to_owned`).
#[inline(always)]
pub(crate) fn list_item<'a, 'py>(list: &'a Bound<'py, PyList>, i: usize) -> Option<Borrowed<'a, 'py, PyAny>> {
    if i >= list.len() {
        return None;
    }
    #[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
    // SAFETY: the GIL is held (`list`'s token); `list` is a live list (a
    // `Bound<PyList>`, type-checked) and `i` is below its current length,
    // so `ob_item[i]` is a non-null reference the list holds, valid for the
    // borrow of `list` as long as nothing changes the list, which the
    // caller's contract (above) ensures: a `Borrowed` is not a counted
    // reference and cannot outlive `'a`.
    unsafe {
        Some(Borrowed::from_ptr(list.py(), ffi::PyList_GET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t)))
    }
    #[cfg(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))]
    // SAFETY: as above; `PyList_GetItem` (the limited API's, with a bounds
    // check) returns a borrowed reference, non-null for `i` below the length
    // (else NULL with an IndexError set, which `from_ptr_or_opt` would give
    // as `None`, the exception left to the next error check).
    unsafe {
        Borrowed::from_ptr_or_opt(list.py(), ffi::PyList_GetItem(list.as_ptr(), i as ffi::Py_ssize_t))
    }
}

/// The value of an int of at most 64 bits.
pub(crate) enum Long {
    I64(i64),
    /// Above `i64::MAX`.
    U64(u64),
}

/// The value of `x` if it fits an `i64` or a `u64`, else `None`; raises
/// nothing (no exception object made, so no garbage collection can run) on
/// the way to an `i64`, the usual case. Unlike `extract::<i64>()`, which
/// makes an `OverflowError` (a Python object) before the `u64` is tried.
#[inline]
pub(crate) fn long_value(x: &Bound<'_, PyLong>) -> Option<Long> {
    let mut overflow = 0;
    // SAFETY: the GIL is held (`x` carries the `'py` token); `x` is a live
    // int (a `Bound<PyLong>`, type-checked) and `overflow` is valid for
    // writes. For an int, PyLong_AsLongLongAndOverflow runs no Python code
    // (no `__index__`) and sets no exception when it overflows (it sets
    // `overflow` to 1 or -1 and returns -1); it can fail otherwise only
    // with -1 and an exception set, which is fetched below.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(x.as_ptr(), &mut overflow) };
    if overflow > 0 {
        // Fetching the u64 raises (makes an exception) only when it fails,
        // after which the caller uses no borrowed reference.
        return x.extract::<u64>().ok().map(Long::U64);
    }
    if overflow < 0 {
        return None;
    }
    if v == -1 {
        if let Some(e) = PyErr::take(x.py()) {
            drop(e);
            return None;
        }
    }
    Some(Long::I64(v))
}

/// Whether [`small_int`] may read ints in place: CPython's ints are made of
/// 30-bit digits stored as `u32` (the default; a build configured with
/// 15-bit digits stores them as `u16`), checked once a process. Always
/// `true` where `small_int` calls the C API instead (abi3, PyPy, GraalPy).
pub(crate) fn small_ints_ok(py: Python<'_>) -> bool {
    static OK: GILOnceCell<bool> = GILOnceCell::new();
    *OK.get_or_init(py, || {
        if !INT_IN_PLACE {
            return true;
        }
        let info = || -> PyResult<bool> {
            let info = py.import_bound("sys")?.getattr("int_info")?;
            Ok(info.getattr("bits_per_digit")?.extract::<u32>()? == 30
                && info.getattr("sizeof_digit")?.extract::<usize>()? == 4)
        };
        info().unwrap_or(false)
    })
}

/// The head of CPython's int object up to 3.11 (`Include/cpython/longintrepr.h`):
/// `ob_size` is the number of digits, negated for a negative value; the
/// digits follow.
#[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy, Py_3_12)))]
#[repr(C)]
struct LongHead {
    base: ffi::PyVarObject,
    digit: [u32; 1],
}

/// The head of CPython's int object from 3.12 (`_PyLongValue`): `lv_tag`
/// is the number of digits shifted left by 3, the sign in its low 2 bits
/// (0 positive, 1 zero, 2 negative); the digits follow.
#[cfg(all(Py_3_12, not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))))]
#[repr(C)]
struct LongHead {
    base: ffi::PyObject,
    lv_tag: usize,
    digit: [u32; 1],
}

/// Whether this build reads ints in place (see [`small_int`]).
const INT_IN_PLACE: bool = cfg!(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)));

/// The value of the exact int `x` when it has at most two 30-bit digits (60
/// bits and a sign: JSON's and CSV's ints nearly always), read in place from
/// the int object, with no call; `None` for a larger one (the caller then
/// takes [`long_value`]). Only once [`small_ints_ok`] said so. In the abi3
/// build, whose int layout is not part of the stable ABI, the C call
/// instead. Measured: `PyLong_AsLongLongAndOverflow` took ~19 instructions
/// an int inside CPython and ~10 around the call on flights-20k
/// (python/UNSAFE.md).
#[inline(always)]
pub(crate) fn small_int(x: &Bound<'_, PyLong>) -> Option<i64> {
    #[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
    {
        let p = x.as_ptr();
        // SAFETY: the GIL is held (`x` carries the `'py` token) and `p` is a
        // live exact int (a `Bound<PyLong>`, type-checked by the caller's
        // exact downcast), kept alive by the borrow of `x`; an int is
        // immutable once made. `LongHead` is the layout of CPython's int
        // object in the version this extension is compiled for (not abi3:
        // one CPython minor version; see its definition), the object header
        // as pyo3-ffi defines it for that build; the digits are `u32`s
        // holding 30 bits each (checked once by `small_ints_ok` before any
        // caller reads ints here), least significant first. Only the digits
        // the header counts are read (and zero's one allocated digit, by
        // `first_digit`, multiplied by 0), through a pointer derived from
        // `p` (whose provenance is the whole object).
        unsafe {
            let head = p as *const LongHead;
            let digits = std::ptr::addr_of!((*head).digit) as *const u32;
            // One digit or none (most ints): the value is the digit times
            // the sign (1, 0 or -1), as CPython's own `medium_value` (3.11)
            // and `_PyLong_CompactValue` (3.12) read it, zero included: its
            // digit is read as theirs read it ([`first_digit`]) and
            // multiplied by 0, with one test of the size where a second
            // test kept zero's digit unread, and where the size's absolute
            // value, a test for each count of digits and the sign applied
            // after took ~16 instructions an int.
            #[cfg(not(Py_3_12))]
            let (ndigits, negative) = {
                let size = *std::ptr::addr_of!((*head).base.ob_size);
                // -1, 0 or 1: the sign itself.
                if (size as usize).wrapping_add(1) <= 2 {
                    return Some(size as i64 * first_digit(digits, size != 0));
                }
                (size.unsigned_abs(), size < 0)
            };
            #[cfg(Py_3_12)]
            let (ndigits, negative) = {
                let tag = *std::ptr::addr_of!((*head).lv_tag);
                if tag < 2 << 3 {
                    // 1 positive, 0 zero, -1 negative.
                    let sign = 1 - (tag & 3) as i64;
                    return Some(sign * first_digit(digits, tag >> 3 != 0));
                }
                (tag >> 3, tag & 3 == 2)
            };
            if ndigits != 2 {
                return None;
            }
            let magnitude = i64::from(*digits) | (i64::from(*digits.add(1)) << 30);
            Some(if negative { -magnitude } else { magnitude })
        }
    }
    #[cfg(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))]
    match long_value(x) {
        Some(Long::I64(v)) => Some(v),
        _ => None,
    }
}

/// The first digit of an exact int of at most one digit, whose digits
/// start at `digits`, as an `i64`: the digit of an int of one digit; for
/// zero (`nonzero` false), whatever its digit's bytes hold, which the
/// caller multiplies by the sign, 0. CPython allocates at least one digit
/// for every int, zero included (`_PyLong_New`: "fast operations for
/// single digit integers (including zero) assume that there is always at
/// least one digit present"), and reads zero's in its own `medium_value`
/// (3.11) and `_PyLong_CompactValue` (3.12), multiplied by its sign; but a
/// zero made by `_PyLong_New(0)` in 3.11 never has it written. A Rust load
/// of bytes never written is undefined behaviour even when the value is
/// then multiplied by 0, so on x86-64 the digit is read by one `mov` of
/// inline assembly, which reads memory as a foreign function does (as
/// CPython's C reads it) and gives plain bits; elsewhere zero's digit is
/// not read (a test of `nonzero`).
///
/// # Safety
///
/// `digits` points to the first digit (4-byte aligned) of a live exact int
/// object, under [`small_int`]'s contract, of at most one digit; `nonzero`
/// says whether it has one.
#[inline(always)]
#[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
unsafe fn first_digit(digits: *const u32, nonzero: bool) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = nonzero;
        // The digit's offset in the object: the operand is the object's
        // pointer, which the caller has, plus this displacement (an `add`
        // a value fewer than the digit's own pointer in a register).
        const AT: usize = std::mem::offset_of!(LongHead, digit);
        let d: u64;
        // SAFETY: the caller's contract: the 4 bytes at `digits` are the
        // int's first digit, allocated with the object (above) and
        // readable; the block only reads them, into `d` (a 32-bit `mov`
        // clears the register's upper half: `d` is the digit zero-extended,
        // with no `mov` of it again to extend it), and touches no stack or
        // flags. The address read is `digits - AT + AT`.
        unsafe {
            std::arch::asm!(
                "mov {d:e}, dword ptr [{o} + {at}]",
                o = in(reg) digits.cast::<u8>().wrapping_sub(AT),
                at = const AT,
                d = lateout(reg) d,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        d as i64
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: the caller's contract: an int of one digit has it written.
        if nonzero {
            i64::from(unsafe { *digits })
        } else {
            0
        }
    }
}

/// The UTF-8 bytes of `s`; `None` for a str that has none (lone
/// surrogates: the exception is dropped, and the caller falls back to the
/// path that raises it). Compact ASCII strings (JSON and CSV keys and most
/// of their values) are read in place, the rest through
/// `PyUnicode_AsUTF8AndSize` (`to_str`). Measured: `to_str` took 51
/// instructions a string on flights-20k (python/UNSAFE.md). Inlined into
/// the record loop, the call kept for the other strs.
#[inline(always)]
pub(crate) fn str_bytes<'a>(s: &'a Bound<'_, PyString>) -> Option<&'a [u8]> {
    #[cfg(not(feature = "abi3"))]
    {
        let p = s.as_ptr();
        // SAFETY: the GIL is held (`s` carries the `'py` token) and `p` is a
        // live str (a `Bound<PyString>`, type-checked), kept alive for `'a`
        // by the borrow of `s`. The state bits read by
        // `PyUnicode_IS_COMPACT_ASCII` say that the characters are ASCII
        // (so valid UTF-8) and stored right after the object header, where
        // `_PyUnicode_COMPACT_DATA` points; `PyUnicode_GET_LENGTH` is their
        // number, so bytes. A str is immutable once made (CPython changes
        // one in place only while it alone holds it, which is not the case
        // for a str reachable from the caller's objects), so the bytes stay
        // as read for `'a`.
        unsafe {
            if ffi::PyUnicode_IS_COMPACT_ASCII(p) != 0 {
                let len = ffi::PyUnicode_GET_LENGTH(p) as usize;
                return Some(std::slice::from_raw_parts(ffi::_PyUnicode_COMPACT_DATA(p) as *const u8, len));
            }
        }
    }
    str_bytes_utf8(s)
}

/// [`str_bytes`] of a str that is not compact ASCII.
#[inline(never)]
fn str_bytes_utf8<'a>(s: &'a Bound<'_, PyString>) -> Option<&'a [u8]> {
    s.to_str().ok().map(str::as_bytes)
}

/// `text.extend_from_slice(s)`, a string of at most 32 bytes (most of a
/// column's) written by [`write_short`] straight into the spare capacity of
/// `text`, then counted in its length: no `memcpy` call (about 46
/// instructions a string on flights-20k), no word staged on the stack and
/// copied again, nothing to cut back (python/UNSAFE.md has the figures).
#[inline(always)]
pub(crate) fn append_short(text: &mut Vec<u8>, s: &[u8]) {
    let len = s.len();
    if len > 32 {
        text.extend_from_slice(s);
        return;
    }
    text.reserve(32);
    let spare: &mut [MaybeUninit<u8>; 32] = (&mut text.spare_capacity_mut()[..32]).try_into().expect("32 bytes");
    write_short(spare, s);
    // SAFETY: `len <= 32` bytes of the spare capacity, the first `len` of
    // `spare`, were just initialised: `write_short` writes every byte of
    // `spare[..len]` (see its comment), and `reserve(32)` made room for them
    // within the capacity.
    unsafe { text.set_len(text.len() + len) };
}

/// Writes a string of at most 32 bytes (`s`) at the start of `dst`: every
/// byte of `dst[..s.len()]` (and those up to the end of its piece, with
/// anything). Two pieces of a constant size (16, 8 or 4 bytes; three bytes
/// for 1-3) at constant places: the first bytes as they are, then the last
/// ones, read as an integer ending at the string's end and shifted down past
/// the bytes the first piece has (16-32 bytes: `dst[..16]`, `dst[16..32]`;
/// 8-15: `dst[..8]`, `dst[8..16]`; 4-7: `dst[..4]`, `dst[4..8]`; 1-3: bytes
/// 0, `len / 2` and `len - 1`, which are all of 0..len). No loop, one branch
/// on the length's size class. Stores at the string's length (the form
/// before) were merged by the compiler into one `memcpy` call of a variable
/// size once the code around them changed.
#[inline(always)]
fn write_short(dst: &mut [MaybeUninit<u8>; 32], s: &[u8]) {
    /// `dst = bytes`, as one store. (`*dst = bytes.map(MaybeUninit::new)`
    /// was compiled, in this crate, into a shuffle of the tail's 16 bytes
    /// one by one: 40 instructions more a string of 16-32 bytes.)
    fn put<const N: usize>(dst: &mut [MaybeUninit<u8>], bytes: [u8; N]) {
        let dst: &mut [MaybeUninit<u8>; N] = dst.try_into().expect("a piece of N bytes");
        // SAFETY: `dst` is N bytes valid for writes (a unique reference to
        // them), and `[u8; N]` has the layout of `[MaybeUninit<u8>; N]`
        // (alignment 1): a store of N initialised bytes into them.
        unsafe { dst.as_mut_ptr().cast::<[u8; N]>().write(bytes) }
    }
    let len = s.len();
    if len >= 16 {
        let head = u128::from_le_bytes(s[..16].try_into().expect("16 bytes"));
        let tail = u128::from_le_bytes(s[len - 16..].try_into().expect("16 bytes"));
        put(&mut dst[..16], head.to_le_bytes());
        put(&mut dst[16..], tail.checked_shr(8 * (32 - len) as u32).unwrap_or(0).to_le_bytes());
    } else if len >= 8 {
        let head = u64::from_le_bytes(s[..8].try_into().expect("8 bytes"));
        let tail = u64::from_le_bytes(s[len - 8..].try_into().expect("8 bytes"));
        put(&mut dst[..8], head.to_le_bytes());
        put(&mut dst[8..16], tail.checked_shr(8 * (16 - len) as u32).unwrap_or(0).to_le_bytes());
    } else if len >= 4 {
        let head = u32::from_le_bytes(s[..4].try_into().expect("4 bytes"));
        let tail = u32::from_le_bytes(s[len - 4..].try_into().expect("4 bytes"));
        put(&mut dst[..4], head.to_le_bytes());
        put(&mut dst[4..8], tail.checked_shr(8 * (8 - len) as u32).unwrap_or(0).to_le_bytes());
    } else if len > 0 {
        dst[0] = MaybeUninit::new(s[0]);
        dst[len / 2] = MaybeUninit::new(s[len / 2]);
        dst[len - 1] = MaybeUninit::new(s[len - 1]);
    }
}

/// `d[k] = v` for a struct field of a decoded record. Measured: 2-13% of
/// `loads` against `PyDict::set_item` (python/UNSAFE.md), which takes each
/// key and value through `ToPyObject` (an extra reference count round trip).
#[inline]
pub(crate) fn dict_set(d: &Bound<'_, PyDict>, k: &Bound<'_, PyString>, v: &Bound<'_, PyAny>) -> PyResult<()> {
    // SAFETY: the GIL is held (the `Bound`s carry the `'py` token). `d` is a
    // live dict (a `Bound<PyDict>`, type-checked), `k` and `v` are live
    // objects, each kept alive by its `Bound` for the whole call; PyDict_SetItem
    // takes its own references to `k` and `v` (it steals nothing), so no
    // count is lost or doubled. The key is an exact str whose hash and
    // comparison run no Python code, and `d` is a fresh dict (new, or a copy
    // of the template of keys) no Python code has seen. Where the key is
    // already there, the old value (None) is released, which runs no Python
    // code either. On failure it returns -1 with an exception set, which is
    // fetched below.
    if unsafe { ffi::PyDict_SetItem(d.as_ptr(), k.as_ptr(), v.as_ptr()) } < 0 {
        return Err(PyErr::fetch(d.py()));
    }
    Ok(())
}

/// `object.__new__(cls)` without the call: a new instance of `cls` made by
/// `object`'s `tp_new` when that is `cls`'s own (a class that neither
/// defines `__new__` nor derives from a builtin with its own); `None` for
/// any other class, and before CPython 3.10 (whose `PyType_GetSlot` takes
/// only heap types), which then take the call. Measured: the call (its
/// argument tuple, `tp_new_wrapper`'s checks) was about a quarter of typed
/// decoding's instructions per dataclass record (python/UNSAFE.md).
pub(crate) fn object_new<'py>(cls: &Bound<'py, PyType>) -> Option<PyResult<Bound<'py, PyAny>>> {
    static FROM_3_10: GILOnceCell<bool> = GILOnceCell::new();
    let py = cls.py();
    if !*FROM_3_10.get_or_init(py, || py.version_info() >= (3, 10)) {
        return None;
    }
    let args = PyTuple::empty_bound(py);
    // SAFETY: the GIL is held (`py`). `cls` is a live type object (a
    // `Bound<PyType>`, type-checked, holding a reference) and
    // `PyBaseObject_Type` is CPython's static `object` type; from 3.10
    // (checked above) `PyType_GetSlot` reads `Py_tp_new` of any type,
    // raising nothing, and gives the function pointer stored there (null if
    // none). Only when `cls`'s slot is `object`'s own function (non-null) is
    // it called, with the signature of `newfunc` that the slot has, on `cls`,
    // an empty argument tuple (kept alive by `args`) and no keywords: that
    // is exactly what `object.__new__(cls)` runs once `tp_new_wrapper` has
    // checked that `cls`'s nearest builtin base allocates as `object` does,
    // which holds whenever `cls`'s own `tp_new` is `object`'s (a builtin
    // base with its own `tp_new`, or a `__new__` in Python, would have put
    // another function in the slot). It returns a new reference, or null
    // with an exception set (an abstract class), which
    // `from_owned_ptr_or_err` turns into the `Bound` or the `PyErr`.
    unsafe {
        let base = ffi::PyType_GetSlot(std::ptr::addr_of_mut!(ffi::PyBaseObject_Type), ffi::Py_tp_new);
        let own = ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_new);
        if base.is_null() || own != base {
            return None;
        }
        let new: ffi::newfunc = std::mem::transmute::<*mut std::ffi::c_void, ffi::newfunc>(own);
        Some(Bound::from_owned_ptr_or_err(py, new(cls.as_type_ptr(), args.as_ptr(), std::ptr::null_mut())))
    }
}

/// A str of `s`. ASCII text (the usual case in records) is copied straight
/// into a new compact ASCII str, checked by Rust's word-at-a-time
/// `is_ascii`; other text, and the limited API (abi3, which has neither
/// `PyUnicode_New` nor `PyUnicode_DATA`), take `PyUnicode_FromStringAndSize`,
/// which scans and decodes the UTF-8 again. Figures: python/UNSAFE.md.
#[inline]
pub(crate) fn new_str<'py>(py: Python<'py>, s: &str) -> Bound<'py, PyString> {
    #[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
    if s.is_ascii() {
        // SAFETY: the GIL is held (`py`). `s.len()` fits Py_ssize_t (a Rust
        // slice is at most isize::MAX bytes). PyUnicode_New with maxchar 127
        // makes a compact ASCII str of `s.len()` one-byte characters (its
        // terminating NUL already written), which no other code has seen;
        // its data (PyUnicode_DATA) has room for exactly `s.len()` bytes, and
        // every byte of `s` is below 128, so the str holds valid ASCII, as its
        // kind says. A NULL return (MemoryError, set) is handled by
        // `from_owned_ptr`, as PyString::new_bound handles it. The hash is
        // left unset (-1), to be computed when asked, as for any new str.
        unsafe {
            let o = ffi::PyUnicode_New(s.len() as ffi::Py_ssize_t, 127);
            if !o.is_null() {
                std::ptr::copy_nonoverlapping(s.as_ptr(), ffi::PyUnicode_DATA(o).cast::<u8>(), s.len());
            }
            return Bound::from_owned_ptr(py, o).downcast_into_unchecked();
        }
    }
    PyString::new_bound(py, s)
}

#[cfg(test)]
mod tests {
    use super::{append_short, dict_entries_ok, dict_next, dict_pairs_in_place, DICT_IN_PLACE};
    use pyo3::prelude::*;
    use pyo3::types::PyDict;

    /// `d`'s pairs through `PyDict_Next` and read in place, which must be
    /// the same where the in-place walk reads `d` (`None` where it does not).
    fn walks(d: &Bound<'_, PyDict>) -> Option<usize> {
        let (mut pos, mut want) = (0, Vec::new());
        while let Some((k, v)) = dict_next(d, &mut pos) {
            want.push((k.as_ptr(), v.as_ptr()));
        }
        let got = dict_pairs_in_place(d, true)?;
        assert_eq!(got, want, "{d}");
        Some(got.len())
    }

    /// The guess of where a table's entries end against the tables of
    /// records as they are made: one key at a time (a comprehension,
    /// `json.loads`, `csv.DictReader`), at once (a display), copied.
    #[cfg(dict_entries_in_place)]
    #[test]
    fn table_end_guess_is_where_records_tables_end() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let ns = PyDict::new_bound(py);
            py.run_bound(
                r#"
import csv, io, json
dicts = []
for n in range(1, 300):
    d = {f"k{i}": i for i in range(n)}
    dicts += [d, d.copy(), json.loads(json.dumps(d))]
    dicts += list(csv.DictReader(io.StringIO(",".join(d) + "\n" + ",".join(map(str, d.values())) + "\n")))
    dicts.append(eval("{" + ",".join(f"'k{i}': {i}" for i in range(n)) + "}"))
"#,
                Some(&ns),
                None,
            )
            .unwrap();
            for d in ns.get_item("dicts").unwrap().unwrap().iter().unwrap() {
                let d = d.unwrap();
                let d = d.downcast::<PyDict>().unwrap();
                // SAFETY: the GIL is held, `d` a live dict, not changed here.
                let e = unsafe { super::DictEntries::of(d, true) }.unwrap();
                // SAFETY: as above: `ma_keys` read from the dict's layout.
                let keys = unsafe { (*d.as_ptr().cast::<pyo3::ffi::PyDictObject>()).ma_keys } as usize;
                let end = e.first as usize + e.len * e.stride * std::mem::size_of::<usize>() - keys;
                assert_eq!(super::table_end_guess(d.len()), end, "{} keys", d.len());
            }
        });
    }

    /// The dict walk in place against `PyDict_Next`: deleted entries,
    /// re-inserted keys, keys that are not str (general entries), str
    /// subclasses, dicts resized while built, copies, dict subclasses; and
    /// no in-place walk for split tables (instances' `__dict__`).
    #[test]
    fn dict_entries_walk_as_dict_next() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            assert_eq!(dict_entries_ok(py), DICT_IN_PLACE, "the probe fails on this build's own CPython");
            if !DICT_IN_PLACE {
                return;
            }
            let ns = PyDict::new_bound(py);
            py.run_bound(
                r#"
class S(str):
    pass
class D(dict):
    pass
class Obj:
    def __init__(self, n):
        for i in range(n):
            setattr(self, f"a{i}", i)
dicts = []
for n in [0, 1, 2, 5, 6, 11, 85, 86, 171, 172, 1000, 43691, 43692]:
    d = {f"k{i}": i for i in range(n)}                       # resized as it grows
    dicts.append(dict(d))
    for i in range(0, n, 4):
        del d[f"k{i}"]                                       # deleted entries
    dicts.append(dict(d))
    for i in range(0, n, 8):
        d[f"k{i}"] = -i                                      # re-inserted, at the end
    dicts.append(d)
    dicts.append(d.copy())
    dicts.append({**d, 5: "int key"})                        # general entries
    g = {i: str(i) for i in range(n)}
    for i in range(0, n, 3):
        del g[i]
    dicts.append(g)
    dicts.append({S(f"s{i}"): i for i in range(n)})          # str subclasses: general entries
    dicts.append(D(d))
    d2 = dict.fromkeys(["a", "b", "c"])
    for i in range(n):                                       # delete and re-insert the same key
        del d2["b"]
        d2["b"] = i
    dicts.append(d2)
    dicts.append({(1, 2): 1, 1.5: 2, None: 3, "s": 4, b"b": 5})
    dicts.append(dict(zip(range(n), range(n))))
splits = [Obj(n).__dict__ for n in (1, 3, 8)]
"#,
                Some(&ns),
                None,
            )
            .unwrap();
            let dicts = ns.get_item("dicts").unwrap().unwrap();
            let mut walked = 0;
            for d in dicts.iter().unwrap() {
                let d = d.unwrap();
                let d = d.downcast::<PyDict>().unwrap();
                walked += usize::from(walks(d).is_some());
            }
            assert_eq!(walked, dicts.len().unwrap(), "every combined table read in place");
            for d in ns.get_item("splits").unwrap().unwrap().iter().unwrap() {
                let d = d.unwrap();
                let d = d.downcast::<PyDict>().unwrap();
                assert!(walks(d).is_none(), "a split table is not read in place: {d}");
                // Once the instance dict is combined (a non-str key), it is.
                d.set_item(1, 1).unwrap();
                assert!(walks(d).is_some(), "{d}");
            }
            // Not read where the process check said no.
            let d = PyDict::new_bound(py);
            d.set_item("a", 1).unwrap();
            assert!(dict_pairs_in_place(&d, false).is_none());
        });
    }

    #[test]
    fn append_short_appends_every_length() {
        let src: Vec<u8> = (0..80u8).map(|b| b.wrapping_mul(37).wrapping_add(1)).collect();
        for first in [0, 3, 31, 33] {
            for len in 0..=src.len() {
                // Room left from 0 to 40 bytes: the spare capacity is grown where short.
                for room in [0, 5, 32, 40] {
                    let mut text = Vec::with_capacity(first + room);
                    append_short(&mut text, &src[..first]);
                    append_short(&mut text, &src[..len]);
                    append_short(&mut text, &src[src.len() - len..]);
                    let want: Vec<u8> = [&src[..first], &src[..len], &src[src.len() - len..]].concat();
                    assert_eq!(text, want, "first {first}, length {len}, room {room}");
                }
            }
        }
    }
}
