//! `xbf stats`: where the bytes of an XBF message go, column by column.

use std::path::PathBuf;

use xbf::{EncodeOptions, Layout, Value};

use crate::io::{read_all, xbf_error, CliResult, Output};

/// Arguments of `xbf stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The XBF message ("-" or nothing: standard input).
    input: Option<PathBuf>,
}

/// Prints the size of the header and metadata, then every column's path,
/// encoding, bytes and share of the message. A message in rows is shown as
/// the columns it would take.
pub fn run(args: &StatsArgs) -> CliResult {
    if crate::file_cmd::is_file_input(args.input.as_deref())? {
        return crate::file_cmd::stats(args.input.as_deref());
    }
    let (name, bytes) = read_all(args.input.as_deref())?;
    let opts = crate::io::decode_options();
    let (ty, value) = opts.decode_typed_message(&bytes).map_err(|e| xbf_error(&name, &e))?;
    let mut out = Output::create(None)?;
    let columnar = bytes.len() > 1 && bytes[0] == 0xc2 && bytes[1] & 0x02 != 0;
    let (columns_bytes, note) = if columnar {
        (bytes.clone(), format!("{name}: XBF 2 columnar message, {} bytes", bytes.len()))
    } else {
        let as_columns = EncodeOptions::v2()
            .layout(Layout::Columnar)
            .encode_typed_message(&ty, &value)
            .map_err(|e| xbf_error(&name, &e))?;
        let note = format!(
            "{name}: a message in rows, {} bytes; as columns it would take {} bytes ({:.1}%):",
            bytes.len(),
            as_columns.len(),
            100.0 * as_columns.len() as f64 / bytes.len().max(1) as f64
        );
        (as_columns, note)
    };
    let stats = opts.column_stats(&columns_bytes).map_err(|e| xbf_error(&name, &e))?;
    let total = columns_bytes.len() as u64;
    let body: u64 = stats.iter().map(|c| c.bytes).sum();
    out.line(&note)?;
    out.line(&format!("{:>10}  {:>6}  {:<20}  {}", "bytes", "share", "encoding", "path"))?;
    let head = header_and_metadata(&value, &columns_bytes);
    out.line(&format!("{head:>10}  {:>5.1}%  {:<20}  (header and metadata)", pct(head, total), "-"))?;
    for c in &stats {
        out.line(&format!("{:>10}  {:>5.1}%  {:<20}  {}", c.bytes, pct(c.bytes, total), c.encoding, c.path))?;
    }
    let framing = total.saturating_sub(head + body);
    out.line(&format!("{framing:>10}  {:>5.1}%  {:<20}  (column lengths)", pct(framing, total), "-"))?;
    out.finish()
}

fn pct(part: u64, total: u64) -> f64 {
    100.0 * part as f64 / total.max(1) as f64
}

/// The bytes before the first column: the header and the metadata (or the
/// fingerprint).
fn header_and_metadata(value: &Value, message: &[u8]) -> u64 {
    let by_reference = message.get(1).is_some_and(|f| f & 0x01 != 0);
    if by_reference {
        return 10;
    }
    EncodeOptions::v2().encode_metadata(&value.metadata()).map_or(0, |m| 2 + m.len() as u64)
}
