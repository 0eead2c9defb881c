//! Run options: one struct, documented defaults, each overridable by an environment variable.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use timelaw_core::Limits;

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
    /// Worker threads; 0 means one per core (`TIMELAW_THREADS`, default 0).
    pub threads: usize,
    /// Violations collected per law (`TIMELAW_MAX_VIOLATIONS`, default 1 = [`StopAt::First`]).
    pub stop_at: StopAt,
    /// Where fixtures are written; `None` writes none (`TIMELAW_FIXTURES`).
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
    /// 16,384, `TIMELAW_SLEEPS_MAX` 16,384: generous, a rate limiter may wait thousands of times). A run
    /// stopped at a default limit, or past the attempts its contract allows, violates `terminates`; one
    /// stopped at a lower limit is inconclusive.
    pub limits: Limits,
    /// Run only this shard of the case indices.
    pub shard: Option<Shard>,
}

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
        }
    }
}

/// A bad option value.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// An environment variable that does not parse.
    #[error("environment variable {name}={value:?}: expected {expected}")]
    Env {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A shard spec that is not `K/N` with `1 <= K <= N`.
    #[error("bad shard {text:?}: expected K/N with 1 <= K <= N, like 2/4")]
    Shard {
        /// The text given.
        text: String,
    },
}

/// `limits` with `TIMELAW_EVENTS_MAX`, `TIMELAW_ATTEMPTS_MAX` and `TIMELAW_SLEEPS_MAX` applied.
fn limits_with_env(mut limits: Limits) -> Result<Limits, ConfigError> {
    let count = |text: &str| text.trim().replace('_', "").parse::<u32>().ok().map(u64::from);
    let expected = "a count of at most 4294967295";
    let fields: [(&'static str, &mut u32); 3] = [
        ("TIMELAW_EVENTS_MAX", &mut limits.events_max),
        ("TIMELAW_ATTEMPTS_MAX", &mut limits.attempts_max),
        ("TIMELAW_SLEEPS_MAX", &mut limits.sleeps_max),
    ];
    for (name, field) in fields {
        if let Some(value) = env_u64(name, count, expected)? {
            *field = u32::try_from(value).unwrap_or(u32::MAX); // `count` parsed a u32.
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

fn env_u64(
    name: &'static str,
    parse: fn(&str) -> Option<u64>,
    expected: &'static str,
) -> Result<Option<u64>, ConfigError> {
    match std::env::var(name) {
        Ok(value) => parse(&value).map(Some).ok_or(ConfigError::Env { name, value, expected }),
        Err(_) => Ok(None),
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
    pub fn with_env(mut self) -> Result<Config, ConfigError> {
        let number = |text: &str| text.trim().replace('_', "").parse().ok();
        if let Some(cases) = env_u64("TIMELAW_CASES", number, "a number of cases")? {
            self.cases = cases;
        }
        if let Some(seed) = env_u64("TIMELAW_SEED", parse_seed, "a seed in decimal or 0x hex")? {
            self.seed = seed;
        }
        if let Some(threads) = env_u64("TIMELAW_THREADS", number, "a thread count")? {
            self.threads = usize::try_from(threads).unwrap_or(usize::MAX);
        }
        if let Some(k) = env_u64("TIMELAW_MAX_VIOLATIONS", number, "a count of at least 1")? {
            self.stop_at = if k <= 1 { StopAt::First } else { StopAt::Collect(u32::try_from(k).unwrap_or(u32::MAX)) };
        }
        if let Some(every) = env_u64("TIMELAW_REPLAY_EVERY", number, "a case stride (0 = never)")? {
            self.replay_every = every;
        }
        if let Some(evals) = env_u64("TIMELAW_SHRINK_EVALS", number, "a number of evaluations")? {
            self.shrink_evals_max = evals;
        }
        if let Some(ms) = env_u64("TIMELAW_SHRINK_TIME_MS", number, "milliseconds")? {
            self.shrink_time_ms = Some(ms);
        }
        self.limits = limits_with_env(self.limits)?;
        if let Ok(dir) = std::env::var("TIMELAW_FIXTURES") {
            self.fixtures = Some(PathBuf::from(dir));
        }
        Ok(self)
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
    fn seeds_parse_in_hex_and_decimal() {
        assert_eq!(parse_seed("0x10"), Some(16));
        assert_eq!(parse_seed("1_000"), Some(1000));
        assert_eq!(parse_seed("zz"), None);
    }
}
