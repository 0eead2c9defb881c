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

/// An exponential backoff from one second as a user writes it: delays in whole milliseconds kept in a
/// `u32` and multiplied up with wrapping arithmetic, so a delay of 2^32 ms (about 49.7 days) or more
/// wraps; a logging flag drawn between the count and the factor plays no part. From a case at
/// `retries` 24 and `factor` 2 (the 24th delay wraps), fewer retries lose the failure unless the factor
/// rises with them: the minimum, 7 retries under a factor of 13 (1000 * 13^6 >= 2^32 > 1000 * 12^6),
/// needs the count lowered while a number two answers later is raised.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Growing {
    retries: u32,
    verbose: bool,
    factor: u32,
}

impl Growing {
    const BASE_MS: u32 = 1000;

    fn describe(c: &mut dyn Choices) -> Growing {
        Growing { retries: c.between(0, 40) as u32, verbose: c.maybe(1, 2), factor: c.between(1, 16) as u32 }
    }

    fn contract(&self) -> Contract {
        let base = VDuration::from_millis(u64::from(Self::BASE_MS));
        contract_for(Contract::exponential(self.retries + 1, base, u64::from(self.factor) * 1000, VDuration::MAX))
    }
}

const WRAPPING_MILLIS: FnSubject<Growing> =
    subject("wrapping-millis", Growing::describe, Growing::contract, |g, world| {
        let delay = |k: u32| Duration::from_millis(u64::from(Growing::BASE_MS.wrapping_mul(g.factor.wrapping_pow(k))));
        serve_calls(world, |_| Ok((0..g.retries).map(delay)))
    });

/// The configs found and shrunk for `attempts_within_max` on each seed.
fn shrunk_configs<S: ConfigDomain>(subject: &S, seeds: std::ops::Range<u64>) -> Vec<(S::Config, S::Config)> {
    shrunk_configs_of(subject, "attempts_within_max", seeds)
}

/// The configs found and shrunk for `law` on each seed.
fn shrunk_configs_of<S: ConfigDomain>(
    subject: &S,
    law: &str,
    seeds: std::ops::Range<u64>,
) -> Vec<(S::Config, S::Config)> {
    let laws = Catalogue::standard().select(&[law]).unwrap();
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

/// A count lowered with a later number raised (`couple_answers`): the wrapped delay needs fewer retries
/// under a larger factor, and each number alone loses the failure.
#[test]
fn a_count_falls_while_a_later_number_rises() {
    let minimum = Growing { retries: 7, verbose: false, factor: 13 };
    let runs = shrunk_configs_of(&WRAPPING_MILLIS, "backoff_shape_without_jitter", 0..5);
    for (seed, (found, shrunk)) in runs.iter().enumerate() {
        assert_eq!(*shrunk, minimum, "seed {seed}: found at {found:?}");
    }
    assert!(
        runs.iter().any(|(found, _)| found.factor < 13),
        "no seed found the bug below the minimum's factor: {runs:?}"
    );
    // The stop of the shrinker before the move: neither number alone keeps the failure.
    let law = *Catalogue::standard().get("backoff_shape_without_jitter").unwrap();
    let stop = Growing { retries: 24, verbose: false, factor: 2 };
    let violated = |config: &Growing| {
        let case = timelaw::core::Case::new(config.clone(), transients(config.retries), 0);
        timelaw::eval::evaluate(&WRAPPING_MILLIS, &case, Default::default(), false).judge(&law, &case).is_violated()
    };
    assert!(violated(&stop));
    assert!(!violated(&Growing { retries: 23, ..stop.clone() }), "one retry fewer, the same factor");
    assert!(!violated(&Growing { retries: 23, verbose: true, ..stop.clone() }), "the next answer at its largest");
    assert!(violated(&Growing { retries: 23, factor: 16, ..stop }), "the factor at its largest");
}

/// One call of `count` instant transient failures.
fn transients(count: u32) -> timelaw::core::Schedule {
    let step = timelaw::core::Step::instant(timelaw::core::Outcome::Transient).repeated(count.max(1));
    timelaw::core::Schedule::single(vec![step])
}

/// A fuzz input's config shrinks by its answers too (`Decoding::drawn`, what `timelaw import-crash` and
/// the fuzz targets' masking shrink with), to the minimum the runner reaches.
#[test]
fn a_decoded_fuzz_input_shrinks_its_config_like_a_found_case() {
    use timelaw::core::SplitMix64;
    use timelaw::fuzz::Decoding;
    use timelaw::shrink::{shrink, ShrinkBudget};

    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let minimum = Knobs { retries: 7, delay: VDuration::ZERO, timeout: VDuration::ZERO, factor: 1, jitter: false };
    let mut rng = SplitMix64::new(3);
    let mut shrunk = 0;
    for _ in 0..2_000 {
        let bytes: Vec<u8> = (0..64).map(|_| rng.next_u64() as u8).collect();
        let drawn = Decoding::Sequential.drawn(&OFF_BY_ONE_FROM_SEVEN, &bytes);
        let Ok(outcome) =
            shrink(&OFF_BY_ONE_FROM_SEVEN, &law, drawn.clone(), ShrinkBudget::default(), Default::default())
        else {
            continue; // This input does not violate the law.
        };
        assert_eq!(outcome.case.config, minimum, "from {:?}", drawn.case.config);
        if drawn.case.config != minimum {
            let plain =
                shrink(&OFF_BY_ONE_FROM_SEVEN, &law, drawn.case.clone(), ShrinkBudget::default(), Default::default());
            assert_eq!(plain.unwrap().case.config, drawn.case.config, "without the answers the config stays");
        }
        shrunk += 1;
        if shrunk == 5 {
            return;
        }
    }
    panic!("only {shrunk} of 2,000 random inputs violate attempts_within_max");
}

/// The fuzz masking recognizes a pinned finding whether the fixture's case was shrunk by its config's
/// answers (as the runner and import-crash shrink now) or without them (as fixtures pinned before were).
#[test]
fn the_masking_recognizes_a_pin_shrunk_with_or_without_the_answers() {
    use timelaw::core::SplitMix64;
    use timelaw::fuzz::Decoding;
    use timelaw::known::{pinned_finding, Pinned};
    use timelaw::shrink::{shrink, ShrinkBudget};

    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let mut rng = SplitMix64::new(5);
    let drawn = loop {
        let bytes: Vec<u8> = (0..64).map(|_| rng.next_u64() as u8).collect();
        let drawn = Decoding::Sequential.drawn(&OFF_BY_ONE_FROM_SEVEN, &bytes);
        let plain =
            shrink(&OFF_BY_ONE_FROM_SEVEN, &law, drawn.case.clone(), ShrinkBudget::default(), Default::default());
        if plain.is_ok_and(|outcome| outcome.case.config.retries > 8) {
            break drawn; // Its two minima lie more than one move apart.
        }
    };
    let budget = ShrinkBudget::default();
    let with = shrink(&OFF_BY_ONE_FROM_SEVEN, &law, drawn.clone(), budget, Default::default()).unwrap();
    let without = shrink(&OFF_BY_ONE_FROM_SEVEN, &law, drawn.case.clone(), budget, Default::default()).unwrap();
    assert_ne!(with.case, without.case);
    let verdict = timelaw::laws::Verdict::Violated(with.violation.clone());
    for minimum in [&with.case, &without.case] {
        let pinned = [Pinned {
            law: law.id.to_owned(),
            message: with.violation.message.to_string(),
            case: serde_json::to_value(minimum).unwrap(),
        }];
        assert!(pinned_finding(&OFF_BY_ONE_FROM_SEVEN, &pinned, &law, &verdict, &drawn).is_some(), "{minimum:?}");
    }
}

/// A struct-form subject whose domain offers its own simpler config (`jitter` switched off), as the
/// adapters' domains do: after that candidate is kept, the answers of the new config are found among the
/// old ones, so the count still shrinks by its answers.
#[derive(Clone, Copy, Debug)]
struct FlagOffered;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Flagged {
    jitter: bool,
    retries: u32,
}

impl timelaw::core::Subject for FlagOffered {
    type Config = Flagged;
    fn name(&self) -> &str {
        "flag-offered"
    }
    fn contract(&self, config: &Flagged) -> Contract {
        contract_for(Contract::constant(config.retries + 1, VDuration::ZERO))
    }
    fn run(&self, config: &Flagged, world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        let extra = u32::from(config.retries >= 7);
        serve_calls(world, |_| Ok((0..config.retries + extra).map(|_| Duration::ZERO)))
    }
}

impl timelaw::Describe for FlagOffered {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &timelaw::Swarm) -> Flagged {
        Flagged { jitter: c.maybe(1, 2), retries: c.between(0, 20) as u32 }
    }
    fn simpler(&self, config: &Flagged) -> Vec<Flagged> {
        if config.jitter {
            return vec![Flagged { jitter: false, ..config.clone() }];
        }
        Vec::new()
    }
}

#[test]
fn answers_carry_over_a_simpler_config_the_domain_offers() {
    let runs = shrunk_configs(&FlagOffered, 0..8);
    for (seed, (found, shrunk)) in runs.iter().enumerate() {
        assert_eq!(*shrunk, Flagged { jitter: false, retries: 7 }, "seed {seed}: found at {found:?}");
    }
    let carried = runs.iter().filter(|(found, _)| found.jitter && found.retries > 7).count();
    assert!(carried > 0, "no seed found the bug with the flag on above the minimum: {runs:?}");
}

/// Shrinks the guide corpus' capped-then-doubled base from a config drawn from `answers` (retries, then
/// `draw::delay`'s option and value for the base, then for the cap), two failures in one call, to the
/// config it stops at and the answers it is known by.
fn cap_before_doubling_from(answers: &[u64]) -> crate::common::guide_corpus::GuidePolicy {
    use crate::common::guide_corpus::{sync_minimum, GuideSlip, CAP_BEFORE_DOUBLING};
    use timelaw::generators::{Answers, Swarm};
    use timelaw::shrink::{shrink, Drawn, ShrinkBudget};

    let answers = Answers { answers: answers.to_vec(), swarm: Swarm::everything() };
    let (config, _) = CAP_BEFORE_DOUBLING.config_of_answers(&answers).unwrap();
    let case = timelaw::core::Case { config, ..sync_minimum(GuideSlip::CapBeforeDoubling) };
    let law = *Catalogue::standard().get("delay_within_cap").unwrap();
    let drawn = Drawn { case, answers: Some(answers) };
    shrink(&CAP_BEFORE_DOUBLING, &law, drawn, ShrinkBudget::default(), Default::default()).unwrap().case.config
}

/// `draw::delay`'s options, as answers: 1 picks a count of nanoseconds (one more answer), 6 the crate's
/// default (no more answer), 8 a duration from 1 ms to a minute (one more answer), 11 the first of three
/// fixed values, 1 ns (one more answer, its index).
const NANOS: u64 = 1;
const DEFAULT: u64 = 6;
const MINUTES: u64 = 8;
const FIXED: u64 = 11;

/// A base at the crate's default (1 s, no value read) reaches 1 ns only through a choice lowered with an
/// answer inserted after it for the value the lower option reads: lowered alone, the cap's answers are
/// read as the base's value and the failure is lost.
#[test]
fn a_choice_lowered_to_an_option_that_reads_a_value_keeps_the_later_draws() {
    let minimum = sync_minimum_config();
    assert_eq!(cap_before_doubling_from(&[0, 2, DEFAULT, NANOS, 1]), minimum);
}

/// A base from the minute range (1 ms) reaches 1 ns only through the option just above the simplest,
/// with its value at its largest: one option lower (the crate default, 1 s) or the simplest (zero) lose
/// the failure or read the cap's answers.
#[test]
fn a_choice_past_several_options_is_lowered_to_the_first_that_reads_a_value() {
    assert_eq!(cap_before_doubling_from(&[0, 2, MINUTES, 0, NANOS, 1]), sync_minimum_config());
}

/// The same config under smaller answers is taken again: a base of 1 ns drawn as a fixed value shrinks
/// through larger counts of nanoseconds (smaller answers, larger values) back to 1 ns as a count, where
/// a shrinker that remembered the case alone stopped at 2 ns, a larger config than it started from.
#[test]
fn a_config_met_again_under_smaller_answers_is_taken() {
    assert_eq!(cap_before_doubling_from(&[0, 2, FIXED, 0, NANOS, 1]), sync_minimum_config());
}

fn sync_minimum_config() -> crate::common::guide_corpus::GuidePolicy {
    use crate::common::guide_corpus::{sync_minimum, GuideSlip};
    sync_minimum(GuideSlip::CapBeforeDoubling).config
}
