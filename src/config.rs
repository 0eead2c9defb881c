//! Run options: one struct, documented defaults, each overridable by an environment variable.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use timelaw_core::Limits;
use timelaw_generators::{swarm_for_run_forced, Swarm, SwarmSwitch};

/// The default run seed (`TIMELAW_SEED`).
pub const DEFAULT_SEED: u64 = 0x7131_E1A3_5EED_0001;
/// The default number of cases for a library check (`TIMELAW_CASES`); the CLI uses 100,000.
pub const DEFAULT_CASES: u64 = 10_000;

/// Which part of the case indices this process runs: shard `index` of `count` (1-based) runs the
/// contiguous indices `cases * (index - 1) / count .. cases * index / count`, so `count` machines together
/// run exactly the cases of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, from 1.
    pub index: u32,
    /// How many shards in all.
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` with `1 <= K <= N`.
    ///
    /// # Errors
    /// A [`ConfigError::Shard`] naming the text and what was expected.
    pub fn parse(text: &str) -> Result<Shard, ConfigError> {
        let bad = || ConfigError::Shard { text: text.to_owned() };
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = index.trim().parse().map_err(|_| bad())?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
    /// The case indices `[start, end)` this shard runs out of `cases`.
    pub fn range(self, cases: u64) -> (u64, u64) {
        let bound = |k: u32| (u128::from(cases) * u128::from(k) / u128::from(self.count)) as u64; // <= cases
        (bound(self.index - 1), bound(self.index))
    }
}

/// How many violations to collect per law.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StopAt {
    /// Stop collecting after the first violation (in case-index order); the default.
    First,
    /// Collect up to this many distinct violations (distinct after shrinking).
    Collect(u32),
}

/// Options of a run. [`Config::default`] gives the documented defaults; [`Config::from_env`] applies the
/// environment variables on top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Cases to generate (`TIMELAW_CASES`, default 10,000).
    pub cases: u64,
    /// The run seed; case `i` is generated from `mix(seed, i)` (`TIMELAW_SEED`, decimal or `0x` hex).
    pub seed: u64,
    /// Worker threads; 0 means one per core, at most [`THREADS_MAX`] (`TIMELAW_THREADS`, default 0).
    pub threads: usize,
    /// Violations collected per law (`TIMELAW_MAX_VIOLATIONS`, default 1 = [`StopAt::First`]).
    pub stop_at: StopAt,
    /// Where fixtures are written; `None` writes none (`TIMELAW_FIXTURES`; an empty value is an error, as
    /// it is for `--fixtures`: it would write into the working folder).
    pub fixtures: Option<PathBuf>,
    /// Every `replay_every`-th case is run twice for `deterministic_replay`; 0 never
    /// (`TIMELAW_REPLAY_EVERY`, default 16).
    pub replay_every: u64,
    /// Shrink evaluations per counterexample (`TIMELAW_SHRINK_EVALS`, default 4,000).
    pub shrink_evals_max: u64,
    /// Optional wall-clock budget per shrink in milliseconds (`TIMELAW_SHRINK_TIME_MS`, default none).
    /// Off by default because a time budget makes the minimum depend on machine speed.
    pub shrink_time_ms: Option<u64>,
    /// Per-run step limits of the World (`TIMELAW_EVENTS_MAX` default 65,536, `TIMELAW_ATTEMPTS_MAX`
    /// 16,384, `TIMELAW_SLEEPS_MAX` 16,384: generous, a rate limiter may wait thousands of times;
    /// `TIMELAW_IDLE_CALLS_MAX` 65,536 clock reads and random draws in a row with no event and no clock
    /// move, where a busy-wait stops). A run
    /// stopped at a default limit, or past the attempts its contract allows, violates `terminates`; one
    /// stopped at a lower limit is inconclusive.
    pub limits: Limits,
    /// Run only this shard of the case indices.
    pub shard: Option<Shard>,
    /// Replace an existing fixture of the same name instead of keeping it (`--bless`, `TIMELAW_BLESS=1`;
    /// the variable reads exactly `1`/`0`/`true`/`false`, like `TIMELAW_CONCURRENCY`; default off): for fixtures timelaw itself owns. Without it a fixture that exists is never changed.
    pub bless: bool,
    /// The per-case watchdog, in milliseconds of wall time (`TIMELAW_CASE_TIMEOUT_MS`, default 2,000; 0
    /// turns it off): a case whose subject records no event and moves no clock for that long violates
    /// `terminates` with "no progress for N ms". The only wall-clock reading on the checking path, and it
    /// decides only that: never a verdict on a case that finished (see [`crate::watchdog`]).
    pub case_timeout_ms: u64,
    /// Overlapping calls (default ON; `--sequential` or `TIMELAW_CONCURRENCY=0` opt out): one batch of
    /// cases in two gives its calls arrivals and interleaving choices, and the reference its load
    /// mechanisms (bulkhead, rate limiter, hedging, ordered results:
    /// [`timelaw_generators::swarm_for_run`]). A subject that serves its calls one at a time (with
    /// [`timelaw_core::World::for_each_call`]) is never given calls that overlap: a call that arrives
    /// while the previous one runs waits in the caller's queue and starts when it ends. Off, every case
    /// is sequential.
    pub concurrency: bool,
    /// The health check as a failure (`--require-judged`, `TIMELAW_REQUIRE_JUDGED=1`, default off): a law
    /// the contract states what it needs for, but which the run judged non-vacuously in under 0.1% of
    /// its applicable cases (`timelaw_reports::Counts::barely_exercised`), fails the run (exit code 4,
    /// [`crate::runner::RunOutput::assert_holds`]) instead of being a warning under the table.
    pub require_judged: bool,
    /// Swarm switches on in every batch of cases (`--swarm-on NAME`, repeatable; `TIMELAW_SWARM_ON`, a
    /// comma-separated list; default none): one feature checked at full strength, every other option
    /// drawn per batch as usual ([`timelaw_generators::swarm_for_run_forced`]). `concurrency` here turns
    /// overlapping calls on in every batch, whatever [`Config::concurrency`] says.
    pub swarm_on: Vec<SwarmSwitch>,
}

/// The default of [`Config::case_timeout_ms`].
pub const CASE_TIMEOUT_MS_DEFAULT: u64 = 2_000;

impl Default for Config {
    fn default() -> Config {
        Config {
            cases: DEFAULT_CASES,
            seed: DEFAULT_SEED,
            threads: 0,
            stop_at: StopAt::First,
            fixtures: None,
            replay_every: 16,
            shrink_evals_max: 4_000,
            shrink_time_ms: None,
            limits: Limits::default(),
            shard: None,
            bless: false,
            case_timeout_ms: CASE_TIMEOUT_MS_DEFAULT,
            concurrency: true,
            require_judged: false,
            swarm_on: Vec::new(),
        }
    }
}

/// The most worker threads a run may use (`--threads`, `TIMELAW_THREADS`); more is an error, never a
/// silent cut. Far above any core count timelaw runs on, low enough that a typo cannot exhaust the
/// process's threads.
pub const THREADS_MAX: usize = 1024;

/// Every `TIMELAW_*` variable [`Config::with_env`] reads.
pub const ENV_ALL: &[&str] = &[
    "TIMELAW_CASES",
    "TIMELAW_SEED",
    "TIMELAW_THREADS",
    "TIMELAW_MAX_VIOLATIONS",
    "TIMELAW_FIXTURES",
    "TIMELAW_REPLAY_EVERY",
    "TIMELAW_SHRINK_EVALS",
    "TIMELAW_SHRINK_TIME_MS",
    "TIMELAW_EVENTS_MAX",
    "TIMELAW_ATTEMPTS_MAX",
    "TIMELAW_SLEEPS_MAX",
    "TIMELAW_IDLE_CALLS_MAX",
    "TIMELAW_BLESS",
    "TIMELAW_CASE_TIMEOUT_MS",
    "TIMELAW_CONCURRENCY",
    "TIMELAW_REQUIRE_JUDGED",
    "TIMELAW_SWARM_ON",
];

/// The variables replaying or explaining a fixture reads: the World's step limits.
pub const ENV_REPLAY: &[&str] = &[
    "TIMELAW_EVENTS_MAX",
    "TIMELAW_ATTEMPTS_MAX",
    "TIMELAW_SLEEPS_MAX",
    "TIMELAW_IDLE_CALLS_MAX",
    "TIMELAW_CASE_TIMEOUT_MS",
];

/// The variables shrinking a fixture or importing a crash reads: the step limits, the shrink budget and
/// `TIMELAW_BLESS`.
pub const ENV_SHRINK: &[&str] = &[
    "TIMELAW_EVENTS_MAX",
    "TIMELAW_ATTEMPTS_MAX",
    "TIMELAW_SLEEPS_MAX",
    "TIMELAW_IDLE_CALLS_MAX",
    "TIMELAW_SHRINK_EVALS",
    "TIMELAW_BLESS",
    "TIMELAW_CASE_TIMEOUT_MS",
];

/// A bad option value.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// An environment variable that does not parse (or is not valid UTF-8; `value` is then shown lossily).
    #[error("invalid value '{value}' for environment variable {name}: {expected}")]
    Env {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// A shard spec that is not `K/N` with `1 <= K <= N`.
    #[error("bad shard {text:?}: expected K/N with 1 <= K <= N, like 2/4")]
    Shard {
        /// The text given.
        text: String,
    },
    /// A run of no cases: it would check nothing and report "holds".
    #[error("a run needs at least 1 case (0 would check nothing)")]
    NoCases,
    /// A shard whose slice of the case indices is empty.
    #[error("shard {index}/{count} of {cases} cases has no cases: use at most {cases} shards, or more cases")]
    EmptyShard {
        /// The shard.
        index: u32,
        /// How many shards.
        count: u32,
        /// The run's cases.
        cases: u64,
    },
    /// More worker threads than [`THREADS_MAX`].
    #[error("{threads} threads: at most {THREADS_MAX}")]
    Threads {
        /// The number asked for.
        threads: usize,
    },
}

/// Parses a whole number: decimal, `_` separators allowed, surrounding spaces ignored.
fn parse_count(text: &str) -> Option<u64> {
    text.trim().replace('_', "").parse().ok()
}

/// Parses a number of cases: a whole number from 1.
///
/// # Errors
/// What was expected, for the message.
pub fn parse_cases(text: &str) -> Result<u64, String> {
    match parse_count(text) {
        Some(0) => Err("a run needs at least 1 case (0 would check nothing)".to_owned()),
        Some(cases) => Ok(cases),
        None => Err("expected a number of cases, a whole number from 1".to_owned()),
    }
}

/// Parses a worker thread count: 0 (one per core) to [`THREADS_MAX`].
///
/// # Errors
/// What was expected, for the message.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let expected = || format!("expected a thread count from 0 (one per core) to at most {THREADS_MAX}");
    let threads = parse_count(text).ok_or_else(expected)?;
    usize::try_from(threads).ok().filter(|threads| *threads <= THREADS_MAX).ok_or_else(expected)
}

/// Parses how many counterexamples to collect per law: a whole number from 1.
///
/// # Errors
/// What was expected, for the message.
pub fn parse_collect(text: &str) -> Result<u32, String> {
    let expected = || "expected a count of counterexamples per law, from 1 to 4294967295".to_owned();
    parse_count(text).and_then(|k| u32::try_from(k).ok()).filter(|k| *k >= 1).ok_or_else(expected)
}

/// Parses a run seed in decimal or `0x` hex.
///
/// # Errors
/// What was expected, for the message.
pub fn parse_seed_text(text: &str) -> Result<u64, String> {
    parse_seed(text).ok_or_else(|| "expected a seed, decimal or 0x hex, up to 64 bits".to_owned())
}

/// `limits` with those of `TIMELAW_EVENTS_MAX`, `TIMELAW_ATTEMPTS_MAX`, `TIMELAW_SLEEPS_MAX` and
/// `TIMELAW_IDLE_CALLS_MAX` that are in `names` applied.
fn limits_with_env(mut limits: Limits, names: &[&str]) -> Result<Limits, ConfigError> {
    let count = |text: &str| {
        parse_count(text)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| "expected a count of at most 4294967295".to_owned())
    };
    let fields: [(&'static str, &mut u32); 4] = [
        ("TIMELAW_EVENTS_MAX", &mut limits.events_max),
        ("TIMELAW_ATTEMPTS_MAX", &mut limits.attempts_max),
        ("TIMELAW_SLEEPS_MAX", &mut limits.sleeps_max),
        ("TIMELAW_IDLE_CALLS_MAX", &mut limits.idle_calls_max),
    ];
    for (name, field) in fields {
        if let Some(value) = env_value(name, names, count)? {
            *field = value;
        }
    }
    Ok(limits)
}

/// Parses a seed given in decimal or as `0x` hex.
pub fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim().replace('_', "");
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// What an on/off variable accepts, for its error message: exactly the values [`parse_switch`] reads.
const SWITCH_EXPECTED: &str = "expected 1 or 0 (true or false)";

/// `1`/`true` as on, `0`/`false` as off (surrounding spaces and the case of `true`/`false` aside): exactly
/// the values [`SWITCH_EXPECTED`] lists, so an error never lists less than what is read.
fn parse_switch(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(SWITCH_EXPECTED.to_owned()),
    }
}

/// A comma-separated list of swarm switch names (`circuit,jitter`); an empty value forces none.
fn parse_switches(text: &str) -> Result<Vec<SwarmSwitch>, String> {
    let names = text.split(',').map(str::trim).filter(|name| !name.is_empty());
    names.map(SwarmSwitch::from_name).collect()
}

/// A fixtures folder: any path but the empty one, which would write into the working folder (the
/// `--fixtures` flag refuses it too).
fn parse_folder(text: &str) -> Result<PathBuf, String> {
    match text {
        "" => Err("expected a folder (an empty value would write fixtures into the working folder)".to_owned()),
        text => Ok(PathBuf::from(text)),
    }
}

/// The value of variable `name` if it is among `names` and set, parsed; an unset variable is `None`, a
/// set one that does not parse (or is not UTF-8) an error naming it.
fn env_value<T>(
    name: &'static str,
    names: &[&str],
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, ConfigError> {
    if !names.contains(&name) {
        return Ok(None);
    }
    match std::env::var(name) {
        Ok(value) => parse(&value).map(Some).map_err(|expected| ConfigError::Env { name, value, expected }),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(value)) => {
            let value = value.to_string_lossy().into_owned();
            Err(ConfigError::Env { name, value, expected: "not valid UTF-8".to_owned() })
        }
    }
}

impl Config {
    /// The defaults with the `TIMELAW_*` environment variables applied.
    ///
    /// # Errors
    /// A variable that does not parse, named with its value.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::default().with_env()
    }

    /// `self` with the `TIMELAW_*` environment variables applied on top.
    ///
    /// # Errors
    /// A variable that does not parse, named with its value.
    pub fn with_env(self) -> Result<Config, ConfigError> {
        self.with_env_vars(ENV_ALL)
    }

    /// `self` with those `TIMELAW_*` variables applied that are in `names` (see [`ENV_ALL`]): a command
    /// reads only the variables it uses, so a bad variable fails only the commands that read it, and a
    /// command leaves out the variables its flags were given for, so flags beat variables.
    ///
    /// # Errors
    /// A variable in `names` that does not parse, named with its value.
    pub fn with_env_vars(mut self, names: &[&str]) -> Result<Config, ConfigError> {
        let number = |text: &str| parse_count(text).ok_or_else(|| "expected a whole number".to_owned());
        if let Some(cases) = env_value("TIMELAW_CASES", names, parse_cases)? {
            self.cases = cases;
        }
        if let Some(seed) = env_value("TIMELAW_SEED", names, parse_seed_text)? {
            self.seed = seed;
        }
        if let Some(threads) = env_value("TIMELAW_THREADS", names, parse_threads)? {
            self.threads = threads;
        }
        if let Some(k) = env_value("TIMELAW_MAX_VIOLATIONS", names, parse_collect)? {
            self.stop_at = if k <= 1 { StopAt::First } else { StopAt::Collect(k) };
        }
        if let Some(every) = env_value("TIMELAW_REPLAY_EVERY", names, number)? {
            self.replay_every = every;
        }
        if let Some(evals) = env_value("TIMELAW_SHRINK_EVALS", names, number)? {
            self.shrink_evals_max = evals;
        }
        if let Some(ms) = env_value("TIMELAW_SHRINK_TIME_MS", names, number)? {
            self.shrink_time_ms = Some(ms);
        }
        if let Some(ms) = env_value("TIMELAW_CASE_TIMEOUT_MS", names, number)? {
            self.case_timeout_ms = ms;
        }
        self.limits = limits_with_env(self.limits, names)?;
        if let Some(bless) = env_value("TIMELAW_BLESS", names, parse_switch)? {
            self.bless = bless;
        }
        if let Some(on) = env_value("TIMELAW_CONCURRENCY", names, parse_switch)? {
            self.concurrency = on;
        }
        if let Some(on) = env_value("TIMELAW_REQUIRE_JUDGED", names, parse_switch)? {
            self.require_judged = on;
        }
        if let Some(switches) = env_value("TIMELAW_SWARM_ON", names, parse_switches)? {
            self.swarm_on = switches;
        }
        if let Some(dir) = env_value("TIMELAW_FIXTURES", names, parse_folder)? {
            self.fixtures = Some(dir);
        }
        Ok(self)
    }

    /// The swarm of case `index` of this run: drawn from the seed per batch, with overlapping calls in one
    /// batch in two when [`Config::concurrency`] is on, and every switch of [`Config::swarm_on`] forced on.
    pub fn swarm_of(&self, index: u64) -> Swarm {
        swarm_for_run_forced(self.seed, index, self.concurrency, &self.swarm_on)
    }

    /// Checks that the run would check something: at least one case, a non-empty shard, at most
    /// [`THREADS_MAX`] threads.
    ///
    /// # Errors
    /// [`ConfigError::NoCases`], [`ConfigError::EmptyShard`] or [`ConfigError::Threads`].
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.cases == 0 {
            return Err(ConfigError::NoCases);
        }
        if self.threads > THREADS_MAX {
            return Err(ConfigError::Threads { threads: self.threads });
        }
        let (start, end) = self.case_range();
        match self.shard {
            Some(shard) if start == end => {
                Err(ConfigError::EmptyShard { index: shard.index, count: shard.count, cases: self.cases })
            }
            _ => Ok(()),
        }
    }

    /// The case indices `[start, end)` this run covers (its shard's, or all).
    pub fn case_range(&self) -> (u64, u64) {
        self.shard.map_or((0, self.cases), |shard| shard.range(self.cases))
    }

    /// The number of violations kept per law.
    pub fn violations_per_law(&self) -> usize {
        match self.stop_at {
            StopAt::First => 1,
            StopAt::Collect(k) => k.max(1) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "x/4", "2", "2/0", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let ranges: Vec<_> = (1..=3).map(|index| Shard { index, count: 3 }.range(10)).collect();
        assert_eq!(ranges, vec![(0, 3), (3, 6), (6, 10)]);
    }

    #[test]
    fn validation_refuses_runs_that_check_nothing() {
        let config = |cases, shard: Option<&str>, threads| Config {
            cases,
            threads,
            shard: shard.map(|text| Shard::parse(text).unwrap()),
            ..Config::default()
        };
        assert_eq!(config(1, None, 0).validate(), Ok(()));
        assert_eq!(config(0, None, 0).validate(), Err(ConfigError::NoCases));
        assert_eq!(config(2, Some("3/4"), 0).validate(), Err(ConfigError::EmptyShard { index: 3, count: 4, cases: 2 }));
        assert_eq!(config(4, Some("3/4"), THREADS_MAX).validate(), Ok(()));
        assert_eq!(config(4, None, THREADS_MAX + 1).validate(), Err(ConfigError::Threads { threads: THREADS_MAX + 1 }));
    }

    #[test]
    fn option_values_parse_or_say_what_was_expected() {
        assert_eq!(parse_cases("1_000"), Ok(1000));
        assert!(parse_cases("0").unwrap_err().contains("at least 1"));
        assert!(parse_cases("-1").is_err());
        assert_eq!(parse_threads("1024"), Ok(1024));
        assert!(parse_threads("1025").unwrap_err().contains("at most 1024"));
        assert!(parse_threads("18446744073709551615").is_err());
        assert_eq!(parse_collect("3"), Ok(3));
        assert!(parse_collect("0").is_err());
        assert!(parse_seed_text("-1").is_err());
        for (text, on) in [("1", true), ("0", false), (" TRUE ", true), ("false", false)] {
            assert_eq!(parse_switch(text), Ok(on), "{text:?}");
        }
        for text in ["yes", "no", "", "on", "2"] {
            assert_eq!(parse_switch(text), Err(SWITCH_EXPECTED.to_owned()), "{text:?}");
        }
        assert!(parse_folder("").unwrap_err().contains("working folder"));
        assert_eq!(parse_folder(" x"), Ok(PathBuf::from(" x")));
    }

    #[test]
    fn seeds_parse_in_hex_and_decimal() {
        assert_eq!(parse_seed("0x10"), Some(16));
        assert_eq!(parse_seed("1_000"), Some(1000));
        assert_eq!(parse_seed("zz"), None);
    }
}
