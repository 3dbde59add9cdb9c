//! `xbf.Schema`: the type tree (`xbf::Metadata`) to and from its Python
//! (vector) form.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use xbf::{EncodeOptions, EnumMetadata, Metadata, PrimitiveType as P, StructMetadata};

use crate::encode::seq_items;
use crate::errors::{encode_err, kind_err};
use crate::infer::{inferred, Infer, Shape, MAX_DEPTH};
use crate::pyobj::short_repr;

// ------------------------------------------------------------- Schema

/// An XBF type. Build one from the vector form (`"u16"`, `{"vec": T}`,
/// `{"struct": "Name", "fields": [["f", T], ...]}`, `{"option": T}`,
/// `{"array": T, "len": n}`, `{"tuple": [T, ...]}`, `{"map": [K, V]}`,
/// `{"enum": "Name", "variants": [["v", T], ...]}`, `"any"`), or infer one
/// from data with `Schema.infer(obj)`.
#[pyclass(module = "xbf", frozen, name = "Schema")]
#[derive(Clone)]
pub(crate) struct Schema {
    pub(crate) ty: Metadata,
}

pub(crate) fn parse_type(t: &Bound<'_, PyAny>, depth: usize) -> PyResult<Metadata> {
    if depth > MAX_DEPTH {
        return Err(kind_err(t.py(), "too-deep", format!("the type nests more than {MAX_DEPTH} levels")));
    }
    if let Ok(s) = t.downcast::<Schema>() {
        return Ok(s.get().ty.clone());
    }
    if let Ok(word) = t.downcast::<PyString>() {
        let word = word.to_str()?;
        if word == "any" {
            return Ok(Metadata::Any);
        }
        return P::from_name(word)
            .map(Metadata::from)
            .ok_or_else(|| PyValueError::new_err(format!("unknown type word {word:?}")));
    }
    let d = t.downcast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("{} is not a type", short_repr(t))))?;
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(k)?.ok_or_else(|| PyValueError::new_err(format!("type {} lacks {k:?}", short_repr(t))))
    };
    let named = |list: Bound<'_, PyAny>| -> PyResult<Vec<(String, Metadata)>> {
        let mut out = Vec::new();
        for item in list.iter()? {
            let item = item?;
            let (n, ty) = pair(&item)?;
            let n: String = n.extract()?;
            out.push((n, parse_type(&ty, depth + 1)?));
        }
        Ok(out)
    };
    let has = |k: &str| d.contains(k).unwrap_or(false);
    if has("vec") {
        Ok(Metadata::vec(parse_type(&get("vec")?, depth + 1)?))
    } else if has("option") {
        Ok(Metadata::option(parse_type(&get("option")?, depth + 1)?))
    } else if has("array") {
        Ok(Metadata::array(get("len")?.extract()?, parse_type(&get("array")?, depth + 1)?))
    } else if has("tuple") {
        let ts: PyResult<Vec<Metadata>> = get("tuple")?.iter()?.map(|t| parse_type(&t?, depth + 1)).collect();
        Ok(Metadata::tuple(ts?))
    } else if has("map") {
        let (k, v) = pair(&get("map")?)?;
        Ok(Metadata::map(parse_type(&k, depth + 1)?, parse_type(&v, depth + 1)?))
    } else if has("struct") {
        let name: String = get("struct")?.extract()?;
        Ok(StructMetadata::new(name, named(get("fields")?)?).map_err(encode_err)?.into())
    } else if has("enum") {
        let name: String = get("enum")?.extract()?;
        Ok(EnumMetadata::new(name, named(get("variants")?)?).map_err(encode_err)?.into())
    } else {
        Err(PyValueError::new_err(format!("{} is not a type", short_repr(t))))
    }
}

pub(crate) fn pair<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    match seq_items(obj) {
        Some(items) if items.len() == 2 => Ok((items[0].clone(), items[1].clone())),
        _ => Err(PyTypeError::new_err(format!("{} is not a pair", short_repr(obj)))),
    }
}

pub(crate) fn pair_of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    pair(obj)
}

pub(crate) fn type_to_py(py: Python<'_>, ty: &Metadata) -> PyResult<PyObject> {
    let named = |items: Vec<(&str, &Metadata)>| -> PyResult<PyObject> {
        let l = PyList::empty_bound(py);
        for (n, t) in items {
            l.append(PyList::new_bound(py, [n.into_py(py), type_to_py(py, t)?]))?;
        }
        Ok(l.into_any().unbind())
    };
    let d = PyDict::new_bound(py);
    match ty {
        Metadata::Primitive(p) => return Ok(p.name().into_py(py)),
        Metadata::Any => return Ok("any".into_py(py)),
        Metadata::Vec(e) => d.set_item("vec", type_to_py(py, e)?)?,
        Metadata::Option(e) => d.set_item("option", type_to_py(py, e)?)?,
        Metadata::Array(a) => {
            d.set_item("array", type_to_py(py, &a.element)?)?;
            d.set_item("len", a.len)?;
        }
        Metadata::Tuple(ts) => {
            let l: PyResult<Vec<PyObject>> = ts.iter().map(|t| type_to_py(py, t)).collect();
            d.set_item("tuple", l?)?
        }
        Metadata::Map(m) => d.set_item("map", vec![type_to_py(py, &m.key)?, type_to_py(py, &m.value)?])?,
        Metadata::Struct(s) => {
            d.set_item("struct", s.name())?;
            d.set_item("fields", named(s.fields().collect())?)?;
        }
        Metadata::Enum(e) => {
            d.set_item("enum", e.name())?;
            d.set_item("variants", named(e.variants().collect())?)?;
        }
        _ => return Err(PyValueError::new_err(format!("type {ty} has no Python form"))),
    }
    Ok(d.into_any().unbind())
}

#[pymethods]
impl Schema {
    #[new]
    fn new(t: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Schema { ty: parse_type(t, 0)? })
    }

    /// The type `dumps` would infer for `obj`.
    #[staticmethod]
    fn infer(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Schema { ty: inferred(obj.py(), Shape::of(obj, 0)?)? })
    }

    /// The type `xbf.dumps` would infer for the records of `records` (an
    /// iterable), e.g. for a `StreamWriter`.
    #[staticmethod]
    fn infer_records(records: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut s = Shape::Never;
        for r in records.iter()? {
            s.absorb(&r?, 1)?;
        }
        Ok(Schema { ty: inferred(records.py(), s)? })
    }

    /// The vector form of the type (strings, dicts and lists).
    fn to_python(&self, py: Python<'_>) -> PyResult<PyObject> {
        type_to_py(py, &self.ty)
    }

    /// The XBF 2 metadata bytes.
    fn metadata_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = EncodeOptions::v2().encode_metadata(&self.ty).map_err(encode_err)?;
        Ok(PyBytes::new_bound(py, &b))
    }

    /// The schema's 8-byte fingerprint (SPEC.md, schema by reference).
    fn fingerprint<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new_bound(py, &xbf::fingerprint(&self.ty))
    }

    fn __str__(&self) -> String {
        self.ty.to_string()
    }

    fn __repr__(&self) -> String {
        format!("xbf.Schema({:?})", self.ty.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.downcast::<Schema>().map(|o| o.get().ty == self.ty).unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        u64::from_le_bytes(xbf::fingerprint(&self.ty))
    }
}
