//! Cascaded runs (encoding `05`, SPEC.md §22.2.3): the run lengths and the
//! run values of a column as two integer blocks, each in whichever encoding
//! is smallest for it. Sorted timestamps (the dates of flights, a minute
//! shared by several flights, minutes a few apart) take a delta of a few
//! bits for the values and an entropy-coded length instead of two varints a
//! run. Like `04`, the writer uses it only in XBF files.

use crate::error::Result;
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;

use super::cursor::Cursor;
use super::ints::{self, Int, Lane};

/// The encoding byte.
/// Columns shorter than this are left to the plain encodings.
const MIN_VALUES: usize = 1024;

/// The body (encoding byte included) of `values` as cascaded runs, if the
/// file writer enabled it and it is smaller than `than` bytes.
pub(crate) fn encode<T: Int>(values: &[T], than: usize) -> Option<Vec<u8>> {
    if !super::entropy::enabled() || values.len() < MIN_VALUES {
        return None;
    }
    let mut lens: Vec<u64> = Vec::new();
    let mut vals: Vec<u128> = Vec::new();
    for v in values {
        let v = v.wide();
        match vals.last() {
            Some(&last) if last == v => *lens.last_mut().expect("a run") += 1,
            _ => {
                // Runs of one or two values on average leave nothing to gain.
                if 2 * (vals.len() + 1) > values.len() {
                    return None;
                }
                vals.push(v);
                lens.push(1);
            }
        }
    }
    let lens_block = ints::Planned::no_runs(&lens);
    let vals_block = ints::Planned::no_runs(&vals);
    let size = 1 + varint::len(vals.len() as u128) + lens_block.block_size() + vals_block.block_size();
    if size >= than {
        return None;
    }
    let mut out = Vec::with_capacity(size);
    out.push(E::Runs.byte());
    varint::put(&mut out, vals.len() as u128);
    lens_block.write_block(&mut out);
    vals_block.write_block(&mut out);
    debug_assert_eq!(out.len(), size);
    Some(out)
}

/// Reads the payload of a cascaded-runs column of `n` values (the encoding
/// byte was read) into `out`.
pub(crate) fn decode<T: Lane>(c: &mut Cursor<'_>, n: u64, max_bits: u32, out: &mut Vec<T>) -> Result<()> {
    let at = c.offset();
    let k = c.varint(64)? as u64;
    if k == 0 || k > n {
        return Err(c.invalid(at, format!("{k} runs for a column of {n} values")));
    }
    // k is at most n, which the decoder's budget already paid for; the
    // blocks may take no bits a run (frames of reference of width 0).
    let lens: Vec<u64> = inner(c, k, 64)?;
    let lens_at = c.offset();
    let vals: Vec<u128> = inner(c, k, max_bits)?;
    let mut total: u64 = 0;
    for &l in &lens {
        if l == 0 {
            return Err(c.invalid(lens_at, "a run of length 0".into()));
        }
        total = total.saturating_add(l);
    }
    if total != n {
        return Err(c.invalid(lens_at, format!("runs of {total} values for a column of {n}")));
    }
    for (&l, &v) in lens.iter().zip(&vals) {
        out.extend(std::iter::repeat(T::lane(v)).take(l as usize));
    }
    Ok(())
}

/// A length-prefixed integer block inside a runs column: any encoding but
/// `05` itself, so that runs do not nest.
fn inner<T: Lane>(c: &mut Cursor<'_>, n: u64, max_bits: u32) -> Result<Vec<T>> {
    let mut block = c.block()?;
    let at = block.offset();
    if block.clone_first_byte() == E::Runs.byte() {
        return Err(block.invalid(at, "runs inside a runs column".into()));
    }
    let v = ints::decode::<T>(&mut block, n, max_bits)?;
    block.finish("integer block")?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn sorted_minutes_round_trip_small() {
        let values: Vec<u128> = (0..20_000u128).map(|i| 1_000_000 + i / 3 * 2 + i / 7).collect();
        let _on = super::super::entropy::Enabled::new();
        let plain = ints::Planned::no_runs(&values).size();
        let body = encode(&values, usize::MAX).expect("runs");
        assert!(body.len() * 3 < plain * 2, "{} vs {plain}", body.len());
        let mut c = Cursor::new(&body, 0).in_file();
        assert_eq!(c.u8().unwrap(), E::Runs.byte());
        let mut out: Vec<u128> = Vec::new();
        decode(&mut c, values.len() as u64, 64, &mut out).unwrap();
        assert!(c.at_end());
        assert_eq!(out, values);
        // Runs that do not add up, and runs in runs.
        for (bytes, n) in [(&[0x01, 0x02, 0x00, 0x03, 0x02, 0x00, 0x09][..], 4u64), (&[0x00][..], 1)] {
            let mut c = Cursor::new(bytes, 0).in_file();
            let err = decode::<u128>(&mut c, n, 64, &mut Vec::new()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidColumn, "{err}");
        }
        // SPEC.md §22.2.3's example.
        let example = [0x03, 0x04, 0x00, 0x03, 0x02, 0x01, 0x04, 0x00, 0x04, 0x06, 0x09];
        let mut c = Cursor::new(&example, 0).in_file();
        let mut out: Vec<u128> = Vec::new();
        decode(&mut c, 6, 64, &mut out).unwrap();
        assert_eq!(out, [4, 4, 4, 6, 6, 9]);
        let nested = [0x01, 0x03, 0x05, 0x01, 0x00, 0x02, 0x00, 0x09];
        let mut c = Cursor::new(&nested, 0).in_file();
        assert!(decode::<u128>(&mut c, 1, 64, &mut Vec::new()).is_err());
    }

    #[test]
    fn file_only_encodings_are_unknown_in_messages() {
        // The example of SPEC.md §22.2.3 with its encoding byte.
        let example = [E::Runs.byte(), 0x03, 0x04, 0x00, 0x03, 0x02, 0x01, 0x04, 0x00, 0x04, 0x06, 0x09];
        let mut c = Cursor::new(&example, 0);
        let e = ints::decode::<u64>(&mut c, 6, 64).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::UnknownDiscriminant);
        assert_eq!(e.offset(), Some(0));
        let mut c = Cursor::new(&example, 0).in_file();
        assert_eq!(ints::decode::<u64>(&mut c, 6, 64).unwrap(), [4, 4, 4, 6, 6, 9]);
    }
}
