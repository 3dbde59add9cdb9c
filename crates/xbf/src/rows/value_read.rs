//! Decoding metadata, values and messages of either version, safely, from
//! untrusted bytes.
//!
//! Every length and count is checked against what the input still holds
//! before anything is allocated, nesting is bounded by a depth limit rather
//! than the stack, and elements that take no bytes draw on a per-message
//! budget, so no input can make the decoder panic, hang or allocate more
//! than a small multiple of its own length.

use std::collections::HashSet;

use std::sync::Arc;

use crate::error::{Error, ErrorKind, PathSegment, Result};
use crate::metadata::{ArrayMetadata, EnumMetadata, MapMetadata, Metadata, PrimitiveType, StructMetadata};
use crate::options::{DecodeOptions, DECODED_VALUE_BYTES};
use crate::rows::input::Input;
use crate::value::{AnyValue, EnumValue, MapValue, OptionValue, StructValue, TupleValue, Value, VecValue, I256, U256};
use crate::wire::varint;
use crate::wire::Version;
use crate::wire::{Discriminant, FLAG_CHECKSUM, FLAG_COLUMNAR, FLAG_SCHEMA_REF, FLAG_STREAM, KNOWN_FLAGS, V2_MARKER};

pub(crate) struct Decoder<'o, I> {
    pub(crate) input: I,
    pub(crate) opts: &'o DecodeOptions,
    /// Zero-size values charged so far (see [`Decoder::charge`]).
    pub(crate) zero_size_used: u64,
    /// Above 0 while decoding values whose share of the decoded-memory budget was already
    /// charged (items counted at their count, members of a zero-size value).
    pub(crate) prepaid: u32,
    pub(crate) v2: bool,
}

/// What an XBF 2 header announced.
pub(crate) struct Header {
    pub(crate) flags: u8,
}

impl<'o, I: Input> Decoder<'o, I> {
    pub(crate) fn new(input: I, opts: &'o DecodeOptions, version: Version) -> Self {
        Decoder { input, opts, zero_size_used: 0, prepaid: 0, v2: version == Version::V2 }
    }

    /// The head of a whole message of either version (the header, then the
    /// metadata inline or by fingerprint), leaving the input at the value:
    /// its type, and whether the value is in columns.
    pub(crate) fn message_head(&mut self) -> Result<(Metadata, bool)> {
        let start = self.input.offset();
        let first = self.input.u8()?;
        if first != V2_MARKER {
            // 0xC0..=0xCF mark versions (0xC0 | version); other bytes are
            // v1 discriminants, known or not.
            if first & 0xF0 == 0xC0 {
                return Err(unsupported_version(start, first));
            }
            return Ok((self.metadata_after(first, start, 0)?, false));
        }
        let header = self.header_after_marker()?;
        if header.flags & FLAG_STREAM != 0 {
            return Err(Error::at(
                ErrorKind::Unsupported,
                start + 1,
                "this is a record stream: read it with StreamReader, not as one message",
            ));
        }
        Ok((self.schema(&header)?, header.flags & FLAG_COLUMNAR != 0))
    }

    /// Reads the flags byte that follows the 0xC2 marker, switching to XBF 2.
    pub(crate) fn header_after_marker(&mut self) -> Result<Header> {
        self.v2 = true;
        let at = self.input.offset();
        let flags = self.input.u8()?;
        let known = KNOWN_FLAGS;
        let stream = flags & FLAG_STREAM != 0;
        // Columns and a stream together are an XBF file (SPEC.md §24), whose
        // blocks always carry checksums.
        let file = flags & FLAG_COLUMNAR != 0 && stream;
        if flags & !known != 0 || (flags & FLAG_CHECKSUM != 0 && !stream) || (file && flags & FLAG_CHECKSUM == 0) {
            let what = format!("header flags 0x{flags:02x} are not supported");
            return Err(Error::at(ErrorKind::Unsupported, at, what));
        }
        Ok(Header { flags })
    }

    /// The metadata that follows an XBF 2 header, inline or by fingerprint.
    pub(crate) fn schema(&mut self, header: &Header) -> Result<Metadata> {
        if header.flags & FLAG_SCHEMA_REF == 0 {
            return self.metadata(0);
        }
        let at = self.input.offset();
        let fp: [u8; 8] = self.input.array()?;
        match self.opts.schemas.get(&fp) {
            Some(ty) if ty.depth() <= self.opts.max_depth => Ok(ty.clone()),
            Some(_) => Err(Error::at(ErrorKind::TooDeep, at, "the referenced schema nests too deep")),
            None => {
                Err(Error::at(ErrorKind::UnknownSchema, at, format!("no known schema has fingerprint {}", hex(&fp))))
            }
        }
    }

    pub(crate) fn finish(&mut self) -> Result<()> {
        // Taken first: from a stream, looking for the end reads a byte.
        let at = self.input.offset();
        if self.input.at_end()? {
            Ok(())
        } else {
            Err(Error::at(ErrorKind::TrailingBytes, at, "bytes remain after the message"))
        }
    }

    /// Metadata nested `depth` levels below the root.
    pub(crate) fn metadata(&mut self, depth: usize) -> Result<Metadata> {
        let start = self.input.offset();
        let d = self.input.u8()?;
        self.metadata_after(d, start, depth)
    }

    /// Metadata whose discriminant `d`, at `start`, has just been read.
    pub(crate) fn metadata_after(&mut self, d: u8, start: u64, depth: usize) -> Result<Metadata> {
        if let Some(p) = PrimitiveType::from_discriminant(d) {
            if self.v2 || p.is_v1() {
                return Ok(Metadata::Primitive(p));
            }
        }
        let Some(kind) = Discriminant::from_byte(d, self.v2) else {
            let version = if self.v2 { "XBF 2" } else { "v1" };
            return Err(Error::at(ErrorKind::UnknownDiscriminant, start, format!("0x{d:02x} is not a {version} type")));
        };
        if kind == Discriminant::Any {
            return Ok(Metadata::Any);
        }
        if depth >= self.opts.max_depth {
            return Err(Error::at(
                ErrorKind::TooDeep,
                start,
                format!("more than {} levels of nesting", self.opts.max_depth),
            ));
        }
        let child = depth + 1;
        let within = |seg: PathSegment| move |e: Error| e.within(seg);
        Ok(match kind {
            Discriminant::Vec => Metadata::Vec(Arc::new(self.metadata(child).map_err(within(PathSegment::Element))?)),
            Discriminant::Option => Metadata::Option(Arc::new(self.metadata(child)?)),
            Discriminant::Array => {
                let len = self.length()?;
                let element = self.metadata(child).map_err(within(PathSegment::Element))?;
                Metadata::Array(Arc::new(ArrayMetadata { len, element }))
            }
            Discriminant::Tuple => {
                let count_at = self.input.offset();
                let n = self.length()?;
                self.check_fits(count_at, n, 1)?;
                let mut types = Vec::with_capacity(reserve(n));
                for i in 0..n {
                    types.push(self.metadata(child).map_err(within(PathSegment::Position(i)))?);
                }
                Metadata::Tuple(types.into())
            }
            Discriminant::Map => {
                let in_entry = |part: &str| {
                    let part: Box<str> = part.into();
                    move |e: Error| e.within(PathSegment::Field(part)).within(PathSegment::Element)
                };
                let key = self.metadata(child).map_err(in_entry("key"))?;
                let value = self.metadata(child).map_err(in_entry("value"))?;
                Metadata::Map(Arc::new(MapMetadata { key, value }))
            }
            Discriminant::Struct | Discriminant::Enum => {
                let name = self.string()?;
                let members = self.members(kind == Discriminant::Enum, name.clone().into_boxed_str(), child);
                match members {
                    Ok(m) => m,
                    Err(e) if depth == 0 => return Err(e.within(PathSegment::Root(name.into()))),
                    Err(e) => return Err(e),
                }
            }
            Discriminant::Any => unreachable!("any is matched above"),
        })
    }

    /// The fields of a struct or the variants of an enum, after its name.
    fn members(&mut self, is_enum: bool, name: Box<str>, child: usize) -> Result<Metadata> {
        let count_at = self.input.offset();
        let count = if self.v2 { self.length()? } else { u64::from(u16::from_le_bytes(self.input.array()?)) };
        // A member takes at least a name length and a discriminant.
        self.check_fits(count_at, count, if self.v2 { 2 } else { 9 })?;
        let cap = reserve(count);
        let mut st = (!is_enum).then(|| StructMetadata::with_capacity(name.clone(), cap));
        let mut en = is_enum.then(|| EnumMetadata::with_capacity(name, cap));
        for _ in 0..count {
            let at = self.input.offset();
            let mname = self.string()?.into_boxed_str();
            // A repeated name is an error before its type is read.
            let taken = match (&st, &en) {
                (Some(s), _) => s.field(&mname).is_some(),
                (_, Some(e)) => e.variant(&mname).is_some(),
                _ => unreachable!("one of the two is built"),
            };
            if taken {
                let what = if is_enum { "variant" } else { "field" };
                return Err(Error::at(ErrorKind::DuplicateField, at, format!("{what} {mname:?} appears twice")));
            }
            let mty = self.metadata(child).map_err(|e| e.within(PathSegment::Field(mname.clone())))?;
            match (&mut st, &mut en) {
                (Some(s), _) => s.push_field(mname, mty)?,
                (_, Some(e)) => e.push_variant(mname, mty)?,
                _ => unreachable!("one of the two is built"),
            }
        }
        Ok(match (st, en) {
            (Some(s), _) => Metadata::Struct(Arc::new(s)),
            (_, Some(e)) => Metadata::Enum(Arc::new(e)),
            _ => unreachable!("one of the two is built"),
        })
    }

    /// An enum value's variant: its index, name and payload type; fails
    /// with `unknown-variant` at the index for one the enum does not have.
    pub(crate) fn variant<'e>(&mut self, e: &'e EnumMetadata) -> Result<(usize, &'e str, &'e Metadata)> {
        let at = self.input.offset();
        let index = self.length()?;
        match usize::try_from(index).ok().and_then(|i| Some((i, e.variant_at(i)?))) {
            Some((i, (name, pty))) => Ok((i, name, pty)),
            None => Err(Error::at(
                ErrorKind::UnknownVariant,
                at,
                format!("enum {} has {} variants; there is no variant {index}", e.name(), e.len()),
            )),
        }
    }

    /// Fails with `truncated` at `at` unless `count` items of at least
    /// `min_size` bytes each fit in what remains of the input.
    pub(crate) fn check_fits(&self, at: u64, count: u64, min_size: u64) -> Result<()> {
        if let Some(rem) = self.input.remaining() {
            if count.saturating_mul(min_size) > rem {
                return Err(Error::at(
                    ErrorKind::Truncated,
                    at,
                    format!(
                        "{count} items of at least {min_size} bytes each do not fit in the {rem} bytes that remain"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Adds `weight` zero-size values to the message's running total;
    /// fails with `too-large` at `at` once they cost more than the budget
    /// (each [`DECODED_VALUE_BYTES`]).
    pub(crate) fn charge(&mut self, at: u64, weight: u64) -> Result<()> {
        let allowed = self.opts.max_decoded_bytes / DECODED_VALUE_BYTES;
        let used = self.zero_size_used.saturating_add(weight);
        if used > allowed {
            return Err(Error::at(
                ErrorKind::TooLarge,
                at,
                format!(
                    "zero-size values would take more than the {} bytes allowed (max_decoded_bytes, {} bytes a value)",
                    self.opts.max_decoded_bytes, DECODED_VALUE_BYTES
                ),
            ));
        }
        self.zero_size_used = used;
        Ok(())
    }

    /// Checks a count of items of type `item` against the input or, for
    /// zero-size items, charges the budget for all of them at once (unless
    /// it was already charged for the value around them). Returns whether
    /// the items are zero-size, so that they are not charged again.
    pub(crate) fn check_count(&mut self, at: u64, count: u64, item: &Metadata) -> Result<bool> {
        if !item.is_zero_size() {
            return self.check_fits(at, count, self.min_size(item)).map(|()| false);
        }
        if self.prepaid == 0 {
            self.charge(at, count.saturating_mul(zero_size_values(item)))?;
        }
        Ok(true)
    }

    pub(crate) fn min_size(&self, ty: &Metadata) -> u64 {
        if self.v2 {
            ty.min_size_v2()
        } else {
            ty.min_size_v1()
        }
    }

    /// An unsigned varint of at most `bits` bits, canonical.
    #[inline]
    pub(crate) fn uvarint(&mut self, bits: u32) -> Result<u128> {
        self.input.varint(bits)
    }

    /// The rest of a varint whose first byte, at `start`, was just read.
    pub(crate) fn uvarint_after(&mut self, first: u8, start: u64, bits: u32) -> Result<u128> {
        self.input.varint_after(first, start, bits)
    }

    fn svarint(&mut self, bits: u32) -> Result<i128> {
        Ok(varint::unzigzag(self.uvarint(bits)?))
    }

    /// A length or count: u64 LE in v1, a varint in XBF 2.
    pub(crate) fn length(&mut self) -> Result<u64> {
        if self.v2 {
            Ok(self.uvarint(64)? as u64)
        } else {
            Ok(u64::from_le_bytes(self.input.array()?))
        }
    }

    fn string(&mut self) -> Result<String> {
        let start = self.input.offset();
        let len = self.length()?;
        let bytes = self.input.bytes(len).map_err(|e| relocate(e, start))?;
        crate::utf8::string_from(bytes).map_err(|e| {
            Error::at(
                ErrorKind::InvalidUtf8,
                start,
                format!("invalid UTF-8 at byte {} of the string", e.utf8_error().valid_up_to()),
            )
        })
    }

    pub(crate) fn root_value(&mut self, ty: &Metadata) -> Result<Value> {
        self.value(ty, 0).map_err(|e| match ty {
            Metadata::Struct(s) => e.within(PathSegment::Root(s.name().into())),
            Metadata::Enum(s) => e.within(PathSegment::Root(s.name().into())),
            _ => e,
        })
    }

    /// A value of type `ty`, whose metadata sits `depth` levels deep (which
    /// matters only for `any`, whose metadata nests below it).
    pub(crate) fn value(&mut self, ty: &Metadata, depth: usize) -> Result<Value> {
        if self.prepaid > 0 || !ty.is_zero_size() {
            return self.value_of(ty, depth);
        }
        // A zero-size value not yet paid for: it takes no input, so only the
        // budget bounds how many of them a message can hold.
        self.charge(self.input.offset(), zero_size_values(ty))?;
        self.prepaid += 1;
        let value = self.value_of(ty, depth);
        self.prepaid -= 1;
        value
    }

    fn value_of(&mut self, ty: &Metadata, depth: usize) -> Result<Value> {
        let child = depth + 1;
        match ty {
            Metadata::Primitive(p) => self.primitive(*p),
            Metadata::Vec(elem) => {
                let at = self.input.offset();
                let count = self.length()?;
                let items = self.items(elem, count, at, child)?;
                Ok(Value::Vec(VecValue::new_unchecked(elem.clone(), items)))
            }
            Metadata::Array(a) => {
                let at = self.input.offset();
                let items = self.items(&a.element, a.len, at, child)?;
                Ok(Value::Array(VecValue::new_unchecked(Arc::new(a.element.clone()), items)))
            }
            Metadata::Struct(s) => {
                let mut fields = Vec::with_capacity(reserve(s.len() as u64));
                for (name, fty) in s.fields() {
                    match self.value(fty, child) {
                        Ok(v) => fields.push(v),
                        Err(e) => return Err(e.within(PathSegment::Field(name.into()))),
                    }
                }
                Ok(Value::Struct(StructValue::new_unchecked(s.clone(), fields.into_boxed_slice())))
            }
            Metadata::Option(inner) => {
                let at = self.input.offset();
                let value = match self.input.u8()? {
                    0 => None,
                    1 => Some(self.value(inner, child)?),
                    b => return Err(invalid_bool(at, b)),
                };
                Ok(Value::Option(OptionValue::new_unchecked(inner.clone(), value)))
            }
            Metadata::Tuple(types) => {
                let mut items = Vec::with_capacity(types.len());
                for (i, t) in types.iter().enumerate() {
                    items.push(self.value(t, child).map_err(|e| e.within(PathSegment::Position(i as u64)))?);
                }
                Ok(Value::Tuple(TupleValue::new_unchecked(types.clone(), items.into_boxed_slice())))
            }
            Metadata::Map(m) => self.map(m, child),
            Metadata::Enum(e) => {
                let (index, name, pty) = self.variant(e)?;
                let payload = self.value(pty, child).map_err(|err| err.within(PathSegment::Field(name.into())))?;
                Ok(Value::Enum(EnumValue::new_unchecked(e.clone(), index, payload)))
            }
            Metadata::Any => {
                // Each `any` is a level of its own: otherwise `any` holding
                // `any` holding ... would nest without bound.
                let at = self.input.offset();
                if child > self.opts.max_depth {
                    return Err(Error::at(
                        ErrorKind::TooDeep,
                        at,
                        format!("more than {} levels of nesting", self.opts.max_depth),
                    ));
                }
                let own = self.metadata(child)?;
                let value = self.value(&own, child)?;
                Ok(Value::Any(Box::new(AnyValue::new_unchecked(own, value))))
            }
        }
    }

    fn items(&mut self, elem: &Metadata, count: u64, at: u64, child: usize) -> Result<Vec<Value>> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let paid = self.check_count(at, count, elem)?;
        // The outermost vec of a slice may trust its count, which was just
        // checked against the input; nested ones all claim the same input.
        // Zero-size items were checked against the budget only, which a
        // caller may set as high as u64::MAX: room for them grows as they come.
        let cap = if !paid && child == 1 && self.input.remaining().is_some() { count as usize } else { reserve(count) };
        let mut items = Vec::with_capacity(cap);
        self.prepaid += u32::from(paid);
        let mut result = Ok(());
        for i in 0..count {
            match self.value(elem, child) {
                Ok(v) => items.push(v),
                Err(e) => {
                    result = Err(e.within(PathSegment::Index(i)));
                    break;
                }
            }
        }
        self.prepaid -= u32::from(paid);
        result.map(|()| items)
    }

    fn map(&mut self, m: &Arc<MapMetadata>, child: usize) -> Result<Value> {
        let at = self.input.offset();
        let count = self.length()?;
        // Entries are charged at the count only when both halves are
        // zero-size; otherwise a zero-size key or value is charged where it
        // stands.
        let paid = if m.key.is_zero_size() && m.value.is_zero_size() {
            let entry = Metadata::tuple([m.key.clone(), m.value.clone()]);
            self.check_count(at, count, &entry)?;
            true
        } else {
            self.check_fits(at, count, self.min_size(&m.key).saturating_add(self.min_size(&m.value)))?;
            false
        };
        let mut entries = Vec::with_capacity(reserve(count));
        let mut seen = HashSet::with_capacity(reserve(count));
        self.prepaid += u32::from(paid);
        let mut result = Ok(());
        for i in 0..count {
            let key_at = self.input.offset();
            let key = self.value(&m.key, child).and_then(|k| {
                // Encodings are canonical: equal keys have equal bytes.
                if seen.insert(crate::value::key_bytes(&k)) {
                    Ok(k)
                } else {
                    Err(Error::at(ErrorKind::DuplicateKey, key_at, format!("key {k} appears twice")))
                }
            });
            let entry = key.map_err(|e| e.within(PathSegment::Field("key".into()))).and_then(|k| {
                let v = self.value(&m.value, child).map_err(|e| e.within(PathSegment::Field("value".into())))?;
                Ok((k, v))
            });
            match entry {
                Ok(kv) => entries.push(kv),
                Err(e) => {
                    result = Err(e.within(PathSegment::Index(i)));
                    break;
                }
            }
        }
        self.prepaid -= u32::from(paid);
        result?;
        Ok(Value::Map(MapValue::new_unchecked(m.clone(), entries)))
    }

    fn primitive(&mut self, p: PrimitiveType) -> Result<Value> {
        if self.v2 {
            match p {
                PrimitiveType::U16 => return Ok(Value::U16(self.uvarint(16)? as u16)),
                PrimitiveType::U32 => return Ok(Value::U32(self.uvarint(32)? as u32)),
                PrimitiveType::U64 => return Ok(Value::U64(self.uvarint(64)? as u64)),
                PrimitiveType::U128 => return Ok(Value::U128(self.uvarint(128)?)),
                PrimitiveType::I16 => return Ok(Value::I16(self.svarint(16)? as i16)),
                PrimitiveType::I32 => return Ok(Value::I32(self.svarint(32)? as i32)),
                PrimitiveType::I64 => return Ok(Value::I64(self.svarint(64)? as i64)),
                PrimitiveType::I128 => return Ok(Value::I128(self.svarint(128)?)),
                PrimitiveType::Date => return Ok(Value::Date(self.svarint(32)? as i32)),
                PrimitiveType::Timestamp => return Ok(Value::Timestamp(self.svarint(64)? as i64)),
                _ => {}
            }
        }
        let i = &mut self.input;
        Ok(match p.integer_type() {
            PrimitiveType::Bool => {
                let at = i.offset();
                match i.u8()? {
                    0 => Value::Bool(false),
                    1 => Value::Bool(true),
                    b => return Err(invalid_bool(at, b)),
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
            PrimitiveType::Unit => Value::Unit,
            PrimitiveType::Bytes => {
                let start = i.offset();
                let len = self.length()?;
                Value::Bytes(self.input.bytes(len).map_err(|e| relocate(e, start))?)
            }
            PrimitiveType::String => Value::String(self.string()?),
            other => unreachable!("{other} is read as a varint above"),
        })
    }
}

/// How many items to reserve room for before reading them. A count is only
/// a claim: nested vecs may all claim the same remaining input, so room is
/// reserved for a few and the rest grows as items really arrive.
fn reserve(count: u64) -> usize {
    count.min(64) as usize
}

/// The number of values in one value of a zero-size type (the type itself
/// and everything inside it), which the decoded-memory budget charges (48 bytes each).
/// Public for the Python binding's fast decoder, which charges the same.
#[doc(hidden)]
pub fn zero_size_values(ty: &Metadata) -> u64 {
    let inner: u64 = match ty {
        Metadata::Array(a) => a.len.saturating_mul(zero_size_values(&a.element)),
        other => other.children().into_iter().map(zero_size_values).fold(0, u64::saturating_add),
    };
    inner.saturating_add(1)
}

/// A map key equal to an earlier one of the same map, starting at `at`, for
/// the typed readers (which have no `Value` to show, unlike the dynamic one).
pub(crate) fn duplicate_key(at: u64) -> Error {
    Error::at(ErrorKind::DuplicateKey, at, format!("the key at byte {at} appears twice in the map"))
}

pub(crate) fn invalid_bool(at: u64, b: u8) -> Error {
    Error::at(ErrorKind::InvalidBool, at, format!("byte 0x{b:02x} is neither 0 nor 1"))
}

pub(crate) fn bad_varint(at: u64, why: String) -> Error {
    Error::at(ErrorKind::InvalidVarint, at, why)
}

pub(crate) fn unsupported_version(at: u64, first: u8) -> Error {
    Error::at(
        ErrorKind::Unsupported,
        at,
        format!("first byte 0x{first:02x} announces XBF version {}, which this decoder does not know", first & 0x0f),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A length that overruns the input is reported where the claim was made
/// (the length prefix or varint), not after it.
pub(crate) fn relocate(e: Error, start: u64) -> Error {
    if e.kind() == ErrorKind::Truncated {
        Error::at(ErrorKind::Truncated, start, e.detail())
    } else {
        e
    }
}
