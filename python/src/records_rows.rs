//! The rows message of a list of flat records from the columns
//! [`crate::records`] gathered: when `dumps` (layout `auto`) finds the rows
//! the smaller, it writes them from those columns instead of walking the
//! Python objects a second time. The bytes are the rows encoder's
//! (`Enc::value` with the same type); the tests compare the two.

use xbf::wire::{self, varint};
use xbf::{EncodeOptions, Metadata, PrimitiveType as P};

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

/// One field: how its values are written, whether it is an option (a byte
/// 0 or 1 first) or a key some records lack (`json.optional`: a byte 0
/// absent, 1 present), and where each of its column's values is read next.
struct Field<'a> {
    col: &'a RawColumn,
    write: Write,
    option: bool,
    optional_key: bool,
    kinds: &'a [u8],
    bools: usize,
    ints: usize,
    floats: usize,
    strs: usize,
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

/// The rows message (header, metadata `meta` of `ty`, value) of `n`
/// records whose struct fields `fields` (type of each, in the struct's
/// order) hold the values of `cols[slots[i]]`; `None` for a field type
/// the columns path does not make.
pub(crate) fn rows_of(
    meta: &[u8],
    fields: &[&Metadata],
    cols: &[RawColumn],
    slots: &[usize],
    n: usize,
    size: usize,
) -> xbf::Result<Option<Vec<u8>>> {
    let mut plan = Vec::with_capacity(fields.len());
    // Each record's kind, per field.
    let kinds: Vec<_> = slots.iter().map(|&slot| cols[slot].kinds()).collect();
    for ((&ty, &slot), kinds) in fields.iter().zip(slots).zip(&kinds) {
        let col = &cols[slot];
        let (optional_key, ty) = match ty {
            Metadata::Enum(e) if is_optional_key(ty) => match e.variant_at(1) {
                Some((_, t)) => (true, t),
                None => return Ok(None),
            },
            _ => (false, ty),
        };
        let (option, ty) = match ty {
            Metadata::Option(inner) => (true, &**inner),
            t => (false, t),
        };
        let Some(write) = write_of(ty) else { return Ok(None) };
        plan.push(Field { col, write, option, optional_key, kinds, bools: 0, ints: 0, floats: 0, strs: 0 });
    }
    // The one-byte codes of the primitive types `any` holds (SPEC.md 12.2).
    let mut codes = [0u8; 6];
    for (i, p) in [P::Unit, P::Bool, P::U64, P::I64, P::F64, P::String].into_iter().enumerate() {
        let code = EncodeOptions::v2().encode_metadata(&Metadata::from(p))?;
        let [c] = code[..] else { return Ok(None) };
        codes[i] = c;
    }
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&[wire::V2_MARKER, 0]);
    out.extend_from_slice(meta);
    varint::put_u64(&mut out, n as u64);
    for i in 0..n {
        for f in plan.iter_mut() {
            let kind = f.kinds[i];
            if f.optional_key {
                out.push(u8::from(kind != K_ABSENT));
                if kind == K_ABSENT {
                    continue;
                }
            }
            if f.option {
                out.push(u8::from(kind != K_NULL));
                if kind == K_NULL {
                    continue;
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
                        Write::I64 => varint::put_u64(&mut out, varint::zigzag64(x as i64)),
                        Write::Any if kind == K_INT && (x as i64) < 0 => {
                            varint::put_u64(&mut out, varint::zigzag64(x as i64))
                        }
                        _ => varint::put_u64(&mut out, x),
                    }
                }
                K_FLOAT => {
                    out.extend_from_slice(&f.col.floats[f.floats].to_le_bytes());
                    f.floats += 1;
                }
                K_STR => {
                    let start = if f.strs == 0 { 0 } else { f.col.ends[f.strs - 1] };
                    let s = &f.col.text[start..f.col.ends[f.strs]];
                    f.strs += 1;
                    varint::put_u64(&mut out, s.len() as u64);
                    out.extend_from_slice(s);
                }
                _ => unreachable!("an absent value of a key all records have"),
            }
        }
    }
    Ok(Some(out))
}
