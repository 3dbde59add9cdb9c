//! Encoding metadata, values and messages, in v1 or XBF 2.
//!
//! A [`Value`] is checked against its type when it is built, so encoding a
//! value cannot fail; only a type can be out of a version's reach (v1 has no
//! options, maps, ...; it counts at most 65,535 struct fields), and writers
//! can fail.

use std::io::{self, Write};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::Metadata;
use crate::value::Value;
use crate::wire::{varint, Version, FLAG_COLUMNAR, FLAG_SCHEMA_REF, V2_MARKER};

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
    version: Version,
    schema_by_reference: bool,
    layout: Layout,
    column_zstd: Option<i32>,
    /// The bits of the absolute error bound for float columns (bits, so
    /// that the options stay `Eq`); `None`: floats exactly.
    float_tolerance: Option<u64>,
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

    /// Encodes a whole message: header (XBF 2), metadata, then the value.
    pub fn encode_message(&self, value: &Value) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_message(&mut out, value)?;
        Ok(out)
    }

    /// Writes a whole message to `writer` (wrap files and sockets in an
    /// [`io::BufWriter`]: values are written a field at a time).
    pub fn write_message<W: Write>(&self, writer: W, value: &Value) -> Result<()> {
        self.write_typed(writer, &value.metadata(), value)
    }

    fn write_typed<W: Write>(&self, writer: W, ty: &Metadata, value: &Value) -> Result<()> {
        self.check_type(ty)?;
        if self.version == Version::V1 && (self.schema_by_reference || self.layout == Layout::Columnar) {
            return Err(Error::new(ErrorKind::Unsupported, "XBF v1 has neither schema references nor columns"));
        }
        if let Some(t) = self.float_tolerance.map(f64::from_bits) {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("a float tolerance must be a positive finite number, not {t}"),
                ));
            }
        }
        let columnar = match self.layout {
            Layout::Rows => None,
            _ if self.version == Version::V1 => None,
            Layout::Columnar => Some(self.columnar(ty, value)),
            Layout::Auto if !crate::columnar::worth_trying(value) => None,
            // A long vec: a sample of its items tells, unless it is close.
            Layout::Auto => match self.sampled_choice(ty, value) {
                Some(Layout::Rows) => None,
                Some(_) => return writer_all(writer, &self.columnar(ty, value)),
                None => Some(self.columnar(ty, value)),
            },
        };
        let mut writer = writer;
        if let Some(columns) = columnar {
            if self.layout == Layout::Columnar {
                return writer.write_all(&columns).map_err(write_err);
            }
            let mut rows = Encoder::new(Vec::new(), self.version);
            rows.message_head(ty, self.schema_by_reference, 0).map_err(write_err)?;
            rows.value(value, ty).map_err(write_err)?;
            let smaller = if columns.len() < rows.w.len() { &columns } else { &rows.w };
            return writer.write_all(smaller).map_err(write_err);
        }
        let mut enc = Encoder::new(writer, self.version);
        enc.message_head(ty, self.schema_by_reference, 0).map_err(write_err)?;
        enc.value(value, ty).map_err(write_err)
    }

    /// For `Layout::Auto` and a vec of more than 8,192 items: the layout
    /// that four runs of 256 items, spread over the vec, come out smaller in,
    /// if one is smaller by more than 15%; `None` otherwise (then both
    /// layouts are written and compared).
    fn sampled_choice(&self, ty: &Metadata, value: &Value) -> Option<Layout> {
        let (Metadata::Vec(ety), Value::Vec(v)) = (ty, value) else { return None };
        let items = v.items();
        const RUN: usize = 256;
        const RUNS: usize = 4;
        if items.len() <= 8192 {
            return None;
        }
        let sample: Vec<&Value> = (0..RUNS)
            .flat_map(|j| {
                let start = j * (items.len() - RUN) / (RUNS - 1);
                items[start..start + RUN].iter()
            })
            .collect();
        let mut cols = Vec::new();
        crate::columnar::encode(ety, &sample, &mut cols, &self.column_config());
        let mut rows = Encoder::new(Vec::new(), Version::V2);
        for item in &sample {
            rows.value(item, ety).expect("writing to a Vec cannot fail");
        }
        let (c, r) = (cols.len() as f64, rows.w.len() as f64);
        if c < r * 0.85 {
            Some(Layout::Columnar)
        } else if c > r * 1.15 {
            Some(Layout::Rows)
        } else {
            None
        }
    }

    pub(crate) fn column_config(&self) -> crate::columnar::ColumnConfig {
        crate::columnar::ColumnConfig {
            zstd_level: self.column_zstd,
            float_tolerance: self.float_tolerance.map(f64::from_bits),
        }
    }

    /// The whole columnar message of `value`.
    fn columnar(&self, ty: &Metadata, value: &Value) -> Vec<u8> {
        let mut head = Encoder::new(Vec::new(), Version::V2);
        head.message_head(ty, self.schema_by_reference, FLAG_COLUMNAR).expect("writing to a Vec cannot fail");
        let mut out = head.w;
        crate::columnar::encode(ty, &[value], &mut out, &self.column_config());
        out
    }

    /// Encodes a whole message whose type is `ty`, which `value` must be of:
    /// for writing a root integer fixed-width (`fixed-u64`), which the
    /// value's own type, the varint form, does not say.
    pub fn encode_typed_message(&self, ty: &Metadata, value: &Value) -> Result<Vec<u8>> {
        if !value.conforms_to(ty) {
            return Err(Error::new(ErrorKind::TypeMismatch, format!("expected {ty}, found {}", value.metadata())));
        }
        let mut out = Vec::new();
        self.write_typed(&mut out, ty, value)?;
        Ok(out)
    }

    /// The columnar message of the value gathered in `columns` (always
    /// columns, whatever [`layout`](EncodeOptions::layout) says): the same
    /// bytes as [`encode_typed_message`](EncodeOptions::encode_typed_message)
    /// with [`Layout::Columnar`] on that value. Fails with `type-mismatch` if
    /// the nodes' counts disagree (a struct's fields pushed unequally, a
    /// vec's items fewer than its lengths say, no root value, ...).
    pub fn encode_columns(&self, columns: crate::columnar::Columns) -> Result<Vec<u8>> {
        let ty = columns.metadata().clone();
        self.check_type(&ty)?;
        if self.version == Version::V1 {
            return Err(Error::new(ErrorKind::Unsupported, "XBF v1 has neither schema references nor columns"));
        }
        if let Some(t) = self.float_tolerance.map(f64::from_bits) {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("a float tolerance must be a positive finite number, not {t}"),
                ));
            }
        }
        let mut head = Encoder::new(Vec::new(), Version::V2);
        head.message_head(&ty, self.schema_by_reference, FLAG_COLUMNAR).expect("writing to a Vec cannot fail");
        let mut out = head.w;
        columns.write(&mut out, &self.column_config())?;
        Ok(out)
    }

    /// Encodes metadata alone (no header).
    pub fn encode_metadata(&self, ty: &Metadata) -> Result<Vec<u8>> {
        self.check_type(ty)?;
        let mut enc = Encoder::new(Vec::new(), self.version);
        enc.metadata(ty).map_err(write_err)?;
        Ok(enc.w)
    }

    /// Encodes a value alone, without header or metadata (the "data only"
    /// form, for a reader that already holds the type; see
    /// [`DecodeOptions::decode_value`](crate::DecodeOptions::decode_value)).
    pub fn encode_value(&self, value: &Value) -> Result<Vec<u8>> {
        let ty = value.metadata();
        self.check_type(&ty)?;
        let mut enc = Encoder::new(Vec::new(), self.version);
        enc.value(value, &ty).map_err(write_err)?;
        Ok(enc.w)
    }
}

fn writer_all<W: Write>(mut writer: W, bytes: &[u8]) -> Result<()> {
    writer.write_all(bytes).map_err(write_err)
}

fn write_err(e: io::Error) -> Error {
    Error::from(e)
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

pub(crate) struct Encoder<W> {
    pub(crate) w: W,
    v2: bool,
}

impl<W: Write> Encoder<W> {
    pub(crate) fn new(w: W, version: Version) -> Self {
        Encoder { w, v2: version == Version::V2 }
    }

    /// For XBF 2 the header (with `extra_flags`) and the metadata or its
    /// fingerprint; for v1 the metadata alone.
    pub(crate) fn message_head(&mut self, ty: &Metadata, by_reference: bool, extra_flags: u8) -> io::Result<()> {
        if !self.v2 {
            return self.metadata(ty);
        }
        let flags = extra_flags | if by_reference { FLAG_SCHEMA_REF } else { 0 };
        self.w.write_all(&[V2_MARKER, flags])?;
        if by_reference {
            self.w.write_all(&crate::schema::fingerprint(ty))
        } else {
            self.metadata(ty)
        }
    }

    fn len(&mut self, n: usize) -> io::Result<()> {
        if self.v2 {
            self.uvarint(n as u128)
        } else {
            self.w.write_all(&(n as u64).to_le_bytes())
        }
    }

    fn uvarint(&mut self, x: u128) -> io::Result<()> {
        let mut buf = [0u8; varint::MAX_LEN];
        let n = varint::encode(x, &mut buf);
        self.w.write_all(&buf[..n])
    }

    fn str(&mut self, s: &str) -> io::Result<()> {
        self.len(s.len())?;
        self.w.write_all(s.as_bytes())
    }

    pub(crate) fn metadata(&mut self, ty: &Metadata) -> io::Result<()> {
        let mut bytes = Vec::new();
        ty.write_bytes(self.v2, &mut bytes);
        self.w.write_all(&bytes)
    }

    /// Whether an integer of type `ty` is written fixed-width.
    fn fixed(&self, ty: &Metadata) -> bool {
        !self.v2 || matches!(ty, Metadata::Primitive(p) if p.integer_type() != *p)
    }

    fn unsigned(&mut self, x: u128, le: &[u8], ty: &Metadata) -> io::Result<()> {
        if self.fixed(ty) {
            self.w.write_all(le)
        } else {
            self.uvarint(x)
        }
    }

    fn signed(&mut self, x: i128, le: &[u8], ty: &Metadata) -> io::Result<()> {
        if self.fixed(ty) {
            self.w.write_all(le)
        } else {
            self.uvarint(varint::zigzag(x))
        }
    }

    /// Writes `v`, of type `ty` (which only matters for how integers are
    /// written; composite values carry their members' types).
    pub(crate) fn value(&mut self, v: &Value, ty: &Metadata) -> io::Result<()> {
        match v {
            Value::Bool(x) => self.w.write_all(&[u8::from(*x)]),
            Value::U8(x) => self.w.write_all(&[*x]),
            Value::I8(x) => self.w.write_all(&x.to_le_bytes()),
            Value::U16(x) => self.unsigned((*x).into(), &x.to_le_bytes(), ty),
            Value::U32(x) => self.unsigned((*x).into(), &x.to_le_bytes(), ty),
            Value::U64(x) => self.unsigned((*x).into(), &x.to_le_bytes(), ty),
            Value::U128(x) => self.unsigned(*x, &x.to_le_bytes(), ty),
            Value::I16(x) => self.signed((*x).into(), &x.to_le_bytes(), ty),
            Value::I32(x) => self.signed((*x).into(), &x.to_le_bytes(), ty),
            Value::I64(x) => self.signed((*x).into(), &x.to_le_bytes(), ty),
            Value::I128(x) => self.signed(*x, &x.to_le_bytes(), ty),
            Value::U256(x) => self.w.write_all(&x.to_le_bytes()),
            Value::I256(x) => self.w.write_all(&x.to_le_bytes()),
            Value::F32(x) => self.w.write_all(&x.to_le_bytes()),
            Value::F64(x) => self.w.write_all(&x.to_le_bytes()),
            Value::Bytes(b) => {
                self.len(b.len())?;
                self.w.write_all(b)
            }
            Value::String(s) => self.str(s),
            Value::Unit => Ok(()),
            Value::Date(d) => self.uvarint(varint::zigzag((*d).into())),
            Value::Timestamp(t) => self.uvarint(varint::zigzag((*t).into())),
            Value::Vec(v) => {
                self.len(v.len())?;
                let elem = v.element_type();
                v.items().iter().try_for_each(|item| self.value(item, elem))
            }
            Value::Array(v) => {
                let elem = v.element_type();
                v.items().iter().try_for_each(|item| self.value(item, elem))
            }
            Value::Struct(s) => {
                let types = s.metadata().fields().map(|(_, t)| t);
                s.values().iter().zip(types).try_for_each(|(f, t)| self.value(f, t))
            }
            Value::Option(o) => match o.value() {
                None => self.w.write_all(&[0]),
                Some(inner) => {
                    self.w.write_all(&[1])?;
                    self.value(inner, o.inner_type())
                }
            },
            Value::Tuple(t) => t.items().iter().zip(t.types()).try_for_each(|(v, ty)| self.value(v, ty)),
            Value::Map(m) => {
                self.len(m.len())?;
                m.entries().iter().try_for_each(|(k, v)| {
                    self.value(k, m.key_type())?;
                    self.value(v, m.value_type())
                })
            }
            Value::Enum(e) => {
                self.len(e.index())?;
                let (_, pty) = e.metadata().variant_at(e.index()).expect("the index was checked");
                self.value(e.payload(), pty)
            }
            Value::Any(a) => {
                self.metadata(a.metadata())?;
                self.value(a.value(), a.metadata())
            }
        }
    }
}

/// Encodes a whole XBF 2 message: header, the value's metadata, the value.
///
/// ```
/// use xbf::{StructValue, Value};
///
/// let p = StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))]).unwrap();
/// let bytes = xbf::encode_message(&p.into()).unwrap();
/// assert_eq!(bytes.len(), 25);
/// assert_eq!(&bytes[23..], &[0x2a, 0xfb]);
/// ```
pub fn encode_message(value: &Value) -> Result<Vec<u8>> {
    EncodeOptions::default().encode_message(value)
}

/// Writes a whole XBF 2 message to `writer`.
pub fn write_message<W: Write>(writer: W, value: &Value) -> Result<()> {
    EncodeOptions::default().write_message(writer, value)
}
