//! XBF 2: exact bytes of each construct, round trips, and every error kind
//! that XBF 2 adds, from slices and from readers.

use std::sync::Arc;

use xbf::{
    DecodeOptions, EncodeOptions, EnumMetadata, EnumValue, ErrorKind, MapValue, Metadata, OptionValue,
    PrimitiveType as P, SchemaRegistry, StructMetadata, StructValue, TupleValue, Value, VecValue,
};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Encodes, checks the bytes, decodes from a slice and from a reader, and
/// checks the value comes back equal.
fn round_trip(v: &Value, want: &str) {
    let bytes = xbf::encode_message(v).unwrap();
    assert_eq!(bytes, hex(want), "encoding of {v:?}");
    assert_eq!(&xbf::decode_message(&bytes).unwrap(), v);
    assert_eq!(&xbf::read_message(&bytes[..]).unwrap(), v);
}

fn fails(bytes: &str, kind: ErrorKind, offset: u64) -> xbf::Error {
    let bytes = hex(bytes);
    let err = xbf::decode_message(&bytes).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (kind, Some(offset)), "{err}");
    let from_reader = xbf::read_message(&bytes[..]).unwrap_err();
    assert_eq!(from_reader.kind(), kind, "{from_reader}");
    err
}

#[test]
fn paper_examples_in_xbf_2() {
    round_trip(&Value::U16(1024), "c2 00 02 80 08");
    round_trip(&Value::from("hello"), "c2 00 10 05 68656c6c6f");
    let v = VecValue::new(P::U16.into(), vec![42u16.into(), 1024u16.into()]).unwrap();
    round_trip(&v.into(), "c2 00 11 02 02 2a 80 08");
    let p = StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))]).unwrap();
    round_trip(&p.into(), "c2 00 12 05 506f696e74 02 05 6669727374 07 04 6c617374 07 2a fb");
}

#[test]
fn varint_and_zigzag_boundaries() {
    round_trip(&Value::U64(127), "c2 00 04 7f");
    round_trip(&Value::U64(128), "c2 00 04 80 01");
    round_trip(&Value::U64(u64::MAX), "c2 00 04 ffffffffffffffffff 01");
    round_trip(&Value::I64(-1), "c2 00 0a 01");
    round_trip(&Value::I64(1), "c2 00 0a 02");
    round_trip(&Value::I64(i64::MIN), "c2 00 0a ffffffffffffffffff 01");
    round_trip(&Value::I32(-64), "c2 00 09 7f");
    round_trip(&Value::U128(u128::MAX), "c2 00 05 ffffffffffffffffffffffffffffffffffff 03");
}

#[test]
fn new_types_have_exact_bytes() {
    round_trip(&Value::Unit, "c2 00 13");
    round_trip(&Value::Date(-1), "c2 00 1a 01");
    round_trip(&Value::Timestamp(1_000_000), "c2 00 1b 80 89 7a");
    let none = Value::Option(OptionValue::none(P::U8.into()));
    round_trip(&none, "c2 00 14 01 00");
    let some = Value::Option(OptionValue::some(P::U8.into(), Value::U8(7)).unwrap());
    round_trip(&some, "c2 00 14 01 01 07");
    let arr = VecValue::new(P::F32.into(), vec![1.0f32.into(), 2.0f32.into(), 3.0f32.into()]).unwrap();
    round_trip(&Value::Array(arr), "c2 00 15 03 0d 0000803f 00000040 00004040");
    let tup = TupleValue::from_items(vec![Value::U8(1), Value::from("a")]);
    round_trip(&Value::Tuple(tup), "c2 00 16 02 01 10 01 01 61");
    let map = MapValue::new(P::U32.into(), P::String.into(), vec![(Value::U32(1), Value::from("x"))]).unwrap();
    round_trip(&Value::Map(map), "c2 00 17 03 10 01 01 01 78");
    let shape =
        EnumMetadata::new("Shape", [("Empty", Metadata::UNIT), ("Circle", P::F64.into())]).map(Arc::new).unwrap();
    let circle = EnumValue::new(shape.clone(), "Circle", Value::F64(1.5)).unwrap();
    round_trip(
        &Value::Enum(circle),
        "c2 00 18 05 5368617065 02 05 456d707479 13 06 436972636c65 0e 01 000000000000f83f",
    );
    let empty = EnumValue::new(shape, "Empty", Value::Unit).unwrap();
    round_trip(&Value::Enum(empty), "c2 00 18 05 5368617065 02 05 456d707479 13 06 436972636c65 0e 00");
    round_trip(&Value::any(Value::U8(9)), "c2 00 19 01 09");
}

#[test]
fn fixed_width_integers_inside_containers() {
    let v = VecValue::new(P::FixedU32.into(), vec![1u32.into(), 2u32.into()]).unwrap();
    round_trip(&v.into(), "c2 00 11 1d 02 01000000 02000000");
    let s = StructMetadata::new("Id", [("id", P::FixedI64)]).unwrap();
    let v = StructValue::new(s, vec![Value::I64(-2)]).unwrap();
    round_trip(&v.into(), "c2 00 12 02 4964 01 02 6964 22 feffffffffffffff");
}

#[test]
fn v1_refuses_what_it_cannot_hold() {
    let some = Value::Option(OptionValue::some(P::U8.into(), Value::U8(7)).unwrap());
    let err = EncodeOptions::v1().encode_message(&some).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(err.to_string().contains("option<u8>"), "{err}");
    assert_eq!(EncodeOptions::v1().encode_message(&Value::U16(1024)).unwrap(), hex("02 00 04"));
    // A v1 decoder (a v1 message) never accepts XBF 2 discriminants.
    fails("13", ErrorKind::UnknownDiscriminant, 0);
    fails("11 14 01", ErrorKind::UnknownDiscriminant, 1);
}

#[test]
fn xbf_2_error_kinds() {
    fails("c2 00 04 80 00", ErrorKind::InvalidVarint, 3); // overlong
    fails("c2 00 02 80 80 04", ErrorKind::InvalidVarint, 3); // u16 65536
    fails("c2 00 04 ffffffffffffffffff 02", ErrorKind::InvalidVarint, 3); // u64 overflow
    fails("c2 00 04 80", ErrorKind::Truncated, 3);
    fails("c2 00 24", ErrorKind::UnknownDiscriminant, 2);
    fails("c2 10 01 00", ErrorKind::Unsupported, 1);
    fails("c2 06 01 00", ErrorKind::Unsupported, 1); // columns and a stream at once
    fails("c2 08 01 00", ErrorKind::Unsupported, 1); // checksums without a stream
    fails("c3 00 01 00", ErrorKind::Unsupported, 0);
    fails("c2 00 14 01 02", ErrorKind::InvalidBool, 4);
    fails("c2 00 18 01 45 01 01 41 13 01", ErrorKind::UnknownVariant, 9);
    fails("c2 00 18 01 45 02 01 41 13 01 41 13", ErrorKind::DuplicateField, 9);
    let e = fails("c2 00 17 01 01 02 05 07 05 08", ErrorKind::DuplicateKey, 8);
    assert_eq!(e.path_string(), "[1].key");
    let e = fails("c2 00 17 01 00 01 05 02", ErrorKind::InvalidBool, 7);
    assert_eq!(e.path_string(), "[0].value");
    let e = fails("c2 00 17 01 24", ErrorKind::UnknownDiscriminant, 4);
    assert_eq!(e.path_string(), "[].value");
    fails("c2 01 0011223344556677 00", ErrorKind::UnknownSchema, 2);
    fails("c2 00 0f 05 6162", ErrorKind::Truncated, 3);
    fails("c2 00 01 05 06", ErrorKind::TrailingBytes, 4);
    let e = fails("c2 00 12 01 53 01 01 61 14 0d 01", ErrorKind::Truncated, 11);
    assert_eq!(e.to_string(), "at byte 11, in S.a: truncated: needs 4 bytes, 0 remain");
}

#[test]
fn depth_and_zero_size_limits_cover_xbf_2_types() {
    let mut deep = vec![0xc2, 0x00];
    deep.extend(std::iter::repeat(0x14).take(1_000_000));
    deep.push(0x01);
    let err = xbf::decode_message(&deep).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::TooDeep, Some(130)));
    // `any` nests its own metadata below the level it sits at.
    let mut nested_any = vec![0xc2, 0x00];
    nested_any.extend(std::iter::repeat(0x19).take(1_000_000));
    nested_any.push(0x13);
    let err = xbf::decode_message(&nested_any).unwrap_err();
    // The root type `any` (byte 2) is no level; each any value is one.
    assert_eq!((err.kind(), err.offset()), (ErrorKind::TooDeep, Some(131)));
    let mut any_in_vecs = vec![0xc2, 0x00, 0x19];
    for _ in 0..100 {
        any_in_vecs.extend([0x11, 0x19, 0x01]); // vec<any> with one element: another any
    }
    any_in_vecs.extend([0x13]);
    assert_eq!(xbf::decode_message(&any_in_vecs).unwrap_err().kind(), ErrorKind::TooDeep);
    assert_eq!(xbf::read_message(&any_in_vecs[..]).unwrap_err().kind(), ErrorKind::TooDeep);
    // A vec of 2^62 units takes no bytes: the decoded-memory budget refuses it.
    fails("c2 00 11 13 8080808080808080 40", ErrorKind::TooLarge, 4);
    fails("c2 00 15 8080808080808080 40 13", ErrorKind::TooLarge, 13);
    fails("c2 00 11 01 8080808080808080 40", ErrorKind::Truncated, 4);
    // Counts read from a stream are unchecked: nothing may be reserved for
    // them (found by the fuzzer: a tuple count near 2^43 aborted the process).
    fails("c2 00 16 ff ff ff ff ff ff 01", ErrorKind::Truncated, 3);
    fails("c2 00 18 00 de de de de de 01 00 00 ff ff ff ff", ErrorKind::Truncated, 4);
    // The default budget (2^30 bytes, 48 a value) holds 22,369,621 units.
    assert_eq!(xbf::decode_message(&hex("c2 00 11 13 81 80 04")).unwrap().as_vec().unwrap().len(), 65_537);
    fails("c2 00 11 13 d6 aa d5 0a", ErrorKind::TooLarge, 4);
    // A budget of 65,536 values.
    let small = DecodeOptions::default().max_decoded_bytes(65_536 * xbf::options::DECODED_VALUE_BYTES);
    assert_eq!(small.decode_message(&hex("c2 00 11 13 80 80 04")).unwrap().as_vec().unwrap().len(), 65_536);
    let err = small.decode_message(&hex("c2 00 11 13 81 80 04")).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::TooLarge, Some(4)));

    // Zero-size fields of a struct that takes bytes are charged where they
    // stand: with that budget, 256 structs of 256 unit fields and a u8 fit,
    // 257 do not.
    let unit_fields = |n: usize| {
        let mut ty = vec![0x11, 0x12, 0x01, b'S', 0x81, 0x02];
        for i in 0..256 {
            let name = format!("f{i}");
            ty.push(name.len() as u8);
            ty.extend(name.as_bytes());
            ty.push(0x13);
        }
        ty.extend([0x01, b'b', 0x01]);
        let mut msg = vec![0xc2, 0x00];
        msg.extend(ty);
        msg.extend([(n & 0x7f) as u8 | 0x80, (n >> 7) as u8]);
        msg.extend(std::iter::repeat(7u8).take(n));
        msg
    };
    assert_eq!(small.decode_message(&unit_fields(256)).unwrap().as_vec().unwrap().len(), 256);
    assert_eq!(xbf::decode_message(&unit_fields(300)).unwrap().as_vec().unwrap().len(), 300);
    let err = small.decode_message(&unit_fields(257)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TooLarge);
    assert_eq!(err.path_string(), "[256].f0");
}

#[test]
fn schema_by_reference() {
    let p = StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))]).unwrap();
    let v = Value::from(p);
    let msg = EncodeOptions::v2().schema_by_reference(true).encode_message(&v).unwrap();
    assert_eq!(msg.len(), 2 + 8 + 2);
    assert_eq!(&msg[..2], &[0xc2, 0x01]);
    assert_eq!(&msg[2..10], &xbf::fingerprint(&v.metadata()));
    let err = xbf::decode_message(&msg).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::UnknownSchema, Some(2)));
    let mut schemas = SchemaRegistry::new();
    schemas.insert(v.metadata());
    let opts = DecodeOptions::default().schemas(schemas);
    assert_eq!(opts.decode_message(&msg).unwrap(), v);
    assert_eq!(opts.read_message(&msg[..]).unwrap(), v);
    // A registered type of another shape never decodes these bytes as itself.
    let mut other = SchemaRegistry::new();
    other.insert(P::U16.into());
    let err = DecodeOptions::default().schemas(other).decode_message(&msg).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownSchema);
    assert!(EncodeOptions::v1().schema_by_reference(true).encode_message(&v).is_err());
}

#[test]
fn constructors_keep_invariants() {
    let dup = MapValue::new(P::U8.into(), P::U8.into(), vec![(1u8.into(), 2u8.into()), (1u8.into(), 3u8.into())]);
    assert_eq!(dup.unwrap_err().kind(), ErrorKind::DuplicateKey);
    let e = EnumMetadata::new("E", [("A", Metadata::UNIT)]).unwrap();
    assert_eq!(EnumValue::new(e.clone(), "B", Value::Unit).unwrap_err().kind(), ErrorKind::UnknownVariant);
    assert_eq!(EnumValue::new(e, "A", Value::U8(1)).unwrap_err().kind(), ErrorKind::TypeMismatch);
    assert!(OptionValue::some(P::U8.into(), Value::U16(1)).is_err());
    assert!(TupleValue::new(vec![P::U8.into()], vec![]).is_err());
}

#[test]
fn display_of_xbf_2_types_and_values() {
    let shape =
        EnumMetadata::new("Shape", [("Empty", Metadata::UNIT), ("Circle", P::F64.into())]).map(Arc::new).unwrap();
    let ty = Metadata::map(
        P::String.into(),
        Metadata::tuple([Metadata::option(P::Date.into()), Metadata::array(3, P::FixedU32.into()), shape.into()]),
    );
    assert_eq!(ty.to_string(), "map<string, (option<date>, [fixed-u32; 3], enum Shape { Empty, Circle: f64 })>");
    assert_eq!(Value::Date(17_898).to_string(), "2019-01-02");
    assert_eq!(Value::Timestamp(0).to_string(), "1970-01-01T00:00:00Z");
}
