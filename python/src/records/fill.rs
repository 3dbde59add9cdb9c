//! The hand-off to the core: the gathered columns moved into the core's
//! column builder (`ColumnNode`s) as the inferred type says ([`fill_key`],
//! [`fill`]), the columnar message written, and the buffers moved back for
//! the rows message or the next call of an `xbf.Encoder`.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use xbf::{EncodeOptions, Metadata, PrimitiveType as P};

use super::column::{RawColumn, K_ABSENT, K_BOOL, K_FLOAT, K_INT, K_NULL, K_UINT};
use super::Gathered;
use crate::columns::uvarint_len;
use crate::errors::encode_err;
use crate::plan::is_optional_key;

/// The columnar message of gathered records: in the `bytes` object
/// returned, or, where the rows may be smaller, in a buffer to compare.
pub(crate) enum Written<'py> {
    Bytes(Bound<'py, PyBytes>),
    Buffer(Vec<u8>),
}

impl Gathered {
    /// The columnar message, written through the core's column builder, and
    /// the least the rows message can take (each varint one byte: its exact
    /// size needs a walk of every value, which only a close call needs);
    /// `None` for a type this path does not take. The message goes straight
    /// into a new `bytes` object when it is the one to return (`columnar`
    /// asks for columns, or it is under that least), else into a buffer.
    /// The gathered columns are moved into the builder (no copy) and, when
    /// `keep` (the rows may be wanted, or an encoder reuses the buffers),
    /// moved back after.
    pub(crate) fn columns<'py>(
        &mut self,
        py: Python<'py>,
        zstd: Option<i32>,
        columnar: bool,
        keep: bool,
    ) -> PyResult<Option<(Written<'py>, usize)>> {
        let typed = self.typed.clone();
        let fields: Vec<&Metadata> = typed.record().fields().map(|(_, t)| t).collect();
        let mut columns = xbf::Columns::new(&typed.ty);
        let records = columns.root().push_len(self.n).map_err(encode_err)?;
        // The rows message: the length of the list, then each record's fields.
        let mut rows_min = uvarint_len(self.n as u64);
        let mut filled = 0;
        let mut failed = false;
        for (i, (&fty, &slot)) in fields.iter().zip(&typed.slots).enumerate() {
            let node = records.field(i).map_err(encode_err)?;
            match fill_key(node, fty, &mut self.cols[slot]).map_err(encode_err)? {
                Some(r) => rows_min += r,
                None => {
                    failed = true;
                    break;
                }
            }
            filled += 1;
        }
        let rows_min = 2 + typed.meta.len() + rows_min;
        let cols = if failed {
            None
        } else {
            let opts = EncodeOptions::v2().compress_columns(zstd).map_err(encode_err)?;
            let written = opts
                .encode_columns_with(&mut columns, |len, write| {
                    if columnar || len < rows_min {
                        PyBytes::new_bound_with(py, len, |buf| {
                            write(buf);
                            Ok(())
                        })
                        .map(|b| (Written::Bytes(b), len))
                    } else {
                        let mut buf = vec![0; len];
                        write(&mut buf);
                        Ok((Written::Buffer(buf), len))
                    }
                })
                .map_err(encode_err)??;
            Some(written)
        };
        // The columns back where the rows read them (their values: the
        // columns are in a buffer, to compare with the rows), or where the
        // next call finds them (their room only).
        let values = failed || matches!(cols, Some((Written::Buffer(_), _)));
        let records = columns.root().push_len(0).map_err(encode_err)?;
        if keep || values {
            for (i, (&fty, &slot)) in fields.iter().zip(&typed.slots).enumerate().take(filled) {
                let node = records.field(i).map_err(encode_err)?;
                unfill_key(node, fty, &mut self.cols[slot], values).map_err(encode_err)?;
            }
        }
        Ok(cols.map(|(c, _)| (c, rows_min)))
    }

    /// The rows message (XBF 2) of the records, the bytes the rows encoder
    /// writes for this type, from the gathered columns; `size` a guess of
    /// its length. `None` for a type this path does not take.
    pub(crate) fn rows(&self, size: usize) -> PyResult<Option<Vec<u8>>> {
        let fields: Vec<&Metadata> = self.record().fields().map(|(_, t)| t).collect();
        crate::records_rows::rows_of(&self.typed.meta, &fields, &self.cols, &self.typed.slots, self.n, size)
            .map_err(encode_err)
    }
}

/// Pushes the values of one key into its column node of type `ty`: for a
/// key some records lack, a `json.optional` tag for each record, then the
/// values of those that have it. The least they take in the rows layout
/// (each varint one byte), or `None` for a type this path does not take. The column's buffers are
/// moved into the node ([`unfill_key`] moves them back).
fn fill_key(node: &mut xbf::ColumnNode, ty: &Metadata, col: &mut RawColumn) -> xbf::Result<Option<usize>> {
    if !col.absent {
        // Only `option` and `any` read the kinds (a column of one kind has
        // neither type).
        let kinds = if col.mixed {
            std::mem::take(&mut col.kinds)
        } else if matches!(ty, Metadata::Option(_) | Metadata::Any) {
            col.kinds().into_owned()
        } else {
            Vec::new()
        };
        let r = fill(node, ty, col, &kinds);
        if col.mixed {
            col.kinds = kinds;
        }
        return r;
    }
    let Some(present_ty) = optional_key_inner(ty) else { return Ok(None) };
    // Each record's tag (0 or 1) made as the node keeps it, and moved in.
    let tags: Vec<u8> = col.kinds.iter().map(|&k| u8::from(k != K_ABSENT)).collect();
    let n = tags.len();
    // The kinds of the values present: only `option` and `any` read them.
    let kinds: Vec<u8> = if matches!(present_ty, Metadata::Option(_) | Metadata::Any) {
        col.kinds.iter().copied().filter(|&k| k != K_ABSENT).collect()
    } else {
        Vec::new()
    };
    let mut nodes = node.take_variants(tags)?;
    // A byte for each record's tag, then the values present.
    Ok(fill(nodes.swap_remove(1), present_ty, col, &kinds)?.map(|r| r + n))
}

/// The type of the present values of a key some records lack (variant 1 of
/// its `json.optional` enum).
fn optional_key_inner(ty: &Metadata) -> Option<&Metadata> {
    let Metadata::Enum(e) = ty else { return None };
    e.variant_at(1).filter(|_| is_optional_key(ty)).map(|(_, t)| t)
}

/// The primitive types of flat records' values.
fn prim(t: &Metadata) -> Option<P> {
    match t {
        Metadata::Primitive(p @ (P::Unit | P::Bool | P::F64 | P::String | P::U64 | P::I64)) => Some(*p),
        _ => None,
    }
}

/// Moves the values of `col` of primitive type `p` into `node` (those of
/// all its kinds but None: inference gave them this type); the least they
/// take in rows (each varint one byte).
fn take_scalars(node: &mut xbf::ColumnNode, p: P, col: &mut RawColumn) -> xbf::Result<usize> {
    use std::mem::take;
    Ok(match p {
        P::Unit => 0,
        P::Bool => {
            let n = col.bools.len();
            node.take_bool(take(&mut col.bools))?;
            n
        }
        P::F64 => {
            let n = col.floats.len();
            node.take_f64(take(&mut col.floats))?;
            8 * n
        }
        P::String => {
            let rows = col.ends().last().map_or(0, |&end| end + col.ends().len());
            col.take_strings(node)?;
            rows
        }
        P::U64 => {
            let rows = col.ints.len();
            node.take_u64(take(&mut col.ints))?;
            rows
        }
        P::I64 => {
            let rows = col.ints.len();
            // The bits of each i64, as i64s: collected in place.
            node.take_i64(take(&mut col.ints).into_iter().map(|x| x as i64).collect())?;
            rows
        }
        _ => unreachable!("a primitive of flat records"),
    })
}

/// Moves back into `col` what [`take_scalars`] moved into `node`: the
/// values, or (not `values`: the column is cleared before it is read again)
/// the buffers as the node keeps them.
fn untake_scalars(node: &mut xbf::ColumnNode, p: P, col: &mut RawColumn, values: bool) -> xbf::Result<()> {
    match p {
        P::Unit => {}
        P::Bool => col.bools = node.drain_bool()?,
        P::F64 => col.floats = node.drain_f64()?,
        P::String => col.untake_strings(node)?,
        P::U64 => col.ints = node.drain_u64()?,
        P::I64 if values => col.ints = node.drain_i64()?.into_iter().map(|x| x as u64).collect(),
        P::I64 => col.ints = node.drain_i64_buffer()?,
        _ => unreachable!("a primitive of flat records"),
    }
    Ok(())
}

/// Moves back into `col` the buffers [`fill_key`] moved into `node` (of a
/// column of `any`, those of its bools, floats and strings: its ints were
/// split into new buffers); `values`: as [`untake_scalars`].
fn unfill_key(node: &mut xbf::ColumnNode, ty: &Metadata, col: &mut RawColumn, values: bool) -> xbf::Result<()> {
    let (node, ty) = match optional_key_inner(ty) {
        Some(t) if col.absent => (node.extend_variants(&[])?.swap_remove(1), t),
        _ => (node, ty),
    };
    let (node, ty) = match ty {
        Metadata::Option(inner) => (node.extend_options(&[])?, &**inner),
        Metadata::Any => {
            // The node of each of these types (one the values lacked is
            // added, empty: the columns are not written again).
            const MOVED: [P; 3] = [P::Bool, P::F64, P::String];
            let types = MOVED.map(Metadata::from);
            for (node, p) in node.extend_any(&types, &[])?.into_iter().zip(MOVED) {
                untake_scalars(node, p, col, values)?;
            }
            return Ok(());
        }
        t => (node, t),
    };
    match prim(ty) {
        Some(p) => untake_scalars(node, p, col, values),
        None => Ok(()),
    }
}

/// The types of an `any` column's values, by slot: the slot of a value is
/// its place here.
const ANY_TYPES: [P; 6] = [P::Unit, P::Bool, P::U64, P::I64, P::F64, P::String];

/// An `any` column's values as its node takes them: each value's type (as
/// `to_value` chooses: ints from 0 up as u64) as its slot in [`ANY_TYPES`],
/// the slots in first-seen order (`order`), each value's index in that
/// order (`tags`), and the ints split by sign.
#[derive(Debug, PartialEq)]
struct AnyTags {
    order: Vec<usize>,
    tags: Vec<u8>,
    u64s: Vec<u64>,
    i64s: Vec<i64>,
}

impl AnyTags {
    /// The tags of values of `kinds`, whose ints are `ints` in order.
    fn of(kinds: &[u8], ints: &[u64]) -> Self {
        // No int with its top bit set (none below 0, none above
        // `i64::MAX`; one OR over them, which vectorises): every int is a
        // u64 and each kind has one slot, so each value's index is looked up
        // by its kind, without a branch on the kind nor a walk of the ints
        // per value. Else the value-by-value walk.
        if ints.iter().fold(0, |a, &x| a | x) >> 63 != 0 {
            return Self::each(kinds, ints);
        }
        let mut slot_of = [5u8; 256];
        for (kind, slot) in [(K_NULL, 0), (K_BOOL, 1), (K_INT, 2), (K_UINT, 2), (K_FLOAT, 4)] {
            slot_of[usize::from(kind)] = slot;
        }
        // Each kind's index, set when its first value comes (a slot's
        // kinds all take the slot's index).
        let mut index_of = [u8::MAX; 256];
        let mut order = Vec::new();
        let tags = kinds
            .iter()
            .map(|&kind| {
                let index = index_of[usize::from(kind)];
                if index != u8::MAX {
                    return index;
                }
                let slot = slot_of[usize::from(kind)];
                let index = match order.iter().position(|&s| s == usize::from(slot)) {
                    Some(i) => i as u8,
                    None => {
                        order.push(usize::from(slot));
                        (order.len() - 1) as u8
                    }
                };
                index_of[usize::from(kind)] = index;
                index
            })
            .collect();
        Self { order, tags, u64s: ints.to_vec(), i64s: Vec::new() }
    }

    /// [`of`](Self::of) value by value, following the ints.
    fn each(kinds: &[u8], ints: &[u64]) -> Self {
        let (mut order, mut slot_at) = (Vec::new(), [usize::MAX; 6]);
        let (mut u64s, mut i64s) = (Vec::new(), Vec::new());
        let mut ints = ints.iter();
        let tags = kinds
            .iter()
            .map(|&kind| {
                let slot = match kind {
                    K_NULL => 0,
                    K_BOOL => 1,
                    K_INT | K_UINT => {
                        let x = *ints.next().expect("an int for each int kind");
                        if kind == K_UINT || (x as i64) >= 0 {
                            u64s.push(x);
                            2
                        } else {
                            i64s.push(x as i64);
                            3
                        }
                    }
                    K_FLOAT => 4,
                    _ => 5,
                };
                if slot_at[slot] == usize::MAX {
                    slot_at[slot] = order.len();
                    order.push(slot);
                }
                slot_at[slot] as u8
            })
            .collect();
        Self { order, tags, u64s, i64s }
    }
}

/// Pushes the values of one key (`kinds`: of the records that have it) into
/// its column node of type `ty`, as
/// `to_value` would have converted them; the least they take in the rows
/// layout (each varint one byte), or `None` for a type that path does not
/// take.
fn fill(node: &mut xbf::ColumnNode, ty: &Metadata, col: &mut RawColumn, kinds: &[u8]) -> xbf::Result<Option<usize>> {
    match ty {
        Metadata::Any => {
            // Each scalar as a value of `any`: its type (as `to_value`
            // chooses: ints from 0 up as u64), the types in first-seen
            // order; then the values of each type at once.
            let AnyTags { order, tags, mut u64s, mut i64s } = AnyTags::of(kinds, &col.ints);
            let types: Vec<Metadata> = order.iter().map(|&slot| ANY_TYPES[slot].into()).collect();
            // A byte for each value's type, then the values.
            let mut rows = tags.len();
            let nodes = node.take_any(&types, tags)?;
            // Each into its own new node, moved: the ints split by sign
            // here, the other kinds' buffers moved back by `unfill_key`.
            for (node, &slot) in nodes.into_iter().zip(&order) {
                rows += match slot {
                    2 => {
                        let n = u64s.len();
                        node.take_u64(std::mem::take(&mut u64s))?;
                        n
                    }
                    3 => {
                        let n = i64s.len();
                        node.take_i64(std::mem::take(&mut i64s))?;
                        n
                    }
                    _ => take_scalars(node, ANY_TYPES[slot], col)?,
                };
            }
            Ok(Some(rows))
        }
        Metadata::Option(inner) => {
            let Some(p) = prim(inner) else { return Ok(None) };
            let present: Vec<bool> = kinds.iter().map(|&k| k != K_NULL).collect();
            let inner = node.extend_options(&present)?;
            Ok(Some(present.len() + take_scalars(inner, p, col)?))
        }
        t => {
            let Some(p) = prim(t) else { return Ok(None) };
            Ok(Some(take_scalars(node, p, col)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::column::{K_BOOL, K_FLOAT, K_INT, K_NULL, K_UINT};
    use super::AnyTags;

    /// The tags looked up by kind (every int from 0 up) against the walk
    /// value by value, on columns of every mix of kinds, with ints of each
    /// sign and width (those below 0 or above `i64::MAX` take the walk).
    #[test]
    fn any_tags_by_kind_as_value_by_value() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut fast = 0;
        for round in 0..2000 {
            let (mut kinds, mut ints) = (Vec::new(), Vec::new());
            // A few kinds per column, in any order, drawn from all six.
            let mix = next();
            for _ in 0..(round % 23) {
                let r = next();
                let kind = ((mix >> (8 * (r % 3))) % 6) as u8;
                if kind == K_INT || kind == K_UINT {
                    let v = match r % 5 {
                        0 if round % 3 == 0 => (r >> 8) | 1 << 63,
                        1 => r >> 40,
                        _ => r % 1000,
                    };
                    // Negative only as an int; above i64::MAX only as a uint.
                    let kind = if v >> 63 == 1 && round % 2 == 0 { K_UINT } else { K_INT };
                    kinds.push(kind);
                    ints.push(v);
                } else {
                    kinds.push(kind);
                }
            }
            let by_kind = AnyTags::of(&kinds, &ints);
            assert_eq!(by_kind, AnyTags::each(&kinds, &ints), "{kinds:?} {ints:?}");
            fast += usize::from(ints.iter().all(|&v| v >> 63 == 0));
        }
        // Both ways were compared (the lookup on most columns).
        assert!(fast > 1000, "{fast}");
        let kinds = [K_FLOAT, K_NULL, K_INT, K_BOOL, K_UINT, 5, K_FLOAT];
        let tags = AnyTags::of(&kinds, &[7, 8]);
        assert_eq!((tags.order, tags.tags, tags.u64s), (vec![4, 0, 2, 1, 5], vec![0, 1, 2, 3, 2, 4, 0], vec![7, 8]));
    }
}
