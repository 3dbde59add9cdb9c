//! The formats that `xbf compare` measures, as a table of descriptors: a new
//! format is one more entry in [`FORMATS`] with its encode and decode functions.

use std::cell::RefCell;
use std::fmt;
use std::fmt::Write as _;
use std::io::Write as _;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use xbf::{DecodeOptions, EncodeOptions, Layout, PrimitiveType, Version};

use xbf::json::Json;

use super::data::{cell_from_text, cell_text, is_signed, is_unsigned, Cell, Column, Dataset, Row};
use super::nested::{self, Nested, RecordArrays, Tree, Typed};

/// What a decoder gives back: the tool's records, or (for XBF, whose API is
/// the dynamic [`xbf::Value`]) the value.
pub enum Decoded {
    Rows(Vec<Row>),
    Xbf(xbf::Value),
    /// A nested document, read back by a generic decoder.
    Json(Json),
}

/// One format: its name and how to go from the records to bytes and back.
pub struct Format {
    pub name: &'static str,
    /// What the encoding is, for the legend.
    pub note: &'static str,
    /// The same for a nested document (JSON that is not flat records).
    pub nested_note: &'static str,
    pub encode: fn(&Dataset) -> Result<Vec<u8>, String>,
    pub decode: fn(&Dataset, &[u8]) -> Result<Decoded, String>,
}

/// The format whose times the others are divided by.
pub const BASELINE: &str = "JSON";

pub const FORMATS: &[Format] = &[
    Format {
        name: "CSV",
        note: "header line, then one line per record; floats in Rust's shortest round-trip form",
        nested_note: "cannot hold nested data, nulls or records with different fields",
        encode: csv_encode,
        decode: csv_decode,
    },
    Format { name: "JSON", note: "an array of objects (serde_json)", nested_note: "the document, numbers as written; read back by serde_json into the same tree as MessagePack and CBOR\n                         (number by number as text where an integer is wider than 64 bits)",
        encode: json_encode, decode: json_decode },
    Format {
        name: "XML",
        note: "<rows><row><name>value</name>...</row>...</rows>, text escaped (quick-xml)",
        nested_note: "W3C XPath 3.1 json-to-xml elements: <map>, <array>, <string>, <number>, <boolean>, <null/>, members with key=\"...\" (quick-xml)",
        encode: xml_encode,
        decode: xml_decode,
    },
    Format {
        name: "MessagePack (names)",
        note: "an array of maps, field names in every record (rmp-serde to_vec_named)",
        nested_note: "the document: objects as maps with their keys, integers as integers, other numbers float64 (rmp-serde)",
        encode: msgpack_named_encode,
        decode: msgpack_decode,
    },
    Format {
        name: "MessagePack (arrays)",
        note: "an array of arrays, no field names (rmp-serde to_vec)",
        nested_note: "where the document is an array of records with the same keys in the same order: each record an array of its values, nested objects as maps (rmp-serde)",
        encode: msgpack_arrays_encode,
        decode: msgpack_decode,
    },
    Format {
        name: "CBOR (names)",
        note: "an array of maps, field names in every record (ciborium)",
        nested_note: "the document: objects as maps with their keys, integers as integers, other numbers floats (ciborium)",
        encode: cbor_encode,
        decode: cbor_decode,
    },
    Format {
        name: "XBF v1",
        note: "the paper's format: the metadata vec<struct Row {...}> once, then the values, fixed-width",
        nested_note: "the XBF 2 type above, where v1 has all its types (no nulls, missing keys, mixed types)",
        encode: |ds| xbf_encode(ds, EncodeOptions::v1()),
        decode: xbf_message_decode,
    },
    Format {
        name: "XBF v1 data-only",
        note: "the v1 value without its metadata, for a reader that knows the type",
        nested_note: "the v1 value without its metadata, where v1 can hold it",
        encode: |ds| xbf_value_encode(ds, EncodeOptions::v1()),
        decode: |ds, bytes| xbf_value_decode(ds, bytes, Version::V1),
    },
    Format {
        name: "XBF 2 rows",
        note: "XBF 2: header, metadata once, then the rows with varint lengths and integers",
        nested_note: "XBF 2's JSON mapping (xbf::json::from_json_str): the type inferred from the whole document, then the rows",
        encode: |ds| xbf_encode(ds, EncodeOptions::v2().layout(Layout::Rows)),
        decode: xbf_message_decode,
    },
    Format {
        name: "XBF 2 columnar",
        note: "XBF 2 columns: one per field, each with its smallest encoding (delta, decimal, dictionary, ...)",
        nested_note: "the same value, vecs of structs as columns, each with its smallest encoding",
        encode: |ds| xbf_encode(ds, EncodeOptions::v2().layout(Layout::Columnar)),
        decode: xbf_message_decode,
    },
    Format {
        name: "XBF 2 columnar+zstd",
        note: "the same columns, each compressed with zstd (level 19) where that is smaller",
        nested_note: "the same columns, each compressed with zstd (level 19) where that is smaller",
        encode: |ds| xbf_encode(ds, EncodeOptions::v2().layout(Layout::Columnar).compress_columns(Some(19)).unwrap()),
        decode: xbf_message_decode,
    },
];

// ---------------------------------------------------------------------- CSV

fn csv_encode(ds: &Dataset) -> Result<Vec<u8>, String> {
    if let Some(n) = &ds.nested {
        return Err(format!("cannot hold {}", n.why));
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(ds.columns.iter().map(|c| c.name.as_bytes())).map_err(|e| e.to_string())?;
    let mut text = String::new();
    for row in &ds.rows {
        for cell in row {
            cell_text(cell, &mut text);
            w.write_field(text.as_bytes()).map_err(|e| e.to_string())?;
        }
        w.write_record(None::<&[u8]>).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

fn csv_decode(ds: &Dataset, bytes: &[u8]) -> Result<Decoded, String> {
    let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
    let header = r.headers().map_err(|e| e.to_string())?;
    if !header.iter().eq(ds.columns.iter().map(|c| c.name.as_str())) {
        return Err("the header names other columns".into());
    }
    let mut rows = Vec::with_capacity(ds.rows.len());
    let mut rec = csv::StringRecord::new();
    while r.read_record(&mut rec).map_err(|e| e.to_string())? {
        let row = ds
            .columns
            .iter()
            .zip(rec.iter())
            .map(|(c, s)| cell_from_text(c.ty, s).ok_or_else(|| format!("{s:?} is not a {}", c.ty)))
            .collect::<Result<Row, String>>()?;
        rows.push(row);
    }
    Ok(Decoded::Rows(rows))
}

// ---------------------------------------------------------------------- XML

/// Whether a column name can be an element name as it is; other names are
/// written `<c n="name">`.
fn xml_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !name.to_ascii_lowercase().starts_with("xml")
}

fn xml_encode(ds: &Dataset) -> Result<Vec<u8>, String> {
    use quick_xml::escape::escape;
    if let Some(n) = &ds.nested {
        return nested::xml_encode(&n.doc);
    }
    let mut out = String::from("<rows>");
    let mut text = String::new();
    for row in &ds.rows {
        out.push_str("<row>");
        for (col, cell) in ds.columns.iter().zip(row) {
            cell_text(cell, &mut text);
            if xml_name(&col.name) {
                let _ = write!(out, "<{0}>{1}</{0}>", col.name, escape(text.as_str()));
            } else {
                let _ = write!(out, "<c n=\"{}\">{}</c>", escape(col.name.as_str()), escape(text.as_str()));
            }
        }
        out.push_str("</row>");
    }
    out.push_str("</rows>");
    Ok(out.into_bytes())
}

fn xml_decode(ds: &Dataset, bytes: &[u8]) -> Result<Decoded, String> {
    use quick_xml::events::Event;
    if ds.nested.is_some() {
        return nested::xml_decode(bytes).map(Decoded::Json);
    }
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut rows = Vec::with_capacity(ds.rows.len());
    let mut row: Row = Vec::with_capacity(ds.columns.len());
    let mut text: Option<String> = None;
    let mut depth = 0usize;
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).map_err(|e| e.to_string())? {
            Event::Start(_) => {
                depth += 1;
                if depth == 3 {
                    text = Some(String::new());
                }
            }
            Event::Text(t) if depth == 3 => {
                let s = t.unescape().map_err(|e| e.to_string())?;
                text.get_or_insert_with(String::new).push_str(&s);
            }
            Event::End(_) => {
                if depth == 3 {
                    let col = ds.columns.get(row.len()).ok_or("a row with more fields than columns")?;
                    let s = text.take().unwrap_or_default();
                    row.push(cell_from_text(col.ty, &s).ok_or_else(|| format!("{s:?} is not a {}", col.ty))?);
                } else if depth == 2 {
                    if row.len() != ds.columns.len() {
                        return Err("a row with fewer fields than columns".into());
                    }
                    rows.push(std::mem::replace(&mut row, Vec::with_capacity(ds.columns.len())));
                }
                depth = depth.checked_sub(1).ok_or("an end tag with no start")?;
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(Decoded::Rows(rows))
}

// ------------------------------------------------- JSON, MessagePack, CBOR

fn json_encode(ds: &Dataset) -> Result<Vec<u8>, String> {
    match &ds.nested {
        Some(n) => serde_json::to_vec(&n.doc),
        None => serde_json::to_vec(&NamedRows(ds)),
    }
    .map_err(|e| e.to_string())
}

fn json_decode(ds: &Dataset, bytes: &[u8]) -> Result<Decoded, String> {
    if let Some(n) = &ds.nested {
        // Into the same tree as the other generic decoders; integers wider
        // than 64 bits need each number's text, which takes a slower parse.
        if n.wide_ints {
            let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
            return Json::parse(text).map(Decoded::Json).map_err(|e| e.to_string());
        }
        let Tree(doc) = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        return Ok(Decoded::Json(doc));
    }
    with_columns(ds, || serde_json::from_slice::<TypedRows>(bytes).map_err(|e| e.to_string()))
}

fn msgpack_named_encode(ds: &Dataset) -> Result<Vec<u8>, String> {
    match &ds.nested {
        Some(n) => rmp_serde::to_vec_named(&Typed(&n.doc)),
        None => rmp_serde::to_vec_named(&NamedRows(ds)),
    }
    .map_err(|e| e.to_string())
}

/// Why records cannot be written as arrays without their keys.
fn no_arrays(n: &Nested) -> String {
    match &n.doc {
        Json::Array(items) if items.iter().all(|i| matches!(i, Json::Object(_))) => {
            "cannot hold these records without field names: they do not all have the same fields in the same order"
                .into()
        }
        _ => "cannot hold this data without field names: it is not an array of records".into(),
    }
}

fn msgpack_arrays_encode(ds: &Dataset) -> Result<Vec<u8>, String> {
    match &ds.nested {
        Some(n) => match (&n.record_keys, &n.doc) {
            (Some(_), Json::Array(items)) => rmp_serde::to_vec(&RecordArrays(items)).map_err(|e| e.to_string()),
            _ => Err(no_arrays(n)),
        },
        None => rmp_serde::to_vec(&ArrayRows(ds)).map_err(|e| e.to_string()),
    }
}

/// Reads either MessagePack form: the records decoder takes maps and arrays.
fn msgpack_decode(ds: &Dataset, bytes: &[u8]) -> Result<Decoded, String> {
    if let Some(n) = &ds.nested {
        let Tree(doc) = rmp_serde::from_slice(bytes).map_err(|e| e.to_string())?;
        return match (&n.record_keys, &doc) {
            // Records as arrays: an array of arrays, where the document is
            // an array of objects.
            (Some(keys), Json::Array(items)) if matches!(items.first(), Some(Json::Array(_))) => {
                nested::name_records(doc, keys).map(Decoded::Json)
            }
            _ => Ok(Decoded::Json(doc)),
        };
    }
    with_columns(ds, || rmp_serde::from_slice::<TypedRows>(bytes).map_err(|e| e.to_string()))
}

fn cbor_encode(ds: &Dataset) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    match &ds.nested {
        Some(n) => ciborium::into_writer(&Typed(&n.doc), &mut out),
        None => ciborium::into_writer(&NamedRows(ds), &mut out),
    }
    .map_err(|e| match e {
        ciborium::ser::Error::Value(e) => e,
        e => e.to_string(),
    })?;
    Ok(out)
}

fn cbor_decode(ds: &Dataset, bytes: &[u8]) -> Result<Decoded, String> {
    if ds.nested.is_some() {
        let Tree(doc) = ciborium::from_reader(bytes).map_err(|e| e.to_string())?;
        return Ok(Decoded::Json(doc));
    }
    with_columns(ds, || ciborium::from_reader::<TypedRows, _>(bytes).map_err(|e| e.to_string()))
}

// ---------------------------------------------------------------------- XBF

/// For a nested document: why these options cannot encode it, if they
/// cannot (XBF 2's JSON mapping refused it, or v1 lacks some of its types).
fn xbf_cannot(ds: &Dataset, opts: &EncodeOptions) -> Result<(), String> {
    let Some(n) = &ds.nested else { return Ok(()) };
    if let Some(e) = &n.xbf_error {
        return Err(format!("cannot hold it: {e}"));
    }
    if let Err(e) = opts.check_type(&ds.xbf_type) {
        let what = nested::v1_lacks(&ds.xbf_type).unwrap_or_else(|| "its types".into());
        return Err(format!("cannot hold {what} ({})", nested::shorten(&e.to_string(), 60)));
    }
    Ok(())
}

fn xbf_encode(ds: &Dataset, opts: EncodeOptions) -> Result<Vec<u8>, String> {
    xbf_cannot(ds, &opts)?;
    opts.encode_message(&ds.xbf_value).map_err(|e| e.to_string())
}

fn xbf_message_decode(_: &Dataset, bytes: &[u8]) -> Result<Decoded, String> {
    xbf::decode_message(bytes).map(Decoded::Xbf).map_err(|e| e.to_string())
}

fn xbf_value_encode(ds: &Dataset, opts: EncodeOptions) -> Result<Vec<u8>, String> {
    xbf_cannot(ds, &opts)?;
    opts.encode_value(&ds.xbf_value).map_err(|e| e.to_string())
}

fn xbf_value_decode(ds: &Dataset, bytes: &[u8], version: Version) -> Result<Decoded, String> {
    DecodeOptions::default().decode_value(version, &ds.xbf_type, bytes).map(Decoded::Xbf).map_err(|e| e.to_string())
}

/// Compresses with gzip at level 9.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
    enc.write_all(bytes).map_err(|e| e.to_string())?;
    enc.finish().map_err(|e| e.to_string())
}

/// Compresses with zstd at level 19, in one frame that records the content
/// size, as the `zstd -19` command does for a file.
pub fn zstd(bytes: &[u8]) -> Result<Vec<u8>, String> {
    zstd::bulk::compress(bytes, 19).map_err(|e| e.to_string())
}

// ------------------------------------------------ serde views of the records

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Bool(b) => s.serialize_bool(*b),
            Cell::U64(x) => s.serialize_u64(*x),
            Cell::I64(x) => s.serialize_i64(*x),
            Cell::F64(x) => s.serialize_f64(*x),
            Cell::Str(x) => s.serialize_str(x),
        }
    }
}

/// The records as an array of objects keyed by column name.
struct NamedRows<'a>(&'a Dataset);

/// The records as an array of arrays.
struct ArrayRows<'a>(&'a Dataset);

struct NamedRow<'a>(&'a [Column], &'a Row);

impl Serialize for NamedRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for row in &self.0.rows {
            seq.serialize_element(&NamedRow(&self.0.columns, row))?;
        }
        seq.end()
    }
}

impl Serialize for NamedRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (c, cell) in self.0.iter().zip(self.1) {
            map.serialize_entry(&c.name, cell)?;
        }
        map.end()
    }
}

impl Serialize for ArrayRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for row in &self.0.rows {
            seq.serialize_element(row)?;
        }
        seq.end()
    }
}

// The decoders read straight into typed records, guided by the columns (the
// `*Seed` types). ciborium has no entry point for a seed, only for a type
// that implements `Deserialize`, so every serde format goes through
// `TypedRows`, which takes its columns from a thread-local that
// `with_columns` sets for the length of one decode: the same path for all.

thread_local! {
    static COLUMNS: RefCell<Option<Rc<[Column]>>> = const { RefCell::new(None) };
}

struct TypedRows(Vec<Row>);

fn with_columns(ds: &Dataset, decode: impl FnOnce() -> Result<TypedRows, String>) -> Result<Decoded, String> {
    let columns: Rc<[Column]> = ds.columns.clone().into();
    COLUMNS.with(|c| *c.borrow_mut() = Some(columns));
    let result = decode();
    COLUMNS.with(|c| *c.borrow_mut() = None);
    result.map(|rows| Decoded::Rows(rows.0))
}

impl<'de> Deserialize<'de> for TypedRows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let columns = COLUMNS
            .with(|c| c.borrow().clone())
            .ok_or_else(|| de::Error::custom("records decoded without their columns"))?;
        d.deserialize_seq(RowsSeed(&columns)).map(TypedRows)
    }
}

struct RowsSeed<'c>(&'c [Column]);

impl<'de> Visitor<'de> for RowsSeed<'_> {
    type Value = Vec<Row>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Row>, A::Error> {
        let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(row) = seq.next_element_seed(RowSeed(self.0))? {
            rows.push(row);
        }
        Ok(rows)
    }
}

struct RowSeed<'c>(&'c [Column]);

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = Row;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Row, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_> {
    type Value = Row;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a record (a map or an array)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Row, A::Error> {
        let mut row = Vec::with_capacity(self.0.len());
        for c in self.0 {
            match seq.next_element_seed(CellSeed(c.ty))? {
                Some(cell) => row.push(cell),
                None => return Err(de::Error::invalid_length(row.len(), &self)),
            }
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("a record with too many fields"));
        }
        Ok(row)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Row, A::Error> {
        let n = self.0.len();
        // Fields in column order go straight in; others fill their slot.
        let mut row: Row = Vec::with_capacity(n);
        let mut slots: Option<Vec<Option<Cell>>> = None;
        while let Some(i) = map.next_key_seed(KeySeed { columns: self.0, expected: row.len() })? {
            let cell = map.next_value_seed(CellSeed(self.0[i].ty))?;
            match &mut slots {
                None if i == row.len() => row.push(cell),
                None => {
                    let mut s: Vec<Option<Cell>> = row.drain(..).map(Some).collect();
                    s.resize(n, None);
                    put(&mut s, i, cell, self.0)?;
                    slots = Some(s);
                }
                Some(s) => put(s, i, cell, self.0)?,
            }
        }
        if let Some(s) = slots {
            for (c, slot) in self.0.iter().zip(s) {
                row.push(slot.ok_or_else(|| missing(&c.name))?);
            }
        }
        if row.len() != n {
            return Err(missing(&self.0[row.len()].name));
        }
        Ok(row)
    }
}

fn missing<E: de::Error>(name: &str) -> E {
    E::custom(format_args!("missing field {name:?}"))
}

fn put<E: de::Error>(slots: &mut [Option<Cell>], i: usize, cell: Cell, columns: &[Column]) -> Result<(), E> {
    if slots[i].replace(cell).is_some() {
        return Err(E::custom(format_args!("duplicate field {:?}", columns[i].name)));
    }
    Ok(())
}

/// A map key: the index of the column it names; tries `expected` first.
struct KeySeed<'c> {
    columns: &'c [Column],
    expected: usize,
}

impl KeySeed<'_> {
    fn find<E: de::Error>(&self, key: &str) -> Result<usize, E> {
        if self.columns.get(self.expected).is_some_and(|c| c.name == key) {
            return Ok(self.expected);
        }
        self.columns.iter().position(|c| c.name == key).ok_or_else(|| E::custom(format_args!("unknown field {key:?}")))
    }
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.find(v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<usize, E> {
        match std::str::from_utf8(v) {
            Ok(s) => self.find(s),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
        }
    }
}

/// One field value, read as the column's type.
struct CellSeed(PrimitiveType);

impl<'de> DeserializeSeed<'de> for CellSeed {
    type Value = Cell;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cell, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CellSeed {
    type Value = Cell;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a value of type {}", self.0)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Cell, E> {
        match self.0 {
            PrimitiveType::Bool => Ok(Cell::Bool(v)),
            _ => Err(E::invalid_type(de::Unexpected::Bool(v), &self)),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cell, E> {
        match self.0 {
            t if is_unsigned(t) => Ok(Cell::U64(v)),
            t if is_signed(t) && i64::try_from(v).is_ok() => Ok(Cell::I64(v as i64)),
            PrimitiveType::F64 => Ok(Cell::F64(v as f64)),
            _ => Err(E::invalid_type(de::Unexpected::Unsigned(v), &self)),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cell, E> {
        match self.0 {
            t if is_signed(t) => Ok(Cell::I64(v)),
            t if is_unsigned(t) && v >= 0 => Ok(Cell::U64(v as u64)),
            PrimitiveType::F64 => Ok(Cell::F64(v as f64)),
            _ => Err(E::invalid_type(de::Unexpected::Signed(v), &self)),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Cell, E> {
        match self.0 {
            PrimitiveType::F64 => Ok(Cell::F64(v)),
            _ => Err(E::invalid_type(de::Unexpected::Float(v), &self)),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell, E> {
        match self.0 {
            PrimitiveType::String => Ok(Cell::Str(v.to_owned())),
            _ => Err(E::invalid_type(de::Unexpected::Str(v), &self)),
        }
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cell, E> {
        match self.0 {
            PrimitiveType::String => Ok(Cell::Str(v)),
            _ => Err(E::invalid_type(de::Unexpected::Str(&v), &self)),
        }
    }
}
