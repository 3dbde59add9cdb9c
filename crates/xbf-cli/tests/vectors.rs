//! Runs the built `xbf vectors check` on the repository's vector files and on
//! files made wrong on purpose.

use std::path::{Path, PathBuf};
use std::process::Command;

fn xbf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xbf"))
}

fn vector_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("vectors/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vector files in {}", dir.display());
    files
}

#[test]
fn every_vector_file_passes() {
    let out = xbf().args(["vectors", "check"]).args(vector_files()).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    let last = stdout.lines().last().unwrap();
    let passed: usize = last.split(' ').next().unwrap().parse().unwrap();
    assert!(passed >= 250, "{last}");
    assert!(last.contains(" passed, 0 failed"), "{last}");
    assert!(!last.contains("versions other than"), "every vector file is of a known version: {last}");
}

#[test]
fn every_file_vector_passes() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/files/files.json");
    let out = xbf().args(["vectors", "check"]).arg(&file).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed") && !last.starts_with("0 "), "{last}");
    // The batch decoder's `f HEX` answers (where scripts/vector_errors.py takes the file vectors'
    // offsets and paths from) are the errors the checker compares.
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let lines: String = vectors.iter().map(|v| format!("f {}\n", v["hex"].as_str().unwrap())).collect();
    let out = decode_lines(&lines);
    let answers: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), vectors.len());
    for (v, a) in vectors.iter().zip(&answers) {
        for (key, prefix) in [("error", ""), ("end_error", "end_")] {
            let e = &a[key];
            if v.get(key).is_none() {
                assert!(e.is_null(), "{}: {a}", v["name"]);
                continue;
            }
            let got = (&e["kind"], &e["offset"], &e["path"]);
            let want = (&v[key], &v[format!("{prefix}offset")], &v[format!("{prefix}path")]);
            assert_eq!(got, want, "{}", v["name"]);
        }
    }
}

#[test]
fn a_wrong_vector_is_reported_and_fails_the_run() {
    let dir = std::env::temp_dir().join(format!("xbf-vectors-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wrong.json");
    std::fs::write(
        &file,
        r#"[
{"name": "right", "type": "u16", "value": 1024, "hex": "020004"},
{"name": "wrong value", "type": "u16", "value": 7, "hex": "020004"},
{"name": "wrong kind", "hex": "0002", "error": "truncated", "offset": 1, "path": ""},
{"name": "wrong path", "hex": "0002", "error": "invalid-bool", "offset": 1, "path": "x"},
{"name": "later version", "version": 9, "type": "u8", "value": 1, "hex": "0101"}
]"#,
    )
    .unwrap();
    let out = xbf().args(["vectors", "check"]).arg(&file).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("wrong value: decoded 1024, expected 7"), "{stdout}");
    assert!(stdout.contains("wrong kind: failed with at byte 1: invalid-bool"), "{stdout}");
    assert!(stdout.contains("wrong path: failed with at byte 1: invalid-bool"), "{stdout}");
    assert!(stdout.contains("expected at byte 1, in x: invalid-bool"), "{stdout}");
    assert!(stdout.trim_end().ends_with("1 passed, 3 failed, 1 skipped (versions other than [1, 2])"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_input_is_a_failure_not_a_panic() {
    let out = xbf().args(["vectors", "check", "/nonexistent/v.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().is_empty());
    let out = xbf().args(["vectors", "check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "usage error");
}

/// Numbers as f64 bits and every NaN as "NaN": the vectors' values as
/// `xbf vectors decode` writes them, minus its NaN payloads and `1.0` for `1`.
fn loose(j: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match j {
        J::Number(n) => J::String(format!("{:x}", n.as_f64().unwrap().to_bits())),
        J::String(s) if s.starts_with("NaN") => J::String("NaN".into()),
        J::Array(a) => J::Array(a.iter().map(loose).collect()),
        J::Object(o) => J::Object(o.iter().map(|(k, v)| (k.clone(), loose(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_batch_decoder_answers_every_vector_in_its_form() {
    let mut lines = String::new();
    let mut vectors = Vec::new();
    for path in vector_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit();
        let all: Vec<serde_json::Value> = serde::Deserialize::deserialize(&mut de).unwrap();
        for v in all {
            let mode = if v.get("stream").is_some() { "s" } else { "m" };
            lines.push_str(&format!("{mode} {}\n", v["hex"].as_str().unwrap()));
            vectors.push(v);
        }
    }
    let out = decode_lines(&lines);
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut de = serde_json::Deserializer::from_str(l);
            de.disable_recursion_limit();
            serde::Deserialize::deserialize(&mut de).unwrap()
        })
        .collect();
    assert_eq!(answers.len(), vectors.len());
    for (v, a) in vectors.iter().zip(&answers) {
        let name = &v["name"];
        let kind = |e: &serde_json::Value| e.get("kind").cloned();
        if v.get("stream").is_some() {
            assert_eq!(loose(&a["records"]), loose(&v["records"]), "{name}");
            assert_eq!(a["error"].get("kind"), v.get("error"), "{name}");
            if v.get("error").is_some() {
                assert_eq!((&a["error"]["offset"], &a["error"]["path"]), (&v["offset"], &v["path"]), "{name}");
            }
        } else if let Some(e) = v.get("error") {
            assert_eq!(kind(&a["error"]).as_ref(), Some(e), "{name}: {a}");
            // The batch decoder's error is the vector's: kind, offset and path (SPEC 17.2).
            assert_eq!((&a["error"]["offset"], &a["error"]["path"]), (&v["offset"], &v["path"]), "{name}: {a}");
        } else {
            assert_eq!(loose(&a["type"]), loose(&v["type"]), "{name}");
            assert_eq!(loose(&a["value"]), loose(&v["value"]), "{name}");
        }
    }
    // NaNs keep their bits; a line in another form is a usage error (exit 2).
    let out = decode_lines("m 0d0100807f\nm 0e010000000000f0ff\n");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"type\":\"f32\",\"value\":\"NaN:7f800001\"}\n{\"type\":\"f64\",\"value\":\"NaN:fff0000000000001\"}\n"
    );
    assert_eq!(decode_lines("x 00\n").status.code(), Some(2));
    assert_eq!(decode_lines("m 0g\n").status.code(), Some(2));
}

fn decode_lines(input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = xbf()
        .args(["vectors", "decode"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}
