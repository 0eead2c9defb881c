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
use timelaw_core::{mix, JitterBounds, SplitMix64};
use timelaw_generators::{swarm_for, ConfigDomain, Swarm};

/// Checks the domain of `subject`; `simplest` is the JSON of the config all-zero answers give; `jitter`
/// says whether its configs may jitter (and then only when the swarm switches jitter on).
#[track_caller]
fn check<S: ConfigDomain>(subject: &S, simplest: &str, jitter: Jitter) {
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
    let jittered = |swarm: &Swarm| {
        let jitters =
            |seed: u64| subject.contract(&subject.sample_config(&mut SplitMix64::new(seed), swarm)).delays.jitter;
        (0..200).filter(|&seed| jitters(seed).is_some_and(|bounds| bounds != JitterBounds::None)).count()
    };
    let name = subject.name();
    assert_eq!(jittered(&Swarm { jitter: false, ..Swarm::everything() }), 0, "{name}: jitter with the swarm's off");
    let on = jittered(&Swarm::everything());
    match jitter {
        Jitter::Swarmed => assert!(on > 0, "{name}: no jitter in 200 configs with the swarm's jitter on"),
        Jitter::Absent => assert_eq!(on, 0, "{name}: jitter in a domain said to have none"),
    }
}

/// Whether a domain draws jitter (only when the swarm allows it) or has none.
#[derive(Clone, Copy, Debug)]
enum Jitter {
    Swarmed,
    Absent,
}

#[test]
fn backon() {
    let exponential =
        r#"{"jitter":false,"factor":2.0,"min_delay":"0","max_delay":"60s","max_times":3,"total_delay":null}"#;
    check(&BackonExponential, exponential, Jitter::Swarmed);
    check(&BackonFibonacci, r#"{"jitter":false,"min_delay":"0","max_delay":"60s","max_times":3}"#, Jitter::Swarmed);
    check(&BackonConstant, r#"{"delay":"0","max_times":3,"jitter":false}"#, Jitter::Swarmed);
    let retry = r#"{"backoff":{"constant":{"delay":"0","max_times":3,"jitter":false}},"notify":false}"#;
    check(&BackonRetry, retry, Jitter::Swarmed);
}

#[test]
fn tower() {
    check(&TowerBackoff, r#"{"min":"0","max":"1ns","jitter":0.0,"max_retries":0}"#, Jitter::Swarmed);
    check(&TowerBudget, r#"{"ttl":"1s","min_per_sec":0,"retry_percent":0.2}"#, Jitter::Absent);
}

#[test]
fn exponential_backoff() {
    let simplest = r#"{"max_attempts":3,"min":"0","max":"10s","jitter_milli":0,"factor":2}"#;
    check(&ExponentialBackoffSubject, simplest, Jitter::Swarmed);
}

#[test]
fn tokio_retry2() {
    check(&TokioRetry2Exponential, r#"{"base_millis":10,"factor":1,"max_delay":null,"take":3}"#, Jitter::Absent);
    let factor = r#"{"initial_millis":500,"base_factor":2.0,"max_delay":null,"take":3}"#;
    check(&TokioRetry2ExponentialFactor, factor, Jitter::Absent);
    check(&TokioRetry2Fibonacci, r#"{"millis":10,"factor":1,"max_delay":null,"take":3}"#, Jitter::Absent);
    check(&TokioRetry2Fixed, r#"{"interval":"0","take":3}"#, Jitter::Absent);
    check(&TokioRetry2Linear, r#"{"initial":"0","increment":null,"max_delay":null,"take":3}"#, Jitter::Absent);
    let retry = r#"{"strategy":{"fixed":{"interval":"0","take":3}},"notify":false,"retry_after":false}"#;
    check(&TokioRetry2Retry, retry, Jitter::Swarmed);
}

#[test]
fn tokio_timeout_loop() {
    check(
        &TokioTimeoutLoop,
        r#"{"max_attempts":1,"attempt_timeout":"1ms","delay":"0","deadline":null}"#,
        Jitter::Absent,
    );
}

/// Whether some of 4,000 sampled configs of `subject` has `field` at `Duration::MAX` (the boundary
/// vocabulary reaches a crate's `std::time::Duration` fields), and most have it at most an hour.
#[track_caller]
fn check_reaches_duration_max<S: ConfigDomain>(subject: &S, field: fn(&S::Config) -> Option<std::time::Duration>) {
    let fields: Vec<std::time::Duration> = (0..4000)
        .filter_map(|index| field(&subject.sample_config(&mut SplitMix64::new(mix(3, index)), &swarm_for(3, index))))
        .collect();
    let name = subject.name();
    assert!(fields.contains(&std::time::Duration::MAX), "{name}: Duration::MAX never drawn");
    let ordinary = fields.iter().filter(|d| **d <= std::time::Duration::from_secs(3600)).count();
    assert!(ordinary * 4 > fields.len() * 3, "{name}: only {ordinary} of {} values are ordinary", fields.len());
}

#[test]
fn std_duration_fields_reach_duration_max() {
    check_reaches_duration_max(&BackonExponential, |c| Some(c.min_delay));
    check_reaches_duration_max(&BackonExponential, |c| c.max_delay);
    check_reaches_duration_max(&BackonExponential, |c| c.total_delay);
    check_reaches_duration_max(&BackonFibonacci, |c| Some(c.min_delay));
    check_reaches_duration_max(&BackonConstant, |c| Some(c.delay));
    check_reaches_duration_max(&ExponentialBackoffSubject, |c| Some(c.min));
    check_reaches_duration_max(&ExponentialBackoffSubject, |c| c.max);
    check_reaches_duration_max(&TowerBackoff, |c| Some(c.min));
    check_reaches_duration_max(&TokioRetry2Fixed, |c| Some(c.interval));
    check_reaches_duration_max(&TokioRetry2Linear, |c| Some(c.initial));
    check_reaches_duration_max(&TokioRetry2Linear, |c| c.increment);
    check_reaches_duration_max(&TokioRetry2Exponential, |c| c.max_delay);
}

/// backon's `total_delay` shrinks like its other durations (it was only ever removed, so a finding that
/// needs a budget kept the one first drawn, 4,294,967,296 s, and its `min_delay` stopped wherever it
/// first fitted above it).
#[test]
fn backon_total_delay_shrinks_to_smaller_budgets() {
    use std::time::Duration;
    use timelaw_adapters::backon::BackonExponentialConfig;
    let config =
        BackonExponentialConfig { total_delay: Some(Duration::from_secs(4_294_967_296)), ..Default::default() };
    let budgets: Vec<Option<Duration>> =
        BackonExponential.shrink_config(&config).into_iter().map(|simpler| simpler.total_delay).collect();
    assert!(budgets.contains(&None), "{budgets:?}");
    for budget in [Duration::ZERO, Duration::from_nanos(1), Duration::from_secs(u64::from(u32::MAX))] {
        assert!(budgets.contains(&Some(budget)), "{budget:?} not offered: {budgets:?}");
    }
}

/// recloser's `open_wait` shrinks towards its default (the simplest): a longer one to a shorter one still
/// above it (the domain's overflow boundary first), a shorter one only to the default, so no two configs
/// offer each other (1 ns was offered from 30 s and 30 s from 1 ns: a cycle).
#[test]
fn recloser_open_wait_moves_towards_its_default() {
    use std::time::Duration;
    use timelaw_adapters::recloser::{RecloserConfig, RecloserSubject, OPEN_WAIT_DEFAULT, OPEN_WAIT_OVERFLOW};
    let distance = |wait: Duration| wait.abs_diff(OPEN_WAIT_DEFAULT);
    let past = OPEN_WAIT_OVERFLOW + Duration::from_secs(1);
    for open_wait in [Duration::from_nanos(1), Duration::from_secs(31), past, Duration::MAX] {
        let config = RecloserConfig { open_wait, ..Default::default() };
        let waits: Vec<Duration> =
            RecloserSubject.shrink_config(&config).into_iter().map(|simpler| simpler.open_wait).collect();
        assert!(waits.iter().all(|wait| *wait == open_wait || distance(*wait) < distance(open_wait)), "{waits:?}");
        if open_wait > past {
            assert!(waits.contains(&past), "{open_wait:?}: {waits:?}");
        }
    }
}

/// A retry limit (`max_times`, `take`, `max_retries`) moves only towards the domains' documented
/// simplest, three retries: every candidate is closer to three, and three is offered from every other
/// limit, so a finding that holds at three reaches it from above and from below.
#[test]
fn retry_limits_move_towards_three() {
    use timelaw_adapters::backon::BackonConstantConfig;
    use timelaw_adapters::tokio_retry2::FixedStrategy;
    use timelaw_adapters::tower::TowerBackoffConfig;
    let distance = |limit: Option<u32>| limit.map_or(u64::MAX, |limit| u64::from(limit.abs_diff(3)));
    for limit in [None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(40), Some(1000)] {
        let backon = BackonConstantConfig { max_times: limit, ..Default::default() };
        let backon: Vec<Option<u32>> =
            BackonConstant.shrink_config(&backon).into_iter().map(|simpler| simpler.max_times).collect();
        let fixed = FixedStrategy { interval: std::time::Duration::from_millis(5), take: limit };
        let fixed: Vec<Option<u32>> =
            TokioRetry2Fixed.shrink_config(&fixed).into_iter().map(|simpler| simpler.take).collect();
        let tower = TowerBackoffConfig { max_retries: limit.unwrap_or(3), ..Default::default() };
        let tower: Vec<Option<u32>> =
            TowerBackoff.shrink_config(&tower).into_iter().map(|simpler| Some(simpler.max_retries)).collect();
        for (name, limits, own) in
            [("backon", backon, limit), ("tokio-retry2", fixed, limit), ("tower", tower, limit.or(Some(3)))]
        {
            let moved: Vec<&Option<u32>> = limits.iter().filter(|&&other| other != own).collect();
            assert!(moved.iter().all(|&&other| distance(other) < distance(own)), "{name} {own:?}: {moved:?}");
            assert_eq!(moved.contains(&&Some(3)), own != Some(3), "{name} {own:?}: {moved:?}");
        }
    }
}

/// A builder or strategy of another kind offers the simplest kind with its first delay and retries
/// (backon: a fibonacci builder as the exponential one of factor 2 and either as a constant delay;
/// tokio-retry2: any strategy as a fixed interval), and the simplest kind offers no other: no cycle.
#[test]
fn a_backoff_of_another_kind_offers_the_simplest_kind() {
    use std::time::Duration;
    use timelaw_adapters::backon::{BackonBuilder, BackonFibonacciConfig, BackonRetryConfig};
    use timelaw_adapters::tokio_retry2::{
        FibonacciStrategy, FixedStrategy, LinearStrategy, Strategy, TokioRetry2RetryConfig,
    };
    let retry = |strategy| TokioRetry2RetryConfig {
        strategy,
        notify: false,
        retry_after: true,
        max_duration: None,
        jitter: true,
    };
    let fibonacci = BackonFibonacciConfig {
        jitter: true,
        min_delay: Duration::from_nanos(64),
        max_delay: Some(Duration::ZERO),
        max_times: Some(5),
    };
    let config = BackonRetryConfig { backoff: BackonBuilder::Fibonacci(fibonacci), notify: false };
    let kinds: Vec<BackonBuilder> =
        BackonRetry.shrink_config(&config).into_iter().map(|simpler| simpler.backoff).collect();
    let exponential = kinds.iter().find_map(|kind| match kind {
        BackonBuilder::Exponential(exponential) => Some(exponential.clone()),
        _ => None,
    });
    let exponential = exponential.expect("an exponential builder is offered");
    assert_eq!(
        (exponential.jitter, exponential.min_delay, exponential.max_delay, exponential.max_times, exponential.factor.0),
        (true, Duration::from_nanos(64), Some(Duration::ZERO), Some(5), 2.0)
    );
    let constant = kinds.iter().find_map(|kind| match kind {
        BackonBuilder::Constant(constant) => Some(constant.clone()),
        _ => None,
    });
    let constant = constant.expect("a constant builder is offered");
    assert_eq!((constant.jitter, constant.delay, constant.max_times), (true, Duration::from_nanos(64), Some(5)));
    let simplest = BackonRetryConfig { backoff: BackonBuilder::Constant(constant), notify: false };
    assert!(BackonRetry
        .shrink_config(&simplest)
        .iter()
        .all(|simpler| matches!(simpler.backoff, BackonBuilder::Constant(_))));

    let strategy = Strategy::Fibonacci(FibonacciStrategy { millis: 10, factor: 1, max_delay: None, take: Some(5) });
    let config = retry(strategy);
    let fixed: Vec<Strategy> = TokioRetry2Retry
        .shrink_config(&config)
        .into_iter()
        .map(|simpler| simpler.strategy)
        .filter(|strategy| matches!(strategy, Strategy::Fixed(_)))
        .collect();
    let expected = FixedStrategy { interval: Duration::from_millis(10), take: Some(5) };
    assert_eq!(fixed, [Strategy::Fixed(expected.clone())]);
    let simplest = retry(Strategy::Fixed(expected));
    assert!(TokioRetry2Retry
        .shrink_config(&simplest)
        .iter()
        .all(|simpler| matches!(simpler.strategy, Strategy::Fixed(_))));

    // A linear strategy's first delay is its `initial` as it is, past the contract's virtual durations
    // (about 584 years) too: an `Instant` overflow survives the move.
    let initial = Duration::from_secs(i64::MAX as u64) + Duration::from_millis(500);
    let linear = LinearStrategy { initial, increment: None, max_delay: None, take: Some(3) };
    let fixed: Vec<Strategy> = TokioRetry2Retry
        .shrink_config(&retry(Strategy::Linear(linear)))
        .into_iter()
        .map(|simpler| simpler.strategy)
        .collect();
    assert!(fixed.contains(&Strategy::Fixed(FixedStrategy { interval: initial, take: Some(3) })), "{fixed:?}");
}
