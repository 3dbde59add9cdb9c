//! File benchmarks (issue 20, deliverable 6): one operation of one format
//! per process, so that each process's peak RSS is that operation's.
//!
//! ```text
//! files write FORMAT INPUT.csv OUTPUT     the flights CSV to a file of FORMAT
//! files read  FORMAT FILE [all|delay|filter]
//! ```
//!
//! `all` decodes every record (every column), `delay` reads the one column
//! `delay`, `filter` the records with `delay > 300` (every column of them),
//! each by the format's own means: XBF's `ReadOptions` (projection, block
//! statistics), Parquet's projection mask and row filter, Arrow IPC's
//! projection; Avro, CSV and JSON Lines have no projection and read every
//! record. Records are streamed, never collected: each reader holds what
//! its format decodes at once (a block, a row group, a batch, a record).
//! Prints one JSON line: format, op, rows, bytes, seconds (the operation,
//! not the process start), peak RSS in KiB (`VmHWM`).
//!
//! The CSV is `date,delay,distance,origin,destination` with RFC 3339
//! timestamps (scripts/flights-3m-csv.sh). Every format holds the same
//! values: a timestamp in microseconds (UTC), two i32 and two strings.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::sync::Arc;
use std::time::Instant;

use arrow::array::{Array, ArrayRef, Int32Array, Int32Builder, RecordBatch, StringArray, StringBuilder};
use arrow::array::{TimestampMicrosecondArray, TimestampMicrosecondBuilder};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};

const BATCH: usize = 65_536;
const DELAY_OVER: i32 = 300;
const ZSTD_LEVEL: i32 = 3;

struct Row {
    date: i64,
    delay: i32,
    distance: i32,
    origin: String,
    destination: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct JsonRow {
    date: String,
    delay: i32,
    distance: i32,
    origin: String,
    destination: String,
}

#[derive(serde::Deserialize)]
struct JsonDelay {
    delay: i32,
}

fn parse_line(line: &str) -> Row {
    let mut it = line.split(',');
    let mut next = || it.next().expect("five fields");
    let date = xbf::time::parse_timestamp(next()).expect("an RFC 3339 timestamp");
    let delay = next().parse().expect("delay");
    let distance = next().parse().expect("distance");
    Row { date, delay, distance, origin: next().to_owned(), destination: next().to_owned() }
}

/// The CSV's rows, one at a time.
fn rows(path: &str) -> impl Iterator<Item = Row> {
    let mut lines = BufReader::with_capacity(1 << 16, File::open(path).expect("input")).lines();
    let header = lines.next().expect("a header").expect("a line");
    assert_eq!(header, "date,delay,distance,origin,destination");
    lines.map(|l| parse_line(&l.expect("a line")))
}

fn arrow_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("date", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), false),
        Field::new("delay", DataType::Int32, false),
        Field::new("distance", DataType::Int32, false),
        Field::new("origin", DataType::Utf8, false),
        Field::new("destination", DataType::Utf8, false),
    ]))
}

/// The rows as record batches of `BATCH` rows.
fn batches(path: &str) -> impl Iterator<Item = RecordBatch> {
    let schema = arrow_schema();
    let mut src = rows(path).peekable();
    std::iter::from_fn(move || {
        src.peek()?;
        let mut date = TimestampMicrosecondBuilder::with_capacity(BATCH).with_timezone("UTC");
        let (mut delay, mut distance) = (Int32Builder::with_capacity(BATCH), Int32Builder::with_capacity(BATCH));
        let (mut origin, mut dest) = (StringBuilder::new(), StringBuilder::new());
        for r in src.by_ref().take(BATCH) {
            date.append_value(r.date);
            delay.append_value(r.delay);
            distance.append_value(r.distance);
            origin.append_value(&r.origin);
            dest.append_value(&r.destination);
        }
        let cols: Vec<ArrayRef> = vec![
            Arc::new(date.finish()),
            Arc::new(delay.finish()),
            Arc::new(distance.finish()),
            Arc::new(origin.finish()),
            Arc::new(dest.finish()),
        ];
        Some(RecordBatch::try_new(schema.clone(), cols).expect("a batch"))
    })
}

fn xbf_type() -> Arc<xbf::StructMetadata> {
    use xbf::PrimitiveType as P;
    Arc::new(
        xbf::StructMetadata::new(
            "Flight",
            [
                ("date", xbf::Metadata::from(P::Timestamp)),
                ("delay", P::I32.into()),
                ("distance", P::I32.into()),
                ("origin", P::String.into()),
                ("destination", P::String.into()),
            ],
        )
        .expect("a struct"),
    )
}

fn avro_schema() -> apache_avro::Schema {
    apache_avro::Schema::parse_str(
        r#"{"type": "record", "name": "Flight", "fields": [
            {"name": "date", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "delay", "type": "int"},
            {"name": "distance", "type": "int"},
            {"name": "origin", "type": "string"},
            {"name": "destination", "type": "string"}]}"#,
    )
    .expect("an Avro schema")
}

/// Writes the CSV at `input` as `format` to `output`; returns the rows written.
fn write(format: &str, input: &str, output: &str) -> u64 {
    let out = BufWriter::with_capacity(1 << 16, File::create(output).expect("output"));
    let mut n = 0u64;
    match format {
        "xbf" | "xbf-zstd" | "xbf-values" => {
            let ty = xbf_type();
            let zstd = (format == "xbf-zstd").then_some(ZSTD_LEVEL);
            let opts =
                xbf::FileOptions::default().encode_options(xbf::EncodeOptions::v2().compress_columns(zstd).unwrap());
            let mut w = xbf::FileWriter::new(out, xbf::Metadata::Struct(ty.clone()), opts).expect("a writer");
            for r in rows(input) {
                let v = xbf::StructValue::new(
                    ty.clone(),
                    vec![
                        xbf::Value::Timestamp(r.date),
                        xbf::Value::I32(r.delay),
                        xbf::Value::I32(r.distance),
                        xbf::Value::String(r.origin),
                        xbf::Value::String(r.destination),
                    ],
                )
                .expect("a record");
                w.write(xbf::Value::Struct(v)).expect("written");
                n += 1;
            }
            w.finish().expect("finished").flush().expect("flushed");
        }
        "parquet-zstd" | "parquet-snappy" | "parquet-none" => {
            use parquet::basic::{Compression, ZstdLevel};
            let c = match format {
                "parquet-zstd" => Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL).expect("a level")),
                "parquet-snappy" => Compression::SNAPPY,
                _ => Compression::UNCOMPRESSED,
            };
            let props = parquet::file::properties::WriterProperties::builder().set_compression(c).build();
            let mut w = parquet::arrow::ArrowWriter::try_new(out, arrow_schema(), Some(props)).expect("a writer");
            for b in batches(input) {
                n += b.num_rows() as u64;
                w.write(&b).expect("written");
            }
            w.close().expect("closed");
        }
        "arrow-ipc-zstd" => {
            let opts = arrow::ipc::writer::IpcWriteOptions::default()
                .try_with_compression(Some(arrow::ipc::CompressionType::ZSTD))
                .expect("zstd");
            let mut w = arrow::ipc::writer::FileWriter::try_new_with_options(out, &arrow_schema(), opts).expect("w");
            for b in batches(input) {
                n += b.num_rows() as u64;
                w.write(&b).expect("written");
            }
            w.finish().expect("finished");
        }
        "avro" => {
            let schema = avro_schema();
            let mut w = apache_avro::Writer::with_codec(&schema, out, apache_avro::Codec::Null).expect("a writer");
            for r in rows(input) {
                use apache_avro::types::Value as V;
                let rec = V::Record(vec![
                    ("date".into(), V::TimestampMicros(r.date)),
                    ("delay".into(), V::Int(r.delay)),
                    ("distance".into(), V::Int(r.distance)),
                    ("origin".into(), V::String(r.origin)),
                    ("destination".into(), V::String(r.destination)),
                ]);
                w.append_value(rec).expect("written");
                n += 1;
            }
            w.into_inner().expect("flushed").flush().expect("flushed");
        }
        "csv-gzip" => {
            // The input's own lines: CSV is what the others are converted from.
            let mut w = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            for line in BufReader::with_capacity(1 << 16, File::open(input).expect("input")).lines() {
                let line = line.expect("a line");
                w.write_all(line.as_bytes()).and_then(|_| w.write_all(b"\n")).expect("written");
                n += 1;
            }
            n -= 1; // the header
            w.finish().expect("finished").flush().expect("flushed");
        }
        "jsonl-zstd" => {
            let mut w = zstd::Encoder::new(out, ZSTD_LEVEL).expect("zstd");
            for r in rows(input) {
                let j = JsonRow {
                    date: xbf::time::format_timestamp(r.date),
                    delay: r.delay,
                    distance: r.distance,
                    origin: r.origin,
                    destination: r.destination,
                };
                serde_json::to_writer(&mut w, &j).expect("written");
                w.write_all(b"\n").expect("written");
                n += 1;
            }
            w.finish().expect("finished").flush().expect("flushed");
        }
        _ => panic!("unknown format {format}"),
    }
    n
}

/// What a read saw: the rows it handed out and a checksum of their delays
/// (the same for every format, which the driver checks).
#[derive(Default)]
struct Seen {
    rows: u64,
    delay_sum: i64,
}

impl Seen {
    fn add(&mut self, delay: i32) {
        self.rows += 1;
        self.delay_sum += i64::from(delay);
    }
}

fn wanted(op: &str, delay: i32) -> bool {
    op != "filter" || delay > DELAY_OVER
}

fn read(format: &str, path: &str, op: &str) -> Seen {
    let mut seen = Seen::default();
    match format {
        // As Arrow record batches, like arrow-rs's Parquet reader below: each
        // block decoded by the core into column buffers (xbf-arrow), the
        // filter's blocks skipped by their statistics, its rows by Arrow.
        "xbf" | "xbf-zstd" => {
            let r = xbf::FileReader::open(BufReader::with_capacity(1 << 16, File::open(path).expect("in")))
                .expect("an XBF file");
            let mut scan = xbf_arrow::ScanOptions::default();
            match op {
                "delay" => scan.columns = Some(vec!["delay".into()]),
                "filter" => scan.filters = vec![xbf_arrow::Filter::new("delay", xbf::Op::Gt, DELAY_OVER.to_string())],
                _ => {}
            }
            let blocks = 0..r.blocks().len();
            let delay_at = if op == "delay" { 0 } else { 1 };
            for batch in xbf_arrow::FileBatchReader::with_reader(r, scan, blocks).expect("a reader") {
                let batch = batch.expect("a batch");
                let d = batch.column(delay_at).as_any().downcast_ref::<Int32Array>().expect("i32");
                d.values().iter().for_each(|&x| seen.add(x));
                touch(&batch);
            }
        }
        // The same file read record by record as `xbf::Value`s (the reader
        // before the column path), for a before/after in one run.
        "xbf-values" => {
            let mut r = xbf::FileReader::open(BufReader::with_capacity(1 << 16, File::open(path).expect("in")))
                .expect("an XBF file");
            let q = match op {
                "all" => xbf::ReadOptions::default(),
                "delay" => xbf::ReadOptions::default().fields(&["delay"]),
                _ => xbf::ReadOptions::default().filter(xbf::Predicate::parse("delay > 300").expect("a filter")),
            };
            for rec in r.records(&q) {
                let rec = rec.expect("a record");
                match rec.get("delay") {
                    Some(xbf::Value::I32(d)) => seen.add(*d),
                    other => panic!("delay is {other:?}"),
                }
            }
        }
        "parquet-zstd" | "parquet-snappy" | "parquet-none" => {
            use parquet::arrow::arrow_reader::{
                ArrowPredicate, ArrowPredicateFn, ParquetRecordBatchReaderBuilder, RowFilter,
            };
            use parquet::arrow::ProjectionMask;
            let b = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("in")).expect("a Parquet file");
            let leaves = |i: Vec<usize>| ProjectionMask::leaves(b.parquet_schema(), i);
            let b = match op {
                "delay" => {
                    let m = leaves(vec![1]);
                    b.with_projection(m)
                }
                "filter" => {
                    let m = leaves(vec![1]);
                    let pred = ArrowPredicateFn::new(m, |batch: RecordBatch| {
                        arrow::compute::kernels::cmp::gt(batch.column(0), &Int32Array::new_scalar(DELAY_OVER))
                    });
                    let preds: Vec<Box<dyn ArrowPredicate>> = vec![Box::new(pred)];
                    b.with_row_filter(RowFilter::new(preds))
                }
                _ => b,
            };
            let delay_at = if op == "delay" { 0 } else { 1 };
            for batch in b.with_batch_size(BATCH).build().expect("a reader") {
                let batch = batch.expect("a batch");
                let d = batch.column(delay_at).as_any().downcast_ref::<Int32Array>().expect("i32");
                d.values().iter().for_each(|&x| seen.add(x));
                touch(&batch);
            }
        }
        "arrow-ipc-zstd" => {
            let proj = (op == "delay").then(|| vec![1]);
            let r = arrow::ipc::reader::FileReader::try_new(File::open(path).expect("in"), proj).expect("IPC");
            let delay_at = if op == "delay" { 0 } else { 1 };
            for batch in r {
                let mut batch = batch.expect("a batch");
                if op == "filter" {
                    let d = batch.column(1).as_any().downcast_ref::<Int32Array>().expect("i32");
                    let mask = arrow::compute::kernels::cmp::gt(d, &Int32Array::new_scalar(DELAY_OVER)).expect("gt");
                    batch = arrow::compute::filter_record_batch(&batch, &mask).expect("filtered");
                }
                let d = batch.column(delay_at).as_any().downcast_ref::<Int32Array>().expect("i32");
                d.values().iter().for_each(|&x| seen.add(x));
                touch(&batch);
            }
        }
        "avro" => {
            let r = apache_avro::Reader::new(BufReader::with_capacity(1 << 16, File::open(path).expect("in")))
                .expect("an Avro file");
            for v in r {
                let apache_avro::types::Value::Record(fields) = v.expect("a record") else { panic!("a record") };
                let apache_avro::types::Value::Int(d) = &fields[1].1 else { panic!("delay") };
                if wanted(op, *d) {
                    seen.add(*d);
                }
            }
        }
        "csv-gzip" => {
            let gz = flate2::read::GzDecoder::new(File::open(path).expect("in"));
            let mut lines = BufReader::with_capacity(1 << 16, gz).lines();
            lines.next();
            for line in lines {
                let line = line.expect("a line");
                if op == "delay" {
                    let d: i32 = line.split(',').nth(1).expect("delay").parse().expect("an int");
                    seen.add(d);
                } else {
                    let r = parse_line(&line);
                    if wanted(op, r.delay) {
                        seen.add(r.delay);
                    }
                }
            }
        }
        "jsonl-zstd" => {
            let z = zstd::Decoder::new(File::open(path).expect("in")).expect("zstd");
            for line in BufReader::with_capacity(1 << 16, z).lines() {
                let line = line.expect("a line");
                if op == "delay" {
                    let j: JsonDelay = serde_json::from_str(&line).expect("JSON");
                    seen.add(j.delay);
                } else {
                    let j: JsonRow = serde_json::from_str(&line).expect("JSON");
                    if wanted(op, j.delay) {
                        seen.add(j.delay);
                    }
                }
            }
        }
        _ => panic!("unknown format {format}"),
    }
    seen
}

/// Reads every value of a batch's columns once, as a reader of the records would.
fn touch(batch: &RecordBatch) {
    for col in batch.columns() {
        if let Some(s) = col.as_any().downcast_ref::<StringArray>() {
            std::hint::black_box(s.iter().map(|x| x.map_or(0, str::len)).sum::<usize>());
        } else if let Some(t) = col.as_any().downcast_ref::<TimestampMicrosecondArray>() {
            std::hint::black_box(t.values().iter().sum::<i64>());
        } else {
            std::hint::black_box(col.len());
        }
    }
}

/// The process's peak resident set, in KiB.
fn peak_rss_kb() -> u64 {
    let mut s = String::new();
    File::open("/proc/self/status").and_then(|mut f| f.read_to_string(&mut s)).expect("/proc/self/status");
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "files write FORMAT INPUT.csv OUTPUT | files read FORMAT FILE [all|delay|filter]";
    let (cmd, format, path) = match &args[1..] {
        [c, f, p, ..] => (c.as_str(), f.as_str(), p.as_str()),
        _ => panic!("{usage}"),
    };
    let start = Instant::now();
    let (op, rows, delay_sum, file) = match cmd {
        "write" => {
            let out = args.get(4).expect(usage);
            ("write".to_owned(), write(format, path, out), None, out.clone())
        }
        "read" => {
            let op = args.get(4).map_or("all", String::as_str);
            let s = read(format, path, op);
            (format!("read-{op}"), s.rows, Some(s.delay_sum), path.to_owned())
        }
        _ => panic!("{usage}"),
    };
    let seconds = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    let line = serde_json::json!({
        "format": format, "op": op, "rows": rows, "delay_sum": delay_sum, "bytes": bytes,
        "seconds": seconds, "peak_rss_kb": peak_rss_kb(),
    });
    println!("{line}");
}
