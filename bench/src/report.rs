//! BENCHMARKS.md and the SVG charts, from bench/results/*.json only.

use std::fmt::Write as _;
use std::path::Path;

use crate::formats::{median, CLONE, DATED};
use crate::http::HttpRun;
use crate::{DatasetResult, BASELINE, DATASETS};

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn p99(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s.get(((s.len() as f64) * 0.99) as usize).or(s.last()).copied().unwrap_or(f64::NAN)
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|v| v.to_string()).unwrap_or_else(|| "—".into())
}

pub fn http_tables(run: &HttpRun) -> String {
    let mut o = String::new();
    let native = run.results.first().map(|r| r.native).unwrap_or(0);
    let _ = writeln!(
        o,
        "Table III (time per request, ms; {} requests per format and connection kind, formats interleaved)\n",
        run.requests
    );
    let _ = writeln!(o, "| format | paper | new conn. mean | median | p99 | kept-alive mean | median | p99 | client decode median (ms) | round-trip |");
    let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|");
    for r in &run.results {
        let _ = writeln!(
            o,
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} |",
            r.name,
            r.paper_ms.map(|x| format!("{x:.2}")).unwrap_or("—".into()),
            mean(&r.new_conn_ms),
            median(&r.new_conn_ms).unwrap_or(f64::NAN),
            p99(&r.new_conn_ms),
            mean(&r.keepalive_ms),
            median(&r.keepalive_ms).unwrap_or(f64::NAN),
            p99(&r.keepalive_ms),
            median(&r.decode_ms).unwrap_or(f64::NAN),
            if r.roundtrip { "yes" } else { "NO" }
        );
    }
    let _ =
        writeln!(o, "\nTable IV (bytes; native = {native} B, the field values alone as `xbf compare` defines it)\n");
    let _ = writeln!(
        o,
        "| format | paper bytes | paper overhead | body bytes | over native | on the wire (with HTTP headers) |"
    );
    let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|");
    for r in &run.results {
        let paper_over = match r.path.as_str() {
            "csv" => Some(1823),
            "msgpack-arrays" => Some(977),
            "cbor" => Some(10919),
            "json" => Some(16592),
            "xml" => Some(29111),
            "xbf-v1" => Some(98),
            _ => None,
        };
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {:+} | {} |",
            r.name,
            opt(r.paper_bytes),
            opt(paper_over),
            r.body_bytes,
            r.body_bytes as i64 - r.native as i64,
            r.wire_bytes
        );
    }
    o
}

fn load(dir: &Path) -> Vec<DatasetResult> {
    DATASETS
        .iter()
        .filter_map(|(n, _)| std::fs::read_to_string(dir.join(format!("{n}.json"))).ok())
        .map(|t| serde_json::from_str(&t).expect("a result file"))
        .collect()
}

fn cmd(c: &str, args: &[&str]) -> String {
    std::process::Command::new(c)
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn color(name: &str) -> &'static str {
    if name.starts_with("XBF") {
        "#2b6cb0"
    } else if name.starts_with("JSON") {
        "#c05621"
    } else {
        "#718096"
    }
}

/// Horizontal bars: one row per (label, value), log or linear scale.
fn bars(title: &str, unit: &str, rows: &[(String, f64)], log: bool) -> String {
    let (left, width, h) = (330.0, 420.0, 16.0);
    let height = 40.0 + rows.len() as f64 * h + 10.0;
    let max = rows.iter().map(|r| r.1).fold(0.0f64, f64::max).max(1e-9);
    let min = rows.iter().map(|r| r.1).filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min).min(max);
    let scale = |v: f64| {
        if log {
            let lo = (min / 2.0).log10();
            ((v.max(min / 2.0).log10() - lo) / (max.log10() - lo)) * width
        } else {
            v / max * width
        }
    };
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="sans-serif" font-size="11"><text x="8" y="18" font-size="13" font-weight="bold">{}</text>"#,
        left + width + 110.0,
        esc(title)
    );
    for (i, (label, v)) in rows.iter().enumerate() {
        let y = 30.0 + i as f64 * h;
        let w = scale(*v).max(1.0);
        let _ = write!(
            s,
            r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{}</text><rect x="{left}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            left - 6.0,
            y + 11.0,
            esc(label),
            y + 2.0,
            h - 4.0,
            color(label),
            left + w + 4.0,
            y + 11.0,
            esc(&format!("{} {unit}", short(*v)))
        );
    }
    s.push_str("</svg>\n");
    s
}

fn short(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A log-log line chart: x = records or structures, y = bytes, per format.
fn loglog(title: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let (l, t, w, h) = (70.0, 30.0, 520.0, 300.0);
    let pts: Vec<(f64, f64)> = series.iter().flat_map(|s| s.1.clone()).filter(|p| p.0 > 0.0 && p.1 > 0.0).collect();
    if pts.is_empty() {
        return String::new();
    }
    let (x0, x1) = (
        pts.iter().map(|p| p.0.log10()).fold(f64::INFINITY, f64::min),
        pts.iter().map(|p| p.0.log10()).fold(f64::NEG_INFINITY, f64::max),
    );
    let (y0, y1) = (
        pts.iter().map(|p| p.1.log10()).fold(f64::INFINITY, f64::min),
        pts.iter().map(|p| p.1.log10()).fold(f64::NEG_INFINITY, f64::max),
    );
    let sx = |x: f64| l + (x.log10() - x0) / (x1 - x0).max(1e-9) * w;
    let sy = |y: f64| t + h - (y.log10() - y0) / (y1 - y0).max(1e-9) * h;
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="11"><text x="8" y="18" font-size="13" font-weight="bold">{}</text><rect x="{l}" y="{t}" width="{w}" height="{h}" fill="none" stroke="#ccc"/>"##,
        l + w + 300.0,
        t + h + 40.0,
        esc(title)
    );
    for d in (x0.floor() as i32)..=(x1.ceil() as i32) {
        let x = 10f64.powi(d);
        if x.log10() >= x0 - 1e-9 && x.log10() <= x1 + 1e-9 {
            let _ = write!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">1e{d}</text>"#, sx(x), t + h + 14.0);
        }
    }
    for d in (y0.floor() as i32)..=(y1.ceil() as i32) {
        let y = 10f64.powi(d);
        if y.log10() >= y0 - 1e-9 && y.log10() <= y1 + 1e-9 {
            let _ = write!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">1e{d} B</text>"#, l - 4.0, sy(y) + 4.0);
        }
    }
    let palette =
        ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f", "#718096", "#c53030", "#319795", "#d53f8c", "#1a202c"];
    for (i, (name, p)) in series.iter().enumerate() {
        let c = palette[i % palette.len()];
        let path: Vec<String> = p.iter().map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y))).collect();
        let _ = write!(s, r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#, path.join(" "));
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" fill="{c}">{}</text>"#,
            l + w + 10.0,
            t + 12.0 + i as f64 * 14.0,
            esc(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

pub fn write_all(root: &Path) -> std::io::Result<()> {
    let dir = root.join("bench/results");
    let charts = root.join("bench/charts");
    std::fs::create_dir_all(&charts)?;
    let sets = load(&dir);
    let http: Option<HttpRun> =
        std::fs::read_to_string(dir.join("http.json")).ok().and_then(|t| serde_json::from_str(&t).ok());
    let meta: serde_json::Value = std::fs::read_to_string(dir.join("machine.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| machine(root));
    let mut o = String::new();
    let _ = writeln!(o, "# Benchmarks\n");
    let _ = writeln!(
        o,
        "Generated by `scripts/benchmarks.sh`: the Rust run `cargo run --release --manifest-path bench/Cargo.toml --features heavy -- all` \
         (which runs `scripts/fetch-data.sh`, the HTTP evaluation, one process per dataset, and writes `bench/results/*.json`), the Python \
         and TypeScript benchmarks, then this report (`-- report`, from the saved raw results alone). Do not edit by hand.\n"
    );
    let _ = writeln!(o, "- commit: `{}`", meta["commit"].as_str().unwrap_or("?"));
    let _ = writeln!(
        o,
        "- machine: {} cores (`nproc`), {}",
        meta["nproc"].as_str().unwrap_or("?"),
        meta["cpu"].as_str().unwrap_or("?")
    );
    let _ = writeln!(o, "- date: {}", meta["date"].as_str().unwrap_or("?"));
    let _ = writeln!(o, "- rustc: {}\n", meta["rustc"].as_str().unwrap_or("?"));
    o.push_str(include_str!("../METHOD.md"));
    if let Some(h) = &http {
        let _ = writeln!(o, "\n## The paper's evaluation, over HTTP on 127.0.0.1 (S&P 500, 2019)\n");
        o.push_str(PAPER_NOTE);
        o.push_str(&http_tables(h));
        let rows: Vec<(String, f64)> = h.results.iter().map(|r| (r.name.clone(), r.body_bytes as f64)).collect();
        std::fs::write(charts.join("http-bytes.svg"), bars("HTTP body bytes, S&P 500 2019", "B", &rows, false))?;
        let rows: Vec<(String, f64)> =
            h.results.iter().map(|r| (r.name.clone(), median(&r.keepalive_ms).unwrap_or(0.0))).collect();
        std::fs::write(
            charts.join("http-keepalive-ms.svg"),
            bars("HTTP request, kept-alive connection, median", "ms", &rows, false),
        )?;
        let _ = writeln!(o, "\n![bytes](bench/charts/http-bytes.svg)\n\n![time](bench/charts/http-keepalive-ms.svg)\n");
    }
    let _ = writeln!(o, "\n## The suite\n");
    let _ = writeln!(
        o,
        "Times are medians over interleaved rounds; ×JSON is the format's median divided by the baseline's ({BASELINE}) in the same run \
         (below 1 is faster). Sizes: raw, gzip -9 (flate2), zstd -19. A format that cannot represent a dataset says why.\n"
    );
    for d in &sets {
        let _ = writeln!(
            o,
            "### {}\n\n{}; {} records; {} interleaved rounds.{}\n",
            d.name,
            d.description,
            d.records,
            d.rounds,
            d.native.map(|n| format!(" Native size (field values alone): {n} B.")).unwrap_or_default()
                + &d.run.as_ref().map(|r| format!(" Run: {r}.")).unwrap_or_default()
        );
        let base = d.measures.iter().find(|m| m.format == BASELINE);
        let (be, bd) = (base.and_then(|b| b.encode_median_ns), base.and_then(|b| b.decode_median_ns));
        let _ = writeln!(
            o,
            "| format | bytes | gzip | zstd | encode | ×JSON | decode | ×JSON | decode peak heap | round-trip |"
        );
        let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|---:|:---|");
        for m in &d.measures {
            let rt = match (m.roundtrip, &m.error) {
                (Some(true), _) => "yes".to_string(),
                (Some(false), Some(e)) => format!("NO: {}", trunc(e)),
                (Some(false), None) => "NO: decoded value differs".to_string(),
                (None, Some(e)) => format!("n/a: {}", trunc(e)),
                _ => "?".into(),
            };
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                _ => "—".into(),
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                m.format,
                opt(m.bytes),
                opt(m.gzip),
                opt(m.zstd),
                m.encode_median_ns.map(fmt_ns).unwrap_or("—".into()),
                ratio(m.encode_median_ns, be),
                m.decode_median_ns.map(fmt_ns).unwrap_or("—".into()),
                ratio(m.decode_median_ns, bd),
                m.decode_peak_bytes.map(fmt_bytes).unwrap_or("—".into()),
                rt
            );
        }
        if !d.latency.is_empty() {
            let _ = writeln!(o, "\nPer message (each message encoded and decoded alone, timed with `Instant`, which adds ~20-30 ns to each figure):\n");
            let _ = writeln!(o, "| format | mean bytes | ser p50 | p99 | p99.9 | de p50 | p99 | p99.9 | round-trip |");
            let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|:---:|");
            for l in &d.latency {
                let _ = writeln!(
                    o,
                    "| {} | {:.1} | {} | {} | {} | {} | {} | {} | {} |",
                    l.format,
                    l.mean_bytes,
                    fmt_ns(l.ser_p50),
                    fmt_ns(l.ser_p99),
                    fmt_ns(l.ser_p999),
                    fmt_ns(l.de_p50),
                    fmt_ns(l.de_p99),
                    fmt_ns(l.de_p999),
                    if l.roundtrip { "yes" } else { "NO" }
                );
            }
        }
        let rows: Vec<(String, f64)> =
            d.measures.iter().filter_map(|m| m.bytes.map(|b| (m.format.clone(), b as f64))).collect();
        std::fs::write(
            charts.join(format!("size-{}.svg", d.name)),
            bars(&format!("{}: bytes (log scale)", d.name), "B", &rows, true),
        )?;
        let rows: Vec<(String, f64)> =
            d.measures.iter().filter_map(|m| Some((m.format.clone(), m.decode_median_ns? / bd?))).collect();
        std::fs::write(
            charts.join(format!("decode-{}.svg", d.name)),
            bars(&format!("{}: decode time ×JSON (log scale)", d.name), "×", &rows, true),
        )?;
        let rows: Vec<(String, f64)> =
            d.measures.iter().filter_map(|m| Some((m.format.clone(), m.encode_median_ns? / be?))).collect();
        std::fs::write(
            charts.join(format!("encode-{}.svg", d.name)),
            bars(&format!("{}: encode time ×JSON (log scale)", d.name), "×", &rows, true),
        )?;
        let _ = writeln!(
            o,
            "\n<details><summary>charts</summary>\n\n![size](bench/charts/size-{n}.svg)\n![encode](bench/charts/encode-{n}.svg)\n![decode](bench/charts/decode-{n}.svg)\n\n</details>\n",
            n = d.name
        );
    }
    // Scaling.
    let scaling = |prefix: &[&str], xs: &[f64]| -> Vec<(String, Vec<(f64, f64)>)> {
        let picks = [
            "JSON (serde_json)",
            "MessagePack names (rmp-serde)",
            "CBOR (ciborium)",
            "XML (quick-xml)",
            "Protocol Buffers (prost)",
            "bincode 1",
            "XBF v1 typed",
            "XBF 2 rows typed",
            "XBF 2 columnar",
            "XBF 2 columnar+zstd",
            "Tree-Buf (tree-buf 0.10), signed ints zigzag",
        ];
        picks
            .iter()
            .map(|f| {
                let pts = prefix
                    .iter()
                    .zip(xs)
                    .filter_map(|(n, x)| {
                        let d = sets.iter().find(|d| d.name == *n)?;
                        let m = d.measures.iter().find(|m| m.format == *f)?;
                        Some((*x, m.bytes? as f64))
                    })
                    .collect();
                (f.to_string(), pts)
            })
            .filter(|s: &(String, Vec<(f64, f64)>)| !s.1.is_empty())
            .collect()
    };
    let fl = scaling(&["flights-2k", "flights-20k", "flights-200k"], &[2e3, 2e4, 2e5]);
    std::fs::write(charts.join("scaling-flights.svg"), loglog("flights: bytes vs records (log-log)", &fl))?;
    let ps = scaling(&["ps-random-110", "ps-random-1100", "ps-random-11000"], &[110.0, 1100.0, 11000.0]);
    std::fs::write(
        charts.join("scaling-ps-random.svg"),
        loglog("Professor/Student, random text: bytes vs structures (log-log)", &ps),
    )?;
    let ps2 = scaling(&["ps-same-110", "ps-same-1100", "ps-same-11000"], &[110.0, 1100.0, 11000.0]);
    std::fs::write(
        charts.join("scaling-ps-same.svg"),
        loglog("Professor/Student, repeated text: bytes vs structures (log-log)", &ps2),
    )?;
    let _ = writeln!(o, "## Scaling\n\n![flights](bench/charts/scaling-flights.svg)\n\n![ps random](bench/charts/scaling-ps-random.svg)\n\n![ps same](bench/charts/scaling-ps-same.svg)\n");
    o.push_str(&typed_api_section(&sets));
    o.push_str(&tree_buf_section(&sets));
    o.push_str(&memory_section(&sets));
    for (title, md, raw) in [
        ("Python", "python/bench/RESULTS.md", "python/bench/results.json"),
        ("TypeScript", "ts/bench/RESULTS.md", "ts/bench/results.json"),
        ("Go", "go/bench/RESULTS.md", "go/bench/results/raw-*.txt"),
    ] {
        let _ = writeln!(o, "## {title}\n");
        match std::fs::read_to_string(root.join(md)) {
            Ok(text) => {
                let _ = writeln!(o, "`{md}` as written by its benchmark (raw results: `{raw}`), included verbatim:\n");
                o.push_str(text.trim_end());
                o.push_str("\n\n");
            }
            Err(_) => {
                let _ = writeln!(o, "`{md}` is not there: `scripts/benchmarks.sh` writes it.\n");
            }
        }
    }
    if let Ok(decisions) = std::fs::read_to_string(root.join("bench/DECISIONS.md")) {
        o.push_str(&decisions);
        o.push('\n');
    }
    if let Ok(reading) = std::fs::read_to_string(root.join("bench/READING.md")) {
        o.push_str(&reading);
    }
    std::fs::write(root.join("BENCHMARKS.md"), o)?;
    println!("wrote BENCHMARKS.md and bench/charts/*.svg");
    Ok(())
}

fn fmt_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}

fn find<'a>(d: &'a DatasetResult, prefix: &str) -> Option<&'a crate::formats::Measure> {
    d.measures.iter().find(|m| m.format.starts_with(prefix) && m.roundtrip == Some(true))
}

fn yes(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "**met**",
        Some(false) => "**not met**",
        None => "not measured",
    }
}

/// Issue #4's speed criteria, from the saved results: the derive path's
/// encode and decode against rmp-serde (field names) and serde_json, and
/// the ceiling the clone of the records puts on any decoder's ratio.
fn typed_api_section(sets: &[DatasetResult]) -> String {
    // A measure that round-tripped, by exact name; a ratio of two medians.
    let get = |d: &'_ DatasetResult, f: &str| -> Option<crate::formats::Measure> {
        d.measures.iter().find(|m| m.format == f && m.roundtrip == Some(true)).cloned()
    };
    let r = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
    let mut o = String::new();
    let _ = writeln!(o, "## The typed API against rmp-serde and serde_json (issue #4)\n");
    let _ = writeln!(
        o,
        "Same process, same records, same run. *derive* is `#[derive(xbf::Xbf)]` through `xbf::fast::to_vec` / `xbf::fast::from_slice` \
         (XBF 2 rows); the ratios are the peer's median time divided by the derive's (above 1: XBF is faster); the bars are 3× rmp-serde \
         with field names and 5× serde_json. *clone* is `Clone::clone` of the decoded records and their drop, no decoding at all: every \
         decoder into these owned types allocates, fills and frees the same strings and vecs, so no decoder can beat the peer by more than \
         *ceiling* = peer ÷ clone. The `-borrowed` sets read the same bytes into records whose strings borrow from the input \
         (`&str`, in every format whose reader can), so that nothing but the vec is allocated.\n"
    );
    let _ = writeln!(
        o,
        "| dataset | encode ×rmp | encode ×JSON | decode ×rmp | decode ×JSON | clone | ceiling ×rmp | ceiling ×JSON | met |"
    );
    let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|:---|");
    for d in sets {
        let (Some(x), Some(rmp), Some(json)) =
            (get(d, "XBF 2 rows derive"), get(d, "MessagePack names (rmp-serde)"), get(d, BASELINE))
        else {
            continue;
        };
        let clone = get(d, CLONE).and_then(|m| m.decode_median_ns);
        let (er, ej) = (r(rmp.encode_median_ns, x.encode_median_ns), r(json.encode_median_ns, x.encode_median_ns));
        let (dr, dj) = (r(rmp.decode_median_ns, x.decode_median_ns), r(json.decode_median_ns, x.decode_median_ns));
        let (cr, cj) = (r(rmp.decode_median_ns, clone), r(json.decode_median_ns, clone));
        let x2 = |v: Option<f64>| v.map(|v| format!("{v:.2}×")).unwrap_or("—".into());
        let all = [er.map(|v| v >= 3.0), ej.map(|v| v >= 5.0), dr.map(|v| v >= 3.0), dj.map(|v| v >= 5.0)];
        let met = if all.iter().all(|m| *m == Some(true)) {
            "**met**".to_string()
        } else {
            let unreachable = cr.is_some_and(|c| c < 3.0 && dr.is_some_and(|v| v < 3.0))
                || cj.is_some_and(|c| c < 5.0 && dj.is_some_and(|v| v < 5.0));
            if unreachable {
                "**not met**; above the clone's ceiling".to_string()
            } else {
                "**not met**".to_string()
            }
        };
        // The bars are for vecs of records; the wide struct is one value.
        let shape = if d.name == "lbs-wide" { " (one struct, no vec)" } else { "" };
        let _ = writeln!(
            o,
            "| {}{shape} | {} | {} | {} | {} | {} | {} | {} | {} |",
            d.name,
            x2(er),
            x2(ej),
            x2(dr),
            x2(dj),
            clone.map(fmt_ns).unwrap_or("—".into()),
            x2(cr),
            x2(cj),
            met
        );
    }
    if let Some(d) = sets.iter().find(|d| d.name == "tris-125k") {
        if let (Some(x), Some(mem)) = (get(d, "XBF 2 rows derive"), get(d, "memcpy of the in-memory bytes")) {
            let (e, de) = (r(mem.encode_median_ns, x.encode_median_ns), r(mem.decode_median_ns, x.decode_median_ns));
            let _ = writeln!(
                o,
                "\n125,000 records of four `[f32; 3]`: derive speed ÷ memcpy's speed, encode {} and decode {} (the bar is 0.25): {}\n",
                e.map(|v| format!("{v:.2}")).unwrap_or("—".into()),
                de.map(|v| format!("{v:.2}")).unwrap_or("—".into()),
                yes(e.zip(de).map(|(e, d)| e >= 0.25 && d >= 0.25))
            );
        }
    }
    o.push('\n');
    o
}

/// Issue #5's "Done when", from the saved results: sizes and single-threaded
/// decode of columnar XBF against Tree-Buf, JSON+zstd -19 and CSV+gzip -9.
fn tree_buf_section(sets: &[DatasetResult]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "## Columnar XBF against Tree-Buf (issue #5)\n");
    let _ = writeln!(
        o,
        "Same process, same records, same run for every column of a row. Bytes: *columnar* is `XBF 2 columnar` (no general compressor), \
         *+zstd* its per-column zstd stage; Tree-Buf is `tree_buf::encode` of the records (signed integers zigzag-mapped, as it has none); \
         JSON+zstd is zstd -19 of serde_json's output; CSV+gzip is gzip -9 of the csv crate's output (flat records only). Decode, one thread: \
         *XBF → Value* is `xbf::decode_message` into a dynamic `xbf::Value` tree; *XBF → typed* is `DecodeOptions::from_slice::<T>` into \
         the Rust structs (straight from the columns, no `Value` or rows in between, one serde call per value); *derive* is \
         `xbf::fast::from_slice::<T>` of `#[derive(xbf::Xbf)]`, which reads each column whole and puts the records together from them, \
         of the columnar message and (*+zstd derive*) of the one with the zstd stage; *Tree-Buf → typed* is \
         `tree_buf::decode_with_options` with `DisableParallel` into the Rust structs (through its mirror type where the records have \
         signed integers; the move back is in the timed call).\n"
    );
    let _ = writeln!(
        o,
        "| dataset | columnar B | +zstd B | Tree-Buf B | JSON+zstd B | CSV+gzip B | XBF → Value | XBF → typed | derive | +zstd derive | Tree-Buf → typed |"
    );
    let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut crit: Vec<String> = Vec::new();
    for name in ["earthquakes", "flights-20k", "sp500-2019"] {
        let Some(d) = sets.iter().find(|d| d.name == name) else {
            let _ = writeln!(o, "| {name} | no result | | | | | | | | | |");
            continue;
        };
        let col = d.measures.iter().find(|m| m.format == "XBF 2 columnar");
        let colz = d.measures.iter().find(|m| m.format == "XBF 2 columnar+zstd");
        let tb = find(d, "Tree-Buf");
        let json = d.measures.iter().find(|m| m.format == BASELINE);
        let csv = d.measures.iter().find(|m| m.format == "CSV (csv)");
        let typed = d.measures.iter().find(|m| m.format == "XBF 2 columnar → typed (from_slice)");
        let derive = d.measures.iter().find(|m| m.format == "XBF 2 columnar → typed (derive)");
        let derive_z = d.measures.iter().find(|m| m.format == "XBF 2 columnar+zstd → typed (derive)");
        let t =
            |m: Option<&crate::formats::Measure>| m.and_then(|m| m.decode_median_ns).map(fmt_ns).unwrap_or("—".into());
        let _ = writeln!(
            o,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            opt(col.and_then(|m| m.bytes)),
            opt(colz.and_then(|m| m.bytes)),
            opt(tb.and_then(|m| m.bytes)),
            opt(json.and_then(|m| m.zstd)),
            opt(csv.and_then(|m| m.gzip)),
            t(col),
            t(typed),
            t(derive),
            t(derive_z),
            t(tb)
        );
        let lt = |a: Option<u64>, b: Option<u64>| Some(a? < b?);
        let le = |a: Option<u64>, b: Option<u64>| Some(a? <= b?);
        let faster = |a: Option<&crate::formats::Measure>, b: Option<&crate::formats::Measure>| -> Option<bool> {
            Some(a?.decode_median_ns? < b?.decode_median_ns?)
        };
        let ratio = |a: Option<&crate::formats::Measure>, b: Option<&crate::formats::Measure>| -> String {
            match (a.and_then(|m| m.decode_median_ns), b.and_then(|m| m.decode_median_ns)) {
                (Some(x), Some(y)) => format!("{:.2}×", x / y),
                _ => "—".into(),
            }
        };
        let (cb, zb) = (col.and_then(|m| m.bytes), colz.and_then(|m| m.bytes));
        if name == "sp500-2019" {
            let g = csv.and_then(|m| m.gzip);
            let dated = d.measures.iter().find(|m| m.format == DATED).and_then(|m| m.bytes);
            crit.push(format!(
                "- S&P 500 2019: columnar smaller than CSV+gzip -9: {} ({} against {} B); with the zstd stage: {} ({} B); \
                 with the date as XBF's `date` type (as `xbf from-csv` reads the CSV), no zstd: {} ({} B)",
                yes(lt(cb, g)),
                opt(cb),
                opt(g),
                yes(lt(zb, g)),
                opt(zb),
                yes(lt(dated, g)),
                opt(dated)
            ));
        } else {
            let z = json.and_then(|m| m.zstd);
            let tbb = tb.and_then(|m| m.bytes);
            crit.push(format!(
                "- {name}: columnar smaller than JSON+zstd -19: {} ({} against {} B; with the zstd stage {}: {} B)",
                yes(lt(cb, z)),
                opt(cb),
                opt(z),
                yes(lt(zb, z)),
                opt(zb)
            ));
            crit.push(format!(
                "- {name}: columnar no larger than Tree-Buf: {} ({} against {} B; with the zstd stage {})",
                yes(le(cb, tbb)),
                opt(cb),
                opt(tbb),
                yes(le(zb, tbb))
            ));
            crit.push(format!(
                "- {name}: decoding faster than Tree-Buf's, single-threaded: into a Value {} ({} of Tree-Buf's time); into the typed records \
                 with serde {} ({}), with the derive {} ({}), with the derive from the zstd-staged message {} ({})",
                yes(faster(col, tb)),
                ratio(col, tb),
                yes(faster(typed, tb)),
                ratio(typed, tb),
                yes(faster(derive, tb)),
                ratio(derive, tb),
                yes(faster(derive_z, tb)),
                ratio(derive_z, tb)
            ));
        }
    }
    if let Some(d) = sets.iter().find(|d| d.name == "ten-fields-100k") {
        let all = d.measures.iter().find(|m| m.format == "XBF 2 columnar").and_then(|m| m.decode_median_ns);
        let one = d
            .measures
            .iter()
            .find(|m| m.format.starts_with("XBF 2 columnar, project"))
            .and_then(|m| m.decode_median_ns);
        let r = all.zip(one).map(|(a, b)| a / b);
        crit.push(format!(
            "- ten fields × 100,000 records: one field at least 5× as fast to decode as all: {} ({})",
            yes(r.map(|r| r >= 5.0)),
            r.map(|r| format!("{r:.1}×")).unwrap_or("—".into())
        ));
    }
    let _ = writeln!(
        o,
        "\nIssue #5's criteria, judged from the figures above (computed by the report, not written by hand):\n"
    );
    for c in crit {
        let _ = writeln!(o, "{c}");
    }
    o.push('\n');
    o
}

/// Peak heap of one decode per format for the largest inputs.
fn memory_section(sets: &[DatasetResult]) -> String {
    const BIG: [&str; 5] = ["flights-200k", "sp500-2000-2020", "ps-random-11000", "ps-same-11000", "tris-125k"];
    let ds: Vec<&DatasetResult> = BIG.iter().filter_map(|n| sets.iter().find(|d| d.name == *n)).collect();
    let mut o = String::new();
    let _ = writeln!(o, "## Peak memory of decode (largest inputs)\n");
    let _ = writeln!(
        o,
        "Peak live heap bytes allocated by one decode (the decoded output included; the encoded input, already in memory, not counted), \
         measured by a counting global allocator in a pass of its own after the timing rounds (counting is switched off while timing). \
         Columns: dataset (encoded bytes of JSON for scale).\n"
    );
    if ds.is_empty() {
        return o;
    }
    let mut formats: Vec<String> = Vec::new();
    for d in &ds {
        for m in &d.measures {
            if !formats.contains(&m.format) {
                formats.push(m.format.clone());
            }
        }
    }
    let head: Vec<String> = ds
        .iter()
        .map(|d| {
            let j = d.measures.iter().find(|m| m.format == BASELINE).and_then(|m| m.bytes);
            format!("{} ({})", d.name, j.map(fmt_bytes).unwrap_or("—".into()))
        })
        .collect();
    let _ = writeln!(o, "| format | {} |", head.join(" | "));
    let _ = writeln!(o, "|---|{}", "---:|".repeat(ds.len()));
    for f in &formats {
        let cells: Vec<String> = ds
            .iter()
            .map(|d| {
                d.measures
                    .iter()
                    .find(|m| &m.format == f)
                    .and_then(|m| m.decode_peak_bytes)
                    .map(fmt_bytes)
                    .unwrap_or("—".into())
            })
            .collect();
        let _ = writeln!(o, "| {f} | {} |", cells.join(" | "));
    }
    o.push('\n');
    o
}

fn trunc(e: &str) -> String {
    let e = e.replace('|', "/").replace('\n', " ");
    if e.chars().count() > 90 {
        format!("{}…", e.chars().take(90).collect::<String>())
    } else {
        e
    }
}

/// Commit, cores, CPU, date, rustc: recorded once by `all` in machine.json.
pub fn machine(root: &Path) -> serde_json::Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let dirty = !cmd("git", &["-C", root.to_str().unwrap(), "status", "--porcelain", "--", "crates"]).is_empty();
    serde_json::json!({
        "commit": format!("{}{}", cmd("git", &["-C", root.to_str().unwrap(), "rev-parse", "--short", "HEAD"]), if dirty { " (crates/ modified)" } else { "" }),
        "nproc": cmd("nproc", &[]),
        "cpu": cpu,
        "date": cmd("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        "rustc": cmd("rustc", &["--version"]),
    })
}

const PAPER_NOTE: &str = "The paper's figures are not reproducible as printed, and this table does not try to match them: \
(1) the paper's benchmark code drops the Volume column, so its XBF figure (14,686 B) is for six columns; with Volume, XBF v1 is \
16,694 B for the paper's data; (2) the paper measured Sony stock rows, this is one year (2019) of S&P 500 rows, so every size differs; \
(3) the paper's MessagePack figure is the array form (no field names), shown here as \"MessagePack (arrays)\" beside the named form; \
(4) its overhead column is off by 30 bytes. Times are on loopback on this machine, not the paper's network; \
the client's decode time (decode and compare with the rows) was not measured by the paper.\n\n";
