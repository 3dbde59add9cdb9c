//! The output side of the derive path: values written straight into a
//! buffer, in the same bytes as the dynamic and serde encoders.

use crate::wire::varint;

/// Where [`Encode`](crate::fast::Encode) impls write a value; made by
/// [`to_vec`](crate::fast::to_vec).
pub struct Writer {
    pub(crate) buf: Vec<u8>,
    pub(crate) v2: bool,
}

impl Writer {
    /// Reserves room for at least `additional` more bytes.
    #[inline]
    pub fn reserve(&mut self, additional: usize) {
        self.buf.reserve(additional);
    }

    /// Whether the message is XBF 2 (varints) rather than v1.
    #[inline]
    pub fn is_v2(&self) -> bool {
        self.v2
    }

    #[inline]
    fn varint(&mut self, x: u64) {
        varint::put_u64(&mut self.buf, x);
    }

    #[inline]
    fn varint128(&mut self, x: u128) {
        varint::put(&mut self.buf, x);
    }

    /// A `u8` or `i8` (as its two's complement byte).
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// A bool: `00` or `01`.
    #[inline]
    pub fn bool(&mut self, b: bool) {
        self.buf.push(u8::from(b));
    }

    /// An unsigned integer of the type `bytes` wide: a varint in XBF 2, LE
    /// in v1.
    #[inline]
    pub fn unsigned(&mut self, x: u64, bytes: usize) {
        if self.v2 {
            self.varint(x)
        } else {
            self.buf.extend_from_slice(&x.to_le_bytes()[..bytes])
        }
    }

    /// A signed integer of the type `bytes` wide: zigzag and a varint in
    /// XBF 2, two's complement LE in v1.
    #[inline]
    pub fn signed(&mut self, x: i64, bytes: usize) {
        if self.v2 {
            self.varint(varint::zigzag64(x))
        } else {
            self.buf.extend_from_slice(&x.to_le_bytes()[..bytes])
        }
    }

    /// A `u128`.
    #[inline]
    pub fn u128(&mut self, x: u128) {
        if self.v2 {
            self.varint128(x)
        } else {
            self.buf.extend_from_slice(&x.to_le_bytes())
        }
    }

    /// An `i128`.
    #[inline]
    pub fn i128(&mut self, x: i128) {
        if self.v2 {
            self.varint128(varint::zigzag(x))
        } else {
            self.buf.extend_from_slice(&x.to_le_bytes())
        }
    }

    /// An `f32`, its bits LE.
    #[inline]
    pub fn f32(&mut self, x: f32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }

    /// An `f64`, its bits LE.
    #[inline]
    pub fn f64(&mut self, x: f64) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }

    /// A length or count: a varint in XBF 2, u64 LE in v1.
    #[inline]
    pub fn len(&mut self, n: usize) {
        if self.v2 {
            self.varint(n as u64)
        } else {
            self.buf.extend_from_slice(&(n as u64).to_le_bytes())
        }
    }

    /// A string: its length, then its UTF-8 bytes.
    #[inline]
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// A bytes value: its length, then the bytes.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.buf.extend_from_slice(b);
    }

    /// An option's tag: `01` present, `00` absent.
    #[inline]
    pub fn tag(&mut self, present: bool) {
        self.buf.push(u8::from(present));
    }

    /// An enum's variant index.
    #[inline]
    pub fn variant(&mut self, index: usize) {
        self.len(index);
    }
}
