//! The command line (clap). Flag names are the interface; keep them.

use std::ffi::OsStr;
use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Arg, Args, Parser, Subcommand, ValueEnum};

use crate::config::{parse_cases, parse_collect, parse_seed_text, parse_threads, Shard};
use timelaw_generators::SwarmSwitch;

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
2 usage, IO or bad-fixture error; 3 nothing violated but some case could not be judged (inconclusive); 4 with --require-judged, a law the run barely exercised.";

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
    /// Print a subject's contract for a sample config, grouped by mechanism: what is stated, unstated
    /// and absent, and which laws apply.
    Contract(ContractArgs),
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
        #[arg(long, value_parser = Text(plain))]
        subject: String,
        /// Where to write the fixture.
        #[arg(long, default_value = "tests/fixtures")]
        fixtures: PathBuf,
        /// Replace an existing fixture of the same name (default: keep it and say so).
        #[arg(long)]
        bless: bool,
        /// Decode the artifact as a concurrent target did (`timelaw::fuzz::check_bytes_concurrent`):
        /// overlapping calls and the load mechanisms. The crash message prints the flag when it is needed.
        #[arg(long)]
        concurrency: bool,
        /// Import the violation of this law, the one the target crashed on (the crash message prints
        /// it); without it, the first law the case violates that is not a finding pinned in --fixtures.
        #[arg(long, value_parser = Text(plain))]
        law: Option<String>,
        /// Compare the imported finding with the known violations pinned in this folder (searched
        /// recursively, e.g. tests/fixtures): exit 0 when a `known_violation` fixture of the subject pins
        /// the very case it shrank to (the fixture is named), 1 otherwise: a new finding, or another
        /// minimum of a pinned finding's class (the same law and message class at another case), which
        /// may be another bug of the same kind. Without it, an import exits 0.
        #[arg(long)]
        known: Option<PathBuf>,
    },
    /// Work with fixture files.
    Fixtures {
        /// The fixture operation.
        #[command(subcommand)]
        command: FixturesCommand,
    },
    /// Work with JSON reports.
    Report {
        /// The report operation.
        #[command(subcommand)]
        command: ReportCommand,
    },
}

/// `timelaw fixtures ...`.
#[derive(Debug, Subcommand)]
pub enum FixturesCommand {
    /// Rewrite fixtures of an older format version in the current one, in place (folders are searched
    /// recursively). Prints each file it upgraded; a file it cannot read is named with its error and left
    /// as it is (exit code 2).
    Upgrade {
        /// Fixture files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
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

/// The number of cases `timelaw check` runs by default (the library's default is smaller).
pub const CLI_CASES: u64 = 100_000;

/// `timelaw check` options. A flag beats its environment variable, which beats the default; a variable
/// whose flag was given is not read at all.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The subject to check (see `timelaw subjects`).
    #[arg(long, default_value = "reference", value_parser = Text(plain))]
    pub subject: String,
    /// Check only these laws (repeatable; see `timelaw laws`).
    #[arg(long = "law", value_name = "ID", value_parser = Text(plain))]
    pub laws: Vec<String>,
    /// Cases to generate, from 1 [env: TIMELAW_CASES] [default: 100000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = Text(parse_cases))]
    pub cases: Option<u64>,
    /// Run seed, decimal or 0x hex [env: TIMELAW_SEED] [default: 0x7131e1a35eed0001].
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = Text(parse_seed_text))]
    pub seed: Option<u64>,
    /// Worker threads, 0 (one per core, the default) to 1024 [env: TIMELAW_THREADS].
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = Text(parse_threads))]
    pub threads: Option<usize>,
    /// Write shrunk counterexamples as fixtures into this folder [env: TIMELAW_FIXTURES].
    #[arg(long)]
    pub fixtures: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Run shard K of N (1-based), e.g. 2/4.
    #[arg(long, value_name = "K/N", allow_negative_numbers = true, value_parser = Text(parse_shard))]
    pub shard: Option<Shard>,
    /// Collect up to K distinct counterexamples per law, from 1 [env: TIMELAW_MAX_VIOLATIONS] [default: 1].
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = Text(parse_collect))]
    pub collect: Option<u32>,
    /// Replace existing fixtures of the same name (for fixtures timelaw owns; also `TIMELAW_BLESS=1`).
    /// Without it an existing fixture is never changed or removed.
    #[arg(long)]
    pub bless: bool,
    /// Every case sequential: no overlapping calls, no load mechanisms drawn for the reference (also
    /// `TIMELAW_CONCURRENCY=0`). By default one batch of cases in two gives its calls arrivals and
    /// interleaving choices.
    #[arg(long, conflicts_with = "concurrency")]
    pub sequential: bool,
    /// Overlapping calls on (the default; kept so that scripts written when it was opt-in still run).
    #[arg(long, hide = true)]
    pub concurrency: bool,
    /// Fail (exit code 4) when a law the contract states what it needs for was judged non-vacuously in
    /// under 0.1% of the cases it applied to, instead of warning (also `TIMELAW_REQUIRE_JUDGED=1`).
    #[arg(long)]
    pub require_judged: bool,
    /// A swarm switch on in every batch of cases (repeatable; also `TIMELAW_SWARM_ON=circuit,jitter`):
    /// one feature checked at full strength, every other option drawn per batch as usual. NAME is one of
    /// jitter, attempt_timeout, deadline, sleep_budget, circuit, retry_budget, retry_after, cancellation,
    /// multi_call, non_idempotent, clock_faults, long_runs, retry_elapsed_max, concurrency, refinements.
    #[arg(long, value_name = "NAME", value_parser = Text(SwarmSwitch::from_name))]
    pub swarm_on: Vec<SwarmSwitch>,
}

/// `timelaw contract` options.
#[derive(Debug, Args)]
pub struct ContractArgs {
    /// The subject (see `timelaw subjects`).
    #[arg(long, default_value = "reference", value_parser = Text(plain))]
    pub subject: String,
    /// Show the config of case 0 of `timelaw check --seed S`, decimal or 0x hex [default: 0].
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = Text(parse_seed_text))]
    pub seed: Option<u64>,
    /// Show the simplest config of the subject's domain instead.
    #[arg(long, conflicts_with = "seed")]
    pub simplest: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

fn plain(text: &str) -> Result<String, String> {
    Ok(text.to_owned())
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|_| "expected K/N with 1 <= K <= N, like 2/4".to_owned())
}

/// A value parser over the argument's raw text: `parse` for UTF-8 text, and for text that is not UTF-8
/// the same "invalid value" error as any other bad value (clap's own says only "invalid UTF-8").
#[derive(Clone)]
struct Text<T: 'static>(fn(&str) -> Result<T, String>);

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Text<T> {
    type Value = T;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, clap::Error> {
        if value.to_str().is_some() {
            return self.0.parse_ref(cmd, arg, value);
        }
        let not_utf8: fn(&str) -> Result<T, String> = |_| Err("not valid UTF-8".to_owned());
        not_utf8.parse_ref(cmd, arg, OsStr::new(value.to_string_lossy().as_ref()))
    }
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
