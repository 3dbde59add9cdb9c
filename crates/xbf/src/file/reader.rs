//! Reading XBF files: from the end through the footer ([`FileReader`]:
//! any block directly, only the columns asked for, blocks skipped by their
//! statistics, blocks decoded on several threads), or forward as a stream
//! of blocks ([`FileStreamReader`], for pipes and unfinished files).

use std::collections::VecDeque;
use std::io::{Read, Seek, SeekFrom};

use crate::columnar::{self, ColumnBatch, Cursor, Selection};
use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::Metadata;
use crate::options::DecodeOptions;
use crate::rows::input::{Input, IoInput};
use crate::rows::value_read::{bad_varint, Decoder};
use crate::value::Value;
use crate::wire::varint;
use crate::wire::Version;
use crate::wire::{FLAG_CHECKSUM, FLAG_COLUMNAR, FLAG_SCHEMA_REF, FLAG_STREAM, V2_MARKER};

use super::footer::{self, body_len_of, BlockInfo, Slot, MAGIC, TRAILER};
use super::stats::{Bound, Predicate};

/// What to read of a file: which fields, which records, and what to do
/// with damaged blocks.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    fields: Option<Vec<String>>,
    filter: Option<Predicate>,
    skip_damaged: bool,
    threads: usize,
}

impl ReadOptions {
    /// Decode only these fields (dotted paths, as in SPEC.md §22.6); only
    /// their columns' bytes are read.
    pub fn fields<S: AsRef<str>>(mut self, paths: &[S]) -> Self {
        self.fields = Some(paths.iter().map(|p| p.as_ref().to_owned()).collect());
        self
    }

    /// Keep only the records that match; blocks whose statistics rule the
    /// predicate out are not read at all.
    pub fn filter(mut self, predicate: Predicate) -> Self {
        self.filter = Some(predicate);
        self
    }

    /// Skip a damaged block (bad checksum, bad columns) instead of failing;
    /// [`FileReader::damaged`] lists the blocks skipped.
    pub fn skip_damaged(mut self, yes: bool) -> Self {
        self.skip_damaged = yes;
        self
    }

    /// Whether damaged blocks are skipped.
    pub fn skips_damaged(&self) -> bool {
        self.skip_damaged
    }

    /// Decode this many blocks at a time, each on its own thread (default 1).
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }
}

/// A block that could not be read: its number, its bytes and why.
#[derive(Clone, Debug, PartialEq)]
pub struct DamagedBlock {
    /// The block's number, from 0.
    pub index: usize,
    /// Its byte range in the file.
    pub range: std::ops::Range<u64>,
    /// What was wrong.
    pub error: Error,
}

/// The selection and filter of a read, checked against the file's type.
struct Plan {
    /// What to decode: the fields asked for and the filter's field.
    decode: Option<Selection>,
    /// What to hand out (`None`: what was decoded).
    keep: Option<Selection>,
    filter: Option<Bound>,
}

impl Plan {
    fn new(ty: &Metadata, q: &ReadOptions) -> Result<Plan> {
        let filter = q.filter.as_ref().map(|p| p.bind(ty)).transpose()?;
        let Some(fields) = &q.fields else {
            return Ok(Plan { decode: None, keep: None, filter });
        };
        let keep = Selection::from_paths(fields);
        if columnar::prune_type(ty, &keep).is_none() {
            return Err(Error::new(ErrorKind::TypeMismatch, format!("no field of {ty} is among {fields:?}")));
        }
        let mut all = fields.clone();
        if let Some(f) = &q.filter {
            all.push(f.field().to_owned());
        }
        let decode = Selection::from_paths(&all);
        // When the filter's field is among the fields, the decoded records
        // are already what is kept: no record needs pruning.
        let same = columnar::prune_type(ty, &decode) == columnar::prune_type(ty, &keep);
        Ok(Plan { decode: Some(decode), keep: (!same).then_some(keep), filter })
    }
}

/// A block's body as read: whole, or with only the wanted columns filled.
/// `bytes[range]` is the body, at file offset `base` (a whole block's read
/// keeps its length prefix and CRC around the body rather than copying the
/// body out: one allocation of the block's size a read, not two).
struct Raw {
    bytes: Vec<u8>,
    range: std::ops::Range<usize>,
    base: u64,
}

impl Raw {
    fn body(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }
}

/// A cursor over a block body past its record count, and the count (at
/// least one record).
fn body_cursor(raw: &Raw) -> Result<(Cursor<'_>, u64)> {
    let mut c = Cursor::new(raw.body(), raw.base).in_file();
    let n_at = c.offset();
    let n = c.varint(64)? as u64;
    if n == 0 {
        return Err(bad_varint(n_at, "a block holds at least one record".to_owned()));
    }
    Ok((c, n))
}

/// `e` with the path's root named by the file's type, as a message's are.
fn in_root(ty: &Metadata, e: Error) -> Error {
    match ty {
        Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
        Metadata::Enum(s) => e.within(PathSegment::Root(s.name().into())),
        _ => e,
    }
}

/// Decodes a block body (record count, then columns) at file offset `base`.
fn decode_body(ty: &Metadata, raw: &Raw, opts: &DecodeOptions, plan: &Plan) -> Result<Vec<Value>> {
    let (mut c, n) = body_cursor(raw)?;
    let mut reader = columnar::Reader::new(opts);
    let root = |e: Error| in_root(ty, e);
    let (_, values) = reader.node(ty, n, &mut c, 0, plan.decode.as_ref()).map_err(root)?;
    if !c.at_end() {
        return Err(Error::at(ErrorKind::TrailingBytes, c.offset(), "bytes remain after the block's columns"));
    }
    let mut out = Vec::with_capacity(n.min(1 << 20) as usize);
    for v in values {
        if plan.filter.as_ref().map_or(true, |f| f.matches(&v)) {
            match &plan.keep {
                Some(keep) => out.extend(columnar::prune(ty, v, keep)),
                None => out.push(v),
            }
        }
    }
    Ok(out)
}

/// Decodes a block body into column buffers, as [`decode_body`] decodes it
/// into values (same checks, errors and paths), without testing the filter.
fn decode_columns(ty: &Metadata, raw: &Raw, opts: &DecodeOptions, plan: &Plan) -> Result<ColumnBatch> {
    let (mut c, n) = body_cursor(raw)?;
    let mut reader = columnar::Reader::new(opts);
    let root = |e: Error| in_root(ty, e);
    let data = reader.column_node(ty, n, &mut c, 0, plan.decode.as_ref()).map_err(root)?;
    if !c.at_end() {
        return Err(Error::at(ErrorKind::TrailingBytes, c.offset(), "bytes remain after the block's columns"));
    }
    let pty = match &plan.decode {
        Some(sel) => columnar::prune_type(ty, sel).expect("checked by the plan"),
        None => ty.clone(),
    };
    Ok(ColumnBatch { ty: pty, records: n, root: data })
}

/// Reads the header and type; the input then stands at the first block.
fn read_head<I: Input>(d: &mut Decoder<'_, I>) -> Result<(Metadata, bool)> {
    let first = d.input.u8()?;
    if first != V2_MARKER {
        return Err(Error::at(ErrorKind::Unsupported, 0, format!("an XBF file starts with c2, not 0x{first:02x}")));
    }
    let header = d.header_after_marker()?;
    let file = FLAG_COLUMNAR | FLAG_STREAM | FLAG_CHECKSUM;
    if header.flags & file != file {
        return Err(Error::at(
            ErrorKind::Unsupported,
            1,
            format!("header flags 0x{:02x} are not those of an XBF file (0e or 0f)", header.flags),
        ));
    }
    Ok((d.schema(&header)?, header.flags & FLAG_SCHEMA_REF != 0))
}

/// Whether `bytes` (at least the first two of an input) start an XBF file
/// rather than a message or a record stream.
pub fn is_file(bytes: &[u8]) -> bool {
    bytes.len() >= 2
        && bytes[0] == V2_MARKER
        && bytes[1] & !FLAG_SCHEMA_REF == FLAG_COLUMNAR | FLAG_STREAM | FLAG_CHECKSUM
}

fn io_at(at: u64) -> impl FnOnce(std::io::Error) -> Error {
    move |e| Error::io(at, e)
}

/// Reads an XBF file from the end: the footer first, then any block, any
/// column of it, directly.
///
/// ```
/// use xbf::{FileOptions, FileReader, FileWriter, Predicate, ReadOptions, StructValue, Value};
///
/// let ty = xbf::metadata_of::<Flight>()?;
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Flight { delay: i32, origin: String }
/// let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(100))?;
/// for i in 0..1000 {
///     w.write_serde(&Flight { delay: i, origin: if i % 2 == 0 { "SFO".into() } else { "LAX".into() } })?;
/// }
/// let bytes = w.finish()?;
///
/// let mut r = FileReader::open(std::io::Cursor::new(bytes))?;
/// let q = ReadOptions::default().fields(&["origin"]).filter(Predicate::parse("delay >= 950")?);
/// let late: Vec<Value> = r.records(&q).collect::<Result<_, _>>()?;
/// assert_eq!(late.len(), 50);
/// assert_eq!(late[0].get("origin"), Some(&Value::String("SFO".into())));
/// assert_eq!(r.blocks_ruled_out(&q)?, 9); // only the last block was read
/// # Ok::<(), xbf::Error>(())
/// ```
pub struct FileReader<R> {
    src: R,
    ty: Metadata,
    by_ref: bool,
    opts: DecodeOptions,
    blocks: Vec<BlockInfo>,
    slots: Option<Vec<Slot>>,
    damaged: Vec<DamagedBlock>,
    /// The last block's bytes, given back after decoding (nothing decoded
    /// borrows them) so that the next block is read into the same memory:
    /// no allocation, zeroing or page faults of a block's size per block.
    scratch: Vec<u8>,
}

impl<R: Read + Seek> FileReader<R> {
    /// Opens a file with the default options: reads its header, type and
    /// footer. A file without a footer (its writer died, or it is being
    /// written) fails with `truncated`: read it with [`FileStreamReader`].
    pub fn open(src: R) -> Result<Self> {
        Self::with_options(src, DecodeOptions::default())
    }

    /// Opens a file; `opts` sets the limits and the known schemas.
    pub fn with_options(mut src: R, opts: DecodeOptions) -> Result<Self> {
        src.seek(SeekFrom::Start(0)).map_err(io_at(0))?;
        let (ty, by_ref, data_start) = {
            let mut d = Decoder::new(IoInput::new(&mut src), &opts, Version::V2);
            let (ty, by_ref) = read_head(&mut d)?;
            (ty, by_ref, d.input.offset())
        };
        let len = src.seek(SeekFrom::End(0)).map_err(io_at(0))?;
        let unfinished = || {
            Error::at(
                ErrorKind::Truncated,
                len,
                "the file has no footer (unfinished?): read it forward for its whole blocks",
            )
        };
        if len < data_start + 2 + TRAILER as u64 {
            return Err(unfinished());
        }
        let trailer_at = len - TRAILER as u64;
        src.seek(SeekFrom::Start(trailer_at)).map_err(io_at(trailer_at))?;
        let mut trailer = [0u8; TRAILER];
        src.read_exact(&mut trailer).map_err(io_at(trailer_at))?;
        if trailer[8..] != MAGIC {
            return Err(unfinished());
        }
        let stored = u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes"));
        let flen = u64::from(u32::from_le_bytes(trailer[4..8].try_into().expect("4 bytes")));
        let head = 1 + varint::len(u128::from(flen)) as u64;
        let Some(marker_at) = trailer_at.checked_sub(flen + head).filter(|&m| m >= data_start) else {
            return Err(Error::at(
                ErrorKind::InvalidColumn,
                trailer_at + 4,
                "the footer's length reaches past the blocks",
            ));
        };
        src.seek(SeekFrom::Start(marker_at)).map_err(io_at(marker_at))?;
        let mut footer = vec![0u8; (head + flen) as usize];
        src.read_exact(&mut footer).map_err(io_at(marker_at))?;
        let mut expect = vec![0u8];
        varint::put(&mut expect, u128::from(flen));
        if footer[..head as usize] != expect[..] {
            return Err(Error::at(
                ErrorKind::InvalidColumn,
                marker_at,
                "the footer does not start with 00 and its length",
            ));
        }
        let body = &footer[head as usize..];
        let actual = crc32c::crc32c(body);
        if actual != stored {
            return Err(Error::at(
                ErrorKind::BadChecksum,
                trailer_at,
                format!("the footer's CRC-32C is {actual:08x}, the file says {stored:08x}"),
            ));
        }
        let slots = footer::slots(&ty);
        let blocks = footer::parse(body, marker_at + head, slots.as_deref(), data_start, marker_at, &opts)?;
        Ok(FileReader { src, ty, by_ref, opts, blocks, slots, damaged: Vec::new(), scratch: Vec::new() })
    }

    /// The record type.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// Whether the header names the type by fingerprint.
    pub fn by_reference(&self) -> bool {
        self.by_ref
    }

    /// Every block, as the footer lists it.
    pub fn blocks(&self) -> &[BlockInfo] {
        &self.blocks
    }

    /// How many records the file holds.
    pub fn records_total(&self) -> u64 {
        self.blocks.iter().map(|b| b.records).sum()
    }

    /// The paths of a block's columns (`xbf stats` names), when the type
    /// fixes them (no `any`).
    pub fn column_paths(&self) -> Option<Vec<String>> {
        self.slots.as_ref().map(|s| s.iter().map(|s| s.path.clone()).collect())
    }

    /// The blocks skipped as damaged so far (with [`ReadOptions::skip_damaged`]).
    pub fn damaged(&self) -> &[DamagedBlock] {
        &self.damaged
    }

    /// The type of the records a read with `q` hands out.
    pub fn projected_type(&self, q: &ReadOptions) -> Result<Metadata> {
        Plan::new(&self.ty, q)?;
        Ok(match &q.fields {
            Some(fields) => {
                columnar::prune_type(&self.ty, &Selection::from_paths(fields)).expect("checked by the plan")
            }
            None => self.ty.clone(),
        })
    }

    /// Whether block `i`'s statistics show that no record matches the filter.
    fn ruled_out(&self, i: usize, plan: &Plan) -> bool {
        let (Some(f), Some(slots)) = (&plan.filter, &self.slots) else { return false };
        let path = f.column_path();
        let b = &self.blocks[i];
        slots
            .iter()
            .zip(&b.columns)
            .any(|(s, c)| s.stat.is_some() && s.path == path && f.rules_out(&c.stats, b.records))
    }

    /// How many blocks the statistics rule out for `q`'s filter.
    pub fn blocks_ruled_out(&self, q: &ReadOptions) -> Result<usize> {
        let plan = Plan::new(&self.ty, q)?;
        Ok((0..self.blocks.len()).filter(|&i| self.ruled_out(i, &plan)).count())
    }

    fn damage(&self, i: usize, e: Error) -> Error {
        let r = self.blocks[i].range();
        e.context(&format!("block {i} (bytes {}..{})", r.start, r.end))
    }

    /// Reads block `i`'s bytes: all of it, checked by its CRC-32C, or only
    /// the wanted columns, each checked by the CRC-32C the footer gives it.
    fn fetch(&mut self, i: usize, plan: &Plan) -> Result<Raw> {
        let b = self.blocks[i].clone();
        let base = b.body_offset();
        let len = b.body_len();
        let partial = match (&self.slots, &plan.decode) {
            (Some(slots), Some(sel)) => Some(slots.iter().map(|s| footer::wanted(Some(sel), s)).collect::<Vec<_>>()),
            _ => None,
        };
        let Some(wanted) = partial.filter(|w| w.iter().any(|x| !x)) else {
            self.src.seek(SeekFrom::Start(b.offset)).map_err(io_at(b.offset))?;
            // The last block's memory, resized (only growth is zeroed): every
            // byte of it is read over.
            let mut bytes = std::mem::take(&mut self.scratch);
            bytes.resize(b.size as usize, 0);
            self.src.read_exact(&mut bytes).map_err(io_at(b.offset))?;
            let mut c = Cursor::new(&bytes, b.offset).in_file();
            if c.varint(64)? as u64 != len {
                return Err(Error::at(ErrorKind::InvalidColumn, b.offset, "the block's length is not the footer's"));
            }
            let body_at = c.position();
            let body = &bytes[body_at..body_at + len as usize];
            let crc_at = base + len;
            let stored = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes"));
            let actual = crc32c::crc32c(body);
            if stored != actual {
                return Err(Error::at(
                    ErrorKind::BadChecksum,
                    crc_at,
                    format!("the block's CRC-32C is {actual:08x}, the file says {stored:08x}"),
                ));
            }
            let mut c = Cursor::new(body, base).in_file();
            let count = c.varint(64)? as u64;
            if count == 0 {
                return Err(bad_varint(base, "a block holds at least one record".to_owned()));
            }
            if count != b.records {
                return Err(Error::at(ErrorKind::InvalidColumn, base, "the block's record count is not the footer's"));
            }
            let range = body_at..body_at + len as usize;
            return Ok(Raw { bytes, range, base });
        };
        // The body as the file has it, each unread column's length prefix
        // written (so that the decoder skips it) over bytes it never looks
        // at: the last block's memory, resized (only growth is zeroed), whose
        // old bytes stay where the unread columns are (the footer checked
        // that the columns fill the body exactly, and the decoder skips an
        // unread column by its prefix).
        let mut body = std::mem::take(&mut self.scratch);
        body.resize(len as usize, 0);
        let mut head = Vec::with_capacity(10);
        varint::put(&mut head, u128::from(b.records));
        let mut pos = head.len();
        body[..pos].copy_from_slice(&head);
        for ((col, at), want) in b.columns.iter().zip(b.column_offsets()).zip(wanted) {
            let end = pos.saturating_add(col.size as usize);
            let Some(dst) = body.get_mut(pos..end) else {
                return Err(Error::at(ErrorKind::InvalidColumn, at, "the block's columns pass its body"));
            };
            if want {
                self.src.seek(SeekFrom::Start(at)).map_err(io_at(at))?;
                self.src.read_exact(dst).map_err(io_at(at))?;
                let actual = crc32c::crc32c(dst);
                if actual != col.crc {
                    return Err(Error::at(
                        ErrorKind::BadChecksum,
                        at,
                        format!("the column's CRC-32C is {actual:08x}, the footer says {:08x}", col.crc),
                    ));
                }
            } else {
                head.clear();
                varint::put(&mut head, u128::from(body_len_of(col.size)));
                let Some(prefix) = dst.get_mut(..head.len()) else {
                    return Err(Error::at(ErrorKind::InvalidColumn, at, "a column too short for its length prefix"));
                };
                prefix.copy_from_slice(&head);
            }
            pos = end;
        }
        let range = 0..body.len();
        Ok(Raw { bytes: body, range, base })
    }

    /// Block `i`'s columns with the encoding each one took (the block is
    /// read whole and its checksum checked; the columns are not decoded).
    pub fn block_column_stats(&mut self, i: usize) -> Result<Vec<crate::ColumnStats>> {
        if i >= self.blocks.len() {
            return Err(Error::new(ErrorKind::Truncated, format!("block {i} of a file of {}", self.blocks.len())));
        }
        let plan = Plan { decode: None, keep: None, filter: None };
        let raw = self.fetch(i, &plan).map_err(|e| self.damage(i, e))?;
        let skip = varint::len(u128::from(self.blocks[i].records));
        columnar::column_stats(&self.ty, &raw.body()[skip..], raw.base + skip as u64, &self.opts)
            .map_err(|e| self.damage(i, e))
    }

    /// The records of block `i` that `q` asks for (none if the statistics
    /// rule its filter out, in which case nothing of the block is read).
    pub fn read_block(&mut self, i: usize, q: &ReadOptions) -> Result<Vec<Value>> {
        if i >= self.blocks.len() {
            return Err(Error::new(ErrorKind::Truncated, format!("block {i} of a file of {}", self.blocks.len())));
        }
        let plan = Plan::new(&self.ty, q)?;
        if self.ruled_out(i, &plan) {
            return Ok(Vec::new());
        }
        self.fetch(i, &plan)
            .and_then(|raw| {
                let out = decode_body(&self.ty, &raw, &self.opts, &plan);
                self.scratch = raw.bytes;
                out
            })
            .map_err(|e| self.damage(i, e))
    }

    /// Block `i` decoded into column buffers, with no [`Value`] per record:
    /// the fields `q` asks for and its filter's field (all fields without
    /// [`ReadOptions::fields`]), of every record of the block. `None` when
    /// the block's statistics rule `q`'s filter out (nothing of it is then
    /// read); otherwise the filter is not tested record by record: the
    /// caller tests the rows (crates/xbf-arrow does, on Arrow arrays).
    /// Errors are those [`FileReader::read_block`] gives.
    pub fn read_block_columns(&mut self, i: usize, q: &ReadOptions) -> Result<Option<ColumnBatch>> {
        if i >= self.blocks.len() {
            return Err(Error::new(ErrorKind::Truncated, format!("block {i} of a file of {}", self.blocks.len())));
        }
        let plan = Plan::new(&self.ty, q)?;
        if self.ruled_out(i, &plan) {
            return Ok(None);
        }
        self.fetch(i, &plan)
            .and_then(|raw| {
                let out = decode_columns(&self.ty, &raw, &self.opts, &plan);
                self.scratch = raw.bytes;
                out
            })
            .map(Some)
            .map_err(|e| self.damage(i, e))
    }

    /// The records `q` asks for, block by block, decoding
    /// [`ReadOptions::threads`] blocks at a time.
    pub fn blocks_iter(&mut self, q: &ReadOptions) -> Blocks<'_, R> {
        let plan = Plan::new(&self.ty, q);
        let (plan, failed) = match plan {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e)),
        };
        Blocks { reader: self, plan, failed, next: 0, ready: VecDeque::new(), q: q.clone(), done: false }
    }

    /// The records `q` asks for, one by one.
    pub fn records(&mut self, q: &ReadOptions) -> impl Iterator<Item = Result<Value>> + '_ {
        self.blocks_iter(q).flat_map(|b| -> Box<dyn Iterator<Item = Result<Value>>> {
            match b {
                Ok((_, records)) => Box::new(records.into_iter().map(Ok)),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        })
    }
}

/// The blocks of a read, in order: `(index, records)`; blocks ruled out by
/// the filter are left out.
pub struct Blocks<'a, R> {
    reader: &'a mut FileReader<R>,
    plan: Option<Plan>,
    failed: Option<Error>,
    next: usize,
    ready: VecDeque<(usize, Result<Vec<Value>>)>,
    q: ReadOptions,
    done: bool,
}

impl<R: Read + Seek> Blocks<'_, R> {
    /// Reads the next few blocks' bytes, then decodes them, each on its own
    /// thread when there are several.
    fn refill(&mut self) {
        let plan = self.plan.as_ref().expect("a plan");
        let want = self.q.threads.max(1);
        let mut raws = Vec::new();
        while raws.len() < want && self.next < self.reader.blocks.len() {
            let i = self.next;
            self.next += 1;
            if self.reader.ruled_out(i, plan) {
                continue;
            }
            raws.push((i, self.reader.fetch(i, plan)));
        }
        let (ty, opts) = (&self.reader.ty, &self.reader.opts);
        let decoded: Vec<(usize, Result<Vec<Value>>)> = if raws.len() > 1 {
            std::thread::scope(|s| {
                let handles: Vec<_> = raws
                    .iter()
                    .map(|(i, raw)| {
                        (
                            *i,
                            s.spawn(move || {
                                raw.as_ref().map_err(Clone::clone).and_then(|r| decode_body(ty, r, opts, plan))
                            }),
                        )
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|(i, h)| {
                        (i, h.join().unwrap_or_else(|_| Err(Error::new(ErrorKind::Io, "a decoding thread panicked"))))
                    })
                    .collect()
            })
        } else {
            raws.into_iter().map(|(i, raw)| (i, raw.and_then(|r| decode_body(ty, &r, opts, plan)))).collect()
        };
        for (i, r) in decoded {
            let r = r.map_err(|e| self.reader.damage(i, e));
            self.ready.push_back((i, r));
        }
    }
}

impl<R: Read + Seek> Iterator for Blocks<'_, R> {
    type Item = Result<(usize, Vec<Value>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.failed.take() {
            self.done = true;
            return Some(Err(e));
        }
        loop {
            if self.done {
                return None;
            }
            if self.ready.is_empty() {
                if self.next >= self.reader.blocks.len() {
                    return None;
                }
                self.refill();
                continue;
            }
            let (i, r) = self.ready.pop_front().expect("not empty");
            match r {
                Ok(records) => return Some(Ok((i, records))),
                Err(e) if self.q.skip_damaged => {
                    let range = self.reader.blocks[i].range();
                    self.reader.damaged.push(DamagedBlock { index: i, range, error: e });
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Reads an XBF file forward, as a stream of blocks, needing nothing but
/// the blocks: for pipes, and for files whose writer died before the
/// footer (every whole block is read; the end then fails with `truncated`).
///
/// ```
/// use xbf::{FileOptions, FileStreamReader, FileWriter, ReadOptions, Value};
///
/// let mut w = FileWriter::new(Vec::new(), xbf::PrimitiveType::U32.into(), FileOptions::default().block_rows(2))?;
/// for x in 0..5u32 {
///     w.write(Value::U32(x))?;
/// }
/// let first_block_end = w.blocks()[0].range().end as usize;
/// let bytes = w.finish()?;
/// // Cut after the first block: its records still come out, then `truncated`.
/// let mut r = FileStreamReader::new(&bytes[..first_block_end])?;
/// assert_eq!(r.next_block(&ReadOptions::default())?, Some(vec![Value::U32(0), Value::U32(1)]));
/// assert_eq!(r.next_block(&ReadOptions::default()).unwrap_err().kind(), xbf::ErrorKind::Truncated);
/// // Whole, it ends cleanly after the footer.
/// let mut r = FileStreamReader::new(&bytes[..])?;
/// let mut n = 0;
/// while let Some(block) = r.next_block(&ReadOptions::default())? {
///     n += block.len();
/// }
/// assert_eq!(n, 5);
/// # Ok::<(), xbf::Error>(())
/// ```
pub struct FileStreamReader<R> {
    input: IoInput<R>,
    ty: Metadata,
    opts: DecodeOptions,
    blocks: usize,
    after_footer: bool,
    data_start: u64,
    /// Offset, size and record count of each block read, to hold a footer
    /// against.
    seen: Vec<(u64, u64, u64)>,
}

impl<R: Read> FileStreamReader<R> {
    /// Reads the header and type with the default options.
    pub fn new(reader: R) -> Result<Self> {
        Self::with_options(reader, DecodeOptions::default())
    }

    /// Reads the header and type; `opts` sets the limits and known schemas.
    pub fn with_options(reader: R, opts: DecodeOptions) -> Result<Self> {
        let mut d = Decoder::new(IoInput::new(reader), &opts, Version::V2);
        let (ty, _) = read_head(&mut d)?;
        let input = d.input;
        let data_start = input.offset();
        Ok(FileStreamReader { input, ty, opts, blocks: 0, after_footer: false, data_start, seen: Vec::new() })
    }

    /// The record type.
    pub fn metadata(&self) -> &Metadata {
        &self.ty
    }

    /// The next block's records that `q` asks for (`q`'s filter applies to
    /// the records; there are no statistics to skip by); `None` after the
    /// footer at the end of the file.
    pub fn next_block(&mut self, q: &ReadOptions) -> Result<Option<Vec<Value>>> {
        let plan = Plan::new(&self.ty, q)?;
        loop {
            let len_at = self.input.offset();
            let Some(first) = self.input.next_byte()? else {
                if self.after_footer {
                    return Ok(None);
                }
                return Err(Error::at(
                    ErrorKind::Truncated,
                    len_at,
                    format!("the file ends after {} whole blocks, without a footer", self.blocks),
                ));
            };
            let len = Decoder::new(&mut self.input, &self.opts, Version::V2).uvarint_after(first, len_at, 64)? as u64;
            if len == 0 {
                self.footer(len_at)?;
                continue;
            }
            self.after_footer = false;
            let cut = |e: Error| match e.kind() {
                ErrorKind::Truncated => Error::at(ErrorKind::Truncated, len_at, "the file ends inside a block"),
                _ => e,
            };
            let base = self.input.offset();
            let body = self.input.bytes(len).map_err(cut)?;
            let crc_at = self.input.offset();
            let stored = u32::from_le_bytes(self.input.array().map_err(cut)?);
            let actual = crc32c::crc32c(&body);
            let index = self.blocks;
            let range = format!("block {index} (bytes {len_at}..{})", crc_at + 4);
            if stored != actual {
                let e = Error::at(
                    ErrorKind::BadChecksum,
                    crc_at,
                    format!("the block's CRC-32C is {actual:08x}, the file says {stored:08x}"),
                );
                self.blocks += 1;
                return Err(e.context(&range));
            }
            self.blocks += 1;
            self.seen.push((len_at, crc_at + 4 - len_at, 0));
            let raw = Raw { range: 0..body.len(), bytes: body, base };
            let mut c = Cursor::new(raw.body(), base).in_file();
            let count = c.varint(64).map_err(|e| e.context(&range))? as u64;
            self.seen.last_mut().expect("pushed").2 = count;
            return decode_body(&self.ty, &raw, &self.opts, &plan).map(Some).map_err(|e| e.context(&range));
        }
    }

    /// Reads and checks a footer met going forward: it must list exactly
    /// the blocks read so far.
    fn footer(&mut self, at: u64) -> Result<()> {
        let flen = Decoder::new(&mut self.input, &self.opts, Version::V2).uvarint(32)? as u64;
        let base = self.input.offset();
        let body = self.input.bytes(flen)?;
        let trailer_at = self.input.offset();
        let trailer: [u8; TRAILER] = self.input.array()?;
        let stored = u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes"));
        let len = u64::from(u32::from_le_bytes(trailer[4..8].try_into().expect("4 bytes")));
        if trailer[8..] != MAGIC || len != flen {
            return Err(Error::at(
                ErrorKind::InvalidColumn,
                trailer_at,
                "the footer's trailer is not its length and XBFF",
            ));
        }
        let actual = crc32c::crc32c(&body);
        if actual != stored {
            return Err(Error::at(
                ErrorKind::BadChecksum,
                trailer_at,
                format!("the footer's CRC-32C is {actual:08x}, the file says {stored:08x}"),
            ));
        }
        let slots = footer::slots(&self.ty);
        let blocks = footer::parse(&body, base, slots.as_deref(), self.data_start, at, &self.opts)?;
        let listed: Vec<(u64, u64, u64)> = blocks.iter().map(|b| (b.offset, b.size, b.records)).collect();
        if listed != self.seen {
            return Err(Error::at(
                ErrorKind::InvalidColumn,
                base,
                format!("the footer lists {} blocks other than the {} read before it", listed.len(), self.seen.len()),
            ));
        }
        self.after_footer = true;
        Ok(())
    }
}
