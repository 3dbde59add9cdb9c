//! Hostile inputs must fail without allocating for what they merely claim.
//!
//! This test binary counts every allocation with the `cap` allocator. All
//! tests of a binary share the global allocator and run on parallel threads,
//! so the checks run one after another, each `#[test]` holding one lock.
//!
//! What is measured is `total_allocated()` across the decode: every byte
//! allocated during it, whether freed again or not. That bounds the peak
//! from above, and unlike `max_allocated()` it does not depend on what ran
//! before.

use std::io::{BufReader, Cursor};
use std::sync::Mutex;

use xbf::{decode_message, read_message, DecodeOptions, ErrorKind, Version};

#[global_allocator]
static ALLOC: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

static SEQUENTIAL: Mutex<()> = Mutex::new(());

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// Bytes allocated (freed or not) while `f` runs; `f`'s result is dropped
/// inside the measurement.
fn allocated_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOC.total_allocated();
    let out = f();
    (ALLOC.total_allocated() - before, out)
}

#[track_caller]
fn check(name: &str, limit: usize, kind: ErrorKind, f: impl FnOnce() -> xbf::Result<xbf::Value>) {
    let (bytes, result) = allocated_during(|| f().map(|_| ()));
    let e = result.expect_err(name);
    assert_eq!(e.kind(), kind, "{name}: {e}");
    assert!(bytes < limit, "{name}: allocated {bytes} bytes (limit {limit})");
    eprintln!("{name}: {bytes} bytes allocated, {e}");
}

fn le(n: u64) -> [u8; 8] {
    n.to_le_bytes()
}

/// `struct name {}` metadata.
fn empty_struct(name: &str) -> Vec<u8> {
    [&[0x12][..], &le(name.len() as u64), name.as_bytes(), &[0, 0]].concat()
}

/// The slice decoder checks every length and count against the input before
/// allocating; the stream decoder reads a claimed string only as its bytes
/// arrive.
#[test]
fn hostile_claims_allocate_little() {
    let _guard = SEQUENTIAL.lock().unwrap_or_else(|p| p.into_inner());

    // A ~30-byte vec<u64> claiming 2^62 elements.
    let vec_u64 = [&[0x11, 0x04][..], &le(1 << 62), &[0xab; 20]].concat();
    // A string claiming 2^63 bytes.
    let string = [&[0x10][..], &le(1 << 63), b"twenty bytes follow."].concat();
    // A vec<u8> claiming u64::MAX elements, and bytes of that length.
    let vec_u8 = [&[0x11, 0x01][..], &le(u64::MAX), &[1, 2, 3]].concat();
    let bytes = [&[0x0f][..], &le(u64::MAX), &[1, 2, 3]].concat();
    // A struct name, and a field name, claiming 2^63 bytes.
    let name = [&[0x12][..], &le(1 << 63), b"Point"].concat();
    let field = [&[0x12][..], &le(1), b"S", &[1, 0], &le(1 << 63), &[b'a'; 12]].concat();
    // A struct claiming 65,535 fields in a few bytes.
    let fields = [&[0x12][..], &le(1), b"S", &[0xff, 0xff], &le(1), b"a", &[1]].concat();
    // vec<struct E {}> claiming 2^62 elements, and u64::MAX.
    let zero_size = [&[0x11][..], &empty_struct("E"), &le(1 << 62)].concat();
    let zero_size_max = [&[0x11][..], &empty_struct("E"), &le(u64::MAX)].concat();
    // vec<vec<u64>>: the outer count fits, an inner one claims 2^61.
    let inner = [&[0x11, 0x11, 0x04][..], &le(2), &le(1 << 61), &[0; 8]].concat();
    // A million nested vec discriminants, and a million nested structs.
    let mut deep = vec![0x11; 1_000_000];
    deep.push(0);
    let level = [&[0x12][..], &le(1), b"S", &[1, 0], &le(1), b"f"].concat();
    let mut deep_structs = level.repeat(100_000);
    deep_structs.push(1);

    let limit = 64 * KIB;
    let slice_cases: [(&str, &[u8], ErrorKind); 11] = [
        ("vec<u64> of 2^62", &vec_u64, ErrorKind::Truncated),
        ("string of 2^63 bytes", &string, ErrorKind::Truncated),
        ("vec<u8> of u64::MAX", &vec_u8, ErrorKind::Truncated),
        ("bytes of u64::MAX", &bytes, ErrorKind::Truncated),
        ("struct name of 2^63 bytes", &name, ErrorKind::Truncated),
        ("field name of 2^63 bytes", &field, ErrorKind::Truncated),
        ("struct of 65,535 fields", &fields, ErrorKind::Truncated),
        ("vec<E> of 2^62", &zero_size, ErrorKind::TooLarge),
        ("vec<E> of u64::MAX", &zero_size_max, ErrorKind::TooLarge),
        ("vec<vec<u64>> inner 2^61", &inner, ErrorKind::Truncated),
        ("1,000,000 nested vecs", &deep, ErrorKind::TooDeep),
    ];
    for (name, input, kind) in slice_cases {
        check(&format!("slice: {name}"), limit, kind, || decode_message(input));
        // decode_metadata stops after the metadata (and succeeds where the
        // claim is in the value): only what it allocates matters here.
        let (cost, _) = allocated_during(|| DecodeOptions::default().decode_metadata(Version::V1, input).map(|_| ()));
        assert!(cost < limit, "metadata: {name}: allocated {cost} bytes");
    }
    check("slice: 100,000 nested structs", limit, ErrorKind::TooDeep, || decode_message(&deep_structs));
    check("stream: 100,000 nested structs", limit, ErrorKind::TooDeep, || read_message(&deep_structs[..]));
    check("stream: 1,000,000 nested vecs", limit, ErrorKind::TooDeep, || read_message(&deep[..]));

    // From a stream the claims cannot be checked up front: the bytes of a
    // string are read only as they arrive.
    let stream_cases: [(&str, &[u8], ErrorKind); 6] = [
        ("string of 2^63 bytes", &string, ErrorKind::Truncated),
        ("bytes of u64::MAX", &bytes, ErrorKind::Truncated),
        ("struct name of 2^63 bytes", &name, ErrorKind::Truncated),
        ("field name of 2^63 bytes", &field, ErrorKind::Truncated),
        ("vec<E> of 2^62", &zero_size, ErrorKind::TooLarge),
        ("vec<E> of u64::MAX", &zero_size_max, ErrorKind::TooLarge),
    ];
    for (name, input, kind) in stream_cases {
        check(&format!("stream: {name}"), limit, kind, || read_message(input));
        check(&format!("cursor: {name}"), limit, kind, || read_message(Cursor::new(input)));
        check(&format!("bufreader: {name}"), limit, kind, || read_message(BufReader::new(input)));
    }

    // A vec claim read from a stream: the decoder reserves room for only a
    // few elements before they arrive, not for the claim.
    for (name, input) in [("vec<u64> of 2^62", &vec_u64), ("vec<u8> of u64::MAX", &vec_u8)] {
        check(&format!("stream: {name}"), limit, ErrorKind::Truncated, || read_message(&input[..]));
    }

    // The decoded-memory budget bounds what a tiny message may cost: 65,536
    // empty structs are accepted, at a cost set by the budget, not by
    // the claim.
    let max_ok = [&[0x11][..], &empty_struct("E"), &le(65_536)].concat();
    let (cost, v) = allocated_during(|| decode_message(&max_ok).map(|v| v.as_vec().map(|v| v.len())));
    assert_eq!(v.unwrap(), Some(65_536));
    assert!(cost < 8 * MIB, "65,536 empty structs cost {cost} bytes");
    eprintln!("65,536 empty structs: {cost} bytes allocated");
}

/// Claims that once multiplied, kept here so they stay fixed:
///
/// - Nested claims multiply: every open vec reserves room for its claimed
///   count (all of it from a slice, where the count passed the check against
///   the input; up to 4,096 elements from a stream) before any element is
///   read, and every open struct reserves its claimed field count. With 128
///   levels this reaches hundreds of times the input.
/// - The zero-size budget (now the decoded-memory budget) counted elements, not values: an element may be a
///   struct of many zero-size fields.
///
/// The decoder now reserves room for at most 64 items before they arrive,
/// and the decoded-memory budget counts every value a zero-size element holds.
#[test]
fn nested_claims_stay_proportional_to_the_input() {
    let _guard = SEQUENTIAL.lock().unwrap_or_else(|p| p.into_inner());
    // The allowance: a small multiple of the input (a decoded u8 takes a
    // 48-byte Value) plus a fixed amount (the zero-size values of a 3 MiB
    // decoded-memory budget, where one is set).
    let allowed = |input: usize| 64 * input + 4 * MIB;
    let mut failures = Vec::new();
    let mut measure = |name: &str, input: &[u8], decode: &dyn Fn(&[u8]) -> xbf::Result<xbf::Value>| {
        let (cost, result) = allocated_during(|| decode(input).map(|_| ()));
        let line = format!(
            "{name}: {} input bytes, {cost} bytes allocated ({:.0}x), {:?}",
            input.len(),
            cost as f64 / input.len() as f64,
            result.map_err(|e| e.kind())
        );
        eprintln!("{line}");
        if cost > allowed(input.len()) {
            failures.push(line);
        }
    };

    // 128 nested vecs (depth limit), every count the most that fits:
    // vec<vec<...<u8>>> with r bytes left, each level claims r/8.
    let r = 256 * KIB as u64;
    let mut vecs = vec![0x11u8; 127];
    vecs.push(0x01);
    for _ in 0..127 {
        vecs.extend(le(r / 8));
    }
    vecs.extend(le(r));
    vecs.extend(vec![0u8; r as usize]);
    measure("slice: 128 nested vec claims", &vecs, &|b| decode_message(b));

    // The same from a stream, with a small input (each level used to
    // reserve 4,096 elements: 25 MB from 1 KB).
    let mut small = vec![0x11u8; 127];
    small.push(0x01);
    for _ in 0..128 {
        small.extend(le(1 << 62));
    }
    measure("stream: 128 nested vec claims", &small, &|b| read_message(b));

    // 128 nested structs, each claiming 65,535 fields (which fit: the input
    // holds 65,535 x 9 bytes after them).
    let mut structs = Vec::new();
    for _ in 0..128 {
        structs.extend([&[0x12][..], &le(0), &[0xff, 0xff], &le(0)].concat());
    }
    structs.push(0x01);
    structs.extend(vec![0u8; 65_535 * 9]);
    measure("slice: 128 nested struct field-count claims", &structs, &|b| decode_message(b));

    // One zero-size element can be a whole tree of values: when the budget
    // counted only vec elements, vec<struct Z { "0": E, "1": E, ... }> with
    // 65,536 elements decoded 65,536 x (fields + 1) values from a message of
    // about 21 bytes a field (1,000 fields: 22 KB in, 3 GB out).
    let fields = 40u16;
    let mut tree = vec![0x11, 0x12];
    tree.extend(le(1));
    tree.push(b'Z');
    tree.extend(fields.to_le_bytes());
    for i in 0..fields {
        let name = i.to_string();
        tree.extend(le(name.len() as u64));
        tree.extend(name.as_bytes());
        tree.extend(empty_struct(""));
    }
    tree.extend(le(65_536));
    // With a budget of 65,536 values (3 MiB), refused at the count: the
    // budget charges each element's 41 values.
    let small = DecodeOptions::default().max_decoded_bytes(65_536 * xbf::options::DECODED_VALUE_BYTES);
    measure("slice: 65,536 zero-size structs of 40 fields", &tree, &|b| small.decode_message(b));

    // A valid vec<u8> for comparison: what an honest message of that size costs.
    let honest = [&[0x11, 0x01][..], &le(r), &vec![7u8; r as usize]].concat();
    measure("slice: valid vec<u8> (for comparison)", &honest, &|b| decode_message(b));

    assert!(failures.is_empty(), "over {{64 x input + 4 MiB}}:\n{}", failures.join("\n"));
}

/// Converting JSON allocates a small multiple of the text, whatever its
/// depth or number of distinct keys (issue 18: 4,000 objects of one distinct
/// key each took 1.96 GB; 100,000 levels of `[` overflowed the stack).
#[cfg(feature = "json")]
#[test]
fn json_conversion_stays_proportional_to_the_text() {
    let _guard = SEQUENTIAL.lock().unwrap_or_else(|p| p.into_inner());
    let opts = xbf::EncodeOptions::v2();
    let convert = |text: &str| {
        allocated_during(|| {
            let v = xbf::json::from_json_str(text)?;
            opts.encode_message(&v).map(|b| b.len())
        })
    };

    for (name, text) in
        [("100,000 levels of [", "[".repeat(100_000)), ("100,000 levels of {\"a\":", "{\"a\":".repeat(100_000))]
    {
        let (bytes, result) = convert(&text);
        assert_eq!(result.unwrap_err().kind(), ErrorKind::TooDeep, "{name}");
        assert!(bytes < 64 * KIB, "{name}: allocated {bytes} bytes");
        eprintln!("{name}: {bytes} bytes allocated");
    }

    let one_key_each: Vec<String> = (0..4000).map(|i| format!("{{\"key{i}\":{i}}}")).collect();
    let sparse: Vec<String> = (0..20_000)
        .map(|i| match i % 3 {
            0 => format!("{{\"id\":{i},\"name\":\"n{i}\"}}"),
            1 => format!("{{\"id\":{i},\"score\":{}.5}}", i % 100),
            _ => format!("{{\"name\":\"n{i}\",\"score\":1.5,\"tags\":[\"a\",\"b\"]}}"),
        })
        .collect();
    let many_keys: Vec<String> = (0..80_000).map(|i| format!("\"k{i}\":{i}")).collect();
    let deep = "{\"a\":[".repeat(64) + "1" + &"]}".repeat(64);
    let numbers: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    for (name, text) in [
        ("4,000 objects of one distinct key", format!("[{}]", one_key_each.join(","))),
        ("20,000 sparse records", format!("[{}]", sparse.join(","))),
        ("one object of 80,000 keys", format!("{{{}}}", many_keys.join(","))),
        ("128 levels", deep),
        ("100,000 integers", format!("[{}]", numbers.join(","))),
    ] {
        let (bytes, result) = convert(&text);
        let out = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!(
            "{name}: {} bytes of JSON, {bytes} bytes allocated ({:.1}x), {out} bytes out",
            text.len(),
            bytes as f64 / text.len() as f64
        );
        // Every byte allocated counts, freed or not (the text's tree, the
        // inferred type, the value and the encoder's buffers): about 26 to 66
        // times the text, measured. The quadratic merge took 33,000 times.
        assert!(bytes < 96 * text.len() + MIB, "{name}: allocated {bytes} bytes for {} of JSON", text.len());
    }
}

/// Issue 18, repro 2: what a writer makes reads back with the default
/// budget, and the budget's count (48 bytes a value) is close to what the
/// dynamic decoder really allocates, so that 1 GiB of budget stands for
/// about 1 GiB of memory: `[0, 1, ..., 999999]` is a 14-byte delta column
/// of 1,000,001 values, 48,000,048 bytes of budget.
#[test]
fn a_large_legitimate_expansion_costs_about_its_budget() {
    let _guard = SEQUENTIAL.lock().unwrap_or_else(|p| p.into_inner());
    let items: Vec<xbf::Value> = (0..1_000_000u64).map(xbf::Value::U64).collect();
    let value = xbf::Value::Vec(xbf::VecValue::new(xbf::Metadata::Primitive(xbf::PrimitiveType::U64), items).unwrap());
    let bytes = xbf::EncodeOptions::v2().layout(xbf::Layout::Columnar).encode_message(&value).unwrap();
    assert_eq!(bytes.len(), 14);
    drop(value);
    let (cost, decoded) = allocated_during(|| decode_message(&bytes).map(|v| v.as_vec().map(|v| v.len())));
    assert_eq!(decoded.unwrap(), Some(1_000_000));
    eprintln!("1,000,000 delta-coded u64: {cost} bytes allocated, 48,000,048 charged");
    // The values (48 MB), and on the way the column's differences and
    // integers (16 bytes each, 32 MB; measured 80,000,234 bytes in all):
    // within twice the budget's count.
    assert!(cost <= 2 * 48_000_048, "{cost} bytes allocated");
    let tight = DecodeOptions::default().max_decoded_bytes(48_000_047);
    let (cost, result) = allocated_during(|| tight.decode_message(&bytes).map(|_| ()));
    assert_eq!(result.unwrap_err().kind(), ErrorKind::TooLarge);
    assert!(cost < 64 * KIB, "a refused expansion allocated {cost} bytes");
}
