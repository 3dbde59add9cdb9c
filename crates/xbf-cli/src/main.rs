//! `xbf`: the command-line tool of the Xtensible Binary Format.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod vectors;

#[derive(Parser, Debug)]
#[command(
    name = "xbf",
    version,
    about = "Check, convert, inspect and compare XBF data"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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
        Command::Vectors(VectorsCommand::Check(args)) => vectors::check(&args),
    }
}
