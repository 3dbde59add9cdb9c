//! The columnar layout (SPEC.md, "Columnar layout"): a value is split along
//! its type tree into columns, one per path, each written with the encoding
//! that is smallest for its values and prefixed with its length, so that a
//! reader can skip the columns it does not want without reading them.

mod builder;
mod cursor;
mod entropy;
mod floats;
mod ints;
mod runs;
mod strings;
// Reading into serde types: value by value, and whole columns for the derive.
#[cfg(feature = "serde")]
mod typed;
#[cfg(feature = "serde")]
mod whole;

#[cfg(feature = "serde")]
pub(crate) use typed::{from_columns, ran_out};
#[cfg(feature = "serde")]
pub(crate) use whole::from_columns as from_columns_whole;
#[cfg(feature = "serde")]
pub use whole::{capacity, WholeColumn, WholeFields};

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{ArrayMetadata, Metadata, PrimitiveType as P, StructMetadata};
use crate::value::{AnyValue, EnumValue, MapValue, OptionValue, StructValue, TupleValue, Value, VecValue, I256, U256};
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;
use crate::wire::ColumnEncoding;
use crate::DecodeOptions;

pub use builder::{ColumnNode, Columns};
pub(crate) use cursor::Cursor;
pub(crate) use entropy::Enabled as EntropyEnabled;

/// A fast hash for the writer's dictionaries (multiply and rotate over
/// 8-byte words), keyed once per process so that chosen inputs cannot
/// collide on purpose.
#[derive(Clone, Copy)]
pub(crate) struct FastHash(u64);

impl Default for FastHash {
    fn default() -> Self {
        static KEY: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        FastHash(*KEY.get_or_init(|| {
            use std::hash::{BuildHasher, Hasher};
            std::collections::hash_map::RandomState::new().build_hasher().finish()
        }))
    }
}

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

pub(crate) struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // The last bytes as a little-endian word, zero-padded (a byte
            // loop: a copy of a variable length is a call to memcpy).
            self.add(rest.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b)));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
    fn finish(&self) -> u64 {
        // Every bit mixed into the low ones, which pick the bucket, and the
        // high ones, which the table compares first.
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
}

/// Whether, after `seen` of a column's `n` values of which `distinct` were
/// new, a dictionary is not worth finishing: in a long column, three of the
/// first four thousand values new.
pub(crate) fn mostly_distinct(seen: usize, distinct: usize, n: usize) -> bool {
    n > 8192 && seen == 4096 && distinct > 3072
}

/// What a decoded message may cost: every value is charged the size of a
/// `Value`, and strings made from dictionaries or shared prefixes their
/// bytes. Compression can make a few bytes stand for millions of values,
/// so only this bounds a hostile message's memory.
pub(crate) struct Budget {
    left: u128,
    limit: u128,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Self {
        Budget { left: u128::from(limit), limit: u128::from(limit) }
    }

    pub(crate) fn charge(&mut self, at: u64, bytes: u128) -> Result<()> {
        if bytes > self.left {
            return Err(Error::at(
                ErrorKind::TooLarge,
                at,
                format!(
                    "decoding would take more than the {} bytes allowed (DecodeOptions::max_decoded_bytes)",
                    self.limit
                ),
            ));
        }
        self.left -= bytes;
        Ok(())
    }
}

const VALUE_COST: u128 = crate::de::DECODED_VALUE_BYTES as u128;

/// The values of a node, made as they are taken.
pub(crate) type Vals = Box<dyn Iterator<Item = Value>>;

/// Writer settings for columns.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ColumnConfig {
    /// Compress each column with zstd at this level where that is smaller.
    pub(crate) zstd_level: Option<i32>,
    /// Round floats to short decimals within this absolute error.
    pub(crate) float_tolerance: Option<f64>,
}

/// Writes whichever candidate body ends up smallest once compressed.
fn put_best(out: &mut Vec<u8>, candidates: Vec<Vec<u8>>, cfg: &ColumnConfig) {
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
            put_column(&mut one, &body, cfg);
            one
        })
        .min_by_key(Vec::len)
        .expect("at least one candidate");
    out.extend_from_slice(&best);
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

fn put_column(out: &mut Vec<u8>, body: &[u8], cfg: &ColumnConfig) {
    #[cfg(feature = "zstd")]
    if let Some(level) = cfg.zstd_level {
        if body.len() > 32 && may_compress(body) {
            if let Ok(packed) = zstd::bulk::compress(body, level) {
                let mut wrapped = vec![E::Zstd.byte()];
                varint::put(&mut wrapped, body.len() as u128);
                wrapped.extend_from_slice(&packed);
                if wrapped.len() < body.len() {
                    varint::put(out, wrapped.len() as u128);
                    out.extend_from_slice(&wrapped);
                    return;
                }
            }
        }
    }
    #[cfg(not(feature = "zstd"))]
    let _ = cfg;
    varint::put(out, body.len() as u128);
    out.extend_from_slice(body);
}

/// A column's body: in the message, or decompressed.
pub(crate) struct Column<'a> {
    data: std::borrow::Cow<'a, [u8]>,
    base: u64,
    /// Offsets inside a decompressed body have no place in the message:
    /// errors there report the column's own offset.
    fixed: bool,
    /// The column stands in a block of an XBF file (see [`Cursor::in_file`]).
    file: bool,
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

// ------------------------------------------------------------------ encode

/// Appends the columns of `values`, all of type `ty`, to `out`.
///
/// The values are walked once, each scalar going straight into the column
/// of its place in the type (shredding), then each column is encoded.
pub(crate) fn encode(ty: &Metadata, values: &[&Value], out: &mut Vec<u8>, cfg: &ColumnConfig) {
    if let Metadata::Any = ty {
        return encode_any(values, out, cfg);
    }
    let mut shred = Shred::new(ty);
    for v in values {
        shred.push(v);
    }
    shred.write(ty, out, cfg);
}

/// The columns of a node being gathered from its values, in the shape of
/// its type.
enum Shred<'v> {
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
    Enum(Vec<u128>, Vec<Shred<'v>>),
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
    Typed(Vec<Metadata>, Vec<u128>, Vec<Shred<'v>>),
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
            Metadata::Enum(e) => Shred::Enum(Vec::new(), e.variants().map(|(_, t)| Shred::new(t)).collect()),
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
            Shred::Seq(Some(lens), _) | Shred::Map(lens, _, _) | Shred::Enum(lens, _) => lens.reserve(n),
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
                tags.push(i as u128);
                variants[i].push(payload);
            }
            Shred::Any(values) => values.push(v),
            Shred::Owned(..) | Shred::Typed(..) | Shred::Narrow(_) | Shred::Bits(_) => {
                unreachable!("only a builder makes these")
            }
        }
    }

    /// Writes the node's columns, then its children's (SPEC.md 22.1).
    fn write(self, ty: &Metadata, out: &mut Vec<u8>, cfg: &ColumnConfig) {
        match (self, ty) {
            (Shred::Unit, _) => {}
            (Shred::Ints(col), _) => put_column(out, &ints::encode(&col), cfg),
            (Shred::Narrow(col), _) => put_column(out, &ints::encode(&col), cfg),
            (Shred::Bits(col), _) => put_column(out, &ints::encode(&col), cfg),
            (Shred::F64(col), _) => put_floats(out, &col, cfg),
            (Shred::F32(col), _) => put_floats(out, &col, cfg),
            (Shred::Owned(data, ends), _) => {
                let mut start = 0;
                let col: Vec<&[u8]> = ends
                    .iter()
                    .map(|&end| {
                        let v = &data[start..end];
                        start = end;
                        v
                    })
                    .collect();
                if cfg.zstd_level.is_some() {
                    put_best(out, strings::candidates(&col), cfg)
                } else {
                    put_column(out, &strings::encode_joined(&col, Some(&data[..start])), cfg)
                }
            }
            (Shred::Bytes(col), _) => {
                if cfg.zstd_level.is_some() {
                    put_best(out, strings::candidates(&col), cfg)
                } else {
                    put_column(out, &strings::encode(&col), cfg)
                }
            }
            (Shred::Wide(col), _) => {
                let mut body = Vec::with_capacity(1 + col.len());
                body.push(E::Plain256.byte());
                body.extend_from_slice(&col);
                put_column(out, &body, cfg);
            }
            (Shred::Seq(lens, elem), Metadata::Vec(ety)) => {
                put_column(out, &ints::encode(&lens.expect("a vec's lengths")), cfg);
                elem.write(ety, out, cfg);
            }
            (Shred::Seq(_, elem), Metadata::Array(a)) => elem.write(&a.element, out, cfg),
            (Shred::Fields(fields), Metadata::Struct(s)) => {
                for (f, (_, fty)) in fields.into_iter().zip(s.fields()) {
                    f.write(fty, out, cfg);
                }
            }
            (Shred::Fields(fields), Metadata::Tuple(types)) => {
                for (f, t) in fields.into_iter().zip(types.iter()) {
                    f.write(t, out, cfg);
                }
            }
            (Shred::Option(present, inner), Metadata::Option(ity)) => {
                put_column(out, &ints::encode(&present), cfg);
                inner.write(ity, out, cfg);
            }
            (Shred::Map(lens, keys, vals), Metadata::Map(m)) => {
                put_column(out, &ints::encode(&lens), cfg);
                keys.write(&m.key, out, cfg);
                vals.write(&m.value, out, cfg);
            }
            (Shred::Enum(tags, variants), Metadata::Enum(e)) => {
                put_column(out, &ints::encode(&tags), cfg);
                for (v, (_, pty)) in variants.into_iter().zip(e.variants()) {
                    v.write(pty, out, cfg);
                }
            }
            (Shred::Any(values), _) => encode_any(&values, out, cfg),
            (Shred::Typed(types, tags, nodes), _) => write_any(&types, &tags, nodes, out, cfg),
            _ => unreachable!("a shred has the shape of its type"),
        }
    }
}

fn put_floats<F: floats::Float>(out: &mut Vec<u8>, col: &[F], cfg: &ColumnConfig) {
    let best = match cfg.float_tolerance {
        Some(t) => floats::encode_lossy(col, t),
        None => floats::encode(col),
    };
    // Lossy columns hold rounded values: their plain bytes are not the
    // originals' either, so only the chosen encoding is compressed.
    if cfg.zstd_level.is_some() && cfg.float_tolerance.is_none() {
        put_best(out, floats::candidates(col, best), cfg)
    } else {
        put_column(out, &best, cfg)
    }
}

/// The columns of an `any` node: its types, each value's type, then the
/// values of each type as a node of that type.
fn encode_any(values: &[&Value], out: &mut Vec<u8>, cfg: &ColumnConfig) {
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
    let nodes = types
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
    write_any(&types, &tags, nodes, out, cfg);
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
            t => TypeKey::Wire(crate::ser::metadata_bytes_v2(t)),
        }
    }
}

/// Writes an `any` node: the column of its distinct types, each value's
/// index among them, then the node of each type.
fn write_any<T: std::borrow::Borrow<Metadata>>(
    types: &[T],
    tags: &[u128],
    nodes: Vec<Shred<'_>>,
    out: &mut Vec<u8>,
    cfg: &ColumnConfig,
) {
    let mut body = vec![E::Types.byte()];
    varint::put(&mut body, types.len() as u128);
    for t in types {
        body.extend_from_slice(&crate::ser::metadata_bytes_v2(t.borrow()));
    }
    // The column of types is read before anything else of the node
    // and is never compressed.
    put_column(out, &body, &ColumnConfig::default());
    put_column(out, &ints::encode(tags), cfg);
    for (node, t) in nodes.into_iter().zip(types) {
        node.write(t.borrow(), out, cfg);
    }
}

/// An integer-valued scalar as the unsigned value its column holds.
fn int_of(v: &Value) -> u128 {
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

fn seq_items(v: &Value) -> &[Value] {
    match v {
        Value::Vec(x) | Value::Array(x) => x.items(),
        _ => unreachable!("a vec or array"),
    }
}

fn struct_values(v: &Value) -> &[Value] {
    v.as_struct().expect("a struct").values()
}

fn option_value(v: &Value) -> Option<&Value> {
    match v {
        Value::Option(o) => o.value(),
        _ => unreachable!("an option"),
    }
}

fn map_entries(v: &Value) -> &[(Value, Value)] {
    match v {
        Value::Map(m) => m.entries(),
        _ => unreachable!("a map"),
    }
}

fn enum_parts(v: &Value) -> (usize, &Value) {
    match v {
        Value::Enum(e) => (e.index(), e.payload()),
        _ => unreachable!("an enum"),
    }
}

fn any_value(v: &Value) -> &AnyValue {
    match v {
        Value::Any(a) => a,
        _ => unreachable!("an any"),
    }
}

// ------------------------------------------------------------------ decode

/// Which fields of a struct to decode; `None` at a place means all of it.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub(crate) fields: HashMap<String, Option<Selection>>,
}

impl Selection {
    /// From dotted paths such as `features.properties.mag`: struct fields by
    /// name, through vecs, arrays and options transparently.
    pub fn from_paths<S: AsRef<str>>(paths: &[S]) -> Selection {
        let mut root = Selection::default();
        for path in paths {
            let mut at = &mut root;
            let parts: Vec<&str> = path.as_ref().split('.').collect();
            for (i, part) in parts.iter().enumerate() {
                let last = i + 1 == parts.len();
                let slot = at.fields.entry((*part).to_owned()).or_insert_with(|| Some(Selection::default()));
                if last {
                    *slot = None;
                    break;
                }
                match slot {
                    Some(next) => at = next,
                    None => break, // a shorter path already selects all of it
                }
            }
        }
        root
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
    fn column<'a>(&mut self, c: &mut Cursor<'a>) -> Result<Column<'a>> {
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

    fn ints(&mut self, c: &mut Cursor<'_>, n: u64, bits: u32) -> Result<Vec<u128>> {
        self.ints_as(c, n, bits)
    }

    /// An integer column of `n` values of at most `bits`, as `T`.
    fn ints_as<T: ints::Lane>(&mut self, c: &mut Cursor<'_>, n: u64, bits: u32) -> Result<Vec<T>> {
        let col = self.column(c)?;
        let mut cur = col.cursor();
        let values = ints::decode(&mut cur, n, bits)?;
        cur.finish("column")?;
        Ok(values)
    }

    /// Counts that add up to how many values the child node holds.
    fn lengths(&mut self, c: &mut Cursor<'_>, n: u64) -> Result<(Vec<u64>, u64)> {
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
                    let pick = match sel {
                        None => Some(None),
                        Some(sel) => sel.fields.get(name).map(Option::as_ref),
                    };
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
                let keys =
                    self.node(&m.key, total, c, child, None).map_err(within(PathSegment::Field("key".into())))?.1;
                let vals =
                    self.node(&m.value, total, c, child, None).map_err(within(PathSegment::Field("value".into())))?.1;
                let mut pairs = keys.zip(vals);
                let mut values = Vec::with_capacity(n as usize);
                for &l in &lens {
                    let entries: Vec<(Value, Value)> = pairs.by_ref().take(l as usize).collect();
                    let mut seen = std::collections::HashSet::with_capacity(entries.len());
                    for (k, _) in &entries {
                        if !seen.insert(crate::ser::key_bytes(k)) {
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
fn any_types(c: &mut Cursor<'_>, depth: usize, opts: &DecodeOptions) -> Result<Vec<Metadata>> {
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
    let inner = opts.clone().max_depth(opts.max_depth - depth);
    let mut types = Vec::with_capacity(d as usize);
    for _ in 0..d {
        let rest_at = col.offset();
        let rest = col.take(col.remaining() as usize)?;
        let (ty, used) = inner.decode_metadata(crate::Version::V2, rest).map_err(|e| e.shifted(rest_at))?;
        col = Cursor::new(&rest[used..], rest_at + used as u64);
        types.push(ty);
    }
    col.finish("column of types")?;
    Ok(types)
}

/// Walks the columns of a node without decoding them, calling `visit` with
/// each column's path, encoding byte and length.
pub(crate) fn skip(
    ty: &Metadata,
    c: &mut Cursor<'_>,
    depth: usize,
    opts: &DecodeOptions,
    visit: &mut Visit<'_>,
) -> Result<()> {
    let mut path = Vec::new();
    walk(ty, c, depth, opts, &mut path, visit)
}

/// Told each column's path, encoding byte, size and offset.
type Visit<'v> = dyn FnMut(&[String], u8, u64, u64) + 'v;

/// Skips one column, telling `visit` its path (with `label`), encoding and size.
fn column(c: &mut Cursor<'_>, path: &mut Vec<String>, label: Option<&str>, visit: &mut Visit<'_>) -> Result<()> {
    let col = c.block()?;
    if let Some(l) = label {
        path.push(l.to_owned());
    }
    visit(path, col.clone_first_byte(), col.remaining(), col.offset());
    if label.is_some() {
        path.pop();
    }
    Ok(())
}

fn walk(
    ty: &Metadata,
    c: &mut Cursor<'_>,
    depth: usize,
    opts: &DecodeOptions,
    path: &mut Vec<String>,
    visit: &mut Visit<'_>,
) -> Result<()> {
    let child = depth + 1;
    let nested = |name: String, t: &Metadata, c: &mut Cursor<'_>, path: &mut Vec<String>, visit: &mut Visit<'_>| {
        path.push(name);
        let r = walk(t, c, child, opts, path, visit);
        path.pop();
        r
    };
    match ty {
        Metadata::Primitive(P::Unit) => Ok(()),
        Metadata::Primitive(_) => column(c, path, None, visit),
        Metadata::Vec(elem) => {
            column(c, path, Some("(lengths)"), visit)?;
            nested("[]".into(), elem, c, path, visit)
        }
        Metadata::Array(a) => nested("[]".into(), &a.element, c, path, visit),
        Metadata::Struct(s) => s.fields().try_for_each(|(name, t)| nested(name.to_owned(), t, c, path, visit)),
        Metadata::Tuple(ts) => ts.iter().enumerate().try_for_each(|(i, t)| nested(i.to_string(), t, c, path, visit)),
        Metadata::Option(inner) => {
            column(c, path, Some("(present)"), visit)?;
            walk(inner, c, child, opts, path, visit)
        }
        Metadata::Map(m) => {
            column(c, path, Some("(lengths)"), visit)?;
            nested("key".into(), &m.key, c, path, visit)?;
            nested("value".into(), &m.value, c, path, visit)
        }
        Metadata::Enum(e) => {
            column(c, path, Some("(variant)"), visit)?;
            e.variants().try_for_each(|(name, t)| nested(name.to_owned(), t, c, path, visit))
        }
        Metadata::Any => {
            let at = c.offset();
            let types = any_types(c, child, opts)?;
            path.push("(types)".to_owned());
            visit(path, E::Types.byte(), c.offset() - at, at);
            path.pop();
            column(c, path, Some("(type)"), visit)?;
            types.iter().enumerate().try_for_each(|(i, t)| nested(format!("<{i}: {t}>"), t, c, path, visit))
        }
    }
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

/// One column of a columnar message: where it is in the type tree, how it
/// is encoded and how many bytes it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnStats {
    /// The path of the column, e.g. `features.[].properties.mag`, with
    /// `(lengths)`, `(present)`, `(variant)`, `(type)` for structural columns.
    pub path: String,
    /// The encoding chosen for it; its `Display` is the name `xbf stats`
    /// shows, e.g. `decimal` or `dictionary`.
    pub encoding: ColumnEncoding,
    /// Its bytes, without its length prefix.
    pub bytes: u64,
}

pub(crate) fn column_stats(ty: &Metadata, bytes: &[u8], base: u64, opts: &DecodeOptions) -> Result<Vec<ColumnStats>> {
    let mut out = Vec::new();
    let mut unknown = None;
    let mut c = Cursor::new(bytes, base);
    skip(ty, &mut c, 0, opts, &mut |path, enc, len, at| match E::from_byte(enc) {
        Some(encoding) => out.push(ColumnStats {
            path: if path.is_empty() { "(root)".into() } else { path.join(".") },
            encoding,
            bytes: len,
        }),
        None => {
            unknown.get_or_insert((enc, at));
        }
    })?;
    if !c.at_end() {
        return Err(Error::at(ErrorKind::TrailingBytes, c.offset(), "bytes remain after the columns"));
    }
    // Skipping reads no column's body; a decoder would refuse this one.
    if let Some((enc, at)) = unknown {
        return Err(Error::at(ErrorKind::UnknownDiscriminant, at, format!("0x{enc:02x} is not a column encoding")));
    }
    Ok(out)
}

/// Whether `value` holds enough repeated items for columns to pay.
pub(crate) fn worth_trying(value: &Value) -> bool {
    fn items(v: &Value, depth: usize) -> usize {
        if depth > 3 {
            return 0;
        }
        match v {
            Value::Vec(x) | Value::Array(x) => {
                x.len() + x.items().iter().take(4).map(|i| items(i, depth + 1)).sum::<usize>()
            }
            Value::Map(m) => m.len(),
            Value::Struct(s) => s.values().iter().map(|f| items(f, depth + 1)).sum(),
            _ => 0,
        }
    }
    items(value, 0) >= 16
}

// -------------------------------------------------------------- projection

/// The type that `sel` leaves of `ty`; `None` if it selects nothing.
pub(crate) fn prune_type(ty: &Metadata, sel: &Selection) -> Option<Metadata> {
    Some(match ty {
        Metadata::Struct(s) => {
            let mut fields = Vec::new();
            for (name, fty) in s.fields() {
                match sel.fields.get(name) {
                    Some(None) => fields.push((name, fty.clone())),
                    Some(Some(sub)) => fields.extend(prune_type(fty, sub).map(|t| (name, t))),
                    None => {}
                }
            }
            if fields.is_empty() {
                return None;
            }
            StructMetadata::new(s.name(), fields).expect("fields of a struct are unique").into()
        }
        Metadata::Vec(e) => Metadata::vec(prune_type(e, sel)?),
        Metadata::Array(a) => Metadata::array(a.len, prune_type(&a.element, sel)?),
        Metadata::Option(i) => Metadata::option(prune_type(i, sel)?),
        other => other.clone(),
    })
}

fn prune_value(v: &Value, pty: &Metadata, sel: &Selection) -> Value {
    match (v, pty) {
        (Value::Struct(s), Metadata::Struct(ps)) => {
            let vals: Box<[Value]> = ps
                .fields()
                .map(|(name, fty)| {
                    let fv = s.get(name).expect("a projected field is a field");
                    match sel.fields.get(name) {
                        Some(Some(sub)) => prune_value(fv, fty, sub),
                        _ => fv.clone(),
                    }
                })
                .collect();
            Value::Struct(StructValue::new_unchecked(ps.clone(), vals))
        }
        (Value::Vec(x), Metadata::Vec(e)) => {
            Value::Vec(VecValue::new_unchecked(e.clone(), x.items().iter().map(|i| prune_value(i, e, sel)).collect()))
        }
        (Value::Array(x), Metadata::Array(a)) => Value::Array(VecValue::new_unchecked(
            Arc::new(a.element.clone()),
            x.items().iter().map(|i| prune_value(i, &a.element, sel)).collect(),
        )),
        (Value::Option(o), Metadata::Option(i)) => {
            Value::Option(OptionValue::new_unchecked(i.clone(), o.value().map(|x| prune_value(x, i, sel))))
        }
        (other, _) => other.clone(),
    }
}

/// Keeps only what `sel` picks of a value of type `ty` (a no-op on what a
/// columnar decoder already projected); `None` if it picks nothing.
pub(crate) fn prune(ty: &Metadata, value: Value, sel: &Selection) -> Option<Value> {
    let pty = prune_type(ty, sel)?;
    if pty == *ty {
        return Some(value);
    }
    Some(prune_value(&value, &pty, sel))
}
