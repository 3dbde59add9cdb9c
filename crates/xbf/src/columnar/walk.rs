//! Walking the columns without decoding them: their paths, encodings and
//! sizes (for projection, `xbf stats` and the XBF file footer).

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::options::DecodeOptions;
use crate::wire::ColumnEncoding as E;
use crate::wire::ColumnEncoding;

use super::*;

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
