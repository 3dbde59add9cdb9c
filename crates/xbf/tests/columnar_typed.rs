//! Columnar messages read straight into serde types (`from_slice`), checked
//! against the long way round: the dynamic decoder's `Value`, written back
//! as rows and read by the typed row reader.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use xbf::{DecodeOptions, EncodeOptions, ErrorKind, Layout};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Flight {
    date: String,
    delay: i32,
    distance: i32,
    origin: String,
    destination: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct FeatureCollection {
    #[serde(rename = "type")]
    kind: String,
    metadata: QuakeMeta,
    features: Vec<Feature>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct QuakeMeta {
    generated: u64,
    url: String,
    title: String,
    status: u16,
    api: String,
    count: u32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Feature {
    #[serde(rename = "type")]
    kind: String,
    properties: QuakeProps,
    geometry: Geometry,
    id: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[allow(non_snake_case)]
struct QuakeProps {
    mag: Option<f64>,
    place: String,
    time: u64,
    updated: u64,
    tz: Option<i32>,
    url: String,
    felt: Option<i32>,
    cdi: Option<f64>,
    alert: Option<String>,
    status: String,
    tsunami: i32,
    sig: i32,
    net: String,
    code: String,
    ids: String,
    nst: Option<i32>,
    dmin: Option<f64>,
    rms: Option<f64>,
    gap: Option<f64>,
    magType: String,
    title: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Geometry {
    #[serde(rename = "type")]
    kind: String,
    coordinates: [f64; 3],
}

fn flights() -> Vec<Flight> {
    serde_json::from_str(include_str!("../../xbf-cli/tests/data/flights-200.json")).unwrap()
}

fn earthquakes() -> FeatureCollection {
    serde_json::from_str(include_str!("../../xbf-cli/tests/data/earthquakes-20.json")).unwrap()
}

/// `value` as a columnar message of its traced type.
fn columns<'de, T: Serialize + Deserialize<'de>>(value: &T, opts: EncodeOptions) -> Vec<u8> {
    let rows = xbf::to_vec(value).unwrap();
    let (ty, v) = DecodeOptions::default().decode_typed_message(&rows).unwrap();
    let bytes = opts.layout(Layout::Columnar).encode_typed_message(&ty, &v).unwrap();
    assert_eq!(bytes[1] & 0x02, 0x02, "a columnar message");
    bytes
}

/// The long way: the dynamic decoder, then rows, then the row reader.
fn via_rows<T: DeserializeOwned>(bytes: &[u8]) -> xbf::Result<T> {
    let (ty, v) = DecodeOptions::default().decode_typed_message(bytes)?;
    let rows = EncodeOptions::v2().layout(Layout::Rows).encode_typed_message(&ty, &v)?;
    xbf::from_slice(&rows)
}

#[test]
fn real_records_read_straight_from_columns() {
    let f = flights();
    let q = earthquakes();
    let mut settings = vec![EncodeOptions::v2()];
    if cfg!(feature = "zstd") {
        settings.push(EncodeOptions::v2().compress_columns(Some(3)).unwrap());
    }
    for opts in settings {
        let bytes = columns(&f, opts.clone());
        assert_eq!(opts.clone().layout(Layout::Columnar).to_vec(&f).unwrap(), bytes, "the typed writer's columns");
        assert_eq!(xbf::from_slice::<Vec<Flight>>(&bytes).unwrap(), f);
        assert_eq!(xbf::from_reader::<Vec<Flight>, _>(&bytes[..]).unwrap(), f);
        let bytes = columns(&q, opts.clone());
        assert_eq!(xbf::from_slice::<FeatureCollection>(&bytes).unwrap(), q);
        assert_eq!(via_rows::<FeatureCollection>(&bytes).unwrap(), q);
    }
}

#[test]
fn fields_are_matched_by_name_and_unread_columns_are_skipped() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Route {
        destination: String,
        origin: String,
        #[serde(rename = "delay")]
        late: i64,
        #[serde(default)]
        gate: Option<u16>,
    }
    let f = flights();
    let mut bytes = columns(&f, EncodeOptions::v2());
    let want: Vec<Route> = f
        .iter()
        .map(|x| Route {
            destination: x.destination.clone(),
            origin: x.origin.clone(),
            late: x.delay.into(),
            gate: None,
        })
        .collect();
    assert_eq!(xbf::from_slice::<Vec<Route>>(&bytes).unwrap(), want);
    assert_eq!(via_rows::<Vec<Route>>(&bytes).unwrap(), want);

    // A field the data lacks and the type gives no default: named.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Gate {
        origin: String,
        gate: u16,
    }
    let err = xbf::from_slice::<Vec<Gate>>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch);
    assert!(err.to_string().contains("gate"), "{err}");

    // Spoil the `date` column's encoding byte: a reader of all fields
    // fails there, one without `date` never reads the column.
    let ty = xbf::metadata_of::<Vec<Flight>>().unwrap();
    let mut at = 2 + EncodeOptions::v2().encode_metadata(&ty).unwrap().len();
    for c in DecodeOptions::default().column_stats(&bytes).unwrap() {
        // Each column: its length as a varint, then its bytes.
        let prefix = if c.bytes < 0x80 {
            1
        } else if c.bytes < 0x4000 {
            2
        } else {
            3
        };
        if c.path.ends_with("date") {
            at += prefix;
            break;
        }
        at += prefix + c.bytes as usize;
    }
    bytes[at] = 0x7f;
    let err = xbf::from_slice::<Vec<Flight>>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownDiscriminant, "{err}");
    assert_eq!(err.kind(), via_rows::<Vec<Flight>>(&bytes).unwrap_err().kind());
    assert_eq!(xbf::from_slice::<Vec<Route>>(&bytes).unwrap(), want);
}

#[test]
fn strings_are_borrowed_where_the_column_holds_them_as_they_are() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Named<'a> {
        #[serde(borrow)]
        name: &'a str,
        n: u32,
    }
    // Names sharing nothing and never repeated: a plain column.
    let names: Vec<String> = (0..50u32).map(|i| format!("{}-{}", (b'z' - (i % 26) as u8) as char, i * 7919)).collect();
    let records: Vec<Named> = names.iter().enumerate().map(|(i, s)| Named { name: s, n: i as u32 }).collect();
    let bytes = columns(&records, EncodeOptions::v2());
    let back: Vec<Named> = xbf::from_slice(&bytes).unwrap();
    assert_eq!(back, records);
    let inside = bytes.as_ptr_range();
    assert!(back.iter().all(|r| inside.contains(&r.name.as_ptr())), "borrowed from the message");

    // A dictionary rebuilds its values: `&str` cannot borrow them (serde's
    // own error), `Cow<str>` and `String` can take them.
    let repeated: Vec<Named> = (0..50).map(|i| Named { name: ["ab", "cd"][i % 2], n: i as u32 }).collect();
    let bytes = columns(&repeated, EncodeOptions::v2());
    assert_eq!(xbf::from_slice::<Vec<Named>>(&bytes).unwrap(), repeated, "a dictionary lies in the message");
    #[derive(Deserialize, Debug, PartialEq)]
    struct Owned<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
        n: u32,
    }
    let sorted: Vec<String> = (0..50).map(|i| format!("https://example.com/item/{i:04}")).collect();
    let records: Vec<Named> = sorted.iter().enumerate().map(|(i, s)| Named { name: s, n: i as u32 }).collect();
    let bytes = columns(&records, EncodeOptions::v2());
    let stats = DecodeOptions::default().column_stats(&bytes).unwrap();
    assert!(stats.iter().any(|c| c.encoding == xbf::wire::ColumnEncoding::Prefix), "{stats:?}");
    let err = xbf::from_slice::<Vec<Named>>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch, "{err}");
    let back: Vec<Owned> = xbf::from_slice(&bytes).unwrap();
    assert!(back.iter().zip(&sorted).all(|(b, s)| b.name == s.as_str()));
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Circle(f64),
    Rect(u16, u16),
    Poly { points: Vec<(i32, i32)>, closed: bool },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rich {
    id: u128,
    delta: i128,
    small: i8,
    name: String,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    tags: Vec<String>,
    nested: Vec<Vec<u32>>,
    maybe: Option<Vec<u8>>,
    shape: Shape,
    by_id: BTreeMap<u32, String>,
    point: [f32; 3],
    pair: (bool, f64),
    unit: (),
}

fn rich() -> impl Strategy<Value = Rich> {
    let shape = prop_oneof![
        Just(Shape::Empty),
        any::<f64>().prop_map(Shape::Circle),
        (any::<u16>(), any::<u16>()).prop_map(|(a, b)| Shape::Rect(a, b)),
        (proptest::collection::vec(any::<(i32, i32)>(), 0..4), any::<bool>())
            .prop_map(|(points, closed)| Shape::Poly { points, closed }),
    ];
    (
        (any::<u128>(), any::<i128>(), any::<i8>(), ".{0,6}", proptest::collection::vec(any::<u8>(), 0..6)),
        proptest::collection::vec("[a-c]{0,3}", 0..4),
        proptest::collection::vec(proptest::collection::vec(any::<u32>(), 0..3), 0..3),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..3)),
        shape,
        proptest::collection::btree_map(any::<u32>(), "[xy]{0,2}", 0..3),
        (any::<[f32; 3]>(), any::<(bool, f64)>()),
    )
        .prop_map(|((id, delta, small, name, blob), tags, nested, maybe, shape, by_id, (point, pair))| Rich {
            id,
            delta,
            small,
            name,
            blob,
            tags,
            nested,
            maybe,
            shape,
            by_id,
            point,
            pair,
            unit: (),
        })
}

/// Whether error `e` lies in a column of a field `Rich` does not have.
fn in_unread_column(e: &xbf::Error) -> bool {
    const FIELDS: [&str; 13] =
        ["id", "delta", "small", "name", "blob", "tags", "nested", "maybe", "shape", "by_id", "point", "pair", "unit"];
    let first = e.path().find_map(|s| match s {
        xbf::PathSegment::Field(f) => Some(f),
        _ => None,
    });
    first.is_some_and(|f| !FIELDS.contains(&&**f))
}

/// Floats compared by their bits (NaN included).
fn same(a: &[Rich], b: &[Rich]) -> bool {
    let bits = |r: &[Rich]| xbf::to_vec(&r.to_vec()).unwrap();
    bits(a) == bits(b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_records_round_trip_through_columns(records in proptest::collection::vec(rich(), 0..12)) {
        let bytes = columns(&records, EncodeOptions::v2());
        let back: Vec<Rich> = xbf::from_slice(&bytes).unwrap();
        prop_assert!(same(&back, &records));
    }

    #[test]
    fn damaged_columns_fail_as_the_dynamic_decoder_does(
        records in proptest::collection::vec(rich(), 1..6),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = columns(&records, EncodeOptions::v2());
        let mut bad = bytes.clone();
        for (i, b) in &edits {
            let i = i.index(bad.len());
            bad[i] = *b;
        }
        for input in [&bad[..], &bytes[..cut.index(bytes.len())]] {
            let direct = xbf::from_slice::<Vec<Rich>>(input);
            let long = via_rows::<Vec<Rich>>(input);
            match (&direct, &long) {
                (Ok(a), Ok(b)) => prop_assert!(same(a, b)),
                // Both fail; not always at the same place: the direct reader
                // frames every column before it reads any, the long way
                // frames each as it reads it.
                (Err(_), Err(_)) => {}
                // An edit renamed a field: the direct reader skips the
                // column its type has no field for without reading it (that
                // is projection), the long way decodes every column.
                (Ok(_), Err(e)) if in_unread_column(e) => {}
                _ => prop_assert!(false, "from_slice {:?}, the long way {:?}", direct.map(|_| ()), long.map(|_| ())),
            }
        }
    }
}

#[test]
fn maps_enums_and_options_of_every_kind() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Doc {
        counts: HashMap<u32, String>,
        shapes: Vec<Shape>,
        opt: Vec<Option<Option<bool>>>,
        any: Vec<Loose>,
    }
    /// Untagged: its metadata is read off each value, `any`.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Loose {
        N(u64),
        S(String),
    }
    let docs: Vec<Doc> = (0..40u32)
        .map(|i| Doc {
            counts: (0..i % 4).map(|k| (k * 3 + i, format!("v{k}"))).collect(),
            shapes: vec![Shape::Empty, Shape::Circle(f64::from(i) / 4.0), Shape::Rect(i as u16, 2)],
            opt: vec![None, Some(None), Some(Some(i % 2 == 0))],
            any: vec![Loose::N(u64::from(i)), Loose::S(format!("s{i}"))],
        })
        .collect();
    let bytes = columns(&docs, EncodeOptions::v2());
    assert_eq!(xbf::from_slice::<Vec<Doc>>(&bytes).unwrap(), docs);

    // An enum read by a type with fewer variants, and by its names alone.
    #[derive(Deserialize, Debug, PartialEq)]
    enum Round {
        Circle(f64),
        Empty,
    }
    let rounds: Vec<Shape> = (0..20).map(|i| if i % 3 == 0 { Shape::Empty } else { Shape::Circle(i as f64) }).collect();
    let bytes = columns(&rounds, EncodeOptions::v2());
    let back: Vec<Round> = xbf::from_slice(&bytes).unwrap();
    assert_eq!(back[0], Round::Empty);
    assert_eq!(back[1], Round::Circle(1.0));
    let squares: Vec<Shape> = vec![Shape::Rect(1, 1); 20];
    let err = xbf::from_slice::<Vec<Round>>(&columns(&squares, EncodeOptions::v2())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch);
}

/// `bytes` with the last occurrence of `old` replaced by `new`.
fn replace_last(bytes: &[u8], old: &[u8], new: &[u8]) -> Vec<u8> {
    let at = bytes.windows(old.len()).rposition(|w| w == old).expect("the pattern is in the message");
    [&bytes[..at], new, &bytes[at + old.len()..]].concat()
}

#[test]
fn duplicate_keys_and_hostile_counts_are_refused() {
    // One map {1: 0, 2: 0}; its keys column is varint [1, 2]: make it [1, 1].
    let map: BTreeMap<u8, u8> = [(1, 0), (2, 0)].into_iter().collect();
    let bytes = columns(&map, EncodeOptions::v2());
    let dup = replace_last(&bytes, &[0x03, 0x00, 0x01, 0x02], &[0x03, 0x00, 0x01, 0x01]);
    assert_eq!(xbf::from_slice::<BTreeMap<u8, u8>>(&dup).unwrap_err().kind(), ErrorKind::DuplicateKey);
    assert_eq!(via_rows::<BTreeMap<u8, u8>>(&dup).unwrap_err().kind(), ErrorKind::DuplicateKey);

    // [[(), (), ()]] whose inner length claims 2^40 units: refused by the
    // decoding budget before any is made, not counted through.
    let units = vec![vec![(); 3]];
    let bytes = columns(&units, EncodeOptions::v2());
    let huge = replace_last(&bytes, &[0x02, 0x00, 0x03], &[0x07, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    assert_eq!(xbf::from_slice::<Vec<Vec<()>>>(&huge).unwrap_err().kind(), ErrorKind::TooLarge);
    assert_eq!(via_rows::<Vec<Vec<()>>>(&huge).unwrap_err().kind(), ErrorKind::TooLarge);

    // Bytes after the columns, and columns cut short.
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(xbf::from_slice::<Vec<Vec<()>>>(&long).unwrap_err().kind(), ErrorKind::TrailingBytes);
    for cut in 0..bytes.len() {
        assert!(xbf::from_slice::<Vec<Vec<()>>>(&bytes[..cut]).is_err());
    }
}
