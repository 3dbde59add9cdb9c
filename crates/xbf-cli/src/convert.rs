//! `xbf from-json` and `xbf to-json`: lossless conversion between JSON and
//! XBF 2, through files or standard input and output.

use std::path::PathBuf;

use crate::io::{check_readable, read_all, write_output, xbf_error, CliResult, Failure, Output};
use crate::view::{load, Source};

/// Arguments of a conversion: where to read and where to write.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The input file ("-" or nothing: standard input).
    pub input: Option<PathBuf>,
    /// The output file (default: standard output). It is written under a
    /// temporary name and renamed, so a failed run leaves no half file.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// How `from-json` lays out the value.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum LayoutArg {
    /// Columns when they come out smaller, rows otherwise.
    #[default]
    Auto,
    /// Rows: the value field after field.
    Rows,
    /// Columns: one per field, each with its own encoding.
    Columns,
}

/// How `from-json` and `from-csv` write the message.
#[derive(clap::Args, Debug)]
pub struct EncodingArgs {
    /// The layout of the value.
    #[arg(long, value_enum, default_value_t = LayoutArg::Auto)]
    layout: LayoutArg,
    /// Compress each column with zstd at this level (1 to 22) where that
    /// is smaller; applies to columns only.
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=22))]
    zstd: Option<i32>,
    /// Lossy: round the floats of columns to short decimals within this
    /// absolute error (e.g. 0.005 for cents), so that they take fewer
    /// bytes; NaN, infinities and zeros stay exact. Floats in rows stay exact.
    #[arg(long, value_parser = positive_float)]
    float_tolerance: Option<f64>,
}

impl EncodingArgs {
    /// Whether the layout was left to the writer (files are always columns).
    pub fn is_auto_layout(&self) -> bool {
        matches!(self.layout, LayoutArg::Auto)
    }

    /// The encoder's options these arguments ask for; a level or tolerance
    /// out of range is a usage error.
    pub fn options(&self) -> CliResult<xbf::EncodeOptions> {
        let layout = match self.layout {
            LayoutArg::Auto => xbf::Layout::Auto,
            LayoutArg::Rows => xbf::Layout::Rows,
            LayoutArg::Columns => xbf::Layout::Columnar,
        };
        let usage = |e: xbf::Error| Failure::Usage(e.to_string());
        xbf::EncodeOptions::v2()
            .layout(layout)
            .compress_columns(self.zstd)
            .and_then(|o| o.float_tolerance(self.float_tolerance))
            .map_err(usage)
    }
}

/// Arguments of `xbf from-json`.
#[derive(clap::Args, Debug)]
pub struct FromJsonArgs {
    #[command(flatten)]
    io: ConvertArgs,
    #[command(flatten)]
    encoding: EncodingArgs,
    /// Refuse documents that nest more arrays and objects than this (at
    /// most 128: what every XBF reader allows by default).
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u8).range(1..=128))]
    max_depth: u8,
    /// JSON Lines (one value a line; also for names ending in .jsonl or
    /// .ndjson), written as an XBF file of those records, of any size.
    #[arg(long)]
    lines: bool,
    #[command(flatten)]
    file: crate::file_cmd::WriteArgs,
}

fn positive_float(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a positive finite number")),
    }
}

/// Arguments of `xbf to-json`.
#[derive(clap::Args, Debug)]
pub struct ToJsonArgs {
    #[command(flatten)]
    io: ConvertArgs,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
    /// Only these struct fields, as dotted paths through vecs, arrays and
    /// options (e.g. `--fields delay,origin` or `features.properties.mag`);
    /// a columnar message's other columns are not even read.
    #[arg(long, value_delimiter = ',')]
    fields: Vec<String>,
    /// One JSON value a line (JSON Lines): the records of an XBF file or
    /// stream, or the items of a message's root vec.
    #[arg(long)]
    lines: bool,
    #[command(flatten)]
    read: crate::file_cmd::ReadArgs,
}

/// JSON in, an XBF 2 message out.
pub fn from_json(args: &FromJsonArgs) -> CliResult {
    if crate::file_cmd::is_json_lines(args.io.input.as_deref(), args.lines) {
        let (input, output) = (args.io.input.as_deref(), args.io.output.as_deref());
        return crate::file_cmd::json_lines_to_file(input, output, args.encoding.options()?, &args.file);
    }
    let (name, text) = read_all(args.io.input.as_deref())?;
    let json = xbf::json::JsonOptions::default().max_depth(args.max_depth.into()).map_err(|e| xbf_error(&name, &e))?;
    let value = json.convert_slice(&text).map_err(|e| xbf_error(&name, &e))?;
    drop(text);
    let opts = args.encoding.options()?;
    let bytes = opts.encode_message(&value).map_err(|e| xbf_error(&name, &e))?;
    drop(value);
    check_readable(&name, &bytes)?;
    write_output(args.io.output.as_deref(), &bytes)
}

/// Any XBF message in (v1 or XBF 2), JSON out; a record stream gives one
/// JSON document a line.
pub fn to_json(args: &ToJsonArgs) -> CliResult {
    if crate::file_cmd::is_file_input(args.io.input.as_deref())? {
        let (input, output) = (args.io.input.as_deref(), args.io.output.as_deref());
        return crate::file_cmd::to_json(input, output, args.pretty, args.lines, &args.fields, &args.read);
    }
    if !args.fields.is_empty() {
        let (name, bytes) = read_all(args.io.input.as_deref())?;
        let value =
            crate::io::decode_options().decode_projected(&bytes, &args.fields).map_err(|e| xbf_error(&name, &e))?;
        let mut out = Output::create(args.io.output.as_deref())?;
        out.line(&xbf::json::to_json_string(&value, args.pretty).map_err(|e| xbf_error(&name, &e))?)?;
        return out.finish();
    }
    let (name, source) = load(args.io.input.as_deref())?;
    let mut out = Output::create(args.io.output.as_deref())?;
    match source {
        Source::Message(_, xbf::Value::Vec(items)) if args.lines => {
            for item in items.items() {
                out.line(&xbf::json::to_json_string(item, false).map_err(|e| xbf_error(&name, &e))?)?;
            }
        }
        Source::Message(_, value) => {
            let text = xbf::json::to_json_string(&value, args.pretty).map_err(|e| xbf_error(&name, &e))?;
            out.line(&text)?;
        }
        Source::Stream(stream) => {
            for record in *stream {
                let record = record.map_err(|e| xbf_error(&name, &e))?;
                out.line(&xbf::json::to_json_string(&record, false).map_err(|e| xbf_error(&name, &e))?)?;
            }
        }
    }
    out.finish()
}
