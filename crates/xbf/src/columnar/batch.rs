//! Decoding a block's columns straight into typed column buffers
//! ([`ColumnBatch`]): one buffer per node of the (projected) type, in
//! native widths, made by bulk loops over each column's encoding, with no
//! [`Value`] per record. What Arrow-based readers (crates/xbf-arrow) turn
//! into arrays without a second pass over boxed values.
//!
//! Every check, budget charge and error of the `Value` reader
//! ([`Reader::node`]) holds here, in the same order, so that the two agree
//! on every file: a node of `n` values is charged `n` ×
//! [`DECODED_VALUE_BYTES`](crate::DECODED_VALUE_BYTES) whatever its buffer
//! takes (more than the buffers need, never less), and the bytes that
//! dictionaries and shared prefixes make are charged by the string decoder.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::value::{EnumValue, OptionValue, StructValue, TupleValue, Value, VecValue, I256, U256};
use crate::wire::ColumnEncoding as E;

use super::{array_too_large, skip, strings, Cursor, Reader, Selection, VALUE_COST};

/// One block's records, decoded into columns: the (projected) record type
/// and the buffers of its nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnBatch {
    /// The type of the records (the file's, pruned to the fields read).
    pub ty: Metadata,
    /// How many records the block holds.
    pub records: u64,
    /// The root node's values: for a struct record type,
    /// [`ColumnData::Fields`] with one column per field read.
    pub root: ColumnData,
}

/// The values of one node of a block's type tree, every one of them.
///
/// Integers come in their own widths (signed ones un-zigzagged), options as
/// a presence flag per value and the column of the values present, vecs as
/// offsets into the column of all their items. Strings are handed over
/// expanded (offsets into one buffer of UTF-8, checked), whatever their
/// encoding: a dictionary's indices are not kept, since Arrow readers of the
/// documented mapping (`string` → `Utf8`) would expand them anyway and the
/// copy of short values costs less than a second array per column.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// `n` values of `unit`.
    Unit(u64),
    /// `bool` values.
    Bool(Vec<bool>),
    /// `u8` values.
    U8(Vec<u8>),
    /// `u16` and `fixed-u16` values.
    U16(Vec<u16>),
    /// `u32` and `fixed-u32` values.
    U32(Vec<u32>),
    /// `u64` and `fixed-u64` values.
    U64(Vec<u64>),
    /// `u128` and `fixed-u128` values.
    U128(Vec<u128>),
    /// `i8` values.
    I8(Vec<i8>),
    /// `i16` and `fixed-i16` values.
    I16(Vec<i16>),
    /// `i32` and `fixed-i32` values.
    I32(Vec<i32>),
    /// `i64` and `fixed-i64` values.
    I64(Vec<i64>),
    /// `i128` and `fixed-i128` values.
    I128(Vec<i128>),
    /// `f32` values.
    F32(Vec<f32>),
    /// `f64` values.
    F64(Vec<f64>),
    /// `date` values: days since 1970-01-01.
    Date(Vec<i32>),
    /// `timestamp` values: microseconds since 1970-01-01T00:00:00Z.
    Timestamp(Vec<i64>),
    /// `u256` or `i256` values, 32 bytes each, little-endian.
    Wide {
        /// Whether the values are `i256` (two's complement).
        signed: bool,
        /// The values' bytes.
        bytes: Vec<u8>,
    },
    /// `string` values (UTF-8, checked) or `bytes` values: value `i` is
    /// `data[offsets[i]..offsets[i + 1]]`.
    Binary {
        /// Whether the values are strings.
        utf8: bool,
        /// `n + 1` offsets into `data`, from 0.
        offsets: Vec<usize>,
        /// The values' bytes, one after another.
        data: Vec<u8>,
    },
    /// `option<T>` values.
    Option {
        /// Whether each value is present.
        present: Vec<bool>,
        /// The values present, in order.
        inner: Box<ColumnData>,
    },
    /// `vec<T>` values: value `i` is `items[offsets[i]..offsets[i + 1]]`.
    List {
        /// `n + 1` offsets into `items`, from 0.
        offsets: Vec<u64>,
        /// Every value's items, one value's after another.
        items: Box<ColumnData>,
    },
    /// `array N T` values: value `i` is items `i × len` to `(i + 1) × len`.
    Array {
        /// How many arrays.
        n: u64,
        /// The arrays' length.
        len: u64,
        /// Every value's items.
        items: Box<ColumnData>,
    },
    /// A struct's fields (those read) or a tuple's items, each a column of
    /// as many values as the node.
    Fields {
        /// How many values (a struct of no fields has values too).
        n: u64,
        /// A column per field or item, in order.
        columns: Vec<ColumnData>,
    },
    /// `enum` values: each value's variant, and each variant's payloads in
    /// the order of the values that take it.
    Enum {
        /// The variant index of each value.
        tags: Vec<u32>,
        /// A column per variant.
        payloads: Vec<ColumnData>,
    },
    /// Values of a node read value by value: maps (whose keys are compared
    /// for duplicates as values) and `any`.
    Values(Vec<Value>),
}

fn within(seg: PathSegment) -> impl FnOnce(Error) -> Error {
    move |e| e.within(seg)
}

impl Reader<'_> {
    /// Decodes the `n` values of type `ty` whose columns start at `c` into
    /// buffers; `sel` picks the struct fields to decode (the rest are
    /// skipped by their lengths, unread). Checks and errors are
    /// [`Reader::node`]'s.
    pub(crate) fn column_node(
        &mut self,
        ty: &Metadata,
        n: u64,
        c: &mut Cursor<'_>,
        depth: usize,
        sel: Option<&Selection>,
    ) -> Result<ColumnData> {
        let at = c.offset();
        let child = depth + 1;
        match ty {
            // Values read one by one: the `Value` reader charges them.
            Metadata::Map(_) | Metadata::Any => {
                return Ok(ColumnData::Values(self.node(ty, n, c, depth, sel)?.1.collect()))
            }
            _ => self.budget.charge(at, u128::from(n) * VALUE_COST)?,
        }
        Ok(match ty {
            Metadata::Primitive(p) => self.column_primitive(*p, n, c)?,
            Metadata::Vec(elem) => {
                let (lens, total) = self.lengths(c, n)?;
                let items = self.column_node(elem, total, c, child, sel).map_err(within(PathSegment::Element))?;
                let mut offsets = Vec::with_capacity(lens.len() + 1);
                let mut end = 0u64;
                offsets.push(0);
                // The lengths' sum was checked not to pass 2^64.
                offsets.extend(lens.iter().map(|&l| {
                    end += l;
                    end
                }));
                ColumnData::List { offsets, items: Box::new(items) }
            }
            Metadata::Array(a) => {
                let total = n.checked_mul(a.len).ok_or_else(|| array_too_large(at))?;
                let items = self.column_node(&a.element, total, c, child, sel).map_err(within(PathSegment::Element))?;
                ColumnData::Array { n, len: a.len, items: Box::new(items) }
            }
            Metadata::Struct(s) => {
                let mut fields = Vec::new();
                for (name, fty) in s.fields() {
                    let pick = Selection::pick(sel, name);
                    match pick {
                        Some(sub) => fields.push(
                            self.column_node(fty, n, c, child, sub).map_err(within(PathSegment::Field(name.into())))?,
                        ),
                        None => skip(fty, c, child, self.opts, &mut |_, _, _, _| {})
                            .map_err(within(PathSegment::Field(name.into())))?,
                    }
                }
                ColumnData::Fields { n, columns: fields }
            }
            Metadata::Tuple(types) => {
                let mut items = Vec::with_capacity(types.len());
                for (i, t) in types.iter().enumerate() {
                    items
                        .push(self.column_node(t, n, c, child, None).map_err(within(PathSegment::Position(i as u64)))?);
                }
                ColumnData::Fields { n, columns: items }
            }
            Metadata::Option(inner) => {
                let present: Vec<bool> = self.ints_as(c, n, 1)?;
                let count = present.iter().filter(|&&p| p).count() as u64;
                let inner = self.column_node(inner, count, c, child, sel)?;
                ColumnData::Option { present, inner: Box::new(inner) }
            }
            Metadata::Enum(e) => {
                let tags_at = c.offset();
                let raw: Vec<u64> = self.ints_as(c, n, 64)?;
                let mut counts = vec![0u64; e.len()];
                let mut tags = Vec::with_capacity(raw.len());
                for t in raw {
                    let slot = usize::try_from(t).ok().filter(|&t| t < counts.len()).ok_or_else(|| {
                        Error::at(ErrorKind::UnknownVariant, tags_at, format!("enum {} has no variant {t}", e.name()))
                    })?;
                    counts[slot] += 1;
                    tags.push(slot as u32);
                }
                let mut payloads = Vec::with_capacity(e.len());
                for ((name, pty), &count) in e.variants().zip(&counts) {
                    payloads.push(
                        self.column_node(pty, count, c, child, None)
                            .map_err(within(PathSegment::Field(name.into())))?,
                    );
                }
                ColumnData::Enum { tags, payloads }
            }
            Metadata::Map(_) | Metadata::Any => unreachable!("read as values above"),
        })
    }

    fn column_primitive(&mut self, p: P, n: u64, c: &mut Cursor<'_>) -> Result<ColumnData> {
        Ok(match p.integer_type() {
            P::Unit => ColumnData::Unit(n),
            P::Bool => ColumnData::Bool(self.ints_as(c, n, 1)?),
            P::U8 => ColumnData::U8(self.ints_as(c, n, 8)?),
            P::U16 => ColumnData::U16(self.ints_as(c, n, 16)?),
            P::U32 => ColumnData::U32(self.ints_as(c, n, 32)?),
            P::U64 => ColumnData::U64(self.ints_as(c, n, 64)?),
            P::U128 => ColumnData::U128(self.ints(c, n, 128)?),
            P::I8 => ColumnData::I8(self.ints_as(c, n, 8)?),
            P::I16 => ColumnData::I16(self.ints_as(c, n, 16)?),
            P::I32 => ColumnData::I32(self.ints_as(c, n, 32)?),
            P::I64 => ColumnData::I64(self.ints_as(c, n, 64)?),
            P::I128 => ColumnData::I128(self.ints(c, n, 128)?.into_iter().map(crate::wire::varint::unzigzag).collect()),
            P::Date => ColumnData::Date(self.ints_as(c, n, 32)?),
            P::Timestamp => ColumnData::Timestamp(self.ints_as(c, n, 64)?),
            P::F64 => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let v = super::floats::decode::<f64>(&mut col, n)?;
                col.finish("column")?;
                ColumnData::F64(v)
            }
            P::F32 => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let v = super::floats::decode::<f32>(&mut col, n)?;
                col.finish("column")?;
                ColumnData::F32(v)
            }
            P::String | P::Bytes => {
                let col = self.column(c)?;
                let mut cur = col.cursor();
                let at = cur.offset();
                let (built, spans, _) = strings::decode_spans(&mut cur, n, &mut self.budget)?;
                cur.finish("column")?;
                let source: &[u8] = match &built {
                    Some(b) => b,
                    None => &col.data,
                };
                let (offsets, data) = gather(source, &spans);
                if p == P::String && !utf8_at(&data, &offsets) {
                    return Err(Error::at(ErrorKind::InvalidUtf8, at, "a string of the column is not UTF-8"));
                }
                ColumnData::Binary { utf8: p == P::String, offsets, data }
            }
            P::U256 | P::I256 => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let at = col.offset();
                if col.u8()? != E::Plain256.byte() {
                    return Err(Error::at(ErrorKind::UnknownDiscriminant, at, "not a 256-bit integer column encoding"));
                }
                let bytes = col.take_checked(u128::from(n) * 32)?.to_vec();
                col.finish("column")?;
                ColumnData::Wide { signed: p == P::I256, bytes }
            }
            other => unreachable!("{other} is an integer type's fixed form"),
        })
    }
}

/// The values at `spans` of `source`, copied one after another, and their
/// offsets. A plain column's values already lie one after another: one copy.
fn gather(source: &[u8], spans: &[strings::Span]) -> (Vec<usize>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(spans.len() + 1);
    offsets.push(0);
    let contiguous = spans.windows(2).all(|w| w[0].1 == w[1].0);
    if contiguous {
        let (lo, hi) = match (spans.first(), spans.last()) {
            (Some(f), Some(l)) => (f.0, l.1),
            _ => (0, 0),
        };
        offsets.extend(spans.iter().map(|s| s.1 - lo));
        return (offsets, source[lo..hi].to_vec());
    }
    let size: usize = spans.iter().map(|s| s.1 - s.0).sum();
    // The bytes were charged to the budget by the string decoder. Short
    // values (dictionary codes, names) are copied as one 8-byte word into
    // 8 bytes of slack: a fixed-size copy, not a call to memcpy per value.
    let mut data = vec![0u8; size + 8];
    let mut pos = 0;
    for &(s, e) in spans {
        let len = e - s;
        match source.get(s..s + 8) {
            Some(word) if len <= 8 => data[pos..pos + 8].copy_from_slice(word),
            _ => data[pos..pos + len].copy_from_slice(&source[s..e]),
        }
        pos += len;
        offsets.push(pos);
    }
    data.truncate(size);
    (offsets, data)
}

/// Whether every value of `data` at `offsets` is UTF-8: the whole is, and
/// every offset falls on a character's first byte.
fn utf8_at(data: &[u8], offsets: &[usize]) -> bool {
    match std::str::from_utf8(data) {
        Ok(t) => t.is_ascii() || offsets.iter().all(|&o| t.is_char_boundary(o)),
        Err(_) => false,
    }
}

impl ColumnBatch {
    /// The records as values, as the `Value` reader gives them (for tests
    /// and for readers that want both).
    pub fn to_values(&self) -> Vec<Value> {
        self.root.to_values(&self.ty)
    }
}

impl ColumnData {
    /// How many values the node holds.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::Unit(n) => *n as usize,
            ColumnData::Bool(v) => v.len(),
            ColumnData::U8(v) => v.len(),
            ColumnData::U16(v) => v.len(),
            ColumnData::U32(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::U128(v) => v.len(),
            ColumnData::I8(v) => v.len(),
            ColumnData::I16(v) => v.len(),
            ColumnData::I32(v) | ColumnData::Date(v) => v.len(),
            ColumnData::I64(v) | ColumnData::Timestamp(v) => v.len(),
            ColumnData::I128(v) => v.len(),
            ColumnData::F32(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::Wide { bytes, .. } => bytes.len() / 32,
            ColumnData::Binary { offsets, .. } => offsets.len() - 1,
            ColumnData::Option { present, .. } => present.len(),
            ColumnData::List { offsets, .. } => offsets.len() - 1,
            ColumnData::Array { n, .. } | ColumnData::Fields { n, .. } => *n as usize,
            ColumnData::Enum { tags, .. } => tags.len(),
            ColumnData::Values(v) => v.len(),
        }
    }

    /// Whether the node holds no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The node's values, of type `ty` (the type it was decoded as).
    pub fn to_values(&self, ty: &Metadata) -> Vec<Value> {
        fn map<T: Copy>(v: &[T], f: impl Fn(T) -> Value) -> Vec<Value> {
            v.iter().map(|&x| f(x)).collect()
        }
        match (self, ty) {
            (ColumnData::Unit(n), _) => vec![Value::Unit; *n as usize],
            (ColumnData::Bool(v), _) => map(v, Value::Bool),
            (ColumnData::U8(v), _) => map(v, Value::U8),
            (ColumnData::U16(v), _) => map(v, Value::U16),
            (ColumnData::U32(v), _) => map(v, Value::U32),
            (ColumnData::U64(v), _) => map(v, Value::U64),
            (ColumnData::U128(v), _) => map(v, Value::U128),
            (ColumnData::I8(v), _) => map(v, Value::I8),
            (ColumnData::I16(v), _) => map(v, Value::I16),
            (ColumnData::I32(v), _) => map(v, Value::I32),
            (ColumnData::I64(v), _) => map(v, Value::I64),
            (ColumnData::I128(v), _) => map(v, Value::I128),
            (ColumnData::F32(v), _) => map(v, Value::F32),
            (ColumnData::F64(v), _) => map(v, Value::F64),
            (ColumnData::Date(v), _) => map(v, Value::Date),
            (ColumnData::Timestamp(v), _) => map(v, Value::Timestamp),
            (ColumnData::Wide { signed, bytes }, _) => bytes
                .chunks_exact(32)
                .map(|b| {
                    let b: [u8; 32] = b.try_into().expect("32 bytes");
                    if *signed {
                        Value::I256(I256::from_le_bytes(b))
                    } else {
                        Value::U256(U256::from_le_bytes(b))
                    }
                })
                .collect(),
            (ColumnData::Binary { utf8, offsets, data }, _) => offsets
                .windows(2)
                .map(|w| {
                    let b = &data[w[0]..w[1]];
                    match std::str::from_utf8(b) {
                        Ok(s) if *utf8 => Value::String(s.to_owned()),
                        _ => Value::Bytes(b.to_vec()),
                    }
                })
                .collect(),
            (ColumnData::Option { present, inner }, Metadata::Option(ity)) => {
                let mut vals = inner.to_values(ity).into_iter();
                present
                    .iter()
                    .map(|&p| Value::Option(OptionValue::new_unchecked(ity.clone(), p.then(|| vals.next()).flatten())))
                    .collect()
            }
            (ColumnData::List { offsets, items }, Metadata::Vec(ety)) => {
                let mut vals = items.to_values(ety).into_iter();
                offsets
                    .windows(2)
                    .map(|w| {
                        Value::Vec(VecValue::new_unchecked(
                            ety.clone(),
                            vals.by_ref().take((w[1] - w[0]) as usize).collect(),
                        ))
                    })
                    .collect()
            }
            (ColumnData::Array { len, items, .. }, Metadata::Array(a)) => {
                let ety = Arc::new(a.element.clone());
                let mut vals = items.to_values(&a.element).into_iter();
                (0..self.len())
                    .map(|_| {
                        Value::Array(VecValue::new_unchecked(ety.clone(), vals.by_ref().take(*len as usize).collect()))
                    })
                    .collect()
            }
            (ColumnData::Fields { columns: fields, .. }, Metadata::Struct(s)) => {
                let mut cols: Vec<_> =
                    fields.iter().zip(s.fields()).map(|(f, (_, t))| f.to_values(t).into_iter()).collect();
                (0..self.len())
                    .map(|_| {
                        let vals: Box<[Value]> = cols.iter_mut().map(|c| c.next().expect("n values")).collect();
                        Value::Struct(StructValue::new_unchecked(s.clone(), vals))
                    })
                    .collect()
            }
            (ColumnData::Fields { columns: items, .. }, Metadata::Tuple(types)) => {
                let mut cols: Vec<_> =
                    items.iter().zip(types.iter()).map(|(f, t)| f.to_values(t).into_iter()).collect();
                (0..self.len())
                    .map(|_| {
                        let vals: Box<[Value]> = cols.iter_mut().map(|c| c.next().expect("n values")).collect();
                        Value::Tuple(TupleValue::new_unchecked(types.clone(), vals))
                    })
                    .collect()
            }
            (ColumnData::Enum { tags, payloads }, Metadata::Enum(e)) => {
                let mut parts: Vec<_> =
                    payloads.iter().zip(e.variants()).map(|(p, (_, t))| p.to_values(t).into_iter()).collect();
                tags.iter()
                    .map(|&t| {
                        let p = parts[t as usize].next().expect("counted");
                        Value::Enum(EnumValue::new_unchecked(e.clone(), t as usize, p))
                    })
                    .collect()
            }
            (ColumnData::Values(v), _) => v.clone(),
            (data, ty) => unreachable!("a column of {} decoded as {ty}", data.len()),
        }
    }
}
