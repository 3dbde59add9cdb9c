//! Entropy-coded integer columns (encoding `04`, SPEC.md §22.2): the
//! distinct values, ascending, as an integer block; their canonical Huffman
//! code lengths as another; then each value's code. A cascade: the two
//! blocks are themselves written with the smallest plain integer encoding.
//! Dictionary indices, distances and delays of flights take within a few
//! percent of their order-0 entropy this way, a quarter less than
//! bit-packing.
//!
//! The writer uses it only in XBF files (`Enabled`), so that messages keep
//! the bytes they had and the TypeScript reader, which lacks it, reads them.

use std::cell::Cell;
use std::collections::{BinaryHeap, HashMap};

use crate::error::Result;
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::cursor::Cursor;
use super::ints::{self, Int, Lane};

/// The encoding byte.
/// The longest code; a column that would need longer ones is not coded.
const MAX_LEN: u8 = 24;
/// Codes of up to this many bits are decoded by one table lookup (13: 8,192
/// entries, 64 KiB, built once per column of a block).
const TABLE: u8 = 13;
/// Columns shorter than this are not worth the tables.
const MIN_VALUES: usize = 1024;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Whether the file writer enabled `04` and `05` on this thread.
pub(crate) fn enabled() -> bool {
    ON.with(Cell::get)
}

/// While alive, integer columns encoded on this thread may take encoding
/// `04` where it is smaller (the file writer holds one around each block).
pub(crate) struct Enabled(bool);

impl Enabled {
    pub(crate) fn new() -> Self {
        Enabled(ON.with(|on| on.replace(true)))
    }
}

impl Drop for Enabled {
    fn drop(&mut self) {
        ON.with(|on| on.set(self.0));
    }
}

/// Code lengths of a Huffman code for `counts` (all > 0, at least two).
fn code_lengths(counts: &[u64]) -> Vec<u8> {
    // Nodes: leaves 0..d, then inner nodes; a min-heap by (count, id).
    let d = counts.len();
    let mut parent = vec![usize::MAX; 2 * d - 1];
    let mut heap: BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
        counts.iter().enumerate().map(|(i, &c)| std::cmp::Reverse((c, i))).collect();
    let mut next = d;
    while heap.len() > 1 {
        let std::cmp::Reverse((a, i)) = heap.pop().expect("two");
        let std::cmp::Reverse((b, j)) = heap.pop().expect("two");
        parent[i] = next;
        parent[j] = next;
        heap.push(std::cmp::Reverse((a + b, next)));
        next += 1;
    }
    let mut depth = vec![0u8; 2 * d - 1];
    for n in (0..2 * d - 2).rev() {
        depth[n] = depth[parent[n]].saturating_add(1);
    }
    depth.truncate(d);
    depth
}

/// Canonical codes for `lens` (by length, then by symbol), MSB first.
fn canonical(lens: &[u8]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| (lens[i], i));
    let mut codes = vec![0u32; lens.len()];
    let (mut code, mut len) = (0u32, 0u8);
    for (k, &i) in order.iter().enumerate() {
        if k > 0 {
            code += 1;
        }
        code <<= lens[i] - len;
        len = lens[i];
        codes[i] = code;
    }
    codes
}

/// The entropy-coded body of `values` (encoding byte included), if the
/// coder is enabled and it is smaller than `than` bytes.
pub(crate) fn encode<T: Int>(values: &[T], than: usize) -> Option<Vec<u8>> {
    if !ON.with(Cell::get) || values.len() < MIN_VALUES {
        return None;
    }
    let mut counts: HashMap<u128, u64, super::FastHash> = HashMap::default();
    for v in values {
        *counts.entry(v.wide()).or_insert(0) += 1;
        if counts.len() > values.len() / 4 {
            return None; // mostly distinct: the table would cost more than it saves
        }
    }
    let mut symbols: Vec<(u128, u64)> = counts.into_iter().collect();
    if symbols.len() < 2 {
        return None;
    }
    symbols.sort_unstable();
    let lens = code_lengths(&symbols.iter().map(|s| s.1).collect::<Vec<_>>());
    if lens.iter().any(|&l| l > MAX_LEN) {
        return None;
    }
    let bits: u64 = symbols.iter().zip(&lens).map(|(s, &l)| s.1 * u64::from(l)).sum();
    let distinct: Vec<u128> = symbols.iter().map(|s| s.0).collect();
    let lens_wide: Vec<u128> = lens.iter().map(|&l| u128::from(l)).collect();
    let dict = ints::Planned::plain(&distinct);
    let lens_block = ints::Planned::plain(&lens_wide);
    let estimate = 1
        + varint::len(distinct.len() as u128)
        + dict.block_size()
        + lens_block.block_size()
        + bits.div_ceil(8) as usize;
    if estimate >= than {
        return None;
    }
    let mut out = Vec::with_capacity(estimate);
    out.push(E::Entropy.byte());
    varint::put(&mut out, distinct.len() as u128);
    dict.write_block(&mut out);
    lens_block.write_block(&mut out);
    let codes = canonical(&lens);
    let index: HashMap<u128, usize, super::FastHash> = distinct.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let (mut acc, mut filled) = (0u64, 0u32);
    for v in values {
        let i = index[&v.wide()];
        let (code, len) = (codes[i], u32::from(lens[i]));
        // The code's bits, first bit first, into the stream's next bits.
        for b in (0..len).rev() {
            acc |= u64::from((code >> b) & 1) << filled;
            filled += 1;
            if filled == 64 {
                out.extend_from_slice(&acc.to_le_bytes());
                acc = 0;
                filled = 0;
            }
        }
    }
    out.extend_from_slice(&acc.to_le_bytes()[..(filled as usize).div_ceil(8)]);
    debug_assert_eq!(out.len(), estimate);
    Some(out)
}

/// Reads the payload of an entropy-coded column of `n` values (the
/// encoding byte was read) into `push`.
pub(crate) fn decode<T: Lane>(c: &mut Cursor<'_>, n: u64, max_bits: u32, out: &mut Vec<T>) -> Result<()> {
    let at = c.offset();
    let d = c.varint(64)? as u64;
    if d < 2 || d > n {
        return Err(c.invalid(at, format!("{d} distinct values for a column of {n}")));
    }
    // d is at most n, which the decoder's budget already paid for (a
    // block of d values may take a few bytes: a delta of width 0).
    let values: Vec<u128> = plain_block(c, d, max_bits)?;
    if values.windows(2).any(|w| w[0] >= w[1]) {
        return Err(c.invalid(at, "the distinct values are not in ascending order".into()));
    }
    let lens_at = c.offset();
    let lens: Vec<u128> = plain_block(c, d, 8)?;
    // Complete code, lengths 1 to 24: the Kraft sum is exactly 2^24.
    let mut kraft: u128 = 0;
    let mut count = [0u32; MAX_LEN as usize + 1];
    for &l in &lens {
        if l == 0 || l > u128::from(MAX_LEN) {
            return Err(c.invalid(lens_at, format!("a code length of {l}")));
        }
        kraft += 1u128 << (u128::from(MAX_LEN) - l);
        count[l as usize] += 1;
    }
    if kraft != 1u128 << MAX_LEN {
        return Err(c.invalid(lens_at, "the code lengths do not make a complete prefix code".into()));
    }
    // Canonical decoding: symbols sorted by (length, value). Codes of up
    // to TABLE bits are looked up in one step by the stream's next bits;
    // longer ones by comparing the next MAX_LEN bits with each longer
    // length's limit. For each length: the first code (MSB first), the
    // index in `order` of its first symbol, and the limit every code of
    // that length or shorter is under, left-justified to MAX_LEN bits.
    let (mut first, mut base, mut limit) = ([0u32; 25], [0u32; 25], [0u32; 25]);
    let (mut code, mut index) = (0u32, 0u32);
    for len in 1..=usize::from(MAX_LEN) {
        first[len] = code;
        base[len] = index;
        code += count[len];
        index += count[len];
        limit[len] = code << (usize::from(MAX_LEN) - len);
        code <<= 1;
    }
    // The symbols by (length, symbol), a counting sort, and their canonical
    // codes (what `canonical` gives, without its comparison sort).
    let lens8: Vec<u8> = lens.iter().map(|&l| l as u8).collect();
    let mut order = vec![0usize; lens8.len()];
    let mut codes = vec![0u32; lens8.len()];
    let mut next = base;
    for (i, &l) in lens8.iter().enumerate() {
        let l = usize::from(l);
        let pos = next[l];
        next[l] += 1;
        order[pos as usize] = i;
        codes[i] = first[l] + (pos - base[l]);
    }
    const FULL: u32 = (1 << MAX_LEN) - 1;
    let stream_at = c.offset();
    let bytes = c.take(c.remaining() as usize)?;
    let total_bits = bytes.len() as u64 * 8;
    // The d values in the output's type once, not converted per value.
    let lanes: Vec<T> = values.iter().map(|&v| T::lane(v)).collect();
    // Two tables indexed by the stream's next TABLE bits: the code's length
    // (0: a code longer than TABLE) and its value. Fixed-size arrays indexed
    // by a masked window need no bounds check; the lengths (8 KiB), on
    // which each next lookup waits, stay in L1.
    let mut code_len: Box<[u8; 1 << TABLE]> = vec![0u8; 1 << TABLE].try_into().expect("the table's length");
    let mut code_val: Box<[T; 1 << TABLE]> = vec![lanes[0]; 1 << TABLE].try_into().ok().expect("the table's length");
    for ((&code, &len), &lane) in codes.iter().zip(&lens8).zip(&lanes) {
        if len <= TABLE {
            let rev = code.reverse_bits() >> (32 - u32::from(len));
            for hi in 0..1u32 << (TABLE - len) {
                let i = (rev | (hi << len)) as usize;
                code_len[i] = len;
                code_val[i] = lane;
            }
        }
    }
    let ended =
        || crate::error::Error::at(crate::error::ErrorKind::Truncated, stream_at, "the entropy-coded values end early");
    // Values are written in place: one length check for four of them, not
    // a capacity check for each.
    let start = out.len();
    out.resize(start + n as usize, lanes[0]);
    let dst = &mut out[start..];
    const MASK: u64 = (1 << TABLE) - 1;
    let mut bit = 0u64;
    let mut k = 0usize;
    while k < dst.len() {
        // The fast path: one 64-bit window holds at least 57 bits from
        // `bit`, enough for four codes of up to TABLE (13) bits, so four
        // values are decoded per load while the window lies in the stream.
        let at = (bit / 8) as usize;
        if let (Some(w), Some(four)) = (bytes.get(at..at + 8), dst.get_mut(k..k + 4)) {
            let word = u64::from_le_bytes(w.try_into().expect("8 bytes")) >> (bit % 8);
            let four: &mut [T; 4] = four.try_into().expect("four slots");
            // Branch-free: a longer code's entry has length 0, so the window
            // stops moving there and every later lookup finds it again; the
            // values from it on are rewritten by the slow path.
            let i0 = (word & MASK) as usize;
            let l0 = code_len[i0];
            let w1 = word >> l0;
            let i1 = (w1 & MASK) as usize;
            let l1 = code_len[i1];
            let w2 = w1 >> l1;
            let i2 = (w2 & MASK) as usize;
            let l2 = code_len[i2];
            let w3 = w2 >> l2;
            let i3 = (w3 & MASK) as usize;
            let l3 = code_len[i3];
            *four = [code_val[i0], code_val[i1], code_val[i2], code_val[i3]];
            bit += u64::from(l0) + u64::from(l1) + u64::from(l2) + u64::from(l3);
            if l0.min(l1).min(l2).min(l3) != 0 {
                k += 4;
                continue;
            }
            k += usize::from(l0 != 0) + usize::from(l1 != 0) + usize::from(l2 != 0) + usize::from(l3 != 0);
        }
        // One value, near the stream's end or with a code longer than the
        // table's: the window's bits from `bit`, zeros past the end.
        let at = (bit / 8) as usize;
        let word = match bytes.get(at..at + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
            None => {
                let mut b = [0u8; 8];
                let rest = &bytes[at.min(bytes.len())..];
                b[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(b)
            }
        } >> (bit % 8);
        let i = (word & MASK) as usize;
        let len = code_len[i];
        if len > 0 {
            if bit + u64::from(len) > total_bits {
                return Err(ended());
            }
            bit += u64::from(len);
            dst[k] = code_val[i];
            k += 1;
            continue;
        }
        // A code longer than the table's: its length is the first whose
        // limit the stream's next MAX_LEN bits (first bit highest) are
        // under; the code is complete (checked above), so the last
        // length's limit, 2^MAX_LEN, is over every window.
        let v = ((word as u32) & FULL).reverse_bits() >> (32 - u32::from(MAX_LEN));
        let mut len = usize::from(TABLE) + 1;
        while len < usize::from(MAX_LEN) && v >= limit[len] {
            len += 1;
        }
        if bit + len as u64 > total_bits {
            return Err(ended());
        }
        bit += len as u64;
        // Never wraps for a complete code (v is at or over the previous
        // length's limit); wrapping keeps a miscount an error, not a panic.
        let index = base[len].wrapping_add((v >> (u32::from(MAX_LEN) - len as u32)).wrapping_sub(first[len]));
        match order.get(index as usize) {
            Some(&sym) => dst[k] = lanes[sym],
            None => return Err(c.invalid(stream_at, "a code longer than any in the table".into())),
        }
        k += 1;
    }
    // The fast path reads whole windows inside the stream, so it never
    // passes its end: a stream that ends early fails above or here.
    if bit > total_bits {
        return Err(ended());
    }
    // The stream ends in its last byte, padded with zero bits.
    let used = bit.div_ceil(8);
    if used != bytes.len() as u64 || (bit % 8 != 0 && bytes[(used - 1) as usize] >> (bit % 8) != 0) {
        return Err(c.invalid(stream_at, "bits or bytes left over after the entropy-coded values".into()));
    }
    Ok(())
}

/// A length-prefixed integer block of `n` values in one of the plain
/// encodings (`00` to `03`): never `04` again, so that a column cannot nest
/// tables in tables.
fn plain_block(c: &mut Cursor<'_>, n: u64, max_bits: u32) -> Result<Vec<u128>> {
    let mut block = c.block()?;
    let at = block.offset();
    if block.clone_first_byte() == E::Entropy.byte() {
        return Err(block.invalid(at, "an entropy-coded block inside an entropy-coded column".into()));
    }
    let v = ints::decode::<u128>(&mut block, n, max_bits)?;
    block.finish("integer block")?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn skewed(n: usize) -> Vec<u128> {
        // A few common values and a long tail, as dictionary indices have.
        (0..n).map(|i| if i % 3 == 0 { 7 } else { ((i * 7919) % 97) as u128 * ((i % 5) as u128 + 1) }).collect()
    }

    fn round_trip(values: &[u128]) -> Vec<u8> {
        let _on = Enabled::new();
        let body = encode(values, usize::MAX).expect("coded");
        let mut c = Cursor::new(&body, 0).in_file();
        assert_eq!(c.u8().unwrap(), E::Entropy.byte());
        let mut out: Vec<u128> = Vec::new();
        decode(&mut c, values.len() as u64, 64, &mut out).unwrap();
        assert!(c.at_end());
        assert_eq!(out, values);
        body
    }

    #[test]
    fn codes_round_trip_and_beat_bit_packing() {
        let values = skewed(50_000);
        let body = round_trip(&values);
        let plain = ints::Planned::plain(&values).size();
        assert!(body.len() * 10 < plain * 9, "{} vs {plain}", body.len());
        // Two symbols, one of them rare.
        let two: Vec<u128> = (0..4096).map(|i| u128::from(i % 1000 == 0)).collect();
        round_trip(&two);
        // Off unless enabled, and not for short or mostly distinct columns.
        assert!(encode(&values, usize::MAX).is_none());
        let _on = Enabled::new();
        assert!(encode(&values[..100], usize::MAX).is_none());
        let distinct: Vec<u128> = (0..5000).collect();
        assert!(encode(&distinct, usize::MAX).is_none());
    }

    #[test]
    fn codes_longer_than_the_table_round_trip_at_every_position() {
        // Fibonacci counts make a deep code: the rarest values take codes
        // longer than TABLE bits, which the four-at-a-time path hands to
        // the long-code one wherever they fall among the four.
        let mut counts = vec![1u64, 1];
        while counts.len() < 22 {
            counts.push(counts[counts.len() - 1] + counts[counts.len() - 2]);
        }
        assert!(code_lengths(&counts).iter().any(|&l| l > TABLE));
        let mut values: Vec<u128> = Vec::new();
        for (v, &c) in counts.iter().enumerate() {
            values.extend(std::iter::repeat_n(v as u128 * 3, c as usize));
        }
        // A fixed shuffle, so that rare values land at every offset.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in (1..values.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            values.swap(i, (state % (i as u64 + 1)) as usize);
        }
        round_trip(&values);
        for cut in [1, 2, 3, 5] {
            round_trip(&values[..values.len() - cut]);
        }
    }

    #[test]
    fn damaged_columns_fail_cleanly() {
        let values = skewed(5000);
        let body = round_trip(&values);
        let n = values.len() as u64;
        // Every truncation and every bit flip: an error or (for flips that
        // keep a valid code) other values; never a panic.
        for cut in 1..body.len() {
            let mut c = Cursor::new(&body[..cut], 0).in_file();
            c.u8().unwrap();
            let mut out: Vec<u128> = Vec::new();
            assert!(decode(&mut c, n, 64, &mut out).is_err() || !c.at_end() || out.len() as u64 == n);
        }
        for i in 1..body.len().min(400) {
            for bit in 0..8 {
                let mut b = body.clone();
                b[i] ^= 1 << bit;
                let mut c = Cursor::new(&b, 0).in_file();
                c.u8().unwrap();
                let mut out: Vec<u128> = Vec::new();
                let _ = decode(&mut c, n, 64, &mut out);
            }
        }
        // More distinct values than values; an incomplete code.
        let mut c = Cursor::new(&[0x05], 0).in_file();
        let err = decode::<u128>(&mut c, 3, 64, &mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidColumn);
        let mut bad = vec![0x02];
        bad.extend([0x03, 0x00, 0x01, 0x02]); // values [1, 2]
        bad.extend([0x03, 0x00, 0x02, 0x02]); // lengths [2, 2]: half a code
        bad.push(0x00);
        let mut c = Cursor::new(&bad, 0).in_file();
        let err = decode::<u128>(&mut c, 2, 64, &mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidColumn, "{err}");
    }
}

#[cfg(test)]
mod spec_example {
    use super::*;

    /// SPEC.md §22.2.2's example, byte for byte, both ways.
    #[test]
    fn the_spec_example() {
        let bytes = [0x03, 0x04, 0x00, 0x05, 0x07, 0x09, 0x04, 0x00, 0x01, 0x02, 0x02, 0x58];
        let mut c = Cursor::new(&bytes, 0).in_file();
        let mut out: Vec<u128> = Vec::new();
        decode(&mut c, 6, 64, &mut out).unwrap();
        assert_eq!(out, [5, 5, 5, 9, 5, 7]);
        assert_eq!(code_lengths(&[4, 1, 1]), [1, 2, 2]);
        assert_eq!(canonical(&[1, 2, 2]), [0b0, 0b10, 0b11]);
    }
}
