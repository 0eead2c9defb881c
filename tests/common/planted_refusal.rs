//! Planted refusal bugs: a retry loop behind the reference's circuit breaker, with one deliberate defect
//! that refuses too much, interrupts in the wrong order, or advances a backoff a retry-after replaced.
//! Test code only: users never see these subjects.
#![allow(dead_code)]

use timelaw::core::reference::{next_delay, Breaker, Policy, Reference};
use timelaw::core::{
    Abort, AboveCap, AttemptResult, CallInfo, CallResult, Contract, Declared, ErrorKind, Outcome, Rejection,
    RetryAfterCombine, RetryAfterPolicy, Subject, TieRule, VDuration, VInstant, Wake, World,
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
    /// The deadline does not cut an attempt; once the cancellation has cut it too, the later of the two
    /// interruptions is returned.
    LaterInterruptionWins,
    /// A retry-after replaces the delay, as the contract says, but the backoff advances anyway.
    AdvancesReplacedBackoff,
}

/// Every planted refusal bug with the law it breaks.
pub const REFUSAL_BUGS: [(RefusalBug, &str); 5] = [
    (RefusalBug::RejectsEverything, "circuit_closed_admits"),
    (RefusalBug::CancelledProbeKeepsSlot, "circuit_probe_slot_freed"),
    (RefusalBug::CancellationWinsTie, "interrupt_tie_as_declared"),
    (RefusalBug::LaterInterruptionWins, "interrupt_tie_as_declared"),
    (RefusalBug::AdvancesReplacedBackoff, "retry_after_as_declared"),
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
            RefusalBug::LaterInterruptionWins => "planted-later-interruption-wins",
            RefusalBug::AdvancesReplacedBackoff => "planted-advances-replaced-backoff",
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
        if self.0 == RefusalBug::AdvancesReplacedBackoff {
            promise.rate.honors_retry_after = true;
            let replaces =
                RetryAfterPolicy { combine: RetryAfterCombine::ReplacesBackoff, above_cap: AboveCap::GiveUp };
            promise.rate.retry_after = Some(replaces);
        }
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
        match (self.0, deadline_at, world.cancel_at()) {
            (RefusalBug::CancellationWinsTie, _, _) => cancelled.or(deadline),
            (RefusalBug::LaterInterruptionWins, Some(deadline_at), Some(cancel_at)) if cancel_at > deadline_at => {
                cancelled.or(deadline)
            }
            _ => deadline.or(cancelled),
        }
    }

    /// The delay before the next attempt after `outcome`; `None`: give up (a retry-after above the cap).
    fn delay(
        &self,
        policy: &Policy,
        attempt: u32,
        previous: Option<VDuration>,
        outcome: Option<Outcome>,
        world: &mut World<'_>,
    ) -> Result<Option<VDuration>, Abort> {
        match (self.0, outcome) {
            (RefusalBug::AdvancesReplacedBackoff, Some(Outcome::RateLimited { retry_after })) => {
                Ok((retry_after <= policy.delay_max).then_some(retry_after))
            }
            // The backoff's delay `attempt`: advanced by every retry, replaced or not.
            _ => next_delay(policy, attempt, previous, world).map(Some),
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
            let cut_at_deadline = deadline_at.filter(|_| self.0 != RefusalBug::LaterInterruptionWins);
            let left = cut_at_deadline.map(|at| at.duration_since(world.now()));
            let limit = match (policy.attempt_timeout, left) {
                (Some(timeout), Some(left)) => Some(timeout.min(left)),
                (timeout, left) => timeout.or(left),
            };
            let result = match limit {
                Some(limit) => world.dispatch_with_timeout(limit, TieRule::Expired)?,
                None => world.dispatch()?,
            };
            let outcome = match result {
                AttemptResult::Completed(outcome) => Some(outcome),
                _ => None,
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
            let Some(delay) = self.delay(policy, attempt, previous, outcome, world)? else {
                return Ok(CallResult::Err(failure));
            };
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

timelaw::describe_like!(RefusalPlanted => super::unrefined::Unrefined);
