//! The whole standard catalogue against every adapter: each one samples [`CASES`] cases of one fixed
//! run (`sample_case` + `swarm_for`), judges every law on each, and must violate exactly the laws of its
//! findings (docs/findings.md; the minimal cases are in `findings.rs`).

mod support;

use timelaw_adapters::backon::{BackonConstant, BackonExponential, BackonFibonacci, BackonRetry};
use timelaw_adapters::exponential_backoff::ExponentialBackoffSubject;
use timelaw_adapters::tokio_retry2::{
    TokioRetry2Exponential, TokioRetry2ExponentialFactor, TokioRetry2Fibonacci, TokioRetry2Fixed, TokioRetry2Linear,
    TokioRetry2Retry,
};
use timelaw_adapters::tokio_timeout_loop::TokioTimeoutLoop;
use timelaw_adapters::tower::{TowerBackoff, TowerBudget};
use timelaw_generators::ConfigDomain;

const RUN_SEED: u64 = 0x7131_E1A3;
const CASES: u64 = 20_000;

/// The laws `subject` violates over the run, smallest case first for any surprise.
#[track_caller]
fn check<S: ConfigDomain>(subject: &S, expect: &[&str]) {
    let found = support::survey(subject, RUN_SEED, CASES);
    let violated: Vec<&str> = found.keys().copied().collect();
    if violated != expect {
        for (law, found) in &found {
            let case = serde_json::to_string(&found.case).unwrap_or_default();
            eprintln!("{} {law} x{}: {}\n  {case}", subject.name(), found.count, found.message);
        }
    }
    assert_eq!(violated, expect, "{}", subject.name());
}

const CAP: [&str; 3] = ["backoff_shape_without_jitter", "delay_within_cap", "jitter_within_bounds"];

#[test]
fn backon() {
    std::panic::set_hook(Box::new(|_| {})); // Panicking subjects are findings, not noise.
    let [shape, cap, jitter] = CAP;
    // The cap finding seen through the sleep budget: `total_delay` is checked against the uncapped
    // first delay, so the call gives up although the capped delay fits.
    let budget = "time_limit_does_not_stop_retries_early";
    check(&BackonExponential, &[shape, cap, jitter, "never_panics", budget]);
    check(&BackonFibonacci, &[shape, cap, jitter, "never_panics"]);
    check(&BackonConstant, &["never_panics"]);
    // The same cap finding seen through the retry-after laws (the `Retry` driver states `Ignored`).
    let retry_after = ["rate_limited_retried_below_cap", "retry_after_as_declared"];
    check(&BackonRetry, &[shape, cap, jitter, "never_panics", retry_after[0], retry_after[1], budget]);
}

#[test]
fn tower() {
    std::panic::set_hook(Box::new(|_| {}));
    check(&TowerBackoff, &["backoff_shape_without_jitter", "jitter_within_bounds", "never_panics"]);
    check(&TowerBudget, &["retry_budget_respected"]);
}

#[test]
fn exponential_backoff() {
    std::panic::set_hook(Box::new(|_| {}));
    check(&ExponentialBackoffSubject, &["backoff_shape_without_jitter", "jitter_within_bounds", "never_panics"]);
}

#[test]
fn tokio_retry2() {
    check(&TokioRetry2Exponential, &[]);
    check(&TokioRetry2ExponentialFactor, &[]);
    check(&TokioRetry2Fibonacci, &[]);
    check(&TokioRetry2Fixed, &[]);
    check(&TokioRetry2Linear, &[]);
    std::panic::set_hook(Box::new(|_| {}));
    let retry = [
        "backoff_shape_without_jitter",
        // The retry-after is not slept: with `jitter`, the jittered delay lies outside the retry-after's.
        "jitter_within_bounds",
        "never_panics",
        // `max_duration` is checked before the delay is slept (docs/findings.md).
        "no_retry_after_elapsed_limit",
        "notify_matches_sleep",
        "retry_after_as_declared",
        "retry_after_honored",
    ];
    check(&TokioRetry2Retry, &retry);
}

#[test]
fn tokio_timeout_loop() {
    check(&TokioTimeoutLoop, &[]);
}
