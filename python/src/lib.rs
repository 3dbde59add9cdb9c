//! The native half of the `xbf` Python package: Python objects straight to
//! XBF bytes (type inferred in one pass, then encoded) and XBF bytes straight
//! to Python objects, over the Rust core in `crates/xbf`.
//!
//! Decoding takes a fast path that builds Python objects directly from the
//! bytes. Whenever that path meets anything unusual (damage, `any`, values
//! that take no bytes, ...), the message is decoded by the core instead, so
//! every error is the core's own: same kind, offset, path and message.
//!
//! # Unsafe code
//!
//! The crate is safe PyO3 except for two raw `pyo3::ffi` calls that measured
//! faster than their safe equivalents (`dict_next`:
//! `PyDict_Next`, and `dict_set`: `PyDict_SetItem`); each block states why it is
//! sound, and python/UNSAFE.md has the measurements. Miri cannot run this
//! crate, as every path goes through CPython's C API; it is checked instead
//! by the pytest suite run on a debug-checked interpreter
//! (`PYTHONMALLOC=debug python -X dev -m pytest python/tests`), which catches
//! reference count and memory misuse on the C side.

#![warn(clippy::undocumented_unsafe_blocks)]
// PyO3 0.22's #[pyfunction]/#[pymethods] expansions convert PyResult into itself (fixed in 0.23).
#![allow(clippy::useless_conversion)]

use std::cell::RefCell;
use std::collections::HashSet;
use std::io;
use std::sync::Arc;

use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDate, PyDateAccess, PyDateTime, PyDict, PyFloat, PyList, PyLong, PyMemoryView,
    PyString, PyTimeAccess, PyTuple, PyType,
};

/// Rust-side allocations of the extension (see python/Cargo.toml).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use xbf::infer::{Field, Ints, Objects, Resolved};
use xbf::{DecodeOptions, EncodeOptions, EnumMetadata, Layout, Metadata, PrimitiveType as P, StructMetadata, Version};

const MAX_DEPTH: usize = 128;
const OPTIONAL_KEY_ENUM: &str = "json.optional";
const OBJECT_STRUCT: &str = "Object";
/// Days from 0001-01-01 (Python's ordinal 1) to 1970-01-01.
const EPOCH_ORDINAL: i64 = 719_163;

// ------------------------------------------------------- raw FFI (unsafe)

/// The only unsafe code of the crate: raw `pyo3::ffi` calls kept because
/// they measured faster than the safe PyO3 API (python/UNSAFE.md; the figures
/// are in BENCHMARKS.md, "Measured design decisions").
/// (`unsafe_op_in_unsafe_fn` is denied here rather than crate-wide because
/// PyO3 0.22's `#[pymethods]`/`#[pyfunction]` expansions trip it.)
mod raw {
    #![deny(unsafe_op_in_unsafe_fn)]
    #![deny(clippy::undocumented_unsafe_blocks)]

    use pyo3::ffi;
    use pyo3::prelude::*;
    use pyo3::types::{PyDict, PyString};

    /// One step of `PyDict_Next`: the entry of `d` at or after `*pos`, as new
    /// references, and `*pos` moved past it. Faster than `PyDict::iter` on
    /// lists of records (python/UNSAFE.md).
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

    /// `d[k] = v` for a struct field of a decoded record. Faster than
    /// `PyDict::set_item` in `loads` (python/UNSAFE.md), which takes each
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
}

use raw::{dict_next, dict_set};

mod arrow;
mod file;
mod typed;

// ------------------------------------------------------------ Python refs

/// Whether `v` is an `xbf.Some` (a tuple subclass: the cheap tuple check first).
fn is_some(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(v.is_instance_of::<PyTuple>() && v.is_instance(refs(py)?.some.bind(py))?)
}

struct Refs {
    variant: Py<PyType>,
    typed: Py<PyType>,
    some: Py<PyType>,
    decode_error: Py<PyType>,
    encode_error: Py<PyType>,
    dc_fields: PyObject,
    utc: PyObject,
}

static REFS: GILOnceCell<Refs> = GILOnceCell::new();

fn refs(py: Python<'_>) -> PyResult<&Refs> {
    REFS.get(py).ok_or_else(|| PyRuntimeError::new_err("xbf._native is not initialised; import xbf"))
}

#[pyfunction]
fn _init(
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

fn short_repr(obj: &Bound<'_, PyAny>) -> String {
    let r = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "<unprintable>".into());
    if r.chars().count() > 80 {
        format!("{}...", r.chars().take(77).collect::<String>())
    } else {
        r
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().qualname().map(|s| s.to_string()).unwrap_or_else(|_| "?".into())
}

fn cannot(obj: &Bound<'_, PyAny>, what: &str) -> PyErr {
    PyTypeError::new_err(format!("cannot encode {} (of type {}) as {what}", short_repr(obj), type_name(obj)))
}

fn core_err(py: Python<'_>, e: xbf::Error) -> PyErr {
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
fn encode_err(e: xbf::Error) -> PyErr {
    Python::with_gil(|py| kind_err(py, e.kind().name(), e.to_string()))
}

fn kind_err(py: Python<'_>, kind: &str, message: String) -> PyErr {
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
fn too_deep(py: Python<'_>) -> PyErr {
    kind_err(py, "too-deep", format!("the data nests more than {MAX_DEPTH} levels (or holds a reference cycle)"))
}

// ------------------------------------------------------------- Schema

/// An XBF type. Build one from the vector form (`"u16"`, `{"vec": T}`,
/// `{"struct": "Name", "fields": [["f", T], ...]}`, `{"option": T}`,
/// `{"array": T, "len": n}`, `{"tuple": [T, ...]}`, `{"map": [K, V]}`,
/// `{"enum": "Name", "variants": [["v", T], ...]}`, `"any"`), or infer one
/// from data with `Schema.infer(obj)`.
#[pyclass(module = "xbf", frozen, name = "Schema")]
#[derive(Clone)]
struct Schema {
    ty: Metadata,
}

fn parse_type(t: &Bound<'_, PyAny>, depth: usize) -> PyResult<Metadata> {
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

fn pair<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    match seq_items(obj) {
        Some(items) if items.len() == 2 => Ok((items[0].clone(), items[1].clone())),
        _ => Err(PyTypeError::new_err(format!("{} is not a pair", short_repr(obj)))),
    }
}

fn pair_of<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    pair(obj)
}

fn type_to_py(py: Python<'_>, ty: &Metadata) -> PyResult<PyObject> {
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

// ------------------------------------------------------------- inference

#[derive(Clone)]
enum Shape<'py> {
    Never,
    Null,
    Bool,
    Int(Ints),
    Float,
    Str,
    Bytes,
    Date,
    Ts,
    Arr(Box<Shape<'py>>),
    Tup(Vec<Shape<'py>>),
    Obj(Obj<'py>),
    Map(Box<Shape<'py>>, Box<Shape<'py>>),
    Nullable(Box<Shape<'py>>),
    Any,
    Fixed(Metadata),
}

/// Dicts with str keys (named `Object`) or dataclass instances of one class,
/// merged by the core's rules (`xbf::infer`, shared with `xbf from-json`).
#[derive(Clone)]
struct Obj<'py> {
    name: String,
    objects: Objects<Slot<'py>>,
}

/// What the values of one key are, with the key as a Python string (the
/// fast path compares it by identity first).
#[derive(Clone)]
struct Slot<'py> {
    key: Bound<'py, PyString>,
    shape: Shape<'py>,
}

impl<'py> Obj<'py> {
    fn new(name: String) -> Self {
        Obj { name, objects: Objects::new() }
    }

    /// Adds one object given as (key, value) pairs, in its order.
    fn add(
        &mut self,
        items: impl IntoIterator<Item = PyResult<(Bound<'py, PyString>, Bound<'py, PyAny>)>>,
        depth: usize,
    ) -> PyResult<()> {
        self.objects.begin();
        for item in items {
            let (key, v) = item?;
            let slot = self.objects.key(key.to_str()?, || Slot { key: key.clone(), shape: Shape::Never });
            slot.shape.absorb(&v, depth + 1)?;
        }
        Ok(())
    }
}

fn int_bits(obj: &Bound<'_, PyAny>) -> PyResult<Ints> {
    let small = obj.extract::<i64>();
    let ints = if let Ok(v) = small {
        if v >= 0 {
            Ints { ubits: 64 - v.leading_zeros(), sbits: 0 }
        } else {
            Ints { ubits: 0, sbits: 65 - (!v).leading_zeros() }
        }
    } else if obj.gt(0i32)? {
        Ints { ubits: obj.call_method0("bit_length")?.extract()?, sbits: 0 }
    } else {
        let b: u32 = obj.call_method0("__invert__")?.call_method0("bit_length")?.extract()?;
        Ints { ubits: 0, sbits: b + 1 }
    };
    if ints.ubits > 256 || ints.sbits > 256 {
        return Err(PyOverflowError::new_err(format!(
            "the int {} is wider than XBF's widest integer type (256 bits)",
            short_repr(obj)
        )));
    }
    Ok(ints)
}

fn is_dataclass(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type().hasattr("__dataclass_fields__").unwrap_or(false) && !obj.is_instance_of::<PyType>()
}

/// The fields of a dataclass instance: (name, value) in declaration order.
fn dataclass_items<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Vec<(Bound<'py, PyString>, Bound<'py, PyAny>)>> {
    let py = obj.py();
    let fields = refs(py)?.dc_fields.bind(py).call1((obj,))?;
    let mut out = Vec::new();
    for f in fields.iter()? {
        let name = f?.getattr("name")?.downcast_into::<PyString>()?;
        let v = obj.getattr(&name)?;
        out.push((name, v));
    }
    Ok(out)
}

impl<'py> Shape<'py> {
    fn of(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Shape<'py>> {
        let mut s = Shape::Never;
        s.absorb(obj, depth)?;
        Ok(s)
    }

    fn fresh(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Shape<'py>> {
        if depth > MAX_DEPTH {
            return Err(too_deep(obj.py()));
        }
        let py = obj.py();
        {
            if obj.is_none() {
                return Ok(Shape::Null);
            }
            if obj.is_instance_of::<PyBool>() {
                return Ok(Shape::Bool);
            }
            if obj.is_instance_of::<PyLong>() {
                return Ok(Shape::Int(int_bits(obj)?));
            }
            if obj.is_instance_of::<PyFloat>() {
                return Ok(Shape::Float);
            }
            if obj.is_instance_of::<PyString>() {
                return Ok(Shape::Str);
            }
            if obj.is_instance_of::<PyBytes>()
                || obj.is_instance_of::<PyByteArray>()
                || obj.is_instance_of::<PyMemoryView>()
            {
                return Ok(Shape::Bytes);
            }
            if obj.is_instance_of::<PyList>() {
                let mut e = Shape::Never;
                for item in obj.downcast::<PyList>()?.iter() {
                    e.absorb(&item, depth + 1)?;
                }
                return Ok(Shape::Arr(Box::new(e)));
            }
            if obj.is_instance_of::<PyTuple>() {
                let mut ts = Vec::new();
                for item in obj.downcast::<PyTuple>()?.iter() {
                    ts.push(Shape::of(&item, depth + 1)?);
                }
                return Ok(Shape::Tup(ts));
            }
            if obj.is_instance_of::<PyDict>() {
                let d = obj.downcast::<PyDict>()?;
                let all_str = d.keys().iter().all(|k| k.is_instance_of::<PyString>());
                if all_str {
                    let mut o = Obj::new(OBJECT_STRUCT.into());
                    o.add(d.iter().map(|(k, v)| Ok((k.downcast_into::<PyString>()?, v))), depth)?;
                    return Ok(Shape::Obj(o));
                }
                let (mut ks, mut vs) = (Shape::Never, Shape::Never);
                for (k, v) in d.iter() {
                    ks.absorb(&k, depth + 1)?;
                    vs.absorb(&v, depth + 1)?;
                }
                return Ok(Shape::Map(Box::new(ks), Box::new(vs)));
            }
        }
        if obj.is_instance_of::<PyDateTime>() {
            return Ok(Shape::Ts);
        }
        if obj.is_instance_of::<PyDate>() {
            return Ok(Shape::Date);
        }
        let r = refs(py)?;
        if obj.is_instance(r.typed.bind(py))? {
            let s = obj.getattr("schema")?;
            let s = s.downcast::<Schema>().map_err(|_| cannot(obj, "a value: its schema is not an xbf.Schema"))?;
            return Ok(Shape::Fixed(s.get().ty.clone()));
        }
        if is_dataclass(obj) {
            let mut o = Obj::new(obj.get_type().name()?.to_string());
            o.add(dataclass_items(obj)?.into_iter().map(Ok), depth)?;
            return Ok(Shape::Obj(o));
        }
        if obj.is_instance(r.variant.bind(py))? || obj.is_instance(r.some.bind(py))? {
            return Err(cannot(obj, "a value without an explicit xbf.Schema (enums and Some need one)"));
        }
        Err(cannot(obj, "any XBF type"))
    }

    /// Widens this shape to also describe `obj`. Records (dicts of the same
    /// keys in the same order), numbers and strings take fast paths.
    fn absorb(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<()> {
        match self {
            Shape::Never => {
                *self = Shape::fresh(obj, depth)?;
                return Ok(());
            }
            Shape::Float if obj.is_exact_instance_of::<PyFloat>() => return Ok(()),
            Shape::Str if obj.is_exact_instance_of::<PyString>() => return Ok(()),
            Shape::Bool if obj.is_exact_instance_of::<PyBool>() => return Ok(()),
            Shape::Null if obj.is_none() => return Ok(()),
            Shape::Int(a) if obj.is_exact_instance_of::<PyLong>() => {
                let b = int_bits(obj)?;
                let j = a.join(b);
                if j.primitive().is_some() {
                    *a = j;
                    return Ok(());
                }
            }
            Shape::Nullable(inner) => {
                if obj.is_none() {
                    return Ok(());
                }
                inner.absorb(obj, depth)?;
                if matches!(**inner, Shape::Any) {
                    *self = Shape::Any;
                } else if matches!(**inner, Shape::Null | Shape::Nullable(_)) {
                    let s = std::mem::replace(&mut **inner, Shape::Never);
                    *self = s;
                }
                return Ok(());
            }
            Shape::Arr(e) if obj.is_exact_instance_of::<PyList>() => {
                if depth > MAX_DEPTH {
                    return Err(too_deep(obj.py()));
                }
                for item in obj.downcast::<PyList>()?.iter() {
                    e.absorb(&item, depth + 1)?;
                }
                return Ok(());
            }
            Shape::Obj(o) if o.name == OBJECT_STRUCT && obj.is_exact_instance_of::<PyDict>() => {
                let d = obj.downcast::<PyDict>()?;
                if depth <= MAX_DEPTH && d.len() == o.objects.last().len() {
                    // The usual case: the keys of the dict before, in its
                    // order (which adds no edge to the merge). Walk the dict in
                    // place (no lists of keys or items), in one pass: each key
                    // is checked, then its value absorbed. If a key differs
                    // (or the dict changed: absorbing a value can run Python
                    // code), the dict is added as a whole below; the values
                    // absorbed so far belong to the keys they widened, and
                    // joins only widen, so absorbing them twice changes nothing.
                    let same_key = |k: &Bound<'_, PyAny>, f: &Field<Slot<'_>>| {
                        k.is(&f.shape.key)
                            || k.downcast::<PyString>().ok().and_then(|k| k.to_str().ok()).is_some_and(|k| k == f.name)
                    };
                    let mut pos = 0;
                    let mut same = true;
                    for i in 0..o.objects.last().len() {
                        let slot = o.objects.last()[i] as usize;
                        let f = &mut o.objects.fields_mut()[slot];
                        match dict_next(d, &mut pos) {
                            Some((k, v)) if same_key(&k, f) => f.shape.shape.absorb(&v, depth + 1)?,
                            _ => {
                                same = false;
                                break;
                            }
                        }
                    }
                    if same {
                        o.objects.repeat();
                        return Ok(());
                    }
                }
                if depth <= MAX_DEPTH && d.keys().iter().all(|k| k.is_instance_of::<PyString>()) {
                    o.add(d.iter().map(|(k, v)| Ok((k.downcast_into::<PyString>()?, v))), depth)?;
                    return Ok(());
                }
            }
            Shape::Any => {
                // Still refuse what cannot be encoded at all.
                Shape::fresh(obj, depth)?;
                return Ok(());
            }
            _ => {}
        }
        let other = Shape::fresh(obj, depth)?;
        let s = std::mem::replace(self, Shape::Never);
        *self = s.join(other);
        Ok(())
    }

    fn join(self, other: Shape<'py>) -> Shape<'py> {
        use Shape::*;
        match (self, other) {
            (Never, s) | (s, Never) => s,
            (Any, _) | (_, Any) => Any,
            (Null, Null) => Null,
            (Null, Nullable(s)) | (Nullable(s), Null) => Nullable(s),
            (Null, s) | (s, Null) => Nullable(Box::new(s)),
            (Nullable(a), Nullable(b)) => nullable(a.join(*b)),
            (Nullable(a), b) | (b, Nullable(a)) => nullable(a.join(b)),
            (Bool, Bool) => Bool,
            (Int(a), Int(b)) => {
                let both = a.join(b);
                if both.primitive().is_some() {
                    Int(both)
                } else {
                    Any
                }
            }
            (Float, Float) => Float,
            (Str, Str) => Str,
            (Bytes, Bytes) => Bytes,
            (Date, Date) => Date,
            (Ts, Ts) => Ts,
            (Arr(a), Arr(b)) => Arr(Box::new(a.join(*b))),
            (Tup(a), Tup(b)) if a.len() == b.len() => {
                let ts: Vec<Shape> = a.into_iter().zip(b).map(|(x, y)| x.join(y)).collect();
                Tup(ts)
            }
            (Map(ka, va), Map(kb, vb)) => Map(Box::new(ka.join(*kb)), Box::new(va.join(*vb))),
            (Obj(mut a), Obj(b)) if a.name == b.name => {
                a.objects.merge(b.objects, |x, y| x.shape = std::mem::replace(&mut x.shape, Never).join(y.shape));
                Obj(a)
            }
            (Fixed(a), Fixed(b)) if a == b => Fixed(a),
            _ => Any,
        }
    }

    fn metadata(&self) -> Metadata {
        match self {
            Shape::Never | Shape::Null => Metadata::UNIT,
            Shape::Bool => P::Bool.into(),
            Shape::Int(c) => c.primitive().expect("joins keep a type").into(),
            Shape::Float => P::F64.into(),
            Shape::Str => P::String.into(),
            Shape::Bytes => P::Bytes.into(),
            Shape::Date => P::Date.into(),
            Shape::Ts => P::Timestamp.into(),
            Shape::Arr(e) => Metadata::vec(e.metadata()),
            Shape::Tup(ts) => Metadata::tuple(ts.iter().map(Shape::metadata)),
            Shape::Map(k, v) => Metadata::map(k.metadata(), v.metadata()),
            // Objects whose key orders conflict are `any`, which holds None itself.
            Shape::Nullable(s) => match s.metadata() {
                Metadata::Any => Metadata::Any,
                inner => Metadata::option(inner),
            },
            Shape::Any => Metadata::Any,
            Shape::Fixed(m) => m.clone(),
            Shape::Obj(o) => match o.objects.resolve() {
                Resolved::Map => {
                    let values = o.objects.fields().iter().fold(Shape::Never, |all, f| all.join(f.shape.shape.clone()));
                    Metadata::map(P::String.into(), values.metadata())
                }
                Resolved::Conflict => Metadata::Any,
                Resolved::Struct(fields) => {
                    let n = o.objects.count();
                    let fields = fields.into_iter().map(|f| {
                        let ty = f.shape.shape.metadata();
                        (f.name.as_str(), if f.count < n { optional_key(ty) } else { ty })
                    });
                    StructMetadata::new(o.name.as_str(), fields).expect("keys are unique").into()
                }
            },
        }
    }
}

/// The type of an inferred shape, refused (`too-deep`) where it nests more
/// than readers allow (SPEC §16.1: an `option` or an optional key is a level
/// too), so that `dumps` never writes what `loads` refuses.
fn inferred(py: Python<'_>, shape: Shape<'_>) -> PyResult<Metadata> {
    let ty = shape.metadata();
    if ty.depth() > MAX_DEPTH {
        return Err(kind_err(
            py,
            "too-deep",
            format!("the inferred type nests {} levels, more than {MAX_DEPTH}", ty.depth()),
        ));
    }
    Ok(ty)
}

fn nullable(s: Shape<'_>) -> Shape<'_> {
    match s {
        Shape::Null | Shape::Nullable(_) | Shape::Any => s,
        s => Shape::Nullable(Box::new(s)),
    }
}

fn optional_key(ty: Metadata) -> Metadata {
    let e = EnumMetadata::new(OPTIONAL_KEY_ENUM, [("absent", Metadata::UNIT), ("present", ty)]).expect("distinct");
    Metadata::Enum(Arc::new(e))
}

// ------------------------------------------------------------------ plans

/// A type prepared for one encode or decode: struct keys as Python strings.
enum Plan<'py> {
    Prim(P),
    /// Elements, and their zero-size weight (0 unless they take no bytes).
    Vec(Box<Plan<'py>>, u64),
    Array(u64, Box<Plan<'py>>, u64),
    /// A struct, tuple or array that takes no bytes, with its weight for
    /// the decoded-memory budget (SPEC.md 7.2 / 16.2).
    ZeroSize(u64, Box<Plan<'py>>),
    Option(Box<Plan<'py>>),
    Tuple(Vec<Plan<'py>>),
    Map(Box<Plan<'py>>, Box<Plan<'py>>),
    /// `seen`: per field, the key object of the data last matched by
    /// content (JSON parsers and `csv` share one key object across rows), so
    /// that the next rows match by identity.
    Struct {
        name: String,
        keys: Vec<Bound<'py, PyString>>,
        fields: Vec<Plan<'py>>,
        optional: Vec<bool>,
        seen: Vec<RefCell<Option<Bound<'py, PyAny>>>>,
        /// A dict of the keys, each to None, made on first use: decoded
        /// records start as copies of it (see [`struct_dict`]).
        template: RefCell<Option<Bound<'py, PyDict>>>,
    },
    Enum {
        names: Vec<Bound<'py, PyString>>,
        payloads: Vec<Plan<'py>>,
        name: String,
    },
    /// `any`, its metadata inside this many levels.
    Any(usize),
}

fn is_optional_key(ty: &Metadata) -> bool {
    match ty {
        Metadata::Enum(e) => {
            e.name() == OPTIONAL_KEY_ENUM
                && e.len() == 2
                && e.variant_at(0).is_some_and(|(n, t)| n == "absent" && *t == Metadata::UNIT)
                && e.variant_at(1).is_some_and(|(n, _)| n == "present")
        }
        _ => false,
    }
}

/// The core's weight of a zero-size type: the value and every value inside it.
fn zero_size_values(ty: &Metadata) -> u64 {
    let inner: u64 = match ty {
        Metadata::Array(a) => a.len.saturating_mul(zero_size_values(&a.element)),
        other => other.children().into_iter().map(zero_size_values).fold(0, u64::saturating_add),
    };
    inner.saturating_add(1)
}

fn zs_weight(ty: &Metadata) -> u64 {
    if ty.is_zero_size() {
        zero_size_values(ty)
    } else {
        0
    }
}

/// The plan of `ty`, whose metadata stands inside `open` nesting levels
/// (SPEC.md §16.1; an `any` value there opens one more, and its own type
/// more again, which only the value shows).
fn make_plan<'py>(py: Python<'py>, ty: &Metadata, open: usize) -> Plan<'py> {
    let p = make_plan_of(py, ty, open);
    if ty.is_zero_size() && !matches!(ty, Metadata::Primitive(_)) {
        Plan::ZeroSize(zero_size_values(ty), Box::new(p))
    } else {
        p
    }
}

fn make_plan_of<'py>(py: Python<'py>, ty: &Metadata, open: usize) -> Plan<'py> {
    let inner = open + 1;
    match ty {
        Metadata::Primitive(p) => Plan::Prim(*p),
        Metadata::Vec(e) => Plan::Vec(Box::new(make_plan(py, e, inner)), zs_weight(e)),
        Metadata::Array(a) => Plan::Array(a.len, Box::new(make_plan(py, &a.element, inner)), zs_weight(&a.element)),
        Metadata::Option(e) => Plan::Option(Box::new(make_plan(py, e, inner))),
        Metadata::Tuple(ts) => Plan::Tuple(ts.iter().map(|t| make_plan(py, t, inner)).collect()),
        Metadata::Map(m) => Plan::Map(Box::new(make_plan(py, &m.key, inner)), Box::new(make_plan(py, &m.value, inner))),
        Metadata::Struct(s) => Plan::Struct {
            name: s.name().to_owned(),
            keys: s.fields().map(|(n, _)| PyString::intern_bound(py, n)).collect(),
            fields: s.fields().map(|(_, t)| make_plan(py, t, inner)).collect(),
            optional: s.fields().map(|(_, t)| is_optional_key(t)).collect(),
            seen: s.fields().map(|_| RefCell::new(None)).collect(),
            template: RefCell::new(None),
        },
        Metadata::Enum(e) => Plan::Enum {
            names: e.variants().map(|(n, _)| PyString::new_bound(py, n)).collect(),
            payloads: e.variants().map(|(_, t)| make_plan(py, t, inner)).collect(),
            name: e.name().to_owned(),
        },
        _ => Plan::Any(open),
    }
}

impl Plan<'_> {
    fn describe(&self) -> String {
        match self {
            Plan::Prim(p) => p.name().to_owned(),
            Plan::Vec(..) => "vec".into(),
            Plan::Array(n, ..) => format!("array of {n}"),
            Plan::Option(_) => "option".into(),
            Plan::Tuple(t) => format!("tuple of {}", t.len()),
            Plan::Map(..) => "map".into(),
            Plan::Struct { name, .. } => format!("struct {name}"),
            Plan::Enum { name, .. } => format!("enum {name}"),
            Plan::Any(_) => "any".into(),
            Plan::ZeroSize(_, p) => p.describe(),
        }
    }

    fn is_zero_size(&self) -> bool {
        matches!(self, Plan::Prim(P::Unit) | Plan::ZeroSize(..))
    }

    /// Whether decoding this type can meet what the fast path leaves to the
    /// core: maps with keys or values that take no bytes.
    fn needs_core(&self) -> bool {
        match self {
            Plan::Prim(_) | Plan::Any(_) => false,
            Plan::Vec(e, _) | Plan::Array(_, e, _) | Plan::ZeroSize(_, e) => e.needs_core(),
            Plan::Option(e) => e.needs_core(),
            Plan::Tuple(ts) => ts.iter().any(Plan::needs_core),
            Plan::Map(k, v) => k.is_zero_size() || v.is_zero_size() || k.needs_core() || v.needs_core(),
            Plan::Struct { fields, .. } => fields.iter().any(Plan::needs_core),
            Plan::Enum { payloads, .. } => payloads.iter().any(Plan::needs_core),
        }
    }
}

// ---------------------------------------------------------------- encoder

struct Enc {
    out: Vec<u8>,
    v2: bool,
    /// XBF 2 metadata of the primitive types met in `any`, made once.
    any_codes: Vec<(P, Vec<u8>)>,
}

impl Enc {
    fn new(out: Vec<u8>, v2: bool) -> Self {
        Enc { out, v2, any_codes: Vec::new() }
    }

    fn any_code(&mut self, p: P) -> PyResult<()> {
        if let Some((_, code)) = self.any_codes.iter().find(|(q, _)| *q == p) {
            self.out.extend_from_slice(code);
            return Ok(());
        }
        let code = EncodeOptions::v2().encode_metadata(&Metadata::from(p)).map_err(encode_err)?;
        self.out.extend_from_slice(&code);
        self.any_codes.push((p, code));
        Ok(())
    }
}

#[inline]
fn uvarint(out: &mut Vec<u8>, mut x: u128) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

#[inline]
fn uvarint64(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn is_fixed(p: P) -> bool {
    p.integer_type() != p
}

fn ordinal_days(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    let d = obj.downcast::<PyDate>()?;
    xbf::time::days_from_civil(i64::from(d.get_year()), u32::from(d.get_month()), u32::from(d.get_day()))
        .ok_or_else(|| cannot(obj, "date"))
}

fn timestamp_micros(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = obj.py();
    let dt0 = obj.downcast::<PyDateTime>()?;
    let owned;
    let dt = if dt0.getattr("tzinfo")?.is_none() {
        dt0
    } else {
        owned = obj.call_method1("astimezone", (refs(py)?.utc.bind(py),))?.downcast_into::<PyDateTime>()?;
        &owned
    };
    let days = xbf::time::days_from_civil(i64::from(dt.get_year()), u32::from(dt.get_month()), u32::from(dt.get_day()))
        .ok_or_else(|| cannot(obj, "timestamp"))?;
    let secs =
        days * 86_400 + i64::from(dt.get_hour()) * 3600 + i64::from(dt.get_minute()) * 60 + i64::from(dt.get_second());
    Ok(secs * 1_000_000 + i64::from(dt.get_microsecond()))
}

fn int_256(obj: &Bound<'_, PyAny>, signed: bool, what: &str) -> PyResult<[u8; 32]> {
    let kwargs = PyDict::new_bound(obj.py());
    kwargs.set_item("signed", signed)?;
    let bytes = obj
        .call_method("to_bytes", (32, "little"), Some(&kwargs))
        .map_err(|_| PyOverflowError::new_err(format!("{} does not fit {what}", short_repr(obj))))?;
    let bytes = bytes.downcast::<PyBytes>()?.as_bytes();
    let mut out = [0u8; 32];
    out.copy_from_slice(bytes);
    Ok(out)
}

impl Enc {
    fn len(&mut self, n: usize) {
        if self.v2 {
            uvarint64(&mut self.out, n as u64)
        } else {
            self.out.extend_from_slice(&(n as u64).to_le_bytes())
        }
    }

    fn int(&mut self, obj: &Bound<'_, PyAny>, p: P) -> PyResult<()> {
        let ip = p.integer_type();
        let varint = self.v2 && !is_fixed(p) && ip != P::U8 && ip != P::I8;
        if !obj.is_instance_of::<PyLong>() || obj.is_instance_of::<PyBool>() {
            return Err(cannot(obj, p.name()));
        }
        let range = || PyOverflowError::new_err(format!("{} does not fit {}", short_repr(obj), p.name()));
        macro_rules! fixed_int {
            ($t:ty, $signed:expr) => {{
                let v: $t = obj.extract().map_err(|_| range())?;
                if varint {
                    if $signed {
                        let x = v as i128;
                        uvarint(&mut self.out, ((x << 1) ^ (x >> 127)) as u128)
                    } else {
                        uvarint(&mut self.out, v as u128)
                    }
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes())
                }
            }};
        }
        match ip {
            P::U8 => fixed_int!(u8, false),
            P::U16 => fixed_int!(u16, false),
            P::U32 => fixed_int!(u32, false),
            P::U64 => {
                let v: u64 = obj.extract().map_err(|_| range())?;
                if varint {
                    uvarint64(&mut self.out, v)
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes())
                }
            }
            P::U128 => fixed_int!(u128, false),
            P::I8 => fixed_int!(i8, true),
            P::I16 => fixed_int!(i16, true),
            P::I32 => fixed_int!(i32, true),
            P::I64 => {
                let v: i64 = obj.extract().map_err(|_| range())?;
                if varint {
                    uvarint64(&mut self.out, ((v << 1) ^ (v >> 63)) as u64)
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes())
                }
            }
            P::I128 => fixed_int!(i128, true),
            P::U256 => {
                let b = int_256(obj, false, "u256")?;
                self.out.extend_from_slice(&b)
            }
            P::I256 => {
                let b = int_256(obj, true, "i256")?;
                self.out.extend_from_slice(&b)
            }
            _ => return Err(cannot(obj, p.name())),
        }
        Ok(())
    }

    fn value<'py>(&mut self, obj: &Bound<'py, PyAny>, plan: &Plan<'py>, depth: usize) -> PyResult<()> {
        let py = obj.py();
        if depth > MAX_DEPTH + 2 {
            return Err(too_deep(py));
        }
        match plan {
            Plan::Prim(p) => {
                let is_int = || obj.is_instance_of::<PyLong>() && !obj.is_instance_of::<PyBool>();
                match p {
                    P::Bool => match obj.downcast::<PyBool>() {
                        Ok(b) => self.out.push(u8::from(b.is_true())),
                        Err(_) => return Err(cannot(obj, "bool")),
                    },
                    P::F64 | P::F32 => {
                        let x = if let Ok(f) = obj.downcast_exact::<PyFloat>() {
                            f.value()
                        } else if obj.is_instance_of::<PyFloat>() || is_int() {
                            obj.extract::<f64>()?
                        } else {
                            return Err(cannot(obj, p.name()));
                        };
                        if *p == P::F64 {
                            self.out.extend_from_slice(&x.to_le_bytes())
                        } else {
                            let y = x as f32;
                            let y = if y.is_nan() { f32::NAN } else { y };
                            self.out.extend_from_slice(&y.to_le_bytes())
                        }
                    }
                    P::String => {
                        let s = obj.downcast::<PyString>().map_err(|_| cannot(obj, "string"))?.to_str()?;
                        self.len(s.len());
                        self.out.extend_from_slice(s.as_bytes());
                    }
                    P::Bytes => {
                        if let Ok(b) = obj.downcast::<PyBytes>() {
                            let b = b.as_bytes();
                            self.len(b.len());
                            self.out.extend_from_slice(b);
                        } else if obj.is_instance_of::<PyByteArray>() || obj.is_instance_of::<PyMemoryView>() {
                            let b = py.get_type_bound::<PyBytes>().call1((obj,))?;
                            let b = b.downcast::<PyBytes>()?.as_bytes();
                            self.len(b.len());
                            self.out.extend_from_slice(b);
                        } else {
                            return Err(cannot(obj, "bytes"));
                        }
                    }
                    P::Unit => {
                        if !obj.is_none() {
                            return Err(cannot(obj, "unit (None)"));
                        }
                    }
                    P::Date => {
                        let d = if obj.is_instance_of::<PyDate>() && !obj.is_instance_of::<PyDateTime>() {
                            ordinal_days(obj)?
                        } else if is_int() {
                            i64::from(obj.extract::<i32>().map_err(|_| cannot(obj, "date"))?)
                        } else {
                            return Err(cannot(obj, "date"));
                        };
                        let d = i32::try_from(d).map_err(|_| cannot(obj, "date"))?;
                        let x = i64::from(d);
                        uvarint64(&mut self.out, ((x << 1) ^ (x >> 63)) as u64);
                    }
                    P::Timestamp => {
                        let t = if obj.is_instance_of::<PyDateTime>() {
                            timestamp_micros(obj)?
                        } else if is_int() {
                            obj.extract::<i64>().map_err(|_| cannot(obj, "timestamp"))?
                        } else {
                            return Err(cannot(obj, "timestamp"));
                        };
                        uvarint64(&mut self.out, ((t << 1) ^ (t >> 63)) as u64);
                    }
                    _ => self.int(obj, *p)?,
                }
            }
            Plan::Vec(e, _) => {
                if let Ok(l) = obj.downcast::<PyList>() {
                    self.len(l.len());
                    for item in l.iter() {
                        self.value(&item, e, depth + 1)?;
                    }
                } else if let Ok(t) = obj.downcast::<PyTuple>() {
                    self.len(t.len());
                    for item in t.iter() {
                        self.value(&item, e, depth + 1)?;
                    }
                } else {
                    return Err(cannot(obj, "vec (a list)"));
                }
            }
            Plan::Array(n, e, _) => {
                let items = seq_items(obj).ok_or_else(|| cannot(obj, &plan.describe()))?;
                if items.len() as u64 != *n {
                    return Err(cannot(obj, &plan.describe()));
                }
                for item in items {
                    self.value(&item, e, depth + 1)?;
                }
            }
            Plan::Tuple(ts) => {
                let items = seq_items(obj).ok_or_else(|| cannot(obj, &plan.describe()))?;
                if items.len() != ts.len() {
                    return Err(cannot(obj, &plan.describe()));
                }
                for (item, t) in items.iter().zip(ts) {
                    self.value(item, t, depth + 1)?;
                }
            }
            Plan::Option(inner) => {
                if obj.is_none() {
                    self.out.push(0);
                } else {
                    self.out.push(1);
                    // xbf.Some is a tuple: skip the isinstance call for the rest.
                    if obj.is_instance_of::<PyTuple>() && obj.is_instance(refs(py)?.some.bind(py))? {
                        self.value(&obj.getattr("value")?, inner, depth + 1)?;
                    } else {
                        self.value(obj, inner, depth + 1)?;
                    }
                }
            }
            Plan::Struct { keys, fields, optional, seen, .. } => {
                if let Ok(d) = obj.downcast_exact::<PyDict>() {
                    if d.len() == keys.len() && self.dict_in_order(d, keys, fields, optional, seen, depth)? {
                        return Ok(());
                    }
                }
                if let Ok(d) = obj.downcast::<PyDict>() {
                    let mut present = 0usize;
                    for ((k, f), opt) in keys.iter().zip(fields).zip(optional) {
                        let Some(item) = d.get_item(k)? else {
                            if *opt {
                                self.out.push(0);
                                continue;
                            }
                            return Err(PyTypeError::new_err(format!(
                                "cannot encode {} as {}: it has no key {:?}",
                                short_repr(obj),
                                plan.describe(),
                                k.to_string()
                            )));
                        };
                        present += 1;
                        if *opt {
                            self.out.push(1);
                            let Plan::Enum { payloads, .. } = f else { unreachable!() };
                            self.value(&item, &payloads[1], depth + 1)
                        } else {
                            self.value(&item, f, depth + 1)
                        }
                        .map_err(|e| within_key(py, e, k))?;
                    }
                    if present != d.len() {
                        return Err(PyTypeError::new_err(format!(
                            "cannot encode {} as {}: it has keys the struct lacks",
                            short_repr(obj),
                            plan.describe()
                        )));
                    }
                } else if is_dataclass(obj) {
                    for ((k, f), opt) in keys.iter().zip(fields).zip(optional) {
                        let item = obj.getattr(k)?;
                        if *opt {
                            self.out.push(1);
                            let Plan::Enum { payloads, .. } = f else { unreachable!() };
                            self.value(&item, &payloads[1], depth + 1)?
                        } else {
                            self.value(&item, f, depth + 1)?
                        }
                    }
                } else {
                    return Err(cannot(obj, &plan.describe()));
                }
            }
            Plan::Map(k, v) => {
                if let Ok(d) = obj.downcast::<PyDict>() {
                    self.len(d.len());
                    for (key, val) in d.iter() {
                        self.value(&key, k, depth + 1)?;
                        self.value(&val, v, depth + 1)?;
                    }
                } else if let Some(items) = seq_items(obj) {
                    self.len(items.len());
                    for pair in items {
                        let (key, val) = pair_of(&pair).map_err(|_| cannot(&pair, "a map entry (key, value)"))?;
                        self.value(&key, k, depth + 1)?;
                        self.value(&val, v, depth + 1)?;
                    }
                } else {
                    return Err(cannot(obj, "map (a dict)"));
                }
            }
            Plan::Enum { names, payloads, .. } => {
                let r = refs(py)?;
                let (name, payload) = if obj.is_instance(r.variant.bind(py))? {
                    (obj.getattr("name")?, obj.getattr("value")?)
                } else if obj.is_instance_of::<PyString>() {
                    (obj.clone(), py.None().into_bound(py))
                } else {
                    return Err(cannot(obj, &format!("{} (an xbf.Variant)", plan.describe())));
                };
                let i = names
                    .iter()
                    .position(|n| n.as_any().eq(&name).unwrap_or(false))
                    .ok_or_else(|| cannot(obj, &format!("{}: no such variant", plan.describe())))?;
                self.len(i);
                self.value(&payload, &payloads[i], depth + 1)?;
            }
            Plan::ZeroSize(_, inner) => self.value(obj, inner, depth)?,
            Plan::Any(open) => {
                // Scalars, the usual content of `any` columns: the type's
                // code, then the value, with no type tree built.
                let scalar = {
                    if obj.is_exact_instance_of::<PyString>() {
                        Some(P::String)
                    } else if obj.is_exact_instance_of::<PyFloat>() {
                        Some(P::F64)
                    } else if obj.is_none() {
                        Some(P::Unit)
                    } else if obj.is_instance_of::<PyBool>() {
                        Some(P::Bool)
                    } else if obj.is_exact_instance_of::<PyLong>() {
                        Some(int_bits(obj)?.primitive().ok_or_else(|| cannot(obj, "an integer of at most 256 bits"))?)
                    } else if obj.is_exact_instance_of::<PyBytes>() {
                        Some(P::Bytes)
                    } else {
                        None
                    }
                };
                if let Some(p) = scalar {
                    self.any_code(p)?;
                    return self.value(obj, &Plan::Prim(p), depth + 1);
                }
                let r = refs(py)?;
                let (ty, inner) = if obj.is_instance(r.typed.bind(py))? {
                    let s = obj.getattr("schema")?;
                    let s = s.downcast::<Schema>().map_err(|_| cannot(obj, "any"))?;
                    (s.get().ty.clone(), obj.getattr("value")?)
                } else {
                    (Shape::of(obj, depth)?.metadata(), obj.clone())
                };
                // Readers count the any value as a level, then its type's.
                if open + 1 + ty.depth() > MAX_DEPTH {
                    return Err(too_deep(py));
                }
                let meta = EncodeOptions::v2().encode_metadata(&ty).map_err(encode_err)?;
                self.out.extend_from_slice(&meta);
                let p = make_plan(py, &ty, open + 1);
                self.value(&inner, &p, depth + 1)?;
            }
        }
        Ok(())
    }
}

/// Whether `k`, a key of the data, is the struct key `key`: by identity
/// (with the data's own key object remembered in `seen`), else by content.
#[inline]
fn key_matches<'py>(
    k: &Bound<'py, PyAny>,
    key: &Bound<'py, PyString>,
    seen: &RefCell<Option<Bound<'py, PyAny>>>,
) -> bool {
    if k.is(key) || seen.borrow().as_ref().is_some_and(|s| s.is(k)) {
        return true;
    }
    let same = k.downcast_exact::<PyString>().is_ok_and(|ks| match (ks.to_str(), key.to_str()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    });
    if same {
        *seen.borrow_mut() = Some(k.clone());
    }
    same
}

impl Enc {
    /// A record whose keys are the struct's, in its order: written walking
    /// the dict in place, with no key lookups. `false` (and nothing written)
    /// when a key differs; the caller then looks each key up.
    fn dict_in_order<'py>(
        &mut self,
        d: &Bound<'py, PyDict>,
        keys: &[Bound<'py, PyString>],
        fields: &[Plan<'py>],
        optional: &[bool],
        seen: &[RefCell<Option<Bound<'py, PyAny>>>],
        depth: usize,
    ) -> PyResult<bool> {
        let mark = self.out.len();
        let mut pos = 0;
        for (i, (f, opt)) in fields.iter().zip(optional).enumerate() {
            // Writing a value can run Python code (a dataclass's properties)
            // that changes this dict: each key is checked as it comes.
            match dict_next(d, &mut pos) {
                Some((k, v)) if key_matches(&k, &keys[i], &seen[i]) => {
                    if *opt {
                        self.out.push(1);
                        let Plan::Enum { payloads, .. } = f else { unreachable!() };
                        self.value(&v, &payloads[1], depth + 1)?
                    } else {
                        self.value(&v, f, depth + 1)?
                    }
                }
                _ => {
                    self.out.truncate(mark);
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

fn within_key(py: Python<'_>, e: PyErr, _k: &Bound<'_, PyString>) -> PyErr {
    let _ = py;
    e
}

fn seq_items<'py>(obj: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = obj.downcast::<PyList>() {
        Some(l.iter().collect())
    } else if let Ok(t) = obj.downcast::<PyTuple>() {
        Some(t.iter().collect())
    } else {
        None
    }
}

/// Header + metadata + value of `obj` as type `ty` (rows), and where the value starts.
fn encode_rows(py: Python<'_>, obj: &Bound<'_, PyAny>, ty: &Metadata, version: u8) -> PyResult<(Vec<u8>, usize)> {
    let v2 = match version {
        1 => false,
        2 => true,
        _ => return Err(PyValueError::new_err(format!("XBF has versions 1 and 2, not {version}"))),
    };
    let opts = if v2 { EncodeOptions::v2() } else { EncodeOptions::v1() };
    let meta = opts.encode_metadata(ty).map_err(encode_err)?;
    let mut enc = Enc::new(Vec::with_capacity(meta.len() + 64), v2);
    if v2 {
        enc.out.extend_from_slice(&[0xc2, 0x00]);
    }
    enc.out.extend_from_slice(&meta);
    let head = enc.out.len();
    let p = make_plan(py, ty, 0);
    enc.value(obj, &p, 0)?;
    Ok((enc.out, head))
}

// ------------------------------------------------- straight to core values

/// A type prepared for [`to_value`]: the record shapes that JSON-like data
/// has (structs of numbers, strings, options and optional keys, lists).
/// Anything else makes the caller go through rows.
enum VPlan<'py> {
    Bool,
    U64,
    I64,
    F64,
    Str,
    Unit,
    /// `any` holding a scalar (a str, float, None, bool or an int of at most
    /// 64 bits), as the rows encoder writes it: its one-byte type, the value.
    Any,
    Vec(Metadata, Box<VPlan<'py>>),
    /// The payload type, its plan, and an absent value whose clones share
    /// its type (no allocation per None).
    Option(Metadata, Box<VPlan<'py>>, xbf::Value),
    Struct {
        ty: Arc<StructMetadata>,
        keys: Vec<Bound<'py, PyString>>,
        seen: Vec<RefCell<Option<Bound<'py, PyAny>>>>,
        fields: Vec<VPlan<'py>>,
        /// The `json.optional` enum of a key that some records lack.
        optional: Vec<Option<Arc<EnumMetadata>>>,
    },
}

/// `open`: the nesting levels around `ty`, as for [`make_plan`].
fn vplan<'py>(py: Python<'py>, ty: &Metadata, open: usize) -> Option<VPlan<'py>> {
    let inner = open + 1;
    Some(match ty {
        Metadata::Primitive(p) => match p {
            P::Bool => VPlan::Bool,
            P::U64 => VPlan::U64,
            P::I64 => VPlan::I64,
            P::F64 => VPlan::F64,
            P::String => VPlan::Str,
            P::Unit => VPlan::Unit,
            _ => return None,
        },
        // An any value opens a level: past the limit, the general path refuses it.
        Metadata::Any if open < MAX_DEPTH => VPlan::Any,
        Metadata::Vec(e) if !e.is_zero_size() => VPlan::Vec((**e).clone(), Box::new(vplan(py, e, inner)?)),
        Metadata::Option(e) => VPlan::Option(
            (**e).clone(),
            Box::new(vplan(py, e, inner)?),
            xbf::Value::Option(xbf::OptionValue::none((**e).clone())),
        ),
        Metadata::Struct(s) if !ty.is_zero_size() => {
            let mut fields = Vec::with_capacity(s.len());
            let mut optional = Vec::with_capacity(s.len());
            for (_, t) in s.fields() {
                match t {
                    Metadata::Enum(e) if is_optional_key(t) => {
                        fields.push(vplan(py, e.variant_at(1)?.1, inner + 1)?);
                        optional.push(Some(e.clone()));
                    }
                    _ => {
                        fields.push(vplan(py, t, inner)?);
                        optional.push(None);
                    }
                }
            }
            VPlan::Struct {
                ty: s.clone(),
                keys: s.fields().map(|(n, _)| PyString::intern_bound(py, n)).collect(),
                seen: s.fields().map(|_| RefCell::new(None)).collect(),
                fields,
                optional,
            }
        }
        _ => return None,
    })
}

fn uvarint_len(x: u64) -> usize {
    (64 - (x | 1).leading_zeros() as usize).div_ceil(7)
}

/// Python objects straight to a core value of the type `plan` was made
/// from, pushed onto `out`, adding to `rows` the bytes the value takes in the
/// rows layout. `Ok(false)` (and nothing pushed): an object this path does
/// not take as it is (a subclass, a missing key, a value of another type,
/// ...); the caller then encodes rows, whose encoder gives the error if there
/// is one. (Values go straight into their parent's vector: returned through
/// a `PyResult<Option<Value>>`, each was copied three times, which measured
/// as much as building it.)
fn to_value<'py>(
    obj: &Bound<'py, PyAny>,
    plan: &VPlan<'py>,
    rows: &mut usize,
    depth: usize,
    out: &mut Vec<xbf::Value>,
) -> PyResult<bool> {
    use xbf::Value as V;
    if depth > MAX_DEPTH {
        return Ok(false);
    }
    let v = match plan {
        VPlan::F64 => match obj.downcast_exact::<PyFloat>() {
            Ok(f) => {
                *rows += 8;
                V::F64(f.value())
            }
            Err(_) => return Ok(false),
        },
        VPlan::Str => match obj.downcast_exact::<PyString>() {
            Ok(s) => {
                let s = s.to_str()?;
                *rows += uvarint_len(s.len() as u64) + s.len();
                V::String(s.to_owned())
            }
            Err(_) => return Ok(false),
        },
        VPlan::I64 | VPlan::U64 => {
            if !obj.is_exact_instance_of::<PyLong>() {
                return Ok(false);
            }
            if matches!(plan, VPlan::I64) {
                let Ok(v) = obj.extract::<i64>() else { return Ok(false) };
                *rows += uvarint_len(((v << 1) ^ (v >> 63)) as u64);
                V::I64(v)
            } else {
                let Ok(v) = obj.extract::<u64>() else { return Ok(false) };
                *rows += uvarint_len(v);
                V::U64(v)
            }
        }
        VPlan::Bool => match obj.downcast_exact::<PyBool>() {
            Ok(b) => {
                *rows += 1;
                V::Bool(b.is_true())
            }
            Err(_) => return Ok(false),
        },
        VPlan::Unit => {
            if !obj.is_none() {
                return Ok(false);
            }
            V::Unit
        }
        VPlan::Any => {
            // The same choices as `Enc::value` for `Plan::Any`; the type code
            // of a primitive is one byte (SPEC.md 12.2).
            let v = if let Ok(s) = obj.downcast_exact::<PyString>() {
                let s = s.to_str()?;
                *rows += uvarint_len(s.len() as u64) + s.len();
                V::String(s.to_owned())
            } else if let Ok(f) = obj.downcast_exact::<PyFloat>() {
                *rows += 8;
                V::F64(f.value())
            } else if obj.is_none() {
                V::Unit
            } else if let Ok(b) = obj.downcast_exact::<PyBool>() {
                *rows += 1;
                V::Bool(b.is_true())
            } else if obj.is_exact_instance_of::<PyLong>() {
                if let Ok(v) = obj.extract::<u64>() {
                    *rows += uvarint_len(v);
                    V::U64(v)
                } else if let Ok(v) = obj.extract::<i64>() {
                    *rows += uvarint_len(((v << 1) ^ (v >> 63)) as u64);
                    V::I64(v)
                } else {
                    return Ok(false);
                }
            } else {
                return Ok(false);
            };
            *rows += 1;
            V::any(v)
        }
        VPlan::Option(inner_ty, inner, none) => {
            *rows += 1;
            if obj.is_none() {
                none.clone()
            } else {
                // `xbf.Some` (a tuple) and the like: rows.
                if !to_value(obj, inner, rows, depth + 1, out)? {
                    return Ok(false);
                }
                let v = out.pop().expect("to_value pushed a value");
                V::Option(xbf::OptionValue::some(inner_ty.clone(), v).map_err(encode_err)?)
            }
        }
        VPlan::Vec(elem, e) => {
            let Ok(l) = obj.downcast_exact::<PyList>() else { return Ok(false) };
            *rows += uvarint_len(l.len() as u64);
            let mut items = Vec::with_capacity(l.len());
            for item in l.iter() {
                if !to_value(&item, e, rows, depth + 1, &mut items)? {
                    return Ok(false);
                }
            }
            V::Vec(xbf::VecValue::new(elem.clone(), items).map_err(encode_err)?)
        }
        VPlan::Struct { ty, keys, seen, fields, optional } => {
            let Ok(d) = obj.downcast_exact::<PyDict>() else { return Ok(false) };
            let mut values = Vec::with_capacity(fields.len());
            let mut in_order = d.len() == keys.len();
            let mut pos = 0;
            for (i, (f, opt)) in fields.iter().zip(optional).enumerate() {
                // The dict walked in place while its keys come in the struct's
                // order (checked one by one: converting a value can run no
                // Python code here, but the check is cheap), looked up after.
                let item = match in_order.then(|| dict_next(d, &mut pos)).flatten() {
                    Some((k, v)) if key_matches(&k, &keys[i], &seen[i]) => Some(v),
                    _ => {
                        in_order = false;
                        d.get_item(&keys[i])?
                    }
                };
                match (item, opt) {
                    (Some(item), None) => {
                        if !to_value(&item, f, rows, depth + 1, &mut values)? {
                            return Ok(false);
                        }
                    }
                    (Some(item), Some(e)) => {
                        *rows += 1;
                        if !to_value(&item, f, rows, depth + 1, &mut values)? {
                            return Ok(false);
                        }
                        let v = values.pop().expect("to_value pushed a value");
                        values.push(V::Enum(xbf::EnumValue::new(e.clone(), "present", v).map_err(encode_err)?));
                    }
                    (None, Some(e)) => {
                        *rows += 1;
                        values.push(V::Enum(xbf::EnumValue::new(e.clone(), "absent", V::Unit).map_err(encode_err)?));
                    }
                    (None, None) => return Ok(false),
                }
            }
            if !in_order {
                // Keys the struct lacks: rows give the error.
                let present = keys.iter().filter(|k| d.contains(k).unwrap_or(false)).count();
                if present != d.len() {
                    return Ok(false);
                }
            }
            V::Struct(xbf::StructValue::new(ty.clone(), values).map_err(encode_err)?)
        }
    };
    out.push(v);
    Ok(true)
}

/// The columnar message of `obj` (of type `ty`) built from core values made
/// straight from the Python objects, and the size of the rows message of
/// the same value; `None` if `obj` is not for this path.
fn columns_direct<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    ty: &Metadata,
    zstd: Option<i32>,
) -> PyResult<Option<(Vec<u8>, usize)>> {
    let Some(plan) = vplan(py, ty, 0) else { return Ok(None) };
    let mut rows = 0usize;
    let mut root = Vec::with_capacity(1);
    if !to_value(obj, &plan, &mut rows, 0, &mut root)? {
        return Ok(None);
    }
    let value = root.pop().expect("to_value pushed a value");
    let cols = EncodeOptions::v2()
        .layout(Layout::Columnar)
        .compress_columns(zstd)
        .encode_typed_message(ty, &value)
        .map_err(encode_err)?;
    let meta = EncodeOptions::v2().encode_metadata(ty).map_err(encode_err)?;
    Ok(Some((cols, 2 + meta.len() + rows)))
}

// ------------------------------------------------ lists of flat records

/// The kind of each value of a key of the records, as it was read: the
/// type is known only once every record was read (an int column may turn
/// out an option, or `any`).
const K_NULL: u8 = 0;
const K_BOOL: u8 = 1;
const K_INT: u8 = 2;
/// An int above `i64::MAX` (kept in `ints` as its bits).
const K_UINT: u8 = 3;
const K_FLOAT: u8 = 4;
const K_STR: u8 = 5;

/// The values of one key of the records: each one's kind, and the values
/// of each kind in order.
#[derive(Default)]
struct RawColumn {
    kinds: Vec<u8>,
    seen: [bool; 6],
    bools: Vec<bool>,
    /// Ints as the bits of an i64 (those above `i64::MAX` as their u64 bits).
    ints: Vec<u64>,
    int_bits: Option<Ints>,
    floats: Vec<f64>,
    /// The strings one after the other, and where each ends.
    text: String,
    ends: Vec<usize>,
}

impl RawColumn {
    /// The shape inference gives the key: the kinds joined as `Shape::absorb`
    /// joins them one value at a time (their join does not depend on order).
    fn shape<'py>(&self) -> Shape<'py> {
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
}

/// The columnar message of a list of flat records (exact dicts of the same
/// str keys in the same order, whose values are None, bool, float, str or
/// ints of at most 64 bits, all of exact types), read in one pass that both
/// infers the type and gathers the columns, then written through the core's
/// column builder; also the type and the size of the rows message. `None`
/// for anything else (the caller then takes the general path, which gives
/// the same bytes, or the error).
fn records_direct(obj: &Bound<'_, PyAny>, zstd: Option<i32>) -> PyResult<Option<(Vec<u8>, usize, Metadata)>> {
    let Ok(list) = obj.downcast_exact::<PyList>() else { return Ok(None) };
    let n = list.len();
    let Some(first) = list.iter().next() else { return Ok(None) };
    let Ok(first) = first.downcast_exact::<PyDict>() else { return Ok(None) };
    let mut keys = Vec::with_capacity(first.len());
    let mut names = Vec::with_capacity(first.len());
    let mut pos = 0;
    while let Some((k, _)) = dict_next(first, &mut pos) {
        let Ok(k) = k.downcast_into_exact::<PyString>() else { return Ok(None) };
        let Ok(name) = k.to_str() else { return Ok(None) };
        names.push(name.to_owned());
        keys.push(k);
    }
    if keys.is_empty() {
        return Ok(None);
    }
    let mut cols: Vec<RawColumn> =
        keys.iter().map(|_| RawColumn { kinds: Vec::with_capacity(n), ..Default::default() }).collect();
    for item in list.iter() {
        let Ok(d) = item.downcast_exact::<PyDict>() else { return Ok(None) };
        if d.len() != keys.len() {
            return Ok(None);
        }
        let mut pos = 0;
        for ((key, name), col) in keys.iter().zip(&names).zip(cols.iter_mut()) {
            let Some((k, v)) = dict_next(d, &mut pos) else { return Ok(None) };
            let same =
                k.is(key) || k.downcast_exact::<PyString>().ok().and_then(|k| k.to_str().ok()) == Some(name.as_str());
            if !same {
                return Ok(None);
            }
            let kind = if let Ok(s) = v.downcast_exact::<PyString>() {
                let Ok(s) = s.to_str() else { return Ok(None) };
                if col.ends.capacity() == 0 {
                    // Room for the rest of the list at once, guessed from
                    // the first string's length.
                    col.ends.reserve(n);
                    col.text.reserve(n.saturating_mul(s.len() + 4).min(1 << 24));
                }
                col.text.push_str(s);
                col.ends.push(col.text.len());
                K_STR
            } else if let Ok(f) = v.downcast_exact::<PyFloat>() {
                if col.floats.capacity() == 0 {
                    col.floats.reserve(n);
                }
                col.floats.push(f.value());
                K_FLOAT
            } else if v.is_none() {
                K_NULL
            } else if let Ok(b) = v.downcast_exact::<PyBool>() {
                col.bools.push(b.is_true());
                K_BOOL
            } else if v.is_exact_instance_of::<PyLong>() {
                let (kind, bits, x) = if let Ok(x) = v.extract::<i64>() {
                    let bits = if x >= 0 {
                        Ints { ubits: 64 - x.leading_zeros(), sbits: 0 }
                    } else {
                        Ints { ubits: 0, sbits: 65 - (!x).leading_zeros() }
                    };
                    (K_INT, bits, x as u64)
                } else if let Ok(x) = v.extract::<u64>() {
                    (K_UINT, Ints { ubits: 64, sbits: 0 }, x)
                } else {
                    return Ok(None);
                };
                col.int_bits = Some(col.int_bits.map_or(bits, |a| a.join(bits)));
                if col.ints.capacity() == 0 {
                    col.ints.reserve(n);
                }
                col.ints.push(x);
                kind
            } else {
                return Ok(None);
            };
            col.seen[kind as usize] = true;
            col.kinds.push(kind);
        }
    }
    // The type inference gives (`Shape::of`), from the kinds seen.
    // Every record has every key, in one order: one object, counted n times.
    let mut o = Obj::new(OBJECT_STRUCT.into());
    o.objects.begin();
    for ((key, name), col) in keys.iter().zip(names).zip(&cols) {
        o.objects.key(&name, || Slot { key: key.clone(), shape: col.shape() });
    }
    for _ in 1..n {
        o.objects.repeat();
    }
    let shape = Shape::Arr(Box::new(Shape::Obj(o)));
    let ty = shape.metadata();
    let Metadata::Vec(elem) = &ty else { return Ok(None) };
    let Metadata::Struct(s) = &**elem else { return Ok(None) };
    if elem.is_zero_size() {
        return Ok(None);
    }
    let mut columns = xbf::Columns::new(&ty);
    let records = columns.root().push_len(n).map_err(encode_err)?;
    // The rows message: the length of the list, then each record's fields.
    let mut rows = uvarint_len(n as u64);
    for (i, ((_, fty), col)) in s.fields().zip(&cols).enumerate() {
        let node = records.field(i).map_err(encode_err)?;
        let Some(r) = fill(node, fty, col).map_err(encode_err)? else { return Ok(None) };
        rows += r;
    }
    let cols = EncodeOptions::v2().compress_columns(zstd).encode_columns(columns).map_err(encode_err)?;
    let meta = EncodeOptions::v2().encode_metadata(&ty).map_err(encode_err)?;
    Ok(Some((cols, 2 + meta.len() + rows, ty)))
}

fn zigzag_len(x: i64) -> usize {
    uvarint_len(((x << 1) ^ (x >> 63)) as u64)
}

/// Pushes the values of one key into its column node of type `ty`, as
/// `to_value` would have converted them; the bytes they take in the rows
/// layout, or `None` for a type that path does not take.
fn fill(node: &mut xbf::ColumnNode, ty: &Metadata, col: &RawColumn) -> xbf::Result<Option<usize>> {
    let prim = |t: &Metadata| match t {
        Metadata::Primitive(p @ (P::Unit | P::Bool | P::F64 | P::String | P::U64 | P::I64)) => Some(*p),
        _ => None,
    };
    // The values of a primitive type (inference gave it to every value but
    // None), all at once: what they take in rows.
    let scalars = |node: &mut xbf::ColumnNode, p: P| -> xbf::Result<usize> {
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
                node.extend_str(&col.text, &col.ends)?;
                let mut start = 0;
                col.ends.iter().fold(0, |sum, &end| {
                    let len = end - start;
                    start = end;
                    sum + uvarint_len(len as u64) + len
                })
            }
            P::U64 => {
                node.extend_u64(&col.ints)?;
                col.ints.iter().map(|&x| uvarint_len(x)).sum()
            }
            P::I64 => {
                let xs: Vec<i64> = col.ints.iter().map(|&x| x as i64).collect();
                node.extend_i64(&xs)?;
                xs.iter().map(|&x| zigzag_len(x)).sum()
            }
            _ => unreachable!("a primitive of flat records"),
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
            let tags: Vec<usize> = col
                .kinds
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
                        u64s.iter().map(|&x| uvarint_len(x)).sum()
                    }
                    3 => {
                        node.extend_i64(&i64s)?;
                        i64s.iter().map(|&x| zigzag_len(x)).sum()
                    }
                    _ => scalars(node, TYPES[slot])?,
                };
            }
            Ok(Some(rows))
        }
        Metadata::Option(inner) => {
            let Some(p) = prim(inner) else { return Ok(None) };
            let present: Vec<bool> = col.kinds.iter().map(|&k| k != K_NULL).collect();
            let inner = node.extend_options(&present)?;
            Ok(Some(present.len() + scalars(inner, p)?))
        }
        t => {
            let Some(p) = prim(t) else { return Ok(None) };
            Ok(Some(scalars(node, p)?))
        }
    }
}

/// The same value in the columnar layout: the rows (checked against the
/// type by the native encoder) read back by the core, whose columnar
/// writer then lays them out.
fn rows_to_columns(ty: &Metadata, value_bytes: &[u8], zstd: Option<i32>) -> PyResult<Vec<u8>> {
    let value = DecodeOptions::default()
        .max_decoded_bytes(u64::MAX)
        .decode_value(Version::V2, ty, value_bytes)
        .map_err(|e| PyRuntimeError::new_err(format!("xbf: the native encoder wrote bytes the core rejects: {e}")))?;
    EncodeOptions::v2()
        .layout(Layout::Columnar)
        .compress_columns(zstd)
        .encode_typed_message(ty, &value)
        .map_err(encode_err)
}

/// The core's `Layout::Auto` test (at least 16 repeated items near the
/// root), on the Python objects, before anything is converted.
fn worth_columns(obj: &Bound<'_, PyAny>) -> bool {
    fn items(obj: &Bound<'_, PyAny>, depth: usize) -> usize {
        if depth > 3 {
            return 0;
        }
        if let Ok(l) = obj.downcast::<PyList>() {
            l.len() + l.iter().take(4).map(|i| items(&i, depth + 1)).sum::<usize>()
        } else if let Ok(d) = obj.downcast::<PyDict>() {
            if d.keys().iter().all(|k| k.is_instance_of::<PyString>()) {
                d.values().iter().map(|v| items(&v, depth + 1)).sum()
            } else {
                d.len()
            }
        } else {
            0
        }
    }
    items(obj, 0) >= 16
}

/// The columnar message of `obj` the long way (rows written by the native
/// encoder, read back by the core, laid out by its columnar writer), for
/// the tests: `dumps` must give the same bytes on its direct path.
#[pyfunction]
#[pyo3(signature = (obj, schema=None, compress=None))]
fn _columns_via_rows<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    schema: Option<&Bound<'py, Schema>>,
    compress: Option<i32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ty = match schema {
        Some(s) => s.get().ty.clone(),
        None => inferred(py, Shape::of(obj, 0)?)?,
    };
    let (rows, head) = encode_rows(py, obj, &ty, 2)?;
    Ok(PyBytes::new_bound(py, &rows_to_columns(&ty, &rows[head..], compress)?))
}

/// `columnar`: None = columns when there are enough repeated items and
/// they come out smaller (the core's `Layout::Auto`), True = columns,
/// False = rows. `compress`: a zstd level for the columns.
#[pyfunction]
#[pyo3(signature = (obj, version=2, schema=None, columnar=None, compress=None))]
fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    version: u8,
    schema: Option<&Bound<'py, Schema>>,
    columnar: Option<bool>,
    compress: Option<i32>,
) -> PyResult<Bound<'py, PyBytes>> {
    if version == 1 && (columnar == Some(true) || compress.is_some()) {
        return Err(PyValueError::new_err("XBF v1 has no columnar layout (use version=2)"));
    }
    if compress.is_some() && columnar == Some(false) {
        return Err(PyValueError::new_err("compress applies to columns: it needs columnar=True or None"));
    }
    if compress.is_some() && !cfg!(feature = "zstd") {
        return Err(PyValueError::new_err("this build of xbf has no zstd (build with the `zstd` feature)"));
    }
    if schema.is_none() && version == 2 && (columnar == Some(true) || (columnar.is_none() && worth_columns(obj))) {
        // Lists of flat records: type and columns in one pass.
        if let Some((cols, rows_len, ty)) = records_direct(obj, compress)? {
            if columnar == Some(true) || cols.len() < rows_len {
                return Ok(PyBytes::new_bound(py, &cols));
            }
            let (rows, _) = encode_rows(py, obj, &ty, version)?;
            debug_assert_eq!(rows.len(), rows_len);
            return Ok(PyBytes::new_bound(py, &rows));
        }
    }
    let ty = match schema {
        Some(s) => s.get().ty.clone(),
        None => inferred(py, Shape::of(obj, 0)?)?,
    };
    let try_columns = version == 2 && (columnar == Some(true) || (columnar.is_none() && worth_columns(obj)));
    if try_columns {
        // Straight to core values when the data allows; the rows are then
        // encoded only if they may be the smaller.
        if let Some((cols, rows_len)) = columns_direct(py, obj, &ty, compress)? {
            if columnar == Some(true) || cols.len() < rows_len {
                return Ok(PyBytes::new_bound(py, &cols));
            }
            let (rows, _) = encode_rows(py, obj, &ty, version)?;
            debug_assert_eq!(rows.len(), rows_len);
            return Ok(PyBytes::new_bound(py, &rows));
        }
    }
    let (rows, head) = encode_rows(py, obj, &ty, version)?;
    let out = match columnar {
        _ if version == 1 => rows,
        Some(false) => rows,
        Some(true) => rows_to_columns(&ty, &rows[head..], compress)?,
        None if worth_columns(obj) => {
            let cols = rows_to_columns(&ty, &rows[head..], compress)?;
            if cols.len() < rows.len() {
                cols
            } else {
                rows
            }
        }
        None => rows,
    };
    Ok(PyBytes::new_bound(py, &out))
}

// ---------------------------------------------------------------- decoder

/// The fast path gave up: the core decides.
enum DErr {
    Bad,
    Py(PyErr),
}

impl From<PyErr> for DErr {
    fn from(e: PyErr) -> Self {
        DErr::Py(e)
    }
}

type DResult<T> = Result<T, DErr>;

struct Dec<'a> {
    b: &'a [u8],
    pos: usize,
    v2: bool,
    typed_any: bool,
    trusted: bool,
    /// Zero-size values charged so far, against the core's decoded-memory
    /// budget (SPEC.md 16.2: 48 bytes a value). A message past it goes to
    /// the core, which then gives its error.
    zs_used: u64,
    /// How many zero-size values the budget holds.
    zs_allowed: u64,
    /// Above 0 inside values whose zero-size weight is already charged.
    prepaid: u32,
    /// Metadata levels so far: the root type's, plus those of enclosing `any`s.
    depth: usize,
    /// Primitive types met in `any`, by their one-byte metadata.
    any_prims: [Option<P>; 256],
}

/// The fast path leaves deeper nesting (through `any`) to the core, whose
/// limit is 128 levels.
const FAST_DEPTH: usize = 96;

impl<'a> Dec<'a> {
    #[inline]
    fn take(&mut self, n: usize) -> DResult<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(DErr::Bad);
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn u8(&mut self) -> DResult<u8> {
        let b = *self.b.get(self.pos).ok_or(DErr::Bad)?;
        self.pos += 1;
        Ok(b)
    }

    fn arr<const N: usize>(&mut self) -> DResult<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// The core's canonical varint rules.
    #[inline]
    fn uvarint(&mut self, bits: u32) -> DResult<u128> {
        let first = self.u8()?;
        if first < 0x80 {
            return Ok(u128::from(first));
        }
        let mut x: u128 = 0;
        let mut shift = 0u32;
        let mut b = first;
        loop {
            let low = u128::from(b & 0x7f);
            if shift + 7 > bits && low >> (bits - shift) != 0 {
                return Err(DErr::Bad);
            }
            x |= low << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    return Err(DErr::Bad);
                }
                return Ok(x);
            }
            shift += 7;
            if shift >= bits {
                return Err(DErr::Bad);
            }
            b = self.u8()?;
        }
    }

    fn svarint(&mut self, bits: u32) -> DResult<i128> {
        let u = self.uvarint(bits)?;
        Ok(((u >> 1) as i128) ^ -((u & 1) as i128))
    }

    fn length(&mut self) -> DResult<u64> {
        if self.v2 {
            Ok(self.uvarint(64)? as u64)
        } else {
            Ok(u64::from_le_bytes(self.arr()?))
        }
    }

    fn count(&mut self, min_size: u64) -> DResult<usize> {
        let n = self.length()?;
        if !self.trusted && n.saturating_mul(min_size.max(1)) > (self.b.len() - self.pos) as u64 {
            return Err(DErr::Bad);
        }
        Ok(n as usize)
    }

    #[inline]
    fn charge(&mut self, weight: u64) -> DResult<()> {
        if self.prepaid == 0 {
            let used = self.zs_used.saturating_add(weight);
            if used > self.zs_allowed {
                return Err(DErr::Bad);
            }
            self.zs_used = used;
        }
        Ok(())
    }

    /// `n` elements of zero-size weight `w`, charged at once.
    fn zero_size_list<'py>(&mut self, py: Python<'py>, e: &Plan<'py>, n: u64, w: u64) -> DResult<Bound<'py, PyAny>> {
        self.charge(n.saturating_mul(w))?;
        self.prepaid += 1;
        let l = self.list(py, e, n as usize);
        self.prepaid -= 1;
        l
    }

    fn value<'py>(&mut self, py: Python<'py>, plan: &Plan<'py>) -> DResult<Bound<'py, PyAny>> {
        match plan {
            Plan::Prim(p) => {
                if *p == P::Unit {
                    self.charge(1)?;
                }
                self.prim(py, *p)
            }
            Plan::Vec(e, w) => {
                if *w > 0 {
                    let n = self.length()?;
                    return self.zero_size_list(py, e, n, *w);
                }
                let n = self.count(1)?;
                self.list(py, e, n)
            }
            Plan::Array(n, e, w) => {
                if *w > 0 {
                    return self.zero_size_list(py, e, *n, *w);
                }
                if !self.trusted && *n > (self.b.len() - self.pos) as u64 {
                    return Err(DErr::Bad);
                }
                self.list(py, e, *n as usize)
            }
            Plan::ZeroSize(w, inner) => {
                self.charge(*w)?;
                self.prepaid += 1;
                let v = self.value(py, inner);
                self.prepaid -= 1;
                v
            }
            Plan::Option(inner) => match self.u8()? {
                0 => Ok(py.None().into_bound(py)),
                1 => {
                    let v = self.value(py, inner)?;
                    // Wrapped when the payload itself reads as an option (None, or an xbf.Some of a
                    // deeper level): else Some(None) and Some(Some(None)) would be one value.
                    if v.is_none() || is_some(py, &v)? {
                        Ok(refs(py)?.some.bind(py).call1((v,))?)
                    } else {
                        Ok(v)
                    }
                }
                _ => Err(DErr::Bad),
            },
            Plan::Tuple(ts) => {
                let mut items = Vec::with_capacity(ts.len());
                for t in ts {
                    items.push(self.value(py, t)?);
                }
                Ok(PyTuple::new_bound(py, items).into_any())
            }
            Plan::Struct { keys, fields, optional, template, .. } => {
                let d = struct_dict(py, keys, template)?;
                for ((k, f), opt) in keys.iter().zip(fields).zip(optional) {
                    let v = if *opt {
                        match self.length()? {
                            0 => {
                                d.del_item(k)?;
                                continue;
                            }
                            1 => {
                                let Plan::Enum { payloads, .. } = f else { unreachable!() };
                                self.value(py, &payloads[1])?
                            }
                            _ => return Err(DErr::Bad),
                        }
                    } else {
                        self.value(py, f)?
                    };
                    dict_set(&d, k, &v)?;
                }
                Ok(d.into_any())
            }
            Plan::Map(k, v) => {
                let n = self.count(1)?;
                let d = PyDict::new_bound(py);
                let mut seen: HashSet<&[u8]> = HashSet::with_capacity(n.min(4096));
                let mut pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = Vec::with_capacity(n.min(4096));
                let mut dict_ok = true;
                for _ in 0..n {
                    let start = self.pos;
                    let key = self.value(py, k)?;
                    if !seen.insert(&self.b[start..self.pos]) {
                        return Err(DErr::Bad);
                    }
                    let val = self.value(py, v)?;
                    if dict_ok {
                        match d.set_item(&key, &val) {
                            Ok(()) => {}
                            Err(_) => dict_ok = false,
                        }
                    }
                    pairs.push((key, val));
                }
                if dict_ok && d.len() == n {
                    Ok(d.into_any())
                } else {
                    // Keys Python cannot tell apart or hash: a list of pairs.
                    let l = PyList::empty_bound(py);
                    for (key, val) in pairs {
                        l.append(PyTuple::new_bound(py, [key, val]))?;
                    }
                    Ok(l.into_any())
                }
            }
            Plan::Enum { names, payloads, .. } => {
                let i = self.length()?;
                let i = usize::try_from(i).ok().filter(|i| *i < names.len()).ok_or(DErr::Bad)?;
                let payload = self.value(py, &payloads[i])?;
                Ok(refs(py)?.variant.bind(py).call1((&names[i], payload))?)
            }
            Plan::Any(_) => {
                let code = *self.b.get(self.pos).ok_or(DErr::Bad)?;
                if let Some(p) = self.any_prims[code as usize] {
                    self.pos += 1;
                    let v = self.value(py, &Plan::Prim(p))?;
                    return if self.typed_any {
                        Ok(refs(py)?.typed.bind(py).call1((Schema { ty: p.into() }, v))?)
                    } else {
                        Ok(v)
                    };
                }
                let (ty, used) = DecodeOptions::default()
                    .decode_metadata(Version::V2, &self.b[self.pos..])
                    .map_err(|_| DErr::Bad)?;
                let levels = ty.depth() + 1;
                if self.depth + levels > FAST_DEPTH {
                    return Err(DErr::Bad);
                }
                if let (Metadata::Primitive(p), 1) = (&ty, used) {
                    self.any_prims[code as usize] = Some(*p);
                }
                self.pos += used;
                let p = make_plan(py, &ty, 0);
                if p.needs_core() {
                    return Err(DErr::Bad);
                }
                self.depth += levels;
                let v = self.value(py, &p);
                self.depth -= levels;
                let v = v?;
                if self.typed_any {
                    Ok(refs(py)?.typed.bind(py).call1((Schema { ty }, v))?)
                } else {
                    Ok(v)
                }
            }
        }
    }

    fn list<'py>(&mut self, py: Python<'py>, e: &Plan<'py>, n: usize) -> DResult<Bound<'py, PyAny>> {
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.value(py, e)?);
        }
        Ok(PyList::new_bound(py, items).into_any())
    }

    fn prim<'py>(&mut self, py: Python<'py>, p: P) -> DResult<Bound<'py, PyAny>> {
        if self.v2 {
            match p {
                P::U16 => return Ok(int_u128(py, self.uvarint(16)?)),
                P::U32 => return Ok(int_u128(py, self.uvarint(32)?)),
                P::U64 => {
                    // The common case inline.
                    if let Some(&b) = self.b.get(self.pos) {
                        if b < 0x80 {
                            self.pos += 1;
                            return Ok(b.into_py(py).into_bound(py));
                        }
                    }
                    return Ok(int_u128(py, self.uvarint(64)?));
                }
                P::U128 => return Ok(int_u128(py, self.uvarint(128)?)),
                P::I16 => return Ok(int_i128(py, self.svarint(16)?)),
                P::I32 => return Ok(int_i128(py, self.svarint(32)?)),
                P::I64 => return Ok(int_i128(py, self.svarint(64)?)),
                P::I128 => return Ok(int_i128(py, self.svarint(128)?)),
                P::Date => return Ok(date_py(py, self.svarint(32)? as i64)?),
                P::Timestamp => return Ok(timestamp_py(py, self.svarint(64)? as i64)?),
                _ => {}
            }
        }
        Ok(match p.integer_type() {
            P::Bool => match self.u8()? {
                0 => PyBool::new_bound(py, false).to_owned().into_any(),
                1 => PyBool::new_bound(py, true).to_owned().into_any(),
                _ => return Err(DErr::Bad),
            },
            P::U8 => int_u128(py, u128::from(self.u8()?)),
            P::U16 => int_u128(py, u128::from(u16::from_le_bytes(self.arr()?))),
            P::U32 => int_u128(py, u128::from(u32::from_le_bytes(self.arr()?))),
            P::U64 => int_u128(py, u128::from(u64::from_le_bytes(self.arr()?))),
            P::U128 => int_u128(py, u128::from_le_bytes(self.arr()?)),
            P::I8 => int_i128(py, i128::from(i8::from_le_bytes(self.arr()?))),
            P::I16 => int_i128(py, i128::from(i16::from_le_bytes(self.arr()?))),
            P::I32 => int_i128(py, i128::from(i32::from_le_bytes(self.arr()?))),
            P::I64 => int_i128(py, i128::from(i64::from_le_bytes(self.arr()?))),
            P::I128 => int_i128(py, i128::from_le_bytes(self.arr()?)),
            P::U256 | P::I256 => {
                let b = self.take(32)?;
                let kwargs = PyDict::new_bound(py);
                kwargs.set_item("signed", p.integer_type() == P::I256)?;
                py.get_type_bound::<pyo3::types::PyLong>().call_method(
                    "from_bytes",
                    (PyBytes::new_bound(py, b), "little"),
                    Some(&kwargs),
                )?
            }
            P::F32 => (f64::from(f32::from_le_bytes(self.arr()?))).into_py(py).into_bound(py),
            P::F64 => PyFloat::new_bound(py, f64::from_le_bytes(self.arr()?)).into_any(),
            P::String => {
                let n = self.length()?;
                let n = usize::try_from(n).map_err(|_| DErr::Bad)?;
                let s = self.take(n)?;
                let s = std::str::from_utf8(s).map_err(|_| DErr::Bad)?;
                PyString::new_bound(py, s).into_any()
            }
            P::Bytes => {
                let n = self.length()?;
                let n = usize::try_from(n).map_err(|_| DErr::Bad)?;
                PyBytes::new_bound(py, self.take(n)?).into_any()
            }
            P::Unit => py.None().into_bound(py),
            P::Date => date_py(py, i64::from(i32::from_le_bytes(self.arr()?)))?,
            P::Timestamp => timestamp_py(py, i64::from_le_bytes(self.arr()?))?,
            _ => return Err(DErr::Bad),
        })
    }
}

/// A dict of `keys` (each to None) for a record of their struct, whose
/// fields are then set in place. A copy of a dict of the same keys costs one
/// block copy (CPython clones the key table of a compact dict), where a new
/// dict grows and rehashes twice on the way to 16 keys; it also puts the
/// keys in the struct's order from the start.
fn struct_dict<'py>(
    py: Python<'py>,
    keys: &[Bound<'py, PyString>],
    template: &RefCell<Option<Bound<'py, PyDict>>>,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(t) = template.borrow().as_ref() {
        return t.copy();
    }
    let t = PyDict::new_bound(py);
    for k in keys {
        dict_set(&t, k, &py.None().into_bound(py))?;
    }
    let d = t.copy()?;
    *template.borrow_mut() = Some(t);
    Ok(d)
}

fn int_u128(py: Python<'_>, x: u128) -> Bound<'_, PyAny> {
    if let Ok(x) = u64::try_from(x) {
        x.into_py(py).into_bound(py)
    } else {
        x.into_py(py).into_bound(py)
    }
}

fn int_i128(py: Python<'_>, x: i128) -> Bound<'_, PyAny> {
    if let Ok(x) = i64::try_from(x) {
        x.into_py(py).into_bound(py)
    } else {
        x.into_py(py).into_bound(py)
    }
}

/// A date, or the day count as an int when Python's date cannot hold it.
fn date_py(py: Python<'_>, days: i64) -> PyResult<Bound<'_, PyAny>> {
    let ord = days + EPOCH_ORDINAL;
    if (1..=3_652_059).contains(&ord) {
        let (y, m, d) = xbf::time::civil_from_days(days);
        Ok(PyDate::new_bound(py, y as i32, m as u8, d as u8)?.into_any())
    } else {
        Ok(days.into_py(py).into_bound(py))
    }
}

/// A UTC datetime, or the microsecond count as an int when Python's
/// datetime cannot hold it.
fn timestamp_py(py: Python<'_>, micros: i64) -> PyResult<Bound<'_, PyAny>> {
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let ord = days + EPOCH_ORDINAL;
    if !(1..=3_652_059).contains(&ord) {
        return Ok(micros.into_py(py).into_bound(py));
    }
    let (y, m, d) = xbf::time::civil_from_days(days);
    let secs = rem / 1_000_000;
    let utc = refs(py)?.utc.bind(py).downcast::<pyo3::types::PyTzInfo>()?.clone();
    Ok(PyDateTime::new_bound(
        py,
        y as i32,
        m as u8,
        d as u8,
        (secs / 3600) as u8,
        ((secs / 60) % 60) as u8,
        (secs % 60) as u8,
        (rem % 1_000_000) as u32,
        Some(&utc),
    )?
    .into_any())
}

fn meta_has_any(ty: &Metadata) -> bool {
    matches!(ty, Metadata::Any) || ty.children().into_iter().any(meta_has_any)
}

/// Decodes a whole message on the fast path; `Bad` means "ask the core".
fn fast_decode<'py>(
    py: Python<'py>,
    data: &[u8],
    typed_any: bool,
    trusted: bool,
    opts: &DecodeOptions,
) -> DResult<(Metadata, Bound<'py, PyAny>)> {
    let first = *data.first().ok_or(DErr::Bad)?;
    let (v2, start) = if first == 0xc2 {
        if data.get(1) != Some(&0) {
            return Err(DErr::Bad);
        }
        (true, 2)
    } else if first & 0xf0 == 0xc0 {
        return Err(DErr::Bad);
    } else {
        (false, 0)
    };
    let version = if v2 { Version::V2 } else { Version::V1 };
    let (ty, used) = DecodeOptions::default().decode_metadata(version, &data[start..]).map_err(|_| DErr::Bad)?;
    if ty.depth() > FAST_DEPTH || (!v2 && meta_has_any(&ty)) {
        return Err(DErr::Bad);
    }
    let p = make_plan(py, &ty, 0);
    if !trusted && p.needs_core() {
        return Err(DErr::Bad);
    }
    let mut d = Dec {
        b: data,
        pos: start + used,
        v2,
        typed_any,
        trusted,
        zs_used: 0,
        zs_allowed: opts.max_decoded_bytes / xbf::DECODED_VALUE_BYTES,
        prepaid: 0,
        depth: ty.depth(),
        any_prims: [None; 256],
    };
    let v = d.value(py, &p)?;
    if d.pos != data.len() {
        return Err(DErr::Bad);
    }
    Ok((ty, v))
}

fn decode<'py>(
    py: Python<'py>,
    data: &[u8],
    typed_any: bool,
    opts: &DecodeOptions,
) -> PyResult<(Metadata, Bound<'py, PyAny>)> {
    guarded(py, || {
        match fast_decode(py, data, typed_any, false, opts) {
            Ok(r) => return Ok(r),
            Err(DErr::Py(e)) => return Err(e),
            Err(DErr::Bad) => {}
        }
        let (ty, value) = opts.decode_typed_message(data).map_err(|e| core_err(py, e))?;
        Ok((ty, value_to_py(py, &value, typed_any)?))
    })
}

/// The decoding options for a budget given from Python (`None`: the default).
fn decode_options(max_decoded_bytes: Option<u64>) -> DecodeOptions {
    match max_decoded_bytes {
        Some(b) => DecodeOptions::default().max_decoded_bytes(b),
        None => DecodeOptions::default(),
    }
}

/// Runs a decoding step, turning a panic into `xbf.DecodeError` of kind
/// `internal`, never `pyo3_runtime.PanicException` (a `BaseException` that
/// `except Exception` does not catch). No input is known to panic the core:
/// this is a safety net for a bug not found yet, so that a hostile input can
/// at worst be refused with the wrong kind.
fn guarded<T>(py: Python<'_>, step: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step))
        .unwrap_or_else(|payload| Err(internal_error(py, &panic_message(payload.as_ref()))))
}

/// What a panic says, from its payload (a `&str` or a `String`).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_owned())
}

/// `xbf.DecodeError` of kind `internal`, with no offset or path.
fn internal_error(py: Python<'_>, why: &str) -> PyErr {
    let message = format!("internal error in the decoder (please report it): {why}");
    match refs(py) {
        Ok(r) => match r.decode_error.bind(py).call1((message, "internal", None::<u64>, None::<String>)) {
            Ok(inst) => PyErr::from_value_bound(inst),
            Err(err) => err,
        },
        Err(err) => err,
    }
}

/// Checks the mapping of a panic to `xbf.DecodeError` (kind `internal`) on
/// a panic of this function's own, without any hook in the decoder:
/// `xbf._native._check_panic_mapping()` returns the error it gives.
#[pyfunction]
fn _check_panic_mapping(py: Python<'_>) -> PyErr {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result: PyResult<()> = guarded(py, || panic!("a panic raised to check its mapping"));
    std::panic::set_hook(hook);
    result.expect_err("the step panicked")
}

/// A value the core decoded, as Python objects (the same forms as the fast path).
fn value_to_py<'py>(py: Python<'py>, value: &xbf::Value, typed_any: bool) -> PyResult<Bound<'py, PyAny>> {
    ToPy { typed_any, structs: std::collections::HashMap::new(), last: None }.value(py, value)
}

/// Struct keys made once per struct type: (the type, kept alive so that its
/// address stays its own; the keys; which fields are optional keys).
type StructKeys<'py> =
    std::rc::Rc<(Arc<StructMetadata>, Vec<Bound<'py, PyString>>, Vec<bool>, RefCell<Option<Bound<'py, PyDict>>>)>;

/// Core values to Python objects, with the keys of each struct type made once.
struct ToPy<'py> {
    typed_any: bool,
    structs: std::collections::HashMap<usize, StructKeys<'py>>,
    /// The struct type met last (records of a list are all of one type).
    last: Option<StructKeys<'py>>,
}

impl<'py> ToPy<'py> {
    fn keys_of(&mut self, py: Python<'py>, meta: &Arc<StructMetadata>) -> StructKeys<'py> {
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

    fn value(&mut self, py: Python<'py>, value: &xbf::Value) -> PyResult<Bound<'py, PyAny>> {
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

fn int_from_le<'py>(py: Python<'py>, b: &[u8], signed: bool) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new_bound(py);
    kwargs.set_item("signed", signed)?;
    py.get_type_bound::<pyo3::types::PyLong>().call_method(
        "from_bytes",
        (PyBytes::new_bound(py, b), "little"),
        Some(&kwargs),
    )
}

#[pyfunction]
#[pyo3(signature = (data, with_schema=false, typed_any=false, max_decoded_bytes=None))]
fn loads<'py>(
    py: Python<'py>,
    data: &[u8],
    with_schema: bool,
    typed_any: bool,
    max_decoded_bytes: Option<u64>,
) -> PyResult<PyObject> {
    let (ty, v) = decode(py, data, typed_any, &decode_options(max_decoded_bytes))?;
    if with_schema {
        Ok((Schema { ty }, v).into_py(py))
    } else {
        Ok(v.unbind())
    }
}

// ---------------------------------------------------------------- streams

struct PyReader(PyObject);

impl io::Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::with_gil(|py| {
            let chunk = self.0.bind(py).call_method1("read", (buf.len(),)).map_err(io::Error::other)?;
            if chunk.is_none() {
                return Ok(0);
            }
            let b: &[u8] = chunk.extract().map_err(io::Error::other)?;
            let n = b.len().min(buf.len());
            buf[..n].copy_from_slice(&b[..n]);
            Ok(n)
        })
    }
}

struct PyWriter(PyObject);

impl io::Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::with_gil(|py| {
            self.0.bind(py).call_method1("write", (PyBytes::new_bound(py, buf),)).map_err(io::Error::other)?;
            Ok(buf.len())
        })
    }
    fn flush(&mut self) -> io::Result<()> {
        Python::with_gil(|py| {
            let f = self.0.bind(py);
            if f.hasattr("flush").unwrap_or(false) {
                f.call_method0("flush").map_err(io::Error::other)?;
            }
            Ok(())
        })
    }
}

/// The bytes left in a seekable binary file (a file on disk, `io.BytesIO`),
/// or `None` where that cannot be known (a pipe, a socket).
fn remaining_length(file: &Bound<'_, PyAny>) -> Option<u64> {
    let seekable = file.call_method0("seekable").and_then(|s| s.is_truthy()).unwrap_or(false);
    if !seekable {
        return None;
    }
    let here: u64 = file.call_method0("tell").ok()?.extract().ok()?;
    let end: u64 = file.call_method1("seek", (0, 2)).ok()?.extract().ok()?;
    file.call_method1("seek", (here,)).ok()?;
    Some(end.saturating_sub(here))
}

/// Reads a record stream lazily: iterate to get the records one by one.
#[pyclass(module = "xbf._native", unsendable)]
struct StreamReader {
    inner: Option<xbf::StreamReader<io::BufReader<PyReader>>>,
    typed_any: bool,
}

#[pymethods]
impl StreamReader {
    #[new]
    #[pyo3(signature = (file, typed_any=false, max_decoded_bytes=None, length=None))]
    fn new(
        py: Python<'_>,
        file: PyObject,
        typed_any: bool,
        max_decoded_bytes: Option<u64>,
        length: Option<u64>,
    ) -> PyResult<Self> {
        // With the length known (a seekable file, bytes), counts are checked
        // against it, as over bytes in memory (SPEC.md 15.3).
        let length = length.or_else(|| remaining_length(file.bind(py)));
        let opts = decode_options(max_decoded_bytes);
        let input = io::BufReader::with_capacity(1 << 16, PyReader(file));
        let r = guarded(py, || {
            match length {
                Some(len) => opts.stream_reader_with_length(input, len),
                None => opts.stream_reader(input),
            }
            .map_err(|e| core_err(py, e))
        })?;
        Ok(StreamReader { inner: Some(r), typed_any })
    }

    /// The record type.
    #[getter]
    fn schema(&self) -> PyResult<Schema> {
        let r = self.inner.as_ref().ok_or_else(|| PyValueError::new_err("the stream is closed"))?;
        Ok(Schema { ty: r.metadata().clone() })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let Some(r) = self.inner.as_mut() else { return Ok(None) };
        let typed_any = self.typed_any;
        let mut returned = false;
        let next = guarded(py, || {
            let item = r.next();
            returned = true;
            match item {
                None => Ok(None),
                Some(Ok(v)) => Ok(Some(value_to_py(py, &v, typed_any)?.unbind())),
                Some(Err(e)) => Err(core_err(py, e)),
            }
        });
        if !returned {
            // The reader panicked and may be in any state: nothing more is read from it.
            self.inner = None;
        }
        next
    }
}

/// Writes a record stream of one record type.
#[pyclass(module = "xbf._native", unsendable)]
struct StreamWriter {
    inner: Option<xbf::StreamWriter<PyWriter>>,
    ty: Metadata,
}

#[pymethods]
impl StreamWriter {
    #[new]
    #[pyo3(signature = (file, schema, checksums=false, block_bytes=None))]
    fn new(file: PyObject, schema: &Bound<'_, Schema>, checksums: bool, block_bytes: Option<usize>) -> PyResult<Self> {
        let ty = schema.get().ty.clone();
        let mut opts = xbf::StreamOptions::default().checksums(checksums);
        if let Some(b) = block_bytes {
            opts = opts.block_bytes(b);
        }
        let w = xbf::StreamWriter::new(PyWriter(file), ty.clone(), opts).map_err(encode_err)?;
        Ok(StreamWriter { inner: Some(w), ty })
    }

    /// Adds one record (of the stream's type).
    fn write(&mut self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| PyValueError::new_err("the stream writer is closed"))?;
        let p = make_plan(py, &self.ty, 0);
        let mut enc = Enc::new(Vec::new(), true);
        enc.value(record, &p, 0)?;
        let value = DecodeOptions::default()
            .decode_value(Version::V2, &self.ty, &enc.out)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        w.write(&value).map_err(encode_err)
    }

    /// Writes the buffered records as a block and flushes the file.
    fn flush(&mut self) -> PyResult<()> {
        let w = self.inner.as_mut().ok_or_else(|| PyValueError::new_err("the stream writer is closed"))?;
        w.flush().map_err(encode_err)
    }

    /// Flushes; the file stays open (it is the caller's).
    fn close(&mut self) -> PyResult<()> {
        if let Some(w) = self.inner.take() {
            w.finish().map_err(encode_err)?;
        }
        Ok(())
    }

    #[getter]
    fn schema(&self) -> Schema {
        Schema { ty: self.ty.clone() }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    arrow::register(m)?;
    m.add_class::<Schema>()?;
    m.add_class::<StreamReader>()?;
    m.add_class::<StreamWriter>()?;
    m.add_class::<typed::TypedDecoder>()?;
    m.add_function(wrap_pyfunction!(_init, m)?)?;
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(_columns_via_rows, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(_check_panic_mapping, m)?)?;
    file::register(m)?;
    Ok(())
}
