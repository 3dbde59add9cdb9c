//! Decoding v1 metadata, values and messages, safely, from untrusted bytes.
//!
//! Every length and count is checked against what the input still holds
//! before anything is allocated, nesting is bounded by a depth limit rather
//! than the stack, and a vec of elements that take no bytes draws on a
//! per-message budget, so no input can make the decoder panic, hang or
//! allocate more than a small multiple of its own length.

use std::io;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{
    Metadata, PrimitiveType, StructMetadata, STRUCT_DISCRIMINANT, VEC_DISCRIMINANT,
};
use crate::read::{Input, IoInput, SliceInput};
use crate::value::{StructValue, Value, VecValue, I256, U256};

/// Limits and switches for decoding; `DecodeOptions::default()` is what the
/// free functions such as [`decode_message`](crate::decode_message) use.
///
/// ```
/// use xbf::{DecodeOptions, ErrorKind};
///
/// // 3 nested vecs of u8, with a depth limit of 2.
/// let msg = [0x11, 0x11, 0x11, 0x01, 0, 0, 0, 0, 0, 0, 0, 0];
/// let opts = DecodeOptions::default().max_depth(2);
/// assert_eq!(opts.decode_message(&msg).unwrap_err().kind(), ErrorKind::TooDeep);
/// assert!(xbf::decode_message(&msg).is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Levels of vec and struct nesting allowed (the outermost is level 1).
    /// Default: 128.
    pub max_depth: usize,
    /// How many elements of zero-size type (such as the empty struct) one
    /// message may hold in all. They consume no input, so only this bounds
    /// the memory and time that a tiny message claiming 2^62 of them costs.
    /// Default: 65,536.
    pub max_zero_size_elements: u64,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_depth: 128,
            max_zero_size_elements: 1 << 16,
        }
    }
}

impl DecodeOptions {
    /// Sets [`max_depth`](Self::max_depth).
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// Sets [`max_zero_size_elements`](Self::max_zero_size_elements).
    pub fn max_zero_size_elements(mut self, count: u64) -> Self {
        self.max_zero_size_elements = count;
        self
    }

    /// Decodes one whole message (metadata then value); bytes after it are
    /// a `trailing-bytes` error.
    pub fn decode_message(&self, bytes: &[u8]) -> Result<Value> {
        let mut d = Decoder::new(SliceInput::new(bytes), self);
        let value = d.message()?;
        d.finish()?;
        Ok(value)
    }

    /// Reads one message from `reader`, which must then be at its end.
    ///
    /// The reader is read in small pieces: wrap a file or socket in an
    /// [`io::BufReader`].
    pub fn read_message<R: io::Read>(&self, reader: R) -> Result<Value> {
        let mut d = Decoder::new(IoInput::new(reader), self);
        let value = d.message()?;
        d.finish()?;
        Ok(value)
    }

    /// Decodes metadata from the start of `bytes`; returns it and the number
    /// of bytes it took (what follows is not looked at).
    pub fn decode_metadata(&self, bytes: &[u8]) -> Result<(Metadata, usize)> {
        let mut d = Decoder::new(SliceInput::new(bytes), self);
        let meta = d.metadata(0)?;
        Ok((meta, d.input.offset() as usize))
    }

    /// Decodes a value of type `ty` that fills all of `bytes` (the "data only"
    /// form, for a reader that already holds the metadata). Offsets in errors
    /// count from the start of `bytes`.
    pub fn decode_value(&self, ty: &Metadata, bytes: &[u8]) -> Result<Value> {
        if ty.depth() > self.max_depth {
            return Err(Error::new(
                ErrorKind::TooDeep,
                format!("the type nests {} levels", ty.depth()),
            ));
        }
        let mut d = Decoder::new(SliceInput::new(bytes), self);
        let value = d.root_value(ty)?;
        d.finish()?;
        Ok(value)
    }
}

struct Decoder<'o, I> {
    input: I,
    opts: &'o DecodeOptions,
    zero_size_budget: u64,
}

impl<'o, I: Input> Decoder<'o, I> {
    fn new(input: I, opts: &'o DecodeOptions) -> Self {
        Decoder {
            input,
            opts,
            zero_size_budget: opts.max_zero_size_elements,
        }
    }

    fn message(&mut self) -> Result<Value> {
        let meta = self.metadata(0)?;
        self.root_value(&meta)
    }

    fn finish(&mut self) -> Result<()> {
        if self.input.at_end()? {
            Ok(())
        } else {
            Err(Error::at(
                ErrorKind::TrailingBytes,
                self.input.offset(),
                "bytes remain after the message",
            ))
        }
    }

    /// Metadata nested `depth` levels below the root.
    fn metadata(&mut self, depth: usize) -> Result<Metadata> {
        let start = self.input.offset();
        let d = self.input.u8()?;
        if let Some(p) = PrimitiveType::from_discriminant(d) {
            return Ok(Metadata::Primitive(p));
        }
        if d != VEC_DISCRIMINANT && d != STRUCT_DISCRIMINANT {
            return Err(Error::at(
                ErrorKind::UnknownDiscriminant,
                start,
                format!("0x{d:02x} is not a v1 type"),
            ));
        }
        if depth >= self.opts.max_depth {
            return Err(Error::at(
                ErrorKind::TooDeep,
                start,
                format!("more than {} levels of nesting", self.opts.max_depth),
            ));
        }
        if d == VEC_DISCRIMINANT {
            let elem = self
                .metadata(depth + 1)
                .map_err(|e| e.within(PathSegment::Element))?;
            return Ok(Metadata::Vec(Arc::new(elem)));
        }
        let name = self.string()?;
        let ty = self.struct_fields(name.clone().into_boxed_str(), depth);
        match ty {
            Ok(ty) => Ok(Metadata::Struct(Arc::new(ty))),
            Err(e) if depth == 0 => Err(e.within(PathSegment::Root(name.into()))),
            Err(e) => Err(e),
        }
    }

    fn struct_fields(&mut self, name: Box<str>, depth: usize) -> Result<StructMetadata> {
        let count_at = self.input.offset();
        let count = u16::from_le_bytes(self.input.array()?);
        // A field takes at least 9 bytes: an 8-byte name length and a discriminant.
        self.check_fits(count_at, u64::from(count), 9)?;
        let mut ty = StructMetadata::with_capacity(name, usize::from(count));
        for _ in 0..count {
            let field_at = self.input.offset();
            let fname = self.string()?.into_boxed_str();
            let fty = match self.metadata(depth + 1) {
                Ok(m) => m,
                Err(e) => return Err(e.within(PathSegment::Field(fname))),
            };
            if ty.field(&fname).is_some() {
                return Err(Error::at(
                    ErrorKind::DuplicateField,
                    field_at,
                    format!("field {fname:?} appears twice"),
                ));
            }
            ty.push_field(fname, fty)?;
        }
        Ok(ty)
    }

    /// Fails with `truncated` at `at` unless `count` items of at least
    /// `min_size` bytes each fit in what remains of the input.
    fn check_fits(&self, at: u64, count: u64, min_size: u64) -> Result<()> {
        if let Some(rem) = self.input.remaining() {
            let need = count.saturating_mul(min_size);
            if need > rem {
                return Err(Error::at(
                    ErrorKind::Truncated,
                    at,
                    format!("{count} items need at least {need} bytes, {rem} remain"),
                ));
            }
        }
        Ok(())
    }

    fn length(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.input.array()?))
    }

    fn string(&mut self) -> Result<String> {
        let start = self.input.offset();
        let len = self.length()?;
        let bytes = self.input.bytes(len).map_err(|e| relocate(e, start))?;
        String::from_utf8(bytes).map_err(|e| {
            Error::at(
                ErrorKind::InvalidUtf8,
                start,
                format!(
                    "invalid UTF-8 at byte {} of the string",
                    e.utf8_error().valid_up_to()
                ),
            )
        })
    }

    fn root_value(&mut self, ty: &Metadata) -> Result<Value> {
        self.value(ty).map_err(|e| match ty {
            Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
            _ => e,
        })
    }

    fn value(&mut self, ty: &Metadata) -> Result<Value> {
        match ty {
            Metadata::Primitive(p) => self.primitive(*p),
            Metadata::Vec(elem) => self.vec(elem),
            Metadata::Struct(s) => {
                let mut fields = Vec::with_capacity(s.len());
                for (name, fty) in s.fields() {
                    match self.value(fty) {
                        Ok(v) => fields.push(v),
                        Err(e) => return Err(e.within(PathSegment::Field(name.into()))),
                    }
                }
                Ok(Value::Struct(StructValue::new_unchecked(
                    s.clone(),
                    fields.into_boxed_slice(),
                )))
            }
        }
    }

    fn vec(&mut self, elem: &Arc<Metadata>) -> Result<Value> {
        let start = self.input.offset();
        let count = self.length()?;
        if count == 0 {
            return Ok(Value::Vec(VecValue::new_unchecked(
                elem.clone(),
                Vec::new(),
            )));
        }
        let min_size = elem.min_size_v1();
        if min_size == 0 {
            if count > self.zero_size_budget {
                return Err(Error::at(
                    ErrorKind::TooLarge,
                    start,
                    format!(
                        "{count} zero-size elements pass the limit of {} per message",
                        self.opts.max_zero_size_elements
                    ),
                ));
            }
            self.zero_size_budget -= count;
        } else {
            self.check_fits(start, count, min_size)?;
        }
        // From a stream the count is unchecked: let the vec grow as elements
        // really arrive instead of trusting it.
        let cap = match self.input.remaining() {
            Some(_) => count,
            None => count.min(4096),
        };
        let mut items = Vec::with_capacity(usize::try_from(cap).unwrap_or(0));
        for i in 0..count {
            match self.value(elem) {
                Ok(v) => items.push(v),
                Err(e) => return Err(e.within(PathSegment::Index(i))),
            }
        }
        Ok(Value::Vec(VecValue::new_unchecked(elem.clone(), items)))
    }

    fn primitive(&mut self, p: PrimitiveType) -> Result<Value> {
        let i = &mut self.input;
        Ok(match p {
            PrimitiveType::Bool => {
                let at = i.offset();
                match i.u8()? {
                    0 => Value::Bool(false),
                    1 => Value::Bool(true),
                    b => {
                        return Err(Error::at(
                            ErrorKind::InvalidBool,
                            at,
                            format!("byte 0x{b:02x} is neither 0 nor 1"),
                        ))
                    }
                }
            }
            PrimitiveType::U8 => Value::U8(i.u8()?),
            PrimitiveType::U16 => Value::U16(u16::from_le_bytes(i.array()?)),
            PrimitiveType::U32 => Value::U32(u32::from_le_bytes(i.array()?)),
            PrimitiveType::U64 => Value::U64(u64::from_le_bytes(i.array()?)),
            PrimitiveType::U128 => Value::U128(u128::from_le_bytes(i.array()?)),
            PrimitiveType::U256 => Value::U256(U256::from_le_bytes(i.array()?)),
            PrimitiveType::I8 => Value::I8(i8::from_le_bytes(i.array()?)),
            PrimitiveType::I16 => Value::I16(i16::from_le_bytes(i.array()?)),
            PrimitiveType::I32 => Value::I32(i32::from_le_bytes(i.array()?)),
            PrimitiveType::I64 => Value::I64(i64::from_le_bytes(i.array()?)),
            PrimitiveType::I128 => Value::I128(i128::from_le_bytes(i.array()?)),
            PrimitiveType::I256 => Value::I256(I256::from_le_bytes(i.array()?)),
            PrimitiveType::F32 => Value::F32(f32::from_le_bytes(i.array()?)),
            PrimitiveType::F64 => Value::F64(f64::from_le_bytes(i.array()?)),
            PrimitiveType::Bytes => {
                let start = i.offset();
                let len = self.length()?;
                Value::Bytes(self.input.bytes(len).map_err(|e| relocate(e, start))?)
            }
            PrimitiveType::String => Value::String(self.string()?),
        })
    }
}

/// A length that overruns the input is reported at the length prefix, where
/// the claim was made, not after it.
fn relocate(e: Error, start: u64) -> Error {
    if e.kind() == ErrorKind::Truncated {
        Error::at(ErrorKind::Truncated, start, e.detail())
    } else {
        e
    }
}
