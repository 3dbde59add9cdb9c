//! Bit-packing of a frame of reference's values with the width known at
//! compile time: eight values of `W` bits fill exactly `W` bytes, so each
//! group of eight is gathered with constant shifts into constant words and
//! stored whole (no test per value of whether a word is full, no iterator
//! step per value), and the column's last values, fewer than eight, start
//! on a byte boundary for [`super::pack64`].

/// Appends `values[i] - min` (each below 2^`width`, `width` at most 64) in
/// `width` bits, least significant bit first: what [`super::pack64`]
/// writes for them.
pub(super) fn pack_u64(out: &mut Vec<u8>, values: &[u64], min: u64, width: u8) {
    debug_assert!(values.iter().all(|&v| width == 64 || v.wrapping_sub(min) >> width == 0));
    let groups = values.chunks_exact(8);
    let rest = groups.remainder();
    let n = groups.len();
    pack_groups(out, width, n, min, groups.map(as_group));
    super::pack64(out, rest.iter().map(|v| v.wrapping_sub(min)), width);
}

/// Appends the zigzags of the differences of neighbours in `values` less
/// `dmin` (each below 2^`width`, at most 64), as [`pack_u64`] does: what a
/// delta column packs.
pub(super) fn pack_deltas_u64(out: &mut Vec<u8>, values: &[u64], dmin: u64, width: u8) {
    let zigzag = |a: u64, b: u64| crate::wire::varint::zigzag64(b.wrapping_sub(a) as i64);
    // Each value from the second on beside the one before it, eight at a
    // time.
    let cur = values.get(1..).unwrap_or_default().chunks_exact(8);
    let n = cur.len();
    let groups = cur.zip(values.chunks_exact(8)).map(|(c, p)| {
        let (c, p) = (as_group(c), as_group(p));
        std::array::from_fn(|i| zigzag(p[i], c[i]))
    });
    pack_groups(out, width, n, dmin, groups);
    let rest = values.get(8 * n..).unwrap_or_default();
    super::pack64(out, rest.windows(2).map(|w| zigzag(w[0], w[1]).wrapping_sub(dmin)), width);
}

fn as_group(g: &[u64]) -> [u64; 8] {
    g.try_into().expect("a group of eight")
}

/// Appends `n` groups of eight values less `min` packed in `width` bits
/// each (0 to 64): `width` bytes a group.
fn pack_groups(out: &mut Vec<u8>, width: u8, n: usize, min: u64, groups: impl Iterator<Item = [u64; 8]>) {
    if width == 0 {
        return;
    }
    let start = out.len();
    out.resize(start + n * usize::from(width), 0);
    let buf = &mut out[start..];
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match width {
                $($w => groups_of::<$w>(buf, min, groups),)*
                _ => unreachable!("a width of 1 to 64 bits"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64);
}

/// Packs the groups' values less `min` into `buf`, `W` bytes each.
fn groups_of<const W: usize>(buf: &mut [u8], min: u64, groups: impl Iterator<Item = [u64; 8]>) {
    if W <= 8 {
        // The group's values less `min` are below 2^W, so that their sum
        // shifted to their places, `sum(v[i] << iW) - min * sum(1 << iW)`,
        // fits a word exactly, and its wrapping sum and difference are it:
        // one subtraction a group, not one a value (the shifted values add
        // up where they passed 2^W, so they are added, not or'ed).
        let places = (0..8).fold(0u64, |a, i| a | 1 << (i * W));
        let less = min.wrapping_mul(places);
        for (group, dst) in groups.zip(buf.chunks_exact_mut(W)) {
            let sum = group.iter().enumerate().fold(0u64, |a, (i, &v)| a.wrapping_add(v << (i * W)));
            dst.copy_from_slice(&sum.wrapping_sub(less).to_le_bytes()[..W]);
        }
        return;
    }
    for (group, dst) in groups.zip(buf.chunks_exact_mut(W)) {
        // The group's 8 × W bits in nine words at most; the loop unrolls
        // and every index and shift is a constant.
        let mut words = [0u64; 9];
        for (i, v) in group.map(|v| v.wrapping_sub(min)).into_iter().enumerate() {
            let bit = i * W;
            words[bit / 64] |= v << (bit % 64);
            if bit % 64 + W > 64 {
                words[bit / 64 + 1] |= v >> (64 - bit % 64);
            }
        }
        let mut bytes = [0u8; 72];
        for (b, w) in bytes.chunks_exact_mut(8).zip(words) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        dst.copy_from_slice(&bytes[..W]);
    }
}

/// Appends `bits` (each 0 or 1) one bit each, least significant first:
/// what [`super::pack64`] writes for them at width 1. Eight of them, one
/// byte each, become one byte by a multiplication: bit `8i` of the word
/// (the `i`-th value) times `2^(7(8 - i))` lands on bit `56 + i`, and no
/// two products share a bit, so nothing carries.
pub(super) fn pack_bits(out: &mut Vec<u8>, bits: &[u8]) {
    debug_assert!(bits.iter().all(|&b| b <= 1));
    let groups = bits.chunks_exact(8);
    let rest = groups.remainder();
    out.reserve(bits.len().div_ceil(8));
    out.extend(groups.map(|g| {
        let word = u64::from_le_bytes(g.try_into().expect("8 bytes"));
        (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
    }));
    if !rest.is_empty() {
        out.push(rest.iter().enumerate().fold(0u8, |acc, (i, &b)| acc | b << i));
    }
}
