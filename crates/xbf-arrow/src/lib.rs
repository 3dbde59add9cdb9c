//! XBF ⇄ Apache Arrow: the blocks of an XBF file (SPEC.md §24) and columnar
//! messages (§22) as arrow-rs [`RecordBatch`]es, and record batches written
//! as XBF files and messages, so that Arrow-based engines (pandas, Polars,
//! DuckDB, Spark through the Python package's `xbf.arrow`) read and write XBF.
//!
//! # Records and columns
//!
//! The records of a block are a batch's rows. A record type that is a struct
//! gives one column a field; any other record type gives one column named
//! `value`. The schema's metadata holds the exact XBF type under `xbf:type`
//! (the hex of an empty `vec<T>` message), so a batch read from XBF is
//! written back with the same type, fixed-width integers, names and all, as
//! long as its fields are still those of the mapping. A schema without it
//! (or changed since) gets a type derived from its Arrow types: a struct
//! named `Record` of the columns, each struct column a struct named by its
//! field.
//!
//! # The type mapping
//!
//! | XBF | Arrow | Arrow → XBF also accepts |
//! | --- | --- | --- |
//! | `bool` | `Boolean` | |
//! | `u8` `u16` `u32` `u64`, `fixed-u16/32/64` | `UInt8` … `UInt64` | |
//! | `i8` `i16` `i32` `i64`, `fixed-i16/32/64` | `Int8` … `Int64` | |
//! | `u128` `i128` `fixed-u128` `fixed-i128` | `FixedSizeBinary(16)`, the integer's 16 bytes little-endian (two's complement when signed); Arrow → XBF gives `u128` | |
//! | `u256` `i256` | `FixedSizeBinary(32)`, likewise; Arrow → XBF gives `u256` | |
//! | `f32` `f64` | `Float32` `Float64` | |
//! | `string` | `Utf8` | `LargeUtf8`, `Utf8View`, a dictionary of strings |
//! | `bytes` | `Binary` | `LargeBinary`, `BinaryView`, `FixedSizeBinary(n)` for n ≠ 16, 32 |
//! | `unit` | `Null` (nullable) | |
//! | `date` | `Date32` | `Date64` of whole days |
//! | `timestamp` | `Timestamp(Microsecond, "UTC")` | any other unit and time zone (the instant is kept; nanoseconds that are not whole microseconds are refused) |
//! | `option<T>` | `T`'s type, nullable | |
//! | `vec<T>` | `List` (item field `item`) | `LargeList`, `ListView`, `LargeListView` |
//! | `array N T` | `FixedSizeList(N)` | |
//! | `struct` | `Struct`, the fields in order | |
//! | `tuple` | `Struct` with fields `0`, `1`, … | |
//! | `map<K, V>` | `Map` (entries `key`, `value`; unsorted keys) | |
//! | `enum` whose variants are all `unit` | `Dictionary(Int32, Utf8)`: key = variant index, the dictionary = every variant's name in order | |
//! | other `enum` | dense `Union` (a nullable field: a unit payload is a null of its `Null` child), type id = variant index, a child per variant named after it | a sparse `Union` |
//! | `any` | `Binary`: each value an XBF message of type `any` (the value with its own type) | a message of another type is read as that value |
//!
//! Not mapped, refused with [`ArrowError::NotYetImplemented`]: `option<option<T>>`
//! and `option<unit>` (Arrow has one null a slot), an `option` of an enum
//! with payloads (a union has no nulls), a map with optional keys, enums of
//! more than 128 variants, arrays longer than `i32::MAX`; on the Arrow side
//! decimals, `Float16`, times of day, durations and intervals.
//!
//! # Reading and writing
//!
//! [`FileBatchReader`] is a [`arrow_array::RecordBatchReader`] over a file,
//! one block at a time (memory of one block), with columns, filters (blocks
//! skipped by their statistics, then rows tested with Arrow's kernels) and an
//! optional batch size. Each block is decoded by the core straight into
//! typed column buffers ([`xbf::ColumnBatch`]), which become the arrays'
//! buffers without a pass over `Value`s; maps and `any` columns are read
//! value by value.
//! [`FileBatchWriter`] writes batches as a file: each array, cast to the
//! Arrow type of its XBF type, goes into the block's typed columns
//! ([`xbf::BlockColumns`]) whole (values and offsets as they are, validity as
//! an option's presence column), without a `Value` a record; only `any`
//! columns, whose slots are XBF messages, are decoded value by value. Blocks
//! close where writing the records one by one would close them, and the file
//! is byte for byte the one [`xbf::FileWriter::write`] gives for the records
//! of [`batch_to_records`]; [`FileBatchWriter::with_threads`] encodes several
//! blocks at once. [`message_to_batch`] and [`batch_to_message`] do the same
//! for a columnar message of a `vec<T>`.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema};
//! use xbf_arrow::{FileBatchReader, FileBatchWriter, ScanOptions};
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("origin", DataType::Utf8, false),
//!     Field::new("delay", DataType::Int64, true),
//! ]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![
//!     Arc::new(StringArray::from(vec!["SFO", "LAX"])),
//!     Arc::new(Int64Array::from(vec![Some(3), None])),
//! ])?;
//! let mut w = FileBatchWriter::new(Vec::new(), &schema, xbf::FileOptions::default())?;
//! w.write(&batch)?;
//! let bytes = w.finish()?;
//!
//! let r = FileBatchReader::new(std::io::Cursor::new(bytes), ScanOptions::default())?;
//! let back: Vec<RecordBatch> = r.collect::<Result<_, _>>()?;
//! assert_eq!(back[0].columns(), batch.columns());
//! # Ok::<(), arrow_schema::ArrowError>(())
//! ```
//!
//! Errors of the XBF core come wrapped as [`ArrowError::ExternalError`]
//! holding an [`xbf::Error`] (its kind, offset and path).

mod arrow_to_columns;
mod columns_to_arrow;
mod file;
mod filter;
mod from_arrow;
mod pool;
mod schema;
mod to_arrow;

pub use arrow_schema::ArrowError;
pub use file::{batch_to_message, message_to_batch, FileBatchReader, FileBatchWriter, ScanOptions};
pub use filter::{filter_batch, Filter};
pub use from_arrow::batch_to_records;
pub use schema::{arrow_schema, data_type, of_field, of_type, xbf_type, RECORD_NAME, VALUE_COLUMN, XBF_TYPE_KEY};
pub use to_arrow::records_to_batch;

/// The [`xbf::Error`] inside an error of this crate, if it came from the core.
pub fn xbf_error(e: &ArrowError) -> Option<&xbf::Error> {
    match e {
        ArrowError::ExternalError(inner) => inner.downcast_ref::<xbf::Error>(),
        _ => None,
    }
}
