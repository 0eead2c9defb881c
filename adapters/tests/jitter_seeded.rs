//! tokio-retry2's `jitter` on seeded std randomness: it draws from `rand`'s thread RNG, which the subject's
//! seeded std randomness seeds from the case's seed on the case's own thread.

mod support;

use std::time::Duration;

use timelaw_adapters::tokio_retry2::{FixedStrategy, Strategy, TokioRetry2Retry, TokioRetry2RetryConfig};
use timelaw_core::{EventKind, Outcome, Schedule, Step, VDuration};

fn jittered() -> TokioRetry2RetryConfig {
    let strategy = Strategy::Fixed(FixedStrategy { interval: Duration::from_millis(100), take: Some(5) });
    TokioRetry2RetryConfig { strategy, notify: false, retry_after: false, max_duration: None, jitter: true }
}

/// The sleeps of a call failing six times, with the case's `seed`, run as the facade runs it.
fn sleeps(seed: u64) -> Vec<VDuration> {
    let schedule = Schedule::single(vec![Step::instant(Outcome::Transient); 6]);
    let trace = support::execute(&TokioRetry2Retry, &jittered(), &schedule, seed);
    let slept = trace.events.iter().filter_map(|event| match event.kind {
        EventKind::SleepRequested { duration } => Some(duration),
        _ => None,
    });
    slept.collect()
}

#[test]
fn jitter_replays_from_the_cases_seed() {
    let first = sleeps(3);
    assert_eq!(first.len(), 5);
    let within = |sleep: &VDuration| (VDuration::from_millis(50)..VDuration::from_millis(150)).contains(sleep);
    assert!(first.iter().all(within), "`0.5..1.5` times 100 ms: {first:?}");
    assert!(first.iter().any(|sleep| *sleep != VDuration::from_millis(100)), "jittered: {first:?}");
    assert_eq!(first, sleeps(3), "the same seed, the same jitter");
    assert_ne!(first, sleeps(4), "another seed, another jitter");
}
