//! Reading serde values straight from a columnar message's columns.
//!
//! Each node of the message's type tree (SPEC.md §22.1) is decoded into a
//! compact buffer the first time the reader's type asks for one of its
//! values, then handed out value by value in the order the columns hold
//! them: records are built once, with no `Value` tree in between, and the
//! columns of fields the reader's type does not have are skipped by their
//! lengths without being read (SPEC.md §23.3). Fields are matched by name as in
//! rows (`typed::de`), with the same errors.

use std::borrow::Cow;

use serde::de::{
    self,
    value::{BorrowedStrDeserializer, StrDeserializer},
    DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::cursor::Cursor;
use super::strings::{self, Span};
use super::{any_types, floats, skip, Reader, VALUE_COST};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::options::DecodeOptions;
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

/// Decodes the root value of type `ty` from the columns in `bytes` (which
/// start at message offset `base` and must be used up) into `T`.
/// `seq_ok`: the reader's struct visitors take their fields as a sequence.
pub(crate) fn from_columns<'de, T: de::Deserialize<'de>>(
    opts: &DecodeOptions,
    ty: &Metadata,
    bytes: &'de [u8],
    base: u64,
    seq_ok: bool,
) -> Result<T> {
    read_root(opts, ty, bytes, base, seq_ok, |cx, root| T::deserialize(NodeDe { cx, node: root }))
}

/// Frames the columns in `bytes` (which start at message offset `base`
/// and must be used up) as a value of type `ty`, hands the root node to
/// `read`, then checks what the reader left (see [`Node::finish`]).
pub(super) fn read_root<'de, T>(
    opts: &DecodeOptions,
    ty: &Metadata,
    bytes: &'de [u8],
    base: u64,
    seq_ok: bool,
    read: impl FnOnce(&mut Cx<'_>, &mut Node<'de>) -> Result<T>,
) -> Result<T> {
    let mut cx = Cx { reader: Reader::new(opts), seq_ok };
    let start = Cursor::new(bytes, base);
    // The columns are framed before any is read: a message whose columns
    // end early or leave bytes over fails here, whatever the reader reads.
    let mut end = start.clone();
    skip(ty, &mut end, 0, opts, &mut |_, _, _, _| {})?;
    if !end.at_end() {
        return Err(Error::at(ErrorKind::TrailingBytes, end.offset(), "bytes remain after the columns"));
    }
    let mut root = Node::new(ty.clone(), 1, start, 0);
    let value = read(&mut cx, &mut root)?;
    root.finish(&mut cx)?;
    Ok(value)
}

pub(super) struct Cx<'o> {
    reader: Reader<'o>,
    seq_ok: bool,
}

/// A place of the message's type tree and the values found there.
pub(super) struct Node<'de> {
    ty: Metadata,
    /// How many values the node holds.
    pub(super) n: u64,
    /// Where its columns (then its children's) start.
    cur: Cursor<'de>,
    /// `cur`'s offset, which errors about the node's values name.
    at: u64,
    depth: usize,
    /// Values taken or skipped so far.
    pub(super) pos: u64,
    pub(super) data: Option<Data<'de>>,
}

/// A node's columns, decoded.
pub(super) enum Data<'de> {
    Unit,
    /// Integer-valued primitives of at most 64 bits as the unsigned values
    /// of their column.
    Ints(Vec<u64>),
    /// 128-bit integers, likewise.
    Wide128(Vec<u128>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// Strings, checked for UTF-8: spans, less `base`, of `text`, which
    /// lies in the message itself where the column does, unchanged.
    Text {
        text: Cow<'de, str>,
        spans: Vec<Span>,
        base: usize,
    },
    /// Bytes: spans of `bytes`, likewise.
    Bytes {
        bytes: Cow<'de, [u8]>,
        spans: Vec<Span>,
    },
    /// 256-bit integers, 32 bytes each.
    Wide(Cow<'de, [u8]>),
    Vec {
        lens: Vec<u64>,
        elems: Box<Node<'de>>,
    },
    Array {
        len: u64,
        elems: Box<Node<'de>>,
    },
    /// A struct's fields or a tuple's elements; `same` remembers, for the
    /// reader's field list at an address, whether it is the message's.
    Fields {
        fields: Vec<Node<'de>>,
        same: Option<(usize, bool)>,
    },
    Option {
        present: Vec<bool>,
        inner: Box<Node<'de>>,
    },
    Map {
        lens: Vec<u64>,
        keys: Box<Node<'de>>,
        values: Box<Node<'de>>,
    },
    /// An enum's variant indices, or an `any`'s type indices, and the
    /// payload node of each.
    Tagged {
        tags: Vec<u32>,
        parts: Vec<Node<'de>>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Any,
    Enum,
}

/// Fails where a column holds fewer values than its parent said: never,
/// since every count is derived from the columns above, but a reader does
/// not panic on a broken promise.
#[cold]
pub(crate) fn ran_out(at: u64) -> Error {
    Error::at(ErrorKind::InvalidColumn, at, "a column holds fewer values than its node")
}

#[inline]
fn get<T: Copy>(v: &[T], i: u64, at: u64) -> Result<T> {
    usize::try_from(i).ok().and_then(|i| v.get(i)).copied().ok_or_else(|| ran_out(at))
}

/// Gives an error without an offset (a serde custom error) the offset of
/// the column it is about.
pub(super) fn place(e: Error, at: u64) -> Error {
    if e.offset().is_none() {
        let mut n = Error::at(e.kind(), at, e.detail());
        let segs: Vec<PathSegment> = e.path().cloned().collect();
        for s in segs.into_iter().rev() {
            n = n.within(s);
        }
        n
    } else {
        e
    }
}

impl<'de> Node<'de> {
    fn new(ty: Metadata, n: u64, cur: Cursor<'de>, depth: usize) -> Self {
        Node { ty, n, at: cur.offset(), cur, depth, pos: 0, data: None }
    }

    #[inline]
    pub(super) fn at(&self) -> u64 {
        self.at
    }

    /// The node's type in the message (for an `any`'s parts, the type the
    /// column gives each).
    pub(super) fn ty(&self) -> &Metadata {
        &self.ty
    }

    /// The node's decoded columns, decoding them the first time.
    #[inline]
    pub(super) fn data(&mut self, cx: &mut Cx<'_>) -> Result<&mut Data<'de>> {
        if self.data.is_none() {
            self.load(cx)?;
        }
        Ok(self.data.as_mut().expect("decoded above"))
    }

    #[inline(never)]
    fn load(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        let skipped = std::mem::take(&mut self.pos);
        self.data = Some(self.decode(cx)?);
        // Values skipped before the columns were read: their children's
        // values are skipped now.
        self.skip(skipped)
    }

    /// Reads the nodes below a read node that hold no values (an empty
    /// vec's elements, an option that is never present, a variant never
    /// used), which the reader's type never asked for, so that a message
    /// whose every field the reader reads is checked whole, as the dynamic
    /// decoder checks it. Fields the reader's type does not have stay
    /// unread (SPEC.md §23.3).
    fn finish(&mut self, cx: &mut Cx<'_>) -> Result<()> {
        if self.data.is_none() {
            if self.n > 0 {
                return Ok(());
            }
            self.data(cx)?;
        }
        let children: Vec<&mut Node<'de>> = match self.data.as_mut().expect("read above") {
            Data::Vec { elems, .. } | Data::Array { elems, .. } | Data::Option { inner: elems, .. } => vec![elems],
            Data::Fields { fields: nodes, .. } | Data::Tagged { parts: nodes, .. } => nodes.iter_mut().collect(),
            Data::Map { keys, values, .. } => vec![keys, values],
            _ => Vec::new(),
        };
        children.into_iter().try_for_each(|c| c.finish(cx))
    }

    /// The index of the next value, counted as taken.
    #[inline]
    fn take(&mut self) -> Result<u64> {
        if self.pos >= self.n {
            return Err(ran_out(self.at()));
        }
        self.pos += 1;
        Ok(self.pos - 1)
    }

    /// Moves past `k` values without building them.
    #[inline]
    fn skip(&mut self, k: u64) -> Result<()> {
        match &self.data {
            // Nothing below to move along: a count is all there is.
            None | Some(Data::Unit | Data::Ints(_) | Data::F32(_) | Data::F64(_) | Data::Text { .. }) => {
                match self.pos.checked_add(k).filter(|&t| t <= self.n) {
                    Some(to) => {
                        self.pos = to;
                        Ok(())
                    }
                    None => Err(ran_out(self.at())),
                }
            }
            _ => self.skip_below(k),
        }
    }

    #[inline(never)]
    fn skip_below(&mut self, k: u64) -> Result<()> {
        if k == 0 {
            return Ok(());
        }
        let from = self.pos;
        let to = from.checked_add(k).filter(|&t| t <= self.n).ok_or_else(|| ran_out(self.at()))?;
        self.pos = to;
        let range = from as usize..to as usize;
        match &mut self.data {
            None => Ok(()),
            Some(Data::Unit | Data::Ints(_) | Data::Wide128(_) | Data::F32(_) | Data::F64(_))
            | Some(Data::Text { .. } | Data::Bytes { .. } | Data::Wide(_)) => Ok(()),
            Some(Data::Vec { lens, elems }) => elems.skip(lens[range].iter().sum()),
            Some(Data::Array { len, elems }) => elems.skip(k * *len),
            Some(Data::Fields { fields, .. }) => fields.iter_mut().try_for_each(|f| f.skip(k)),
            Some(Data::Option { present, inner }) => inner.skip(present[range].iter().filter(|&&p| p).count() as u64),
            Some(Data::Map { lens, keys, values }) => {
                let total = lens[range].iter().sum();
                keys.skip(total)?;
                values.skip(total)
            }
            Some(Data::Tagged { tags, parts }) => {
                let mut counts = vec![0u64; parts.len()];
                for &t in &tags[range] {
                    counts[t as usize] += 1;
                }
                parts.iter_mut().zip(counts).try_for_each(|(p, c)| p.skip(c))
            }
        }
    }

    /// Reads the node's own columns (its children are read when first
    /// asked for), with the dynamic decoder's checks and budget.
    fn decode(&self, cx: &mut Cx<'_>) -> Result<Data<'de>> {
        let mut c = self.cur.clone();
        let (n, at, child) = (self.n, self.at(), self.depth + 1);
        let r = &mut cx.reader;
        let opts = r.opts;
        r.budget.charge(at, u128::from(n) * VALUE_COST)?;
        // Nodes of `types`, whose columns follow one another from `c`.
        let children =
            |types: &mut dyn Iterator<Item = (Metadata, u64)>, c: &mut Cursor<'de>| -> Result<Vec<Node<'de>>> {
                let mut nodes = Vec::new();
                for (t, count) in types {
                    let start = c.clone();
                    skip(&t, c, child, opts, &mut |_, _, _, _| {})?;
                    nodes.push(Node::new(t, count, start, child));
                }
                Ok(nodes)
            };
        Ok(match &self.ty {
            Metadata::Primitive(p) => primitive(r, *p, n, &mut c)?,
            Metadata::Vec(elem) => {
                let (lens, total) = r.lengths(&mut c, n)?;
                Data::Vec { lens, elems: Box::new(Node::new((**elem).clone(), total, c, child)) }
            }
            Metadata::Array(a) => {
                let total = n.checked_mul(a.len).ok_or_else(|| super::array_too_large(at))?;
                Data::Array { len: a.len, elems: Box::new(Node::new(a.element.clone(), total, c, child)) }
            }
            Metadata::Struct(s) => {
                let fields = children(&mut s.fields().map(|(_, t)| (t.clone(), n)), &mut c)?;
                Data::Fields { fields, same: None }
            }
            Metadata::Tuple(ts) => {
                Data::Fields { fields: children(&mut ts.iter().map(|t| (t.clone(), n)), &mut c)?, same: None }
            }
            Metadata::Option(inner) => {
                let present: Vec<bool> = r.ints_as::<u64>(&mut c, n, 1)?.into_iter().map(|p| p == 1).collect();
                let count = present.iter().filter(|&&p| p).count() as u64;
                Data::Option { present, inner: Box::new(Node::new((**inner).clone(), count, c, child)) }
            }
            Metadata::Map(m) => {
                let (lens, total) = r.lengths(&mut c, n)?;
                check_keys(r, &m.key, &lens, total, c.clone(), child, at)?;
                let mut nodes = children(&mut [(m.key.clone(), total), (m.value.clone(), total)].into_iter(), &mut c)?;
                let values = Box::new(nodes.pop().expect("two nodes"));
                let keys = Box::new(nodes.pop().expect("two nodes"));
                Data::Map { lens, keys, values }
            }
            Metadata::Enum(e) => {
                let tags_at = c.offset();
                let (tags, counts) = tags(r, &mut c, n, e.len(), |t| {
                    Error::at(ErrorKind::UnknownVariant, tags_at, format!("enum {} has no variant {t}", e.name()))
                })?;
                let parts = children(&mut e.variants().zip(counts).map(|((_, t), k)| (t.clone(), k)), &mut c)?;
                Data::Tagged { tags, parts }
            }
            Metadata::Any => {
                let types = any_types(&mut c, child, r.opts)?;
                let tags_at = c.offset();
                let (tags, counts) = tags(r, &mut c, n, types.len(), |t| {
                    c_invalid(tags_at, format!("a type index {t} past the {} types of the column", types.len()))
                })?;
                let parts = children(&mut types.iter().cloned().zip(counts), &mut c)?;
                Data::Tagged { tags, parts }
            }
        })
    }
}

fn c_invalid(at: u64, detail: String) -> Error {
    Error::at(ErrorKind::InvalidColumn, at, detail)
}

/// A column of indices below `d`, and how many values take each.
fn tags(
    r: &mut Reader<'_>,
    c: &mut Cursor<'_>,
    n: u64,
    d: usize,
    bad: impl Fn(u64) -> Error,
) -> Result<(Vec<u32>, Vec<u64>)> {
    let raw: Vec<u64> = r.ints_as(c, n, 64)?;
    let mut counts = vec![0u64; d];
    let mut tags = Vec::with_capacity(raw.len());
    for t in raw {
        let slot = usize::try_from(t).ok().filter(|&t| t < d && t <= u32::MAX as usize).ok_or_else(|| bad(t))?;
        counts[slot] += 1;
        tags.push(slot as u32);
    }
    Ok((tags, counts))
}

/// Fails with `duplicate-key` where one map holds a key twice (SPEC.md
/// §13.2), as the dynamic decoder does: the keys are compared as values.
fn check_keys(
    r: &mut Reader<'_>,
    key: &Metadata,
    lens: &[u64],
    total: u64,
    mut c: Cursor<'_>,
    depth: usize,
    at: u64,
) -> Result<()> {
    if lens.iter().all(|&l| l < 2) {
        return Ok(());
    }
    // The keys are made as values here only to be compared, then dropped:
    // the budget is charged for them once, when the reader takes them.
    let left = r.budget.left;
    let (_, mut keys) = r
        .node(key, total, &mut c, depth, None)
        .map_err(|e| e.within(PathSegment::Field("key".into())).within(PathSegment::Element))?;
    r.budget.left = left;
    for &l in lens {
        let mut seen = std::collections::HashSet::with_capacity(l as usize);
        for k in keys.by_ref().take(l as usize) {
            if !seen.insert(crate::value::key_bytes(&k)) {
                return Err(Error::at(ErrorKind::DuplicateKey, at, format!("key {k} appears twice in one map")));
            }
        }
    }
    Ok(())
}

/// The column of a primitive node.
fn primitive<'de>(r: &mut Reader<'_>, p: P, n: u64, c: &mut Cursor<'de>) -> Result<Data<'de>> {
    let bits = match p.integer_type() {
        P::Unit => return Ok(Data::Unit),
        P::Bool => 1,
        P::U8 | P::I8 => 8,
        P::U16 | P::I16 => 16,
        P::U32 | P::I32 | P::Date => 32,
        P::U64 | P::I64 | P::Timestamp => 64,
        P::U128 | P::I128 => 128,
        P::F32 | P::F64 | P::String | P::Bytes | P::U256 | P::I256 => 0,
        other => unreachable!("{other} is an integer type's fixed form"),
    };
    if bits == 128 {
        return Ok(Data::Wide128(r.ints(c, n, bits)?));
    }
    if bits > 0 {
        return Ok(Data::Ints(r.ints_as(c, n, bits)?));
    }
    let col = r.column(c)?;
    let fixed = col.fixed;
    let base = col.base;
    let body: Cow<'de, [u8]> = col.data;
    let mut cur = Cursor::new(&body, base);
    if fixed {
        cur = cur.fixed();
    }
    let at = cur.offset();
    let data = match p {
        P::F32 => Data::F32(floats::decode(&mut cur, n)?),
        P::F64 => Data::F64(floats::decode(&mut cur, n)?),
        P::U256 | P::I256 => {
            if cur.u8()? != E::Plain256.byte() {
                return Err(Error::at(ErrorKind::UnknownDiscriminant, at, "not a 256-bit integer column encoding"));
            }
            cur.take_checked(u128::from(n) * 32)?;
            cur.finish("column")?;
            return Ok(Data::Wide(match body {
                Cow::Borrowed(b) => Cow::Borrowed(&b[1..]),
                Cow::Owned(mut b) => {
                    b.remove(0);
                    Cow::Owned(b)
                }
            }));
        }
        _ => {
            let (built, spans, region) = strings::decode_spans(&mut cur, n, &mut r.budget)?;
            cur.finish("column")?;
            let bytes = match built {
                Some(b) => Cow::Owned(b),
                None => body,
            };
            return if p == P::String { text(bytes, spans, region, at) } else { Ok(Data::Bytes { bytes, spans }) };
        }
    };
    cur.finish("column")?;
    Ok(data)
}

/// The strings at `spans` of `bytes`, all within `region`, checked for
/// UTF-8 at once over the region where it is UTF-8 (the common case: no
/// copy), else value by value and copied (a dictionary may hold values no
/// span uses).
fn text(bytes: Cow<'_, [u8]>, spans: Vec<Span>, region: Span, at: u64) -> Result<Data<'_>> {
    let (lo, hi) = region;
    // Every position in ASCII text is a character boundary.
    let bounded =
        |t: &str| t.is_ascii() || spans.iter().all(|&(s, e)| t.is_char_boundary(s - lo) && t.is_char_boundary(e - lo));
    match bytes {
        Cow::Borrowed(b) => match std::str::from_utf8(&b[lo..hi]) {
            Ok(t) if bounded(t) => Ok(Data::Text { text: Cow::Borrowed(t), spans, base: lo }),
            _ => split_text(b, 0, spans, at),
        },
        // A buffer the column's decoder built becomes the text without a
        // copy: it holds the values alone (shared prefixes rebuilt), or is
        // a decompressed column body, cut to the region.
        Cow::Owned(mut b) => {
            b.truncate(hi);
            b.drain(..lo);
            match String::from_utf8(b) {
                Ok(t) if bounded(&t) => Ok(Data::Text { text: Cow::Owned(t), spans, base: lo }),
                Ok(t) => split_text(t.as_bytes(), lo, spans, at),
                Err(e) => split_text(e.as_bytes(), lo, spans, at),
            }
        }
    }
}

/// Checks the values one by one (the text as a whole is not UTF-8, or a
/// value starts or ends inside a character) and copies them into a text of
/// their own; fails at the first value that is not UTF-8. `bytes` starts
/// at position `lo` of the spans.
fn split_text<'de>(bytes: &[u8], lo: usize, spans: Vec<Span>, at: u64) -> Result<Data<'de>> {
    let mut text = String::new();
    let mut out = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        let t = std::str::from_utf8(&bytes[s - lo..e - lo])
            .map_err(|_| Error::at(ErrorKind::InvalidUtf8, at, "a string of the column is not UTF-8"))?;
        out.push((text.len(), text.len() + t.len()));
        text.push_str(t);
    }
    Ok(Data::Text { text: Cow::Owned(text), spans: out, base: 0 })
}

/// The next value of a node, as a serde `Deserializer`.
pub(super) struct NodeDe<'a, 'o, 'de> {
    pub(super) cx: &'a mut Cx<'o>,
    pub(super) node: &'a mut Node<'de>,
}

impl<'de> NodeDe<'_, '_, 'de> {
    /// Visits the node's next value, as its type in the message has it.
    fn visit<V: Visitor<'de>>(self, v: V, hint: Hint) -> Result<V::Value> {
        let at = self.node.at();
        self.visit_of(v, hint).map_err(|e| place(e, at))
    }

    fn visit_of<V: Visitor<'de>>(self, v: V, hint: Hint) -> Result<V::Value> {
        let NodeDe { cx, node } = self;
        node.data(cx)?;
        let i = node.take()?;
        let at = node.at();
        let Node { ty, data, .. } = node;
        let data = data.as_mut().expect("decoded above");
        match (data, &*ty) {
            (Data::Unit, _) => v.visit_unit(),
            (Data::Ints(col), Metadata::Primitive(p)) => {
                let x = get(col, i, at)?;
                let s = (x >> 1) as i64 ^ -((x & 1) as i64);
                match p.integer_type() {
                    P::Bool => v.visit_bool(x == 1),
                    P::U8 => v.visit_u8(x as u8),
                    P::U16 => v.visit_u16(x as u16),
                    P::U32 => v.visit_u32(x as u32),
                    P::U64 => v.visit_u64(x),
                    P::I8 => v.visit_i8(s as i8),
                    P::I16 => v.visit_i16(s as i16),
                    P::I32 | P::Date => v.visit_i32(s as i32),
                    _ => v.visit_i64(s),
                }
            }
            (Data::Wide128(col), Metadata::Primitive(p)) => {
                let x = get(col, i, at)?;
                if p.integer_type() == P::U128 {
                    v.visit_u128(x)
                } else {
                    v.visit_i128(varint::unzigzag(x))
                }
            }
            (Data::F32(col), _) => v.visit_f32(get(col, i, at)?),
            (Data::F64(col), _) => v.visit_f64(get(col, i, at)?),
            (Data::Text { text, spans, base }, _) => {
                let (s, e) = get(spans, i, at)?;
                let (s, e) = (s - *base, e - *base);
                match text {
                    Cow::Borrowed(t) => {
                        let t: &'de str = t.get(s..e).ok_or_else(|| ran_out(at))?;
                        if hint == Hint::Enum {
                            v.visit_enum(BorrowedStrDeserializer::new(t))
                        } else {
                            v.visit_borrowed_str(t)
                        }
                    }
                    Cow::Owned(t) => {
                        let t = t.get(s..e).ok_or_else(|| ran_out(at))?;
                        if hint == Hint::Enum {
                            v.visit_enum(StrDeserializer::new(t))
                        } else {
                            v.visit_str(t)
                        }
                    }
                }
            }
            (Data::Bytes { bytes, spans }, _) => {
                let (s, e) = get(spans, i, at)?;
                match bytes {
                    Cow::Borrowed(b) => v.visit_borrowed_bytes(b.get(s..e).ok_or_else(|| ran_out(at))?),
                    Cow::Owned(b) => v.visit_bytes(b.get(s..e).ok_or_else(|| ran_out(at))?),
                }
            }
            (Data::Wide(b), _) => {
                let s = usize::try_from(i).map_err(|_| ran_out(at))? * 32;
                match b {
                    Cow::Borrowed(b) => v.visit_borrowed_bytes(b.get(s..s + 32).ok_or_else(|| ran_out(at))?),
                    Cow::Owned(b) => v.visit_bytes(b.get(s..s + 32).ok_or_else(|| ran_out(at))?),
                }
            }
            (Data::Vec { lens, elems }, _) => {
                let len = get(lens, i, at)?;
                seq(cx, elems, len, v)
            }
            (Data::Array { len, elems }, _) => seq(cx, elems, *len, v),
            (Data::Fields { fields, .. }, Metadata::Tuple(_)) => {
                let mut acc = TupleAcc { cx, fields: fields.iter_mut(), i: 0 };
                let r = v.visit_seq(&mut acc)?;
                acc.fields.try_for_each(|f| f.skip(1))?;
                Ok(r)
            }
            (Data::Fields { fields, .. }, Metadata::Struct(s)) => {
                let mut acc = StructAcc { cx, names: s, fields, next: 0 };
                let r = v.visit_map(&mut acc)?;
                // Fields the visitor left (it normally reads them all).
                acc.fields[acc.next..].iter_mut().try_for_each(|f| f.skip(1))?;
                Ok(r)
            }
            (Data::Option { present, inner }, _) => {
                if get(present, i, at)? {
                    v.visit_some(NodeDe { cx, node: inner })
                } else {
                    v.visit_none()
                }
            }
            (Data::Map { lens, keys, values }, _) => {
                let len = get(lens, i, at)?;
                let mut acc = MapAcc { cx, keys, values, left: len, i: 0 };
                let r = v.visit_map(&mut acc)?;
                acc.keys.skip(acc.left)?;
                acc.values.skip(acc.left)?;
                Ok(r)
            }
            (Data::Tagged { tags, parts }, Metadata::Enum(e)) => {
                let t = get(tags, i, at)? as usize;
                let name = e.variant_at(t).map(|(name, _)| name).ok_or_else(|| ran_out(at))?;
                let node = parts.get_mut(t).ok_or_else(|| ran_out(at))?;
                let acc = EnumAcc { cx, name, node };
                if hint == Hint::Enum {
                    v.visit_enum(acc)
                } else {
                    // Self-describing readers (buffered content, JSON-like
                    // values) see an enum as a map of one entry.
                    v.visit_map(OneEntry { acc: Some(acc) })
                }
            }
            (Data::Tagged { tags, parts }, _) => {
                let t = get(tags, i, at)? as usize;
                let node = parts.get_mut(t).ok_or_else(|| ran_out(at))?;
                NodeDe { cx, node }.visit(v, hint)
            }
            _ => Err(ran_out(at)),
        }
    }
}

/// A vec's or an array's `len` next elements, as a serde sequence; those
/// the visitor leaves are skipped.
fn seq<'de, V: Visitor<'de>>(cx: &mut Cx<'_>, elems: &mut Node<'de>, len: u64, v: V) -> Result<V::Value> {
    let mut acc = SeqAcc { cx, elems, left: len, i: 0 };
    let r = v.visit_seq(&mut acc)?;
    acc.elems.skip(acc.left)?;
    Ok(r)
}

impl<'de> Deserializer<'de> for NodeDe<'_, '_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.visit(v, Hint::Any)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match &self.node.ty {
            Metadata::Option(_) | Metadata::Any => self.visit(v, Hint::Any),
            // A unit read as an option is None (JSON's null); any other
            // value read as an option is present.
            Metadata::Primitive(P::Unit) => {
                self.visit(de::IgnoredAny, Hint::Any)?;
                v.visit_none()
            }
            _ => v.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        self.visit(v, Hint::Enum)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.node.skip(1).map_err(|e| place(e, self.node.at()))?;
        v.visit_unit()
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        let NodeDe { cx, node } = self;
        let at = node.at();
        if !cx.seq_ok || !matches!(node.ty, Metadata::Struct(_)) {
            return NodeDe { cx, node }.visit(v, Hint::Any);
        }
        node.data(cx).map_err(|e| place(e, at))?;
        let is_same = match node {
            Node { ty: Metadata::Struct(s), data: Some(Data::Fields { same, .. }), .. } => {
                let key = fields.as_ptr() as usize;
                match *same {
                    Some((k, is)) if k == key => is,
                    _ => {
                        let is = s.len() == fields.len() && s.fields().zip(fields).all(|((a, _), b)| a == *b);
                        *same = Some((key, is));
                        is
                    }
                }
            }
            _ => false,
        };
        if !is_same {
            return NodeDe { cx, node }.visit(v, Hint::Any);
        }
        // The message's fields are the reader's, in its order: hand them
        // over as a sequence, comparing no names.
        node.take().map_err(|e| place(e, at))?;
        let Node { ty: Metadata::Struct(s), data: Some(Data::Fields { fields, .. }), .. } = node else {
            return Err(ran_out(at));
        };
        let mut acc = StructAcc { cx, names: s, fields, next: 0 };
        // The value is returned where it was built (records can be large).
        let r = v.visit_seq(&mut acc);
        if r.is_ok() {
            if let Err(e) = acc.fields[acc.next..].iter_mut().try_for_each(|f| f.skip(1)) {
                return Err(place(e, at));
            }
        }
        r.map_err(|e| place(e, at))
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map identifier
    }
}

struct SeqAcc<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    elems: &'a mut Node<'de>,
    left: u64,
    i: u64,
}

impl<'de> SeqAccess<'de> for SeqAcc<'_, '_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.i;
        self.i += 1;
        self.left -= 1;
        match seed.deserialize(NodeDe { cx: self.cx, node: self.elems }) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e.within(PathSegment::Index(i))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::try_from(self.left).unwrap_or(usize::MAX))
    }
}

/// A tuple's elements, one node each.
struct TupleAcc<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    fields: std::slice::IterMut<'a, Node<'de>>,
    i: u64,
}

impl<'de> SeqAccess<'de> for TupleAcc<'_, '_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(node) = self.fields.next() else { return Ok(None) };
        let i = self.i;
        self.i += 1;
        seed.deserialize(NodeDe { cx: self.cx, node }).map(Some).map_err(|e| e.within(PathSegment::Position(i)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

/// A struct's fields, handed to the visitor as a map of field names or,
/// when they are exactly the reader's, as a sequence.
struct StructAcc<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    names: &'a crate::metadata::StructMetadata,
    fields: &'a mut [Node<'de>],
    next: usize,
}

impl<'de> StructAcc<'_, '_, 'de> {
    // Always inlined, as is `next_element_seed`: a record's value then moves
    // from where the reader built it into its parent with fewer copies.
    #[inline(always)]
    fn value<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        let i = self.next;
        self.next += 1;
        let node = self.fields.get_mut(i).ok_or_else(|| Error::new(ErrorKind::TypeMismatch, "no field"))?;
        seed.deserialize(NodeDe { cx: self.cx, node }).map_err(|e| match self.names.field_at(i) {
            Some((name, _)) => e.within(PathSegment::Field(name.into())),
            None => e,
        })
    }
}

impl<'de> SeqAccess<'de> for StructAcc<'_, '_, 'de> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.next == self.fields.len() {
            return Ok(None);
        }
        self.value(seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
    }
}

impl<'de> MapAccess<'de> for StructAcc<'_, '_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.names.field_at(self.next) {
            None => Ok(None),
            Some((name, _)) => seed.deserialize(StrDeserializer::<Error>::new(name)).map(Some),
        }
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.value(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
    }
}

struct MapAcc<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    keys: &'a mut Node<'de>,
    values: &'a mut Node<'de>,
    left: u64,
    i: u64,
}

impl<'de> MapAccess<'de> for MapAcc<'_, '_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        let i = self.i;
        seed.deserialize(NodeDe { cx: self.cx, node: self.keys })
            .map(Some)
            .map_err(|e| e.within(PathSegment::Field("key".into())).within(PathSegment::Index(i)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let i = self.i;
        self.i += 1;
        self.left -= 1;
        seed.deserialize(NodeDe { cx: self.cx, node: self.values })
            .map_err(|e| e.within(PathSegment::Field("value".into())).within(PathSegment::Index(i)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::try_from(self.left).unwrap_or(usize::MAX))
    }
}

struct EnumAcc<'a, 'o, 'de> {
    cx: &'a mut Cx<'o>,
    name: &'a str,
    node: &'a mut Node<'de>,
}

impl<'a, 'o, 'de> EnumAccess<'de> for EnumAcc<'a, 'o, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(StrDeserializer::<Error>::new(self.name))?;
        Ok((v, self))
    }
}

impl<'de> VariantAccess<'de> for EnumAcc<'_, '_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        // A payload the reader's variant does not have is skipped.
        let name = self.name;
        self.node.skip(1).map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        let name = self.name;
        seed.deserialize(NodeDe { cx: self.cx, node: self.node }).map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value> {
        let name = self.name;
        NodeDe { cx: self.cx, node: self.node }
            .visit(v, Hint::Any)
            .map_err(|e| e.within(PathSegment::Field(name.into())))
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], v: V) -> Result<V::Value> {
        let name = self.name;
        NodeDe { cx: self.cx, node: self.node }
            .visit(v, Hint::Any)
            .map_err(|e| e.within(PathSegment::Field(name.into())))
    }
}

/// An enum value as a map of one entry, variant name to payload.
struct OneEntry<'a, 'o, 'de> {
    acc: Option<EnumAcc<'a, 'o, 'de>>,
}

impl<'de> MapAccess<'de> for OneEntry<'_, '_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match &self.acc {
            None => Ok(None),
            Some(acc) => seed.deserialize(StrDeserializer::<Error>::new(acc.name)).map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let acc = self.acc.take().ok_or_else(|| Error::new(ErrorKind::TypeMismatch, "no value"))?;
        let name = acc.name;
        seed.deserialize(NodeDe { cx: acc.cx, node: acc.node }).map_err(|e| e.within(PathSegment::Field(name.into())))
    }
}

#[cfg(test)]
mod tests;
