//! Reading XBF files as batches: columns, filters (blocks skipped by their
//! statistics, rows tested), batch sizes, and core errors kept.

use std::io::Cursor;
use std::sync::Arc;

use arrow_array::{Array, Float64Array, Int64Array, RecordBatch, RecordBatchReader, StringArray};
use arrow_schema::{DataType, Field, Schema};
use xbf::{FileOptions, FileReader, Op};
use xbf_arrow::{FileBatchReader, FileBatchWriter, Filter, ScanOptions};

/// 100 rows in blocks of 10: delay = i, origin = "A" or "B", x = i / 2 (NaN at 50).
fn file() -> Vec<u8> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("delay", DataType::Int64, true),
        Field::new("origin", DataType::Utf8, false),
        Field::new("x", DataType::Float64, true),
    ]));
    let delay: Int64Array = (0..100).map(|i| if i == 7 { None } else { Some(i) }).collect();
    let origin: StringArray = (0..100).map(|i| Some(if i % 3 == 0 { "A" } else { "B" })).collect();
    let x: Float64Array = (0..100).map(|i| Some(if i == 50 { f64::NAN } else { i as f64 / 2.0 })).collect();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(delay), Arc::new(origin), Arc::new(x)]).unwrap();
    let mut w = FileBatchWriter::new(Vec::new(), &schema, FileOptions::default().block_rows(10)).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap()
}

fn read(opts: ScanOptions) -> (Arc<Schema>, Vec<RecordBatch>) {
    let r = FileBatchReader::new(Cursor::new(file()), opts).unwrap();
    let schema = r.schema();
    (schema, r.collect::<Result<_, _>>().unwrap())
}

fn delays(batches: &[RecordBatch]) -> Vec<Option<i64>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name("delay").unwrap().as_any().downcast_ref::<Int64Array>().unwrap().clone();
            a.iter().collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn one_batch_a_block_with_its_schema() {
    let (schema, batches) = read(ScanOptions::default());
    assert_eq!(batches.len(), 10);
    assert_eq!(schema.field(0), &Field::new("delay", DataType::Int64, true));
    assert_eq!(delays(&batches)[7], None);
    assert_eq!(delays(&batches).len(), 100);
}

#[test]
fn columns_and_batch_size() {
    let (schema, batches) =
        read(ScanOptions { columns: Some(vec!["origin".into()]), batch_size: Some(4), ..Default::default() });
    assert_eq!(schema.fields().len(), 1);
    assert_eq!(batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>()[..3], [4, 4, 2]);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 100);
}

#[test]
fn filters_skip_blocks_then_test_rows() {
    let f = Filter::new("delay", Op::Ge, "95");
    let (_, batches) = read(ScanOptions { filters: vec![f], ..Default::default() });
    assert_eq!(delays(&batches), (95..100).map(Some).collect::<Vec<_>>());
    // The statistics rule out nine blocks of ten.
    let r = FileReader::open(Cursor::new(file())).unwrap();
    let q = xbf::ReadOptions::default().filter(xbf::Predicate::new("delay", Op::Ge, "95"));
    assert_eq!(r.blocks_ruled_out(&q).unwrap(), 9);
}

#[test]
fn several_filters_and_columns_without_their_fields() {
    let filters =
        vec![Filter::new("delay", Op::Lt, "60"), Filter::new("origin", Op::Eq, "A"), Filter::new("x", Op::Gt, "20")];
    let (schema, batches) = read(ScanOptions { columns: Some(vec!["delay".into()]), filters, ..Default::default() });
    assert_eq!(schema.fields().len(), 1);
    for b in &batches {
        assert_eq!(b.schema(), schema);
    }
    let want: Vec<Option<i64>> = (41..60).filter(|i| i % 3 == 0).map(Some).collect();
    assert_eq!(delays(&batches), want);
}

#[test]
fn nan_and_null_match_only_as_the_file_reader_says() {
    let ne = vec![Filter::new("delay", Op::Lt, "100"), Filter::new("x", Op::Ne, "1")];
    let (_, batches) = read(ScanOptions { filters: ne, ..Default::default() });
    // delay null (row 7) never matches; x = 1 (row 2) is out; NaN (row 50) matches !=.
    let got = delays(&batches);
    assert_eq!(got.len(), 98);
    assert!(got.contains(&Some(50)) && !got.contains(&Some(2)) && !got.contains(&None));
    let gt = vec![Filter::new("x", Op::Gt, "-1"), Filter::new("x", Op::Ge, "0")];
    assert_eq!(delays(&read(ScanOptions { filters: gt, ..Default::default() }).1).len(), 99);
}

#[test]
fn core_errors_keep_their_kind() {
    let mut bytes = file();
    let n = bytes.len();
    bytes[n - 1] ^= 1; // the magic
    let e = FileBatchReader::new(Cursor::new(bytes.clone()), ScanOptions::default()).err().unwrap();
    assert_eq!(xbf_arrow::xbf_error(&e).unwrap().kind(), xbf::ErrorKind::Truncated);
    let mut bytes = file();
    bytes[40] ^= 0xff; // inside the first block
    let mut r = FileBatchReader::new(Cursor::new(bytes), ScanOptions::default()).unwrap();
    let e = r.next().unwrap().unwrap_err();
    assert_eq!(xbf_arrow::xbf_error(&e).unwrap().kind(), xbf::ErrorKind::BadChecksum);
}

#[test]
fn refuses_what_it_cannot_map() {
    let schema = Schema::new(vec![Field::new("d", DataType::Decimal128(10, 2), true)]);
    assert!(FileBatchWriter::new(Vec::new(), &schema, FileOptions::default()).is_err());
    let ns = Arc::new(Schema::new(vec![Field::new(
        "t",
        DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, None),
        false,
    )]));
    let t = arrow_array::TimestampNanosecondArray::from(vec![1_000, 1_001]);
    let b = RecordBatch::try_new(ns.clone(), vec![Arc::new(t)]).unwrap();
    let mut w = FileBatchWriter::new(Vec::new(), &ns, FileOptions::default()).unwrap();
    assert!(w.write(&b).is_err());
}

#[test]
fn threads_give_the_same_batches_in_order() {
    let opts =
        ScanOptions { filters: vec![Filter::new("delay", Op::Gt, "15")], batch_size: Some(3), ..Default::default() };
    let one: Vec<RecordBatch> =
        FileBatchReader::new(Cursor::new(file()), opts.clone()).unwrap().collect::<Result<_, _>>().unwrap();
    let extra = (0..2).map(|_| FileReader::open(Cursor::new(file())).unwrap()).collect();
    let three: Vec<RecordBatch> =
        FileBatchReader::new(Cursor::new(file()), opts).unwrap().with_threads(extra).collect::<Result<_, _>>().unwrap();
    assert_eq!(one, three);
    assert_eq!(delays(&three), (16..100).map(Some).collect::<Vec<_>>());
}

#[test]
fn timestamps_of_any_unit_and_zone_become_utc_microseconds() {
    use arrow_array::{TimestampMicrosecondArray, TimestampNanosecondArray};
    use arrow_schema::TimeUnit;
    let schema = Arc::new(Schema::new(vec![
        Field::new("naive", DataType::Timestamp(TimeUnit::Nanosecond, None), false),
        Field::new("paris", DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into())), false),
    ]));
    let b = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(TimestampNanosecondArray::from(vec![1_000, 2_000_000])),
            Arc::new(TimestampMicrosecondArray::from(vec![5, 6]).with_timezone("Europe/Paris")),
        ],
    )
    .unwrap();
    let mut w = FileBatchWriter::new(Vec::new(), &schema, FileOptions::default()).unwrap();
    w.write(&b).unwrap();
    let bytes = w.finish().unwrap();
    let opts = ScanOptions {
        filters: vec![
            Filter::new("naive", Op::Ge, "1970-01-01T00:00:00Z"),
            Filter::new("paris", Op::Gt, "1970-01-01T00:00:00.000005Z"),
        ],
        ..Default::default()
    };
    let back: Vec<RecordBatch> =
        FileBatchReader::new(Cursor::new(bytes), opts).unwrap().collect::<Result<_, _>>().unwrap();
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    assert_eq!(back[0].schema().field(0).data_type(), &utc);
    let naive = back[0].column(0).as_any().downcast_ref::<TimestampMicrosecondArray>().unwrap();
    assert_eq!(naive.values().to_vec(), vec![2_000]);
    let paris = back[0].column(1).as_any().downcast_ref::<TimestampMicrosecondArray>().unwrap();
    assert_eq!(paris.values().to_vec(), vec![6]);
}

/// `n` more readers of `bytes`, for `with_threads`.
fn readers(bytes: &[u8], n: usize) -> Vec<FileReader<Cursor<Vec<u8>>>> {
    (0..n).map(|_| FileReader::open(Cursor::new(bytes.to_vec())).unwrap()).collect()
}

#[test]
fn threads_stop_at_a_damaged_block_in_order() {
    let mut bytes = file();
    let at = FileReader::open(Cursor::new(bytes.clone())).unwrap().blocks()[5].offset as usize;
    bytes[at + 6] ^= 0xff; // inside the sixth block's body: its checksum fails
    for threads in [1, 2, 4] {
        let r = FileBatchReader::new(Cursor::new(bytes.clone()), ScanOptions::default())
            .unwrap()
            .with_threads(readers(&bytes, threads - 1));
        let out: Vec<_> = r.collect();
        assert_eq!(out.len(), 6, "{threads} threads: five blocks, then the error, then nothing");
        let good: Vec<RecordBatch> = out[..5].iter().map(|b| b.as_ref().unwrap().clone()).collect();
        assert_eq!(delays(&good), (0..50).map(|i| if i == 7 { None } else { Some(i) }).collect::<Vec<_>>());
        let e = out[5].as_ref().unwrap_err();
        assert_eq!(xbf_arrow::xbf_error(e).unwrap().kind(), xbf::ErrorKind::BadChecksum);
    }
}

#[test]
fn threads_read_any_split_and_stop_when_dropped() {
    let bytes = file();
    for (start, end) in [(0, 10), (3, 4), (2, 9), (9, 10)] {
        let r = FileReader::open(Cursor::new(bytes.clone())).unwrap();
        let all: Vec<RecordBatch> = FileBatchReader::with_reader(r, ScanOptions::default(), start..end)
            .unwrap()
            .with_threads(readers(&bytes, 3))
            .collect::<Result<_, _>>()
            .unwrap();
        let want: Vec<Option<i64>> =
            (start * 10..end * 10).map(|i| if i == 7 { None } else { Some(i as i64) }).collect();
        assert_eq!(delays(&all), want);
    }
    // Dropped after one batch: the threads (blocked on the window) end.
    let mut r = FileBatchReader::new(Cursor::new(bytes.clone()), ScanOptions::default())
        .unwrap()
        .with_threads(readers(&bytes, 3));
    assert_eq!(r.next().unwrap().unwrap().num_rows(), 10);
    drop(r);
}
