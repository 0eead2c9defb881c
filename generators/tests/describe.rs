//! `Describe`: one description gives every front-end, the simplest config and shrink candidates.

use arbitrary::Unstructured;
use proptest::test_runner::{Config, TestError, TestRunner};
use serde::{Deserialize, Serialize};
use timelaw_core::reference::{Backoff, Policy, Reference};
use timelaw_core::{Abort, Contract, SplitMix64, Subject, VDuration, World};
use timelaw_generators::choice::optional;
use timelaw_generators::{simplest_config, Choices, ConfigDomain, Describe, Swarm};

/// A subject described once: attempts, a delay and an optional timeout.
#[derive(Clone, Copy, Debug, Default)]
struct Described;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Settings {
    attempts: u32,
    delay_ms: u64,
    timeout_ms: Option<u64>,
}

impl Subject for Described {
    type Config = Settings;
    fn name(&self) -> &str {
        "described"
    }
    fn contract(&self, _: &Settings) -> Contract {
        Contract::default()
    }
    fn run(&self, _: &Settings, _: &mut World<'_>) -> Result<(), Abort> {
        Ok(())
    }
}

impl Describe for Described {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Settings {
        let attempts = c.between(1, 6) as u32; // At most 6.
        let delay_ms = c.between(0, 49);
        let timeout_ms = optional(c, swarm.attempt_timeout, 1, 2, |c| c.between(0, 100));
        Settings { attempts, delay_ms, timeout_ms }
    }
}

const SIMPLEST: Settings = Settings { attempts: 1, delay_ms: 0, timeout_ms: None };

#[track_caller]
fn check_simplest<S: Describe>(subject: &S, expect: &S::Config) {
    assert_eq!(&simplest_config(subject), expect, "simplest_config");
    assert_eq!(&subject.simplest_config(), expect, "ConfigDomain::simplest_config");
    assert_eq!(&subject.arbitrary_config(&mut Unstructured::new(&[])), expect, "the empty fuzz input");
    assert!(subject.shrink_config(expect).is_empty(), "nothing is simpler than the simplest config");
}

#[test]
fn the_simplest_config_answers_zero_everywhere() {
    check_simplest(&Described, &SIMPLEST);
    check_simplest(&Reference, &Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO));
}

#[test]
fn the_default_shrink_candidate_is_the_simplest_config() {
    #[track_caller]
    fn check(config: Settings, expect: Vec<Settings>) {
        assert_eq!(Described.shrink_config(&config), expect);
    }
    check(Settings { attempts: 4, delay_ms: 7, timeout_ms: Some(3) }, vec![SIMPLEST]);
    check(Settings { attempts: 1, delay_ms: 1, timeout_ms: None }, vec![SIMPLEST]);
    check(SIMPLEST, vec![]);
}

#[test]
fn native_sampling_follows_the_description_and_the_swarm() {
    let no_timeouts = Swarm { attempt_timeout: false, ..Swarm::everything() };
    let mut rng = SplitMix64::new(11);
    let (mut with_timeout, mut max_attempts) = (0, 0);
    for _ in 0..2000 {
        let everything = Described.sample_config(&mut rng, &Swarm::everything());
        assert!((1..=6).contains(&everything.attempts) && everything.delay_ms < 50, "{everything:?}");
        with_timeout += u32::from(everything.timeout_ms.is_some());
        max_attempts = max_attempts.max(everything.attempts);
        assert_eq!(Described.sample_config(&mut rng, &no_timeouts).timeout_ms, None);
    }
    assert!(with_timeout > 500, "timeouts appear when the swarm allows them: {with_timeout}");
    assert_eq!(max_attempts, 6);
}

#[test]
fn the_proptest_strategy_shrinks_to_the_minimal_failure() {
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 256, failure_persistence: None, ..Config::default() },
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let result = runner.run(&Described.config_strategy(), |config| {
        proptest::prop_assert!(config.attempts < 4 || config.delay_ms < 20);
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, minimal)) => {
            assert_eq!(minimal, Settings { attempts: 4, delay_ms: 20, timeout_ms: None })
        }
        other => panic!("expected a shrunk failure, got {other:?}"),
    }
}

#[test]
fn fuzz_bytes_decode_through_the_description() {
    for bytes in [&[0xFF_u8; 32][..], b"timelaw", &[1, 2, 3]] {
        let config = Described.arbitrary_config(&mut Unstructured::new(bytes));
        let described = Described.describe(&mut Unstructured::new(bytes), &Swarm::everything());
        assert_eq!(config, described, "{bytes:?}");
        assert!((1..=6).contains(&config.attempts) && config.delay_ms < 50, "{config:?}");
    }
}
