//! Python objects to the columnar layout: straight to core values (lists
//! of flat records go straight to the core's column builder instead, in
//! [`crate::records`]).

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyLong, PyString};
use xbf::wire::varint;
use xbf::Repeats;
use xbf::{DecodeOptions, EncodeOptions, EnumMetadata, Layout, Metadata, PrimitiveType as P, StructMetadata, Version};

use crate::encode::key_matches;
use crate::errors::encode_err;
use crate::infer::MAX_DEPTH;
use crate::plan::is_optional_key;
use crate::raw::dict_next;

// ------------------------------------------------- straight to core values

/// A type prepared for [`to_value`]: the record shapes that JSON-like data
/// has (structs of numbers, strings, options and optional keys, lists).
/// Anything else makes the caller go through rows.
pub(crate) enum VPlan<'py> {
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
pub(crate) fn vplan<'py>(py: Python<'py>, ty: &Metadata, open: usize) -> Option<VPlan<'py>> {
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

/// The bytes `x` takes as a varint.
#[inline]
pub(crate) fn uvarint_len(x: u64) -> usize {
    // `varint::len` in 64 bits: it runs once per value of a column when the
    // size of the rows is counted (1.3 M of flights-20k's 42 M instructions
    // in 128 bits, callgrind).
    // Most values of a column (string lengths, small ints) take one byte.
    if x < 0x80 {
        return 1;
    }
    ((64 - x.leading_zeros()) as usize).div_ceil(7)
}

/// The bytes `x` takes as a zigzag varint.
#[inline]
pub(crate) fn zigzag_len(x: i64) -> usize {
    uvarint_len(varint::zigzag64(x))
}

/// Python objects straight to a core value of the type `plan` was made
/// from, pushed onto `out`, adding to `rows` the bytes the value takes in the
/// rows layout. `Ok(false)` (and nothing pushed): an object this path does
/// not take as it is (a subclass, a missing key, a value of another type,
/// ...); the caller then encodes rows, whose encoder gives the error if there
/// is one. (Values go straight into their parent's vector: returned through
/// a `PyResult<Option<Value>>`, each was copied three times, which measured
/// as much as building it.)
pub(crate) fn to_value<'py>(
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
                *rows += zigzag_len(v);
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
                    *rows += zigzag_len(v);
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
pub(crate) fn columns_direct<'py>(
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
        .map_err(encode_err)?
        .encode_typed_message(ty, &value)
        .map_err(encode_err)?;
    let meta = EncodeOptions::v2().encode_metadata(ty).map_err(encode_err)?;
    Ok(Some((cols, 2 + meta.len() + rows)))
}

/// The same value in the columnar layout: the rows (checked against the
/// type by the native encoder) read back by the core, whose columnar
/// writer then lays them out.
pub(crate) fn rows_to_columns(ty: &Metadata, value_bytes: &[u8], zstd: Option<i32>) -> PyResult<Vec<u8>> {
    let value = DecodeOptions::default()
        .max_decoded_bytes(u64::MAX)
        .decode_value(Version::V2, ty, value_bytes)
        .map_err(|e| PyRuntimeError::new_err(format!("xbf: the native encoder wrote bytes the core rejects: {e}")))?;
    EncodeOptions::v2()
        .layout(Layout::Columnar)
        .compress_columns(zstd)
        .map_err(encode_err)?
        .encode_typed_message(ty, &value)
        .map_err(encode_err)
}

/// The core's `Layout::Auto` test (`xbf::worth_columns`), on the Python
/// objects, before anything is converted: lists are lists, dicts of str
/// keys records, other dicts maps.
pub(crate) fn worth_columns(obj: &Bound<'_, PyAny>) -> bool {
    fn repeats<'py>(obj: Bound<'py, PyAny>) -> Repeats<Bound<'py, PyAny>> {
        if let Ok(l) = obj.downcast::<PyList>() {
            Repeats::List(l.len(), l.iter().take(4).collect())
        } else if let Ok(d) = obj.downcast::<PyDict>() {
            if d.keys().iter().all(|k| k.is_instance_of::<PyString>()) {
                Repeats::Fields(d.values().iter().collect())
            } else {
                Repeats::Map(d.len())
            }
        } else {
            Repeats::Scalar
        }
    }
    xbf::worth_columns(obj.clone(), &repeats)
}
