//! The owned hand-off: columns that a binding gathered in its own buffers
//! moved into a [`ColumnNode`] without a copy (`take_*`), and moved out again
//! once written (`drain_*`, after
//! [`EncodeOptions::encode_columns_kept`](crate::EncodeOptions::encode_columns_kept)),
//! to be reused or to write the rows layout from them. A node that already
//! holds values appends the new ones (a copy, as the `extend_*` calls).

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::wire::varint;

use super::{mismatch, ColumnNode, IntCol, Node, Tags, TypeKey};

/// Whether `ends` increase, the last at most `text.len()`, each on a
/// character boundary of `text`. For ASCII text (every index a boundary,
/// `ascii` if the caller knows it) no end is looked up in it: one pass over
/// the text, one over the ends, both without a branch per item.
fn valid_ends(text: &str, ends: &[usize], ascii: bool) -> bool {
    let within = ends.last().map_or(true, |&e| e <= text.len());
    within && increasing(ends) && (ascii || text.is_ascii() || ends.iter().all(|&e| text.is_char_boundary(e)))
}

/// Whether `ends` never decrease and each is at most `isize::MAX` (as any
/// end within a `str` is). One OR over every end and every wrapping
/// difference from the end before, which the compiler vectorises (a fold
/// of `a <= b` over `windows(2)` it does not): with both ends at most
/// `isize::MAX`, `b - a` wraps to a value with the top bit set exactly when
/// `b < a`, and an end past `isize::MAX` has that bit itself.
///
/// First a cheaper pass, which ORs only the first end and the differences
/// (one OR an end fewer): with `n` ends and that OR `m`, each end is the
/// first plus the differences up to it, at most `n * m` as integers; when
/// that is below `2^(BITS - 1)` no sum wrapped, so each difference is the
/// true one (the ends never decrease) and each end is below `isize::MAX`.
/// Only a difference of more than `isize::MAX / n` (an end beyond any real
/// text, or a step back) takes the exact pass.
pub(super) fn increasing(ends: &[usize]) -> bool {
    let Some((&first, rest)) = ends.split_first() else { return true };
    let steps = ends.iter().zip(rest).fold(first, |acc, (&a, &b)| acc | b.wrapping_sub(a));
    if (steps as u128 * ends.len() as u128) >> (usize::BITS - 1) == 0 {
        return true;
    }
    let bits = ends.iter().zip(rest).fold(first, |acc, (&a, &b)| acc | b | b.wrapping_sub(a));
    bits >> (usize::BITS - 1) == 0
}

/// The error of strings whose ends are not as [`ColumnNode::take_str`] says.
fn bad_ends(len: usize) -> Error {
    Error::new(ErrorKind::TypeMismatch, format!("string ends must increase on character boundaries of the {len} bytes"))
}

impl ColumnNode {
    /// Appends many strings at once, moved in: `text` holds them one after
    /// the other and `ends` says where each ends (increasing, each on a
    /// character boundary, the last at most `text.len()`; checked, and
    /// nothing is appended if they are not). Into an empty node both buffers
    /// are moved, without a copy (the text's bytes past the last end are
    /// dropped); [`drain_joined`](Self::drain_joined) gives them back.
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let ty = Metadata::vec(PrimitiveType::String.into());
    /// let mut cols = Columns::new(&ty);
    /// cols.root().push_len(3)?.take_str("annbocy".to_string(), vec![3, 5, 7])?;
    /// let bytes = EncodeOptions::v2().encode_columns(cols)?;
    /// assert_eq!(xbf::decode_message(&bytes)?.to_string(), r#"["ann", "bo", "cy"]"#);
    ///
    /// // Ends that split a character are refused.
    /// let mut cols = Columns::new(&ty);
    /// assert!(cols.root().push_len(1)?.take_str("é".to_string(), vec![1]).is_err());
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_str(&mut self, text: String, ends: Vec<usize>) -> Result<()> {
        if !valid_ends(&text, &ends, false) {
            return Err(bad_ends(text.len()));
        }
        self.take_valid_str(text, ends)
    }

    /// [`take_str`](Self::take_str) of text given as bytes, such as a
    /// binding's strings joined in a buffer of its own: checked to be UTF-8
    /// (an error, and nothing appended, if it is not) in the same pass over
    /// ASCII text as the check of its ends, where `String::from_utf8` then
    /// `take_str` read all of it twice.
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let ty = Metadata::vec(PrimitiveType::String.into());
    /// let mut cols = Columns::new(&ty);
    /// cols.root().push_len(3)?.take_utf8("annbocé".into(), vec![3, 5, 8])?;
    /// let bytes = EncodeOptions::v2().encode_columns(cols)?;
    /// assert_eq!(xbf::decode_message(&bytes)?.to_string(), r#"["ann", "bo", "cé"]"#);
    ///
    /// // Bytes that are not UTF-8, and ends that split a character, are refused.
    /// let mut cols = Columns::new(&ty);
    /// let items = cols.root().push_len(1)?;
    /// assert!(items.take_utf8(vec![b'a', 0xff], vec![2]).is_err());
    /// assert!(items.take_utf8("é".into(), vec![1]).is_err());
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_utf8(&mut self, text: Vec<u8>, ends: Vec<usize>) -> Result<()> {
        let (text, ascii) = crate::utf8::string_and_ascii(text).map_err(|e| {
            Error::new(ErrorKind::TypeMismatch, format!("strings that are not UTF-8: {}", e.utf8_error()))
        })?;
        if !valid_ends(&text, &ends, ascii) {
            return Err(bad_ends(text.len()));
        }
        self.take_valid_str(text, ends)
    }

    /// [`take_utf8`](Self::take_utf8) without its checks, for a binding
    /// that wrote the text and the ends itself and so knows them valid (the
    /// Python extension's gather: each string's bytes from CPython's UTF-8
    /// or from an ASCII str, each end written as its string was appended),
    /// where the checks read all of it again. Into a node that holds
    /// strings already it is `take_utf8`, checks and all.
    ///
    /// # Safety
    ///
    /// `text` is UTF-8 and `ends` are as [`take_str`](Self::take_str)
    /// says: increasing, each on a character boundary of `text`, the last at
    /// most `text.len()` (checked by `debug_assert`). A string node's bytes
    /// are UTF-8 to everything that reads them (its dictionaries and
    /// prefixes, the readers of the message); the core may come to read
    /// them as `str` without a check.
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let ty = Metadata::vec(PrimitiveType::String.into());
    /// let mut cols = Columns::new(&ty);
    /// // SAFETY: "annbocé" is UTF-8 and 3, 5, 8 increase on its boundaries.
    /// unsafe { cols.root().push_len(3)?.take_utf8_unchecked("annbocé".into(), vec![3, 5, 8])? };
    /// let bytes = EncodeOptions::v2().encode_columns(cols)?;
    /// assert_eq!(xbf::decode_message(&bytes)?.to_string(), r#"["ann", "bo", "cé"]"#);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    #[allow(unsafe_code)]
    pub unsafe fn take_utf8_unchecked(&mut self, text: Vec<u8>, ends: Vec<usize>) -> Result<()> {
        debug_assert!(
            std::str::from_utf8(&text).is_ok_and(|t| valid_ends(t, &ends, false)),
            "take_utf8_unchecked: text that is not UTF-8 or ends that are not valid"
        );
        match (&mut self.node, &self.ty) {
            (Node::Bytes { data, ends: own }, Metadata::Primitive(P::String)) if own.is_empty() => {
                let mut text = text;
                text.truncate(ends.last().copied().unwrap_or(0));
                (*data, *own) = (text, ends);
                Ok(())
            }
            _ => self.take_utf8(text, ends),
        }
    }

    /// [`take_str`](Self::take_str) once its ends were checked.
    fn take_valid_str(&mut self, text: String, ends: Vec<usize>) -> Result<()> {
        match (&mut self.node, &self.ty) {
            (Node::Bytes { data, ends: own }, Metadata::Primitive(P::String)) if own.is_empty() => {
                let mut text = text.into_bytes();
                text.truncate(ends.last().copied().unwrap_or(0));
                (*data, *own) = (text, ends);
                Ok(())
            }
            _ => self.extend_str(&text, &ends),
        }
    }

    /// Appends many unsigned integers at once, moved in (all or none: every
    /// one must fit the node's integer type). Into an empty `u64` node the
    /// buffer is moved, without a copy; [`drain_u64`](Self::drain_u64) gives
    /// it back.
    ///
    /// ```
    /// use xbf::{Columns, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(PrimitiveType::U64.into()));
    /// cols.root().push_len(3)?.take_u64(vec![1, 2, 3])?;
    /// let mut u8s = Columns::new(&Metadata::vec(PrimitiveType::U8.into()));
    /// assert!(u8s.root().push_len(1)?.take_u64(vec![256]).is_err());
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_u64(&mut self, xs: Vec<u64>) -> Result<()> {
        match &mut self.node {
            Node::Ints { col: IntCol::Narrow(col), bits: 64, signed: false } if col.is_empty() => {
                *col = xs;
                Ok(())
            }
            _ => self.extend_u64(&xs),
        }
    }

    /// Appends many signed integers at once, moved in (all or none: every
    /// one must fit the node's integer type). Into an empty `i64` (or
    /// timestamp) node the buffer is moved and zigzagged in place, without a
    /// copy; [`drain_i64`](Self::drain_i64) gives it back.
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let ty = Metadata::vec(PrimitiveType::I64.into());
    /// let mut cols = Columns::new(&ty);
    /// cols.root().push_len(3)?.take_i64(vec![-1, 0, i64::MAX])?;
    /// let bytes = EncodeOptions::v2().encode_columns(cols)?;
    /// assert_eq!(xbf::decode_message(&bytes)?.to_string(), format!("[-1, 0, {}]", i64::MAX));
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_i64(&mut self, xs: Vec<i64>) -> Result<()> {
        match &mut self.node {
            Node::Ints { col: IntCol::Narrow(col), bits: 64, signed: true } if col.is_empty() => {
                // Collected in place (same size and alignment): no allocation.
                *col = xs.into_iter().map(varint::zigzag64).collect();
                Ok(())
            }
            _ => self.extend_i64(&xs),
        }
    }

    /// Appends many `f64`s at once, moved in: into an empty node without a
    /// copy; [`drain_f64`](Self::drain_f64) gives them back.
    ///
    /// ```
    /// use xbf::{Columns, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(PrimitiveType::F64.into()));
    /// let floats = cols.root().push_len(2)?;
    /// floats.take_f64(vec![0.5, -1.0])?;
    /// assert_eq!(floats.drain_f64()?, [0.5, -1.0]);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_f64(&mut self, xs: Vec<f64>) -> Result<()> {
        match &mut self.node {
            Node::F64(col) if col.is_empty() => {
                *col = xs;
                Ok(())
            }
            _ => self.extend_f64(&xs),
        }
    }

    /// Appends many bools at once, moved in: into an empty node as its
    /// column of bytes (converted in place, no allocation);
    /// [`drain_bool`](Self::drain_bool) gives them back.
    ///
    /// ```
    /// use xbf::{Columns, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(PrimitiveType::Bool.into()));
    /// let bools = cols.root().push_len(2)?;
    /// bools.take_bool(vec![true, false])?;
    /// assert_eq!(bools.drain_bool()?, [true, false]);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_bool(&mut self, bs: Vec<bool>) -> Result<()> {
        match &mut self.node {
            Node::Bool(col) if col.is_empty() => {
                *col = bs.into_iter().map(u8::from).collect();
                Ok(())
            }
            _ => self.extend_bool(&bs),
        }
    }

    /// Appends many enum values at once by their variant indices, moved in
    /// (all or none: every index must name a variant), and gives every
    /// variant's node, which then takes the payloads of its values in order
    /// (as [`extend_variants`](Self::extend_variants)). The indices are
    /// bytes, as the node keeps them while each fits one: into an empty enum
    /// node the buffer is moved, without a copy or a conversion (variants
    /// past the 256th take [`extend_variants`](Self::extend_variants)).
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, EnumMetadata, Metadata, PrimitiveType};
    ///
    /// let unit = Metadata::from(PrimitiveType::Unit);
    /// let e = EnumMetadata::new("E", [("none", unit.clone()), ("some", PrimitiveType::U64.into())])?;
    /// let mut cols = Columns::new(&Metadata::vec(e.into()));
    /// let items = cols.root().push_len(3)?;
    /// let mut variants = items.take_variants(vec![1, 0, 1])?;
    /// variants[1].take_u64(vec![7, 9])?;
    /// let bytes = EncodeOptions::v2().encode_columns(cols)?;
    /// assert_eq!(xbf::decode_message(&bytes)?.to_string(), "[some(7), none, some(9)]");
    ///
    /// // An index past the last variant is refused.
    /// let mut cols = Columns::new(&Metadata::vec(EnumMetadata::new("F", [("a", unit)])?.into()));
    /// assert!(cols.root().push_len(1)?.take_variants(vec![1]).is_err());
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_variants(&mut self, tags: Vec<u8>) -> Result<Vec<&mut ColumnNode>> {
        match &mut self.node {
            Node::Enum(own, variants) => {
                let k = variants.len();
                // An OR of all (which vectorises) bounds them when the
                // count of variants is a power of two, as an optional
                // key's two are; else the largest.
                let past = if k > usize::from(u8::MAX) {
                    false
                } else if k.is_power_of_two() {
                    usize::from(tags.iter().fold(0, |m, &t| m | t)) >= k
                } else {
                    tags.iter().copied().max().is_some_and(|t| usize::from(t) >= k)
                };
                if past {
                    let t = tags.iter().find(|&&t| usize::from(t) >= k).copied().unwrap_or_default();
                    return Err(mismatch(&self.ty, &format!("variant {t}")));
                }
                match own {
                    Tags::Bytes(own) if own.is_empty() => *own = tags,
                    own => own.extend(tags.iter().map(|&t| usize::from(t))),
                }
                Ok(variants.iter_mut().collect())
            }
            _ => Err(mismatch(&self.ty, "enum values")),
        }
    }

    /// Appends many values of `any` type at once, their type indices moved
    /// in: value `i`'s own type is `types[tags[i]]` (the `types` distinct;
    /// all or none: every index must name one of them). Gives the node of
    /// each of `types`, in their order, which then takes the values of that
    /// type (as [`extend_any`](ColumnNode::extend_any)). The indices are
    /// bytes, as the node keeps them while each fits one: into an empty node
    /// the buffer is moved, without a copy or a conversion (more than 256
    /// types take [`extend_any`](ColumnNode::extend_any)).
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(Metadata::Any));
    /// let items = cols.root().push_len(3)?;
    /// let types = [PrimitiveType::String.into(), PrimitiveType::U64.into()];
    /// let mut nodes = items.take_any(&types, vec![1, 0, 1])?;
    /// nodes[0].push_str("a")?;
    /// nodes[1].take_u64(vec![7, 9])?;
    /// let bytes = EncodeOptions::v2().encode_columns(cols)?;
    /// assert_eq!(xbf::decode_message(&bytes)?.to_string(), r#"[7, "a", 9]"#);
    ///
    /// // An index past the types given is refused.
    /// let mut cols = Columns::new(&Metadata::vec(Metadata::Any));
    /// assert!(cols.root().push_len(1)?.take_any(&types, vec![2]).is_err());
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn take_any(&mut self, types: &[Metadata], tags: Vec<u8>) -> Result<Vec<&mut ColumnNode>> {
        if !matches!(&self.node, Node::Any(known, own, _) if known.is_empty() && own.is_empty()) {
            // Types met before map to their places in the node: appended
            // (and any other node refuses them).
            let tags: Vec<usize> = tags.iter().map(|&t| usize::from(t)).collect();
            return self.extend_any(types, &tags);
        }
        let Node::Any(known, own, nodes) = &mut self.node else { unreachable!("an any node, checked above") };
        // The largest index first (a max over bytes, which vectorises; a
        // search for the first past the types tested each byte), the first
        // past them only for the error.
        if usize::from(tags.iter().fold(0, |m, &t| m.max(t))) >= types.len() && !tags.is_empty() {
            let t = tags.iter().find(|&&t| usize::from(t) >= types.len()).copied().unwrap_or_default();
            return Err(Error::new(ErrorKind::TypeMismatch, format!("the type index {t} of {} types", types.len())));
        }
        let keys: Vec<TypeKey> = types.iter().map(TypeKey::of).collect();
        if keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k)) {
            return Err(Error::new(ErrorKind::TypeMismatch, "the types of take_any must be distinct"));
        }
        // An empty node: its types are these, in this order.
        known.extend(types.iter().cloned().zip(keys));
        nodes.extend(types.iter().map(ColumnNode::new));
        *own = Tags::Bytes(tags);
        Ok(nodes.iter_mut().collect())
    }

    /// The strings (or byte strings) of the node, moved out: all their bytes
    /// one after the other and where each ends. The node is left empty.
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(PrimitiveType::String.into()));
    /// cols.root().push_len(2)?.take_str("abc".to_string(), vec![1, 3])?;
    /// let bytes = EncodeOptions::v2().encode_columns_kept(&mut cols)?;
    /// let (text, ends) = cols.root().push_len(0)?.drain_joined()?;
    /// assert_eq!((&text[..], &ends[..]), (&b"abc"[..], &[1, 3][..]));
    /// # let _ = bytes;
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn drain_joined(&mut self) -> Result<(Vec<u8>, Vec<usize>)> {
        match &mut self.node {
            Node::Bytes { data, ends } => Ok((std::mem::take(data), std::mem::take(ends))),
            _ => Err(mismatch(&self.ty, "a drain of strings")),
        }
    }

    /// The integers of a `u64` node (64 bits, unsigned), moved out. The
    /// node is left empty.
    pub fn drain_u64(&mut self) -> Result<Vec<u64>> {
        match &mut self.node {
            Node::Ints { col: IntCol::Narrow(col), bits: 64, signed: false } => Ok(std::mem::take(col)),
            _ => Err(mismatch(&self.ty, "a drain of u64s")),
        }
    }

    /// The integers of an `i64` or timestamp node, moved out (unzigzagged
    /// in place). The node is left empty.
    pub fn drain_i64(&mut self) -> Result<Vec<i64>> {
        match &mut self.node {
            Node::Ints { col: IntCol::Narrow(col), bits: 64, signed: true } => {
                Ok(std::mem::take(col).into_iter().map(varint::unzigzag64).collect())
            }
            _ => Err(mismatch(&self.ty, "a drain of i64s")),
        }
    }

    /// The buffer of an `i64` or timestamp node, moved out as the node
    /// keeps it (each value zigzagged: not the values, which
    /// [`drain_i64`](Self::drain_i64) gives, one pass later), for a caller
    /// that only reuses its room. The node is left empty.
    ///
    /// ```
    /// use xbf::{Columns, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(PrimitiveType::I64.into()));
    /// let ints = cols.root().push_len(2)?;
    /// ints.take_i64(Vec::with_capacity(100))?;
    /// assert!(ints.drain_i64_buffer()?.capacity() >= 100);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn drain_i64_buffer(&mut self) -> Result<Vec<u64>> {
        match &mut self.node {
            Node::Ints { col: IntCol::Narrow(col), bits: 64, signed: true } => Ok(std::mem::take(col)),
            _ => Err(mismatch(&self.ty, "a drain of i64s")),
        }
    }

    /// The `f64`s of the node, moved out. The node is left empty.
    pub fn drain_f64(&mut self) -> Result<Vec<f64>> {
        match &mut self.node {
            Node::F64(col) => Ok(std::mem::take(col)),
            _ => Err(mismatch(&self.ty, "a drain of f64s")),
        }
    }

    /// The bools of the node, moved out. The node is left empty.
    pub fn drain_bool(&mut self) -> Result<Vec<bool>> {
        match &mut self.node {
            Node::Bool(col) => Ok(std::mem::take(col).into_iter().map(|b| b != 0).collect()),
            _ => Err(mismatch(&self.ty, "a drain of bools")),
        }
    }
}
