//! Reading columns back into a [`Value`]: one node of the type tree at a
//! time, each column decoded whole, the selection's other columns skipped.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{ArrayMetadata, Metadata, PrimitiveType as P, StructMetadata};
use crate::options::DecodeOptions;
use crate::value::{AnyValue, EnumValue, MapValue, OptionValue, StructValue, TupleValue, Value, VecValue, I256, U256};
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::*;

/// A column's body: in the message, or decompressed.
pub(crate) struct Column<'a> {
    pub(super) data: std::borrow::Cow<'a, [u8]>,
    pub(super) base: u64,
    /// Offsets inside a decompressed body have no place in the message:
    /// errors there report the column's own offset.
    pub(super) fixed: bool,
    /// The column stands in a block of an XBF file (see [`Cursor::in_file`]).
    pub(super) file: bool,
}

impl Column<'_> {
    pub(crate) fn cursor(&self) -> Cursor<'_> {
        let mut c = Cursor::new(&self.data, self.base);
        if self.file {
            c = c.in_file();
        }
        if self.fixed {
            c.fixed()
        } else {
            c
        }
    }
}

pub(crate) struct Reader<'o> {
    pub(crate) opts: &'o DecodeOptions,
    pub(crate) budget: Budget,
    /// One zstd context for every compressed column of the message: making
    /// one per column cost more than decompressing the small ones.
    #[cfg(feature = "zstd")]
    unpacker: Option<zstd::bulk::Decompressor<'static>>,
}

/// An array node whose child would hold more than 2^64 values: more than
/// any budget allows (SPEC.md §22.3), at the child node's first byte and
/// with its path (the array's elements).
pub(crate) fn array_too_large(at: u64) -> Error {
    Error::at(ErrorKind::TooLarge, at, "the array's elements (n × N) pass 2^64 values, more than any budget allows")
        .within(PathSegment::Element)
}

fn within(seg: PathSegment) -> impl FnOnce(Error) -> Error {
    move |e| e.within(seg)
}

impl<'o> Reader<'o> {
    /// A reader of columns, with the decode budget the options give
    /// (SPEC.md §22.3: the same absolute budget as rows, whatever the
    /// message's length, so that whatever a writer makes reads back).
    pub(crate) fn new(opts: &'o DecodeOptions) -> Self {
        let limit = opts.max_decoded_bytes;
        Reader {
            opts,
            budget: Budget::new(limit),
            #[cfg(feature = "zstd")]
            unpacker: None,
        }
    }

    /// The next column's body, decompressed if it was compressed.
    pub(super) fn column<'a>(&mut self, c: &mut Cursor<'a>) -> Result<Column<'a>> {
        let mut block = c.block()?;
        let at = block.offset();
        if block.clone_first_byte() != E::Zstd.byte() {
            let base = block.offset();
            let rest = block.take(block.remaining() as usize)?;
            return Ok(Column { data: std::borrow::Cow::Borrowed(rest), base, fixed: false, file: c.is_file() });
        }
        block.u8()?;
        let raw_len = block.varint(64)?;
        self.budget.charge(at, raw_len)?;
        let packed = block.take(block.remaining() as usize)?;
        #[cfg(feature = "zstd")]
        {
            let fail = |e| Error::at(ErrorKind::InvalidColumn, at, format!("the zstd frame does not decompress: {e}"));
            let unpacker = match &mut self.unpacker {
                Some(u) => u,
                none => none.insert(zstd::bulk::Decompressor::new().map_err(fail)?),
            };
            let raw = unpacker.decompress(packed, raw_len as usize).map_err(fail)?;
            if raw.len() as u128 != raw_len {
                return Err(Error::at(
                    ErrorKind::InvalidColumn,
                    at,
                    format!("the column decompresses to {} bytes, not the {raw_len} it declares", raw.len()),
                ));
            }
            Ok(Column { data: std::borrow::Cow::Owned(raw), base: at, fixed: true, file: c.is_file() })
        }
        #[cfg(not(feature = "zstd"))]
        {
            let _ = packed;
            Err(Error::at(ErrorKind::Unsupported, at, "a zstd-compressed column: build xbf with the zstd feature"))
        }
    }

    pub(super) fn ints(&mut self, c: &mut Cursor<'_>, n: u64, bits: u32) -> Result<Vec<u128>> {
        self.ints_as(c, n, bits)
    }

    /// An integer column of `n` values of at most `bits`, as `T`.
    pub(super) fn ints_as<T: ints::Lane>(&mut self, c: &mut Cursor<'_>, n: u64, bits: u32) -> Result<Vec<T>> {
        let col = self.column(c)?;
        let mut cur = col.cursor();
        let values = ints::decode(&mut cur, n, bits)?;
        cur.finish("column")?;
        Ok(values)
    }

    /// Counts that add up to how many values the child node holds.
    pub(super) fn lengths(&mut self, c: &mut Cursor<'_>, n: u64) -> Result<(Vec<u64>, u64)> {
        let at = c.offset();
        let lens: Vec<u64> = self.ints_as(c, n, 64)?;
        let mut total: u64 = 0;
        for &l in &lens {
            total = total.checked_add(l).ok_or_else(|| c.invalid(at, "the lengths add up past 2^64".into()))?;
        }
        Ok((lens, total))
    }

    /// Decodes the `n` values of type `ty` whose columns start at `c`;
    /// `sel` picks the struct fields to decode (the rest are skipped) and
    /// `ty` is then the projected type.
    ///
    /// Every column is read and checked here; the values come out of the
    /// returned iterator, built only as the parent takes them, so that a
    /// record is assembled once, from compact columns, and never copied.
    pub(crate) fn node(
        &mut self,
        ty: &Metadata,
        n: u64,
        c: &mut Cursor<'_>,
        depth: usize,
        sel: Option<&Selection>,
    ) -> Result<(Metadata, Vals)> {
        let at = c.offset();
        self.budget.charge(at, u128::from(n) * VALUE_COST)?;
        let child = depth + 1;
        Ok(match ty {
            Metadata::Primitive(p) => (ty.clone(), self.primitive(*p, n, c)?),
            Metadata::Vec(elem) => {
                let (lens, total) = self.lengths(c, n)?;
                let (ety, mut flat) = self.node(elem, total, c, child, sel).map_err(within(PathSegment::Element))?;
                let ety = Arc::new(ety);
                let vty = ety.clone();
                let values = lens.into_iter().map(move |l| {
                    Value::Vec(VecValue::new_unchecked(vty.clone(), flat.by_ref().take(l as usize).collect()))
                });
                (Metadata::Vec(ety), Box::new(values))
            }
            Metadata::Array(a) => {
                let total = n.checked_mul(a.len).ok_or_else(|| array_too_large(at))?;
                let (ety, mut flat) =
                    self.node(&a.element, total, c, child, sel).map_err(within(PathSegment::Element))?;
                let ety = Arc::new(ety);
                let (vty, len) = (ety.clone(), a.len as usize);
                let values = (0..n).map(move |_| {
                    Value::Array(VecValue::new_unchecked(vty.clone(), flat.by_ref().take(len).collect()))
                });
                (Metadata::Array(Arc::new(ArrayMetadata { len: a.len, element: (*ety).clone() })), Box::new(values))
            }
            Metadata::Struct(s) => {
                let mut fields = Vec::new();
                let mut columns = Vec::new();
                for (name, fty) in s.fields() {
                    let pick = Selection::pick(sel, name);
                    match pick {
                        Some(sub) => {
                            let (fty, vals) =
                                self.node(fty, n, c, child, sub).map_err(within(PathSegment::Field(name.into())))?;
                            fields.push((name, fty));
                            columns.push(vals);
                        }
                        None => skip(fty, c, child, self.opts, &mut |_, _, _, _| {})
                            .map_err(within(PathSegment::Field(name.into())))?,
                    }
                }
                let sty = if sel.is_none() {
                    s.clone()
                } else {
                    Arc::new(StructMetadata::new(s.name(), fields).expect("fields of a struct are unique"))
                };
                let vty = sty.clone();
                let values = (0..n).map(move |_| {
                    let vals: Box<[Value]> = columns.iter_mut().map(|col| col.next().expect("n values")).collect();
                    Value::Struct(StructValue::new_unchecked(vty.clone(), vals))
                });
                (Metadata::Struct(sty), Box::new(values))
            }
            Metadata::Tuple(types) => {
                let mut columns = Vec::with_capacity(types.len());
                for (i, t) in types.iter().enumerate() {
                    columns.push(self.node(t, n, c, child, None).map_err(within(PathSegment::Position(i as u64)))?.1);
                }
                let types = types.clone();
                let values = (0..n).map(move |_| {
                    let items: Box<[Value]> = columns.iter_mut().map(|col| col.next().expect("n values")).collect();
                    Value::Tuple(TupleValue::new_unchecked(types.clone(), items))
                });
                (ty.clone(), Box::new(values))
            }
            Metadata::Option(inner) => {
                let present = self.ints(c, n, 1)?;
                let count = present.iter().filter(|&&p| p == 1).count() as u64;
                let (ity, mut vals) = self.node(inner, count, c, child, sel)?;
                let ity = Arc::new(ity);
                let vty = ity.clone();
                let values = present.into_iter().map(move |p| {
                    Value::Option(OptionValue::new_unchecked(vty.clone(), if p == 1 { vals.next() } else { None }))
                });
                (Metadata::Option(ity), Box::new(values))
            }
            Metadata::Map(m) => {
                let (lens, total) = self.lengths(c, n)?;
                // The keys' and values' nodes have the paths of a map's key
                // and value types in metadata (SPEC.md §17.3): `[].key`, `[].value`.
                let entry = |part: &str| {
                    let part = PathSegment::Field(part.into());
                    move |e: Error| e.within(part).within(PathSegment::Element)
                };
                let keys = self.node(&m.key, total, c, child, None).map_err(entry("key"))?.1;
                let vals = self.node(&m.value, total, c, child, None).map_err(entry("value"))?.1;
                let mut pairs = keys.zip(vals);
                let mut values = Vec::with_capacity(n as usize);
                for &l in &lens {
                    let entries: Vec<(Value, Value)> = pairs.by_ref().take(l as usize).collect();
                    let mut seen = std::collections::HashSet::with_capacity(entries.len());
                    for (k, _) in &entries {
                        if !seen.insert(crate::value::key_bytes(k)) {
                            return Err(Error::at(
                                ErrorKind::DuplicateKey,
                                at,
                                format!("key {k} appears twice in one map"),
                            ));
                        }
                    }
                    values.push(Value::Map(MapValue::new_unchecked(m.clone(), entries)));
                }
                (ty.clone(), Box::new(values.into_iter()))
            }
            Metadata::Enum(e) => {
                let tags_at = c.offset();
                let tags = self.ints(c, n, 64)?;
                let mut counts = vec![0u64; e.len()];
                for &t in &tags {
                    let slot = usize::try_from(t).ok().and_then(|t| counts.get_mut(t)).ok_or_else(|| {
                        Error::at(ErrorKind::UnknownVariant, tags_at, format!("enum {} has no variant {t}", e.name()))
                    })?;
                    *slot += 1;
                }
                let mut payloads = Vec::with_capacity(e.len());
                for ((name, pty), &count) in e.variants().zip(&counts) {
                    payloads.push(
                        self.node(pty, count, c, child, None).map_err(within(PathSegment::Field(name.into())))?.1,
                    );
                }
                let ety = e.clone();
                let values = tags.into_iter().map(move |t| {
                    let p = payloads[t as usize].next().expect("counted");
                    Value::Enum(EnumValue::new_unchecked(ety.clone(), t as usize, p))
                });
                (ty.clone(), Box::new(values))
            }
            Metadata::Any => {
                let types = any_types(c, child, self.opts)?;
                let tags_at = c.offset();
                let tags = self.ints(c, n, 64)?;
                let mut counts = vec![0u64; types.len()];
                for &t in &tags {
                    let slot = usize::try_from(t).ok().and_then(|t| counts.get_mut(t)).ok_or_else(|| {
                        c.invalid(tags_at, format!("a type index {t} past the {} types of the column", types.len()))
                    })?;
                    *slot += 1;
                }
                let mut parts = Vec::with_capacity(types.len());
                for (t, &count) in types.iter().zip(&counts) {
                    parts.push(self.node(t, count, c, child, None)?.1);
                }
                let values = tags.into_iter().map(move |t| {
                    let v = parts[t as usize].next().expect("counted");
                    Value::Any(Box::new(AnyValue::new_unchecked(types[t as usize].clone(), v)))
                });
                (ty.clone(), Box::new(values))
            }
        })
    }

    fn primitive(&mut self, p: P, n: u64, c: &mut Cursor<'_>) -> Result<Vals> {
        fn lazy<T: 'static>(v: Vec<T>, f: impl FnMut(T) -> Value + 'static) -> Result<Vals> {
            Ok(Box::new(v.into_iter().map(f)))
        }
        let signed = |z: u128| varint::unzigzag(z);
        match p.integer_type() {
            P::Unit => Ok(Box::new(std::iter::repeat(Value::Unit).take(n as usize))),
            P::Bool => lazy(self.ints(c, n, 1)?, |v| Value::Bool(v == 1)),
            P::U8 => lazy(self.ints(c, n, 8)?, |v| Value::U8(v as u8)),
            P::U16 => lazy(self.ints(c, n, 16)?, |v| Value::U16(v as u16)),
            P::U32 => lazy(self.ints(c, n, 32)?, |v| Value::U32(v as u32)),
            P::U64 => lazy(self.ints(c, n, 64)?, |v| Value::U64(v as u64)),
            P::U128 => lazy(self.ints(c, n, 128)?, Value::U128),
            P::I8 => lazy(self.ints(c, n, 8)?, move |z| Value::I8(signed(z) as i8)),
            P::I16 => lazy(self.ints(c, n, 16)?, move |z| Value::I16(signed(z) as i16)),
            P::I32 => lazy(self.ints(c, n, 32)?, move |z| Value::I32(signed(z) as i32)),
            P::I64 => lazy(self.ints(c, n, 64)?, move |z| Value::I64(signed(z) as i64)),
            P::I128 => lazy(self.ints(c, n, 128)?, move |z| Value::I128(signed(z))),
            P::Date => lazy(self.ints(c, n, 32)?, move |z| Value::Date(signed(z) as i32)),
            P::Timestamp => lazy(self.ints(c, n, 64)?, move |z| Value::Timestamp(signed(z) as i64)),
            P::F64 => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let v = floats::decode::<f64>(&mut col, n)?;
                col.finish("column")?;
                lazy(v, Value::F64)
            }
            P::F32 => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let v = floats::decode::<f32>(&mut col, n)?;
                col.finish("column")?;
                lazy(v, Value::F32)
            }
            P::String | P::Bytes => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let at = col.offset();
                let v = strings::decode(&mut col, n, &mut self.budget)?;
                col.finish("column")?;
                if p == P::Bytes {
                    return lazy(v, Value::Bytes);
                }
                let strings = v
                    .into_iter()
                    .map(|b| {
                        crate::utf8::string_from(b)
                            .map_err(|_| Error::at(ErrorKind::InvalidUtf8, at, "a string of the column is not UTF-8"))
                    })
                    .collect::<Result<Vec<String>>>()?;
                lazy(strings, Value::String)
            }
            P::U256 | P::I256 => {
                let col = self.column(c)?;
                let mut col = col.cursor();
                let at = col.offset();
                if col.u8()? != E::Plain256.byte() {
                    return Err(Error::at(ErrorKind::UnknownDiscriminant, at, "not a 256-bit integer column encoding"));
                }
                let bytes = col.take_checked(u128::from(n) * 32)?;
                col.finish("column")?;
                let values: Vec<Value> = bytes
                    .chunks_exact(32)
                    .map(|b| {
                        let b: [u8; 32] = b.try_into().expect("32 bytes");
                        if p == P::U256 {
                            Value::U256(U256::from_le_bytes(b))
                        } else {
                            Value::I256(I256::from_le_bytes(b))
                        }
                    })
                    .collect();
                Ok(Box::new(values.into_iter()))
            }
            other => unreachable!("{other} is an integer type's fixed form"),
        }
    }
}

/// Reads the column of types of an `any` node.
pub(super) fn any_types(c: &mut Cursor<'_>, depth: usize, opts: &DecodeOptions) -> Result<Vec<Metadata>> {
    if depth > opts.max_depth {
        return Err(Error::at(
            ErrorKind::TooDeep,
            c.offset(),
            format!("more than {} levels of nesting", opts.max_depth),
        ));
    }
    let mut col = c.block()?;
    let at = col.offset();
    if col.u8()? != E::Types.byte() {
        return Err(Error::at(ErrorKind::UnknownDiscriminant, at, "not a column of types"));
    }
    let d_at = col.offset();
    let d = col.varint(64)? as u64;
    col.check_fits(d_at, d, 1)?;
    let mut types = Vec::with_capacity(d as usize);
    for _ in 0..d {
        let rest_at = col.offset();
        let rest = col.take(col.remaining() as usize)?;
        // Read as metadata nested `depth` levels down, as in rows (SPEC.md
        // §17.3): the name of a struct or enum inside an `any` is not part
        // of any path.
        let mut d =
            crate::rows::value_read::Decoder::new(crate::rows::input::SliceInput::new(rest), opts, crate::Version::V2);
        let ty = d.metadata(depth).map_err(|e| e.shifted(rest_at))?;
        let used = crate::rows::input::Input::offset(&d.input) as usize;
        col = Cursor::new(&rest[used..], rest_at + used as u64);
        types.push(ty);
    }
    col.finish("column of types")?;
    Ok(types)
}

/// Decodes the columns that follow a columnar message's metadata: `bytes`
/// starts at message offset `base` and must be used up.
pub(crate) fn decode_message(
    ty: &Metadata,
    bytes: &[u8],
    base: u64,
    opts: &DecodeOptions,
    sel: Option<&Selection>,
) -> Result<(Metadata, Value)> {
    let mut reader = Reader::new(opts);
    let mut c = Cursor::new(bytes, base);
    let (pty, mut values) = reader.node(ty, 1, &mut c, 0, sel)?;
    if !c.at_end() {
        return Err(Error::at(ErrorKind::TrailingBytes, c.offset(), "bytes remain after the columns"));
    }
    Ok((pty, values.next().expect("one root value")))
}
