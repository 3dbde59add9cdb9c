//! The typed API: any type with serde's derives to and from XBF.
//!
//! The metadata of a message comes from the type (its `Deserialize` impl is
//! traced once and cached), never from the value, so it is right for an
//! empty `Vec` or a `None`. Reading goes by the message's own metadata and
//! hands struct fields to the reader's type by name, so a reader's type may
//! differ from the writer's (see SPEC.md, "Schema evolution").
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Point { first: i8, last: i8 }
//!
//! let bytes = xbf::to_vec(&Point { first: 42, last: -5 })?;
//! assert_eq!(bytes, xbf::encode_message(&xbf::StructValue::from_fields(
//!     "Point", [("first", xbf::Value::I8(42)), ("last", xbf::Value::I8(-5))])?.into())?);
//! assert_eq!(xbf::from_slice::<Point>(&bytes)?, Point { first: 42, last: -5 });
//!
//! // v1, the paper's 45 bytes.
//! assert_eq!(xbf::EncodeOptions::v1().to_vec(&Point { first: 42, last: -5 })?.len(), 45);
//! # Ok::<(), xbf::Error>(())
//! ```

mod schema;

use std::io::{self, Read, Write};
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::Metadata;
use crate::options::DecodeOptions;
use crate::options::EncodeOptions;
use crate::rows::input::{Input, SliceInput};
use crate::rows::value_read::Decoder;
use crate::rows::value_write::Encoder;
use crate::stream::{StreamOptions, StreamReader, StreamWriter};
use crate::wire::Version;

pub(crate) use self::schema::structs_as_seq;
use self::schema::Traced;
use crate::rows::{serde_read as de, serde_value as value_ser, serde_write as ser};

fn io_err(e: io::Error) -> Error {
    Error::from(e)
}

/// The XBF metadata of the type `T`, as the typed API writes it: traced from
/// `T`'s `Deserialize` impl once, then cached. Fails with `unsupported` for
/// recursive types, and for types whose shape depends on the value
/// (internally tagged or untagged enums, `#[serde(flatten)]`).
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Row { id: u32, tags: Vec<String>, note: Option<String> }
/// assert_eq!(xbf::metadata_of::<Row>()?.to_string(),
///            "struct Row { id: u32, tags: vec<string>, note: option<string> }");
/// # Ok::<(), xbf::Error>(())
/// ```
pub fn metadata_of<'de, T: Deserialize<'de>>() -> Result<Metadata> {
    schema::metadata_of::<T>()
}

/// Encodes `value` as an XBF 2 message whose metadata is that of `T`.
pub fn to_vec<'de, T: Serialize + Deserialize<'de>>(value: &T) -> Result<Vec<u8>> {
    EncodeOptions::v2().to_vec(value)
}

/// Writes `value` as an XBF 2 message to `writer` (the message is built in
/// memory, then written with one call).
pub fn to_writer<'de, W: Write, T: Serialize + Deserialize<'de>>(writer: W, value: &T) -> Result<()> {
    EncodeOptions::v2().to_writer(writer, value)
}

/// Decodes one whole message (either version, rows or columns) into `T`,
/// borrowing strings and bytes from `bytes` where `T` asks to. A columnar
/// message is read straight from its columns, and the columns of fields
/// `T` does not have are skipped unread (SPEC.md §23.3).
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Tick { t: u32, price: f64, venue: String }
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Price { price: f64 }
///
/// let ticks: Vec<Tick> = (0..100).map(|t| Tick { t, price: 9.5 + f64::from(t % 7), venue: "X".into() }).collect();
/// let columns = xbf::EncodeOptions::v2().layout(xbf::Layout::Columnar).to_vec(&ticks)?;
/// assert_eq!(columns[1] & 0x02, 0x02); // the columnar flag
/// assert_eq!(xbf::from_slice::<Vec<Tick>>(&columns)?, ticks);
/// let prices: Vec<Price> = xbf::from_slice(&columns)?; // `t` and `venue` unread
/// assert_eq!(prices[3], Price { price: 12.5 });
/// # Ok::<(), xbf::Error>(())
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    DecodeOptions::default().from_slice(bytes)
}

/// Reads one whole message from `reader` into `T`; the reader must end
/// where the message does. The message is read into memory first.
pub fn from_reader<T: DeserializeOwned, R: Read>(reader: R) -> Result<T> {
    DecodeOptions::default().from_reader(reader)
}

// The same names as the derive's (`xbf::fast::to_vec_with`,
// `from_slice_with`, ...): in each API the function is named for what it
// does, and `_with` takes the options first. The methods on the options
// below are the same functions, kept for the callers that chain them.

/// [`to_vec`] with `opts`' version, schema form and layout; the same as
/// [`EncodeOptions::to_vec`].
pub fn to_vec_with<'de, T: Serialize + Deserialize<'de>>(opts: &EncodeOptions, value: &T) -> Result<Vec<u8>> {
    opts.to_vec(value)
}

/// [`to_writer`] with `opts`; the same as [`EncodeOptions::to_writer`].
pub fn to_writer_with<'de, W: Write, T: Serialize + Deserialize<'de>>(
    opts: &EncodeOptions,
    writer: W,
    value: &T,
) -> Result<()> {
    opts.to_writer(writer, value)
}

/// [`from_slice`] with the limits of `opts`; the same as
/// [`DecodeOptions::from_slice`].
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Deep { inner: Vec<Vec<u8>> }
///
/// let bytes = xbf::to_vec(&Deep { inner: vec![vec![1]] })?;
/// let shallow = xbf::DecodeOptions::default().max_depth(2)?;
/// assert_eq!(xbf::from_slice_with::<Deep>(&shallow, &bytes).unwrap_err().kind(), xbf::ErrorKind::TooDeep);
/// let deep = xbf::DecodeOptions::default().max_depth(3)?;
/// assert_eq!(xbf::from_slice_with::<Deep>(&deep, &bytes)?, Deep { inner: vec![vec![1]] });
/// # Ok::<(), xbf::Error>(())
/// ```
pub fn from_slice_with<'de, T: Deserialize<'de>>(opts: &DecodeOptions, bytes: &'de [u8]) -> Result<T> {
    opts.from_slice(bytes)
}

/// [`from_reader`] with the limits of `opts`; the same as
/// [`DecodeOptions::from_reader`].
pub fn from_reader_with<T: DeserializeOwned, R: Read>(opts: &DecodeOptions, reader: R) -> Result<T> {
    opts.from_reader(reader)
}

impl EncodeOptions {
    /// Encodes `value` as a message of these options' version, with the
    /// metadata of `T`. In v1, fails with `unsupported` naming the path of
    /// the first type that v1 cannot hold. The value is written in rows
    /// unless the layout is [`Layout::Columnar`](crate::Layout::Columnar)
    /// (`Layout::Auto`, which would encode twice to compare, is rows here).
    pub fn to_vec<'de, T: Serialize + Deserialize<'de>>(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = ser::Out { buf: Vec::with_capacity(128), v2: self.get_version() == Version::V2 };
        self.write_into(&mut out, value)?;
        Ok(out.buf)
    }

    /// Writes `value` as a message to `writer`; see [`EncodeOptions::to_vec`].
    pub fn to_writer<'de, W: Write, T: Serialize + Deserialize<'de>>(&self, mut writer: W, value: &T) -> Result<()> {
        let bytes = self.to_vec(value)?;
        writer.write_all(&bytes).map_err(io_err)
    }

    fn write_into<'de, T: Serialize + Deserialize<'de>>(&self, out: &mut ser::Out, value: &T) -> Result<()> {
        let traced = schema::traced::<T>();
        match &*traced {
            Traced::Known(ty) => {
                if self.get_version() == Version::V1 {
                    ser::check_v1(ty)?;
                }
                let root = |e: Error| match ty {
                    Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
                    _ => e,
                };
                if self.is_columnar() {
                    // The columnar writer lays out a `Value`: the rows just
                    // written, read back.
                    let mut rows = ser::Out { buf: Vec::new(), v2: true };
                    ser::write_value(&mut rows, ty, value).map_err(root)?;
                    let value = DecodeOptions::default().max_decoded_bytes(u64::MAX).decode_value(
                        Version::V2,
                        ty,
                        &rows.buf,
                    )?;
                    out.buf = self.encode_typed_message(ty, &value)?;
                    return Ok(());
                }
                let version = self.get_version();
                Encoder::new(&mut out.buf, version).message_head(ty, self.by_reference(), 0).map_err(io_err)?;
                ser::write_value(out, ty, value).map_err(root)
            }
            Traced::Recursive(why) => Err(Error::new(ErrorKind::Unsupported, why.clone())),
            // The type's shape depends on the value: describe the value.
            Traced::Opaque(_) => {
                let v = value.serialize(value_ser::ValueSer)?;
                self.write_message(&mut out.buf, &v)
            }
        }
    }
}

impl DecodeOptions {
    /// Decodes one whole message into `T` with these options' limits; see
    /// [`from_slice`].
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        let mut d = Decoder::new(SliceInput::new(bytes), self, Version::V1);
        let (ty, columnar) = d.message_head()?;
        let seq_ok = schema::structs_as_seq::<T>();
        if columnar {
            let base = d.input.offset();
            let rest = bytes.get(base as usize..).unwrap_or_default();
            return crate::columnar::from_columns(self, &ty, rest, base, seq_ok).map_err(|e| match &ty {
                Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
                Metadata::Enum(s) => e.within(PathSegment::Root(s.name().into())),
                _ => e,
            });
        }
        let mut de = de::De::new(d, seq_ok);
        let value = root(&mut de, &ty)?;
        de.d.finish()?;
        Ok(value)
    }

    /// Reads one whole message from `reader` into `T`; see [`from_reader`].
    pub fn from_reader<T: DeserializeOwned, R: Read>(&self, mut reader: R) -> Result<T> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(|e| Error::io(bytes.len() as u64, e))?;
        self.from_slice(&bytes)
    }

    /// Reads a record stream as an iterator of `T`; see [`TypedStreamReader`].
    pub fn typed_stream<T: DeserializeOwned, R: Read>(&self, reader: R) -> Result<TypedStreamReader<T, R>> {
        TypedStreamReader::with_options(reader, self.clone())
    }
}

/// A stream record: paths start at `#r`, without the root's name.
fn record<'de, T: Deserialize<'de>>(de: &mut de::De<'de, '_>, ty: &Metadata) -> Result<T> {
    T::deserialize(de::ValDe { de, ty, depth: 0 })
}

fn root<'de, T: Deserialize<'de>>(de: &mut de::De<'de, '_>, ty: &Metadata) -> Result<T> {
    let r = T::deserialize(de::ValDe { de, ty, depth: 0 });
    r.map_err(|e| match ty {
        Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
        Metadata::Enum(s) => e.within(PathSegment::Root(s.name().into())),
        _ => e,
    })
}

/// Reads a record stream as an iterator of `T`, matching fields by name
/// as [`from_slice`] does. Yields every record before an error, then the
/// error, then nothing.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Tick { t: u32, price: f64 }
///
/// let mut w = xbf::TypedStreamWriter::new(Vec::new(), xbf::StreamOptions::default())?;
/// w.write(&Tick { t: 1, price: 9.5 })?;
/// w.write(&Tick { t: 2, price: 9.75 })?;
/// let bytes = w.finish()?;
/// let ticks: Vec<Tick> = xbf::typed_stream(&bytes[..])?.collect::<Result<_, _>>()?;
/// assert_eq!(ticks[1], Tick { t: 2, price: 9.75 });
/// // The dynamic reader reads the same stream.
/// assert_eq!(xbf::StreamReader::new(&bytes[..])?.count(), 2);
/// # Ok::<(), xbf::Error>(())
/// ```
pub fn typed_stream<T: DeserializeOwned, R: Read>(reader: R) -> Result<TypedStreamReader<T, R>> {
    TypedStreamReader::with_options(reader, DecodeOptions::default())
}

/// A record stream read as values of `T`; made by [`typed_stream`].
pub struct TypedStreamReader<T, R: Read> {
    inner: StreamReader<R>,
    seq_ok: bool,
    _t: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned, R: Read> TypedStreamReader<T, R> {
    /// Reads the stream's header and type; `opts` sets the limits.
    pub fn with_options(reader: R, opts: DecodeOptions) -> Result<Self> {
        Ok(TypedStreamReader {
            inner: StreamReader::with_options(reader, opts)?,
            seq_ok: schema::structs_as_seq::<T>(),
            _t: PhantomData,
        })
    }

    /// Reads the stream's header and type from `reader`, which holds
    /// exactly `len` bytes; see [`StreamReader::with_length`].
    pub fn with_length(reader: R, len: u64, opts: DecodeOptions) -> Result<Self> {
        Ok(TypedStreamReader {
            inner: StreamReader::with_length(reader, len, opts)?,
            seq_ok: schema::structs_as_seq::<T>(),
            _t: PhantomData,
        })
    }

    /// The type of the records, as the stream declares it.
    pub fn metadata(&self) -> &Metadata {
        self.inner.metadata()
    }
}

impl<T: DeserializeOwned, R: Read> Iterator for TypedStreamReader<T, R> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.inner.is_done() {
            return None;
        }
        let seq_ok = self.seq_ok;
        let r = self.inner.next_with(|d, ty| {
            let mut de = de::De::new(d, seq_ok);
            let record = record::<T>(&mut de, ty);
            (record, de.d)
        });
        self.inner.settle(r)
    }
}

/// Writes a record stream of values of `T` (its metadata traced from the
/// type), in the same layout as [`StreamWriter`].
pub struct TypedStreamWriter<T, W: Write> {
    inner: StreamWriter<W>,
    _t: PhantomData<fn(&T)>,
}

impl<'de, T: Serialize + Deserialize<'de>, W: Write> TypedStreamWriter<T, W> {
    /// Starts a stream: writes the header and `T`'s metadata. `T` must have
    /// a fixed type (see [`metadata_of`]).
    pub fn new(out: W, opts: StreamOptions) -> Result<Self> {
        let ty = schema::metadata_of::<T>()?;
        Ok(TypedStreamWriter { inner: StreamWriter::new(out, ty, opts)?, _t: PhantomData })
    }

    /// Adds a record; writes a block once enough records are buffered.
    pub fn write(&mut self, record: &T) -> Result<()> {
        let ty = self.inner.metadata().clone();
        self.inner.write_with(|buf| {
            let mut out = ser::Out { buf: std::mem::take(buf), v2: true };
            let r = ser::write_value(&mut out, &ty, record);
            *buf = out.buf;
            r
        })
    }

    /// Writes the buffered records as a block and flushes the writer.
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(self) -> Result<W> {
        self.inner.finish()
    }
}
