//! The float column encodings' tests, and the planning before its speed-ups
//! (kept to check that the faster one chooses the same bytes).

use super::*;

fn round_trip<F: Float + std::fmt::Debug>(values: &[F]) -> Vec<u8> {
    let bytes = encode(values);
    let mut c = Cursor::new(&bytes, 0);
    let back: Vec<F> = decode(&mut c, values.len() as u64).unwrap();
    assert!(c.at_end());
    let bits = |v: &[F]| v.iter().map(|x| x.to_bits64()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(values));
    bytes
}

#[test]
fn a_dictionary_may_hold_more_values_than_bytes() {
    // 20 distinct halves, one repeated: a dictionary whose decimal values
    // are a delta of width 0 (SPEC.md vector "a float dictionary of more
    // values than bytes"). Readers once refused it, expecting a byte a value.
    let mut v: Vec<f64> = (0..19).map(|i| 22.5 + f64::from(i)).collect();
    v.extend([40.5, 41.5]);
    let bytes = round_trip(&v);
    assert_eq!(bytes[0], 0x12, "{bytes:02x?}");
    assert!(bytes.len() - 2 < 20, "fewer bytes after d than its 20 values");
    // The original report: 111 halves, from the TypeScript cross-language test.
    let v: Vec<f64> = (0..111).map(|i| (f64::from(i) * 0.37).round() + 0.5).collect();
    round_trip(&v);
}

/// The planning of `encode_direct` before its speed-ups (`powi` and
/// `round` calls, every exponent counted in full), kept to check that
/// the faster one chooses the same bytes.
fn encode_direct_reference<F: Float>(values: &[F]) -> Vec<u8> {
    fn scaled<F: Float>(v: F, e: u8) -> Option<i64> {
        let s = (v.to_f64() * 10f64.powi(i32::from(e))).round();
        let limit = if F::BYTES == 8 { 9.0e15 } else { 1.6e7 };
        (s.abs() < limit).then_some(s as i64)
    }
    fn from_decimal<F: Float>(n: i64, e: u8) -> u64 {
        if F::BYTES == 8 {
            (n as f64 / 10f64.powi(i32::from(e))).to_bits()
        } else {
            u64::from((n as f32 / 10f32.powi(i32::from(e))).to_bits())
        }
    }
    let mut best = plain(values);
    if values.is_empty() {
        return best;
    }
    let sample: Vec<F> = values.iter().step_by((values.len() / 256).max(1)).copied().collect();
    let mut by_misses: Vec<(usize, u8)> = (0..=F::MAX_EXP)
        .map(|e| {
            let misses = sample
                .iter()
                .filter(|v| !matches!(scaled(**v, e), Some(n) if from_decimal::<F>(n, e) == v.to_bits64()))
                .count();
            (misses, e)
        })
        .collect();
    by_misses.sort();
    let tries = if by_misses[0].0 == 0 { 1 } else { 3 };
    for &(misses, e) in by_misses.iter().take(tries) {
        if misses * 2 > sample.len() {
            break;
        }
        let candidate = decimal(values, e);
        if candidate.len() < best.len() {
            best = candidate;
        }
    }
    best
}

#[test]
fn fast_planning_chooses_what_the_full_count_chose() {
    for e in 0..=18u8 {
        assert_eq!(POW10_F64[usize::from(e)].to_bits(), 10f64.powi(i32::from(e)).to_bits());
    }
    for e in 0..=10u8 {
        assert_eq!(POW10_F32[usize::from(e)].to_bits(), 10f32.powi(i32::from(e)).to_bits());
    }
    let mut next = crate::columnar::lcg(3, 11);
    let odd = [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX, 9.0e15, -8.999999999999999e15];
    for x in odd.iter().chain(&[0.5, -0.5, 1.5, -2.5, 4503599627370495.5, 0.49999999999999994, 1e18, 3.0e18]) {
        for e in 0..=18 {
            let s = (x * 10f64.powi(e)).round();
            assert_eq!(x.scaled(e as u8), (s.abs() < 9.0e15).then_some(s as i64), "{x} at {e}");
        }
    }
    // The check without division where it cannot hold, against the check.
    let check = |v: f64| {
        for e in 0..=18u8 {
            let full = matches!(v.scaled(e), Some(n) if f64::from_decimal(n, e).to_bits() == v.to_bits());
            assert_eq!(exact_decimal(v, e).is_some(), full, "{v:e} at {e}");
            if let Some(n) = exact_decimal(v, e) {
                assert_eq!(Some(n), v.scaled(e));
            }
        }
        let w = v as f32;
        for e in 0..=10u8 {
            let full = matches!(w.scaled(e), Some(n) if f32::from_decimal(n, e).to_bits() == w.to_bits());
            assert_eq!(exact_decimal(w, e).is_some(), full, "{w:e} (f32) at {e}");
        }
        // The check without a branch decides exactly the fits below its bound.
        fn near<F: Float>(v: F, e: u8) -> u64 {
            match exact_decimal(v, e) {
                Some(n) if (v.to_f64() * POW10_F64[usize::from(e)]).abs() < 0.5 / F::NEAR => varint::zigzag64(n),
                _ => UNDECIDED,
            }
        }
        for e in 0..=18u8 {
            let z = exact_decimal_near(v, Pow10::of(e));
            assert_eq!(z, near(v, e), "{v:e} at {e}");
            // (`all_decided` tests the top bit alone.)
            assert!(z == UNDECIDED || z < 1 << 52, "{v:e} at {e}");
            let wide = fits_wide(v, Pow10::of(e)) && v.to_bits() != (-0f64).to_bits();
            assert_eq!(wide, exact_decimal(v, e).is_some(), "wide: {v:e} at {e}");
        }
        for e in 0..=10u8 {
            let wide = fits_wide(w, Pow10::of(e)) && w.to_bits() != (-0f32).to_bits();
            assert_eq!(wide, exact_decimal(w, e).is_some(), "wide: {w:e} (f32) at {e}");
        }
        for e in 0..=10u8 {
            assert_eq!(exact_decimal_near(w, Pow10::of(e)), near(w, e), "{w:e} (f32) at {e}");
        }
        // The exponents found with a few checks, against all of them.
        let mask = |fits: &dyn Fn(u8) -> bool, max: u8| (0..=max).filter(|&e| fits(e)).fold(0, |m, e| m | 1 << e);
        assert_eq!(fit_mask(v), mask(&|e| exact_decimal(v, e).is_some(), 18), "{v:e}");
        assert_eq!(fit_mask(w), mask(&|e| exact_decimal(w, e).is_some(), 10), "{w:e} (f32)");
    };
    for &x in &odd {
        check(x);
    }
    // Products at the integers' limits (`F::SCALED_BELOW`), either side.
    for x in
        [15_999_999.0, 15_999_999.25, 15_999_999.5, 15_999_999.75, 16e6, 8_999_999_999_999_999.0, 9.000000000000002e15]
    {
        for d in 0..19 {
            let y = x / 10f64.powi(d);
            for v in [y, f64::from_bits(y.to_bits() - 1), f64::from_bits(y.to_bits() + 1)] {
                check(v);
                check(-v);
            }
        }
    }
    // Decimals whose integers sit near 2^46..2^54 and the f32 bounds,
    // where the mask's shortcut gives way to checks one by one.
    for bits in [20, 21, 22, 23, 24, 25, 46, 47, 48, 49, 50, 51, 52, 53, 54] {
        for d in 0..19 {
            let n = (1u64 << bits) - 3 + (next() % 7);
            check(n as f64 / 10f64.powi(d));
            check((n / 7) as f64 / 10f64.powi(d));
            // Halfway between two integers, where the roundings differ.
            check((n as f64 + 0.5) / 10f64.powi(d));
            check((n as f64 / 2.0 + 0.5) / 10f64.powi(d));
        }
    }
    // `fit_mask`'s table of `top`: at each binary exponent's smallest
    // magnitude, the largest exponent whose product is within the bound.
    for (table, bound, max) in [(&TOP_F64, TOP_BOUND_F64, 18), (&TOP_F32, TOP_BOUND_F32, 10)] {
        for k in 0..2048u64 {
            let low = if k == 0 { 0.0 } else { f64::from_bits(k << 52) };
            let top = (0..=max).rev().find(|&e| low * POW10_F64[e] <= bound).map_or(-1, |e| e as i8);
            assert_eq!(table[k as usize], top, "{k}");
        }
    }
    // Every binary exponent: its smallest magnitude, the one below it,
    // and one of its own, where `fit_mask`'s table of `top` changes.
    for k in 0..2047u64 {
        let low = f64::from_bits(k << 52);
        for v in [low, f64::from_bits((k << 52).saturating_sub(1)), f64::from_bits(k << 52 | next() >> 1)] {
            check(v);
        }
    }
    for i in 0..200_000u64 {
        let r = next();
        let digits = (r % 19) as i32;
        let mantissa = (next() % 10u64.pow(1 + (i % 17) as u32)) as f64;
        let v = match i % 4 {
            0 => mantissa / 10f64.powi(digits),
            1 => f64::from_bits(r << 11 | i),
            2 => f64::from_bits((mantissa / 10f64.powi(digits)).to_bits() + 1),
            _ => mantissa * 10f64.powi(digits % 6) + 0.5,
        };
        check(v);
        check(-v);
    }
    for round in 0..400 {
        let n = [1, 2, 7, 100, 252, 1000, 3000][round % 7];
        let digits = (round / 7) % 9;
        let kind = round % 5;
        let values: Vec<f64> = (0..n)
            .map(|i| {
                let r = next();
                match kind {
                    // Short decimals of `digits` places, some exceptions.
                    0 => (r % 1_000_000) as f64 / 10f64.powi(digits as i32) * if i % 3 == 0 { -1.0 } else { 1.0 },
                    1 if r % 10 == 0 => f64::from_bits(r << 11),
                    1 => (r % 100_000) as f64 / 10f64.powi(digits as i32),
                    2 => odd[(r % odd.len() as u64) as usize],
                    3 => (r % 7) as f64 * 0.1,
                    _ => f64::from_bits(next() << 1),
                }
            })
            .collect();
        assert_eq!(encode_direct(&values), encode_direct_reference(&values), "round {round}");
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        assert_eq!(encode_direct(&v32), encode_direct_reference(&v32), "round {round}, f32");
    }
}

/// Columns longer than the sample whose first miss at an exponent is or
/// is not a sampled value, with the sample fitting or missing after it:
/// the passes over the whole column choose what the sample alone chose.
#[test]
fn column_passes_choose_what_the_sample_chose() {
    let mut next = crate::columnar::lcg(29, 11);
    for round in 0..600 {
        let n = [512, 513, 700, 1000, 2000, 3376][round % 6];
        let step = (n / 256).max(1);
        // Two-place decimals (the first value one place, so that e = 1 is
        // tried first), a few with three places at chosen positions.
        let mut values: Vec<f64> = (0..n).map(|_| ((next() % 100_000) as f64 / 100.0).max(0.01)).collect();
        values[0] = 12.5;
        let picks = [1, step, step + 1, 2 * step - 1, n - 1, n / 2, n / 2 + 1];
        for k in 0..(round / 6) % 4 {
            let at = picks[(next() as usize + k) % picks.len()];
            values[at] = (next() % 100_000) as f64 / 1000.0 + 0.001;
        }
        if round % 5 == 0 {
            // A value no short decimal gives, unsampled or sampled.
            values[picks[round % picks.len()]] = std::f64::consts::PI;
        }
        assert_eq!(encode_direct(&values), encode_direct_reference(&values), "round {round}");
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        assert_eq!(encode_direct(&v32), encode_direct_reference(&v32), "round {round}, f32");
        for e in [1u8, 2, 3] {
            let mut ns = Vec::new();
            fitting_prefix(&values, e, &mut ns);
            let parts = DecimalParts::resumed(&values, e, ns);
            let whole = DecimalParts::of(&values, e);
            assert_eq!((parts.ints, parts.exceptions), (whole.ints, whole.exceptions), "round {round} at {e}");
        }
    }
}

#[test]
fn prices_become_small_integers() {
    let prices: Vec<f64> =
        (0..252).map(|i| 2500.0 + f64::from(i) * 1.37 + 0.01).map(|x| (x * 100.0).round() / 100.0).collect();
    let bytes = round_trip(&prices);
    assert_eq!(bytes[0], E::Decimal.byte());
    assert!(bytes.len() < 252 * 3, "{} bytes", bytes.len());
}

#[test]
fn exceptions_and_odd_values_survive() {
    round_trip(&[0.1, 0.2, f64::NAN, -0.0, 1e300, f64::INFINITY, 3.25, 5e-324]);
    round_trip(&[1.5f32, 0.1, f32::NAN, -0.0]);
    // Square roots move slowly: their XORs with the one before are short.
    let roots: Vec<f64> = (1..500).map(|i| (f64::from(i)).sqrt()).collect();
    assert_eq!(round_trip(&roots)[0], E::XorFloat.byte());
    // Random bits share nothing with their neighbours.
    let mut seed = 99u64;
    let noise: Vec<f64> = (0..500)
        .map(|_| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            f64::from_bits(seed >> 2 | 0x3ff0_0000_0000_0000 ^ seed << 62)
        })
        .collect();
    assert_eq!(round_trip(&noise)[0], E::PlainFloat.byte());
    let few: Vec<f64> = (0..1000).map(|i| f64::from(i % 7).sqrt()).collect();
    assert_eq!(round_trip(&few)[0], E::FloatDictionary.byte());
    round_trip::<f64>(&[]);
}

/// [`xor_size_below`] as the sum of the fields [`xor_fields`] emits,
/// kept to check the count without them.
fn xor_size_below_reference<F: Float>(values: &[F], limit: usize) -> Option<usize> {
    let mut bits = 0u64;
    let size = |bits: u64| 1 + F::BYTES + bits.div_ceil(8) as usize;
    let mut below = size(0) < limit;
    xor_fields(values, |_, w| {
        bits += u64::from(w);
        below = size(bits) < limit;
        below
    });
    below.then_some(size(bits))
}

/// [`xor_bits_reach`] a value at a time, as it was before it took two a
/// step: the same blocks, the same bound, the same answers.
fn xor_bits_reach_reference<F: Float>(mut prev: u64, rest: &[F], mut bits: u64, stop: u64) -> bool {
    let top = |x: u64| (x | 1).ilog2();
    let (start, n, goal) = (bits as f64, rest.len() as f64, stop as f64 * 1.125);
    let (mut seen, mut len) = (0, 16);
    while seen < rest.len() {
        let block = &rest[seen..rest.len().min(seen + len)];
        seen += block.len();
        len = 64;
        for v in block {
            let b = v.to_bits64();
            let x = b ^ prev;
            prev = b;
            bits += u64::from(top(x) - top(x & x.wrapping_neg()));
        }
        if bits >= stop {
            return true;
        }
        if start + (bits as f64 - start) * (n / seen as f64) < goal {
            return false;
        }
    }
    false
}

/// The bound two values a step answers as the one a value a step, on
/// columns of odd and even lengths (blocks ending mid-pair), both widths,
/// at every stop around where it decides.
#[test]
fn xor_bits_reach_takes_pairs_as_single_values() {
    let mut next = crate::columnar::lcg(41, 11);
    let mut checked = 0;
    for round in 0..200 {
        let n = [1, 2, 3, 15, 16, 17, 18, 79, 80, 81, 145, 1001][round % 12];
        let values: Vec<f64> = (0..n)
            .map(|_| match (round / 12) % 4 {
                0 => f64::from_bits(next() << 11),
                1 => (next() % 100_000) as f64 / 1000.0,
                2 if next() % 3 == 0 => 1.5,
                _ => f64::from_bits(0x3ff0_0000_0000_0000 | (next() % 64) << (next() % 50)),
            })
            .collect();
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        let prev = next();
        let start = next() % 64;
        // The bits the bound would count over the whole column, and stops around it.
        let total: u64 = values.len() as u64 * 64;
        for stop in (0..24).map(|k| total * k / 16).chain([1, u64::MAX]) {
            assert_eq!(
                xor_bits_reach(prev, &values, start, stop),
                xor_bits_reach_reference(prev, &values, start, stop),
                "{round} {stop}"
            );
            assert_eq!(
                xor_bits_reach(prev as u32 as u64, &v32, start, stop),
                xor_bits_reach_reference(prev as u32 as u64, &v32, start, stop),
                "{round} {stop}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 200 * 26);
}

#[test]
fn xor_size_counts_what_the_fields_take() {
    let mut next = crate::columnar::lcg(5, 11);
    for round in 0..300 {
        let n = [1, 2, 3, 17, 100, 500, 2000][round % 7];
        let values: Vec<f64> = (0..n)
            .map(|i| match (round / 7) % 5 {
                0 => f64::from_bits(next() << 11),
                1 => (next() % 1000) as f64 / 100.0,
                2 => (i as f64).sqrt() + (next() % 3) as f64,
                3 if next() % 4 == 0 => f64::NAN,
                3 => [0.0, -0.0, 1.0, f64::INFINITY][(next() % 4) as usize],
                _ => f64::from_bits(0x3ff0_0000_0000_0000 | (next() % 64) << (next() % 50)),
            })
            .collect();
        let full = xor_size_below_reference(&values, usize::MAX);
        // Every limit near the size too, where the walk stops or not.
        let near = |size: Option<usize>| size.map_or(0..0, |s| s.saturating_sub(40)..s + 3);
        for limit in [0, 1, 9, 10, 11, 50, 200, 1000, 4000, usize::MAX].into_iter().chain(near(full)) {
            assert_eq!(xor_size_below(&values, limit), xor_size_below_reference(&values, limit), "{round} {limit}");
        }
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        let full32 = xor_size_below_reference(&v32, usize::MAX);
        for limit in [0, 5, 6, 40, 300, usize::MAX].into_iter().chain(near(full32)) {
            assert_eq!(xor_size_below(&v32, limit), xor_size_below_reference(&v32, limit), "{round} {limit}");
        }
        assert_eq!(full, Some(xor(&values).len()));
        // The bound never passes the bits counted.
        if let Some((first, rest)) = values.split_first() {
            let bits = |size: usize| (size - 1 - 8) as u64 * 8;
            let counted = bits(full.expect("a size"));
            for stop in [counted + 1, counted + 8, u64::MAX] {
                assert!(!xor_bits_reach(first.to_bits(), rest, rest.len() as u64, stop), "{round} {stop}");
            }
            let n = rest.len() as u64;
            assert!(rest.is_empty() || xor_bits_reach(first.to_bits(), rest, n, n), "{round}");
        }
    }
}

#[test]
fn xor_takes_slowly_moving_measurements() {
    // A random walk with full-precision steps: no short decimals, but
    // neighbours share sign, exponent and the top of the mantissa.
    let mut x = 20.0f64;
    let mut seed = 12345u64;
    let walk: Vec<f64> = (0..1000)
        .map(|_| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x += ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e-3;
            x
        })
        .collect();
    let bytes = round_trip(&walk);
    assert_eq!(bytes[0], E::XorFloat.byte());
    assert!(bytes.len() < 1000 * 8, "{} bytes", bytes.len());
    let walk32: Vec<f32> = walk.iter().map(|&v| v as f32).collect();
    assert_eq!(round_trip(&walk32)[0], E::XorFloat.byte());
    // Repeats, odd values and one value.
    for v in [
        vec![1.0, 1.0, 1.0, f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX, 1.0],
        vec![std::f64::consts::PI],
    ] {
        let bytes = xor(&v);
        let mut c = Cursor::new(&bytes, 0);
        let back: Vec<f64> = decode(&mut c, v.len() as u64).unwrap();
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(xor_size(&v), bytes.len());
    }
    let v32 = [f32::MIN_POSITIVE, -f32::MAX, f32::NAN, 1e-45, 1.0];
    let bytes = xor(&v32);
    let mut c = Cursor::new(&bytes, 0);
    let back: Vec<f32> = decode(&mut c, 5).unwrap();
    assert_eq!(
        back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        v32.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn xor_garbage_fails() {
    let kind = |bytes: &[u8], n: u64| {
        let mut c = Cursor::new(bytes, 0);
        decode::<f64>(&mut c, n).map(|_| ()).unwrap_err().kind()
    };
    let one = [E::XorFloat.byte(), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f];
    // Too few bits for the values that follow the first.
    assert_eq!(kind(&one, 2), ErrorKind::Truncated);
    // No values at all.
    assert_eq!(kind(&one, 0), ErrorKind::InvalidColumn);
    // A reuse of a window before any: bits 1, 0.
    assert_eq!(kind(&[&one[..], &[0b01]].concat(), 2), ErrorKind::InvalidColumn);
    // A new window of 63 leading zeros and 64 bits.
    let mut bad = one.to_vec();
    bad.extend_from_slice(&[0b1111_1111, 0b1111_1111, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(kind(&bad, 2), ErrorKind::InvalidColumn);
    // Bits 0 (equal), then nonzero padding.
    assert_eq!(kind(&[&one[..], &[0b10]].concat(), 2), ErrorKind::InvalidColumn);
    // A byte too many.
    assert_eq!(kind(&[&one[..], &[0, 0]].concat(), 2), ErrorKind::InvalidColumn);
    // A window whose bits end early.
    assert_eq!(kind(&[&one[..], &[0b0000_0011, 0b1111_1100]].concat(), 2), ErrorKind::Truncated);
}

/// [`DecimalParts::of`] as it was written before it collected (a push of
/// each value's integer, an exception's position pushed as it comes).
fn decimal_parts_reference<F: Float>(values: &[F], e: u8) -> (Vec<u64>, Vec<u64>) {
    let (mut ints, mut exceptions) = (Vec::new(), Vec::new());
    for (i, v) in values.iter().enumerate() {
        match exact_decimal(*v, e) {
            Some(n) => ints.push(varint::zigzag(n.into()) as u64),
            None => {
                ints.push(0);
                exceptions.push(i as u64);
            }
        }
    }
    (ints, exceptions)
}

#[test]
fn decimal_parts_collected_are_the_pushed_ones() {
    let mut next = crate::columnar::lcg(11, 11);
    for round in 0..300 {
        let n = [0, 1, 5, 252, 511, 512, 1461][round % 7];
        let values: Vec<f64> = (0..n)
            .map(|_| {
                let r = next();
                match r % 4 {
                    0 => f64::from_bits(r << 11),
                    1 => -((r % 100_000) as f64) / 100.0,
                    _ => (r % 10_000) as f64 / 10f64.powi((r % 4) as i32),
                }
            })
            .collect();
        let masks: Vec<u32> = values.iter().map(|&v| fit_mask(v)).collect();
        for e in 0..=<f64 as Float>::MAX_EXP {
            let (ints, exceptions) = decimal_parts_reference(&values, e);
            let parts = DecimalParts::of(&values, e);
            assert_eq!((&parts.ints, &parts.exceptions), (&ints, &exceptions), "round {round} at {e}");
            let masked = DecimalParts::masked(&values, e, &masks, exceptions.len());
            assert_eq!((&masked.ints, &masked.exceptions), (&ints, &exceptions), "masked, round {round} at {e}");
        }
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        let (ints, exceptions) = decimal_parts_reference(&v32, 1);
        let parts = DecimalParts::of(&v32, 1);
        assert_eq!((parts.ints, parts.exceptions), (ints, exceptions), "round {round}, f32");
    }
}

/// The float dictionary as it was built before the table over decimal
/// integers: each value's bits in a `HashMap`, the same giving up.
fn dictionary_reference<F: Float>(values: &[F]) -> Option<(Vec<F>, Vec<u64>)> {
    let mut index = std::collections::HashMap::new();
    let (mut distinct, mut ids) = (Vec::new(), Vec::new());
    for (i, v) in values.iter().enumerate() {
        let next = distinct.len() as u64;
        let id = *index.entry(v.to_bits64()).or_insert(next);
        if id == next {
            distinct.push(*v);
            if distinct.len() > values.len() / 2 + 16
                || crate::columnar::mostly_distinct(i + 1, distinct.len(), values.len())
            {
                return None;
            }
        }
        ids.push(id);
    }
    Some((distinct, ids))
}

/// `encode_hinted` as it was before its candidates were sized first:
/// each written in full, the smaller kept, and the dictionary found by
/// hashing every value.
fn encode_hinted_reference<F: Float>(values: &[F], hint: Option<u8>) -> Vec<u8> {
    let mut best = encode_direct_reference(values);
    if let Some(e) = hint.filter(|_| !values.is_empty()) {
        let candidate = decimal(values, e);
        if candidate.len() < best.len() {
            best = candidate;
        }
    }
    const SAMPLE: usize = 4096;
    let promising = values.len() <= 4 * SAMPLE
        || xor_size(&values[..SAMPLE]) * values.len() < best.len() * SAMPLE + best.len() * SAMPLE / 8;
    if !values.is_empty() && promising && xor_size_below(values, best.len()).is_some() {
        best = xor(values);
    }
    if let Some((distinct, ids)) = dictionary_reference(values) {
        let mut d = vec![E::FloatDictionary.byte()];
        varint::put(&mut d, distinct.len() as u128);
        let inner = encode_direct_reference(&distinct);
        varint::put(&mut d, inner.len() as u128);
        d.extend_from_slice(&inner);
        ints::Planned::new(&ids).write(&mut d);
        if d.len() < best.len() {
            best = d;
        }
    }
    best
}

/// A column of a few kinds of floats from `seed`: short decimals of a few
/// places (each sign, or one sign), few of them or many, with exceptions
/// (random bits, NaN with all bits set, -0.0) or without, and random bits.
fn column(seed: u64, n: usize) -> Vec<f64> {
    let mut next = crate::columnar::lcg(seed, 11);
    let kind = next() % 6;
    let places = (next() % 5) as i32;
    let spread = [3, 40, 500, 10_000, 1 << 40][(next() % 5) as usize];
    let base = [0, 1000, 123_456_789][(next() % 3) as usize];
    let odd = [f64::from_bits(u64::MAX), -0.0, f64::from_bits(next() << 11), f64::INFINITY];
    let exceptions = [0, 2, 50][(next() % 3) as usize];
    (0..n)
        .map(|_| {
            let r = next();
            let sign = if kind == 1 && r % 3 == 0 { -1.0 } else { 1.0 };
            match kind {
                _ if exceptions > 0 && r % 100 < exceptions => odd[(r >> 20) as usize % odd.len()],
                5 => f64::from_bits(r << 11),
                4 => (r % spread) as f64 * 0.37,
                _ => sign * (base + (r >> 3) % spread) as f64 / 10f64.powi(places),
            }
        })
        .collect()
}

/// [`fitting_prefix`] as the exponent search wrote it before: each value
/// checked by [`exact_decimal`] until the first that does not fit.
fn fitting_prefix_reference<F: Float>(values: &[F], e: u8) -> Vec<u64> {
    values.iter().map_while(|&v| exact_decimal(v, e)).map(|n| varint::zigzag(n.into()) as u64).collect()
}

/// [`column`] with odd values put in at `at` (a position in each block of
/// 64 values, so that a miss may fall in any block): subnormals, the
/// infinities, NaN, both zeros, and products near and past 2^50 and the
/// integers' limit, where [`exact_decimal_near`] leaves the check to
/// [`exact_decimal`].
fn column_with_odd_values(seed: u64, n: usize, at: usize) -> Vec<f64> {
    let odd = [
        5e-324,
        -2.5e-320,
        f64::NAN,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1_125_899_906_842_623.5,
        1.125_899_906_842_624e15,
        12_345_678.901_234_5,
        8.999_999_999_999_998e15,
        1e300,
    ];
    let mut values = column(seed, n);
    for (k, i) in (at % 64..n).step_by(64).enumerate() {
        values[i] = odd[(seed as usize + k) % odd.len()];
    }
    values
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(600))]
    /// The candidates sized first and the dictionary found by decimal
    /// integers choose the bytes that writing each in full chose.
    #[test]
    fn sized_candidates_choose_what_written_ones_chose(
        seed in 0u64..u64::MAX, n in proptest::sample::select(vec![0usize, 1, 2, 7, 40, 300, 511, 600, 2000]),
        hint in proptest::option::of(0u8..6),
    ) {
        let values = column(seed, n);
        proptest::prop_assert_eq!(encode_hinted(&values, hint), encode_hinted_reference(&values, hint));
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        proptest::prop_assert_eq!(encode_hinted(&v32, hint), encode_hinted_reference(&v32, hint));
    }

    /// The fitting prefix found a block at a time without a branch is the
    /// one found value by value, at every exponent, f64 and f32.
    #[test]
    fn fitting_prefix_is_the_one_checked_value_by_value(
        seed in 0u64..u64::MAX, n in proptest::sample::select(vec![0usize, 1, 31, 32, 33, 100, 252, 700]),
        at in 0usize..200,
    ) {
        let values = if at < 100 { column_with_odd_values(seed, n, at) } else { column(seed, n) };
        let mut ns = vec![7];
        for e in 0..=<f64 as Float>::MAX_EXP {
            fitting_prefix(&values, e, &mut ns);
            proptest::prop_assert_eq!(&ns, &fitting_prefix_reference(&values, e), "at {}", e);
        }
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        for e in 0..=<f32 as Float>::MAX_EXP {
            fitting_prefix(&v32, e, &mut ns);
            proptest::prop_assert_eq!(&ns, &fitting_prefix_reference(&v32, e), "f32 at {}", e);
        }
    }

    /// The dictionary by a table of decimal integers (at any exponent,
    /// exceptions and all) finds the ids that hashing the bits finds.
    #[test]
    fn dictionary_by_integers_is_the_hashed_one(
        seed in 0u64..u64::MAX, n in proptest::sample::select(vec![0usize, 1, 3, 100, 700, 5000]), e in 0u8..5,
    ) {
        fn bits<F: Float>(d: Option<(Vec<F>, Vec<u64>)>) -> Option<(Vec<u64>, Vec<u64>)> {
            d.map(|(d, ids)| (d.iter().map(|x| x.to_bits64()).collect(), ids))
        }
        let values = column(seed, n);
        let parts = DecimalParts::of(&values, e);
        let want = bits(dictionary_reference(&values));
        proptest::prop_assert_eq!(bits(dictionary::dictionary(&values, Some((e, &parts)))), want.clone());
        proptest::prop_assert_eq!(bits(dictionary::dictionary(&values, None)), want);
        let v32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        let parts = DecimalParts::of(&v32, e);
        proptest::prop_assert_eq!(bits(dictionary::dictionary(&v32, Some((e, &parts)))), bits(dictionary_reference(&v32)));
    }
}
