//! tokio-retry2's `max_duration` on virtual std clocks: the limit reads `std::time::Instant::now()`
//! itself, and the subject runs with std's clocks on the World's, so it is checked in virtual time.

mod support;

use std::time::Duration;

use timelaw_adapters::tokio_retry2::{FixedStrategy, Strategy, TokioRetry2Retry, TokioRetry2RetryConfig};
use timelaw_core::{execute, Case, EventKind, Outcome, Schedule, Step};
use timelaw_laws::Verdict;

/// A fixed 10 ms strategy of up to 9 retries, under `max_duration`.
fn config(max_duration: Option<Duration>) -> TokioRetry2RetryConfig {
    let strategy = Strategy::Fixed(FixedStrategy { interval: Duration::from_millis(10), take: Some(9) });
    TokioRetry2RetryConfig { strategy, notify: false, retry_after: false, max_duration, jitter: false }
}

/// Ten instant transient failures.
fn failing() -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); 10])
}

/// The instants, in ms, at which the call's attempts start.
fn attempt_starts_ms(config: &TokioRetry2RetryConfig) -> Vec<u64> {
    let trace = execute(&TokioRetry2Retry, config, &failing(), 0);
    let starts = trace.events.iter().filter(|event| event.kind == EventKind::AttemptStart);
    starts.map(|event| event.at.as_nanos() / 1_000_000).collect()
}

#[test]
fn the_limit_is_read_in_virtual_time() {
    // Without the limit: ten attempts, 10 ms apart.
    assert_eq!(attempt_starts_ms(&config(None)), [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    // With 25 ms: the strategy still answers at 20 ms (20 ms elapsed, not past 25), so a retry starts at
    // 30 ms; at 30 ms the limit has passed and it stops. Real time never decides it: the same every run.
    let limited = config(Some(Duration::from_millis(25)));
    assert_eq!(attempt_starts_ms(&limited), [0, 10, 20, 30]);
    assert_eq!(attempt_starts_ms(&limited), [0, 10, 20, 30]);
}

#[test]
fn a_retry_starts_after_max_duration() {
    let law = "no_retry_after_elapsed_limit";
    let judge = |max_ms: u64| {
        let case = Case::new(config(Some(Duration::from_millis(max_ms))), failing(), 0);
        support::judge(&TokioRetry2Retry, &case, law)
    };
    // 95 ms: the nine retries run out (the last at 90 ms) before the limit.
    assert!(matches!(judge(95), Verdict::Holds), "{}", judge(95));
    // 25 ms: the strategy answers at 20 ms and the retry starts at 30 ms, 5 ms past the limit. 30 ms: a
    // failure exactly at the limit is not "passed" (`elapsed > max_duration`), so one more retry starts
    // at 40 ms.
    for max_ms in [25, 30] {
        let verdict = judge(max_ms);
        assert!(matches!(verdict, Verdict::Violated(_)), "{max_ms} ms: {verdict}");
    }
}
