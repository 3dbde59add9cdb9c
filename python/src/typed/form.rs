//! The reader's side of typed decoding: the forms that `xbf/_typed.py`
//! compiles Python types into, and the errors of a value that does not fit
//! its form (`xbf.ValidationError`).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use xbf::{Metadata, PrimitiveType as P};

use crate::decode::DErr;

// ------------------------------------------------------------------ forms

/// The reader's type, as compiled by `xbf/_typed.py`.
pub(super) enum Form {
    Any,
    Int,
    Float,
    Str,
    Bool,
    Bytes,
    NoneT,
    Date,
    DateTime,
    /// Elements, and the constructor of the sequence (None: list).
    Seq(Arc<Form>, Option<PyObject>),
    Tuple(Vec<Arc<Form>>),
    Dict(Arc<Form>, Arc<Form>),
    Optional(Arc<Form>),
    Literal(Vec<PyObject>, String),
    Enum {
        name: String,
        by_value: Py<PyDict>,
        by_name: Py<PyDict>,
    },
    Record(Record),
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Dataclass,
    NamedTuple,
    TypedDict,
}

pub(super) struct Record {
    pub(super) kind: Kind,
    pub(super) cls: PyObject,
    pub(super) name: String,
    pub(super) fields: Vec<RField>,
    pub(super) post_init: bool,
    /// A dataclass whose attributes are set by `object.__setattr__` (no
    /// `__setattr__` of its own, so not frozen): its fields are set one by
    /// one, into the instance's own value slots (Python 3.11+ keeps the
    /// attributes of such instances without a dict until asked for one).
    pub(super) plain_setattr: bool,
}

pub(super) struct RField {
    pub(super) name: String,
    pub(super) key: Py<PyString>,
    pub(super) form: Arc<Form>,
    pub(super) default: Default,
}

pub(super) enum Default {
    Required,
    Value(PyObject),
    Factory(PyObject),
    /// A TypedDict key that need not be there: left out.
    Omit,
}

pub(super) fn parse_form(obj: &Bound<'_, PyAny>) -> PyResult<Arc<Form>> {
    let t = obj.downcast::<PyTuple>()?;
    let tag: String = t.get_item(0)?.extract()?;
    let form = match tag.as_str() {
        "any" => Form::Any,
        "int" => Form::Int,
        "float" => Form::Float,
        "str" => Form::Str,
        "bool" => Form::Bool,
        "bytes" => Form::Bytes,
        "none" => Form::NoneT,
        "date" => Form::Date,
        "datetime" => Form::DateTime,
        "seq" => {
            let ctor = t.get_item(2)?;
            Form::Seq(parse_form(&t.get_item(1)?)?, if ctor.is_none() { None } else { Some(ctor.unbind()) })
        }
        "tuple" => {
            let items = t.get_item(1)?;
            let mut forms = Vec::new();
            for item in items.iter()? {
                forms.push(parse_form(&item?)?);
            }
            Form::Tuple(forms)
        }
        "dict" => Form::Dict(parse_form(&t.get_item(1)?)?, parse_form(&t.get_item(2)?)?),
        "optional" => Form::Optional(parse_form(&t.get_item(1)?)?),
        "literal" => {
            let values = t.get_item(1)?.iter()?.map(|v| v.map(Bound::unbind)).collect::<PyResult<Vec<_>>>()?;
            Form::Literal(values, t.get_item(2)?.extract()?)
        }
        "enum" => {
            let cls = t.get_item(1)?;
            Form::Enum {
                name: cls.getattr("__qualname__")?.extract()?,
                by_value: t.get_item(2)?.downcast_into::<PyDict>()?.unbind(),
                by_name: t.get_item(3)?.downcast_into::<PyDict>()?.unbind(),
            }
        }
        "record" => {
            let kind = match t.get_item(1)?.extract::<String>()?.as_str() {
                "dataclass" => Kind::Dataclass,
                "namedtuple" => Kind::NamedTuple,
                _ => Kind::TypedDict,
            };
            let mut fields = Vec::new();
            for f in t.get_item(4)?.iter()? {
                let f = f?;
                let f = f.downcast::<PyTuple>()?;
                let name: String = f.get_item(0)?.extract()?;
                let default = match f.get_item(2)?.extract::<String>()?.as_str() {
                    "value" => Default::Value(f.get_item(3)?.unbind()),
                    "factory" => Default::Factory(f.get_item(3)?.unbind()),
                    "omit" => Default::Omit,
                    _ => Default::Required,
                };
                let key = PyString::intern_bound(obj.py(), &name).unbind();
                fields.push(RField { name, key, form: parse_form(&f.get_item(1)?)?, default });
            }
            let cls = t.get_item(2)?;
            let object_setattr = obj.py().get_type_bound::<pyo3::types::PyAny>().getattr("__setattr__")?;
            let plain_setattr = kind == Kind::Dataclass && cls.getattr("__setattr__")?.is(&object_setattr);
            Form::Record(Record {
                kind,
                plain_setattr,
                cls: cls.unbind(),
                name: t.get_item(3)?.extract()?,
                fields,
                post_init: t.get_item(5)?.is_truthy()?,
            })
        }
        other => return Err(pyo3::exceptions::PyTypeError::new_err(format!("xbf: unknown type form {other:?}"))),
    };
    Ok(Arc::new(form))
}

impl Form {
    /// The type named in "expected ..." messages.
    pub(super) fn expected(&self) -> String {
        match self {
            Form::Any => "any".into(),
            Form::Int => "int".into(),
            Form::Float => "float".into(),
            Form::Str => "str".into(),
            Form::Bool => "bool".into(),
            Form::Bytes => "bytes".into(),
            Form::NoneT => "None".into(),
            Form::Date => "date".into(),
            Form::DateTime => "datetime".into(),
            Form::Seq(..) => "array".into(),
            Form::Tuple(fs) => format!("tuple of {}", fs.len()),
            Form::Dict(..) => "object".into(),
            Form::Optional(f) => format!("{} or None", f.expected()),
            Form::Literal(_, text) => text.clone(),
            Form::Enum { name, .. } => name.clone(),
            Form::Record(r) => r.name.clone(),
        }
    }
}

/// The writer's type, as named in "got ..." messages.
pub(super) fn meta_name(ty: &Metadata) -> String {
    match ty {
        Metadata::Primitive(p) => p.name().to_owned(),
        Metadata::Vec(_) => "vec".into(),
        Metadata::Struct(s) => format!("struct {}", s.name()),
        Metadata::Option(_) => "option".into(),
        Metadata::Array(a) => format!("array of {}", a.len),
        Metadata::Tuple(ts) => format!("tuple of {}", ts.len()),
        Metadata::Map(_) => "map".into(),
        Metadata::Enum(e) => format!("enum {}", e.name()),
        Metadata::Any => "any".into(),
        _ => "another type".into(),
    }
}

pub(super) fn is_int(p: P) -> bool {
    matches!(
        p.integer_type(),
        P::U8 | P::U16 | P::U32 | P::U64 | P::U128 | P::U256 | P::I8 | P::I16 | P::I32 | P::I64 | P::I128 | P::I256
    )
}

// ------------------------------------------------------------------ errors

pub(super) enum Seg {
    Index(usize),
    Key(String),
}

pub(super) struct Invalid {
    /// Innermost first: each level adds its own on the way out.
    pub(super) segs: Vec<Seg>,
    pub(super) msg: String,
    pub(super) offset: Option<usize>,
}

pub(super) enum TErr {
    Dec(DErr),
    Invalid(Box<Invalid>),
}

pub(super) type TResult<T> = Result<T, TErr>;

impl From<DErr> for TErr {
    fn from(e: DErr) -> Self {
        TErr::Dec(e)
    }
}

impl From<PyErr> for TErr {
    fn from(e: PyErr) -> Self {
        TErr::Dec(DErr::Py(e))
    }
}

impl TErr {
    pub(super) fn at(mut self, seg: Seg) -> Self {
        if let TErr::Invalid(i) = &mut self {
            i.segs.push(seg);
        }
        self
    }
}

pub(super) fn invalid(msg: String, offset: Option<usize>) -> TErr {
    TErr::Invalid(Box::new(Invalid { segs: Vec::new(), msg, offset }))
}

pub(super) fn mismatch(expected: &str, got: &str, offset: Option<usize>) -> TErr {
    invalid(format!("expected {expected}, got {got}"), offset)
}

pub(super) static VALIDATION_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

/// `xbf.ValidationError` (a `DecodeError` of kind `type-mismatch`), its
/// message led by the path: `$[3].delay: expected int, got string`.
pub(super) fn validation_error(py: Python<'_>, e: &Invalid) -> PyErr {
    let mut path = String::new();
    for seg in e.segs.iter().rev() {
        match seg {
            Seg::Index(i) => path.push_str(&format!("[{i}]")),
            Seg::Key(k) => {
                path.push('.');
                path.push_str(k);
            }
        }
    }
    let message = format!("${path}: {}", e.msg);
    let cls = VALIDATION_ERROR.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        Ok(py.import_bound("xbf")?.getattr("ValidationError")?.downcast_into::<PyType>()?.unbind())
    });
    let path = if path.is_empty() { None } else { Some(path.trim_start_matches('.').to_owned()) };
    match cls {
        Ok(cls) => match cls.bind(py).call1((message, "type-mismatch", e.offset, path)) {
            Ok(inst) => PyErr::from_value_bound(inst),
            Err(err) => err,
        },
        Err(err) => err,
    }
}
