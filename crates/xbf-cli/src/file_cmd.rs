//! XBF files (SPEC.md §24) on the command line: `from-csv` and
//! `from-json --lines` write them from input of any size in two passes
//! (the types, then the records) with one block in memory; `cat`, `schema`,
//! `to-json`, `to-csv`, `stats` and `inspect` read them block by block,
//! with `--fields`, `--where` and `--skip-damaged`.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use xbf::{
    EnumMetadata, EnumValue, ErrorKind, FileOptions, FileReader, FileStreamReader, FileWriter, Metadata, OptionValue,
    Predicate, PrimitiveType, ReadOptions, StructMetadata, StructValue, Value, VecValue,
};

use crate::csvconv::{cell_text, csv_line, flat, not_records, parse_timestamp, row_record, ColumnType, ROW};
use crate::infer::Inference;
use crate::io::{open, progress_bar, xbf_error, CliResult, Failure, Output};

/// How commands that read files read them.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ReadArgs {
    /// Keep only the records where `FIELD OP VALUE` holds (OP one of
    /// `= != < <= > >=`, e.g. --where 'delay > 300'); a file's blocks whose
    /// statistics rule it out are not read.
    #[arg(long = "where", value_name = "FIELD OP VALUE")]
    pub filter: Option<String>,
    /// Skip damaged blocks of a file (reported on standard error) instead
    /// of stopping at the first.
    #[arg(long)]
    pub skip_damaged: bool,
}

/// How `from-csv` and `from-json --lines` write files.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct WriteArgs {
    /// Records a block of the file (default: 131,072 or about 32 MiB of
    /// values, whichever comes first).
    #[arg(long, value_name = "N")]
    pub block_rows: Option<usize>,
}

impl WriteArgs {
    fn options(&self, encode: xbf::EncodeOptions) -> FileOptions {
        let o = FileOptions::default().encode_options(encode);
        match self.block_rows {
            Some(n) => o.block_rows(n),
            None => o,
        }
    }
}

/// Whether the input (a path, or standard input, peeked without reading
/// it) is an XBF file rather than a message or a record stream.
pub fn is_file_input(input: Option<&Path>) -> CliResult<bool> {
    match input.filter(|p| *p != Path::new("-")) {
        Some(p) => {
            let Ok(mut f) = File::open(p) else { return Ok(false) }; // the usual open reports it
            let mut head = [0u8; 2];
            Ok(f.read_exact(&mut head).is_ok() && xbf::is_file(&head))
        }
        None => {
            let stdin = std::io::stdin();
            let mut lock = stdin.lock();
            let buf = lock.fill_buf().map_err(|e| Failure::Failed(format!("standard input: {e}")))?;
            Ok(xbf::is_file(buf))
        }
    }
}

/// An open XBF file: by its footer when it can be seeked and has one,
/// forward otherwise.
enum Opened {
    Seek(Box<FileReader<BufReader<File>>>),
    Forward(Box<FileStreamReader<Box<dyn BufRead>>>),
}

fn open_file(input: Option<&Path>) -> CliResult<(String, Opened)> {
    let name = crate::io::input_name(input);
    if let Some(p) = input.filter(|p| *p != Path::new("-")) {
        let f = File::open(p).map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
        match FileReader::open(BufReader::with_capacity(1 << 16, f)) {
            Ok(r) => return Ok((name, Opened::Seek(Box::new(r)))),
            Err(e) if e.kind() == ErrorKind::Truncated => {
                eprintln!("xbf: {name}: {}; reading its blocks forward", e.detail());
            }
            Err(e) => return Err(xbf_error(&name, &e)),
        }
    }
    let inp = open(input)?;
    let r = FileStreamReader::new(inp.reader).map_err(|e| xbf_error(&name, &e))?;
    Ok((name, Opened::Forward(Box::new(r))))
}

impl Opened {
    fn metadata(&self) -> &Metadata {
        match self {
            Opened::Seek(r) => r.metadata(),
            Opened::Forward(r) => r.metadata(),
        }
    }

    /// Calls `f` with each block's records that `q` keeps, in order, until
    /// it returns false; damaged blocks are skipped and reported when `q`
    /// says so. With `progress`, a file opened by its footer shows a
    /// progress bar by its blocks' bytes (a file read forward has one by
    /// its input's bytes, from [`open`]).
    fn each_block(
        &mut self,
        name: &str,
        q: &ReadOptions,
        progress: bool,
        mut f: impl FnMut(Vec<Value>) -> CliResult<bool>,
    ) -> CliResult {
        let report = |e: &xbf::Error| eprintln!("xbf: {name}: skipped a damaged block: {e}");
        match self {
            Opened::Seek(r) => {
                let ends: Vec<u64> = r.blocks().iter().map(|b| b.range().end).collect();
                let bar = match ends.last() {
                    Some(&end) if progress => progress_bar(name, end),
                    _ => indicatif::ProgressBar::hidden(),
                };
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
                let q = q.clone().threads(threads);
                for block in r.blocks_iter(&q) {
                    let (i, records) = block.map_err(|e| xbf_error(name, &e))?;
                    bar.set_position(ends[i]);
                    if !f(records)? {
                        break;
                    }
                }
                bar.finish_and_clear();
                for d in r.damaged() {
                    report(&d.error);
                }
            }
            Opened::Forward(r) => loop {
                match r.next_block(q) {
                    Ok(Some(records)) => {
                        if !f(records)? {
                            break;
                        }
                    }
                    Ok(None) => break,
                    // A block whose bytes were read whole but are wrong:
                    // the next one starts right after it.
                    Err(e) if q.skips_damaged() && !matches!(e.kind(), ErrorKind::Truncated | ErrorKind::Io) => {
                        report(&e)
                    }
                    Err(e) => return Err(xbf_error(name, &e)),
                }
            },
        }
        Ok(())
    }
}

fn read_options(name: &str, fields: &[String], args: &ReadArgs) -> CliResult<ReadOptions> {
    let mut q = ReadOptions::default().skip_damaged(args.skip_damaged);
    if !fields.is_empty() {
        q = q.fields(fields);
    }
    if let Some(w) = &args.filter {
        q = q.filter(Predicate::parse(w).map_err(|e| xbf_error(name, &e))?);
    }
    Ok(q)
}

/// `xbf cat` of a file: its type and size, then one record a line.
pub fn cat(input: Option<&Path>, head: Option<u64>, fields: &[String], args: &ReadArgs) -> CliResult {
    let (name, mut src) = open_file(input)?;
    let q = read_options(&name, fields, args)?;
    let mut out = Output::create(None)?;
    match &src {
        Opened::Seek(r) => out.line(&format!(
            "# XBF file of {}, {} records in {} blocks",
            r.metadata(),
            r.records_total(),
            r.blocks().len()
        ))?,
        Opened::Forward(r) => out.line(&format!("# XBF file of {}, read forward", r.metadata()))?,
    }
    let limit = head.unwrap_or(u64::MAX);
    let mut n = 0u64;
    src.each_block(&name, &q, false, |records| {
        for r in records {
            if n >= limit {
                return Ok(false);
            }
            out.line(&format!("#{n} {r}"))?;
            n += 1;
        }
        Ok(n < limit)
    })?;
    if head.is_some() && n == limit {
        out.line(&format!("# --head {n}: the file was not read further"))?;
    }
    out.finish()
}

/// `xbf schema` of a file.
pub fn schema(input: Option<&Path>, compact: bool) -> CliResult {
    let (_, src) = open_file(input)?;
    let ty = src.metadata();
    let mut out = Output::create(None)?;
    out.line(&if compact { format!("file of {ty}") } else { format!("file of {ty:#}") })?;
    out.finish()
}

/// `xbf to-json` of a file: a JSON array of the records, or with `lines`
/// one record a line (JSON Lines).
pub fn to_json(
    input: Option<&Path>,
    output: Option<&Path>,
    pretty: bool,
    lines: bool,
    fields: &[String],
    args: &ReadArgs,
) -> CliResult {
    let (name, mut src) = open_file(input)?;
    let q = read_options(&name, fields, args)?;
    let mut out = Output::create(output)?;
    let mut first = true;
    if !lines {
        out.str("[")?;
    }
    let progress = !out.is_terminal();
    src.each_block(&name, &q, progress, |records| {
        for r in &records {
            let text = xbf::json::to_json_string(r, pretty && !lines).map_err(|e| xbf_error(&name, &e))?;
            if lines {
                out.line(&text)?;
            } else {
                out.str(if first { "\n" } else { ",\n" })?;
                out.str(&text)?;
            }
            first = false;
        }
        Ok(true)
    })?;
    if !lines {
        out.str(if first { "]\n" } else { "\n]\n" })?;
    }
    out.finish()
}

/// `xbf to-csv` of a file of flat records.
pub fn to_csv(input: Option<&Path>, output: Option<&Path>, fields: &[String], args: &ReadArgs) -> CliResult {
    let (name, mut src) = open_file(input)?;
    let q = read_options(&name, fields, args)?;
    let ty = match &src {
        Opened::Seek(r) => r.projected_type(&q).map_err(|e| xbf_error(&name, &e))?,
        Opened::Forward(r) => {
            let ty = r.metadata().clone();
            if fields.is_empty() {
                ty
            } else {
                let sel: Vec<&str> = fields.iter().map(String::as_str).collect();
                project(&ty, &sel).ok_or_else(|| Failure::Failed(format!("{name}: no such fields {fields:?}")))?
            }
        }
    };
    let st = match &ty {
        Metadata::Struct(st) if st.fields().all(|(_, t)| flat(t)) => st.clone(),
        _ => return Err(not_records(&name, &ty)),
    };
    let mut out = Output::create(output)?;
    out.str(&csv_line(st.fields().map(|(n, _)| n.to_owned())))?;
    let progress = !out.is_terminal();
    src.each_block(&name, &q, progress, |records| {
        let mut text = String::new();
        for r in &records {
            let s = r.as_struct().expect("a record of the struct type");
            let cells: Vec<String> = s
                .values()
                .iter()
                .map(|v| {
                    let mut t = String::new();
                    cell_text(v, &mut t);
                    t
                })
                .collect();
            text.push_str(&csv_line(cells.into_iter()));
        }
        out.str(&text)?;
        Ok(true)
    })?;
    out.finish()
}

/// The type of flat records with only the named top-level fields.
fn project(ty: &Metadata, fields: &[&str]) -> Option<Metadata> {
    let Metadata::Struct(s) = ty else { return None };
    let kept: Vec<(&str, Metadata)> =
        s.fields().filter(|(n, _)| fields.contains(n)).map(|(n, t)| (n, t.clone())).collect();
    if kept.is_empty() {
        return None;
    }
    StructMetadata::new(s.name(), kept).ok().map(Metadata::from)
}

/// `xbf stats` of a file: where the bytes go, per column over all blocks,
/// then per block with each column's statistics.
pub fn stats(input: Option<&Path>) -> CliResult {
    let name = crate::io::input_name(input);
    let Some(path) = input.filter(|p| *p != Path::new("-")) else {
        return Err(Failure::Failed(format!("{name}: stats of a file reads its footer: give a path, not a pipe")));
    };
    let f = File::open(path).map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut r = FileReader::open(BufReader::new(f)).map_err(|e| xbf_error(&name, &e))?;
    let mut out = Output::create(None)?;
    let blocks = r.blocks().to_vec();
    let data: u64 = blocks.iter().map(|b| b.size).sum();
    let head = blocks.first().map_or(0, |b| b.offset);
    out.line(&format!(
        "{name}: XBF file, {len} bytes: {} records in {} blocks of {} bytes; header and type {head} bytes; footer parts {} bytes",
        r.records_total(),
        blocks.len(),
        data,
        len - data - head
    ))?;
    out.line(&format!("type: {}", r.metadata()))?;
    // Per column, over every block: bytes, share and the encodings used.
    let mut columns: Vec<(String, u64, Vec<&'static str>)> = Vec::new();
    let mut per_block = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let cols = r.block_column_stats(i).map_err(|e| xbf_error(&name, &e))?;
        for (j, c) in cols.iter().enumerate() {
            if columns.len() <= j {
                columns.push((c.path.clone(), 0, Vec::new()));
            }
            let slot = &mut columns[j];
            slot.1 += block.columns.get(j).map_or(c.bytes, |x| x.size);
            if !slot.2.contains(&c.encoding.name()) {
                slot.2.push(c.encoding.name());
            }
        }
        per_block.push(cols);
    }
    let w = columns.iter().map(|c| c.0.len()).max().unwrap_or(4).max(6);
    out.line(&format!("{:w$}  {:>12}  {:>6}  encodings", "column", "bytes", "share"))?;
    for (path, bytes, encs) in &columns {
        let share = 100.0 * *bytes as f64 / len.max(1) as f64;
        out.line(&format!("{path:w$}  {bytes:>12}  {share:>5.1}%  {}", encs.join(", ")))?;
    }
    for (i, (b, cols)) in blocks.iter().zip(&per_block).enumerate() {
        out.line(&format!("block {i}: bytes {}..{}, {} records", b.offset, b.offset + b.size, b.records))?;
        for (c, s) in b.columns.iter().zip(cols) {
            let st = &c.stats;
            let range = match &st.min_max {
                Some((lo, hi)) => format!("min {lo} max {hi}{}", if st.exact { "" } else { " (bounds)" }),
                None => String::new(),
            };
            let counts = match (st.nulls, st.nans) {
                (0, 0) => String::new(),
                (n, 0) => format!(" nulls {n}"),
                (0, x) => format!(" NaN {x}"),
                (n, x) => format!(" nulls {n} NaN {x}"),
            };
            out.line(&format!("  {:w$}  {:>10}  {:<16} {range}{counts}", s.path, c.size, s.encoding))?;
        }
    }
    out.finish()
}

/// `xbf inspect` of a file: its parts with their byte ranges.
pub fn inspect(input: Option<&Path>) -> CliResult {
    let (name, src) = open_file(input)?;
    let Opened::Seek(mut r) = src else {
        return Err(Failure::Failed(format!(
            "{name}: inspect of a file reads its footer: give a finished file's path"
        )));
    };
    let mut out = Output::create(None)?;
    let blocks = r.blocks().to_vec();
    let head = blocks.first().map_or(0, |b| b.offset);
    let flags = if r.by_reference() { "0f" } else { "0e" };
    out.line(&format!("       0  c2 {flags}  XBF 2 file (columns, stream, checksums)"))?;
    out.line(&format!("       2  type: {} (up to byte {head})", r.metadata()))?;
    for (i, b) in blocks.iter().enumerate() {
        out.line(&format!("{:>8}  block {i}: {} bytes, {} records", b.offset, b.size, b.records))?;
        let cols = r.block_column_stats(i).map_err(|e| xbf_error(&name, &e))?;
        let mut at = b.offset + (b.size - b.columns.iter().map(|c| c.size).sum::<u64>()) - 4;
        for (c, s) in b.columns.iter().zip(&cols) {
            out.line(&format!("{at:>8}    {} ({}): {} bytes, CRC-32C {:08x}", s.path, s.encoding, c.size, c.crc))?;
            at += c.size;
        }
        out.line(&format!("{at:>8}    CRC-32C of the body"))?;
    }
    if let Some(last) = blocks.last() {
        out.line(&format!("{:>8}  footer part (00, length, footer, CRC-32C, length, XBFF)", last.offset + last.size))?;
    }
    out.finish()
}

// ------------------------------------------------------------------ writing

/// An input read twice: a file, or standard input spooled to a temporary
/// file first (removed when dropped).
struct TwoPass {
    path: PathBuf,
    spooled: bool,
}

impl TwoPass {
    fn new(input: Option<&Path>) -> CliResult<TwoPass> {
        if let Some(p) = input.filter(|p| *p != Path::new("-")) {
            return Ok(TwoPass { path: p.to_owned(), spooled: false });
        }
        let path = std::env::temp_dir().join(format!("xbf-stdin-{}.tmp", std::process::id()));
        let mut f = File::create(&path).map_err(|e| Failure::Failed(format!("{}: {e}", path.display())))?;
        std::io::copy(&mut std::io::stdin().lock(), &mut f)
            .map_err(|e| Failure::Failed(format!("standard input: {e}")))?;
        Ok(TwoPass { path, spooled: true })
    }

    fn open(&self) -> CliResult<Box<dyn BufRead>> {
        Ok(open(Some(&self.path))?.reader)
    }
}

impl Drop for TwoPass {
    fn drop(&mut self) {
        if self.spooled {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A CSV column's type, inferred cell by cell.
struct CsvColumn {
    name: String,
    dates: bool,
    stamps: bool,
    inf: Inference,
    seen: usize,
    empty: usize,
}

impl CsvColumn {
    fn push(&mut self, s: &str) {
        if s.is_empty() {
            self.empty += 1;
            return;
        }
        if self.dates && xbf::time::parse_date(s).is_none() {
            self.dates = false;
        }
        if self.stamps && !self.dates && parse_timestamp(s).is_none() {
            self.stamps = false;
        }
        if self.inf.ints || self.inf.numbers || self.inf.bools {
            self.inf.push(s, self.seen == 0);
        }
        self.seen += 1;
    }

    fn finish(self) -> ColumnType {
        let nullable = self.empty > 0;
        let (ty, why) = if self.seen == 0 {
            (PrimitiveType::String, "no values".to_owned())
        } else if self.dates {
            (PrimitiveType::Date, "every value is a date YYYY-MM-DD".to_owned())
        } else if self.stamps {
            (PrimitiveType::Timestamp, "every value is an RFC 3339 timestamp".to_owned())
        } else {
            let ty = self.inf.column_type();
            let why = match ty {
                PrimitiveType::Bool => "every value is true or false".to_owned(),
                PrimitiveType::F64 => "numbers, not all integers of 64 bits".to_owned(),
                PrimitiveType::String => "not all numbers, booleans, dates or timestamps".to_owned(),
                int => format!(
                    "integers from {} to {}: the narrowest type that holds them is {int}",
                    self.inf.min, self.inf.max
                ),
            };
            (ty, why)
        };
        ColumnType { name: self.name, ty, nullable, empty: self.empty, why }
    }
}

fn csv_reader(r: Box<dyn BufRead>) -> csv::Reader<Box<dyn BufRead>> {
    csv::ReaderBuilder::new().has_headers(true).from_reader(r)
}

/// `xbf from-csv` to a file: the column types from a first pass over the
/// input, then the records, a block at a time.
pub fn csv_to_file(
    input: Option<&Path>,
    output: Option<&Path>,
    explain: bool,
    encode: xbf::EncodeOptions,
    args: &WriteArgs,
) -> CliResult {
    let name = crate::io::input_name(input);
    let src = TwoPass::new(input)?;
    let bad = |e: csv::Error| Failure::Failed(format!("{name}: invalid CSV: {e}"));
    let strip_bom = |mut r: Box<dyn BufRead>| -> CliResult<Box<dyn BufRead>> {
        let buf = r.fill_buf().map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
        if buf.starts_with(b"\xef\xbb\xbf") {
            r.consume(3);
        }
        Ok(r)
    };
    let mut reader = csv_reader(strip_bom(src.open()?)?);
    let names: Vec<String> = reader.headers().map_err(bad)?.iter().map(str::to_owned).collect();
    if names.is_empty() || names == [""] {
        return Err(Failure::Failed(format!("{name}: the CSV has no header line")));
    }
    // A set, not a scan of the names before: a hostile header of 200,000 columns is quadratic otherwise.
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    for n in &names {
        if !seen.insert(n.as_str()) {
            return Err(Failure::Failed(format!("{name}: two columns are named {n:?}")));
        }
    }
    let mut cols: Vec<CsvColumn> = names
        .iter()
        .map(|n| CsvColumn { name: n.clone(), dates: true, stamps: true, inf: Inference::new(), seen: 0, empty: 0 })
        .collect();
    let mut rows = 0u64;
    let mut rec = csv::StringRecord::new();
    while reader.read_record(&mut rec).map_err(bad)? {
        for (i, c) in cols.iter_mut().enumerate() {
            c.push(rec.get(i).unwrap_or(""));
        }
        rows += 1;
    }
    let columns: Vec<ColumnType> = cols.into_iter().map(CsvColumn::finish).collect();
    if explain {
        let mut text = format!("{name}: {rows} rows, {} columns (an XBF file)\n", columns.len());
        let w = columns.iter().map(|c| c.name.chars().count()).max().unwrap_or(0);
        let tw = columns.iter().map(|c| c.metadata().to_string().len()).max().unwrap_or(0);
        for c in &columns {
            let empty = if c.nullable { format!("; {} empty cells are absent", c.empty) } else { String::new() };
            text.push_str(&format!("  {:w$}  {:tw$}  {}{empty}\n", c.name, c.metadata().to_string(), c.why));
        }
        eprint!("{text}");
    }
    let row_ty = Arc::new(
        StructMetadata::new(ROW, columns.iter().map(|c| (c.name.as_str(), c.metadata())))
            .map_err(|e| xbf_error(&name, &e))?,
    );
    let mut out = Output::create(output)?;
    let mut w = FileWriter::new(OutWrite(&mut out), Metadata::Struct(row_ty.clone()), args.options(encode))
        .map_err(|e| xbf_error(&name, &e))?;
    let mut reader = csv_reader(strip_bom(src.open()?)?);
    reader.headers().map_err(bad)?;
    let mut r = 0u64;
    while reader.read_record(&mut rec).map_err(bad)? {
        r += 1;
        let record = row_record(&name, r, &columns, &row_ty, &rec)?;
        w.write(Value::Struct(record)).map_err(|e| xbf_error(&name, &e))?;
    }
    w.finish().map_err(|e| xbf_error(&name, &e))?;
    out.finish()
}

/// Lets a [`FileWriter`] write into an [`Output`] (a temporary file renamed
/// at the end, or standard output).
struct OutWrite<'a>(&'a mut Output);

impl Write for OutWrite<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(|f| std::io::Error::other(format!("{f:?}")))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether `from-json` reads JSON Lines: `--lines`, or the input's name
/// ends in `.jsonl` or `.ndjson`.
pub fn is_json_lines(input: Option<&Path>, lines: bool) -> bool {
    lines || input.and_then(Path::extension).is_some_and(|e| e == "jsonl" || e == "ndjson")
}

/// `xbf from-json --lines`: one JSON value a line, each read with
/// `xbf::json`; a first pass finds the one type that holds every line,
/// the second writes the records, a block at a time.
pub fn json_lines_to_file(
    input: Option<&Path>,
    output: Option<&Path>,
    encode: xbf::EncodeOptions,
    args: &WriteArgs,
) -> CliResult {
    let name = crate::io::input_name(input);
    let src = TwoPass::new(input)?;
    let parse = |line: &str, n: u64| {
        xbf::json::from_json_str(line).map_err(|e| Failure::Failed(format!("{name}: line {n}: {}", one(&e))))
    };
    let mut ty: Option<Metadata> = None;
    let mut n = 0u64;
    for line in src.open()?.lines() {
        let line = line.map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
        n += 1;
        if line.trim().is_empty() {
            continue;
        }
        let t = parse(&line, n)?.metadata();
        ty = Some(match ty {
            None => t,
            Some(prev) => unify(&prev, &t),
        });
    }
    let ty = ty.unwrap_or(Metadata::Any);
    let mut out = Output::create(output)?;
    let mut w =
        FileWriter::new(OutWrite(&mut out), ty.clone(), args.options(encode)).map_err(|e| xbf_error(&name, &e))?;
    let mut n = 0u64;
    for line in src.open()?.lines() {
        let line = line.map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
        n += 1;
        if line.trim().is_empty() {
            continue;
        }
        let v = coerce(parse(&line, n)?, &ty);
        w.write(v).map_err(|e| Failure::Failed(format!("{name}: line {n}: {}", one(&e))))?;
    }
    w.finish().map_err(|e| xbf_error(&name, &e))?;
    out.finish()
}

fn one(e: &xbf::Error) -> String {
    e.to_string()
}

const OPTIONAL: &str = xbf::json::OPTIONAL_KEY_ENUM;

fn int_rank(p: PrimitiveType) -> Option<(bool, u8)> {
    use PrimitiveType as P;
    Some(match p {
        P::U8 => (false, 1),
        P::U16 => (false, 2),
        P::U32 => (false, 3),
        P::U64 => (false, 4),
        P::I8 => (true, 1),
        P::I16 => (true, 2),
        P::I32 => (true, 3),
        P::I64 => (true, 4),
        _ => return None,
    })
}

fn int_type(signed: bool, rank: u8) -> PrimitiveType {
    use PrimitiveType as P;
    match (signed, rank) {
        (false, 1) => P::U8,
        (false, 2) => P::U16,
        (false, 3) => P::U32,
        (false, _) => P::U64,
        (true, 1) => P::I8,
        (true, 2) => P::I16,
        (true, 3) => P::I32,
        (true, _) => P::I64,
    }
}

/// The `json.optional` enum of a key some lines lack.
fn optional_of(t: &Metadata) -> Metadata {
    EnumMetadata::new(OPTIONAL, [("absent", Metadata::UNIT), ("present", t.clone())]).expect("two variants").into()
}

fn optional_inner(t: &Metadata) -> Option<&Metadata> {
    match t {
        Metadata::Enum(e) if e.name() == OPTIONAL => e.variant("present").map(|(_, t)| t),
        _ => None,
    }
}

/// The type that holds values of `a` and of `b`, as `xbf::json` would infer
/// for one document holding both: integers widen, null makes an option,
/// keys some objects lack become `json.optional`, and what cannot be
/// joined is `any` (each value keeps its own type, so nothing is lost).
fn unify(a: &Metadata, b: &Metadata) -> Metadata {
    if a == b {
        return a.clone();
    }
    match (a, b) {
        (Metadata::Primitive(x), Metadata::Primitive(y)) => match (int_rank(*x), int_rank(*y)) {
            (Some((sx, rx)), Some((sy, ry))) => {
                let signed = sx || sy;
                // An unsigned value as signed needs the next rank.
                let need = |s: bool, r: u8| if signed && !s { r + 1 } else { r };
                // xbf::json types a line's integers u64 or i64 by sign, so
                // both in one field make i64; a line whose integer does not
                // fit then fails the conversion (coerce keeps it u64).
                int_type(signed, need(sx, rx).max(need(sy, ry)).min(4)).into()
            }
            _ if *x == PrimitiveType::Unit => Metadata::option(b.clone()),
            _ if *y == PrimitiveType::Unit => Metadata::option(a.clone()),
            _ => Metadata::Any,
        },
        (Metadata::Option(x), Metadata::Option(y)) => Metadata::option(unify(x, y)),
        (Metadata::Option(x), Metadata::Primitive(PrimitiveType::Unit)) => Metadata::option((**x).clone()),
        (Metadata::Primitive(PrimitiveType::Unit), Metadata::Option(y)) => Metadata::option((**y).clone()),
        (Metadata::Option(x), other) | (other, Metadata::Option(x)) => Metadata::option(unify(x, other)),
        (Metadata::Primitive(PrimitiveType::Unit), other) | (other, Metadata::Primitive(PrimitiveType::Unit)) => {
            Metadata::option(other.clone())
        }
        (Metadata::Vec(x), Metadata::Vec(y)) => match (&**x, &**y) {
            (Metadata::Primitive(PrimitiveType::Unit), t) | (t, Metadata::Primitive(PrimitiveType::Unit)) => {
                Metadata::vec(t.clone())
            }
            (x, y) => Metadata::vec(unify(x, y)),
        },
        (Metadata::Struct(x), Metadata::Struct(y)) if x.name() == y.name() => {
            let mut fields: Vec<(String, Metadata)> = Vec::new();
            for (n, t) in x.fields() {
                let ft = match y.field(n) {
                    Some((_, u)) => unify_present(t, u),
                    None => optional_of(optional_inner(t).unwrap_or(t)),
                };
                fields.push((n.to_owned(), ft));
            }
            for (n, u) in y.fields() {
                if x.field(n).is_none() {
                    fields.push((n.to_owned(), optional_of(optional_inner(u).unwrap_or(u))));
                }
            }
            StructMetadata::new(x.name(), fields.iter().map(|(n, t)| (n.as_str(), t.clone())))
                .map(Metadata::from)
                .unwrap_or(Metadata::Any)
        }
        _ => Metadata::Any,
    }
}

/// Unifies two fields' types where either may be `json.optional`.
fn unify_present(t: &Metadata, u: &Metadata) -> Metadata {
    match (optional_inner(t), optional_inner(u)) {
        (None, None) => unify(t, u),
        (Some(a), None) => optional_of(&unify(a, u)),
        (None, Some(b)) => optional_of(&unify(t, b)),
        (Some(a), Some(b)) => optional_of(&unify(a, b)),
    }
}

/// `v` as a value of `ty`, which [`unify`] made to hold it.
fn coerce(v: Value, ty: &Metadata) -> Value {
    if v.conforms_to(ty) && v.metadata() == *ty {
        return v;
    }
    match ty {
        Metadata::Any => match v {
            Value::Any(_) => v,
            other => Value::any(other),
        },
        Metadata::Option(inner) => match v {
            Value::Unit => Value::Option(OptionValue::none((**inner).clone())),
            Value::Option(o) => match o.value() {
                None => Value::Option(OptionValue::none((**inner).clone())),
                Some(x) => some(coerce(x.clone(), inner), inner),
            },
            other => some(coerce(other, inner), inner),
        },
        Metadata::Primitive(p) => widen(v, *p),
        Metadata::Vec(elem) => {
            let items = match v {
                Value::Vec(x) => x.into_items(),
                _ => Vec::new(),
            };
            let items = items.into_iter().map(|i| coerce(i, elem)).collect();
            VecValue::new((**elem).clone(), items).map(Value::from).unwrap_or(Value::Unit)
        }
        Metadata::Struct(s) => {
            let Value::Struct(sv) = v else { return Value::Unit };
            let fields: Vec<Value> = s
                .fields()
                .map(|(n, t)| match (sv.get(n), optional_inner(t)) {
                    (None, Some(_)) => enum_of(t, "absent", Value::Unit),
                    (Some(x), Some(inner)) => match x {
                        Value::Enum(e) if e.variant() == "absent" => enum_of(t, "absent", Value::Unit),
                        Value::Enum(e) => enum_of(t, "present", coerce(e.payload().clone(), inner)),
                        other => enum_of(t, "present", coerce(other.clone(), inner)),
                    },
                    (Some(x), None) => coerce(x.clone(), t),
                    (None, None) => Value::Unit,
                })
                .collect();
            StructValue::new(s.clone(), fields).map(Value::from).unwrap_or(Value::Unit)
        }
        _ => v,
    }
}

fn some(v: Value, inner: &Metadata) -> Value {
    OptionValue::some(inner.clone(), v).map(Value::Option).unwrap_or(Value::Unit)
}

fn enum_of(t: &Metadata, variant: &str, payload: Value) -> Value {
    let Metadata::Enum(e) = t else { return Value::Unit };
    EnumValue::new(e.clone(), variant, payload).map(Value::Enum).unwrap_or(Value::Unit)
}

fn widen(v: Value, p: PrimitiveType) -> Value {
    let wide: Option<i128> = match &v {
        Value::U8(x) => Some(i128::from(*x)),
        Value::U16(x) => Some(i128::from(*x)),
        Value::U32(x) => Some(i128::from(*x)),
        Value::U64(x) => Some(i128::from(*x)),
        Value::I8(x) => Some(i128::from(*x)),
        Value::I16(x) => Some(i128::from(*x)),
        Value::I32(x) => Some(i128::from(*x)),
        Value::I64(x) => Some(i128::from(*x)),
        _ => None,
    };
    let Some(x) = wide else { return v };
    use PrimitiveType as P;
    match p {
        P::U8 => u8::try_from(x).map(Value::U8).unwrap_or(v),
        P::U16 => u16::try_from(x).map(Value::U16).unwrap_or(v),
        P::U32 => u32::try_from(x).map(Value::U32).unwrap_or(v),
        P::U64 => u64::try_from(x).map(Value::U64).unwrap_or(v),
        P::I8 => i8::try_from(x).map(Value::I8).unwrap_or(v),
        P::I16 => i16::try_from(x).map(Value::I16).unwrap_or(v),
        P::I32 => i32::try_from(x).map(Value::I32).unwrap_or(v),
        P::I64 => i64::try_from(x).map(Value::I64).unwrap_or(v),
        _ => v,
    }
}

/// Arguments of `xbf to-csv`.
#[derive(clap::Args, Debug)]
pub struct ToCsvArgs {
    #[command(flatten)]
    pub io: crate::convert::ConvertArgs,
    /// Only these fields (of an XBF file; e.g. `--fields date,delay`): only
    /// their columns are read.
    #[arg(long, value_delimiter = ',')]
    pub fields: Vec<String>,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `xbf to-csv`: a file block by block, anything else as before.
pub fn to_csv_cmd(args: &ToCsvArgs) -> CliResult {
    if is_file_input(args.io.input.as_deref())? {
        return to_csv(args.io.input.as_deref(), args.io.output.as_deref(), &args.fields, &args.read);
    }
    if !args.fields.is_empty() || args.read.filter.is_some() {
        return Err(Failure::Usage("--fields and --where work on XBF files (from-csv writes one)".into()));
    }
    crate::csvconv::to_csv(&args.io)
}
