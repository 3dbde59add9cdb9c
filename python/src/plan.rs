//! Plans: a type prepared for one encode or decode, with struct keys as
//! Python strings.

use std::cell::RefCell;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use xbf::infer::OPTIONAL_KEY_ENUM;
use xbf::{zero_size_values, Metadata, PrimitiveType as P};

// ------------------------------------------------------------------ plans

/// A type prepared for one encode or decode: struct keys as Python strings.
pub(crate) enum Plan<'py> {
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

pub(crate) fn is_optional_key(ty: &Metadata) -> bool {
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

pub(crate) fn zs_weight(ty: &Metadata) -> u64 {
    if ty.is_zero_size() {
        zero_size_values(ty)
    } else {
        0
    }
}

/// The plan of `ty`, whose metadata stands inside `open` nesting levels
/// (SPEC.md §16.1; an `any` value there opens one more, and its own type
/// more again, which only the value shows).
pub(crate) fn make_plan<'py>(py: Python<'py>, ty: &Metadata, open: usize) -> Plan<'py> {
    let p = make_plan_of(py, ty, open);
    if ty.is_zero_size() && !matches!(ty, Metadata::Primitive(_)) {
        Plan::ZeroSize(zero_size_values(ty), Box::new(p))
    } else {
        p
    }
}

pub(crate) fn make_plan_of<'py>(py: Python<'py>, ty: &Metadata, open: usize) -> Plan<'py> {
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
    pub(crate) fn describe(&self) -> String {
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

    pub(crate) fn is_zero_size(&self) -> bool {
        matches!(self, Plan::Prim(P::Unit) | Plan::ZeroSize(..))
    }

    /// Whether decoding this type can meet what the fast path leaves to the
    /// core: maps with keys or values that take no bytes.
    pub(crate) fn needs_core(&self) -> bool {
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
