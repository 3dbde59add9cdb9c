//! Blocks of typed columns encoded apart from the file they go into, so
//! that a writer can encode several blocks at once, each on a thread of its
//! own, and then write them in order ([`FileWriter::write_encoded`]).
//!
//! [`FileWriter::write_encoded`]: super::FileWriter::write_encoded

use std::collections::HashMap;
use std::sync::Arc;

use crate::columnar::{self, BlockColumns, ColumnConfig};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::Metadata;
use crate::wire::varint;

use super::stats::{self, ColumnStatistics};

/// Encodes blocks for one [`FileWriter`](super::FileWriter) (its type and
/// column settings): cheap to clone, and `Send` and `Sync`, so each thread
/// of a writer can hold one.
#[derive(Clone, Debug)]
pub struct BlockEncoder {
    pub(super) ty: Metadata,
    pub(super) ty_bytes: Arc<[u8]>,
    pub(super) cfg: ColumnConfig,
    pub(super) stats: bool,
}

/// A block's body (its record count, then its columns) and its columns'
/// statistics, ready for [`FileWriter::write_encoded`](super::FileWriter::write_encoded).
#[derive(Debug)]
pub struct EncodedBlock {
    pub(super) ty_bytes: Arc<[u8]>,
    pub(super) records: u64,
    pub(super) body: Vec<u8>,
    pub(super) stats: HashMap<String, ColumnStatistics>,
}

impl EncodedBlock {
    /// The number of records in the block.
    pub fn records(&self) -> u64 {
        self.records
    }
}

impl BlockEncoder {
    /// Encodes a block's columns (SPEC.md §24.3) and takes their statistics;
    /// fails with `type-mismatch` unless they are of the file's type and
    /// their counts agree.
    pub fn encode(&self, block: BlockColumns) -> Result<EncodedBlock> {
        if block.metadata().bytes_v2() != *self.ty_bytes {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("a file of {} given columns of {}", self.ty, block.metadata()),
            ));
        }
        block.check()?;
        let records = block.records() as u64;
        let mut body = Vec::new();
        varint::put(&mut body, u128::from(records));
        let stats = if self.stats && records > 0 {
            let bounds = block.bounds(stats::stat_type);
            bounds.into_iter().map(|(k, b)| (k, stats::of_bounds(b.lo, b.hi, b.nulls, b.nans))).collect()
        } else {
            HashMap::new()
        };
        if records > 0 {
            // Files may use the entropy-coded integers (SPEC.md §22.2, `04`).
            let _entropy = columnar::EntropyEnabled::new();
            block.write(&mut body, &self.cfg);
        }
        Ok(EncodedBlock { ty_bytes: self.ty_bytes.clone(), records, body, stats })
    }
}
