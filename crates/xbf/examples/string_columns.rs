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

#[cfg(feature = "json")]
fn main() {
    use std::collections::HashSet;
    use std::path::{Path, PathBuf};

    use serde_json::Value as J;
    use xbf::{Columns, EncodeOptions};

    /// A CSV file's records (RFC 4180), as `encode_columns` reads them.
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

    /// The string columns of a CSV file (those `encode_columns` types as
    /// strings: not every value an int, nor every value a float).
    fn csv_json(text: &str) -> J {
        let mut records = csv_records(text).into_iter();
        let header = records.next().unwrap_or_default();
        let rows: Vec<Vec<String>> = records.collect();
        let column = |i: usize| rows.iter().map(move |r| r.get(i).map_or("", String::as_str));
        let strings: Vec<usize> = (0..header.len())
            .filter(|&i| column(i).any(|s| s.parse::<i64>().is_err()) && column(i).any(|s| s.parse::<f64>().is_err()))
            .collect();
        J::Array(
            rows.iter()
                .map(|r| {
                    J::Object(
                        strings
                            .iter()
                            .map(|&i| (header[i].clone(), J::from(r.get(i).map_or("", String::as_str))))
                            .collect(),
                    )
                })
                .collect(),
        )
    }

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
    let path = if name == "sp500-2019.csv" {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../xbf-cli/data").join(name)
    } else {
        vega.join(name)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: J = if name.ends_with(".csv") { csv_json(&text) } else { serde_json::from_str(&text).expect("JSON") };
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

#[cfg(not(feature = "json"))]
fn main() {
    eprintln!("needs --features json");
}
