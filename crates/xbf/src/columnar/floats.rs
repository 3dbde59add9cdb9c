//! Float columns, lossless: most real floats began as short decimals
//! (prices, coordinates), so the writer tries storing each as an integer
//! count of 10^-e (the idea of ALP, SIGMOD 2023) with the integer column
//! encodings, keeping the values that do not come back bit for bit as
//! exceptions; otherwise the plain IEEE bytes.

use crate::error::{Error, ErrorKind, Result};
use crate::varint;

use super::cursor::Cursor;
use super::ints;

pub(crate) const PLAIN: u8 = 16;
pub(crate) const DECIMAL: u8 = 17;
pub(crate) const DICT: u8 = 18;

/// A float type's width and the largest exponent whose power of ten the
/// type holds exactly (so that the division below is exact in every language).
pub(crate) trait Float: Copy {
    const BYTES: usize;
    const MAX_EXP: u8;
    fn to_bits64(self) -> u64;
    fn from_bits64(b: u64) -> Self;
    /// `n / 10^e`, the decoder's one formula.
    fn from_decimal(n: i64, e: u8) -> Self;
    fn scaled(self, e: u8) -> Option<i64>;
}

impl Float for f64 {
    const BYTES: usize = 8;
    const MAX_EXP: u8 = 18;
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn from_decimal(n: i64, e: u8) -> Self {
        n as f64 / 10f64.powi(i32::from(e))
    }
    fn scaled(self, e: u8) -> Option<i64> {
        let s = (self * 10f64.powi(i32::from(e))).round();
        (s.abs() < 9.0e15).then_some(s as i64)
    }
}

impl Float for f32 {
    const BYTES: usize = 4;
    const MAX_EXP: u8 = 10;
    fn to_bits64(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn from_decimal(n: i64, e: u8) -> Self {
        n as f32 / 10f32.powi(i32::from(e))
    }
    fn scaled(self, e: u8) -> Option<i64> {
        let s = (f64::from(self) * 10f64.powi(i32::from(e))).round();
        (s.abs() < 1.6e7).then_some(s as i64)
    }
}

fn plain<F: Float>(values: &[F]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + values.len() * F::BYTES);
    out.push(PLAIN);
    for v in values {
        out.extend_from_slice(&v.to_bits64().to_le_bytes()[..F::BYTES]);
    }
    out
}

fn decimal<F: Float>(values: &[F], e: u8) -> Vec<u8> {
    let mut ints = Vec::with_capacity(values.len());
    let mut exceptions = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match v.scaled(e) {
            Some(n) if F::from_decimal(n, e).to_bits64() == v.to_bits64() => ints.push(varint::zigzag(n.into())),
            _ => {
                ints.push(0);
                exceptions.push(i);
            }
        }
    }
    let mut out = vec![DECIMAL, e];
    let body = ints::encode(&ints);
    ints::put_varint(&mut out, body.len() as u128);
    out.extend_from_slice(&body);
    ints::put_varint(&mut out, exceptions.len() as u128);
    if !exceptions.is_empty() {
        let positions: Vec<u128> = exceptions.iter().map(|&i| i as u128).collect();
        let pos = ints::encode(&positions);
        ints::put_varint(&mut out, pos.len() as u128);
        out.extend_from_slice(&pos);
        for &i in &exceptions {
            out.extend_from_slice(&values[i].to_bits64().to_le_bytes()[..F::BYTES]);
        }
    }
    out
}

/// The distinct values (by bits, in first-seen order) and each value's
/// index among them; `None` when most values are distinct.
fn dictionary<F: Float>(values: &[F]) -> Option<(Vec<F>, Vec<u128>)> {
    let mut index = std::collections::HashMap::new();
    let mut distinct = Vec::new();
    let mut ids = Vec::with_capacity(values.len());
    for v in values {
        let id = *index.entry(v.to_bits64()).or_insert_with(|| {
            distinct.push(*v);
            distinct.len() as u128 - 1
        });
        ids.push(id);
        if distinct.len() > values.len() / 2 + 16 {
            return None;
        }
    }
    Some((distinct, ids))
}

/// The smallest lossless encoding of `values`.
pub(crate) fn encode<F: Float>(values: &[F]) -> Vec<u8> {
    let mut best = encode_direct(values);
    if let Some((distinct, ids)) = dictionary(values) {
        let mut d = vec![DICT];
        ints::put_varint(&mut d, distinct.len() as u128);
        let inner = encode_direct(&distinct);
        ints::put_varint(&mut d, inner.len() as u128);
        d.extend_from_slice(&inner);
        d.extend_from_slice(&ints::encode(&ids));
        if d.len() < best.len() {
            best = d;
        }
    }
    best
}

/// The smaller of the plain and the decimal encoding.
fn encode_direct<F: Float>(values: &[F]) -> Vec<u8> {
    let mut best = plain(values);
    if values.is_empty() {
        return best;
    }
    // The exponent that leaves the fewest exceptions is found on a sample,
    // then the few best candidates are encoded in full.
    let sample: Vec<F> = values.iter().step_by((values.len() / 256).max(1)).copied().collect();
    let mut by_misses: Vec<(usize, u8)> = (0..=F::MAX_EXP)
        .map(|e| {
            let misses = sample
                .iter()
                .filter(|v| !matches!(v.scaled(e), Some(n) if F::from_decimal(n, e).to_bits64() == v.to_bits64()))
                .count();
            (misses, e)
        })
        .collect();
    by_misses.sort();
    for &(misses, e) in by_misses.iter().take(3) {
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

fn raw<F: Float>(bytes: &[u8]) -> F {
    let mut b = [0u8; 8];
    b[..F::BYTES].copy_from_slice(bytes);
    F::from_bits64(u64::from_le_bytes(b))
}

/// Reads a float column body of exactly `n` values.
pub(crate) fn decode<F: Float>(c: &mut Cursor<'_>, n: u64) -> Result<Vec<F>> {
    let at = c.offset();
    match c.u8()? {
        PLAIN => {
            let bytes = c.take_checked(u128::from(n) * F::BYTES as u128)?;
            Ok(bytes.chunks_exact(F::BYTES).map(raw).collect())
        }
        DECIMAL => {
            let e_at = c.offset();
            let e = c.u8()?;
            if e > F::MAX_EXP {
                return Err(c.invalid(e_at, format!("the exponent {e} passes {}", F::MAX_EXP)));
            }
            let mut body = c.block()?;
            let ints = ints::decode(&mut body, n, 64)?;
            body.finish("integer block")?;
            let mut out = Vec::with_capacity(n as usize);
            for z in ints {
                let v = varint::unzigzag(z);
                let v =
                    i64::try_from(v).map_err(|_| c.invalid(at, format!("{v} passes the 64 bits of a scaled float")))?;
                out.push(F::from_decimal(v, e));
            }
            let count_at = c.offset();
            let k = c.varint(64)? as u64;
            if k > n {
                return Err(c.invalid(count_at, format!("{k} exceptions in a column of {n} values")));
            }
            if k > 0 {
                let mut pos = c.block()?;
                let positions = ints::decode(&mut pos, k, 64)?;
                pos.finish("exception positions")?;
                let bytes = c.take_checked(u128::from(k) * F::BYTES as u128)?;
                for (p, b) in positions.iter().zip(bytes.chunks_exact(F::BYTES)) {
                    let slot = usize::try_from(*p).ok().and_then(|p| out.get_mut(p)).ok_or_else(|| {
                        c.invalid(count_at, format!("an exception at position {p} of a column of {n}"))
                    })?;
                    *slot = raw(b);
                }
            }
            Ok(out)
        }
        DICT => {
            let d_at = c.offset();
            let d = c.varint(64)? as u64;
            // Each distinct value takes at least a byte of the inner column.
            c.check_fits(d_at, d, 1)?;
            let mut inner = c.block()?;
            if inner.clone_first_byte() == DICT {
                return Err(c.invalid(d_at, "a dictionary of a dictionary".into()));
            }
            let distinct: Vec<F> = decode(&mut inner, d)?;
            inner.finish("dictionary")?;
            let ids = ints::decode(c, n, 64)?;
            ids.iter()
                .map(|&i| {
                    distinct
                        .get(usize::try_from(i).unwrap_or(usize::MAX))
                        .copied()
                        .ok_or_else(|| c.invalid(d_at, format!("a dictionary index {i} past its {d} values")))
                })
                .collect()
        }
        other => {
            Err(Error::at(ErrorKind::UnknownDiscriminant, at, format!("0x{other:02x} is not a float column encoding")))
        }
    }
}

#[cfg(test)]
mod tests {
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
    fn prices_become_small_integers() {
        let prices: Vec<f64> =
            (0..252).map(|i| 2500.0 + f64::from(i) * 1.37 + 0.01).map(|x| (x * 100.0).round() / 100.0).collect();
        let bytes = round_trip(&prices);
        assert_eq!(bytes[0], DECIMAL);
        assert!(bytes.len() < 252 * 3, "{} bytes", bytes.len());
    }

    #[test]
    fn exceptions_and_odd_values_survive() {
        round_trip(&[0.1, 0.2, f64::NAN, -0.0, 1e300, f64::INFINITY, 3.25, 5e-324]);
        round_trip(&[1.5f32, 0.1, f32::NAN, -0.0]);
        let noise: Vec<f64> = (1..500).map(|i| (f64::from(i)).sqrt()).collect();
        assert_eq!(round_trip(&noise)[0], PLAIN);
        let few: Vec<f64> = (0..1000).map(|i| f64::from(i % 7).sqrt()).collect();
        assert_eq!(round_trip(&few)[0], DICT);
        round_trip::<f64>(&[]);
    }
}
