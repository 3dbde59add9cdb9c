//! `xbf from-json` and `xbf to-json`: lossless conversion between JSON and
//! XBF 2, through files or standard input and output.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Arguments of a conversion: where to read and where to write.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The input file ("-" or nothing: standard input).
    input: Option<PathBuf>,
    /// The output file (default: standard output). It is written under a
    /// temporary name and renamed, so a failed run leaves no half file.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Arguments of `xbf to-json`.
#[derive(clap::Args, Debug)]
pub struct ToJsonArgs {
    #[command(flatten)]
    io: ConvertArgs,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
}

/// JSON in, an XBF 2 message out.
pub fn from_json(args: &ConvertArgs) -> Result<(), String> {
    let text = read_input(args.input.as_deref())?;
    let value = xbf::json::from_json_reader(&text[..]).map_err(|e| at(args, e))?;
    let bytes = xbf::encode_message(&value).map_err(|e| at(args, e))?;
    write_output(args.output.as_deref(), &bytes)
}

/// Any XBF message in (v1 or XBF 2), JSON out.
pub fn to_json(args: &ToJsonArgs) -> Result<(), String> {
    let bytes = read_input(args.io.input.as_deref())?;
    let value = xbf::decode_message(&bytes).map_err(|e| at(&args.io, e))?;
    let mut text = xbf::json::to_json_string(&value, args.pretty).map_err(|e| at(&args.io, e))?;
    text.push('\n');
    write_output(args.io.output.as_deref(), text.as_bytes())
}

fn name(input: Option<&Path>) -> String {
    match input {
        Some(p) if p != Path::new("-") => p.display().to_string(),
        _ => "<stdin>".to_owned(),
    }
}

fn at(args: &ConvertArgs, e: xbf::Error) -> String {
    format!("{}: {e}", name(args.input.as_deref()))
}

fn read_input(input: Option<&Path>) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    match input {
        Some(p) if p != Path::new("-") => {
            bytes = fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        _ => {
            io::stdin().read_to_end(&mut bytes).map_err(|e| format!("<stdin>: {e}"))?;
        }
    }
    Ok(bytes)
}

fn write_output(output: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    let Some(path) = output.filter(|p| *p != Path::new("-")) else {
        let mut out = io::stdout().lock();
        return out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| format!("<stdout>: {e}"));
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path.file_name().ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let tmp = dir.join(format!(".{}.{}.tmp", file_name.to_string_lossy(), std::process::id()));
    let written = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(format!("{}: {e}", path.display()));
    }
    Ok(())
}
