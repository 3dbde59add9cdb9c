//! Typed decoding of columnar messages straight from whole columns, the
//! way `column_reader` builds dicts: each field's values are read at once by
//! the core (`xbf::read_columns`), made into Python objects in one loop per
//! column, then put into the reader's records row by row. The writer's
//! metadata was checked against the reader's type once (the [`TPlan`]);
//! here no `xbf::Value` is made.
//!
//! Only plans of whole-column types take this path (ints, floats, strings,
//! bools, dates, timestamps, options, lists and records of them; places
//! the untyped column reader reads, `any` among them, converted value by
//! value; extra fields of any type, which are checked by the core and
//! dropped). Anything
//! else, any fault the core finds, and any value that does not fit the
//! reader's type (an absent option where the reader wants a value, a date
//! outside Python's years) stops here and sends the message to the core's
//! decoder and the value plan ([`super::from_value`]), so that errors, and
//! the paths they name, are the same whichever layout the writer chose.

use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyList, PyLong};
use xbf::wire::{FLAG_COLUMNAR, V2_MARKER};
use xbf::{DecodeOptions, Metadata, Version, WholeColumn};

use super::form::{Form, TErr};
use super::{build_record, convert, TPlan, TypedDecoder};
use crate::column_reader::{column_py, read_untyped, reads_whole, scalar_of, CResult, Scalar, Stop};
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
        TPlan::Int(p) | TPlan::IntToFloat(p) => matches!(scalar_of(*p), Some(Scalar::Unsigned | Scalar::Signed)),
        TPlan::Prim(p) => matches!(scalar_of(*p), Some(Scalar::Bool | Scalar::F32 | Scalar::F64 | Scalar::Str)),
        TPlan::Date | TPlan::DateTime => true,
        TPlan::Option { inner, .. } => readable(inner, generics),
        TPlan::Seq { elem, len: None, .. } => readable(elem, generics),
        // At least one field read: reading its column charges the records
        // to the decoded-memory budget before they are made.
        TPlan::Record { form, slots, missing_required: None } => {
            matches!(**form, Form::Record(_))
                && slots.iter().any(|s| s.target.is_some())
                && slots.iter().all(|s| !s.optional_key && (s.target.is_none() || readable(&s.plan, generics)))
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
        TPlan::Record { form, slots, .. } => {
            let Form::Record(r) = &**form else { return Err(Stop::Elsewhere) };
            let mut fields = col.fields()?;
            let mut columns: Vec<Option<std::vec::IntoIter<Bound<'py, PyAny>>>> =
                (0..r.fields.len()).map(|_| None).collect();
            for slot in slots {
                let field = fields.next_field()?;
                // An extra field is left unread: the core still checks its columns.
                let Some(target) = slot.target else { continue };
                let values = column(py, field, &slot.plan, generics)?;
                if values.len() != n {
                    return Err(Stop::Elsewhere);
                }
                columns[target] = Some(values.into_iter());
            }
            fields.finish()?;
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let vals = columns.iter_mut().map(|c| c.as_mut().and_then(Iterator::next)).collect();
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
