//! Hostile and edge-case inputs: huge claims, deep nesting, the zero-size
//! element budget, the field-count limit, and the exact offsets, paths and
//! display forms of errors that SPEC.md (section 8) prescribes.
//!
//! Allocation bounds are checked separately, in `tests/allocation.rs`, whose
//! test binary has a counting global allocator.

use std::io::{self, BufReader, Cursor, Read};

use xbf::{
    decode_message, read_message, DecodeOptions, EncodeOptions, Error, ErrorKind, Layout, Metadata, PrimitiveType,
    StructMetadata, StructValue, Value, VecValue, Version,
};

// ---------------------------------------------------------------- helpers

// This file tests the v1 format: every encoder here writes v1.

fn encode_message(v: &Value) -> xbf::Result<Vec<u8>> {
    EncodeOptions::v1().encode_message(v)
}

fn encode_metadata(ty: &Metadata) -> xbf::Result<Vec<u8>> {
    EncodeOptions::v1().encode_metadata(ty)
}

fn write_message<W: io::Write>(w: W, v: &Value) -> xbf::Result<()> {
    EncodeOptions::v1().write_message(w, v)
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(s.len() % 2 == 0, "odd hex {s}");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// A length-prefixed string.
fn lp(s: &str) -> Vec<u8> {
    [&(s.len() as u64).to_le_bytes()[..], s.as_bytes()].concat()
}

/// Metadata bytes of a struct, from its fields' metadata bytes.
fn struct_meta(name: &str, fields: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0x12];
    out.extend(lp(name));
    out.extend((fields.len() as u16).to_le_bytes());
    for (n, m) in fields {
        out.extend(lp(n));
        out.extend(m);
    }
    out
}

fn u64le(n: u64) -> [u8; 8] {
    n.to_le_bytes()
}

/// The paper's Point message (SPEC.md 5.4).
const POINT: &str = "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb";

/// Checks kind, offset and path, and that the display form is exactly
/// `expected`, optionally followed by `: detail`.
#[track_caller]
fn assert_error(e: &Error, expected: &str) {
    let shown = e.to_string();
    assert!(
        shown == expected || shown.strip_prefix(expected).is_some_and(|rest| rest.starts_with(": ")),
        "expected `{expected}`, got `{shown}`"
    );
}

#[track_caller]
fn assert_fails(result: xbf::Result<Value>, kind: ErrorKind, offset: u64, path: &str) -> Error {
    let e = result.expect_err("decoding should fail");
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!(e.offset(), Some(offset), "{e}");
    assert_eq!(e.path_string(), path, "{e}");
    e
}

/// Decodes from a slice and from two kinds of readers; all must fail the
/// same way (for inputs where SPEC.md 8.4 leaves the stream no latitude).
#[track_caller]
fn assert_all_fail(bytes: &[u8], expected: &str) {
    assert_error(&decode_message(bytes).unwrap_err(), expected);
    assert_error(&read_message(bytes).unwrap_err(), expected);
    assert_error(&read_message(BufReader::new(OneByte(bytes))).unwrap_err(), expected);
}

struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

// ---------------------------------------------------------------- huge claims

#[test]
fn vec_of_u64_claiming_2_pow_62_elements() {
    let mut msg = vec![0x11, 0x04];
    msg.extend(u64le(1 << 62));
    msg.extend([0xab; 20]);
    assert_eq!(msg.len(), 30);
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 2, "");
    assert_eq!(read_message(&msg[..]).unwrap_err().kind(), ErrorKind::Truncated);
    assert_eq!(read_message(OneByte(&msg[..])).unwrap_err().kind(), ErrorKind::Truncated);
}

#[test]
fn string_claiming_2_pow_63_bytes() {
    let mut msg = vec![0x10];
    msg.extend(u64le(1 << 63));
    msg.extend(b"hello, world, hello!");
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 1, "");
    // The stream decoder knows the length only when the bytes run out; the
    // claim is still reported at its prefix.
    assert_fails(read_message(&msg[..]), ErrorKind::Truncated, 1, "");
    assert_fails(read_message(OneByte(&msg[..])), ErrorKind::Truncated, 1, "");
}

#[test]
fn vec_of_u8_with_count_u64_max() {
    let mut msg = vec![0x11, 0x01];
    msg.extend(u64le(u64::MAX));
    msg.extend([1, 2, 3]);
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 2, "");
    assert_eq!(read_message(&msg[..]).unwrap_err().kind(), ErrorKind::Truncated);
}

#[test]
fn other_huge_claims() {
    // bytes of length u64::MAX
    let mut msg = vec![0x0f];
    msg.extend(u64le(u64::MAX));
    msg.push(0);
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 1, "");
    assert_fails(read_message(&msg[..]), ErrorKind::Truncated, 1, "");
    // a struct name of 2^63 bytes
    let mut msg = vec![0x12];
    msg.extend(u64le(1 << 63));
    msg.extend(b"Point");
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 1, "");
    assert_fails(read_message(&msg[..]), ErrorKind::Truncated, 1, "");
    // a field name of 2^63 bytes: the struct's own path
    let mut msg = struct_meta("S", &[]);
    msg[10] = 1;
    msg.extend(u64le(1 << 63));
    msg.extend([b'a'; 9]);
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 12, "S");
    assert_fails(read_message(&msg[..]), ErrorKind::Truncated, 12, "S");
    // vec<u64> whose count times 8 overflows u64
    let mut msg = vec![0x11, 0x04];
    msg.extend(u64le(1 << 61));
    msg.extend([0; 8]);
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 2, "");
    // vec<vec<u8>>: an inner count claiming more than remains, at element 1
    let mut msg = vec![0x11, 0x11, 0x01];
    msg.extend(u64le(2));
    msg.extend(u64le(1));
    msg.push(7);
    msg.extend(u64le(1 << 40));
    msg.extend([0; 8]);
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 20, "[1]");
    // vec<string> where the strings' minimum size (8) does not fit
    let mut msg = vec![0x11, 0x10];
    msg.extend(u64le(3));
    msg.extend(u64le(0));
    msg.extend(u64le(0));
    assert_fails(decode_message(&msg), ErrorKind::Truncated, 2, "");
}

// ---------------------------------------------------------------- depth

/// The path of SPEC.md's 129-vec example: `[]` 128 times.
fn vecs_path() -> String {
    "[]".repeat(128)
}

#[test]
fn a_million_nested_vecs_stop_at_level_129() {
    let mut msg = vec![0x11; 1_000_000];
    msg.push(0x00);
    let expected = format!("at byte 128, in {}: too-deep", vecs_path());
    assert_fails(decode_message(&msg), ErrorKind::TooDeep, 128, &vecs_path());
    assert_all_fail(&msg, &expected);
    assert_error(&read_message(BufReader::new(Cursor::new(&msg))).unwrap_err(), &expected);
    assert_error(&DecodeOptions::default().decode_metadata(Version::V1, &msg).unwrap_err(), &expected);
}

#[test]
fn a_million_nested_structs_stop_at_level_129() {
    // struct S { f: struct S { f: ... } }, 21 bytes a level.
    let level = [&[0x12][..], &lp("S"), &1u16.to_le_bytes(), &lp("f")].concat();
    assert_eq!(level.len(), 21);
    let mut msg = level.repeat(1_000_000);
    msg.push(0x01);
    let path = format!("S{}", ".f".repeat(128));
    let e = assert_fails(decode_message(&msg), ErrorKind::TooDeep, 128 * 21, &path);
    assert_error(&e, &format!("at byte 2688, in {path}: too-deep"));
    assert_fails(read_message(&msg[..]), ErrorKind::TooDeep, 2688, &path);
    assert_fails(read_message(BufReader::new(OneByte(&msg[..]))), ErrorKind::TooDeep, 2688, &path);

    // The same with empty names: the path is 128 dots.
    let level = [&[0x12][..], &lp(""), &1u16.to_le_bytes(), &lp("")].concat();
    let mut msg = level.repeat(1_000_000);
    msg.push(0x01);
    assert_fails(decode_message(&msg), ErrorKind::TooDeep, 128 * 19, &".".repeat(128));

    // Alternating vec and struct levels: vec<struct S { f: vec<struct S ...
    let level = [&[0x11, 0x12][..], &lp("S"), &1u16.to_le_bytes(), &lp("f")].concat();
    let mut msg = level.repeat(500_000);
    msg.push(0x01);
    let path = "[].f".repeat(64);
    assert_fails(decode_message(&msg), ErrorKind::TooDeep, 64 * 22, &path);
    assert_fails(read_message(&msg[..]), ErrorKind::TooDeep, 64 * 22, &path);
}

/// `n` nested vecs of bool, with an outer count of 0 (for 0, a bool false).
fn nested_vecs(n: usize) -> Vec<u8> {
    if n == 0 {
        return vec![0x00, 0x00];
    }
    let mut msg = vec![0x11; n];
    msg.push(0x00);
    msg.extend(u64le(0));
    msg
}

/// `n` nested one-field structs around a u8, then the value 7.
fn nested_structs(n: usize) -> Vec<u8> {
    let level = [&[0x12][..], &lp("S"), &1u16.to_le_bytes(), &lp("f")].concat();
    let mut msg = level.repeat(n);
    msg.extend([0x01, 0x07]);
    msg
}

#[test]
fn depth_128_is_accepted_and_129_refused() {
    let v = decode_message(&nested_vecs(128)).unwrap();
    assert_eq!(v.metadata().depth(), 128);
    assert_eq!(read_message(&nested_vecs(128)[..]).unwrap().metadata().depth(), 128);
    assert_fails(decode_message(&nested_vecs(129)), ErrorKind::TooDeep, 128, &vecs_path());
    assert_fails(read_message(&nested_vecs(129)[..]), ErrorKind::TooDeep, 128, &vecs_path());

    let v = decode_message(&nested_structs(128)).unwrap();
    assert_eq!(v.metadata().depth(), 128);
    let mut inner = &v;
    for _ in 0..128 {
        inner = inner.get("f").unwrap();
    }
    assert_eq!(inner, &Value::U8(7));
    assert_eq!(encode_message(&v).unwrap(), nested_structs(128));
    assert_fails(decode_message(&nested_structs(129)), ErrorKind::TooDeep, 128 * 21, &format!("S{}", ".f".repeat(128)));

    // A 128-level vec value with elements at every level.
    let mut msg = vec![0x11; 128];
    msg.push(0x01);
    for _ in 0..128 {
        msg.extend(u64le(1));
    }
    msg.push(42);
    let v = decode_message(&msg).unwrap();
    assert_eq!(encode_message(&v).unwrap(), msg);
    assert_eq!(read_message(OneByte(&msg[..])).unwrap(), v);
}

#[test]
fn max_depth_moves_the_limit() {
    for n in [0usize, 1, 2, 5, 127, 129, 200] {
        let opts = DecodeOptions::default().max_depth(n).unwrap();
        assert!(opts.decode_message(&nested_vecs(n)).is_ok(), "depth {n}");
        assert!(opts.read_message(&nested_vecs(n)[..]).is_ok(), "depth {n}");
        assert!(opts.decode_message(&nested_structs(n)).is_ok(), "depth {n}");
        assert_fails(opts.decode_message(&nested_vecs(n + 1)), ErrorKind::TooDeep, n as u64, &"[]".repeat(n));
        assert_fails(opts.read_message(&nested_vecs(n + 1)[..]), ErrorKind::TooDeep, n as u64, &"[]".repeat(n));
        let e = opts.decode_message(&nested_structs(n + 1)).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::TooDeep, Some(21 * n as u64)), "{e}");
    }
    // With a limit of 0 only primitives decode.
    let opts = DecodeOptions::default().max_depth(0).unwrap();
    assert!(opts.decode_message(&[0x01, 0x05]).is_ok());
    assert_fails(opts.decode_message(&unhex("120100000000000000450000")), ErrorKind::TooDeep, 0, "");
    assert_eq!(DecodeOptions::default().get_max_depth(), 128);
}

#[test]
fn max_depth_past_the_ceiling_is_refused_when_built() {
    let e = DecodeOptions::default().max_depth(xbf::options::MAX_DEPTH_CEILING + 1).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidOptions, None));
    assert!(DecodeOptions::default().max_depth(usize::MAX).is_err());
    assert_eq!(DecodeOptions::default().max_depth(xbf::options::MAX_DEPTH_CEILING).unwrap().get_max_depth(), 256);
}

/// The deepest message the options allow decodes on a 4 MiB stack in a
/// debug build, in rows and in columns: `MAX_DEPTH_CEILING` rests on this.
/// (The columnar reader takes the most, about 8 KiB a level in debug: 224
/// levels fit in 2 MiB, 256 do not.)
#[test]
fn deepest_allowed_message_fits_a_small_stack() {
    let n = xbf::options::MAX_DEPTH_CEILING;
    std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(move || {
            let opts = DecodeOptions::default().max_depth(n).unwrap();
            // A vec at every level, each holding one element, around a u8.
            let mut msg = vec![0x11; n];
            msg.push(0x01);
            for _ in 0..n {
                msg.extend(u64le(1));
            }
            msg.push(42);
            let v = opts.decode_message(&msg).unwrap();
            assert_eq!(opts.read_message(&msg[..]).unwrap(), v);
            let rows = EncodeOptions::v2().layout(Layout::Rows).encode_message(&v).unwrap();
            assert_eq!(opts.decode_message(&rows).unwrap(), v);
            let cols = EncodeOptions::v2().layout(Layout::Columnar).encode_message(&v).unwrap();
            assert_eq!(opts.decode_message(&cols).unwrap(), v);
            let s = opts.decode_message(&nested_structs(n)).unwrap();
            assert_eq!(opts.decode_message(&EncodeOptions::v1().encode_message(&s).unwrap()).unwrap(), s);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn decode_value_refuses_types_deeper_than_the_limit() {
    let v = decode_message(&nested_vecs(10)).unwrap();
    let ty = v.metadata();
    let data = EncodeOptions::v1().encode_value(&v).unwrap();
    assert!(DecodeOptions::default().max_depth(10).unwrap().decode_value(Version::V1, &ty, &data).is_ok());
    let e = DecodeOptions::default().max_depth(9).unwrap().decode_value(Version::V1, &ty, &data).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooDeep);
}

// ---------------------------------------------------------------- decoded-memory budget

/// `vec<struct E {}>` with `count` elements: E's metadata takes 12 bytes, so
/// the count is at offset 13.
fn vec_of_empty(count: u64) -> Vec<u8> {
    let mut msg = vec![0x11];
    msg.extend(struct_meta("E", &[]));
    msg.extend(u64le(count));
    msg
}

/// The most zero-size values the default budget (2^30 bytes, 48 a value)
/// allows in one message: 22,369,621.
const MOST: u64 = (1 << 30) / 48;

/// A budget of `values` zero-size values.
fn budget(values: u64) -> DecodeOptions {
    DecodeOptions::default().max_decoded_bytes(values * xbf::options::DECODED_VALUE_BYTES)
}

#[test]
fn zero_size_elements_are_budgeted() {
    assert_eq!(DecodeOptions::default().get_max_decoded_bytes(), 1 << 30);
    for count in [1 << 62, u64::MAX, MOST + 1, 1 << 32] {
        let e = assert_fails(decode_message(&vec_of_empty(count)), ErrorKind::TooLarge, 13, "");
        assert_error(&e, "at byte 13: too-large");
        assert_fails(read_message(&vec_of_empty(count)[..]), ErrorKind::TooLarge, 13, "");
    }
    // What the old fixed budget of 65,536 refused reads now.
    let v = decode_message(&vec_of_empty(65_537)).unwrap();
    assert_eq!(v.as_vec().unwrap().len(), 65_537);
    assert_eq!(encode_message(&v).unwrap(), vec_of_empty(65_537));

    let small = budget(65_536);
    let v = small.decode_message(&vec_of_empty(65_536)).unwrap();
    assert_eq!(v.as_vec().unwrap().len(), 65_536);
    assert_eq!(small.read_message(&vec_of_empty(65_536)[..]).unwrap().as_vec().unwrap().len(), 65_536);
    assert_fails(small.decode_message(&vec_of_empty(65_537)), ErrorKind::TooLarge, 13, "");
    assert!(small.decode_message(&vec_of_empty(0)).unwrap().as_vec().unwrap().is_empty());
    // A budget that is not a multiple of 48 rounds down to whole values.
    let odd = DecodeOptions::default().max_decoded_bytes(10 * 48 + 47);
    assert!(odd.decode_message(&vec_of_empty(10)).is_ok());
    assert_fails(odd.decode_message(&vec_of_empty(11)), ErrorKind::TooLarge, 13, "");

    // A struct whose fields are all zero-size is zero-size too, and weighs
    // 3 values here.
    let mut msg = vec![0x11];
    msg.extend(struct_meta("Z", &[("e", struct_meta("E", &[])), ("f", struct_meta("F", &[]))]));
    let at = msg.len() as u64;
    msg.extend(u64le(21_846));
    assert!(small.decode_message(&msg[..]).is_err());
    assert_fails(small.decode_message(&msg), ErrorKind::TooLarge, at, "");
    let fits = [&msg[..at as usize], &u64le(21_845)].concat();
    assert!(small.decode_message(&fits).is_ok());
}

#[test]
fn the_budget_is_per_message() {
    // struct R { a: vec<E>, b: vec<E> }
    let e = [&[0x11][..], &struct_meta("E", &[])].concat();
    let meta = struct_meta("R", &[("a", e.clone()), ("b", e)]);
    let msg = |a: u64, b: u64| [&meta[..], &u64le(a), &u64le(b)].concat();
    let b_at = meta.len() as u64 + 8;
    let small = budget(65_536);

    let err = assert_fails(small.decode_message(&msg(40_000, 40_000)), ErrorKind::TooLarge, b_at, "R.b");
    assert_error(&err, &format!("at byte {b_at}, in R.b: too-large"));
    assert_fails(small.read_message(&msg(40_000, 40_000)[..]), ErrorKind::TooLarge, b_at, "R.b");
    assert!(small.decode_message(&msg(32_768, 32_768)).is_ok());
    assert!(small.decode_message(&msg(65_536, 0)).is_ok());
    assert_fails(small.decode_message(&msg(32_768, 32_769)), ErrorKind::TooLarge, b_at, "R.b");
    assert_fails(small.decode_message(&msg(1, 65_536)), ErrorKind::TooLarge, b_at, "R.b");
    assert_fails(decode_message(&msg(MOST / 2, MOST / 2 + 2)), ErrorKind::TooLarge, b_at, "R.b");

    // The budget is absolute: it does not grow with the input read, so
    // records with a unit field each are charged one value a record.
    let rows = 70_000u64;
    let unit_field = struct_meta("Row", &[("a", vec![0x01]), ("b", struct_meta("", &[]))]);
    let mut many = [&[0x11][..], &unit_field[..], &u64le(rows)].concat();
    let first = many.len() as u64;
    many.extend(std::iter::repeat(7u8).take(rows as usize));
    assert_eq!(decode_message(&many).unwrap().as_vec().unwrap().len(), rows as usize);
    // Record 65,536's unit field is the 65,537th, where it stands (after its u8).
    assert_fails(small.decode_message(&many), ErrorKind::TooLarge, first + 65_537, "[65536].b");

    let none = DecodeOptions::default().max_decoded_bytes(0);
    assert!(none.decode_message(&msg(0, 0)).is_ok());
    assert_fails(none.decode_message(&msg(0, 1)), ErrorKind::TooLarge, b_at, "R.b");

    // Each call starts with the full budget again.
    for _ in 0..3 {
        assert!(small.decode_message(&msg(65_536, 0)).is_ok());
    }

    // Spread over the elements of an outer vec: vec<vec<E>>.
    let mut msg = vec![0x11, 0x11];
    msg.extend(struct_meta("E", &[]));
    msg.extend(u64le(3));
    msg.extend(u64le(30_000));
    msg.extend(u64le(30_000));
    let third = msg.len() as u64;
    msg.extend(u64le(30_000));
    assert_fails(small.decode_message(&msg), ErrorKind::TooLarge, third, "[2]");
}

// ---------------------------------------------------------------- field count

fn wide_struct(fields: usize) -> StructMetadata {
    StructMetadata::new("Wide", (0..fields).map(|i| (format!("f{i}"), Metadata::from(PrimitiveType::U8)))).unwrap()
}

#[test]
fn more_than_65535_fields_do_not_encode() {
    let ty = wide_struct(65_536);
    assert_eq!(ty.len(), 65_536);
    let meta = Metadata::from(ty.clone());
    let e = encode_metadata(&meta).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge);
    assert_eq!(e.offset(), None);

    let v = Value::from(StructValue::new(ty, vec![Value::U8(1); 65_536]).unwrap());
    assert_eq!(encode_message(&v).unwrap_err().kind(), ErrorKind::TooLarge);
    // Nothing at all is written: in particular no count modulo 65,536.
    let mut out = Vec::new();
    assert_eq!(write_message(&mut out, &v).unwrap_err().kind(), ErrorKind::TooLarge);
    assert!(out.is_empty(), "{} bytes written", out.len());

    // Deep inside another type, too.
    let outer =
        StructMetadata::new("Outer", [("ok", Metadata::from(PrimitiveType::U8)), ("w", Metadata::vec(meta))]).unwrap();
    assert_eq!(encode_metadata(&outer.into()).unwrap_err().kind(), ErrorKind::TooLarge);
}

#[test]
fn exactly_65535_fields_encode_and_decode() {
    let ty = wide_struct(65_535);
    let values: Vec<Value> = (0..65_535u32).map(|i| Value::U8(i as u8)).collect();
    let v = Value::from(StructValue::new(ty, values).unwrap());
    let bytes = encode_message(&v).unwrap();
    assert_eq!(&bytes[1..15], &[&lp("Wide")[..], &[0xff, 0xff]].concat()[..]);
    let back = decode_message(&bytes).unwrap();
    assert_eq!(back, v);
    assert_eq!(back.get("f65534"), Some(&Value::U8(65_534u32 as u8)));
    assert_eq!(read_message(BufReader::new(&bytes[..])).unwrap(), v);
}

// ---------------------------------------------------------------- duplicate fields

#[test]
fn duplicate_field_names() {
    // SPEC.md 8.5: struct S { a: u8, a: u8 }
    let msg = unhex("12 0100000000000000 53 0200 0100000000000000 61 01 0100000000000000 61 01");
    assert_all_fail(&msg, "at byte 22, in S: duplicate-field");
    assert_all_fail(&[&msg[..], &[1, 2]].concat(), "at byte 22, in S: duplicate-field");

    // Names are compared byte for byte: "é" precomposed and decomposed differ,
    // and so do "a" and "A".
    let ok = struct_meta("S", &[("\u{e9}", vec![1]), ("e\u{301}", vec![1]), ("a", vec![1]), ("A", vec![1])]);
    assert!(decode_message(&[&ok[..], &[1, 2, 3, 4]].concat()).is_ok());

    // In a nested struct: the nested struct's own path, at the second name.
    let inner = struct_meta("In", &[("x", vec![1]), ("y", vec![1]), ("x", vec![2])]);
    let msg = struct_meta("Out", &[("a", vec![1]), ("in", inner)]);
    let second_x = msg.len() as u64 - 10;
    assert_all_fail(&msg, &format!("at byte {second_x}, in Out.in: duplicate-field"));

    // In the element type of a root vec: path `[]`.
    let msg = [&[0x11][..], &struct_meta("", &[("", vec![0]), ("", vec![0])])].concat();
    assert_all_fail(&msg, "at byte 21, in []: duplicate-field");

    // The same name in different structs, or a field named like its struct, is fine.
    let msg = struct_meta("a", &[("a", struct_meta("a", &[("a", vec![1])]))]);
    assert_eq!(decode_message(&[&msg[..], &[9]].concat()).unwrap().to_string(), "a { a: a { a: 9 } }");

    // Constructors refuse duplicates, without an offset.
    let e = StructMetadata::new("S", [("a", PrimitiveType::U8), ("a", PrimitiveType::U8)]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::DuplicateField, None));
    let e = StructValue::from_fields("S", [("a", Value::U8(1)), ("a", Value::Bool(true))]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateField);
}

// ---------------------------------------------------------------- offsets and paths

/// Every row of the table in SPEC.md 8.5, from a slice and from readers.
#[test]
fn spec_error_examples() {
    let point = unhex(POINT);
    let rows: Vec<(Vec<u8>, String)> = vec![
        (vec![], "at byte 0: truncated".into()),
        (unhex("13"), "at byte 0: unknown-discriminant".into()),
        (unhex("02 00"), "at byte 1: truncated".into()),
        (unhex("02 00 04 00"), "at byte 3: trailing-bytes".into()),
        (unhex("00 02"), "at byte 1: invalid-bool".into()),
        (unhex("10 05 00 00 00 00 00 00 00 68 65"), "at byte 1: truncated".into()),
        (unhex("10 02 00 00 00 00 00 00 00 c3 28"), "at byte 1: invalid-utf8".into()),
        (point[..44].to_vec(), "at byte 44, in Point.last: truncated".into()),
        (unhex("11 10 01 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 68 69"), "at byte 10, in [0]: truncated".into()),
        (unhex("11 02 01 00 00 00 00 00 00 00 2a"), "at byte 2: truncated".into()),
        (unhex("11 03 03 00 00 00 00 00 00 00 01 02 03 04 05 06 07 08"), "at byte 2: truncated".into()),
        (unhex("11 11 13"), "at byte 2, in [][]: unknown-discriminant".into()),
        (
            unhex("12 01 00 00 00 00 00 00 00 53 02 00 01 00 00 00 00 00 00 00 61 01 01 00 00 00 00 00 00 00 61 01"),
            "at byte 22, in S: duplicate-field".into(),
        ),
        (
            [&[0x11][..], &unhex("120100000000000000450000"), &unhex("56 55 55 01 00 00 00 00")].concat(),
            "at byte 13: too-large".into(),
        ),
        (nested_vecs(129), format!("at byte 128, in {}: too-deep", vecs_path())),
    ];
    for (bytes, expected) in &rows {
        assert_error(&decode_message(bytes).unwrap_err(), expected);
        let streamed = read_message(&bytes[..]).unwrap_err();
        let one = read_message(OneByte(&bytes[..])).unwrap_err();
        let slice_kind = decode_message(bytes).unwrap_err().kind();
        for e in [streamed, one] {
            if slice_kind == ErrorKind::Truncated {
                // SPEC.md 8.4: on a truncated input a stream may differ.
                assert_eq!(e.kind(), ErrorKind::Truncated, "{expected}: {e}");
            } else {
                assert_error(&e, expected);
            }
        }
    }
    // Every proper prefix of the paper's Point ends in `truncated`.
    for cut in 0..point.len() {
        assert_eq!(decode_message(&point[..cut]).unwrap_err().kind(), ErrorKind::Truncated, "cut {cut}");
    }
    assert_all_fail(&[&point[..], &[0]].concat(), "at byte 45: trailing-bytes");
    assert_all_fail(&point[..43], "at byte 43, in Point.first: truncated");
}

#[test]
fn bad_bool_inside_a_vec_of_structs() {
    // vec<struct R { x: u8, ok: bool }> = [{1, true}, {2, true}, {3, 2}]
    let mut msg = vec![0x11];
    msg.extend(struct_meta("R", &[("x", vec![0x01]), ("ok", vec![0x00])]));
    assert_eq!(msg.len(), 34);
    msg.extend(u64le(3));
    msg.extend([1, 1, 2, 1, 3, 2]);
    assert_all_fail(&msg, "at byte 47, in [2].ok: invalid-bool");

    // The same vec as the field of a root struct.
    let mut msg = struct_meta(
        "Batch",
        &[("rows", [&[0x11][..], &struct_meta("R", &[("x", vec![1]), ("ok", vec![0])])].concat())],
    );
    let count_at = msg.len();
    msg.extend(u64le(2));
    msg.extend([1, 0, 2, 0xff]);
    assert_all_fail(&msg, &format!("at byte {}, in Batch.rows[1].ok: invalid-bool", count_at + 11));
}

#[test]
fn truncated_deep_inside_a_value() {
    // struct Order { id: u32, items: vec<struct Item { name: string, price: u64 }> }
    let item = StructMetadata::new("Item", [("name", PrimitiveType::String), ("price", PrimitiveType::U64)]).unwrap();
    let items: Vec<Value> = (0..3u64)
        .map(|i| {
            StructValue::new(item.clone(), vec![Value::from(format!("item-{i:05}")), Value::U64(i)]).unwrap().into()
        })
        .collect();
    let order = StructValue::from_fields(
        "Order",
        [("id", Value::U32(7)), ("items", VecValue::new(item.clone().into(), items).unwrap().into())],
    )
    .unwrap();
    let bytes = encode_message(&order.into()).unwrap();
    let n = bytes.len() as u64;
    // item 2's price is the last 8 bytes; cutting there leaves the count
    // plausible (3 × 16 bytes fit), so the decoder gets as far as the price.
    assert_all_fail(&bytes[..bytes.len() - 8], &format!("at byte {}, in Order.items[2].price: truncated", n - 8));
    assert_all_fail(&bytes[..bytes.len() - 3], &format!("at byte {}, in Order.items[2].price: truncated", n - 8));
    // The name of item 1, cut in its bytes, is reported at its length prefix.
    let item_len = 8 + 10 + 8;
    let name1 = n - 2 * item_len;
    let e = decode_message(&bytes[..name1 as usize + 12]).unwrap_err();
    // Too little is left for 3 items of 16 bytes: the count's claim fails first.
    assert_eq!((e.kind(), e.path_string().as_str()), (ErrorKind::Truncated, "Order.items"), "{e}");
    let e = read_message(&bytes[..name1 as usize + 12]).unwrap_err();
    assert_error(&e, &format!("at byte {name1}, in Order.items[1].name: truncated"));
    // An error in the count prefix itself has the vec's path, no index.
    let count_at = n - 3 * item_len - 8;
    assert_all_fail(&bytes[..count_at as usize + 3], &format!("at byte {count_at}, in Order.items: truncated"));
    // Bad UTF-8 in a string of item 1.
    let mut bad = bytes.clone();
    bad[name1 as usize + 8] = 0xc0;
    assert_all_fail(&bad, &format!("at byte {name1}, in Order.items[1].name: invalid-utf8"));
}

#[test]
fn errors_inside_metadata() {
    // struct Outer { a: u8, inner: struct Inner { x: u8, y: <0x13> } }
    let inner = struct_meta("Inner", &[("x", vec![0x01]), ("y", vec![0x13])]);
    let msg = struct_meta("Outer", &[("a", vec![0x01]), ("inner", inner)]);
    assert_eq!(msg.len(), 75);
    assert_all_fail(&msg, "at byte 74, in Outer.inner.y: unknown-discriminant");

    // `[].name`: metadata of a field of the element type of a root vec.
    let msg = [&[0x11][..], &struct_meta("T", &[("name", vec![0xff])])].concat();
    assert_all_fail(&msg, "at byte 25, in [].name: unknown-discriminant");
    // `[][]`, SPEC.md 8.3
    assert_all_fail(&unhex("11 11 ff"), "at byte 2, in [][]: unknown-discriminant");
    // A vec field's element type: `S.v[]`.
    let msg = struct_meta("S", &[("v", vec![0x11, 0x20])]);
    assert_all_fail(&msg, "at byte 22, in S.v[]: unknown-discriminant");

    // A root struct with an empty name: the path starts with `.`.
    let msg = struct_meta("", &[("x", vec![0x13])]);
    assert_all_fail(&msg, "at byte 20, in .x: unknown-discriminant");
    // Names are inserted as they are, unquoted.
    let msg = struct_meta("Größe", &[("a b.c", vec![0x13])]);
    assert_all_fail(&msg, &format!("at byte {}, in Größe.a b.c: unknown-discriminant", msg.len() - 1));

    // An error in the root struct's name itself has an empty path.
    assert_all_fail(&unhex("12 02 00 00 00 00 00 00 00 c3 28 00 00"), "at byte 1: invalid-utf8");
    assert_all_fail(&unhex("12 05 00 00 00 00 00 00 00 50 6f 69"), "at byte 1: truncated");
    // The field count and field names are the struct's own path.
    assert_all_fail(&unhex("12 01 00 00 00 00 00 00 00 53 02"), "at byte 10, in S: truncated");
    let msg = unhex("12 01 00 00 00 00 00 00 00 53 01 00 01 00 00 00 00 00 00 00 ff 01 00");
    assert_all_fail(&msg, "at byte 12, in S: invalid-utf8");
    // A nested struct's name: the path of the field that holds it.
    let msg = [&struct_meta("S", &[("in", vec![0x12])])[..], &unhex("01 00 00 00 00 00 00 00 ff 00 00")].concat();
    assert_all_fail(&msg, "at byte 23, in S.in: invalid-utf8");
    // Missing type after a field name.
    let msg = unhex("12 01 00 00 00 00 00 00 00 50 01 00 01 00 00 00 00 00 00 00 61");
    assert_all_fail(&msg, "at byte 21, in P.a: truncated");
}

#[test]
fn errors_inside_root_vecs() {
    // The fourth element of a root vec<string> is not UTF-8: `[3]`.
    let mut msg = vec![0x11, 0x10];
    msg.extend(u64le(4));
    for s in ["a", "b", "c"] {
        msg.extend(lp(s));
    }
    let fourth = msg.len();
    msg.extend(u64le(2));
    msg.extend([0xed, 0xa0]);
    assert_all_fail(&msg, &format!("at byte {fourth}, in [3]: invalid-utf8"));
    // vec<vec<bool>>: the bad bool at [1][0].
    let mut msg = vec![0x11, 0x11, 0x00];
    msg.extend(u64le(2));
    msg.extend(u64le(1));
    msg.push(1);
    msg.extend(u64le(1));
    msg.push(2);
    assert_all_fail(&msg, &format!("at byte {}, in [1][0]: invalid-bool", msg.len() - 1));
}

// ---------------------------------------------------------------- io

/// Hands out `ok` bytes of `data`, then fails with a non-EOF error.
struct FailAfter<'a> {
    data: &'a [u8],
    ok: usize,
}

impl Read for FailAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ok == 0 {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "the wire broke"));
        }
        let n = buf.len().min(self.ok).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.ok -= n;
        Ok(n)
    }
}

#[test]
fn reader_errors_are_io() {
    let point = unhex(POINT);
    for ok in 0..point.len() {
        let e = read_message(FailAfter { data: &point, ok }).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io, "failing after {ok}: {e}");
        assert!(e.to_string().contains("the wire broke"), "{e}");
        let off = e.offset().expect("io errors while decoding have an offset");
        assert!(off <= ok as u64, "failing after {ok}: {e}");
    }
    // The reader fails when asked whether anything follows the message.
    let e = read_message(FailAfter { data: &point, ok: point.len() }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    assert_eq!(e.offset(), Some(45), "{e}");
    // At the very start.
    let e = read_message(FailAfter { data: &point, ok: 0 }).unwrap_err();
    assert_error(&e, "at byte 0: io");
    // Inside a long string, read with read_to_end-style loops.
    let mut msg = vec![0x10];
    msg.extend(u64le(100_000));
    msg.extend(vec![b'x'; 100_000]);
    let e = read_message(FailAfter { data: &msg, ok: 50_000 }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    // An UnexpectedEof from the reader is `truncated`, not `io`.
    struct Eof;
    impl Read for Eof {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::ErrorKind::UnexpectedEof.into())
        }
    }
    assert_eq!(read_message(Eof).unwrap_err().kind(), ErrorKind::Truncated);
}

/// Returns `Interrupted` before every real read: the decoder must retry.
struct Interrupting<R> {
    inner: R,
    flip: bool,
}

impl<R: Read> Read for Interrupting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.flip = !self.flip;
        if self.flip {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(3);
        self.inner.read(&mut buf[..n])
    }
}

#[test]
fn interrupted_reads_are_retried() {
    let mut msg = vec![0x11, 0x10];
    msg.extend(u64le(2));
    msg.extend(lp("héllo"));
    msg.extend(lp(""));
    let v = read_message(Interrupting { inner: &msg[..], flip: false }).unwrap();
    assert_eq!(v, decode_message(&msg).unwrap());
    let e = read_message(Interrupting { inner: &[&msg[..], &[0]].concat()[..], flip: false }).unwrap_err();
    assert_error(&e, &format!("at byte {}: trailing-bytes", msg.len()));
}

// ---------------------------------------------------------------- big valid messages

#[test]
fn ten_megabytes_through_a_bufreader() {
    // vec<u64> of 1.25M elements: 10 MB of values.
    let n = 1_250_000u64;
    let mut msg = vec![0x11, 0x04];
    msg.extend(u64le(n));
    for i in 0..n {
        msg.extend(i.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    }
    assert!(msg.len() > 10_000_000);
    let v = read_message(BufReader::new(Cursor::new(&msg))).unwrap();
    let items = v.as_vec().unwrap().items();
    assert_eq!(items.len() as u64, n);
    assert_eq!(items[12_345], Value::U64(12_345u64.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    assert_eq!(encode_message(&v).unwrap(), msg);
    assert_eq!(decode_message(&msg).unwrap(), v);

    // A 10 MB string and 10 MB of bytes.
    let text = "xbf ✓ ".repeat(1_250_000);
    let s = Value::String(text.clone());
    let bytes = encode_message(&s).unwrap();
    assert!(bytes.len() > 10_000_000);
    assert_eq!(read_message(BufReader::new(&bytes[..])).unwrap().as_str(), Some(text.as_str()));
    let b = Value::Bytes(vec![0xa5; 10_000_000]);
    let bytes = encode_message(&b).unwrap();
    assert_eq!(read_message(BufReader::new(&bytes[..])).unwrap(), b);
    assert_eq!(read_message(&bytes[..]).unwrap(), b);
}
