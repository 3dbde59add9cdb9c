//! The two ways an Arrow batch becomes an XBF file, for instruction counts
//! under callgrind (a before/after that the machine's load does not move):
//!
//! ```text
//! cargo build --release -p xbf-arrow --example write_paths
//! valgrind --tool=callgrind target/release/examples/write_paths {none|records|columns} [rows]
//! ```
//!
//! Every mode reads vega's flights-200k.json (the first `rows` records,
//! 200,000 by default) into an Arrow batch; `records` then writes it the way
//! `FileBatchWriter` did before typed columns (a `Value` a record into
//! `FileWriter::write`), `columns` the way it does now. The write's count is
//! a mode's total less `none`'s. Both give the same bytes (tests/write_columns.rs
//! checks it; here each prints its file's size).

use xbf::{FileOptions, FileWriter, Value};
use xbf_arrow::{batch_to_records, records_to_batch, xbf_type, FileBatchWriter};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "columns".into());
    let rows: usize = std::env::args().nth(2).map_or(200_000, |n| n.parse().expect("a row count"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/data/vega-datasets/flights-200k.json");
    let text = std::fs::read_to_string(path).expect("scripts/fetch-data.sh fetches flights-200k.json");
    let Value::Vec(all) = xbf::json::from_json_str(&text).expect("JSON") else { panic!("a list of records") };
    let records = &all.items()[..rows.min(all.len())];
    let batch = records_to_batch(all.element_type(), records).expect("an Arrow batch");
    let schema = batch.schema();
    let opts = FileOptions::default();
    let bytes = match mode.as_str() {
        "none" => Vec::new(),
        "records" => {
            let ty = xbf_type(&schema).expect("a type");
            let mut w = FileWriter::new(Vec::new(), ty.clone(), opts).expect("a writer");
            for r in batch_to_records(&ty, &batch).expect("records") {
                w.write(r).expect("a record");
            }
            w.finish().expect("a file")
        }
        "columns" => {
            let mut w = FileBatchWriter::new(Vec::new(), &schema, opts).expect("a writer");
            w.write(&batch).expect("a batch");
            w.finish().expect("a file")
        }
        other => panic!("{other}: none, records or columns"),
    };
    println!("{mode}: {} rows, {} bytes", batch.num_rows(), bytes.len());
}
