//! The one error type of the crate: a stable kind, a byte offset and a path.

use std::fmt;
use std::sync::Arc;

/// What went wrong, as a stable name that every XBF implementation shares.
///
/// The names returned by [`ErrorKind::name`] are part of the format's contract
/// (SPEC.md, "Errors"): conformance vectors and other languages match on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ends before the message does, or a length or count claims
    /// more than the input still holds.
    Truncated,
    /// Bytes remain after one whole message.
    TrailingBytes,
    /// A type discriminant the format does not define.
    UnknownDiscriminant,
    /// A string, struct name or field name that is not UTF-8.
    InvalidUtf8,
    /// A boolean byte other than 0 or 1.
    InvalidBool,
    /// Two fields of one struct with the same name.
    DuplicateField,
    /// Nesting deeper than the decoder's depth limit.
    TooDeep,
    /// A count that stays within the input yet passes a decoder limit, or a
    /// struct with more fields than the wire format can count.
    TooLarge,
    /// XBF 2: a varint that is overlong, or too large for its type.
    InvalidVarint,
    /// XBF 2: an enum variant index that the enum does not have.
    UnknownVariant,
    /// XBF 2: two keys of one map that are equal.
    DuplicateKey,
    /// XBF 2: a schema fingerprint that the reader does not know.
    UnknownSchema,
    /// XBF 2: a stream block whose checksum does not match its bytes.
    BadChecksum,
    /// A version, header flag or type that this implementation or the
    /// requested version does not support.
    Unsupported,
    /// A column of a columnar message whose lengths, counts or indices
    /// contradict its data.
    InvalidColumn,
    /// A value does not match the type it is declared with (never produced
    /// by decoding bytes: only by constructors and encoders).
    TypeMismatch,
    /// The underlying reader or writer failed (other than ending early).
    Io,
    /// An option given to an options builder is out of its documented
    /// range (never produced by decoding bytes: only when the options are
    /// built, e.g. [`DecodeOptions::max_depth`](crate::DecodeOptions::max_depth)).
    InvalidOptions,
    /// Text given to the JSON reader that is not JSON (RFC 8259): a
    /// character where the grammar allows none, a string that never ends, an
    /// escape of a lone surrogate (never produced by decoding XBF bytes).
    InvalidJson,
}

impl ErrorKind {
    /// The stable name of the kind, e.g. `"trailing-bytes"`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated",
            ErrorKind::TrailingBytes => "trailing-bytes",
            ErrorKind::UnknownDiscriminant => "unknown-discriminant",
            ErrorKind::InvalidUtf8 => "invalid-utf8",
            ErrorKind::InvalidBool => "invalid-bool",
            ErrorKind::DuplicateField => "duplicate-field",
            ErrorKind::TooDeep => "too-deep",
            ErrorKind::TooLarge => "too-large",
            ErrorKind::InvalidVarint => "invalid-varint",
            ErrorKind::UnknownVariant => "unknown-variant",
            ErrorKind::DuplicateKey => "duplicate-key",
            ErrorKind::UnknownSchema => "unknown-schema",
            ErrorKind::BadChecksum => "bad-checksum",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::InvalidColumn => "invalid-column",
            ErrorKind::TypeMismatch => "type-mismatch",
            ErrorKind::Io => "io",
            ErrorKind::InvalidOptions => "invalid-options",
            ErrorKind::InvalidJson => "invalid-json",
        }
    }

    /// Every kind, in the order SPEC.md lists them.
    pub const ALL: [ErrorKind; 19] = [
        ErrorKind::Truncated,
        ErrorKind::TrailingBytes,
        ErrorKind::UnknownDiscriminant,
        ErrorKind::InvalidUtf8,
        ErrorKind::InvalidBool,
        ErrorKind::DuplicateField,
        ErrorKind::TooDeep,
        ErrorKind::TooLarge,
        ErrorKind::InvalidVarint,
        ErrorKind::UnknownVariant,
        ErrorKind::DuplicateKey,
        ErrorKind::UnknownSchema,
        ErrorKind::BadChecksum,
        ErrorKind::Unsupported,
        ErrorKind::InvalidColumn,
        ErrorKind::TypeMismatch,
        ErrorKind::Io,
        ErrorKind::InvalidOptions,
        ErrorKind::InvalidJson,
    ];

    /// The kind with the given stable name.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One step of the path from the root of a message to where an error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// The name of the root struct.
    Root(Box<str>),
    /// A struct field, by name.
    Field(Box<str>),
    /// An element of a vec value, by index.
    Index(u64),
    /// The element type of a vec, while reading metadata.
    Element,
    /// A tuple element, by position (`.0`).
    Position(u64),
    /// A stream record, by index (`#3`).
    Record(u64),
}

/// An XBF error: its [`ErrorKind`], the byte offset in the message, the path
/// of fields and vec elements leading to it, and a human-readable detail.
///
/// Displayed as `at byte 44, in Point.last: truncated: ...`.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    offset: Option<u64>,
    /// Innermost segment first: segments are pushed while the error unwinds,
    /// so that a successful decode never pays for path bookkeeping.
    path_rev: Vec<PathSegment>,
    detail: String,
    /// The I/O error this one reports, for [`std::error::Error::source`]
    /// (shared, so that an `Error` stays `Clone`).
    source: Option<Arc<std::io::Error>>,
}

/// Errors are equal when what they report is: kind, offset, path and detail
/// (an I/O source's text is the detail already).
impl PartialEq for Inner {
    fn eq(&self, other: &Inner) -> bool {
        (self.kind, self.offset, &self.path_rev, &self.detail)
            == (other.kind, other.offset, &other.path_rev, &other.detail)
    }
}

impl Eq for Inner {}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a detail message and no position.
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            inner: Box::new(Inner { kind, offset: None, path_rev: Vec::new(), detail: detail.into(), source: None }),
        }
    }

    /// A new error of `kind` at byte `offset`.
    pub fn at(kind: ErrorKind, offset: u64, detail: impl Into<String>) -> Error {
        let mut e = Error::new(kind, detail);
        e.inner.offset = Some(offset);
        e
    }

    pub(crate) fn io(offset: u64, err: std::io::Error) -> Error {
        if err.kind() == std::io::ErrorKind::UnexpectedEof {
            Error::at(ErrorKind::Truncated, offset, "the input ends early")
        } else {
            let mut e = Error::from(err);
            e.inner.offset = Some(offset);
            e
        }
    }

    /// The kind of the error.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The byte offset from the start of the message, where known.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// The detail message (may be empty).
    pub fn detail(&self) -> &str {
        &self.inner.detail
    }

    /// The path from the root to where the error happened, outermost first.
    pub fn path(&self) -> impl Iterator<Item = &PathSegment> {
        self.inner.path_rev.iter().rev()
    }

    /// The path as text, e.g. `Point.last` or `[3].open`; empty at the root.
    pub fn path_string(&self) -> String {
        let mut s = String::new();
        for seg in self.path() {
            match seg {
                PathSegment::Root(name) => s.push_str(name),
                PathSegment::Field(name) => {
                    s.push('.');
                    s.push_str(name);
                }
                PathSegment::Index(i) => {
                    s.push('[');
                    s.push_str(&i.to_string());
                    s.push(']');
                }
                PathSegment::Element => s.push_str("[]"),
                PathSegment::Position(i) => {
                    s.push('.');
                    s.push_str(&i.to_string());
                }
                PathSegment::Record(i) => {
                    s.push('#');
                    s.push_str(&i.to_string());
                }
            }
        }
        s
    }

    /// Moves the offset by `base`: for errors found in a part of the input
    /// that was decoded on its own (a stream block's body).
    pub(crate) fn shifted(mut self, base: u64) -> Error {
        if let Some(off) = self.inner.offset.as_mut() {
            *off += base;
        }
        self
    }

    /// Puts `context` before the detail: which block of a file, and where.
    pub(crate) fn context(mut self, context: &str) -> Error {
        self.inner.detail = format!("{context}: {}", self.inner.detail);
        self
    }

    /// Adds the segment that encloses the current path: decoders call it
    /// while an error unwinds, so that a successful decode never pays for
    /// path bookkeeping (`#[derive(Xbf)]`'s code calls it too).
    pub fn within(mut self, seg: PathSegment) -> Error {
        self.inner.path_rev.push(seg);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(off) = self.inner.offset {
            write!(f, "at byte {off}")?;
            if !self.inner.path_rev.is_empty() {
                write!(f, ", in {}", self.path_string())?;
            }
            f.write_str(": ")?;
        } else if !self.inner.path_rev.is_empty() {
            write!(f, "in {}: ", self.path_string())?;
        }
        f.write_str(self.inner.kind.name())?;
        if !self.inner.detail.is_empty() {
            write!(f, ": {}", self.inner.detail)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// An I/O error of a reader or writer: kind `io`, the source kept.
impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Error {
        let mut e = Error::new(ErrorKind::Io, err.to_string());
        e.inner.source = Some(Arc::new(err));
        e
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip() {
        for k in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(k.name()), Some(k));
        }
        assert_eq!(ErrorKind::from_name("nope"), None);
    }

    #[test]
    fn display_with_offset_and_path() {
        let e = Error::at(ErrorKind::Truncated, 44, "")
            .within(PathSegment::Field("last".into()))
            .within(PathSegment::Root("Point".into()));
        assert_eq!(e.to_string(), "at byte 44, in Point.last: truncated");
        let e = Error::at(ErrorKind::InvalidBool, 9, "byte 0x02")
            .within(PathSegment::Field("ok".into()))
            .within(PathSegment::Index(3));
        assert_eq!(e.to_string(), "at byte 9, in [3].ok: invalid-bool: byte 0x02");
        let e = Error::at(ErrorKind::UnknownDiscriminant, 0, "");
        assert_eq!(e.to_string(), "at byte 0: unknown-discriminant");
        let e = Error::new(ErrorKind::TypeMismatch, "expected u8");
        assert_eq!(e.to_string(), "type-mismatch: expected u8");
    }

    #[test]
    fn io_errors_keep_their_source() {
        use std::error::Error as _;
        let e = Error::from(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe closed"));
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::Io, "io: pipe closed".to_owned()));
        let source = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("an io::Error source");
        assert_eq!(source.kind(), std::io::ErrorKind::BrokenPipe);
        let e = Error::io(7, std::io::Error::other("disk"));
        assert_eq!((e.offset(), e.source().is_some()), (Some(7), true));
        assert!(Error::io(7, std::io::ErrorKind::UnexpectedEof.into()).source().is_none());
    }
}
