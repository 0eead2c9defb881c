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
//! 0 every applicable law holds on every case (documented cuts aside); 1 a law is violated; 2 usage, IO or
//! bad-fixture error; 3 nothing violated but some case could not be judged; 4 with `--require-judged`, a
//! law the run barely exercised; 141 stdout was closed before the output was written (as a shell shows a
//! program a closed pipe ended, 128 + SIGPIPE; nothing is printed).

mod args;
mod bar;
mod commands;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

pub use args::{CheckArgs, Cli, Command, ContractArgs, Format, ListFormat, ReportCommand, EXIT_CODES};
pub use bar::Bar;

use crate::fixture::printable;
use crate::registry::Registry;

/// Exit code: every applicable law holds.
pub const EXIT_HOLDS: u8 = 0;
/// Exit code: a law is violated (or a fixture failed to replay).
pub const EXIT_VIOLATED: u8 = 1;
/// Exit code: usage, IO or bad-fixture error.
pub const EXIT_ERROR: u8 = 2;
/// Exit code: with `--require-judged`, every case judged and nothing violated, but a law the contract
/// states what it needs for was barely exercised (judged non-vacuously in under 0.1% of the cases it applied
/// to).
pub const EXIT_UNEXERCISED: u8 = 4;
/// Exit code: nothing violated, but some case could not be judged (an inconclusive verdict no documented cut
/// explains).
pub const EXIT_INCONCLUSIVE: u8 = 3;

/// Exit code when stdout was closed before the output was written (`timelaw laws | head -1`): 141, the
/// status a shell shows for a program that a closed pipe ended (128 + SIGPIPE). Nothing is printed, so a
/// closed pipe is never mistaken for "holds".
pub const EXIT_CLOSED_STDOUT: u8 = 141;

/// A command's failure.
#[derive(Debug)]
pub enum CliError {
    /// One line for stderr, exit code 2.
    Message(String),
    /// Stdout is closed: end quietly with [`EXIT_CLOSED_STDOUT`].
    StdoutClosed,
}

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(error: E) -> CliError {
        CliError::Message(error.to_string())
    }
}

/// Parses the process arguments and runs the command with `registry`'s subjects.
pub fn main(registry: Registry) -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => run(&registry, cli),
        Err(error) => usage(&error),
    }
}

/// Prints clap's message (help and version on stdout, usage errors on stderr) with its exit code, or
/// ends quietly when stdout is closed.
fn usage(error: &clap::Error) -> ExitCode {
    match error.print() {
        Err(io) if !error.use_stderr() && io.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(EXIT_CLOSED_STDOUT)
        }
        // A usage error's code is 2; help and version are 0 (clap's codes fit in a byte).
        _ => ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(EXIT_ERROR)),
    }
}

/// Writes `line` and a newline to stderr, every value in it made [`printable`] (the whole line is one
/// line). A write that fails (a full or closed stderr) is ignored: stderr is where failures would be told,
/// so there is nowhere left to tell this one, and it must never end the command in a panic.
pub(crate) fn err_line(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", printable(line)).and_then(|()| stderr.flush());
}

/// Runs a parsed command; errors are printed as one line on stderr with exit code 2.
pub fn run(registry: &Registry, cli: Cli) -> ExitCode {
    match commands::dispatch(registry, cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(CliError::Message(message)) => {
            err_line(&format!("timelaw: error: {message}"));
            ExitCode::from(EXIT_ERROR)
        }
        Err(CliError::StdoutClosed) => ExitCode::from(EXIT_CLOSED_STDOUT),
    }
}
