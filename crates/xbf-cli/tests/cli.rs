//! `xbf cat`, `schema`, `inspect`, `from-csv` and `to-csv` run as a program:
//! good input, every truncation and a bit flip at every byte of small
//! messages and streams, random bytes, usage errors, a closed pipe, and
//! output files that appear only when complete.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const XBF: &str = env!("CARGO_BIN_EXE_xbf");
const SP500: &str = include_str!("../data/sp500-2019.csv");

/// SPEC 5.4: the paper's Point { first: 42, last: -5 }, v1.
const POINT_V1: &str = "120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374072afb";
/// SPEC 18.1: the same in XBF 2.
const POINT_V2: &str = "c2001205506f696e740205666972737407046c617374072afb";
/// SPEC 5.5: a v1 vec of two Points.
const POINTS_V1: &str =
    "11120500000000000000506f696e740200050000000000000066697273740704000000000000006c617374070200000000000000010203ff";
/// SPEC 18.10: three Point records in two blocks, without and with checksums.
const STREAM: &str = "c2041205506f696e740205666972737407046c617374070502010203ff0301807f";
const STREAM_CRC: &str = "c20c1205506f696e740205666972737407046c617374070502010203ff10aae03e0301807fd4a36d11";

/// The subcommands that read XBF.
const READERS: [&[&str]; 8] = [
    &["cat"],
    &["cat", "--head", "1"],
    &["schema"],
    &["inspect"],
    &["to-json"],
    &["to-json", "--fields", "first"],
    &["to-csv"],
    &["stats"],
];

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(XBF)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the xbf binary runs");
    // The command may stop reading early (a usage error): ignore a closed pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xbf-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exit 0, or exit 1 with exactly one line on standard error naming the
/// input; never a panic.
fn assert_clean(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{what}: {err}");
    match out.status.code() {
        Some(0) => {}
        Some(1) => {
            assert_eq!(err.lines().count(), 1, "{what}: not one line: {err:?}");
            assert!(err.starts_with("xbf "), "{what}: {err}");
        }
        other => panic!("{what}: exit code {other:?}: {err}"),
    }
}

/// One run: a reader's arguments and a named input.
type Job<'a> = (&'a [&'a str], &'a (String, Vec<u8>));

/// Runs every reader on every input, in parallel, checking each with `check`.
fn run_all(inputs: &[(String, Vec<u8>)], check: impl Fn(&str, &Output) + Sync) {
    let jobs: Vec<Job> = inputs.iter().flat_map(|i| READERS.iter().map(move |r| (*r, i))).collect();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get()).min(8);
    std::thread::scope(|s| {
        for chunk in jobs.chunks(jobs.len().div_ceil(threads).max(1)) {
            let check = &check;
            s.spawn(move || {
                for (args, (name, bytes)) in chunk {
                    let out = run(args, bytes);
                    check(&format!("{} on {name}", args.join(" ")), &out);
                }
            });
        }
    });
}

#[test]
fn inspect_shows_the_papers_point_byte_by_byte() {
    let out = run(&["inspect"], &hex(POINT_V1));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = text(&out.stdout);
    for line in [
        " 0  12                         discriminant: struct",
        " 1  05 00 00 00 00 00 00 00    struct name length 5",
        " 9  50 6f 69 6e 74             \"Point\"",
        "14  02 00                      field count 2",
        "16  05 00 00 00 00 00 00 00    field name length 5",
        "24  66 69 72 73 74             \"first\"",
        "29  07                         type of Point.first: i8",
        "30  04 00 00 00 00 00 00 00    field name length 4",
        "38  6c 61 73 74                \"last\"",
        "42  07                         type of Point.last: i8",
        "43  2a                         Point.first = 42 (i8)",
        "44  fb                         Point.last = -5 (i8)",
    ] {
        assert!(got.lines().any(|l| l == line), "missing {line:?} in\n{got}");
    }
}

#[test]
fn inspect_annotates_xbf2_messages_and_streams() {
    let got = text(&run(&["inspect"], &hex(POINT_V2)).stdout);
    for line in
        [" 0  c2                         version byte: XBF 2", "24  fb                         Point.last = -5 (i8)"]
    {
        assert!(got.lines().any(|l| l == line), "missing {line:?} in\n{got}");
    }
    let got = text(&run(&["inspect"], &hex(STREAM_CRC)).stdout);
    for needle in
        ["flags: record stream, block checksums", "#2.first = -128 (i8)", "CRC-32C of block 1's body: 116da3d4"]
    {
        assert!(got.contains(needle), "missing {needle:?} in\n{got}");
    }
    // Damage: the annotation up to the error, then the error, exit 1.
    let mut bad = hex(STREAM_CRC);
    bad[35] = 0x81;
    let out = run(&["inspect"], &bad);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("#1.last = -1 (i8)"));
    assert!(text(&out.stderr).contains("at byte 37: bad-checksum"));
    // --limit-bytes stops the annotation.
    let got = text(&run(&["inspect", "--limit-bytes", "10"], &hex(POINT_V1)).stdout);
    assert!(got.contains(" 9  50 6f") && !got.contains("field count") && got.contains("--limit-bytes 10"), "{got}");
}

#[test]
fn cat_and_schema_show_values_and_types() {
    let out = run(&["cat"], &hex(POINTS_V1));
    assert_eq!(
        text(&out.stdout),
        "# vec<struct Point { first: i8, last: i8 }>, 2 items\n[0] Point { first: 1, last: 2 }\n[1] Point { first: 3, last: -1 }\n"
    );
    let out = run(&["cat", "--head", "1"], &hex(POINTS_V1));
    assert!(text(&out.stdout).ends_with("[0] Point { first: 1, last: 2 }\n# … 1 more\n"));
    let out = run(&["cat", "--head", "2"], &hex(STREAM));
    assert!(text(&out.stdout).contains("#1 Point { first: 3, last: -1 }") && !text(&out.stdout).contains("#2"));
    // --head does not read past the records asked for: damage after them is not seen.
    let mut cut = hex(STREAM);
    cut.truncate(cut.len() - 1);
    assert!(run(&["cat", "--head", "2"], &cut).status.success());
    let out = run(&["cat"], &cut);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "xbf cat: <stdin>: at byte 32, in #2.last: truncated: needs 1 bytes, 0 remain\n");
    let out = run(&["schema"], &hex(POINT_V2));
    assert_eq!(text(&out.stdout), "struct Point {\n    first: i8,\n    last: i8,\n}\n");
    let out = run(&["schema"], &hex(STREAM_CRC));
    assert!(text(&out.stdout).starts_with("stream of struct Point {"));
}

#[test]
fn truncated_inputs_fail_with_one_line() {
    let mut inputs = Vec::new();
    for (name, h) in [("Point v1", POINT_V1), ("Point v2", POINT_V2), ("Points v1", POINTS_V1)] {
        let b = hex(h);
        for n in 0..b.len() {
            inputs.push((format!("{name} cut to {n} bytes"), b[..n].to_vec()));
        }
    }
    // Every proper prefix of a message is damaged.
    run_all(&inputs, |what, out| {
        assert_clean(out, what);
        assert_eq!(out.status.code(), Some(1), "{what}");
    });
    let mut streams = Vec::new();
    for (name, h) in [("stream", STREAM), ("stream with checksums", STREAM_CRC)] {
        let b = hex(h);
        for n in 0..b.len() {
            streams.push((format!("{name} cut to {n} bytes"), b[..n].to_vec()));
        }
    }
    // A stream may end after any whole block.
    run_all(&streams, |w, o| assert_clean(o, w));
}

#[test]
fn bit_flips_and_random_bytes_never_panic() {
    let mut inputs = Vec::new();
    for (name, h) in [("Point v1", POINT_V1), ("Points v1", POINTS_V1), ("Point v2", POINT_V2), ("stream", STREAM_CRC)]
    {
        let b = hex(h);
        for i in 0..b.len() {
            let mut d = b.clone();
            d[i] ^= 1 << (i % 8);
            inputs.push((format!("{name} with bit {} of byte {i} flipped", i % 8), d));
        }
    }
    let mut seed = 0x2545f4914f6cdd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..60 {
        let len = (next() % 48) as usize;
        let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // Many start like real data, to get past the first byte.
        if let Some(first) = b.first_mut() {
            *first = [0x11, 0x12, 0xc2, *first][i % 4];
        }
        if i % 8 < 3 && b.len() > 1 {
            b[1] = [0x00, 0x04, 0x0c][i % 8];
        }
        inputs.push((format!("random input {i}"), b));
    }
    run_all(&inputs, |w, o| assert_clean(o, w));
}

#[test]
fn csv_round_trips_the_sp500_values() {
    let out = run(&["from-csv", "--explain"], SP500.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let explain = text(&out.stderr);
    assert!(explain.contains("date      date") && explain.contains("volume    u64"), "{explain}");
    let schema = run(&["schema", "--compact"], &out.stdout);
    assert_eq!(
        text(&schema.stdout).trim(),
        // from-csv writes an XBF file of records by default (SPEC.md §24).
        "file of struct Row { date: date, open: f64, high: f64, low: f64, close: f64, adjclose: f64, volume: u64 }"
    );
    let back = run(&["to-csv"], &out.stdout);
    assert!(back.status.success(), "{}", text(&back.stderr));
    let (a, b) = (SP500.lines().collect::<Vec<_>>(), text(&back.stdout));
    let b: Vec<&str> = b.lines().collect();
    assert_eq!(a.len(), b.len());
    assert_eq!(a[0], b[0]);
    for (x, y) in a.iter().zip(&b).skip(1) {
        let (x, y): (Vec<&str>, Vec<&str>) = (x.split(',').collect(), y.split(',').collect());
        assert_eq!(x[0], y[0]);
        for (p, q) in x[1..].iter().zip(&y[1..]) {
            assert_eq!(p.parse::<f64>().unwrap(), q.parse::<f64>().unwrap(), "{p} vs {q}");
        }
    }
}

#[test]
fn csv_layout_zstd_and_float_tolerance_options() {
    let size = |args: &[&str]| {
        let out = run(args, SP500.as_bytes());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        out.stdout
    };
    // The layouts of a single message (--message; from-csv writes a file by default).
    let auto = size(&["from-csv", "--message"]);
    let rows = size(&["from-csv", "--layout", "rows"]);
    let cols = size(&["from-csv", "--layout", "columns"]);
    assert_eq!(auto, cols, "the default picks the smaller layout");
    assert!(rows.len() > cols.len() * 2, "{} vs {}", rows.len(), cols.len());
    assert!(size(&["from-csv", "--message", "--zstd", "19"]).len() <= cols.len());
    // Cents: every price within half a cent, and fewer bytes.
    let lossy = size(&["from-csv", "--message", "--float-tolerance", "0.005"]);
    assert!(lossy.len() < cols.len() * 3 / 4, "{} vs {}", lossy.len(), cols.len());
    let back = text(&run(&["to-csv"], &lossy).stdout);
    for (x, y) in SP500.lines().zip(back.lines()).skip(1) {
        for (p, q) in x.split(',').zip(y.split(',')).skip(1) {
            let (p, q) = (p.parse::<f64>().unwrap(), q.parse::<f64>().unwrap());
            assert!((p - q).abs() <= 0.005, "{p} vs {q}");
        }
    }
    for bad in ["0", "-1", "nan", "inf", "x"] {
        let out = run(&["from-csv", "--float-tolerance", bad], SP500.as_bytes());
        assert!(!out.status.success(), "{bad} accepted");
    }
}

#[test]
fn csv_types_nulls_and_errors() {
    let csv = "id,when,at,ok,name,score\n1,2019-01-02,2019-01-02T03:04:05Z,true,\"a, b\",-1.5\n300,,2019-01-02T03:04:05.25+01:00,false,,\n";
    let out = run(&["from-csv"], csv.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let schema = text(&run(&["schema", "--compact"], &out.stdout).stdout);
    assert_eq!(
        schema.trim(),
        "file of struct Row { id: u16, when: option<date>, at: timestamp, ok: bool, name: option<string>, score: option<f64> }"
    );
    let back = text(&run(&["to-csv"], &out.stdout).stdout);
    assert_eq!(
        back,
        "id,when,at,ok,name,score\n1,2019-01-02,2019-01-02T03:04:05Z,true,\"a, b\",-1.5\n300,,2019-01-02T02:04:05.250000Z,false,,\n"
    );
    // Not records: one line, exit 1.
    let out = run(&["to-csv"], &hex(POINT_V1));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("flat records"));
    for bad in ["a,a\n1,2\n", "a,b\n1,2,3\n", "", "\u{0}\u{1}\n\"unclosed"] {
        let out = run(&["from-csv"], bad.as_bytes());
        assert_clean(&out, bad);
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["cat", "--head", "x"][..],
        &["inspect", "--limit-bytes", "-3"],
        &["no-such-command"],
        &["schema", "a", "b"],
        &["compare", "--sample-ms=-1"],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
    for cmd in ["cat", "schema", "inspect", "from-csv", "to-csv", "from-json", "to-json", "compare"] {
        let out = run(&[cmd, "--help"], b"");
        assert!(out.status.success() && text(&out.stdout).contains("Example: xbf"), "{cmd}");
    }
}

#[test]
fn a_missing_file_is_one_line() {
    for args in [&["cat", "/no/such/file.xbf"][..], &["inspect", "/no/such/file.xbf"], &["from-csv", "/no/such.csv"]] {
        let out = run(args, b"");
        assert_clean(&out, &args.join(" "));
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stderr).contains("/no/such"));
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut csv = String::from("n,s\n");
    for i in 0..40_000 {
        csv.push_str(&format!("{i},row {i}\n"));
    }
    let dir = temp_dir("pipe");
    let file = dir.join("big.xbf");
    let out = run(&["from-csv", "-o", file.to_str().unwrap()], csv.as_bytes());
    assert!(out.status.success());
    for args in [&["cat"][..], &["inspect"], &["to-csv"], &["to-json", "--pretty"]] {
        let mut child =
            Command::new(XBF).args(args).arg(&file).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        // The reader is gone: the command must stop without a panic.
        let out = child.wait_with_output().unwrap();
        assert!(!first.is_empty());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_failed_conversion_leaves_the_old_file() {
    let dir = temp_dir("atomic");
    let target = dir.join("out.xbf");
    std::fs::write(&target, b"old").unwrap();
    let out = run(&["from-csv", "-o", target.to_str().unwrap()], b"a,a\n1,2\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&target).unwrap(), b"old");
    let out = run(&["to-csv", "-o", target.to_str().unwrap()], &hex(POINT_V1));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&target).unwrap(), b"old");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "{left:?}");
    let out = run(&["from-csv", "-o", target.to_str().unwrap()], SP500.as_bytes());
    assert!(out.status.success());
    let written = xbf::FileReader::open(std::fs::File::open(&target).unwrap()).unwrap();
    assert_eq!(written.records_total(), 252);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn compare_draws_a_chart() {
    let dir = temp_dir("chart");
    let svg = dir.join("sizes.svg");
    let out = Command::new(XBF).args(["compare", "--no-time", "--chart"]).arg(&svg).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>") && s.contains("XBF 2 rows"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn stats_and_projection_on_real_records() {
    let dir = temp_dir("stats");
    let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/flights-200.json");
    let xbf_file = dir.join("flights.xbf");
    let out = run(&["from-json", json.to_str().unwrap(), "-o", xbf_file.to_str().unwrap()], b"");
    assert!(out.status.success());
    let out = run(&["stats", xbf_file.to_str().unwrap()], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("columnar message"), "{text}");
    for path in ["[].date", "[].delay", "[].distance", "[].origin", "[].destination", "(header and metadata)"] {
        assert!(text.lines().any(|l| l.ends_with(path)), "{path} missing in\n{text}");
    }
    let out = run(&["to-json", xbf_file.to_str().unwrap(), "--fields", "delay,origin"], b"");
    assert!(out.status.success());
    let projected: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &projected[0];
    assert_eq!(first.as_object().unwrap().keys().collect::<Vec<_>>(), ["delay", "origin"]);
    // A rows message is shown as the columns it would take.
    let rows = run(&["stats"], &hex(POINT_V1));
    assert!(String::from_utf8(rows.stdout).unwrap().contains("as columns it would take"));
    // Damage gives one line and exit 1.
    let mut bytes = std::fs::read(&xbf_file).unwrap();
    bytes.truncate(bytes.len() / 2);
    let out = run(&["stats"], &bytes);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Hostile CSV (issue 18): a header of 200,000 columns with a duplicate at
/// its end is refused at once (the check was quadratic: 73 s), ragged rows
/// and invalid UTF-8 give one line, and no number changes silently: `-0`
/// makes the column f64 (keeping its sign) and `1E-400`, which f64 would
/// turn into 0, keeps the column text.
#[test]
fn hostile_csv_is_refused_or_kept_exactly() {
    let mut header: Vec<String> = (0..200_000).map(|i| format!("c{i}")).collect();
    header.push("c5".into());
    let out = run(&["from-csv"], format!("{}\n", header.join(",")).as_bytes());
    assert_clean(&out, "a duplicate column");
    assert!(text(&out.stderr).contains("two columns are named \"c5\""), "{}", text(&out.stderr));
    for bad in [&b"a,b\n1,2\n1\n"[..], b"a,b\n1,\xff\n", b"a,\xfe\n1,2\n"] {
        let out = run(&["from-csv"], bad);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_clean(&out, &String::from_utf8_lossy(bad));
    }
    let out = run(&["from-csv"], b"tiny,zero,int\n1E-400,-0,1\n2.5,3,-0\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let schema = text(&run(&["schema", "--compact"], &out.stdout).stdout);
    assert_eq!(schema.trim(), "file of struct Row { tiny: string, zero: f64, int: f64 }");
    let back = text(&run(&["to-csv"], &out.stdout).stdout);
    assert_eq!(back, "tiny,zero,int\n1E-400,-0.0,1.0\n2.5,3.0,-0.0\n");
}
