//! The measurement behind FSST (SPEC.md §24.9): the string columns of the
//! vega datasets, in blocks of the file writer's 131,072 values, written
//! with the encodings `20`–`22` alone (and the file-only integer encodings
//! inside them) and with FSST (`23`) as well, each
//! with and without the zstd stage (level 19), and the time to decode.
//! Ignored by default (it needs `scripts/fetch-data.sh` and
//! `scripts/flights-3m-csv.sh`); run with
//! `cargo test --release -p xbf --features zstd --lib fsst_measure -- --ignored --nocapture`.

use std::time::Instant;

use super::cursor::Cursor;
use super::{entropy, strings, Budget};

const BLOCK: usize = 131_072;

fn data(name: &str) -> Option<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/data");
    std::fs::read_to_string(format!("{dir}/vega-datasets/{name}"))
        .or_else(|_| std::fs::read_to_string(format!("{dir}/{name}")))
        .ok()
}

/// The string field `key` of each object of the array at `pointer`.
fn json_column(name: &str, pointer: &str, key: &str) -> Option<Vec<String>> {
    let v: serde_json::Value = serde_json::from_str(&data(name)?).ok()?;
    let rows = v.pointer(pointer)?.as_array()?;
    Some(rows.iter().filter_map(|r| r.pointer(key).and_then(|s| s.as_str()).map(str::to_owned)).collect())
}

/// Column `col` of a CSV file with a header (quoted fields of commas too).
fn csv_column(name: &str, col: usize, limit: usize) -> Option<Vec<String>> {
    let text = data(name)?;
    let mut out = Vec::new();
    for line in text.lines().skip(1).take(limit) {
        let (mut fields, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        for ch in line.chars() {
            match ch {
                '"' => quoted = !quoted,
                ',' if !quoted => fields.push(std::mem::take(&mut cur)),
                _ => cur.push(ch),
            }
        }
        fields.push(cur);
        out.push(fields.get(col)?.clone());
    }
    Some(out)
}

/// Bytes of one block's column: the encodings `20`–`22` (`false`) or
/// with `23` (`true`), then zstd at level 19 of the best or plain.
fn sizes(values: &[&[u8]], fsst: bool) -> (usize, usize, u8, f64) {
    // The file writer's encodings (`04`, `05` for the integers inside),
    // with FSST or without.
    let _on = entropy::Enabled::new();
    super::fsst::OFF.with(|off| off.set(!fsst));
    let body = strings::encode(values);
    let zstd = strings::candidates(values)
        .iter()
        .map(|c| (zstd::bulk::compress(c, 19).expect("zstd").len() + 4).min(c.len()))
        .min()
        .expect("one");
    // The decode time: median of five.
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut c = Cursor::new(&body, 0).in_file();
            let out = strings::decode_joined(&mut c, values.len() as u64, &mut Budget::new(1 << 32)).expect("decodes");
            std::hint::black_box(out);
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (body.len(), zstd, body[0], times[2])
}

#[test]
#[ignore]
fn fsst_measure() {
    let columns: Vec<(&str, Option<Vec<String>>)> = vec![
        ("movies Title", json_column("movies.json", "", "/Title")),
        ("movies Director", json_column("movies.json", "", "/Director")),
        ("movies Distributor", json_column("movies.json", "", "/Distributor")),
        ("movies Major Genre", json_column("movies.json", "", "/Major Genre")),
        ("movies Release Date", json_column("movies.json", "", "/Release Date")),
        ("github time", csv_column("github.csv", 0, usize::MAX)),
        ("airports name", csv_column("airports.csv", 1, usize::MAX)),
        ("airports city", csv_column("airports.csv", 2, usize::MAX)),
        ("jobs job", json_column("jobs.json", "", "/job")),
        ("football division", json_column("football.json", "", "/division")),
        ("football home_team", json_column("football.json", "", "/home_team")),
        ("earthquakes place", json_column("earthquakes.json", "/features", "/properties/place")),
        ("earthquakes url", json_column("earthquakes.json", "/features", "/properties/url")),
        ("earthquakes id", json_column("earthquakes.json", "/features", "/id")),
        ("flights-3m origin", csv_column("flights-3m.csv", 3, usize::MAX)),
        ("flights-3m destination", csv_column("flights-3m.csv", 4, usize::MAX)),
    ];
    println!("| column | values | bytes | 20-22: encoding, B | + zstd | with 23: encoding, B | + zstd | decode 20-22 ms | decode 23 ms |");
    println!("| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: |");
    let name = |b: u8| crate::wire::ColumnEncoding::from_byte(b).map_or("?", |e| e.name());
    for (label, col) in columns {
        let Some(col) = col else {
            println!("| {label} | (no data) |");
            continue;
        };
        let mut row = [0usize; 4];
        let (mut encs, mut t) = ([0u8; 2], [0f64; 2]);
        for block in col.chunks(BLOCK) {
            let values: Vec<&[u8]> = block.iter().map(|s| s.as_bytes()).collect();
            for (k, fsst) in [false, true].into_iter().enumerate() {
                let (size, zstd, enc, time) = sizes(&values, fsst);
                row[2 * k] += size;
                row[2 * k + 1] += zstd;
                encs[k] = enc;
                t[k] += time;
            }
        }
        let bytes: usize = col.iter().map(String::len).sum();
        println!(
            "| {label} | {} | {bytes} | {} {} | {} | {} {} | {} | {:.3} | {:.3} |",
            col.len(),
            name(encs[0]),
            row[0],
            row[1],
            name(encs[1]),
            row[2],
            row[3],
            t[0] * 1e3,
            t[1] * 1e3
        );
    }
}
