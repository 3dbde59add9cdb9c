//! Python objects to the columnar layout: straight to core values, or, for
//! lists of flat records, straight to the core's column builder.

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyLong, PyString};
use xbf::infer::{Ints, Slot, OBJECT_STRUCT};
use xbf::wire::varint;
use xbf::Repeats;
use xbf::{DecodeOptions, EncodeOptions, EnumMetadata, Layout, Metadata, PrimitiveType as P, StructMetadata, Version};

use crate::encode::key_matches;
use crate::errors::encode_err;
use crate::infer::{Obj, Shape, MAX_DEPTH};
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
    varint::len(u128::from(x))
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

// ------------------------------------------------ lists of flat records

/// The kind of each value of a key of the records, as it was read: the
/// type is known only once every record was read (an int column may turn
/// out an option, or `any`).
pub(crate) const K_NULL: u8 = 0;
pub(crate) const K_BOOL: u8 = 1;
pub(crate) const K_INT: u8 = 2;
/// An int above `i64::MAX` (kept in `ints` as its bits).
pub(crate) const K_UINT: u8 = 3;
pub(crate) const K_FLOAT: u8 = 4;
pub(crate) const K_STR: u8 = 5;

/// The values of one key of the records: each one's kind, and the values
/// of each kind in order.
#[derive(Default)]
pub(crate) struct RawColumn {
    pub(crate) kinds: Vec<u8>,
    pub(crate) seen: [bool; 6],
    pub(crate) bools: Vec<bool>,
    /// Ints as the bits of an i64 (those above `i64::MAX` as their u64 bits).
    pub(crate) ints: Vec<u64>,
    pub(crate) int_bits: Option<Ints>,
    pub(crate) floats: Vec<f64>,
    /// The strings one after the other, and where each ends.
    pub(crate) text: String,
    pub(crate) ends: Vec<usize>,
}

impl RawColumn {
    /// The shape inference gives the key: the kinds joined as `Shape::absorb`
    /// joins them one value at a time (their join does not depend on order).
    pub(crate) fn shape<'py>(&self) -> Shape<'py> {
        let mut s = Shape::Never;
        let kinds = [
            self.seen[K_NULL as usize].then_some(Shape::Null),
            self.seen[K_BOOL as usize].then_some(Shape::Bool),
            self.int_bits.map(Shape::Int),
            self.seen[K_FLOAT as usize].then_some(Shape::Float),
            self.seen[K_STR as usize].then_some(Shape::Str),
        ];
        for k in kinds.into_iter().flatten() {
            s = s.join(k);
        }
        s
    }
}

/// The columnar message of a list of flat records (exact dicts of the same
/// str keys in the same order, whose values are None, bool, float, str or
/// ints of at most 64 bits, all of exact types), read in one pass that both
/// infers the type and gathers the columns, then written through the core's
/// column builder; also the type and the size of the rows message. `None`
/// for anything else (the caller then takes the general path, which gives
/// the same bytes, or the error).
pub(crate) fn records_direct(
    obj: &Bound<'_, PyAny>,
    zstd: Option<i32>,
) -> PyResult<Option<(Vec<u8>, usize, Metadata)>> {
    let Ok(list) = obj.downcast_exact::<PyList>() else { return Ok(None) };
    let n = list.len();
    let Some(first) = list.iter().next() else { return Ok(None) };
    let Ok(first) = first.downcast_exact::<PyDict>() else { return Ok(None) };
    let mut keys = Vec::with_capacity(first.len());
    let mut names = Vec::with_capacity(first.len());
    let mut pos = 0;
    while let Some((k, _)) = dict_next(first, &mut pos) {
        let Ok(k) = k.downcast_into_exact::<PyString>() else { return Ok(None) };
        let Ok(name) = k.to_str() else { return Ok(None) };
        names.push(name.to_owned());
        keys.push(k);
    }
    if keys.is_empty() {
        return Ok(None);
    }
    let mut cols: Vec<RawColumn> =
        keys.iter().map(|_| RawColumn { kinds: Vec::with_capacity(n), ..Default::default() }).collect();
    for item in list.iter() {
        let Ok(d) = item.downcast_exact::<PyDict>() else { return Ok(None) };
        if d.len() != keys.len() {
            return Ok(None);
        }
        let mut pos = 0;
        for ((key, name), col) in keys.iter().zip(&names).zip(cols.iter_mut()) {
            let Some((k, v)) = dict_next(d, &mut pos) else { return Ok(None) };
            let same =
                k.is(key) || k.downcast_exact::<PyString>().ok().and_then(|k| k.to_str().ok()) == Some(name.as_str());
            if !same {
                return Ok(None);
            }
            let kind = if let Ok(s) = v.downcast_exact::<PyString>() {
                let Ok(s) = s.to_str() else { return Ok(None) };
                if col.ends.capacity() == 0 {
                    // Room for the rest of the list at once, guessed from
                    // the first string's length.
                    col.ends.reserve(n);
                    col.text.reserve(n.saturating_mul(s.len() + 4).min(1 << 24));
                }
                col.text.push_str(s);
                col.ends.push(col.text.len());
                K_STR
            } else if let Ok(f) = v.downcast_exact::<PyFloat>() {
                if col.floats.capacity() == 0 {
                    col.floats.reserve(n);
                }
                col.floats.push(f.value());
                K_FLOAT
            } else if v.is_none() {
                K_NULL
            } else if let Ok(b) = v.downcast_exact::<PyBool>() {
                col.bools.push(b.is_true());
                K_BOOL
            } else if v.is_exact_instance_of::<PyLong>() {
                let (kind, bits, x) = if let Ok(x) = v.extract::<i64>() {
                    (K_INT, Ints::of_i64(x), x as u64)
                } else if let Ok(x) = v.extract::<u64>() {
                    (K_UINT, Ints { ubits: 64, sbits: 0 }, x)
                } else {
                    return Ok(None);
                };
                col.int_bits = Some(col.int_bits.map_or(bits, |a| a.join(bits)));
                if col.ints.capacity() == 0 {
                    col.ints.reserve(n);
                }
                col.ints.push(x);
                kind
            } else {
                return Ok(None);
            };
            col.seen[kind as usize] = true;
            col.kinds.push(kind);
        }
    }
    // The type inference gives (`Shape::of`), from the kinds seen.
    // Every record has every key, in one order: one object, counted n times.
    let mut o = Obj::new(OBJECT_STRUCT);
    o.objects.begin();
    for ((key, name), col) in keys.iter().zip(names).zip(&cols) {
        o.objects.key(&name, || Slot { key: key.clone(), shape: col.shape() });
    }
    for _ in 1..n {
        o.objects.repeat();
    }
    let shape = Shape::Vec(Box::new(Shape::Obj(Box::new(o))));
    let ty = shape.metadata().map_err(encode_err)?;
    let Metadata::Vec(elem) = &ty else { return Ok(None) };
    let Metadata::Struct(s) = &**elem else { return Ok(None) };
    if elem.is_zero_size() {
        return Ok(None);
    }
    let mut columns = xbf::Columns::new(&ty);
    let records = columns.root().push_len(n).map_err(encode_err)?;
    // The rows message: the length of the list, then each record's fields.
    let mut rows = uvarint_len(n as u64);
    for (i, ((_, fty), col)) in s.fields().zip(&cols).enumerate() {
        let node = records.field(i).map_err(encode_err)?;
        let Some(r) = fill(node, fty, col).map_err(encode_err)? else { return Ok(None) };
        rows += r;
    }
    let cols =
        EncodeOptions::v2().compress_columns(zstd).map_err(encode_err)?.encode_columns(columns).map_err(encode_err)?;
    let meta = EncodeOptions::v2().encode_metadata(&ty).map_err(encode_err)?;
    Ok(Some((cols, 2 + meta.len() + rows, ty)))
}

#[inline]
pub(crate) fn zigzag_len(x: i64) -> usize {
    uvarint_len(varint::zigzag64(x))
}

/// Pushes the values of one key into its column node of type `ty`, as
/// `to_value` would have converted them; the bytes they take in the rows
/// layout, or `None` for a type that path does not take.
pub(crate) fn fill(node: &mut xbf::ColumnNode, ty: &Metadata, col: &RawColumn) -> xbf::Result<Option<usize>> {
    let prim = |t: &Metadata| match t {
        Metadata::Primitive(p @ (P::Unit | P::Bool | P::F64 | P::String | P::U64 | P::I64)) => Some(*p),
        _ => None,
    };
    // The values of a primitive type (inference gave it to every value but
    // None), all at once: what they take in rows.
    let scalars = |node: &mut xbf::ColumnNode, p: P| -> xbf::Result<usize> {
        Ok(match p {
            P::Unit => 0,
            P::Bool => {
                node.extend_bool(&col.bools)?;
                col.bools.len()
            }
            P::F64 => {
                node.extend_f64(&col.floats)?;
                8 * col.floats.len()
            }
            P::String => {
                node.extend_str(&col.text, &col.ends)?;
                let mut start = 0;
                col.ends.iter().fold(0, |sum, &end| {
                    let len = end - start;
                    start = end;
                    sum + uvarint_len(len as u64) + len
                })
            }
            P::U64 => {
                node.extend_u64(&col.ints)?;
                col.ints.iter().map(|&x| uvarint_len(x)).sum()
            }
            P::I64 => {
                let xs: Vec<i64> = col.ints.iter().map(|&x| x as i64).collect();
                node.extend_i64(&xs)?;
                xs.iter().map(|&x| zigzag_len(x)).sum()
            }
            _ => unreachable!("a primitive of flat records"),
        })
    };
    match ty {
        Metadata::Any => {
            // Each scalar as a value of `any`: its type (as `to_value`
            // chooses: ints from 0 up as u64), the types in first-seen
            // order; then the values of each type at once.
            const TYPES: [P; 6] = [P::Unit, P::Bool, P::U64, P::I64, P::F64, P::String];
            let (mut order, mut slot_at) = (Vec::new(), [usize::MAX; 6]);
            let (mut u64s, mut i64s) = (Vec::new(), Vec::new());
            let mut ints = col.ints.iter();
            let tags: Vec<usize> = col
                .kinds
                .iter()
                .map(|&kind| {
                    let slot = match kind {
                        K_NULL => 0,
                        K_BOOL => 1,
                        K_INT | K_UINT => {
                            let x = *ints.next().expect("an int for each int kind");
                            if kind == K_UINT || (x as i64) >= 0 {
                                u64s.push(x);
                                2
                            } else {
                                i64s.push(x as i64);
                                3
                            }
                        }
                        K_FLOAT => 4,
                        _ => 5,
                    };
                    if slot_at[slot] == usize::MAX {
                        slot_at[slot] = order.len();
                        order.push(slot);
                    }
                    slot_at[slot]
                })
                .collect();
            let types: Vec<Metadata> = order.iter().map(|&slot| TYPES[slot].into()).collect();
            let nodes = node.extend_any(&types, &tags)?;
            // A byte for each value's type, then the values.
            let mut rows = tags.len();
            for (node, &slot) in nodes.into_iter().zip(&order) {
                rows += match slot {
                    2 => {
                        node.extend_u64(&u64s)?;
                        u64s.iter().map(|&x| uvarint_len(x)).sum()
                    }
                    3 => {
                        node.extend_i64(&i64s)?;
                        i64s.iter().map(|&x| zigzag_len(x)).sum()
                    }
                    _ => scalars(node, TYPES[slot])?,
                };
            }
            Ok(Some(rows))
        }
        Metadata::Option(inner) => {
            let Some(p) = prim(inner) else { return Ok(None) };
            let present: Vec<bool> = col.kinds.iter().map(|&k| k != K_NULL).collect();
            let inner = node.extend_options(&present)?;
            Ok(Some(present.len() + scalars(inner, p)?))
        }
        t => {
            let Some(p) = prim(t) else { return Ok(None) };
            Ok(Some(scalars(node, p)?))
        }
    }
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
