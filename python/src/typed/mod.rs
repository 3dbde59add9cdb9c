//! Typed decoding: `xbf.loads(data, type=T)` and `xbf.Decoder(T)`.
//!
//! `T` is compiled in Python (`xbf/_typed.py`, once per type) into a nested
//! tuple form, read here into a [`Form`]. Each message's metadata is then
//! checked against the form once, giving a [`TPlan`] (cached per metadata in
//! the decoder), and values are built straight from the bytes by that plan,
//! with the fast decoder's readers and limits ([`Dec`]). Fields are matched by
//! name (SPEC.md 23.2): missing fields take their defaults, extra ones are
//! decoded and dropped. A place whose writer type cannot give the reader's
//! type fails at its first value, so that an empty list or an option always
//! absent still reads, as in msgspec.
//!
//! Columnar messages are read by the plan from whole columns ([`columns`]).
//! What neither path takes (zero-size types, maps of zero-size keys, types
//! not read whole, values that do not fit in columns, damaged input) is
//! decoded by the core, so its errors are the core's, and the reader's
//! values are built from the core's `xbf::Value` by a plan of the same rules
//! ([`from_value`]), with no intermediate Python dicts.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyLong, PyString, PyTuple, PyType};

use crate::dates::{is_date, is_datetime, is_plain_date};
use xbf::{DecodeOptions, EncodeOptions, Metadata, PrimitiveType as P, Value as V, Version};

use crate::decode::{decode_options, header, meta_has_any, DErr, Dec, FAST_DEPTH};
use crate::errors::{core_err, guarded, internal_error};
use crate::plan::{is_optional_key, make_plan, Plan};
use crate::pyobj::{refs, short_repr, type_name};
use crate::raw::object_new;
use crate::to_py::{value_to_py, ToPy};

mod columns;
mod form;
use form::{
    invalid, is_int, meta_name, mismatch, parse_form, validation_error, Default, Form, Kind, Record, Seg, TErr, TResult,
};

// ------------------------------------------------------------------ plans

/// A reader's form matched against one message's metadata.
enum TPlan {
    /// The writer's type cannot give the reader's: fails at the first value.
    Fail {
        expected: String,
        got: String,
    },
    /// Decoded untyped with the fast decoder's plan of this index, then
    /// converted value by value (for `any` in the data) or kept as is.
    Generic(usize, Option<Arc<Form>>),
    Int(P),
    IntToFloat(P),
    Prim(P),
    Date,
    DateTime,
    Unit,
    Seq {
        elem: Box<TPlan>,
        ctor: Option<PyObject>,
        len: Option<u64>,
    },
    Tuple(Vec<TPlan>),
    Map(Box<TPlan>, Box<TPlan>),
    /// A struct in the data read into `dict[str, V]`.
    StructDict {
        keys: Vec<Py<PyString>>,
        names: Vec<String>,
        values: Vec<TPlan>,
        optional: Vec<bool>,
    },
    Option {
        inner: Box<TPlan>,
        none_not: Option<String>,
    },
    EnumByName {
        members: Vec<Option<PyObject>>,
        names: Vec<String>,
        payloads: Vec<TPlan>,
        enum_name: String,
    },
    Record {
        form: Arc<Form>,
        slots: Vec<Slot>,
        missing_required: Option<String>,
    },
}

struct Slot {
    name: String,
    target: Option<usize>,
    plan: TPlan,
    /// The data's field is `enum "json.optional" { absent, present: T }`.
    optional_key: bool,
}

struct Compiler {
    generics: Vec<Metadata>,
}

impl Compiler {
    fn generic(&mut self, ty: &Metadata, form: Option<Arc<Form>>) -> TPlan {
        self.generics.push(ty.clone());
        TPlan::Generic(self.generics.len() - 1, form)
    }

    fn compile(&mut self, form: &Arc<Form>, ty: &Metadata) -> TPlan {
        let fail = || TPlan::Fail { expected: form.expected(), got: meta_name(ty) };
        match (&**form, ty) {
            (Form::Any, _) => self.generic(ty, None),
            (_, Metadata::Any) => self.generic(ty, Some(form.clone())),
            (Form::Optional(inner), Metadata::Option(e)) => {
                TPlan::Option { inner: Box::new(self.compile(inner, e)), none_not: None }
            }
            (Form::Optional(_), Metadata::Primitive(P::Unit)) => TPlan::Unit,
            (Form::Optional(inner), _) => self.compile(inner, ty),
            (_, Metadata::Option(e)) => {
                TPlan::Option { inner: Box::new(self.compile(form, e)), none_not: Some(form.expected()) }
            }
            (Form::NoneT, Metadata::Primitive(P::Unit)) => TPlan::Unit,
            (Form::Int, Metadata::Primitive(p)) if is_int(*p) => TPlan::Int(*p),
            (Form::Float, Metadata::Primitive(p)) if is_int(*p) => TPlan::IntToFloat(*p),
            (Form::Float, Metadata::Primitive(p @ (P::F32 | P::F64))) => TPlan::Prim(*p),
            (Form::Str, Metadata::Primitive(P::String))
            | (Form::Bytes, Metadata::Primitive(P::Bytes))
            | (Form::Bool, Metadata::Primitive(P::Bool)) => {
                let Metadata::Primitive(p) = ty else { unreachable!() };
                TPlan::Prim(*p)
            }
            (Form::Date, Metadata::Primitive(P::Date)) => TPlan::Date,
            (Form::DateTime, Metadata::Primitive(P::Timestamp)) => TPlan::DateTime,
            (Form::Literal(..), Metadata::Primitive(_)) => self.generic(ty, Some(form.clone())),
            (Form::Enum { .. }, Metadata::Primitive(p)) if *p == P::String || is_int(*p) => {
                self.generic(ty, Some(form.clone()))
            }
            (Form::Enum { by_name, name, .. }, Metadata::Enum(e)) => Python::with_gil(|py| {
                let by_name = by_name.bind(py);
                TPlan::EnumByName {
                    members: e.variants().map(|(n, _)| by_name.get_item(n).ok().flatten().map(Bound::unbind)).collect(),
                    names: e.variants().map(|(n, _)| n.to_owned()).collect(),
                    payloads: e.variants().map(|(_, t)| self.generic(t, None)).collect(),
                    enum_name: name.clone(),
                }
            }),
            (Form::Seq(elem, ctor), Metadata::Vec(e)) => TPlan::Seq {
                elem: Box::new(self.compile(elem, e)),
                ctor: ctor.as_ref().map(|c| Python::with_gil(|py| c.clone_ref(py))),
                len: None,
            },
            (Form::Seq(elem, ctor), Metadata::Array(a)) => TPlan::Seq {
                elem: Box::new(self.compile(elem, &a.element)),
                ctor: ctor.as_ref().map(|c| Python::with_gil(|py| c.clone_ref(py))),
                len: Some(a.len),
            },
            (Form::Tuple(fs), Metadata::Tuple(ts)) if fs.len() == ts.len() => {
                TPlan::Tuple(fs.iter().zip(ts.iter()).map(|(f, t)| self.compile(f, t)).collect())
            }
            (Form::Tuple(fs), Metadata::Array(a)) if fs.len() as u64 == a.len => {
                TPlan::Tuple(fs.iter().map(|f| self.compile(f, &a.element)).collect())
            }
            (Form::Dict(k, v), Metadata::Map(m)) => {
                TPlan::Map(Box::new(self.compile(k, &m.key)), Box::new(self.compile(v, &m.value)))
            }
            (Form::Dict(k, v), Metadata::Struct(s)) if matches!(**k, Form::Str | Form::Any) => {
                let mut plan_of = |t: &Metadata| {
                    if is_optional_key(t) {
                        let Metadata::Enum(e) = t else { unreachable!() };
                        let (_, present) = e.variant_at(1).expect("two variants");
                        self.compile(v, present)
                    } else {
                        self.compile(v, t)
                    }
                };
                let values = s.fields().map(|(_, t)| plan_of(t)).collect();
                Python::with_gil(|py| TPlan::StructDict {
                    keys: s.fields().map(|(n, _)| PyString::intern_bound(py, n).unbind()).collect(),
                    names: s.fields().map(|(n, _)| n.to_owned()).collect(),
                    values,
                    optional: s.fields().map(|(_, t)| is_optional_key(t)).collect(),
                })
            }
            (Form::Record(r), Metadata::Struct(s)) => {
                let mut slots = Vec::with_capacity(s.len());
                let mut seen = vec![false; r.fields.len()];
                for (name, t) in s.fields() {
                    let optional_key = is_optional_key(t);
                    let present = if optional_key {
                        let Metadata::Enum(e) = t else { unreachable!() };
                        e.variant_at(1).expect("two variants").1
                    } else {
                        t
                    };
                    match r.fields.iter().position(|f| f.name == name) {
                        Some(i) => {
                            seen[i] = true;
                            let plan = self.compile(&r.fields[i].form, present);
                            slots.push(Slot { name: name.to_owned(), target: Some(i), plan, optional_key });
                        }
                        None => {
                            // Extra: decoded (every check applies) and dropped.
                            let plan = self.generic(t, None);
                            slots.push(Slot { name: name.to_owned(), target: None, plan, optional_key: false });
                        }
                    }
                }
                let missing_required = r
                    .fields
                    .iter()
                    .zip(&seen)
                    .find(|(f, seen)| !**seen && matches!(f.default, Default::Required))
                    .map(|(f, _)| f.name.clone());
                TPlan::Record { form: form.clone(), slots, missing_required }
            }
            // SPEC.md 23.2 rule 9: a tuple in the data reads into a record positionally.
            (Form::Record(r), Metadata::Tuple(ts)) => {
                let slots = ts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| match r.fields.get(i) {
                        Some(f) => Slot {
                            name: f.name.clone(),
                            target: Some(i),
                            plan: self.compile(&f.form, t),
                            optional_key: false,
                        },
                        None => {
                            Slot { name: i.to_string(), target: None, plan: self.generic(t, None), optional_key: false }
                        }
                    })
                    .collect();
                let missing_required = r
                    .fields
                    .iter()
                    .skip(ts.len())
                    .find(|f| matches!(f.default, Default::Required))
                    .map(|f| f.name.clone());
                TPlan::Record { form: form.clone(), slots, missing_required }
            }
            (Form::Record(_), Metadata::Vec(_) | Metadata::Array(_)) => self.generic(ty, Some(form.clone())),
            _ => fail(),
        }
    }
}

/// A message's plan, with the metadata of its untyped places.
struct Compiled {
    /// None: the message goes the untyped way, then is converted.
    plan: Option<TPlan>,
    /// Whether the plan reads whole columns ([`columns`]).
    columns: bool,
    generics: Vec<Metadata>,
    depth: usize,
}

fn has_zero_size(ty: &Metadata) -> bool {
    ty.is_zero_size() || ty.children().into_iter().any(has_zero_size)
}

// ------------------------------------------------------------------ decoding

struct TDec<'a, 'py> {
    d: Dec<'a>,
    generics: Vec<Plan<'py>>,
}

impl<'py> TDec<'_, 'py> {
    fn value(&mut self, py: Python<'py>, plan: &TPlan) -> TResult<Bound<'py, PyAny>> {
        match plan {
            TPlan::Fail { expected, got } => Err(mismatch(expected, got, Some(self.d.pos))),
            TPlan::Generic(i, form) => {
                let start = self.d.pos;
                let v = self.d.value(py, &self.generics[*i])?;
                match form {
                    Some(f) => convert(py, f, &v).map_err(|e| with_offset(e, start)),
                    None => Ok(v),
                }
            }
            TPlan::Int(p) | TPlan::Prim(p) => Ok(self.d.prim(py, *p)?),
            TPlan::IntToFloat(p) => {
                let v = self.d.prim(py, *p)?;
                Ok(PyFloat::new_bound(py, v.extract::<f64>()?).into_any())
            }
            TPlan::Date => {
                let start = self.d.pos;
                let v = self.d.prim(py, P::Date)?;
                if is_date(&v) {
                    Ok(v)
                } else {
                    Err(mismatch("date", "a day outside Python's years 1-9999", Some(start)))
                }
            }
            TPlan::DateTime => {
                let start = self.d.pos;
                let v = self.d.prim(py, P::Timestamp)?;
                if is_datetime(&v) {
                    Ok(v)
                } else {
                    Err(mismatch("datetime", "a timestamp outside Python's years 1-9999", Some(start)))
                }
            }
            TPlan::Unit => {
                self.d.charge(1)?;
                Ok(py.None().into_bound(py))
            }
            TPlan::Seq { elem, ctor, len } => {
                let n = match len {
                    Some(n) => {
                        if *n > (self.d.b.len() - self.d.pos) as u64 {
                            return Err(DErr::Bad.into());
                        }
                        *n as usize
                    }
                    None => self.d.count(1)?,
                };
                let mut items = Vec::with_capacity(n);
                for i in 0..n {
                    items.push(self.value(py, elem).map_err(|e| e.at(Seg::Index(i)))?);
                }
                let list = PyList::new_bound(py, items).into_any();
                match ctor {
                    None => Ok(list),
                    Some(c) => c.bind(py).call1((list,)).map_err(|_| unhashable("a set's elements")),
                }
            }
            TPlan::Tuple(ts) => {
                let mut items = Vec::with_capacity(ts.len());
                for (i, t) in ts.iter().enumerate() {
                    items.push(self.value(py, t).map_err(|e| e.at(Seg::Index(i)))?);
                }
                Ok(PyTuple::new_bound(py, items).into_any())
            }
            TPlan::Map(k, v) => {
                let n = self.d.count(1)?;
                let d = PyDict::new_bound(py);
                let mut seen: HashSet<&[u8]> = HashSet::with_capacity(n.min(4096));
                for _ in 0..n {
                    let start = self.d.pos;
                    let key = self.value(py, k)?;
                    if !seen.insert(&self.d.b[start..self.d.pos]) {
                        return Err(DErr::Bad.into());
                    }
                    let val = self.value(py, v).map_err(|e| e.at(Seg::Key(short(&key))))?;
                    d.set_item(&key, val).map_err(|_| unhashable("a dict's keys"))?;
                }
                Ok(d.into_any())
            }
            TPlan::StructDict { keys, names, values, optional } => {
                let d = PyDict::new_bound(py);
                for (((k, name), p), opt) in keys.iter().zip(names).zip(values).zip(optional) {
                    if *opt && !self.present()? {
                        continue;
                    }
                    let v = self.value(py, p).map_err(|e| e.at(Seg::Key(name.clone())))?;
                    d.set_item(k.bind(py), v)?;
                }
                Ok(d.into_any())
            }
            TPlan::Option { inner, none_not } => match self.d.u8()? {
                0 => match none_not {
                    None => Ok(py.None().into_bound(py)),
                    Some(expected) => Err(mismatch(expected, "None", Some(self.d.pos - 1))),
                },
                1 => self.value(py, inner),
                _ => Err(DErr::Bad.into()),
            },
            TPlan::EnumByName { members, names, payloads, enum_name } => {
                let start = self.d.pos;
                let i = self.d.length()?;
                let i = usize::try_from(i).ok().filter(|i| *i < names.len()).ok_or(DErr::Bad)?;
                self.value(py, &payloads[i])?;
                match &members[i] {
                    Some(m) => Ok(m.bind(py).clone()),
                    None => Err(invalid(format!("unknown variant `{}` of {enum_name}", names[i]), Some(start))),
                }
            }
            TPlan::Record { form, slots, missing_required } => {
                let Form::Record(r) = &**form else { unreachable!() };
                let start = self.d.pos;
                if let Some(name) = missing_required {
                    return Err(missing(name, start));
                }
                let mut vals: Vec<Option<Bound<'py, PyAny>>> = vec![None; r.fields.len()];
                for slot in slots {
                    if slot.optional_key && !self.present()? {
                        continue;
                    }
                    let v = self.value(py, &slot.plan).map_err(|e| e.at(Seg::Key(slot.name.clone())))?;
                    if let Some(i) = slot.target {
                        vals[i] = Some(v);
                    }
                }
                Ok(build_record(py, r, vals).map_err(|e| with_offset(e, start))?)
            }
        }
    }

    /// The discriminant of a `json.optional` field: whether it is present.
    fn present(&mut self) -> TResult<bool> {
        match self.d.length()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DErr::Bad.into()),
        }
    }
}

/// Values Python cannot hash where the reader's type wants them hashed
/// (the untyped `loads` gives such a map as a list of pairs instead).
fn unhashable(what: &str) -> TErr {
    invalid(format!("expected hashable values for {what}, got unhashable ones"), None)
}

fn missing(name: &str, offset: usize) -> TErr {
    invalid(format!("missing required field `{name}`"), Some(offset))
}

fn with_offset(mut e: TErr, offset: usize) -> TErr {
    if let TErr::Invalid(i) = &mut e {
        i.offset.get_or_insert(offset);
    }
    e
}

fn short(obj: &Bound<'_, PyAny>) -> String {
    match obj.downcast::<PyString>() {
        Ok(s) => s.to_string(),
        Err(_) => short_repr(obj),
    }
}

static OBJECT_SETATTR: GILOnceCell<PyObject> = GILOnceCell::new();
static OBJECT_NEW: GILOnceCell<PyObject> = GILOnceCell::new();

/// Builds the reader's record from its fields' values (None: not in the
/// data), filling defaults.
fn build_record<'py>(
    py: Python<'py>,
    r: &Record,
    mut vals: Vec<Option<Bound<'py, PyAny>>>,
) -> TResult<Bound<'py, PyAny>> {
    for (f, v) in r.fields.iter().zip(vals.iter_mut()) {
        if v.is_none() {
            match &f.default {
                Default::Required => return Err(missing(&f.name, 0).at_offset_none()),
                Default::Value(d) => *v = Some(d.bind(py).clone()),
                Default::Factory(c) => *v = Some(c.bind(py).call0()?),
                Default::Omit => {}
            }
        }
    }
    let cls = r.cls.bind(py);
    match r.kind {
        Kind::TypedDict => {
            let d = PyDict::new_bound(py);
            for (f, v) in r.fields.iter().zip(vals) {
                if let Some(v) = v {
                    d.set_item(f.key.bind(py), v)?;
                }
            }
            Ok(d.into_any())
        }
        Kind::NamedTuple => {
            let args = PyTuple::new_bound(py, vals.into_iter().map(|v| v.unwrap_or_else(|| py.None().into_bound(py))));
            Ok(cls.call1(args)?)
        }
        Kind::Dataclass => {
            // As msgspec does: the instance made without __init__, its fields
            // set in place (one by one where the class sets attributes as
            // `object` does; else through __dict__, or object.__setattr__ for
            // frozen slots), then __post_init__.
            let new = OBJECT_NEW.get_or_try_init(py, || -> PyResult<PyObject> {
                Ok(py.get_type_bound::<pyo3::types::PyAny>().getattr("__new__")?.unbind())
            })?;
            let inst = match cls.downcast::<PyType>().ok().and_then(object_new) {
                Some(inst) => inst?,
                None => new.bind(py).call1((cls,))?,
            };
            if r.plain_setattr {
                for (f, v) in r.fields.iter().zip(vals) {
                    if let Some(v) = v {
                        inst.setattr(f.key.bind(py), v)?;
                    }
                }
                if r.post_init {
                    inst.call_method0("__post_init__")?;
                }
                return Ok(inst);
            }
            match inst.getattr(pyo3::intern!(py, "__dict__")).ok().and_then(|d| d.downcast_into::<PyDict>().ok()) {
                Some(d) => {
                    for (f, v) in r.fields.iter().zip(vals) {
                        if let Some(v) = v {
                            d.set_item(f.key.bind(py), v)?;
                        }
                    }
                }
                None => {
                    let setattr = OBJECT_SETATTR.get_or_try_init(py, || -> PyResult<PyObject> {
                        Ok(py.get_type_bound::<pyo3::types::PyAny>().getattr("__setattr__")?.unbind())
                    })?;
                    for (f, v) in r.fields.iter().zip(vals) {
                        if let Some(v) = v {
                            setattr.bind(py).call1((&inst, f.key.bind(py), v))?;
                        }
                    }
                }
            }
            if r.post_init {
                inst.call_method0("__post_init__")?;
            }
            Ok(inst)
        }
    }
}

impl TErr {
    fn at_offset_none(self) -> Self {
        match self {
            TErr::Invalid(mut i) => {
                i.offset = None;
                TErr::Invalid(i)
            }
            other => other,
        }
    }
}

/// What a decoded Python value is, in "got ..." messages (XBF's names).
fn py_kind(obj: &Bound<'_, PyAny>) -> String {
    if obj.is_none() {
        "None".into()
    } else if obj.is_instance_of::<PyBool>() {
        "bool".into()
    } else if obj.is_instance_of::<PyLong>() {
        "int".into()
    } else if obj.is_instance_of::<PyFloat>() {
        "float".into()
    } else if obj.is_instance_of::<PyString>() {
        "string".into()
    } else if obj.is_instance_of::<PyBytes>() {
        "bytes".into()
    } else if obj.is_instance_of::<PyList>() {
        "vec".into()
    } else if obj.is_instance_of::<PyTuple>() {
        "tuple".into()
    } else if obj.is_instance_of::<PyDict>() {
        "struct".into()
    } else if is_datetime(obj) {
        "timestamp".into()
    } else if is_date(obj) {
        "date".into()
    } else {
        type_name(obj)
    }
}

/// Converts a value decoded untyped into the reader's form, checking it
/// (the way for `any` in the data, and for what the fast path leaves to the core).
fn convert<'py>(py: Python<'py>, form: &Arc<Form>, obj: &Bound<'py, PyAny>) -> TResult<Bound<'py, PyAny>> {
    let fail = || Err(mismatch(&form.expected(), &py_kind(obj), None));
    let exact_int = obj.is_instance_of::<PyLong>() && !obj.is_instance_of::<PyBool>();
    match &**form {
        Form::Any => Ok(obj.clone()),
        Form::Int if exact_int => Ok(obj.clone()),
        Form::Float if exact_int => Ok(PyFloat::new_bound(py, obj.extract::<f64>()?).into_any()),
        Form::Float if obj.is_instance_of::<PyFloat>() => Ok(obj.clone()),
        Form::Str if obj.is_instance_of::<PyString>() => Ok(obj.clone()),
        Form::Bytes if obj.is_instance_of::<PyBytes>() => Ok(obj.clone()),
        Form::Bool if obj.is_instance_of::<PyBool>() => Ok(obj.clone()),
        Form::NoneT if obj.is_none() => Ok(obj.clone()),
        Form::DateTime if is_datetime(obj) => Ok(obj.clone()),
        Form::Date if is_plain_date(obj) => Ok(obj.clone()),
        Form::Optional(_) if obj.is_none() => Ok(obj.clone()),
        Form::Optional(inner) => convert(py, inner, obj),
        Form::Seq(elem, ctor) if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() => {
            let mut items = Vec::new();
            for (i, item) in obj.iter()?.enumerate() {
                items.push(convert(py, elem, &item?).map_err(|e| e.at(Seg::Index(i)))?);
            }
            let list = PyList::new_bound(py, items).into_any();
            match ctor {
                None => Ok(list),
                Some(c) => c.bind(py).call1((list,)).map_err(|_| unhashable("a set's elements")),
            }
        }
        Form::Tuple(fs)
            if (obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) && obj.len()? == fs.len() =>
        {
            let mut items = Vec::new();
            for (i, (item, f)) in obj.iter()?.zip(fs).enumerate() {
                items.push(convert(py, f, &item?).map_err(|e| e.at(Seg::Index(i)))?);
            }
            Ok(PyTuple::new_bound(py, items).into_any())
        }
        Form::Dict(k, v) if obj.is_instance_of::<PyDict>() => {
            let d = PyDict::new_bound(py);
            for (key, val) in obj.downcast::<PyDict>().map_err(PyErr::from)?.iter() {
                let seg = short(&key);
                let key = convert(py, k, &key).map_err(|e| e.at(Seg::Key(seg.clone())))?;
                let val = convert(py, v, &val).map_err(|e| e.at(Seg::Key(seg)))?;
                d.set_item(&key, val).map_err(|_| unhashable("a dict's keys"))?;
            }
            Ok(d.into_any())
        }
        Form::Literal(values, _) => {
            for v in values {
                let v = v.bind(py);
                if v.get_type().is(&obj.get_type()) && v.eq(obj)? {
                    return Ok(v.clone());
                }
            }
            Err(invalid(format!("expected {}, got {}", form.expected(), short_repr(obj)), None))
        }
        Form::Enum { name, by_value, by_name } => {
            let variant = refs(py)?.variant.bind(py);
            let hit = if obj.is_instance(variant)? {
                by_name.bind(py).get_item(obj.get_item(0)?)?
            } else if obj.hash().is_ok() {
                by_value.bind(py).get_item(obj)?
            } else {
                None
            };
            hit.ok_or_else(|| invalid(format!("{} is not a value of {name}", short_repr(obj)), None))
        }
        Form::Record(r) if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() => {
            let n = obj.len()?;
            let mut vals = Vec::with_capacity(r.fields.len());
            for (i, f) in r.fields.iter().enumerate() {
                vals.push(if i < n {
                    Some(convert(py, &f.form, &obj.get_item(i)?).map_err(|e| e.at(Seg::Key(f.name.clone())))?)
                } else {
                    None
                });
            }
            build_record(py, r, vals)
        }
        Form::Record(r) if obj.is_instance_of::<PyDict>() => {
            let d = obj.downcast::<PyDict>().map_err(PyErr::from)?;
            let mut vals = Vec::with_capacity(r.fields.len());
            for f in &r.fields {
                vals.push(match d.get_item(f.key.bind(py))? {
                    Some(v) => Some(convert(py, &f.form, &v).map_err(|e| e.at(Seg::Key(f.name.clone())))?),
                    None => None,
                });
            }
            build_record(py, r, vals)
        }
        _ => fail(),
    }
}

/// Builds the reader's value by the plan from a value the core decoded
/// (columnar messages, and what the fast path leaves to the core): no
/// intermediate Python dicts.
fn from_value<'py>(py: Python<'py>, plan: &TPlan, v: &xbf::Value, to_py: &mut ToPy<'py>) -> TResult<Bound<'py, PyAny>> {
    let bad = || TErr::Dec(DErr::Bad);
    match plan {
        TPlan::Fail { expected, got } => Err(mismatch(expected, got, None)),
        TPlan::Generic(_, form) => {
            let o = to_py.value(py, v)?;
            match form {
                Some(f) => convert(py, f, &o),
                None => Ok(o),
            }
        }
        TPlan::Int(_) | TPlan::Prim(_) | TPlan::Unit => Ok(to_py.value(py, v)?),
        TPlan::IntToFloat(_) => Ok(PyFloat::new_bound(py, to_py.value(py, v)?.extract::<f64>()?).into_any()),
        TPlan::Date => convert(py, &Arc::new(Form::Date), &to_py.value(py, v)?),
        TPlan::DateTime => convert(py, &Arc::new(Form::DateTime), &to_py.value(py, v)?),
        TPlan::Seq { elem, ctor, .. } => {
            let (V::Vec(items) | V::Array(items)) = v else { return Err(bad()) };
            let mut out = Vec::with_capacity(items.items().len());
            for (i, item) in items.items().iter().enumerate() {
                out.push(from_value(py, elem, item, to_py).map_err(|e| e.at(Seg::Index(i)))?);
            }
            let list = PyList::new_bound(py, out).into_any();
            match ctor {
                None => Ok(list),
                Some(c) => c.bind(py).call1((list,)).map_err(|_| unhashable("a set's elements")),
            }
        }
        TPlan::Tuple(ts) => {
            let items = match v {
                V::Tuple(t) => t.items(),
                V::Array(a) => a.items(),
                _ => return Err(bad()),
            };
            let mut out = Vec::with_capacity(ts.len());
            for (i, (t, item)) in ts.iter().zip(items).enumerate() {
                out.push(from_value(py, t, item, to_py).map_err(|e| e.at(Seg::Index(i)))?);
            }
            Ok(PyTuple::new_bound(py, out).into_any())
        }
        TPlan::Map(kp, vp) => {
            let V::Map(m) = v else { return Err(bad()) };
            let d = PyDict::new_bound(py);
            for (k, val) in m.entries() {
                let key = from_value(py, kp, k, to_py)?;
                let val = from_value(py, vp, val, to_py).map_err(|e| e.at(Seg::Key(short(&key))))?;
                d.set_item(&key, val).map_err(|_| unhashable("a dict's keys"))?;
            }
            Ok(d.into_any())
        }
        TPlan::StructDict { keys, names, values, optional } => {
            let V::Struct(st) = v else { return Err(bad()) };
            let d = PyDict::new_bound(py);
            for ((((k, name), p), opt), fv) in keys.iter().zip(names).zip(values).zip(optional).zip(st.values()) {
                let Some(fv) = present_value(*opt, fv) else { continue };
                let val = from_value(py, p, fv, to_py).map_err(|e| e.at(Seg::Key(name.clone())))?;
                d.set_item(k.bind(py), val)?;
            }
            Ok(d.into_any())
        }
        TPlan::Option { inner, none_not } => {
            let V::Option(o) = v else { return Err(bad()) };
            match (o.value(), none_not) {
                (None, None) => Ok(py.None().into_bound(py)),
                (None, Some(expected)) => Err(mismatch(expected, "None", None)),
                (Some(inner_v), _) => from_value(py, inner, inner_v, to_py),
            }
        }
        TPlan::EnumByName { members, names, enum_name, .. } => {
            let V::Enum(e) = v else { return Err(bad()) };
            match members.get(e.index()) {
                Some(Some(m)) => Ok(m.bind(py).clone()),
                _ => Err(invalid(
                    format!("unknown variant `{}` of {enum_name}", names.get(e.index()).map_or("?", |n| n)),
                    None,
                )),
            }
        }
        TPlan::Record { form, slots, missing_required } => {
            let Form::Record(r) = &**form else { unreachable!() };
            if let Some(name) = missing_required {
                return Err(missing(name, 0).at_offset_none());
            }
            let fields = match v {
                V::Struct(st) => st.values(),
                V::Tuple(t) => t.items(),
                _ => return Err(bad()),
            };
            let mut vals: Vec<Option<Bound<'py, PyAny>>> = vec![None; r.fields.len()];
            for (slot, fv) in slots.iter().zip(fields) {
                let Some(target) = slot.target else { continue };
                let Some(fv) = present_value(slot.optional_key, fv) else { continue };
                vals[target] =
                    Some(from_value(py, &slot.plan, fv, to_py).map_err(|e| e.at(Seg::Key(slot.name.clone())))?);
            }
            build_record(py, r, vals)
        }
    }
}

/// A field's value, or None for the absent value of a `json.optional` field.
fn present_value(optional_key: bool, v: &xbf::Value) -> Option<&xbf::Value> {
    match v {
        V::Enum(e) if optional_key => (e.index() == 1).then(|| e.payload()),
        other => Some(other),
    }
}

// ------------------------------------------------------------------ decoder

/// `xbf.Decoder(T)`'s native part: the compiled form of `T`, and plans by
/// the metadata bytes of the messages met (a few: most programs read one
/// writer type).
#[pyclass(module = "xbf._native", unsendable)]
pub(crate) struct TypedDecoder {
    form: Arc<Form>,
    plans: RefCell<Vec<PlanEntry>>,
}

/// A kept plan: for which reader, of which metadata (its bytes).
type PlanEntry = (PlanFor, Vec<u8>, Rc<Compiled>);

/// Which reader a plan is for: plans of one metadata differ by reader.
#[derive(Clone, Copy, PartialEq)]
enum PlanFor {
    /// The fast path over rows, which leaves some types to the core.
    Rows,
    /// Whole columns ([`columns`]).
    Columns,
    /// Values the core decoded.
    Values,
}

const PLANS_KEPT: usize = 16;

#[pymethods]
impl TypedDecoder {
    #[new]
    fn new(form: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(TypedDecoder { form: parse_form(form)?, plans: RefCell::new(Vec::new()) })
    }

    #[pyo3(signature = (data, max_decoded_bytes=None))]
    fn decode<'py>(&self, py: Python<'py>, data: &[u8], max_decoded_bytes: Option<u64>) -> PyResult<Bound<'py, PyAny>> {
        let opts = decode_options(max_decoded_bytes);
        guarded(py, || {
            match self.fast(py, data, &opts) {
                Ok(v) => return Ok(v),
                Err(TErr::Invalid(e)) => return Err(validation_error(py, &e)),
                Err(TErr::Dec(DErr::Py(e))) => return Err(e),
                Err(TErr::Dec(DErr::Bad)) => {}
            }
            if let Some(r) = self.read_columns(py, data, &opts) {
                return r;
            }
            let (ty, value) = opts.decode_typed_message(data).map_err(|e| core_err(py, e))?;
            let typed = match EncodeOptions::v2().encode_metadata(&ty) {
                Ok(key) => {
                    let compiled = self.compiled(PlanFor::Values, &key, &ty, true);
                    let plan = compiled.plan.as_ref().expect("plans for values are always made");
                    let mut to_py = ToPy { typed_any: false, structs: HashMap::new(), last: None };
                    from_value(py, plan, &value, &mut to_py)
                }
                Err(_) => convert(py, &self.form, &value_to_py(py, &value, false)?),
            };
            typed.map_err(|e| match e {
                TErr::Invalid(e) => validation_error(py, &e),
                TErr::Dec(DErr::Py(e)) => e,
                TErr::Dec(DErr::Bad) => internal_error(py, "typed conversion gave up"),
            })
        })
    }
}

impl TypedDecoder {
    /// The plan of a message's metadata, compiled on first sight.
    /// Plans for the fast path over rows are made only for the metadata it
    /// reads (it leaves the rest to the core); the others, for any metadata.
    fn compiled(&self, reader: PlanFor, meta: &[u8], ty: &Metadata, v2: bool) -> Rc<Compiled> {
        if let Some((.., c)) = self.plans.borrow().iter().find(|(r, m, _)| *r == reader && m == meta) {
            return c.clone();
        }
        let untyped =
            reader == PlanFor::Rows && (ty.depth() > FAST_DEPTH || (!v2 && meta_has_any(ty)) || has_zero_size(ty));
        let mut compiler = Compiler { generics: Vec::new() };
        let plan = if untyped { None } else { Some(compiler.compile(&self.form, ty)) };
        let columns =
            reader == PlanFor::Columns && plan.as_ref().is_some_and(|p| columns::readable(p, &compiler.generics));
        let c = Rc::new(Compiled { plan, columns, generics: compiler.generics, depth: ty.depth() });
        let mut plans = self.plans.borrow_mut();
        if plans.len() >= PLANS_KEPT {
            plans.remove(0);
        }
        plans.push((reader, meta.to_vec(), c.clone()));
        c
    }

    fn fast<'py>(&self, py: Python<'py>, data: &[u8], opts: &DecodeOptions) -> TResult<Bound<'py, PyAny>> {
        let (v2, start) = header(data)?;
        let version = if v2 { Version::V2 } else { Version::V1 };
        let (ty, used) = DecodeOptions::default().decode_metadata(version, &data[start..]).map_err(|_| DErr::Bad)?;
        let compiled = self.compiled(PlanFor::Rows, &data[start..start + used], &ty, v2);
        let Some(plan) = &compiled.plan else { return Err(DErr::Bad.into()) };
        let generics: Vec<Plan<'py>> = compiled.generics.iter().map(|m| make_plan(py, m, 0)).collect();
        if generics.iter().any(Plan::needs_core) {
            return Err(DErr::Bad.into());
        }
        let mut t = TDec {
            d: Dec {
                b: data,
                pos: start + used,
                v2,
                typed_any: false,
                trusted: false,
                zs_used: 0,
                zs_allowed: opts.get_max_decoded_bytes() / xbf::options::DECODED_VALUE_BYTES,
                prepaid: 0,
                depth: compiled.depth,
                any_prims: [None; 256],
            },
            generics,
        };
        let v = t.value(py, plan)?;
        if t.d.pos != data.len() {
            return Err(DErr::Bad.into());
        }
        Ok(v)
    }
}
