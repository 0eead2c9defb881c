//! The `timelaw` command line. A user gets the same CLI for their own subjects from a two-line binary:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     let registry = timelaw::Registry::builtin(); // then .add(MySubject) for your own subjects
//!     timelaw::cli::main(registry)
//! }
//! ```
//!
//! # Exit codes
//! 0 every applicable law holds; 1 a law is violated; 2 usage, IO or bad-fixture error; 3 nothing violated
//! but something inconclusive.

mod args;
mod bar;
mod commands;

use std::process::ExitCode;

use clap::Parser;

pub use args::{CheckArgs, Cli, Command, Format, ListFormat, ReportCommand, EXIT_CODES};
pub use bar::Bar;

use crate::registry::Registry;

/// Exit code: every applicable law holds.
pub const EXIT_HOLDS: u8 = 0;
/// Exit code: a law is violated (or a fixture failed to replay).
pub const EXIT_VIOLATED: u8 = 1;
/// Exit code: usage, IO or bad-fixture error.
pub const EXIT_ERROR: u8 = 2;
/// Exit code: nothing violated, something inconclusive.
pub const EXIT_INCONCLUSIVE: u8 = 3;

/// A command's failure: one line for stderr, exit code 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(error: E) -> CliError {
        CliError(error.to_string())
    }
}

/// Parses the process arguments and runs the command with `registry`'s subjects.
pub fn main(registry: Registry) -> ExitCode {
    let cli = Cli::parse();
    run(&registry, cli)
}

/// Runs a parsed command; errors are printed as one line on stderr with exit code 2.
pub fn run(registry: &Registry, cli: Cli) -> ExitCode {
    match commands::dispatch(registry, cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(CliError(message)) => {
            eprintln!("timelaw: error: {message}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
