//! The columnar layout (SPEC.md, "Columnar layout"): a value is split along
//! its type tree into columns, one per path, each written with the encoding
//! that is smallest for its values and prefixed with its length, so that a
//! reader can skip the columns it does not want without reading them.
//!
//! By role: [`shred`] writes a `Value` as columns and [`builder`] builds
//! them from rows of other sources; [`ints`], [`floats`], [`strings`] (and
//! the file-only [`entropy`] and [`runs`]) are the column encodings, both
//! ways; [`reader`] reads columns back into a `Value`, [`batch`] into typed
//! column buffers (for Arrow), [`typed`] and
//! [`whole`] into serde and derive types; [`walk`] skips columns without
//! decoding them; [`selection`] is projection; [`hash`] the writer's hash.

mod batch;
mod builder;
mod cursor;
mod entropy;
mod floats;
mod fsst;
#[cfg(all(test, feature = "zstd"))]
mod fsst_measure;
mod hash;
mod ints;
mod reader;
mod runs;
mod selection;
mod shred;
mod small;
mod strings;
mod walk;
// Reading into serde types: value by value, and whole columns for the derive.
#[cfg(feature = "serde")]
mod typed;
#[cfg(feature = "serde")]
mod whole;

/// The tests' pseudo-random numbers: a 64-bit linear congruential generator
/// from `seed` (Knuth's MMIX constants), each state shifted right by `shift`
/// (its low bits are the weakest). Deterministic, so a failure repeats.
#[cfg(test)]
pub(crate) fn lcg(mut seed: u64, shift: u32) -> impl FnMut() -> u64 {
    move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        seed >> shift
    }
}

#[cfg(feature = "serde")]
pub(crate) use typed::{from_columns, ran_out};
#[cfg(feature = "serde")]
pub(crate) use whole::from_columns as from_columns_whole;
#[cfg(feature = "serde")]
pub use whole::{capacity, read_columns, WholeColumn, WholeFields};

use crate::error::{Error, ErrorKind, Result};
use crate::value::Value;

pub use batch::{ColumnBatch, ColumnData};
pub use builder::{BlockColumns, ColumnNode, Columns};
pub(crate) use cursor::Cursor;
pub(crate) use entropy::Enabled as EntropyEnabled;
pub(crate) use hash::*;
pub(crate) use reader::*;
pub(crate) use selection::*;
pub(crate) use shred::*;
pub use walk::ColumnStats;
pub(crate) use walk::*;

/// Whether, after `seen` of a column's `n` values of which `distinct` were
/// new, a dictionary is not worth finishing: in a long column, three of the
/// first four thousand values new. Known as soon as the 3,073rd new value
/// comes among them: the count only grows, so a column that passes it
/// before the 4,096th value gives up there all the same (every caller
/// drops its dictionary on `true`), and need not hash the rest.
pub(crate) fn mostly_distinct(seen: usize, distinct: usize, n: usize) -> bool {
    n > 8192 && seen <= 4096 && distinct > 3072
}

/// What a decoded message may cost: every value is charged the size of a
/// `Value`, and strings made from dictionaries or shared prefixes their
/// bytes. Compression can make a few bytes stand for millions of values,
/// so only this bounds a hostile message's memory.
pub(crate) struct Budget {
    left: u128,
    limit: u128,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Self {
        Budget { left: u128::from(limit), limit: u128::from(limit) }
    }

    pub(crate) fn charge(&mut self, at: u64, bytes: u128) -> Result<()> {
        if bytes > self.left {
            return Err(Error::at(
                ErrorKind::TooLarge,
                at,
                format!(
                    "decoding would take more than the {} bytes allowed (DecodeOptions::max_decoded_bytes)",
                    self.limit
                ),
            ));
        }
        self.left -= bytes;
        Ok(())
    }
}

const VALUE_COST: u128 = crate::options::DECODED_VALUE_BYTES as u128;

/// The values of a node, made as they are taken.
pub(crate) type Vals = Box<dyn Iterator<Item = Value>>;

/// Whether `value` holds enough repeated items for columns to pay.
pub(crate) fn worth_trying(value: &Value) -> bool {
    fn repeats(v: &Value) -> Repeats<&Value> {
        match v {
            Value::Vec(x) | Value::Array(x) => Repeats::List(x.len(), x.items().iter().take(4).collect()),
            Value::Map(m) => Repeats::Map(m.len()),
            Value::Struct(s) => Repeats::Fields(s.values().iter().collect()),
            _ => Repeats::Scalar,
        }
    }
    worth_columns(value, &repeats)
}

/// A value as the `Layout::Auto` test sees it ([`worth_columns`]).
#[doc(hidden)]
pub enum Repeats<T> {
    /// A list of this many items, with its first few to look into.
    List(usize, Vec<T>),
    /// The values of a record's fields.
    Fields(Vec<T>),
    /// A map of this many entries.
    Map(usize),
    /// Anything else.
    Scalar,
}

/// The `Layout::Auto` test, on values of any representation (the Python
/// binding runs it on Python objects, before converting anything): whether
/// the lists and maps within three levels of the root hold at least 16
/// items, looking into the first four items of each list.
#[doc(hidden)]
pub fn worth_columns<T>(value: T, repeats: &impl Fn(T) -> Repeats<T>) -> bool {
    fn items<T>(v: T, depth: usize, repeats: &impl Fn(T) -> Repeats<T>) -> usize {
        if depth > 3 {
            return 0;
        }
        match repeats(v) {
            Repeats::List(n, first) => {
                n + first.into_iter().take(4).map(|i| items(i, depth + 1, repeats)).sum::<usize>()
            }
            Repeats::Fields(values) => values.into_iter().map(|f| items(f, depth + 1, repeats)).sum(),
            Repeats::Map(n) => n,
            Repeats::Scalar => 0,
        }
    }
    items(value, 0, repeats) >= 16
}
