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
/// object's), not a slice: `records::column::copy_str` reads whole aligned
/// words from it, past the characters and their NUL (the characters start
/// 8-byte aligned: the object is, and its header is whole words).
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
    // `is_compact_ascii` say that its characters are ASCII (so valid
    // UTF-8), stored right after the header, where
    // `_PyUnicode_COMPACT_DATA` points; `PyUnicode_GET_LENGTH` is their
    // number, so bytes. A str reachable from the caller's objects is not
    // changed in place (CPython does that only to a str no one else holds).
    unsafe {
        use pyo3::ffi;
        if ffi::Py_TYPE(s) == std::ptr::addr_of_mut!(ffi::PyUnicode_Type) && is_compact_ascii(s) {
            let len = ffi::PyUnicode_GET_LENGTH(s) as usize;
            // `_PyUnicode_COMPACT_DATA` of an ASCII str: right after its
            // `PyASCIIObject` (that macro's test of the ASCII bit again, which
            // the compiler cannot drop after `is_compact_ascii`'s compare of
            // the byte, left out).
            return Some((s.cast::<ffi::PyASCIIObject>().add(1).cast::<u8>().cast_const(), len));
        }
    }
    #[cfg(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))]
    let _ = s;
    None
}

/// Whether the str `s` is stored compact ASCII (`PyUnicode_IS_COMPACT_ASCII`).
/// In 3.11 on a little-endian target, the state's first byte holds, from its
/// lowest bit, `interned` (2 bits), `kind` (3), `compact`, `ascii` and
/// `ready`: the three top bits all set, one compare of the byte, where the
/// two bits' test took a load, a `not` and a `test` (a compact str is always
/// ready, and an ASCII one of the 1-byte kind). From 3.12 the top bit is
/// `statically_allocated`, and the two bits are tested.
///
/// # Safety
///
/// The GIL is held and `s` is a live str (its type `PyUnicode_Type` or a
/// subclass), of the layout this extension is built for (not abi3).
#[cfg(not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy)))]
#[inline(always)]
pub(crate) unsafe fn is_compact_ascii(s: *mut pyo3::ffi::PyObject) -> bool {
    // SAFETY: the caller's contract: a live str, whose `PyASCIIObject`
    // header's state is read (its first byte, in 3.11 on little-endian).
    unsafe {
        #[cfg(all(not(Py_3_12), target_endian = "little"))]
        {
            let state = std::ptr::addr_of!((*s.cast::<pyo3::ffi::PyASCIIObject>()).state).cast::<u8>().read();
            state >= 0xe0
        }
        #[cfg(not(all(not(Py_3_12), target_endian = "little")))]
        {
            pyo3::ffi::PyUnicode_IS_COMPACT_ASCII(s) != 0
        }
    }
}

#[cfg(all(test, not(any(feature = "abi3", Py_LIMITED_API, PyPy, GraalPy))))]
mod tests {
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    /// `is_compact_ascii` says what `PyUnicode_IS_COMPACT_ASCII` says, on strs
    /// of every kind (ASCII, Latin-1, two- and four-byte, empty, interned,
    /// long, a str subclass's, which is not compact), and is true exactly for
    /// the ASCII ones of exact type.
    #[test]
    fn is_compact_ascii_as_cpython_says() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let code = "class S(str): pass\n\
                        strs = ['', 'a', 'abc', 'x' * 1000, 'caf\\u00e9', '\\u20ac', '\\U0001f600', sys.intern('interned key'),\n\
                                S('abc'), S('caf\\u00e9'), 'abc'.upper(), str(12345)]\n\
                        ascii = [True, True, True, True, False, False, False, True, False, False, True, True]";
            let globals = pyo3::types::PyDict::new_bound(py);
            globals.set_item("sys", py.import_bound("sys").unwrap()).unwrap();
            py.run_bound(code, Some(&globals), None).unwrap();
            let strs = globals.get_item("strs").unwrap().unwrap();
            let ascii: Vec<bool> = globals.get_item("ascii").unwrap().unwrap().extract().unwrap();
            for (s, want) in strs.iter().unwrap().zip(ascii) {
                let s = s.unwrap();
                assert!(s.is_instance_of::<PyString>());
                // SAFETY: the GIL is held and `s` is a live str.
                let (ours, cpython) = unsafe {
                    (super::is_compact_ascii(s.as_ptr()), pyo3::ffi::PyUnicode_IS_COMPACT_ASCII(s.as_ptr()) != 0)
                };
                assert_eq!(ours, cpython, "{s:?}");
                assert_eq!(ours, want, "{s:?}");
            }
        });
    }
}
