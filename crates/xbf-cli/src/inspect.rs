//! `xbf inspect`: annotated hex. Each line gives the offset of its first
//! byte, up to 8 bytes, and what they mean, as in SPEC.md's examples.
//!
//! The input is first decoded with the library, which finds the first
//! error (if any) with its offset, path and kind. A walker that mirrors the
//! decoder then annotates the bytes in front of that offset, which the
//! decoder has accepted, so the walker never needs to judge damage itself;
//! it still stops cleanly wherever the bytes run out, and never loops over
//! elements that take no bytes.

use std::fmt::Write as _;
use std::path::PathBuf;

use std::sync::Arc;

use xbf::wire::{self, varint, Discriminant};
use xbf::{EnumMetadata, Metadata, PrimitiveType as P, StructMetadata};

use crate::io::{read_all, xbf_error, CliResult, Failure, Output};

/// Arguments of `xbf inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The XBF message or record stream ("-" or nothing: standard input).
    input: Option<PathBuf>,
    /// Annotate only the items that start in the first N bytes.
    #[arg(long, value_name = "N")]
    limit_bytes: Option<u64>,
}

/// Why the walk stopped before the end.
enum Stop {
    /// The bytes (that the decoder accepted) ran out.
    End,
    /// `--limit-bytes` was reached.
    Limit,
    /// Writing the output failed.
    Out(Failure),
}

type W<T> = Result<T, Stop>;

struct Walker<'a> {
    b: &'a [u8],
    pos: usize,
    end: usize,
    v2: bool,
    limit: usize,
    width: usize,
    depth: usize,
    out: &'a mut Output,
}

fn label(path: &str) -> &str {
    if path.is_empty() {
        "the value"
    } else {
        path
    }
}

fn show_str(s: &str) -> String {
    if s.chars().count() > 48 {
        format!("{:?}…", s.chars().take(48).collect::<String>())
    } else {
        format!("{s:?}")
    }
}

impl Walker<'_> {
    fn take(&mut self, n: u64) -> W<&[u8]> {
        let n = usize::try_from(n).map_err(|_| Stop::End)?;
        if self.end - self.pos < n {
            return Err(Stop::End);
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Prints the bytes from `start` to the current position, 8 a line,
    /// with `text` on the first line.
    fn emit(&mut self, start: usize, text: &str) -> W<()> {
        let bytes = &self.b[start..self.pos];
        let mut first = true;
        let mut at = start;
        loop {
            if at >= self.limit {
                return Err(Stop::Limit);
            }
            let chunk = &bytes[at - start..(at - start + 8).min(bytes.len())];
            let mut hex = String::with_capacity(24);
            for (i, x) in chunk.iter().enumerate() {
                let _ = write!(hex, "{}{x:02x}", if i == 0 { "" } else { " " });
            }
            let t = if first { text } else { "" };
            let line = format!("{at:>w$}  {hex:<27}{t}", w = self.width);
            self.out.line(line.trim_end()).map_err(Stop::Out)?;
            first = false;
            at += chunk.len();
            if at >= self.pos {
                return Ok(());
            }
        }
    }

    fn varint(&mut self) -> W<u128> {
        let (v, n) = varint::decode(&self.b[self.pos..self.end], 128).map_err(|_| Stop::End)?;
        self.pos += n;
        Ok(v)
    }

    /// A length or count: u64 LE in v1, a varint in XBF 2.
    fn count(&mut self) -> W<u64> {
        if self.v2 {
            u64::try_from(self.varint()?).map_err(|_| Stop::End)
        } else {
            Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
        }
    }

    fn name(&mut self, what: &str) -> W<String> {
        let start = self.pos;
        let n = self.count()?;
        self.emit(start, &format!("{what} length {n}"))?;
        let start = self.pos;
        let s = String::from_utf8_lossy(self.take(n)?).into_owned();
        self.emit(start, &show_str(&s))?;
        Ok(s)
    }

    fn enter(&mut self) -> W<()> {
        self.depth += 1;
        if self.depth > 400 {
            return Err(Stop::End);
        }
        Ok(())
    }

    /// Reads metadata; `path` is where it stands (SPEC 17.3), `root` whether
    /// it is the message's outermost type.
    fn meta(&mut self, path: &str, root: bool) -> W<Metadata> {
        self.enter()?;
        let start = self.pos;
        let d = self.take(1)?[0];
        let role = if path.is_empty() { "discriminant".to_owned() } else { format!("type of {path}") };
        let ty = if let Some(p) = P::from_discriminant(d) {
            self.emit(start, &format!("{role}: {p}"))?;
            Metadata::Primitive(p)
        } else {
            match Discriminant::from_byte(d, self.v2).ok_or(Stop::End)? {
                Discriminant::Vec => {
                    self.emit(start, &format!("{role}: vec of"))?;
                    Metadata::vec(self.meta(&format!("{path}[]"), false)?)
                }
                kind @ (Discriminant::Struct | Discriminant::Enum) => {
                    let is_struct = kind == Discriminant::Struct;
                    let (kw, member) = if is_struct { ("struct", "field") } else { ("enum", "variant") };
                    self.emit(start, &format!("{role}: {kw}"))?;
                    let name = self.name(&format!("{kw} name"))?;
                    let base = if root { name.clone() } else { path.to_owned() };
                    let cstart = self.pos;
                    let n = if self.v2 {
                        self.count()?
                    } else {
                        u64::from(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
                    };
                    self.emit(cstart, &format!("{member} count {n}"))?;
                    let mut members = Vec::new();
                    for _ in 0..n {
                        let m = self.name(&format!("{member} name"))?;
                        let t = self.meta(&format!("{base}.{m}"), false)?;
                        members.push((m, t));
                    }
                    // The decoder accepted these bytes, so the names are distinct.
                    if is_struct {
                        Metadata::Struct(Arc::new(StructMetadata::new(name, members).map_err(|_| Stop::End)?))
                    } else {
                        Metadata::Enum(Arc::new(EnumMetadata::new(name, members).map_err(|_| Stop::End)?))
                    }
                }
                Discriminant::Option => {
                    self.emit(start, &format!("{role}: option of"))?;
                    Metadata::option(self.meta(path, false)?)
                }
                Discriminant::Array => {
                    self.emit(start, &format!("{role}: array"))?;
                    let s = self.pos;
                    let n = self.count()?;
                    self.emit(s, &format!("array length {n}"))?;
                    Metadata::array(n, self.meta(&format!("{path}[]"), false)?)
                }
                Discriminant::Tuple => {
                    self.emit(start, &format!("{role}: tuple"))?;
                    let s = self.pos;
                    let n = self.count()?;
                    self.emit(s, &format!("tuple of {n} elements"))?;
                    let mut ts = Vec::new();
                    for j in 0..n {
                        ts.push(self.meta(&format!("{path}.{j}"), false)?);
                    }
                    Metadata::tuple(ts)
                }
                Discriminant::Map => {
                    self.emit(start, &format!("{role}: map"))?;
                    let k = self.meta(&format!("{path}[].key"), false)?;
                    let v = self.meta(&format!("{path}[].value"), false)?;
                    Metadata::map(k, v)
                }
                Discriminant::Any => {
                    self.emit(start, &format!("{role}: any (each value carries its own type)"))?;
                    Metadata::Any
                }
            }
        };
        self.depth -= 1;
        Ok(ty)
    }

    fn fixed<const N: usize>(&mut self) -> W<[u8; N]> {
        Ok(self.take(N as u64)?.try_into().expect("N bytes"))
    }

    fn primitive(&mut self, p: P, path: &str) -> W<()> {
        let start = self.pos;
        let v2 = self.v2;
        let unzig = varint::unzigzag;
        let text = match p {
            P::Unit => return Ok(()),
            P::Bool => match self.take(1)?[0] {
                0 => "false".to_owned(),
                _ => "true".to_owned(),
            },
            P::U8 => self.take(1)?[0].to_string(),
            P::I8 => (self.take(1)?[0] as i8).to_string(),
            P::U16 if !v2 => u16::from_le_bytes(self.fixed()?).to_string(),
            P::U32 if !v2 => u32::from_le_bytes(self.fixed()?).to_string(),
            P::U64 if !v2 => u64::from_le_bytes(self.fixed()?).to_string(),
            P::U128 if !v2 => u128::from_le_bytes(self.fixed()?).to_string(),
            P::I16 if !v2 => i16::from_le_bytes(self.fixed()?).to_string(),
            P::I32 if !v2 => i32::from_le_bytes(self.fixed()?).to_string(),
            P::I64 if !v2 => i64::from_le_bytes(self.fixed()?).to_string(),
            P::I128 if !v2 => i128::from_le_bytes(self.fixed()?).to_string(),
            P::U16 | P::U32 | P::U64 | P::U128 => format!("{} (varint)", self.varint()?),
            P::I16 | P::I32 | P::I64 | P::I128 => {
                let u = self.varint()?;
                format!("{} (zigzag {u})", unzig(u))
            }
            P::FixedU16 => u16::from_le_bytes(self.fixed()?).to_string(),
            P::FixedU32 => u32::from_le_bytes(self.fixed()?).to_string(),
            P::FixedU64 => u64::from_le_bytes(self.fixed()?).to_string(),
            P::FixedU128 => u128::from_le_bytes(self.fixed()?).to_string(),
            P::FixedI16 => i16::from_le_bytes(self.fixed()?).to_string(),
            P::FixedI32 => i32::from_le_bytes(self.fixed()?).to_string(),
            P::FixedI64 => i64::from_le_bytes(self.fixed()?).to_string(),
            P::FixedI128 => i128::from_le_bytes(self.fixed()?).to_string(),
            P::U256 => xbf::U256::from_le_bytes(self.fixed()?).to_string(),
            P::I256 => xbf::I256::from_le_bytes(self.fixed()?).to_string(),
            P::F32 => format!("{:?}", f32::from_le_bytes(self.fixed()?)),
            P::F64 => format!("{:?}", f64::from_le_bytes(self.fixed()?)),
            P::Date => {
                let days = unzig(self.varint()?);
                format!("{} (day {days})", xbf::time::format_date(days as i64))
            }
            P::Timestamp => {
                let us = unzig(self.varint()?);
                format!("{} ({us} µs)", xbf::time::format_timestamp(us as i64))
            }
            P::Bytes | P::String => {
                let n = self.count()?;
                self.emit(start, &format!("{}: {p} of length {n}", label(path)))?;
                let s = self.pos;
                let data = self.take(n)?;
                let text = if p == P::String { show_str(&String::from_utf8_lossy(data)) } else { format!("{n} bytes") };
                return self.emit(s, &text);
            }
        };
        self.emit(start, &format!("{} = {text} ({p})", label(path)))
    }

    fn value(&mut self, ty: &Metadata, path: &str) -> W<()> {
        self.enter()?;
        match ty {
            Metadata::Primitive(p) => self.primitive(*p, path)?,
            Metadata::Vec(e) => {
                let start = self.pos;
                let n = self.count()?;
                self.emit(start, &format!("{}: element count {n}", label(path)))?;
                if e.is_zero_size() {
                    self.emit(self.pos, &format!("({n} elements of zero size: no bytes)"))?;
                } else {
                    for i in 0..n {
                        self.value(e, &format!("{path}[{i}]"))?;
                    }
                }
            }
            Metadata::Struct(s) => {
                for (f, t) in s.fields() {
                    self.value(t, &format!("{path}.{f}"))?;
                }
            }
            Metadata::Option(t) => {
                let start = self.pos;
                let tag = self.take(1)?[0];
                self.emit(start, &format!("{}: {}", label(path), if tag == 0 { "absent" } else { "present" }))?;
                if tag != 0 {
                    self.value(t, path)?;
                }
            }
            Metadata::Array(a) => {
                if !a.element.is_zero_size() {
                    for i in 0..a.len {
                        self.value(&a.element, &format!("{path}[{i}]"))?;
                    }
                }
            }
            Metadata::Tuple(ts) => {
                for (j, t) in ts.iter().enumerate() {
                    self.value(t, &format!("{path}.{j}"))?;
                }
            }
            Metadata::Map(m) => {
                let (k, v) = (&m.key, &m.value);
                let start = self.pos;
                let n = self.count()?;
                self.emit(start, &format!("{}: entry count {n}", label(path)))?;
                if !(k.is_zero_size() && v.is_zero_size()) {
                    for i in 0..n {
                        self.value(k, &format!("{path}[{i}].key"))?;
                        self.value(v, &format!("{path}[{i}].value"))?;
                    }
                }
            }
            Metadata::Enum(e) => {
                let start = self.pos;
                let i = self.varint()?;
                let (name, t) = usize::try_from(i).ok().and_then(|i| e.variant_at(i)).ok_or(Stop::End)?;
                self.emit(start, &format!("{}: variant {i}, {name}", label(path)))?;
                self.value(t, &format!("{path}.{name}"))?;
            }
            Metadata::Any => {
                let t = self.meta(&format!("{path} (any)"), false)?;
                self.value(&t, path)?;
            }
            // A type this walker does not know: the annotation stops here.
            _ => return Err(Stop::End),
        }
        self.depth -= 1;
        Ok(())
    }

    /// The whole input: a v1 message, an XBF 2 message or a stream.
    fn top(&mut self) -> W<()> {
        let Some(&first) = self.b.first() else {
            return Ok(());
        };
        if first != wire::V2_MARKER {
            let ty = self.meta("", true)?;
            let path = match &ty {
                Metadata::Struct(s) => s.name().to_owned(),
                _ => String::new(),
            };
            return self.value(&ty, &path);
        }
        self.v2 = true;
        self.take(1)?;
        self.emit(0, "version byte: XBF 2")?;
        let flags = self.take(1)?[0];
        let mut what = Vec::new();
        if flags == 0 {
            what.push("none (a message with inline metadata)");
        }
        for (bit, name) in [
            (wire::FLAG_SCHEMA_REF, "schema by reference"),
            (wire::FLAG_COLUMNAR, "columnar"),
            (wire::FLAG_STREAM, "record stream"),
            (wire::FLAG_CHECKSUM, "block checksums"),
        ] {
            if flags & bit != 0 {
                what.push(name);
            }
        }
        if flags & 0xf0 != 0 {
            what.push("reserved bits set");
        }
        self.emit(1, &format!("flags: {}", what.join(", ")))?;
        if flags & wire::FLAG_SCHEMA_REF != 0 {
            let s = self.pos;
            self.take(8)?;
            self.emit(s, "fingerprint of the type (schema by reference)")?;
            return Err(Stop::End);
        }
        if flags & wire::FLAG_COLUMNAR != 0 {
            return Err(Stop::End);
        }
        let ty = self.meta("", true)?;
        if flags & wire::FLAG_STREAM == 0 {
            let path = match &ty {
                Metadata::Struct(s) => s.name().to_owned(),
                Metadata::Enum(e) => e.name().to_owned(),
                _ => String::new(),
            };
            return self.value(&ty, &path);
        }
        let (mut block, mut record) = (0u64, 0u64);
        while self.pos < self.end {
            let s = self.pos;
            let len = self.count()?;
            self.emit(s, &format!("block {block}: body length {len}"))?;
            let body_end = self.pos.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
            let outer_end = self.end;
            self.end = self.end.min(body_end);
            let s = self.pos;
            let n = self.count()?;
            self.emit(s, &format!("record count {n}"))?;
            if ty.is_zero_size() {
                self.emit(self.pos, &format!("({n} records of zero size: no bytes)"))?;
                record += n;
            } else {
                for _ in 0..n {
                    self.value(&ty, &format!("#{record}"))?;
                    record += 1;
                }
            }
            self.end = outer_end;
            if flags & wire::FLAG_CHECKSUM != 0 {
                let s = self.pos;
                let crc = u32::from_le_bytes(self.fixed()?);
                self.emit(s, &format!("CRC-32C of block {block}'s body: {crc:08x}"))?;
            }
            block += 1;
        }
        Ok(())
    }
}

/// The first error the library finds in the input, if any.
fn check(bytes: &[u8]) -> Option<xbf::Error> {
    if bytes.len() >= 2 && bytes[0] == wire::V2_MARKER && bytes[1] & wire::FLAG_STREAM != 0 {
        match crate::io::decode_options().stream_reader_with_length(bytes, bytes.len() as u64) {
            Err(e) => Some(e),
            Ok(mut s) => s.find_map(Result::err),
        }
    } else {
        crate::io::decode_options().decode_message(bytes).err()
    }
}

pub fn run(args: &InspectArgs) -> CliResult {
    if crate::file_cmd::is_file_input(args.input.as_deref())? {
        return crate::file_cmd::inspect(args.input.as_deref());
    }
    let (name, bytes) = read_all(args.input.as_deref())?;
    let err = check(&bytes);
    let end = err.as_ref().and_then(xbf::Error::offset).map_or(bytes.len(), |o| (o as usize).min(bytes.len()));
    let limit = args.limit_bytes.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut out = Output::create(None)?;
    let kind = match bytes.first() {
        None => "empty input".to_owned(),
        Some(&wire::V2_MARKER) if bytes.get(1).is_some_and(|f| f & wire::FLAG_STREAM != 0) => {
            "XBF 2 record stream".to_owned()
        }
        Some(&wire::V2_MARKER) => "XBF 2 message".to_owned(),
        Some(0..=0x12) => "XBF v1 message".to_owned(),
        Some(b) => format!("not XBF (first byte 0x{b:02x})"),
    };
    out.line(&format!("# {name}: {kind}, {} bytes", bytes.len()))?;
    let width = bytes.len().to_string().len().max(2);
    let mut w = Walker { b: &bytes, pos: 0, end, v2: false, limit, width, depth: 0, out: &mut out };
    let walked = w.top();
    let pos = w.pos;
    match walked {
        Ok(()) | Err(Stop::End) => {
            if err.is_none() && pos < bytes.len() {
                out.line(&format!("# bytes {pos}.. not annotated"))?;
            }
        }
        Err(Stop::Limit) => {
            out.line(&format!("# … stopped at --limit-bytes {limit}; the input has {} bytes", bytes.len()))?;
        }
        Err(Stop::Out(f)) => return Err(f),
    }
    out.finish()?;
    match err {
        Some(e) => Err(xbf_error(&name, &e)),
        None => Ok(()),
    }
}
