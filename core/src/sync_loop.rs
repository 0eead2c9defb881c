//! The retry loop the backoff crates' documentation shows, run synchronously through the World: the
//! crate decides the delays, the loop dispatches, classifies and sleeps.
//!
//! # What the loop does (and promises)
//! - Every call gets a fresh backoff (a crate's builder is built once per call).
//! - Transient and rate-limited failures are retried while the backoff yields a delay; a fatal failure,
//!   a non-idempotent call's failure, or an exhausted backoff returns the last attempt's error.
//! - Retry-after answers are not honoured (the crates' iterators know nothing of them).
//! - Cancellation is checked before every attempt and every sleep; a cut attempt or sleep ends the call
//!   with `Err(Cancelled)`.
//!
//! [`loop_contract`] states these promises; each subject adds what its crate promises about delays. The
//! laws that judge these promises judge this loop, not the crate: [`LOOP_LAWS`] names them, and the
//! subjects declare them so reports mark them.
//!
//! # For your own synchronous subject
//! A backoff iterator (anything yielding `Option<Duration>` per retry) needs only [`serve_calls`]:
//!
//! ```
//! use std::time::Duration;
//! use timelaw_core::sync_loop::{loop_contract, serve_calls};
//! use timelaw_core::{execute, Abort, Contract, EventKind, Outcome, Schedule, Step, Subject, World};
//!
//! /// Two retries, 10 ms then 20 ms apart.
//! struct TwoRetries;
//! impl Subject for TwoRetries {
//!     type Config = ();
//!     fn name(&self) -> &str { "two-retries" }
//!     fn contract(&self, _: &()) -> Contract { loop_contract() }
//!     fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
//!         serve_calls(world, |_| Ok([Duration::from_millis(10), Duration::from_millis(20)].into_iter()))
//!     }
//! }
//! let schedule = Schedule::single(vec![Step::instant(Outcome::Transient); 5]);
//! let trace = execute(&TwoRetries, &(), &schedule, 0);
//! let sleeps = trace.events.iter().filter(|e| matches!(e.kind, EventKind::SleepRequested { .. })).count();
//! assert_eq!(sleeps, 2);
//! ```

use std::time::Duration;

use crate::{
    Abort, AttemptResult, CallInfo, CallResult, Contract, ErrorKind, Outcome, RetryContract, RetryOn, TimingContract,
    Wake, World,
};

/// The laws that judge this loop rather than the crate behind it: whether a success ends the call, a
/// fatal error or a non-idempotent call stops retrying, exhausted retries return the last error, the
/// call returns its last attempt's result, cancellation stops the work, a timeout does not end the stream
/// and no sleep follows the final attempt are all decided here (the crate only yields delays, or `None`
/// to give up). The subjects run through this loop declare them ([`crate::Subject::harness_laws`])
/// and reports mark them; a violation of one is a bug of this loop, not of the crate.
pub const LOOP_LAWS: &[&str] = &[
    "no_sleep_after_final_attempt",
    "success_ends_call",
    "fatal_not_retried",
    "result_matches_last_attempt",
    "exhausted_retries_return_err",
    "non_idempotent_not_retried",
    "cancellation_stops_work",
    "timeout_does_not_end_stream",
];

/// What the loop itself promises, whatever the backoff: see the module docs.
pub fn loop_contract() -> Contract {
    contract_for(Contract::default())
}

/// What the loop promises around a policy that promises `policy` (attempts, delays: a shape of
/// [`Contract::exponential`] and its siblings, say): the loop's promises ([`loop_contract`]) replace
/// those fields of `policy`, every other field is kept.
///
/// ```
/// use timelaw_core::sync_loop::{contract_for, loop_contract};
/// use timelaw_core::{Contract, VDuration};
///
/// let policy = Contract::constant(3, VDuration::from_millis(10));
/// let contract = contract_for(policy);
/// assert_eq!(contract.retry.max_attempts, Some(3)); // the policy's
/// assert_eq!(contract.retry.retry_on, loop_contract().retry.retry_on); // the loop's
/// ```
pub fn contract_for(policy: Contract) -> Contract {
    Contract {
        retry: RetryContract {
            retry_on: Some(RetryOn { transient: true, rate_limited: true, timeout: true }),
            reports_last_result: true,
            respects_idempotency: true,
            ..policy.retry
        },
        timing: TimingContract { honors_cancellation: true, serves_stream: true, ..policy.timing },
        ..policy
    }
}

/// `true` for the outcomes the loop retries.
pub fn retryable(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Transient | Outcome::RateLimited { .. })
}

/// Serves every call: `backoff` builds the call's delays (`Iterator<Item = Duration>`, the protocol of
/// backon's `Backoff` and tokio-retry2's strategies: `Some(delay)` means sleep and retry, `None` means
/// give up).
///
/// # Errors
/// The World's abort.
pub fn serve_calls<I>(
    world: &mut World<'_>,
    mut backoff: impl FnMut(&mut World<'_>) -> Result<I, Abort>,
) -> Result<(), Abort>
where
    I: Iterator<Item = Duration>,
{
    world.for_each_call(|world, call| {
        let mut delays = backoff(world)?;
        retry_call(world, call, || Ok(delays.next()))
    })
}

/// One call: attempt, and after a retryable failure ask `next_delay` for the delay before the retry.
///
/// # Errors
/// The World's abort, or `next_delay`'s.
pub fn retry_call(
    world: &mut World<'_>,
    call: CallInfo,
    mut next_delay: impl FnMut() -> Result<Option<Duration>, Abort>,
) -> Result<CallResult, Abort> {
    loop {
        let outcome = match attempt(world)? {
            Ok(outcome) => outcome,
            Err(result) => return Ok(result),
        };
        if !retryable(outcome) || !call.idempotent {
            return Ok(CallResult::from_outcome(outcome));
        }
        let Some(delay) = next_delay()? else {
            return Ok(CallResult::from_outcome(outcome));
        };
        if let Some(result) = sleep(world, delay)? {
            return Ok(result);
        }
    }
}

/// Dispatches one attempt unless the call is cancelled: `Ok(outcome)` when it completed, `Err(result)`
/// when the call must return `result` now.
///
/// # Errors
/// The World's abort.
pub fn attempt(world: &mut World<'_>) -> Result<Result<Outcome, CallResult>, Abort> {
    if world.is_cancelled() {
        return Ok(Err(CallResult::Err(ErrorKind::Cancelled)));
    }
    Ok(match world.dispatch()? {
        AttemptResult::Completed(outcome) => Ok(outcome),
        AttemptResult::TimedOut => Err(CallResult::Err(ErrorKind::Timeout)),
        AttemptResult::Cancelled => Err(CallResult::Err(ErrorKind::Cancelled)),
    })
}

/// Sleeps `delay` unless the call is cancelled: `Some(result)` when the call must return `result` now.
///
/// # Errors
/// The World's abort.
pub fn sleep(world: &mut World<'_>, delay: Duration) -> Result<Option<CallResult>, Abort> {
    let cancelled = Some(CallResult::Err(ErrorKind::Cancelled));
    if world.is_cancelled() {
        return Ok(cancelled);
    }
    // Up to `Duration::MAX`: a delay past `VDuration::MAX` is recorded as clamped (`World::sleep_std`).
    Ok(match world.sleep_std(delay)? {
        Wake::Elapsed => None,
        Wake::Cancelled => cancelled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VDuration;

    #[track_caller]
    fn check(policy: Contract) {
        let contract = contract_for(policy);
        let loop_fields = |c: Contract| {
            (
                c.retry.retry_on,
                c.retry.reports_last_result,
                c.retry.respects_idempotency,
                c.timing.honors_cancellation,
                c.timing.serves_stream,
            )
        };
        assert_eq!(loop_fields(contract), loop_fields(loop_contract()), "the loop's promises");
        let policy_fields = |c: Contract| {
            (c.retry.max_attempts, c.delays.min, c.delays.max, c.delays.backoff, c.delays.jitter, c.timing.deadline)
        };
        assert_eq!(policy_fields(contract), policy_fields(policy), "the policy's promises");
    }

    #[test]
    fn contract_for_adds_the_loop_to_the_policy() {
        let ms = VDuration::from_millis;
        check(Contract::default());
        check(Contract::exponential(4, ms(10), 2000, ms(50)));
        check(Contract::constant(1, VDuration::ZERO));
        check({
            let mut promise = Contract::fibonacci(9, ms(1), ms(8));
            promise.retry.respects_idempotency = false;
            promise.timing.deadline = Some(ms(7));
            promise
        });
        assert_eq!(contract_for(Contract::default()), loop_contract());
    }
}
