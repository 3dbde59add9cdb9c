//! `xbf cat` and `xbf schema`: an XBF message or record stream as readable
//! text, and its type as a declaration.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use xbf::{Metadata, StreamReader, Value};

use crate::io::{open, xbf_error, CliResult, Failure, Output};

/// What an XBF input holds.
pub enum Source {
    /// A whole message (v1 or XBF 2), decoded: its type and value.
    Message(Metadata, Value),
    /// A record stream, read record by record as it is iterated.
    Stream(Box<StreamReader<Box<dyn BufRead>>>),
}

/// Opens an XBF input: a record stream (header `c2` with flag `04`) is
/// opened for reading record by record; anything else is decoded as one
/// message.
pub fn load(input: Option<&Path>) -> CliResult<(String, Source)> {
    let mut inp = open(input)?;
    let name = inp.name.clone();
    let read_err = |e: std::io::Error| Failure::Failed(format!("{name}: {e}"));
    let mut head = Vec::with_capacity(2);
    (&mut inp.reader).take(2).read_to_end(&mut head).map_err(read_err)?;
    if head.len() == 2 && head[0] == 0xc2 && head[1] & 0x04 != 0 {
        let reader: Box<dyn BufRead> = Box::new(std::io::Cursor::new(head).chain(inp.reader));
        // A file's length is known: counts are checked against it, so the
        // errors are those of a reader over the whole input (SPEC.md 15.3).
        let opts = crate::io::decode_options();
        let stream = match inp.len {
            Some(len) => opts.stream_reader_with_length(reader, len),
            None => opts.stream_reader(reader),
        }
        .map_err(|e| xbf_error(&name, &e))?;
        return Ok((name, Source::Stream(Box::new(stream))));
    }
    let mut bytes = head;
    inp.reader.read_to_end(&mut bytes).map_err(read_err)?;
    let (ty, value) = crate::io::decode_options().decode_typed_message(&bytes).map_err(|e| xbf_error(&name, &e))?;
    Ok((name, Source::Message(ty, value)))
}

/// Arguments of `xbf cat`.
#[derive(clap::Args, Debug)]
pub struct CatArgs {
    /// The XBF message or record stream ("-" or nothing: standard input).
    input: Option<PathBuf>,
    /// Show only the first N records of a root vec or a stream (a stream
    /// is not read past them).
    #[arg(long, short = 'n', value_name = "N")]
    head: Option<u64>,
    /// Only these fields (of an XBF file): only their columns are read.
    #[arg(long, value_delimiter = ',')]
    fields: Vec<String>,
    #[command(flatten)]
    read: crate::file_cmd::ReadArgs,
}

/// Arguments of `xbf schema`.
#[derive(clap::Args, Debug)]
pub struct SchemaArgs {
    /// The XBF message or record stream ("-" or nothing: standard input).
    input: Option<PathBuf>,
    /// On one line instead of one field a line.
    #[arg(long)]
    compact: bool,
}

pub fn cat(args: &CatArgs) -> CliResult {
    if crate::file_cmd::is_file_input(args.input.as_deref())? {
        return crate::file_cmd::cat(args.input.as_deref(), args.head, &args.fields, &args.read);
    }
    let (name, source) = load(args.input.as_deref())?;
    let mut out = Output::create(None)?;
    let head = args.head.unwrap_or(u64::MAX);
    match source {
        Source::Message(ty, value) => {
            out.line(&format!("# {}", describe_message(&ty, &value)))?;
            match (&ty, &value) {
                (Metadata::Vec(_), Value::Vec(v)) => {
                    for (i, item) in v.items().iter().enumerate().take(usize::try_from(head).unwrap_or(usize::MAX)) {
                        out.line(&format!("[{i}] {item}"))?;
                    }
                    let shown = (v.len() as u64).min(head);
                    if shown < v.len() as u64 {
                        out.line(&format!("# … {} more", v.len() as u64 - shown))?;
                    }
                }
                _ => out.line(&value.to_string())?,
            }
        }
        Source::Stream(mut stream) => {
            let checksums = if stream.has_checksums() { ", with block checksums" } else { "" };
            out.line(&format!("# record stream of {}{checksums}", stream.metadata()))?;
            let mut n = 0u64;
            while n < head {
                match stream.next() {
                    None => break,
                    Some(Ok(record)) => out.line(&format!("#{n} {record}"))?,
                    Some(Err(e)) => {
                        out.finish()?;
                        return Err(xbf_error(&name, &e));
                    }
                }
                n += 1;
            }
            if args.head.is_some() && n == head {
                out.line(&format!("# --head {n}: the stream was not read further"))?;
            }
        }
    }
    out.finish()
}

fn describe_message(ty: &Metadata, value: &Value) -> String {
    match value {
        Value::Vec(v) => format!("{ty}, {} {}", v.len(), if v.len() == 1 { "item" } else { "items" }),
        _ => ty.to_string(),
    }
}

pub fn schema(args: &SchemaArgs) -> CliResult {
    if crate::file_cmd::is_file_input(args.input.as_deref())? {
        return crate::file_cmd::schema(args.input.as_deref(), args.compact);
    }
    let (_, source) = load(args.input.as_deref())?;
    let text = match &source {
        Source::Message(ty, _) => decl(ty, args.compact),
        Source::Stream(s) => format!("stream of {}", decl(s.metadata(), args.compact)),
    };
    let mut out = Output::create(None)?;
    out.line(&text)?;
    out.finish()
}

fn decl(ty: &Metadata, compact: bool) -> String {
    if compact {
        format!("{ty}")
    } else {
        format!("{ty:#}")
    }
}
