//! The benchmark files as the column examples (`encode_columns`,
//! `string_columns`) read them: JSON as it is, CSV typed as
//! python/bench/bench.py types it. Not an example of its own (a module in a
//! folder), included by each with `#[path]`.

use std::path::Path;

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
pub fn csv_json(text: &str) -> serde_json::Value {
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

/// The JSON text of a benchmark file: `sp500-2019.csv` from the CLI's
/// data, the others from the vega-datasets folder `vega`; CSV through
/// [`csv_json`].
pub fn json_text(vega: &Path, name: &str) -> String {
    let path = if name == "sp500-2019.csv" {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../xbf-cli/data").join(name)
    } else {
        vega.join(name)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if name.ends_with(".csv") {
        csv_json(&text).to_string()
    } else {
        text
    }
}
