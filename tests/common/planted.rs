//! Planted bugs: small retry interpreters each with one deliberate defect, for the shrinker's table tests,
//! the shrink-quality benchmark and the checked-in planted-bug fixtures. Test code only: users never see
//! these subjects.
#![allow(dead_code)]

use timelaw::core::reference::{next_delay, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, CallResult, Contract, Declared, ErrorKind, Outcome, Subject, TieRule, World,
};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// Makes one attempt more than `max_attempts` (an off-by-one loop bound).
    ExtraAttempt,
    /// Forgets the cap on the delay.
    UncappedDelay,
    /// Retries fatal errors.
    RetriesFatal,
    /// Reports a timed-out attempt as success.
    TimeoutAsOk,
    /// Sleeps after the last attempt failed before returning.
    SleepsAfterLast,
    /// Lets an attempt that needs exactly the timeout complete (a `>` where `>=` belongs).
    TieNotExpired,
}

/// Every planted bug with the law it breaks.
pub const BUGS: [(Bug, &str); 6] = [
    (Bug::ExtraAttempt, "attempts_within_max"),
    (Bug::UncappedDelay, "delay_within_cap"),
    (Bug::RetriesFatal, "fatal_not_retried"),
    (Bug::TimeoutAsOk, "timeout_translated_to_err"),
    (Bug::SleepsAfterLast, "no_sleep_after_final_attempt"),
    (Bug::TieNotExpired, "timeout_boundary_is_expired"),
];

/// A retry interpreter with one planted defect; its config domain is the reference Policy's.
#[derive(Clone, Copy, Debug)]
pub struct Planted(pub Bug);

impl Planted {
    /// All planted subjects.
    pub fn all() -> Vec<Planted> {
        BUGS.iter().map(|(bug, _)| Planted(*bug)).collect()
    }
}

impl Subject for Planted {
    type Config = Policy;

    fn name(&self) -> &str {
        match self.0 {
            Bug::ExtraAttempt => "planted-extra-attempt",
            Bug::UncappedDelay => "planted-uncapped-delay",
            Bug::RetriesFatal => "planted-retries-fatal",
            Bug::TimeoutAsOk => "planted-timeout-as-ok",
            Bug::SleepsAfterLast => "planted-sleeps-after-last",
            Bug::TieNotExpired => "planted-tie-not-expired",
        }
    }

    /// The reference contract without the mechanisms this small loop does not implement.
    fn contract(&self, policy: &Policy) -> Contract {
        let mut promise = Reference.contract(policy);
        promise.retry.respects_idempotency = false;
        promise.delays.sleep_budget = None;
        promise.timing.deadline = None;
        promise.timing.honors_cancellation = false;
        promise.rate.honors_retry_after = false;
        promise.circuit = Declared::Absent;
        promise.budget = Declared::Absent;
        promise
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _call| self.call(policy, world))
    }
}

impl Planted {
    fn call(&self, policy: &Policy, world: &mut World<'_>) -> Result<CallResult, Abort> {
        let bug = self.0;
        let attempts = if bug == Bug::ExtraAttempt { policy.max_attempts + 1 } else { policy.max_attempts };
        let tie = if bug == Bug::TieNotExpired { TieRule::InnerWins } else { TieRule::Expired };
        let mut previous = None;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = match policy.attempt_timeout {
                Some(timeout) => world.dispatch_with_timeout(timeout, tie)?,
                None => world.dispatch()?,
            };
            let failure = match result {
                AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                AttemptResult::TimedOut if bug == Bug::TimeoutAsOk => return Ok(CallResult::Ok),
                AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient),
                AttemptResult::TimedOut => ErrorKind::Timeout,
                AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
            };
            let retryable = match failure {
                ErrorKind::Transient => policy.retry_on.transient,
                ErrorKind::RateLimited => policy.retry_on.rate_limited,
                ErrorKind::Timeout => policy.retry_on.timeout,
                ErrorKind::Fatal => bug == Bug::RetriesFatal,
                _ => false,
            };
            let last = attempt >= attempts || !retryable;
            if last && bug != Bug::SleepsAfterLast {
                return Ok(CallResult::Err(failure));
            }
            let mut delay = next_delay(policy, attempt, previous, world)?;
            if bug == Bug::UncappedDelay {
                delay = policy.backoff.shape().nth(attempt).unwrap_or(delay);
            }
            world.notify(delay)?;
            world.sleep(delay)?;
            if last {
                return Ok(CallResult::Err(failure));
            }
            previous = Some(delay);
        }
    }
}

timelaw::describe_like!(Planted => super::unrefined::Unrefined);
