//! `#[derive(xbf::Xbf)]`: the same bytes, metadata, values and errors as
//! the serde path, on real-shaped types, generated values and damaged
//! messages, in rows and in columns.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use xbf::fast::{self, Decode, Encode};
use xbf::{EncodeOptions, Error, ErrorKind, Xbf};

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Point {
    first: i8,
    last: i8,
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Circle(f64),
    Rect { w: u16, h: u16 },
    Pair(u8, String),
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Inner {
    x: f64,
    tags: Vec<String>,
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Meters(u32);

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Span(u16, i32);

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
#[serde(rename = "Document", rename_all = "camelCase")]
struct Doc<'a> {
    name: &'a str,
    #[serde(with = "serde_bytes")]
    raw_bytes: &'a [u8],
    #[serde(with = "serde_bytes")]
    owned_bytes: Vec<u8>,
    inner: Inner,
    empty: Vec<Point>,
    maybe: Option<u32>,
    none: Option<Inner>,
    shape: Shape,
    shapes: Vec<Shape>,
    index: HashMap<u32, String>,
    sorted: BTreeMap<String, Vec<i16>>,
    big: u128,
    neg: i128,
    grid: [u16; 3],
    pair: (bool, i64),
    #[serde(rename = "len")]
    length: Meters,
    span: Span,
    boxed: Box<Point>,
    small: (u8, i8, f32),
}

fn doc(name: &str) -> Doc<'_> {
    Doc {
        name,
        raw_bytes: b"\xde\xad",
        owned_bytes: vec![1, 2, 3],
        inner: Inner { x: 1.5, tags: vec!["a".into(), "bc".into()] },
        empty: vec![],
        maybe: Some(7),
        none: None,
        shape: Shape::Rect { w: 3, h: 4 },
        shapes: vec![Shape::Empty, Shape::Circle(-0.5), Shape::Pair(9, "nine".into())],
        index: HashMap::from([(1, "one".into()), (300, "three hundred".into())]),
        sorted: BTreeMap::from([("a".into(), vec![-1, 2]), ("b".into(), vec![])]),
        big: u128::MAX - 5,
        neg: i128::MIN + 3,
        grid: [1, 200, 60_000],
        pair: (true, -1 << 40),
        length: Meters(12),
        span: Span(5, -6),
        boxed: Box::new(Point { first: 42, last: -5 }),
        small: (255, -128, 0.25),
    }
}

/// Same kind, offset and path: the detail text may be worded differently.
fn same_error(a: &Error, b: &Error) -> bool {
    a.kind() == b.kind() && a.offset() == b.offset() && a.path().eq(b.path())
}

/// Values are compared by their encodings, which tell NaNs by their bits.
fn same_outcome<T: Encode + std::fmt::Debug>(fast: xbf::Result<T>, serde: xbf::Result<T>, what: &str) {
    match (&fast, &serde) {
        (Ok(a), Ok(b)) => assert_eq!(fast::to_vec(a).unwrap(), fast::to_vec(b).unwrap(), "{what}: {a:?} / {b:?}"),
        (Err(a), Err(b)) => assert!(same_error(a, b), "{what}: derive path {a}, serde path {b}"),
        _ => panic!("{what}: derive path {fast:?}, serde path {serde:?}"),
    }
}

#[test]
fn the_issue_type_round_trips_in_the_serde_paths_bytes() {
    let d = doc("borrowed");
    let bytes = fast::to_vec(&d).unwrap();
    // HashMap order is the map's own, so compare with the serde path on
    // the same value (same iteration order).
    assert_eq!(bytes, xbf::to_vec(&d).unwrap());
    assert_eq!(fast::metadata_of::<Doc>().unwrap(), xbf::metadata_of::<Doc>().unwrap());
    let back: Doc = fast::from_slice(&bytes).unwrap();
    assert_eq!(back, d);
    // The &str borrows from the message.
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.name.as_ptr()));
    assert!(range.contains(&back.raw_bytes.as_ptr()));
    assert!(xbf::metadata_of::<Doc>()
        .unwrap()
        .to_string()
        .starts_with("struct Document { name: string, rawBytes: bytes"));
}

#[test]
fn v1_bytes_equal_the_serde_path_and_the_papers_layout() {
    let p = Point { first: 42, last: -5 };
    let v1 = fast::to_vec_with(&EncodeOptions::v1(), &p).unwrap();
    assert_eq!(v1, EncodeOptions::v1().to_vec(&p).unwrap());
    assert_eq!(v1.len(), 45);
    assert_eq!(fast::from_slice::<Point>(&v1).unwrap(), p);
    let rows = vec![Inner { x: 2.0, tags: vec!["x".into()] }; 3];
    let v1 = fast::to_vec_with(&EncodeOptions::v1(), &rows).unwrap();
    assert_eq!(v1, EncodeOptions::v1().to_vec(&rows).unwrap());
    assert_eq!(fast::from_slice::<Vec<Inner>>(&v1).unwrap(), rows);
    // A type v1 cannot hold: the same refusal as the serde path.
    let a = fast::to_vec_with(&EncodeOptions::v1(), &doc("x")).unwrap_err();
    let b = EncodeOptions::v1().to_vec(&doc("x")).unwrap_err();
    assert_eq!(a.kind(), ErrorKind::Unsupported);
    assert_eq!(a.to_string(), b.to_string());
}

/// The serde and derive paths have the same functions under the same
/// names, and the `_with` forms of both take the options first.
#[test]
fn serde_and_derive_functions_are_named_alike() {
    let rows = vec![Inner { x: 2.5, tags: vec!["a".into(), "b".into()] }; 4];
    let v1 = EncodeOptions::v1();
    let bytes = xbf::to_vec_with(&v1, &rows).unwrap();
    assert_eq!(bytes, fast::to_vec_with(&v1, &rows).unwrap());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    xbf::to_writer_with(&v1, &mut a, &rows).unwrap();
    fast::to_writer_with(&v1, &mut b, &rows).unwrap();
    assert_eq!((&a, &b), (&bytes, &bytes));
    assert_eq!(xbf::metadata_of::<Vec<Inner>>().unwrap(), fast::metadata_of::<Vec<Inner>>().unwrap());
    let opts = xbf::DecodeOptions::default().max_depth(3).unwrap();
    assert_eq!(xbf::from_slice_with::<Vec<Inner>>(&opts, &bytes).unwrap(), rows);
    assert_eq!(fast::from_slice_with::<Vec<Inner>>(&opts, &bytes).unwrap(), rows);
    assert_eq!(xbf::from_reader_with::<Vec<Inner>, _>(&opts, &bytes[..]).unwrap(), rows);
    // vec, struct, vec: 3 levels, one more than these options allow.
    let shallow = xbf::DecodeOptions::default().max_depth(2).unwrap();
    let a = xbf::from_slice_with::<Vec<Inner>>(&shallow, &bytes).unwrap_err();
    let b = fast::from_slice_with::<Vec<Inner>>(&shallow, &bytes).unwrap_err();
    assert_eq!((a.kind(), a.to_string()), (ErrorKind::TooDeep, b.to_string()));
}

#[test]
fn other_types_fall_back_to_matching_by_name() {
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    #[serde(rename = "Point")]
    struct Reordered {
        last: i8,
        first: i8,
        #[serde(default)]
        extra: Option<u8>,
    }
    let bytes = fast::to_vec(&Point { first: 1, last: 2 }).unwrap();
    assert_eq!(fast::from_slice::<Reordered>(&bytes).unwrap(), Reordered { last: 2, first: 1, extra: None });
    // A dynamic message of another width of integer: still read (by serde).
    let v = xbf::Value::from(
        xbf::StructValue::from_fields("Point", [("first", xbf::Value::I8(1)), ("last", xbf::Value::I8(2))]).unwrap(),
    );
    let bytes = xbf::EncodeOptions::v1().encode_message(&v).unwrap();
    assert_eq!(fast::from_slice::<Point>(&bytes).unwrap(), Point { first: 1, last: 2 });
    // The same fields in another order are another type, in every form of
    // message (v1's head is not compared byte for byte).
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    #[serde(rename = "Point")]
    struct Swapped {
        last: i8,
        first: i8,
    }
    assert_ne!(fast::metadata_of::<Swapped>().unwrap(), fast::metadata_of::<Point>().unwrap());
    for opts in [EncodeOptions::v1(), EncodeOptions::v2(), EncodeOptions::v2().layout(xbf::Layout::Columnar)] {
        let bytes = opts.to_vec(&Point { first: 1, last: 2 }).unwrap();
        assert_eq!(fast::from_slice::<Swapped>(&bytes).unwrap(), Swapped { last: 2, first: 1 });
    }
}

#[test]
fn zero_size_parts_take_the_serde_path_with_its_budget() {
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    struct Units {
        n: Vec<()>,
    }
    let big = Units { n: vec![(); 100_000] };
    let bytes = fast::to_vec(&big).unwrap();
    assert_eq!(bytes, xbf::to_vec(&big).unwrap());
    assert_eq!(fast::from_slice::<Units>(&bytes).unwrap(), big);
    // With a budget of 65,536 values, both paths refuse it alike.
    let small = xbf::DecodeOptions::default().max_decoded_bytes(65_536 * xbf::options::DECODED_VALUE_BYTES);
    let a = fast::from_slice_with::<Units>(&small, &bytes).unwrap_err();
    let b = small.from_slice::<Units>(&bytes).unwrap_err();
    assert_eq!(a.kind(), ErrorKind::TooLarge);
    assert!(same_error(&a, &b));

    // Zero-size option payloads cost a value each, as on the serde path:
    // past what the budget holds, the derived reader hands over to it.
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    struct Maybe {
        n: Vec<Option<()>>,
    }
    let many = Maybe { n: vec![Some(()); 70_000] };
    let bytes = fast::to_vec(&many).unwrap();
    assert_eq!(fast::from_slice::<Maybe>(&bytes).unwrap(), many);
    let a = fast::from_slice_with::<Maybe>(&small, &bytes).unwrap_err();
    let b = small.from_slice::<Maybe>(&bytes).unwrap_err();
    let c = small.decode_message(&bytes).unwrap_err();
    assert_eq!(a.kind(), ErrorKind::TooLarge);
    assert!(same_error(&a, &b) && same_error(&a, &c), "{a} / {b} / {c}");
}

#[test]
fn recursive_types_are_refused() {
    #[derive(Serialize, Deserialize, Xbf, Debug)]
    struct Tree {
        kids: Vec<Tree>,
    }
    let e = fast::to_vec(&Tree { kids: vec![] }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("recursive"), "{e}");
}

#[test]
fn duplicate_map_keys_fail_on_both_paths() {
    // {1: "a", 1: "b"} written by hand: header, map<u32, string>, 2 entries.
    let mut bytes = xbf::to_vec(&HashMap::from([(1u32, "a".to_string())])).unwrap();
    let at = bytes.len() - 4; // the count, then 01 (key), 01 61 (value)
    bytes[at] = 2;
    bytes.extend_from_slice(&[1, 1, b'b']);
    let a = fast::from_slice::<HashMap<u32, String>>(&bytes).unwrap_err();
    let b = xbf::from_slice::<HashMap<u32, String>>(&bytes).unwrap_err();
    assert_eq!(a.kind(), ErrorKind::DuplicateKey);
    assert_eq!(a.offset(), Some(bytes.len() as u64 - 3));
    assert!(same_error(&a, &b), "{a} / {b}");
    let c = xbf::decode_message(&bytes).unwrap_err();
    assert!(same_error(&a, &c), "{a} / {c}");
}

/// Every cut and many single-byte changes of `bytes` decode to the same
/// value or the same error on both paths.
fn damage_agrees<T>(bytes: &[u8])
where
    T: for<'de> Decode<'de> + Encode + std::fmt::Debug,
{
    for n in 0..bytes.len() {
        same_outcome(fast::from_slice::<T>(&bytes[..n]), xbf::from_slice::<T>(&bytes[..n]), &format!("cut at {n}"));
    }
    let mut b = bytes.to_vec();
    for i in 0..b.len() {
        for x in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff] {
            let keep = b[i];
            b[i] = x;
            same_outcome(fast::from_slice::<T>(&b), xbf::from_slice::<T>(&b), &format!("byte {i} = {x:#x}"));
            b[i] = keep;
        }
    }
}

#[test]
fn damaged_messages_give_the_serde_paths_errors() {
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    struct Owned {
        name: String,
        #[serde(with = "serde_bytes")]
        raw: Vec<u8>,
        shapes: Vec<Shape>,
        index: BTreeMap<u32, String>,
        big: u128,
        grid: [u16; 3],
        pair: (bool, i64),
        maybe: Option<Meters>,
        span: Span,
    }
    let v = Owned {
        name: "héllo".into(),
        raw: vec![0xde, 0xad],
        shapes: vec![Shape::Empty, Shape::Circle(1.0), Shape::Rect { w: 300, h: 2 }, Shape::Pair(1, "é".into())],
        index: BTreeMap::from([(1, "a".into()), (200, "b".into())]),
        big: 1 << 100,
        grid: [1, 2, 40_000],
        pair: (true, -70_000),
        maybe: Some(Meters(5)),
        span: Span(1, -1),
    };
    let bytes = fast::to_vec(&v).unwrap();
    assert_eq!(bytes, xbf::to_vec(&v).unwrap());
    damage_agrees::<Owned>(&bytes);
    let v1 = fast::to_vec_with(&EncodeOptions::v1(), &vec![Inner { x: 1.0, tags: vec!["ab".into()] }; 2]).unwrap();
    damage_agrees::<Vec<Inner>>(&v1);
}

/// Fixed-width fields only: vecs of it are read as one run.
#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Tri {
    v: [[f32; 3]; 3],
    normal: [f32; 3],
    tag: (u8, i8),
    w: Wide,
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Wide(f64);

#[test]
fn runs_of_fixed_width_records_read_as_one() {
    assert_eq!(<Tri as xbf::fast::Describe>::PLAIN, Some(9 * 4 + 3 * 4 + 2 + 8));
    assert_eq!(<Record as xbf::fast::Describe>::PLAIN, None);
    let tris: Vec<Tri> = (0..5u8)
        .map(|i| Tri {
            v: [[f32::from(i), -0.0, f32::INFINITY], [1.5, 2.5, 3.5], [f32::MIN_POSITIVE, 0.1, -7.0]],
            normal: [0.0, 1.0, f32::from(i) / 3.0],
            tag: (i, -(i as i8)),
            w: Wide(f64::from(i) * 1e300),
        })
        .collect();
    let bytes = fast::to_vec(&tris).unwrap();
    assert_eq!(bytes, xbf::to_vec(&tris).unwrap());
    assert_eq!(fast::from_slice::<Vec<Tri>>(&bytes).unwrap(), tris);
    damage_agrees::<Vec<Tri>>(&bytes);
    // v1 has no arrays; a vec of f64 is a run too.
    let v1 = fast::to_vec_with(&EncodeOptions::v1(), &vec![1.5f64, -2.0, 1e-300]).unwrap();
    assert_eq!(v1, EncodeOptions::v1().to_vec(&vec![1.5f64, -2.0, 1e-300]).unwrap());
    assert_eq!(fast::from_slice::<Vec<f64>>(&v1).unwrap(), vec![1.5f64, -2.0, 1e-300]);
    damage_agrees::<Vec<f64>>(&v1);
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Record {
    id: u64,
    price: f64,
    qty: u32,
    name: String,
    flag: bool,
    a: i64,
    c: u16,
    e: i32,
    tags: Vec<String>,
    note: Option<String>,
    pos: [f32; 3],
    kind: Shape,
    counts: HashMap<u32, String>,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        any::<f64>().prop_map(Shape::Circle),
        (any::<u16>(), any::<u16>()).prop_map(|(w, h)| Shape::Rect { w, h }),
        (any::<u8>(), ".{0,5}").prop_map(|(a, s)| Shape::Pair(a, s)),
    ]
}

prop_compose! {
    fn record()(
        id in any::<u64>(), price in any::<f64>(), qty in any::<u32>(), name in ".{0,12}", flag in any::<bool>(),
        a in any::<i64>(), c in any::<u16>(), e in any::<i32>(), tags in prop::collection::vec(".{0,4}", 0..4),
        note in prop::option::of(".{0,6}"), pos in any::<[f32; 3]>(), kind in shape(),
        counts in prop::collection::hash_map(any::<u32>(), ".{0,3}", 0..3),
    ) -> Record {
        Record { id, price, qty, name, flag, a, c, e, tags, note, pos, kind, counts }
    }
}

/// Equality that treats floats by their bits.
fn same_bits(a: &[Record], b: &[Record]) -> bool {
    let bits = |r: &Record| {
        let kind = match &r.kind {
            Shape::Circle(x) => format!("Circle({})", x.to_bits()),
            k => format!("{k:?}"),
        };
        (
            (r.id, r.price.to_bits(), r.qty, r.name.clone(), r.flag, r.a),
            (r.c, r.e, r.tags.clone(), r.note.clone()),
            (r.pos.map(f32::to_bits), kind, r.counts.clone()),
        )
    };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| bits(x) == bits(y))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn generated_records_round_trip_in_the_serde_paths_bytes(rows in prop::collection::vec(record(), 0..8)) {
        let bytes = fast::to_vec(&rows).unwrap();
        prop_assert_eq!(&bytes, &xbf::to_vec(&rows).unwrap());
        let back: Vec<Record> = fast::from_slice(&bytes).unwrap();
        prop_assert!(same_bits(&back, &rows));
        // The dynamic decoder reads the same message and re-encodes it
        // to the same bytes (in rows, which the typed paths write).
        let dynamic = xbf::decode_message(&bytes).unwrap();
        prop_assert_eq!(EncodeOptions::v2().layout(xbf::Layout::Rows).encode_message(&dynamic).unwrap(), bytes);
    }

    #[test]
    fn random_damage_gives_the_serde_paths_result(rows in prop::collection::vec(record(), 1..4),
                                                  edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4)) {
        let mut bytes = fast::to_vec(&rows).unwrap();
        for (i, x) in edits {
            let i = i.index(bytes.len());
            bytes[i] = x;
        }
        match (fast::from_slice::<Vec<Record>>(&bytes), xbf::from_slice::<Vec<Record>>(&bytes)) {
            (Ok(a), Ok(b)) => prop_assert!(same_bits(&a, &b)),
            (Err(a), Err(b)) => prop_assert!(same_error(&a, &b), "derive path {}, serde path {}", a, b),
            (a, b) => prop_assert!(false, "derive path {:?}, serde path {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
}

#[test]
fn writer_reserves_nothing_surprising_for_empty_values() {
    let empty: Vec<Record> = vec![];
    assert_eq!(fast::to_vec(&empty).unwrap(), xbf::to_vec(&empty).unwrap());
    let none: Option<Record> = None;
    assert_eq!(fast::to_vec(&none).unwrap(), xbf::to_vec(&none).unwrap());
    assert_eq!(fast::from_slice::<Option<Record>>(&fast::to_vec(&none).unwrap()).unwrap(), None);
    let _ = <Record as Encode>::encode; // the trait is public API
}

#[test]
fn generic_types_and_renamed_variants() {
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    struct Pair<T> {
        a: T,
        b: Option<T>,
    }
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Side {
        BuyOrder,
        #[serde(rename = "ask")]
        SellOrder {
            price_cents: u64,
        },
        Cancel(u32, String),
    }
    let v = vec![
        Pair { a: Side::BuyOrder, b: None },
        Pair { a: Side::SellOrder { price_cents: 12_345 }, b: Some(Side::Cancel(7, "late".into())) },
    ];
    let bytes = fast::to_vec(&v).unwrap();
    assert_eq!(bytes, xbf::to_vec(&v).unwrap());
    assert_eq!(fast::metadata_of::<Vec<Pair<Side>>>().unwrap(), xbf::metadata_of::<Vec<Pair<Side>>>().unwrap());
    assert!(fast::metadata_of::<Side>().unwrap().to_string().contains("buy_order"));
    assert_eq!(fast::from_slice::<Vec<Pair<Side>>>(&bytes).unwrap(), v);
    damage_agrees::<Vec<Pair<Side>>>(&bytes);
    let p = Pair { a: 1.5f32, b: Some(-2.0) };
    assert_eq!(fast::to_vec(&p).unwrap(), xbf::to_vec(&p).unwrap());
}

/// Columnar messages of the reader's own type are read whole column by
/// column (`Decode::decode_column`); `Counted` shows that they were.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Counted(u32);

static COLUMNS_READ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl fast::Describe for Counted {
    const MIN_V2: u64 = 1;
    const MIN_V1: u64 = 4;
    fn describe(cx: &mut fast::Describer) -> xbf::Result<xbf::Metadata> {
        <u32 as fast::Describe>::describe(cx)
    }
}
impl Encode for Counted {
    fn encode(&self, w: &mut fast::Writer) {
        self.0.encode(w)
    }
}
impl<'de> Decode<'de> for Counted {
    fn decode(r: &mut fast::Reader<'de, '_>) -> xbf::Result<Self> {
        u32::decode(r).map(Counted)
    }
    fn decode_column(col: fast::WholeColumn<'_, '_, 'de>) -> xbf::Result<Vec<Self>> {
        COLUMNS_READ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(u32::decode_column(col)?.into_iter().map(Counted).collect())
    }
}

/// Every kind of node: structs in vecs in options, arrays of arrays,
/// enums, maps, tuples, newtypes, boxes, bytes, 128-bit integers.
#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Feature {
    id: String,
    counted: Counted,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
    inner: Option<Inner>,
    points: Vec<Point>,
    grid: [[u16; 2]; 3],
    shape: Shape,
    index: BTreeMap<u32, String>,
    pair: (bool, i64),
    length: Meters,
    span: Span,
    boxed: Box<Point>,
    big: u128,
    neg: i128,
    maybe: Option<Option<i8>>,
    small: (u8, i8, f32),
}

fn features(n: usize) -> Vec<Feature> {
    (0..n)
        .map(|i| Feature {
            id: format!("ak{:05}", i * 37 % 1000),
            counted: Counted(i as u32 * 3),
            raw: vec![i as u8; i % 4],
            inner: (i % 3 != 0).then(|| Inner { x: i as f64 / 4.0, tags: vec!["é".repeat(i % 3); i % 4] }),
            points: (0..i % 5).map(|k| Point { first: k as i8, last: (i as i8).wrapping_neg() }).collect(),
            grid: [[i as u16, 7], [8, 9], [60_000, i as u16 * 2]],
            shape: match i % 4 {
                0 => Shape::Empty,
                1 => Shape::Circle(i as f64 * 0.1),
                2 => Shape::Rect { w: i as u16, h: 1 },
                _ => Shape::Pair(i as u8, "p".into()),
            },
            index: (0..(i % 3) as u32).map(|k| (k * 10, format!("v{k}"))).collect(),
            pair: (i % 2 == 0, -(i as i64) << 33),
            length: Meters(i as u32),
            span: Span(i as u16, -(i as i32)),
            boxed: Box::new(Point { first: 1, last: i as i8 }),
            big: u128::MAX - i as u128,
            neg: i128::MIN + i as i128,
            maybe: [None, Some(None), Some(Some(i as i8))][i % 3],
            small: (i as u8, (i as i8).wrapping_neg(), i as f32 / 3.0),
        })
        .collect()
}

fn columnar(opts: EncodeOptions) -> EncodeOptions {
    opts.layout(xbf::Layout::Columnar)
}

#[test]
fn columnar_messages_are_read_whole_to_the_serde_paths_values() {
    for n in [0, 1, 2, 7, 300] {
        let v = features(n);
        for zstd in [None, Some(3)] {
            let bytes = columnar(EncodeOptions::v2()).compress_columns(zstd).unwrap().to_vec(&v).unwrap();
            assert_eq!(bytes[1] & 0x02, 0x02, "columnar");
            let before = COLUMNS_READ.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(fast::from_slice::<Vec<Feature>>(&bytes).unwrap(), v, "{n} records, zstd {zstd:?}");
            assert!(COLUMNS_READ.load(std::sync::atomic::Ordering::Relaxed) > before, "read whole");
            assert_eq!(xbf::from_slice::<Vec<Feature>>(&bytes).unwrap(), v);
        }
    }
    // A record at the root, and borrowed text: from the message where the
    // column lies in it, and refused on both paths where it was compressed.
    let d = doc("borrowed");
    let bytes = columnar(EncodeOptions::v2()).to_vec(&d).unwrap();
    let back: Doc = fast::from_slice(&bytes).unwrap();
    assert_eq!(back, d);
    assert!(bytes.as_ptr_range().contains(&back.name.as_ptr()));
    assert!(bytes.as_ptr_range().contains(&back.raw_bytes.as_ptr()));
    let rows = vec![d.clone(); 40];
    let packed = columnar(EncodeOptions::v2()).compress_columns(Some(19)).unwrap().to_vec(&rows).unwrap();
    match (fast::from_slice::<Vec<Doc>>(&packed), xbf::from_slice::<Vec<Doc>>(&packed)) {
        (Ok(a), Ok(b)) => assert!(a == rows && b == rows),
        (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{a} / {b}"),
        (a, b) => panic!("derive path {a:?}, serde path {b:?}"),
    }
    // Another type of the same shape is matched by name, as always.
    let bytes = columnar(EncodeOptions::v2()).to_vec(&vec![Point { first: 1, last: 2 }; 3]).unwrap();
    #[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
    #[serde(rename = "Point")]
    struct Reordered {
        last: i8,
        first: i8,
    }
    assert_eq!(fast::from_slice::<Vec<Reordered>>(&bytes).unwrap(), vec![Reordered { last: 2, first: 1 }; 3]);
}

/// Both paths accept the same damaged columns, with the same values: the
/// whole-column reader checks what the value-by-value reader checks. Their
/// errors may differ: the serde path reads a column when a value first
/// needs it (a vec's elements only at the first vec that is not empty),
/// the derive path in the order of the type's fields.
fn column_damage_agrees<T>(bytes: &[u8], step: usize)
where
    T: for<'de> Decode<'de> + Encode + std::fmt::Debug,
{
    let same = |a: xbf::Result<T>, b: xbf::Result<T>, what: &str| match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(fast::to_vec(x).unwrap(), fast::to_vec(y).unwrap(), "{what}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{what}: derive path {a:?}, serde path {b:?}"),
    };
    for n in (0..bytes.len()).step_by(step) {
        same(fast::from_slice::<T>(&bytes[..n]), xbf::from_slice::<T>(&bytes[..n]), &format!("cut at {n}"));
    }
    let mut b = bytes.to_vec();
    for i in (0..b.len()).step_by(step) {
        for x in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff] {
            let keep = b[i];
            b[i] = x;
            same(fast::from_slice::<T>(&b), xbf::from_slice::<T>(&b), &format!("byte {i} = {x:#x}"));
            b[i] = keep;
        }
    }
}

#[test]
fn damaged_columns_give_the_serde_paths_result() {
    let v = features(9);
    column_damage_agrees::<Vec<Feature>>(&columnar(EncodeOptions::v2()).to_vec(&v).unwrap(), 1);
    column_damage_agrees::<Vec<Feature>>(
        &columnar(EncodeOptions::v2()).compress_columns(Some(1)).unwrap().to_vec(&features(60)).unwrap(),
        3,
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn generated_records_read_whole_from_columns(rows in prop::collection::vec(record(), 0..12), zstd in any::<bool>()) {
        let bytes = columnar(EncodeOptions::v2()).compress_columns(zstd.then_some(1)).unwrap().to_vec(&rows).unwrap();
        let back: Vec<Record> = fast::from_slice(&bytes).unwrap();
        prop_assert!(same_bits(&back, &rows));
    }

    #[test]
    fn random_column_damage_gives_the_serde_paths_result(rows in prop::collection::vec(record(), 1..6),
                                                         edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4)) {
        let mut bytes = columnar(EncodeOptions::v2()).to_vec(&rows).unwrap();
        for (i, x) in edits {
            let i = i.index(bytes.len());
            bytes[i] = x;
        }
        match (fast::from_slice::<Vec<Record>>(&bytes), xbf::from_slice::<Vec<Record>>(&bytes)) {
            (Ok(a), Ok(b)) => prop_assert!(same_bits(&a, &b)),
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "derive path {:?}, serde path {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
struct Ints {
    a: u16,
    b: u32,
    c: u64,
    d: i16,
    e: i32,
    f: i64,
}

/// The derive path's inline varint reader takes 8 bytes at once when they
/// are there and one at a time near the end: both must read every varint,
/// canonical or not, fitting or too wide, exactly as the dynamic decoder.
#[test]
fn varints_of_every_width_and_length_read_as_the_serde_path() {
    let head = fast::to_vec(&Ints { a: 0, b: 0, c: 0, d: 0, e: 0, f: 0 }).unwrap();
    let head = &head[..head.len() - 6];
    // Varints of 1 to 11 bytes: each group but the last all ones, all
    // zeros or one bit; the last zero (overlong), or a value of every bit
    // length (so every width's bound is met from both sides).
    let lasts: Vec<u8> = (0..8).map(|k| (1u8 << k) - 1).chain((0..7).map(|k| 1u8 << k)).collect();
    let mut varints: Vec<Vec<u8>> = Vec::new();
    for len in 1..=11usize {
        for group in [0x7fu8, 0x00, 0x01, 0x40] {
            for &last in &lasts {
                let mut v = vec![0x80 | group; len];
                v[len - 1] = last;
                varints.push(v);
            }
        }
    }
    let mut checked = 0;
    for field in 0..6 {
        for v in &varints {
            // The varint at `field`, zeros around it; then the same message
            // cut right after the varint, so that fewer than 8 bytes follow.
            let mut msg = head.to_vec();
            msg.extend(std::iter::repeat(0).take(field));
            msg.extend_from_slice(v);
            let cut = msg.len();
            msg.extend(std::iter::repeat(0).take(5 - field));
            for bytes in [&msg[..], &msg[..cut]] {
                same_outcome(fast::from_slice::<Ints>(bytes), xbf::from_slice::<Ints>(bytes), &format!("{bytes:02x?}"));
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6 * 11 * 4 * lasts.len() * 2);
}

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq)]
struct Named<'a> {
    owned: String,
    borrowed: &'a str,
}

/// Strings are checked ASCII first (short ones in whole-word reads), then
/// by `std`: a string of every length up to 40 with a foreign byte at every
/// position, in an owned and a borrowed field, reads the same through the
/// derive path, the serde path and the dynamic decoder: the same text, or
/// `invalid-utf8` at the string's offset.
#[test]
fn strings_with_a_foreign_byte_anywhere_read_alike_everywhere() {
    let mut checked = 0;
    for len in 0..40usize {
        let run: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        let mut texts = vec![run.clone()];
        for at in 0..len {
            for foreign in [0x80u8, 0xc3, 0xe2, 0xff] {
                let mut t = run.clone();
                t[at] = foreign;
                texts.push(t);
            }
            let mut t = run.clone();
            t.splice(at..at + 1, "é".bytes());
            texts.push(t);
        }
        for t in &texts {
            let valid = std::str::from_utf8(t).is_ok();
            let good = fast::to_vec(&Named { owned: "x".into(), borrowed: "y" }).unwrap();
            // The message's body is the two strings, each a length byte
            // (below 0x80 here) and its bytes: the last four bytes.
            let head = &good[..good.len() - 4];
            for field in 0..2 {
                let mut msg = head.to_vec();
                let at = if field == 0 { msg.len() } else { msg.len() + 2 };
                let fill: &[u8] = b"x";
                for f in 0..2 {
                    let s = if f == field { &t[..] } else { fill };
                    msg.push(s.len() as u8);
                    msg.extend_from_slice(s);
                }
                let derive = fast::from_slice::<Named>(&msg);
                let serde = xbf::from_slice::<Named>(&msg);
                let dynamic = xbf::decode_message(&msg);
                let what = format!("field {field}, {t:02x?}");
                if valid {
                    let want = std::str::from_utf8(t).unwrap();
                    let got = derive.unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(if field == 0 { got.owned.as_str() } else { got.borrowed }, want, "{what}");
                    assert!(serde.is_ok() && dynamic.is_ok(), "{what}");
                } else {
                    for e in [derive.unwrap_err(), serde.unwrap_err(), dynamic.unwrap_err()] {
                        assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, Some(at as u64)), "{what}: {e}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * (0..40).map(|len| 1 + 5 * len).sum::<usize>());
}
