//! The options of decoding and encoding: limits, version, layout. They are
//! plain values, built once and passed by reference to every reader and
//! writer; what they do is in the modules that read and write.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::Metadata;
use crate::schema::SchemaRegistry;
use crate::value::Value;
use crate::wire::Version;

/// Limits and switches for decoding; `DecodeOptions::default()` is what the
/// free functions such as [`decode_message`](crate::decode_message) use.
///
/// ```
/// use xbf::{DecodeOptions, ErrorKind};
///
/// // A v1 message: 3 nested vecs of u8, with a depth limit of 2.
/// let msg = [0x11, 0x11, 0x11, 0x01, 0, 0, 0, 0, 0, 0, 0, 0];
/// let opts = DecodeOptions::default().max_depth(2);
/// assert_eq!(opts.decode_message(&msg).unwrap_err().kind(), ErrorKind::TooDeep);
/// assert!(xbf::decode_message(&msg).is_ok());
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Levels of nesting allowed (each vec, struct, option, array, tuple,
    /// map and enum is one; the outermost is level 1). Default: 128.
    ///
    /// Decoding recurses once per level, so raise this with care: each
    /// level takes a few hundred bytes of the thread's stack (some
    /// thousands of levels fit in a main thread's 8 MiB; 100,000 do not).
    pub max_depth: usize,
    /// The types known by fingerprint, for XBF 2 messages that send a
    /// schema by reference. Default: none.
    pub schemas: Arc<SchemaRegistry>,
    /// The decoded-memory budget of one message, or of one block of a
    /// record stream (SPEC.md §16.2): every value the input cannot bound
    /// costs [`DECODED_VALUE_BYTES`] (48) bytes, and every byte that a
    /// string dictionary, shared prefixes or zstd makes costs one. In rows
    /// these are the zero-size values (unit, empty structs, vecs of them);
    /// in columns, every value of every node. Passing it is `too-large`,
    /// checked before anything is allocated for what the count or length
    /// announces. Default: 2^30 (1 GiB); any value from 0 to `u64::MAX`.
    pub max_decoded_bytes: u64,
}

/// What one decoded value costs against
/// [`DecodeOptions::max_decoded_bytes`]: the size of a [`Value`], the form
/// the dynamic decoder makes (SPEC.md §16.2 fixes it for every
/// implementation, so that all refuse the same inputs).
pub const DECODED_VALUE_BYTES: u64 = 48;
// The figure is fixed by the specification; on 64-bit targets it is also
// exactly what a `Value` takes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Value>() as u64 == DECODED_VALUE_BYTES);

/// The default of [`DecodeOptions::max_decoded_bytes`]: 1 GiB.
pub const DEFAULT_MAX_DECODED_BYTES: u64 = 1 << 30;

/// The default of [`DecodeOptions::max_depth`]: the levels every reader
/// allows (SPEC.md §16.1), so the most that writers may produce when they
/// infer a type.
pub const DEFAULT_MAX_DEPTH: usize = 128;

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            schemas: Arc::new(SchemaRegistry::new()),
            max_decoded_bytes: DEFAULT_MAX_DECODED_BYTES,
        }
    }
}

impl DecodeOptions {
    /// Sets [`max_depth`](Self::max_depth).
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// Sets [`max_decoded_bytes`](Self::max_decoded_bytes).
    ///
    /// ```
    /// use xbf::{DecodeOptions, ErrorKind};
    ///
    /// // vec<unit> of 65,537 units: 3,145,776 bytes of budget.
    /// let msg = [0xc2, 0x00, 0x11, 0x13, 0x81, 0x80, 0x04];
    /// assert_eq!(xbf::decode_message(&msg)?.as_vec().map(|v| v.len()), Some(65_537));
    /// let small = DecodeOptions::default().max_decoded_bytes(65_536 * xbf::DECODED_VALUE_BYTES);
    /// assert_eq!(small.decode_message(&msg).unwrap_err().kind(), ErrorKind::TooLarge);
    /// // 2^40 units are refused at their count, with nothing allocated.
    /// let bomb = [0xc2, 0x00, 0x11, 0x13, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20];
    /// assert_eq!(xbf::decode_message(&bomb).unwrap_err().kind(), ErrorKind::TooLarge);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn max_decoded_bytes(mut self, bytes: u64) -> Self {
        self.max_decoded_bytes = bytes;
        self
    }

    /// Sets the [`schemas`](Self::schemas) known by fingerprint.
    pub fn schemas(mut self, schemas: impl Into<Arc<SchemaRegistry>>) -> Self {
        self.schemas = schemas.into();
        self
    }
}

/// How an XBF 2 message lays out its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Layout {
    /// Columns when the value holds enough repeated items to try them and
    /// they come out smaller; rows otherwise.
    #[default]
    Auto,
    /// The value as it is, field after field (section 13 of SPEC.md).
    Rows,
    /// One column per path of the type, each with its own encoding
    /// (SPEC.md, "Columnar layout").
    Columnar,
}

/// How to encode: the version (XBF 2 by default) and, for XBF 2, whether
/// to send the schema's fingerprint instead of the schema and which layout
/// to use (rows or columns, by default whichever is smaller).
///
/// ```
/// use xbf::{EncodeOptions, Value};
///
/// let v1 = EncodeOptions::v1().encode_message(&Value::U16(1024))?;
/// assert_eq!(v1, [0x02, 0x00, 0x04]);
/// let v2 = xbf::encode_message(&Value::U16(1024))?;
/// assert_eq!(v2, [0xc2, 0x00, 0x02, 0x80, 0x08]);
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    pub(crate) version: Version,
    pub(crate) schema_by_reference: bool,
    pub(crate) layout: Layout,
    pub(crate) column_zstd: Option<i32>,
    /// The bits of the absolute error bound for float columns (bits, so
    /// that the options stay `Eq`); `None`: floats exactly.
    pub(crate) float_tolerance: Option<u64>,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions::v2()
    }
}

impl EncodeOptions {
    /// XBF v1, the paper's format.
    pub fn v1() -> Self {
        EncodeOptions {
            version: Version::V1,
            schema_by_reference: false,
            layout: Layout::Rows,
            column_zstd: None,
            float_tolerance: None,
        }
    }

    /// XBF 2 with the schema inline.
    pub fn v2() -> Self {
        EncodeOptions {
            version: Version::V2,
            schema_by_reference: false,
            layout: Layout::Auto,
            column_zstd: None,
            float_tolerance: None,
        }
    }

    /// XBF 2 only: send the schema's 8-byte fingerprint instead of the
    /// schema, for a reader that already holds it (see [`crate::SchemaRegistry`]).
    pub fn schema_by_reference(mut self, yes: bool) -> Self {
        self.schema_by_reference = yes;
        self
    }

    /// XBF 2 only: the layout of the value (default [`Layout::Auto`]).
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// Columnar layout only: compress each column with zstd at `level`
    /// where that makes it smaller (a reader then needs xbf's `zstd`
    /// feature). `None`, the default, writes no compressed column.
    pub fn compress_columns(mut self, level: Option<i32>) -> Self {
        self.column_zstd = level;
        self
    }

    /// Columnar layout only, lossy: lets the writer round each value of a
    /// float column (f32 and f64) to a short decimal within `tolerance` of
    /// it, an absolute error bound, so that the column takes the decimal
    /// encoding. Every decoded float is then within `tolerance` of the
    /// original; NaN, infinities, zeros and values that no decimal of at
    /// most 18 digits after the point (10 for f32) brings within the bound
    /// stay exactly as they are. Floats written in rows stay exact. `None`,
    /// the default, writes every float exactly. A tolerance that is not a
    /// positive finite number fails the encode with `unsupported`.
    ///
    /// ```
    /// use xbf::{EncodeOptions, Layout, Metadata, PrimitiveType, Value, VecValue};
    ///
    /// let walk: Vec<f64> = (0..100).map(|i| 20.0 + (f64::from(i) * 0.7).sin()).collect();
    /// let items = walk.iter().map(|&x| Value::F64(x)).collect();
    /// let v = Value::Vec(VecValue::new(Metadata::Primitive(PrimitiveType::F64), items)?);
    /// let cols = EncodeOptions::v2().layout(Layout::Columnar);
    /// let exact = cols.clone().encode_message(&v)?;
    /// let lossy = cols.float_tolerance(Some(0.005)).encode_message(&v)?;
    /// assert!(lossy.len() < exact.len() / 3);
    /// let back = xbf::decode_message(&lossy)?;
    /// for (b, w) in back.as_vec().unwrap().items().iter().zip(&walk) {
    ///     assert!((b.as_f64().unwrap() - w).abs() <= 0.005);
    /// }
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn float_tolerance(mut self, tolerance: Option<f64>) -> Self {
        self.float_tolerance = tolerance.map(f64::to_bits);
        self
    }

    /// The version these options write.
    pub fn version(&self) -> Version {
        self.version
    }

    /// Whether these options send the schema's fingerprint.
    pub(crate) fn is_columnar(&self) -> bool {
        self.version == Version::V2 && self.layout == Layout::Columnar
    }

    pub(crate) fn by_reference(&self) -> bool {
        self.schema_by_reference
    }

    /// Fails unless `ty` can be written in this version.
    pub fn check_type(&self, ty: &Metadata) -> Result<()> {
        match self.version {
            Version::V1 => check_v1(ty),
            Version::V2 => Ok(()),
        }
    }
}

/// Checks that every type in `ty` exists in v1 and every struct fits v1's
/// 16-bit field count, so that a failure happens before any byte is written.
fn check_v1(ty: &Metadata) -> Result<()> {
    match ty {
        Metadata::Primitive(p) if p.is_v1() => Ok(()),
        Metadata::Vec(elem) => check_v1(elem),
        Metadata::Struct(s) => {
            if s.len() > usize::from(u16::MAX) {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!("struct {} has {} fields; v1 counts at most 65535", s.name(), s.len()),
                ));
            }
            s.fields().try_for_each(|(_, m)| check_v1(m))
        }
        other => Err(Error::new(ErrorKind::Unsupported, format!("XBF v1 has no type {other}"))),
    }
}
