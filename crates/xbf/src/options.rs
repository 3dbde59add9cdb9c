//! The options of decoding and encoding: limits, version, layout, and the
//! constants that bound them. They are
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
/// # The options convention
///
/// [`DecodeOptions`] and [`EncodeOptions`] follow one scheme: the fields are
/// private; a setter named after the option takes `self` and returns the
/// options (`Result<Self>` when the option has a range, checked there and
/// then, so that an options value that exists is a valid one and no
/// reader or writer checks it again); a getter is the option's name with
/// `get_` (the setter holds the bare name).
///
/// ```
/// use xbf::{DecodeOptions, ErrorKind};
///
/// // A v1 message: 3 nested vecs of u8, with a depth limit of 2.
/// let msg = [0x11, 0x11, 0x11, 0x01, 0, 0, 0, 0, 0, 0, 0, 0];
/// let opts = DecodeOptions::default().max_depth(2)?;
/// assert_eq!(opts.get_max_depth(), 2);
/// assert_eq!(opts.decode_message(&msg).unwrap_err().kind(), ErrorKind::TooDeep);
/// assert!(xbf::decode_message(&msg).is_ok());
/// // A limit past the maximum is refused when the options are built.
/// let e = DecodeOptions::default().max_depth(xbf::options::MAX_DEPTH_CEILING + 1).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::InvalidOptions);
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DecodeOptions {
    /// See [`DecodeOptions::max_depth`].
    pub(crate) max_depth: usize,
    /// See [`DecodeOptions::schemas`].
    pub(crate) schemas: Arc<SchemaRegistry>,
    /// See [`DecodeOptions::max_decoded_bytes`].
    pub(crate) max_decoded_bytes: u64,
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

/// The most levels [`DecodeOptions::max_depth`] accepts, as many as
/// `json::MAX_DEPTH_CEILING` lets a JSON conversion make.
/// Decoding recurses once per level; this many fit in a 4 MiB thread stack
/// (half a main thread's 8 MiB; a spawned Rust thread has 2 MiB) even in a
/// debug build, in rows and in columns (measured by the test
/// `deepest_allowed_message_fits_a_small_stack` in `tests/hostile.rs`).
pub const MAX_DEPTH_CEILING: usize = 256;

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
    /// Sets the levels of nesting allowed (each vec, struct, option, array,
    /// tuple, map and enum is one; the outermost is level 1); deeper input
    /// fails with `too-deep`. Range: 0 (primitives only) to
    /// [`MAX_DEPTH_CEILING`] (256); past it, `invalid-options`. Default:
    /// [`DEFAULT_MAX_DEPTH`] (128).
    pub fn max_depth(mut self, levels: usize) -> Result<Self> {
        if levels > MAX_DEPTH_CEILING {
            return Err(invalid(format!("max_depth {levels} is more than the ceiling of {MAX_DEPTH_CEILING} levels")));
        }
        self.max_depth = levels;
        Ok(self)
    }

    /// The levels of nesting allowed (see [`max_depth`](Self::max_depth)).
    pub fn get_max_depth(&self) -> usize {
        self.max_depth
    }

    /// Sets the decoded-memory budget of one message, or of one block of a
    /// record stream (SPEC.md §16.2): every value the input cannot bound
    /// costs [`DECODED_VALUE_BYTES`] (48) bytes, and every byte that a
    /// string dictionary, shared prefixes or zstd makes costs one. In rows
    /// these are the zero-size values (unit, empty structs, vecs of them);
    /// in columns, every value of every node. Passing it is `too-large`,
    /// checked before anything is allocated for what the count or length
    /// announces. Range: any value from 0 (no zero-size value in rows, no
    /// columnar message) to `u64::MAX`. Default:
    /// [`DEFAULT_MAX_DECODED_BYTES`] (2^30, 1 GiB).
    ///
    /// ```
    /// use xbf::{DecodeOptions, ErrorKind};
    ///
    /// // vec<unit> of 65,537 units: 3,145,776 bytes of budget.
    /// let msg = [0xc2, 0x00, 0x11, 0x13, 0x81, 0x80, 0x04];
    /// assert_eq!(xbf::decode_message(&msg)?.as_vec().map(|v| v.len()), Some(65_537));
    /// let small = DecodeOptions::default().max_decoded_bytes(65_536 * xbf::options::DECODED_VALUE_BYTES);
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

    /// The decoded-memory budget (see [`max_decoded_bytes`](Self::max_decoded_bytes)).
    pub fn get_max_decoded_bytes(&self) -> u64 {
        self.max_decoded_bytes
    }

    /// Sets the types known by fingerprint, for XBF 2 messages that send a
    /// schema by reference. Default: none.
    pub fn schemas(mut self, schemas: impl Into<Arc<SchemaRegistry>>) -> Self {
        self.schemas = schemas.into();
        self
    }

    /// The types known by fingerprint (see [`schemas`](Self::schemas)).
    pub fn get_schemas(&self) -> &Arc<SchemaRegistry> {
        &self.schemas
    }
}

/// An `invalid-options` error.
fn invalid(detail: String) -> Error {
    Error::new(ErrorKind::InvalidOptions, detail)
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
/// to use (rows or columns, by default whichever is smaller). Built and
/// read as [`DecodeOptions`] describes: private fields, setters named
/// after the option (returning `Result<Self>` where the option has a
/// range), getters with `get_`.
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

/// The zstd levels [`EncodeOptions::compress_columns`] accepts: zstd's own
/// range, from its fastest negative levels to 22 (0 is zstd's default, 3).
pub const ZSTD_LEVELS: std::ops::RangeInclusive<i32> = -(1 << 17)..=22;

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
    /// Default: `false`.
    pub fn schema_by_reference(mut self, yes: bool) -> Self {
        self.schema_by_reference = yes;
        self
    }

    /// Whether these options send the schema's fingerprint (see
    /// [`schema_by_reference`](Self::schema_by_reference)).
    pub fn get_schema_by_reference(&self) -> bool {
        self.schema_by_reference
    }

    /// XBF 2 only: the layout of the value (default [`Layout::Auto`]).
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// The layout these options write (see [`layout`](Self::layout)).
    pub fn get_layout(&self) -> Layout {
        self.layout
    }

    /// Columnar layout only: compress each column with zstd at `level`
    /// where that makes it smaller (a reader then needs xbf's `zstd`
    /// feature). `None`, the default, writes no compressed column. Range:
    /// [`ZSTD_LEVELS`]; another level is `invalid-options`.
    pub fn compress_columns(mut self, level: Option<i32>) -> Result<Self> {
        if let Some(l) = level.filter(|l| !ZSTD_LEVELS.contains(l)) {
            return Err(invalid(format!("zstd level {l} is outside {}..={}", ZSTD_LEVELS.start(), ZSTD_LEVELS.end())));
        }
        self.column_zstd = level;
        Ok(self)
    }

    /// The zstd level of the columns (see [`compress_columns`](Self::compress_columns)).
    pub fn get_compress_columns(&self) -> Option<i32> {
        self.column_zstd
    }

    /// Columnar layout only, lossy: lets the writer round each value of a
    /// float column (f32 and f64) to a short decimal within `tolerance` of
    /// it, an absolute error bound, so that the column takes the decimal
    /// encoding. Every decoded float is then within `tolerance` of the
    /// original; NaN, infinities, zeros and values that no decimal of at
    /// most 18 digits after the point (10 for f32) brings within the bound
    /// stay exactly as they are. Floats written in rows stay exact. `None`,
    /// the default, writes every float exactly. Range: a positive finite
    /// number; zero, a negative number, NaN or an infinity is
    /// `invalid-options`.
    ///
    /// ```
    /// use xbf::{EncodeOptions, ErrorKind, Layout, Metadata, PrimitiveType, Value, VecValue};
    ///
    /// let walk: Vec<f64> = (0..100).map(|i| 20.0 + (f64::from(i) * 0.7).sin()).collect();
    /// let items = walk.iter().map(|&x| Value::F64(x)).collect();
    /// let v = Value::Vec(VecValue::new(Metadata::Primitive(PrimitiveType::F64), items)?);
    /// let cols = EncodeOptions::v2().layout(Layout::Columnar);
    /// let exact = cols.clone().encode_message(&v)?;
    /// let lossy = cols.clone().float_tolerance(Some(0.005))?.encode_message(&v)?;
    /// assert!(lossy.len() < exact.len() / 3);
    /// let back = xbf::decode_message(&lossy)?;
    /// for (b, w) in back.as_vec().unwrap().items().iter().zip(&walk) {
    ///     assert!((b.as_f64().unwrap() - w).abs() <= 0.005);
    /// }
    /// assert_eq!(cols.float_tolerance(Some(-1.0)).unwrap_err().kind(), ErrorKind::InvalidOptions);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn float_tolerance(mut self, tolerance: Option<f64>) -> Result<Self> {
        if let Some(t) = tolerance.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(invalid(format!("a float tolerance must be a positive finite number, not {t}")));
        }
        self.float_tolerance = tolerance.map(f64::to_bits);
        Ok(self)
    }

    /// The float tolerance (see [`float_tolerance`](Self::float_tolerance)).
    pub fn get_float_tolerance(&self) -> Option<f64> {
        self.float_tolerance.map(f64::from_bits)
    }

    /// The version these options write.
    pub fn get_version(&self) -> Version {
        self.version
    }

    /// The version these options write.
    #[deprecated(note = "renamed `get_version`, as every getter of the options")]
    pub fn version(&self) -> Version {
        self.version
    }

    /// Whether these options write columns.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_options_out_of_range_are_refused_when_built() {
        for level in [*ZSTD_LEVELS.start() - 1, 23, i32::MAX, i32::MIN] {
            let e = EncodeOptions::v2().compress_columns(Some(level)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidOptions, "{level}");
        }
        for level in [None, Some(-5), Some(0), Some(3), Some(22)] {
            assert_eq!(EncodeOptions::v2().compress_columns(level).unwrap().get_compress_columns(), level);
        }
        let o = EncodeOptions::v2().float_tolerance(Some(0.5)).unwrap();
        assert_eq!(o.get_float_tolerance(), Some(0.5));
        assert_eq!(o.float_tolerance(None).unwrap().get_float_tolerance(), None);
    }

    /// `ZSTD_LEVELS` is zstd's own range.
    #[cfg(feature = "zstd")]
    #[test]
    fn zstd_levels_are_zstds() {
        assert_eq!(ZSTD_LEVELS, zstd::compression_level_range());
    }
}
