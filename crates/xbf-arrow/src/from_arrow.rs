//! Arrow arrays → XBF values: each column is first cast to the Arrow type
//! its XBF type maps to (large and view strings and lists, dictionaries of
//! strings, other timestamp units), then read slot by slot.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_schema::{ArrowError, DataType, TimeUnit};
use xbf::{
    AnyValue, EnumValue, MapValue, Metadata, OptionValue, PrimitiveType as P, StructValue, TupleValue, Value, VecValue,
    I256, U256,
};

use crate::schema::{data_type, unsupported, xbf_err};

/// The records of a batch as values of `ty`, which must be the type
/// [`crate::xbf_type`] gives for the batch's schema (or one whose
/// [`crate::arrow_schema`] the batch's columns can be cast to).
pub fn batch_to_records(ty: &Metadata, batch: &RecordBatch) -> Result<Vec<Value>, ArrowError> {
    match ty {
        Metadata::Struct(s) => {
            if s.len() != batch.num_columns() {
                return Err(ArrowError::SchemaError(format!("{} columns for {ty}", batch.num_columns())));
            }
            let mut cols = Vec::with_capacity(s.len());
            for ((_, fty), col) in s.fields().zip(batch.columns()) {
                cols.push(values(fty, col)?.into_iter());
            }
            (0..batch.num_rows())
                .map(|_| {
                    let fields: Vec<Value> = cols.iter_mut().map(|c| c.next().expect("one value a row")).collect();
                    StructValue::new(s.clone(), fields).map(Value::Struct).map_err(xbf_err)
                })
                .collect()
        }
        other => match batch.columns() {
            [col] => values(other, col),
            _ => Err(ArrowError::SchemaError(format!("{} columns for {ty}", batch.num_columns()))),
        },
    }
}

/// One value of `ty` a slot of `arr`. A null slot gives an absent option,
/// or, where `ty` is not an option (a slot under a null struct or list),
/// the type's zero value, which nothing reads.
pub(crate) fn values(ty: &Metadata, arr: &ArrayRef) -> Result<Vec<Value>, ArrowError> {
    let (want, _) = data_type(ty)?;
    check_timestamps(arr)?;
    // Time zones only label an instant (Arrow stores UTC): dropped before the
    // cast, which would otherwise need a time zone database to read names.
    let (want, arr) = (naive(&want), without_zones(arr)?);
    let arr = if arr.data_type() == &want { arr } else { arrow_cast::cast(&arr, &want)? };
    let arr = &arr;
    if let Metadata::Option(inner) = ty {
        let present = values(inner, arr)?;
        let nulls = arr.logical_nulls();
        return Ok(present
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
                    Value::Option(OptionValue::none((**inner).clone()))
                } else {
                    Value::Option(OptionValue::some((**inner).clone(), v).expect("the value is of the inner type"))
                }
            })
            .collect());
    }
    let n = arr.len();
    let valid = |i: usize| arr.is_valid(i);
    Ok(match ty {
        Metadata::Option(_) => unreachable!("handled above"),
        Metadata::Primitive(p) => primitive(*p, arr)?,
        Metadata::Vec(el) => {
            let l = arr.as_list::<i32>();
            let items = values(el, l.values())?;
            let offs = l.value_offsets();
            (0..n)
                .map(|i| {
                    let (a, b) = (offs[i] as usize, offs[i + 1] as usize);
                    let part = if valid(i) { items[a..b].to_vec() } else { Vec::new() };
                    VecValue::new((**el).clone(), part).map(Value::Vec).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Array(a) => {
            let l = arr.as_fixed_size_list();
            let items = values(&a.element, l.values())?;
            let k = a.len as usize;
            let off = l.offset();
            (0..n)
                .map(|i| {
                    let part = items[(off + i) * k..(off + i + 1) * k].to_vec();
                    VecValue::new(a.element.clone(), part).map(Value::Array).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Struct(s) => {
            let sa = arr.as_struct();
            let mut cols = Vec::with_capacity(s.len());
            for ((_, fty), col) in s.fields().zip(sa.columns()) {
                cols.push(values(fty, col)?.into_iter());
            }
            (0..n)
                .map(|_| {
                    let fields: Vec<Value> = cols.iter_mut().map(|c| c.next().expect("one a row")).collect();
                    StructValue::new(s.clone(), fields).map(Value::Struct).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Tuple(types) => {
            let sa = arr.as_struct();
            let mut cols = Vec::with_capacity(types.len());
            for (t, col) in types.iter().zip(sa.columns()) {
                cols.push(values(t, col)?.into_iter());
            }
            (0..n)
                .map(|_| {
                    let items: Vec<Value> = cols.iter_mut().map(|c| c.next().expect("one a row")).collect();
                    TupleValue::new(types.to_vec(), items).map(Value::Tuple).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Map(m) => {
            let ma = arr.as_map();
            let keys = values(&m.key, ma.keys())?;
            let vals = values(&m.value, ma.values())?;
            let offs = ma.value_offsets();
            (0..n)
                .map(|i| {
                    let (a, b) = (offs[i] as usize, offs[i + 1] as usize);
                    let entries = if valid(i) {
                        keys[a..b].iter().cloned().zip(vals[a..b].iter().cloned()).collect()
                    } else {
                        Vec::new()
                    };
                    MapValue::new(m.key.clone(), m.value.clone(), entries).map(Value::Map).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Enum(e) if crate::schema::unit_only(e) => {
            let d = arr.as_dictionary::<Int32Type>();
            let names = d.values().as_string::<i32>();
            let keys = d.keys();
            (0..n)
                .map(|i| {
                    let name = if keys.is_valid(i) { names.value(keys.value(i) as usize) } else { first_variant(e)? };
                    EnumValue::new(e.clone(), name, Value::Unit).map(Value::Enum).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Enum(e) => {
            let u = arr.as_any().downcast_ref::<UnionArray>().ok_or_else(|| unsupported(arr.data_type()))?;
            let per: Vec<Vec<Value>> =
                e.variants().enumerate().map(|(i, (_, t))| values(t, u.child(i as i8))).collect::<Result<_, _>>()?;
            (0..n)
                .map(|i| {
                    let id = u.type_id(i) as usize;
                    let (name, _) = e.variant_at(id).ok_or_else(|| unsupported("a union type id out of range"))?;
                    let payload = per[id][u.value_offset(i)].clone();
                    EnumValue::new(e.clone(), name, payload).map(Value::Enum).map_err(xbf_err)
                })
                .collect::<Result<_, _>>()?
        }
        Metadata::Any => {
            let b = arr.as_binary::<i32>();
            (0..n)
                .map(|i| {
                    if !b.is_valid(i) {
                        return Ok(Value::any(Value::Unit));
                    }
                    match xbf::decode_message(b.value(i)).map_err(xbf_err)? {
                        v @ Value::Any(_) => Ok(v),
                        // A message of another type: the value, with its type.
                        v => AnyValue::new(v.metadata(), v).map(|a| Value::Any(Box::new(a))).map_err(xbf_err),
                    }
                })
                .collect::<Result<_, _>>()?
        }
        other => return Err(unsupported(other)),
    })
}

/// `dt` with every timestamp's time zone dropped.
pub(crate) fn naive(dt: &DataType) -> DataType {
    match dt {
        DataType::Timestamp(u, Some(_)) => DataType::Timestamp(*u, None),
        DataType::List(f) => DataType::List(Arc::new(f.as_ref().clone().with_data_type(naive(f.data_type())))),
        DataType::LargeList(f) => {
            DataType::LargeList(Arc::new(f.as_ref().clone().with_data_type(naive(f.data_type()))))
        }
        DataType::FixedSizeList(f, n) => {
            DataType::FixedSizeList(Arc::new(f.as_ref().clone().with_data_type(naive(f.data_type()))), *n)
        }
        DataType::Struct(fs) => DataType::Struct(
            fs.iter().map(|f| Arc::new(f.as_ref().clone().with_data_type(naive(f.data_type())))).collect(),
        ),
        DataType::Map(f, sorted) => {
            DataType::Map(Arc::new(f.as_ref().clone().with_data_type(naive(f.data_type()))), *sorted)
        }
        DataType::Union(fs, mode) => DataType::Union(
            arrow_schema::UnionFields::try_new(
                fs.iter().map(|(id, _)| id),
                fs.iter().map(|(_, f)| f.as_ref().clone().with_data_type(naive(f.data_type()))),
            )
            .expect("the same ids and fields"),
            *mode,
        ),
        DataType::Dictionary(k, v) => DataType::Dictionary(k.clone(), Box::new(naive(v))),
        other => other.clone(),
    }
}

/// The same array with its (and its children's) timestamps' zones dropped;
/// the values, instants in UTC, are untouched.
pub(crate) fn without_zones(arr: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let dt = naive(arr.data_type());
    if &dt == arr.data_type() {
        return Ok(arr.clone());
    }
    fn strip(d: arrow_data::ArrayData) -> Result<arrow_data::ArrayData, ArrowError> {
        let dt = naive(d.data_type());
        let children = d.child_data().iter().cloned().map(strip).collect::<Result<Vec<_>, _>>()?;
        d.into_builder().data_type(dt).child_data(children).build()
    }
    Ok(make_array(strip(arr.to_data())?))
}

fn first_variant(e: &xbf::EnumMetadata) -> Result<&str, ArrowError> {
    e.variant_at(0).map(|(n, _)| n).ok_or_else(|| unsupported("a value of an enum without variants"))
}

/// Refuses timestamps finer than microseconds that a cast would cut
/// (pyarrow's casts refuse them likewise), anywhere in the array.
pub(crate) fn check_timestamps(arr: &ArrayRef) -> Result<(), ArrowError> {
    match arr.data_type() {
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            let a = arr.as_primitive::<TimestampNanosecondType>();
            if a.iter().flatten().any(|x| x % 1000 != 0) {
                return Err(ArrowError::CastError(
                    "nanosecond timestamps would lose data as XBF timestamps (microseconds)".into(),
                ));
            }
        }
        DataType::Date64 => {
            let a = arr.as_primitive::<Date64Type>();
            if a.iter().flatten().any(|x| x % 86_400_000 != 0) {
                return Err(ArrowError::CastError("date64 values with a time of day would lose it as dates".into()));
            }
        }
        DataType::List(_) => check_timestamps(arr.as_list::<i32>().values())?,
        DataType::LargeList(_) => check_timestamps(arr.as_list::<i64>().values())?,
        DataType::FixedSizeList(..) => check_timestamps(arr.as_fixed_size_list().values())?,
        DataType::Struct(_) => arr.as_struct().columns().iter().try_for_each(check_timestamps)?,
        DataType::Map(..) => check_timestamps(&(Arc::new(arr.as_map().entries().clone()) as ArrayRef))?,
        _ => {}
    }
    Ok(())
}

fn prim<T: ArrowPrimitiveType>(arr: &ArrayRef, f: impl Fn(T::Native) -> Value) -> Vec<Value> {
    arr.as_primitive::<T>().values().iter().map(|x| f(*x)).collect()
}

fn primitive(p: P, arr: &ArrayRef) -> Result<Vec<Value>, ArrowError> {
    Ok(match p {
        P::Bool => arr.as_boolean().values().iter().map(Value::Bool).collect(),
        P::U8 => prim::<UInt8Type>(arr, Value::U8),
        P::U16 | P::FixedU16 => prim::<UInt16Type>(arr, Value::U16),
        P::U32 | P::FixedU32 => prim::<UInt32Type>(arr, Value::U32),
        P::U64 | P::FixedU64 => prim::<UInt64Type>(arr, Value::U64),
        P::I8 => prim::<Int8Type>(arr, Value::I8),
        P::I16 | P::FixedI16 => prim::<Int16Type>(arr, Value::I16),
        P::I32 | P::FixedI32 => prim::<Int32Type>(arr, Value::I32),
        P::I64 | P::FixedI64 => prim::<Int64Type>(arr, Value::I64),
        P::F32 => prim::<Float32Type>(arr, Value::F32),
        P::F64 => prim::<Float64Type>(arr, Value::F64),
        P::Date => prim::<Date32Type>(arr, Value::Date),
        P::Timestamp => prim::<TimestampMicrosecondType>(arr, Value::Timestamp),
        P::U128 | P::I128 | P::FixedU128 | P::FixedI128 => {
            let b = arr.as_fixed_size_binary();
            (0..b.len())
                .map(|i| {
                    let bytes: [u8; 16] = b.value(i).try_into().expect("16 bytes");
                    if matches!(p, P::U128 | P::FixedU128) {
                        Value::U128(u128::from_le_bytes(bytes))
                    } else {
                        Value::I128(i128::from_le_bytes(bytes))
                    }
                })
                .collect()
        }
        P::U256 | P::I256 => {
            let b = arr.as_fixed_size_binary();
            (0..b.len())
                .map(|i| {
                    let bytes: [u8; 32] = b.value(i).try_into().expect("32 bytes");
                    if p == P::U256 {
                        Value::U256(U256::from_le_bytes(bytes))
                    } else {
                        Value::I256(I256::from_le_bytes(bytes))
                    }
                })
                .collect()
        }
        P::Bytes => {
            let b = arr.as_binary::<i32>();
            (0..b.len()).map(|i| Value::Bytes(if b.is_valid(i) { b.value(i).to_vec() } else { Vec::new() })).collect()
        }
        P::String => {
            let s = arr.as_string::<i32>();
            (0..s.len())
                .map(|i| Value::String(if s.is_valid(i) { s.value(i).to_owned() } else { String::new() }))
                .collect()
        }
        P::Unit => vec![Value::Unit; arr.len()],
    })
}
