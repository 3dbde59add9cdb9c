//! The Python side the binding relies on: the classes of the `xbf` package
//! (given once by `_init`), and small helpers on Python objects.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyTuple, PyType};

// ------------------------------------------------------------ Python refs

/// Whether `v` is an `xbf.Some` (a tuple subclass: the cheap tuple check first).
pub(crate) fn is_some(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(v.is_instance_of::<PyTuple>() && v.is_instance(refs(py)?.some.bind(py))?)
}

pub(crate) struct Refs {
    pub(crate) variant: Py<PyType>,
    pub(crate) typed: Py<PyType>,
    pub(crate) some: Py<PyType>,
    pub(crate) decode_error: Py<PyType>,
    pub(crate) encode_error: Py<PyType>,
    pub(crate) dc_fields: PyObject,
    pub(crate) utc: PyObject,
}

pub(crate) static REFS: GILOnceCell<Refs> = GILOnceCell::new();

pub(crate) fn refs(py: Python<'_>) -> PyResult<&Refs> {
    REFS.get(py).ok_or_else(|| PyRuntimeError::new_err("xbf._native is not initialised; import xbf"))
}

#[pyfunction]
pub(crate) fn _init(
    py: Python<'_>,
    variant: Py<PyType>,
    typed: Py<PyType>,
    some: Py<PyType>,
    decode_error: Py<PyType>,
    encode_error: Py<PyType>,
) -> PyResult<()> {
    let dc_fields = py.import_bound("dataclasses")?.getattr("fields")?.unbind();
    let utc = py.import_bound("datetime")?.getattr("timezone")?.getattr("utc")?.unbind();
    let _ = REFS.set(py, Refs { variant, typed, some, decode_error, encode_error, dc_fields, utc });
    Ok(())
}

pub(crate) fn short_repr(obj: &Bound<'_, PyAny>) -> String {
    let r = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "<unprintable>".into());
    if r.chars().count() > 80 {
        format!("{}...", r.chars().take(77).collect::<String>())
    } else {
        r
    }
}

pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().qualname().map(|s| s.to_string()).unwrap_or_else(|_| "?".into())
}

/// Where the characters of `s` start and how many there are, when it is an
/// exact str stored compact ASCII (the usual str of JSON and CSV values: its
/// bytes are its UTF-8, right after the object's header, as orjson reads
/// them); `None` for anything else (other objects, str subclasses, other
/// kinds of str), and always in the builds whose str layout is not known
/// (abi3, PyPy, GraalPy). The caller's fast path for a run of strings;
/// `raw::str_bytes` takes the others. A pointer derived from `s` (the whole
/// object's), not a slice: the header's 40 or more bytes before the
/// characters may be read through it too (`records::column::copy_str`).
///
/// # Safety
///
/// The GIL is held and `s` is a live object. The characters stay readable,
/// and unchanged, while `s` stays alive and no Python code runs (a value a
/// dict holds while no Python code runs).
#[inline(always)]
pub(crate) unsafe fn compact_ascii(s: *mut pyo3::ffi::PyObject) -> Option<(*const u8, usize)> {
    #[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
    // SAFETY: `s` is a live object (the caller's contract), so its type can
    // be read; only an exact str (its type `PyUnicode_Type` itself) is read
    // further, whose layout is `PyASCIIObject`'s for the CPython version
    // this extension is built for (not abi3). The state bits read by
    // `PyUnicode_IS_COMPACT_ASCII` say that its characters are ASCII (so
    // valid UTF-8), stored right after the header, where
    // `_PyUnicode_COMPACT_DATA` points; `PyUnicode_GET_LENGTH` is their
    // number, so bytes. A str reachable from the caller's objects is not
    // changed in place (CPython does that only to a str no one else holds).
    unsafe {
        use pyo3::ffi;
        if ffi::Py_TYPE(s) == std::ptr::addr_of_mut!(ffi::PyUnicode_Type) && ffi::PyUnicode_IS_COMPACT_ASCII(s) != 0 {
            let len = ffi::PyUnicode_GET_LENGTH(s) as usize;
            return Some((ffi::_PyUnicode_COMPACT_DATA(s) as *const u8, len));
        }
    }
    #[cfg(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))]
    let _ = s;
    None
}
