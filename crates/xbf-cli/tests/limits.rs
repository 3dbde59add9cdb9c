//! The decoded-memory budget through the tool (SPEC.md 16.2, 22.3): what
//! `from-json` writes, `to-json`, `cat` and `stats` read with the default
//! budget (issue 18, repro 2); `--max-decoded-bytes` raises or lowers it on
//! every subcommand, and `from-json` refuses to write what would not read
//! back within it. Also a stream file's counts checked against its length
//! (repro 9) and a column that once panicked the core (repro 7).

use std::io::Write;
use std::path::PathBuf;
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

fn temp(tag: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xbf-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(tag);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn same_json(a: &[u8], b: &[u8]) -> bool {
    let parse = |t: &[u8]| xbf::json::Json::parse(std::str::from_utf8(t).unwrap()).unwrap();
    parse(a).same_value(&parse(b))
}

/// The three documents of repro 2, each written by `from-json` and read
/// back by `to-json`, `cat` and `stats` with the default budget.
#[test]
fn what_from_json_writes_reads_back_with_default_options() {
    let ints = format!("[{}]", (0..1_000_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let ids = format!("[{}]", (0..200_000).map(|i| format!("{{\"id\":{i}}}")).collect::<Vec<_>>().join(","));
    let keys = format!("[{}]", (0..500).map(|i| format!("{{\"k{i}\":{i}}}")).collect::<Vec<_>>().join(","));
    for (name, json) in [("ints", ints), ("ids", ids), ("keys", keys)] {
        let to = xbf(&["from-json"], json.as_bytes());
        assert!(to.status.success(), "{name}: {}", stderr(&to));
        let file = temp(&format!("{name}.xbf"), &to.stdout);
        let file = file.to_str().unwrap();
        let back = xbf(&["to-json", file], b"");
        assert!(back.status.success(), "{name}: {}", stderr(&back));
        assert!(same_json(&back.stdout, json.as_bytes()), "{name} does not come back");
        for sub in ["cat", "stats", "schema"] {
            let o = xbf(&[sub, file], b"");
            assert!(o.status.success(), "{name}, {sub}: {}", stderr(&o));
        }
    }
}

#[test]
fn the_budget_is_set_on_every_reading_subcommand() {
    let json = format!("[{}]", (0..100_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let to = xbf(&["from-json"], json.as_bytes());
    assert!(to.status.success(), "{}", stderr(&to));
    let file = temp("budget.xbf", &to.stdout);
    let file = file.to_str().unwrap();
    // 100,001 values of 48 bytes: 4,800,048 bytes.
    for sub in ["to-json", "cat", "stats", "schema", "to-csv", "inspect"] {
        let o = xbf(&[sub, file, "--max-decoded-bytes", "4800000"], b"");
        assert_eq!(o.status.code(), Some(1), "{sub}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("too-large") && err.contains("--max-decoded-bytes"), "{sub}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{sub}: {err}");
    }
    for sub in ["to-json", "cat", "stats", "schema"] {
        let o = xbf(&["--max-decoded-bytes", "4800048", sub, file], b"");
        assert!(o.status.success(), "{sub}: {}", stderr(&o));
    }
}

#[test]
fn from_json_refuses_what_would_not_read_back() {
    let json = format!("[{}]", (0..100_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let out = std::env::temp_dir().join(format!("xbf-limits-refused-{}.xbf", std::process::id()));
    let o = xbf(&["from-json", "--max-decoded-bytes", "1000000", "-o", out.to_str().unwrap()], json.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("not written") && err.contains("--max-decoded-bytes"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!out.exists());
    let csv: String = std::iter::once("a,b\n".to_owned()).chain((0..50).map(|i| format!("{i},{}\n", i * 7))).collect();
    // A single message (--message): an XBF file, from-csv's default, is read block by block.
    let o = xbf(&["from-csv", "--message", "--max-decoded-bytes", "1000"], csv.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not written"), "{}", stderr(&o));
}

/// A 13-byte columnar message declaring 2^40 units is refused at once.
#[test]
fn a_tiny_bomb_is_refused() {
    let bomb = [0xc2, 0x02, 0x11, 0x13, 0x08, 0x03, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20];
    let o = xbf(&["to-json"], &bomb);
    assert_eq!(o.status.code(), Some(1));
    // The element node stands after the lengths column, at the end.
    assert!(stderr(&o).contains("at byte 13, in []: too-large"), "{}", stderr(&o));
}

#[test]
fn hostile_columns_and_streams_fail_with_one_line() {
    // Repro 7: runs adding up past 2^64.
    let runs = [
        0xc2, 0x02, 0x11, 0x04, 0x02, 0x00, 0x02, 0x10, 0x03, 0x01, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0x01, 0x07, 0x02, 0x09,
    ];
    let o = xbf(&["to-json"], &runs);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("at byte 11, in []: invalid-column"), "{}", stderr(&o));
    // Repro 9: a stream file's metadata count is checked against its length.
    let stream = temp("r9.xbf", &[0xc2, 0x04, 0x16, 0x67, 0xc0]);
    for sub in ["cat", "to-json", "inspect"] {
        let o = xbf(&[sub, stream.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(1), "{sub}: {}", stderr(&o));
        assert!(stderr(&o).contains("at byte 3: truncated"), "{sub}: {}", stderr(&o));
    }
    // From standard input the length is unknown: the reader reads on, and
    // may report another error on this cut input (SPEC.md 15.3).
    let o = xbf(&["cat"], &[0xc2, 0x04, 0x16, 0x67, 0xc0]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}
