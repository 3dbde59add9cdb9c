//! The shredding encoder: a value split along its type tree into one
//! column per path, each written with the smallest encoding for it.

use std::collections::HashMap;

use crate::metadata::{Metadata, PrimitiveType as P};
use crate::value::{AnyValue, Value};
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::*;

/// Writer settings for columns.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ColumnConfig {
    /// Compress each column with zstd at this level where that is smaller.
    pub(crate) zstd_level: Option<i32>,
    /// Round floats to short decimals within this absolute error.
    pub(crate) float_tolerance: Option<f64>,
}

/// A node's columns as they are made, each kept whole until all are, then
/// appended to the message in their order (SPEC.md 22.1) once it has been
/// grown to their total size: appended one by one, the message grew by
/// reallocation, copying what it held each time.
#[derive(Default)]
pub(crate) struct Bodies {
    /// Each column's bytes, and whether its length prefix is still to be
    /// written before them (a candidate chosen by `put_best` has it).
    parts: Vec<(bool, Vec<u8>)>,
    /// The bytes the parts take in the message, prefixes included.
    size: usize,
}

impl Bodies {
    /// A column's body, its length prefix still to be written.
    fn push(&mut self, body: Vec<u8>) {
        self.size += varint::len(body.len() as u128) + body.len();
        self.parts.push((true, body));
    }

    /// A column already framed (its length prefix written).
    fn push_framed(&mut self, column: Vec<u8>) {
        self.size += column.len();
        self.parts.push((false, column));
    }

    /// The bytes the columns take in the message.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Writes the columns into the first [`size`](Self::size) bytes of
    /// `out` (panics if it is shorter): for a buffer the caller made of
    /// that size, such as the message's own object in a binding.
    pub(crate) fn write_to(&self, out: &mut [u8]) {
        let mut at = 0;
        for (prefix, bytes) in &self.parts {
            if *prefix {
                let mut len = [0u8; varint::MAX_LEN];
                let n = varint::encode(bytes.len() as u128, &mut len);
                out[at..at + n].copy_from_slice(&len[..n]);
                at += n;
            }
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        }
        debug_assert_eq!(at, self.size);
    }

    /// Appends the columns to `out`, growing it once.
    pub(crate) fn finish(self, out: &mut Vec<u8>) {
        out.reserve(self.size);
        for (prefix, bytes) in self.parts {
            if prefix {
                varint::put(out, bytes.len() as u128);
            }
            out.extend_from_slice(&bytes);
        }
    }
}

/// The number of ones among option flags (each 0 or 1), counted in bytes
/// 255 flags at a time so that the compiler sums them in vector registers
/// (filtering and counting them one by one does not vectorise).
pub(crate) fn ones(flags: &[u8]) -> usize {
    count_of(flags, 1)
}

/// How many of `bytes` are `v`, counted as [`ones`] counts.
fn count_of(bytes: &[u8], v: u8) -> usize {
    bytes.chunks(255).map(|c| usize::from(c.iter().fold(0u8, |a, &b| a + u8::from(b == v)))).sum()
}

/// Writes whichever candidate body ends up smallest once compressed.
fn put_best(out: &mut Bodies, candidates: Vec<Vec<u8>>, cfg: &ColumnConfig) {
    // Long candidates are ranked by how their first 16 KiB compress at a
    // fast level, scaled to their length; only the best is compressed in full.
    #[cfg(feature = "zstd")]
    let candidates = {
        const SAMPLE: usize = 16 << 10;
        let mut candidates = candidates;
        if candidates.len() > 1 && candidates.iter().all(|c| c.len() > 4 * SAMPLE) {
            let estimate = |c: &Vec<u8>| {
                let packed = zstd::bulk::compress(&c[..SAMPLE], 1).map_or(SAMPLE, |p| p.len().min(SAMPLE));
                packed as u128 * c.len() as u128 / SAMPLE as u128
            };
            let best = (0..candidates.len()).min_by_key(|&i| (estimate(&candidates[i]), i)).expect("candidates");
            candidates = vec![candidates.swap_remove(best)];
        }
        candidates
    };
    let best = candidates
        .into_iter()
        .map(|body| {
            let mut one = Vec::new();
            frame(&mut one, body, cfg);
            one
        })
        .min_by_key(Vec::len)
        .expect("at least one candidate");
    out.push_framed(best);
}

/// Whether zstd may pay on a long column: its first 16 KiB, compressed
/// fast, shrink by a tenth at least. (Bit-packed integers and plain floats
/// of noise do not, and compressing them at a high level costs the most.)
#[cfg(feature = "zstd")]
fn may_compress(body: &[u8]) -> bool {
    const SAMPLE: usize = 16 << 10;
    if body.len() <= 4 * SAMPLE {
        return true;
    }
    zstd::bulk::compress(&body[..SAMPLE], 1).is_ok_and(|packed| packed.len() * 10 < SAMPLE * 9)
}

/// A column's body as the message holds it: zstd-wrapped where the
/// configuration asks for that and it is smaller, else as it is.
fn compressed(body: Vec<u8>, cfg: &ColumnConfig) -> Vec<u8> {
    #[cfg(feature = "zstd")]
    if let Some(level) = cfg.zstd_level {
        if body.len() > 32 && may_compress(&body) {
            if let Ok(packed) = zstd::bulk::compress(&body, level) {
                let mut wrapped = vec![E::Zstd.byte()];
                varint::put(&mut wrapped, body.len() as u128);
                wrapped.extend_from_slice(&packed);
                if wrapped.len() < body.len() {
                    return wrapped;
                }
            }
        }
    }
    #[cfg(not(feature = "zstd"))]
    let _ = cfg;
    body
}

/// Appends a column (its length, then its body as `compressed` makes it).
fn frame(out: &mut Vec<u8>, body: Vec<u8>, cfg: &ColumnConfig) {
    let body = compressed(body, cfg);
    varint::put(out, body.len() as u128);
    out.extend_from_slice(&body);
}

/// Keeps a column's body (as `compressed` makes it) for the message.
fn put_column(out: &mut Bodies, body: Vec<u8>, cfg: &ColumnConfig) {
    out.push(compressed(body, cfg));
}

/// Appends the columns of `values`, all of type `ty`, to `out`.
///
/// The values are walked once, each scalar going straight into the column
/// of its place in the type (shredding), then each column is encoded.
pub(crate) fn encode(ty: &Metadata, values: &[&Value], out: &mut Vec<u8>, cfg: &ColumnConfig) {
    let mut bodies = Bodies::default();
    if let Metadata::Any = ty {
        encode_any(values, &mut bodies, cfg);
    } else {
        let mut shred = Shred::new(ty);
        for v in values {
            shred.push(v);
        }
        shred.write(ty, &mut bodies, cfg);
    }
    bodies.finish(out);
}

/// The columns of a node being gathered from its values, in the shape of
/// its type.
pub(super) enum Shred<'v> {
    Unit,
    /// Integer-valued scalars as the unsigned values their column holds.
    Ints(Vec<u128>),
    F64(Vec<f64>),
    F32(Vec<f32>),
    Bytes(Vec<&'v [u8]>),
    /// 256-bit integers, 32 bytes each.
    Wide(Vec<u8>),
    /// A vec (with its lengths) or an array (without).
    Seq(Option<Vec<u128>>, Box<Shred<'v>>),
    /// A struct's fields or a tuple's elements.
    Fields(Vec<Shred<'v>>),
    /// An option's presence (0 or 1) and its values.
    Option(Vec<u8>, Box<Shred<'v>>),
    Map(Vec<u128>, Box<Shred<'v>>, Box<Shred<'v>>),
    Enum(Tags, Vec<Shred<'v>>),
    Any(Vec<&'v Value>),
    /// Strings or bytes of a [`Columns`] builder: all their bytes, and
    /// where each value ends.
    Owned(Vec<u8>, Vec<usize>),
    /// Integers of at most 64 bits (after zigzag) of a [`Columns`] builder.
    Narrow(Vec<u64>),
    /// Bools of a [`Columns`] builder.
    Bits(Vec<u8>),
    /// An `any` node of a [`Columns`] builder: the distinct types in
    /// first-seen order, each value's index among them, each type's node.
    Typed(Vec<Metadata>, Tags, Vec<Shred<'v>>),
}

/// The variant or type indices of an enum or `any` node as the writer
/// takes them: a byte each while every index fits one (a builder's enums of
/// up to 256 variants and `any` nodes of up to 256 types, the usual case),
/// else 128 bits. The column's bytes do not depend on the width (the
/// integer writer plans on the values), but bytes are 16 times fewer to
/// make, count and plan.
#[derive(Debug)]
pub(crate) enum Tags {
    Bytes(Vec<u8>),
    Wide(Vec<u128>),
}

impl Default for Tags {
    fn default() -> Self {
        Tags::Bytes(Vec::new())
    }
}

impl Tags {
    /// How many indices there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Tags::Bytes(t) => t.len(),
            Tags::Wide(t) => t.len(),
        }
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The indices as 128-bit values, from now on.
    fn widen(&mut self) -> &mut Vec<u128> {
        if let Tags::Bytes(t) = self {
            *self = Tags::Wide(t.iter().map(|&x| u128::from(x)).collect());
        }
        match self {
            Tags::Wide(t) => t,
            Tags::Bytes(_) => unreachable!("widened above"),
        }
    }

    /// Appends index `i`.
    pub(crate) fn push(&mut self, i: usize) {
        match self {
            Tags::Bytes(t) if i <= usize::from(u8::MAX) => t.push(i as u8),
            _ => self.widen().push(i as u128),
        }
    }

    /// Appends `tags`.
    pub(crate) fn extend(&mut self, tags: impl ExactSizeIterator<Item = usize> + Clone) {
        match self {
            Tags::Bytes(t) if tags.clone().all(|i| i <= usize::from(u8::MAX)) => t.extend(tags.map(|i| i as u8)),
            _ => self.widen().extend(tags.map(|i| i as u128)),
        }
    }

    /// The column of the indices.
    fn encode(&self) -> Vec<u8> {
        match self {
            Tags::Bytes(t) => ints::encode(t),
            Tags::Wide(t) => ints::encode(t),
        }
    }

    /// How many of the indices are each of `0..k` (an index of `k` or more,
    /// which no `push_*` or `extend_*` writes, is not counted).
    pub(crate) fn counts(&self, k: usize) -> Vec<usize> {
        let mut per = vec![0usize; k];
        match self {
            Tags::Bytes(tags) => {
                // Two variants or types (an optional key's enum, most `any`
                // columns): the ones summed once an OR of all the tags
                // (both vectorise) found each 0 or 1, as every writer keeps
                // them.
                if k == 2 && tags.iter().fold(0, |m, &t| m | t) < 2 {
                    let ones = ones(tags);
                    return vec![tags.len() - ones, ones];
                }
                // A few (an `any` node's types): a pass over the tags for
                // each, counted as `ones` counts (a count per byte value
                // adds one tag at a time to a counter in memory, and the
                // same counter over and over waits on its last store).
                if k <= 8 {
                    return (0..k).map(|v| count_of(tags, v as u8)).collect();
                }
                // Else a count for every byte value, indexed without a
                // bound check, then those below `k`.
                let mut all = [0usize; 256];
                for &t in tags {
                    all[usize::from(t)] += 1;
                }
                per.iter_mut().zip(all).for_each(|(p, c)| *p = c);
            }
            Tags::Wide(tags) => {
                for &t in tags {
                    if let Some(c) = usize::try_from(t).ok().and_then(|i| per.get_mut(i)) {
                        *c += 1;
                    }
                }
            }
        }
        per
    }
}

impl<'v> Shred<'v> {
    fn new(ty: &Metadata) -> Self {
        match ty {
            Metadata::Primitive(p) => match p.integer_type() {
                P::Unit => Shred::Unit,
                P::F64 => Shred::F64(Vec::new()),
                P::F32 => Shred::F32(Vec::new()),
                P::String | P::Bytes => Shred::Bytes(Vec::new()),
                P::U256 | P::I256 => Shred::Wide(Vec::new()),
                _ => Shred::Ints(Vec::new()),
            },
            Metadata::Vec(elem) => Shred::Seq(Some(Vec::new()), Box::new(Shred::new(elem))),
            Metadata::Array(a) => Shred::Seq(None, Box::new(Shred::new(&a.element))),
            Metadata::Struct(s) => Shred::Fields(s.fields().map(|(_, t)| Shred::new(t)).collect()),
            Metadata::Tuple(types) => Shred::Fields(types.iter().map(Shred::new).collect()),
            Metadata::Option(inner) => Shred::Option(Vec::new(), Box::new(Shred::new(inner))),
            Metadata::Map(m) => Shred::Map(Vec::new(), Box::new(Shred::new(&m.key)), Box::new(Shred::new(&m.value))),
            Metadata::Enum(e) => {
                Shred::Enum(Tags::Wide(Vec::new()), e.variants().map(|(_, t)| Shred::new(t)).collect())
            }
            Metadata::Any => Shred::Any(Vec::new()),
        }
    }

    /// Room for `n` more values in the columns that will take one each.
    fn reserve(&mut self, n: usize) {
        match self {
            Shred::Ints(col) => col.reserve(n),
            Shred::F64(col) => col.reserve(n),
            Shred::F32(col) => col.reserve(n),
            Shred::Bytes(col) => col.reserve(n),
            Shred::Wide(col) => col.reserve(n.saturating_mul(32)),
            Shred::Seq(Some(lens), _) | Shred::Map(lens, _, _) => lens.reserve(n),
            Shred::Enum(Tags::Wide(tags), _) => tags.reserve(n),
            Shred::Enum(Tags::Bytes(tags), _) => tags.reserve(n),
            Shred::Option(present, _) => present.reserve(n),
            Shred::Seq(None, elem) => elem.reserve(n),
            Shred::Fields(fields) => fields.iter_mut().for_each(|f| f.reserve(n)),
            Shred::Unit | Shred::Any(_) | Shred::Owned(..) | Shred::Typed(..) | Shred::Narrow(_) | Shred::Bits(_) => {}
        }
    }

    fn push(&mut self, v: &'v Value) {
        match self {
            Shred::Unit => {}
            Shred::Ints(col) => col.push(int_of(v)),
            Shred::F64(col) => col.push(v.as_f64().expect("an f64")),
            Shred::F32(col) => col.push(if let Value::F32(x) = v { *x } else { unreachable!("an f32") }),
            Shred::Bytes(col) => col.push(match v {
                Value::String(s) => s.as_bytes(),
                Value::Bytes(b) => b.as_slice(),
                _ => unreachable!("a string or bytes"),
            }),
            Shred::Wide(col) => match v {
                Value::U256(x) => col.extend_from_slice(&x.to_le_bytes()),
                Value::I256(x) => col.extend_from_slice(&x.to_le_bytes()),
                _ => unreachable!("a 256-bit integer"),
            },
            Shred::Seq(lens, elem) => {
                let items = seq_items(v);
                if let Some(lens) = lens {
                    lens.push(items.len() as u128);
                }
                if items.len() > 64 {
                    elem.reserve(items.len());
                }
                // Scalars straight into their column, without a call each.
                match &mut **elem {
                    Shred::F32(col) => {
                        col.extend(
                            items.iter().map(|i| if let Value::F32(x) = i { *x } else { unreachable!("an f32") }),
                        )
                    }
                    Shred::F64(col) => col.extend(items.iter().map(|i| i.as_f64().expect("an f64"))),
                    Shred::Ints(col) => col.extend(items.iter().map(int_of)),
                    elem => items.iter().for_each(|i| elem.push(i)),
                }
            }
            Shred::Fields(fields) => {
                let items = match v {
                    Value::Tuple(t) => t.items(),
                    _ => struct_values(v),
                };
                for (f, i) in fields.iter_mut().zip(items) {
                    // Scalars straight into their column, without a call each.
                    match f {
                        Shred::Ints(col) => col.push(int_of(i)),
                        Shred::F64(col) => col.push(i.as_f64().expect("an f64")),
                        Shred::Bytes(col) => col.push(match i {
                            Value::String(s) => s.as_bytes(),
                            Value::Bytes(b) => b.as_slice(),
                            _ => unreachable!("a string or bytes"),
                        }),
                        f => f.push(i),
                    }
                }
            }
            Shred::Option(present, inner) => {
                let o = option_value(v);
                present.push(u8::from(o.is_some()));
                if let Some(x) = o {
                    inner.push(x);
                }
            }
            Shred::Map(lens, keys, vals) => {
                let entries = map_entries(v);
                lens.push(entries.len() as u128);
                for (k, x) in entries {
                    keys.push(k);
                    vals.push(x);
                }
            }
            Shred::Enum(tags, variants) => {
                let (i, payload) = enum_parts(v);
                tags.push(i);
                variants[i].push(payload);
            }
            Shred::Any(values) => values.push(v),
            Shred::Owned(..) | Shred::Typed(..) | Shred::Narrow(_) | Shred::Bits(_) => {
                unreachable!("only a builder makes these")
            }
        }
    }

    /// Writes the node's columns, then its children's (SPEC.md 22.1). It
    /// reads them only: a builder's columns are given back to it after
    /// (`Columns::write_kept`).
    pub(super) fn write(&self, ty: &Metadata, out: &mut Bodies, cfg: &ColumnConfig) {
        match (self, ty) {
            (Shred::Unit, _) => {}
            (Shred::Ints(col), _) => put_column(out, ints::encode(col), cfg),
            (Shred::Narrow(col), _) => put_column(out, ints::encode(col), cfg),
            (Shred::Bits(col), _) => put_column(out, ints::encode(col), cfg),
            (Shred::F64(col), _) => put_floats(out, col, cfg),
            (Shred::F32(col), _) => put_floats(out, col, cfg),
            (Shred::Owned(data, ends), _) => {
                if cfg.zstd_level.is_some() {
                    put_best(out, strings::candidates_joined(data, ends), cfg)
                } else {
                    put_column(out, strings::encode_joined(data, ends), cfg)
                }
            }
            (Shred::Bytes(col), _) => {
                if cfg.zstd_level.is_some() {
                    put_best(out, strings::candidates(col), cfg)
                } else {
                    put_column(out, strings::encode(col), cfg)
                }
            }
            (Shred::Wide(col), _) => {
                let mut body = Vec::with_capacity(1 + col.len());
                body.push(E::Plain256.byte());
                body.extend_from_slice(col);
                put_column(out, body, cfg);
            }
            (Shred::Seq(lens, elem), Metadata::Vec(ety)) => {
                put_column(out, ints::encode(lens.as_ref().expect("a vec's lengths")), cfg);
                elem.write(ety, out, cfg);
            }
            (Shred::Seq(_, elem), Metadata::Array(a)) => elem.write(&a.element, out, cfg),
            (Shred::Fields(fields), Metadata::Struct(s)) => {
                for (f, (_, fty)) in fields.iter().zip(s.fields()) {
                    f.write(fty, out, cfg);
                }
            }
            (Shred::Fields(fields), Metadata::Tuple(types)) => {
                for (f, t) in fields.iter().zip(types.iter()) {
                    f.write(t, out, cfg);
                }
            }
            (Shred::Option(present, inner), Metadata::Option(ity)) => {
                put_column(out, ints::encode(present), cfg);
                inner.write(ity, out, cfg);
            }
            (Shred::Map(lens, keys, vals), Metadata::Map(m)) => {
                put_column(out, ints::encode(lens), cfg);
                keys.write(&m.key, out, cfg);
                vals.write(&m.value, out, cfg);
            }
            (Shred::Enum(tags, variants), Metadata::Enum(e)) => {
                put_column(out, tags.encode(), cfg);
                for (v, (_, pty)) in variants.iter().zip(e.variants()) {
                    v.write(pty, out, cfg);
                }
            }
            (Shred::Any(values), _) => encode_any(values, out, cfg),
            (Shred::Typed(types, tags, nodes), _) => write_any(types, tags, nodes, out, cfg),
            _ => unreachable!("a shred has the shape of its type"),
        }
    }
}

fn put_floats<F: floats::Float>(out: &mut Bodies, col: &[F], cfg: &ColumnConfig) {
    let best = match cfg.float_tolerance {
        Some(t) => floats::encode_lossy(col, t),
        None => floats::encode(col),
    };
    // Lossy columns hold rounded values: their plain bytes are not the
    // originals' either, so only the chosen encoding is compressed.
    if cfg.zstd_level.is_some() && cfg.float_tolerance.is_none() {
        put_best(out, floats::candidates(col, best), cfg)
    } else {
        put_column(out, best, cfg)
    }
}

/// The columns of an `any` node: its types, each value's type, then the
/// values of each type as a node of that type.
fn encode_any(values: &[&Value], out: &mut Bodies, cfg: &ColumnConfig) {
    let mut index: HashMap<TypeKey, usize> = HashMap::new();
    let mut types: Vec<&Metadata> = Vec::new();
    let mut tags = Vec::with_capacity(values.len());
    for v in values {
        let a = any_value(v);
        let t = *index.entry(TypeKey::of(a.metadata())).or_insert_with(|| {
            types.push(a.metadata());
            types.len() - 1
        });
        tags.push(t as u128);
    }
    let nodes: Vec<Shred<'_>> = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut node = Shred::new(t);
            values
                .iter()
                .zip(&tags)
                .filter(|(_, &tag)| tag == i as u128)
                .for_each(|(v, _)| node.push(any_value(v).value()));
            node
        })
        .collect();
    write_any(&types, &Tags::Wide(tags), &nodes, out, cfg);
}

/// A type as the types column of an `any` node tells types apart: by its
/// bytes on the wire (field and variant order included). `Metadata`'s own
/// `==` takes two structs with the same fields in another order as equal
/// while its hash does not, so an index keyed by it merged such types only
/// when their hashes happened to meet (and then wrote the values of one
/// under the other's field order).
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) enum TypeKey {
    Primitive(P),
    Wire(Vec<u8>),
}

impl TypeKey {
    pub(crate) fn of(ty: &Metadata) -> TypeKey {
        match ty {
            Metadata::Primitive(p) => TypeKey::Primitive(*p),
            t => TypeKey::Wire(t.bytes_v2()),
        }
    }
}

/// Writes an `any` node: the column of its distinct types, each value's
/// index among them, then the node of each type.
fn write_any<T: std::borrow::Borrow<Metadata>>(
    types: &[T],
    tags: &Tags,
    nodes: &[Shred<'_>],
    out: &mut Bodies,
    cfg: &ColumnConfig,
) {
    let mut body = vec![E::Types.byte()];
    varint::put(&mut body, types.len() as u128);
    for t in types {
        body.extend_from_slice(&t.borrow().bytes_v2());
    }
    // The column of types is read before anything else of the node
    // and is never compressed.
    put_column(out, body, &ColumnConfig::default());
    put_column(out, tags.encode(), cfg);
    for (node, t) in nodes.iter().zip(types) {
        node.write(t.borrow(), out, cfg);
    }
}

/// An integer-valued scalar as the unsigned value its column holds.
pub(super) fn int_of(v: &Value) -> u128 {
    match *v {
        Value::Bool(b) => u128::from(b),
        Value::U8(x) => x.into(),
        Value::U16(x) => x.into(),
        Value::U32(x) => x.into(),
        Value::U64(x) => x.into(),
        Value::U128(x) => x,
        Value::I8(x) => varint::zigzag(x.into()),
        Value::I16(x) => varint::zigzag(x.into()),
        Value::I32(x) => varint::zigzag(x.into()),
        Value::I64(x) => varint::zigzag(x.into()),
        Value::I128(x) => varint::zigzag(x),
        Value::Date(x) => varint::zigzag(x.into()),
        Value::Timestamp(x) => varint::zigzag(x.into()),
        _ => unreachable!("an integer-valued scalar"),
    }
}

pub(super) fn seq_items(v: &Value) -> &[Value] {
    match v {
        Value::Vec(x) | Value::Array(x) => x.items(),
        _ => unreachable!("a vec or array"),
    }
}

pub(super) fn struct_values(v: &Value) -> &[Value] {
    v.as_struct().expect("a struct").values()
}

pub(super) fn option_value(v: &Value) -> Option<&Value> {
    match v {
        Value::Option(o) => o.value(),
        _ => unreachable!("an option"),
    }
}

pub(super) fn map_entries(v: &Value) -> &[(Value, Value)] {
    match v {
        Value::Map(m) => m.entries(),
        _ => unreachable!("a map"),
    }
}

pub(super) fn enum_parts(v: &Value) -> (usize, &Value) {
    match v {
        Value::Enum(e) => (e.index(), e.payload()),
        _ => unreachable!("an enum"),
    }
}

pub(super) fn any_value(v: &Value) -> &AnyValue {
    match v {
        Value::Any(a) => a,
        _ => unreachable!("an any"),
    }
}
