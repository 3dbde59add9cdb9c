//! Reads an XBF file's columns as Arrow batches, one block at a time on one
//! thread, for profiling the column path (`valgrind --tool=callgrind`):
//!
//!     cargo run --release -p xbf-arrow --example read_columns -- FILE [COLUMN...]
//!
//! Prints the rows read and the seconds taken.

use std::fs::File;
use std::io::BufReader;

use arrow_array::RecordBatchReader;
use xbf_arrow::{FileBatchReader, ScanOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: read_columns FILE [COLUMN...]")?;
    let columns: Vec<String> = args.collect();
    let opts = ScanOptions { columns: (!columns.is_empty()).then_some(columns), ..ScanOptions::default() };
    let start = std::time::Instant::now();
    let reader = FileBatchReader::new(BufReader::new(File::open(&path)?), opts)?;
    let schema = reader.schema();
    let mut rows = 0;
    for batch in reader {
        rows += batch?.num_rows();
    }
    println!("{rows} rows of {} columns in {:.4} s", schema.fields().len(), start.elapsed().as_secs_f64());
    Ok(())
}
