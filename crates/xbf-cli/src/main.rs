//! `xbf`: the command-line tool of the Xtensible Binary Format.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod batch;
mod compare;
mod convert;
mod csvconv;
mod file_cmd;
mod infer;
mod inspect;
mod io;
mod stats;
mod vectors;
mod view;

use io::{CliResult, Failure};

#[derive(Parser, Debug)]
#[command(name = "xbf", version, about = "Check, convert, inspect and compare XBF data")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Decoded-memory budget, in bytes, for reading XBF (default 2^30 =
    /// 1 GiB; SPEC.md 16.2): values that take no input or that columns
    /// expand cost 48 bytes each. `from-json` and `from-csv` refuse to write
    /// what would not read back within it.
    #[arg(long, global = true, value_name = "BYTES")]
    max_decoded_bytes: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Encode records in every format the project measures and compare
    /// sizes, encode and decode times (as ratios to JSON) and round-trips.
    ///
    /// Example: xbf compare                (a year of daily S&P 500 rows, built in)
    /// Example: xbf compare flights.json --json
    /// Example: xbf compare data.csv --chart sizes.svg
    Compare(compare::CompareArgs),
    /// Print an XBF message or record stream as readable text: the type on
    /// the first line, then the value (one line per record of a root vec
    /// or stream).
    ///
    /// Example: xbf cat flights.xbf --head 5
    /// Example: xbf from-json data.json | xbf cat
    Cat(view::CatArgs),
    /// Print the type of an XBF message or record stream as a declaration.
    ///
    /// Example: xbf schema flights.xbf
    Schema(view::SchemaArgs),
    /// Annotated hex: each line the byte offset, the bytes and what they
    /// mean (header, discriminants, names, lengths and counts, each value
    /// with its path).
    ///
    /// Example: xbf inspect point.xbf
    /// Example: xbf inspect flights.xbf --limit-bytes 256
    Inspect(inspect::InspectArgs),
    /// Where the bytes go: the header and metadata, then each column's path,
    /// encoding, size and share (a message in rows is shown as the columns
    /// it would take).
    ///
    /// Example: xbf stats flights.xbf
    Stats(stats::StatsArgs),
    /// Convert JSON to an XBF 2 message, losslessly: to-json gives the same
    /// JSON value back (key order, 1 vs 1.0, big integers, null vs missing).
    ///
    /// Example: xbf from-json flights.json -o flights.xbf
    /// Example: xbf from-json flights.json --layout columns --zstd 19 -o flights.xbf
    /// Example: curl -s https://example.invalid/data.json | xbf from-json > data.xbf
    FromJson(convert::FromJsonArgs),
    /// Convert any XBF message (v1 or XBF 2) to JSON; a record stream gives
    /// one JSON document per line.
    ///
    /// Example: xbf to-json flights.xbf --pretty
    ToJson(convert::ToJsonArgs),
    /// Convert CSV with a header line to an XBF file of struct Row records
    /// (SPEC.md §24: columns in blocks, a footer with statistics; input of
    /// any size, one block in memory), or with --message to one message,
    /// vec<struct Row>. Each column's type is inferred: the narrowest
    /// integer, f64, bool, date (YYYY-MM-DD), timestamp (RFC 3339) or
    /// string; option<…> where cells are empty.
    ///
    /// Example: xbf from-csv prices.csv -o prices.xbf --explain
    /// Example: xbf from-csv big.csv -o big.xbf && xbf to-csv big.xbf --where 'delay > 300' --fields date,delay
    FromCsv(csvconv::FromCsvArgs),
    /// Convert an XBF file, or a vec (or stream) of flat records, to CSV
    /// with a header line.
    ///
    /// Example: xbf to-csv prices.xbf -o prices.csv
    ToCsv(file_cmd::ToCsvArgs),
    /// Conformance vectors.
    #[command(subcommand)]
    Vectors(VectorsCommand),
}

#[derive(Subcommand, Debug)]
enum VectorsCommand {
    /// Run every vector in the files through this implementation.
    ///
    /// Example: xbf vectors check vectors/*.json
    ///
    /// Prints a line for each failing vector, then `N passed, N failed`;
    /// exits 1 if any failed.
    Check(vectors::CheckArgs),
    /// For scripts/difffuzz.py: reads `m HEX` (a message) or `s HEX` (a
    /// record stream) a line and writes one JSON line each: the type and
    /// value in the vectors' form, or the error's kind, offset and path.
    #[command(hide = true)]
    Decode,
}

fn main() -> ExitCode {
    // A bug must still give one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("xbf: internal error (please report it): {}", io::one_line(&info.to_string()));
    }));
    let cli = Cli::parse();
    io::set_max_decoded_bytes(cli.max_decoded_bytes);
    match cli.command {
        Command::Compare(args) => match compare::run(&args) {
            Ok(code) => code,
            Err(f) => report("compare", Err(f)),
        },
        Command::Cat(args) => report("cat", view::cat(&args)),
        Command::Schema(args) => report("schema", view::schema(&args)),
        Command::Inspect(args) => report("inspect", inspect::run(&args)),
        Command::Stats(args) => report("stats", stats::run(&args)),
        Command::FromJson(args) => report("from-json", convert::from_json(&args)),
        Command::ToJson(args) => report("to-json", convert::to_json(&args)),
        Command::FromCsv(args) => report("from-csv", csvconv::from_csv(&args)),
        Command::ToCsv(args) => report("to-csv", file_cmd::to_csv_cmd(&args)),
        Command::Vectors(VectorsCommand::Check(args)) => vectors::check(&args),
        Command::Vectors(VectorsCommand::Decode) => batch::decode(),
    }
}

/// Prints a failed command's one-line error: exit code 1, or 2 for a usage
/// error; a closed standard output ends the command quietly.
fn report(command: &str, result: CliResult) -> ExitCode {
    match result {
        Ok(()) | Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Failed(msg)) => {
            eprintln!("xbf {command}: {}", io::one_line(&msg));
            ExitCode::FAILURE
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("xbf {command}: {}", io::one_line(&msg));
            ExitCode::from(2)
        }
    }
}
