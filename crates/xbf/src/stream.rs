//! Record streams (SPEC.md, "Record streams"): the type once, then any
//! number of records in blocks, optionally with a CRC-32C per block.
//!
//! ```
//! use xbf::{StreamOptions, StreamReader, StreamWriter, Value, PrimitiveType};
//!
//! let mut w = StreamWriter::new(Vec::new(), PrimitiveType::U32.into(), StreamOptions::default().checksums(true))?;
//! for x in [1u32, 300, 70_000] {
//!     w.write(&Value::U32(x))?;
//! }
//! let bytes = w.finish()?;
//!
//! let records: Vec<Value> = StreamReader::new(&bytes[..])?.collect::<Result<_, _>>()?;
//! assert_eq!(records, [Value::U32(1), Value::U32(300), Value::U32(70_000)]);
//! # Ok::<(), xbf::Error>(())
//! ```

use std::io::{self, Write};

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::Metadata;
use crate::options::DecodeOptions;
use crate::rows::input::{Input, IoInput, SliceInput};
use crate::rows::value_read::{bad_varint, zero_size_values, Decoder};
use crate::rows::value_write::Encoder;
use crate::value::Value;
use crate::wire::varint;
use crate::wire::Version;
use crate::wire::{FLAG_CHECKSUM, FLAG_COLUMNAR, FLAG_STREAM, V2_MARKER};

/// How a [`StreamWriter`] writes: checksums, schema by reference, and the
/// body size at which a block is closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamOptions {
    checksums: bool,
    schema_by_reference: bool,
    block_bytes: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions { checksums: false, schema_by_reference: false, block_bytes: 64 * 1024 }
    }
}

impl StreamOptions {
    /// Follow each block with its CRC-32C, so that damage is detected.
    pub fn checksums(mut self, yes: bool) -> Self {
        self.checksums = yes;
        self
    }

    /// Send the type's fingerprint instead of the type.
    pub fn schema_by_reference(mut self, yes: bool) -> Self {
        self.schema_by_reference = yes;
        self
    }

    /// Close a block once its records take this many bytes (default 64 KiB;
    /// 0 closes a block after every record). Smaller blocks lose less when a
    /// checksummed stream is cut; larger ones cost fewer framing bytes.
    pub fn block_bytes(mut self, bytes: usize) -> Self {
        self.block_bytes = bytes;
        self
    }
}

/// Writes a record stream: the header and type once, then records, grouped
/// into blocks as they come.
pub struct StreamWriter<W: Write> {
    out: W,
    ty: Metadata,
    opts: StreamOptions,
    records: Vec<u8>,
    count: u64,
}

impl<W: Write> StreamWriter<W> {
    /// Starts a stream of records of type `ty`: writes the header and the
    /// type (or its fingerprint).
    pub fn new(mut out: W, ty: Metadata, opts: StreamOptions) -> Result<Self> {
        let flags = FLAG_STREAM | if opts.checksums { FLAG_CHECKSUM } else { 0 };
        let mut head = Encoder::new(Vec::new(), Version::V2);
        head.message_head(&ty, opts.schema_by_reference, flags).map_err(write_err)?;
        out.write_all(&head.w).map_err(write_err)?;
        Ok(Self::resume(out, ty, opts))
    }

    /// Appends blocks to a stream that `out` already holds (opened for
    /// appending): writes no header. The type and the checksum option must
    /// be those the stream was started with; readers check the checksums
    /// but cannot tell a wrong type from damage.
    pub fn resume(out: W, ty: Metadata, opts: StreamOptions) -> Self {
        StreamWriter { out, ty, opts, records: Vec::new(), count: 0 }
    }

    /// Adds a record; fails with `type-mismatch` unless it is of the
    /// stream's type. Writes a block once enough records are buffered.
    pub fn write(&mut self, record: &Value) -> Result<()> {
        if !record.conforms_to(&self.ty) {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("a stream of {} given a {}", self.ty, record.metadata()),
            ));
        }
        let ty = self.ty.clone();
        self.write_with(|out| {
            let mut enc = Encoder::new(out, Version::V2);
            enc.value(record, &ty).map_err(write_err)
        })
    }

    /// The stream's record type.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// Adds a record that `encode` appends to the block's bytes (for the
    /// typed API); on failure nothing of it is kept.
    pub(crate) fn write_with(&mut self, encode: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
        let mark = self.records.len();
        if let Err(e) = encode(&mut self.records) {
            self.records.truncate(mark);
            return Err(e);
        }
        self.count += 1;
        if self.records.len() >= self.opts.block_bytes {
            self.write_block()?;
        }
        Ok(())
    }

    /// Writes the buffered records as a block (none if there are none) and
    /// flushes the underlying writer: a reader then sees every record so far.
    pub fn flush(&mut self) -> Result<()> {
        self.write_block()?;
        self.out.flush().map_err(write_err)
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(mut self) -> Result<W> {
        self.flush()?;
        Ok(self.out)
    }

    fn write_block(&mut self) -> Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        let mut buf = [0u8; varint::MAX_LEN];
        let n = varint::encode(u128::from(self.count), &mut buf);
        let count = &buf[..n];
        let body_len = (count.len() + self.records.len()) as u128;
        let mut len_buf = [0u8; varint::MAX_LEN];
        let len = varint::encode(body_len, &mut len_buf);
        let w = &mut self.out;
        w.write_all(&len_buf[..len]).map_err(write_err)?;
        w.write_all(count).map_err(write_err)?;
        w.write_all(&self.records).map_err(write_err)?;
        if self.opts.checksums {
            let crc = crc32c::crc32c_append(crc32c::crc32c(count), &self.records);
            w.write_all(&crc.to_le_bytes()).map_err(write_err)?;
        }
        self.records.clear();
        self.count = 0;
        Ok(())
    }
}

fn write_err(e: io::Error) -> Error {
    Error::from(e)
}

/// One block's body, read from the input, and how far its records go.
struct Block {
    /// The body bytes that arrived (all of them unless the input was cut).
    body: Vec<u8>,
    /// The length the block declared.
    declared: u64,
    /// The stream offset of the body's first byte.
    base: u64,
    /// Where the next record starts, within `body`.
    pos: usize,
    /// Records still to come in this block.
    left: u64,
    /// The zero-size values charged in this block.
    used: u64,
}

/// Reads a record stream record by record from any `io::Read`, without
/// holding more than one block in memory. Yields every record before an
/// error, then the error, then nothing.
pub struct StreamReader<R: io::Read> {
    input: IoInput<R>,
    opts: DecodeOptions,
    ty: Metadata,
    checksums: bool,
    block: Option<Block>,
    record: u64,
    done: bool,
}

impl<R: io::Read> StreamReader<R> {
    /// Reads the stream's header and type with the default options.
    pub fn new(reader: R) -> Result<Self> {
        Self::with_options(reader, DecodeOptions::default())
    }

    /// Reads the stream's header and type; `opts` sets the limits and the
    /// schemas known by fingerprint.
    ///
    /// The reader's length is unknown, so counts in the stream's metadata
    /// cannot be checked against it: on a cut input the error may differ
    /// from a reader that knows the length (SPEC.md §15.3, §17.2). When the
    /// length is known (a file, bytes in memory), use
    /// [`with_length`](Self::with_length) or [`from_slice`](StreamReader::from_slice).
    pub fn with_options(reader: R, opts: DecodeOptions) -> Result<Self> {
        Self::start(IoInput::new(reader), opts)
    }

    /// Reads the stream's header and type from `reader`, which holds
    /// exactly `len` bytes (a file of that size): every count is checked
    /// against the bytes that remain, so errors are exactly those of a
    /// reader over the whole input (SPEC.md §16.2).
    pub fn with_length(reader: R, len: u64, opts: DecodeOptions) -> Result<Self> {
        Self::start(IoInput::with_len(reader, len), opts)
    }

    fn start(input: IoInput<R>, opts: DecodeOptions) -> Result<Self> {
        let mut d = Decoder::new(input, &opts, Version::V2);
        let first = d.input.u8()?;
        if first != V2_MARKER {
            let why = "a record stream starts with the XBF 2 header c2";
            return Err(Error::at(ErrorKind::Unsupported, 0, format!("{why}, not 0x{first:02x}")));
        }
        let header = d.header_after_marker()?;
        if header.flags & FLAG_STREAM == 0 {
            return Err(Error::at(ErrorKind::Unsupported, 1, "this is a single message, not a record stream"));
        }
        if header.flags & FLAG_COLUMNAR != 0 {
            return Err(Error::at(ErrorKind::Unsupported, 1, "this is an XBF file: read it with FileReader"));
        }
        let ty = d.schema(&header)?;
        let input = d.input;
        Ok(StreamReader {
            input,
            checksums: header.flags & FLAG_CHECKSUM != 0,
            opts,
            ty,
            block: None,
            record: 0,
            done: false,
        })
    }

    /// The type of the records.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// Whether each block carries a checksum.
    pub fn has_checksums(&self) -> bool {
        self.checksums
    }

    /// Reads the next block's framing and body; `None` at a clean end.
    fn next_block(&mut self) -> Result<Option<Block>> {
        let len_at = self.input.offset();
        let Some(first) = self.input.next_byte()? else {
            return Ok(None);
        };
        let declared = {
            let mut d = Decoder::new(&mut self.input, &self.opts, Version::V2);
            d.uvarint_after(first, len_at, 64)? as u64
        };
        if declared == 0 {
            return Err(bad_varint(len_at, "a block's length is at least 1".to_owned()));
        }
        let base = self.input.offset();
        let body = if self.checksums {
            let cut = |e: Error| match e.kind() {
                ErrorKind::Truncated => {
                    Error::at(ErrorKind::Truncated, len_at, "the stream ends inside a checksummed block")
                }
                _ => e,
            };
            let body = self.input.bytes(declared).map_err(cut)?;
            let crc_at = self.input.offset();
            let stored = u32::from_le_bytes(self.input.array().map_err(cut)?);
            let actual = crc32c::crc32c(&body);
            if stored != actual {
                return Err(Error::at(
                    ErrorKind::BadChecksum,
                    crc_at,
                    format!("the block's CRC-32C is {actual:08x}, the stream says {stored:08x}"),
                ));
            }
            body
        } else {
            self.input.bytes_up_to(declared)?
        };
        let mut block = Block { body, declared, base, pos: 0, left: 0, used: 0 };
        // The record count, checked against the body's declared length.
        let mut d = Decoder::new(SliceInput::new(&block.body), &self.opts, Version::V2);
        let count = d.uvarint(64).map_err(|e| e.shifted(base))? as u64;
        if count == 0 {
            return Err(bad_varint(base, "a block holds at least one record".to_owned()));
        }
        let after_count = d.input.offset();
        let rest = declared - after_count;
        let min = d.min_size(&self.ty);
        if min > 0 && count.saturating_mul(min) > rest {
            return Err(Error::at(
                ErrorKind::Truncated,
                base,
                format!("{count} records of at least {min} bytes do not fit in the block's {rest} bytes"),
            ));
        }
        if min == 0 {
            d.charge(0, count.saturating_mul(zero_size_values(&self.ty))).map_err(|e| e.shifted(base))?;
        }
        block.used = d.zero_size_used;
        block.pos = after_count as usize;
        block.left = count;
        Ok(Some(block))
    }

    fn next_record(&mut self) -> Result<Option<Value>> {
        self.next_with(|mut d, ty| {
            let record = d.value(ty, 0);
            (record, d)
        })
    }

    /// The next record, decoded by `decode` from a decoder set at its first
    /// byte (which it hands back, moved past the record); `None` at a clean
    /// end. Block framing, checksums, budgets and error offsets and paths
    /// are handled here, for the dynamic and the typed readers alike.
    pub(crate) fn next_with<T, F>(&mut self, mut decode: F) -> Result<Option<T>>
    where
        F: for<'a, 'o> FnMut(Decoder<'o, SliceInput<'a>>, &Metadata) -> (Result<T>, Decoder<'o, SliceInput<'a>>),
    {
        loop {
            if let Some(block) = &mut self.block {
                if block.left > 0 {
                    let mut input = SliceInput::new(&block.body);
                    input.skip(block.pos);
                    let mut d = Decoder::new(input, &self.opts, Version::V2);
                    d.zero_size_used = block.used;
                    d.prepaid = u32::from(self.ty.is_zero_size());
                    let (record, d) = decode(d, &self.ty);
                    let record = record.map_err(|e| e.within(PathSegment::Record(self.record)).shifted(block.base))?;
                    block.pos = d.input.offset() as usize;
                    block.used = d.zero_size_used;
                    block.left -= 1;
                    self.record += 1;
                    return Ok(Some(record));
                }
                // After the last record the body must end, and be whole.
                if (block.body.len() as u64) < block.declared {
                    let end = block.base + block.body.len() as u64;
                    return Err(Error::at(ErrorKind::Truncated, end, "the stream ends inside a block"));
                }
                if block.pos < block.body.len() {
                    return Err(Error::at(
                        ErrorKind::TrailingBytes,
                        block.base + block.pos as u64,
                        "bytes remain in the block after its records",
                    ));
                }
                self.block = None;
            }
            match self.next_block()? {
                Some(block) => self.block = Some(block),
                None => return Ok(None),
            }
        }
    }
}

impl<'a> StreamReader<&'a [u8]> {
    /// Reads a stream held in memory, its length known (see
    /// [`with_length`](StreamReader::with_length)), with the default options.
    pub fn from_slice(bytes: &'a [u8]) -> Result<Self> {
        Self::with_length(bytes, bytes.len() as u64, DecodeOptions::default())
    }
}

impl<R: io::Read> StreamReader<R> {
    /// Passes on `result`, marking the reader finished after the end or an
    /// error, so that iteration stops there.
    pub(crate) fn settle<T>(&mut self, result: Result<Option<T>>) -> Option<Result<T>> {
        match result {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done
    }
}

impl<R: io::Read> Iterator for StreamReader<R> {
    type Item = Result<Value>;

    fn next(&mut self) -> Option<Result<Value>> {
        if self.done {
            return None;
        }
        let r = self.next_record();
        self.settle(r)
    }
}

impl DecodeOptions {
    /// A [`StreamReader`] with these options.
    pub fn stream_reader<R: io::Read>(&self, reader: R) -> Result<StreamReader<R>> {
        StreamReader::with_options(reader, self.clone())
    }

    /// A [`StreamReader`] with these options over `reader`, which holds
    /// exactly `len` bytes ([`StreamReader::with_length`]).
    pub fn stream_reader_with_length<R: io::Read>(&self, reader: R, len: u64) -> Result<StreamReader<R>> {
        StreamReader::with_length(reader, len, self.clone())
    }
}
