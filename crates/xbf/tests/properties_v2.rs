//! Property tests for XBF 2: random types of every kind with random values
//! round-trip as messages and as streams, byte for byte; random and damaged
//! bytes never make a decoder or a stream reader panic; random JSON
//! documents come back as the same JSON value.

use proptest::collection::vec;
use proptest::prelude::*;
use xbf::{EncodeOptions, Metadata, StreamOptions, StreamReader, StreamWriter, Value};

#[path = "support/arb.rs"]
mod arb;
use arb::*;

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
