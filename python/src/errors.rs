//! Errors raised to Python: `xbf.EncodeError` and `xbf.DecodeError` of the
//! core's kinds, and the guard that turns a panic into `DecodeError` of kind
//! `internal`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::infer::MAX_DEPTH;
use crate::pyobj::{refs, short_repr, type_name};

pub(crate) fn cannot(obj: &Bound<'_, PyAny>, what: &str) -> PyErr {
    PyTypeError::new_err(format!("cannot encode {} (of type {}) as {what}", short_repr(obj), type_name(obj)))
}

pub(crate) fn core_err(py: Python<'_>, e: xbf::Error) -> PyErr {
    match refs(py) {
        Ok(r) => {
            let path = e.path_string();
            let args = (e.to_string(), e.kind().name(), e.offset(), if path.is_empty() { None } else { Some(path) });
            match r.decode_error.bind(py).call1(args) {
                Ok(inst) => PyErr::from_value_bound(inst),
                Err(err) => err,
            }
        }
        Err(err) => err,
    }
}

/// An `xbf.EncodeError` (a ValueError) of the core's kind.
pub(crate) fn encode_err(e: xbf::Error) -> PyErr {
    Python::with_gil(|py| kind_err(py, e.kind().name(), e.to_string()))
}

pub(crate) fn kind_err(py: Python<'_>, kind: &str, message: String) -> PyErr {
    match refs(py) {
        Ok(r) => match r.encode_error.bind(py).call1((message, kind)) {
            Ok(inst) => PyErr::from_value_bound(inst),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

/// Data nested past the limit (or a reference cycle): `xbf.EncodeError` of
/// kind `too-deep`, raised before the recursion goes further, so never a
/// RecursionError or a crash.
pub(crate) fn too_deep(py: Python<'_>) -> PyErr {
    kind_err(py, "too-deep", format!("the data nests more than {MAX_DEPTH} levels (or holds a reference cycle)"))
}

/// Runs a decoding step, turning a panic into `xbf.DecodeError` of kind
/// `internal`, never `pyo3_runtime.PanicException` (a `BaseException` that
/// `except Exception` does not catch). No input is known to panic the core:
/// this is a safety net for a bug not found yet, so that a hostile input can
/// at worst be refused with the wrong kind.
pub(crate) fn guarded<T>(py: Python<'_>, step: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step))
        .unwrap_or_else(|payload| Err(internal_error(py, &panic_message(payload.as_ref()))))
}

/// What a panic says, from its payload (a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_owned())
}

/// `xbf.DecodeError` of kind `internal`, with no offset or path.
pub(crate) fn internal_error(py: Python<'_>, why: &str) -> PyErr {
    let message = format!("internal error in the decoder (please report it): {why}");
    match refs(py) {
        Ok(r) => match r.decode_error.bind(py).call1((message, "internal", None::<u64>, None::<String>)) {
            Ok(inst) => PyErr::from_value_bound(inst),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

#[cfg(test)]
mod tests {
    use pyo3::types::PyType;

    use super::*;
    use crate::pyobj::_init;

    /// The mapping of a panic to `xbf.DecodeError` (kind `internal`), on a
    /// panic of the test's own (no input is known to make the core panic),
    /// with stand-ins for the classes `xbf/__init__.py` gives `_init`.
    #[test]
    fn a_panic_becomes_decode_error_of_kind_internal() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let m = PyModule::from_code_bound(
                py,
                "class DecodeError(ValueError):\n    def __init__(self, message, kind, offset, path):\n        \
                 super().__init__(message)\n        self.kind, self.offset, self.path = kind, offset, path\n\
                 class EncodeError(ValueError):\n    pass\nclass Other(tuple):\n    pass\n",
                "stand_ins.py",
                "stand_ins",
            )
            .unwrap();
            let class = |name: &str| m.getattr(name).unwrap().downcast_into::<PyType>().unwrap().unbind();
            let other = class("Other");
            _init(py, other.clone_ref(py), other.clone_ref(py), other, class("DecodeError"), class("EncodeError"))
                .unwrap();
            let hook = std::panic::take_hook();
            std::panic::set_hook(Box::new(|_| {}));
            let result: PyResult<()> = guarded(py, || panic!("a panic raised to check its mapping"));
            std::panic::set_hook(hook);
            let e = result.expect_err("the step panicked").into_value(py).into_bound(py);
            assert!(e.is_instance(&m.getattr("DecodeError").unwrap()).unwrap());
            assert_eq!(e.getattr("kind").unwrap().extract::<String>().unwrap(), "internal");
            assert!(e.getattr("offset").unwrap().is_none() && e.getattr("path").unwrap().is_none());
            let text = e.str().unwrap().to_string();
            assert!(text.contains("internal error") && text.contains("a panic raised to check its mapping"), "{text}");
        });
    }
}
