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
use xbf::{
    AnyValue, EncodeOptions, EnumMetadata, EnumValue, FileOptions, MapValue, Metadata, OptionValue, PrimitiveType as P,
    StructMetadata, StructValue, TupleValue, Value, VecValue, I256, U256,
};
use xbf_arrow::{FileBatchReader, FileBatchWriter, ScanOptions};

const SCALARS: [P; 28] = P::ALL;

fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a-z]{1,6}", Just("日本".to_owned())]
}

/// Distinct names for members.
fn names(n: usize) -> impl Strategy<Value = Vec<String>> {
    proptest::collection::hash_set(arb_name(), n).prop_map(|s| s.into_iter().collect())
}

fn arb_metadata() -> impl Strategy<Value = Metadata> {
    let leaf = prop_oneof![
        9 => proptest::sample::select(SCALARS.to_vec()).prop_map(Metadata::from),
        1 => Just(Metadata::Any),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Metadata::vec),
            inner.clone().prop_map(Metadata::option),
            (0u64..4, inner.clone()).prop_map(|(n, t)| Metadata::array(n, t)),
            vec(inner.clone(), 0..4).prop_map(Metadata::tuple),
            (inner.clone(), inner.clone()).prop_map(|(k, v)| Metadata::map(k, v)),
            vec(inner.clone(), 0..4).prop_flat_map(|types| {
                names(types.len())
                    .prop_map(move |ns| StructMetadata::new("S", ns.into_iter().zip(types.clone())).unwrap().into())
            }),
            vec(inner, 1..4).prop_flat_map(|types| {
                names(types.len())
                    .prop_map(move |ns| EnumMetadata::new("E", ns.into_iter().zip(types.clone())).unwrap().into())
            }),
        ]
    })
}

fn arb_scalar(p: P) -> BoxedStrategy<Value> {
    match p.integer_type() {
        P::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        P::U8 => any::<u8>().prop_map(Value::U8).boxed(),
        P::U16 => any::<u16>().prop_map(Value::U16).boxed(),
        P::U32 => any::<u32>().prop_map(Value::U32).boxed(),
        P::U64 => prop_oneof![any::<u64>(), 0u64..300].prop_map(Value::U64).boxed(),
        P::U128 => any::<u128>().prop_map(Value::U128).boxed(),
        P::U256 => any::<[u8; 32]>().prop_map(|b| Value::U256(U256::from_le_bytes(b))).boxed(),
        P::I8 => any::<i8>().prop_map(Value::I8).boxed(),
        P::I16 => any::<i16>().prop_map(Value::I16).boxed(),
        P::I32 => any::<i32>().prop_map(Value::I32).boxed(),
        P::I64 => prop_oneof![any::<i64>(), -300i64..300].prop_map(Value::I64).boxed(),
        P::I128 => any::<i128>().prop_map(Value::I128).boxed(),
        P::I256 => any::<[u8; 32]>().prop_map(|b| Value::I256(I256::from_le_bytes(b))).boxed(),
        // Bits, not values: NaN payloads and -0.0 must survive.
        P::F32 => any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))).boxed(),
        P::F64 => any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))).boxed(),
        P::Bytes => vec(any::<u8>(), 0..6).prop_map(Value::Bytes).boxed(),
        P::String => ".{0,5}".prop_map(Value::String).boxed(),
        P::Unit => Just(Value::Unit).boxed(),
        P::Date => any::<i32>().prop_map(Value::Date).boxed(),
        P::Timestamp => any::<i64>().prop_map(Value::Timestamp).boxed(),
        other => unreachable!("{other} is an integer type's fixed form"),
    }
}

fn arb_value(ty: &Metadata) -> BoxedStrategy<Value> {
    match ty {
        Metadata::Primitive(p) => arb_scalar(*p),
        Metadata::Any => (0usize..SCALARS.len())
            .prop_flat_map(|i| {
                let own = Metadata::from(SCALARS[i]);
                arb_value(&own).prop_map(move |v| Value::Any(Box::new(AnyValue::new(own.clone(), v).unwrap())))
            })
            .boxed(),
        Metadata::Vec(e) => {
            let e = (**e).clone();
            vec(arb_value(&e), 0..3).prop_map(move |items| VecValue::new(e.clone(), items).unwrap().into()).boxed()
        }
        Metadata::Array(a) => {
            let e = a.element.clone();
            vec(arb_value(&e), a.len as usize)
                .prop_map(move |items| Value::Array(VecValue::new(e.clone(), items).unwrap()))
                .boxed()
        }
        Metadata::Option(inner) => {
            let inner = (**inner).clone();
            let none = Value::Option(OptionValue::none(inner.clone()));
            prop_oneof![
                Just(none),
                arb_value(&inner).prop_map(move |v| Value::Option(OptionValue::some(inner.clone(), v).unwrap())),
            ]
            .boxed()
        }
        Metadata::Tuple(ts) => {
            let ts = ts.to_vec();
            let parts: Vec<_> = ts.iter().map(arb_value).collect();
            parts.prop_map(move |items| Value::Tuple(TupleValue::new(ts.clone(), items).unwrap())).boxed()
        }
        Metadata::Struct(s) => {
            let s = s.clone();
            let parts: Vec<_> = s.fields().map(|(_, t)| arb_value(t)).collect();
            parts.prop_map(move |vals| StructValue::new(s.clone(), vals).unwrap().into()).boxed()
        }
        Metadata::Map(m) => {
            let (k, v) = (m.key.clone(), m.value.clone());
            vec((arb_value(&k), arb_value(&v)), 0..3)
                .prop_map(move |pairs| {
                    // Keep the first of equal keys: map keys are unique.
                    let mut entries: Vec<(Value, Value)> = Vec::new();
                    for (key, val) in pairs {
                        let bytes = EncodeOptions::v2().encode_value(&key).unwrap();
                        if !entries.iter().any(|(k2, _)| EncodeOptions::v2().encode_value(k2).unwrap() == bytes) {
                            entries.push((key, val));
                        }
                    }
                    Value::Map(MapValue::new(k.clone(), v.clone(), entries).unwrap())
                })
                .boxed()
        }
        Metadata::Enum(e) => {
            let e = e.clone();
            (0..e.len())
                .prop_flat_map(move |i| {
                    let e = e.clone();
                    let (name, pty) = e.variant_at(i).unwrap();
                    let name = name.to_owned();
                    arb_value(pty).prop_map(move |p| Value::Enum(EnumValue::new(e.clone(), &name, p).unwrap()))
                })
                .boxed()
        }
        other => panic!("no strategy for {other}"),
    }
}

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

    #[test]
    fn columnar_message_round_trip((ty, records) in arb_records()) {
        let batch = xbf_arrow::records_to_batch(&ty, &records).unwrap();
        let msg = xbf_arrow::batch_to_message(&batch).unwrap();
        let back = xbf_arrow::message_to_batch(&msg).unwrap();
        prop_assert_eq!(back.schema(), batch.schema());
        prop_assert_eq!(back.columns(), batch.columns());
    }
}
