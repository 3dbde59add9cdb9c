//! The core's column encoders on the files the Python and TypeScript
//! benchmarks use (python/bench/bench.py's datasets and its held-out
//! files): each file is read through the core's JSON reader (CSV files
//! typed as bench.py types them: a column of ints where every value parses
//! as one, else of floats where every value does, else strings), pushed
//! into [`xbf::Columns`] and written by `EncodeOptions::encode_columns`,
//! the path `xbf.dumps` takes for lists of records.
//!
//! Prints each file's message size and the SHA-256 of its bytes (which a
//! change to how the encoders choose must leave as they are:
//! encode_columns-hashes.txt beside this file holds them), and the time of
//! ROUNDS encodes. Under `valgrind --tool=callgrind` with one file and
//! `--toggle-collect='*encode_columns*'`, the instruction counts of the
//! encoders alone (scripts in BENCHMARKS.md, "Column encoders").
//!
//! `cargo run --release -p xbf --features json --example encode_columns -- [--vega DIR] [--rounds N] [FILE...]`
//! (`--list` prints the files it reads by default).

use std::path::{Path, PathBuf};
use std::time::Instant;

use sha2::{Digest, Sha256};
use xbf::{Columns, EncodeOptions, Value};

/// bench.py's `datasets` (sp500 comes from crates/xbf-cli/data), then its `HELD_OUT`.
const FILES: [&str; 16] = [
    "sp500-2019.csv",
    "flights-20k.json",
    "movies.json",
    "github.csv",
    "airports.csv",
    "unemployment-across-industries.json",
    "gapminder.json",
    "cars.json",
    "penguins.json",
    "countries.json",
    "budgets.json",
    "normal-2d.json",
    "birdstrikes.csv",
    "seattle-weather.csv",
    "windvectors.csv",
    "us-employment.csv",
];

/// A CSV file's records (RFC 4180: quoted fields may hold commas, quotes
/// doubled and line breaks).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// A CSV file as the JSON list of records bench.py's `csv_rows` makes of it.
fn csv_json(text: &str) -> serde_json::Value {
    use serde_json::Value as J;
    let mut records = csv_records(text).into_iter();
    let header = records.next().unwrap_or_default();
    let rows: Vec<Vec<String>> = records.collect();
    let column = |i: usize| rows.iter().map(move |r| r.get(i).map_or("", String::as_str));
    let typed: Vec<Vec<J>> = (0..header.len())
        .map(|i| {
            if let Ok(xs) = column(i).map(str::parse::<i64>).collect::<Result<Vec<_>, _>>() {
                xs.into_iter().map(J::from).collect()
            } else if let Ok(xs) = column(i).map(str::parse::<f64>).collect::<Result<Vec<_>, _>>() {
                xs.into_iter().map(J::from).collect()
            } else {
                column(i).map(J::from).collect()
            }
        })
        .collect();
    J::Array(
        (0..rows.len())
            .map(|r| J::Object(header.iter().zip(&typed).map(|(k, col)| (k.clone(), col[r].clone())).collect()))
            .collect(),
    )
}

fn load(vega: &Path, name: &str) -> Value {
    let path = if name == "sp500-2019.csv" {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../xbf-cli/data").join(name)
    } else {
        vega.join(name)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json = if name.ends_with(".csv") { csv_json(&text).to_string() } else { text };
    xbf::json::from_json_str(&json).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The message `xbf.dumps` writes for the value's columns.
fn encode(v: &Value) -> Vec<u8> {
    let ty = v.metadata();
    let mut columns = Columns::new(&ty);
    columns.root().push_value(v).expect("a value of its own type");
    EncodeOptions::v2().encode_columns(columns).expect("columns of a checked value")
}

fn main() {
    let mut vega = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/data/vega-datasets"));
    let (mut rounds, mut names) = (1usize, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--vega" => vega = args.next().expect("a directory after --vega").into(),
            "--list" => return FILES.iter().for_each(|f| println!("{f}")),
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).expect("a count after --rounds"),
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = FILES.iter().map(|s| s.to_string()).collect();
    }
    for name in &names {
        let v = load(&vega, name);
        let start = Instant::now();
        let mut bytes = Vec::new();
        for _ in 0..rounds {
            bytes = encode(&v);
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / rounds as f64;
        let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        println!("{name:40} {:9} bytes  sha256 {hash}  {per:10.1} µs/encode", bytes.len());
    }
}
