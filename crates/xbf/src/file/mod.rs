//! XBF files (SPEC.md §24): a columnar record stream for tables on disk.
//! The header and type once; then blocks, each the columns of up to a few
//! hundred thousand records with a CRC-32C; then a footer that lists every
//! block with, for every column, its size, CRC-32C and statistics, so that a
//! reader can open the file from the end, read any block or column of it
//! directly and skip blocks a filter rules out, or read it forward with
//! nothing but the blocks.

mod block_encoder;
mod footer;
mod reader;
pub(crate) mod stats;
mod writer;

pub use block_encoder::{BlockEncoder, EncodedBlock};
pub use footer::{BlockInfo, ColumnInfo};
pub use reader::{is_file, Blocks, DamagedBlock, FileReader, FileStreamReader, ReadOptions};
pub use stats::{ColumnStatistics, Op, Predicate};
pub use writer::{approx_size, FileOptions, FileWriter};
