//! `xbf from-json` / `to-json` on real data, on edge cases, and on broken
//! and hostile input, through files and standard input and output.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn xbf(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xbf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xbf-convert-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn parse(text: &[u8]) -> xbf::json::Json {
    xbf::json::Json::parse(std::str::from_utf8(text).unwrap()).unwrap()
}

/// Whether two JSON texts are the same value: key order, integers versus
/// floats and every digit included.
fn same(a: &[u8], b: &[u8]) -> bool {
    parse(a).same_value(&parse(b))
}

fn round_trip(json: &[u8]) -> Vec<u8> {
    let to = xbf(&["from-json"], json);
    assert!(to.status.success(), "{}", String::from_utf8_lossy(&to.stderr));
    let back = xbf(&["to-json"], &to.stdout);
    assert!(back.status.success(), "{}", String::from_utf8_lossy(&back.stderr));
    assert!(same(&back.stdout, json), "{}", String::from_utf8_lossy(&back.stdout));
    to.stdout
}

#[test]
fn real_records_round_trip_and_are_stored_as_records() {
    // Flights are numbers and short strings: well under half of the JSON.
    // The GeoJSON is mostly long unique strings (URLs, ids), which XBF 2 rows
    // send as they are.
    for (name, at_most_percent) in [("flights-200.json", 45), ("earthquakes-20.json", 65)] {
        let json = std::fs::read(data(name)).unwrap();
        let xbf_bytes = round_trip(&json);
        assert!(
            xbf_bytes.len() * 100 < json.len() * at_most_percent,
            "{name}: {} bytes of XBF for {} of JSON",
            xbf_bytes.len(),
            json.len()
        );
        let value = xbf::decode_message(&xbf_bytes).unwrap();
        let ty = value.metadata().to_string();
        // The records are one vec of struct: field names are sent once.
        assert!(ty.contains("vec<struct Object {"), "{name}: {ty}");
        assert!(!ty.starts_with("vec<any>"), "{name}: {ty}");
    }
}

#[test]
fn edge_cases_round_trip() {
    for json in [
        r#"{"b":1,"a":1.0,"c":-0.0,"d":1e300,"e":"\u0000é😀","f":[],"g":{},"h":null,"i":true}"#,
        r#"[{"a":1,"b":2},{"a":3},{"b":4},{"a":null,"c":[1,2.5,"x"]},{}]"#,
        r#"[{"a":1,"b":2},{"b":3,"a":4}]"#,
        r#"[18446744073709551615,-1,340282366920938463463374607431768211455]"#,
        r#"115792089237316195423570985008687907853269984665640564039457584007913129639935"#,
        r#""just a string""#,
        r#"[[[[]]],[[[1]]]]"#,
    ] {
        round_trip(json.as_bytes());
    }
}

#[test]
fn files_are_written_whole_or_not_at_all() {
    let dir = temp_dir("files");
    let input = dir.join("in.json");
    std::fs::write(&input, br#"{"x":[1,2,3]}"#).unwrap();
    let out = dir.join("out.xbf");
    let o = xbf(&["from-json", input.to_str().unwrap(), "-o", out.to_str().unwrap()], b"");
    assert!(o.status.success());
    let json_out = dir.join("back.json");
    let o = xbf(&["to-json", out.to_str().unwrap(), "-o", json_out.to_str().unwrap(), "--pretty"], b"");
    assert!(o.status.success());
    assert!(same(&std::fs::read(&json_out).unwrap(), br#"{"x":[1,2,3]}"#));
    // A failed conversion leaves the old output in place and no temporary file.
    std::fs::write(&input, b"{broken").unwrap();
    let o = xbf(&["from-json", input.to_str().unwrap(), "-o", out.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(xbf::decode_message(&std::fs::read(&out).unwrap()).is_ok());
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_gives_one_line_and_exit_1() {
    let cases: [(&[&str], &[u8], &str); 6] = [
        (&["from-json"], b"[1,", "invalid JSON"),
        (
            &["from-json"],
            b"1157920892373161954235709850086879078532699846656405640394575840079131296399351",
            "256 bits",
        ),
        (&["to-json"], b"", "at byte 0: truncated"),
        (&["to-json"], &[0xc2, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x7f], "no JSON form"),
        (&["to-json"], &[0xc2, 0x00, 0x11, 0x13, 0xff, 0xff, 0xff, 0xff, 0x0f], "too-large"),
        (&["to-json", "/nonexistent/x.xbf"], b"", "/nonexistent/x.xbf"),
    ];
    for (args, stdin, says) in cases {
        let o = xbf(args, stdin);
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(o.stdout.is_empty());
    }
    // Random bytes never crash to-json.
    let mut seed = 0x2545F4914F6CDD1Du64;
    for _ in 0..300 {
        let len = (seed % 64) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let o = xbf(&["to-json"], &bytes);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{bytes:02x?}");
    }
}

/// Issue 18's repros 1, 3, 4, 5 and 6: deep nesting, many distinct keys,
/// sparse records, one object of many keys, numbers that would change.
#[test]
fn hostile_json_fails_fast_with_one_line_or_converts_compactly() {
    let one_line = |args: &[&str], stdin: &[u8], kind: &str, says: &str| {
        let o = xbf(args, stdin);
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(kind) && err.contains(says), "{args:?}: {err}");
    };
    // 1: 100,000 levels, of arrays and of objects, and 20,000 levels closed.
    one_line(&["from-json"], "[".repeat(100_000).as_bytes(), "at byte 128: too-deep", "128 levels");
    one_line(&["from-json"], "{\"a\":".repeat(100_000).as_bytes(), "at byte 640: too-deep", "128 levels");
    let closed = "[".repeat(20_000) + &"]".repeat(20_000);
    one_line(&["from-json"], closed.as_bytes(), "too-deep", "");
    one_line(&["from-json", "--max-depth", "2"], b"[[[1]]]", "at byte 2: too-deep", "2 levels");
    round_trip(("[".repeat(128) + &"]".repeat(128)).as_bytes());

    // 3: 4,000 objects with one distinct key each are a vec of maps.
    let objects: Vec<String> = (0..4000).map(|i| format!("{{\"key{i}\":{i}}}")).collect();
    let text = format!("[{}]", objects.join(","));
    let bytes = round_trip(text.as_bytes());
    assert!(bytes.len() < text.len() / 2, "{} bytes", bytes.len());
    let schema = xbf(&["schema"], &bytes);
    assert_eq!(String::from_utf8(schema.stdout).unwrap().trim(), "vec<map<string, u64>>");

    // 4: sparse records share one struct.
    let bytes = round_trip(br#"[{"a":1},{"b":1},{"a":1,"b":1}]"#);
    let schema = String::from_utf8(xbf(&["schema"], &bytes).stdout).unwrap();
    assert!(schema.starts_with("vec<struct Object {") && schema.contains("a: enum") && schema.contains("b: enum"));

    // 5: one object of 80,000 keys, and a duplicate at its end.
    let mut keys: Vec<String> = (0..80_000).map(|i| format!("\"k{i}\":{i}")).collect();
    round_trip(format!("{{{}}}", keys.join(",")).as_bytes());
    keys.push("\"k79999\":0".into());
    one_line(&["from-json"], format!("{{{}}}", keys.join(",")).as_bytes(), "duplicate-key", "\"k79999\" appears twice");

    // 6: no number changes silently.
    one_line(&["from-json"], b"[1E-400]", "type-mismatch", "1E-400 is too small");
    one_line(&["from-json"], b"{\"x\": -1E-400}", "type-mismatch", "-1E-400 is too small");
    one_line(&["from-json"], b"1e400", "type-mismatch", "1e400 is outside the range");
    let to = xbf(&["from-json"], b"[-0, 0, -0.0]");
    let back = xbf(&["to-json"], &to.stdout);
    assert_eq!(String::from_utf8(back.stdout).unwrap().trim(), "[-0.0,0,-0.0]");
    one_line(&["from-json"], b"{\"a\": 1, \"a\": 1}", "at byte 9: duplicate-key", "\"a\"");
}
