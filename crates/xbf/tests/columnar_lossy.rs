//! Lossy float columns, only on request (`EncodeOptions::float_tolerance`):
//! every decoded float is within the tolerance of the original, the odd
//! values (NaN, infinities, zeros, huge values) come back bit for bit, the
//! default stays exact, and real data shrinks.
#![cfg(feature = "json")]

use proptest::prelude::*;
use xbf::{EncodeOptions, ErrorKind, Layout, Metadata, PrimitiveType, Value, VecValue};

fn columns() -> EncodeOptions {
    EncodeOptions::v2().layout(Layout::Columnar)
}

fn json(text: &str) -> Value {
    xbf::json::from_json_str(text).unwrap()
}

/// Whether `back` is `orig` with each float within `tol` of it (and the
/// non-finite ones and zeros bit for bit), everything else equal. Returns
/// the number of floats that changed.
fn within(orig: &Value, back: &Value, tol: f64, changed: &mut usize) -> bool {
    fn close(a: f64, b: f64, tol: f64, changed: &mut usize) -> bool {
        if a.to_bits() == b.to_bits() {
            return true;
        }
        *changed += 1;
        a.is_finite() && a != 0.0 && b.is_finite() && (a - b).abs() <= tol
    }
    match (orig, back) {
        (Value::F64(a), Value::F64(b)) => close(*a, *b, tol, changed),
        (Value::F32(a), Value::F32(b)) => close(f64::from(*a), f64::from(*b), tol, changed),
        (Value::Vec(a), Value::Vec(b)) | (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.items().iter().zip(b.items()).all(|(x, y)| within(x, y, tol, changed))
        }
        (Value::Struct(a), Value::Struct(b)) => {
            a.metadata() == b.metadata() && a.values().iter().zip(b.values()).all(|(x, y)| within(x, y, tol, changed))
        }
        (Value::Tuple(a), Value::Tuple(b)) => a.items().iter().zip(b.items()).all(|(x, y)| within(x, y, tol, changed)),
        (Value::Option(a), Value::Option(b)) => match (a.value(), b.value()) {
            (Some(x), Some(y)) => within(x, y, tol, changed),
            (None, None) => true,
            _ => false,
        },
        (Value::Enum(a), Value::Enum(b)) => a.index() == b.index() && within(a.payload(), b.payload(), tol, changed),
        (Value::Any(a), Value::Any(b)) => a.metadata() == b.metadata() && within(a.value(), b.value(), tol, changed),
        (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.entries()
                    .iter()
                    .zip(b.entries())
                    .all(|((k1, v1), (k2, v2))| within(k1, k2, tol, changed) && within(v1, v2, tol, changed))
        }
        (a, b) => a == b,
    }
}

/// Encodes `v` in columns with `tol`, decodes it, checks the bound and
/// returns the lossy size, the exact size and how many floats changed.
fn lossy(v: &Value, tol: f64) -> (usize, usize, usize) {
    let bytes = columns().float_tolerance(Some(tol)).unwrap().encode_message(v).unwrap();
    let back = xbf::decode_message(&bytes).unwrap();
    let mut changed = 0;
    assert!(within(v, &back, tol, &mut changed), "a float moved by more than {tol}");
    (bytes.len(), columns().encode_message(v).unwrap().len(), changed)
}

/// The S&P 500 rows of 2019 as records (date as a string, five prices, volume).
fn sp500() -> Value {
    let csv = include_str!("../../xbf-cli/data/sp500-2019.csv");
    let mut lines = csv.lines();
    let names: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<String> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let fields: Vec<String> = l
                .split(',')
                .zip(&names)
                .map(|(v, n)| if *n == "date" { format!("\"{n}\": \"{v}\"") } else { format!("\"{n}\": {v}") })
                .collect();
            format!("{{{}}}", fields.join(", "))
        })
        .collect();
    json(&format!("[{}]", rows.join(",\n")))
}

#[test]
fn default_is_exact() {
    let v = sp500();
    assert_eq!(
        columns().float_tolerance(None).unwrap().encode_message(&v).unwrap(),
        columns().encode_message(&v).unwrap()
    );
    let back = xbf::decode_message(&columns().encode_message(&v).unwrap()).unwrap();
    let mut changed = 0;
    assert!(within(&v, &back, 0.0, &mut changed));
    assert_eq!(changed, 0);
}

#[test]
fn stock_prices_to_the_cent() {
    let v = sp500();
    let (small, exact, changed) = lossy(&v, 0.005);
    assert!(changed > 1000, "{changed} prices rounded");
    assert!(small * 10 < exact * 8, "{small} bytes to the cent against {exact} exact");
    // A tolerance finer than the data's six decimals changes nothing.
    let (same, exact, changed) = lossy(&v, 1e-9);
    assert_eq!((same, changed), (exact, 0));
}

#[test]
fn real_records_stay_within_the_bound() {
    for (name, text) in [
        ("flights", include_str!("../../xbf-cli/tests/data/flights-200.json")),
        ("earthquakes", include_str!("../../xbf-cli/tests/data/earthquakes-20.json")),
    ] {
        let v = json(text);
        let mut last = usize::MAX;
        for tol in [1e-12, 1e-6, 1e-3, 0.05, 0.5, 10.0] {
            let (size, exact, _) = lossy(&v, tol);
            assert!(size <= exact, "{name} at {tol}: {size} against {exact} exact");
            assert!(size <= last, "{name}: a coarser tolerance {tol} took more bytes ({size} > {last})");
            last = size;
        }
    }
}

fn f64s(values: &[f64]) -> Value {
    Value::Vec(
        VecValue::new(Metadata::Primitive(PrimitiveType::F64), values.iter().map(|&x| Value::F64(x)).collect())
            .unwrap(),
    )
}

fn f32s(values: &[f32]) -> Value {
    Value::Vec(
        VecValue::new(Metadata::Primitive(PrimitiveType::F32), values.iter().map(|&x| Value::F32(x)).collect())
            .unwrap(),
    )
}

#[test]
fn odd_values_survive_or_stay_within_the_bound() {
    let odd = [
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_dead_beef),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        f64::MIN_POSITIVE / 3.0,
        f64::MIN_POSITIVE,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        9.1e15,
        4503599627370495.5,
        -2.675,
        1.0000000000000002,
        123.456789,
    ];
    let odd32: Vec<f32> = odd.iter().map(|&x| x as f32).chain([1e-45, f32::MAX, 16777217.0, 0.1]).collect();
    for tol in [1e-300, 1e-18, 4e-19, 1e-9, 0.005, 0.5, 1.0, 1e10, 1e300, f64::MAX] {
        lossy(&f64s(&odd), tol);
        lossy(&f32s(&odd32), tol);
        // Inside records, next to other columns.
        let v = json(r#"[{"x": 1.23456, "y": "a"}, {"x": -7.000001, "y": "b"}, {"x": 0.0049, "y": "c"}]"#);
        lossy(&v, tol);
    }
    // Non-finite values and zeros come back bit for bit at any tolerance.
    let bytes = columns().float_tolerance(Some(f64::MAX)).unwrap().encode_message(&f64s(&odd)).unwrap();
    let back = xbf::decode_message(&bytes).unwrap();
    for (b, o) in back.as_vec().unwrap().items().iter().zip(&odd) {
        let (b, o) = (b.as_f64().unwrap(), *o);
        if !o.is_finite() || o == 0.0 {
            assert_eq!(b.to_bits(), o.to_bits(), "{o}");
        }
    }
}

#[test]
fn bad_tolerances_are_refused() {
    for tol in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = columns().float_tolerance(Some(tol)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidOptions, "{tol}");
    }
}

#[test]
fn rows_stay_exact() {
    let v = f64s(&[0.123456789, 1.987654321]);
    let rows = EncodeOptions::v2().layout(Layout::Rows);
    assert_eq!(
        rows.clone().float_tolerance(Some(0.1)).unwrap().encode_message(&v).unwrap(),
        rows.encode_message(&v).unwrap()
    );
}

proptest! {
    #[test]
    fn any_floats_within_any_tolerance(
        values in proptest::collection::vec(any::<f64>(), 0..64),
        small in proptest::collection::vec(-1e6f64..1e6, 0..64),
        tol_exp in -20i32..20,
    ) {
        let tol = 10f64.powi(tol_exp) * 0.75;
        lossy(&f64s(&values), tol);
        lossy(&f64s(&small), tol);
        let small32: Vec<f32> = small.iter().map(|&x| x as f32).collect();
        lossy(&f32s(&small32), tol);
    }
}
