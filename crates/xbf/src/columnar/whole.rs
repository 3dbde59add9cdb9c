//! Whole columns for the code `#[derive(xbf::Xbf)]` writes: every value of
//! a node read at once into a `Vec` of the reader's type, and records put
//! together from their fields' vecs, with no serde call per value (as
//! Tree-Buf's derive reads). Used only for a message whose type is exactly
//! the reader's, so fields need no matching by name; types without a
//! whole-column reader of their own (enums, maps, tuples, borrowed text)
//! are read value by value through serde from the same node.

use serde::Deserialize;

use super::typed::{place, ran_out, read_root, Cx, Data, Node, NodeDe};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::Metadata;
use crate::options::DecodeOptions;

/// Reads the columns in `bytes` (from message offset `base`), of type `ty`
/// (the reader's own), with a type's whole-column reader `decode` (the
/// derive's `Decode::decode_column`); `seq_ok` as for the serde reader.
pub(crate) fn from_columns<'de, T>(
    opts: &DecodeOptions,
    ty: &Metadata,
    bytes: &'de [u8],
    base: u64,
    seq_ok: bool,
    decode: impl FnOnce(WholeColumn<'_, '_, 'de>) -> Result<Vec<T>>,
) -> Result<T> {
    read_root(opts, ty, bytes, base, seq_ok, |cx, node| {
        let at = node.at();
        decode(WholeColumn { cx, node })?.pop().ok_or_else(|| ran_out(at))
    })
}

/// Reads the columns of a columnar message whole, with no serde type: `ty`
/// is the message's type and `bytes` its columns (from message offset
/// `base`), which are framed and checked against `ty` before `read` gets
/// the root column (one value). For readers that build values of their own
/// from whole columns, as the Python binding does; nodes `read` leaves
/// unread are still checked.
pub fn read_columns<'de, T>(
    opts: &DecodeOptions,
    ty: &Metadata,
    bytes: &'de [u8],
    base: u64,
    read: impl FnOnce(WholeColumn<'_, '_, 'de>) -> Result<T>,
) -> Result<T> {
    read_root(opts, ty, bytes, base, false, |cx, node| read(WholeColumn { cx, node }))
}

/// One node of a columnar message (all the values at one path of its type
/// tree), as `#[derive(Xbf)]`'s code reads it: whole.
pub struct WholeColumn<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    node: &'a mut Node<'de>,
}

/// A struct's or a tuple's fields, or an enum's or an `any`'s parts, one
/// [`WholeColumn`] each, in their order.
pub struct WholeFields<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    fields: std::slice::IterMut<'a, Node<'de>>,
    at: u64,
}

#[cold]
fn not_the_type(at: u64) -> Error {
    Error::at(ErrorKind::TypeMismatch, at, "the column's type is not the reader's")
}

impl<'a, 'o, 'de> WholeColumn<'a, 'o, 'de> {
    /// How many values the node holds.
    pub fn len(&self) -> u64 {
        self.node.n
    }

    /// Where the node's columns start in the message.
    pub fn offset(&self) -> u64 {
        self.node.at()
    }

    /// Whether the node holds no values.
    pub fn is_empty(&self) -> bool {
        self.node.n == 0
    }

    /// The node's type in the message: for the parts of an `any` (see
    /// [`WholeColumn::tagged`]), the type the column gives each part.
    pub fn metadata(&self) -> &Metadata {
        self.node.ty()
    }

    /// The node's decoded columns, every value counted as taken. A node is
    /// read whole or value by value, never both.
    fn whole(self) -> Result<(&'a mut Cx<'o>, &'a mut Data<'de>, u64)> {
        let WholeColumn { cx, node } = self;
        let at = node.at();
        if node.pos != 0 {
            return Err(ran_out(at));
        }
        node.data(cx).map_err(|e| place(e, at))?;
        node.pos = node.n;
        match node.data.as_mut() {
            Some(data) => Ok((cx, data, at)),
            None => Err(ran_out(at)),
        }
    }

    /// The values one by one through serde: for types without a reader of
    /// their own.
    pub fn each<T: Deserialize<'de>>(self) -> Result<Vec<T>> {
        let WholeColumn { cx, node } = self;
        // Grown as values come: a count alone does not show that the input
        // holds that many values of T's size.
        let mut out = Vec::with_capacity(capacity::<T>(node.n));
        for _ in 0..node.n {
            out.push(T::deserialize(NodeDe { cx: &mut *cx, node: &mut *node })?);
        }
        Ok(out)
    }

    /// An integer column of at most 64 bits: the values as written
    /// (zigzag-coded where signed).
    pub fn ints(self) -> Result<Vec<u64>> {
        match self.whole()? {
            (_, Data::Ints(v), _) => Ok(std::mem::take(v)),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// A 128-bit integer column, likewise.
    pub fn wide_ints(self) -> Result<Vec<u128>> {
        match self.whole()? {
            (_, Data::Wide128(v), _) => Ok(std::mem::take(v)),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// An `f32` column.
    pub fn f32s(self) -> Result<Vec<f32>> {
        match self.whole()? {
            (_, Data::F32(v), _) => Ok(std::mem::take(v)),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// An `f64` column.
    pub fn f64s(self) -> Result<Vec<f64>> {
        match self.whole()? {
            (_, Data::F64(v), _) => Ok(std::mem::take(v)),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// A string column, each value made into a `T` by `f`.
    pub fn strings<T>(self, mut f: impl FnMut(&str) -> T) -> Result<Vec<T>> {
        match self.whole()? {
            (_, Data::Text { text, spans, base }, at) => {
                let mut out = Vec::with_capacity(spans.len());
                for &(s, e) in spans.iter() {
                    match text.get(s - *base..e - *base) {
                        Some(t) => out.push(f(t)),
                        None => return Err(ran_out(at)),
                    }
                }
                Ok(out)
            }
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// A bytes column, as the field type `T` of `#[serde(with = "serde_bytes")]`:
    /// `from_bytes` and `from_made` are its `BytesField` functions (values
    /// borrowed from the message, or from bytes the reader made).
    pub fn bytes<T>(self, from_bytes: fn(&'de [u8]) -> T, from_made: fn(&[u8]) -> Option<T>) -> Result<Vec<T>> {
        let (_, data, at) = self.whole()?;
        let Data::Bytes { bytes, spans } = data else { return Err(not_the_type(at)) };
        let mut out = Vec::with_capacity(spans.len());
        for &(s, e) in spans.iter() {
            let v = match bytes {
                std::borrow::Cow::Borrowed(b) => b.get(s..e).map(from_bytes),
                std::borrow::Cow::Owned(b) => match from_made(b.get(s..e).ok_or_else(|| ran_out(at))?) {
                    Some(v) => Some(v),
                    None => {
                        return Err(Error::at(ErrorKind::TypeMismatch, at, "bytes borrowed from a compressed column"))
                    }
                },
            };
            out.push(v.ok_or_else(|| ran_out(at))?);
        }
        Ok(out)
    }

    /// An option column: whether each value is present, and the column of
    /// those that are.
    pub fn options(self) -> Result<(Vec<bool>, WholeColumn<'a, 'o, 'de>)> {
        match self.whole()? {
            (cx, Data::Option { present, inner }, _) => Ok((std::mem::take(present), WholeColumn { cx, node: inner })),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// A vec column: each value's length, and the column of all their
    /// elements.
    pub fn vecs(self) -> Result<(Vec<u64>, WholeColumn<'a, 'o, 'de>)> {
        match self.whole()? {
            (cx, Data::Vec { lens, elems }, _) => Ok((std::mem::take(lens), WholeColumn { cx, node: elems })),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// A map column: each value's length, and its keys and values (their
    /// keys were checked for duplicates when the column was read), read
    /// whole by `keys` and `values`.
    pub fn maps<K, V>(
        self,
        keys: impl FnOnce(WholeColumn<'_, 'o, 'de>) -> Result<Vec<K>>,
        values: impl FnOnce(WholeColumn<'_, 'o, 'de>) -> Result<Vec<V>>,
    ) -> Result<(Vec<u64>, Vec<K>, Vec<V>)> {
        match self.whole()? {
            (cx, Data::Map { lens, keys: k, values: v }, _) => {
                let k = keys(WholeColumn { cx, node: k })?;
                let v = values(WholeColumn { cx, node: v })?;
                Ok((std::mem::take(lens), k, v))
            }
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// An array column: the array's length, and the column of all the
    /// elements.
    pub fn arrays(self) -> Result<(u64, WholeColumn<'a, 'o, 'de>)> {
        match self.whole()? {
            (cx, Data::Array { len, elems }, _) => Ok((*len, WholeColumn { cx, node: elems })),
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// An enum's or an `any`'s column: each value's variant (or type)
    /// index, and one column per variant (or per type the column holds,
    /// whose [`WholeColumn::metadata`] gives it) of the payloads of the
    /// values of that index, in order.
    pub fn tagged(self) -> Result<(Vec<u32>, WholeFields<'a, 'o, 'de>)> {
        match self.whole()? {
            (cx, Data::Tagged { tags, parts }, at) => {
                Ok((std::mem::take(tags), WholeFields { cx, fields: parts.iter_mut(), at }))
            }
            (.., at) => Err(not_the_type(at)),
        }
    }

    /// A struct or tuple column: its fields' columns, which hold as many
    /// values as it does.
    pub fn fields(self) -> Result<WholeFields<'a, 'o, 'de>> {
        match self.whole()? {
            (cx, Data::Fields { fields, .. }, at) => Ok(WholeFields { cx, fields: fields.iter_mut(), at }),
            (.., at) => Err(not_the_type(at)),
        }
    }
}

impl<'o, 'de> WholeFields<'_, 'o, 'de> {
    /// The next field's column.
    pub fn next_field(&mut self) -> Result<WholeColumn<'_, 'o, 'de>> {
        match self.fields.next() {
            Some(node) => Ok(WholeColumn { cx: self.cx, node }),
            None => Err(not_the_type(self.at)),
        }
    }

    /// How many fields (or parts) are left.
    pub fn remaining(&self) -> usize {
        self.fields.len()
    }

    /// Fails unless every field was read.
    pub fn finish(&self) -> Result<()> {
        match self.fields.len() {
            0 => Ok(()),
            _ => Err(not_the_type(self.at)),
        }
    }

    /// The error for a field column that held fewer values than its struct.
    #[cold]
    pub fn short(&self) -> Error {
        ran_out(self.at)
    }
}

/// How many `T`s to make room for before the values are read: `n`, but no
/// more than 1 MiB's worth (as serde's own vec reader does).
pub fn capacity<T>(n: u64) -> usize {
    let most = (1 << 20) / std::mem::size_of::<T>().max(1);
    usize::try_from(n).unwrap_or(usize::MAX).min(most)
}
