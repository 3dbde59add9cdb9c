//! Columnar messages of flat records to Python objects, a whole column at a
//! time: each field's values read at once by the core (`xbf::read_columns`),
//! made into Python objects in one loop per column, then put into records.
//! The core decoding them into an `xbf::Value` tree first (one allocation
//! per string and per record) took about twice as long as reading the rows.
//!
//! Values of the types read whole here (scalars other than 256-bit
//! integers; options, vecs, arrays, tuples, structs, maps, enums and `any`
//! of them, an `any`'s parts by the types its column gives them) take
//! this path; anything else, and any fault (which the core reports here with
//! no Python-side error), goes to the core's general decoder, so that errors
//! stay the core's.

use std::cell::RefCell;

use pyo3::prelude::*;
use std::borrow::Cow;

use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple};
use xbf::wire::{FLAG_COLUMNAR, V2_MARKER};
use xbf::{DecodeOptions, Metadata, PrimitiveType as P, Version, WholeColumn};

use crate::decode::{date_py, int_i128, int_u128, meta_has_any, timestamp_py, FRESH_DICT_KEYS};
use crate::plan::is_optional_key;
use crate::pyobj::{is_some, refs};
use crate::raw::{dict_set, new_str};

/// How one field's values become Python objects.
#[derive(Clone, Copy)]
pub(crate) enum Scalar {
    Unit,
    Bool,
    Unsigned,
    /// Signed (zigzag-coded in the column).
    Signed,
    Date,
    Timestamp,
    F32,
    F64,
    Str,
    Bytes,
    U128,
    /// Signed 128-bit (zigzag-coded in the column).
    I128,
}

/// How a primitive type's column becomes Python objects (None: not read
/// whole here).
pub(crate) fn scalar_of(p: P) -> Option<Scalar> {
    Some(match p.integer_type() {
        P::Unit => Scalar::Unit,
        P::Bool => Scalar::Bool,
        P::U8 | P::U16 | P::U32 | P::U64 => Scalar::Unsigned,
        P::I8 | P::I16 | P::I32 | P::I64 => Scalar::Signed,
        P::Date => Scalar::Date,
        P::Timestamp => Scalar::Timestamp,
        P::F32 => Scalar::F32,
        P::F64 => Scalar::F64,
        P::String => Scalar::Str,
        P::Bytes => Scalar::Bytes,
        P::U128 => Scalar::U128,
        P::I128 => Scalar::I128,
        _ => return None,
    })
}

/// The values of a scalar column as Python objects. Python errors are
/// returned inside the core's `Ok`, so that the core's faults and Python's
/// stay apart.
pub(crate) fn column_py<'py>(
    py: Python<'py>,
    col: WholeColumn<'_, '_, '_>,
    s: Scalar,
) -> xbf::Result<PyResult<Vec<Bound<'py, PyAny>>>> {
    let unzigzag = |x: u64| (x >> 1) as i64 ^ -((x & 1) as i64);
    Ok(Ok(match s {
        Scalar::Unit => (0..col.len()).map(|_| py.None().into_bound(py)).collect(),
        Scalar::Bool => col.ints()?.into_iter().map(|x| PyBool::new_bound(py, x == 1).to_owned().into_any()).collect(),
        Scalar::Unsigned => col.ints()?.into_iter().map(|x| x.into_py(py).into_bound(py)).collect(),
        Scalar::Signed => col.ints()?.into_iter().map(|x| unzigzag(x).into_py(py).into_bound(py)).collect(),
        Scalar::Date => match col.ints()?.into_iter().map(|x| date_py(py, i64::from(unzigzag(x) as i32))).collect() {
            Ok(v) => v,
            Err(e) => return Ok(Err(e)),
        },
        Scalar::Timestamp => match col.ints()?.into_iter().map(|x| timestamp_py(py, unzigzag(x))).collect() {
            Ok(v) => v,
            Err(e) => return Ok(Err(e)),
        },
        Scalar::F32 => col.f32s()?.into_iter().map(|x| PyFloat::new_bound(py, f64::from(x)).into_any()).collect(),
        Scalar::F64 => col.f64s()?.into_iter().map(|x| PyFloat::new_bound(py, x).into_any()).collect(),
        Scalar::Str => {
            let mut cache = StrCache::new();
            col.strings(|s| cache.get(py, s))?
        }
        // Made from the message's bytes where the column lies there (else
        // from those its decompression made).
        Scalar::Bytes => col
            .bytes(Cow::Borrowed, |b| Some(Cow::Owned(b.to_vec())))?
            .iter()
            .map(|b| PyBytes::new_bound(py, b).into_any())
            .collect(),
        Scalar::U128 => col.wide_ints()?.into_iter().map(|x| int_u128(py, x)).collect(),
        Scalar::I128 => {
            col.wide_ints()?.into_iter().map(|z| int_i128(py, (z >> 1) as i128 ^ -((z & 1) as i128))).collect()
        }
    }))
}

/// The strings made last, by where their text lies: a dictionary-coded
/// column gives each repeat of a value the same span of the message, which
/// then becomes one shared (immutable) Python string rather than a new one
/// each time. Direct-mapped, so that a column of distinct strings costs one
/// probe a value.
pub(crate) struct StrCache<'py> {
    slots: Vec<Option<(*const u8, usize, Bound<'py, PyAny>)>>,
}

impl<'py> StrCache<'py> {
    const BITS: u32 = 8;

    pub(crate) fn new() -> Self {
        StrCache { slots: (0..1 << Self::BITS).map(|_| None).collect() }
    }

    #[inline]
    pub(crate) fn get(&mut self, py: Python<'py>, s: &str) -> Bound<'py, PyAny> {
        let (ptr, len) = (s.as_ptr(), s.len());
        let h = (ptr as usize ^ len).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - Self::BITS);
        match &self.slots[h] {
            Some((p, l, v)) if *p == ptr && *l == len => v.clone(),
            _ => {
                let v = new_str(py, s).into_any();
                self.slots[h] = Some((ptr, len, v.clone()));
                v
            }
        }
    }
}

/// One field's values as records are made of them. Numbers and booleans
/// stay as the core decoded them until their record is made, and each
/// object is then made and put in its dict at once: made a column at a
/// time, every object was touched again, out of cache, when its record took
/// it (windvectors.csv: 4,800 records of 5 numbers, 24,000 objects; this
/// path took fewer instructions than msgspec's decoder but longer).
enum FieldValues<'py> {
    F64(std::vec::IntoIter<f64>),
    F32(std::vec::IntoIter<f32>),
    Unsigned(std::vec::IntoIter<u64>),
    /// Zigzag-coded.
    Signed(std::vec::IntoIter<u64>),
    Bool(std::vec::IntoIter<u64>),
    /// Python objects made a column at a time (None: an optional field
    /// absent from its record).
    Objects(std::vec::IntoIter<Option<Bound<'py, PyAny>>>),
}

impl<'py> FieldValues<'py> {
    /// Whether a scalar's values are kept as the core decoded them.
    fn is_native(s: Scalar) -> bool {
        matches!(s, Scalar::F64 | Scalar::F32 | Scalar::Unsigned | Scalar::Signed | Scalar::Bool)
    }

    /// The values of a scalar column for which [`FieldValues::is_native`] holds.
    fn native(col: WholeColumn<'_, '_, '_>, s: Scalar) -> CResult<Self> {
        Ok(match s {
            Scalar::F64 => FieldValues::F64(col.f64s()?.into_iter()),
            Scalar::F32 => FieldValues::F32(col.f32s()?.into_iter()),
            Scalar::Unsigned => FieldValues::Unsigned(col.ints()?.into_iter()),
            Scalar::Signed => FieldValues::Signed(col.ints()?.into_iter()),
            Scalar::Bool => FieldValues::Bool(col.ints()?.into_iter()),
            _ => return Err(Stop::Elsewhere),
        })
    }

    /// Whether the next record lacks this (optional) field.
    #[inline]
    fn next_is_absent(&self) -> bool {
        matches!(self, FieldValues::Objects(v) if matches!(v.as_slice().first(), Some(None)))
    }

    fn len(&self) -> usize {
        match self {
            FieldValues::F64(v) => v.len(),
            FieldValues::F32(v) => v.len(),
            FieldValues::Unsigned(v) | FieldValues::Signed(v) | FieldValues::Bool(v) => v.len(),
            FieldValues::Objects(v) => v.len(),
        }
    }

    /// The next record's value (the caller took `len()` values at most,
    /// which it checked against the record count).
    #[inline]
    fn next(&mut self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        const N: &str = "n values a column";
        Some(match self {
            FieldValues::F64(v) => PyFloat::new_bound(py, v.next().expect(N)).into_any(),
            FieldValues::F32(v) => PyFloat::new_bound(py, f64::from(v.next().expect(N))).into_any(),
            FieldValues::Unsigned(v) => v.next().expect(N).into_py(py).into_bound(py),
            FieldValues::Signed(v) => {
                let x = v.next().expect(N);
                ((x >> 1) as i64 ^ -((x & 1) as i64)).into_py(py).into_bound(py)
            }
            FieldValues::Bool(v) => PyBool::new_bound(py, v.next().expect(N) == 1).to_owned().into_any(),
            FieldValues::Objects(v) => return v.next().expect(N),
        })
    }
}

/// Why a column reader stopped.
pub(crate) enum Stop {
    /// The core decides (and makes the error, if any): a fault, or a type
    /// not read whole here.
    Elsewhere,
    /// A Python error.
    Py(PyErr),
}

impl From<xbf::Error> for Stop {
    fn from(_: xbf::Error) -> Self {
        Stop::Elsewhere
    }
}

impl From<PyErr> for Stop {
    fn from(e: PyErr) -> Self {
        Stop::Py(e)
    }
}

pub(crate) type CResult<T> = Result<T, Stop>;

/// How one node's values become Python objects (the forms of `loads`).
enum Col<'py> {
    Scalar(Scalar),
    /// An option; `wrap`: whether a present value may itself read as an
    /// option (None, or an `xbf.Some`), and so is wrapped in `xbf.Some`.
    Option(Box<Col<'py>>, bool),
    Vec(Box<Col<'py>>),
    Array(Box<Col<'py>>),
    Tuple(Vec<Col<'py>>),
    /// Dicts; an optional field (`json.optional`) is planned as its
    /// present payload, and left out of the records where it is absent.
    Struct {
        keys: Vec<Bound<'py, PyString>>,
        fields: Vec<Col<'py>>,
        optional: Vec<bool>,
        templates: Templates<'py>,
    },
    /// Dicts (or, where Python cannot hold the keys in one, as the core's
    /// values read, lists of `(key, value)` pairs), of keys and values.
    Map(Box<Col<'py>>, Box<Col<'py>>),
    /// `xbf.Variant(name, payload)`s.
    Enum(Vec<Bound<'py, PyString>>, Vec<Col<'py>>),
    /// The unit payload of an enum's variant: None each, with no column
    /// (the tags, which were read and charged, count them).
    Nones,
    /// The value as its part's type reads (the parts' plans are made from
    /// the types the column gives them).
    Any,
}

/// The dicts a struct's records are copied from, one of the keys each
/// pattern of absent optional fields leaves (bit i of the pattern: field i
/// absent), made as the patterns are met. A record copies the one of its
/// pattern, with its keys in the struct's order, and sets its values in
/// place: no key is deleted. Copying the dict of every key and deleting the
/// absent ones cost a lookup and a delete each (countries.json: every
/// record lacks `_comment`, a tenth two more fields; callgrind figures in
/// python/bench/callgrind_loads.json, "pyloads3").
#[derive(Default)]
pub(crate) struct Templates<'py> {
    by_absent: RefCell<Vec<(u64, Bound<'py, PyDict>)>>,
}

impl<'py> Templates<'py> {
    /// Patterns kept at most; a record of any other pattern copies the dict
    /// of every key, and its absent fields are deleted.
    const MAX: usize = 8;

    /// A new dict of the keys `absent` leaves (each to None), and whether
    /// it holds exactly those (else it holds every key).
    fn dict(
        &self,
        py: Python<'py>,
        keys: &[Bound<'py, PyString>],
        absent: u64,
    ) -> PyResult<(Bound<'py, PyDict>, bool)> {
        let mut by_absent = self.by_absent.borrow_mut();
        let mut pattern = absent;
        if !by_absent.iter().any(|(a, _)| *a == pattern) && by_absent.len() >= Self::MAX {
            pattern = 0;
        }
        if let Some((_, t)) = by_absent.iter().find(|(a, _)| *a == pattern) {
            return Ok((t.copy()?, pattern == absent));
        }
        let t = PyDict::new_bound(py);
        for (i, k) in keys.iter().enumerate() {
            if i >= 64 || pattern & (1 << i) == 0 {
                dict_set(&t, k, &py.None().into_bound(py))?;
            }
        }
        let d = t.copy()?;
        by_absent.push((pattern, t));
        Ok((d, pattern == absent))
    }
}

/// The plan of a type read whole here; `None` for any other. Types whose
/// values take no bytes are left to the core: their counts are not
/// bounded by the input, and only reading their (empty) columns charges
/// them to the decoded-memory budget.
fn plan<'py>(py: Python<'py>, ty: &Metadata) -> Option<Col<'py>> {
    if ty.is_zero_size() {
        return None;
    }
    Some(match ty {
        Metadata::Primitive(p) => Col::Scalar(scalar_of(*p)?),
        Metadata::Option(inner) => {
            let inner = plan(py, inner)?;
            let wrap = matches!(inner, Col::Option(..) | Col::Any | Col::Scalar(Scalar::Unit));
            Col::Option(Box::new(inner), wrap)
        }
        Metadata::Vec(e) => Col::Vec(Box::new(plan(py, e)?)),
        Metadata::Array(a) => Col::Array(Box::new(plan(py, &a.element)?)),
        Metadata::Tuple(ts) => Col::Tuple(ts.iter().map(|t| plan(py, t)).collect::<Option<_>>()?),
        Metadata::Struct(s) => {
            let mut fields = Vec::with_capacity(s.len());
            let mut optional = Vec::with_capacity(s.len());
            for (_, t) in s.fields() {
                let opt = is_optional_key(t);
                let t = match t {
                    Metadata::Enum(e) if opt => e.variant_at(1).expect("two variants").1,
                    t => t,
                };
                fields.push(plan(py, t)?);
                optional.push(opt);
            }
            Col::Struct {
                keys: s.fields().map(|(n, _)| PyString::intern_bound(py, n)).collect(),
                fields,
                optional,
                templates: Templates::default(),
            }
        }
        Metadata::Map(m) => Col::Map(Box::new(plan(py, &m.key)?), Box::new(plan(py, &m.value)?)),
        Metadata::Enum(e) => Col::Enum(
            e.variants().map(|(n, _)| PyString::new_bound(py, n)).collect(),
            e.variants()
                .map(|(_, t)| if *t == Metadata::UNIT { Some(Col::Nones) } else { plan(py, t) })
                .collect::<Option<_>>()?,
        ),
        Metadata::Any => Col::Any,
        _ => return None,
    })
}

/// Whether [`plan`] makes a plan of `ty` (an `any`'s parts are checked
/// as they are read).
pub(crate) fn reads_whole(ty: &Metadata) -> bool {
    if ty.is_zero_size() {
        return false;
    }
    match ty {
        Metadata::Primitive(p) => scalar_of(*p).is_some(),
        Metadata::Option(t) | Metadata::Vec(t) => reads_whole(t),
        Metadata::Array(a) => reads_whole(&a.element),
        Metadata::Tuple(ts) => ts.iter().all(reads_whole),
        Metadata::Struct(s) => s.fields().all(|(_, t)| match t {
            Metadata::Enum(e) if is_optional_key(t) => reads_whole(e.variant_at(1).expect("two variants").1),
            t => reads_whole(t),
        }),
        Metadata::Map(m) => reads_whole(&m.key) && reads_whole(&m.value),
        Metadata::Enum(e) => e.variants().all(|(_, t)| *t == Metadata::UNIT || reads_whole(t)),
        Metadata::Any => true,
        _ => false,
    }
}

/// Every value of one node of type `ty`, as `loads` gives them (see
/// [`reads_whole`]).
pub(crate) fn read_untyped<'py>(
    py: Python<'py>,
    col: WholeColumn<'_, '_, '_>,
    ty: &Metadata,
) -> CResult<Vec<Bound<'py, PyAny>>> {
    let c = plan(py, ty).ok_or(Stop::Elsewhere)?;
    read(py, col, &c)
}

/// Splits `values` into lists of `lens` elements; fails unless they add up.
fn lists<'py>(py: Python<'py>, lens: &[u64], values: Vec<Bound<'py, PyAny>>) -> CResult<Vec<Bound<'py, PyAny>>> {
    let total = lens.iter().try_fold(0u64, |a, &l| a.checked_add(l));
    if total != Some(values.len() as u64) {
        return Err(Stop::Elsewhere);
    }
    let mut values = values.into_iter();
    Ok(lens.iter().map(|&l| PyList::new_bound(py, values.by_ref().take(l as usize)).into_any()).collect())
}

/// The values of a tagged column (an enum's or an `any`'s), as `f` makes
/// each from its tag and payload.
pub(crate) fn tagged<'py, T>(
    col: WholeColumn<'_, '_, '_>,
    n: usize,
    mut part: impl FnMut(usize, WholeColumn<'_, '_, '_>) -> CResult<Vec<Bound<'py, PyAny>>>,
    mut f: impl FnMut(usize, Bound<'py, PyAny>) -> CResult<T>,
) -> CResult<Vec<T>> {
    let (tags, mut parts) = col.tagged()?;
    let mut values = Vec::new();
    let mut i = 0;
    while parts.remaining() > 0 {
        let p = parts.next_field()?;
        let len = p.len();
        let v = part(i, p)?;
        if v.len() as u64 != len {
            return Err(Stop::Elsewhere);
        }
        values.push(v.into_iter());
        i += 1;
    }
    if tags.len() != n {
        return Err(Stop::Elsewhere);
    }
    let mut out = Vec::with_capacity(n);
    for t in tags {
        let t = t as usize;
        let v = values.get_mut(t).and_then(Iterator::next).ok_or(Stop::Elsewhere)?;
        out.push(f(t, v)?);
    }
    Ok(out)
}

/// Every value of one node, by its plan.
fn read<'py>(py: Python<'py>, col: WholeColumn<'_, '_, '_>, c: &Col<'py>) -> CResult<Vec<Bound<'py, PyAny>>> {
    let n = usize::try_from(col.len()).map_err(|_| Stop::Elsewhere)?;
    let out = match c {
        Col::Scalar(s) => column_py(py, col, *s)??,
        Col::Option(inner, wrap) => {
            let (present, inner_col) = col.options()?;
            let values = read(py, inner_col, inner)?;
            if present.len() != n || present.iter().filter(|&&p| p).count() != values.len() {
                return Err(Stop::Elsewhere);
            }
            let mut values = values.into_iter();
            let mut out = Vec::with_capacity(n);
            for p in present {
                out.push(if !p {
                    py.None().into_bound(py)
                } else {
                    let v = values.next().expect("counted above");
                    // Else Some(None) and Some(Some(None)) would be one value.
                    if *wrap && (v.is_none() || is_some(py, &v)?) {
                        refs(py)?.some.bind(py).call1((v,))?
                    } else {
                        v
                    }
                });
            }
            out
        }
        Col::Vec(e) => {
            let (lens, elems) = col.vecs()?;
            if lens.len() != n {
                return Err(Stop::Elsewhere);
            }
            let values = read(py, elems, e)?;
            lists(py, &lens, values)?
        }
        Col::Array(e) => {
            let (len, elems) = col.arrays()?;
            let values = read(py, elems, e)?;
            lists(py, &vec![len; n], values)?
        }
        Col::Tuple(ts) => {
            let mut fields = col.fields()?;
            let mut columns = Vec::with_capacity(ts.len());
            for t in ts {
                let v = read(py, fields.next_field()?, t)?;
                if v.len() != n {
                    return Err(Stop::Elsewhere);
                }
                columns.push(v.into_iter());
            }
            fields.finish()?;
            (0..n)
                .map(|_| PyTuple::new_bound(py, columns.iter_mut().map(|c| c.next().expect("n values"))).into_any())
                .collect()
        }
        Col::Struct { keys, fields: plans, optional, templates } => {
            let mut fields = col.fields()?;
            let mut columns = Vec::with_capacity(plans.len());
            for (p, &opt) in plans.iter().zip(optional) {
                let field = fields.next_field()?;
                let v = match p {
                    Col::Scalar(s) if !opt && FieldValues::is_native(*s) => FieldValues::native(field, *s)?,
                    _ => FieldValues::Objects(
                        if opt {
                            // Variant 0 is `absent` (unit), 1 `present` (the payload).
                            let absent = |k: u64| (0..k).map(|_| py.None().into_bound(py)).collect();
                            let part = |i, part: WholeColumn<'_, '_, '_>| match i {
                                0 => Ok(absent(part.len())),
                                _ => read(py, part, p),
                            };
                            tagged(field, n, part, |t, v| Ok((t == 1).then_some(v)))?
                        } else {
                            read(py, field, p)?.into_iter().map(Some).collect()
                        }
                        .into_iter(),
                    ),
                };
                if v.len() != n {
                    return Err(Stop::Elsewhere);
                }
                columns.push(v);
            }
            fields.finish()?;
            let mut out = Vec::with_capacity(n);
            let fresh = keys.len() <= FRESH_DICT_KEYS;
            // Which fields a record may lack (bit i: field i), when they fit a mask.
            let may_lack = if keys.len() <= 64 {
                optional.iter().enumerate().filter(|(_, &o)| o).fold(0u64, |m, (i, _)| m | 1 << i)
            } else {
                0
            };
            for _ in 0..n {
                let (d, exact) = if fresh {
                    (PyDict::new_bound(py), true)
                } else {
                    let mut absent = 0u64;
                    if may_lack != 0 {
                        for (i, c) in columns.iter().enumerate() {
                            if may_lack & (1 << i) != 0 && c.next_is_absent() {
                                absent |= 1 << i;
                            }
                        }
                    }
                    let (d, exact) = templates.dict(py, keys, absent)?;
                    // Past 64 keys the pattern is not known: the dict holds every key.
                    (d, exact && keys.len() <= 64)
                };
                for (k, c) in keys.iter().zip(columns.iter_mut()) {
                    match c.next(py) {
                        Some(v) => dict_set(&d, k, &v)?,
                        None if exact => {}
                        None => d.del_item(k)?,
                    }
                }
                out.push(d.into_any());
            }
            out
        }
        Col::Map(kp, vp) => {
            // Each side's Python values (or why not) come back as the one
            // item the core's reader collects of it.
            let (lens, keys, values) = col.maps(|k| Ok(vec![read(py, k, kp)]), |v| Ok(vec![read(py, v, vp)]))?;
            let one = |mut v: Vec<CResult<Vec<Bound<'py, PyAny>>>>| v.pop().ok_or(Stop::Elsewhere)?;
            let (keys, values) = (one(keys)?, one(values)?);
            let total = lens.iter().try_fold(0u64, |a, &l| a.checked_add(l));
            if lens.len() != n || total != Some(keys.len() as u64) || keys.len() != values.len() {
                return Err(Stop::Elsewhere);
            }
            let mut pairs = keys.into_iter().zip(values);
            let mut out = Vec::with_capacity(n);
            for len in lens {
                out.push(map_py(py, pairs.by_ref().take(len as usize), len as usize)?);
            }
            out
        }
        Col::Nones => (0..n).map(|_| py.None().into_bound(py)).collect(),
        Col::Enum(names, payloads) => {
            let variant = refs(py)?.variant.bind(py);
            tagged(
                col,
                n,
                |i, part| read(py, part, payloads.get(i).ok_or(Stop::Elsewhere)?),
                |t, v| Ok(variant.call1((&names[t], v))?),
            )?
        }
        Col::Any => tagged(
            col,
            n,
            |_, part| {
                // None in `any` (JSON's null): no column, and no more values
                // than the `any`'s own, which its type indices charged.
                if *part.metadata() == Metadata::UNIT {
                    return Ok((0..part.len()).map(|_| py.None().into_bound(py)).collect());
                }
                let p = plan(py, part.metadata()).ok_or(Stop::Elsewhere)?;
                read(py, part, &p)
            },
            |_, v| Ok(v),
        )?,
    };
    if out.len() != n {
        return Err(Stop::Elsewhere);
    }
    Ok(out)
}

/// A map's entries as a dict, or as a list of `(key, value)` pairs where
/// Python cannot hold them in one (keys it cannot hash, or that it holds
/// equal), as the core's values read (`to_py`).
fn map_py<'py>(
    py: Python<'py>,
    entries: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    len: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new_bound(py);
    let mut pairs = Vec::with_capacity(len);
    let mut dict_ok = true;
    for (k, v) in entries {
        if dict_ok && d.set_item(&k, &v).is_err() {
            dict_ok = false;
        }
        pairs.push(PyTuple::new_bound(py, [k, v]));
    }
    Ok(if dict_ok && d.len() == pairs.len() { d.into_any() } else { PyList::new_bound(py, pairs).into_any() })
}

/// Decodes `data` if it is a columnar message of a type read whole here
/// (see the module's comment); `None` sends it to the core. With
/// `typed_any`, a type with `any` goes to the core too.
pub(crate) fn records_from_columns<'py>(
    py: Python<'py>,
    data: &[u8],
    opts: &DecodeOptions,
    typed_any: bool,
) -> Option<PyResult<(Metadata, Bound<'py, PyAny>)>> {
    if data.len() < 2 || data[0] != V2_MARKER || data[1] != FLAG_COLUMNAR {
        return None;
    }
    let (ty, used) = opts.decode_metadata(Version::V2, &data[2..]).ok()?;
    if typed_any && meta_has_any(&ty) {
        return None;
    }
    let c = plan(py, &ty)?;
    let base = 2 + used;
    match xbf::read_columns(opts, &ty, &data[base..], base as u64, |root| Ok(read(py, root, &c))) {
        Ok(Ok(mut v)) if v.len() == 1 => v.pop().map(|v| Ok((ty, v))),
        Ok(Err(Stop::Py(e))) => Some(Err(e)),
        _ => None,
    }
}
