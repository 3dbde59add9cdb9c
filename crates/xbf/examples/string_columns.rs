//! One string column at a time of the files `encode_columns` reads, for
//! measuring the string encoder per column (coreenc13, issue 24): each
//! top-level string field of a list of records becomes a list of records
//! of that field alone, written by `EncodeOptions::encode_columns` ROUNDS
//! times (run it under callgrind with
//! `--toggle-collect='*EncodeOptions*encode_columns_kept'`).
//!
//! `cargo run --release -p xbf --features json --example string_columns -- --vega DIR [--rounds N] FILE [COLUMN]`
//! prints each column's name, its values, distinct values, runs (of equal
//! neighbours), mean length, values under 8 bytes, the message's size and
//! (values of other types than strings or nulls skip the column; nulls
//! are counted among neither); with COLUMN, only that column.

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::Value as J;
use xbf::{Columns, EncodeOptions};

#[path = "common/bench_files.rs"]
mod bench_files;

fn main() {
    let mut vega = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/data/vega-datasets"));
    let (mut rounds, mut names) = (1usize, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--vega" => vega = args.next().expect("a directory after --vega").into(),
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).expect("a count after --rounds"),
            _ => names.push(a),
        }
    }
    let name = names.first().expect("a file");
    // CSV typed as bench.py types it: its string columns are those that are
    // neither all ints nor all floats.
    let json: J = serde_json::from_str(&bench_files::json_text(&vega, name)).expect("JSON");
    let rows = json.as_array().expect("a list of records");
    let mut keys: Vec<String> = Vec::new();
    for r in rows {
        for (k, v) in r.as_object().into_iter().flatten() {
            if v.is_string() && !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    for key in keys.iter().filter(|k| names.len() < 2 || names[1..].contains(k)) {
        let col: Vec<J> = rows.iter().map(|r| r.get(key).cloned().unwrap_or(J::Null)).collect();
        if !col.iter().all(|v| v.is_string() || v.is_null()) {
            continue;
        }
        let strs: Vec<&str> = col.iter().filter_map(J::as_str).collect();
        let one = J::Array(col.iter().map(|v| J::Object([(key.clone(), v.clone())].into_iter().collect())).collect());
        let v = xbf::json::from_json_str(&one.to_string()).expect("JSON");
        let mut bytes = Vec::new();
        for _ in 0..rounds {
            let ty = v.metadata();
            let mut columns = Columns::new(&ty);
            columns.root().push_value(&v).expect("a value of its own type");
            bytes = EncodeOptions::v2().encode_columns(columns).expect("columns of a checked value");
        }
        let distinct = strs.iter().collect::<HashSet<_>>().len();
        let runs = 1 + strs.windows(2).filter(|w| w[0] != w[1]).count();
        let mean = strs.iter().map(|s| s.len()).sum::<usize>() as f64 / strs.len().max(1) as f64;
        let short = strs.iter().filter(|s| s.len() < 8).count();
        println!(
            "{{\"file\": {:?}, \"column\": {:?}, \"n\": {}, \"distinct\": {distinct}, \"runs\": {runs}, \"mean_len\": {mean:.1}, \"short\": {short}, \"bytes\": {}}}",
            name,
            key,
            strs.len(),
            bytes.len()
        );
    }
}
