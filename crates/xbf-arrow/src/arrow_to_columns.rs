//! Arrow arrays → the typed columns of an XBF block ([`xbf::BlockColumns`]):
//! the mirror of `columns_to_arrow`, for writing. Each array is cast to the
//! Arrow type its XBF type maps to (as `from_arrow` casts), then its buffers
//! go into the column nodes whole: offsets become lengths, string data is
//! copied once, validity becomes an option's presence column. No `Value` is
//! made except for `any` columns, whose slots are XBF messages.
//!
//! What goes in is what `from_arrow::values` reads slot by slot, so a file
//! written from these columns is the file written from those values, byte
//! for byte: a null slot where the XBF type is not an option (under a null
//! struct, say) is the type's zero value for strings, bytes, vecs and maps,
//! and the buffer's value otherwise.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::NullBuffer;
use arrow_schema::ArrowError;
use xbf::{AnyValue, ColumnNode, Metadata, PrimitiveType as P, Value};

use crate::from_arrow::{check_timestamps, naive, without_zones};
use crate::schema::{data_type, unsupported, xbf_err};

/// `arr` cast to the Arrow type `ty` maps to (time zones dropped first: they
/// only label instants, which Arrow keeps in UTC).
pub(crate) fn cast_for(ty: &Metadata, arr: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let (want, _) = data_type(ty)?;
    check_timestamps(arr)?;
    let (want, arr) = (naive(&want), without_zones(arr)?);
    if arr.data_type() == &want {
        Ok(arr)
    } else {
        arrow_cast::cast(&arr, &want)
    }
}

/// `arr` with only the slots where `keep` is set.
fn only(arr: &dyn Array, keep: &NullBuffer) -> Result<ArrayRef, ArrowError> {
    arrow_select::filter::filter(arr, &BooleanArray::new(keep.inner().clone(), None))
}

/// Pushes every slot of `arr`, already [cast](cast_for) for `ty`, as a
/// value of `ty` into `node`.
pub(crate) fn push(node: &mut ColumnNode, ty: &Metadata, arr: &ArrayRef) -> Result<(), ArrowError> {
    let n = arr.len();
    match ty {
        Metadata::Option(inner) => match arr.logical_nulls().filter(|nulls| nulls.null_count() > 0) {
            None => push(node.extend_options(&vec![true; n]).map_err(xbf_err)?, inner, arr),
            Some(nulls) => {
                let present: Vec<bool> = nulls.iter().collect();
                let inner_node = node.extend_options(&present).map_err(xbf_err)?;
                push(inner_node, inner, &only(arr, &nulls)?)
            }
        },
        Metadata::Primitive(p) => primitive(node, *p, arr),
        Metadata::Vec(el) => {
            let l = arr.as_list::<i32>();
            let (lens, items) = lists(l.value_offsets(), l.nulls());
            let elem = node.extend_lens(lens).map_err(xbf_err)?;
            push(elem, el, &items.pick(l.values())?)
        }
        Metadata::Array(a) => {
            let l = arr.as_fixed_size_list();
            let k = a.len as usize;
            if n == 0 {
                return Ok(());
            }
            let elem = node.push_len(k).map_err(xbf_err)?;
            push(elem, &a.element, &l.values().slice(l.offset() * k, n * k))
        }
        Metadata::Struct(s) => {
            let sa = arr.as_struct();
            for (i, ((_, fty), col)) in s.fields().zip(sa.columns()).enumerate() {
                push(node.field(i).map_err(xbf_err)?, fty, col)?;
            }
            Ok(())
        }
        Metadata::Tuple(types) => {
            let sa = arr.as_struct();
            for (i, (t, col)) in types.iter().zip(sa.columns()).enumerate() {
                push(node.field(i).map_err(xbf_err)?, t, col)?;
            }
            Ok(())
        }
        Metadata::Map(m) => {
            let ma = arr.as_map();
            let (lens, entries) = lists(ma.value_offsets(), ma.nulls());
            let (keys, vals) = node.extend_map_lens(lens).map_err(xbf_err)?;
            push(keys, &m.key, &entries.pick(ma.keys())?)?;
            push(vals, &m.value, &entries.pick(ma.values())?)
        }
        Metadata::Enum(e) if crate::schema::unit_only(e) => {
            let d = arr.as_dictionary::<Int32Type>();
            let names = d.values().as_string::<i32>();
            // Each name of the dictionary as its variant's index, once.
            let index: Vec<Option<usize>> =
                names.iter().map(|name| name.and_then(|name| e.variants().position(|(v, _)| v == name))).collect();
            let keys = d.keys();
            let tags = (0..n)
                .map(|i| {
                    if !keys.is_valid(i) {
                        return if e.variant_at(0).is_some() {
                            Ok(0)
                        } else {
                            Err(unsupported("a value of an enum without variants"))
                        };
                    }
                    let k = keys.value(i) as usize;
                    index.get(k).copied().flatten().ok_or_else(|| {
                        let name = if k < names.len() && names.is_valid(k) { names.value(k) } else { "" };
                        xbf_err(xbf::Error::new(
                            xbf::ErrorKind::TypeMismatch,
                            format!("enum {} has no variant named {name:?}", e.name()),
                        ))
                    })
                })
                .collect::<Result<Vec<usize>, _>>()?;
            node.extend_variants(&tags).map_err(xbf_err)?;
            Ok(())
        }
        Metadata::Enum(e) => {
            let u = arr.as_any().downcast_ref::<UnionArray>().ok_or_else(|| unsupported(arr.data_type()))?;
            let k = e.variants().count();
            let mut tags = Vec::with_capacity(n);
            let mut at: Vec<Vec<u32>> = vec![Vec::new(); k];
            for i in 0..n {
                let id = u.type_id(i) as usize;
                if id >= k {
                    return Err(unsupported("a union type id out of range"));
                }
                tags.push(id);
                at[id].push(u.value_offset(i) as u32);
            }
            let nodes = node.extend_variants(&tags).map_err(xbf_err)?;
            for ((v, (_, pty)), (node, rows)) in e.variants().enumerate().zip(nodes.into_iter().zip(at)) {
                let payloads = arrow_select::take::take(u.child(v as i8), &UInt32Array::from(rows), None)?;
                push(node, pty, &payloads)?;
            }
            Ok(())
        }
        Metadata::Any => {
            let b = arr.as_binary::<i32>();
            for i in 0..n {
                let v = if !b.is_valid(i) {
                    Value::any(Value::Unit)
                } else {
                    match xbf::decode_message(b.value(i)).map_err(xbf_err)? {
                        v @ Value::Any(_) => v,
                        // A message of another type: the value, with its type.
                        v => AnyValue::new(v.metadata(), v).map(|a| Value::Any(Box::new(a))).map_err(xbf_err)?,
                    }
                };
                node.push_value(&v).map_err(xbf_err)?;
            }
            Ok(())
        }
        other => Err(unsupported(other)),
    }
}

/// Which items of a list (or entries of a map) child hold values: those
/// of the slots, or only of the valid slots where a null slot has items.
enum Items {
    Range(usize, usize),
    Mask(usize, usize, BooleanArray),
}

impl Items {
    fn pick(&self, child: &ArrayRef) -> Result<ArrayRef, ArrowError> {
        match self {
            Items::Range(a, b) => Ok(child.slice(*a, b - a)),
            Items::Mask(a, b, mask) => arrow_select::filter::filter(&child.slice(*a, b - a), mask),
        }
    }
}

/// The lengths of the slots of a list or map array (0 for a null slot, as
/// the records read from it have) and the items they hold.
fn lists(offs: &[i32], nulls: Option<&NullBuffer>) -> (Vec<usize>, Items) {
    let n = offs.len() - 1;
    let (a, b) = (offs[0] as usize, offs[n] as usize);
    let valid = |i: usize| nulls.is_none_or(|nl| nl.is_valid(i));
    let lens: Vec<usize> = (0..n).map(|i| if valid(i) { (offs[i + 1] - offs[i]) as usize } else { 0 }).collect();
    if (0..n).all(|i| valid(i) || offs[i + 1] == offs[i]) {
        return (lens, Items::Range(a, b));
    }
    let mut mask = Vec::with_capacity(b - a);
    for i in 0..n {
        mask.extend(std::iter::repeat_n(valid(i), (offs[i + 1] - offs[i]) as usize));
    }
    (lens, Items::Mask(a, b, BooleanArray::from(mask)))
}

fn ints<T: ArrowPrimitiveType>(arr: &ArrayRef) -> &[T::Native] {
    arr.as_primitive::<T>().values()
}

fn primitive(node: &mut ColumnNode, p: P, arr: &ArrayRef) -> Result<(), ArrowError> {
    let unsigned = |node: &mut ColumnNode, xs: Vec<u64>| node.extend_u64(&xs);
    let signed = |node: &mut ColumnNode, xs: Vec<i64>| node.extend_i64(&xs);
    match p {
        P::Unit => Ok(()),
        P::Bool => node.extend_bool(&arr.as_boolean().values().iter().collect::<Vec<bool>>()),
        P::U8 => unsigned(node, ints::<UInt8Type>(arr).iter().map(|&x| x.into()).collect()),
        P::U16 | P::FixedU16 => unsigned(node, ints::<UInt16Type>(arr).iter().map(|&x| x.into()).collect()),
        P::U32 | P::FixedU32 => unsigned(node, ints::<UInt32Type>(arr).iter().map(|&x| x.into()).collect()),
        P::U64 | P::FixedU64 => node.extend_u64(ints::<UInt64Type>(arr)),
        P::I8 => signed(node, ints::<Int8Type>(arr).iter().map(|&x| x.into()).collect()),
        P::I16 | P::FixedI16 => signed(node, ints::<Int16Type>(arr).iter().map(|&x| x.into()).collect()),
        P::I32 | P::FixedI32 => signed(node, ints::<Int32Type>(arr).iter().map(|&x| x.into()).collect()),
        P::I64 | P::FixedI64 => node.extend_i64(ints::<Int64Type>(arr)),
        P::Date => signed(node, ints::<Date32Type>(arr).iter().map(|&x| x.into()).collect()),
        P::Timestamp => node.extend_i64(ints::<TimestampMicrosecondType>(arr)),
        P::F32 => node.extend_f32(ints::<Float32Type>(arr)),
        P::F64 => node.extend_f64(ints::<Float64Type>(arr)),
        P::U128 | P::I128 | P::FixedU128 | P::FixedI128 => {
            let b = arr.as_fixed_size_binary();
            (0..b.len()).try_for_each(|i| {
                let bytes: [u8; 16] = b.value(i).try_into().expect("16 bytes");
                if matches!(p, P::U128 | P::FixedU128) {
                    node.push_u128(u128::from_le_bytes(bytes))
                } else {
                    node.push_i128(i128::from_le_bytes(bytes))
                }
            })
        }
        P::U256 | P::I256 => {
            let b = arr.as_fixed_size_binary();
            (0..b.len()).try_for_each(|i| node.extend_256(b.value(i)))
        }
        P::String => {
            let s = arr.as_string::<i32>();
            let (joined, ends) = joined(s.value_offsets(), s.value_data(), s.nulls());
            let joined = std::str::from_utf8(&joined).map_err(|e| ArrowError::ExternalError(Box::new(e)))?;
            node.extend_str(joined, &ends)
        }
        P::Bytes => {
            let b = arr.as_binary::<i32>();
            let (joined, ends) = joined(b.value_offsets(), b.value_data(), b.nulls());
            node.extend_bytes(&joined, &ends)
        }
    }
    .map_err(xbf_err)
}

/// The slots of a string or binary array one after the other (null slots
/// empty) and where each ends: the data itself where no null slot has bytes.
fn joined<'a>(offs: &[i32], data: &'a [u8], nulls: Option<&NullBuffer>) -> (std::borrow::Cow<'a, [u8]>, Vec<usize>) {
    let n = offs.len() - 1;
    let base = offs[0] as usize;
    let dirty = nulls.is_some_and(|nulls| nulls.iter().enumerate().any(|(i, v)| !v && offs[i + 1] > offs[i]));
    if !dirty {
        let ends = offs[1..].iter().map(|&o| o as usize - base).collect();
        return (std::borrow::Cow::Borrowed(&data[base..offs[n] as usize]), ends);
    }
    let nulls = nulls.expect("dirty only with nulls");
    let mut out = Vec::with_capacity(offs[n] as usize - base);
    let mut ends = Vec::with_capacity(n);
    for i in 0..n {
        if nulls.is_valid(i) {
            out.extend_from_slice(&data[offs[i] as usize..offs[i + 1] as usize]);
        }
        ends.push(out.len());
    }
    (std::borrow::Cow::Owned(out), ends)
}

/// Adds to `sizes` (one a slot of `arr`, already cast for `ty`) each slot's
/// size as [`xbf::approx_record_size`] estimates its value, so that blocks
/// of columns close where blocks of records would.
pub(crate) fn add_sizes(ty: &Metadata, arr: &ArrayRef, sizes: &mut [usize]) -> Result<(), ArrowError> {
    let n = arr.len();
    let spans = |offs: &[i32], valid: &dyn Fn(usize) -> bool, per: &[usize], sizes: &mut [usize]| {
        let base = offs[0] as usize;
        let mut sum = vec![0usize; per.len() + 1];
        for (i, s) in per.iter().enumerate() {
            sum[i + 1] = sum[i] + s;
        }
        for (i, out) in sizes.iter_mut().enumerate() {
            let (a, b) = (offs[i] as usize - base, offs[i + 1] as usize - base);
            *out += 8 + if valid(i) { sum[b] - sum[a] } else { 0 };
        }
    };
    match ty {
        Metadata::Option(inner) => {
            let mut inner_sizes = vec![0; n];
            add_sizes(inner, arr, &mut inner_sizes)?;
            let nulls = arr.logical_nulls();
            for (i, (out, s)) in sizes.iter_mut().zip(inner_sizes).enumerate() {
                *out += 1 + if nulls.as_ref().is_some_and(|nl| nl.is_null(i)) { 0 } else { s };
            }
        }
        Metadata::Primitive(P::String) => {
            let s = arr.as_string::<i32>();
            let offs = s.value_offsets();
            for (i, out) in sizes.iter_mut().enumerate() {
                *out += 8 + if s.is_valid(i) { (offs[i + 1] - offs[i]) as usize } else { 0 };
            }
        }
        Metadata::Primitive(P::Bytes) => {
            let b = arr.as_binary::<i32>();
            let offs = b.value_offsets();
            for (i, out) in sizes.iter_mut().enumerate() {
                *out += 8 + if b.is_valid(i) { (offs[i + 1] - offs[i]) as usize } else { 0 };
            }
        }
        Metadata::Primitive(_) => sizes.iter_mut().for_each(|s| *s += 8),
        Metadata::Vec(el) => {
            let l = arr.as_list::<i32>();
            let offs = l.value_offsets();
            let (a, b) = (offs[0] as usize, offs[n] as usize);
            let mut per = vec![0; b - a];
            add_sizes(el, &l.values().slice(a, b - a), &mut per)?;
            spans(offs, &|i| l.is_valid(i), &per, sizes);
        }
        Metadata::Array(at) => {
            let l = arr.as_fixed_size_list();
            let k = at.len as usize;
            let mut per = vec![0; n * k];
            add_sizes(&at.element, &l.values().slice(l.offset() * k, n * k), &mut per)?;
            for (i, out) in sizes.iter_mut().enumerate() {
                *out += 8 + per[i * k..(i + 1) * k].iter().sum::<usize>();
            }
        }
        Metadata::Struct(s) => {
            for ((_, fty), col) in s.fields().zip(arr.as_struct().columns()) {
                add_sizes(fty, col, sizes)?;
            }
        }
        Metadata::Tuple(types) => {
            for (t, col) in types.iter().zip(arr.as_struct().columns()) {
                add_sizes(t, col, sizes)?;
            }
        }
        Metadata::Map(m) => {
            let ma = arr.as_map();
            let offs = ma.value_offsets();
            let (a, b) = (offs[0] as usize, offs[n] as usize);
            let mut per = vec![0; b - a];
            add_sizes(&m.key, &ma.keys().slice(a, b - a), &mut per)?;
            add_sizes(&m.value, &ma.values().slice(a, b - a), &mut per)?;
            spans(offs, &|i| ma.is_valid(i), &per, sizes);
        }
        Metadata::Enum(e) if crate::schema::unit_only(e) => sizes.iter_mut().for_each(|s| *s += 1 + 8),
        Metadata::Enum(e) => {
            let u = arr.as_any().downcast_ref::<UnionArray>().ok_or_else(|| unsupported(arr.data_type()))?;
            let mut per = Vec::new();
            for (v, (_, pty)) in e.variants().enumerate() {
                let child = u.child(v as i8);
                let mut s = vec![0; child.len()];
                add_sizes(pty, child, &mut s)?;
                per.push(s);
            }
            for (i, out) in sizes.iter_mut().enumerate() {
                let payload = per.get(u.type_id(i) as usize).and_then(|s| s.get(u.value_offset(i))).copied();
                *out += 1 + payload.unwrap_or(8);
            }
        }
        Metadata::Any => {
            let b = arr.as_binary::<i32>();
            for (i, out) in sizes.iter_mut().enumerate() {
                let v = if b.is_valid(i) { xbf::decode_message(b.value(i)).ok() } else { None };
                *out += match v {
                    Some(v @ Value::Any(_)) => xbf::approx_record_size(&v),
                    Some(v) => 1 + xbf::approx_record_size(&v),
                    None => 1 + 8,
                };
            }
        }
        other => return Err(unsupported(other)),
    }
    Ok(())
}
