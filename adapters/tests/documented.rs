//! The examples of each crate's own documentation, replayed through its subject: the sleeps are the
//! documented ones, and the laws the contract enables hold on them.

mod support;

use timelaw_adapters::backon::{
    BackonConstant, BackonConstantConfig, BackonExponential, BackonExponentialConfig, BackonFibonacci,
    BackonFibonacciConfig,
};
use timelaw_adapters::exponential_backoff::{ExponentialBackoffConfig, ExponentialBackoffSubject};
use timelaw_adapters::tokio_retry2::{
    ExponentialFactorStrategy, ExponentialStrategy, FibonacciStrategy, FixedStrategy, LinearStrategy,
    TokioRetry2Exponential, TokioRetry2ExponentialFactor, TokioRetry2Fibonacci, TokioRetry2Fixed, TokioRetry2Linear,
};
use timelaw_adapters::tower::{TowerBackoff, TowerBackoffConfig};
use timelaw_adapters::F64;
use timelaw_core::{execute, Case, EventKind, Outcome, Schedule, Step, Subject, VDuration};

/// After `failures` transient failures, `subject` sleeps exactly `sleeps_ms` and makes `attempts`
/// attempts; the attempt and shape laws hold.
#[track_caller]
fn check<S: Subject>(subject: &S, config: S::Config, failures: usize, sleeps_ms: &[u64], attempts: u32) {
    let schedule = Schedule::single(vec![Step::instant(Outcome::Transient); failures]);
    let trace = execute(subject, &config, &schedule, 0);
    let sleeps: Vec<VDuration> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            EventKind::SleepRequested { duration } => Some(duration),
            _ => None,
        })
        .collect();
    let expected: Vec<VDuration> = sleeps_ms.iter().map(|&ms| VDuration::from_millis(ms)).collect();
    assert_eq!(sleeps, expected, "{}", subject.name());
    let made = trace.events.iter().filter(|event| event.kind == EventKind::AttemptStart).count();
    assert_eq!(made, attempts as usize, "{}", subject.name());
    let case = Case::new(config, schedule, 0);
    for law in ["attempts_within_max", "backoff_shape_without_jitter", "delay_within_cap", "never_panics"] {
        let verdict = support::judge(subject, &case, law);
        assert!(!verdict.is_violated(), "{} {law}: {verdict}", subject.name());
    }
}

#[test]
fn backon_defaults() {
    // "test_exponential_default": 1 s, 2 s, 4 s, then None.
    check(&BackonExponential, BackonExponentialConfig::default(), 9, &[1000, 2000, 4000], 4);
    // "test_fibonacci_default": 1 s, 1 s, 2 s.
    check(&BackonFibonacci, BackonFibonacciConfig::default(), 9, &[1000, 1000, 2000], 4);
    check(&BackonConstant, BackonConstantConfig::default(), 9, &[1000, 1000, 1000], 4);
}

#[test]
fn tower_exponential_backoff_without_jitter() {
    let config = TowerBackoffConfig { jitter: F64(0.0), ..TowerBackoffConfig::default() };
    check(&TowerBackoff, config, 9, &[50, 100, 200], 4);
}

#[test]
fn exponential_backoff_readme() {
    // `Backoff::new(3, 100 ms, 10 s)`: three attempts, two sleeps (jitter off for exact values).
    let config = ExponentialBackoffConfig { jitter_milli: 0, ..ExponentialBackoffConfig::default() };
    check(&ExponentialBackoffSubject, config, 9, &[100, 200], 3);
}

#[test]
fn tokio_retry2_tables() {
    let take = Some(3);
    // "returns_some_exponential_base_10": 10, 100, 1000 ms.
    let exponential = ExponentialStrategy { base_millis: 10, factor: 1, max_delay: None, take };
    check(&TokioRetry2Exponential, exponential, 9, &[10, 100, 1000], 4);
    // The README's table: 500, 1000, 2000 ms for a factor of 2.
    let factor = ExponentialFactorStrategy { initial_millis: 500, base_factor: F64(2.0), max_delay: None, take };
    check(&TokioRetry2ExponentialFactor, factor, 9, &[500, 1000, 2000], 4);
    // "500ms, 500ms, 1000ms, 1500ms".
    let fibonacci = FibonacciStrategy { millis: 500, factor: 1, max_delay: None, take: Some(4) };
    check(&TokioRetry2Fibonacci, fibonacci, 9, &[500, 500, 1000, 1500], 5);
    let fixed = FixedStrategy { interval: VDuration::from_millis(500).to_std(), take };
    check(&TokioRetry2Fixed, fixed, 9, &[500, 500, 500], 4);
    // "Start at 100ms, increase by 200ms each retry": 100, 300, 500 ms.
    let linear = LinearStrategy {
        initial: VDuration::from_millis(100).to_std(),
        increment: Some(VDuration::from_millis(200).to_std()),
        max_delay: None,
        take,
    };
    check(&TokioRetry2Linear, linear, 9, &[100, 300, 500], 4);
    // "stops_increasing_at_max_delay": 2, 4, 4 ms.
    let capped =
        ExponentialStrategy { base_millis: 2, factor: 1, max_delay: Some(VDuration::from_millis(4).to_std()), take };
    check(&TokioRetry2Exponential, capped, 9, &[2, 4, 4], 4);
}
