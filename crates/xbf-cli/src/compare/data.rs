//! The records that `xbf compare` measures: parsing JSON or CSV input, inferring a
//! type per column, and the XBF view of the same records.

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value as Json;
use xbf::{Metadata, PrimitiveType, StructMetadata, StructValue, Value, VecValue};

use super::nested::{not_flat_reason, Nested};
use crate::infer::{infer_text, Inference};

/// The name of the struct type that holds one record in the XBF encodings.
pub const ROW_STRUCT: &str = "Row";

/// One field value of a record. Integer columns hold `U64` (unsigned columns)
/// or `I64` (signed columns) whatever their XBF width.
#[derive(Clone, Debug)]
pub enum Cell {
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
}

impl Cell {
    /// Exact equality: floats compare by their bits (so `-0.0 != 0.0`).
    pub fn same(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Bool(a), Cell::Bool(b)) => a == b,
            (Cell::U64(a), Cell::U64(b)) => a == b,
            (Cell::I64(a), Cell::I64(b)) => a == b,
            (Cell::F64(a), Cell::F64(b)) => a.to_bits() == b.to_bits(),
            (Cell::Str(a), Cell::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// A record: one cell per column, in column order.
pub type Row = Vec<Cell>;

/// A column's name and type. The type is one of bool, u8..u64, i8..i64, f64
/// and string, as XBF writes it.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: PrimitiveType,
}

/// Whether a column of this type holds `Cell::U64`.
pub fn is_unsigned(ty: PrimitiveType) -> bool {
    matches!(ty, PrimitiveType::U8 | PrimitiveType::U16 | PrimitiveType::U32 | PrimitiveType::U64)
}

/// Whether a column of this type holds `Cell::I64`.
pub fn is_signed(ty: PrimitiveType) -> bool {
    matches!(ty, PrimitiveType::I8 | PrimitiveType::I16 | PrimitiveType::I32 | PrimitiveType::I64)
}

/// The records and everything derived from them once.
pub struct Dataset {
    /// What the data is, for the legend.
    pub label: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// `vec<struct Row { ... }>`.
    pub xbf_type: Metadata,
    /// The records as one XBF value of type `xbf_type`.
    pub xbf_value: Value,
    /// For JSON that is not flat records: the document (and then `columns`
    /// and `rows` are empty, and `xbf_value` is the document as XBF 2's JSON
    /// mapping infers it, `Value::Unit` if the mapping refused it).
    pub nested: Option<Nested>,
}

impl Dataset {
    fn new(label: String, columns: Vec<Column>, rows: Vec<Row>) -> Result<Dataset, String> {
        let row_ty = Arc::new(
            StructMetadata::new(ROW_STRUCT, columns.iter().map(|c| (c.name.as_str(), Metadata::from(c.ty))))
                .map_err(|e| e.to_string())?,
        );
        let mut items = Vec::with_capacity(rows.len());
        for row in &rows {
            let fields = columns.iter().zip(row).map(|(c, cell)| cell_to_value(c.ty, cell)).collect();
            items.push(Value::Struct(StructValue::new(row_ty.clone(), fields).map_err(|e| e.to_string())?));
        }
        let xbf_type = Metadata::vec(row_ty.into());
        let vec = VecValue::new(xbf_type.as_vec().expect("a vec type").clone(), items).map_err(|e| e.to_string())?;
        Ok(Dataset { label, columns, rows, xbf_type, xbf_value: vec.into(), nested: None })
    }

    /// A JSON document that is not flat records (`why` says how).
    fn nested(label: String, text: &str, doc: xbf::json::Json, why: String) -> Dataset {
        let (xbf_value, xbf_error) = match super::nested::xbf_value(text) {
            Ok(v) => (v, None),
            Err(e) => (Value::Unit, Some(e)),
        };
        Dataset {
            label,
            columns: Vec::new(),
            rows: Vec::new(),
            xbf_type: xbf_value.metadata(),
            xbf_value,
            nested: Some(Nested::new(doc, why, xbf_error)),
        }
    }

    /// The in-memory size of the field values alone: integers at their XBF
    /// width, f64 8 bytes, bool 1, strings their UTF-8 length; no lengths,
    /// names, separators or padding.
    pub fn native_size(&self) -> u64 {
        if let Some(n) = &self.nested {
            return n.native_size();
        }
        let mut total = 0u64;
        for row in &self.rows {
            for (c, cell) in self.columns.iter().zip(row) {
                total += match (c.ty.fixed_size(), cell) {
                    (Some(n), _) => n as u64,
                    (None, Cell::Str(s)) => s.len() as u64,
                    (None, _) => 0,
                };
            }
        }
        total
    }

    /// Whether `rows` are exactly the records (floats bit for bit).
    pub fn same_rows(&self, rows: &[Row]) -> bool {
        rows.len() == self.rows.len()
            && rows.iter().zip(&self.rows).all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y)))
    }

    /// Turns a decoded XBF value back into records; `None` unless it is a vec
    /// of structs of exactly the records' type.
    pub fn rows_from_value(&self, value: &Value) -> Option<Vec<Row>> {
        if value.metadata() != self.xbf_type {
            return None;
        }
        let mut rows = Vec::with_capacity(self.rows.len());
        for item in value.as_vec()?.items() {
            let fields = item.as_struct()?.values();
            rows.push(fields.iter().map(value_to_cell).collect::<Option<Row>>()?);
        }
        Some(rows)
    }

    /// A one-line description of the columns: `date string, open f64, ...`.
    pub fn schema_line(&self) -> String {
        let mut s = String::new();
        for (i, c) in self.columns.iter().enumerate() {
            let _ = write!(s, "{}{} {}", if i == 0 { "" } else { ", " }, c.name, c.ty);
        }
        s
    }
}

fn cell_to_value(ty: PrimitiveType, cell: &Cell) -> Value {
    // Inference chose each width so that every cell of the column fits it.
    match (ty, cell) {
        (PrimitiveType::Bool, Cell::Bool(b)) => Value::Bool(*b),
        (PrimitiveType::U8, Cell::U64(x)) => Value::U8(*x as u8),
        (PrimitiveType::U16, Cell::U64(x)) => Value::U16(*x as u16),
        (PrimitiveType::U32, Cell::U64(x)) => Value::U32(*x as u32),
        (PrimitiveType::U64, Cell::U64(x)) => Value::U64(*x),
        (PrimitiveType::I8, Cell::I64(x)) => Value::I8(*x as i8),
        (PrimitiveType::I16, Cell::I64(x)) => Value::I16(*x as i16),
        (PrimitiveType::I32, Cell::I64(x)) => Value::I32(*x as i32),
        (PrimitiveType::I64, Cell::I64(x)) => Value::I64(*x),
        (PrimitiveType::F64, Cell::F64(x)) => Value::F64(*x),
        (PrimitiveType::String, Cell::Str(s)) => Value::String(s.clone()),
        (ty, cell) => unreachable!("a {cell:?} cell in a {ty} column"),
    }
}

fn value_to_cell(v: &Value) -> Option<Cell> {
    Some(match v {
        Value::Bool(b) => Cell::Bool(*b),
        Value::U8(_) | Value::U16(_) | Value::U32(_) | Value::U64(_) => Cell::U64(v.as_u64()?),
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => Cell::I64(v.as_i64()?),
        Value::F64(x) => Cell::F64(*x),
        Value::String(s) => Cell::Str(s.clone()),
        _ => return None,
    })
}

/// The built-in data: S&P 500 daily prices of 2019 (see `data/README.md`).
pub const DEFAULT_CSV: &str = include_str!("../../data/sp500-2019.csv");
pub const DEFAULT_LABEL: &str = "built-in sp500-2019.csv (S&P 500 daily prices of 2019, from vega-datasets 3.2.1)";

/// Which parser an input goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    Json,
    Csv,
}

/// Guesses the input kind: by the file's extension, else JSON if the text
/// opens with `[` or `{` or is one whole JSON value (such as `42`, which is
/// then measured as a document), else CSV.
pub fn guess_kind(extension: Option<&str>, text: &str) -> InputKind {
    match extension.map(str::to_ascii_lowercase).as_deref() {
        Some("json") => InputKind::Json,
        Some("csv") => InputKind::Csv,
        _ => {
            let text = text.trim_start_matches('\u{feff}');
            let opens_json = matches!(text.trim_start().chars().next(), Some('[' | '{'));
            if opens_json || serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
                InputKind::Json
            } else {
                InputKind::Csv
            }
        }
    }
}

pub fn parse(kind: InputKind, text: &str, label: String) -> Result<Dataset, String> {
    match kind {
        InputKind::Json => parse_json(text, label),
        InputKind::Csv => parse_csv(text, label),
    }
}

// ---------------------------------------------------------------- inference

/// Reads a CSV cell as a value of the column's type. Only called with a type
/// that inference chose for this cell, so the parses succeed.
pub fn cell_from_text(ty: PrimitiveType, s: &str) -> Option<Cell> {
    Some(if is_unsigned(ty) {
        Cell::U64(s.parse().ok()?)
    } else if is_signed(ty) {
        Cell::I64(s.parse().ok()?)
    } else {
        match ty {
            PrimitiveType::F64 => Cell::F64(s.parse().ok()?),
            PrimitiveType::Bool => Cell::Bool(match s {
                "true" => true,
                "false" => false,
                _ => return None,
            }),
            _ => Cell::Str(s.to_owned()),
        }
    })
}

/// Writes a cell as CSV text: shortest round-trip floats (Rust's `{}`).
pub fn cell_text(cell: &Cell, out: &mut String) {
    out.clear();
    let _ = match cell {
        Cell::Bool(b) => write!(out, "{b}"),
        Cell::U64(x) => write!(out, "{x}"),
        Cell::I64(x) => write!(out, "{x}"),
        Cell::F64(x) => write!(out, "{x}"),
        Cell::Str(s) => {
            out.push_str(s);
            Ok(())
        }
    };
}

fn check_columns(names: &[String]) -> Result<(), String> {
    if names.is_empty() {
        return Err("the records have no fields".into());
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(format!("two columns are named {n:?}"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------- CSV

pub fn parse_csv(text: &str, label: String) -> Result<Dataset, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let names: Vec<String> =
        reader.headers().map_err(|e| format!("invalid CSV: {e}"))?.iter().map(str::to_owned).collect();
    check_columns(&names)?;
    let mut records = Vec::new();
    for rec in reader.records() {
        records.push(rec.map_err(|e| format!("invalid CSV: {e}"))?);
    }
    if records.is_empty() {
        return Err("the CSV has a header but no rows".into());
    }
    let columns: Vec<Column> = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| Column { ty: infer_text(records.iter().map(|r| &r[i])), name })
        .collect();
    let rows = records
        .iter()
        .map(|r| {
            columns
                .iter()
                .zip(r)
                .map(|(c, s)| cell_from_text(c.ty, s).expect("inference chose a type that parses every cell"))
                .collect()
        })
        .collect();
    Dataset::new(label, columns, rows)
}

// --------------------------------------------------------------------- JSON

fn json_kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

pub fn parse_json(text: &str, label: String) -> Result<Dataset, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Json = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    // Anything but flat records goes to the generic encodings, read again
    // with every number's digits kept.
    let tree = xbf::json::Json::parse(text).map_err(|e| e.to_string())?;
    if let Some(why) = not_flat_reason(&tree) {
        return Ok(Dataset::nested(label, text, tree, why));
    }
    let not_records = "compare takes a JSON array of flat objects, one per record";
    let items = match doc {
        Json::Array(items) => items,
        other => return Err(format!("not record-like: the JSON is {}; {not_records}", json_kind(&other))),
    };
    if items.is_empty() {
        return Err("the JSON array holds no records".into());
    }
    let mut objects = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Json::Object(o) => objects.push(o),
            other => return Err(format!("not record-like: record {i} is {}; {not_records}", json_kind(other))),
        }
    }
    let names: Vec<String> = objects[0].keys().cloned().collect();
    check_columns(&names)?;
    for (i, o) in objects.iter().enumerate() {
        for (k, v) in o.iter() {
            if !names.contains(k) {
                return Err(format!("record {i} has a field {k:?} that record 0 lacks"));
            }
            match v {
                Json::Array(_) | Json::Object(_) | Json::Null => {
                    return Err(format!(
                        "not record-like: field {k:?} of record {i} is {}; compare takes flat records of numbers, strings and booleans",
                        json_kind(v)
                    ))
                }
                _ => {}
            }
        }
        if let Some(missing) = names.iter().find(|n| !o.contains_key(*n)) {
            return Err(format!("record {i} has no field {missing:?}"));
        }
    }
    let mut columns = Vec::with_capacity(names.len());
    for name in names {
        let ty = infer_json(objects.iter().map(|o| &o[&name]));
        columns.push(Column { name, ty });
    }
    let rows = objects.iter().map(|o| columns.iter().map(|c| json_cell(c.ty, &o[&c.name])).collect()).collect();
    Dataset::new(label, columns, rows)
}

/// Infers a column's type from its JSON values (numbers, strings, booleans):
/// integers at the narrowest width, f64 if all are numbers, bool if all are
/// booleans, else string (numbers and booleans in a mixed column become their
/// JSON text).
fn infer_json<'a>(values: impl Iterator<Item = &'a Json>) -> PrimitiveType {
    let mut inf = Inference::new();
    for (i, v) in values.enumerate() {
        match v {
            Json::Number(n) => {
                inf.bools = false;
                match (n.as_u64(), n.as_i64()) {
                    (Some(x), _) => inf.int(x.into(), i == 0),
                    (None, Some(x)) => inf.int(x.into(), i == 0),
                    _ => inf.ints = false,
                }
            }
            Json::Bool(_) => inf.not_number(),
            _ => {
                inf.not_number();
                inf.bools = false;
            }
        }
    }
    inf.column_type()
}

fn json_cell(ty: PrimitiveType, v: &Json) -> Cell {
    match v {
        Json::Number(n) if is_unsigned(ty) => Cell::U64(n.as_u64().expect("inferred unsigned")),
        Json::Number(n) if is_signed(ty) => Cell::I64(n.as_i64().expect("inferred signed")),
        Json::Number(n) if ty == PrimitiveType::F64 => Cell::F64(n.as_f64().expect("a finite number")),
        Json::Bool(b) if ty == PrimitiveType::Bool => Cell::Bool(*b),
        Json::String(s) => Cell::Str(s.clone()),
        other => Cell::Str(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_types() {
        let t = |cells: &[&str]| infer_text(cells.iter().copied());
        assert_eq!(t(&["1", "255"]), PrimitiveType::U8);
        assert_eq!(t(&["1", "256"]), PrimitiveType::U16);
        assert_eq!(t(&["0", "6454270000"]), PrimitiveType::U64);
        assert_eq!(t(&["-1", "127"]), PrimitiveType::I8);
        assert_eq!(t(&["-1", "128"]), PrimitiveType::I16);
        assert_eq!(t(&["-1", "18446744073709551615"]), PrimitiveType::F64);
        assert_eq!(t(&["18446744073709551615"]), PrimitiveType::U64);
        assert_eq!(t(&["1", "2.5"]), PrimitiveType::F64);
        assert_eq!(t(&["1e999"]), PrimitiveType::String);
        assert_eq!(t(&["true", "false"]), PrimitiveType::Bool);
        assert_eq!(t(&["true", "1"]), PrimitiveType::String);
        assert_eq!(t(&["00501", "12345"]), PrimitiveType::String);
        assert_eq!(t(&["1", ""]), PrimitiveType::String);
    }

    #[test]
    fn json_columns() {
        let ds = parse_json(
            r#"[{"a": 1, "b": -2, "c": 1.5, "d": true, "e": "x", "f": 1},
                               {"a": 300, "b": 2, "c": 2, "d": false, "e": "y", "f": "z"}]"#,
            "t".into(),
        )
        .unwrap();
        let types: Vec<_> = ds.columns.iter().map(|c| c.ty).collect();
        use PrimitiveType::*;
        assert_eq!(types, [U16, I8, F64, Bool, String, String]);
        assert!(ds.rows[1][2].same(&Cell::F64(2.0)));
        assert!(ds.rows[0][5].same(&Cell::Str("1".into())));
        assert_eq!(ds.native_size(), 2 * (2 + 1 + 8 + 1 + 1) + 1 + 1);
    }

    #[test]
    fn input_kinds() {
        assert_eq!(guess_kind(Some("JSON"), "a,b"), InputKind::Json);
        assert_eq!(guess_kind(Some("csv"), "[1]"), InputKind::Csv);
        assert_eq!(guess_kind(None, " [{\"a\": 1}"), InputKind::Json);
        assert_eq!(guess_kind(None, "42\n"), InputKind::Json);
        assert_eq!(guess_kind(Some("txt"), "a,b\n1,2\n"), InputKind::Csv);
        assert_eq!(guess_kind(None, "a\n1\n"), InputKind::Csv);
    }

    #[test]
    fn default_data_round_trips_through_its_value() {
        let ds = parse_csv(DEFAULT_CSV, "t".into()).unwrap();
        assert_eq!(ds.rows.len(), 252);
        assert_eq!(ds.schema_line(), "date string, open f64, high f64, low f64, close f64, adjclose f64, volume u64");
        assert!(ds.same_rows(&ds.rows_from_value(&ds.xbf_value).unwrap()));
    }
}
