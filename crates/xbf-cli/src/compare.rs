//! `xbf compare`: how big XBF v1 is, and how fast, against CSV, JSON,
//! MessagePack and CBOR on the same records, raw and compressed, with a
//! round-trip check of each format.
//!
//! The records come from a JSON array of flat objects or a CSV file with a
//! header, or by default from the built-in S&P 500 data of 2019. Each column
//! gets one type (see [`data`]); every format then encodes the same records
//! ([`formats::FORMATS`]), is decoded back and compared with them exactly,
//! and is timed against the others ([`timing`]).
//!
//! Any other JSON document (nested objects and arrays, nulls, keys some
//! records lack) is measured generically ([`nested`]): the formats that can
//! hold it encode the document itself, and a round trip must give back the
//! same JSON value. A format that cannot hold the data is reported as such,
//! with the reason, instead of a size.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

mod chart;
pub mod data;
mod formats;
mod nested;
mod timing;

use crate::io::{write_output, Failure, Output};
use data::{Dataset, InputKind};
use formats::{Decoded, Format, BASELINE, FORMATS};

/// Arguments of `xbf compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The data: a JSON document (flat records, or any other JSON such as a
    /// GeoJSON feature collection, measured as a whole), or a CSV file with a
    /// header line ("-" reads standard input). JSON or CSV is told by the extension,
    /// else by the first character. Default: the built-in S&P 500 daily
    /// prices of 2019 (252 rows, 7 columns).
    pub input: Option<PathBuf>,
    /// Print a JSON array, one object per format, instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Timing rounds: each times every format's encode and decode once,
    /// interleaved; the median over the rounds is reported.
    #[arg(long, default_value_t = 15, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// How long one timed sample (a batch of calls of one operation) should
    /// last, in milliseconds; 0 times single calls.
    #[arg(long, default_value_t = 3.0, value_name = "MS")]
    pub sample_ms: f64,
    /// Skip the timing: sizes and round-trip checks only.
    #[arg(long)]
    pub no_time: bool,
    /// Also draw the bytes of each format (raw, gzip, zstd) as a bar chart
    /// in this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
}

/// What was found for one format.
pub struct Report {
    pub name: &'static str,
    /// The sizes; all 0 where the format cannot hold the data.
    pub bytes: u64,
    pub gzip: u64,
    pub zstd: u64,
    /// Why the format cannot hold the data (its encoder refused it).
    pub cannot: Option<String>,
    encode_ratio: Option<f64>,
    decode_ratio: Option<f64>,
    pub roundtrip_ok: bool,
    /// Why the round trip failed, if it did.
    problem: Option<String>,
}

pub fn run(args: &CompareArgs) -> Result<ExitCode, Failure> {
    if !(args.sample_ms.is_finite() && (0.0..=10_000.0).contains(&args.sample_ms)) {
        return Err(Failure::Usage(format!("--sample-ms must be between 0 and 10000, not {}", args.sample_ms)));
    }
    let ds = load(args.input.as_ref())?;
    let native = ds.native_size();

    let mut encoded = Vec::with_capacity(FORMATS.len());
    let mut reports = Vec::with_capacity(FORMATS.len());
    for f in FORMATS {
        let bytes = match (f.encode)(&ds) {
            Ok(bytes) => bytes,
            Err(e) => {
                let e = if e.starts_with("cannot hold") { e } else { format!("cannot hold this data: {e}") };
                reports.push(Report {
                    name: f.name,
                    bytes: 0,
                    gzip: 0,
                    zstd: 0,
                    cannot: Some(e),
                    encode_ratio: None,
                    decode_ratio: None,
                    roundtrip_ok: true,
                    problem: None,
                });
                encoded.push(Vec::new());
                continue;
            }
        };
        let problem = check_round_trip(f, &ds, &bytes).err();
        reports.push(Report {
            name: f.name,
            bytes: bytes.len() as u64,
            gzip: formats::gzip(&bytes)?.len() as u64,
            zstd: formats::zstd(&bytes)?.len() as u64,
            cannot: None,
            encode_ratio: None,
            decode_ratio: None,
            roundtrip_ok: problem.is_none(),
            problem,
        });
        encoded.push(bytes);
    }

    let mut baseline_times = None;
    if !args.no_time {
        let ok: Vec<bool> = reports.iter().map(|r| r.roundtrip_ok && r.cannot.is_none()).collect();
        let target = Duration::from_secs_f64(args.sample_ms / 1000.0);
        let times = timing::measure(FORMATS, &ds, &encoded, &ok, args.rounds, target);
        let base = FORMATS.iter().position(|f| f.name == BASELINE).expect("the baseline is a format");
        let (be, bd) = (times[base].encode, times[base].decode);
        for (r, t) in reports.iter_mut().zip(&times) {
            r.encode_ratio = ratio(t.encode, be);
            r.decode_ratio = ratio(t.decode, bd);
        }
        baseline_times = be.zip(bd);
    }

    if let Some(path) = &args.chart {
        write_output(Some(path), chart::svg(&ds.label, native, &reports).as_bytes())?;
    }
    let mut out = Output::create(None)?;
    if args.json {
        out.line(&json_report(&reports, native))?;
    } else {
        out.str(&table(&ds, native, &reports, args, baseline_times))?;
    }
    out.finish()?;
    for r in &reports {
        if let Some(p) = &r.problem {
            eprintln!("xbf compare: {} does not round-trip: {p}", r.name);
        }
    }
    Ok(if reports.iter().all(|r| r.roundtrip_ok) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn ratio(t: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (t, base) {
        (Some(t), Some(b)) if b > 0.0 => Some(t / b),
        _ => None,
    }
}

fn load(input: Option<&PathBuf>) -> Result<Dataset, String> {
    let Some(path) = input else {
        return data::parse(InputKind::Csv, data::DEFAULT_CSV, data::DEFAULT_LABEL.into());
    };
    let (text, label) = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read standard input: {e}"))?;
        (text, "standard input".to_owned())
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        (text, path.display().to_string())
    };
    let ext = path.extension().and_then(|e| e.to_str());
    let kind = data::guess_kind(ext, &text);
    data::parse(kind, &text, label.clone()).map_err(|e| format!("{label}: {e}"))
}

/// Decodes `bytes` and compares the result with the records, exactly.
fn check_round_trip(f: &Format, ds: &Dataset, bytes: &[u8]) -> Result<(), String> {
    let decoded = (f.decode)(ds, bytes).map_err(|e| format!("decoding failed: {e}"))?;
    if let Some(n) = &ds.nested {
        let doc = match decoded {
            Decoded::Json(doc) => doc,
            Decoded::Xbf(v) => {
                xbf::json::to_json(&v).map_err(|e| format!("the decoded value has no JSON form: {e}"))?
            }
            Decoded::Rows(_) => return Err("decoded as flat records".into()),
        };
        return if doc.same_value(&n.doc) {
            Ok(())
        } else {
            Err("the decoded document differs from the original (values, number kinds or key order)".into())
        };
    }
    let rows = match decoded {
        Decoded::Rows(rows) => rows,
        Decoded::Xbf(v) => ds.rows_from_value(&v).ok_or("the decoded value is not of the records' type")?,
        Decoded::Json(_) => return Err("decoded as a document, not records".into()),
    };
    if ds.same_rows(&rows) {
        Ok(())
    } else {
        Err("the decoded records differ from the originals".into())
    }
}

fn json_report(reports: &[Report], native: u64) -> String {
    let items: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            if let Some(e) = &r.cannot {
                return serde_json::json!({
                    "format": r.name,
                    "bytes": null,
                    "over_native": null,
                    "gzip": null,
                    "zstd": null,
                    "encode_ratio": null,
                    "decode_ratio": null,
                    "roundtrip_ok": null,
                    "error": e,
                });
            }
            serde_json::json!({
                "format": r.name,
                "bytes": r.bytes,
                "over_native": r.bytes as i64 - native as i64,
                "gzip": r.gzip,
                "zstd": r.zstd,
                "encode_ratio": r.encode_ratio,
                "decode_ratio": r.decode_ratio,
                "roundtrip_ok": r.roundtrip_ok,
            })
        })
        .collect();
    serde_json::to_string_pretty(&items).expect("JSON values always serialize")
}

fn fmt_time(secs: f64) -> String {
    if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.1} µs", secs * 1e6)
    }
}

fn table(ds: &Dataset, native: u64, reports: &[Report], args: &CompareArgs, base: Option<(f64, f64)>) -> String {
    let mut out = String::new();
    let push = |out: &mut String, s: &str| {
        out.push_str(s);
        out.push('\n');
    };
    push(&mut out, &format!("xbf compare: {}", ds.label));
    match &ds.nested {
        None => {
            push(&mut out, &format!("  {} rows × {} columns: {}", ds.rows.len(), ds.columns.len(), ds.schema_line()));
            push(
                &mut out,
                &format!(
                    "  native: {native} bytes, the field values alone as in memory (integers at their XBF width, f64 8 bytes,\n          \
                     bool 1, strings their UTF-8 length; no lengths, names or separators)"
                ),
            );
        }
        Some(n) => {
            push(&mut out, &format!("  {}; not flat records: {}", n.summary(), n.why));
            if n.xbf_error.is_none() {
                push(&mut out, &format!("  XBF 2 type: {}", nested::shorten(&ds.xbf_type.to_string(), 300)));
            }
            push(
                &mut out,
                &format!(
                    "  native: {native} bytes, the values alone as in memory (integers 8 bytes, 16 or 32 past 64 or 128 bits;\n          \
                     floats 8, booleans 1, strings their UTF-8 length, nulls 0; no keys, lengths or separators)"
                ),
            );
        }
    }
    push(&mut out, "  vs native: bytes over native; gzip: level 9 (flate2); zstd: level 19");
    match base {
        Some((enc, dec)) => push(
            &mut out,
            &format!(
                "  encode, decode: median time per call over {} interleaved rounds ÷ JSON's ({} to encode, {} to decode);\n          \
                 < 1 is faster. XBF encodes from and decodes to an xbf::Value, the others from and to {}",
                args.rounds,
                fmt_time(enc),
                fmt_time(dec),
                if ds.nested.is_some() { "a JSON tree that keeps numbers as text (xbf::json::Json)" } else { "the records" }
            ),
        ),
        None => push(&mut out, "  encode, decode: not timed (--no-time)"),
    }
    if ds.nested.is_some() {
        push(
            &mut out,
            "  round-trip: decoded and compared with the document as JSON values: key order, integers apart from floats,\n          \
             every digit, floats bit for bit",
        );
    } else {
        push(&mut out, "  round-trip: decoded and compared with the records exactly, floats bit for bit");
    }
    push(
        &mut out,
        "  Note: the XBF paper's published figures are on different data (Sony, 2022-23); these are for this data only.",
    );
    push(&mut out, "");

    let header = ["format", "bytes", "vs native", "gzip", "zstd", "encode ×JSON", "decode ×JSON", "round-trip"];
    let ratio = |r: Option<f64>| r.map_or_else(|| "-".to_owned(), |r| format!("{r:.2}"));
    let rows: Vec<[String; 8]> = reports
        .iter()
        .filter(|r| r.cannot.is_none())
        .map(|r| {
            let over = r.bytes as i64 - native as i64;
            let pct =
                if native > 0 { format!(" ({:+.1}%)", over as f64 * 100.0 / native as f64) } else { String::new() };
            [
                r.name.to_owned(),
                r.bytes.to_string(),
                format!("{over:+}{pct}"),
                r.gzip.to_string(),
                r.zstd.to_string(),
                ratio(r.encode_ratio),
                ratio(r.decode_ratio),
                if r.roundtrip_ok { "✓".to_owned() } else { "✗".to_owned() },
            ]
        })
        .collect();
    let width =
        |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0);
    let mut widths: Vec<usize> = (0..header.len()).map(width).collect();
    widths[0] = widths[0].max(reports.iter().map(|r| r.name.chars().count()).max().unwrap_or(0));
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            if i > 0 {
                s.push_str("  ");
            }
            // The name is left-aligned, the numbers right-aligned.
            if i == 0 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        s.trim_end().to_owned()
    };
    push(&mut out, &line(&header));
    let mut held = rows.iter();
    for r in reports {
        match &r.cannot {
            // The name, then the reason across the other columns.
            Some(why) => push(&mut out, &format!("{:w$}  {why}", r.name, w = widths[0])),
            None => {
                let cells: Vec<&str> = held.next().expect("a row per format").iter().map(String::as_str).collect();
                push(&mut out, &line(&cells));
            }
        }
    }
    push(&mut out, "");
    let name_width = FORMATS.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
    for f in FORMATS {
        let note = if ds.nested.is_some() { f.nested_note } else { f.note };
        push(&mut out, &format!("  {:name_width$}  {}", f.name, note));
    }
    out
}
