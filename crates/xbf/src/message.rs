//! Whole messages of the `Value` API: the header and metadata, then the
//! value in rows (`rows`) or columns (`columnar`), whichever the header
//! says on reading and the [`Layout`] asks for on writing.

use std::io::{self, Write};

use crate::columnar;
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::Metadata;
use crate::options::{DecodeOptions, EncodeOptions, Layout};
use crate::rows::input::{Input, IoInput, SliceInput};
use crate::rows::value_read::Decoder;
use crate::rows::value_write::Encoder;
use crate::value::Value;
use crate::wire::{Version, FLAG_COLUMNAR, V2_MARKER};

impl DecodeOptions {
    /// Decodes only the struct fields that `paths` name (dotted, through
    /// vecs, arrays and options: `features.properties.mag`); the value's
    /// type keeps just those fields. A columnar message's other columns are
    /// skipped without being read; a row message is decoded whole first.
    ///
    /// ```
    /// # #[cfg(feature = "json")] {
    /// use xbf::{DecodeOptions, EncodeOptions, Layout};
    ///
    /// let rows = xbf::json::from_json_str(r#"[{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]"#)?;
    /// let bytes = EncodeOptions::v2().layout(Layout::Columnar).encode_message(&rows)?;
    /// let only_a = DecodeOptions::default().decode_projected(&bytes, &["a"])?;
    /// assert_eq!(only_a.metadata().to_string(), "vec<struct Object { a: u64 }>");
    /// # }
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn decode_projected<S: AsRef<str>>(&self, bytes: &[u8], paths: &[S]) -> Result<Value> {
        let sel = columnar::Selection::from_paths(paths);
        let mut d = Decoder::new(SliceInput::new(bytes), self, Version::V1);
        let (ty, value) = typed_message_with(&mut d, Some(&sel))?;
        d.finish()?;
        columnar::prune(&ty, value, &sel)
            .ok_or_else(|| Error::new(ErrorKind::TypeMismatch, "the paths select no struct field of the message"))
    }

    /// The columns of a columnar message: path, encoding and size of each.
    pub fn column_stats(&self, bytes: &[u8]) -> Result<Vec<columnar::ColumnStats>> {
        let mut d = Decoder::new(SliceInput::new(bytes), self, Version::V1);
        let first = d.input.u8()?;
        if first != V2_MARKER {
            return Err(Error::at(ErrorKind::Unsupported, 0, "only XBF 2 messages can be columnar"));
        }
        let header = d.header_after_marker()?;
        if header.flags & FLAG_COLUMNAR == 0 {
            return Err(Error::at(ErrorKind::Unsupported, 1, "this message is in rows, not columns"));
        }
        let ty = d.schema(&header)?;
        let base = d.input.offset();
        let rest = d.input.bytes_up_to(u64::MAX)?;
        columnar::column_stats(&ty, &rest, base, self)
    }

    /// Decodes one whole message of either version (told apart by its first
    /// byte); bytes after it are a `trailing-bytes` error.
    pub fn decode_message(&self, bytes: &[u8]) -> Result<Value> {
        let mut d = Decoder::new(SliceInput::new(bytes), self, Version::V1);
        let value = message(&mut d)?;
        d.finish()?;
        Ok(value)
    }

    /// Decodes one whole message and returns its metadata with the value.
    /// The metadata says what the value alone cannot: whether a root
    /// integer was written fixed-width (`fixed-u64`) or as a varint (`u64`).
    pub fn decode_typed_message(&self, bytes: &[u8]) -> Result<(Metadata, Value)> {
        let mut d = Decoder::new(SliceInput::new(bytes), self, Version::V1);
        let typed = typed_message(&mut d)?;
        d.finish()?;
        Ok(typed)
    }

    /// Reads one message of either version from `reader`, which must then be
    /// at its end.
    ///
    /// The reader is read in small pieces: wrap a file or socket in an
    /// [`io::BufReader`].
    pub fn read_message<R: io::Read>(&self, reader: R) -> Result<Value> {
        let mut d = Decoder::new(IoInput::new(reader), self, Version::V1);
        let value = message(&mut d)?;
        d.finish()?;
        Ok(value)
    }

    /// Decodes metadata of `version` from the start of `bytes`; returns it
    /// and the number of bytes it took (what follows is not looked at).
    pub fn decode_metadata(&self, version: Version, bytes: &[u8]) -> Result<(Metadata, usize)> {
        let mut d = Decoder::new(SliceInput::new(bytes), self, version);
        let meta = d.metadata(0)?;
        Ok((meta, d.input.offset() as usize))
    }

    /// Decodes a value of type `ty` in `version` that fills all of `bytes`
    /// (the "data only" form, for a reader that already holds the type).
    /// Offsets in errors count from the start of `bytes`.
    pub fn decode_value(&self, version: Version, ty: &Metadata, bytes: &[u8]) -> Result<Value> {
        if ty.depth() > self.max_depth {
            return Err(Error::at(ErrorKind::TooDeep, 0, format!("the type nests {} levels", ty.depth())));
        }
        let mut d = Decoder::new(SliceInput::new(bytes), self, version);
        let value = d.root_value(ty)?;
        d.finish()?;
        Ok(value)
    }
}

fn message<I: Input>(d: &mut Decoder<'_, I>) -> Result<Value> {
    typed_message(d).map(|(_, v)| v)
}

fn typed_message<I: Input>(d: &mut Decoder<'_, I>) -> Result<(Metadata, Value)> {
    typed_message_with(d, None)
}

/// The message, and for a columnar one only the fields `sel` picks.
fn typed_message_with<I: Input>(
    d: &mut Decoder<'_, I>,
    sel: Option<&columnar::Selection>,
) -> Result<(Metadata, Value)> {
    let (meta, columnar) = d.message_head()?;
    if columnar {
        let base = d.input.offset();
        let rest = d.input.bytes_up_to(u64::MAX)?;
        let root = |e: Error| match &meta {
            Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
            Metadata::Enum(s) => e.within(PathSegment::Root(s.name().into())),
            _ => e,
        };
        return columnar::decode_message(&meta, &rest, base, d.opts, sel).map_err(root);
    }
    let value = d.root_value(&meta)?;
    Ok((meta, value))
}

impl EncodeOptions {
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
        let columnar = match self.layout {
            Layout::Rows => None,
            _ if self.version == Version::V1 => None,
            Layout::Columnar => Some(self.columnar(ty, value)),
            Layout::Auto if !columnar::worth_trying(value) => None,
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
        columnar::encode(ety, &sample, &mut cols, &self.column_config());
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

    pub(crate) fn column_config(&self) -> columnar::ColumnConfig {
        columnar::ColumnConfig {
            zstd_level: self.column_zstd,
            float_tolerance: self.float_tolerance.map(f64::from_bits),
        }
    }

    /// The whole columnar message of `value`.
    fn columnar(&self, ty: &Metadata, value: &Value) -> Vec<u8> {
        let mut head = Encoder::new(Vec::new(), Version::V2);
        head.message_head(ty, self.schema_by_reference, FLAG_COLUMNAR).expect("writing to a Vec cannot fail");
        let mut out = head.w;
        columnar::encode(ty, &[value], &mut out, &self.column_config());
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
    pub fn encode_columns(&self, mut columns: columnar::Columns) -> Result<Vec<u8>> {
        self.encode_columns_kept(&mut columns)
    }

    /// [`encode_columns`](Self::encode_columns), leaving the columns in
    /// `columns`: a binding that moved its buffers in (`ColumnNode::take_*`)
    /// moves them out again after (`ColumnNode::drain_*`), to reuse them or
    /// to write the rows layout from them when that is the smaller.
    pub fn encode_columns_kept(&self, columns: &mut columnar::Columns) -> Result<Vec<u8>> {
        let mut out = self.columns_head(columns)?;
        columns.write_kept(&mut out, &self.column_config())?;
        Ok(out)
    }

    /// [`encode_columns_kept`](Self::encode_columns_kept), written where the
    /// caller says once it knows the size: `sink` is given the message's
    /// length and a function that writes the message into the first that
    /// many bytes of a buffer (it panics if the buffer is shorter), and its
    /// result is returned. A binding writes the message straight into the
    /// object it returns, with no buffer of the whole message in between,
    /// or not at all (when it finds another layout smaller by the length).
    ///
    /// ```
    /// use xbf::{Columns, EncodeOptions, Metadata, PrimitiveType};
    ///
    /// let mut cols = Columns::new(&Metadata::vec(PrimitiveType::U64.into()));
    /// cols.root().push_len(3)?.take_u64(vec![1, 2, 3])?;
    /// let opts = EncodeOptions::v2();
    /// let bytes = opts.encode_columns_with(&mut cols, |len, write| {
    ///     let mut buf = vec![0; len];
    ///     write(&mut buf);
    ///     buf
    /// })?;
    /// assert_eq!(bytes, opts.encode_columns_kept(&mut cols)?);
    /// # Ok::<(), xbf::Error>(())
    /// ```
    pub fn encode_columns_with<T>(
        &self,
        columns: &mut columnar::Columns,
        sink: impl FnOnce(usize, &dyn Fn(&mut [u8])) -> T,
    ) -> Result<T> {
        let head = self.columns_head(columns)?;
        let bodies = columns.bodies(&self.column_config())?;
        let write = |out: &mut [u8]| {
            let (start, rest) = out.split_at_mut(head.len());
            start.copy_from_slice(&head);
            bodies.write_to(rest);
        };
        Ok(sink(head.len() + bodies.size(), &write))
    }

    /// The header and metadata of the columnar message of `columns`.
    fn columns_head(&self, columns: &columnar::Columns) -> Result<Vec<u8>> {
        let ty = columns.metadata();
        self.check_type(ty)?;
        if self.version == Version::V1 {
            return Err(Error::new(ErrorKind::Unsupported, "XBF v1 has neither schema references nor columns"));
        }
        let mut head = Encoder::new(Vec::new(), Version::V2);
        head.message_head(ty, self.schema_by_reference, FLAG_COLUMNAR).expect("writing to a Vec cannot fail");
        Ok(head.w)
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
