//! String and bytes columns: plain, a dictionary of distinct values (for
//! repeats), or each value as the length of the prefix it shares with the
//! previous one plus the rest (for sorted values, URLs, ids).

use std::collections::HashMap;

use crate::error::{Error, ErrorKind, Result};

use super::cursor::Cursor;
use super::ints;
use super::Budget;

pub(crate) const PLAIN: u8 = 32;
pub(crate) const DICT: u8 = 33;
pub(crate) const PREFIX: u8 = 34;

fn put_block(out: &mut Vec<u8>, block: &[u8]) {
    ints::put_varint(out, block.len() as u128);
    out.extend_from_slice(block);
}

fn lengths<'a>(values: impl Iterator<Item = &'a [u8]>) -> Vec<u128> {
    values.map(|v| v.len() as u128).collect()
}

fn plain(values: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![PLAIN];
    put_block(&mut out, &ints::encode(&lengths(values.iter().copied())));
    for v in values {
        out.extend_from_slice(v);
    }
    out
}

fn dict(values: &[&[u8]]) -> Option<Vec<u8>> {
    let mut index: HashMap<&[u8], u128> = HashMap::new();
    let mut distinct: Vec<&[u8]> = Vec::new();
    let mut ids = Vec::with_capacity(values.len());
    for v in values {
        let id = *index.entry(v).or_insert_with(|| {
            distinct.push(v);
            distinct.len() as u128 - 1
        });
        ids.push(id);
        // A dictionary of nearly all distinct values cannot win.
        if distinct.len() > values.len() / 2 + 16 {
            return None;
        }
    }
    let mut out = vec![DICT];
    ints::put_varint(&mut out, distinct.len() as u128);
    put_block(&mut out, &ints::encode(&lengths(distinct.iter().copied())));
    let bytes: Vec<u8> = distinct.concat();
    put_block(&mut out, &bytes);
    out.extend_from_slice(&ints::encode(&ids));
    Some(out)
}

fn prefix(values: &[&[u8]]) -> Vec<u8> {
    let mut shared = Vec::with_capacity(values.len());
    let mut rest_lens = Vec::with_capacity(values.len());
    let mut rest = Vec::new();
    let mut prev: &[u8] = &[];
    for v in values {
        let p = prev.iter().zip(v.iter()).take_while(|(a, b)| a == b).count();
        shared.push(p as u128);
        rest_lens.push((v.len() - p) as u128);
        rest.extend_from_slice(&v[p..]);
        prev = v;
    }
    let mut out = vec![PREFIX];
    put_block(&mut out, &ints::encode(&shared));
    put_block(&mut out, &ints::encode(&rest_lens));
    out.extend_from_slice(&rest);
    out
}

/// Every encoding worth trying for `values` (a general compressor after
/// them may favour another one than the smallest).
pub(crate) fn candidates(values: &[&[u8]]) -> Vec<Vec<u8>> {
    [Some(plain(values)), dict(values), Some(prefix(values))].into_iter().flatten().collect()
}

/// The smallest of the three encodings of `values`.
pub(crate) fn encode(values: &[&[u8]]) -> Vec<u8> {
    candidates(values).into_iter().min_by_key(Vec::len).expect("plain is always a candidate")
}

/// Sums lengths that were each checked to be at most the column's size.
fn total(lens: &[u128]) -> u128 {
    lens.iter().fold(0u128, |a, &b| a.saturating_add(b))
}

fn split(bytes: &[u8], lens: &[u128]) -> Vec<Vec<u8>> {
    let mut at = 0usize;
    lens.iter()
        .map(|&l| {
            let s = bytes[at..at + l as usize].to_vec();
            at += l as usize;
            s
        })
        .collect()
}

/// Reads a string or bytes column body of exactly `n` values; a PLAIN or
/// PREFIX column's bytes run to the end of the column.
///
/// A dictionary or shared prefixes can make a few bytes stand for many, so
/// the bytes the values will take are charged to `budget` before any is made.
pub(crate) fn decode(c: &mut Cursor<'_>, n: u64, budget: &mut Budget) -> Result<Vec<Vec<u8>>> {
    let at = c.offset();
    match c.u8()? {
        PLAIN => {
            let lens = read_ints(c, n)?;
            let bytes = c.take_checked(total(&lens))?;
            Ok(split(bytes, &lens))
        }
        DICT => {
            let d_at = c.offset();
            let d = c.varint(64)? as u64;
            // Each distinct value has a length in the lengths block.
            c.check_fits(d_at, d, 1)?;
            let lens = read_ints(c, d)?;
            let mut block = c.block()?;
            let bytes = block.take_checked(total(&lens))?;
            block.finish("dictionary")?;
            let distinct = split(bytes, &lens);
            let ids = ints::decode(c, n, 64)?;
            let size =
                ids.iter().map(|&i| lens.get(i as usize).copied().unwrap_or(0)).fold(0u128, u128::saturating_add);
            budget.charge(at, size)?;
            ids.iter()
                .map(|&i| {
                    distinct
                        .get(i as usize)
                        .cloned()
                        .filter(|_| i < d as u128)
                        .ok_or_else(|| c.invalid(at, format!("a dictionary index {i} past its {d} values")))
                })
                .collect()
        }
        PREFIX => {
            let shared = read_ints(c, n)?;
            let rest_lens = read_ints(c, n)?;
            let rest = c.take_checked(total(&rest_lens))?;
            budget.charge(at, total(&shared).saturating_add(total(&rest_lens)))?;
            let mut out: Vec<Vec<u8>> = Vec::with_capacity(n as usize);
            let mut at_rest = 0usize;
            for (i, (&p, &r)) in shared.iter().zip(&rest_lens).enumerate() {
                let prev = if i == 0 { &[][..] } else { &out[i - 1][..] };
                if p > prev.len() as u128 {
                    return Err(c.invalid(at, format!("value {i} shares {p} bytes with a value of {}", prev.len())));
                }
                let mut v = prev[..p as usize].to_vec();
                v.extend_from_slice(&rest[at_rest..at_rest + r as usize]);
                at_rest += r as usize;
                out.push(v);
            }
            Ok(out)
        }
        other => {
            Err(Error::at(ErrorKind::UnknownDiscriminant, at, format!("0x{other:02x} is not a string column encoding")))
        }
    }
}

/// A length-prefixed integer block of `n` values, each at most as large as
/// the whole column, so that sums of them cannot overflow.
fn read_ints(c: &mut Cursor<'_>, n: u64) -> Result<Vec<u128>> {
    let mut block = c.block()?;
    let at = block.offset();
    let values = ints::decode(&mut block, n, 64)?;
    block.finish("integer block")?;
    let limit = c.remaining() as u128 + (1 << 32);
    if let Some(v) = values.iter().find(|&&v| v > limit) {
        return Err(Error::at(ErrorKind::Truncated, at, format!("a length of {v} passes the column")));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(values: &[&str]) -> u8 {
        let bytes: Vec<&[u8]> = values.iter().map(|s| s.as_bytes()).collect();
        let enc = encode(&bytes);
        let mut c = Cursor::new(&enc, 0);
        let back = decode(&mut c, values.len() as u64, &mut Budget::new(1 << 20)).unwrap();
        assert!(c.at_end());
        assert_eq!(back, bytes);
        enc[0]
    }

    #[test]
    fn each_encoding_wins_where_it_should() {
        let repeated: Vec<&str> = (0..500).map(|i| ["Point", "Feature", "earthquake"][i % 3]).collect();
        assert_eq!(round_trip(&repeated), DICT);
        let urls: Vec<String> =
            (0..300).map(|i| format!("https://earthquake.usgs.gov/eventpage/ci{}", 37_000_000 + i)).collect();
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        assert_eq!(round_trip(&urls), PREFIX);
        assert_eq!(round_trip(&["a", "xyz", "é"]), PLAIN);
        round_trip(&[]);
        round_trip(&["", "", "a", ""]);
    }

    #[test]
    fn hostile_columns_fail_cleanly() {
        // PREFIX claiming to share 5 bytes with nothing.
        let shared = ints::encode(&[5]);
        let rest = ints::encode(&[0]);
        let mut bytes = vec![PREFIX];
        put_block(&mut bytes, &shared);
        put_block(&mut bytes, &rest);
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::InvalidColumn);
        // DICT index past the dictionary.
        let mut bytes = vec![DICT, 1];
        put_block(&mut bytes, &ints::encode(&[1]));
        put_block(&mut bytes, b"a");
        bytes.extend_from_slice(&ints::encode(&[3]));
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::InvalidColumn);
        // PLAIN lengths past the column.
        let mut bytes = vec![PLAIN];
        put_block(&mut bytes, &ints::encode(&[1 << 40]));
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::Truncated);
        // A dictionary of one long value, referenced a million times.
        let long = vec![b'x'; 1000];
        let ids = vec![0u128; 1_000_000];
        let mut bytes = vec![DICT, 1];
        put_block(&mut bytes, &ints::encode(&[1000]));
        put_block(&mut bytes, &long);
        bytes.extend_from_slice(&ints::encode(&ids));
        assert!(bytes.len() < 1100);
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, 1_000_000, &mut Budget::new(1 << 20)).unwrap_err().kind(), ErrorKind::TooLarge);
    }
}
