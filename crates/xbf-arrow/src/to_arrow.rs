//! XBF values → Arrow arrays, one array per node of the type, built from the
//! values of a block in one pass per node.

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, FixedSizeBinaryBuilder, StringBuilder};
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Fields, SchemaRef};
use xbf::{Metadata, PrimitiveType as P, Value};

use crate::schema::{arrow_schema, data_type, xbf_err};

/// The records of a block (values of `ty`) as one record batch of
/// [`arrow_schema`]`(ty)`.
pub fn records_to_batch(ty: &Metadata, records: &[Value]) -> Result<RecordBatch, ArrowError> {
    batch_with_schema(arrow_schema(ty)?, ty, records)
}

pub(crate) fn batch_with_schema(
    schema: SchemaRef,
    ty: &Metadata,
    records: &[Value],
) -> Result<RecordBatch, ArrowError> {
    let columns = match ty {
        Metadata::Struct(s) => {
            let mut cols = Vec::with_capacity(s.len());
            for (i, (_, fty)) in s.fields().enumerate() {
                let vals: Vec<Option<&Value>> = records
                    .iter()
                    .map(|r| match r {
                        Value::Struct(sv) => sv.values().get(i),
                        _ => None,
                    })
                    .collect();
                cols.push(array(fty, &vals)?);
            }
            cols
        }
        other => vec![array(other, &records.iter().map(Some).collect::<Vec<_>>())?],
    };
    let opts = RecordBatchOptions::new().with_row_count(Some(records.len()));
    RecordBatch::try_new_with_options(schema, columns, &opts)
}

fn nulls(vals: &[Option<&Value>]) -> Option<NullBuffer> {
    let nb = NullBuffer::from_iter(vals.iter().map(Option::is_some));
    (nb.null_count() > 0).then_some(nb)
}

fn prim<T: ArrowPrimitiveType>(vals: &[Option<&Value>], get: impl Fn(&Value) -> Option<T::Native>) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::from_iter(vals.iter().map(|v| v.and_then(&get))))
}

/// The Arrow array of `vals` (each a value of `ty`, or `None` for a null
/// slot: an absent option, or a slot under a null parent).
pub(crate) fn array(ty: &Metadata, vals: &[Option<&Value>]) -> Result<ArrayRef, ArrowError> {
    Ok(match ty {
        Metadata::Option(inner) => {
            let inner_vals: Vec<Option<&Value>> = vals
                .iter()
                .map(|v| match v {
                    Some(Value::Option(o)) => o.value(),
                    _ => None,
                })
                .collect();
            array(inner, &inner_vals)?
        }
        Metadata::Primitive(p) => primitive(*p, vals)?,
        Metadata::Vec(el) => {
            let mut offsets = Vec::with_capacity(vals.len() + 1);
            offsets.push(0i32);
            let mut items: Vec<Option<&Value>> = Vec::new();
            for v in vals {
                if let Some(Value::Vec(l)) = v {
                    items.extend(l.items().iter().map(Some));
                }
                let end = i32::try_from(items.len()).map_err(|_| ArrowError::ComputeError("list too long".into()))?;
                offsets.push(end);
            }
            let child = array(el, &items)?;
            let (DataType::List(f), _) = data_type(ty)? else { unreachable!("a vec maps to a list") };
            Arc::new(ListArray::try_new(f, OffsetBuffer::new(ScalarBuffer::from(offsets)), child, nulls(vals))?)
        }
        Metadata::Array(a) => {
            let n = a.len as usize;
            let mut items: Vec<Option<&Value>> = Vec::with_capacity(vals.len() * n);
            for v in vals {
                match v {
                    Some(Value::Array(l)) if l.len() == n => items.extend(l.items().iter().map(Some)),
                    _ => items.extend(std::iter::repeat_n(None, n)),
                }
            }
            let child = array(&a.element, &items)?;
            let (DataType::FixedSizeList(f, size), _) = data_type(ty)? else { unreachable!("an array") };
            Arc::new(FixedSizeListArray::try_new_with_length(f, size, child, nulls(vals), vals.len())?)
        }
        Metadata::Struct(s) => {
            let (DataType::Struct(fields), _) = data_type(ty)? else { unreachable!("a struct") };
            let mut children = Vec::with_capacity(s.len());
            for i in 0..s.len() {
                let sub: Vec<Option<&Value>> = vals
                    .iter()
                    .map(|v| match v {
                        Some(Value::Struct(sv)) => sv.values().get(i),
                        _ => None,
                    })
                    .collect();
                children.push(array(s.field_at(i).expect("field").1, &sub)?);
            }
            struct_array(fields, children, vals)?
        }
        Metadata::Tuple(types) => {
            let (DataType::Struct(fields), _) = data_type(ty)? else { unreachable!("a tuple") };
            let mut children = Vec::with_capacity(types.len());
            for (i, t) in types.iter().enumerate() {
                let sub: Vec<Option<&Value>> = vals
                    .iter()
                    .map(|v| match v {
                        Some(Value::Tuple(tv)) => tv.items().get(i),
                        _ => None,
                    })
                    .collect();
                children.push(array(t, &sub)?);
            }
            struct_array(fields, children, vals)?
        }
        Metadata::Map(m) => {
            let (DataType::Map(entries, _), _) = data_type(ty)? else { unreachable!("a map") };
            let mut offsets = Vec::with_capacity(vals.len() + 1);
            offsets.push(0i32);
            let (mut keys, mut values) = (Vec::new(), Vec::new());
            for v in vals {
                if let Some(Value::Map(mv)) = v {
                    for (k, x) in mv.entries() {
                        keys.push(Some(k));
                        values.push(Some(x));
                    }
                }
                let end = i32::try_from(keys.len()).map_err(|_| ArrowError::ComputeError("map too long".into()))?;
                offsets.push(end);
            }
            let DataType::Struct(kv) = entries.data_type() else { unreachable!("map entries") };
            let kv_array =
                StructArray::try_new(kv.clone(), vec![array(&m.key, &keys)?, array(&m.value, &values)?], None)?;
            Arc::new(MapArray::try_new(
                entries,
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                kv_array,
                nulls(vals),
                false,
            )?)
        }
        Metadata::Enum(e) if crate::schema::unit_only(e) => {
            let keys = Int32Array::from_iter(vals.iter().map(|v| match v {
                Some(Value::Enum(ev)) => Some(ev.index() as i32),
                _ => None,
            }));
            let names = StringArray::from_iter_values(e.variants().map(|(n, _)| n));
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(names))?)
        }
        Metadata::Enum(e) => {
            let (DataType::Union(fields, _), _) = data_type(ty)? else { unreachable!("an enum") };
            let mut per: Vec<Vec<Option<&Value>>> = vec![Vec::new(); e.len()];
            let mut type_ids = Vec::with_capacity(vals.len());
            let mut offsets = Vec::with_capacity(vals.len());
            for v in vals {
                // A slot under a null parent: a null of the first variant.
                let (i, payload) = match v {
                    Some(Value::Enum(ev)) => (ev.index(), Some(ev.payload())),
                    _ if e.is_empty() => return Err(ArrowError::InvalidArgumentError(format!("a value of {ty}"))),
                    _ => (0, None),
                };
                type_ids.push(i as i8);
                offsets.push(per[i].len() as i32);
                per[i].push(payload);
            }
            let children: Result<Vec<ArrayRef>, ArrowError> =
                e.variants().zip(&per).map(|((_, t), vs)| array(t, vs)).collect();
            Arc::new(UnionArray::try_new(fields, type_ids.into(), Some(offsets.into()), children?)?)
        }
        Metadata::Any => {
            let mut b = BinaryBuilder::new();
            for v in vals {
                match v {
                    Some(v @ Value::Any(_)) => b.append_value(xbf::encode_message(v).map_err(xbf_err)?),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        other => return Err(crate::schema::unsupported(other)),
    })
}

fn struct_array(fields: Fields, children: Vec<ArrayRef>, vals: &[Option<&Value>]) -> Result<ArrayRef, ArrowError> {
    if fields.is_empty() {
        return Ok(Arc::new(StructArray::new_empty_fields(vals.len(), nulls(vals))));
    }
    Ok(Arc::new(StructArray::try_new(fields, children, nulls(vals))?))
}

fn primitive(p: P, vals: &[Option<&Value>]) -> Result<ArrayRef, ArrowError> {
    Ok(match p {
        P::Bool => Arc::new(BooleanArray::from_iter(vals.iter().map(|v| v.and_then(Value::as_bool)))),
        P::U8 => prim::<UInt8Type>(vals, |v| if let Value::U8(x) = v { Some(*x) } else { None }),
        P::U16 | P::FixedU16 => prim::<UInt16Type>(vals, |v| if let Value::U16(x) = v { Some(*x) } else { None }),
        P::U32 | P::FixedU32 => prim::<UInt32Type>(vals, |v| if let Value::U32(x) = v { Some(*x) } else { None }),
        P::U64 | P::FixedU64 => prim::<UInt64Type>(vals, |v| if let Value::U64(x) = v { Some(*x) } else { None }),
        P::I8 => prim::<Int8Type>(vals, |v| if let Value::I8(x) = v { Some(*x) } else { None }),
        P::I16 | P::FixedI16 => prim::<Int16Type>(vals, |v| if let Value::I16(x) = v { Some(*x) } else { None }),
        P::I32 | P::FixedI32 => prim::<Int32Type>(vals, |v| if let Value::I32(x) = v { Some(*x) } else { None }),
        P::I64 | P::FixedI64 => prim::<Int64Type>(vals, |v| if let Value::I64(x) = v { Some(*x) } else { None }),
        P::F32 => prim::<Float32Type>(vals, |v| if let Value::F32(x) = v { Some(*x) } else { None }),
        P::F64 => prim::<Float64Type>(vals, |v| if let Value::F64(x) = v { Some(*x) } else { None }),
        P::Date => prim::<Date32Type>(vals, |v| if let Value::Date(x) = v { Some(*x) } else { None }),
        P::Timestamp => Arc::new(
            PrimitiveArray::<TimestampMicrosecondType>::from_iter(
                vals.iter().map(|v| v.and_then(|v| if let Value::Timestamp(x) = v { Some(*x) } else { None })),
            )
            .with_timezone("UTC"),
        ),
        P::U128 | P::I128 | P::FixedU128 | P::FixedI128 => {
            let mut b = FixedSizeBinaryBuilder::with_capacity(vals.len(), 16);
            for v in vals {
                match v {
                    Some(Value::U128(x)) => b.append_value(x.to_le_bytes())?,
                    Some(Value::I128(x)) => b.append_value(x.to_le_bytes())?,
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        P::U256 | P::I256 => {
            let mut b = FixedSizeBinaryBuilder::with_capacity(vals.len(), 32);
            for v in vals {
                match v {
                    Some(Value::U256(x)) => b.append_value(x.to_le_bytes())?,
                    Some(Value::I256(x)) => b.append_value(x.to_le_bytes())?,
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        P::Bytes => {
            let mut b = BinaryBuilder::new();
            for v in vals {
                b.append_option(v.and_then(Value::as_bytes));
            }
            Arc::new(b.finish())
        }
        P::String => {
            let mut b = StringBuilder::new();
            for v in vals {
                b.append_option(v.and_then(Value::as_str));
            }
            Arc::new(b.finish())
        }
        P::Unit => Arc::new(NullArray::new(vals.len())),
    })
}
