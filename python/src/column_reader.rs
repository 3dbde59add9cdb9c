//! Columnar messages of flat records to Python objects, a whole column at a
//! time: each field's values read at once by the core (`xbf::read_columns`),
//! made into Python objects in one loop per column, then put into records.
//! The core decoding them into an `xbf::Value` tree first (one allocation
//! per string and per record) took about twice as long as reading the rows.
//!
//! Only lists of records whose fields are scalars, or options of scalars,
//! take this path; anything else, and any fault (which the core reports
//! here with no Python-side error), goes to the core's general decoder, so
//! that errors stay the core's.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyList, PyString};
use xbf::wire::{FLAG_COLUMNAR, V2_MARKER};
use xbf::{DecodeOptions, Metadata, PrimitiveType as P, Version, WholeColumn};

use crate::decode::{date_py, struct_dict, timestamp_py};
use crate::raw::dict_set;

/// How one field's values become Python objects.
#[derive(Clone, Copy)]
enum Scalar {
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
}

fn scalar(ty: &Metadata) -> Option<Scalar> {
    let Metadata::Primitive(p) = ty else { return None };
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
        _ => return None,
    })
}

/// A field's plan: its scalar, and whether it is an option of it.
type FieldPlan = (Scalar, bool);

/// The plans of the fields of `vec<struct>` of scalars and options of
/// scalars; `None` for any other type.
fn record_fields(ty: &Metadata) -> Option<Vec<FieldPlan>> {
    let Metadata::Vec(e) = ty else { return None };
    let Metadata::Struct(s) = &**e else { return None };
    if e.is_zero_size() || s.is_empty() {
        return None;
    }
    s.fields()
        .map(|(_, t)| match t {
            Metadata::Option(inner) if !inner.is_zero_size() => Some((scalar(inner)?, true)),
            Metadata::Option(_) => None,
            t => Some((scalar(t)?, false)),
        })
        .collect()
}

/// The values of a scalar column as Python objects. Python errors are
/// returned inside the core's `Ok`, so that the core's faults and Python's
/// stay apart.
fn column_py<'py>(
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
    }))
}

/// The strings made last, by where their text lies: a dictionary-coded
/// column gives each repeat of a value the same span of the message, which
/// then becomes one shared (immutable) Python string rather than a new one
/// each time. Direct-mapped, so that a column of distinct strings costs one
/// probe a value.
struct StrCache<'py> {
    slots: Vec<Option<(*const u8, usize, Bound<'py, PyAny>)>>,
}

impl<'py> StrCache<'py> {
    const BITS: u32 = 8;

    fn new() -> Self {
        StrCache { slots: (0..1 << Self::BITS).map(|_| None).collect() }
    }

    #[inline]
    fn get(&mut self, py: Python<'py>, s: &str) -> Bound<'py, PyAny> {
        let (ptr, len) = (s.as_ptr(), s.len());
        let h = (ptr as usize ^ len).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - Self::BITS);
        match &self.slots[h] {
            Some((p, l, v)) if *p == ptr && *l == len => v.clone(),
            _ => {
                let v = PyString::new_bound(py, s).into_any();
                self.slots[h] = Some((ptr, len, v.clone()));
                v
            }
        }
    }
}

/// The values of one field, `n` of them (None where an option is absent).
fn field_py<'py>(
    py: Python<'py>,
    col: WholeColumn<'_, '_, '_>,
    (s, option): FieldPlan,
    n: usize,
) -> xbf::Result<PyResult<Vec<Bound<'py, PyAny>>>> {
    if !option {
        return column_py(py, col, s);
    }
    let (present, inner) = col.options()?;
    let values = match column_py(py, inner, s)? {
        Ok(v) => v,
        Err(e) => return Ok(Err(e)),
    };
    if present.len() != n || present.iter().filter(|&&p| p).count() != values.len() {
        return Err(xbf::Error::at(xbf::ErrorKind::InvalidColumn, 0, "option column of the wrong length"));
    }
    let mut values = values.into_iter();
    // An option's payload here is a scalar, never None or xbf.Some: no wrapping.
    Ok(Ok(present
        .into_iter()
        .map(|p| if p { values.next().expect("counted above") } else { py.None().into_bound(py) })
        .collect()))
}

/// Decodes `data` if it is a columnar message of flat records (see the
/// module's comment); `None` sends it to the core.
pub(crate) fn records_from_columns<'py>(
    py: Python<'py>,
    data: &[u8],
    opts: &DecodeOptions,
) -> Option<PyResult<(Metadata, Bound<'py, PyAny>)>> {
    if data.len() < 2 || data[0] != V2_MARKER || data[1] != FLAG_COLUMNAR {
        return None;
    }
    let (ty, used) = opts.decode_metadata(Version::V2, &data[2..]).ok()?;
    let plans = record_fields(&ty)?;
    let Metadata::Vec(e) = &ty else { return None };
    let Metadata::Struct(s) = &**e else { return None };
    let keys: Vec<Bound<'py, PyString>> = s.fields().map(|(n, _)| PyString::intern_bound(py, n)).collect();
    let template = std::cell::RefCell::new(None);
    let base = 2 + used;
    let read = xbf::read_columns(opts, &ty, &data[base..], base as u64, |root| {
        let (lens, elems) = root.vecs()?;
        let n = usize::try_from(elems.len()).map_err(|_| xbf::Error::at(xbf::ErrorKind::InvalidColumn, 0, "count"))?;
        if lens.len() != 1 || lens[0] != elems.len() {
            return Err(xbf::Error::at(xbf::ErrorKind::InvalidColumn, 0, "one list"));
        }
        let mut fields = elems.fields()?;
        let mut columns = Vec::with_capacity(plans.len());
        for &plan in &plans {
            match field_py(py, fields.next_field()?, plan, n)? {
                Ok(c) if c.len() == n => columns.push(c.into_iter()),
                Ok(_) => return Err(fields.short()),
                Err(e) => return Ok(Err(e)),
            }
        }
        fields.finish()?;
        let mut records = Vec::with_capacity(n);
        for _ in 0..n {
            let d = match struct_dict(py, &keys, &template) {
                Ok(d) => d,
                Err(e) => return Ok(Err(e)),
            };
            for (k, c) in keys.iter().zip(columns.iter_mut()) {
                let v = c.next().expect("n values a column");
                if let Err(e) = dict_set(&d, k, &v) {
                    return Ok(Err(e));
                }
            }
            records.push(d.into_any());
        }
        Ok(Ok(PyList::new_bound(py, records).into_any()))
    });
    match read {
        Ok(Ok(v)) => Some(Ok((ty, v))),
        Ok(Err(e)) => Some(Err(e)),
        Err(_) => None,
    }
}
