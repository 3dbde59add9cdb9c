//! The only unsafe code of the crate: raw `pyo3::ffi` calls kept because
//! they measured >= 5% faster than the safe PyO3 API (python/UNSAFE.md).
//! (`unsafe_op_in_unsafe_fn` is denied here rather than crate-wide because
//! PyO3 0.22's `#[pymethods]`/`#[pyfunction]` expansions trip it.)

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

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
