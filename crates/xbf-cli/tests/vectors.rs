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
    let out = xbf().args(["vectors", "check"]).arg(file).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed") && !last.starts_with("0 "), "{last}");
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
{"name": "wrong kind", "hex": "0002", "error": "truncated"},
{"name": "later version", "version": 9, "type": "u8", "value": 1, "hex": "0101"}
]"#,
    )
    .unwrap();
    let out = xbf().args(["vectors", "check"]).arg(&file).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("wrong value: decoded 1024, expected 7"), "{stdout}");
    assert!(stdout.contains("wrong kind: failed with at byte 1: invalid-bool"), "{stdout}");
    assert!(stdout.trim_end().ends_with("1 passed, 2 failed, 1 skipped (versions other than [1, 2])"), "{stdout}");
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
