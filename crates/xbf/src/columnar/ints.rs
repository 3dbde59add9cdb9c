//! Integer columns: every integer-valued column (integers, dates, lengths,
//! tags, booleans and option presence) is a list of unsigned values, written
//! with whichever of five encodings is smallest for them.

use crate::error::{Error, ErrorKind, Result};
use crate::varint;

use super::cursor::Cursor;

/// Encoding bytes of integer columns (SPEC.md, "Columnar layout").
pub(crate) const VARINT: u8 = 0;
pub(crate) const FOR: u8 = 1;
pub(crate) const DELTA_FOR: u8 = 2;
pub(crate) const RLE: u8 = 3;

pub(crate) fn encoding_name(enc: u8) -> &'static str {
    match enc {
        VARINT => "varint",
        FOR => "frame-of-reference",
        DELTA_FOR => "delta",
        RLE => "run-length",
        _ => "?",
    }
}

pub(crate) fn put_varint(out: &mut Vec<u8>, x: u128) {
    let mut buf = [0u8; varint::MAX_LEN];
    let n = varint::encode(x, &mut buf);
    out.extend_from_slice(&buf[..n]);
}

fn bits_for(x: u128) -> u8 {
    (128 - x.leading_zeros()) as u8
}

/// Packs each value into `width` bits, least significant bit first.
fn pack(out: &mut Vec<u8>, values: impl Iterator<Item = u128>, width: u8) {
    if width == 0 {
        return;
    }
    if width <= 56 {
        // The common case: a u64 holds the pending bits and one value.
        let mut acc: u64 = 0;
        let mut filled: u32 = 0;
        for v in values {
            acc |= (v as u64) << filled;
            filled += u32::from(width);
            while filled >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                filled -= 8;
            }
        }
        if filled > 0 {
            out.push(acc as u8);
        }
        return;
    }
    let mut acc: u128 = 0;
    let mut filled: u32 = 0;
    for v in values {
        let mut v = v;
        let mut left = u32::from(width);
        while left > 0 {
            let take = left.min(128 - filled);
            let part = if take == 128 { v } else { v & ((1u128 << take) - 1) };
            acc |= part << filled;
            filled += take;
            left -= take;
            v = if take == 128 { 0 } else { v >> take };
            while filled >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                filled -= 8;
            }
        }
    }
    if filled > 0 {
        out.push(acc as u8);
    }
}

fn varint_len(x: u128) -> usize {
    (bits_for(x).max(1) as usize).div_ceil(7)
}

/// The base and bit width of a frame of reference over `values`, and the
/// bytes its block takes.
fn for_plan(values: impl Iterator<Item = u128> + Clone) -> (u128, u8, usize, usize) {
    let (mut min, mut max, mut n) = (u128::MAX, 0u128, 0usize);
    for v in values {
        min = min.min(v);
        max = max.max(v);
        n += 1;
    }
    if n == 0 {
        min = 0;
    }
    let width = bits_for(max.saturating_sub(min));
    let size = varint_len(min) + 1 + (n * usize::from(width)).div_ceil(8);
    (min, width, size, n)
}

fn write_for(out: &mut Vec<u8>, values: impl Iterator<Item = u128> + Clone, min: u128, width: u8) {
    put_varint(out, min);
    out.push(width);
    pack(out, values.map(|v| v - min), width);
}

/// The shortest encoding of `values`: the encoding byte, then its payload.
/// The sizes are worked out first and only the winner is written.
pub(crate) fn encode(values: &[u128]) -> Vec<u8> {
    let deltas = || values.windows(2).map(|w| varint::zigzag(w[1].wrapping_sub(w[0]) as i128));
    let varint_size: usize = values.iter().map(|&v| varint_len(v)).sum();
    let (for_min, for_width, for_size, _) = for_plan(values.iter().copied());
    let delta = (values.len() > 1).then(|| {
        let (min, width, size, _) = for_plan(deltas());
        (min, width, varint_len(values[0]) + size)
    });
    let mut rle_size = 0usize;
    let mut i = 0;
    while i < values.len() {
        let run = values[i..].iter().take_while(|&&v| v == values[i]).count();
        rle_size += varint_len(run as u128) + varint_len(values[i]);
        i += run;
    }
    let mut sizes = vec![(varint_size, VARINT), (for_size, FOR), (rle_size, RLE)];
    if let Some((_, _, size)) = delta {
        sizes.push((size, DELTA_FOR));
    }
    // Ties go to the earlier encoding, as when each was written and compared.
    let order = |e: u8| [VARINT, FOR, DELTA_FOR, RLE].iter().position(|&x| x == e);
    let (size, enc) = sizes.into_iter().min_by_key(|&(size, e)| (size, order(e))).expect("candidates");
    let mut out = Vec::with_capacity(size + 1);
    out.push(enc);
    match enc {
        VARINT => values.iter().for_each(|&v| put_varint(&mut out, v)),
        FOR => write_for(&mut out, values.iter().copied(), for_min, for_width),
        DELTA_FOR => {
            let (min, width, _) = delta.expect("delta was a candidate");
            put_varint(&mut out, values[0]);
            write_for(&mut out, deltas(), min, width);
        }
        _ => {
            let mut i = 0;
            while i < values.len() {
                let run = values[i..].iter().take_while(|&&v| v == values[i]).count();
                put_varint(&mut out, run as u128);
                put_varint(&mut out, values[i]);
                i += run;
            }
        }
    }
    debug_assert_eq!(out.len(), size + 1);
    out
}

/// Reads the FOR block of `n` values, each no wider than `max_bits`.
fn read_for(c: &mut Cursor<'_>, n: u64, max_bits: u32) -> Result<Vec<u128>> {
    let base = c.varint(128)?;
    let at = c.offset();
    let width = c.u8()?;
    if u32::from(width) > max_bits {
        return Err(c.invalid(at, format!("a bit width of {width} passes the {max_bits} bits of the type")));
    }
    let bytes = (n as u128 * u128::from(width)).div_ceil(8);
    let packed = c.take_checked(bytes)?;
    let mut out = Vec::with_capacity(n as usize);
    let mut bit = 0usize;
    for _ in 0..n {
        let mut v: u128 = 0;
        let mut got = 0u32;
        while got < u32::from(width) {
            let byte = packed[bit / 8];
            let off = (bit % 8) as u32;
            let take = (8 - off).min(u32::from(width) - got);
            let part = (u128::from(byte) >> off) & ((1u128 << take) - 1);
            v |= part << got;
            got += take;
            bit += take as usize;
        }
        let value = base.checked_add(v).ok_or_else(|| c.invalid(at, "base + value overflows".into()))?;
        out.push(value);
    }
    Ok(out)
}

/// Reads an integer column body of exactly `n` values, each at most
/// `max_bits` wide; `n` was already checked against the decoder's budget.
pub(crate) fn decode(c: &mut Cursor<'_>, n: u64, max_bits: u32) -> Result<Vec<u128>> {
    let at = c.offset();
    let enc = c.u8()?;
    let fits = |v: u128| max_bits >= 128 || v >> max_bits == 0;
    let values = match enc {
        VARINT => {
            // Each varint takes at least a byte.
            c.check_fits(at, n, 1)?;
            let mut out = Vec::with_capacity(n as usize);
            for _ in 0..n {
                out.push(c.varint(max_bits)?);
            }
            out
        }
        FOR => read_for(c, n, max_bits)?,
        DELTA_FOR => {
            if n == 0 {
                return Err(c.invalid(at, "a delta column of no values".into()));
            }
            let first = c.varint(128)?;
            let deltas = read_for(c, n - 1, 128)?;
            let mut out = Vec::with_capacity(n as usize);
            let mut v = first;
            out.push(v);
            for d in deltas {
                v = v.wrapping_add(varint::unzigzag(d) as u128);
                out.push(v);
            }
            out
        }
        RLE => {
            let mut out = Vec::new();
            while (out.len() as u64) < n {
                let run_at = c.offset();
                let run = c.varint(64)? as u64;
                let value = c.varint(128)?;
                if run == 0 || out.len() as u64 + run > n {
                    return Err(
                        c.invalid(run_at, format!("a run of {run} values where {} remain", n - out.len() as u64))
                    );
                }
                out.extend(std::iter::repeat(value).take(run as usize));
            }
            out
        }
        other => {
            return Err(Error::at(
                ErrorKind::UnknownDiscriminant,
                at,
                format!("0x{other:02x} is not an integer column encoding"),
            ))
        }
    };
    if let Some(bad) = values.iter().find(|&&v| !fits(v)) {
        return Err(c.invalid(at, format!("the value {bad} passes the {max_bits} bits of the column's type")));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(values: &[u128]) -> u8 {
        let bytes = encode(values);
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(decode(&mut c, values.len() as u64, 128).unwrap(), values);
        assert!(c.at_end());
        bytes[0]
    }

    #[test]
    fn each_encoding_wins_where_it_should() {
        // A constant column is a frame of reference of width 0: 3 bytes.
        assert_eq!(round_trip(&[5; 1000]), FOR);
        let runs: Vec<u128> = [1u128; 500].iter().chain([2u128; 500].iter()).copied().collect();
        assert_eq!(round_trip(&runs), RLE);
        let ids: Vec<u128> = (1_000_000..1_001_000).collect();
        assert_eq!(round_trip(&ids), DELTA_FOR);
        let small: Vec<u128> = (0..1000).map(|i| 1000 + (i * 7919) % 13).collect();
        assert_eq!(round_trip(&small), FOR);
        assert_eq!(round_trip(&[1, 300, 70_000]), VARINT);
        round_trip(&[1, u128::MAX, 3]);
        round_trip(&[]);
        round_trip(&[0]);
        round_trip(&[u128::MAX, 0, u128::MAX]);
    }

    #[test]
    fn widths_and_runs_are_checked() {
        // FOR with a width of 9 bits in a column of 8-bit values.
        let mut c = Cursor::new(&[FOR, 0, 9, 0xff, 0x01], 0);
        assert!(decode(&mut c, 1, 8).is_err());
        // A run longer than the column.
        let mut c = Cursor::new(&[RLE, 5, 1], 0);
        assert!(decode(&mut c, 3, 64).is_err());
        // A packed block shorter than n × width.
        let mut c = Cursor::new(&[FOR, 0, 64, 1, 2], 0);
        assert_eq!(decode(&mut c, 1_000_000, 64).unwrap_err().kind(), ErrorKind::Truncated);
    }
}
