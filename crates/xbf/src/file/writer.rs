//! Writing XBF files: records are buffered until a block is full, then the
//! block is encoded in columns with the columnar encoder and written; the
//! footer goes at the end.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};

use crate::columnar::{self, ColumnConfig, Cursor};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::Metadata;
use crate::options::{DecodeOptions, EncodeOptions};
use crate::rows::value_write::Encoder;
use crate::value::Value;
use crate::wire::varint;
use crate::wire::ColumnEncoding as E;
use crate::wire::Version;
use crate::wire::{FLAG_CHECKSUM, FLAG_COLUMNAR, FLAG_STREAM};

use super::block_encoder::{BlockEncoder, EncodedBlock};
use super::footer::{self, BlockInfo, ColumnInfo, Slot, MAGIC};
use super::reader::FileReader;
use super::stats::{self, ColumnStatistics};

/// How a [`FileWriter`] cuts blocks and encodes columns.
#[derive(Clone, Debug)]
pub struct FileOptions {
    pub(crate) block_rows: usize,
    pub(crate) block_bytes: usize,
    pub(crate) encode: EncodeOptions,
}

impl Default for FileOptions {
    /// Blocks of at most 131,072 records or about 32 MiB of values, whichever
    /// comes first (SPEC.md §24.6 gives the measurements behind them).
    fn default() -> Self {
        FileOptions { block_rows: 131_072, block_bytes: 32 << 20, encode: EncodeOptions::v2() }
    }
}

impl FileOptions {
    /// Close a block at this many records (at least 1).
    pub fn block_rows(mut self, rows: usize) -> Self {
        self.block_rows = rows.max(1);
        self
    }

    /// Close a block once its records take about this many bytes as values
    /// (an estimate: 8 bytes a scalar, strings and bytes by their length).
    pub fn block_bytes(mut self, bytes: usize) -> Self {
        self.block_bytes = bytes;
        self
    }

    /// The record count and the estimated bytes at which a block closes.
    pub fn block_limits(&self) -> (usize, usize) {
        (self.block_rows, self.block_bytes)
    }

    /// The column settings (zstd stage, float tolerance, schema by
    /// reference) of these encode options; version and layout are ignored.
    pub fn encode_options(mut self, encode: EncodeOptions) -> Self {
        self.encode = encode;
        self
    }
}

/// Writes an XBF file (SPEC.md §24): the header and type once, then blocks
/// of records in columns, each with a CRC-32C, then a footer with every
/// block's place and column statistics. Memory holds one block.
///
/// ```
/// use xbf::{FileOptions, FileReader, FileWriter, StructValue, Value};
///
/// let ty = xbf::metadata_of::<(u32, String)>()?;
/// let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(2))?;
/// for i in 0..5u32 {
///     w.write(Value::Tuple(xbf::TupleValue::from_items(vec![Value::U32(i), Value::String(format!("#{i}"))])))?;
/// }
/// let bytes = w.finish()?;
///
/// let mut r = FileReader::open(std::io::Cursor::new(bytes))?;
/// assert_eq!(r.blocks().len(), 3); // 2 + 2 + 1 records
/// let records: Vec<Value> = r.records(&Default::default()).collect::<Result<_, _>>()?;
/// assert_eq!(records.len(), 5);
/// # Ok::<(), xbf::Error>(())
/// ```
pub struct FileWriter<W: Write> {
    out: W,
    ty: Metadata,
    cfg: ColumnConfig,
    opts: FileOptions,
    slots: Option<Vec<Slot>>,
    pending: Vec<Value>,
    pending_bytes: usize,
    pos: u64,
    blocks: Vec<BlockInfo>,
}

fn write_err(e: std::io::Error) -> Error {
    Error::from(e)
}

impl<W: Write> FileWriter<W> {
    /// Starts a file of records of type `ty`: writes the header and the type.
    pub fn new(mut out: W, ty: Metadata, opts: FileOptions) -> Result<Self> {
        opts.encode.check_type(&ty)?;
        let mut head = Encoder::new(Vec::new(), Version::V2);
        head.message_head(&ty, opts.encode.by_reference(), FLAG_COLUMNAR | FLAG_STREAM | FLAG_CHECKSUM)
            .map_err(write_err)?;
        out.write_all(&head.w).map_err(write_err)?;
        let pos = head.w.len() as u64;
        Ok(Self::resume(out, ty, opts, pos, Vec::new()))
    }

    fn resume(out: W, ty: Metadata, opts: FileOptions, pos: u64, blocks: Vec<BlockInfo>) -> Self {
        let cfg = opts.encode.column_config();
        let slots = footer::slots(&ty);
        FileWriter { out, ty, cfg, opts, slots, pending: Vec::new(), pending_bytes: 0, pos, blocks }
    }

    /// The type of the records.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// The blocks written so far.
    pub fn blocks(&self) -> &[BlockInfo] {
        &self.blocks
    }

    /// Adds a record; fails with `type-mismatch` unless it is of the file's
    /// type. Writes a block once enough records are buffered.
    pub fn write(&mut self, record: Value) -> Result<()> {
        if !record.conforms_to(&self.ty) {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("a file of {} given a {}", self.ty, record.metadata()),
            ));
        }
        self.pending_bytes += approx_size(&record);
        self.pending.push(record);
        if self.pending.len() >= self.opts.block_rows || self.pending_bytes >= self.opts.block_bytes {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Adds a record of a serde type whose [`metadata_of`](crate::metadata_of)
    /// is the file's type.
    #[cfg(feature = "serde")]
    pub fn write_serde<'de, T: serde::Serialize + serde::Deserialize<'de>>(&mut self, record: &T) -> Result<()> {
        let bytes = EncodeOptions::v2().to_vec(record)?;
        self.write(crate::decode_message(&bytes)?)
    }

    /// Adds a record of a `#[derive(xbf::Xbf)]` type whose metadata is the
    /// file's type.
    #[cfg(feature = "serde")]
    pub fn write_xbf<T: crate::fast::Encode + ?Sized>(&mut self, record: &T) -> Result<()> {
        let bytes = crate::fast::to_vec(record)?;
        self.write(crate::decode_message(&bytes)?)
    }

    /// Writes the buffered records as a block now (nothing if none).
    pub fn flush_block(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let records = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let n = records.len() as u64;
        let refs: Vec<&Value> = records.iter().collect();
        let mut body = Vec::new();
        varint::put(&mut body, refs.len() as u128);
        {
            // Files may use the entropy-coded integers (SPEC.md §22.2, `04`).
            let _entropy = columnar::EntropyEnabled::new();
            columnar::encode(&self.ty, &refs, &mut body, &self.cfg);
        }
        let stats = if self.slots.is_some() { stats::gather(&self.ty, &refs) } else { Default::default() };
        drop(refs);
        drop(records);
        self.put_block(n, body, stats)
    }

    /// Writes one block of records given as typed columns (after the
    /// records buffered by [`write`](FileWriter::write), written first as
    /// their own block): the same bytes as writing the same records one by
    /// one with a flush after the last. Fails with `type-mismatch` unless the
    /// columns are of the file's type and their counts agree. An empty block
    /// writes nothing.
    pub fn write_columns(&mut self, block: columnar::BlockColumns) -> Result<()> {
        let encoded = self.block_encoder().encode(block)?;
        self.write_encoded(encoded)
    }

    /// An encoder of blocks of typed columns for this file, to encode blocks
    /// on other threads and write them with [`write_encoded`](FileWriter::write_encoded).
    pub fn block_encoder(&self) -> BlockEncoder {
        BlockEncoder {
            ty: self.ty.clone(),
            ty_bytes: self.ty.bytes_v2().into(),
            cfg: self.cfg,
            stats: self.slots.is_some(),
        }
    }

    /// Writes a block that [`block_encoder`](FileWriter::block_encoder)'s
    /// encoder encoded (after the records buffered by
    /// [`write`](FileWriter::write), written first as their own block);
    /// `type-mismatch` if it was encoded for another type.
    pub fn write_encoded(&mut self, block: EncodedBlock) -> Result<()> {
        if *block.ty_bytes != *self.ty.bytes_v2() {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("a block encoded for another type than {}", self.ty),
            ));
        }
        self.flush_block()?;
        if block.records == 0 {
            return Ok(());
        }
        self.put_block(block.records, block.body, block.stats)
    }

    /// Writes a block whose body (the record count, then the columns) is
    /// `body`, with its CRC, and records its place, columns and statistics.
    fn put_block(&mut self, n: u64, body: Vec<u8>, mut stats: HashMap<String, ColumnStatistics>) -> Result<()> {
        let cols_at = varint::len(u128::from(n));
        // The columns' sizes, by walking what was just written.
        let mut columns = Vec::new();
        let mut at = cols_at;
        let opts = DecodeOptions::default();
        let mut c = Cursor::new(&body[cols_at..], 0).in_file();
        let mut sizes = Vec::new();
        columnar::skip(&self.ty, &mut c, 0, &opts, &mut |path, enc, len, _| {
            let size = if enc == E::Types.byte() && path.last().is_some_and(|l| l == "(types)") {
                len
            } else {
                varint::len(u128::from(len)) as u64 + len
            };
            sizes.push((path.join("."), size));
        })?;
        for (j, (path, size)) in sizes.into_iter().enumerate() {
            let bytes = &body[at..at + size as usize];
            at += size as usize;
            let st = match self.slots.as_ref().map(|s| &s[j]) {
                Some(slot) if slot.stat.is_some() => stats.remove(&path).unwrap_or_default(),
                _ => Default::default(),
            };
            columns.push(ColumnInfo { size, crc: crc32c::crc32c(bytes), stats: st });
        }
        let mut block = Vec::with_capacity(body.len() + 14);
        varint::put(&mut block, body.len() as u128);
        block.extend_from_slice(&body);
        block.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        self.out.write_all(&block).map_err(write_err)?;
        self.blocks.push(BlockInfo { offset: self.pos, size: block.len() as u64, records: n, columns });
        self.pos += block.len() as u64;
        Ok(())
    }

    /// Writes the last block and the footer, flushes, and returns the writer.
    pub fn finish(mut self) -> Result<W> {
        self.flush_block()?;
        let body = footer::encode(&self.blocks);
        let len = u32::try_from(body.len())
            .map_err(|_| Error::new(ErrorKind::TooLarge, "a footer of 4 GiB or more: write fewer, larger blocks"))?;
        let mut tail = vec![0u8];
        varint::put(&mut tail, body.len() as u128);
        tail.extend_from_slice(&body);
        tail.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        tail.extend_from_slice(&len.to_le_bytes());
        tail.extend_from_slice(&MAGIC);
        self.out.write_all(&tail).map_err(write_err)?;
        self.out.flush().map_err(write_err)?;
        Ok(self.out)
    }
}

impl<F: Read + Write + Seek> FileWriter<F> {
    /// Opens a finished file for appending (SPEC.md §24.5): reads its type
    /// and footer, then writes new blocks after the end; [`finish`] writes a
    /// footer that lists the old blocks and the new. Nothing already written
    /// changes, so a writer that dies leaves the file as it was plus whole
    /// blocks a forward reader finds. `opts` must not ask for a fingerprint
    /// if the file carries its type, or the reverse (`unsupported`).
    ///
    /// [`finish`]: FileWriter::finish
    pub fn append(mut file: F, opts: FileOptions) -> Result<Self> {
        let (ty, blocks, by_ref) = {
            let r = FileReader::open(&mut file)?;
            (r.metadata().clone(), r.blocks().to_vec(), r.by_reference())
        };
        if by_ref != opts.encode.by_reference() {
            return Err(Error::new(ErrorKind::Unsupported, "appending must keep the file's schema-by-reference flag"));
        }
        let end = file.seek(SeekFrom::End(0)).map_err(write_err)?;
        Ok(Self::resume(file, ty, opts, end, blocks))
    }
}

/// A cheap estimate of a record's size as values, for cutting blocks (what
/// [`FileOptions::block_bytes`] counts): writers that cut blocks of columns
/// themselves use it to cut where [`FileWriter::write`] would.
#[doc(hidden)]
pub fn approx_size(v: &Value) -> usize {
    match v {
        Value::String(s) => 8 + s.len(),
        Value::Bytes(b) => 8 + b.len(),
        Value::Vec(x) | Value::Array(x) => 8 + x.items().iter().map(approx_size).sum::<usize>(),
        Value::Struct(s) => s.values().iter().map(approx_size).sum(),
        Value::Tuple(t) => t.items().iter().map(approx_size).sum(),
        Value::Option(o) => 1 + o.value().map_or(0, approx_size),
        Value::Map(m) => 8 + m.entries().iter().map(|(k, v)| approx_size(k) + approx_size(v)).sum::<usize>(),
        Value::Enum(e) => 1 + approx_size(e.payload()),
        Value::Any(a) => 1 + approx_size(a.value()),
        _ => 8,
    }
}
