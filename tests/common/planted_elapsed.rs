//! Planted elapsed-time-limit bugs: a plain retry loop with `retry_elapsed_max` and one deliberate defect
//! at the limit's boundary. Test code only: users never see these subjects.
#![allow(dead_code)] // Each test target uses a part of the shared code.

use timelaw::core::reference::{next_delay, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, CallInfo, CallResult, Contract, Declared, ErrorKind, Outcome, Subject, TieRule, VDuration,
    VInstant, Wake, World,
};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElapsedBug {
    /// Off by one at the boundary: a retry starting 1 ns after the limit is still taken.
    LateByOne,
    /// A retry that would start exactly on the limit is refused (`>=` where the contract says `>`).
    StopsEarly,
}

/// Every planted elapsed-limit bug with the law it breaks.
pub const ELAPSED_BUGS: [(ElapsedBug, &str); 2] = [
    (ElapsedBug::LateByOne, "no_retry_after_elapsed_limit"),
    (ElapsedBug::StopsEarly, "elapsed_limit_does_not_stop_early"),
];

/// A retry loop honouring `retry_elapsed_max` with one planted defect; configs are reference Policies.
#[derive(Clone, Copy, Debug)]
pub struct ElapsedPlanted(pub ElapsedBug);

impl ElapsedPlanted {
    /// All planted elapsed-limit subjects.
    pub fn all() -> Vec<ElapsedPlanted> {
        ELAPSED_BUGS.iter().map(|(bug, _)| ElapsedPlanted(*bug)).collect()
    }
}

impl Subject for ElapsedPlanted {
    type Config = Policy;

    fn name(&self) -> &str {
        match self.0 {
            ElapsedBug::LateByOne => "planted-retry-late-by-one",
            ElapsedBug::StopsEarly => "planted-elapsed-stops-early",
        }
    }

    /// The reference contract without the mechanisms this loop does not implement.
    fn contract(&self, policy: &Policy) -> Contract {
        let mut promise = Reference.contract(policy);
        promise.retry.respects_idempotency = false;
        promise.delays.sleep_budget = None;
        promise.timing.clocks = None;
        promise.rate.honors_retry_after = false;
        promise.rate.retry_after = None;
        promise.circuit = Declared::Absent;
        promise.budget = Declared::Absent;
        promise
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, call| self.retry_loop(policy, world, call))
    }
}

impl ElapsedPlanted {
    /// Whether a retry waking at `wake` is refused by the limit ending at `until`, with the planted defect.
    fn refused(&self, wake: VInstant, until: VInstant) -> bool {
        match self.0 {
            ElapsedBug::LateByOne => wake > until.saturating_add(VDuration::from_nanos(1)),
            ElapsedBug::StopsEarly => wake >= until,
        }
    }

    fn interrupted(world: &World<'_>, deadline_at: Option<VInstant>) -> Option<ErrorKind> {
        let deadline = deadline_at.is_some_and(|at| world.now() >= at).then_some(ErrorKind::DeadlineExceeded);
        deadline.or(world.is_cancelled().then_some(ErrorKind::Cancelled))
    }

    fn attempt(policy: &Policy, world: &mut World<'_>, deadline_at: Option<VInstant>) -> Result<AttemptResult, Abort> {
        let left = deadline_at.map(|at| at.duration_since(world.now()));
        let limit = match (policy.attempt_timeout, left) {
            (Some(timeout), Some(left)) => Some(timeout.min(left)),
            (timeout, left) => timeout.or(left),
        };
        match limit {
            Some(limit) => world.dispatch_with_timeout(limit, TieRule::Expired),
            None => world.dispatch(),
        }
    }

    fn retry_loop(&self, policy: &Policy, world: &mut World<'_>, call: CallInfo) -> Result<CallResult, Abort> {
        let deadline_at = policy.deadline.map(|deadline| call.started.saturating_add(deadline));
        let retries_until = policy.retry_elapsed_max.map(|limit| call.started.saturating_add(limit));
        let (mut previous, mut attempt) = (None, 0);
        loop {
            if let Some(kind) = Self::interrupted(world, deadline_at) {
                return Ok(CallResult::Err(kind));
            }
            attempt += 1;
            let failure = match Self::attempt(policy, world, deadline_at)? {
                AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient),
                AttemptResult::TimedOut => ErrorKind::Timeout,
                AttemptResult::Cancelled => ErrorKind::Cancelled,
            };
            if let Some(kind) = Self::interrupted(world, deadline_at) {
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
            let wake = world.now().saturating_add(delay);
            if retries_until.is_some_and(|until| self.refused(wake, until)) {
                return Ok(CallResult::Err(failure));
            }
            if deadline_at.is_some_and(|at| wake >= at) {
                return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
            }
            world.notify(delay)?;
            if world.sleep(delay)? == Wake::Cancelled {
                return Ok(CallResult::Err(Self::interrupted(world, deadline_at).unwrap_or(ErrorKind::Cancelled)));
            }
            previous = Some(delay);
        }
    }
}

timelaw::describe_like!(ElapsedPlanted => super::unrefined::Unrefined);
