//! The derive path: `#[derive(xbf::Xbf)]` (feature `derive`) writes, for a
//! type that also derives serde's traits, code that encodes and decodes it
//! without serde's per-value calls, in the same bytes as [`crate::to_vec`].
//!
//! A message whose type is exactly the reader's (the common case: the same
//! program, or the same type on both sides) is read by the derived code:
//! rows value by value, columnar messages a whole column at a time, each
//! record put together from its fields' columns (no serde call per value);
//! any other is handed to [`crate::from_slice`], which matches fields by
//! name (SPEC.md §23), so the derive path reads everything the serde path
//! reads, with the same errors. (Of a damaged columnar message, both fail,
//! but the error may be about another column: the derive path reads the
//! columns in the order of the type's fields, the serde path each when a
//! value first needs it.)
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, xbf::Xbf, Debug, PartialEq)]
//! struct Point { first: i8, last: i8 }
//!
//! let p = Point { first: 42, last: -5 };
//! let bytes = xbf::fast::to_vec(&p)?;
//! assert_eq!(bytes, xbf::to_vec(&p)?);                 // the serde path's bytes
//! assert_eq!(xbf::fast::from_slice::<Point>(&bytes)?, p);
//! # }
//! # Ok::<(), xbf::Error>(())
//! ```

mod impls;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, OnceLock, RwLock};

use serde::Deserialize;

pub use self::impls::BytesField;

#[doc(hidden)]
pub use crate::columnar::{capacity, WholeColumn, WholeFields};
pub use crate::rows::derive_read::Reader;
pub use crate::rows::derive_write::Writer;
/// What `#[derive(Xbf)]`'s code names, so that it does not depend on the
/// user's crate having `serde` under that name.
#[doc(hidden)]
pub use serde as __serde;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::Metadata;
use crate::options::DecodeOptions;
use crate::options::EncodeOptions;
use crate::rows::input::{Input, SliceInput};
use crate::rows::value_read::Decoder;
use crate::rows::value_write::Encoder;
use crate::wire::Version;

/// A type's XBF metadata and minimum sizes, known without a value.
pub trait Describe {
    /// The fewest bytes a value takes in XBF 2 (0 only for zero-size types).
    const MIN_V2: u64;
    /// The fewest bytes a value takes in v1.
    const MIN_V1: u64;
    /// `Some(n)` when every value takes exactly `n` bytes in both
    /// versions and every bit pattern is a value (floats, `u8`, `i8`, and
    /// arrays, tuples and structs of them): a run of such values is read
    /// by [`Decode::decode_plain`] without per-value checks.
    const PLAIN: Option<usize> = None;
    /// The type's metadata: what [`crate::metadata_of`] traces from its
    /// `Deserialize` impl. `cx` refuses recursive types.
    fn describe(cx: &mut Describer) -> Result<Metadata>;
}

/// Writes a value in the bytes of its [`Describe`] metadata.
pub trait Encode: Describe {
    /// Writes the value (no header, no metadata).
    fn encode(&self, w: &mut Writer);
}

/// Reads a value of its [`Describe`] metadata. The `Deserialize` bound
/// is the fallback for messages of another type.
pub trait Decode<'de>: Describe + Deserialize<'de> + Sized {
    /// Reads one value (no header, no metadata).
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self>;

    /// A value of a [`Describe::PLAIN`] type from exactly its bytes (`None`
    /// for other types, or a slice of another length).
    #[inline]
    fn decode_plain(b: &'de [u8]) -> Option<Self> {
        let _ = b;
        None
    }

    /// `N` values of a [`Describe::PLAIN`] type from exactly their bytes.
    #[inline]
    fn decode_plain_array<const N: usize>(b: &'de [u8]) -> Option<[Self; N]> {
        let size = Self::PLAIN?;
        let items: [Option<Self>; N] = std::array::from_fn(|i| Self::decode_plain(b.get(i * size..i * size + size)?));
        if items.iter().any(Option::is_none) {
            return None;
        }
        Some(items.map(|x| x.expect("checked above")))
    }

    /// Reads the `N` values of an array of `Self`, after the array's fit
    /// was checked. Types of a fixed width override it to read the run of
    /// bytes at once.
    #[inline]
    fn decode_array<const N: usize>(r: &mut Reader<'de, '_>) -> Result<[Self; N]> {
        let mut err = None;
        let items: [Option<Self>; N] = std::array::from_fn(|i| {
            if err.is_some() {
                return None;
            }
            match Self::decode(r) {
                Ok(v) => Some(v),
                Err(e) => {
                    err = Some(e.within(PathSegment::Index(i as u64)));
                    None
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        // After the first failure every later item is None, and a failure
        // returned above: here every item is Some.
        Ok(items.map(|x| x.expect("every item decoded")))
    }

    /// Every value of a columnar message's node at once, for a message of
    /// exactly this type. The default reads them one by one through serde;
    /// numbers, strings, options, vecs, arrays and derived structs read
    /// whole columns and put the values together from them.
    #[doc(hidden)]
    fn decode_column(col: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
        col.each()
    }
}

/// The plain size of a struct or tuple of members of plain sizes
/// `sizes` (for `#[derive(Xbf)]`): their sum, or `None` if one is `None`.
#[doc(hidden)]
pub const fn plain_sum(sizes: &[Option<usize>]) -> Option<usize> {
    let mut total = 0usize;
    let mut i = 0;
    while i < sizes.len() {
        match sizes[i] {
            Some(n) => total += n,
            None => return None,
        }
        i += 1;
    }
    Some(total)
}

/// Builds metadata for [`Describe::describe`], refusing recursive types
/// (which XBF metadata cannot describe) and absurd nesting.
#[derive(Default)]
pub struct Describer {
    stack: Vec<&'static str>,
}

const MAX_TYPE_DEPTH: usize = 256;

impl Describer {
    /// Enters the named type `type_name` (`std::any::type_name`); fails if
    /// it is already being described.
    pub fn enter(&mut self, type_name: &'static str) -> Result<()> {
        if self.stack.contains(&type_name) {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("recursive type {type_name}: XBF metadata cannot describe it"),
            ));
        }
        if self.stack.len() >= MAX_TYPE_DEPTH {
            return Err(Error::new(
                ErrorKind::TooDeep,
                format!("{type_name} nests more than {MAX_TYPE_DEPTH} types deep"),
            ));
        }
        self.stack.push(type_name);
        Ok(())
    }

    /// Leaves the type last entered.
    pub fn leave(&mut self) {
        self.stack.pop();
    }
}

/// What the derive path keeps per type: its metadata, an XBF 2 message
/// head (header and metadata), and whether the derived decoder may read
/// messages of it (see [`exact_ok`]).
struct TypeInfo {
    metadata: Metadata,
    head_v2: Vec<u8>,
    depth: usize,
    exact: bool,
    /// Whether an option or enum payload is zero-size (see [`exact_ok`]).
    zero_payloads: bool,
}

/// The metadata of `T`, from its derive, computed once and cached.
pub fn metadata_of<T: Describe + ?Sized>() -> Result<Metadata> {
    info::<T>().map(|i| i.metadata.clone())
}

fn info<T: Describe + ?Sized>() -> Result<Arc<TypeInfo>> {
    type Cache = RwLock<HashMap<&'static str, std::result::Result<Arc<TypeInfo>, Error>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    // type_name is the same for every lifetime of a type, which is what a
    // cache of metadata wants.
    let key = std::any::type_name::<T>();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(t) = cache.read().unwrap_or_else(|e| e.into_inner()).get(key) {
        return t.clone();
    }
    let t = T::describe(&mut Describer::default()).map(|metadata| {
        let mut head_v2 = Vec::new();
        let _ = Encoder::new(&mut head_v2, Version::V2).message_head(&metadata, false, 0);
        let exact = exact_ok(&metadata, true);
        let zero_payloads = zero_payloads(&metadata);
        let depth = metadata.depth();
        Arc::new(TypeInfo { metadata, head_v2, depth, exact, zero_payloads })
    });
    cache.write().unwrap_or_else(|e| e.into_inner()).insert(key, t.clone());
    t
}

/// Whether the derived decoder gives exactly the dynamic decoder's results
/// for this type: true unless a zero-size value stands where the
/// decoded-memory budget (SPEC.md §16.2) could run out. A zero-size option
/// or enum payload of weight at most 8 cannot in a message of at most
/// `max_decoded_bytes / (8 × 48)` bytes (its tag or index takes a byte;
/// [`from_slice_with`] checks the length); other zero-size values (unit
/// fields, empty structs, vecs of units) are left to the serde path, which
/// keeps the budget.
fn exact_ok(ty: &Metadata, root: bool) -> bool {
    let payload_ok = |p: &Metadata| !p.is_zero_size() && exact_ok(p, false) || p.is_zero_size() && weight(p) <= 8;
    if !root && ty.is_zero_size() {
        return false;
    }
    match ty {
        Metadata::Primitive(_) => true,
        Metadata::Any => false,
        Metadata::Option(p) => payload_ok(p),
        Metadata::Enum(e) => e.variants().all(|(_, p)| payload_ok(p)),
        Metadata::Vec(t) => exact_ok(t, false),
        Metadata::Array(a) => exact_ok(&a.element, false),
        Metadata::Map(m) => exact_ok(&m.key, false) && exact_ok(&m.value, false),
        Metadata::Tuple(ts) => ts.iter().all(|t| exact_ok(t, false)),
        Metadata::Struct(s) => s.fields().all(|(_, t)| exact_ok(t, false)),
    }
}

/// Whether a value of `ty` may hold an option or enum whose payload (of
/// some variant) is zero-size.
fn zero_payloads(ty: &Metadata) -> bool {
    let here = match ty {
        Metadata::Option(p) => p.is_zero_size(),
        Metadata::Enum(e) => e.variants().any(|(_, p)| p.is_zero_size()),
        _ => false,
    };
    here || ty.children().into_iter().any(zero_payloads)
}

fn weight(ty: &Metadata) -> u64 {
    crate::rows::value_read::zero_size_values(ty)
}

/// Encodes `value` as an XBF 2 message: the same bytes as
/// [`crate::to_vec`] gives for it.
pub fn to_vec<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(&EncodeOptions::v2(), value)
}

/// Writes `value` as an XBF 2 message to `writer`.
pub fn to_writer<W: Write, T: Encode + ?Sized>(writer: W, value: &T) -> Result<()> {
    to_writer_with(&EncodeOptions::v2(), writer, value)
}

/// [`to_writer`] with `opts`' version and schema form (see [`to_vec_with`]).
pub fn to_writer_with<W: Write, T: Encode + ?Sized>(opts: &EncodeOptions, mut writer: W, value: &T) -> Result<()> {
    let bytes = to_vec_with(opts, value)?;
    writer.write_all(&bytes).map_err(Error::from)
}

/// Encodes `value` as a message of `opts`' version (v1 fails with
/// `unsupported`, naming the path of a type v1 cannot hold) and schema
/// form; the layout is always rows.
pub fn to_vec_with<T: Encode + ?Sized>(opts: &EncodeOptions, value: &T) -> Result<Vec<u8>> {
    let info = info::<T>()?;
    let v2 = opts.get_version() == Version::V2;
    let mut buf;
    if v2 && !opts.by_reference() {
        buf = Vec::with_capacity(info.head_v2.len() + 64);
        buf.extend_from_slice(&info.head_v2);
    } else {
        if !v2 {
            crate::rows::serde_write::check_v1(&info.metadata)?;
        }
        buf = Vec::with_capacity(64);
        Encoder::new(&mut buf, opts.get_version())
            .message_head(&info.metadata, opts.by_reference(), 0)
            .map_err(Error::from)?;
    }
    let mut w = Writer { buf, v2 };
    value.encode(&mut w);
    Ok(w.buf)
}

fn default_options() -> &'static DecodeOptions {
    static OPTS: OnceLock<DecodeOptions> = OnceLock::new();
    OPTS.get_or_init(DecodeOptions::default)
}

/// Decodes one whole message (either version) into `T`: with the derived
/// decoder when the message's type is `T`'s, else as [`crate::from_slice`]
/// does. Strings and bytes may be borrowed from `bytes`.
pub fn from_slice<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T> {
    from_slice_with(default_options(), bytes)
}

/// [`from_slice`] with the limits of `opts`.
pub fn from_slice_with<'de, T: Decode<'de>>(opts: &DecodeOptions, bytes: &'de [u8]) -> Result<T> {
    let info = match info::<T>() {
        // The budget argument of exact_ok: at most 8 zero-size values a byte
        // must fit in the budget, or the serde path keeps count.
        Ok(i)
            if i.exact
                && (!i.zero_payloads
                    || bytes.len() as u64 <= opts.max_decoded_bytes / (8 * crate::options::DECODED_VALUE_BYTES)) =>
        {
            i
        }
        _ => return opts.from_slice(bytes),
    };
    let mut d = Decoder::new(SliceInput::new(bytes), opts, Version::V2);
    if bytes.starts_with(&info.head_v2) && info.depth <= opts.max_depth {
        d.input.skip(info.head_v2.len());
    } else {
        d.v2 = false;
        match d.message_head() {
            Ok((ty, false)) if ty == info.metadata => {}
            Ok((ty, true)) if ty == info.metadata => {
                let base = d.input.offset();
                let rest = bytes.get(base as usize..).unwrap_or_default();
                let seq_ok = crate::typed::structs_as_seq::<T>();
                return crate::columnar::from_columns_whole(opts, &ty, rest, base, seq_ok, T::decode_column)
                    .map_err(|e| root_path(&ty, e));
            }
            _ => return opts.from_slice(bytes),
        }
    }
    let mut r = Reader { d };
    let value = T::decode(&mut r).map_err(|e| root_path(&info.metadata, e))?;
    r.d.finish()?;
    Ok(value)
}

/// Errors' paths start at the root type's name, as the serde path's do.
fn root_path(ty: &Metadata, e: Error) -> Error {
    match ty {
        Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
        Metadata::Enum(s) => e.within(PathSegment::Root(s.name().into())),
        _ => e,
    }
}
