//! JSONTestSuite's parsing files (vectors/json/JSONTestSuite, MIT) through
//! `xbf from-json` and `xbf to-json`: every `y_` file comes back as the same
//! JSON value, every `n_` file is refused with exit 1 and one line, and
//! every `i_` file (and every `y_` exception) behaves as
//! vectors/json/JSONTestSuite.expect says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use xbf::json::Json;

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/json")
}

fn xbf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xbf")).args(args).output().unwrap()
}

#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Same,
    Becomes(String),
    Refused(Option<String>),
}

/// The expectations file: `NAME OUTCOME [# why]` a line.
fn expectations() -> BTreeMap<String, Expect> {
    let text = std::fs::read_to_string(suite().join("JSONTestSuite.expect")).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.split(" #").next().unwrap().trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, rest) = line.split_once(char::is_whitespace).unwrap_or_else(|| panic!("no outcome: {line}"));
        let rest = rest.trim();
        let expect = match rest.split_once(char::is_whitespace).map_or((rest, ""), |(a, b)| (a, b.trim())) {
            ("same", "") => Expect::Same,
            ("becomes", json) if !json.is_empty() => Expect::Becomes(json.to_owned()),
            ("refused", "") => Expect::Refused(None),
            ("refused", word) => Expect::Refused(Some(word.to_owned())),
            _ => panic!("unknown outcome: {line}"),
        };
        assert!(out.insert(name.to_owned(), expect).is_none(), "{name} is listed twice");
    }
    out
}

/// What happened to one file, or why that is not what was expected.
fn check(path: &Path, expect: &Expect) -> Result<(), String> {
    let file = path.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.xbf");
    let out = out_path.to_str().unwrap();
    let conv = xbf(&["from-json", file, "-o", out]);
    let stderr = String::from_utf8_lossy(&conv.stderr).into_owned();
    match expect {
        Expect::Refused(word) => {
            if conv.status.code() != Some(1) {
                return Err(format!("exit {:?} (expected a refusal, exit 1): {stderr}", conv.status.code()));
            }
            if stderr.matches('\n').count() != 1 || !stderr.ends_with('\n') {
                return Err(format!("not exactly one line on stderr: {stderr:?}"));
            }
            if out_path.exists() {
                return Err("a refused conversion left an output file".into());
            }
            match word {
                Some(w) if !stderr.contains(w.as_str()) => Err(format!("refused without {w:?}: {stderr}")),
                _ => Ok(()),
            }
        }
        Expect::Same | Expect::Becomes(_) => {
            if !conv.status.success() {
                return Err(format!("refused (exit {:?}): {stderr}", conv.status.code()));
            }
            let back = xbf(&["to-json", out]);
            let text = String::from_utf8(back.stdout).map_err(|_| "to-json wrote invalid UTF-8".to_owned())?;
            if !back.status.success() {
                return Err(format!("to-json failed: {}", String::from_utf8_lossy(&back.stderr)));
            }
            let want = match expect {
                Expect::Becomes(j) => j.clone(),
                _ => std::fs::read_to_string(path).map_err(|e| format!("not UTF-8: {e}"))?,
            };
            let want = Json::parse(&want).map_err(|e| format!("the expected JSON does not parse: {e}"))?;
            let got = Json::parse(&text).map_err(|e| format!("to-json gave invalid JSON {text:?}: {e}"))?;
            if got.same_value(&want) {
                Ok(())
            } else {
                Err(format!("came back as {}", text.trim_end()))
            }
        }
    }
}

#[test]
fn every_parsing_file_behaves_as_expected() {
    let mut expect = expectations();
    let dir = suite().join("JSONTestSuite/test_parsing");
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names.len(), 318, "the vendored suite has 318 files");
    let mut failures = Vec::new();
    for name in &names {
        let listed = expect.remove(name);
        let e = match (&name[..2], listed) {
            ("i_", None) => {
                failures.push(format!("{name}: an i_ file missing from JSONTestSuite.expect"));
                continue;
            }
            (_, Some(e)) => e,
            ("y_", None) => Expect::Same,
            ("n_", None) => Expect::Refused(None),
            _ => panic!("{name}: not a y_, n_ or i_ file"),
        };
        if name.starts_with("n_") && !matches!(e, Expect::Refused(_)) {
            failures.push(format!("{name}: invalid JSON must be refused"));
        }
        if let Err(why) = check(&dir.join(name), &e) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(expect.is_empty(), "listed but not in the suite: {:?}", expect.keys().collect::<Vec<_>>());
    assert!(failures.is_empty(), "{} of 318 files:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_expectations_file_reads_as_documented() {
    let e = expectations();
    assert_eq!(e["y_number_minus_zero.json"], Expect::Becomes("[-0.0]".into()));
    assert_eq!(e["i_structure_500_nested_arrays.json"], Expect::Refused(Some("too-deep".into())));
    assert_eq!(e["i_number_too_big_pos_int.json"], Expect::Same);
}
