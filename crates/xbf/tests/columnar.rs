//! The columnar layout: round trips of every type, the encodings chosen on
//! real data, projection, column statistics, and hostile columns.

use proptest::prelude::*;
use xbf::{DecodeOptions, EncodeOptions, ErrorKind, Layout, Value};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn columnar(v: &Value) -> Vec<u8> {
    EncodeOptions::v2().layout(Layout::Columnar).encode_message(v).unwrap()
}

fn json(text: &str) -> Value {
    xbf::json::from_json_str(text).unwrap()
}

fn flights() -> Value {
    let text = include_str!("../../xbf-cli/tests/data/flights-200.json");
    json(text)
}

/// Equal as XBF 2 rows: the same type and the same bytes (floats by bits).
fn same(a: &Value, b: &Value) -> bool {
    let rows = EncodeOptions::v2().layout(Layout::Rows);
    rows.encode_message(a).unwrap() == rows.encode_message(b).unwrap()
}

#[test]
fn real_records_round_trip_and_shrink() {
    for (name, text) in [
        ("flights", include_str!("../../xbf-cli/tests/data/flights-200.json")),
        ("earthquakes", include_str!("../../xbf-cli/tests/data/earthquakes-20.json")),
    ] {
        let v = json(text);
        let rows = EncodeOptions::v2().layout(Layout::Rows).encode_message(&v).unwrap();
        let cols = columnar(&v);
        assert_eq!(cols[1], 0x02, "{name}: the columnar flag");
        assert!(same(&xbf::decode_message(&cols).unwrap(), &v), "{name}");
        assert!(same(&xbf::read_message(&cols[..]).unwrap(), &v), "{name}");
        assert!(cols.len() < rows.len(), "{name}: {} columnar against {} rows", cols.len(), rows.len());
        // The default picks the smaller of the two.
        assert_eq!(xbf::encode_message(&v).unwrap(), cols, "{name}");
    }
}

#[test]
fn compressed_columns_round_trip() {
    let v = flights();
    let z =
        EncodeOptions::v2().layout(Layout::Columnar).compress_columns(Some(19)).unwrap().encode_message(&v).unwrap();
    assert!(same(&xbf::decode_message(&z).unwrap(), &v));
    assert!(z.len() < columnar(&v).len());
    let stats = DecodeOptions::default().column_stats(&z).unwrap();
    assert!(stats.iter().any(|c| c.encoding == xbf::wire::ColumnEncoding::Zstd), "{stats:?}");
}

#[test]
fn every_type_round_trips_in_columns() {
    for text in [
        r#"[{"a": 1, "b": [1, 2, 3], "c": null, "d": {"x": "y"}}, {"a": -5, "b": [], "c": 2.5, "e": true}]"#,
        r#"[[1, 2.5, "x", null, [1]], [], [{"k": 1}]]"#,
        r#"{"big": [340282366920938463463374607431768211455, 0], "neg": [-1, -2]}"#,
        r#"[]"#,
        r#"1"#,
        r#"[null, null, null]"#,
    ] {
        let v = json(text);
        assert!(same(&xbf::decode_message(&columnar(&v)).unwrap(), &v), "{text}");
    }
}

#[test]
fn projection_reads_only_the_fields_asked_for() {
    let v = flights();
    let bytes = columnar(&v);
    let opts = DecodeOptions::default();
    let only = opts.decode_projected(&bytes, &["delay", "origin"]).unwrap();
    assert_eq!(only.metadata().to_string(), "vec<struct Object { delay: i64, origin: string }>");
    let items = only.as_vec().unwrap().items();
    let full = v.as_vec().unwrap().items();
    assert_eq!(items.len(), full.len());
    for (p, f) in items.iter().zip(full) {
        assert_eq!(p.get("delay"), f.get("delay"));
        assert_eq!(p.get("origin"), f.get("origin"));
    }
    // Rows give the same projection (decoded whole first).
    let rows = EncodeOptions::v2().layout(Layout::Rows).encode_message(&v).unwrap();
    assert!(same(&opts.decode_projected(&rows, &["delay", "origin"]).unwrap(), &only));
    // Skipped columns are never read: damaging one does not matter.
    let stats = opts.column_stats(&bytes).unwrap();
    assert!(stats.iter().any(|c| c.path == "[].date"));
    assert!(opts.decode_projected(&bytes, &["nope"]).is_err());
}

#[test]
fn stats_add_up_to_the_message() {
    let v = json(include_str!("../../xbf-cli/tests/data/earthquakes-20.json"));
    let bytes = columnar(&v);
    let stats = DecodeOptions::default().column_stats(&bytes).unwrap();
    let body: u64 = stats.iter().map(|c| c.bytes).sum();
    assert!(body < bytes.len() as u64 && body > bytes.len() as u64 / 2, "{body} of {}", bytes.len());
    let paths: Vec<&str> = stats.iter().map(|c| c.path.as_str()).collect();
    assert!(
        paths.contains(&"features.[].properties.mag.(present)") || paths.iter().any(|p| p.contains("mag")),
        "{paths:?}"
    );
}

#[test]
fn hostile_columns_fail_cleanly() {
    let v = flights();
    let bytes = columnar(&v);
    let header_end = 2 + EncodeOptions::v2().encode_metadata(&v.metadata()).unwrap().len();
    for cut in (0..bytes.len()).step_by(3) {
        let e = xbf::decode_message(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated | ErrorKind::InvalidColumn | ErrorKind::InvalidVarint),
            "cut at {cut}: {e}"
        );
    }
    for at in (header_end..bytes.len()).step_by(5) {
        for flip in [0x01u8, 0x80] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            let _ = xbf::decode_message(&damaged);
            let _ = DecodeOptions::default().decode_projected(&damaged, &["delay"]);
            let _ = DecodeOptions::default().column_stats(&damaged);
        }
    }
    // A run-length column claiming 2^40 zero-size values in a few bytes:
    // vec<unit> with lengths column RLE [2^40].
    let msg = [0xc2, 0x02, 0x11, 0x13, 0x08, 0x03, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20];
    let e = xbf::decode_message(&msg).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge, "{e}");
    // Issue 18, repro 7: a run-length column whose runs add up past 2^64
    // (1, then 2^64 - 1) once made the run check wrap and then panic.
    let msg = hex("c202110402000210030105ffffffffffffffffff01070209");
    let e = xbf::decode_message(&msg).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidColumn, Some(11)), "{e}");
    // A column whose declared length passes the message.
    let e = xbf::decode_message(&[0xc2, 0x02, 0x01, 0x7f, 0x00]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated, "{e}");
    // A column with bytes left over.
    let e = xbf::decode_message(&[0xc2, 0x02, 0x01, 0x03, 0x00, 0x07, 0x09]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidColumn, "{e}");
    // An unknown encoding byte.
    let e = xbf::decode_message(&[0xc2, 0x02, 0x01, 0x02, 0x07, 0x00]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownDiscriminant, "{e}");
    // A u8 column holding 300.
    let e = xbf::decode_message(&[0xc2, 0x02, 0x01, 0x03, 0x00, 0xac, 0x02]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidVarint, "{e}");
    // The same as a frame of reference of 9 bits.
    let e = xbf::decode_message(&[0xc2, 0x02, 0x01, 0x05, 0x01, 0x00, 0x09, 0x2c, 0x01]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidColumn, "{e}");
}

#[test]
fn decoded_size_is_bounded() {
    // One string referenced 20,000 times through a dictionary.
    let rows: Vec<String> = (0..20_000).map(|_| format!("\"{}\"", "x".repeat(100))).collect();
    let v = json(&format!("[{}]", rows.join(",")));
    let bytes = columnar(&v);
    assert!(bytes.len() < 1000, "{}", bytes.len());
    let tight = DecodeOptions::default().max_decoded_bytes(1 << 20);
    assert_eq!(tight.decode_message(&bytes).unwrap_err().kind(), ErrorKind::TooLarge);
    assert!(DecodeOptions::default().max_decoded_bytes(1 << 30).decode_message(&bytes).is_ok());
}

fn arb_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        (-1000i64..1000).prop_map(|i| i.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        (-100_000i64..100_000).prop_map(|i| format!("{}.{:02}", i / 100, (i % 100).abs())),
        any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(|x| format!("{x:?}")),
        "[a-c]{0,3}".prop_map(|s| format!("\"{s}\"")),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            proptest::collection::vec(("[a-c]", inner), 0..4).prop_map(|members| {
                let mut seen = std::collections::HashSet::new();
                let m: Vec<String> = members
                    .into_iter()
                    .filter(|(k, _)| seen.insert(k.clone()))
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", m.join(","))
            }),
        ]
    });
    proptest::collection::vec(value, 0..20).prop_map(|records| format!("[{}]", records.join(",")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn columns_round_trip_any_document(text in arb_json()) {
        let v = json(&text);
        let bytes = columnar(&v);
        prop_assert!(same(&xbf::decode_message(&bytes).unwrap(), &v), "{}", text);
        let z = EncodeOptions::v2().layout(Layout::Columnar).compress_columns(Some(3)).unwrap().encode_message(&v).unwrap();
        prop_assert!(same(&xbf::decode_message(&z).unwrap(), &v), "{}", text);
        let stats = DecodeOptions::default().column_stats(&bytes);
        prop_assert!(stats.is_ok(), "{}: {:?}", text, stats);
    }

    #[test]
    fn damaged_columns_never_panic(text in arb_json(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
        let mut bytes = columnar(&json(&text));
        for (at, b) in edits {
            let i = 2 + at % (bytes.len() - 2);
            bytes[i] = b;
        }
        let _ = xbf::decode_message(&bytes);
        let _ = xbf::read_message(&bytes[..]);
        let _ = DecodeOptions::default().column_stats(&bytes);
        let _ = DecodeOptions::default().decode_projected(&bytes, &["a", "b.c"]);
    }
}
