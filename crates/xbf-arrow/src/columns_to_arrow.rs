//! A block's typed column buffers ([`xbf::ColumnBatch`]) → Arrow arrays:
//! the buffers become the arrays' buffers without a copy where their layout
//! already is Arrow's (integers, floats, dates, timestamps, string bytes);
//! offsets are narrowed to `i32` and options' values spread to their slots.
//! Nodes the core reads value by value (maps, `any`), and options of
//! payload-carrying enums under a nullable parent, go through the `Value`
//! path of [`crate::to_arrow`], which gives the same arrays.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Fields, SchemaRef};
use xbf::{ColumnBatch, ColumnData as D, Metadata, PrimitiveType as P, Value};

use crate::schema::data_type;
use crate::to_arrow::array as value_array;

/// A block's columns as one record batch of `schema` (the
/// [`crate::arrow_schema`] of `batch.ty`).
pub(crate) fn columns_to_batch(schema: SchemaRef, batch: ColumnBatch) -> Result<RecordBatch, ArrowError> {
    let rows = batch.records as usize;
    let columns = match (&batch.ty, batch.root) {
        (Metadata::Struct(s), D::Fields { columns, .. }) => {
            s.fields().zip(columns).map(|((_, t), c)| build(t, c, None)).collect::<Result<Vec<_>, _>>()?
        }
        (ty, root) => vec![build(ty, root, None)?],
    };
    let opts = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema, columns, &opts)
}

fn overflow(what: &str) -> ArrowError {
    ArrowError::ComputeError(format!("{what} too long for 32-bit offsets"))
}

/// `n + 1` offsets as Arrow's `i32` offsets.
fn offsets32<T: Copy + TryInto<i32>>(v: &[T], what: &str) -> Result<OffsetBuffer<i32>, ArrowError> {
    // Offsets never decrease, so the last is the largest: one check, then a
    // plain narrowing loop (a fallible one per offset was most of the cost).
    if v.last().is_some_and(|&last| last.try_into().is_err()) {
        return Err(overflow(what));
    }
    let o: Vec<i32> = v.iter().map(|&x| x.try_into().unwrap_or(i32::MAX)).collect();
    Ok(OffsetBuffer::new(ScalarBuffer::from(o)))
}

/// Only a buffer with a null in it (as the `Value` path makes them).
fn some_nulls(n: Option<&NullBuffer>) -> Option<NullBuffer> {
    n.filter(|n| n.null_count() > 0).cloned()
}

fn prim<T: ArrowPrimitiveType>(v: Vec<T::Native>, nulls: Option<&NullBuffer>) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(v), some_nulls(nulls)))
}

/// The Arrow array of a node's values (`data`, decoded as `ty`), with
/// `parent` the slots a nullable parent leaves null (their values here are
/// placeholders, and null too, as the `Value` path makes them).
fn build(ty: &Metadata, data: D, parent: Option<&NullBuffer>) -> Result<ArrayRef, ArrowError> {
    Ok(match (ty, data) {
        (_, D::Values(values)) => {
            let slots: Vec<Option<&Value>> =
                values.iter().enumerate().map(|(i, v)| parent.is_none_or(|p| p.is_valid(i)).then_some(v)).collect();
            value_array(ty, &slots)?
        }
        (Metadata::Option(inner), D::Option { present, inner: values }) => {
            // No bitmap to build when every slot is present (the common case).
            let own = (!all_present(&present)).then(|| NullBuffer::from(present.as_slice()));
            // `None` when no slot is null.
            let mask = NullBuffer::union(own.as_ref(), parent);
            match *values {
                values if spreadable(&values) => build(inner, spread(values, &present), mask.as_ref())?,
                values => {
                    // Spread as values: a null slot is a `None`.
                    let mut it = values.to_values(inner).into_iter();
                    let all: Vec<Option<Value>> = present.iter().map(|&p| if p { it.next() } else { None }).collect();
                    let slots: Vec<Option<&Value>> = all
                        .iter()
                        .enumerate()
                        .map(|(i, v)| v.as_ref().filter(|_| mask.as_ref().is_none_or(|m| m.is_valid(i))))
                        .collect();
                    value_array(inner, &slots)?
                }
            }
        }
        (Metadata::Primitive(p), data) => primitive(*p, data, parent)?,
        (Metadata::Vec(el), D::List { offsets, items }) => {
            let (DataType::List(f), _) = data_type(ty)? else { unreachable!("a vec maps to a list") };
            let child = build(el, *items, None)?;
            Arc::new(ListArray::try_new(f, offsets32(&offsets, "a list")?, child, some_nulls(parent))?)
        }
        (Metadata::Array(a), D::Array { n, len, items }) => {
            let (DataType::FixedSizeList(f, size), _) = data_type(ty)? else { unreachable!("an array") };
            let item_nulls = parent.map(|p| {
                NullBuffer::from_iter((0..n as usize).flat_map(|i| std::iter::repeat_n(p.is_valid(i), len as usize)))
            });
            let child = build(&a.element, *items, item_nulls.as_ref())?;
            Arc::new(FixedSizeListArray::try_new_with_length(f, size, child, some_nulls(parent), n as usize)?)
        }
        (Metadata::Struct(s), D::Fields { n, columns }) => {
            let (DataType::Struct(fields), _) = data_type(ty)? else { unreachable!("a struct") };
            let children = s.fields().zip(columns).map(|((_, t), c)| build(t, c, parent)).collect::<Result<_, _>>()?;
            struct_array(fields, children, n as usize, parent)?
        }
        (Metadata::Tuple(types), D::Fields { n, columns }) => {
            let (DataType::Struct(fields), _) = data_type(ty)? else { unreachable!("a tuple") };
            let children = types.iter().zip(columns).map(|(t, c)| build(t, c, parent)).collect::<Result<_, _>>()?;
            struct_array(fields, children, n as usize, parent)?
        }
        (Metadata::Enum(e), D::Enum { tags, .. }) if crate::schema::unit_only(e) => {
            let keys = Int32Array::new(tags.into_iter().map(|t| t as i32).collect(), some_nulls(parent));
            let names = StringArray::from_iter_values(e.variants().map(|(n, _)| n));
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(names))?)
        }
        (Metadata::Enum(e), D::Enum { tags, payloads }) if parent.is_none() => {
            let (DataType::Union(fields, _), _) = data_type(ty)? else { unreachable!("an enum") };
            let mut next = vec![0i32; e.len()];
            let mut offsets = Vec::with_capacity(tags.len());
            for &t in &tags {
                offsets.push(next[t as usize]);
                next[t as usize] += 1;
            }
            let type_ids: Vec<i8> = tags.iter().map(|&t| t as i8).collect();
            let children =
                e.variants().zip(payloads).map(|((_, t), p)| build(t, p, None)).collect::<Result<Vec<_>, _>>()?;
            Arc::new(UnionArray::try_new(fields, type_ids.into(), Some(offsets.into()), children)?)
        }
        (ty, data) => {
            // An enum with payloads under a null parent: through values,
            // which put a null of the first variant in a null slot.
            let values = data.to_values(ty);
            let slots: Vec<Option<&Value>> =
                values.iter().enumerate().map(|(i, v)| parent.is_none_or(|p| p.is_valid(i)).then_some(v)).collect();
            value_array(ty, &slots)?
        }
    })
}

fn struct_array(
    fields: Fields,
    children: Vec<ArrayRef>,
    n: usize,
    parent: Option<&NullBuffer>,
) -> Result<ArrayRef, ArrowError> {
    if fields.is_empty() {
        return Ok(Arc::new(StructArray::new_empty_fields(n, some_nulls(parent))));
    }
    Ok(Arc::new(StructArray::try_new(fields, children, some_nulls(parent))?))
}

fn fixed(size: i32, bytes: Vec<u8>, parent: Option<&NullBuffer>) -> Result<ArrayRef, ArrowError> {
    Ok(Arc::new(FixedSizeBinaryArray::try_new(size, Buffer::from_vec(bytes), some_nulls(parent))?))
}

fn primitive(p: P, data: D, parent: Option<&NullBuffer>) -> Result<ArrayRef, ArrowError> {
    Ok(match data {
        D::Unit(n) => Arc::new(NullArray::new(n as usize)),
        D::Bool(v) => Arc::new(BooleanArray::new(BooleanBuffer::from(v.as_slice()), some_nulls(parent))),
        D::U8(v) => prim::<UInt8Type>(v, parent),
        D::U16(v) => prim::<UInt16Type>(v, parent),
        D::U32(v) => prim::<UInt32Type>(v, parent),
        D::U64(v) => prim::<UInt64Type>(v, parent),
        D::I8(v) => prim::<Int8Type>(v, parent),
        D::I16(v) => prim::<Int16Type>(v, parent),
        D::I32(v) => prim::<Int32Type>(v, parent),
        D::I64(v) => prim::<Int64Type>(v, parent),
        D::F32(v) => prim::<Float32Type>(v, parent),
        D::F64(v) => prim::<Float64Type>(v, parent),
        D::Date(v) => prim::<Date32Type>(v, parent),
        D::Timestamp(v) => Arc::new(
            PrimitiveArray::<TimestampMicrosecondType>::new(ScalarBuffer::from(v), some_nulls(parent))
                .with_timezone("UTC"),
        ),
        D::U128(v) => fixed(16, v.iter().flat_map(|x| x.to_le_bytes()).collect(), parent)?,
        D::I128(v) => fixed(16, v.iter().flat_map(|x| x.to_le_bytes()).collect(), parent)?,
        D::Wide { bytes, .. } => fixed(32, bytes, parent)?,
        D::Binary { utf8, offsets, data } => {
            let offsets = offsets32(&offsets, "a string column")?;
            let values = Buffer::from_vec(data);
            if utf8 {
                Arc::new(StringArray::try_new(offsets, values, some_nulls(parent))?)
            } else {
                Arc::new(BinaryArray::try_new(offsets, values, some_nulls(parent))?)
            }
        }
        other => {
            return Err(ArrowError::ComputeError(format!("a column of {} values decoded as {p}", other.len())));
        }
    })
}

/// Whether [`spread`] can place `data`'s values: not where a placeholder
/// needs values built (an enum with payloads, values read one by one).
fn spreadable(data: &D) -> bool {
    match data {
        D::Values(_) => false,
        D::Enum { payloads, .. } => payloads.iter().all(|p| matches!(p, D::Unit(_))),
        D::Array { items, .. } => spreadable(items),
        D::Fields { columns, .. } => columns.iter().all(spreadable),
        _ => true,
    }
}

/// Whether every slot is present: in chunks whose test has no early exit,
/// which the compiler vectorizes (an `all` per slot cost four instructions
/// a slot, twice for every option column).
fn all_present(present: &[bool]) -> bool {
    present.chunks(256).all(|c| c.iter().fold(true, |all, &p| all & p))
}

/// A node's `present.iter().filter(p).count()` values spread over
/// `present.len()` slots, a placeholder in each absent one (zero, empty);
/// only for [`spreadable`] data (anything else comes back as it was).
fn spread(data: D, present: &[bool]) -> D {
    fn fill<T: Copy + Default>(v: Vec<T>, present: &[bool]) -> Vec<T> {
        if v.len() == present.len() {
            return v;
        }
        let mut it = v.into_iter();
        present.iter().map(|&p| if p { it.next().unwrap_or_default() } else { T::default() }).collect()
    }
    fn repeat_ends<T: Copy>(offsets: Vec<T>, present: &[bool]) -> Vec<T> {
        let mut out = Vec::with_capacity(present.len() + 1);
        out.push(offsets[0]);
        let mut k = 1;
        for &p in present {
            if p {
                out.push(offsets[k]);
                k += 1;
            } else {
                out.push(*out.last().expect("one offset at least"));
            }
        }
        out
    }
    let n = present.len();
    if all_present(present) {
        // Nothing to spread: every slot holds its own value already.
        return data;
    }
    match data {
        D::Unit(_) => D::Unit(n as u64),
        D::Bool(v) => D::Bool(fill(v, present)),
        D::U8(v) => D::U8(fill(v, present)),
        D::U16(v) => D::U16(fill(v, present)),
        D::U32(v) => D::U32(fill(v, present)),
        D::U64(v) => D::U64(fill(v, present)),
        D::U128(v) => D::U128(fill(v, present)),
        D::I8(v) => D::I8(fill(v, present)),
        D::I16(v) => D::I16(fill(v, present)),
        D::I32(v) => D::I32(fill(v, present)),
        D::I64(v) => D::I64(fill(v, present)),
        D::I128(v) => D::I128(fill(v, present)),
        D::F32(v) => D::F32(fill(v, present)),
        D::F64(v) => D::F64(fill(v, present)),
        D::Date(v) => D::Date(fill(v, present)),
        D::Timestamp(v) => D::Timestamp(fill(v, present)),
        D::Wide { signed, bytes } => {
            let mut out = Vec::with_capacity(n * 32);
            let mut chunks = bytes.chunks_exact(32);
            for &p in present {
                match if p { chunks.next() } else { None } {
                    Some(c) => out.extend_from_slice(c),
                    None => out.extend_from_slice(&[0; 32]),
                }
            }
            D::Wide { signed, bytes: out }
        }
        D::Binary { utf8, offsets, data } => D::Binary { utf8, offsets: repeat_ends(offsets, present), data },
        D::List { offsets, items } => D::List { offsets: repeat_ends(offsets, present), items },
        D::Option { present: inner_present, inner } => {
            let mut it = inner_present.into_iter();
            let full: Vec<bool> = present.iter().map(|&p| p && it.next().unwrap_or(false)).collect();
            D::Option { present: full, inner }
        }
        D::Array { len, items, .. } => {
            let item_present: Vec<bool> = present.iter().flat_map(|&p| std::iter::repeat_n(p, len as usize)).collect();
            D::Array { n: n as u64, len, items: Box::new(spread(*items, &item_present)) }
        }
        D::Fields { columns, .. } => {
            D::Fields { n: n as u64, columns: columns.into_iter().map(|c| spread(c, present)).collect() }
        }
        D::Enum { tags, payloads } if payloads.iter().all(|p| matches!(p, D::Unit(_))) => {
            let tags = fill(tags, present);
            let mut counts = vec![0u64; payloads.len()];
            for &t in &tags {
                counts[t as usize] += 1;
            }
            D::Enum { tags, payloads: counts.into_iter().map(D::Unit).collect() }
        }
        other => other,
    }
}
