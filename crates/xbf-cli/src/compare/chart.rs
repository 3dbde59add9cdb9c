//! `xbf compare --chart FILE.svg`: the bytes of each format, raw, gzip'd and
//! zstd'd, as a horizontal bar chart in plain SVG.

use std::fmt::Write as _;

use super::Report;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The chart: one group of three bars per format, scaled to the largest.
pub fn svg(label: &str, native: u64, reports: &[Report]) -> String {
    const LEFT: f64 = 190.0;
    const BAR_W: f64 = 520.0;
    const ROW: f64 = 46.0;
    const TOP: f64 = 70.0;
    let width = LEFT + BAR_W + 110.0;
    let height = TOP + ROW * reports.len() as f64 + 40.0;
    let max = reports.iter().map(|r| r.bytes.max(r.gzip).max(r.zstd)).max().unwrap_or(1).max(native).max(1) as f64;
    let scale = |b: u64| b as f64 / max * BAR_W;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ =
        writeln!(s, r##"<text x="16" y="24" font-size="15" font-weight="bold" fill="#222">Bytes per format</text>"##);
    let _ = writeln!(s, r##"<text x="16" y="42" fill="#555">{}</text>"##, escape(label));
    let legend = [("#2b6cb0", "raw"), ("#68a0d8", "gzip -9"), ("#a9cbee", "zstd -19")];
    for (i, (color, name)) in legend.iter().enumerate() {
        let x = LEFT + i as f64 * 90.0;
        let _ = writeln!(s, r#"<rect x="{x}" y="50" width="12" height="10" fill="{color}"/>"#);
        let _ = writeln!(s, r##"<text x="{}" y="59" fill="#333">{name}</text>"##, x + 16.0);
    }
    if native > 0 {
        let x = LEFT + scale(native);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#c53030" stroke-dasharray="4 3"/>"##,
            TOP + ROW * reports.len() as f64
        );
        let _ = writeln!(
            s,
            r##"<text x="{x:.1}" y="{:.1}" fill="#c53030" text-anchor="middle">native {native}</text>"##,
            TOP + ROW * reports.len() as f64 + 14.0
        );
    }
    for (i, r) in reports.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let name = if r.cannot.is_some() {
            format!("{} (cannot hold)", r.name)
        } else if r.roundtrip_ok {
            r.name.to_owned()
        } else {
            format!("{} (✗ round-trip)", r.name)
        };
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#222">{}</text>"##,
            LEFT - 8.0,
            y + 17.0,
            escape(&name)
        );
        if r.cannot.is_some() {
            continue;
        }
        for (j, (b, (color, _))) in [r.bytes, r.gzip, r.zstd].into_iter().zip(legend).enumerate() {
            let by = y + 4.0 + j as f64 * 12.0;
            let w = scale(b).max(1.0);
            let _ = writeln!(s, r#"<rect x="{LEFT}" y="{by:.1}" width="{w:.1}" height="11" fill="{color}"/>"#);
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#333" font-size="10">{b}</text>"##,
                LEFT + w + 4.0,
                by + 9.0
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
