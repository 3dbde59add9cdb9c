//! `Layout::Auto` on long vecs decides from a sample when the sample is
//! clear, and otherwise writes both layouts: either way it must pick the
//! smaller one.

use xbf::{EncodeOptions, Layout, Metadata, PrimitiveType as P, StructMetadata, StructValue, Value, VecValue};

fn records(n: usize, noise: bool) -> Value {
    let ty = std::sync::Arc::new(
        StructMetadata::new("R", [("id", Metadata::Primitive(P::U64)), ("x", Metadata::Primitive(P::F64))]).unwrap(),
    );
    let mut seed = 1u64;
    let items = (0..n)
        .map(|i| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let x = if noise { f64::from_bits(seed >> 2 | 0x3ff0_0000_0000_0000) } else { (i % 100) as f64 / 4.0 };
            Value::Struct(
                StructValue::new(ty.clone(), vec![Value::U64(if noise { seed } else { i as u64 }), Value::F64(x)])
                    .unwrap(),
            )
        })
        .collect();
    Value::Vec(VecValue::new(Metadata::Struct(ty), items).unwrap())
}

fn sizes(v: &Value) -> (Vec<u8>, usize, usize) {
    let auto = EncodeOptions::v2().encode_message(v).unwrap();
    let rows = EncodeOptions::v2().layout(Layout::Rows).encode_message(v).unwrap().len();
    let cols = EncodeOptions::v2().layout(Layout::Columnar).encode_message(v).unwrap().len();
    (auto, rows, cols)
}

#[test]
fn a_clear_sample_picks_columns() {
    let v = records(20_000, false);
    let (auto, rows, cols) = sizes(&v);
    assert!(cols * 4 < rows, "{cols} columnar, {rows} rows");
    assert_eq!(auto, EncodeOptions::v2().layout(Layout::Columnar).encode_message(&v).unwrap());
    assert_eq!(xbf::decode_message(&auto).unwrap(), v);
}

#[test]
fn a_close_call_writes_both_and_keeps_the_smaller() {
    // Random ids and random floats: columns save next to nothing.
    let v = records(20_000, true);
    let (auto, rows, cols) = sizes(&v);
    assert_eq!(auto.len(), rows.min(cols), "{rows} rows, {cols} columnar");
    assert_eq!(xbf::decode_message(&auto).unwrap(), v);
}
