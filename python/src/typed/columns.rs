//! Typed decoding of columnar messages straight from whole columns, the
//! way `column_reader` builds dicts: each field's values are read at once by
//! the core (`xbf::read_columns`), made into Python objects in one loop per
//! column, then put into the reader's records row by row. The writer's
//! metadata was checked against the reader's type once (the [`TPlan`]);
//! here no `xbf::Value` is made.
//!
//! Only plans of whole-column types take this path (ints up to 128 bits,
//! floats, strings, bytes, bools, dates, timestamps; options, lists, maps,
//! enums read by variant name, records (dataclasses, NamedTuples,
//! TypedDicts) and structs read as dicts, of them, their fields that may be
//! absent (`json.optional`) among them; places the untyped column reader
//! reads, `any` among them, converted value by value; extra fields of any
//! type, which are checked by the core and dropped). Anything
//! else, any fault the core finds, and any value that does not fit the
//! reader's type (an absent option where the reader wants a value, a date
//! outside Python's years) stops here and sends the message to the core's
//! decoder and the value plan ([`super::from_value`]), so that errors, and
//! the paths they name, are the same whichever layout the writer chose.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyLong};
use xbf::wire::{FLAG_COLUMNAR, V2_MARKER};
use xbf::{DecodeOptions, Metadata, Version, WholeColumn};

use super::form::{Form, TErr};
use super::{build_record, convert, TPlan, TypedDecoder};
use crate::column_reader::{column_py, read_untyped, reads_whole, scalar_of, tagged, CResult, Scalar, Stop};
use crate::decode::DErr;

/// A value that does not fit: the value plan decides, and names the path.
impl From<TErr> for Stop {
    fn from(e: TErr) -> Self {
        match e {
            TErr::Dec(DErr::Py(e)) => Stop::Py(e),
            _ => Stop::Elsewhere,
        }
    }
}

/// Whether every value of `plan` can be read from whole columns here
/// (`generics`: the metadata of its untyped places).
pub(super) fn readable(plan: &TPlan, generics: &[Metadata]) -> bool {
    match plan {
        TPlan::Generic(i, _) => generics.get(*i).is_some_and(reads_whole),
        TPlan::Int(p) => {
            matches!(scalar_of(*p), Some(Scalar::Unsigned | Scalar::Signed | Scalar::U128 | Scalar::I128))
        }
        TPlan::IntToFloat(p) => matches!(scalar_of(*p), Some(Scalar::Unsigned | Scalar::Signed)),
        TPlan::Prim(p) => {
            matches!(scalar_of(*p), Some(Scalar::Bool | Scalar::F32 | Scalar::F64 | Scalar::Str | Scalar::Bytes))
        }
        TPlan::Date | TPlan::DateTime => true,
        TPlan::Option { inner, .. } => readable(inner, generics),
        TPlan::Seq { elem, len: None, .. } => readable(elem, generics),
        TPlan::Map(k, v) => readable(k, generics) && readable(v, generics),
        TPlan::StructDict { values, .. } => values.iter().all(|v| readable(v, generics)),
        // A unit payload has no column: its variant's tags count it.
        TPlan::EnumByName { payloads, .. } => payloads.iter().all(|p| match p {
            TPlan::Generic(i, None) if generics.get(*i) == Some(&Metadata::UNIT) => true,
            p => readable(p, generics),
        }),
        // At least one field read: reading its column charges the records
        // to the decoded-memory budget before they are made.
        TPlan::Record { form, slots, missing_required: None } => {
            matches!(**form, Form::Record(_))
                && slots.iter().any(|s| s.target.is_some())
                && slots.iter().all(|s| s.target.is_none() || readable(&s.plan, generics))
        }
        _ => false,
    }
}

fn unzigzag(x: u64) -> i64 {
    (x >> 1) as i64 ^ -((x & 1) as i64)
}

/// The reader's values of one column (every value of one place of the type).
fn column<'py>(
    py: Python<'py>,
    col: WholeColumn<'_, '_, '_>,
    plan: &TPlan,
    generics: &[Metadata],
) -> CResult<Vec<Bound<'py, PyAny>>> {
    let n = usize::try_from(col.len()).map_err(|_| Stop::Elsewhere)?;
    let out = match plan {
        TPlan::Generic(i, form) => {
            let values = read_untyped(py, col, generics.get(*i).ok_or(Stop::Elsewhere)?)?;
            match form {
                None => values,
                Some(f) => values.iter().map(|v| convert(py, f, v)).collect::<Result<_, TErr>>()?,
            }
        }
        TPlan::Int(p) | TPlan::Prim(p) => scalar(py, col, *p)?,
        TPlan::IntToFloat(p) => {
            let signed = matches!(scalar_of(*p), Some(Scalar::Signed));
            col.ints()?
                .into_iter()
                .map(|x| PyFloat::new_bound(py, if signed { unzigzag(x) as f64 } else { x as f64 }).into_any())
                .collect()
        }
        TPlan::Date | TPlan::DateTime => {
            let p = if matches!(plan, TPlan::Date) { xbf::PrimitiveType::Date } else { xbf::PrimitiveType::Timestamp };
            let v = scalar(py, col, p)?;
            // Out of Python's years the untyped reader gives an int: not a date.
            if v.iter().any(|x| x.is_instance_of::<PyLong>()) {
                return Err(Stop::Elsewhere);
            }
            v
        }
        TPlan::Option { inner, none_not } => {
            let (present, inner_col) = col.options()?;
            if none_not.is_some() && present.iter().any(|p| !p) {
                return Err(Stop::Elsewhere);
            }
            let values = column(py, inner_col, inner, generics)?;
            if present.len() != n || present.iter().filter(|&&p| p).count() != values.len() {
                return Err(Stop::Elsewhere);
            }
            let mut values = values.into_iter();
            present
                .into_iter()
                .map(|p| if p { values.next().expect("counted above") } else { py.None().into_bound(py) })
                .collect()
        }
        TPlan::Seq { elem, ctor, .. } => {
            let (lens, elems) = col.vecs()?;
            let values = column(py, elems, elem, generics)?;
            let total = lens.iter().try_fold(0u64, |a, &l| a.checked_add(l));
            if lens.len() != n || total != Some(values.len() as u64) {
                return Err(Stop::Elsewhere);
            }
            let mut values = values.into_iter();
            let mut out = Vec::with_capacity(n);
            for len in lens {
                let list = PyList::new_bound(py, values.by_ref().take(len as usize)).into_any();
                out.push(match ctor {
                    None => list,
                    // Unhashable elements of a set: the value plan names them.
                    Some(c) => c.bind(py).call1((list,)).map_err(|_| Stop::Elsewhere)?,
                });
            }
            out
        }
        TPlan::Map(kp, vp) => {
            // Each side's values (or why not) come back as the one item the
            // core's reader collects of it.
            let (lens, keys, values) =
                col.maps(|k| Ok(vec![column(py, k, kp, generics)]), |v| Ok(vec![column(py, v, vp, generics)]))?;
            let one = |mut v: Vec<CResult<Vec<Bound<'py, PyAny>>>>| v.pop().ok_or(Stop::Elsewhere)?;
            let (keys, values) = (one(keys)?, one(values)?);
            let total = lens.iter().try_fold(0u64, |a, &l| a.checked_add(l));
            if lens.len() != n || total != Some(keys.len() as u64) || keys.len() != values.len() {
                return Err(Stop::Elsewhere);
            }
            let mut pairs = keys.into_iter().zip(values);
            let mut out = Vec::with_capacity(n);
            for len in lens {
                let d = PyDict::new_bound(py);
                for (k, v) in pairs.by_ref().take(len as usize) {
                    // Keys Python cannot hash: the value plan names them.
                    d.set_item(k, v).map_err(|_| Stop::Elsewhere)?;
                }
                out.push(d.into_any());
            }
            out
        }
        TPlan::StructDict { keys, values, optional, .. } => {
            let mut fields = col.fields()?;
            let mut columns = Vec::with_capacity(values.len());
            for (plan, &opt) in values.iter().zip(optional) {
                columns.push(field_column(py, fields.next_field()?, n, plan, opt, generics)?.into_iter());
            }
            fields.finish()?;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let d = PyDict::new_bound(py);
                for (k, c) in keys.iter().zip(columns.iter_mut()) {
                    if let Some(v) = c.next().ok_or(Stop::Elsewhere)? {
                        d.set_item(k.bind(py), v)?;
                    }
                }
                out.push(d.into_any());
            }
            out
        }
        TPlan::EnumByName { members, payloads, .. } => {
            let part = |i: usize, part: WholeColumn<'_, '_, '_>| match payloads.get(i) {
                Some(TPlan::Generic(g, None)) if generics.get(*g) == Some(&Metadata::UNIT) => {
                    Ok((0..part.len()).map(|_| py.None().into_bound(py)).collect())
                }
                Some(p) => column(py, part, p, generics),
                None => Err(Stop::Elsewhere),
            };
            // A variant the reader's enum lacks: the value plan names it.
            let member = |t: usize, _| match members.get(t) {
                Some(Some(m)) => Ok(m.bind(py).clone()),
                _ => Err(Stop::Elsewhere),
            };
            tagged(col, n, part, member)?
        }
        TPlan::Record { form, slots, .. } => {
            let Form::Record(r) = &**form else { return Err(Stop::Elsewhere) };
            let mut fields = col.fields()?;
            let mut columns: Vec<Option<std::vec::IntoIter<Option<Bound<'py, PyAny>>>>> =
                (0..r.fields.len()).map(|_| None).collect();
            for slot in slots {
                let field = fields.next_field()?;
                // An extra field is left unread: the core still checks its columns.
                let Some(target) = slot.target else { continue };
                let values = field_column(py, field, n, &slot.plan, slot.optional_key, generics)?;
                columns[target] = Some(values.into_iter());
            }
            fields.finish()?;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let vals = columns.iter_mut().map(|c| c.as_mut().and_then(Iterator::next).flatten()).collect();
                out.push(build_record(py, r, vals)?);
            }
            out
        }
        _ => return Err(Stop::Elsewhere),
    };
    if out.len() != n {
        return Err(Stop::Elsewhere);
    }
    Ok(out)
}

/// The values of a struct's field (`n` records), None where a field that
/// may be absent (`json.optional`, `optional_key`) is: its record then
/// takes the field's default (SPEC.md 23.2), or, for a required field, the
/// value plan names it.
fn field_column<'py>(
    py: Python<'py>,
    field: WholeColumn<'_, '_, '_>,
    n: usize,
    plan: &TPlan,
    optional_key: bool,
    generics: &[Metadata],
) -> CResult<Vec<Option<Bound<'py, PyAny>>>> {
    let values: Vec<Option<Bound<'py, PyAny>>> = if optional_key {
        // Variant 0 is `absent` (unit: no column), 1 `present`.
        let part = |i, part: WholeColumn<'_, '_, '_>| match i {
            0 => Ok((0..part.len()).map(|_| py.None().into_bound(py)).collect()),
            _ => column(py, part, plan, generics),
        };
        tagged(field, n, part, |t, v| Ok((t == 1).then_some(v)))?
    } else {
        column(py, field, plan, generics)?.into_iter().map(Some).collect()
    };
    if values.len() != n {
        return Err(Stop::Elsewhere);
    }
    Ok(values)
}

/// A scalar column as the untyped reader makes it (the plan checked the type).
fn scalar<'py>(
    py: Python<'py>,
    col: WholeColumn<'_, '_, '_>,
    p: xbf::PrimitiveType,
) -> CResult<Vec<Bound<'py, PyAny>>> {
    let s = scalar_of(p).ok_or(Stop::Elsewhere)?;
    Ok(column_py(py, col, s)??)
}

impl TypedDecoder {
    /// Decodes `data` if it is a columnar message whose plan reads from
    /// whole columns (see the module's comment); `None` sends it to the core.
    pub(super) fn read_columns<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        opts: &DecodeOptions,
    ) -> Option<PyResult<Bound<'py, PyAny>>> {
        if data.len() < 2 || data[0] != V2_MARKER || data[1] != FLAG_COLUMNAR {
            return None;
        }
        let (ty, used) = opts.decode_metadata(Version::V2, &data[2..]).ok()?;
        let compiled = self.compiled(super::PlanFor::Columns, &data[2..2 + used], &ty, true);
        if !compiled.columns {
            return None;
        }
        let plan = compiled.plan.as_ref()?;
        let base = 2 + used;
        match xbf::read_columns(opts, &ty, &data[base..], base as u64, |root| {
            Ok(column(py, root, plan, &compiled.generics))
        }) {
            Ok(Ok(mut v)) if v.len() == 1 => v.pop().map(Ok),
            Ok(Err(Stop::Py(e))) => Some(Err(e)),
            _ => None,
        }
    }
}
