//! Planted refusal bugs: a retry loop behind the reference's circuit breaker, with one deliberate defect
//! that refuses too much or interrupts in the wrong order. Test code only: users never see these subjects.
#![allow(dead_code)]

use timelaw::core::reference::{next_delay, Breaker, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, CallInfo, CallResult, Contract, Declared, ErrorKind, Outcome, Rejection, Subject, TieRule,
    VInstant, Wake, World,
};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalBug {
    /// The breaker rejects every call, even while closed.
    RejectsEverything,
    /// A cancelled probe never gives its half-open slot back.
    CancelledProbeKeepsSlot,
    /// Cancellation is checked before the deadline, while the contract says the deadline comes first.
    CancellationWinsTie,
}

/// Every planted refusal bug with the law it breaks.
pub const REFUSAL_BUGS: [(RefusalBug, &str); 3] = [
    (RefusalBug::RejectsEverything, "circuit_closed_admits"),
    (RefusalBug::CancelledProbeKeepsSlot, "circuit_probe_slot_freed"),
    (RefusalBug::CancellationWinsTie, "interrupt_tie_as_declared"),
];

/// A retry loop behind the reference breaker with one planted defect; configs are reference Policies.
#[derive(Clone, Copy, Debug)]
pub struct RefusalPlanted(pub RefusalBug);

impl RefusalPlanted {
    /// All planted refusal subjects.
    pub fn all() -> Vec<RefusalPlanted> {
        REFUSAL_BUGS.iter().map(|(bug, _)| RefusalPlanted(*bug)).collect()
    }
}

impl Subject for RefusalPlanted {
    type Config = Policy;

    fn name(&self) -> &str {
        match self.0 {
            RefusalBug::RejectsEverything => "planted-rejects-everything",
            RefusalBug::CancelledProbeKeepsSlot => "planted-cancelled-probe-keeps-slot",
            RefusalBug::CancellationWinsTie => "planted-cancellation-wins-tie",
        }
    }

    /// The reference contract without the mechanisms this loop does not implement.
    fn contract(&self, policy: &Policy) -> Contract {
        let mut promise = Reference.contract(policy);
        promise.retry.respects_idempotency = false;
        promise.delays.sleep_budget = None;
        promise.timing.retry_elapsed_max = None;
        promise.timing.clocks = None;
        promise.rate.honors_retry_after = false;
        promise.rate.retry_after = None;
        promise.budget = Declared::Absent;
        promise
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        let mut breaker = policy.circuit.map(Breaker::new);
        world.for_each_call(|world, call| self.call(policy, breaker.as_mut(), world, call))
    }
}

impl RefusalPlanted {
    fn call(
        &self,
        policy: &Policy,
        breaker: Option<&mut Breaker>,
        world: &mut World<'_>,
        call: CallInfo,
    ) -> Result<CallResult, Abort> {
        let Some(breaker) = breaker else { return self.retry_loop(policy, world, call) };
        if self.0 == RefusalBug::RejectsEverything || !breaker.admit(world)? {
            world.reject(Rejection::CircuitOpen)?;
            return Ok(CallResult::Err(ErrorKind::CircuitOpen));
        }
        let result = self.retry_loop(policy, world, call)?;
        let cancelled = result == CallResult::Err(ErrorKind::Cancelled);
        if !(cancelled && self.0 == RefusalBug::CancelledProbeKeepsSlot) {
            breaker.record(world, result)?;
        }
        Ok(result)
    }

    /// The interruption due now, in this subject's order.
    fn interrupted(&self, world: &World<'_>, deadline_at: Option<VInstant>) -> Option<ErrorKind> {
        let deadline = deadline_at.is_some_and(|at| world.now() >= at).then_some(ErrorKind::DeadlineExceeded);
        let cancelled = world.is_cancelled().then_some(ErrorKind::Cancelled);
        match self.0 {
            RefusalBug::CancellationWinsTie => cancelled.or(deadline),
            _ => deadline.or(cancelled),
        }
    }

    fn retry_loop(&self, policy: &Policy, world: &mut World<'_>, call: CallInfo) -> Result<CallResult, Abort> {
        let deadline_at = policy.deadline.map(|deadline| call.started.saturating_add(deadline));
        let (mut previous, mut attempt) = (None, 0);
        loop {
            if let Some(kind) = self.interrupted(world, deadline_at) {
                return Ok(CallResult::Err(kind));
            }
            attempt += 1;
            let left = deadline_at.map(|at| at.duration_since(world.now()));
            let limit = match (policy.attempt_timeout, left) {
                (Some(timeout), Some(left)) => Some(timeout.min(left)),
                (timeout, left) => timeout.or(left),
            };
            let result = match limit {
                Some(limit) => world.dispatch_with_timeout(limit, TieRule::Expired)?,
                None => world.dispatch()?,
            };
            let failure = match result {
                AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient),
                AttemptResult::TimedOut => ErrorKind::Timeout,
                AttemptResult::Cancelled => ErrorKind::Cancelled,
            };
            if let Some(kind) = self.interrupted(world, deadline_at) {
                return Ok(CallResult::Err(kind));
            }
            let retryable = match failure {
                ErrorKind::Transient => policy.retry_on.transient,
                ErrorKind::RateLimited => policy.retry_on.rate_limited,
                ErrorKind::Timeout => policy.retry_on.timeout,
                _ => false,
            };
            if !retryable || attempt >= policy.max_attempts || !call.idempotent {
                return Ok(CallResult::Err(failure));
            }
            let delay = next_delay(policy, attempt, previous, world)?;
            if deadline_at.is_some_and(|at| world.now().saturating_add(delay) >= at) {
                return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
            }
            world.notify(delay)?;
            if world.sleep(delay)? == Wake::Cancelled {
                let kind = self.interrupted(world, deadline_at).unwrap_or(ErrorKind::Cancelled);
                return Ok(CallResult::Err(kind));
            }
            previous = Some(delay);
        }
    }
}

timelaw::describe_like!(RefusalPlanted => Reference);
