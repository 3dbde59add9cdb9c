//! The footer of an XBF file (SPEC.md §24.4): for every block its place,
//! its record count and, for every column, its size, CRC-32C and
//! statistics; and the static list of a record type's columns that the
//! footer's entries follow.

use crate::columnar::{Cursor, Selection};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::options::{DecodeOptions, EncodeOptions};
use crate::value::Value;
use crate::wire::varint;
use crate::wire::Version;

use super::stats::{stat_type, ColumnStatistics};

/// The last four bytes of a finished XBF file.
pub const MAGIC: [u8; 4] = *b"XBFF";
/// The bytes after the footer: its CRC-32C, its length (u32 LE), the magic.
pub(crate) const TRAILER: usize = 12;

/// Where a block lies and what the footer says of it.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockInfo {
    /// The file offset of the block's length prefix.
    pub offset: u64,
    /// The block's bytes: length prefix, body and CRC-32C.
    pub size: u64,
    /// How many records it holds.
    pub records: u64,
    /// Its columns, in the order of the columnar walk (SPEC.md §22.1).
    pub columns: Vec<ColumnInfo>,
}

impl BlockInfo {
    /// The byte range of the block in the file.
    pub fn range(&self) -> std::ops::Range<u64> {
        self.offset..self.offset + self.size
    }

    /// The file offset of the block's body (its record count).
    pub(crate) fn body_offset(&self) -> u64 {
        self.offset + varint::len(u128::from(self.body_len())) as u64
    }

    /// The length of the block's body.
    pub(crate) fn body_len(&self) -> u64 {
        body_len_of(self.size.saturating_sub(4))
    }

    /// The file offset of each column's first byte, the first right after
    /// the record count.
    pub(crate) fn column_offsets(&self) -> Vec<u64> {
        let mut at = self.body_offset() + varint::len(u128::from(self.records)) as u64;
        self.columns
            .iter()
            .map(|c| {
                let here = at;
                at += c.size;
                here
            })
            .collect()
    }
}

/// The *b* such that a varint of *b* followed by *b* bytes takes `total`
/// bytes (0 if there is none).
pub(crate) fn body_len_of(total: u64) -> u64 {
    (1..=10u64)
        .filter_map(|p| total.checked_sub(p))
        .find(|&b| varint::len(u128::from(b)) as u64 + b == total)
        .unwrap_or(0)
}

/// One column of one block.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnInfo {
    /// The column's bytes, its length prefix included.
    pub size: u64,
    /// The CRC-32C of those bytes.
    pub crc: u32,
    /// Its statistics (empty for structural columns).
    pub stats: ColumnStatistics,
}

/// A column of a record type, as the columnar walk meets it.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    /// Its path as `xbf stats` names it (`a.[].b`, `a.(lengths)`).
    pub(crate) path: String,
    /// The type of its values, for value columns with statistics.
    pub(crate) stat: Option<P>,
    /// The struct fields on the way to it, as far as projection reaches
    /// (not below tuples, maps and enums).
    pub(crate) names: Vec<String>,
}

/// The columns of `ty` in walk order; `None` if it holds `any`, whose
/// columns depend on the block.
pub(crate) fn slots(ty: &Metadata) -> Option<Vec<Slot>> {
    let mut w = Walk { path: Vec::new(), names: Vec::new(), out: Vec::new() };
    let ok = w.walk(ty, true);
    ok.then_some(w.out)
}

struct Walk {
    path: Vec<String>,
    names: Vec<String>,
    out: Vec<Slot>,
}

impl Walk {
    fn push(&mut self, label: Option<&str>, stat: Option<P>) {
        let mut p: Vec<&str> = self.path.iter().map(String::as_str).collect();
        p.extend(label);
        self.out.push(Slot { path: p.join("."), stat, names: self.names.clone() });
    }

    /// A child at `name`; `field` says it is a struct field that projection
    /// can name (`sel`: projection still reaches this far).
    fn nested(&mut self, name: String, field: bool, t: &Metadata, sel: bool) -> bool {
        self.path.push(name.clone());
        let named = field && sel;
        if named {
            self.names.push(name);
        }
        let ok = self.walk(t, sel);
        if named {
            self.names.pop();
        }
        self.path.pop();
        ok
    }

    fn walk(&mut self, ty: &Metadata, sel: bool) -> bool {
        match ty {
            Metadata::Primitive(P::Unit) => true,
            Metadata::Primitive(p) => {
                self.push(None, stat_type(*p));
                true
            }
            Metadata::Vec(e) => {
                self.push(Some("(lengths)"), None);
                self.nested("[]".into(), false, e, sel)
            }
            Metadata::Array(a) => self.nested("[]".into(), false, &a.element, sel),
            Metadata::Struct(s) => s.fields().all(|(n, t)| self.nested(n.to_owned(), true, t, sel)),
            Metadata::Tuple(ts) => ts.iter().enumerate().all(|(i, t)| self.nested(i.to_string(), false, t, false)),
            Metadata::Option(inner) => {
                self.push(Some("(present)"), None);
                self.walk(inner, sel)
            }
            Metadata::Map(m) => {
                self.push(Some("(lengths)"), None);
                self.nested("key".into(), false, &m.key, false) && self.nested("value".into(), false, &m.value, false)
            }
            Metadata::Enum(e) => {
                self.push(Some("(variant)"), None);
                e.variants().all(|(n, t)| self.nested(n.to_owned(), false, t, false))
            }
            Metadata::Any => false,
        }
    }
}

/// Whether a projection `sel` (None: everything) reads the column `slot`.
pub(crate) fn wanted(sel: Option<&Selection>, slot: &Slot) -> bool {
    let mut at = sel;
    for name in &slot.names {
        match at {
            None => return true,
            Some(s) => match s.fields.get(name) {
                None => return false,
                Some(sub) => at = sub.as_ref(),
            },
        }
    }
    true
}

const HAS_MIN_MAX: u8 = 0x01;
const EXACT: u8 = 0x02;

/// The footer's body: every block's entry.
pub(crate) fn encode(blocks: &[BlockInfo]) -> Vec<u8> {
    let mut out = Vec::new();
    varint::put(&mut out, blocks.len() as u128);
    for b in blocks {
        varint::put(&mut out, u128::from(b.offset));
        varint::put(&mut out, u128::from(b.size));
        varint::put(&mut out, u128::from(b.records));
        varint::put(&mut out, b.columns.len() as u128);
        for c in &b.columns {
            varint::put(&mut out, u128::from(c.size));
            out.extend_from_slice(&c.crc.to_le_bytes());
            let st = &c.stats;
            match &st.min_max {
                Some((lo, hi)) => {
                    out.push(HAS_MIN_MAX | if st.exact { EXACT } else { 0 });
                    for v in [lo, hi] {
                        let bytes = EncodeOptions::v2().encode_value(v).expect("a primitive value encodes");
                        varint::put(&mut out, bytes.len() as u128);
                        out.extend_from_slice(&bytes);
                    }
                }
                None => out.push(0),
            }
            varint::put(&mut out, u128::from(st.nulls));
            varint::put(&mut out, u128::from(st.nans));
        }
    }
    out
}

fn invalid(at: u64, what: String) -> Error {
    Error::at(ErrorKind::InvalidColumn, at, format!("the footer {what}"))
}

/// Reads a footer body that starts at file offset `base`; `slots` are the
/// record type's columns (None with `any`: no statistics allowed); blocks
/// must lie in order between `data_start` and `data_end`.
pub(crate) fn parse(
    body: &[u8],
    base: u64,
    slots: Option<&[Slot]>,
    data_start: u64,
    data_end: u64,
    opts: &DecodeOptions,
) -> Result<Vec<BlockInfo>> {
    let mut c = Cursor::new(body, base);
    let at = c.offset();
    let count = c.varint(64)? as u64;
    // An entry takes at least four bytes: offset, size, records, columns.
    c.check_fits(at, count, 4)?;
    let mut blocks = Vec::with_capacity(count as usize);
    let mut next = data_start;
    for i in 0..count {
        let at = c.offset();
        let offset = c.varint(64)? as u64;
        let size = c.varint(64)? as u64;
        let records = c.varint(64)? as u64;
        let k_at = c.offset();
        let k = c.varint(64)? as u64;
        let end = offset.checked_add(size).filter(|&e| offset >= next && e <= data_end);
        let Some(end) = end else {
            return Err(invalid(at, format!("places block {i} at {offset}..+{size}, outside {next}..{data_end}")));
        };
        next = end;
        if records == 0 {
            return Err(invalid(at, format!("gives block {i} no records")));
        }
        // A column entry takes at least eight bytes.
        c.check_fits(k_at, k, 8)?;
        if let Some(s) = slots {
            if k != s.len() as u64 {
                return Err(invalid(k_at, format!("gives block {i} {k} columns; its type has {}", s.len())));
            }
        }
        let mut columns = Vec::with_capacity(k as usize);
        let mut sum = varint::len(u128::from(records)) as u64;
        for j in 0..k as usize {
            let size = c.varint(64)? as u64;
            sum = sum.saturating_add(size);
            let crc = u32::from_le_bytes(c.take(4)?.try_into().expect("4 bytes"));
            let flags_at = c.offset();
            let flags = c.u8()?;
            let mut stats = ColumnStatistics::default();
            if flags & !(HAS_MIN_MAX | EXACT) != 0 || flags == EXACT {
                return Err(invalid(flags_at, format!("has statistics flags 0x{flags:02x}")));
            }
            if flags & HAS_MIN_MAX != 0 {
                let p = slots.and_then(|s| s[j].stat).ok_or_else(|| {
                    invalid(flags_at, format!("gives statistics to column {j} of block {i}, which has none"))
                })?;
                let ty = Metadata::from(p);
                let mut pair = Vec::with_capacity(2);
                for _ in 0..2 {
                    let mut v = c.block()?;
                    let v_at = v.offset();
                    let bytes = v.take(v.remaining() as usize)?;
                    pair.push(opts.decode_value(Version::V2, &ty, bytes).map_err(|e| e.shifted(v_at))?);
                }
                let hi: Value = pair.pop().expect("two");
                let lo: Value = pair.pop().expect("two");
                if super::stats::compare(&lo, &hi).map_or(true, |o| o.is_gt()) {
                    return Err(invalid(flags_at, format!("gives column {j} of block {i} a min above its max")));
                }
                stats.min_max = Some((lo, hi));
                stats.exact = flags & EXACT != 0;
            }
            let counts_at = c.offset();
            stats.nulls = c.varint(64)? as u64;
            stats.nans = c.varint(64)? as u64;
            let has_stats = slots.is_some_and(|s| s[j].stat.is_some());
            if !has_stats && (stats.nulls, stats.nans) != (0, 0) {
                return Err(invalid(
                    counts_at,
                    format!("counts nulls or NaN in column {j} of block {i}, which has none"),
                ));
            }
            columns.push(ColumnInfo { size, crc, stats });
        }
        let info = BlockInfo { offset, size, records, columns };
        let body = info.body_len();
        if body == 0 || info.body_offset() + body + 4 != end || sum != body {
            return Err(invalid(at, format!("gives block {i} columns of {sum} bytes in a body of {body}")));
        }
        blocks.push(info);
    }
    if !c.at_end() {
        return Err(Error::at(ErrorKind::TrailingBytes, c.offset(), "bytes remain after the footer's blocks"));
    }
    Ok(blocks)
}
