//! The column writer (`FileBatchWriter`, Arrow buffers into typed columns)
//! against the record writer (`FileWriter::write` of `batch_to_records`):
//! the same file byte for byte on batches the property tests' generator does
//! not make (bytes under null slots, input types that are cast, slices) and
//! on vega's flights-20k.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use xbf::{EncodeOptions, FileOptions, FileWriter, Value};
use xbf_arrow::{batch_to_records, xbf_type, FileBatchWriter};

/// The file by columns (on one thread, and with three blocks encoded at
/// once: the same bytes) and by records.
fn both_ways(batches: &[RecordBatch], opts: FileOptions) -> (Vec<u8>, Vec<u8>) {
    let schema = batches[0].schema();
    let by_columns = |threads: usize| {
        let mut w = FileBatchWriter::new(Vec::new(), &schema, opts.clone()).unwrap().with_threads(threads);
        for b in batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap()
    };
    let by_columns_threaded = by_columns(3);
    let by_columns = by_columns(1);
    assert_eq!(by_columns, by_columns_threaded, "three blocks at once");
    let ty = xbf_type(&schema).unwrap();
    let mut w = FileWriter::new(Vec::new(), ty.clone(), opts).unwrap();
    for b in batches {
        for r in batch_to_records(&ty, b).unwrap() {
            w.write(r).unwrap();
        }
    }
    (by_columns, w.finish().unwrap())
}

fn assert_same(batches: &[RecordBatch]) {
    for opts in [
        FileOptions::default(),
        FileOptions::default().block_rows(2),
        FileOptions::default().block_bytes(20),
        FileOptions::default().encode_options(EncodeOptions::v2().compress_columns(Some(3)).unwrap()),
    ] {
        let (a, b) = both_ways(batches, opts.clone());
        assert_eq!(a, b, "{opts:?}");
    }
}

#[test]
fn bytes_under_null_slots_are_what_the_records_hold() {
    // A nullable struct whose non-nullable children hold values under its
    // null slots: strings with bytes, a list with items.
    let names: ArrayRef = Arc::new(StringArray::from(vec!["ann", "hidden", "cy", "also hidden"]));
    let mut lb = ListBuilder::new(StringBuilder::new()).with_field(Field::new("item", DataType::Utf8, false));
    for row in [vec!["a"], vec!["x", "y"], vec![], vec!["z"]] {
        for s in row {
            lb.values().append_value(s);
        }
        lb.append(true);
    }
    let tags: ArrayRef = Arc::new(lb.finish());
    let fields = Fields::from(vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("tags", tags.data_type().clone(), false),
    ]);
    let nulls = NullBuffer::from(vec![true, false, true, false]);
    let who: ArrayRef = Arc::new(StructArray::new(fields.clone(), vec![names, tags], Some(nulls)));
    // A string column with bytes under its null slots (made by hand).
    let offsets = OffsetBuffer::new(vec![0, 3, 6, 9, 12].into());
    let city: ArrayRef = Arc::new(StringArray::new(
        offsets,
        "SFOLAXJFKORD".as_bytes().to_vec().into(),
        Some(NullBuffer::from(vec![true, false, true, false])),
    ));
    let schema = Arc::new(Schema::new(vec![
        Field::new("who", who.data_type().clone(), true),
        Field::new("city", DataType::Utf8, true),
    ]));
    let batch = RecordBatch::try_new(schema, vec![who, city]).unwrap();
    assert_same(std::slice::from_ref(&batch));
    assert_same(&[batch.slice(1, 3), batch.slice(0, 2)]);
}

#[test]
fn cast_inputs_write_what_their_records_write() {
    let mut dict = StringDictionaryBuilder::<Int32Type>::new();
    for s in [Some("SFO"), None, Some("LAX"), Some("SFO")] {
        match s {
            Some(s) => dict.append_value(s),
            None => dict.append_null(),
        }
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(dict.finish()),
        Arc::new(LargeStringArray::from(vec![Some("a"), Some("bb"), None, Some("")])),
        Arc::new(StringViewArray::from(vec!["long enough to be out of line", "v", "w", "x"])),
        Arc::new(TimestampNanosecondArray::from(vec![1_000, 2_000, 3_000, 4_000]).with_timezone("Europe/Paris")),
        Arc::new(Date32Array::from(vec![Some(1), None, Some(-3), Some(19000)])),
        Arc::new(BinaryArray::from(vec![Some(&b"\x00\x01"[..]), None, Some(b""), Some(b"zz")])),
        Arc::new(BooleanArray::from(vec![Some(true), None, Some(false), Some(true)])),
        Arc::new(Float32Array::from(vec![1.5, f32::NAN, -0.0, 0.0])),
        Arc::new(UInt16Array::from(vec![1, 2, 65535, 0])),
        Arc::new(Int8Array::from(vec![-128, 0, 127, 1])),
    ];
    let fields: Vec<Field> =
        cols.iter().enumerate().map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true)).collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap();
    assert_same(&[batch.clone(), batch.slice(1, 2)]);
}

#[test]
fn flights_20k_give_the_record_paths_file() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/data/vega-datasets/flights-20k.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("skipped: {path} not fetched (scripts/fetch-data.sh)");
        return;
    };
    let Value::Vec(rows) = xbf::json::from_json_str(&text).unwrap() else { panic!("a list of records") };
    let batch = xbf_arrow::records_to_batch(rows.element_type(), rows.items()).unwrap();
    assert_eq!(batch.num_rows(), 20_000);
    let batches: Vec<RecordBatch> =
        (0..20_000).step_by(3000).map(|at| batch.slice(at, 3000.min(20_000 - at))).collect();
    for opts in [
        FileOptions::default(),
        FileOptions::default().block_rows(4096),
        FileOptions::default().block_bytes(64 << 10),
        FileOptions::default().encode_options(EncodeOptions::v2().compress_columns(Some(3)).unwrap()),
    ] {
        let (a, b) = both_ways(&batches, opts.clone());
        assert_eq!(a, b, "{opts:?}");
    }
}
