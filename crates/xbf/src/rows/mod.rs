//! The row layout (SPEC.md §13): a value written as it is, member after
//! member. One reader and one writer per API:
//!
//! | API | reads | writes |
//! |---|---|---|
//! | [`Value`](crate::Value) | `value_read` ([`Decoder`](value_read::Decoder): header, metadata, values) | `value_write` ([`Encoder`](value_write::Encoder)) |
//! | serde | `serde_read` | `serde_write` (and `serde_value`: a serde value as a `Value`) |
//! | `#[derive(Xbf)]` | `derive_read` ([`Reader`](crate::fast::Reader)) | `derive_write` ([`Writer`](crate::fast::Writer)) |
//!
//! All readers read through `input` (a slice or an `io::Read`, over the one
//! cursor of [`crate::wire`]). Choosing rows or columns for a whole message
//! is above this module, in `message`, `typed` and `fast`; the columnar
//! layout (`columnar/`) uses the row reader for the metadata inside its
//! columns of types, never the reverse.

#[cfg(feature = "serde")]
pub(crate) mod derive_read;
#[cfg(feature = "serde")]
pub(crate) mod derive_write;
pub(crate) mod input;
#[cfg(feature = "serde")]
pub(crate) mod serde_read;
#[cfg(feature = "serde")]
pub(crate) mod serde_value;
#[cfg(feature = "serde")]
pub(crate) mod serde_write;
pub(crate) mod value_read;
pub(crate) mod value_write;
