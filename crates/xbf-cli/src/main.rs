//! `xbf`: the command-line tool of the Xtensible Binary Format.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod compare;
mod convert;
mod vectors;

#[derive(Parser, Debug)]
#[command(name = "xbf", version, about = "Check, convert, inspect and compare XBF data")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Encode records in every format the project measures and compare
    /// sizes, encode and decode times (as ratios to JSON) and round-trips.
    ///
    /// Example: xbf compare                (a year of daily S&P 500 rows, built in)
    /// Example: xbf compare flights.json --json
    Compare(compare::CompareArgs),
    /// Convert JSON to an XBF 2 message, losslessly: to-json gives the same
    /// JSON value back (key order, 1 vs 1.0, big integers, null vs missing).
    ///
    /// Example: xbf from-json flights.json -o flights.xbf
    /// Example: curl -s https://example.invalid/data.json | xbf from-json > data.xbf
    FromJson(convert::ConvertArgs),
    /// Convert any XBF message (v1 or XBF 2) to JSON.
    ///
    /// Example: xbf to-json flights.xbf --pretty
    ToJson(convert::ToJsonArgs),
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Compare(args) => compare::run(&args).unwrap_or_else(|msg| {
            eprintln!("xbf compare: {msg}");
            ExitCode::FAILURE
        }),
        Command::FromJson(args) => report("from-json", convert::from_json(&args)),
        Command::ToJson(args) => report("to-json", convert::to_json(&args)),
        Command::Vectors(VectorsCommand::Check(args)) => vectors::check(&args),
    }
}

/// Prints a failed command's one-line error; exit code 1.
fn report(command: &str, result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xbf {command}: {msg}");
            ExitCode::FAILURE
        }
    }
}
