//! XBF file vectors (vectors/files/, SPEC.md §24.8): read forward, read from
//! the end through the footer, and written again in the same blocks.

use std::io::Cursor;

use serde_json::Value as Json;
use xbf::{ErrorKind, FileOptions, FileReader, FileStreamReader, FileWriter, Metadata, ReadOptions, Value};

use super::{same, to_hex};

fn kind(v: &Json, key: &str) -> Result<Option<ErrorKind>, String> {
    match v.get(key) {
        None => Ok(None),
        Some(k) => {
            let k = k.as_str().ok_or_else(|| format!("\"{key}\" is not a string"))?;
            Ok(Some(ErrorKind::from_name(k).ok_or_else(|| format!("unknown error kind {k:?}"))?))
        }
    }
}

fn show(rs: &[Value]) -> String {
    rs.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The error a file vector names under `key` ("error" or "end_error"), with
/// the byte and path under `{prefix}offset` and `{prefix}path`, which every
/// such vector gives (vectors/README.md).
fn want(v: &Json, key: &str, prefix: &str) -> Result<Option<(ErrorKind, u64, String)>, String> {
    let Some(k) = kind(v, key)? else { return Ok(None) };
    let offset = v.get(format!("{prefix}offset")).and_then(Json::as_u64);
    let path = v.get(format!("{prefix}path")).and_then(Json::as_str);
    match (offset, path) {
        (Some(o), Some(p)) => Ok(Some((k, o, p.to_owned()))),
        _ => Err(format!("\"{key}\" needs a numeric \"{prefix}offset\" and a \"{prefix}path\" string")),
    }
}

fn outcome(what: &str, failure: Option<xbf::Error>, want: Option<(ErrorKind, u64, String)>) -> Result<(), String> {
    match (failure, want) {
        (None, None) => Ok(()),
        (Some(e), Some((k, o, p))) if e.kind() == k && e.offset() == Some(o) && e.path_string() == p => Ok(()),
        (Some(e), Some((k, o, p))) => {
            Err(format!("{what}: failed with {e}, expected at byte {o}, in {p:?}: {}", k.name()))
        }
        (Some(e), None) => Err(format!("{what}: failed with {e}, expected a clean end")),
        (None, Some((k, ..))) => Err(format!("{what}: ended cleanly, expected {}", k.name())),
    }
}

/// Reads a file forward (SPEC.md §24.6) with nothing but its blocks: its
/// type (if the head was read), the records, and the error it ends with.
pub(crate) fn read_forward(bytes: &[u8]) -> (Option<Metadata>, Vec<Value>, Option<xbf::Error>) {
    let q = ReadOptions::default();
    let mut got = Vec::new();
    match FileStreamReader::new(bytes) {
        Err(e) => (None, got, Some(e)),
        Ok(mut r) => {
            let ty = r.metadata().clone();
            loop {
                match r.next_block(&q) {
                    Ok(Some(b)) => got.extend(b),
                    Ok(None) => return (Some(ty), got, None),
                    Err(e) => return (Some(ty), got, Some(e)),
                }
            }
        }
    }
}

/// Reads a file from the end, through its footer (SPEC.md §24.2): the
/// records, and the error it ends with.
pub(crate) fn read_from_end(bytes: &[u8]) -> (Vec<Value>, Option<xbf::Error>) {
    let q = ReadOptions::default();
    let mut got = Vec::new();
    match FileReader::open(Cursor::new(bytes)) {
        Err(e) => (got, Some(e)),
        Ok(mut r) => {
            for item in r.records(&q) {
                match item {
                    Ok(x) => got.push(x),
                    Err(e) => return (got, Some(e)),
                }
            }
            (got, None)
        }
    }
}

/// A file vector: the forward reader yields `records` then fails with
/// `error` (or ends cleanly); a reader from the end yields `records` or
/// fails with `end_error`; `blocks` (valid files) rewrites the bytes.
pub(super) fn check(v: &Json) -> Result<(), String> {
    let (bytes, ty, records) = super::records_vector(v)?;

    // Forward, with nothing but the blocks.
    let (read_ty, got, failure) = read_forward(&bytes);
    if let Some(t) = read_ty.filter(|t| *t != ty) {
        return Err(format!("decoded type {t}, expected {ty}"));
    }
    if got.len() != records.len() || !got.iter().zip(&records).all(|(a, b)| same(a, b)) {
        return Err(format!("forward: yielded [{}], expected [{}]", show(&got), show(&records)));
    }
    outcome("forward", failure, want(v, "error", "")?)?;

    // From the end, through the footer.
    let want_end = want(v, "end_error", "end_")?;
    let (got, failure) = read_from_end(&bytes);
    if want_end.is_none() && (got.len() != records.len() || !got.iter().zip(&records).all(|(a, b)| same(a, b))) {
        return Err(format!("from the end: yielded [{}], expected [{}]", show(&got), show(&records)));
    }
    outcome("from the end", failure, want_end)?;

    if let Some(blocks) = v.get("blocks") {
        let sizes = blocks.as_array().ok_or("\"blocks\" is not an array")?;
        let append_after = v.get("append_after").and_then(Json::as_u64);
        let flags = *bytes.get(1).ok_or("no flags byte")?;
        let opts = || {
            FileOptions::default()
                .block_rows(usize::MAX)
                .block_bytes(usize::MAX)
                .encode_options(xbf::EncodeOptions::v2().schema_by_reference(flags & 0x01 != 0))
        };
        let mut w = FileWriter::new(Cursor::new(Vec::new()), ty, opts()).map_err(|e| e.to_string())?;
        let mut next = records.iter();
        for (i, size) in sizes.iter().enumerate() {
            if append_after == Some(i as u64) {
                let mut file = w.finish().map_err(|e| e.to_string())?;
                file.set_position(0);
                w = FileWriter::append(file, opts()).map_err(|e| e.to_string())?;
            }
            for _ in 0..size.as_u64().ok_or("a block size is not a number")? {
                let r = next.next().ok_or("\"blocks\" add up to more than the records")?;
                w.write(r.clone()).map_err(|e| e.to_string())?;
            }
            w.flush_block().map_err(|e| e.to_string())?;
        }
        let written = w.finish().map_err(|e| e.to_string())?.into_inner();
        if written != bytes {
            return Err(format!("wrote {}, expected {}", to_hex(&written), to_hex(&bytes)));
        }
    }
    Ok(())
}
