//! Lists of flat records (dicts of str keys whose values are None, bool,
//! float, str or ints of at most 64 bits, all of exact types) to the
//! columnar layout in one pass that both infers the type and gathers each
//! key's values, then through the core's column builder. Records may lack
//! keys or give them in other orders: the keys are merged as inference
//! merges them (`xbf::infer::Objects`), so the type is the one
//! `Shape::of` gives, and the bytes those of the general path.
//!
//! By role:
//! - [`column`]: one key's values as read ([`RawColumn`]);
//! - [`keys`]: the keys met and their orders;
//! - [`gather`](mod@gather): the walk over the records' dicts, then the
//!   type inferred;
//! - [`fill`]: the columns handed to the core's column builder, and the
//!   columnar message (the rows message is `records_rows`').

use std::sync::Arc;

use xbf::{Metadata, Repeats};

mod column;
mod fill;
mod gather;
mod keys;

pub(crate) use column::{RawColumn, K_ABSENT, K_BOOL, K_FLOAT, K_INT, K_NULL, K_STR, K_UINT};
pub(crate) use fill::Written;
pub(crate) use gather::gather;

/// The type inferred for a list of flat records, its metadata bytes (XBF
/// 2), and the column of each struct field (`slots`, in the struct's
/// order): what an `xbf.Encoder` reuses when the next list has the same
/// keys and kinds of values.
pub(crate) struct RecordsType {
    pub(crate) ty: Metadata,
    pub(crate) meta: Vec<u8>,
    slots: Vec<usize>,
}

/// A list of flat records read in one pass that both infers the type and
/// gathers the columns: each key's values (`cols`) and the type.
pub(crate) struct Gathered {
    pub(crate) cols: Vec<RawColumn>,
    typed: Arc<RecordsType>,
    n: usize,
}

impl Gathered {
    /// The core's `Layout::Auto` test (`xbf::worth_columns`, which
    /// `columns::worth_columns` runs on Python objects) on these records: a
    /// list of `n` records whose fields are all scalars. Measured: the walk
    /// on the objects (a list of keys and one of values made for each of the
    /// first four records) cost ~25,000 instructions a call on sp500.
    pub(crate) fn worth_columns(&self) -> bool {
        // 0: the list, 1: a record (its fields add no items).
        xbf::worth_columns(0u8, &|level| {
            if level == 0 {
                Repeats::List(self.n, vec![1; self.n.min(4)])
            } else {
                Repeats::Fields(Vec::new())
            }
        })
    }

    /// The struct type of the records.
    fn record(&self) -> &xbf::StructMetadata {
        self.typed.record()
    }
}

impl RecordsType {
    /// The struct type of the records.
    fn record(&self) -> &xbf::StructMetadata {
        match &self.ty {
            Metadata::Vec(elem) => match &**elem {
                Metadata::Struct(s) => s,
                _ => unreachable!("gather makes a vec of structs"),
            },
            _ => unreachable!("gather makes a vec of structs"),
        }
    }
}
