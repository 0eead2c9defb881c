//! The reference interpreter implements every retry-after policy its contract can state: the sleeps of
//! one call, on the sequential and the concurrent path alike, and the policies `Policy::validate` refuses.

use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{
    execute, AboveCap, BulkheadContract, CallResult, ErrorKind, EventKind, Outcome, RetryAfterCombine,
    RetryAfterPolicy, Schedule, Step, Subject, VDuration,
};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// Five attempts, exponential from 10ms doubling, capped at 100ms, honouring retry-after by `policy`.
fn honoring(combine: RetryAfterCombine, above_cap: AboveCap) -> Policy {
    Policy {
        honor_retry_after: true,
        retry_after_policy: Some(RetryAfterPolicy { combine, above_cap }),
        ..Policy::new(5, Backoff::Exponential { initial: ms(10), factor: 2 }, ms(100))
    }
}

/// `T` is a transient failure, a number a rate limit asking for that many ms.
#[derive(Clone, Copy)]
enum S {
    T,
    R(u64),
}

fn schedule(steps: &[S]) -> Schedule {
    let steps = steps.iter().map(|step| match *step {
        S::T => Step::instant(Outcome::Transient),
        S::R(millis) => Step::instant(Outcome::RateLimited { retry_after: ms(millis) }),
    });
    Schedule::single(steps.collect())
}

/// The sleeps (ms) and result of one call, on the sequential path and, with a bulkhead that never
/// refuses, on the concurrent one.
#[track_caller]
fn check(policy: Policy, steps: &[S], sleeps_ms: &[u64], result: CallResult) {
    let loaded = Policy { bulkhead: Some(BulkheadContract::new(8, 0)), ..policy.clone() };
    for policy in [policy, loaded] {
        let trace = execute(&Reference, &policy, &schedule(steps), 0);
        let sleeps: Vec<u64> = trace
            .events
            .iter()
            .filter_map(|event| match event.kind {
                EventKind::SleepRequested { duration } => Some(duration.as_nanos() / 1_000_000),
                _ => None,
            })
            .collect();
        let ended = trace.events.iter().find_map(|event| match event.kind {
            EventKind::CallEnd { result } => Some(result),
            _ => None,
        });
        assert_eq!((sleeps.as_slice(), ended), (sleeps_ms, Some(result)), "{policy:?}");
    }
}

#[test]
fn every_retry_after_policy_sleeps_as_documented() {
    use AboveCap::*;
    use RetryAfterCombine::*;
    use S::*;
    let ok = CallResult::Ok;
    let rate_limited = CallResult::Err(ErrorKind::RateLimited);
    // The longer of the backoff and the retry-after; the backoff advances.
    check(honoring(MaxWithBackoff, GiveUp), &[R(5), T], &[10, 20], ok);
    check(honoring(MaxWithBackoff, GiveUp), &[R(50), T], &[50, 20], ok);
    check(honoring(MaxWithBackoff, GiveUp), &[T, R(500)], &[10], rate_limited);
    check(honoring(MaxWithBackoff, Clamp), &[T, R(500), T], &[10, 100, 40], ok);
    check(honoring(MaxWithBackoff, SleepAnyway), &[T, R(500), T], &[10, 500, 40], ok);
    // The retry-after instead of the backoff, which does not advance.
    check(honoring(ReplacesBackoff, GiveUp), &[R(5), T], &[5, 10], ok);
    check(honoring(ReplacesBackoff, GiveUp), &[T, R(50), R(7), T], &[10, 50, 7, 20], ok);
    check(honoring(ReplacesBackoff, GiveUp), &[R(500)], &[], rate_limited);
    check(honoring(ReplacesBackoff, Clamp), &[R(500), T], &[100, 10], ok);
    check(honoring(ReplacesBackoff, SleepAnyway), &[R(500), T, T], &[500, 10, 20], ok);
    // At the cap exactly is not above it.
    check(honoring(ReplacesBackoff, GiveUp), &[R(100)], &[100], ok);
    // Not honoured: the ordinary schedule.
    let ignoring = Policy { honor_retry_after: false, retry_after_policy: None, ..honoring(MaxWithBackoff, GiveUp) };
    check(ignoring, &[R(500), T], &[10, 20], ok);
}

#[test]
fn decorrelated_backoff_grows_from_the_last_backoff_delay() {
    // Decorrelated from 10ms under a 1s cap: each delay lies in 10ms..=3 * previous; a replaced 900ms
    // delay does not let the next one grow to 2.7s's bound (capped, so it would reach 1s).
    let policy = Policy {
        honor_retry_after: true,
        retry_after_policy: Some(RetryAfterPolicy {
            combine: RetryAfterCombine::ReplacesBackoff,
            above_cap: AboveCap::GiveUp,
        }),
        jitter: Jitter::None,
        ..Policy::new(4, Backoff::Decorrelated { initial: ms(10) }, ms(1000))
    };
    for seed in 0..64 {
        let trace = execute(&Reference, &policy, &schedule(&[S::R(900), S::T]), seed);
        let sleeps: Vec<VDuration> = trace
            .events
            .iter()
            .filter_map(|event| match event.kind {
                EventKind::SleepRequested { duration } => Some(duration),
                _ => None,
            })
            .collect();
        assert_eq!(sleeps[0], ms(900));
        assert!((ms(10)..=ms(30)).contains(&sleeps[1]), "seed {seed}: {sleeps:?}");
    }
}

#[test]
fn the_contract_states_the_policy_and_validation_refuses_what_it_cannot_honour() {
    let policy = honoring(RetryAfterCombine::ReplacesBackoff, AboveCap::SleepAnyway);
    let stated = Reference.contract(&policy).rate;
    assert!(stated.honors_retry_after);
    assert_eq!(stated.retry_after, policy.retry_after_policy);
    let default = Policy { retry_after_policy: None, ..policy.clone() };
    let longer = RetryAfterPolicy { combine: RetryAfterCombine::MaxWithBackoff, above_cap: AboveCap::GiveUp };
    assert_eq!(Reference.contract(&default).rate.retry_after, Some(longer));
    let unhonoured = Policy { honor_retry_after: false, ..policy.clone() };
    assert_eq!(unhonoured.validate().map_err(|error| error.field), Err("retry_after_policy"));
    let ignored = honoring(RetryAfterCombine::Ignored, AboveCap::GiveUp);
    assert_eq!(ignored.validate().map_err(|error| error.field), Err("retry_after_policy.combine"));
    // Written only when set, and read back.
    let json = serde_json::to_string(&policy).unwrap();
    assert!(json.contains("\"retry_after_policy\""), "{json}");
    assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), policy);
    assert!(!serde_json::to_string(&default).unwrap().contains("retry_after_policy"));
}
