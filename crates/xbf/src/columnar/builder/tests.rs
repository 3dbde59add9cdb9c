//! Unit tests of `builder`, kept apart so that the module reads in one sitting.

use super::*;
use crate::metadata::{EnumMetadata, StructMetadata};
use crate::value::{AnyValue, EnumValue, MapValue, OptionValue, StructValue, TupleValue, VecValue, I256, U256};
use crate::{EncodeOptions, Layout};
use std::sync::Arc;

/// The columnar message of `v` through the `Value` path, and through
/// the builder (one `push_value`), under the same options.
fn both(opts: &EncodeOptions, ty: &Metadata, v: &Value) -> (Vec<u8>, Vec<u8>) {
    let by_value = opts.clone().layout(Layout::Columnar).encode_typed_message(ty, v).unwrap();
    let mut cols = Columns::new(ty);
    cols.root().push_value(v).unwrap();
    (by_value, opts.encode_columns(cols).unwrap())
}

fn same_bytes(ty: &Metadata, v: &Value) {
    let (a, b) = both(&EncodeOptions::v2(), ty, v);
    assert_eq!(a, b, "{ty}");
    #[cfg(feature = "zstd")]
    {
        let (a, b) = both(&EncodeOptions::v2().compress_columns(Some(3)).unwrap(), ty, v);
        assert_eq!(a, b, "{ty}, compressed");
    }
    let (a, b) = both(&EncodeOptions::v2().float_tolerance(Some(0.01)).unwrap(), ty, v);
    assert_eq!(a, b, "{ty}, lossy floats");
    let back = crate::decode_message(&b).unwrap();
    assert_eq!(back.metadata(), *ty);
}

#[cfg(feature = "json")]
fn json(text: &str) -> Value {
    crate::json::from_json_str(text).unwrap()
}

/// A list of flat records pushed field by field with the typed pushes.
#[cfg(feature = "json")] // used only by the real-data test
fn push_records(ty: &Metadata, v: &Value) -> Vec<u8> {
    let (Metadata::Vec(elem), Value::Vec(items)) = (ty, v) else { panic!("a vec") };
    let Metadata::Struct(s) = &**elem else { panic!("of structs") };
    let mut cols = Columns::new(ty);
    let records = cols.root().push_len(items.len()).unwrap();
    for item in items.items() {
        for (i, (f, (_, fty))) in item.as_struct().unwrap().values().iter().zip(s.fields()).enumerate() {
            let node = records.field(i).unwrap();
            let (node, f) = match (fty, f) {
                (Metadata::Option(_), Value::Option(o)) => match o.value() {
                    None => {
                        node.push_none().unwrap();
                        continue;
                    }
                    Some(x) => (node.push_some().unwrap(), x),
                },
                (Metadata::Any, Value::Any(a)) => (node.push_any(a.metadata()).unwrap(), a.value()),
                _ => (node, f),
            };
            match f {
                Value::Unit => {}
                Value::Bool(b) => node.push_bool(*b).unwrap(),
                Value::U64(x) => node.push_u64(*x).unwrap(),
                Value::I64(x) => node.push_i64(*x).unwrap(),
                Value::F64(x) => node.push_f64(*x).unwrap(),
                Value::String(x) => node.push_str(x).unwrap(),
                other => node.push_value(other).unwrap(),
            }
        }
    }
    EncodeOptions::v2().encode_columns(cols).unwrap()
}

/// The same records pushed a column at a time with the `extend_*` calls
/// (fields of scalars and options of scalars; `None` for others).
#[cfg(feature = "json")] // used only by the real-data test
fn extend_records(ty: &Metadata, v: &Value) -> Option<Vec<u8>> {
    let (Metadata::Vec(elem), Value::Vec(items)) = (ty, v) else { return None };
    let Metadata::Struct(s) = &**elem else { return None };
    let mut cols = Columns::new(ty);
    let records = cols.root().push_len(items.len()).unwrap();
    for (i, (_, fty)) in s.fields().enumerate() {
        let all: Vec<&Value> = items.items().iter().map(|r| &r.as_struct().unwrap().values()[i]).collect();
        if let Metadata::Any = fty {
            // Many at once: the types in first-seen order, then each
            // type's values.
            let mut types: Vec<Metadata> = Vec::new();
            let tags: Vec<usize> = all
                .iter()
                .map(|v| {
                    let t = crate::columnar::any_value(v).metadata();
                    types.iter().position(|x| x == t).unwrap_or_else(|| {
                        types.push(t.clone());
                        types.len() - 1
                    })
                })
                .collect();
            let nodes = records.field(i).unwrap().extend_any(&types, &tags).unwrap();
            for (k, node) in nodes.into_iter().enumerate() {
                for (v, _) in all.iter().zip(&tags).filter(|(_, &t)| t == k) {
                    node.push_value(crate::columnar::any_value(v).value()).unwrap();
                }
            }
            continue;
        }
        let (node, vals): (&mut ColumnNode, Vec<&Value>) = match fty {
            Metadata::Option(_) => {
                let present: Vec<bool> = all.iter().map(|v| crate::columnar::option_value(v).is_some()).collect();
                let inner = records.field(i).unwrap().extend_options(&present).unwrap();
                (inner, all.iter().filter_map(|v| crate::columnar::option_value(v)).collect())
            }
            _ => (records.field(i).unwrap(), all),
        };
        match node.metadata().clone() {
            Metadata::Primitive(P::F64) => {
                node.extend_f64(&vals.iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>()).unwrap()
            }
            Metadata::Primitive(P::U64) => {
                node.extend_u64(&vals.iter().map(|v| v.as_u64().unwrap()).collect::<Vec<_>>()).unwrap()
            }
            Metadata::Primitive(P::I64) => {
                node.extend_i64(&vals.iter().map(|v| v.as_i64().unwrap()).collect::<Vec<_>>()).unwrap()
            }
            Metadata::Primitive(P::Bool) => {
                node.extend_bool(&vals.iter().map(|v| v.as_bool().unwrap()).collect::<Vec<_>>()).unwrap()
            }
            Metadata::Primitive(P::String) => {
                let (mut joined, mut ends) = (String::new(), Vec::new());
                for v in vals {
                    joined.push_str(v.as_str().unwrap());
                    ends.push(joined.len());
                }
                node.extend_str(&joined, &ends).unwrap()
            }
            _ => vals.iter().for_each(|v| node.push_value(v).unwrap()),
        }
    }
    Some(EncodeOptions::v2().encode_columns(cols).unwrap())
}

#[cfg(feature = "json")]
fn real_data() -> Vec<(String, Value)> {
    let mut out = vec![
        ("flights-200".to_string(), json(include_str!("../../../../xbf-cli/tests/data/flights-200.json"))),
        ("earthquakes-20".to_string(), json(include_str!("../../../../xbf-cli/tests/data/earthquakes-20.json"))),
    ];
    // The stock rows as the Python benchmark reads them.
    let csv = include_str!("../../../../xbf-cli/data/sp500-2019.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Value> = lines
        .map(|l| {
            let fields = header.iter().zip(l.split(',')).map(|(&k, x)| {
                let v = match k {
                    "date" => Value::String(x.into()),
                    "volume" => Value::U64(x.parse().unwrap()),
                    _ => Value::F64(x.parse().unwrap()),
                };
                (k, v)
            });
            StructValue::from_fields("Object", fields).unwrap().into()
        })
        .collect();
    let ty = rows[0].metadata();
    out.push(("sp500".into(), VecValue::new(ty, rows).unwrap().into()));
    // The vega datasets when scripts/fetch-data.sh has fetched them.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/data/vega-datasets");
    for name in ["movies.json", "flights-2k.json", "flights-20k.json", "earthquakes.json"] {
        if let Ok(text) = std::fs::read_to_string(format!("{dir}/{name}")) {
            out.push((name.into(), json(&text)));
        }
    }
    out
}

#[cfg(feature = "json")]
#[test]
fn real_records_give_the_value_paths_bytes() {
    for (name, v) in real_data() {
        let ty = v.metadata();
        same_bytes(&ty, &v);
        let by_value = EncodeOptions::v2().layout(Layout::Columnar).encode_typed_message(&ty, &v).unwrap();
        if let Metadata::Vec(e) = &ty {
            if matches!(**e, Metadata::Struct(_)) {
                assert_eq!(push_records(&ty, &v), by_value, "{name}");
                assert_eq!(extend_records(&ty, &v).unwrap(), by_value, "{name}, a column at a time");
            }
        }
    }
}

fn s(p: P) -> Metadata {
    p.into()
}

#[test]
fn edge_values_give_the_value_paths_bytes() {
    let vec_of = |t: Metadata, items: Vec<Value>| -> Value { VecValue::new(t, items).unwrap().into() };
    let floats = [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX, 0.1, 2.5];
    let cases: Vec<Value> = vec![
        // Empty lists, of scalars and of records.
        vec_of(s(P::U64), vec![]),
        vec_of(StructMetadata::new("R", [("a", s(P::String))]).unwrap().into(), vec![]),
        // None everywhere, and options of options.
        vec_of(Metadata::option(s(P::F64)), (0..40).map(|_| OptionValue::none(s(P::F64)).into()).collect()),
        vec_of(
            Metadata::option(Metadata::option(s(P::I8))),
            (0..40)
                .map(|i| {
                    let inner = if i % 3 == 0 {
                        OptionValue::none(s(P::I8))
                    } else {
                        OptionValue::some(s(P::I8), Value::I8(-(i as i8))).unwrap()
                    };
                    OptionValue::some(Metadata::option(s(P::I8)), inner.into()).unwrap().into()
                })
                .collect(),
        ),
        // Huge integers of every width, and floats that are no decimals.
        vec_of(s(P::U128), vec![Value::U128(u128::MAX), Value::U128(0), Value::U128(1 << 100)]),
        vec_of(s(P::I128), vec![Value::I128(i128::MIN), Value::I128(i128::MAX), Value::I128(-1)]),
        vec_of(s(P::U256), vec![Value::U256(U256::MAX), Value::U256(U256::ZERO)]),
        vec_of(s(P::I256), vec![Value::I256(I256::MIN), Value::I256(I256::MAX)]),
        vec_of(s(P::I64), vec![Value::I64(i64::MIN), Value::I64(i64::MAX), Value::I64(0)]),
        vec_of(s(P::F64), floats.iter().map(|&x| Value::F64(x)).cycle().take(300).collect()),
        vec_of(s(P::F32), floats.iter().map(|&x| Value::F32(x as f32)).collect()),
        vec_of(s(P::Bytes), vec![Value::Bytes(vec![0xff, 0]), Value::Bytes(vec![])]),
        vec_of(s(P::Date), vec![Value::Date(i32::MIN), Value::Date(0)]),
        // Tuples, arrays, maps, enums and any.
        TupleValue::from_items(vec![Value::Unit, Value::Bool(true), Value::String("é".into())]).into(),
        Value::Array(VecValue::new(s(P::U8), vec![Value::U8(1), Value::U8(255)]).unwrap()),
        MapValue::new(s(P::String), s(P::I32), vec![("a".into(), Value::I32(-1)), ("b".into(), Value::I32(7))])
            .unwrap()
            .into(),
        {
            let e = Arc::new(EnumMetadata::new("E", [("none", Metadata::UNIT), ("n", s(P::U16))]).unwrap());
            let items = (0..20)
                .map(|i| {
                    let (var, payload) = if i % 4 == 0 { ("none", Value::Unit) } else { ("n", Value::U16(i)) };
                    EnumValue::new(e.clone(), var, payload).unwrap().into()
                })
                .collect();
            vec_of(Metadata::Enum(e), items)
        },
        vec_of(
            Metadata::Any,
            vec![
                Value::any(Value::Unit),
                Value::any(Value::String("x".into())),
                Value::any(Value::F64(f64::NAN)),
                Value::any(Value::U64(3)),
                Value::any(Value::I64(-3)),
                Value::any(vec_of(s(P::U8), vec![Value::U8(1)])),
                Value::Any(Box::new(AnyValue::new(Metadata::Any, Value::any(Value::Bool(true))).unwrap())),
                Value::any(Value::String("y".into())),
            ],
        ),
        Value::any(Value::U64(1)),
        Value::Unit,
        Value::U64(7),
    ];
    for v in &cases {
        same_bytes(&v.metadata(), v);
    }
    // Deep nesting: vecs of vecs, and options of options.
    let mut deep = Value::U8(1);
    for _ in 0..100 {
        let t = deep.metadata();
        deep = if let Value::Vec(_) = deep {
            OptionValue::some(t, deep).unwrap().into()
        } else {
            VecValue::new(t, vec![deep]).unwrap().into()
        };
    }
    same_bytes(&deep.metadata(), &deep);
}

/// Random JSON-like records (a seeded generator): options, any, ints of
/// both signs, floats with and without short decimals, repeated strings.
#[cfg(feature = "json")]
#[test]
fn random_records_give_the_value_paths_bytes() {
    let mut next = crate::columnar::lcg(7, 16);
    for round in 0..30 {
        let n = [0, 1, 17, 300, 5000][round % 5];
        let mut text = String::from("[");
        for i in 0..n {
            let a = match next() % 6 {
                0 => "null".to_string(),
                1 => format!("{}", next() as i64 - (1 << 40)),
                2 => format!("{}.{}", next() % 1000, next() % 100),
                3 => format!("\"s{}\"", next() % 7),
                4 => "true".into(),
                _ => format!("{:e}", f64::from_bits(next() << 20 >> 2)),
            };
            let b = if round % 2 == 0 { format!("{}", next() % 50) } else { format!("\"k{}\"", next() % 3) };
            let sep = if i == 0 { "" } else { "," };
            text += &format!(r#"{sep}{{"a": {a}, "b": {b}, "c": {}.25, "d": [{}]}}"#, next() % 9, next() % 4);
        }
        text += "]";
        let v = json(&text);
        same_bytes(&v.metadata(), &v);
        let by_value = EncodeOptions::v2().layout(Layout::Columnar).encode_typed_message(&v.metadata(), &v).unwrap();
        if let Some(bytes) = extend_records(&v.metadata(), &v) {
            assert_eq!(bytes, by_value);
        }
    }
}

/// Structs with the same fields in another order are equal by
/// `Metadata`'s `==` but are other types on the wire: an `any` column of
/// both keeps both, every time (the index of types once keyed by `==`
/// and a hash that disagreed with it merged them now and then).
#[test]
fn any_keeps_structs_of_other_field_orders_apart() {
    let ab = StructValue::from_fields("O", [("a", Value::U64(1)), ("b", Value::String("x".into()))]).unwrap();
    let ba = StructValue::from_fields("O", [("b", Value::String("y".into())), ("a", Value::U64(2))]).unwrap();
    let items: Vec<Value> =
        (0..40).map(|i| Value::any(if i < 20 { ab.clone().into() } else { ba.clone().into() })).collect();
    let v: Value = VecValue::new(Metadata::Any, items).unwrap().into();
    let ty = v.metadata();
    let first = EncodeOptions::v2().layout(Layout::Columnar).encode_typed_message(&ty, &v).unwrap();
    for _ in 0..300 {
        let (a, b) = both(&EncodeOptions::v2(), &ty, &v);
        assert_eq!(a, first);
        assert_eq!(b, first);
    }
    let rows = EncodeOptions::v2().layout(Layout::Rows);
    let back = crate::decode_message(&first).unwrap();
    assert_eq!(rows.encode_message(&back).unwrap(), rows.encode_message(&v).unwrap());
}

#[test]
fn pushes_of_the_wrong_kind_fail_and_push_nothing() {
    let row = StructMetadata::new("R", [("a", s(P::U8)), ("b", Metadata::option(s(P::String)))]).unwrap();
    let ty = Metadata::vec(row.into());
    let mut cols = Columns::new(&ty);
    let root = cols.root();
    assert_eq!(root.push_u64(1).unwrap_err().kind(), ErrorKind::TypeMismatch);
    let rows = root.push_len(2).unwrap();
    assert!(rows.field(2).is_err());
    let a = rows.field(0).unwrap();
    assert_eq!(a.push_u64(256).unwrap_err().kind(), ErrorKind::TypeMismatch);
    assert_eq!(a.push_i64(-1).unwrap_err().kind(), ErrorKind::TypeMismatch);
    assert_eq!(a.push_str("x").unwrap_err().kind(), ErrorKind::TypeMismatch);
    assert_eq!(a.push_f64(1.0).unwrap_err().kind(), ErrorKind::TypeMismatch);
    assert_eq!(a.push_bool(true).unwrap_err().kind(), ErrorKind::TypeMismatch);
    assert_eq!(a.push_value(&Value::U16(1)).unwrap_err().kind(), ErrorKind::TypeMismatch);
    a.push_u64(255).unwrap();
    a.push_i64(0).unwrap();
    let b = rows.field(1).unwrap();
    assert!(b.push_str("x").is_err());
    b.push_some().unwrap().push_str("x").unwrap();
    // One record short in the second field: the counts disagree.
    let err = EncodeOptions::v2().encode_columns(cols).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TypeMismatch);
    assert!(err.to_string().contains("b"), "{err}");
    // No root value, or two.
    let mut cols = Columns::new(&s(P::U64));
    assert!(EncodeOptions::v2().encode_columns(Columns::new(&s(P::U64))).is_err());
    cols.root().push_u64(1).unwrap();
    cols.root().push_u64(2).unwrap();
    assert!(EncodeOptions::v2().encode_columns(cols).is_err());
    // Lengths that promise more items than were pushed.
    let mut cols = Columns::new(&Metadata::vec(s(P::I64)));
    cols.root().push_len(3).unwrap().push_i64(-1).unwrap();
    assert!(EncodeOptions::v2().encode_columns(cols).is_err());
    // Many at once: all or nothing.
    let mut cols = Columns::new(&Metadata::vec(s(P::I16)));
    let items = cols.root().push_len(3).unwrap();
    assert!(items.extend_i64(&[1, 40_000]).is_err());
    assert!(items.extend_u64(&[32_768]).is_err());
    assert!(items.extend_f64(&[1.0]).is_err());
    assert!(items.extend_str("ab", &[1]).is_err());
    assert!(items.extend_options(&[true]).is_err());
    items.extend_i64(&[-32_768, 32_767]).unwrap();
    items.extend_u64(&[5]).unwrap();
    let bytes = EncodeOptions::v2().encode_columns(cols).unwrap();
    let v: Value =
        VecValue::new(s(P::I16), vec![Value::I16(-32_768), Value::I16(32_767), Value::I16(5)]).unwrap().into();
    assert_eq!(crate::decode_message(&bytes).unwrap(), v);
    let mut cols = Columns::new(&Metadata::vec(s(P::String)));
    let items = cols.root().push_len(2).unwrap();
    assert!(items.extend_str("é", &[1]).is_err(), "inside a character");
    assert!(items.extend_str("ab", &[2, 1]).is_err(), "decreasing");
    assert!(items.extend_str("ab", &[3]).is_err(), "past the end");
    items.extend_str("é!", &[2, 3]).unwrap();
    let bytes = EncodeOptions::v2().encode_columns(cols).unwrap();
    let v: Value = VecValue::new(s(P::String), vec!["é".into(), "!".into()]).unwrap().into();
    assert_eq!(crate::decode_message(&bytes).unwrap(), v);
    // Values of any type, many at once: the same bytes as one at a time.
    let ty = Metadata::vec(Metadata::Any);
    let one_by_one = {
        let mut cols = Columns::new(&ty);
        let items = cols.root().push_len(5).unwrap();
        items.push_any(&s(P::String)).unwrap().push_str("a").unwrap();
        items.push_any(&s(P::U64)).unwrap().push_u64(7).unwrap();
        items.push_any(&Metadata::UNIT).unwrap();
        items.push_any(&s(P::String)).unwrap().push_str("bc").unwrap();
        items.push_any(&s(P::U64)).unwrap().push_u64(8).unwrap();
        EncodeOptions::v2().encode_columns(cols).unwrap()
    };
    let mut cols = Columns::new(&ty);
    let items = cols.root().push_len(5).unwrap();
    let types = [s(P::String), s(P::U64), Metadata::UNIT];
    assert!(items.extend_any(&types, &[0, 3]).is_err(), "a tag past the types");
    assert!(items.extend_any(&[s(P::U64), s(P::U64)], &[0]).is_err(), "types twice");
    let mut nodes = items.extend_any(&types, &[0, 1, 2, 0, 1]).unwrap();
    nodes[0].extend_str("abc", &[1, 3]).unwrap();
    nodes[1].extend_u64(&[7, 8]).unwrap();
    assert_eq!(EncodeOptions::v2().encode_columns(cols).unwrap(), one_by_one);
    // XBF 1 has no columns.
    let mut cols = Columns::new(&s(P::U64));
    cols.root().push_u64(1).unwrap();
    assert_eq!(EncodeOptions::v1().encode_columns(cols).unwrap_err().kind(), ErrorKind::Unsupported);
    // Array lengths are the type's.
    let mut cols = Columns::new(&Metadata::array(2, s(P::I8)));
    assert!(cols.root().push_len(3).is_err());
    let items = cols.root().push_len(2).unwrap();
    items.push_i64(-128).unwrap();
    items.push_i64(127).unwrap();
    let bytes = EncodeOptions::v2().encode_columns(cols).unwrap();
    let v: Value = Value::Array(VecValue::new(s(P::I8), vec![Value::I8(-128), Value::I8(127)]).unwrap());
    assert_eq!(crate::decode_message(&bytes).unwrap(), v);
}

/// Columns moved in (`take_*`) give the bytes of the same values copied in
/// (`extend_*`), stay in the columns after `encode_columns_kept`, and come
/// back out unchanged (`drain_*`); bad ends and values out of range are
/// refused with nothing taken.
#[test]
fn taken_columns_give_the_copied_bytes_and_come_back() {
    let row = StructMetadata::new(
        "Row",
        [
            ("s", s(P::String)),
            ("u", s(P::U64)),
            ("i", s(P::I64)),
            ("f", s(P::F64)),
            ("b", s(P::Bool)),
            ("o", Metadata::option(s(P::String))),
        ],
    )
    .unwrap();
    let ty = Metadata::vec(row.into());
    let text = "añbcdé";
    let ends = vec![1, 3, 3, 8];
    let (us, is, fs, bs) = (
        vec![0, 1, u64::MAX, 7],
        vec![-1, i64::MIN, i64::MAX, 0],
        vec![0.5, -0.0, 1e300, 2.0],
        vec![true, false, false, true],
    );
    let copied = {
        let mut cols = Columns::new(&ty);
        let rows = cols.root().push_len(4).unwrap();
        rows.field(0).unwrap().extend_str(text, &ends).unwrap();
        rows.field(1).unwrap().extend_u64(&us).unwrap();
        rows.field(2).unwrap().extend_i64(&is).unwrap();
        rows.field(3).unwrap().extend_f64(&fs).unwrap();
        rows.field(4).unwrap().extend_bool(&bs).unwrap();
        rows.field(5).unwrap().extend_options(&[true, false, true, false]).unwrap().extend_str("xyz", &[1, 3]).unwrap();
        EncodeOptions::v2().encode_columns(cols).unwrap()
    };
    let mut cols = Columns::new(&ty);
    let rows = cols.root().push_len(4).unwrap();
    rows.field(0).unwrap().take_str(text.to_string(), ends.clone()).unwrap();
    rows.field(1).unwrap().take_u64(us.clone()).unwrap();
    rows.field(2).unwrap().take_i64(is.clone()).unwrap();
    rows.field(3).unwrap().take_f64(fs.clone()).unwrap();
    rows.field(4).unwrap().take_bool(bs.clone()).unwrap();
    let o = rows.field(5).unwrap().extend_options(&[true, false, true, false]).unwrap();
    // Bytes past the last end are left out.
    o.take_str("xyz!!".to_string(), vec![1, 3]).unwrap();
    let opts = EncodeOptions::v2();
    assert_eq!(opts.encode_columns_kept(&mut cols).unwrap(), copied);
    // Kept: written again, the same bytes; then moved out as they went in.
    assert_eq!(opts.encode_columns_kept(&mut cols).unwrap(), copied);
    let rows = cols.root().push_len(0).unwrap();
    assert_eq!(rows.field(0).unwrap().drain_joined().unwrap(), (text.as_bytes().to_vec(), ends));
    assert_eq!(rows.field(1).unwrap().drain_u64().unwrap(), us);
    assert_eq!(rows.field(2).unwrap().drain_i64().unwrap(), is);
    assert_eq!(rows.field(3).unwrap().drain_f64().unwrap(), fs);
    assert_eq!(rows.field(4).unwrap().drain_bool().unwrap(), bs);
    let o = rows.field(5).unwrap().extend_options(&[]).unwrap();
    assert_eq!(o.drain_joined().unwrap(), (b"xyz".to_vec(), vec![1, 3]));
    // Drains of another kind of node fail.
    assert!(rows.field(1).unwrap().drain_i64().is_err());
    assert!(rows.field(2).unwrap().drain_u64().is_err());
    assert!(rows.field(0).unwrap().drain_f64().is_err());
    assert!(rows.field(3).unwrap().drain_bool().is_err());
    assert!(rows.field(4).unwrap().drain_joined().is_err());

    // Refused, nothing taken: ends inside a character, decreasing, past the end.
    let mut cols = Columns::new(&Metadata::vec(s(P::String)));
    let items = cols.root().push_len(2).unwrap();
    assert!(items.take_str("é".into(), vec![1]).is_err(), "inside a character");
    assert!(items.take_str("ab".into(), vec![2, 1]).is_err(), "decreasing");
    assert!(items.take_str("ab".into(), vec![3]).is_err(), "past the end");
    assert!(items.take_u64(vec![1]).is_err(), "not an integer node");
    // Into a node that holds values already: appended.
    items.take_str("é".into(), vec![2]).unwrap();
    items.take_str("!".into(), vec![1]).unwrap();
    let v: Value = VecValue::new(s(P::String), vec!["é".into(), "!".into()]).unwrap().into();
    assert_eq!(crate::decode_message(&EncodeOptions::v2().encode_columns(cols).unwrap()).unwrap(), v);
    // Integers out of a narrower type's range: refused; in range: taken.
    let mut cols = Columns::new(&Metadata::vec(s(P::I16)));
    let items = cols.root().push_len(3).unwrap();
    assert!(items.take_i64(vec![1, 40_000]).is_err());
    assert!(items.take_u64(vec![32_768]).is_err());
    items.take_i64(vec![-32_768, 32_767]).unwrap();
    items.take_u64(vec![5]).unwrap();
    let v: Value =
        VecValue::new(s(P::I16), vec![Value::I16(-32_768), Value::I16(32_767), Value::I16(5)]).unwrap().into();
    assert_eq!(crate::decode_message(&EncodeOptions::v2().encode_columns(cols).unwrap()).unwrap(), v);
    // A u64 node refuses negative i64s; a taken u64 past i64::MAX is kept.
    let mut cols = Columns::new(&Metadata::vec(s(P::U64)));
    let items = cols.root().push_len(2).unwrap();
    assert!(items.take_i64(vec![-1]).is_err());
    items.take_u64(vec![u64::MAX]).unwrap();
    items.take_i64(vec![3]).unwrap();
    let v: Value = VecValue::new(s(P::U64), vec![Value::U64(u64::MAX), Value::U64(3)]).unwrap().into();
    assert_eq!(crate::decode_message(&EncodeOptions::v2().encode_columns(cols).unwrap()).unwrap(), v);
}

#[test]
fn option_flags_are_counted_as_one_by_one() {
    let mut next = crate::columnar::lcg(29, 9);
    for n in [0usize, 1, 254, 255, 256, 511, 1000, 3201] {
        for odds in [1, 2, 7] {
            let flags: Vec<u8> = (0..n).map(|_| u8::from(next() % odds != 0)).collect();
            assert_eq!(ones(&flags), flags.iter().filter(|&&f| f == 1).count(), "{n} flags, 1 in {odds} absent");
        }
    }
}

/// A column holding another count than the columns above it say is refused,
/// the error naming it by its path (struct fields, enum variants, `any`'s
/// types, options, map keys and values) and its counts.
#[test]
fn miscounts_name_the_column() {
    let e = EnumMetadata::new("E", [("x", s(P::U8)), ("y", s(P::String))]).unwrap();
    let row = StructMetadata::new(
        "R",
        [
            ("e", Metadata::from(e)),
            ("a", Metadata::Any),
            ("m", Metadata::map(s(P::String), Metadata::option(s(P::U8)))),
        ],
    )
    .unwrap();
    let ty = Metadata::vec(row.into());
    // Two records, every column right but for one extra value where `extra` says.
    let error = |extra: u8| {
        let mut cols = Columns::new(&ty);
        let rows = cols.root().push_len(2).unwrap();
        let mut e = rows.field(0).unwrap().extend_variants(&[1, 0]).unwrap();
        e[0].push_u64(3).unwrap();
        e[1].extend_str(if extra == 1 { "st" } else { "s" }, if extra == 1 { &[1, 2] } else { &[1] }).unwrap();
        let a = rows.field(1).unwrap();
        a.push_any(&s(P::U64)).unwrap().push_u64(1).unwrap();
        let b = a.push_any(&s(P::Bool)).unwrap();
        b.push_bool(true).unwrap();
        if extra == 2 {
            b.push_bool(false).unwrap();
        }
        let (k, v) = rows.field(2).unwrap().push_map(2).unwrap();
        k.extend_str("klm", if extra == 3 { &[1, 2, 3] } else { &[1, 2] }).unwrap();
        let inner = v.extend_options(&[true, false]).unwrap();
        inner.extend_u64(if extra == 4 { &[9, 9] } else { &[9] }).unwrap();
        rows.field(2).unwrap().push_map(0).unwrap();
        if extra == 5 {
            rows.field(0).unwrap().push_variant(0).unwrap();
        }
        let r = EncodeOptions::v2().encode_columns(cols);
        r.map(|_| ()).map_err(|e| (e.kind(), e.to_string()))
    };
    assert_eq!(error(0), Ok(()));
    let want = [
        "the column of [].e.y (string) holds 2 values where 1 were pushed above it",
        "the column of [].a.<bool> (bool) holds 2 values where 1 were pushed above it",
        "the column of [].m.{key} (string) holds 3 values where 2 were pushed above it",
        "the column of [].m.{value}.? (u8) holds 2 values where 1 were pushed above it",
        "the column of [].e (enum E { x: u8, y: string }) holds 3 values where 2 were pushed above it",
    ];
    for (extra, want) in (1..).zip(want) {
        let (kind, text) = error(extra).unwrap_err();
        assert_eq!(kind, ErrorKind::TypeMismatch);
        assert!(text.contains(want), "{text}");
    }
}

/// A few random strings joined (ASCII only, or characters of one to four
/// UTF-8 bytes), and where each ends.
fn joined_strings(next: &mut impl FnMut() -> u64, ascii: bool) -> (String, Vec<usize>) {
    let alphabet = ["a", "Z", "0", " ", "é", "東", "🦀", "\u{7f}", "\u{80}"];
    let pick = if ascii { 4 } else { alphabet.len() };
    let strings: Vec<String> =
        (0..next() % 6).map(|_| (0..next() % 20).map(|_| alphabet[next() as usize % pick]).collect()).collect();
    let ends = strings
        .iter()
        .scan(0, |at, s| {
            *at += s.len();
            Some(*at)
        })
        .collect();
    (strings.concat(), ends)
}

/// The message of a vec of `n` strings that `take` puts into its node.
fn strings_message(n: usize, take: &dyn Fn(&mut ColumnNode) -> Result<()>) -> Result<Vec<u8>> {
    let mut cols = Columns::new(&Metadata::vec(s(P::String)));
    take(cols.root().push_len(n).unwrap())?;
    EncodeOptions::v2().encode_columns(cols)
}

/// Strings taken as bytes (`take_utf8`) give the bytes of the same strings
/// copied in (`extend_str`), ASCII or not; bytes that are not UTF-8, ends
/// inside a character, decreasing or past the end are refused with nothing
/// taken.
#[test]
fn strings_taken_as_bytes_are_checked_as_take_str_checks_them() {
    let ty = Metadata::vec(s(P::String));
    let mut next = crate::columnar::lcg(24, 4);
    for round in 0..200 {
        // ASCII only in the even rounds.
        let (text, ends) = joined_strings(&mut next, round % 2 == 0);
        let encode = |take: &dyn Fn(&mut ColumnNode) -> Result<()>| strings_message(ends.len(), take);
        let copied = encode(&|n| n.extend_str(&text, &ends)).unwrap();
        assert_eq!(encode(&|n| n.take_utf8(text.clone().into_bytes(), ends.clone())).unwrap(), copied);
        // Bytes past the last end are dropped.
        let mut longer = text.clone().into_bytes();
        longer.extend_from_slice("x€".as_bytes());
        assert_eq!(encode(&|n| n.take_utf8(longer.clone(), ends.clone())).unwrap(), copied);
        // An end moved inside a character, or past the end: refused.
        for (i, &e) in ends.iter().enumerate() {
            let mut bad = ends.clone();
            bad[i] = e + 1;
            let inside = e < text.len() && !text.is_char_boundary(e + 1);
            let refused = encode(&|n| n.take_utf8(text.clone().into_bytes(), bad.clone())).is_err();
            let decreasing = bad.get(i + 1).is_some_and(|&f| f < e + 1);
            assert_eq!(refused, inside || decreasing || e + 1 > text.len(), "{text:?} {bad:?}");
        }
        // A byte that breaks UTF-8 anywhere: refused, nothing taken (the node takes strings after).
        for at in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = 0xff;
            let mut cols = Columns::new(&ty);
            let items = cols.root().push_len(ends.len()).unwrap();
            let err = items.take_utf8(bytes, ends.clone()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::TypeMismatch);
            items.take_utf8(text.clone().into_bytes(), ends.clone()).unwrap();
            assert_eq!(EncodeOptions::v2().encode_columns(cols).unwrap(), copied);
        }
    }
    // Into a node that holds strings already: appended.
    let mut cols = Columns::new(&ty);
    let items = cols.root().push_len(3).unwrap();
    items.take_utf8("é".into(), vec![2]).unwrap();
    items.take_utf8("ab".into(), vec![1, 2]).unwrap();
    let v: Value = VecValue::new(s(P::String), vec!["é".into(), "a".into(), "b".into()]).unwrap().into();
    assert_eq!(crate::decode_message(&EncodeOptions::v2().encode_columns(cols).unwrap()).unwrap(), v);
}

/// Strings taken unchecked (`take_utf8_unchecked`, valid text and ends)
/// give the bytes `take_utf8` gives, the bytes past the last end dropped;
/// into a node that holds strings already they are appended.
#[test]
#[allow(unsafe_code)]
fn strings_taken_unchecked_as_take_utf8_takes_them() {
    let ty = Metadata::vec(s(P::String));
    let mut next = crate::columnar::lcg(25, 4);
    for round in 0..100 {
        let (text, ends) = joined_strings(&mut next, round % 2 == 0);
        let encode = |take: &dyn Fn(&mut ColumnNode) -> Result<()>| strings_message(ends.len(), take);
        let checked = encode(&|n| n.take_utf8(text.clone().into_bytes(), ends.clone())).unwrap();
        let mut longer = text.clone().into_bytes();
        longer.extend_from_slice("x€".as_bytes());
        for bytes in [text.clone().into_bytes(), longer] {
            // SAFETY: `bytes` is UTF-8 (a `String`'s, or one with "x€" after
            // it) and `ends` are the ends of the strings joined in it.
            let unchecked = encode(&|n| unsafe { n.take_utf8_unchecked(bytes.clone(), ends.clone()) }).unwrap();
            assert_eq!(unchecked, checked, "{text:?} {ends:?}");
        }
    }
    // Into a node that holds strings already: appended.
    let mut cols = Columns::new(&ty);
    let items = cols.root().push_len(3).unwrap();
    // SAFETY: valid text and ends (into the empty node: moved in).
    unsafe { items.take_utf8_unchecked("é".into(), vec![2]) }.unwrap();
    // SAFETY: valid text and ends.
    unsafe { items.take_utf8_unchecked("ab".into(), vec![1, 2]) }.unwrap();
    let v: Value = VecValue::new(s(P::String), vec!["é".into(), "a".into(), "b".into()]).unwrap().into();
    assert_eq!(crate::decode_message(&EncodeOptions::v2().encode_columns(cols).unwrap()).unwrap(), v);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// The branch-free order test of string ends (`owned::increasing`) says
    /// what comparing each pair says, with every end at most `isize::MAX`
    /// (as any end within a `str` is): ends near zero, near `isize::MAX`
    /// and near `usize::MAX`, increasing or with a step back anywhere.
    #[test]
    fn ends_order_is_the_pairwise_one(
        base in proptest::sample::select(vec![0usize, 1 << 20, isize::MAX as usize - 64, usize::MAX - 64]),
        steps in proptest::collection::vec(proptest::prop_oneof![0usize..40, 1usize << (usize::BITS - 24)..usize::MAX / 2], 0..70),
        back in proptest::option::of((0usize..70, 1usize..usize::MAX)),
    ) {
        let mut at = base;
        // Steps added as the wrapping sum the shortcut must see through.
        let mut ends: Vec<usize> = steps.iter().map(|&s| { at = at.wrapping_add(s); at }).collect();
        if let Some((i, by)) = back {
            if let Some(e) = ends.get_mut(i) {
                *e = e.wrapping_sub(by);
            }
        }
        let pairwise = ends.windows(2).all(|w| w[0] <= w[1]) && ends.iter().all(|&e| e <= isize::MAX as usize);
        proptest::prop_assert_eq!(super::owned::increasing(&ends), pairwise, "{:?}", ends);
    }
}

/// Ends whose every step is below `2^63` but whose sum wraps past
/// `usize::MAX` back to a small end: `increasing`'s first pass must not take
/// them (its bound on the steps sends them to the exact pass), nor refuse
/// increasing ends that only the exact pass accepts.
#[cfg(target_pointer_width = "64")]
#[test]
fn ends_whose_steps_wrap_around_are_refused() {
    let q = 1usize << 62;
    assert!(!super::owned::increasing(&[5, 5 + q, 5 + 2 * q, 5 + 3 * q, 5]));
    assert!(!super::owned::increasing(&[5, 5 + 3 * q, 5]));
    let max = isize::MAX as usize;
    assert!(super::owned::increasing(&[0, max]));
    assert!(super::owned::increasing(&[max / 3, max / 3 * 2, max]));
    assert!(!super::owned::increasing(&[0, max + 1]));
    assert!(!super::owned::increasing(&[max, max + 1]));
    assert!(super::owned::increasing(&[q - 1, q - 1, q]));
    assert!(!super::owned::increasing(&[q, q - 1]));
}

/// Enum values moved in (`take_variants`) give the bytes of the same
/// values appended (`extend_variants`), into an empty node or after values
/// it holds, for 1 to 5 variants; an index past the last variant is
/// refused with nothing taken.
#[test]
fn variants_taken_are_the_variants_extended() {
    let mut next = crate::columnar::lcg(31, 5);
    for k in 1..=5usize {
        let e = EnumMetadata::new("E", (0..k).map(|i| (format!("v{i}"), s(P::U64))).collect::<Vec<_>>()).unwrap();
        let ty = Metadata::vec(e.into());
        for n in [0usize, 1, 2, 17, 300] {
            let tags: Vec<usize> = (0..n).map(|_| next() as usize % k).collect();
            let first = n / 3;
            // The payloads: each value's index.
            let fill = |variants: Vec<&mut ColumnNode>, tags: &[usize]| {
                for (v, node) in variants.into_iter().enumerate() {
                    let xs: Vec<u64> = tags.iter().filter(|&&t| t == v).map(|&t| t as u64).collect();
                    node.extend_u64(&xs).unwrap();
                }
            };
            let extended = {
                let mut cols = Columns::new(&ty);
                let items = cols.root().push_len(n).unwrap();
                fill(items.extend_variants(&tags[..first]).unwrap(), &tags[..first]);
                fill(items.extend_variants(&tags[first..]).unwrap(), &tags[first..]);
                EncodeOptions::v2().encode_columns(cols).unwrap()
            };
            let wide = |t: &[usize]| t.iter().map(|&t| t as u8).collect::<Vec<u8>>();
            let mut cols = Columns::new(&ty);
            let items = cols.root().push_len(n).unwrap();
            // Refused: an index past the last, anywhere; nothing taken.
            for bad in [k as u8, k as u8 + 1, u8::MAX] {
                let mut t = wide(&tags[..first]);
                t.insert(t.len() / 2, bad);
                assert!(items.take_variants(t).is_err(), "{k} variants, {bad}");
            }
            fill(items.take_variants(wide(&tags[..first])).unwrap(), &tags[..first]);
            fill(items.take_variants(wide(&tags[first..])).unwrap(), &tags[first..]);
            assert_eq!(EncodeOptions::v2().encode_columns(cols).unwrap(), extended, "{k} variants, {n} values");
        }
    }
    let mut cols = Columns::new(&Metadata::vec(s(P::U64)));
    assert!(cols.root().push_len(1).unwrap().take_variants(vec![0]).is_err(), "not an enum node");
}

/// The counts of each tag are those counted one by one, tags of the
/// count or more left out, with two kinds (the shortcut) or more, kept as
/// bytes or as 128 bits.
#[test]
fn tags_are_counted_as_one_by_one() {
    let mut next = crate::columnar::lcg(37, 3);
    for k in [0usize, 1, 2, 3, 4, 5, 8, 9, 255, 256, 300] {
        for n in [0usize, 1, 2, 33, 1000] {
            for odd in [None, Some(k as u128), Some(2), Some(255), Some(1 << 64), Some(u128::MAX)] {
                let mut tags: Vec<u128> = (0..n).map(|_| (next() as usize % k.max(1)) as u128).collect();
                if let (Some(t), true) = (odd, n > 0) {
                    tags[n / 2] = t;
                }
                let want: Vec<usize> = (0..k).map(|i| tags.iter().filter(|&&t| t == i as u128).count()).collect();
                assert_eq!(Tags::Wide(tags.clone()).counts(k), want, "{k} kinds, {n} tags, {odd:?}");
                if tags.iter().all(|&t| t <= 255) {
                    let bytes = Tags::Bytes(tags.iter().map(|&t| t as u8).collect());
                    assert_eq!(bytes.counts(k), want, "{k} kinds, {n} byte tags, {odd:?}");
                }
            }
        }
    }
}

/// An enum of more variants than a byte tells apart, and an `any` node of
/// more types: the builder's tags, kept in bytes until an index needs
/// more, give the `Value` path's bytes (whose tags are 128 bits), pushed
/// one by one and extended at once; moved in as bytes, the first 256.
#[test]
fn tags_past_a_byte_give_the_value_paths_bytes() {
    let mut next = crate::columnar::lcg(43, 9);
    for k in [2usize, 255, 256, 257, 300] {
        let e = EnumMetadata::new("E", (0..k).map(|i| (format!("v{i}"), s(P::U64))).collect::<Vec<_>>()).unwrap();
        let ety = Metadata::from(e.clone());
        for n in [0usize, 1, 40, 700] {
            // The first values' indices within a byte, the rest anywhere.
            let tags: Vec<usize> = (0..n).map(|i| next() as usize % if i < n / 2 { k.min(256) } else { k }).collect();
            let items: Vec<Value> = tags
                .iter()
                .map(|&t| EnumValue::new(e.clone(), &format!("v{t}"), Value::U64(t as u64)).unwrap().into())
                .collect();
            let ty = Metadata::vec(ety.clone());
            let v = Value::Vec(VecValue::new(ety.clone(), items).unwrap());
            same_bytes(&ty, &v);
            let want = EncodeOptions::v2().layout(Layout::Columnar).encode_typed_message(&ty, &v).unwrap();
            let fill = |variants: Vec<&mut ColumnNode>, tags: &[usize]| {
                for (i, node) in variants.into_iter().enumerate() {
                    let xs: Vec<u64> = tags.iter().filter(|&&t| t == i).map(|&t| t as u64).collect();
                    node.extend_u64(&xs).unwrap();
                }
            };
            let mut cols = Columns::new(&ty);
            let node = cols.root().push_len(n).unwrap();
            fill(node.extend_variants(&tags).unwrap(), &tags);
            assert_eq!(EncodeOptions::v2().encode_columns(cols).unwrap(), want, "{k} variants extended");
            let (first, rest) = tags.split_at(n / 2);
            let mut cols = Columns::new(&ty);
            let node = cols.root().push_len(n).unwrap();
            fill(node.take_variants(first.iter().map(|&t| t as u8).collect()).unwrap(), first);
            fill(node.extend_variants(rest).unwrap(), rest);
            assert_eq!(EncodeOptions::v2().encode_columns(cols).unwrap(), want, "{k} variants taken");
        }
        // `any` values of k types (arrays of k lengths), in an order that
        // reaches past the 256th type before its end.
        let types: Vec<Metadata> = (0..k).map(|i| Metadata::array(i as u64, s(P::U8))).collect();
        let order: Vec<usize> = (0..k).chain((0..k).map(|_| next() as usize % k)).collect();
        let items: Vec<Value> = order
            .iter()
            .map(|&i| {
                let arr = Value::Array(VecValue::new(s(P::U8), vec![Value::U8(7); i]).unwrap());
                Value::Any(Box::new(AnyValue::new(types[i].clone(), arr).unwrap()))
            })
            .collect();
        let ty = Metadata::vec(Metadata::Any);
        let v = Value::Vec(VecValue::new(Metadata::Any, items).unwrap());
        same_bytes(&ty, &v);
    }
}

/// Values of `any` type whose type indices are moved in (`take_any`) give
/// the bytes of the same values appended (`extend_any`), into an empty
/// node or after values it holds (of the same types, or others); an index
/// past the types given, or types given twice, are refused with nothing
/// taken.
#[test]
fn any_values_taken_are_the_values_extended() {
    let all: Vec<Metadata> = [P::U64, P::String, P::Bool, P::F64].into_iter().map(s).collect();
    let mut next = crate::columnar::lcg(41, 7);
    for k in 1..=all.len() {
        for n in [0usize, 1, 3, 50, 400] {
            // The types in another order from the second call on, so that
            // its indices map to other places in the node.
            let types = &all[..k];
            let later: Vec<Metadata> = types.iter().rev().cloned().collect();
            let tags: Vec<usize> = (0..n).map(|_| next() as usize % k).collect();
            let first = n / 2;
            let fill = |nodes: Vec<&mut ColumnNode>, types: &[Metadata], tags: &[usize]| {
                for (i, (node, t)) in nodes.into_iter().zip(types).enumerate() {
                    let count = tags.iter().filter(|&&x| x == i).count();
                    match t {
                        Metadata::Primitive(P::U64) => node.extend_u64(&vec![i as u64; count]).unwrap(),
                        Metadata::Primitive(P::String) => {
                            node.extend_str("s".repeat(count).as_str(), &(1..=count).collect::<Vec<_>>()).unwrap()
                        }
                        Metadata::Primitive(P::Bool) => node.extend_bool(&vec![true; count]).unwrap(),
                        _ => node.extend_f64(&vec![0.5; count]).unwrap(),
                    }
                }
            };
            let ty = Metadata::vec(Metadata::Any);
            let extended = {
                let mut cols = Columns::new(&ty);
                let items = cols.root().push_len(n).unwrap();
                fill(items.extend_any(types, &tags[..first]).unwrap(), types, &tags[..first]);
                fill(items.extend_any(&later, &tags[first..]).unwrap(), &later, &tags[first..]);
                EncodeOptions::v2().encode_columns(cols).unwrap()
            };
            let wide = |t: &[usize]| t.iter().map(|&t| t as u8).collect::<Vec<u8>>();
            let mut cols = Columns::new(&ty);
            let items = cols.root().push_len(n).unwrap();
            for bad in [k as u8, u8::MAX] {
                let mut t = wide(&tags[..first]);
                t.insert(t.len() / 2, bad);
                assert!(items.take_any(types, t).is_err(), "{k} types, {bad}");
            }
            // Two indices past the types, the larger last: the error names the first.
            let mut t = wide(&tags[..first]);
            t.extend([k as u8 + 1, u8::MAX]);
            let err = items.take_any(types, t).unwrap_err().to_string();
            assert!(err.contains(&format!("the type index {} of {k} types", k + 1)), "{err}");
            let twice: Vec<Metadata> = types.iter().chain(&types[..1]).cloned().collect();
            assert!(items.take_any(&twice, wide(&tags[..first])).is_err(), "a type twice");
            fill(items.take_any(types, wide(&tags[..first])).unwrap(), types, &tags[..first]);
            fill(items.take_any(&later, wide(&tags[first..])).unwrap(), &later, &tags[first..]);
            assert_eq!(EncodeOptions::v2().encode_columns(cols).unwrap(), extended, "{k} types, {n} values");
        }
    }
    let mut cols = Columns::new(&Metadata::vec(s(P::U64)));
    assert!(cols.root().push_len(1).unwrap().take_any(&all, vec![0]).is_err(), "not an any node");
}
