//! Property tests: random types and values round-trip, the slice and the
//! stream decoders agree, and no input, random or damaged, makes a decoder
//! panic.

use std::io::{self, Cursor, Read};

use proptest::collection::vec;
use proptest::prelude::*;
use xbf::{
    decode_message, read_message, DecodeOptions, EncodeOptions, ErrorKind, Metadata, PrimitiveType, StructMetadata,
    StructValue, Value, VecValue, Version, I256, U256,
};

// ---------------------------------------------------------------- helpers

// This file tests the v1 format: every encoder here writes v1.

fn encode_message(v: &Value) -> xbf::Result<Vec<u8>> {
    EncodeOptions::v1().encode_message(v)
}

fn encode_metadata(ty: &Metadata) -> xbf::Result<Vec<u8>> {
    EncodeOptions::v1().encode_metadata(ty)
}

fn encode_value(v: &Value) -> Vec<u8> {
    EncodeOptions::v1().encode_value(v).expect("a v1 value encodes")
}

/// A reader that hands out at most one byte per `read` call, to exercise
/// every short-read path of the stream decoder.
struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.0.read(&mut buf[..1])
    }
}

/// Equality of values in which floats compare by bit pattern, so that a NaN
/// equals itself (and only a NaN with the same sign and payload), and `-0.0`
/// differs from `0.0`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Vec(x), Value::Vec(y)) => {
            x.element_type() == y.element_type()
                && x.len() == y.len()
                && x.items().iter().zip(y.items()).all(|(p, q)| same(p, q))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.metadata() == y.metadata()
                && x.values().len() == y.values().len()
                && x.values().iter().zip(y.values()).all(|(p, q)| same(p, q))
        }
        (Value::Vec(_) | Value::Struct(_), _) | (_, Value::Vec(_) | Value::Struct(_)) => false,
        _ => a == b,
    }
}

fn prop_same(a: &Value, b: &Value) -> Result<(), TestCaseError> {
    prop_assert!(same(a, b), "values differ:\n  {:?}\n  {:?}", a, b);
    Ok(())
}

/// The slice decoder and the stream decoders (whole reads and one byte per
/// read) agree on `bytes`: the same value, or all fail. When the slice
/// decoder's error is not `truncated` (whose place the slice decoder may find
/// earlier, from a count that cannot fit, SPEC.md 8.4), the stream decoders
/// report the same kind, offset and path.
fn check_agreement(bytes: &[u8]) -> Result<(), TestCaseError> {
    let slice = decode_message(bytes);
    let cursor = read_message(Cursor::new(bytes));
    let one = read_message(OneByte(bytes));
    for (name, stream) in [("cursor", cursor), ("one-byte", one)] {
        match (&slice, &stream) {
            (Ok(a), Ok(b)) => prop_same(a, b)?,
            (Err(e), Err(f)) => {
                if e.kind() != ErrorKind::Truncated {
                    prop_assert_eq!(e.kind(), f.kind(), "{}: {} vs {}", name, e, f);
                    prop_assert_eq!(e.offset(), f.offset(), "{}: {} vs {}", name, e, f);
                    prop_assert_eq!(e.path_string(), f.path_string(), "{}: {} vs {}", name, e, f);
                }
                prop_assert!(e.offset().is_some(), "decode error without offset: {}", e);
                prop_assert!(f.offset().is_some(), "read error without offset: {}", f);
            }
            (a, b) => {
                return Err(TestCaseError::fail(format!(
                    "slice and {name} stream disagree on {}: {a:?} vs {b:?}",
                    hex(bytes)
                )))
            }
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs every decoding entry point on `bytes`; only a panic is a failure.
fn decode_everything(bytes: &[u8], ty: &Metadata) {
    let opts = DecodeOptions::default();
    let _ = decode_message(bytes);
    let _ = read_message(bytes);
    let _ = read_message(OneByte(bytes));
    let _ = opts.decode_metadata(Version::V1, bytes);
    let _ = opts.decode_value(Version::V1, ty, bytes);
    // Tight limits reach the limit checks from more inputs.
    let tight = DecodeOptions::default().max_depth(2).unwrap().max_decoded_bytes(3 * xbf::options::DECODED_VALUE_BYTES);
    let _ = tight.decode_message(bytes);
    let _ = tight.read_message(bytes);
    let _ = tight.decode_value(Version::V1, ty, bytes);
}

// ---------------------------------------------------------------- strategies

/// The 17 primitives of v1 (discriminants 0 to 16).
fn v1_primitives() -> Vec<PrimitiveType> {
    let v1: Vec<_> = PrimitiveType::ALL.into_iter().filter(|p| p.discriminant() <= 16).collect();
    assert_eq!(v1.len(), 17);
    v1
}

fn arb_primitive() -> impl Strategy<Value = PrimitiveType> {
    prop::sample::select(v1_primitives())
}

/// Struct and field names: empty, ASCII identifiers, and arbitrary Unicode
/// (non-ASCII, control characters, astral planes).
fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-z_][a-z0-9_]{0,6}",
        Just("é".to_owned()),
        Just("名前".to_owned()),
        Just("🦀 crab".to_owned()),
        vec(any::<char>(), 0..5).prop_map(String::from_iter),
    ]
}

/// A struct type from names that may repeat: the first field of each name wins.
fn make_struct(name: String, fields: Vec<(String, Metadata)>) -> Metadata {
    let mut seen = std::collections::HashSet::new();
    let fields: Vec<_> = fields.into_iter().filter(|(n, _)| seen.insert(n.clone())).collect();
    StructMetadata::new(name, fields).expect("unique names").into()
}

/// Random metadata: every primitive, vecs and structs, at most 4 levels of
/// nesting and 5 fields a struct.
fn arb_metadata() -> impl Strategy<Value = Metadata> {
    let leaf = arb_primitive().prop_map(Metadata::from);
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            inner.clone().prop_map(Metadata::vec),
            (arb_name(), vec((arb_name(), inner), 0..6)).prop_map(|(n, f)| make_struct(n, f)),
        ]
    })
}

fn arb_f32() -> BoxedStrategy<f32> {
    prop_oneof![
        any::<f32>(),
        any::<u32>().prop_map(f32::from_bits),
        // NaNs with a sign, quiet or signalling, and a payload.
        (any::<bool>(), 1u32..(1 << 23))
            .prop_map(|(neg, payload)| { f32::from_bits(u32::from(neg) << 31 | 0x7f80_0000 | payload) }),
        prop::sample::select(vec![
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::EPSILON,
        ]),
    ]
    .boxed()
}

fn arb_f64() -> BoxedStrategy<f64> {
    prop_oneof![
        any::<f64>(),
        any::<u64>().prop_map(f64::from_bits),
        (any::<bool>(), 1u64..(1 << 52))
            .prop_map(|(neg, payload)| { f64::from_bits(u64::from(neg) << 63 | 0x7ff0_0000_0000_0000 | payload) }),
        prop::sample::select(vec![
            0.0f64,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::EPSILON,
        ]),
    ]
    .boxed()
}

macro_rules! int_edges {
    ($t:ty, $v:ident) => {
        prop_oneof![any::<$t>(), prop::sample::select(vec![<$t>::MIN, <$t>::MAX, 0, 1, <$t>::MAX - 1, <$t>::MIN + 1]),]
            .prop_map(Value::$v)
            .boxed()
    };
}

fn arb_string() -> BoxedStrategy<String> {
    prop_oneof![
        Just(String::new()),
        "[ -~]{0,10}",
        vec(any::<char>(), 0..8).prop_map(String::from_iter),
        Just("naïve café 日本語 🦀\u{0}\u{feff}".to_owned()),
    ]
    .boxed()
}

fn arb_primitive_value(p: PrimitiveType) -> BoxedStrategy<Value> {
    match p {
        PrimitiveType::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        PrimitiveType::U8 => int_edges!(u8, U8),
        PrimitiveType::U16 => int_edges!(u16, U16),
        PrimitiveType::U32 => int_edges!(u32, U32),
        PrimitiveType::U64 => int_edges!(u64, U64),
        PrimitiveType::U128 => int_edges!(u128, U128),
        PrimitiveType::I8 => int_edges!(i8, I8),
        PrimitiveType::I16 => int_edges!(i16, I16),
        PrimitiveType::I32 => int_edges!(i32, I32),
        PrimitiveType::I64 => int_edges!(i64, I64),
        PrimitiveType::I128 => int_edges!(i128, I128),
        PrimitiveType::U256 => prop_oneof![
            any::<[u8; 32]>().prop_map(U256::from_le_bytes),
            prop::sample::select(vec![U256::MIN, U256::MAX, U256::ONE, U256::from(u128::MAX)]),
        ]
        .prop_map(Value::U256)
        .boxed(),
        PrimitiveType::I256 => prop_oneof![
            any::<[u8; 32]>().prop_map(I256::from_le_bytes),
            prop::sample::select(vec![I256::MIN, I256::MAX, I256::ZERO, I256::MINUS_ONE]),
        ]
        .prop_map(Value::I256)
        .boxed(),
        PrimitiveType::F32 => arb_f32().prop_map(Value::F32).boxed(),
        PrimitiveType::F64 => arb_f64().prop_map(Value::F64).boxed(),
        PrimitiveType::Bytes => vec(any::<u8>(), 0..12).prop_map(Value::Bytes).boxed(),
        PrimitiveType::String => arb_string().prop_map(Value::String).boxed(),
        other => panic!("{other} is not a v1 primitive"),
    }
}

/// Random values of type `ty` (vecs hold 0 to 3 elements, often none).
fn arb_value_of(ty: &Metadata) -> BoxedStrategy<Value> {
    match ty {
        Metadata::Primitive(p) => arb_primitive_value(*p),
        Metadata::Vec(elem) => {
            let elem = Metadata::clone(elem);
            vec(arb_value_of(&elem), 0..4)
                .prop_map(move |items| Value::Vec(VecValue::new(elem.clone(), items).expect("items conform")))
                .boxed()
        }
        Metadata::Struct(s) => {
            let s = s.clone();
            let fields: Vec<_> = s.fields().map(|(_, t)| arb_value_of(t)).collect();
            fields
                .prop_map(move |vals| Value::Struct(StructValue::new(s.clone(), vals).expect("fields conform")))
                .boxed()
        }
        other => panic!("unknown metadata {other:?}"),
    }
}

fn arb_typed_value() -> impl Strategy<Value = (Metadata, Value)> {
    arb_metadata().prop_flat_map(|ty| {
        let t = ty.clone();
        arb_value_of(&ty).prop_map(move |v| (t.clone(), v))
    })
}

/// Bytes that look more like XBF than uniform noise: discriminants, small
/// counts and zeros are frequent.
fn arb_xbf_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    vec(prop_oneof![4 => 0u8..=0x12, 3 => Just(0u8), 1 => Just(0xffu8), 2 => any::<u8>()], 0..256)
}

/// A valid message, a position in it and a byte: the material for mutations.
fn arb_message_and_edit() -> impl Strategy<Value = (Vec<u8>, prop::sample::Index, u8)> {
    (arb_typed_value(), any::<prop::sample::Index>(), any::<u8>())
        .prop_map(|((_, v), i, b)| (encode_message(&v).expect("encodable"), i, b))
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (a) encode then decode gives back the value and its type, bit for bit,
    /// and re-encoding gives the same bytes.
    #[test]
    fn message_round_trip((ty, v) in arb_typed_value()) {
        prop_assert!(v.conforms_to(&ty));
        let bytes = encode_message(&v).unwrap();
        let back = decode_message(&bytes).unwrap();
        prop_same(&v, &back)?;
        prop_assert_eq!(back.metadata(), ty.clone());
        prop_assert_eq!(encode_message(&back).unwrap(), bytes.clone());

        // The message is the metadata bytes then the value bytes.
        let meta = encode_metadata(&ty).unwrap();
        let data = encode_value(&v);
        prop_assert_eq!([meta.as_slice(), data.as_slice()].concat(), bytes.clone());
        let (m, used) = DecodeOptions::default().decode_metadata(Version::V1, &bytes).unwrap();
        prop_assert_eq!(m, ty);
        prop_assert_eq!(used, meta.len());
    }

    /// (b) The stream decoders agree with the slice decoder on valid messages.
    #[test]
    fn reader_agrees_on_valid((_, v) in arb_typed_value()) {
        let bytes = encode_message(&v).unwrap();
        let a = read_message(Cursor::new(&bytes)).unwrap();
        let b = read_message(OneByte(Cursor::new(&bytes))).unwrap();
        prop_same(&v, &a)?;
        prop_same(&v, &b)?;
        check_agreement(&bytes)?;
    }

    /// (b) ... and on random bytes.
    #[test]
    fn reader_agrees_on_random(bytes in vec(any::<u8>(), 0..512)) {
        check_agreement(&bytes)?;
    }

    /// (b) ... and on bytes made mostly of discriminants and zeros.
    #[test]
    fn reader_agrees_on_xbf_ish(bytes in arb_xbf_ish_bytes()) {
        check_agreement(&bytes)?;
    }

    /// (b) ... and on damaged messages.
    #[test]
    fn reader_agrees_on_damaged((bytes, at, b) in arb_message_and_edit()) {
        let i = at.index(bytes.len());
        let mut flipped = bytes.clone();
        flipped[i] ^= b | 1;
        check_agreement(&flipped)?;
        let mut inserted = bytes.clone();
        inserted.insert(at.index(bytes.len() + 1), b);
        check_agreement(&inserted)?;
        let mut deleted = bytes.clone();
        deleted.remove(i);
        check_agreement(&deleted)?;
        check_agreement(&bytes[..i])?;
    }

    /// (c) Random bytes never make any decoder panic.
    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..512), ty in arb_metadata()) {
        decode_everything(&bytes, &ty);
    }

    /// (c) ... nor do bytes that look like XBF.
    #[test]
    fn xbf_ish_bytes_never_panic(bytes in arb_xbf_ish_bytes(), ty in arb_metadata()) {
        decode_everything(&bytes, &ty);
        // Random bytes behind a valid metadata prefix reach the value decoder.
        if let Ok(meta) = encode_metadata(&ty) {
            decode_everything(&[meta, bytes].concat(), &ty);
        }
    }

    /// (d) Damaged messages never panic; every proper prefix of a valid
    /// message is `truncated`; one byte more is `trailing-bytes` at the
    /// message's length.
    #[test]
    fn mutations((ty, v) in arb_typed_value(), at in any::<prop::sample::Index>(), b in any::<u8>()) {
        let bytes = encode_message(&v).unwrap();
        let n = bytes.len();

        let i = at.index(n);
        let mut flipped = bytes.clone();
        flipped[i] ^= b | 1;
        decode_everything(&flipped, &ty);
        let mut inserted = bytes.clone();
        inserted.insert(at.index(n + 1), b);
        decode_everything(&inserted, &ty);
        let mut deleted = bytes.clone();
        deleted.remove(i);
        decode_everything(&deleted, &ty);

        // Every proper prefix.
        for cut in 0..n {
            let prefix = &bytes[..cut];
            let e = decode_message(prefix).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::Truncated, "cut at {}: {}", cut, e);
            prop_assert!(e.offset().unwrap() <= cut as u64, "cut at {}: {}", cut, e);
            let e = read_message(prefix).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::Truncated, "stream, cut at {}: {}", cut, e);
            prop_assert!(e.offset().unwrap() <= cut as u64, "stream, cut at {}: {}", cut, e);
        }

        let mut longer = bytes.clone();
        longer.push(b);
        for e in [decode_message(&longer).unwrap_err(), read_message(&longer[..]).unwrap_err(), read_message(OneByte(&longer[..])).unwrap_err()] {
            prop_assert_eq!(e.kind(), ErrorKind::TrailingBytes, "{}", e);
            prop_assert_eq!(e.offset(), Some(n as u64), "{}", e);
            prop_assert_eq!(e.path_string(), "", "{}", e);
        }
    }

    /// (e) Data-only values round-trip against the type the reader holds.
    #[test]
    fn value_round_trip((ty, v) in arb_typed_value()) {
        let bytes = encode_value(&v);
        let back = DecodeOptions::default().decode_value(Version::V1, &ty, &bytes).unwrap();
        prop_same(&v, &back)?;
        prop_assert_eq!(encode_value(&back), bytes.clone());
        // Data-only bytes with one more byte are trailing-bytes at the end.
        let mut longer = bytes.clone();
        longer.push(0);
        let e = DecodeOptions::default().decode_value(Version::V1, &ty, &longer).unwrap_err();
        prop_assert_eq!(e.kind(), ErrorKind::TrailingBytes);
        prop_assert_eq!(e.offset(), Some(bytes.len() as u64));
    }

    /// Metadata alone round-trips, and every proper prefix of it is truncated.
    #[test]
    fn metadata_round_trip(ty in arb_metadata()) {
        let bytes = encode_metadata(&ty).unwrap();
        let opts = DecodeOptions::default();
        let (back, used) = opts.decode_metadata(Version::V1, &bytes).unwrap();
        prop_assert_eq!(&back, &ty);
        prop_assert_eq!(used, bytes.len());
        prop_assert_eq!(back.depth(), ty.depth());
        for cut in 0..bytes.len() {
            let e = opts.decode_metadata(Version::V1, &bytes[..cut]).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::Truncated, "cut at {}: {}", cut, e);
        }
        // The depth limit: exactly the type's depth passes, one less fails.
        let d = ty.depth();
        prop_assert!(DecodeOptions::default().max_depth(d).unwrap().decode_metadata(Version::V1, &bytes).is_ok());
        if d > 0 {
            let e = DecodeOptions::default().max_depth(d - 1).unwrap().decode_metadata(Version::V1, &bytes).unwrap_err();
            prop_assert_eq!(e.kind(), ErrorKind::TooDeep);
        }
    }
}

/// The helper itself: NaNs compare by payload, zeros by sign.
#[test]
fn same_compares_floats_bitwise() {
    let nan1 = Value::F64(f64::from_bits(0x7ff8_0000_0000_0001));
    let nan2 = Value::F64(f64::from_bits(0x7ff8_0000_0000_0002));
    assert!(same(&nan1, &nan1.clone()));
    assert!(!same(&nan1, &nan2));
    assert!(!same(&Value::F32(0.0), &Value::F32(-0.0)));
    assert!(!same(&Value::U8(1), &Value::I8(1)));
    let v = |x: f32| Value::Vec(VecValue::new(PrimitiveType::F32.into(), vec![Value::F32(x)]).unwrap());
    assert!(same(&v(f32::NAN), &v(f32::NAN)));
    assert!(!same(&v(0.0), &v(-0.0)));
}

/// NaN payloads survive a round trip through every decoder.
#[test]
fn nan_payloads_survive() {
    for bits in [0x7fc0_0001u32, 0xffc0_1234, 0x7f80_0001, 0xff80_0002] {
        let v = Value::F32(f32::from_bits(bits));
        let bytes = encode_message(&v).unwrap();
        for back in [decode_message(&bytes).unwrap(), read_message(OneByte(&bytes[..])).unwrap()] {
            match back {
                Value::F32(x) => assert_eq!(x.to_bits(), bits),
                other => panic!("{other:?}"),
            }
        }
    }
    for bits in [0x7ff8_0000_0000_0001u64, 0xfff0_0000_dead_beef, 0x7ff0_0000_0000_0001] {
        let v = Value::F64(f64::from_bits(bits));
        let bytes = encode_message(&v).unwrap();
        match decode_message(&bytes).unwrap() {
            Value::F64(x) => assert_eq!(x.to_bits(), bits),
            other => panic!("{other:?}"),
        }
    }
}
