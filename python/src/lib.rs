//! The native half of the `xbf` Python package: Python objects straight to
//! XBF bytes (type inferred in one pass, then encoded) and XBF bytes straight
//! to Python objects, over the Rust core in `crates/xbf`.
//!
//! Decoding takes a fast path that builds Python objects directly from the
//! bytes. Whenever that path meets anything unusual (damage, `any`, values
//! that take no bytes, ...), the message is decoded by the core instead, so
//! every error is the core's own: same kind, offset, path and message.
//!
//! # Modules, by role
//!
//! The rules themselves (inference's lattice, limits, layout choice, varints)
//! are the core's; these modules apply them to Python objects.
//!
//! - [`pyobj`]: the classes of the `xbf` package (given once by `_init`) and
//!   small helpers on Python objects; [`errors`]: `EncodeError` and
//!   `DecodeError` of the core's kinds, and the guard that turns a panic into
//!   `DecodeError` of kind `internal`; [`raw`]: the unsafe FFI calls.
//! - [`schema`]: `xbf.Schema`, the type tree to and from Python;
//!   [`infer`]: Python values to a type; [`plan`]: a type prepared for one
//!   encode or decode.
//! - [`encode`]: Python to XBF rows, and `dumps`; [`columns`]: Python to the
//!   columnar layout; [`records`]: lists of flat records gathered in one
//!   pass (type and raw columns), then written as columns or, by
//!   [`records_rows`], as rows; [`learned`]: what an `xbf.Encoder` keeps
//!   between calls (the records' type, the columns' buffers).
//! - [`decode`]: XBF to Python (the fast path, and `loads`); [`dates`]:
//!   dates and datetimes, by the C API or (abi3) the `datetime` module;
//!   [`column_reader`]: columnar messages to Python, whole columns at a
//!   time; [`to_py`]: the
//!   core's values to Python; [`typed`]: decoding into the reader's types
//!   (`xbf.Decoder`).
//! - [`streams`]: `StreamReader` and `StreamWriter`; [`file`]: XBF files
//!   (`xbf.open`, `xbf.iter_file`, `xbf.write`); [`arrow`]: XBF files as Arrow
//!   C streams and tables (`xbf.arrow`).
//!
//! # Unsafe code
//!
//! The crate is safe PyO3 except for raw `pyo3::ffi` calls in [`raw`] that
//! measured faster than their safe equivalents (`dict_next` and
//! `dict_next_borrowed`: `PyDict_Next`; `DictEntries` (`of`, `get`, `get_str_keyed`, `str_keyed_of`) and
//! `StrEntries`: a dict's combined table read in place; `list_item`: a list's items borrowed; `dict_set`:
//! `PyDict_SetItem`; `long_value`: `PyLong_AsLongLongAndOverflow`;
//! `small_int`: compact ints read in place; `str_bytes`: compact ASCII strs
//! read in place; `new_str`; `object_new`), and in `records` (`gather`'s walks over dicts read in place;
//! `column::RawColumn::str_run` and its loop `column::copy_strs`: strings copied into reserved room (`column::copy_str`, whose load of a
//! short string may take the end of the str's header: by inline assembly, `column::word_ending_at`), with `pyobj::compact_ascii`, an exact str's ASCII
//! bytes read from its header; `run_into`: values written into reserved room); each block states why it is sound, and
//! python/UNSAFE.md has the measurements. Miri cannot run this
//! crate, as every path goes through CPython's C API; it is checked instead
//! by the pytest suite run on a debug-checked interpreter
//! (`PYTHONMALLOC=debug python -X dev -m pytest python/tests`), which catches
//! reference count and memory misuse on the C side.

#![warn(clippy::undocumented_unsafe_blocks)]
// PyO3 0.22's #[pyfunction]/#[pymethods] expansions convert PyResult into itself (fixed in 0.23).
#![allow(clippy::useless_conversion)]

use pyo3::prelude::*;

/// Rust-side allocations of the extension (see python/Cargo.toml).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod arrow;
mod column_reader;
mod columns;
mod dates;
mod decode;
mod encode;
mod errors;
mod file;
mod infer;
mod learned;
mod plan;
mod pyobj;
mod raw;
mod records;
mod records_rows;
mod schema;
mod streams;
mod to_py;
mod typed;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<schema::Schema>()?;
    m.add_class::<streams::StreamReader>()?;
    m.add_class::<streams::StreamWriter>()?;
    m.add_class::<typed::TypedDecoder>()?;
    m.add_class::<learned::Learned>()?;
    m.add_function(wrap_pyfunction!(pyobj::_init, m)?)?;
    m.add_function(wrap_pyfunction!(encode::dumps, m)?)?;
    m.add_function(wrap_pyfunction!(encode::_columns_via_rows, m)?)?;
    m.add_function(wrap_pyfunction!(decode::loads, m)?)?;
    arrow::register(m)?;
    file::register(m)?;
    Ok(())
}
