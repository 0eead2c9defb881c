//! A config drawn through the short `subject(..)` form (no numbers of its own) shrinks by the answers it
//! was described from: irrelevant fields to their simplest values, the relevant one to its boundary.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw::core::sync_loop::{contract_for, serve_calls};
use timelaw::core::{Contract, VDuration};
use timelaw::generators::{draw, simplest_config, subject, Choices, ConfigDomain, FnSubject};
use timelaw::laws::Catalogue;
use timelaw::Config;

/// A loop's settings as a user writes them: one number that matters to the bug, four that do not.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Knobs {
    retries: u32,
    delay: VDuration,
    timeout: VDuration,
    factor: u32,
    jitter: bool,
}

impl Knobs {
    fn describe(c: &mut dyn Choices) -> Knobs {
        Knobs {
            retries: c.between(0, 20) as u32,
            delay: draw::delay(c, draw::SEC),
            timeout: draw::delay(c, VDuration::from_secs(43)),
            factor: c.between(1, 16) as u32,
            jitter: c.maybe(1, 2),
        }
    }

    fn contract(&self) -> Contract {
        contract_for(Contract::constant(self.retries + 1, self.delay))
    }

    /// The delays of `retries` retries; from 7 retries on, one delay too many (an off-by-one that only
    /// larger counts reach).
    fn delays(&self) -> impl Iterator<Item = Duration> + '_ {
        let extra = u32::from(self.retries >= 7);
        (0..self.retries + extra).map(|_| self.delay.to_std())
    }
}

const OFF_BY_ONE_FROM_SEVEN: FnSubject<Knobs> =
    subject("off-by-one-from-seven", Knobs::describe, Knobs::contract, |k, world| {
        serve_calls(world, |_| Ok(k.delays()))
    });

/// Retries drawn in tiers (mostly 0 to 5, sometimes 6 to 12), as `draw::retries` draws them: from a
/// count in the upper tier, the minimum (5 retries, the top of the lower tier) needs the tier lowered
/// with its value raised.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Tiered {
    retries: u32,
    delay: VDuration,
}

impl Tiered {
    fn describe(c: &mut dyn Choices) -> Tiered {
        Tiered { retries: draw::retries(c, 20) as u32, delay: draw::delay(c, draw::SEC) }
    }

    fn contract(&self) -> Contract {
        contract_for(Contract::constant(self.retries + 1, self.delay))
    }
}

const TIERED_OFF_BY_ONE_FROM_FIVE: FnSubject<Tiered> =
    subject("tiered-off-by-one-from-five", Tiered::describe, Tiered::contract, |t, world| {
        let extra = u32::from(t.retries >= 5);
        serve_calls(world, |_| Ok((0..t.retries + extra).map(|_| t.delay.to_std())))
    });

/// The configs found and shrunk for `attempts_within_max` on each seed.
fn shrunk_configs<S: ConfigDomain>(subject: &S, seeds: std::ops::Range<u64>) -> Vec<(S::Config, S::Config)> {
    let laws = Catalogue::standard().select(&["attempts_within_max"]).unwrap();
    seeds
        .map(|seed| {
            let config = Config { cases: 10_000, seed, threads: 1, ..Config::default() };
            let output = crate::common::first::run_to_first(subject, &laws, &config);
            let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("seed {seed}: not found"));
            (example.found.config.clone(), example.shrunk.config.clone())
        })
        .collect()
}

#[test]
fn a_short_form_config_shrinks_its_irrelevant_fields_away_and_its_count_to_the_boundary() {
    let minimum = Knobs { retries: 7, delay: VDuration::ZERO, timeout: VDuration::ZERO, factor: 1, jitter: false };
    for (seed, (found, shrunk)) in shrunk_configs(&OFF_BY_ONE_FROM_SEVEN, 0..5).into_iter().enumerate() {
        assert_ne!(found, minimum, "seed {seed}: found at the minimum, nothing to shrink");
        assert_eq!(shrunk, minimum, "seed {seed}: found at {found:?}");
    }
    assert_ne!(simplest_config(&OFF_BY_ONE_FROM_SEVEN), minimum);
}

#[test]
fn a_tier_is_lowered_with_its_value_raised() {
    let runs = shrunk_configs(&TIERED_OFF_BY_ONE_FROM_FIVE, 0..5);
    for (seed, (found, shrunk)) in runs.iter().enumerate() {
        assert_eq!(*shrunk, Tiered { retries: 5, delay: VDuration::ZERO }, "seed {seed}: found at {found:?}");
    }
    assert!(runs.iter().any(|(found, _)| found.retries > 5), "no seed found the bug in the upper tier: {runs:?}");
}
