//! The rows message of a list of flat records from the columns
//! [`crate::records`] gathered: when `dumps` (layout `auto`) finds the rows
//! the smaller, it writes them from those columns instead of walking the
//! Python objects a second time. The bytes are the rows encoder's
//! (`Enc::value` with the same type); the tests compare the two.
//!
//! A field whose type is a plain scalar (no `option`, no key some records
//! lack, not `any`) has one kind of value in every record, so it is written
//! from its column's values alone, with no per-record kind to read: the
//! usual case, and the whole of a table of floats (normal-2d.json), whose
//! records are then laid out column by column at fixed offsets.

use std::borrow::Cow;
use std::slice::Iter;

use xbf::infer::Ints;
use xbf::wire::{self, varint};
use xbf::{EncodeOptions, Metadata, PrimitiveType as P};

use crate::columns::uvarint_len;
use crate::plan::is_optional_key;
use crate::records::{RawColumn, K_ABSENT, K_BOOL, K_FLOAT, K_INT, K_NULL, K_STR, K_UINT};

/// How one field's value is written, per record.
#[derive(Clone, Copy)]
enum Write {
    Unit,
    Bool,
    F64,
    Str,
    U64,
    I64,
    /// `any` holding a scalar: its type's code, then the value.
    Any,
}

/// A field whose records do not all have one kind of value (an `option`,
/// a key some records lack, `any`): how its values are written, whether it
/// is an option (a byte 0 or 1 first) or a key some records lack
/// (`json.optional`: a byte 0 absent, 1 present), and where each of its
/// column's values is read next.
struct Tagged<'a> {
    col: &'a RawColumn,
    write: Write,
    option: bool,
    optional_key: bool,
    kinds: Cow<'a, [u8]>,
    /// The next record.
    record: usize,
    bools: usize,
    ints: usize,
    floats: usize,
    strs: usize,
}

/// One field and the values it writes next, record after record.
enum Op<'a> {
    /// Every record's value is one of these, in order.
    Unit,
    Bool(Iter<'a, bool>),
    F64(Iter<'a, f64>),
    /// Ints (as the bits of an i64, or a u64 above `i64::MAX`) as varints.
    U64(Iter<'a, u64>),
    /// Ints as zigzag varints.
    I64(Iter<'a, u64>),
    /// Strings: the text, the end of each, and where the next starts.
    Str(&'a [u8], Iter<'a, usize>, usize),
    /// The kind of each record's value read first.
    Tagged(Box<Tagged<'a>>),
}

fn write_of(ty: &Metadata) -> Option<Write> {
    Some(match ty {
        Metadata::Any => Write::Any,
        Metadata::Primitive(P::Unit) => Write::Unit,
        Metadata::Primitive(P::Bool) => Write::Bool,
        Metadata::Primitive(P::F64) => Write::F64,
        Metadata::Primitive(P::String) => Write::Str,
        Metadata::Primitive(P::U64) => Write::U64,
        Metadata::Primitive(P::I64) => Write::I64,
        _ => return None,
    })
}

/// The most bytes one varint of the ints of `bits` takes (zigzagged when
/// `signed`); 10 (any u64) when their bits are not known.
fn int_width(bits: Option<Ints>, signed: bool) -> usize {
    let Some(b) = bits else { return 10 };
    // Zigzag: a value below 2^ubits takes ubits + 1 bits, one of sbits
    // bits (sign included) sbits.
    let bits = if signed { (b.ubits + 1).max(b.sbits) } else { b.ubits };
    (bits.clamp(1, 64) as usize).div_ceil(7)
}

/// The op of a field of type `ty` (inside its `json.optional` and `option`
/// if any) over `col` of `n` records, and the most bytes its values take in
/// the rows; `None` for a field type the columns path does not make, or a
/// column whose values do not match it.
fn op_of<'a>(ty: &Metadata, col: &'a RawColumn, n: usize) -> Option<(Op<'a>, usize)> {
    let (optional_key, ty) = match ty {
        Metadata::Enum(e) if is_optional_key(ty) => (true, e.variant_at(1)?.1),
        _ => (false, ty),
    };
    let (option, ty) = match ty {
        Metadata::Option(inner) => (true, &**inner),
        t => (false, t),
    };
    let write = write_of(ty)?;
    let strs = || col.ends().last().map_or(0, |&end| end + col.ends().len() * uvarint_len(end as u64));
    if !optional_key && !option && !matches!(write, Write::Any) {
        // One kind in every record (inference gives a key some records
        // lack, a None among other values, or values of two kinds another
        // type): each of the `n` values in its column.
        let count = match write {
            Write::Unit => n,
            Write::Bool => col.bools.len(),
            Write::F64 => col.floats.len(),
            Write::Str => col.ends().len(),
            _ => col.ints.len(),
        };
        if count != n {
            return None;
        }
        return Some(match write {
            Write::Unit => (Op::Unit, 0),
            Write::Bool => (Op::Bool(col.bools.iter()), n),
            Write::F64 => (Op::F64(col.floats.iter()), 8 * n),
            Write::Str => (Op::Str(col.text(), col.ends().iter(), 0), strs()),
            Write::U64 => (Op::U64(col.ints.iter()), n * int_width(col.int_bits, false)),
            _ => (Op::I64(col.ints.iter()), n * int_width(col.int_bits, true)),
        });
    }
    let kinds = col.kinds();
    if kinds.len() != n {
        return None;
    }
    // Tags, `any`'s code, then the values (ints as any u64 in `any`).
    let ints = col.ints.len() * if matches!(write, Write::Any) { 10 } else { int_width(col.int_bits, true) };
    let most = n * (usize::from(optional_key) + usize::from(option) + usize::from(matches!(write, Write::Any)))
        + col.bools.len()
        + 8 * col.floats.len()
        + ints
        + strs();
    let tagged = Tagged { col, write, option, optional_key, kinds, record: 0, bools: 0, ints: 0, floats: 0, strs: 0 };
    Some((Op::Tagged(Box::new(tagged)), most))
}

/// The rows message (header, metadata `meta` of `ty`, value) of `n`
/// records whose struct fields `fields` (type of each, in the struct's
/// order) hold the values of `cols[slots[i]]`; `None` for a field type
/// the columns path does not make. (`_size`: the least the message can
/// take, which the bound worked out here passes.)
pub(crate) fn rows_of(
    meta: &[u8],
    fields: &[&Metadata],
    cols: &[RawColumn],
    slots: &[usize],
    n: usize,
    _size: usize,
) -> xbf::Result<Option<Vec<u8>>> {
    let mut ops = Vec::with_capacity(fields.len());
    let mut most = 2 + meta.len() + uvarint_len(n as u64);
    for (&ty, &slot) in fields.iter().zip(slots) {
        let Some((op, bytes)) = op_of(ty, &cols[slot], n) else { return Ok(None) };
        ops.push(op);
        most += bytes;
    }
    let mut out = Vec::with_capacity(most);
    out.extend_from_slice(&[wire::V2_MARKER, 0]);
    out.extend_from_slice(meta);
    varint::put_u64(&mut out, n as u64);
    if !fixed_width(&mut out, &ops, n) {
        let codes = any_codes()?;
        for _ in 0..n {
            for op in ops.iter_mut() {
                write_next(&mut out, op, &codes);
            }
        }
    }
    debug_assert!(out.len() <= most);
    Ok(Some(out))
}

/// Writes the records column by column when every field takes a fixed
/// number of bytes (`bool`, `f64`, unit): each record is then the same
/// size, and each field at the same offset in it. `false` (nothing
/// written) otherwise.
fn fixed_width(out: &mut Vec<u8>, ops: &[Op<'_>], n: usize) -> bool {
    let mut size = 0;
    for op in ops {
        size += match op {
            Op::Unit => 0,
            Op::Bool(_) => 1,
            Op::F64(_) => 8,
            _ => return false,
        };
    }
    if size == 0 {
        return true;
    }
    let start = out.len();
    out.resize(start + n * size, 0);
    let records = &mut out[start..];
    let mut at = 0;
    for op in ops {
        match op {
            Op::Bool(bools) => {
                for (record, &b) in records.chunks_exact_mut(size).zip(bools.as_slice()) {
                    record[at] = u8::from(b);
                }
                at += 1;
            }
            Op::F64(floats) => {
                for (record, x) in records.chunks_exact_mut(size).zip(floats.as_slice()) {
                    record[at..at + 8].copy_from_slice(&x.to_le_bytes());
                }
                at += 8;
            }
            _ => {}
        }
    }
    true
}

/// The one-byte codes of the primitive types `any` holds (SPEC.md 12.2),
/// in the order unit, bool, u64, i64, f64, string.
fn any_codes() -> xbf::Result<[u8; 6]> {
    let mut codes = [0u8; 6];
    for (i, p) in [P::Unit, P::Bool, P::U64, P::I64, P::F64, P::String].into_iter().enumerate() {
        let code = EncodeOptions::v2().encode_metadata(&Metadata::from(p))?;
        let [c] = code[..] else {
            return Err(xbf::Error::new(xbf::ErrorKind::Unsupported, "a primitive's code takes one byte".to_owned()));
        };
        codes[i] = c;
    }
    Ok(codes)
}

/// Writes the next record's value of one field.
#[inline(always)]
fn write_next(out: &mut Vec<u8>, op: &mut Op<'_>, codes: &[u8; 6]) {
    // (`op_of` checked that each column has a value for every record.)
    match op {
        Op::Unit => {}
        Op::Bool(it) => out.push(it.next().map_or(0, |&b| u8::from(b))),
        Op::F64(it) => out.extend_from_slice(&it.next().map_or(0, |x| x.to_bits()).to_le_bytes()),
        Op::U64(it) => varint::put_u64(out, it.next().copied().unwrap_or(0)),
        Op::I64(it) => varint::put_u64(out, varint::zigzag64(it.next().map_or(0, |&x| x as i64))),
        Op::Str(text, ends, start) => {
            let end = ends.next().copied().unwrap_or(*start);
            let s = &text[*start..end];
            *start = end;
            varint::put_u64(out, s.len() as u64);
            out.extend_from_slice(s);
        }
        Op::Tagged(f) => write_tagged(out, f, codes),
    }
}

/// Writes the next record's value of a field whose kinds vary: its tags
/// and `any`'s code as its kind says, then the value.
fn write_tagged(out: &mut Vec<u8>, f: &mut Tagged<'_>, codes: &[u8; 6]) {
    let kind = f.kinds[f.record];
    f.record += 1;
    if f.optional_key {
        out.push(u8::from(kind != K_ABSENT));
        if kind == K_ABSENT {
            return;
        }
    }
    if f.option {
        out.push(u8::from(kind != K_NULL));
        if kind == K_NULL {
            return;
        }
    }
    if let Write::Any = f.write {
        let code = match kind {
            K_NULL => codes[0],
            K_BOOL => codes[1],
            K_INT if (f.col.ints[f.ints] as i64) < 0 => codes[3],
            K_INT | K_UINT => codes[2],
            K_FLOAT => codes[4],
            _ => codes[5],
        };
        out.push(code);
    }
    match kind {
        K_NULL => {}
        K_BOOL => {
            out.push(u8::from(f.col.bools[f.bools]));
            f.bools += 1;
        }
        K_INT | K_UINT => {
            let x = f.col.ints[f.ints];
            f.ints += 1;
            match f.write {
                Write::I64 => varint::put_u64(out, varint::zigzag64(x as i64)),
                Write::Any if kind == K_INT && (x as i64) < 0 => varint::put_u64(out, varint::zigzag64(x as i64)),
                _ => varint::put_u64(out, x),
            }
        }
        K_FLOAT => {
            out.extend_from_slice(&f.col.floats[f.floats].to_le_bytes());
            f.floats += 1;
        }
        K_STR => {
            let start = if f.strs == 0 { 0 } else { f.col.ends()[f.strs - 1] };
            let s = &f.col.text()[start..f.col.ends()[f.strs]];
            f.strs += 1;
            varint::put_u64(out, s.len() as u64);
            out.extend_from_slice(s);
        }
        _ => unreachable!("an absent value of a key all records have"),
    }
}
