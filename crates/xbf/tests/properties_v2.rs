//! Property tests for XBF 2: random types of every kind with random values
//! round-trip as messages and as streams, byte for byte; random and damaged
//! bytes never make a decoder or a stream reader panic; random JSON
//! documents come back as the same JSON value.

use proptest::collection::vec;
use proptest::prelude::*;
use xbf::{
    AnyValue, EncodeOptions, EnumMetadata, EnumValue, MapValue, Metadata, OptionValue, PrimitiveType as P,
    StreamOptions, StreamReader, StreamWriter, StructMetadata, StructValue, TupleValue, Value, VecValue, I256, U256,
};

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

fn typed_value() -> impl Strategy<Value = (Metadata, Value)> {
    arb_metadata().prop_flat_map(|ty| {
        let t = ty.clone();
        arb_value(&ty).prop_map(move |v| (t.clone(), v))
    })
}

/// Values equal with floats compared by their bits.
fn same_bytes(a: &Value, b: &Value) -> bool {
    EncodeOptions::v2().encode_value(a).unwrap() == EncodeOptions::v2().encode_value(b).unwrap()
        && a.metadata() == b.metadata()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn messages_round_trip_byte_for_byte((ty, v) in typed_value()) {
        let bytes = EncodeOptions::v2().encode_typed_message(&ty, &v).unwrap();
        let (back_ty, back) = xbf::DecodeOptions::default().decode_typed_message(&bytes).unwrap();
        prop_assert_eq!(&back_ty, &ty);
        prop_assert!(same_bytes(&back, &v));
        prop_assert_eq!(EncodeOptions::v2().encode_typed_message(&back_ty, &back).unwrap(), bytes.clone());
        let from_reader = xbf::read_message(&bytes[..]).unwrap();
        prop_assert!(same_bytes(&from_reader, &v));
        // Every proper prefix is cut short, and one byte more is trailing.
        for cut in 0..bytes.len() {
            let e = xbf::decode_message(&bytes[..cut]).unwrap_err();
            prop_assert_eq!(e.kind(), xbf::ErrorKind::Truncated, "cut at {}: {}", cut, e);
        }
        let mut longer = bytes.clone();
        longer.push(0);
        let e = xbf::decode_message(&longer).unwrap_err();
        prop_assert_eq!((e.kind(), e.offset()), (xbf::ErrorKind::TrailingBytes, Some(bytes.len() as u64)));
    }

    #[test]
    fn streams_round_trip((ty, v) in typed_value(), n in 0usize..6, block in 0usize..40, checksums in any::<bool>()) {
        let opts = StreamOptions::default().checksums(checksums).block_bytes(block);
        let mut w = StreamWriter::new(Vec::new(), ty.clone(), opts).unwrap();
        for _ in 0..n {
            w.write(&v).unwrap();
        }
        let bytes = w.finish().unwrap();
        let reader = StreamReader::new(&bytes[..]).unwrap();
        prop_assert_eq!(reader.metadata(), &ty);
        let got: Vec<Value> = reader.collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(got.len(), n);
        prop_assert!(got.iter().all(|g| same_bytes(g, &v)));
    }

    #[test]
    fn damaged_messages_and_streams_never_panic(
        (ty, v) in typed_value(),
        edits in vec((any::<usize>(), any::<u8>()), 1..4),
        noise in vec(any::<u8>(), 0..64),
    ) {
        let msg = EncodeOptions::v2().encode_typed_message(&ty, &v).unwrap();
        let mut w = StreamWriter::new(Vec::new(), ty, StreamOptions::default().block_bytes(8)).unwrap();
        w.write(&v).unwrap();
        w.write(&v).unwrap();
        let stream = w.finish().unwrap();
        for original in [msg, stream, noise] {
            let mut damaged = original.clone();
            for (at, byte) in &edits {
                if !damaged.is_empty() {
                    let i = at % damaged.len();
                    damaged[i] = *byte;
                }
            }
            for bytes in [&original[..], &damaged[..]] {
                let slice = xbf::decode_message(bytes);
                let reader = xbf::read_message(bytes);
                prop_assert_eq!(slice.is_ok(), reader.is_ok());
                if let Ok(r) = StreamReader::new(bytes) {
                    for item in r {
                        if item.is_err() {
                            break;
                        }
                    }
                }
            }
        }
    }
}

fn arb_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u128>().prop_map(|i| i.to_string()),
        any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(|x| format!("{x:?}")),
        "[a-z\"\\\\é]{0,4}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(|items| format!("[{}]", items.join(","))),
            vec(("[a-c]{1,2}", inner), 0..5).prop_map(|members| {
                let mut seen = std::collections::HashSet::new();
                let members: Vec<String> = members
                    .into_iter()
                    .filter(|(k, _)| seen.insert(k.clone()))
                    .map(|(k, v)| format!("{}:{v}", serde_json::to_string(&k).unwrap()))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn json_comes_back_as_the_same_value(text in arb_json()) {
        let value = xbf::json::from_json_str(&text).unwrap();
        let bytes = xbf::encode_message(&value).unwrap();
        let back = xbf::json::to_json_string(&xbf::decode_message(&bytes).unwrap(), false).unwrap();
        let (a, b) = (xbf::json::Json::parse(&text).unwrap(), xbf::json::Json::parse(&back).unwrap());
        prop_assert!(a.same_value(&b), "{} came back as {}", text, back);
    }
}
