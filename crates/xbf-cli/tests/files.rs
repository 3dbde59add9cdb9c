//! XBF files on the command line (SPEC.md §24): from-csv and from-json
//! --lines write them; cat, schema, to-json, to-csv, stats and inspect read
//! them, with --fields, --where and --skip-damaged; standard input and
//! output work as pipes.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const XBF: &str = env!("CARGO_BIN_EXE_xbf");
const SP500: &str = include_str!("../data/sp500-2019.csv");

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(XBF)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the xbf binary runs");
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str], stdin: &[u8]) -> String {
    let out = run(args, stdin);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xbf-files-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 5,000 rows in blocks of 1,000: a date that grows, a delay, a code.
fn flights_csv() -> String {
    let mut csv = String::from("date,delay,origin,note\n");
    for i in 0..5000i64 {
        let note = if i % 3 == 0 { format!("n{i}") } else { String::new() };
        csv.push_str(&format!(
            "2001-01-{:02},{},{},{note}\n",
            1 + i / 200,
            (i * 37) % 400 - 50,
            ["SFO", "LAX"][(i % 2) as usize]
        ));
    }
    csv
}

#[test]
fn csv_to_file_and_back_with_projection_and_filters() {
    let dir = temp("csv");
    let file = dir.join("f.xbf");
    let f = file.to_str().unwrap();
    let csv = flights_csv();
    ok(&["from-csv", "-o", f, "--block-rows", "1000"], csv.as_bytes());
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(&bytes[..2], &[0xc2, 0x0e]);
    assert_eq!(ok(&["to-csv", f], b""), csv);
    assert_eq!(
        ok(&["schema", "--compact", f], b"").trim(),
        "file of struct Row { date: date, delay: i16, origin: string, note: option<string> }"
    );
    // --where and --fields, checked against a scan of the CSV.
    let want: Vec<String> = csv
        .lines()
        .skip(1)
        .filter(|l| l.split(',').nth(1).unwrap().parse::<i32>().unwrap() > 300)
        .map(|l| l.split(',').take(2).collect::<Vec<_>>().join(","))
        .collect();
    let got = ok(&["to-csv", f, "--where", "delay > 300", "--fields", "date,delay"], b"");
    assert_eq!(got.lines().skip(1).collect::<Vec<_>>(), want);
    // Dates grow, so a date filter skips whole blocks.
    let late = ok(&["to-json", f, "--lines", "--where", "date >= 2001-01-25"], b"");
    assert_eq!(late.lines().count(), 200);
    assert!(late.lines().next().unwrap().contains("\"origin\""));
    assert_eq!(ok(&["to-json", f, "--where", "delay > 5000"], b""), "[]\n");
    // cat, stats, inspect.
    let cat = ok(&["cat", f, "--head", "2"], b"");
    assert!(cat.starts_with("# XBF file of struct Row"), "{cat}");
    assert_eq!(cat.lines().count(), 4, "{cat}");
    let stats = ok(&["stats", f], b"");
    assert!(stats.contains("5000 records in 5 blocks") && stats.contains("block 4: bytes"), "{stats}");
    assert!(stats.contains("min 2001-01-01") || stats.contains("min "), "{stats}");
    let inspect = ok(&["inspect", f], b"");
    assert!(inspect.contains("block 4:") && inspect.contains("footer part"), "{inspect}");
    // A pipe: from-csv | to-csv, the file read forward.
    let piped = run(&["from-csv"], csv.as_bytes());
    assert!(piped.status.success());
    assert_eq!(ok(&["to-csv"], &piped.stdout), csv);
    // --message still writes the one message.
    let msg = ok(&["schema", "--compact"], &run(&["from-csv", "--message"], SP500.as_bytes()).stdout);
    assert!(msg.starts_with("vec<struct Row"), "{msg}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn damaged_and_cut_files() {
    let dir = temp("damaged");
    let file = dir.join("f.xbf");
    let f = file.to_str().unwrap();
    let csv = flights_csv();
    ok(&["from-csv", "-o", f, "--block-rows", "1000"], csv.as_bytes());
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let out = run(&["to-csv", f], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad-checksum") && err.contains("block "), "{err}");
    let out = run(&["to-csv", f, "--skip-damaged"], b"");
    assert!(out.status.success());
    let rows = String::from_utf8(out.stdout).unwrap().lines().count() - 1;
    assert_eq!(rows, 4000);
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped a damaged block"));
    // Cut: the whole blocks are read forward, then the error.
    let good = run(&["from-csv", "--block-rows", "1000"], csv.as_bytes()).stdout;
    std::fs::write(&file, &good[..good.len() * 3 / 5]).unwrap();
    let out = run(&["to-csv", f], b"");
    assert_eq!(out.status.code(), Some(1));
    let rows = String::from_utf8(out.stdout).unwrap().lines().count() - 1;
    assert!(rows >= 2000 && rows % 1000 == 0, "{rows}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn json_lines_to_file_and_back() {
    let dir = temp("jsonl");
    let input = dir.join("in.jsonl");
    let file = dir.join("f.xbf");
    let mut text = String::new();
    for i in 0..3000 {
        let extra = if i % 2 == 0 { format!(",\"tag\":\"t{i}\"") } else { String::new() };
        // u8 and u16 widen to u32; with negatives (i64 in xbf::json) to i64.
        let n = if i == 2999 { "70000".to_owned() } else { (i % 200).to_string() };
        let n = if i % 7 == 3 && i % 200 != 0 { format!("-{n}") } else { n }; // -0 reads as 0 in xbf::json
        text.push_str(&format!(
            "{{\"id\":{i},\"n\":{n},\"x\":{}{extra},\"maybe\":{}}}\n",
            i as f64 + 0.5,
            if i % 5 == 0 { "null".into() } else { format!("\"m{i}\"") }
        ));
    }
    std::fs::write(&input, &text).unwrap();
    ok(&["from-json", input.to_str().unwrap(), "-o", file.to_str().unwrap()], b"");
    let back = ok(&["to-json", "--lines", file.to_str().unwrap()], b"");
    let parse = |s: &str| -> Vec<serde_json::Value> { s.lines().map(|l| serde_json::from_str(l).unwrap()).collect() };
    let (got, want) = (parse(&back), parse(&text));
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {i}");
    }
    // Standard input with --lines.
    let out = run(&["from-json", "--lines"], text.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(parse(&ok(&["to-json", "--lines"], &out.stdout)), parse(&text));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn output_to_a_pipe_or_device_is_written_in_place() {
    // `-o /dev/null` once renamed a temporary file onto /dev/null; a FIFO
    // shows the same without touching the machine's devices.
    let dir = temp("fifo");
    let fifo = dir.join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    ok(&["from-csv", "--message", "-o", fifo.to_str().unwrap()], SP500.as_bytes());
    let got = reader.join().unwrap();
    assert!(xbf::decode_message(&got).is_ok());
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    std::fs::remove_dir_all(dir).unwrap();
}

/// Hostile JSON Lines (issue 18's rules, line by line): a line nested past
/// the limit, a repeated key and invalid UTF-8 each give exit 1 and one line
/// naming the line, and no file is left behind.
#[test]
fn hostile_json_lines_are_refused_with_one_line() {
    let dir = temp("hostile-lines");
    let out = dir.join("out.xbf");
    let deep = format!("{{\"a\":1}}\n{}\n", "[".repeat(100_000));
    let cases: [(&[u8], &str); 3] = [
        (deep.as_bytes(), "line 2: at byte 128: too-deep"),
        (b"{\"a\":1}\n{\"a\":1,\"a\":2}\n", "line 2: at byte 7: duplicate-key"),
        (b"{\"a\":1}\n\xff\n", "UTF-8"),
    ];
    for (input, want) in cases {
        let o = run(&["from-json", "--lines", "-o", out.to_str().unwrap()], input);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{want:?} not in {err}");
        assert!(!out.exists(), "a refused conversion left {}", out.display());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Long conversions draw a progress bar on standard error only when it is a
/// terminal: with standard error a pipe, inputs and files well past the
/// bar's threshold (4 MiB) convert with nothing on it, and the same bytes.
#[test]
fn no_progress_bar_when_standard_error_is_not_a_terminal() {
    let dir = temp("progress");
    let mut csv = String::from("date,delay,origin,note\n");
    // Few rows, long cells: past the threshold at little conversion work.
    let pad = "x".repeat(90);
    for i in 0..50_000i64 {
        csv.push_str(&format!(
            "2001-02-{:02}T10:{:02}:00Z,{},ORIGIN{},{pad}{}\n",
            1 + i % 28,
            i % 60,
            i % 300 - 9,
            i % 50,
            i
        ));
    }
    assert!(csv.len() > 5 << 20);
    let input = dir.join("in.csv");
    std::fs::write(&input, &csv).unwrap();
    let (i, f, back, lines) = (input.to_str().unwrap(), dir.join("f.xbf"), dir.join("back.csv"), dir.join("f.jsonl"));
    let (f, back, lines) = (f.to_str().unwrap(), back.to_str().unwrap(), lines.to_str().unwrap());
    for args in [
        vec!["from-csv", i, "-o", f, "--block-rows", "10000"],
        vec!["to-csv", f, "-o", back],
        vec!["to-json", "--lines", f, "-o", lines],
        vec!["from-json", "--lines", lines, "-o", f],
    ] {
        let out = run(&args, b"");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?} wrote to standard error: {:?}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty());
    }
    assert!(std::fs::metadata(lines).unwrap().len() > 5 << 20);
    assert_eq!(std::fs::read_to_string(back).unwrap(), csv);
    std::fs::remove_dir_all(dir).unwrap();
}
