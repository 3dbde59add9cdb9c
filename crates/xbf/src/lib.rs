//! XBF, the Xtensible Binary Format: a self-describing binary format that
//! sends type metadata (struct names, field names, types) once per message
//! and the values bare, little-endian.
//!
//! This crate is the format's core. Its dynamic API builds and walks values
//! whose type is known only at run time:
//!
//! - [`Metadata`] is a type tree (primitives, vecs, structs) and [`Value`] a
//!   value with its type; constructors keep them well-formed.
//! - [`encode_message`] / [`write_message`] write a message (metadata then
//!   value), [`decode_message`] / [`read_message`] read one back.
//! - [`DecodeOptions`] sets the decoder's limits. Decoding is safe on
//!   untrusted input: no panic, no allocation beyond a small multiple of the
//!   input, and every [`Error`] names a stable [`ErrorKind`], the byte offset
//!   and the path of fields and elements where it happened.
//!
//! The wire format is defined in `SPEC.md` at the repository's root.
//!
//! # Where things live
//!
//! The modules are layers, from the bytes up; each uses only the layers
//! below it (`scripts/module-cycles.py` checks that no two modules use each
//! other). Within the layouts' layer, one folder per layout, and in each
//! one reader and one writer per API (`Value`, serde, derive).
//!
//! 1. [`wire`]: the bytes alone (the header's version and flags,
//!    discriminants, column encoding ids, canonical varints and zigzag,
//!    the bounds-checked cursor). A change to the varint rules goes here
//!    and nowhere else. Beside it, `error` ([`Error`]), `utf8`, [`time`].
//! 2. The data model: the type tree in [`metadata`] (with its bytes on the
//!    wire), dynamic values in [`value`], schema fingerprints, [`infer`]
//!    (types inferred from JSON-like input); then the options of reading
//!    and writing ([`options`]: [`DecodeOptions`], [`EncodeOptions`] and
//!    the constants that bound them).
//! 3. Layouts:
//!    - `rows/`: `value_read` / `value_write` for `Value`, `serde_read` /
//!      `serde_write` for serde, `derive_read` / `derive_write` for the
//!      derive, all over one input (`input`);
//!    - `columnar/`: the shredding encoder (`shred`, `builder`), the column
//!      encodings (`ints`, `floats`, `strings`, `runs`, `entropy`), the
//!      readers `reader` (`Value`), `typed` (serde) and `whole` (derive),
//!      skipping and stats (`walk`), projection (`selection`). Columns use
//!      the row reader for the metadata in a column of types; rows never
//!      use columns.
//! 4. Whole messages, one module per API, each choosing rows or columns:
//!    `message` for `Value` ([`decode_message`], [`encode_message`]),
//!    `typed` for serde (`to_vec`, `from_slice`, the metadata traced
//!    from a type), `fast` for the derive (the traits `#[derive(Xbf)]`
//!    implements); and record streams ([`stream`]), which `typed` also reads.
//! 5. XBF files of columnar blocks with a footer ([`file`](mod@file)), and JSON
//!    (`json`).
//!
//! # What the root holds
//!
//! The root re-exports the entry points: the encode and decode functions
//! (dynamic and serde), [`Value`] and its kinds, [`Metadata`] and its
//! kinds, [`Error`] and [`ErrorKind`], the options, the file reader and
//! writer and the stream reader and writer. The rest stays in its module:
//! the options' limits in [`options`] (e.g. `options::DECODED_VALUE_BYTES`),
//! a file's blocks and statistics in [`file`](mod@file) (e.g. `file::BlockInfo`),
//! the derive's traits in [`fast`], the wire's constants in [`wire`].
//!
//! # One naming scheme for the serde and derive paths
//!
//! Each API names its functions for what they do: serde's at the root
//! ([`to_vec`], [`to_writer`], [`from_slice`], [`from_reader`],
//! [`metadata_of`]), the derive's under [`fast`] with the same names
//! (`fast::to_vec`, `fast::from_slice`, `fast::metadata_of`, ...). Each
//! takes the default options; its `_with` form takes the options first
//! ([`from_slice_with`]`(&opts, bytes)`, `fast::from_slice_with(&opts,
//! bytes)`). Both paths write the same bytes and trace the same metadata.
//! The options also carry serde's functions as methods
//! (`opts.from_slice(bytes)`, `opts.to_vec(&value)`), the same code.
//!
//! A change to a column encoding goes in `columnar/ints.rs`, `floats.rs`
//! or `strings.rs`; to the serde reader, in `rows/serde_read.rs` (rows) or
//! `columnar/typed.rs` (columns).
//!
//! ```
//! use xbf::{StructValue, Value, VecValue};
//!
//! let point = StructValue::from_fields("Point", [("first", Value::I8(42)), ("last", Value::I8(-5))])?;
//! let bytes = xbf::encode_message(&point.clone().into())?;
//! assert_eq!(bytes[0], 0xc2); // the XBF 2 header opens the message
//!
//! let back = xbf::decode_message(&bytes)?;
//! assert_eq!(back.metadata().to_string(), "struct Point { first: i8, last: i8 }");
//! assert_eq!(back.get("last"), Some(&Value::I8(-5)));
//!
//! // A damaged message fails with the kind, offset and path.
//! let err = xbf::decode_message(&bytes[..24]).unwrap_err();
//! assert_eq!(err.to_string(), "at byte 24, in Point.last: truncated: needs 1 bytes, 0 remain");
//! # Ok::<(), xbf::Error>(())
//! ```
// `unsafe` only where utf8.rs says why (a measured speed-up, Miri-tested);
// and `ColumnNode::take_utf8_unchecked` (columnar/builder/owned.rs), an
// `unsafe fn` with no unsafe operation in it: its contract (valid strings)
// is the caller's, who then skips the checks.
#![deny(unsafe_code)]
// Without serde, the helpers only its readers use (string spans, key
// checks) go unused; they are not worth a cfg each.
#![cfg_attr(not(feature = "serde"), allow(dead_code))]
#![warn(missing_docs)]
// The crate documentation links the serde and derive entry points; a build
// without those features has nothing for those links to point at.
#![cfg_attr(not(all(feature = "serde", feature = "derive")), allow(rustdoc::broken_intra_doc_links))]

// Lets the derive's `::xbf::` paths resolve inside this crate's own tests.
extern crate self as xbf;

mod columnar;
mod error;
#[cfg(feature = "serde")]
pub mod fast;
pub mod file;
pub mod infer;
#[cfg(feature = "json")]
pub mod json;
mod message;
pub mod metadata;
pub mod options;
mod rows;
mod schema;
pub mod stream;
pub mod time;
#[cfg(feature = "serde")]
mod typed;
mod utf8;
pub mod value;
pub mod wire;

// Not public API: the Python binding's whole-column reader of messages.
#[cfg(feature = "serde")]
#[doc(hidden)]
pub use columnar::{read_columns, WholeColumn, WholeFields};
pub use columnar::{BlockColumns, ColumnBatch, ColumnData, ColumnNode, ColumnStats, Columns};
pub use error::{Error, ErrorKind, PathSegment, Result};
#[doc(hidden)]
pub use file::approx_size as approx_record_size;
pub use file::{
    is_file, BlockEncoder, EncodedBlock, FileOptions, FileReader, FileStreamReader, FileWriter, Op, Predicate,
    ReadOptions,
};
pub use message::{encode_message, write_message};
pub use metadata::{ArrayMetadata, EnumMetadata, MapMetadata, Metadata, PrimitiveType, StructMetadata};
pub use options::{DecodeOptions, EncodeOptions, Layout};
pub use schema::{fingerprint, SchemaRegistry};
pub use stream::{StreamOptions, StreamReader, StreamWriter};
#[cfg(feature = "serde")]
pub use typed::{
    from_reader, from_reader_with, from_slice, from_slice_with, metadata_of, to_vec, to_vec_with, to_writer,
    to_writer_with, typed_stream, TypedStreamReader, TypedStreamWriter,
};
pub use value::{AnyValue, EnumValue, MapValue, OptionValue, StructValue, TupleValue, Value, VecValue, I256, U256};
pub use wire::Version;
#[cfg(feature = "derive")]
pub use xbf_derive::Xbf;
// Not public API: the Python binding (python/src) uses these to apply the
// core's rules (layout choice, zero-size values) to Python objects without
// copying them, so they are reachable but hidden.
#[doc(hidden)]
pub use {
    columnar::{worth_columns, Repeats},
    rows::value_read::zero_size_values,
};

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(all(doctest, feature = "derive"))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

/// Decodes one whole message with the default [`DecodeOptions`].
pub fn decode_message(bytes: &[u8]) -> Result<Value> {
    DecodeOptions::default().decode_message(bytes)
}

/// Reads one message from `reader` with the default [`DecodeOptions`]; the
/// reader must end where the message does.
pub fn read_message<R: std::io::Read>(reader: R) -> Result<Value> {
    DecodeOptions::default().read_message(reader)
}
