//! A run's first violation of each law without judging the cases after it.
#![allow(dead_code)] // Each test target uses a part of the shared code.

use timelaw::generators::ConfigDomain;
use timelaw::laws::Catalogue;
use timelaw::runner::{run, RunOutput, Silent};
use timelaw::Config;

/// The first prefix [`run_to_first`] judges; each next one is ten times longer, up to the run's own count.
pub const FIRST_PREFIX_CASES: u64 = 1_000;

/// `run(subject, laws, config)` judged over growing prefixes of its cases (1,000, then ten times more,
/// up to `config.cases`) until every law of `laws` has a counterexample. Case `i` depends only on the
/// seed and `i`, so a prefix's first violation of a law is the whole run's first, shrunk to the same
/// minimum and written as the same fixture: only the violation counts differ, and no caller reads them.
/// The planted suites judge their 100,000-case runs this way, several times faster.
pub fn run_to_first<S: ConfigDomain + ?Sized>(subject: &S, laws: &Catalogue, config: &Config) -> RunOutput<S::Config> {
    assert!(config.shard.is_none(), "a prefix of a shard is not a prefix of the run");
    let mut cases = FIRST_PREFIX_CASES.min(config.cases);
    loop {
        let output = run(subject, laws, &Config { cases, ..config.clone() }, &Silent);
        let every_law_found = output.laws.iter().all(|law| !law.counterexamples.is_empty());
        if every_law_found || cases == config.cases {
            return output;
        }
        cases = cases.saturating_mul(10).min(config.cases);
    }
}
