//! Every adapter's config domain: the three front-ends agree on validity, zero answers give the
//! simplest config, configs survive a JSON round trip, and shrink candidates are valid and new.

use arbitrary::Unstructured;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use timelaw_adapters::backon::{BackonConstant, BackonExponential, BackonFibonacci, BackonRetry};
use timelaw_adapters::exponential_backoff::ExponentialBackoffSubject;
use timelaw_adapters::tokio_retry2::{
    TokioRetry2Exponential, TokioRetry2ExponentialFactor, TokioRetry2Fibonacci, TokioRetry2Fixed, TokioRetry2Linear,
    TokioRetry2Retry,
};
use timelaw_adapters::tokio_timeout_loop::TokioTimeoutLoop;
use timelaw_adapters::tower::{TowerBackoff, TowerBudget};
use timelaw_core::{mix, SplitMix64};
use timelaw_generators::{swarm_for, ConfigDomain, Swarm};

/// Checks the domain of `subject`; `simplest` is the JSON of the config all-zero answers give.
#[track_caller]
fn check<S: ConfigDomain>(subject: &S, simplest: &str) {
    let zero = subject.arbitrary_config(&mut Unstructured::new(&[]));
    assert_eq!(serde_json::to_string(&zero).unwrap(), simplest, "{}", subject.name());
    let mut runner = TestRunner::deterministic();
    for index in 0..500 {
        let mut rng = SplitMix64::new(mix(9, index));
        let sampled = subject.sample_config(&mut rng, &swarm_for(9, index));
        let proptest = subject.config_strategy().new_tree(&mut runner).unwrap().current();
        let bytes: Vec<u8> = (0..64).map(|byte| (mix(index, byte) >> 7) as u8).collect();
        let fuzzed = subject.arbitrary_config(&mut Unstructured::new(&bytes));
        for config in [sampled, proptest, fuzzed] {
            let json = serde_json::to_string(&config).unwrap();
            assert_eq!(serde_json::from_str::<S::Config>(&json).unwrap(), config);
            for simpler in subject.shrink_config(&config) {
                assert_ne!(simpler, config);
            }
        }
    }
    let swarm = Swarm { jitter: false, ..Swarm::everything() };
    let _ = subject.sample_config(&mut SplitMix64::new(1), &swarm);
}

#[test]
fn backon() {
    let exponential =
        r#"{"jitter":false,"factor":2.0,"min_delay":0,"max_delay":60000000000,"max_times":3,"total_delay":null}"#;
    check(&BackonExponential, exponential);
    check(&BackonFibonacci, r#"{"jitter":false,"min_delay":0,"max_delay":60000000000,"max_times":3}"#);
    check(&BackonConstant, r#"{"delay":0,"max_times":3,"jitter":false}"#);
    let retry = r#"{"backoff":{"constant":{"delay":0,"max_times":3,"jitter":false}},"notify":false}"#;
    check(&BackonRetry, retry);
}

#[test]
fn tower() {
    check(&TowerBackoff, r#"{"min":0,"max":1,"jitter":0.0,"max_retries":0}"#);
    check(&TowerBudget, r#"{"ttl":1000000000,"min_per_sec":0,"retry_percent":0.2}"#);
}

#[test]
fn exponential_backoff() {
    let simplest = r#"{"max_attempts":3,"min":0,"max":10000000000,"jitter_milli":0,"factor":2}"#;
    check(&ExponentialBackoffSubject, simplest);
}

#[test]
fn tokio_retry2() {
    check(&TokioRetry2Exponential, r#"{"base_millis":10,"factor":1,"max_delay":null,"take":3}"#);
    let factor = r#"{"initial_millis":500,"base_factor":2.0,"max_delay":null,"take":3}"#;
    check(&TokioRetry2ExponentialFactor, factor);
    check(&TokioRetry2Fibonacci, r#"{"millis":10,"factor":1,"max_delay":null,"take":3}"#);
    check(&TokioRetry2Fixed, r#"{"interval":0,"take":3}"#);
    check(&TokioRetry2Linear, r#"{"initial":0,"increment":null,"max_delay":null,"take":3}"#);
    let retry = r#"{"strategy":{"fixed":{"interval":0,"take":3}},"notify":false,"retry_after":false}"#;
    check(&TokioRetry2Retry, retry);
}

#[test]
fn tokio_timeout_loop() {
    check(&TokioTimeoutLoop, r#"{"max_attempts":1,"attempt_timeout":1000000,"delay":0,"deadline":null}"#);
}
