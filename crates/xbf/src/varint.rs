//! XBF 2's integers: unsigned LEB128 and zigzag for signed values.

/// The most bytes a varint of 128 bits takes.
pub(crate) const MAX_LEN: usize = 19;

/// Writes `x` as LEB128 into `buf`; returns how many bytes it took.
#[inline]
pub(crate) fn encode(mut x: u128, buf: &mut [u8; MAX_LEN]) -> usize {
    let mut i = 0;
    while x >= 0x80 {
        buf[i] = (x as u8) | 0x80;
        x >>= 7;
        i += 1;
    }
    buf[i] = x as u8;
    i + 1
}

/// Zigzag: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
#[inline]
pub(crate) fn zigzag(x: i128) -> u128 {
    ((x << 1) ^ (x >> 127)) as u128
}

/// The inverse of [`zigzag`].
#[inline]
pub(crate) fn unzigzag(u: u128) -> i128 {
    ((u >> 1) as i128) ^ -((u & 1) as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_encodings() {
        let mut buf = [0; MAX_LEN];
        for (x, want) in [
            (0u128, &[0x00][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (1024, &[0x80, 0x08]),
            (16_383, &[0xff, 0x7f]),
            (16_384, &[0x80, 0x80, 0x01]),
        ] {
            let n = encode(x, &mut buf);
            assert_eq!(&buf[..n], want, "{x}");
        }
        assert_eq!(encode(u128::MAX, &mut buf), MAX_LEN);
        assert_eq!(encode(u64::MAX.into(), &mut buf), 10);
    }

    #[test]
    fn zigzag_orders_by_magnitude() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(-2), 3);
        assert_eq!(zigzag(i128::MIN), u128::MAX);
        for x in [0, 1, -1, 63, -64, i128::MAX, i128::MIN, i64::MIN.into()] {
            assert_eq!(unzigzag(zigzag(x)), x);
        }
    }
}
