//! Unit tests of `json`, kept apart so that the module reads in one sitting.

use super::*;

fn round_trip(text: &str) {
    let v = from_json_str(text).unwrap();
    let bytes = crate::encode_message(&v).unwrap();
    let back = crate::decode_message(&bytes).unwrap();
    let out = to_json_string(&back, false).unwrap();
    let a = Json::parse(text).unwrap();
    let b = Json::parse(&out).unwrap();
    assert!(a.same_value(&b), "{text} came back as {out}");
}

#[test]
fn scalars_keep_their_kind_and_digits() {
    for t in [
        "1",
        "1.0",
        "-0.0",
        "1e300",
        "-0",
        "1E-7",
        "123456789012345678901234567890.5",
        "0.1",
        "null",
        "true",
        "\"é\\u0000\"",
        "18446744073709551615",
        "-9223372036854775808",
        "340282366920938463463374607431768211455",
        "-57896044618658097711785492504343953926634992332820282019728792003956564819968",
        "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    ] {
        round_trip(t);
    }
}

#[test]
fn containers_keep_order_nulls_and_missing_keys() {
    round_trip(r#"{"b": 1, "a": [1, 2.5, "x", null, [], {}], "c": {"z": null}}"#);
    round_trip(r#"[{"a": 1, "b": 2}, {"a": 3}, {"b": 4}, {"a": null, "c": true}, {}]"#);
    round_trip(r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}]"#);
    round_trip(r#"[[1, 2], [], [3], null, [null, 4]]"#);
    round_trip(r#"[1, -1, 18446744073709551615]"#);
    round_trip(r#"[]"#);
    round_trip(r#"[[], [[]], [[[]]]]"#);
}

#[test]
fn same_value_tells_kinds_and_orders_apart() {
    let p = |t: &str| Json::parse(t).unwrap();
    assert!(p("1e300").same_value(&p("1e+300")));
    assert!(p("-0").same_value(&p("-0.0")));
    assert!(!p("-0").same_value(&p("0")));
    assert!(!p("1").same_value(&p("1.0")));
    assert!(!p("0.0").same_value(&p("-0.0")));
    assert!(!p(r#"{"a":1,"b":2}"#).same_value(&p(r#"{"b":2,"a":1}"#)));
    assert!(p("18446744073709551616").same_value(&p("18446744073709551616")));
    assert!(!p("18446744073709551616").same_value(&p("18446744073709551617")));
}

#[test]
fn records_become_a_vec_of_struct() {
    let v = from_json_str(r#"[{"x": 1, "y": "a"}, {"x": 2, "y": null}, {"x": 3}]"#).unwrap();
    assert_eq!(
        v.metadata().to_string(),
        "vec<struct Object { x: u64, y: enum \"json.optional\" { absent, present: option<string> } }>"
    );
    let mixed = from_json_str(r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}]"#).unwrap();
    assert_eq!(mixed.metadata().to_string(), "vec<any>");
}

#[test]
fn what_json_cannot_hold_is_refused() {
    let too_wide = "1157920892373161954235709850086879078532699846656405640394575840079131296399351";
    assert!(from_json_str(too_wide).unwrap_err().to_string().contains("256 bits"));
    assert!(from_json_str("1e400").is_err());
    assert!(from_json_str("[1,").is_err());
    assert!(to_json(&Value::F64(f64::NAN)).is_err());
    assert!(from_json_str(r#"{"a": 1, "a": 2}"#).unwrap_err().to_string().contains("twice"));
    let deep = "[".repeat(200) + &"]".repeat(200);
    assert!(from_json_str(&deep).is_err());
}

#[test]
fn integers_take_the_narrowest_type_that_holds_them_all() {
    let ty = |t: &str| from_json_str(t).unwrap().metadata().to_string();
    assert_eq!(ty("[1, 18446744073709551615]"), "vec<u64>");
    assert_eq!(ty("[-1, 9223372036854775807]"), "vec<i64>");
    assert_eq!(ty("[-1, 9223372036854775808]"), "vec<i128>");
    assert_eq!(ty("[-9223372036854775808]"), "vec<i64>");
    assert_eq!(ty("[-9223372036854775809]"), "vec<i128>");
    assert_eq!(ty("[340282366920938463463374607431768211456]"), "vec<u256>");
    let huge = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    assert_eq!(ty(&format!("[-1, {huge}]")), "vec<any>");
}

#[test]
fn depth_is_refused_before_it_is_reached_at_any_depth() {
    for open in ["[", "{\"a\":"] {
        for n in [129, 100_000, 1_000_000] {
            let text = open.repeat(n);
            let e = from_json_str(&text).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::TooDeep, "{n} levels of {open}");
            // The 129th opening is where it stops.
            assert_eq!(e.offset(), Some(128 * open.len() as u64));
        }
    }
    let ok = "[".repeat(128) + &"]".repeat(128);
    assert!(from_json_str(&ok).is_ok());
    let opts = JsonOptions::default().max_depth(3).unwrap();
    assert!(opts.convert_str("[[[]]]").is_ok());
    assert_eq!(opts.convert_str("[[[[]]]]").unwrap_err().kind(), ErrorKind::TooDeep);
    assert_eq!(opts.convert_str(r#"{"a":{"b":{"c":{}}}}"#).unwrap_err().kind(), ErrorKind::TooDeep);
}

#[test]
fn any_values_count_their_levels_as_readers_do() {
    // A vec<any> whose value holds 126 more levels is read back; 127 more
    // would open level 129 in the reader (SPEC.md §16.1), so it is refused.
    for (n, ok) in [(126, true), (127, false)] {
        let text = format!("[1,{}{}]", "[".repeat(n), "]".repeat(n));
        match from_json_str(&text) {
            Ok(v) => {
                assert!(ok, "{n}");
                crate::decode_message(&crate::encode_message(&v).unwrap()).unwrap();
            }
            Err(e) => assert!(!ok && e.kind() == ErrorKind::TooDeep, "{n}: {e}"),
        }
    }
}

#[test]
fn deepest_allowed_document_fits_a_small_stack() {
    // Inference, conversion and dropping recurse once per level: the
    // ceiling must fit a test thread's 2 MiB stack, debug build included.
    let n = MAX_DEPTH_CEILING;
    for text in ["[".repeat(n) + &"]".repeat(n), "{\"a\":".repeat(n - 1) + "[1.5]" + &"}".repeat(n - 1)] {
        let opts = JsonOptions::default().max_depth(MAX_DEPTH_CEILING).unwrap();
        let depth = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || opts.convert_str(&text).map(|v| v.metadata().depth()))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(depth.unwrap(), n);
    }
}

#[test]
fn the_parser_follows_rfc_8259() {
    for bad in [
        "",
        " ",
        "[1,]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "{1:1}",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "+1",
        "0x1",
        "[1]x",
        "\"\\x\"",
        "\"a",
        "\"\u{1}\"",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud800\\u0041\"",
        "tru",
        "nul",
        "NaN",
        "Infinity",
        "[",
        "{",
        "{\"a\":",
        "\u{feff}1",
    ] {
        assert!(Json::parse(bad).is_err(), "{bad:?} was accepted");
    }
    let p = |t: &str| Json::parse(t).unwrap();
    assert_eq!(
        p(" \t\r\n[ 1 , -2.5e+3 ,true,false,null] "),
        Json::Array(vec![
            Json::Number("1".into()),
            Json::Number("-2.5e+3".into()),
            Json::Bool(true),
            Json::Bool(false),
            Json::Null
        ])
    );
    assert_eq!(p(r#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00é""#), Json::String("a\"\\/\u{8}\u{c}\n\r\té😀é".into()));
    assert_eq!(
        p(r#"{"a":{},"b":[]}"#),
        Json::Object(vec![("a".into(), Json::Object(vec![])), ("b".into(), Json::Array(vec![]))])
    );
    assert_eq!(JsonOptions::default().parse_slice(b"[\"\xff\"]").unwrap_err().kind(), ErrorKind::InvalidUtf8);
}

#[test]
fn duplicate_keys_are_refused_by_name_in_objects_of_any_size() {
    let e = from_json_str(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::DuplicateKey, Some(17)));
    assert!(e.to_string().contains("\"a\""));
    let mut many: Vec<String> = (0..1000).map(|i| format!("\"k{i}\":{i}")).collect();
    assert!(from_json_str(&format!("{{{}}}", many.join(","))).is_ok());
    many.push("\"k500\":0".into());
    let e = from_json_str(&format!("{{{}}}", many.join(","))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateKey);
    assert!(e.to_string().contains("k500"));
}

#[test]
fn no_number_changes_silently() {
    for tiny in ["1E-400", "-1E-400", "0.0000001e-330", "[1.0, 1e-999]"] {
        let e = from_json_str(tiny).unwrap_err();
        assert!(e.to_string().contains("too small"), "{tiny}: {e}");
    }
    let e = from_json_str("[1e400]").unwrap_err();
    assert!(e.to_string().contains("1e400"), "{e}");
    // Zeros stay zeros, and the smallest subnormal is kept.
    for t in ["0e-400", "-0.0e999", "0.000", "5e-324"] {
        round_trip(t);
    }
    // The integer -0 is the float -0.0: its sign is kept.
    let v = from_json_str("-0").unwrap();
    assert_eq!(v.metadata().to_string(), "f64");
    assert_eq!(to_json_string(&v, false).unwrap(), "-0.0");
    assert_eq!(to_json_string(&from_json_str("[0, 1]").unwrap(), false).unwrap(), "[0,1]");
    assert_eq!(to_json_string(&from_json_str("[-0, 1.5]").unwrap(), false).unwrap(), "[-0.0,1.5]");
    assert!(to_json_string(&Value::F64(f64::INFINITY), false).unwrap_err().to_string().contains("inf"));
    assert!(to_json_string(&Value::F64(f64::NAN), false).unwrap_err().to_string().contains("NaN"));
}

#[test]
fn null_and_values_of_different_kinds_are_any() {
    let ty = |t: &str| from_json_str(t).unwrap().metadata().to_string();
    assert_eq!(ty("[null, 1, \"a\"]"), "vec<any>");
    assert_eq!(ty("[1, null, \"a\"]"), "vec<any>");
    assert_eq!(ty("[1, \"a\", null]"), "vec<any>");
    assert_eq!(ty("[1, null]"), "vec<option<u64>>");
    assert_eq!(ty(r#"[{"a":1,"b":2},{"b":3,"a":4},null]"#), "vec<any>");
    round_trip("[1, null, \"a\", 1.5, [], {}]");
}

#[test]
fn sparse_records_share_one_struct() {
    let ty = |t: &str| from_json_str(t).unwrap().metadata().to_string();
    let opt = |t: &str| format!("enum \"json.optional\" {{ absent, present: {t} }}");
    assert_eq!(
        ty(r#"[{"a":1},{"b":1},{"a":1,"b":1}]"#),
        format!("vec<struct Object {{ a: {}, b: {} }}>", opt("u64"), opt("u64"))
    );
    assert_eq!(
        ty(r#"[{"b":1},{"a":1},{"a":1,"b":1}]"#),
        format!("vec<struct Object {{ a: {}, b: {} }}>", opt("u64"), opt("u64"))
    );
    round_trip(r#"[{"a":1},{"b":1},{"a":1,"b":1}]"#);
    round_trip(r#"[{"x":1,"z":2},{"x":1,"y":"s","z":3},{"w":null}]"#);
    // Opposite orders cannot share a struct; the values keep theirs.
    assert_eq!(ty(r#"[{"a":1,"b":2},{"b":3,"a":4}]"#), "vec<any>");
}

#[test]
fn keys_that_are_data_become_a_map() {
    let objects: Vec<String> = (0..4000).map(|i| format!("{{\"id{i}\": {i}}}")).collect();
    let text = format!("[{}]", objects.join(","));
    let v = from_json_str(&text).unwrap();
    assert_eq!(v.metadata().to_string(), "vec<map<string, u64>>");
    round_trip(&text);
    // 20 days of 5 dates each: 100 distinct keys, 5 per object.
    let days: Vec<String> = (0..20)
        .map(|d| {
            let day: Vec<String> = (0..5).map(|h| format!("\"{d:02}:{h}\": {{\"n\": {h}, \"v\": 1.5}}")).collect();
            format!("{{{}}}", day.join(","))
        })
        .collect();
    let text = format!("[{}]", days.join(","));
    assert_eq!(
        from_json_str(&text).unwrap().metadata().to_string(),
        "vec<map<string, struct Object { n: u64, v: f64 }>>"
    );
    round_trip(&text);
    // One object, however many keys, is a struct: its keys are names.
    let one: Vec<String> = (0..1000).map(|i| format!("\"k{i}\": {i}")).collect();
    let v = from_json_str(&format!("{{{}}}", one.join(","))).unwrap();
    assert!(v.metadata().to_string().starts_with("struct Object"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
    /// The parser accepts exactly what serde_json accepts (RFC 8259),
    /// but for repeated keys, which it refuses by design, and never
    /// panics; converting what it accepts never panics either.
    #[test]
    fn the_parser_agrees_with_serde_json(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "[", "]", "{", "}", ",", ":", "\"", "\\", "\"a\"", "\"b\"", "u", "d800", "00e9", "0", "1", "-", ".", "e",
            "E", "+", "true", "false", "null", "tru", " ", "\n", "\t", "é", "\u{1}", "9", "/", "x",
        ]), 0..24)
    ) {
        let text: String = tokens.concat();
        let ours = Json::parse(&text);
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        if let Err(e) = &theirs {
            // serde_json reads numbers as f64 even to check them.
            proptest::prop_assume!(!e.to_string().contains("out of range"));
        }
        match &ours {
            Err(e) if e.kind() == ErrorKind::DuplicateKey => proptest::prop_assert!(theirs.is_ok()),
            _ => proptest::prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?}: {:?}", text, ours),
        }
        if let Ok(doc) = ours {
            let _ = JsonOptions::default().convert(&doc);
        }
    }
}

#[test]
fn text_that_is_not_json_is_invalid_json_at_its_byte() {
    // What the grammar refuses is `invalid-json`, at the first byte it cannot
    // take; a value that parses but does not fit (`1e400`) stays `type-mismatch`.
    for (text, at) in [
        ("[1,", 3),
        ("[1 2]", 3),
        ("{\"a\" 1}", 5),
        ("\"abc", 0),
        ("[\"\\x\"]", 3),
        ("[\"\\udc00\"]", 2),
        ("tru", 0),
        ("[01]", 2),
    ] {
        let e = from_json_str(text).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidJson, Some(at)), "{text}");
    }
    assert_eq!(from_json_str("1e400").unwrap_err().kind(), ErrorKind::TypeMismatch);
}

#[test]
fn a_depth_past_the_ceiling_is_invalid_options() {
    for levels in [MAX_DEPTH_CEILING + 1, usize::MAX] {
        assert_eq!(JsonOptions::default().max_depth(levels).unwrap_err().kind(), ErrorKind::InvalidOptions);
    }
    assert!(JsonOptions::default().max_depth(0).is_ok());
}
