//! One block of an XBF file as typed columns: the records of a block pushed
//! column by column into a [`ColumnNode`] tree (for writers whose data is
//! already in columns, such as Arrow arrays), then given to
//! [`FileWriter::write_columns`](crate::FileWriter::write_columns), which
//! encodes them without a `Value` per record. The bounds of the block's
//! columns are taken from the columns here, as `file::stats::gather` takes
//! them from values, so both paths write the same footer (the file layer
//! turns them into statistics: this layer does not know the footer's form).

use std::collections::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::value::Value;
use crate::wire::varint;

use super::{mismatch, ColumnNode, IntCol, Node};
use crate::columnar::ColumnConfig;

/// The columns of a block of records of one type, filled column by column.
///
/// The root node takes every record's value, so after pushing `n` records
/// into it, [`add_records`](BlockColumns::add_records)`(n)` says how many
/// there are (a struct's node has no column of its own to count them).
///
/// ```
/// use xbf::{BlockColumns, FileOptions, FileReader, FileWriter, Metadata, PrimitiveType, StructMetadata};
///
/// let ty: Metadata = StructMetadata::new(
///     "Row",
///     [("id", Metadata::from(PrimitiveType::U64)), ("name", PrimitiveType::String.into())],
/// )?
/// .into();
/// let mut block = BlockColumns::new(&ty);
/// block.root().field(0)?.extend_u64(&[1, 2, 3])?;
/// block.root().field(1)?.extend_str("annbocy", &[3, 5, 7])?;
/// block.add_records(3);
/// let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default())?;
/// w.write_columns(block)?;
/// let bytes = w.finish()?;
/// let r = FileReader::open(std::io::Cursor::new(bytes))?;
/// assert_eq!(r.blocks()[0].records, 3);
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Debug)]
pub struct BlockColumns {
    ty: Metadata,
    root: ColumnNode,
    records: usize,
}

impl BlockColumns {
    /// Empty columns for records of type `ty`.
    pub fn new(ty: &Metadata) -> BlockColumns {
        BlockColumns { ty: ty.clone(), root: ColumnNode::new(ty), records: 0 }
    }

    /// The type of the records.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// The node that takes each record's value.
    pub fn root(&mut self) -> &mut ColumnNode {
        &mut self.root
    }

    /// Counts `n` more records, pushed into [`root`](BlockColumns::root).
    pub fn add_records(&mut self, n: usize) {
        self.records += n;
    }

    /// The records counted so far.
    pub fn records(&self) -> usize {
        self.records
    }

    /// Checks that every column holds as many values as the record count
    /// and the columns above it say.
    pub(crate) fn check(&self) -> Result<()> {
        self.root.check(self.records)
    }

    /// The bounds of every primitive column that `stat_type` gives a
    /// statistics type (the file's rule), keyed as `file::stats::gather`
    /// keys them.
    pub(crate) fn bounds(&self, stat_type: fn(P) -> Option<P>) -> HashMap<String, Bounds> {
        let mut out = HashMap::new();
        gather(&self.root, stat_type, &mut Vec::new(), 0, &mut out);
        out
    }

    /// Appends the columns (SPEC.md 22.1) to `out`.
    pub(crate) fn write(mut self, out: &mut Vec<u8>, cfg: &ColumnConfig) {
        let mut bodies = crate::columnar::Bodies::default();
        self.root.lend().write(&self.ty, &mut bodies, cfg);
        bodies.finish(out);
    }
}

/// Bulk appends for the column kinds that `builder.rs` takes one at a time.
impl ColumnNode {
    /// Appends many `f32`s at once.
    pub fn extend_f32(&mut self, xs: &[f32]) -> Result<()> {
        match &mut self.node {
            Node::F32(col) => {
                col.extend_from_slice(xs);
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "f32s")),
        }
    }

    /// Appends many byte strings at once, given one after the other in
    /// `joined` and by where each ends in it (increasing, the last at most
    /// `joined.len()`).
    pub fn extend_bytes(&mut self, joined: &[u8], ends: &[usize]) -> Result<()> {
        let mut at = 0;
        for &end in ends {
            if end < at || end > joined.len() {
                return Err(Error::new(
                    ErrorKind::TypeMismatch,
                    format!("byte string ends must increase within the {} bytes", joined.len()),
                ));
            }
            at = end;
        }
        match (&mut self.node, &self.ty) {
            (Node::Bytes { data, ends: own }, Metadata::Primitive(P::Bytes)) => {
                let base = data.len();
                data.extend_from_slice(&joined[..at]);
                own.extend(ends.iter().map(|&e| base + e));
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "byte strings")),
        }
    }

    /// Appends 256-bit integers (`u256` or `i256`), 32 little-endian bytes
    /// each (two's complement for `i256`).
    pub fn extend_256(&mut self, le_bytes: &[u8]) -> Result<()> {
        match &mut self.node {
            Node::Wide(col) if le_bytes.len() % 32 == 0 => {
                col.extend_from_slice(le_bytes);
                Ok(())
            }
            _ => Err(mismatch(&self.ty, &format!("{} bytes of 256-bit integers", le_bytes.len()))),
        }
    }

    /// Appends many vecs by their lengths and gives the node of their
    /// items, which then takes all of them in order.
    pub fn extend_lens(&mut self, lens: impl IntoIterator<Item = usize>) -> Result<&mut ColumnNode> {
        match &mut self.node {
            Node::Seq(Some(own), elem) => {
                own.extend(lens.into_iter().map(|n| n as u128));
                Ok(elem)
            }
            _ => Err(mismatch(&self.ty, "vec lengths")),
        }
    }

    /// Appends many maps by their entry counts and gives the nodes of their
    /// keys and of their values, which then take all of them in order.
    pub fn extend_map_lens(
        &mut self,
        lens: impl IntoIterator<Item = usize>,
    ) -> Result<(&mut ColumnNode, &mut ColumnNode)> {
        match &mut self.node {
            Node::Map(own, k, v) => {
                own.extend(lens.into_iter().map(|n| n as u128));
                Ok((k, v))
            }
            _ => Err(mismatch(&self.ty, "map lengths")),
        }
    }

    /// Appends many enum values by their variant indices and gives every
    /// variant's node, which then takes the payloads of its values in order.
    pub fn extend_variants(&mut self, tags: &[usize]) -> Result<Vec<&mut ColumnNode>> {
        match &mut self.node {
            Node::Enum(own, variants) => {
                if let Some(&t) = tags.iter().find(|&&t| t >= variants.len()) {
                    return Err(mismatch(&self.ty, &format!("variant {t}")));
                }
                own.extend(tags.iter().copied());
                Ok(variants.iter_mut().collect())
            }
            _ => Err(mismatch(&self.ty, "enum values")),
        }
    }
}

/// The statistics of the primitive columns under `node`, as
/// `file::stats::walk` gathers them from values: `nulls` counts the values
/// of the nearest enclosing record, element or entry absent at this place.
fn gather(
    node: &ColumnNode,
    stat_type: fn(P) -> Option<P>,
    path: &mut Vec<String>,
    nulls: u64,
    out: &mut HashMap<String, Bounds>,
) {
    let mut nested = |name: String, node: &ColumnNode, nulls: u64| {
        path.push(name);
        gather(node, stat_type, path, nulls, out);
        path.pop();
    };
    match (&node.node, &node.ty) {
        (Node::Seq(_, elem), _) => nested("[]".into(), elem, 0),
        (Node::Fields(fields), Metadata::Struct(s)) => {
            for (f, (name, _)) in fields.iter().zip(s.fields()) {
                nested(name.to_owned(), f, nulls);
            }
        }
        (Node::Fields(fields), _) => {
            for (i, f) in fields.iter().enumerate() {
                nested(i.to_string(), f, nulls);
            }
        }
        (Node::Option(present, inner), _) => {
            let absent = present.iter().filter(|&&p| p == 0).count() as u64;
            gather(inner, stat_type, path, nulls + absent, out);
        }
        (Node::Map(_, k, v), _) => {
            nested("key".into(), k, 0);
            nested("value".into(), v, 0);
        }
        (Node::Enum(_, variants), Metadata::Enum(e)) => {
            for (v, (name, _)) in variants.iter().zip(e.variants()) {
                nested(name.to_owned(), v, 0);
            }
        }
        (_, Metadata::Primitive(p)) => {
            if let Some(st) = stat_type(*p).and_then(|p| of_column(&node.node, p, nulls)) {
                out.insert(path.join("."), st);
            }
        }
        _ => {}
    }
}

/// The smallest and largest value of one column, how many of its records,
/// elements or entries are absent (`nulls`) and how many floats are NaN.
pub(crate) struct Bounds {
    pub(crate) lo: Option<Value>,
    pub(crate) hi: Option<Value>,
    pub(crate) nulls: u64,
    pub(crate) nans: u64,
}

/// The bounds of one primitive column of statistics type `p`.
fn of_column(node: &Node, p: P, nulls: u64) -> Option<Bounds> {
    let (lo, hi, nans) = match node {
        Node::Ints { col, signed, .. } => {
            let (lo, hi) = match (col, signed) {
                (IntCol::Narrow(c), false) => min_max(c.iter().map(|&x| i128::from(x))),
                (IntCol::Narrow(c), true) => min_max(c.iter().map(|&x| varint::unzigzag(u128::from(x)))),
                (IntCol::Wide(c), true) => min_max(c.iter().map(|&x| varint::unzigzag(x))),
                (IntCol::Wide(c), false) => {
                    // u128 values above i128::MAX: ordered as unsigned.
                    let lo = c.iter().copied().min();
                    let hi = c.iter().copied().max();
                    return Some(Bounds { lo: lo.map(Value::U128), hi: hi.map(Value::U128), nulls, nans: 0 });
                }
            };
            (lo.map(|x| int_value(p, x)), hi.map(|x| int_value(p, x)), 0)
        }
        Node::Bool(c) => {
            let (lo, hi) = min_max(c.iter().map(|&b| i128::from(b)));
            (lo.map(|b| Value::Bool(b != 0)), hi.map(|b| Value::Bool(b != 0)), 0)
        }
        Node::F64(c) => {
            let (lo, hi, nans) = float_bounds(c);
            (lo.map(Value::F64), hi.map(Value::F64), nans)
        }
        Node::F32(c) => {
            let (lo, hi, nans) = float_bounds(c);
            (lo.map(Value::F32), hi.map(Value::F32), nans)
        }
        Node::Bytes { data, ends } => {
            let mut start = 0;
            let mut lo: Option<&[u8]> = None;
            let mut hi: Option<&[u8]> = None;
            for &end in ends {
                let v = &data[start..end];
                start = end;
                if lo.map_or(true, |m| v < m) {
                    lo = Some(v);
                }
                if hi.map_or(true, |m| v > m) {
                    hi = Some(v);
                }
            }
            let value = |b: &[u8]| match p {
                P::String => Value::String(String::from_utf8_lossy(b).into_owned()),
                _ => Value::Bytes(b.to_vec()),
            };
            (lo.map(value), hi.map(value), 0)
        }
        _ => return None,
    };
    Some(Bounds { lo, hi, nulls, nans })
}

/// The smallest and largest of `xs`.
fn min_max(xs: impl Iterator<Item = i128>) -> (Option<i128>, Option<i128>) {
    xs.fold((None, None), |(lo, hi), x| {
        (Some(lo.map_or(x, |m: i128| m.min(x))), Some(hi.map_or(x, |m: i128| m.max(x))))
    })
}

/// The first-seen smallest and largest floats other than NaN (so of `-0.0`
/// and `0.0`, whichever comes first, as the values' statistics keep), and
/// how many are NaN.
fn float_bounds<F: Copy + PartialOrd>(xs: &[F]) -> (Option<F>, Option<F>, u64) {
    let mut nans = 0;
    let (mut lo, mut hi): (Option<F>, Option<F>) = (None, None);
    for &x in xs {
        #[allow(clippy::eq_op)]
        if x != x {
            nans += 1;
            continue;
        }
        if lo.map_or(true, |m| x < m) {
            lo = Some(x);
        }
        if hi.map_or(true, |m| x > m) {
            hi = Some(x);
        }
    }
    (lo, hi, nans)
}

/// An integer of a column of statistics type `p` as its value.
fn int_value(p: P, x: i128) -> Value {
    match p {
        P::U8 => Value::U8(x as u8),
        P::U16 => Value::U16(x as u16),
        P::U32 => Value::U32(x as u32),
        P::U64 => Value::U64(x as u64),
        P::U128 => Value::U128(x as u128),
        P::I8 => Value::I8(x as i8),
        P::I16 => Value::I16(x as i16),
        P::I32 => Value::I32(x as i32),
        P::I64 => Value::I64(x as i64),
        P::Date => Value::Date(x as i32),
        P::Timestamp => Value::Timestamp(x as i64),
        _ => Value::I128(x),
    }
}
