//! `TokioWorld::attempt_within`: one attempt under its own timeout, as the call's result, and the retry
//! loop it makes with `CallResult::retryable_by_default`, served by `serve_calls`.

use std::time::Duration;

use timelaw_core::{execute, Abort, CallResult, Contract, ErrorKind, EventKind, Outcome, Schedule, Step, Subject};
use timelaw_core::{VDuration, World};
use timelaw_tokio::serve_calls;

/// Up to `attempts_max` attempts per call, each cut after 50 ms, retried while the result is retryable by
/// default, 10 ms apart.
struct Loop;

impl Subject for Loop {
    type Config = u32;
    fn name(&self) -> &str {
        "attempt-within-loop"
    }
    fn contract(&self, _: &u32) -> Contract {
        Contract::default()
    }
    fn run(&self, &attempts_max: &u32, world: &mut World<'_>) -> Result<(), Abort> {
        serve_calls(world, |w, _call| async move {
            let mut attempt = 1;
            loop {
                let result = w.attempt_within(Duration::from_millis(50)).await?;
                if !result.retryable_by_default() || attempt >= attempts_max {
                    return Ok(result);
                }
                w.sleep(Duration::from_millis(10)).await;
                attempt += 1;
            }
        })
    }
}

/// The call's result and the instant it returned (in ms), for one call of `steps`.
#[track_caller]
fn check(attempts_max: u32, steps: &[(u64, Outcome)], expect: (CallResult, u64)) {
    let steps = steps.iter().map(|&(ms, outcome)| Step::new(VDuration::from_millis(ms), outcome)).collect();
    let trace = execute(&Loop, &attempts_max, &Schedule::single(steps), 0);
    let end = trace.events.last().copied().expect("the call ended");
    let EventKind::CallEnd { result } = end.kind else { panic!("the last event is {end:?}") };
    assert_eq!((result, end.at.as_nanos()), (expect.0, expect.1 * 1_000_000), "{:?}", trace.events);
}

#[test]
fn one_attempt_gives_its_own_result_or_a_timeout() {
    use ErrorKind::*;
    check(1, &[(49, Outcome::Transient)], (CallResult::Err(Transient), 49));
    check(1, &[(50, Outcome::Ok)], (CallResult::Ok, 50)); // a tie goes to the attempt (tokio polls it first)
    check(1, &[(51, Outcome::Ok)], (CallResult::Err(Timeout), 50));
    check(1, &[(0, Outcome::Hang)], (CallResult::Err(Timeout), 50));
    check(1, &[(3, Outcome::Fatal)], (CallResult::Err(Fatal), 3));
    check(1, &[(3, Outcome::RateLimited { retry_after: VDuration::ZERO })], (CallResult::Err(RateLimited), 3));
}

#[test]
fn the_default_classifier_retries_transient_rate_limited_and_timed_out_attempts_only() {
    use ErrorKind::*;
    let limited = Outcome::RateLimited { retry_after: VDuration::ZERO };
    check(3, &[(5, Outcome::Transient), (5, Outcome::Ok)], (CallResult::Ok, 20));
    check(3, &[(60, Outcome::Ok), (5, limited), (1, Outcome::Ok)], (CallResult::Ok, 50 + 10 + 5 + 10 + 1));
    check(3, &[(5, Outcome::Fatal), (5, Outcome::Ok)], (CallResult::Err(Fatal), 5));
    check(2, &[(5, Outcome::Transient), (5, Outcome::Transient), (5, Outcome::Ok)], (CallResult::Err(Transient), 20));
}
