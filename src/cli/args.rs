//! The command line (clap). Flag names are the interface; keep them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// timelaw: find, shrink and pin down violations of retry / timeout / circuit-breaker laws.
#[derive(Debug, Parser)]
#[command(name = "timelaw", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The exit codes, shown under `--help`.
pub const EXIT_CODES: &str = "Exit codes: 0 every applicable law holds; 1 a law is violated; \
2 usage, IO or bad-fixture error; 3 nothing violated but something inconclusive.";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a subject against the catalogue (default: the reference interpreter, 100,000 cases).
    Check(CheckArgs),
    /// List the laws of the catalogue.
    Laws {
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
    /// List the built-in subjects.
    Subjects,
    /// Replay fixture files (folders are searched recursively).
    Replay {
        /// Fixture files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Shrink a fixture again (for example after editing it by hand) and rewrite it.
    Shrink {
        /// The fixture file.
        file: PathBuf,
        /// Replace an existing fixture the shrunk case collides with (default: keep it and say so).
        #[arg(long)]
        bless: bool,
    },
    /// Show the timeline of one counterexample, the violating event marked.
    Explain {
        /// The fixture file.
        file: PathBuf,
    },
    /// Decode a cargo fuzz artifact, shrink its case and write it as a fixture.
    ImportCrash {
        /// The artifact file.
        artifact: PathBuf,
        /// The subject the fuzz target checks.
        #[arg(long)]
        subject: String,
        /// Where to write the fixture.
        #[arg(long, default_value = "tests/fixtures")]
        fixtures: PathBuf,
        /// Replace an existing fixture of the same name (default: keep it and say so).
        #[arg(long)]
        bless: bool,
    },
    /// Work with JSON reports.
    Report {
        /// The report operation.
        #[command(subcommand)]
        command: ReportCommand,
    },
}

/// `timelaw report ...`.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge the JSON reports of sharded runs into the report of the whole run.
    Merge {
        /// The shard reports.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
}

/// `timelaw check` options.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The subject to check (see `timelaw subjects`).
    #[arg(long, default_value = "reference")]
    pub subject: String,
    /// Check only these laws (repeatable; see `timelaw laws`).
    #[arg(long = "law", value_name = "ID")]
    pub laws: Vec<String>,
    /// Cases to generate.
    #[arg(long, env = "TIMELAW_CASES", default_value_t = 100_000)]
    pub cases: u64,
    /// Run seed, decimal or 0x hex.
    #[arg(long, env = "TIMELAW_SEED", value_parser = parse_seed_arg, default_value = "0x7131e1a35eed0001")]
    pub seed: u64,
    /// Worker threads (0: one per core).
    #[arg(long, env = "TIMELAW_THREADS", default_value_t = 0)]
    pub threads: usize,
    /// Write shrunk counterexamples as fixtures into this folder.
    #[arg(long, env = "TIMELAW_FIXTURES")]
    pub fixtures: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Run shard K of N (1-based), e.g. 2/4.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Collect up to K distinct counterexamples per law (default: the first).
    #[arg(long, env = "TIMELAW_MAX_VIOLATIONS", default_value_t = 1)]
    pub collect: u32,
    /// Replace existing fixtures of the same name (for fixtures timelaw owns; also `TIMELAW_BLESS=1`).
    /// Without it an existing fixture is never changed or removed.
    #[arg(long)]
    pub bless: bool,
}

fn parse_seed_arg(text: &str) -> Result<u64, String> {
    crate::config::parse_seed(text).ok_or_else(|| format!("{text:?} is not a seed (decimal or 0x hex)"))
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table for people.
    Table,
    /// The JSON report (stable schema).
    Json,
    /// JUnit XML for CI dashboards.
    Junit,
}

/// Listing formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// A table.
    Table,
    /// JSON.
    Json,
}
