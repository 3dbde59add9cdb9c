//! The integer column encoders' tests.

use super::*;

fn round_trip(values: &[u128]) -> u8 {
    let bytes = encode(values);
    let mut c = Cursor::new(&bytes, 0);
    assert_eq!(decode::<u128>(&mut c, values.len() as u64, 128).unwrap(), values);
    assert!(c.at_end());
    bytes[0]
}

#[test]
fn each_encoding_wins_where_it_should() {
    // A constant column is a frame of reference of width 0: 3 bytes.
    assert_eq!(round_trip(&[5; 1000]), E::FrameOfReference.byte());
    let runs: Vec<u128> = [1u128; 500].iter().chain([2u128; 500].iter()).copied().collect();
    assert_eq!(round_trip(&runs), E::RunLength.byte());
    let ids: Vec<u128> = (1_000_000..1_001_000).collect();
    assert_eq!(round_trip(&ids), E::Delta.byte());
    let small: Vec<u128> = (0..1000).map(|i| 1000 + (i * 7919) % 13).collect();
    assert_eq!(round_trip(&small), E::FrameOfReference.byte());
    assert_eq!(round_trip(&[1, 300, 70_000]), E::Varint.byte());
    round_trip(&[1, u128::MAX, 3]);
    round_trip(&[]);
    round_trip(&[0]);
    round_trip(&[u128::MAX, 0, u128::MAX]);
    // Frames of reference whose base + mask passes 128 bits.
    assert_eq!(round_trip(&[u128::MAX - 2, u128::MAX, u128::MAX - 1, u128::MAX - 2]), E::FrameOfReference.byte());
    round_trip(&[u128::MAX - 5, u128::MAX - 4, u128::MAX - 3, u128::MAX - 2, u128::MAX - 1, u128::MAX]);
}

#[test]
fn sixty_four_bit_lanes_read_the_same_values() {
    for values in [vec![5u128; 1000], (1_000_000..1_001_000).collect(), vec![1, 300, 70_000], vec![u64::MAX as u128, 0]]
    {
        let bytes = encode(&values);
        let wide = decode::<u128>(&mut Cursor::new(&bytes, 0), values.len() as u64, 64).unwrap();
        let narrow = decode::<u64>(&mut Cursor::new(&bytes, 0), values.len() as u64, 64).unwrap();
        assert_eq!(wide, narrow.iter().map(|&v| u128::from(v)).collect::<Vec<_>>());
    }
    // A value past 64 bits fails in either lane, with the same error.
    let bytes = encode(&[1, u64::MAX as u128 + 1]);
    let wide = decode::<u128>(&mut Cursor::new(&bytes, 0), 2, 64).unwrap_err();
    let narrow = decode::<u64>(&mut Cursor::new(&bytes, 0), 2, 64).unwrap_err();
    assert_eq!((wide.kind(), wide.offset(), wide.detail()), (narrow.kind(), narrow.offset(), narrow.detail()));
}

#[test]
fn the_64_bit_plan_agrees_with_the_wide_ones() {
    let mut next = crate::columnar::lcg(11, 1);
    for round in 0..400 {
        let n = [1, 2, 3, 50, 1000][round % 5];
        let values: Vec<u128> = (0..n)
            .map(|i| {
                let r = u128::from(next());
                match round % 10 {
                    0 => r,
                    1 => r % 4,
                    2 => (i as u128 / 7) % 3,
                    3 => 1_000_000 + i as u128 * 3 + r % 2,
                    4 => [0, (1 << 63) - 1][i % 2],
                    5 if round / 9 % 2 == 0 => r % 2,
                    5 => u128::from(r % 50 != 0),
                    // Runs of small and large values: the varints' least
                    // size beats the frames of reference, and the runs beat
                    // it (long runs) or only its exact size (short ones).
                    6 => [0, 1_000_000][(i / [50, 2, 3, 9][round / 8 % 4]) % 2],
                    7 => [r % 3, 1 << 20][(i / (1 + round / 8 % 5)) % 2],
                    // Amounts mostly 0 (runs across whole groups of eight,
                    // which the pass skips, and ending inside one).
                    8 if r % [3, 20, 200][round / 10 % 3] == 0 => r % 1_000_000,
                    8 => 0,
                    _ => r >> (r % 63),
                }
            })
            .collect();
        let first = values[0];
        let fast = plan_u63(&values, first as u64);
        let slow = plan_narrow(&values, first).unwrap();
        let wide = plan_wide(&values, first);
        let bits = values.iter().all(|&v| v <= 1).then(|| plan_bits(&values, first as u64));
        for p in [&slow, &wide].into_iter().chain(bits.as_ref()) {
            assert_eq!(
                (fast.size, fast.enc, fast.min, fast.width, fast.delta_min, fast.delta_width),
                (p.size, p.enc, p.min, p.width, p.delta_min, p.delta_width),
                "round {round}"
            );
        }
        round_trip(&values);
    }
}

#[test]
fn zeros_and_ones_plan_as_any_column() {
    let cases: [&[u128]; 8] =
        [&[0; 10], &[1; 10], &[0, 1], &[1, 0], &[1], &[0], &[0, 0, 1, 1, 1, 0, 0, 1], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 0]];
    let mut next = crate::columnar::lcg(23, 7);
    let random: Vec<Vec<u128>> = [9usize, 16, 17, 100, 1000, 255 * 8, 255 * 8 + 1, 255 * 8 + 2, 255 * 16 + 1, 40_000]
        .iter()
        .flat_map(|&n| [1, 2, 50].map(|odds| (0..n).map(|_| u128::from(next() % odds == 0)).collect::<Vec<_>>()))
        .collect();
    for values in cases.into_iter().chain(random.iter().map(Vec::as_slice)) {
        let (a, b) = (plan_bits(values, values[0] as u64), plan_narrow(values, values[0]).unwrap());
        // (`plan` takes the 16-bit lanes for two values or more, and counts
        // bytes eight at a time, a u64 word.)
        let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        for p in [&b, &plan(values), &plan(&bytes)] {
            assert_eq!(
                (a.size, a.enc, a.min, a.width, a.delta_min, a.delta_width),
                (p.size, p.enc, p.min, p.width, p.delta_min, p.delta_width),
                "{values:?}"
            );
        }
        round_trip(values);
    }
}

#[test]
fn widths_and_runs_are_checked() {
    // FOR with a width of 9 bits in a column of 8-bit values.
    let bytes = [E::FrameOfReference.byte(), 0, 9, 0xff, 0x01];
    let mut c = Cursor::new(&bytes, 0);
    assert!(decode::<u128>(&mut c, 1, 8).is_err());
    // A run longer than the column.
    let bytes = [E::RunLength.byte(), 5, 1];
    let mut c = Cursor::new(&bytes, 0);
    assert!(decode::<u128>(&mut c, 3, 64).is_err());
    // A run of 2^64 - 1 after a run of 1: the sum wraps past 2^64 back
    // under n, which must not let the second run through (issue 18).
    let mut bytes = vec![E::RunLength.byte(), 1, 5];
    bytes.extend([0xff; 9]);
    bytes.extend([0x01, 7, 2, 9]);
    let e = decode::<u128>(&mut Cursor::new(&bytes, 0), 2, 64).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidColumn, Some(3)));
    // A packed block shorter than n × width.
    let bytes = [E::FrameOfReference.byte(), 0, 64, 1, 2];
    let mut c = Cursor::new(&bytes, 0);
    assert_eq!(decode::<u128>(&mut c, 1_000_000, 64).unwrap_err().kind(), ErrorKind::Truncated);
}

/// Columns of the shapes whose frames of reference take each path: small,
/// around 2^63 and 2^64, across the whole u128 range, rising and falling.
fn shaped_columns() -> Vec<Vec<u128>> {
    let mut next = crate::columnar::lcg(5, 0);
    let mut wide = move || u128::from(next()) << 64 | u128::from(next());
    let mut columns = Vec::new();
    for round in 0..600 {
        let n = [0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 200][round % 11];
        let bits = (round / 11) % 129;
        let base = match round % 5 {
            0 => 0,
            1 => (1u128 << 63) - 5,
            2 => (1u128 << 64) - 3,
            3 => u128::MAX - (u128::MAX >> 1),
            _ => wide() >> (round % 128),
        };
        let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
        let falling = round % 7 == 0;
        let column = (0..n)
            .map(|i| {
                let v = base.wrapping_add(wide() & mask);
                if falling {
                    v.wrapping_sub(i as u128 * 3)
                } else {
                    v
                }
            })
            .collect();
        columns.push(column);
    }
    columns
}

#[test]
fn packing_in_64_bits_writes_what_the_u128_packer_wrote() {
    let mut next = crate::columnar::lcg(3, 0);
    for width in 0..=128u8 {
        for n in [0usize, 1, 5, 8, 63, 64, 65, 130] {
            let mask = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
            let values: Vec<u128> = (0..n).map(|_| (u128::from(next()) << 64 | u128::from(next())) & mask).collect();
            let (mut a, mut b) = (vec![7u8], vec![7u8]);
            pack(&mut a, values.iter().copied(), width);
            pack128(&mut b, values.iter().copied(), width);
            assert_eq!(a, b, "width {width}, {n} values");
        }
    }
}

#[test]
fn frames_of_reference_and_deltas_write_what_the_u128_path_wrote() {
    for values in shaped_columns() {
        let planned = plan(&values);
        for enc in [E::FrameOfReference, E::Delta] {
            if enc == E::Delta && values.len() < 2 {
                continue;
            }
            let mut expected = vec![enc.byte()];
            let (first, packed, min, width): (u128, Vec<u128>, u128, u8) = if enc == E::Delta {
                let deltas = values.windows(2).map(|w| zigzag_delta(w[1], w[0])).collect();
                (values[0], deltas, planned.delta_min, planned.delta_width)
            } else {
                (0, values.clone(), planned.min, planned.width)
            };
            if enc == E::Delta {
                varint::put(&mut expected, first);
            }
            varint::put(&mut expected, min);
            expected.push(width);
            pack128(&mut expected, packed.iter().map(|v| v - min), width);
            let forced = Plan { size: expected.len() - 1, enc, ..planned };
            let mut written = Vec::new();
            Planned { values: &values[..], plan: forced, entropy: None }.write(&mut written);
            assert_eq!(written, expected, "{enc:?} of {values:?}");
        }
    }
}

#[test]
fn a_dictionarys_ids_plan_as_any_column() {
    let mut next = crate::columnar::lcg(17, 20);
    for round in 0..300 {
        let n = [0, 1, 2, 5, 100, 1000][round % 6];
        let kinds = [1, 2, 3, 50, 127, 128, 129, 300][(round / 6) % 8];
        // Ids in first-seen order: a new value takes the next id.
        let mut distinct = 0u64;
        let ids: Vec<u64> = (0..n)
            .map(|i| {
                let pick = if round % 4 == 0 { (i / 9) as u64 % kinds } else { next() % kinds };
                if pick >= distinct {
                    distinct += 1;
                    distinct - 1
                } else {
                    pick
                }
            })
            .collect();
        let stats = Stats::of_ids(&ids, distinct as usize);
        let (a, b) = (Planned::with_stats(&ids, &stats), Planned::new(&ids));
        let (mut x, mut y) = (Vec::new(), Vec::new());
        a.write(&mut x);
        b.write(&mut y);
        assert_eq!((a.size(), x), (b.size(), y), "round {round}");
    }
    // Ids past 2^16, every other one new and the rest of earlier ones:
    // frames of reference and deltas of more than two bytes a value, which
    // the runs' least bytes (two a run) do not rule out, but the varints'
    // bytes do.
    let ids: Vec<u64> = (0..200_000u64).map(|i| if i % 2 == 0 { i / 2 } else { next() % (i / 2 + 1) }).collect();
    let stats = Stats::of_ids(&ids, 100_000);
    let (a, b) = (Planned::with_stats(&ids, &stats), Planned::new(&ids));
    let (mut x, mut y) = (Vec::new(), Vec::new());
    a.write(&mut x);
    b.write(&mut y);
    assert_eq!((a.size(), x), (b.size(), y));
}

#[test]
fn the_16_bit_lanes_gather_what_the_64_bit_pass_does() {
    let mut next = crate::columnar::lcg(17, 3);
    // Lengths around a step of eight, around a block (4096 steps), and
    // past one.
    let lens = [2usize, 3, 8, 9, 16, 17, 100, 4096 * 8, 4096 * 8 + 1, 4096 * 8 + 9, 40_000];
    for (round, &n) in lens.iter().cycle().take(66).enumerate() {
        let values: Vec<u64> = (0..n)
            .map(|i| {
                let r = next();
                match round % 6 {
                    0 => r % (1 << 15),
                    1 => (1 << 15) - 1 - r % 3,
                    2 => (i as u64 / 5) % 7,
                    3 => [0, (1 << 15) - 1][(r % 2) as usize],
                    4 if round % 4 == 0 => 20 + r % 2,
                    4 => [127, 128, (1 << 14) - 1, 1 << 14][(r % 4) as usize],
                    _ => (i as u64 * 37) % (1 << 15),
                }
            })
            .collect();
        let (lanes, scalar) = (plan(&values), plan_u63(&values, values[0]));
        assert_eq!(
            (lanes.size, lanes.enc, lanes.min, lanes.width, lanes.delta_min, lanes.delta_width),
            (scalar.size, scalar.enc, scalar.min, scalar.width, scalar.delta_min, scalar.delta_width),
            "round {round}, {n} values"
        );
        let (lo, hi, dlo, dhi, runs, varints) = counted(&values);
        let (g, h) = (lanes::pass_u15::<true, _>(&values), lanes::pass_u15::<false, _>(&values));
        assert_eq!(
            (g.lo, g.hi, g.dlo, g.dhi, g.runs, g.varint_size),
            (lo, hi, dlo, dhi, runs, Some(varints)),
            "round {round}, {n} values"
        );
        assert_eq!((h.lo, h.hi, h.dlo, h.dhi, h.runs, h.varint_size), (lo, hi, dlo, dhi, runs, None));
    }
}

#[test]
fn the_8_bit_lanes_gather_what_a_count_finds() {
    let mut next = crate::columnar::lcg(39, 7);
    // Lengths around a step of sixteen (the last step shares 1 to 15 values
    // with the one before), around a block (255 steps) and past one.
    let lens = [17usize, 18, 24, 25, 31, 32, 33, 47, 48, 49, 237, 255, 256, 257, 255 * 16, 255 * 16 + 1, 255 * 16 + 2];
    let lens = lens.iter().chain(&[255 * 16 + 17, 255 * 32 + 1, 255 * 32 + 5, 10_000]);
    for (round, &n) in lens.cycle().take(21 * 8).enumerate() {
        let values: Vec<u64> = (0..n)
            .map(|i| {
                let r = next();
                match round % 8 {
                    0 => r % (1 << 7),
                    1 => 127 - r % 3,
                    2 => (i as u64 / 5) % 7,
                    3 => [0, 127][(r % 2) as usize],
                    // Long runs (a lane's count at its most, 255 a block).
                    4 => u64::from(i % 4096 < 2048),
                    5 => 5,
                    6 => u64::from(r % 50 == 0) * (r % 128),
                    _ => (i as u64 * 37) % (1 << 7),
                }
            })
            .collect();
        let (lo, hi, dlo, dhi, runs, _) = counted(&values);
        let g = lanes::pass_u7(&values);
        assert_eq!((g.lo, g.hi, g.dlo, g.dhi, g.runs, g.varint_size), (lo, hi, dlo, dhi, runs, None), "round {round}");
        let h = lanes::pass_u15::<false, _>(&values);
        assert_eq!((h.lo, h.hi, h.dlo, h.dhi, h.runs), (lo, hi, dlo, dhi, runs), "round {round}");
        let (lanes, scalar) = (plan(&values), plan_u63(&values, values[0]));
        assert_eq!(
            (lanes.size, lanes.enc, lanes.min, lanes.width, lanes.delta_min, lanes.delta_width),
            (scalar.size, scalar.enc, scalar.min, scalar.width, scalar.delta_min, scalar.delta_width),
            "round {round}, {n} values"
        );
        // The same values as `u128`s and as a dictionary's indices.
        let wide: Vec<u128> = values.iter().map(|&v| u128::from(v)).collect();
        let g = lanes::pass_u7(&wide);
        assert_eq!((g.lo, g.hi, g.dlo, g.dhi, g.runs), (lo, hi, dlo, dhi, runs), "round {round}");
    }
}

/// `values` numbered as a dictionary numbers them (each value the index of
/// its first appearance among the distinct ones), and how many are distinct.
pub(super) fn first_seen_ids<T: PartialEq + Copy>(values: &[T]) -> (Vec<u64>, usize) {
    let mut seen = Vec::new();
    let ids = values
        .iter()
        .map(|v| match seen.iter().position(|s| s == v) {
            Some(i) => i as u64,
            None => {
                seen.push(*v);
                seen.len() as u64 - 1
            }
        })
        .collect();
    (ids, seen.len())
}

/// Columns of the lengths around a lane pass's step and block, of values
/// and a dictionary's ids up to the edges of the 8-bit and 16-bit lanes
/// (2^7 - 1 and 2^7, 2^8 - 1 and 2^8, 2^15 - 1): planned as the u128
/// reference plans them, and ids through their stats as alone.
#[test]
fn columns_at_the_lanes_edges_plan_as_the_reference() {
    let mut next = crate::columnar::lcg(39, 13);
    for n in [2usize, 7, 8, 9, 16, 17, 24, 25, 33, 255, 256, 257] {
        for top in [1u64, 126, 127, 128, 255, 256, (1 << 15) - 1] {
            for shape in 0..4 {
                let values: Vec<u64> = (0..n as u64)
                    .map(|i| match shape {
                        0 => next() % (top + 1),
                        1 => [0, top][(i % 2) as usize],
                        2 => (i / 9).min(top),
                        _ => top - (i % 3).min(top),
                    })
                    .collect();
                let first = u128::from(values[0]);
                let planned = plan(&values);
                let reference = plan_wide(&values, first);
                assert_eq!(
                    (planned.size, planned.enc, planned.min, planned.width, planned.delta_min, planned.delta_width),
                    (
                        reference.size,
                        reference.enc,
                        reference.min,
                        reference.width,
                        reference.delta_min,
                        reference.delta_width
                    ),
                    "{n} values up to {top}, shape {shape}"
                );
                // As a dictionary's ids: numbered in first-seen order.
                let (ids, distinct) = first_seen_ids(&values);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                Planned::with_stats(&ids, &Stats::of_ids(&ids, distinct)).write(&mut a);
                Planned::new(&ids).write(&mut b);
                assert_eq!(a, b, "{n} ids of {distinct} values");
                let wide: Vec<u128> = values.iter().map(|&v| u128::from(v)).collect();
                assert_eq!(round_trip(&wide), planned.enc.byte());
            }
        }
    }
    // Ids up to 2^8 - 1, 2^8 and 2^15 - 1: every id from 0 up, then again.
    for distinct in [255usize, 256, 257, 1 << 15] {
        let ids: Vec<u64> = (0..distinct as u64).chain((0..distinct as u64).rev()).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        Planned::with_stats(&ids, &Stats::of_ids(&ids, distinct)).write(&mut a);
        Planned::new(&ids).write(&mut b);
        assert_eq!(a, b, "{distinct} ids");
    }
}

proptest::proptest! {
    /// Any column of values below 2^7 (runs, ramps, the edges 0 and 127):
    /// the 8-bit lanes gather what a count value by value finds.
    #[test]
    fn the_8_bit_lanes_gather_what_a_count_finds_anywhere(
        parts in proptest::collection::vec((0u64..1 << 7, 1usize..40, 0u8..4), 1..24)
    ) {
        let values: Vec<u64> = parts
            .iter()
            .flat_map(|&(v, len, kind)| {
                (0..len as u64).map(move |i| match kind {
                    0 => v,
                    1 => (v + i * (v % 5)) % (1 << 7),
                    2 => (v >> (v % 7)) ^ (i % 3),
                    _ => [0, 127][((v + i) % 2) as usize],
                })
            })
            .collect();
        proptest::prop_assume!(values.len() > 16);
        let (lo, hi, dlo, dhi, runs, _) = counted(&values);
        let g = lanes::pass_u7(&values);
        proptest::prop_assert_eq!((g.lo, g.hi, g.dlo, g.dhi, g.runs, g.varint_size), (lo, hi, dlo, dhi, runs, None));
    }
}

#[test]
fn runs_of_values_of_one_varint_length_size_as_counted_one_by_one() {
    let mut next = crate::columnar::lcg(39, 11);
    // Runs whose lengths cross a varint's length (2^7, 2^14) or not, in a
    // column of blocks of 64 or not, at its start, its end and across
    // blocks; values of one varint length (below 2^7, from 2^7 to 2^14,
    // from 2^14) and of two.
    let lens = [1usize, 2, 7, 63, 64, 65, 126, 127, 128, 129, 191, 192, 193, 255, 256, 257, 16383, 16384, 16385];
    let bases = [0u64, 5, 126, 127, 128, 300, (1 << 14) - 2, 1 << 14, (1 << 21) + 7];
    for round in 0..600 {
        let base = bases[round % bases.len()];
        let spread = [1, 2, 3][round / bases.len() % 3];
        let mut values = Vec::new();
        for _ in 0..[1, 2, 3, 5, 9][round % 5] {
            let v = base + next() % spread;
            let len =
                if next() % 3 == 0 { lens[(next() % lens.len() as u64) as usize] } else { (next() % 20 + 1) as usize };
            values.extend(std::iter::repeat_n(v, len));
        }
        let runs = 1 + values.windows(2).filter(|w| w[0] != w[1]).count();
        let (lo, hi) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
        let expected = rle_size(&values);
        assert_eq!(rle_size_ranged(&values, runs, lo, hi), expected, "round {round}: {runs} runs, {lo}..={hi}");
        let wide: Vec<u128> = values.iter().map(|&v| u128::from(v)).collect();
        assert_eq!(rle_size_ranged(&wide, runs, lo, hi), expected, "round {round}");
        if hi <= 1 {
            let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
            assert_eq!(rle_size_ranged(&bytes, runs, lo, hi), expected, "round {round}");
        }
    }
}

#[test]
fn width_specialised_packing_writes_what_the_u128_packer_wrote() {
    let mut next = crate::columnar::lcg(29, 0);
    for width in 1..=64u8 {
        for n in [0usize, 1, 7, 8, 9, 16, 63, 64, 65, 130, 1000] {
            let mask = u64::MAX >> (64 - width);
            // Values of every bit pattern, of the width's full range, and
            // off a base that the packer takes away.
            let min = [0, 1, u64::MAX - mask, next() % 1000][n % 4].min(u64::MAX - mask);
            let values: Vec<u64> = (0..n).map(|i| min + if i % 5 == 0 { mask } else { next() & mask }).collect();
            let mut expected = vec![7u8];
            pack128(&mut expected, values.iter().map(|&v| u128::from(v - min)), width);
            let mut got = vec![7u8];
            pack::pack_u64(&mut got, &values, min, width);
            assert_eq!(got, expected, "width {width}, {n} values, base {min}");
            if width == 1 && min == 0 {
                let bits: Vec<u8> = values.iter().map(|&v| v as u8).collect();
                let mut got = vec![7u8];
                pack::pack_bits(&mut got, &bits);
                assert_eq!(got, expected, "{n} bits");
            }
        }
    }
    // Deltas: the zigzags of neighbours' differences less their least.
    for n in [0usize, 1, 2, 8, 9, 10, 17, 100, 1000] {
        for spread in [0u64, 1, 100, 1 << 20, 1 << 40, u64::MAX >> 2] {
            let values: Vec<u64> =
                (0..n).map(|i| (i as u64).wrapping_mul(1_000_003) % (spread + 1) + (1 << 62)).collect();
            let zigzags: Vec<u64> =
                values.windows(2).map(|w| varint::zigzag64(w[1].wrapping_sub(w[0]) as i64)).collect();
            let dmin = zigzags.iter().copied().min().unwrap_or(0);
            let width = zigzags.iter().map(|&z| 64 - (z - dmin).leading_zeros()).max().unwrap_or(0) as u8;
            let mut expected = vec![7u8];
            pack128(&mut expected, zigzags.iter().map(|&z| u128::from(z - dmin)), width);
            let mut got = vec![7u8];
            pack::pack_deltas_u64(&mut got, &values, dmin, width);
            assert_eq!(got, expected, "{n} values, spread {spread}");
        }
    }
    // Bits in every arrangement of a group, and runs of them.
    for n in 0..=40usize {
        for seed in 0..20u64 {
            let bits: Vec<u8> = (0..n).map(|i| ((seed.wrapping_mul(0x9e37_79b9) >> (i % 29)) & 1) as u8).collect();
            let mut expected = Vec::new();
            pack128(&mut expected, bits.iter().map(|&b| u128::from(b)), 1);
            let mut got = Vec::new();
            pack::pack_bits(&mut got, &bits);
            assert_eq!(got, expected, "{bits:?}");
        }
    }
}

#[test]
fn narrow_groups_less_their_base_in_one_word_write_what_the_u128_packer_wrote() {
    // Widths up to 8, whose groups take the base away once a word: bases
    // whose product with the places wraps, values at both ends of the
    // range (where the values themselves, shifted, overlap and carry).
    let mut next = crate::columnar::lcg(43, 0);
    for width in 1..=8u8 {
        let mask = u64::MAX >> (64 - width);
        for min in [0, 1, mask, (1 << 63) - 1, 1 << 63, 0x5555_5555_5555_5555, u64::MAX - mask] {
            let values: Vec<u64> = (0..69)
                .map(|i| match i % 4 {
                    0 => min,
                    1 => min + mask,
                    _ => min + (next() & mask),
                })
                .collect();
            let mut expected = vec![7u8];
            pack128(&mut expected, values.iter().map(|&v| u128::from(v - min)), width);
            let mut got = vec![7u8];
            pack::pack_u64(&mut got, &values, min, width);
            assert_eq!(got, expected, "width {width}, base {min:#x}");
        }
    }
}

#[test]
fn varints_of_u64_columns_write_what_the_u128_path_wrote() {
    let mut next = crate::columnar::lcg(31, 0);
    for n in [0usize, 1, 7, 8, 9, 16, 17, 100, 1000] {
        for big in [0u64, 1, 8, 50, 100] {
            // Values below 2^7, with every `big`-th (none for 0) wider, up
            // to 64 bits: whole groups of small ones, and groups mixed.
            let values: Vec<u64> = (0..n)
                .map(|i| {
                    let r = next();
                    if big > 0 && i as u64 % big == 0 {
                        r >> (r % 57)
                    } else {
                        r % 0x80
                    }
                })
                .collect();
            let wide: Vec<u128> = values.iter().map(|&v| u128::from(v)).collect();
            let mut expected = vec![E::Varint.byte()];
            wide.iter().for_each(|&v| varint::put(&mut expected, v));
            let size = expected.len() - 1;
            let forced = Plan { size, enc: E::Varint, min: 0, width: 0, delta_min: 0, delta_width: 0 };
            let mut out = Vec::new();
            Planned { values: &values[..], plan: Plan { ..forced }, entropy: None }.write(&mut out);
            assert_eq!(out, expected, "{n} values, every {big}th wide");
            let mut out = Vec::new();
            Planned { values: &wide[..], plan: forced, entropy: None }.write(&mut out);
            assert_eq!(out, expected);
        }
    }
}

#[test]
fn a_varint_built_in_a_word_is_the_varint_put_byte_by_byte() {
    let mut next = crate::columnar::lcg(41, 0);
    // Every bit length up to 56, at its smallest, its largest and between.
    for bits in 0..=56u32 {
        let top = if bits == 0 { 0 } else { u64::MAX >> (64 - bits) };
        for x in [top >> 1.min(bits), top, top & next(), (top >> 1) + 1] {
            let mut expected = Vec::new();
            varint::put(&mut expected, u128::from(x));
            let len = usize::from(VARINT_LEN[(64 - x.leading_zeros()) as usize]);
            assert_eq!(len, expected.len());
            let word = varint_word(x, len).to_le_bytes();
            assert_eq!(word[..len], expected[..], "{x:#x}");
            assert!(word[len..].iter().all(|&b| b == 0), "{x:#x}");
        }
    }
}

#[test]
fn varints_near_a_columns_end_write_what_the_u128_path_wrote() {
    // A value of each length (1 to 10 bytes) at each of the last ten
    // places of columns of small values, and columns of one length: the
    // varints stored as words and those within eight bytes of the end,
    // written byte by byte.
    let of_length = |len: u32| if len == 1 { 5u64 } else { (1u64 << (7 * (len - 1)).min(63)) | 3 };
    let mut columns: Vec<Vec<u64>> = Vec::new();
    for n in [1usize, 2, 9, 10, 11, 17, 24] {
        for len in 1..=10 {
            columns.push(vec![of_length(len); n]);
            for place in n.saturating_sub(10)..n {
                let mut values: Vec<u64> = (0..n as u64).map(|i| i % 0x80).collect();
                values[place] = of_length(len);
                columns.push(values);
            }
        }
    }
    for values in columns {
        let wide: Vec<u128> = values.iter().map(|&v| u128::from(v)).collect();
        let mut expected = vec![E::Varint.byte()];
        wide.iter().for_each(|&v| varint::put(&mut expected, v));
        let size = expected.len() - 1;
        let plan = Plan { size, enc: E::Varint, min: 0, width: 0, delta_min: 0, delta_width: 0 };
        let mut out = Vec::new();
        Planned { values: &values[..], plan, entropy: None }.write(&mut out);
        assert_eq!(out, expected, "{values:?}");
    }
}

#[test]
fn runs_skipped_eight_at_a_time_size_and_write_as_counted_one_by_one() {
    let mut next = crate::columnar::lcg(37, 0);
    for round in 0..400 {
        let n = [1usize, 2, 3, 4, 5, 8, 9, 12, 13, 16, 17, 100, 1000][round % 13];
        // Runs of about `mean` values (a few values, or runs across whole
        // groups of eight and their edges), of small or wide values.
        let mean = [1u64, 2, 3, 7, 8, 9, 16, 40, 1000][round / 13 % 9];
        let wide = round % 2 == 0;
        let mut v = 0u64;
        let values: Vec<u64> = (0..n)
            .map(|_| {
                if next() % mean == 0 {
                    v = if wide { next() >> 2 } else { next() % 3 };
                }
                v
            })
            .collect();
        let wide_values: Vec<u128> = values.iter().map(|&v| u128::from(v)).collect();
        let bytes: Vec<u8> = values.iter().map(|&v| (v % 2) as u8).collect();
        let runs = 1 + values.windows(2).filter(|w| w[0] != w[1]).count();
        let expected = rle_size(&values);
        // Either path (the count of runs picks one: skipped where it is
        // an eighth of the values or less), and either width.
        for counted in [1, runs, n] {
            assert_eq!(rle_size_u63(&values, counted), expected, "round {round}");
            assert_eq!(rle_size_u63(&bytes, counted), rle_size(&bytes), "round {round}");
        }
        // The run-length writer, against runs counted one value at a time.
        for (column, size) in [(&values[..], expected), (&bytes.iter().map(|&b| u64::from(b)).collect::<Vec<_>>(), 0)] {
            let size = if size == 0 { rle_size(column) } else { size };
            let mut expected = vec![E::RunLength.byte()];
            let mut i = 0;
            while i < column.len() {
                let run = column[i..].iter().take_while(|&&x| x == column[i]).count();
                varint::put(&mut expected, run as u128);
                varint::put(&mut expected, u128::from(column[i]));
                i += run;
            }
            let forced = Plan { size, enc: E::RunLength, min: 0, width: 0, delta_min: 0, delta_width: 0 };
            let mut out = Vec::new();
            Planned { values: column, plan: forced, entropy: None }.write(&mut out);
            assert_eq!(out, expected, "round {round}");
        }
        let mut out = Vec::new();
        let forced = Plan { size: rle_size(&bytes), enc: E::RunLength, min: 0, width: 0, delta_min: 0, delta_width: 0 };
        Planned { values: &bytes[..], plan: forced, entropy: None }.write(&mut out);
        let mut c = Cursor::new(&out, 0);
        assert_eq!(decode::<u8>(&mut c, n as u64, 8).unwrap(), bytes);
        round_trip(&wide_values);
    }
}

#[test]
fn the_bits_of_a_u64_column_are_ored_as_one_by_one() {
    let mut next = crate::columnar::lcg(41, 0);
    for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 64, 65, 1000] {
        for shift in [0u32, 20, 50, 63] {
            let mut values: Vec<u64> = (0..n).map(|_| next() >> (shift + (next() % 4) as u32).min(63)).collect();
            // A bit only in one value, anywhere (the last group, the rest).
            if n > 0 {
                let at = (next() as usize) % n;
                values[at] |= 1 << (next() % 64);
            }
            let expected = values.iter().fold(0u128, |a, &v| a | u128::from(v));
            assert_eq!(<u64 as Int>::all(&values), expected, "{n} values");
        }
    }
}

#[test]
fn u128_columns_that_fit_64_bits_write_what_the_u128_path_wrote() {
    let mut next = crate::columnar::lcg(17, 0);
    let mut columns = shaped_columns();
    // Tags and lengths: small values, in runs and not, around the length
    // from which the column is copied into u64s.
    for n in [NARROWED_FROM - 1, NARROWED_FROM, NARROWED_FROM + 1, 100, 1000, 5000] {
        columns.push((0..n).map(|_| u128::from(next() % 3)).collect());
        columns.push((0..n).map(|i| (i as u128 / 9) % 4).collect());
        columns.push((0..n).map(|_| u128::from(next() % 40_000)).collect());
        columns.push((0..n).map(|i| u128::from(next()) | (u128::from(i as u64 % 2) << 64)).collect());
    }
    let mut narrowed = 0;
    for values in columns {
        let mut general = Vec::new();
        Planned::new(&values[..]).write(&mut general);
        narrowed += usize::from(u128::narrowed(&values).is_some());
        assert_eq!(encode(&values), general, "{values:?}");
    }
    assert!(narrowed > 100, "{narrowed} columns copied into u64s");
}

#[test]
fn runs_written_by_index_are_the_runs_put_one_by_one() {
    let mut next = crate::columnar::lcg(23, 0);
    for round in 0..300 {
        let n = [1, 2, 7, 8, 9, 40, 1000][round % 7];
        let top = [1u128, 2, 200, 1 << 20, 1 << 63, u128::from(u64::MAX), u128::MAX][round / 7 % 7];
        let mut values: Vec<u128> = Vec::with_capacity(n);
        while values.len() < n {
            let v = top.saturating_sub(u128::from(next() % 3));
            let len = 1 + next() as usize % [1, 3, 20, 300][round % 4];
            values.extend(std::iter::repeat(v).take(len.min(n - values.len())));
        }
        let mut expected = vec![E::RunLength.byte()];
        let mut i = 0;
        while i < n {
            let j = (i..n).find(|&j| values[j] != values[i]).unwrap_or(n);
            varint::put(&mut expected, (j - i) as u128);
            varint::put(&mut expected, values[i]);
            i = j;
        }
        let planned = plan(&values);
        let forced = Plan { size: expected.len() - 1, enc: E::RunLength, ..planned };
        let mut written = vec![9u8];
        Planned { values: &values[..], plan: forced, entropy: None }.write(&mut written);
        assert_eq!(written[1..], expected[..], "{values:?}");
        if let Some(narrow) = u128::narrowed(&values) {
            let forced = Plan { size: expected.len() - 1, enc: E::RunLength, ..plan(&narrow) };
            let mut written = Vec::new();
            Planned { values: &narrow[..], plan: forced, entropy: None }.write(&mut written);
            assert_eq!(written, expected, "{values:?}");
        }
    }
}

#[test]
fn the_32_bit_lanes_gather_what_the_64_bit_pass_does() {
    let mut next = crate::columnar::lcg(29, 5);
    // Lengths around a group of eight, around a block (2048 groups), and
    // past one.
    let lens = [2usize, 3, 4, 5, 8, 9, 13, 17, 100, 2048 * 8, 2048 * 8 + 1, 2048 * 8 + 9, 40_000];
    for (round, &n) in lens.iter().cycle().take(104).enumerate() {
        let values: Vec<u64> = (0..n)
            .map(|i| {
                let r = next();
                match round % 8 {
                    0 => r % (1 << 30),
                    1 => (1 << 30) - 1 - r % 3,
                    2 => [0, (1 << 30) - 1][(r % 2) as usize],
                    3 => [127, 128, (1 << 14) - 1, 1 << 14, (1 << 21) - 1, 1 << 21, (1 << 28) - 1, 1 << 28]
                        [(r % 8) as usize],
                    // Amounts mostly 0: runs over whole steps, and ending
                    // inside one (and runs of large values).
                    4 if r % [3, 20, 200][round / 8 % 3] == 0 => r % 1_000_000,
                    4 => [0, 1 << 29][round / 24 % 2],
                    5 => 1_000_000 + (i as u64 / [1, 3, 4, 9][round / 8 % 4]) * 1000 + r % 7,
                    6 => [5, 1 << 20][(i / (1 + round / 8 % 6)) % 2],
                    _ => (i as u64 * 7919) % (1 << 30),
                }
            })
            .collect();
        let (lanes, scalar) = (plan(&values), plan_u63(&values, values[0]));
        assert_eq!(
            (lanes.size, lanes.enc, lanes.min, lanes.width, lanes.delta_min, lanes.delta_width),
            (scalar.size, scalar.enc, scalar.min, scalar.width, scalar.delta_min, scalar.delta_width),
            "round {round}, {n} values"
        );
        let (lo, hi, dlo, dhi, runs, varints) = counted(&values);
        let g = lanes::pass_u30(&values);
        assert_eq!(
            (g.lo, g.hi, g.dlo, g.dhi, g.runs, g.varint_size),
            (lo, hi, dlo, dhi, runs, Some(varints)),
            "round {round}, {n} values"
        );
        round_trip(&values.iter().map(|&v| u128::from(v)).collect::<Vec<_>>());
    }
}

proptest::proptest! {
    /// Any column of values below 2^30 (runs, ramps, small values, values
    /// at a varint's steps, mixed): the 32-bit lanes gather what a count
    /// value by value finds, and plan as the 64-bit pass does.
    #[test]
    fn the_32_bit_lanes_gather_what_a_count_finds(
        parts in proptest::collection::vec((0u64..1 << 30, 1usize..24, 0u8..4), 1..48)
    ) {
        let steps = [0u64, 127, 128, (1 << 14) - 1, 1 << 14, (1 << 21) - 1, 1 << 21, (1 << 28) - 1, 1 << 28, (1 << 30) - 1];
        let values: Vec<u64> = parts
            .iter()
            .flat_map(|&(v, len, kind)| {
                (0..len as u64).map(move |i| match kind {
                    0 => v,
                    1 => (v + i * (v % 5)) % (1 << 30),
                    2 => (v >> (v % 30)) ^ (i % 3),
                    _ => steps[((v + i) % steps.len() as u64) as usize],
                })
            })
            .collect();
        proptest::prop_assume!(values.len() >= 2);
        let (lanes, scalar) = (plan(&values), plan_u63(&values, values[0]));
        proptest::prop_assert_eq!(
            (lanes.size, lanes.enc, lanes.min, lanes.width, lanes.delta_min, lanes.delta_width),
            (scalar.size, scalar.enc, scalar.min, scalar.width, scalar.delta_min, scalar.delta_width)
        );
        let (lo, hi, dlo, dhi, runs, varints) = counted(&values);
        let g = lanes::pass_u30(&values);
        proptest::prop_assert_eq!(
            (g.lo, g.hi, g.dlo, g.dhi, g.runs, g.varint_size),
            (lo, hi, dlo, dhi, runs, Some(varints))
        );
        round_trip(&values.iter().map(|&v| u128::from(v)).collect::<Vec<_>>());
    }
}

/// What the lane passes gather, counted value by value: the smallest and
/// largest value, the smallest and largest zigzagged step, the runs of equal
/// values and the varints' bytes (their oracle).
fn counted(values: &[u64]) -> (u64, u64, u64, u64, usize, usize) {
    let mut runs = 1;
    let (mut dlo, mut dhi) = (u64::MAX, 0);
    for w in values.windows(2) {
        runs += usize::from(w[0] != w[1]);
        let z = varint::zigzag64(w[1] as i64 - w[0] as i64);
        (dlo, dhi) = (dlo.min(z), dhi.max(z));
    }
    let (lo, hi) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
    let varints: usize = values.iter().map(|&v| varint::len(u128::from(v))).sum();
    (lo, hi, dlo, dhi, runs, varints)
}
