//! `xbf from-csv` and `xbf to-csv`: CSV with a header line to and from an
//! XBF 2 message `vec<struct Row { ... }>`, with a type inferred per column.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use xbf::{Metadata, OptionValue, PrimitiveType, StructMetadata, StructValue, Value, VecValue};

use crate::convert::ConvertArgs;
use crate::infer::{infer_text, number_shape};
use crate::io::{read_all, write_output, xbf_error, CliResult, Failure, Output};
use crate::view::{load, Source};

/// The struct name of a CSV record.
pub(crate) const ROW: &str = "Row";

/// Arguments of `xbf from-csv`.
#[derive(clap::Args, Debug)]
pub struct FromCsvArgs {
    /// The CSV file, with a header line ("-" or nothing: standard input).
    input: Option<PathBuf>,
    /// The output file (default: standard output), written under a
    /// temporary name and renamed.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Print the type chosen for each column, and why, on standard error.
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    encoding: crate::convert::EncodingArgs,
    /// Write one message, vec<struct Row>, built whole in memory, instead
    /// of an XBF file (also implied by --layout rows or columns).
    #[arg(long)]
    message: bool,
    #[command(flatten)]
    file: crate::file_cmd::WriteArgs,
}

/// The type chosen for a column and why.
pub(crate) struct ColumnType {
    pub(crate) name: String,
    /// The type of the non-empty cells.
    pub(crate) ty: PrimitiveType,
    /// Whether some cells are empty (the column is then `option<ty>`).
    pub(crate) nullable: bool,
    pub(crate) empty: usize,
    pub(crate) why: String,
}

impl ColumnType {
    pub(crate) fn metadata(&self) -> Metadata {
        let t = Metadata::from(self.ty);
        if self.nullable {
            Metadata::option(t)
        } else {
            t
        }
    }
}

/// Parses an RFC 3339 timestamp into microseconds since 1970 (the core's
/// parser, which `--where` on timestamps uses too).
pub fn parse_timestamp(s: &str) -> Option<i64> {
    xbf::time::parse_timestamp(s)
}

fn infer_column(name: String, cells: &[&str]) -> ColumnType {
    let values: Vec<&str> = cells.iter().copied().filter(|c| !c.is_empty()).collect();
    let empty = cells.len() - values.len();
    let nullable = empty > 0;
    let (ty, why) = if values.is_empty() {
        (PrimitiveType::String, "no values".to_owned())
    } else if values.iter().all(|c| xbf::time::parse_date(c).is_some()) {
        (PrimitiveType::Date, "every value is a date YYYY-MM-DD".to_owned())
    } else if values.iter().all(|c| parse_timestamp(c).is_some()) {
        (PrimitiveType::Timestamp, "every value is an RFC 3339 timestamp".to_owned())
    } else {
        let ty = infer_text(values.iter().copied());
        let why = match ty {
            PrimitiveType::Bool => "every value is true or false".to_owned(),
            PrimitiveType::F64 => match values.iter().find(|c| number_shape(c) == Some(false)) {
                Some(c) => format!("numbers, not all integers ({c:?})"),
                None => "integers too wide for 64 bits".to_owned(),
            },
            PrimitiveType::String => match values.iter().find(|c| number_shape(c).is_none()) {
                Some(c) => format!("{:?} is not a number, boolean, date or timestamp", short(c)),
                None => "numbers mixed with booleans, or out of range".to_owned(),
            },
            int => {
                let (lo, hi) = values
                    .iter()
                    .filter_map(|c| c.parse::<i128>().ok())
                    .fold((i128::MAX, i128::MIN), |a, x| (a.0.min(x), a.1.max(x)));
                format!("integers from {lo} to {hi}: the narrowest type that holds them is {int}")
            }
        };
        (ty, why)
    };
    ColumnType { name, ty, nullable, empty, why }
}

fn short(s: &str) -> String {
    if s.chars().count() > 24 {
        s.chars().take(24).collect::<String>() + "…"
    } else {
        s.to_owned()
    }
}

pub(crate) fn cell_value(ty: PrimitiveType, s: &str) -> Option<Value> {
    use PrimitiveType as P;
    Some(match ty {
        P::Bool => Value::Bool(s == "true"),
        P::U8 => Value::U8(s.parse().ok()?),
        P::U16 => Value::U16(s.parse().ok()?),
        P::U32 => Value::U32(s.parse().ok()?),
        P::U64 => Value::U64(s.parse().ok()?),
        P::I8 => Value::I8(s.parse().ok()?),
        P::I16 => Value::I16(s.parse().ok()?),
        P::I32 => Value::I32(s.parse().ok()?),
        P::I64 => Value::I64(s.parse().ok()?),
        P::F64 => Value::F64(s.parse().ok()?),
        P::Date => Value::Date(i32::try_from(xbf::time::parse_date(s)?).ok()?),
        P::Timestamp => Value::Timestamp(parse_timestamp(s)?),
        _ => Value::String(s.to_owned()),
    })
}

/// One CSV row as a record of the inferred columns (`r` counts rows from 1,
/// for the message naming a cell that does not fit its column).
pub(crate) fn row_record(
    name: &str,
    r: u64,
    columns: &[ColumnType],
    row_ty: &Arc<StructMetadata>,
    rec: &csv::StringRecord,
) -> CliResult<StructValue> {
    let mut fields = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        let s = rec.get(i).unwrap_or("");
        let parsed = if s.is_empty() && c.nullable {
            Some(Value::Option(OptionValue::none(c.ty.into())))
        } else {
            cell_value(c.ty, s).map(|v| {
                if c.nullable {
                    Value::Option(OptionValue::some(c.ty.into(), v).expect("the value has the column's type"))
                } else {
                    v
                }
            })
        };
        let v = parsed
            .ok_or_else(|| Failure::Failed(format!("{name}: row {r}, column {:?}: {s:?} is not a {}", c.name, c.ty)))?;
        fields.push(v);
    }
    StructValue::new(row_ty.clone(), fields).map_err(|e| xbf_error(name, &e))
}

pub fn from_csv(args: &FromCsvArgs) -> CliResult {
    if !args.message && args.encoding.is_auto_layout() {
        let (input, output) = (args.input.as_deref(), args.output.as_deref());
        return crate::file_cmd::csv_to_file(input, output, args.explain, args.encoding.options()?, &args.file);
    }
    let (name, bytes) = read_all(args.input.as_deref())?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let bad = |e: csv::Error| Failure::Failed(format!("{name}: invalid CSV: {e}"));
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
    let names: Vec<String> = reader.headers().map_err(bad)?.iter().map(str::to_owned).collect();
    if names.is_empty() || names == [""] {
        return Err(Failure::Failed(format!("{name}: the CSV has no header line")));
    }
    // A set, not a scan of the names before: a header may have millions.
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    if let Some(n) = names.iter().find(|n| !seen.insert(n.as_str())) {
        return Err(Failure::Failed(format!("{name}: two columns are named {n:?}")));
    }
    let mut records = Vec::new();
    for rec in reader.records() {
        records.push(rec.map_err(bad)?);
    }
    let columns: Vec<ColumnType> = names
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let cells: Vec<&str> = records.iter().map(|r| r.get(i).unwrap_or("")).collect();
            infer_column(n, &cells)
        })
        .collect();
    let row_ty = Arc::new(
        StructMetadata::new(ROW, columns.iter().map(|c| (c.name.as_str(), c.metadata())))
            .map_err(|e| xbf_error(&name, &e))?,
    );
    let mut items = Vec::with_capacity(records.len());
    for (r, rec) in records.iter().enumerate() {
        items.push(Value::Struct(row_record(&name, r as u64 + 1, &columns, &row_ty, rec)?));
    }
    let vec = VecValue::new(Metadata::Struct(row_ty), items).map_err(|e| xbf_error(&name, &e))?;
    if args.explain {
        let mut text = format!("{name}: {} rows, {} columns\n", vec.len(), columns.len());
        let w = columns.iter().map(|c| c.name.chars().count()).max().unwrap_or(0);
        let tw = columns.iter().map(|c| c.metadata().to_string().len()).max().unwrap_or(0);
        for c in &columns {
            let empty = if c.nullable { format!("; {} empty cells are absent", c.empty) } else { String::new() };
            let _ = writeln!(text, "  {:w$}  {:tw$}  {}{empty}", c.name, c.metadata().to_string(), c.why);
        }
        eprint!("{text}");
    }
    let bytes = args.encoding.options()?.encode_message(&vec.into()).map_err(|e| xbf_error(&name, &e))?;
    crate::io::check_readable(&name, &bytes)?;
    write_output(args.output.as_deref(), &bytes)
}

/// Whether values of this type fit in one CSV cell.
pub(crate) fn flat(ty: &Metadata) -> bool {
    match ty {
        Metadata::Primitive(_) => true,
        Metadata::Option(inner) => matches!(&**inner, Metadata::Primitive(_)),
        _ => false,
    }
}

pub(crate) fn cell_text(v: &Value, out: &mut String) {
    match v {
        Value::F64(x) => float_text(*x, out),
        Value::F32(x) => float_text(f64::from(*x), out),
        Value::Bytes(b) => {
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
        }
        Value::String(s) => out.push_str(s),
        Value::Unit => {}
        Value::Option(o) => {
            if let Some(v) = o.value() {
                cell_text(v, out);
            }
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// The shortest text that reads back as the same float, with `.0` on
/// whole numbers so that the column stays a float column.
fn float_text(x: f64, out: &mut String) {
    let start = out.len();
    let _ = write!(out, "{x}");
    if x.is_finite() && !out[start..].contains(['.', 'e', 'E']) {
        out.push_str(".0");
    }
}

fn push_csv_field(field: &str, line: &mut String, only: bool) {
    if field.contains([',', '"', '\n', '\r']) || (only && field.is_empty()) {
        line.push('"');
        line.push_str(&field.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(field);
    }
}

pub(crate) fn csv_line(fields: impl ExactSizeIterator<Item = String>) -> String {
    let only = fields.len() == 1;
    let mut line = String::new();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            line.push(',');
        }
        push_csv_field(&f, &mut line, only);
    }
    line.push('\n');
    line
}

pub fn to_csv(args: &ConvertArgs) -> CliResult {
    let (name, source) = load(args.input.as_deref())?;
    let record_type = match &source {
        Source::Message(Metadata::Vec(elem), _) => (**elem).clone(),
        Source::Message(ty, _) => return Err(not_records(&name, ty)),
        Source::Stream(s) => s.metadata().clone(),
    };
    let st = match &record_type {
        Metadata::Struct(st) if st.fields().all(|(_, t)| flat(t)) => st.clone(),
        _ => return Err(not_records(&name, &record_type)),
    };
    let mut out = Output::create(args.output.as_deref())?;
    out.str(&csv_line(st.fields().map(|(n, _)| n.to_owned())))?;
    let write_record = |out: &mut Output, v: &Value| -> CliResult {
        let s = v.as_struct().expect("a record of the struct type");
        let cells = s.values().iter().map(|v| {
            let mut t = String::new();
            cell_text(v, &mut t);
            t
        });
        out.str(&csv_line(cells.collect::<Vec<_>>().into_iter()))
    };
    match source {
        Source::Message(_, value) => {
            for item in value.as_vec().expect("a vec").items() {
                write_record(&mut out, item)?;
            }
        }
        Source::Stream(stream) => {
            for record in *stream {
                let record = record.map_err(|e| xbf_error(&name, &e))?;
                write_record(&mut out, &record)?;
            }
        }
    }
    out.finish()
}

pub(crate) fn not_records(name: &str, ty: &Metadata) -> Failure {
    Failure::Failed(format!(
        "{name}: to-csv takes a vec or stream of flat records (a struct of numbers, strings, dates, ...), not {ty}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T00:00:01.5Z"), Some(1_500_000));
        assert_eq!(parse_timestamp("1970-01-01 01:00:00+01:00"), Some(0));
        assert_eq!(parse_timestamp("1969-12-31T23:59:59.999999Z"), Some(-1));
        assert_eq!(parse_timestamp("2019-01-02T03:04:05.123456789Z"), None);
        assert_eq!(parse_timestamp("2019-01-02T03:04:05.123456000Z"), Some(1_546_398_245_123_456));
        assert_eq!(parse_timestamp("2019-01-02T03:04:05"), None);
        assert_eq!(parse_timestamp("2019-01-02T24:00:00Z"), None);
    }

    #[test]
    fn columns() {
        let c = infer_column("a".into(), &["1", "", "300"]);
        assert_eq!(c.metadata().to_string(), "option<u16>");
        let c = infer_column("a".into(), &["2019-01-02", "2019-12-31"]);
        assert_eq!(c.metadata().to_string(), "date");
        let c = infer_column("a".into(), &["-1", "2.5"]);
        assert_eq!(c.metadata().to_string(), "f64");
        let c = infer_column("a".into(), &["", ""]);
        assert_eq!(c.metadata().to_string(), "option<string>");
    }
}
