//! The typed API: round trips, identical bytes to the dynamic API, v1,
//! schema evolution, zero-copy, errors, hostile input, streams.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use xbf::{
    DecodeOptions, EncodeOptions, EnumMetadata, ErrorKind, Metadata, OptionValue, PrimitiveType, StructMetadata,
    StructValue, Value, VecValue,
};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Point {
    first: i8,
    last: i8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Circle(f64),
    Rect { w: u16, h: u16 },
    Pair(u8, String),
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Inner {
    x: f64,
    tags: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Doc<'a> {
    name: &'a str,
    #[serde(with = "serde_bytes")]
    raw: &'a [u8],
    inner: Inner,
    empty: Vec<Point>,
    maybe: Option<u32>,
    none: Option<Inner>,
    shape: Shape,
    shapes: Vec<Shape>,
    index: HashMap<u32, String>,
    big: u128,
    neg: i128,
    grid: [u16; 3],
    pair: (bool, i64),
    c: char,
    unit: (),
}

fn doc(name: &str) -> Doc<'_> {
    Doc {
        name,
        raw: b"\xde\xad",
        inner: Inner { x: 1.5, tags: vec!["a".into(), "bc".into()] },
        empty: vec![],
        maybe: Some(7),
        none: None,
        shape: Shape::Rect { w: 3, h: 200 },
        shapes: vec![Shape::Empty, Shape::Circle(2.0), Shape::Pair(1, "x".into())],
        index: HashMap::from([(1, "one".into()), (300, "three hundred".into())]),
        big: u128::MAX - 5,
        neg: i128::MIN + 1,
        grid: [1, 2, 300],
        pair: (true, -9),
        c: 'é',
        unit: (),
    }
}

#[test]
fn done_when_type_round_trips_and_borrows() {
    let d = doc("borrowed");
    let bytes = xbf::to_vec(&d).unwrap();
    let back: Doc = xbf::from_slice(&bytes).unwrap();
    assert_eq!(back, d);
    // The &str and &[u8] point into the input.
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.name.as_ptr()));
    assert!(range.contains(&back.raw.as_ptr()));
    // The dynamic decoder reads it too, with the traced metadata.
    let (meta, _) = DecodeOptions::default().decode_typed_message(&bytes).unwrap();
    assert_eq!(meta, xbf::metadata_of::<Doc>().unwrap());
}

#[test]
fn metadata_from_the_type() {
    let m = xbf::metadata_of::<Doc>().unwrap().to_string();
    assert!(m.starts_with("struct Doc { name: string, raw: bytes, inner: struct Inner { x: f64, tags: vec<string> }, empty: vec<struct Point { first: i8, last: i8 }>, maybe: option<u32>"), "{m}");
    assert!(
        m.contains(
            "shape: enum Shape { Empty, Circle: f64, Rect: struct Rect { w: u16, h: u16 }, Pair: (u8, string) }"
        ),
        "{m}"
    );
    assert!(
        m.contains(
            "index: map<u32, string>, big: u128, neg: i128, grid: [u16; 3], pair: (bool, i64), c: string, unit: unit }"
        ),
        "{m}"
    );
    assert_eq!(xbf::metadata_of::<Vec<u8>>().unwrap().to_string(), "vec<u8>");
    assert_eq!(xbf::metadata_of::<serde_bytes::ByteBuf>().unwrap().to_string(), "bytes");
    assert_eq!(xbf::metadata_of::<BTreeMap<String, Vec<(u8,)>>>().unwrap().to_string(), "map<string, vec<(u8,)>>");
}

#[test]
fn same_bytes_as_the_dynamic_api() {
    let p = Point { first: 42, last: -5 };
    let dynp: Value =
        StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))]).unwrap().into();
    assert_eq!(xbf::to_vec(&p).unwrap(), xbf::encode_message(&dynp).unwrap());

    let v = vec![1000u32, 0, 7];
    let dynv =
        Value::Vec(VecValue::new(PrimitiveType::U32.into(), v.iter().map(|x| Value::U32(*x)).collect()).unwrap());
    assert_eq!(xbf::to_vec(&v).unwrap(), xbf::encode_message(&dynv).unwrap());

    let o: Option<String> = None;
    let dyno = Value::Option(OptionValue::none(PrimitiveType::String.into()));
    assert_eq!(xbf::to_vec(&o).unwrap(), xbf::encode_message(&dyno).unwrap());

    let size = StructMetadata::new("Rect", [("w", PrimitiveType::U16), ("h", PrimitiveType::U16)]).unwrap();
    let shape = EnumMetadata::new(
        "Shape",
        [
            ("Empty", Metadata::UNIT),
            ("Circle", PrimitiveType::F64.into()),
            ("Rect", size.clone().into()),
            ("Pair", Metadata::tuple([PrimitiveType::U8.into(), PrimitiveType::String.into()])),
        ],
    )
    .unwrap();
    let rect = StructValue::new(size, vec![Value::U16(3), Value::U16(200)]).unwrap();
    let dyns = Value::Enum(xbf::EnumValue::new(shape, "Rect", rect.into()).unwrap());
    assert_eq!(xbf::to_vec(&Shape::Rect { w: 3, h: 200 }).unwrap(), xbf::encode_message(&dyns).unwrap());

    let m = BTreeMap::from([(1u32, "a".to_string()), (2, "b".into())]);
    let dynm = Value::Map(
        xbf::MapValue::new(
            PrimitiveType::U32.into(),
            PrimitiveType::String.into(),
            m.iter().map(|(k, v)| (Value::U32(*k), Value::String(v.clone()))).collect(),
        )
        .unwrap(),
    );
    assert_eq!(xbf::to_vec(&m).unwrap(), xbf::encode_message(&dynm).unwrap());
}

#[test]
fn v1_is_the_papers_format() {
    let p = Point { first: 42, last: -5 };
    let bytes = EncodeOptions::v1().to_vec(&p).unwrap();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb");
    assert_eq!(bytes.len(), 45);
    assert_eq!(xbf::from_slice::<Point>(&bytes).unwrap(), p);
    let v = vec![42u16, 1024];
    assert_eq!(EncodeOptions::v1().to_vec(&v).unwrap(), [0x11, 0x02, 2, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 4]);

    #[derive(Serialize, Deserialize)]
    struct Cfg {
        name: String,
        items: Vec<Item>,
    }
    #[derive(Serialize, Deserialize)]
    struct Item {
        id: u32,
        note: Option<String>,
    }
    let err = EncodeOptions::v1().to_vec(&Cfg { name: "x".into(), items: vec![] }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.path_string(), "Cfg.items[].note");
    assert!(err.to_string().contains("option<string>"), "{err}");
}

#[test]
fn schema_evolution_by_field_name() {
    #[derive(Serialize, Deserialize)]
    struct V1 {
        id: u32,
        name: String,
        price: f64,
        tags: Vec<String>,
        extra: HashMap<String, Vec<u8>>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct V2 {
        #[serde(rename = "price")]
        cost: f64,
        id: u64, // a wider integer
        #[serde(default)]
        added: Vec<u8>,
        missing_option: Option<u8>,
        name: String,
    }
    let data = V1 {
        id: 9,
        name: "n".into(),
        price: 2.5,
        tags: vec!["t".into(); 3],
        extra: HashMap::from([("k".into(), vec![1, 2])]),
    };
    let bytes = xbf::to_vec(&data).unwrap();
    let v2: V2 = xbf::from_slice(&bytes).unwrap();
    assert_eq!(v2, V2 { cost: 2.5, id: 9, added: vec![], missing_option: None, name: "n".into() });

    #[derive(Deserialize, Debug)]
    struct Needs {
        #[allow(dead_code)]
        id: u32,
        #[allow(dead_code)]
        weight: f32,
    }
    let err = xbf::from_slice::<Vec<Needs>>(&xbf::to_vec(&vec![Point { first: 1, last: 2 }]).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch);
    assert!(err.to_string().contains("missing field `id`"), "{err}");
    assert_eq!(err.path_string(), "[0]");

    // Narrowing works when the value fits, and fails naming the place when not.
    let bytes = xbf::to_vec(&vec![1u64, 70_000]).unwrap();
    let err = xbf::from_slice::<Vec<u16>>(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch);
    assert_eq!(err.path_string(), "[1]");
    assert_eq!(err.offset(), Some(6));
    assert_eq!(xbf::from_slice::<Vec<u32>>(&bytes).unwrap(), [1, 70_000]);

    // Enum variants go by name: a reader enum in another order.
    #[derive(Deserialize, Debug, PartialEq)]
    enum Shape2 {
        Pair(u8, String),
        Circle(f64),
        Rect { h: u32, w: u32 },
        Empty,
    }
    let bytes = xbf::to_vec(&vec![Shape::Circle(1.0), Shape::Rect { w: 1, h: 2 }, Shape::Empty]).unwrap();
    assert_eq!(
        xbf::from_slice::<Vec<Shape2>>(&bytes).unwrap(),
        [Shape2::Circle(1.0), Shape2::Rect { h: 2, w: 1 }, Shape2::Empty]
    );
    // A T written is read as an Option<T>.
    assert_eq!(
        xbf::from_slice::<Option<Point>>(&xbf::to_vec(&Point { first: 1, last: 1 }).unwrap()).unwrap(),
        Some(Point { first: 1, last: 1 })
    );
}

#[test]
fn projection_skips_unwanted_fields() {
    #[derive(Serialize, Deserialize)]
    struct Big {
        id: u32,
        blob: serde_bytes::ByteBuf,
        nested: Vec<Vec<String>>,
        m: BTreeMap<String, Option<Shape>>,
        price: f64,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Small {
        price: f64,
        id: u32,
    }
    let rows: Vec<Big> = (0..100)
        .map(|i| Big {
            id: i,
            blob: serde_bytes::ByteBuf::from(vec![i as u8; 50]),
            nested: vec![vec!["x".into(); 3]; 2],
            m: BTreeMap::from([("a".into(), Some(Shape::Circle(1.0))), ("b".into(), None)]),
            price: f64::from(i) / 2.0,
        })
        .collect();
    let bytes = xbf::to_vec(&rows).unwrap();
    let small: Vec<Small> = xbf::from_slice(&bytes).unwrap();
    assert_eq!(small.len(), 100);
    assert_eq!(small[99], Small { price: 49.5, id: 99 });
}

#[test]
fn errors_name_offset_and_path() {
    #[derive(Serialize, Deserialize, Debug)]
    struct Row {
        id: u32,
        name: String,
        price: f64,
    }
    let rows: Vec<Row> = (0..5).map(|i| Row { id: i, name: "abcdef".into(), price: 1.0 }).collect();
    let bytes = xbf::to_vec(&rows).unwrap();
    let err = xbf::from_slice::<Vec<Row>>(&bytes[..bytes.len() - 3]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Truncated);
    assert_eq!(err.path_string(), "[4].price");
    let dynerr = xbf::decode_message(&bytes[..bytes.len() - 3]).unwrap_err();
    assert_eq!(err.to_string(), dynerr.to_string());

    let p = xbf::to_vec(&Point { first: 1, last: 2 }).unwrap();
    let err = xbf::from_slice::<Point>(&p[..p.len() - 1]).unwrap_err();
    assert_eq!(err.to_string(), xbf::decode_message(&p[..p.len() - 1]).unwrap_err().to_string());
    assert!(err.to_string().starts_with("at byte 24, in Point.last: truncated"), "{err}");

    let mut extra = p.clone();
    extra.push(0);
    assert_eq!(xbf::from_slice::<Point>(&extra).unwrap_err().kind(), ErrorKind::TrailingBytes);

    // A type mismatch names the place.
    let err = xbf::from_slice::<Vec<String>>(&xbf::to_vec(&vec![1u8]).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch);
    assert_eq!(err.path_string(), "[0]");
    assert!(err.offset().is_some());
}

#[test]
fn recursive_types_are_refused_clearly() {
    #[derive(Serialize, Deserialize)]
    struct Tree {
        children: Vec<Tree>,
    }
    let err = xbf::to_vec(&Tree { children: vec![] }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("recursive type Tree"), "{err}");
    #[derive(Serialize, Deserialize)]
    enum List {
        Nil,
        Cons(u8, Box<List>),
    }
    assert!(xbf::to_vec(&List::Nil).unwrap_err().to_string().contains("recursive"));
}

#[test]
fn content_buffering_enums_and_any() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "type")]
    enum Internal {
        A { x: u32 },
        B { s: String },
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Untagged {
        N(u32),
        S(String),
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        X(u8),
        Y { s: String },
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Holder {
        i: Vec<Internal>,
        u: Vec<Untagged>,
        a: Vec<Adjacent>,
    }
    let h = Holder {
        i: vec![Internal::A { x: 1 }, Internal::B { s: "b".into() }],
        u: vec![Untagged::N(5), Untagged::S("s".into())],
        a: vec![Adjacent::X(1), Adjacent::Y { s: "y".into() }],
    };
    let bytes = xbf::to_vec(&h).unwrap();
    assert_eq!(xbf::from_slice::<Holder>(&bytes).unwrap(), h);
    for x in &h.i {
        assert_eq!(&xbf::from_slice::<Internal>(&xbf::to_vec(x).unwrap()).unwrap(), x);
    }
}

#[test]
fn skip_serializing_if_writes_the_zero_value() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct S {
        a: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        c: Vec<u8>,
        d: u8,
    }
    for s in [S { a: 1, b: None, c: vec![], d: 2 }, S { a: 1, b: Some("x".into()), c: vec![3], d: 2 }] {
        let bytes = xbf::to_vec(&s).unwrap();
        assert_eq!(xbf::from_slice::<S>(&bytes).unwrap(), s);
        assert!(xbf::decode_message(&bytes).is_ok());
    }
}

#[test]
fn readers_and_writers_and_streams() {
    let mut buf = Vec::new();
    xbf::to_writer(&mut buf, &Point { first: 1, last: 2 }).unwrap();
    assert_eq!(xbf::from_reader::<Point, _>(&buf[..]).unwrap(), Point { first: 1, last: 2 });

    let mut w =
        xbf::TypedStreamWriter::new(Vec::new(), xbf::StreamOptions::default().checksums(true).block_bytes(10)).unwrap();
    for i in 0..50 {
        w.write(&Point { first: i, last: -i }).unwrap();
    }
    let bytes = w.finish().unwrap();
    let pts: Vec<Point> = xbf::typed_stream(&bytes[..]).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(pts.len(), 50);
    assert_eq!(pts[49], Point { first: 49, last: -49 });
    // Same bytes as the dynamic StreamWriter.
    let ty = xbf::metadata_of::<Point>().unwrap();
    let mut dw =
        xbf::StreamWriter::new(Vec::new(), ty, xbf::StreamOptions::default().checksums(true).block_bytes(10)).unwrap();
    for i in 0..50i8 {
        dw.write(
            &StructValue::from_fields("Point", [("first", Value::I8(i)), ("last", Value::I8(-i))]).unwrap().into(),
        )
        .unwrap();
    }
    assert_eq!(dw.finish().unwrap(), bytes);
    // A damaged stream yields the records before the damage, then the error.
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 6] ^= 0xff;
    let results: Vec<_> = xbf::typed_stream::<Point, _>(&bad[..]).unwrap().collect();
    assert_eq!(results.last().unwrap().as_ref().unwrap_err().kind(), ErrorKind::BadChecksum);
}

#[test]
fn hostile_inputs_fail_cleanly() {
    // Huge counts of zero-size and sized elements.
    let huge_units = [0xc2, 0x00, 0x11, 0x13, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    assert_eq!(xbf::from_slice::<Vec<()>>(&huge_units).unwrap_err().kind(), ErrorKind::TooLarge);
    assert_eq!(xbf::from_slice::<serde::de::IgnoredAny>(&huge_units).unwrap_err().kind(), ErrorKind::TooLarge);
    let huge_u32 = [0xc2, 0x00, 0x11, 0x03, 0xff, 0xff, 0xff, 0xff, 0x0f];
    assert_eq!(xbf::from_slice::<Vec<u32>>(&huge_u32).unwrap_err().kind(), ErrorKind::Truncated);
    // Deep `any` nesting.
    let mut deep = vec![0xc2, 0x00];
    deep.extend(std::iter::repeat(0x19).take(1000));
    assert_eq!(xbf::from_slice::<serde::de::IgnoredAny>(&deep).unwrap_err().kind(), ErrorKind::TooDeep);
    // Every truncation of a rich message fails, with the kinds the dynamic decoder gives.
    let d = doc("hostile");
    let bytes = xbf::to_vec(&d).unwrap();
    for n in 0..bytes.len() {
        let typed = xbf::from_slice::<Doc>(&bytes[..n]).unwrap_err();
        let dynamic = xbf::decode_message(&bytes[..n]).unwrap_err();
        assert_eq!(typed.kind(), dynamic.kind(), "cut at {n}: {typed} vs {dynamic}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = xbf::from_slice::<Doc>(&bytes);
        let _ = xbf::from_slice::<Vec<Shape>>(&bytes);
        let _ = xbf::from_slice::<serde::de::IgnoredAny>(&bytes);
        let _ = xbf::from_slice::<HashMap<String, Vec<Option<i64>>>>(&bytes);
    }

    #[test]
    fn mutated_messages_never_panic(i in 0usize..400, b in any::<u8>()) {
        let mut bytes = xbf::to_vec(&doc("mutate")).unwrap();
        let n = bytes.len();
        bytes[i % n] = b;
        let typed = xbf::from_slice::<Doc>(&bytes);
        // Whenever the dynamic decoder refuses the bytes, so does the typed one
        // (it may also refuse bytes that decode to a value of another type).
        if xbf::decode_message(&bytes).is_err() {
            prop_assert!(typed.is_err());
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rich {
    a: u64,
    b: i32,
    c: String,
    d: Vec<Option<i16>>,
    e: BTreeMap<u8, (bool, f64)>,
    f: Vec<Shape>,
    g: Option<Box<Point>>,
    h: [u32; 2],
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        any::<f64>().prop_filter("nan", |x| !x.is_nan()).prop_map(Shape::Circle),
        (any::<u16>(), any::<u16>()).prop_map(|(w, h)| Shape::Rect { w, h }),
        (any::<u8>(), ".{0,5}").prop_map(|(a, s)| Shape::Pair(a, s)),
    ]
}

fn rich() -> impl Strategy<Value = Rich> {
    (
        any::<u64>(),
        any::<i32>(),
        ".{0,10}",
        proptest::collection::vec(any::<Option<i16>>(), 0..5),
        proptest::collection::btree_map(any::<u8>(), (any::<bool>(), -1e9f64..1e9), 0..4),
        proptest::collection::vec(shape(), 0..4),
        any::<Option<(i8, i8)>>(),
        any::<[u32; 2]>(),
    )
        .prop_map(|(a, b, c, d, e, f, g, h)| Rich {
            a,
            b,
            c,
            d,
            e,
            f,
            g: g.map(|(first, last)| Box::new(Point { first, last })),
            h,
        })
}

proptest! {
    #[test]
    fn rich_values_round_trip(v in proptest::collection::vec(rich(), 0..4)) {
        let bytes = xbf::to_vec(&v).unwrap();
        prop_assert_eq!(&xbf::from_slice::<Vec<Rich>>(&bytes).unwrap(), &v);
        // The dynamic decoder accepts every typed message and re-encodes it to the same bytes.
        let (ty, value) = DecodeOptions::default().decode_typed_message(&bytes).unwrap();
        prop_assert_eq!(EncodeOptions::v2().encode_typed_message(&ty, &value).unwrap(), bytes);
    }

    #[test]
    fn v1_points_round_trip(v in proptest::collection::vec((any::<i8>(), any::<i8>()), 0..20), s in ".{0,8}") {
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct P1 { name: String, pts: Vec<Point>, big: u128 }
        let p = P1 { name: s, pts: v.into_iter().map(|(first, last)| Point { first, last }).collect(), big: 7 };
        let bytes = EncodeOptions::v1().to_vec(&p).unwrap();
        prop_assert_eq!(&xbf::from_slice::<P1>(&bytes).unwrap(), &p);
        let dynamic = xbf::decode_message(&bytes).unwrap();
        prop_assert_eq!(EncodeOptions::v1().encode_message(&dynamic).unwrap(), bytes);
    }
}

#[test]
fn columnar_messages_read_through_from_reader_and_from_slice() {
    let points: Vec<Point> = (0..100).map(|i| Point { first: (i % 100) as i8, last: -((i % 50) as i8) }).collect();
    let rows = xbf::to_vec(&points).unwrap();
    let value = xbf::decode_message(&rows).unwrap();
    let columns = xbf::EncodeOptions::v2().layout(xbf::Layout::Columnar).encode_message(&value).unwrap();
    assert_eq!(columns[1] & 0x02, 0x02);
    let back: Vec<Point> = xbf::from_reader(&columns[..]).unwrap();
    assert_eq!(back, points);
    assert_eq!(xbf::from_slice::<Vec<Point>>(&columns).unwrap(), points);
}
