//! XBF files as streams of record batches (one batch a block, or slices of
//! it), and record batches written as XBF files; columnar messages both ways.

use std::collections::VecDeque;
use std::io::{Read, Seek, Write};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use xbf::{
    BlockColumns, Columns, EncodeOptions, FileOptions, FileReader, FileWriter, Metadata, Predicate, ReadOptions, Value,
};

use crate::arrow_to_columns::{add_sizes, cast_for, push};
use crate::columns_to_arrow::columns_to_batch;
use crate::filter::Filter;
use crate::pool::{DecodeBlock, Pool};
use crate::schema::{arrow_schema, xbf_err, xbf_type};
use crate::to_arrow::batch_with_schema;

/// What to read of a file: columns, filters and the largest batch.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// Top-level columns (or dotted paths into structs) to read; all if `None`.
    pub columns: Option<Vec<String>>,
    /// Filters that every row kept matches (`AND`). The first one is given to
    /// the file reader, which skips the blocks whose statistics rule it out
    /// and tests it record by record; the others are tested on the batch.
    pub filters: Vec<Filter>,
    /// Split each block's batch into batches of at most this many rows.
    pub batch_size: Option<usize>,
}

/// The batches of an XBF file, one block at a time: an Arrow
/// [`RecordBatchReader`], so memory holds one block's records (or, with
/// [`with_threads`](Self::with_threads), a few blocks).
pub struct FileBatchReader<R> {
    reader: FileReader<R>,
    /// What every block goes through, shared with the decoding threads.
    plan: Arc<Plan>,
    blocks: std::ops::Range<usize>,
    batch_size: Option<usize>,
    ready: VecDeque<Result<RecordBatch, ArrowError>>,
    /// More readers of the same file, each decoding blocks on its own thread
    /// once the read starts.
    extra: Vec<FileReader<R>>,
    pool: Option<Pool>,
}

impl<R: Read + Seek> FileBatchReader<R> {
    /// Opens a file for reading with `opts`, every block.
    pub fn new(src: R, opts: ScanOptions) -> Result<Self, ArrowError> {
        let reader = FileReader::open(src).map_err(xbf_err)?;
        let blocks = 0..reader.blocks().len();
        Self::with_reader(reader, opts, blocks)
    }

    /// Reads the blocks in `blocks` of an open file (a split of the file, for
    /// one task of many).
    pub fn with_reader(
        reader: FileReader<R>,
        opts: ScanOptions,
        blocks: std::ops::Range<usize>,
    ) -> Result<Self, ArrowError> {
        // The first filter is also the file reader's, which skips the blocks
        // its statistics rule out; every filter is tested on the batches.
        let rest = opts.filters.clone();
        let mut q = ReadOptions::default();
        if let Some(f) = opts.filters.first() {
            q = q.filter(Predicate::new(f.field.clone(), f.op, f.value.clone()));
        }
        // The filters' fields are read too and dropped after testing.
        let mut keep_names = None;
        if let Some(cols) = &opts.columns {
            let mut all = cols.clone();
            for p in &rest {
                let top = p.field.clone();
                if !all.contains(&top) {
                    all.push(top);
                }
            }
            if all.len() > cols.len() {
                keep_names = Some(cols.clone());
            }
            q = q.fields(&all);
        }
        let ty = match &opts.columns {
            Some(_) => reader.projected_type(&q).map_err(xbf_err)?,
            None => reader.metadata().clone(),
        };
        let schema = arrow_schema(&ty)?;
        let keep = keep_names
            .map(|names| {
                names
                    .iter()
                    .map(|n| schema.index_of(n.split('.').next().unwrap_or(n)))
                    .collect::<Result<Vec<usize>, _>>()
            })
            .transpose()?;
        let out_schema = match &keep {
            Some(k) => Arc::new(schema.project(k)?),
            None => schema.clone(),
        };
        let end = blocks.end.min(reader.blocks().len());
        let blocks = blocks.start.min(end)..end;
        Ok(FileBatchReader {
            reader,
            plan: Arc::new(Plan { q, rest, keep, ty, schema, out_schema }),
            blocks,
            batch_size: opts.batch_size.filter(|&n| n > 0),
            ready: VecDeque::new(),
            extra: Vec::new(),
            pool: None,
        })
    }

    /// The XBF type of the records read (after projection).
    pub fn xbf_type(&self) -> &Metadata {
        &self.plan.ty
    }

    /// Decodes with `readers.len() + 1` threads: each of `readers` (the
    /// same file, opened again) decodes blocks on a thread of its own that
    /// stays up for the read, and the thread iterating decodes blocks too
    /// while the next one in file order is not ready. Batches come in file
    /// order; at most `readers.len() + 2` blocks are decoded ahead of the
    /// one handed out (the memory bound).
    pub fn with_threads(mut self, readers: Vec<FileReader<R>>) -> Self {
        self.extra = readers;
        self
    }

    /// The next block's batch (`None` after the last), on this thread or,
    /// with extra readers, from the decoding threads.
    fn next_block(&mut self) -> Option<Result<RecordBatch, ArrowError>>
    where
        R: Send + 'static,
    {
        if !self.extra.is_empty() && self.pool.is_none() && self.blocks.len() > 1 {
            let readers = std::mem::take(&mut self.extra);
            let window = readers.len() + 2;
            self.pool = Some(Pool::start(self.plan.clone(), readers, self.blocks.clone(), window));
            self.blocks = self.blocks.end..self.blocks.end;
        }
        if let Some(pool) = &mut self.pool {
            return pool.next(self.plan.as_ref(), &mut self.reader);
        }
        let i = self.blocks.next()?;
        let out = self.plan.decode(&mut self.reader, i);
        if out.is_err() {
            // Nothing after a failed block.
            self.blocks = self.blocks.end..self.blocks.end;
        }
        Some(out)
    }

    /// Reads and converts the next block, split into batches of at most
    /// `batch_size` rows.
    fn refill(&mut self) -> bool
    where
        R: Send + 'static,
    {
        let Some(r) = self.next_block() else {
            return false;
        };
        match r {
            Ok(batch) if batch.num_rows() == 0 => {}
            Ok(batch) => match self.batch_size {
                Some(n) if batch.num_rows() > n => {
                    let mut at = 0;
                    while at < batch.num_rows() {
                        let len = n.min(batch.num_rows() - at);
                        self.ready.push_back(Ok(batch.slice(at, len)));
                        at += len;
                    }
                }
                _ => self.ready.push_back(Ok(batch)),
            },
            Err(e) => self.ready.push_back(Err(e)),
        }
        true
    }
}

/// What every block of a read goes through, shared by the decoding threads:
/// the read (the columns asked for and those the filters need, the first
/// filter to skip blocks by their statistics), the filters tested on
/// batches (all of them) and the columns kept after them.
struct Plan {
    q: ReadOptions,
    rest: Vec<Filter>,
    keep: Option<Vec<usize>>,
    ty: Metadata,
    schema: SchemaRef,
    out_schema: SchemaRef,
}

impl DecodeBlock for Plan {
    /// Block `i`'s records that the read asks for, as a batch of the read's
    /// output schema (empty when its statistics rule the first filter out):
    /// decoded into column buffers by the core and handed to Arrow as they
    /// are, then filtered with Arrow's kernels.
    fn decode<R: Read + Seek>(&self, reader: &mut FileReader<R>, i: usize) -> Result<RecordBatch, ArrowError> {
        let Some(columns) = reader.read_block_columns(i, &self.q).map_err(xbf_err)? else {
            return Ok(RecordBatch::new_empty(self.out_schema.clone()));
        };
        debug_assert_eq!(&columns.ty, &self.ty);
        let batch = columns_to_batch(self.schema.clone(), columns)?;
        let batch = crate::filter::filter_batch(&batch, &self.rest)?;
        match &self.keep {
            Some(k) => batch.project(k),
            None => Ok(batch),
        }
    }
}

impl<R: Read + Seek + Send + 'static> Iterator for FileBatchReader<R> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(b) = self.ready.pop_front() {
                return Some(b);
            }
            if !self.refill() {
                return None;
            }
        }
    }
}

impl<R: Read + Seek + Send + 'static> RecordBatchReader for FileBatchReader<R> {
    fn schema(&self) -> SchemaRef {
        self.plan.out_schema.clone()
    }
}

/// Writes record batches as an XBF file of the type [`xbf_type`] gives for
/// their schema, one block every `FileOptions::block_rows` records (or
/// `block_bytes` of estimated values). The batches' arrays go into the
/// block's typed columns ([`xbf::BlockColumns`]) whole, without a `Value` a
/// record; the file is byte for byte the one [`FileWriter::write`] gives for
/// the records [`batch_to_records`](crate::batch_to_records) reads from the same batches.
pub struct FileBatchWriter<W: Write> {
    writer: FileWriter<W>,
    ty: Metadata,
    /// The block being filled, with its estimated bytes.
    block: BlockColumns,
    bytes: usize,
    limits: (usize, usize),
    /// Full blocks waiting to be encoded together, up to `threads` of them.
    full: Vec<BlockColumns>,
    threads: usize,
}

impl<W: Write> FileBatchWriter<W> {
    /// Starts a file for batches of `schema`.
    pub fn new(out: W, schema: &arrow_schema::Schema, opts: FileOptions) -> Result<Self, ArrowError> {
        let ty = xbf_type(schema)?;
        let limits = opts.block_limits();
        let writer = FileWriter::new(out, ty.clone(), opts).map_err(xbf_err)?;
        Ok(FileBatchWriter {
            writer,
            block: BlockColumns::new(&ty),
            ty,
            bytes: 0,
            limits,
            full: Vec::new(),
            threads: 1,
        })
    }

    /// Encodes up to `n` blocks at once, each on a thread of its own, and
    /// writes them in order (the same file; memory holds `n` blocks). 1, the
    /// default, encodes each block on the calling thread as it fills.
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = n.max(1);
        self
    }

    /// The record type of the file.
    pub fn xbf_type(&self) -> &Metadata {
        &self.ty
    }

    /// Writes a batch's rows (blocks close as they fill).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        // Each column cast once to the Arrow type of its XBF type.
        let ty = self.ty.clone();
        let (columns, types): (Vec<ArrayRef>, Vec<&Metadata>) = match &ty {
            Metadata::Struct(s) => {
                if s.len() != batch.num_columns() {
                    return Err(ArrowError::SchemaError(format!("{} columns for {ty}", batch.num_columns())));
                }
                let types: Vec<&Metadata> = s.fields().map(|(_, t)| t).collect();
                let cols = types.iter().zip(batch.columns()).map(|(t, c)| cast_for(t, c)).collect::<Result<_, _>>()?;
                (cols, types)
            }
            other => match batch.columns() {
                [col] => (vec![cast_for(other, col)?], vec![other]),
                _ => return Err(ArrowError::SchemaError(format!("{} columns for {ty}", batch.num_columns()))),
            },
        };
        let n = batch.num_rows();
        let mut sizes = vec![0usize; n];
        for (t, c) in types.iter().zip(&columns) {
            add_sizes(t, c, &mut sizes)?;
        }
        // Blocks close where FileWriter::write would close them.
        let (max_rows, max_bytes) = self.limits;
        let mut start = 0;
        for (i, size) in sizes.into_iter().enumerate() {
            self.bytes += size;
            if self.block.records() + (i + 1 - start) >= max_rows || self.bytes >= max_bytes {
                self.push(&types, &columns, start, i + 1 - start)?;
                self.flush()?;
                start = i + 1;
            }
        }
        self.push(&types, &columns, start, n - start)
    }

    /// Pushes `len` rows from `start` of the cast columns into the block.
    fn push(&mut self, types: &[&Metadata], columns: &[ArrayRef], start: usize, len: usize) -> Result<(), ArrowError> {
        if len == 0 {
            return Ok(());
        }
        match &self.ty {
            Metadata::Struct(_) => {
                for (i, (t, c)) in types.iter().zip(columns).enumerate() {
                    push(self.block.root().field(i).map_err(xbf_err)?, t, &c.slice(start, len))?;
                }
            }
            _ => push(self.block.root(), types[0], &columns[0].slice(start, len))?,
        }
        self.block.add_records(len);
        Ok(())
    }

    /// Closes the block being filled; encodes and writes the full blocks
    /// once there are `threads` of them.
    fn flush(&mut self) -> Result<(), ArrowError> {
        let block = std::mem::replace(&mut self.block, BlockColumns::new(&self.ty));
        self.bytes = 0;
        if block.records() > 0 {
            self.full.push(block);
        }
        if self.full.len() >= self.threads {
            self.write_full()?;
        }
        Ok(())
    }

    /// Encodes the full blocks, each on its own thread if there are several,
    /// and writes them in order.
    fn write_full(&mut self) -> Result<(), ArrowError> {
        let mut blocks = std::mem::take(&mut self.full);
        if blocks.len() <= 1 {
            return blocks.pop().map_or(Ok(()), |b| self.writer.write_columns(b).map_err(xbf_err));
        }
        let encoder = self.writer.block_encoder();
        let encoded: Vec<Result<xbf::EncodedBlock, ArrowError>> = std::thread::scope(|s| {
            let handles: Vec<_> = blocks
                .into_iter()
                .map(|b| {
                    let encoder = &encoder;
                    s.spawn(move || encoder.encode(b).map_err(xbf_err))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| Err(ArrowError::ComputeError("an encoding thread panicked".into())))
                })
                .collect()
        });
        for block in encoded {
            self.writer.write_encoded(block?).map_err(xbf_err)?;
        }
        Ok(())
    }

    /// Writes the last blocks and the footer.
    pub fn finish(mut self) -> Result<W, ArrowError> {
        self.flush()?;
        self.write_full()?;
        self.writer.finish().map_err(xbf_err)
    }
}

/// A columnar message of a `vec<T>` as one record batch.
pub fn message_to_batch(bytes: &[u8]) -> Result<RecordBatch, ArrowError> {
    match xbf::decode_message(bytes).map_err(xbf_err)? {
        Value::Vec(v) => {
            let ty = v.element_type().clone();
            batch_with_schema(arrow_schema(&ty)?, &ty, v.items())
        }
        other => Err(ArrowError::SchemaError(format!("a message of {}, not of a vec of records", other.metadata()))),
    }
}

/// A record batch as a columnar message of a `vec<T>`: its arrays go into
/// the message's columns whole (the bytes that encoding the records of
/// [`batch_to_records`](crate::batch_to_records) as a columnar message gives).
pub fn batch_to_message(batch: &RecordBatch) -> Result<Vec<u8>, ArrowError> {
    let ty = xbf_type(&batch.schema())?;
    let mut cols = Columns::new(&Metadata::vec(ty.clone()));
    let records = cols.root().push_len(batch.num_rows()).map_err(xbf_err)?;
    match &ty {
        Metadata::Struct(s) => {
            if s.len() != batch.num_columns() {
                return Err(ArrowError::SchemaError(format!("{} columns for {ty}", batch.num_columns())));
            }
            for (i, ((_, fty), col)) in s.fields().zip(batch.columns()).enumerate() {
                push(records.field(i).map_err(xbf_err)?, fty, &cast_for(fty, col)?)?;
            }
        }
        other => match batch.columns() {
            [col] => push(records, other, &cast_for(other, col)?)?,
            _ => return Err(ArrowError::SchemaError(format!("{} columns for {ty}", batch.num_columns()))),
        },
    }
    EncodeOptions::default().encode_columns(cols).map_err(xbf_err)
}
