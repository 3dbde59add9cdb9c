//! FSST string columns (encoding `23`, SPEC.md §22.2.4; in a block of an XBF
//! file only): a table of up to 255 symbols of 1 to 8 bytes, the values'
//! lengths as an integer block (a cascade: any integer encoding), then the
//! values' bytes, one after the other, as codes: a byte below 255 stands for
//! its symbol, 255 for the byte after it (Boncz, Neumann, Leis: "FSST: fast
//! random access string compression", VLDB 2020).
//!
//! The codes are of the values joined, so a reader decodes them in one pass
//! into one buffer and cuts it by the lengths: Arrow's layout of a string
//! column (offsets and one buffer of bytes) with no copy per value. The
//! writer trains the table with the `fsst-rs` crate; the reader is ours.

use crate::error::{Error, ErrorKind, Result};
use crate::wire::ColumnEncoding as E;

use super::cursor::Cursor;
use super::ints::Planned;
use super::Budget;

/// The code that stands for the byte after it.
const ESCAPE: u8 = 255;
/// Columns of fewer bytes are not worth a table (which takes up to 2 KiB).
const MIN_BYTES: usize = 1024;
/// The values are compressed this many bytes at a time, so that the
/// compressor's buffer (twice its input) stays small.
const CHUNK: usize = 64 << 10;

#[cfg(test)]
thread_local! {
    /// Set by the measurement, for the file writer as it was without FSST.
    pub(crate) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The body of the FSST encoding of `values` (`joined` is their bytes one
/// after the other), or `None` when they are too few bytes to be worth it.
pub(crate) fn encode(values: &[&[u8]], joined: &[u8]) -> Option<Vec<u8>> {
    #[cfg(test)]
    if OFF.with(std::cell::Cell::get) {
        return None;
    }
    if joined.len() < MIN_BYTES {
        return None;
    }
    let sample: Vec<&[u8]> = values.to_vec();
    let table = ::fsst::Compressor::train(&sample);
    let lens: Vec<u64> = values.iter().map(|v| v.len() as u64).collect();
    let lens = Planned::new(&lens);
    let symbols = table.symbol_table();
    let mut out = Vec::with_capacity(joined.len() / 2 + 3000);
    out.push(E::Fsst.byte());
    out.push(symbols.len() as u8);
    out.extend(table.symbol_lengths());
    for s in symbols {
        out.extend_from_slice(&s.to_u64().to_le_bytes()[..s.len()]);
    }
    lens.write_block(&mut out);
    for chunk in joined.chunks(CHUNK) {
        out.extend_from_slice(&table.compress(chunk));
    }
    Some(out)
}

/// A decoded FSST column: its values' bytes in one buffer, and each
/// value's length (which add up to the buffer's length).
#[derive(Debug)]
pub(crate) struct Decoded {
    pub(crate) bytes: Vec<u8>,
    pub(crate) lens: Vec<u64>,
}

/// Reads an FSST column body of `n` values, its encoding byte read; `at` is
/// that byte's offset. The codes run to the end of `c`. The values' bytes
/// are charged to `budget` before the buffer is made, and must be exactly
/// what the codes decode to.
pub(crate) fn decode(c: &mut Cursor<'_>, n: u64, at: u64, budget: &mut Budget) -> Result<Decoded> {
    let table_at = c.offset();
    let count = usize::from(c.u8()?);
    let sizes = c.take(count)?;
    let mut symbols = [[0u8; 8]; 255];
    let mut widths = [0u8; 255];
    let mut need = 0usize;
    for (i, &w) in sizes.iter().enumerate() {
        if !(1..=8).contains(&w) {
            return Err(c.invalid(table_at, format!("symbol {i} of {w} bytes (FSST symbols take 1 to 8)")));
        }
        widths[i] = w;
        need += usize::from(w);
    }
    let mut bytes = c.take(need)?;
    for (sym, &w) in symbols.iter_mut().zip(&widths[..count]) {
        let (head, rest) = bytes.split_at(usize::from(w));
        sym[..head.len()].copy_from_slice(head);
        bytes = rest;
    }
    let lens = super::strings::read_ints(c, n)?;
    let codes_cursor = c.clone();
    let codes = c.rest();
    c.advance(codes.len());
    let total = super::strings::total(&lens);
    // A code makes at most 8 bytes: a claim past that is refused before
    // anything is allocated, and so is one past the budget.
    if total > 8 * codes.len() as u128 {
        return Err(
            c.invalid(at, format!("{} bytes of codes cannot make the {total} bytes of the values", codes.len()))
        );
    }
    budget.charge(at, total)?;
    let total = usize::try_from(total).map_err(|_| Error::at(ErrorKind::TooLarge, at, "values past memory"))?;
    // Each symbol is copied as 8 bytes and the end moved by its width, so
    // the buffer has 8 bytes of room past the values, cut at the end.
    let mut out = vec![0u8; total + 8];
    let mut end = 0usize;
    let mut i = 0usize;
    while i < codes.len() {
        let code = codes[i];
        let (word, width) = if code == ESCAPE {
            let Some(&b) = codes.get(i + 1) else {
                let at = codes_cursor.offset_ahead(i);
                return Err(Error::at(ErrorKind::Truncated, at, "an FSST escape with no byte after it"));
            };
            ([b, 0, 0, 0, 0, 0, 0, 0], 1)
        } else {
            let k = usize::from(code);
            if k >= count {
                return Err(
                    c.invalid(codes_cursor.offset_ahead(i), format!("FSST code {code} past the {count} symbols"))
                );
            }
            (symbols[k], usize::from(widths[k]))
        };
        if end + width > total {
            let detail = format!("the FSST codes make more than the {total} bytes of the values");
            return Err(c.invalid(codes_cursor.offset_ahead(i), detail));
        }
        out[end..end + 8].copy_from_slice(&word);
        end += width;
        i += if code == ESCAPE { 2 } else { 1 };
    }
    if end != total {
        return Err(c.invalid(at, format!("the FSST codes make {end} bytes, the lengths {total}")));
    }
    out.truncate(total);
    Ok(Decoded { bytes: out, lens })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::varint;

    fn put_block(out: &mut Vec<u8>, block: &[u8]) {
        varint::put(out, block.len() as u128);
        out.extend_from_slice(block);
    }

    fn decode_all(bytes: &[u8], n: u64, budget: u64) -> Result<Decoded> {
        let mut c = Cursor::new(bytes, 0).in_file();
        assert_eq!(c.u8()?, E::Fsst.byte());
        decode(&mut c, n, 0, &mut Budget::new(budget))
    }

    #[test]
    fn text_round_trips_and_shrinks() {
        let titles: Vec<String> = (0..2000)
            .map(|i| format!("The Return of the {} Part {}", ["King", "Jedi", "Mummy"][i % 3], i % 7))
            .collect();
        let values: Vec<&[u8]> = titles.iter().map(|s| s.as_bytes()).collect();
        let joined = values.concat();
        let body = encode(&values, &joined).unwrap();
        assert!(body.len() * 3 < joined.len(), "{} of {}", body.len(), joined.len());
        let d = decode_all(&body, values.len() as u64, 1 << 20).unwrap();
        assert_eq!(d.bytes, joined);
        assert_eq!(d.lens, values.iter().map(|v| v.len() as u64).collect::<Vec<_>>());
        // Any bytes, empty values and bytes no symbol holds.
        let odd: Vec<Vec<u8>> = (0..3000u32).map(|i| (0..i % 9).map(|j| (i * 31 + j * 7) as u8).collect()).collect();
        let values: Vec<&[u8]> = odd.iter().map(Vec::as_slice).collect();
        let joined = values.concat();
        let body = encode(&values, &joined).unwrap();
        assert_eq!(decode_all(&body, values.len() as u64, 1 << 20).unwrap().bytes, joined);
        assert!(encode(&values[..3], &values[..3].concat()).is_none());
    }

    /// Two symbols, "ab" and "c", and three values, "abc", "", "abx".
    fn example() -> Vec<u8> {
        let mut b = vec![E::Fsst.byte(), 2, 2, 1, b'a', b'b', b'c'];
        put_block(&mut b, &super::super::ints::encode(&[3u128, 0, 3]));
        b.extend_from_slice(&[0, 1, 0, ESCAPE, b'x']);
        b
    }

    #[test]
    fn the_example_decodes() {
        // SPEC.md §22.2.4, byte for byte.
        let hex: String = example().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "230202016162630400030003000100ff78");
        let d = decode_all(&example(), 3, 100).unwrap();
        assert_eq!((d.bytes.as_slice(), d.lens.as_slice()), (&b"abcabx"[..], &[3, 0, 3][..]));
    }

    #[test]
    fn hostile_columns_fail_cleanly() {
        let kind = |b: &[u8], budget| decode_all(b, 3, budget).unwrap_err().kind();
        let mut b = example();
        b[2] = 9; // a symbol of 9 bytes
        assert_eq!(kind(&b, 100), ErrorKind::InvalidColumn);
        let mut b = example();
        b.truncate(b.len() - 2);
        b.push(0); // "ab" where "x" was: one byte too many
        assert_eq!(kind(&b, 100), ErrorKind::InvalidColumn);
        let mut b = example();
        b.pop(); // an escape at the end
        assert_eq!(kind(&b, 100), ErrorKind::Truncated);
        let mut b = example();
        let last = b.len() - 2;
        b[last] = 7; // a code past the two symbols
        assert_eq!(kind(&b, 100), ErrorKind::InvalidColumn);
        let mut b = example();
        b.truncate(b.len() - 2); // codes that make too few bytes
        assert_eq!(kind(&b, 100), ErrorKind::InvalidColumn);
        assert_eq!(kind(&example()[..5], 100), ErrorKind::Truncated);
        assert_eq!(kind(&example(), 5), ErrorKind::TooLarge);
        // Lengths that claim far more than the codes can make.
        let mut b = vec![E::Fsst.byte(), 1, 8, 1, 2, 3, 4, 5, 6, 7, 8];
        put_block(&mut b, &super::super::ints::encode(&[1u128 << 31, 0, 0]));
        b.extend_from_slice(&[0; 16]);
        assert_eq!(kind(&b, 1 << 40), ErrorKind::InvalidColumn);
    }
}
