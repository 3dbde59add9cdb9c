//! Reads an XBF file's columns as Arrow batches, one block at a time on one
//! thread (or on `XBF_THREADS` threads), for profiling the column path
//! (`valgrind --tool=callgrind`):
//!
//!     cargo run --release -p xbf-arrow --example read_columns -- FILE [COLUMN...]
//!
//! Prints the rows read and the seconds taken.

use std::fs::File;
use std::io::BufReader;

use arrow_array::RecordBatchReader;
use xbf::FileReader;
use xbf_arrow::{FileBatchReader, ScanOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: read_columns FILE [COLUMN...]")?;
    let columns: Vec<String> = args.collect();
    let opts = ScanOptions { columns: (!columns.is_empty()).then_some(columns), ..ScanOptions::default() };
    let start = std::time::Instant::now();
    let threads: usize = std::env::var("XBF_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
    let extra = (1..threads.max(1))
        .map(|_| Ok(FileReader::open(BufReader::new(File::open(&path)?))?))
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    let reader = FileBatchReader::new(BufReader::new(File::open(&path)?), opts)?.with_threads(extra);
    let schema = reader.schema();
    let mut rows = 0;
    for batch in reader {
        rows += batch?.num_rows();
    }
    println!("{rows} rows of {} columns in {:.4} s", schema.fields().len(), start.elapsed().as_secs_f64());
    Ok(())
}
