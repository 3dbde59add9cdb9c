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
