//! Columns gathered value by value, without a [`Value`] tree: for bindings
//! and writers that hold their data in their own objects and want the
//! columnar message of it (SPEC.md, "Columnar layout") at the cost of the
//! columns alone.

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::value::Value;
use crate::wire::varint;

use super::{ones, Shred, Tags, TypeKey};

/// The columns of a message being built: one [`ColumnNode`] per place in
/// its type, filled value by value in the order of the values, then written
/// by [`EncodeOptions::encode_columns`](crate::EncodeOptions::encode_columns)
/// into the same bytes as [`EncodeOptions::encode_typed_message`](crate::EncodeOptions::encode_typed_message) with
/// [`Layout::Columnar`](crate::Layout::Columnar) gives for the same value.
///
/// A message holds one value: push exactly one value into
/// [`root`](Columns::root).
///
/// ```
/// use xbf::{Columns, EncodeOptions, Layout, Metadata, PrimitiveType, StructMetadata};
///
/// // vec<struct Row { id: u64, name: option<string> }>
/// let row = StructMetadata::new(
///     "Row",
///     [("id", Metadata::from(PrimitiveType::U64)), ("name", Metadata::option(PrimitiveType::String.into()))],
/// )?;
/// let ty = Metadata::vec(row.into());
/// let mut cols = Columns::new(&ty);
/// let rows = cols.root().push_len(3)?;
/// for (id, name) in [(1, Some("ann")), (2, None), (3, Some("bo"))] {
///     rows.field(0)?.push_u64(id)?;
///     match name {
///         Some(s) => rows.field(1)?.push_some()?.push_str(s)?,
///         None => rows.field(1)?.push_none()?,
///     }
/// }
/// let bytes = EncodeOptions::v2().encode_columns(cols)?;
/// let back = xbf::decode_message(&bytes)?;
/// assert_eq!(back.metadata(), ty);
/// assert_eq!(EncodeOptions::v2().layout(Layout::Columnar).encode_typed_message(&ty, &back)?, bytes);
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Debug)]
pub struct Columns {
    ty: Metadata,
    root: ColumnNode,
}

impl Columns {
    /// Empty columns for a value of type `ty`.
    pub fn new(ty: &Metadata) -> Columns {
        Columns { ty: ty.clone(), root: ColumnNode::new(ty) }
    }

    /// The type of the message's value.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// The node of the message's value, the root of the type.
    pub fn root(&mut self) -> &mut ColumnNode {
        &mut self.root
    }

    /// The columns as the message's body (after its header and metadata),
    /// once the counts of every node were checked against each other. The
    /// columns stay in the nodes (lent to the writer, then given back), so
    /// that a caller can move them out again (`drain_*`).
    pub(crate) fn write_kept(&mut self, out: &mut Vec<u8>, cfg: &super::ColumnConfig) -> Result<()> {
        self.bodies(cfg)?.finish(out);
        Ok(())
    }

    /// [`write_kept`](Self::write_kept)'s columns, each kept whole, before
    /// they are written one after the other.
    pub(crate) fn bodies(&mut self, cfg: &super::ColumnConfig) -> Result<super::Bodies> {
        self.root.check(1)?;
        let shred = self.root.lend();
        let mut bodies = super::Bodies::default();
        shred.write(&self.ty, &mut bodies, cfg);
        self.root.restore(shred);
        Ok(bodies)
    }
}

/// The columns of one place in a type (a node of the type tree) and of the
/// places below it. Each `push_*` appends one value of the node's type, or
/// the part of it that the node's own column holds (a vec's length, an
/// option's presence, an enum's variant); the returned node then takes the
/// rest. Pushing what the type does not hold fails with `type-mismatch`
/// and pushes nothing.
#[derive(Debug)]
pub struct ColumnNode {
    ty: Metadata,
    node: Node,
}

#[derive(Debug)]
enum Node {
    Unit,
    /// The unsigned values of an integer column (in `col` if they take
    /// at most 64 bits, else in `wide`); `bits` and `signed` give the
    /// range of its type.
    Ints {
        col: IntCol,
        bits: u32,
        signed: bool,
    },
    Bool(Vec<u8>),
    F64(Vec<f64>),
    F32(Vec<f32>),
    /// Strings or bytes, one after the other, and where each ends.
    Bytes {
        data: Vec<u8>,
        ends: Vec<usize>,
    },
    /// 256-bit integers, 32 bytes each.
    Wide(Vec<u8>),
    /// A vec (with its lengths) or an array (without, `len` items each).
    Seq(Option<Vec<u128>>, Box<ColumnNode>),
    Fields(Vec<ColumnNode>),
    Option(Vec<u8>, Box<ColumnNode>),
    Map(Vec<u128>, Box<ColumnNode>, Box<ColumnNode>),
    Enum(Tags, Vec<ColumnNode>),
    /// The distinct types in first-pushed order (and how they are told
    /// apart), each value's index among them, and the values of each type.
    Any(Vec<(Metadata, TypeKey)>, Tags, Vec<ColumnNode>),
}

/// The values of an integer column: 64 bits each where the type's fit.
#[derive(Debug)]
enum IntCol {
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
}

impl IntCol {
    fn new(bits: u32) -> IntCol {
        if bits <= 64 {
            IntCol::Narrow(Vec::new())
        } else {
            IntCol::Wide(Vec::new())
        }
    }

    /// Appends a value that the column's type holds (checked before).
    fn push(&mut self, x: u128) {
        match self {
            IntCol::Narrow(col) => col.push(x as u64),
            IntCol::Wide(col) => col.push(x),
        }
    }

    fn extend(&mut self, xs: impl Iterator<Item = u128>) {
        match self {
            IntCol::Narrow(col) => col.extend(xs.map(|x| x as u64)),
            IntCol::Wide(col) => col.extend(xs),
        }
    }

    fn len(&self) -> usize {
        match self {
            IntCol::Narrow(col) => col.len(),
            IntCol::Wide(col) => col.len(),
        }
    }
}

fn mismatch(ty: &Metadata, what: &str) -> Error {
    Error::new(ErrorKind::TypeMismatch, format!("a column of {ty} cannot take {what}"))
}

impl ColumnNode {
    fn new(ty: &Metadata) -> ColumnNode {
        let node = match ty {
            Metadata::Primitive(p) => match p.integer_type() {
                P::Unit => Node::Unit,
                P::F64 => Node::F64(Vec::new()),
                P::F32 => Node::F32(Vec::new()),
                P::String | P::Bytes => Node::Bytes { data: Vec::new(), ends: Vec::new() },
                P::U256 | P::I256 => Node::Wide(Vec::new()),
                P::Bool => Node::Bool(Vec::new()),
                P::Date => Node::Ints { col: IntCol::new(32), bits: 32, signed: true },
                P::Timestamp => Node::Ints { col: IntCol::new(64), bits: 64, signed: true },
                p => {
                    let (bits, signed) = match p {
                        P::U8 => (8, false),
                        P::U16 => (16, false),
                        P::U32 => (32, false),
                        P::U64 => (64, false),
                        P::U128 => (128, false),
                        P::I8 => (8, true),
                        P::I16 => (16, true),
                        P::I32 => (32, true),
                        P::I64 => (64, true),
                        _ => (128, true),
                    };
                    Node::Ints { col: IntCol::new(bits), bits, signed }
                }
            },
            Metadata::Vec(e) => Node::Seq(Some(Vec::new()), Box::new(ColumnNode::new(e))),
            Metadata::Array(a) => Node::Seq(None, Box::new(ColumnNode::new(&a.element))),
            Metadata::Struct(s) => Node::Fields(s.fields().map(|(_, t)| ColumnNode::new(t)).collect()),
            Metadata::Tuple(ts) => Node::Fields(ts.iter().map(ColumnNode::new).collect()),
            Metadata::Option(t) => Node::Option(Vec::new(), Box::new(ColumnNode::new(t))),
            Metadata::Map(m) => {
                Node::Map(Vec::new(), Box::new(ColumnNode::new(&m.key)), Box::new(ColumnNode::new(&m.value)))
            }
            Metadata::Enum(e) => Node::Enum(Tags::default(), e.variants().map(|(_, t)| ColumnNode::new(t)).collect()),
            Metadata::Any => Node::Any(Vec::new(), Tags::default(), Vec::new()),
        };
        ColumnNode { ty: ty.clone(), node }
    }

    /// The node's type.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// An integer as its column holds it (zigzag for signed types), if the
    /// node is an integer type of XBF that holds `x`.
    fn int(&mut self, x: i128, what: &str) -> Result<()> {
        match &mut self.node {
            Node::Ints { col, bits, signed } => {
                let fits = match (*signed, *bits) {
                    (true, 128) => true,
                    (true, b) => x >= -(1i128 << (b - 1)) && x < (1i128 << (b - 1)),
                    (false, 128) => x >= 0,
                    (false, b) => x >= 0 && x < (1i128 << b),
                };
                if !fits {
                    return Err(mismatch(&self.ty, &format!("{what} {x}")));
                }
                col.push(if *signed { varint::zigzag(x) } else { x as u128 });
                Ok(())
            }
            _ => Err(mismatch(&self.ty, what)),
        }
    }

    /// Appends a bool.
    pub fn push_bool(&mut self, b: bool) -> Result<()> {
        match &mut self.node {
            Node::Bool(col) => {
                col.push(u8::from(b));
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "a bool")),
        }
    }

    /// Appends an unsigned integer to a column of any integer type (also
    /// dates and timestamps) that holds it.
    pub fn push_u64(&mut self, x: u64) -> Result<()> {
        self.int(i128::from(x), "the integer")
    }

    /// Appends a signed integer to a column of any integer type (also dates
    /// and timestamps) that holds it.
    pub fn push_i64(&mut self, x: i64) -> Result<()> {
        self.int(i128::from(x), "the integer")
    }

    /// Appends a `u128` to a column of `u128`, or of a narrower unsigned
    /// type that holds it.
    pub fn push_u128(&mut self, x: u128) -> Result<()> {
        match i128::try_from(x) {
            Ok(x) => self.int(x, "the integer"),
            Err(_) => match &mut self.node {
                Node::Ints { col, bits: 128, signed: false } => {
                    col.push(x);
                    Ok(())
                }
                _ => Err(mismatch(&self.ty, &format!("the integer {x}"))),
            },
        }
    }

    /// Appends an `i128` to a column of an integer type that holds it.
    pub fn push_i128(&mut self, x: i128) -> Result<()> {
        self.int(x, "the integer")
    }

    /// Appends an `f64`.
    pub fn push_f64(&mut self, x: f64) -> Result<()> {
        match &mut self.node {
            Node::F64(col) => {
                col.push(x);
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "an f64")),
        }
    }

    /// Appends an `f32`.
    pub fn push_f32(&mut self, x: f32) -> Result<()> {
        match &mut self.node {
            Node::F32(col) => {
                col.push(x);
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "an f32")),
        }
    }

    /// Appends a string.
    pub fn push_str(&mut self, s: &str) -> Result<()> {
        match (&mut self.node, &self.ty) {
            (Node::Bytes { data, ends }, Metadata::Primitive(P::String)) => {
                data.extend_from_slice(s.as_bytes());
                ends.push(data.len());
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "a string")),
        }
    }

    /// Appends a byte string.
    pub fn push_bytes(&mut self, b: &[u8]) -> Result<()> {
        match (&mut self.node, &self.ty) {
            (Node::Bytes { data, ends }, Metadata::Primitive(P::Bytes)) => {
                data.extend_from_slice(b);
                ends.push(data.len());
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "bytes")),
        }
    }

    /// Appends many `f64`s at once.
    pub fn extend_f64(&mut self, xs: &[f64]) -> Result<()> {
        match &mut self.node {
            Node::F64(col) => {
                col.extend_from_slice(xs);
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "f64s")),
        }
    }

    /// Appends many unsigned integers at once (all or none: every one must
    /// fit the node's integer type).
    pub fn extend_u64(&mut self, xs: &[u64]) -> Result<()> {
        match &mut self.node {
            Node::Ints { col, bits, signed } => {
                let max = xs.iter().copied().max().unwrap_or(0);
                let room = if *signed { bits.saturating_sub(1) } else { *bits };
                if room < 64 && max >> room != 0 {
                    return Err(mismatch(&self.ty, &format!("the integer {max}")));
                }
                if *signed {
                    col.extend(xs.iter().map(|&x| u128::from(x) << 1));
                } else {
                    col.extend(xs.iter().map(|&x| u128::from(x)));
                }
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "integers")),
        }
    }

    /// Appends many signed integers at once (all or none: every one must
    /// fit the node's integer type).
    pub fn extend_i64(&mut self, xs: &[i64]) -> Result<()> {
        let (lo, hi) = xs.iter().fold((0i64, 0i64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        match &mut self.node {
            Node::Ints { col, bits, signed } => {
                let fits = |x: i64| match (*signed, *bits) {
                    (true, b) if b >= 64 => true,
                    (true, b) => i128::from(x) >= -(1i128 << (b - 1)) && i128::from(x) < (1i128 << (b - 1)),
                    (false, b) => x >= 0 && (b >= 64 || x >> b == 0),
                };
                for x in [lo, hi] {
                    if !fits(x) {
                        return Err(mismatch(&self.ty, &format!("the integer {x}")));
                    }
                }
                if *signed {
                    col.extend(xs.iter().map(|&x| varint::zigzag(x.into())));
                } else {
                    col.extend(xs.iter().map(|&x| x as u128));
                }
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "integers")),
        }
    }

    /// Appends many bools at once.
    pub fn extend_bool(&mut self, bs: &[bool]) -> Result<()> {
        match &mut self.node {
            Node::Bool(col) => {
                col.extend(bs.iter().map(|&b| u8::from(b)));
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "bools")),
        }
    }

    /// Appends many strings at once, given one after the other in `joined`
    /// and by where each ends in it (increasing, each on a character
    /// boundary, the last at most `joined.len()`): one copy for all.
    pub fn extend_str(&mut self, joined: &str, ends: &[usize]) -> Result<()> {
        let mut at = 0;
        for &end in ends {
            if end < at || !joined.is_char_boundary(end) {
                return Err(Error::new(
                    ErrorKind::TypeMismatch,
                    format!("string ends must increase on character boundaries of the {} bytes", joined.len()),
                ));
            }
            at = end;
        }
        match (&mut self.node, &self.ty) {
            (Node::Bytes { data, ends: own }, Metadata::Primitive(P::String)) => {
                let base = data.len();
                data.extend_from_slice(&joined.as_bytes()[..at]);
                own.extend(ends.iter().map(|&e| base + e));
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "strings")),
        }
    }

    /// Appends many options at once, present or not as `present` says, and
    /// gives the node that then takes the values of the present ones.
    pub fn extend_options(&mut self, present: &[bool]) -> Result<&mut ColumnNode> {
        match &mut self.node {
            Node::Option(col, inner) => {
                col.extend(present.iter().map(|&b| u8::from(b)));
                Ok(inner)
            }
            _ => Err(mismatch(&self.ty, "options")),
        }
    }

    /// Appends a vec of `n` items (its length) and gives the node of its
    /// items, which then takes them; or, for an array of that length, gives
    /// the node of its items without a length (arrays have none).
    pub fn push_len(&mut self, n: usize) -> Result<&mut ColumnNode> {
        match (&mut self.node, &self.ty) {
            (Node::Seq(Some(lens), elem), _) => {
                lens.push(n as u128);
                Ok(elem)
            }
            (Node::Seq(None, elem), Metadata::Array(a)) if a.len == n as u64 => Ok(elem),
            _ => Err(mismatch(&self.ty, &format!("a sequence of {n} items"))),
        }
    }

    /// Appends a map of `n` entries and gives the nodes of its keys and of
    /// its values, which then take them in order.
    pub fn push_map(&mut self, n: usize) -> Result<(&mut ColumnNode, &mut ColumnNode)> {
        match &mut self.node {
            Node::Map(lens, k, v) => {
                lens.push(n as u128);
                Ok((k, v))
            }
            _ => Err(mismatch(&self.ty, &format!("a map of {n} entries"))),
        }
    }

    /// Appends an absent option.
    pub fn push_none(&mut self) -> Result<()> {
        match &mut self.node {
            Node::Option(present, _) => {
                present.push(0);
                Ok(())
            }
            _ => Err(mismatch(&self.ty, "an absent option")),
        }
    }

    /// Appends a present option and gives the node that then takes its value.
    pub fn push_some(&mut self) -> Result<&mut ColumnNode> {
        match &mut self.node {
            Node::Option(present, inner) => {
                present.push(1);
                Ok(inner)
            }
            _ => Err(mismatch(&self.ty, "a present option")),
        }
    }

    /// The node of field `i` of a struct (or item `i` of a tuple): a struct
    /// value is pushed as one value into each of its fields' nodes.
    pub fn field(&mut self, i: usize) -> Result<&mut ColumnNode> {
        match &mut self.node {
            Node::Fields(fields) if i < fields.len() => Ok(&mut fields[i]),
            _ => Err(mismatch(&self.ty, &format!("a field {i}"))),
        }
    }

    /// Appends an enum value of variant `i` and gives the node that then
    /// takes its payload (a `unit` node for variants without one).
    pub fn push_variant(&mut self, i: usize) -> Result<&mut ColumnNode> {
        match &mut self.node {
            Node::Enum(tags, variants) if i < variants.len() => {
                tags.push(i);
                Ok(&mut variants[i])
            }
            _ => Err(mismatch(&self.ty, &format!("variant {i}"))),
        }
    }

    /// Appends a value of `any` type whose own type is `ty` and gives the
    /// node that then takes the value itself.
    pub fn push_any(&mut self, ty: &Metadata) -> Result<&mut ColumnNode> {
        match &mut self.node {
            Node::Any(types, tags, nodes) => {
                let key = TypeKey::of(ty);
                let i = match types.iter().position(|(_, k)| *k == key) {
                    Some(i) => i,
                    None => {
                        types.push((ty.clone(), key));
                        nodes.push(ColumnNode::new(ty));
                        types.len() - 1
                    }
                };
                tags.push(i);
                Ok(&mut nodes[i])
            }
            _ => Err(mismatch(&self.ty, "a value of any type")),
        }
    }

    /// Appends many values of `any` type at once: value `i`'s own type is
    /// `types[tags[i]]` (the `types` distinct). Gives the node of each of
    /// `types`, in their order, which then takes the values of that type in
    /// their order (with the `extend_*` calls, say).
    pub fn extend_any(&mut self, types: &[Metadata], tags: &[usize]) -> Result<Vec<&mut ColumnNode>> {
        let Node::Any(known, own, nodes) = &mut self.node else {
            return Err(mismatch(&self.ty, "values of any type"));
        };
        let invalid = |what: String| Error::new(ErrorKind::TypeMismatch, what);
        if let Some(&t) = tags.iter().find(|&&t| t >= types.len()) {
            return Err(invalid(format!("the type index {t} of {} types", types.len())));
        }
        let keys: Vec<TypeKey> = types.iter().map(TypeKey::of).collect();
        if keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k)) {
            return Err(invalid("the types of extend_any must be distinct".into()));
        }
        let at: Vec<usize> = types
            .iter()
            .zip(keys)
            .map(|(t, key)| match known.iter().position(|(_, k)| *k == key) {
                Some(i) => i,
                None => {
                    known.push((t.clone(), key));
                    nodes.push(ColumnNode::new(t));
                    known.len() - 1
                }
            })
            .collect();
        own.extend(tags.iter().map(|&t| at[t]));
        let mut out: Vec<Option<&mut ColumnNode>> = types.iter().map(|_| None).collect();
        for (i, node) in nodes.iter_mut().enumerate() {
            if let Some(j) = at.iter().position(|&a| a == i) {
                out[j] = Some(node);
            }
        }
        Ok(out.into_iter().map(|n| n.expect("a node for each type")).collect())
    }

    /// Appends a whole value of the node's type.
    pub fn push_value(&mut self, v: &Value) -> Result<()> {
        if !v.conforms_to(&self.ty) {
            return Err(Error::new(ErrorKind::TypeMismatch, format!("expected {}, found {}", self.ty, v.metadata())));
        }
        self.push_unchecked(v);
        Ok(())
    }

    fn push_unchecked(&mut self, v: &Value) {
        match &mut self.node {
            Node::Unit => {}
            Node::Ints { col, .. } => col.push(super::int_of(v)),
            Node::Bool(col) => col.push(super::int_of(v) as u8),
            Node::F64(col) => col.push(v.as_f64().expect("an f64")),
            Node::F32(col) => col.push(if let Value::F32(x) = v { *x } else { unreachable!("an f32") }),
            Node::Bytes { data, ends } => {
                data.extend_from_slice(match v {
                    Value::String(s) => s.as_bytes(),
                    Value::Bytes(b) => b.as_slice(),
                    _ => unreachable!("a string or bytes"),
                });
                ends.push(data.len());
            }
            Node::Wide(col) => match v {
                Value::U256(x) => col.extend_from_slice(&x.to_le_bytes()),
                Value::I256(x) => col.extend_from_slice(&x.to_le_bytes()),
                _ => unreachable!("a 256-bit integer"),
            },
            Node::Seq(lens, elem) => {
                let items = super::seq_items(v);
                if let Some(lens) = lens {
                    lens.push(items.len() as u128);
                }
                items.iter().for_each(|i| elem.push_unchecked(i));
            }
            Node::Fields(fields) => {
                let items = match v {
                    Value::Tuple(t) => t.items(),
                    _ => super::struct_values(v),
                };
                fields.iter_mut().zip(items).for_each(|(f, i)| f.push_unchecked(i));
            }
            Node::Option(present, inner) => {
                let o = super::option_value(v);
                present.push(u8::from(o.is_some()));
                if let Some(x) = o {
                    inner.push_unchecked(x);
                }
            }
            Node::Map(lens, keys, vals) => {
                let entries = super::map_entries(v);
                lens.push(entries.len() as u128);
                for (k, x) in entries {
                    keys.push_unchecked(k);
                    vals.push_unchecked(x);
                }
            }
            Node::Enum(tags, variants) => {
                let (i, payload) = super::enum_parts(v);
                tags.push(i);
                variants[i].push_unchecked(payload);
            }
            Node::Any(..) => {
                let a = super::any_value(v);
                self.push_any(a.metadata()).expect("an any node").push_unchecked(a.value());
            }
        }
    }

    /// Checks that the node holds `n` values, and its children as many as
    /// its own column says; the error names the node by its path.
    fn check(&self, n: usize) -> Result<()> {
        self.counts(n).map_err(|m| m.into_error())
    }

    /// [`check`](Self::check)'s walk. No path is built while the counts
    /// agree (the usual case, once per message): a miscount collects the
    /// names of the nodes above it on its way out.
    fn counts(&self, n: usize) -> std::result::Result<(), Box<Miscount>> {
        let count = |len: usize| {
            if len == n {
                Ok(())
            } else {
                Err(Box::new(Miscount { path: Vec::new(), ty: self.ty.to_string(), len, n }))
            }
        };
        let sum = |lens: &[u128]| lens.iter().fold(0usize, |a, &l| a.saturating_add(l as usize));
        let nested = |seg: &dyn Fn() -> String, node: &ColumnNode, n: usize| {
            node.counts(n).map_err(|mut m| {
                m.path.push(seg());
                m
            })
        };
        match (&self.node, &self.ty) {
            (Node::Unit, _) => Ok(()),
            (Node::Ints { col, .. }, _) => count(col.len()),
            (Node::Bool(col), _) => count(col.len()),
            (Node::F64(col), _) => count(col.len()),
            (Node::F32(col), _) => count(col.len()),
            (Node::Bytes { ends, .. }, _) => count(ends.len()),
            (Node::Wide(col), _) => count(col.len() / 32),
            (Node::Seq(Some(lens), elem), _) => {
                count(lens.len())?;
                nested(&|| "[]".into(), elem, sum(lens))
            }
            (Node::Seq(None, elem), Metadata::Array(a)) => {
                nested(&|| "[]".into(), elem, n.saturating_mul(a.len as usize))
            }
            (Node::Fields(fields), Metadata::Struct(s)) => {
                fields.iter().zip(s.fields()).try_for_each(|(f, (name, _))| nested(&|| name.to_string(), f, n))
            }
            (Node::Fields(fields), _) => {
                fields.iter().enumerate().try_for_each(|(i, f)| nested(&|| i.to_string(), f, n))
            }
            (Node::Option(present, inner), _) => {
                count(present.len())?;
                nested(&|| "?".into(), inner, ones(present))
            }
            (Node::Map(lens, k, v), _) => {
                count(lens.len())?;
                nested(&|| "{key}".into(), k, sum(lens))?;
                nested(&|| "{value}".into(), v, sum(lens))
            }
            (Node::Enum(tags, variants), Metadata::Enum(e)) => {
                count(tags.len())?;
                let per = tags.counts(variants.len());
                variants
                    .iter()
                    .zip(e.variants())
                    .zip(per)
                    .try_for_each(|((v, (name, _)), k)| nested(&|| name.to_string(), v, k))
            }
            (Node::Any(types, tags, nodes), _) => {
                count(tags.len())?;
                let per = tags.counts(nodes.len());
                types.iter().zip(nodes).zip(per).try_for_each(|(((t, _), v), k)| nested(&|| format!("<{t}>"), v, k))
            }
            _ => unreachable!("a node has the shape of its type"),
        }
    }

    /// The node's columns as the columnar writer's shred, moved out (the
    /// node keeps its shape, with empty columns) until [`restore`](Self::restore)
    /// moves them back: no copy either way.
    fn lend(&mut self) -> Shred<'static> {
        use std::mem::take;
        match &mut self.node {
            Node::Unit => Shred::Unit,
            Node::Ints { col: IntCol::Narrow(col), .. } => Shred::Narrow(take(col)),
            Node::Ints { col: IntCol::Wide(col), .. } => Shred::Ints(take(col)),
            Node::Bool(col) => Shred::Bits(take(col)),
            Node::F64(col) => Shred::F64(take(col)),
            Node::F32(col) => Shred::F32(take(col)),
            Node::Bytes { data, ends } => Shred::Owned(take(data), take(ends)),
            Node::Wide(col) => Shred::Wide(take(col)),
            Node::Seq(lens, elem) => Shred::Seq(lens.as_mut().map(take), Box::new(elem.lend())),
            Node::Fields(fields) => Shred::Fields(fields.iter_mut().map(ColumnNode::lend).collect()),
            Node::Option(present, inner) => Shred::Option(take(present), Box::new(inner.lend())),
            Node::Map(lens, k, v) => Shred::Map(take(lens), Box::new(k.lend()), Box::new(v.lend())),
            Node::Enum(tags, variants) => Shred::Enum(take(tags), variants.iter_mut().map(ColumnNode::lend).collect()),
            Node::Any(types, tags, nodes) => Shred::Typed(
                types.iter().map(|(t, _)| t.clone()).collect(),
                take(tags),
                nodes.iter_mut().map(ColumnNode::lend).collect(),
            ),
        }
    }

    /// Moves back the columns [`lend`](Self::lend) moved out.
    fn restore(&mut self, shred: Shred<'static>) {
        match (&mut self.node, shred) {
            (Node::Unit, Shred::Unit) => {}
            (Node::Ints { col, .. }, Shred::Narrow(c)) => *col = IntCol::Narrow(c),
            (Node::Ints { col, .. }, Shred::Ints(c)) => *col = IntCol::Wide(c),
            (Node::Bool(col), Shred::Bits(c)) => *col = c,
            (Node::F64(col), Shred::F64(c)) => *col = c,
            (Node::F32(col), Shred::F32(c)) => *col = c,
            (Node::Bytes { data, ends }, Shred::Owned(d, e)) => (*data, *ends) = (d, e),
            (Node::Wide(col), Shred::Wide(c)) => *col = c,
            (Node::Seq(lens, elem), Shred::Seq(l, e)) => {
                *lens = l;
                elem.restore(*e);
            }
            (Node::Fields(fields), Shred::Fields(fs)) => fields.iter_mut().zip(fs).for_each(|(f, s)| f.restore(s)),
            (Node::Option(present, inner), Shred::Option(p, i)) => {
                *present = p;
                inner.restore(*i);
            }
            (Node::Map(lens, k, v), Shred::Map(l, ks, vs)) => {
                *lens = l;
                k.restore(*ks);
                v.restore(*vs);
            }
            (Node::Enum(tags, variants), Shred::Enum(t, vs)) => {
                *tags = t;
                variants.iter_mut().zip(vs).for_each(|(v, s)| v.restore(s));
            }
            (Node::Any(_, tags, nodes), Shred::Typed(_, t, ns)) => {
                *tags = t;
                nodes.iter_mut().zip(ns).for_each(|(n, s)| n.restore(s));
            }
            _ => unreachable!("a lent shred has the shape of its node"),
        }
    }
}

/// A column whose count is not the one the columns above it say, found by
/// [`ColumnNode::check`]: the names of the nodes from it up to the root
/// (innermost first), its type, its count and the one expected.
struct Miscount {
    path: Vec<String>,
    ty: String,
    len: usize,
    n: usize,
}

impl Miscount {
    fn into_error(self) -> Error {
        let Miscount { mut path, ty, len, n } = self;
        path.reverse();
        let at = if path.is_empty() { "the root".to_string() } else { path.join(".") };
        Error::new(
            ErrorKind::TypeMismatch,
            format!("the column of {at} ({ty}) holds {len} values where {n} were pushed above it"),
        )
    }
}

mod block;
mod owned;
#[cfg(test)]
mod tests;

pub use block::BlockColumns;
