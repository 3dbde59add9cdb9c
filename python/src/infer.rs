//! Type inference from Python values (`xbf.dumps` without a schema,
//! `Schema.infer`).

use std::sync::Arc;

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDate, PyDateTime, PyDict, PyFloat, PyList, PyLong, PyMemoryView, PyString, PyTuple,
    PyType,
};
use xbf::infer::{Field, Ints, Objects, Resolved};
use xbf::{EnumMetadata, Metadata, PrimitiveType as P, StructMetadata};

use crate::errors::{cannot, kind_err, too_deep};
use crate::pyobj::{refs, short_repr};
use crate::raw::dict_next;
use crate::schema::Schema;

pub(crate) const MAX_DEPTH: usize = 128;
pub(crate) const OPTIONAL_KEY_ENUM: &str = "json.optional";
pub(crate) const OBJECT_STRUCT: &str = "Object";

// ------------------------------------------------------------- inference

#[derive(Clone)]
pub(crate) enum Shape<'py> {
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
pub(crate) struct Obj<'py> {
    pub(crate) name: String,
    pub(crate) objects: Objects<Slot<'py>>,
}

/// What the values of one key are, with the key as a Python string (the
/// fast path compares it by identity first).
#[derive(Clone)]
pub(crate) struct Slot<'py> {
    pub(crate) key: Bound<'py, PyString>,
    pub(crate) shape: Shape<'py>,
}

impl<'py> Obj<'py> {
    pub(crate) fn new(name: String) -> Self {
        Obj { name, objects: Objects::new() }
    }

    /// Adds one object given as (key, value) pairs, in its order.
    pub(crate) fn add(
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

pub(crate) fn int_bits(obj: &Bound<'_, PyAny>) -> PyResult<Ints> {
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

impl<'py> Shape<'py> {
    pub(crate) fn of(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Shape<'py>> {
        let mut s = Shape::Never;
        s.absorb(obj, depth)?;
        Ok(s)
    }

    pub(crate) fn fresh(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Shape<'py>> {
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
    pub(crate) fn absorb(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<()> {
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

    pub(crate) fn join(self, other: Shape<'py>) -> Shape<'py> {
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

    pub(crate) fn metadata(&self) -> Metadata {
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
pub(crate) fn inferred(py: Python<'_>, shape: Shape<'_>) -> PyResult<Metadata> {
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

pub(crate) fn nullable(s: Shape<'_>) -> Shape<'_> {
    match s {
        Shape::Null | Shape::Nullable(_) | Shape::Any => s,
        s => Shape::Nullable(Box::new(s)),
    }
}

pub(crate) fn optional_key(ty: Metadata) -> Metadata {
    let e = EnumMetadata::new(OPTIONAL_KEY_ENUM, [("absent", Metadata::UNIT), ("present", ty)]).expect("distinct");
    Metadata::Enum(Arc::new(e))
}
