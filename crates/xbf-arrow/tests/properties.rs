//! Property tests of the Arrow bridge: random record types of every mapped
//! kind with random values go XBF → Arrow → XBF unchanged (byte for byte),
//! and Arrow → XBF file → Arrow gives the same schema and arrays, with and
//! without the schema's `xbf:type`.

use std::io::Cursor;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use proptest::collection::vec;
use proptest::prelude::*;
use xbf::{FileOptions, Metadata, PrimitiveType as P, StructMetadata, Value, VecValue};
use xbf_arrow::{FileBatchReader, FileBatchWriter, ScanOptions};

#[path = "../../xbf/tests/support/arb.rs"]
mod arb;
use arb::*;

/// Record types Arrow can hold: struct records of mapped types, and some
/// bare types (one `value` column).
fn arb_record_type() -> impl Strategy<Value = Metadata> {
    let mapped = arb_metadata().prop_filter("mapped to Arrow", |t| xbf_arrow::data_type(t).is_ok()).boxed();
    prop_oneof![
        3 => vec(mapped.clone(), 1..5).prop_flat_map(|types| {
            names(types.len()).prop_map(move |ns| StructMetadata::new("Row", ns.into_iter().zip(types.clone())).unwrap().into())
        }),
        1 => mapped,
    ]
}

fn arb_records() -> impl Strategy<Value = (Metadata, Vec<Value>)> {
    arb_record_type().prop_flat_map(|ty| {
        let t = ty.clone();
        vec(arb_value(&ty), 0..6).prop_map(move |rs| (t.clone(), rs))
    })
}

fn bytes_of(ty: &Metadata, records: &[Value]) -> Vec<u8> {
    xbf::encode_message(&Value::Vec(VecValue::new(ty.clone(), records.to_vec()).unwrap())).unwrap()
}

fn has_unit_enum(ty: &Metadata) -> bool {
    match ty {
        Metadata::Enum(e) => {
            e.variants().all(|(_, t)| *t == Metadata::from(P::Unit)) || e.variants().any(|(_, t)| has_unit_enum(t))
        }
        other => other.children().into_iter().any(has_unit_enum),
    }
}

fn through_file(batch: &RecordBatch, block_rows: usize) -> Vec<RecordBatch> {
    let mut w =
        FileBatchWriter::new(Vec::new(), &batch.schema(), FileOptions::default().block_rows(block_rows)).unwrap();
    w.write(batch).unwrap();
    let bytes = w.finish().unwrap();
    FileBatchReader::new(Cursor::new(bytes), ScanOptions::default()).unwrap().collect::<Result<_, _>>().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn xbf_to_arrow_and_back((ty, records) in arb_records()) {
        let batch = xbf_arrow::records_to_batch(&ty, &records).unwrap();
        prop_assert_eq!(batch.num_rows(), records.len());
        prop_assert_eq!(xbf_arrow::xbf_type(&batch.schema()).unwrap(), ty.clone());
        let back = xbf_arrow::batch_to_records(&ty, &batch).unwrap();
        prop_assert_eq!(bytes_of(&ty, &back), bytes_of(&ty, &records));
    }

    #[test]
    fn arrow_to_xbf_file_and_back((ty, records) in arb_records(), block_rows in 1usize..4) {
        let batch = xbf_arrow::records_to_batch(&ty, &records).unwrap();
        // Without the XBF type the Arrow types alone decide (a dictionary of
        // strings becomes strings, so unit-only enums keep the type).
        let plain = if has_unit_enum(&ty) {
            batch.clone()
        } else {
            let schema = Arc::new(Schema::new(batch.schema().fields().clone()));
            let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            RecordBatch::try_new_with_options(schema, batch.columns().to_vec(), &opts).unwrap()
        };
        let back = through_file(&plain, block_rows);
        prop_assert_eq!(back.iter().map(RecordBatch::num_rows).sum::<usize>(), records.len());
        for b in &back {
            prop_assert_eq!(b.schema().fields().clone(), plain.schema().fields().clone());
        }
        if !back.is_empty() {
            let all = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
            for (x, y) in all.columns().iter().zip(plain.columns()) {
                prop_assert_eq!(x.to_data(), y.to_data());
            }
        }
    }

    /// Batches written through the typed columns give the file that their
    /// records written one by one give, byte for byte: blocks cut at the
    /// same rows (by count and by estimated bytes, across batches), the same
    /// encodings (with zstd and lossy floats too) and the same statistics.
    #[test]
    fn columns_write_the_file_records_write(
        (ty, records) in arb_records(),
        block_rows in 1usize..5,
        block_bytes in proptest::option::of(1usize..120),
        zstd in any::<bool>(),
        tolerance in any::<bool>(),
        split in 0usize..7,
    ) {
        let batch = xbf_arrow::records_to_batch(&ty, &records).unwrap();
        let mut opts = FileOptions::default().block_rows(block_rows);
        if let Some(b) = block_bytes {
            opts = opts.block_bytes(b);
        }
        let mut enc = xbf::EncodeOptions::v2();
        if zstd {
            enc = enc.compress_columns(Some(3)).unwrap();
        }
        if tolerance {
            enc = enc.float_tolerance(Some(0.01)).unwrap();
        }
        let opts = opts.encode_options(enc);
        let n = batch.num_rows();
        let k = split.min(n);
        let mut w = FileBatchWriter::new(Vec::new(), &batch.schema(), opts.clone()).unwrap();
        w.write(&batch.slice(0, k)).unwrap();
        w.write(&batch.slice(k, n - k)).unwrap();
        let by_columns = w.finish().unwrap();
        let file_ty = xbf_arrow::xbf_type(&batch.schema()).unwrap();
        let mut w = xbf::FileWriter::new(Vec::new(), file_ty.clone(), opts).unwrap();
        for r in xbf_arrow::batch_to_records(&file_ty, &batch).unwrap() {
            w.write(r).unwrap();
        }
        prop_assert_eq!(by_columns, w.finish().unwrap());
    }

    #[test]
    fn columnar_message_round_trip((ty, records) in arb_records()) {
        let batch = xbf_arrow::records_to_batch(&ty, &records).unwrap();
        let msg = xbf_arrow::batch_to_message(&batch).unwrap();
        // The bytes of the batch's records encoded as a columnar message.
        let by_records = xbf_arrow::batch_to_records(&ty, &batch).unwrap();
        let v = Value::Vec(VecValue::new(ty.clone(), by_records).unwrap());
        prop_assert_eq!(&msg, &xbf::EncodeOptions::default().layout(xbf::Layout::Columnar).encode_message(&v).unwrap());
        let back = xbf_arrow::message_to_batch(&msg).unwrap();
        prop_assert_eq!(back.schema(), batch.schema());
        prop_assert_eq!(back.columns(), batch.columns());
    }
}
