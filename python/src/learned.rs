//! What an `xbf.Encoder` keeps from one `encode` call to the next (as
//! msgspec's `Encoder` and msgpackr's `Packr` do): the type inferred for a
//! list of flat records, reused while the records keep the same keys and
//! kinds of values, and the buffers of the columns, reused at their size.
//!
//! The bytes are always those of `xbf.dumps`: the learned type is reused
//! only when inference would give it again, which [`Learned::type_for`]
//! checks on what inference reads (`records::gather` still reads every
//! value: a wider int, a new null or a new key changes what it finds, and
//! the type is then inferred and learned afresh).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyString;
use xbf::infer::Ints;

use crate::records::{RawColumn, RecordsType};

/// What inference reads of one key's values: the kinds met, the bits of the
/// ints, whether some record lacks the key. Equal for two lists whose
/// records have the same keys, in one order, means the same type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColumnKinds {
    pub(crate) seen: [bool; 6],
    pub(crate) int_bits: Option<Ints>,
    pub(crate) absent: bool,
}

/// The buffers kept between calls, at most (bytes of capacity): one huge
/// call does not pin its memory for the life of the encoder.
const SPARE_BYTES: usize = 64 << 20;

/// The state of one `xbf.Encoder` (its `_learned`), given to `dumps`.
#[pyclass(module = "xbf._native")]
#[derive(Default)]
pub(crate) struct Learned {
    /// The records of the last call that had one order of keys: their keys
    /// (held, so that they are compared by identity first and their
    /// addresses are not reused by other objects), what inference read of
    /// each, and the type it gave.
    keys: Vec<Py<PyString>>,
    kinds: Vec<ColumnKinds>,
    typed: Option<Arc<RecordsType>>,
    /// Emptied columns of the last call, their buffers kept.
    spare: Vec<RawColumn>,
}

#[pymethods]
impl Learned {
    #[new]
    fn py_new() -> Self {
        Self::default()
    }

    /// Forgets everything learned (the type and the buffers).
    fn clear(&mut self) {
        *self = Self::default();
    }
}

impl Learned {
    /// The spare columns, for a call to fill.
    pub(crate) fn take_spare(&mut self) -> Vec<RawColumn> {
        std::mem::take(&mut self.spare)
    }

    /// Keeps what a call left of the spare columns.
    pub(crate) fn keep_spare(&mut self, spare: Vec<RawColumn>) {
        self.spare = spare;
    }

    /// The columns of a finished call, emptied, for the next one (as many as
    /// [`SPARE_BYTES`] allows). Kept so that `gather`, which takes them
    /// from the end as it meets keys, gives each column of records with the
    /// same keys its own buffers back: the first column's last. (In the
    /// call's order, the first key took the last column's buffers, each call
    /// the other's, and a column of long strings grew the short strings'
    /// text again every other call.)
    pub(crate) fn recycle(&mut self, cols: Vec<RawColumn>) {
        let mut held: usize = self.spare.iter().map(RawColumn::capacity_bytes).sum();
        let kept = cols
            .into_iter()
            .take_while(|col| {
                held += col.capacity_bytes();
                held <= SPARE_BYTES
            })
            .collect::<Vec<_>>();
        self.spare.extend(kept.into_iter().rev().map(|mut col| {
            col.clear();
            col
        }));
    }

    /// The type learned, if it is the one inference gives records with one
    /// order of keys `keys` (the first key object of each column) whose
    /// columns are `cols`: same names in the same order, same kinds read.
    pub(crate) fn type_for(&self, keys: &[Bound<'_, PyString>], cols: &[RawColumn]) -> Option<Arc<RecordsType>> {
        let typed = self.typed.as_ref()?;
        if keys.len() != self.keys.len() || cols.len() != self.kinds.len() {
            return None;
        }
        let same_keys = keys.iter().zip(&self.keys).all(|(k, learned)| {
            k.is(learned) || matches!((k.to_str(), learned.bind(k.py()).to_str()), (Ok(a), Ok(b)) if a == b)
        });
        let same_kinds = cols.iter().zip(&self.kinds).all(|(c, k)| c.kinds_met() == *k);
        (same_keys && same_kinds).then(|| typed.clone())
    }

    /// Learns the type inferred for records with one order of keys.
    pub(crate) fn learn(&mut self, keys: &[Bound<'_, PyString>], cols: &[RawColumn], typed: Arc<RecordsType>) {
        self.keys = keys.iter().map(|k| k.clone().unbind()).collect();
        self.kinds = cols.iter().map(RawColumn::kinds_met).collect();
        self.typed = Some(typed);
    }
}
