//! Type inference from Python values (`xbf.dumps` without a schema,
//! `Schema.infer`).

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyList, PyLong, PyMemoryView, PyString, PyTuple, PyType,
};
use xbf::infer::{Field, Ints, Slot, OBJECT_STRUCT};
use xbf::Metadata;

use crate::errors::{cannot, encode_err, kind_err, too_deep};
use crate::pyobj::{refs, short_repr};
use crate::raw::dict_next;
use crate::schema::Schema;

pub(crate) use xbf::options::DEFAULT_MAX_DEPTH as MAX_DEPTH;

/// The core's inference lattice (`xbf::infer::Shape`, shared with `xbf
/// from-json`), each object key kept as the Python string first seen (the
/// fast path compares keys by identity first).
pub(crate) type Shape<'py> = xbf::infer::Shape<Bound<'py, PyString>>;
/// Dicts with str keys (named `Object`) or dataclass instances of one class.
pub(crate) type Obj<'py> = xbf::infer::Obj<Bound<'py, PyString>>;

/// Adds one object given as (key, value) pairs, in its order.
fn add_object<'py>(
    o: &mut Obj<'py>,
    items: impl IntoIterator<Item = PyResult<(Bound<'py, PyString>, Bound<'py, PyAny>)>>,
    depth: usize,
) -> PyResult<()> {
    o.objects.begin();
    for item in items {
        let (key, v) = item?;
        let slot = o.objects.key(key.to_str()?, || Slot { key: key.clone(), shape: Shape::Never });
        slot.shape.absorb(&v, depth + 1)?;
    }
    Ok(())
}

pub(crate) fn int_bits(obj: &Bound<'_, PyAny>) -> PyResult<Ints> {
    let small = obj.extract::<i64>();
    let ints = if let Ok(v) = small {
        Ints::of_i64(v)
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

pub(crate) fn is_dataclass(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type().hasattr("__dataclass_fields__").unwrap_or(false) && !obj.is_instance_of::<PyType>()
}

/// The fields of a dataclass instance: (name, value) in declaration order.
pub(crate) fn dataclass_items<'py>(
    obj: &Bound<'py, PyAny>,
) -> PyResult<Vec<(Bound<'py, PyString>, Bound<'py, PyAny>)>> {
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

/// Inference from Python objects: the core's lattice widened one object at a
/// time.
pub(crate) trait Infer<'py>: Sized {
    /// The shape of one object.
    fn of(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Self>;
    /// The shape of `obj` on its own.
    fn fresh(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Self>;
    /// Widens this shape to also describe `obj`.
    fn absorb(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<()>;
}

impl<'py> Infer<'py> for Shape<'py> {
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
                return Ok(Shape::Vec(Box::new(e)));
            }
            if obj.is_instance_of::<PyTuple>() {
                let mut ts = Vec::new();
                for item in obj.downcast::<PyTuple>()?.iter() {
                    ts.push(Shape::of(&item, depth + 1)?);
                }
                return Ok(Shape::Tuple(ts));
            }
            if obj.is_instance_of::<PyDict>() {
                let d = obj.downcast::<PyDict>()?;
                let all_str = d.keys().iter().all(|k| k.is_instance_of::<PyString>());
                if all_str {
                    let mut o = Obj::new(OBJECT_STRUCT);
                    add_object(&mut o, d.iter().map(|(k, v)| Ok((k.downcast_into::<PyString>()?, v))), depth)?;
                    return Ok(Shape::Obj(Box::new(o)));
                }
                let (mut ks, mut vs) = (Shape::Never, Shape::Never);
                for (k, v) in d.iter() {
                    ks.absorb(&k, depth + 1)?;
                    vs.absorb(&v, depth + 1)?;
                }
                return Ok(Shape::Map(Box::new(ks), Box::new(vs)));
            }
        }
        if crate::dates::is_datetime(obj) {
            return Ok(Shape::Timestamp);
        }
        if crate::dates::is_date(obj) {
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
            add_object(&mut o, dataclass_items(obj)?.into_iter().map(Ok), depth)?;
            return Ok(Shape::Obj(Box::new(o)));
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
            Shape::Vec(e) if obj.is_exact_instance_of::<PyList>() => {
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
                    let same_key = |k: &Bound<'_, PyAny>, f: &Field<Slot<Bound<'_, PyString>>>| {
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
                    add_object(o, d.iter().map(|(k, v)| Ok((k.downcast_into::<PyString>()?, v))), depth)?;
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
}

/// The type of an inferred shape, refused (`too-deep`) where it nests more
/// than readers allow (SPEC §16.1: an `option` or an optional key is a level
/// too), so that `dumps` never writes what `loads` refuses.
pub(crate) fn inferred(py: Python<'_>, shape: Shape<'_>) -> PyResult<Metadata> {
    let ty = shape.metadata().map_err(encode_err)?;
    if ty.depth() > MAX_DEPTH {
        return Err(kind_err(
            py,
            "too-deep",
            format!("the inferred type nests {} levels, more than {MAX_DEPTH}", ty.depth()),
        ));
    }
    Ok(ty)
}
