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
//! encode_columns-hashes.txt beside this file holds them, and
//! scripts/test-all.sh compares), and the time of
//! ROUNDS encodes. Under `valgrind --tool=callgrind` with one file and
//! `--toggle-collect='*encode_columns*'`, the instruction counts of the
//! encoders alone (scripts in BENCHMARKS.md, "Column encoders").
//!
//! `cargo run --release -p xbf --features json --example encode_columns -- [--vega DIR] [--rounds N] [FILE...]`
//! (`--list` prints the files it reads by default).

use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common/bench_files.rs"]
mod bench_files;

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

fn load(vega: &Path, name: &str) -> Value {
    xbf::json::from_json_str(&bench_files::json_text(vega, name)).unwrap_or_else(|e| panic!("{name}: {e}"))
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
