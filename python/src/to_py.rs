//! Core values (`xbf::Value`) to Python objects: what the core decoded
//! (messages the fast path leaves to it, streams).

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use xbf::StructMetadata;

use crate::decode::{date_py, int_i128, int_u128, struct_dict, timestamp_py};
use crate::plan::is_optional_key;
use crate::pyobj::{is_some, refs};
use crate::raw::dict_set;
use crate::schema::Schema;

/// A value the core decoded, as Python objects (the same forms as the fast path).
pub(crate) fn value_to_py<'py>(py: Python<'py>, value: &xbf::Value, typed_any: bool) -> PyResult<Bound<'py, PyAny>> {
    ToPy { typed_any, structs: std::collections::HashMap::new(), last: None }.value(py, value)
}

/// Struct keys made once per struct type: (the type, kept alive so that its
/// address stays its own; the keys; which fields are optional keys).
pub(crate) type StructKeys<'py> =
    std::rc::Rc<(Arc<StructMetadata>, Vec<Bound<'py, PyString>>, Vec<bool>, RefCell<Option<Bound<'py, PyDict>>>)>;

/// Core values to Python objects, with the keys of each struct type made once.
pub(crate) struct ToPy<'py> {
    pub(crate) typed_any: bool,
    pub(crate) structs: std::collections::HashMap<usize, StructKeys<'py>>,
    /// The struct type met last (records of a list are all of one type).
    pub(crate) last: Option<StructKeys<'py>>,
}

impl<'py> ToPy<'py> {
    pub(crate) fn keys_of(&mut self, py: Python<'py>, meta: &Arc<StructMetadata>) -> StructKeys<'py> {
        if let Some(last) = &self.last {
            if Arc::ptr_eq(&last.0, meta) {
                return last.clone();
            }
        }
        let id = Arc::as_ptr(meta) as usize;
        let keys = self
            .structs
            .entry(id)
            .or_insert_with(|| {
                let keys = meta.fields().map(|(n, _)| PyString::intern_bound(py, n)).collect();
                let opt = meta.fields().map(|(_, t)| is_optional_key(t)).collect();
                std::rc::Rc::new((meta.clone(), keys, opt, RefCell::new(None)))
            })
            .clone();
        self.last = Some(keys.clone());
        keys
    }

    pub(crate) fn value(&mut self, py: Python<'py>, value: &xbf::Value) -> PyResult<Bound<'py, PyAny>> {
        use xbf::Value as V;
        let typed_any = self.typed_any;
        let r = refs(py)?;
        Ok(match value {
            V::Bool(b) => b.into_py(py).into_bound(py),
            V::U8(x) => int_u128(py, u128::from(*x)),
            V::U16(x) => int_u128(py, u128::from(*x)),
            V::U32(x) => int_u128(py, u128::from(*x)),
            V::U64(x) => int_u128(py, u128::from(*x)),
            V::U128(x) => int_u128(py, *x),
            V::I8(x) => int_i128(py, i128::from(*x)),
            V::I16(x) => int_i128(py, i128::from(*x)),
            V::I32(x) => int_i128(py, i128::from(*x)),
            V::I64(x) => int_i128(py, i128::from(*x)),
            V::I128(x) => int_i128(py, *x),
            V::U256(x) => int_from_le(py, &x.to_le_bytes(), false)?,
            V::I256(x) => int_from_le(py, &x.to_le_bytes(), true)?,
            V::F32(x) => f64::from(*x).into_py(py).into_bound(py),
            V::F64(x) => x.into_py(py).into_bound(py),
            V::Bytes(b) => PyBytes::new_bound(py, b).into_any(),
            V::String(s) => PyString::new_bound(py, s).into_any(),
            V::Unit => py.None().into_bound(py),
            V::Date(d) => date_py(py, i64::from(*d))?,
            V::Timestamp(t) => timestamp_py(py, *t)?,
            V::Vec(items) | V::Array(items) => {
                let items = items.items();
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.value(py, i)?);
                }
                PyList::new_bound(py, out).into_any()
            }
            V::Tuple(t) => {
                let items: PyResult<Vec<_>> = t.items().iter().map(|i| self.value(py, i)).collect();
                PyTuple::new_bound(py, items?).into_any()
            }
            V::Struct(st) => {
                let ks = self.keys_of(py, st.metadata());
                let d = struct_dict(py, &ks.1, &ks.3)?;
                for ((fv, k), &o) in st.values().iter().zip(&ks.1).zip(&ks.2) {
                    let fv = match fv {
                        V::Enum(e) if o => {
                            if e.index() == 0 {
                                d.del_item(k)?;
                                continue;
                            }
                            e.payload()
                        }
                        other => other,
                    };
                    let v = self.value(py, fv)?;
                    dict_set(&d, k, &v)?;
                }
                d.into_any()
            }
            V::Option(o) => match o.value() {
                None => py.None().into_bound(py),
                Some(inner) => {
                    let v = self.value(py, inner)?;
                    if v.is_none() || is_some(py, &v)? {
                        r.some.bind(py).call1((v,))?
                    } else {
                        v
                    }
                }
            },
            V::Map(m) => {
                let d = PyDict::new_bound(py);
                let mut pairs = Vec::with_capacity(m.len());
                let mut dict_ok = true;
                for (k, v) in m.entries() {
                    let (k, v) = (self.value(py, k)?, self.value(py, v)?);
                    if dict_ok && d.set_item(&k, &v).is_err() {
                        dict_ok = false;
                    }
                    pairs.push(PyTuple::new_bound(py, [k, v]));
                }
                if dict_ok && d.len() == m.len() {
                    d.into_any()
                } else {
                    PyList::new_bound(py, pairs).into_any()
                }
            }
            V::Enum(e) => r.variant.bind(py).call1((e.variant(), self.value(py, e.payload())?))?,
            V::Any(a) => {
                let v = self.value(py, a.value())?;
                if typed_any {
                    r.typed.bind(py).call1((Schema { ty: a.metadata().clone() }, v))?
                } else {
                    v
                }
            }
            _ => return Err(PyValueError::new_err(format!("xbf: no Python form for {}", value.metadata()))),
        })
    }
}

pub(crate) fn int_from_le<'py>(py: Python<'py>, b: &[u8], signed: bool) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new_bound(py);
    kwargs.set_item("signed", signed)?;
    py.get_type_bound::<pyo3::types::PyLong>().call_method(
        "from_bytes",
        (PyBytes::new_bound(py, b), "little"),
        Some(&kwargs),
    )
}
