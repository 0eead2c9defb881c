//! The reference [`Subject`]: see the module docs of [`crate::reference`] for the semantics.

use super::backoff::next_delay;
use super::budget::RetryBudget;
use super::circuit::Breaker;
use super::policy::Policy;
use crate::clock::ClockContract;
use crate::contract::{
    BudgetContract, BulkheadContract, Contract, Declared, DelayContract, JitterBounds, RateContract, RetryContract,
    TieRule, TimingContract,
};
use crate::mechanisms::{AboveCap, InterruptTie, RetryAfterCombine};
use crate::schedule::Outcome;
use crate::subject::Subject;
use crate::time::{VDuration, VInstant};
use crate::trace::{CallResult, Diagnostic, ErrorKind, Rejection};
use crate::world::{Abort, AttemptResult, CallInfo, Wake, World};

/// The reference resilience interpreter (subject name `reference`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

/// State that spans the calls of one case.
pub(super) struct CaseState {
    pub(super) breaker: Option<Breaker>,
    pub(super) budget: Option<RetryBudget>,
}

impl Subject for Reference {
    type Config = Policy;

    fn name(&self) -> &str {
        "reference"
    }

    fn contract(&self, p: &Policy) -> Contract {
        let jitter = match p.jitter {
            super::Jitter::None => JitterBounds::None,
            super::Jitter::Full => JitterBounds::Full,
            super::Jitter::Equal => JitterBounds::Equal,
        };
        let delay_min = match p.jitter {
            super::Jitter::None => Some(p.backoff.initial()),
            super::Jitter::Full => None,
            super::Jitter::Equal => Some(p.backoff.initial().div(2)),
        };
        // The breaker implements every refinement its contract states. The budget is exact over the
        // whole case, whatever a hand-edited config carries (`Policy::validate` refuses a window).
        let circuit = p.circuit;
        let budget = p.retry_budget.map(|budget| BudgetContract { window: None, admits: true, ..budget });
        Contract {
            retry: RetryContract {
                max_attempts: Some(p.max_attempts),
                retry_on: Some(p.retry_on),
                reports_last_result: true,
                respects_idempotency: true,
            },
            delays: DelayContract {
                min: delay_min,
                max: Some(p.delay_max),
                backoff: Some(p.backoff.shape()),
                jitter: Some(jitter),
                jitter_clipped_at_cap: true,
                tolerance: VDuration::ZERO,
                tolerance_ppb: 0,
                sleep_budget: p.sleep_budget,
                notifies: true,
            },
            timing: TimingContract {
                attempt_timeout: p.attempt_timeout,
                timeout_tie: TieRule::Expired,
                deadline: p.deadline,
                deadline_tie: TieRule::Expired,
                retry_elapsed_max: p.retry_elapsed_max,
                retry_elapsed_bound: p.retry_elapsed_bound,
                limit_unstated: false,
                honors_cancellation: true,
                interrupt_tie: Some(p.interrupt_tie),
                timer_granularity: VDuration::ZERO,
                serves_stream: true,
                clocks: Some(ClockContract::MONOTONIC),
                ordered_results: p.ordered_results,
            },
            rate: RateContract { honors_retry_after: p.honor_retry_after, retry_after: Some(p.retry_after()) },
            circuit: Declared::from(circuit),
            budget: Declared::from(budget),
            // The queue is served first come, first served, whatever a hand-edited config carries.
            bulkhead: Declared::from(p.bulkhead.map(|bulkhead| BulkheadContract { first_come: true, ..bulkhead })),
            limiter: Declared::from(p.limiter),
            hedge: Declared::from(p.hedge),
        }
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        policy.validate().map_err(|error| Abort::InvalidConfig(error.to_string()))?;
        if policy.has_load_mechanisms() || world.schedule().has_arrivals() {
            return super::load::run_concurrent(policy, world);
        }
        let mut state =
            CaseState { breaker: policy.circuit.map(Breaker::new), budget: policy.retry_budget.map(RetryBudget::new) };
        world.for_each_call(|world, call| serve_call(policy, &mut state, world, call))
    }
}

fn serve_call(
    policy: &Policy,
    state: &mut CaseState,
    world: &mut World<'_>,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    if let Some(budget) = state.budget.as_mut() {
        budget.on_call_start();
    }
    if let Some(breaker) = state.breaker.as_mut() {
        if !breaker.admit(world)? {
            world.reject(Rejection::CircuitOpen)?;
            return Ok(CallResult::Err(ErrorKind::CircuitOpen));
        }
    }
    let result = retry_loop(policy, state, world, call)?;
    if let Some(breaker) = state.breaker.as_mut() {
        breaker.record(world, result)?;
    }
    Ok(result)
}

/// What a check before or after an attempt found.
pub(super) enum Check {
    /// Go on.
    Go,
    /// The call ends with this error.
    Stop(ErrorKind),
    /// The monotonic clock could not be read: the deadline counts as expired, the call keeps its outcome.
    Unreadable,
}

/// The deadline (a read of the monotonic clock) and cancellation, in the order of `tie`: by default the
/// deadline first.
pub(super) fn interrupted(
    world: &mut World<'_>,
    deadline_at: Option<VInstant>,
    tie: InterruptTie,
) -> Result<Check, Abort> {
    if tie == InterruptTie::CancellationFirst && world.is_cancelled() {
        return Ok(Check::Stop(ErrorKind::Cancelled));
    }
    if let Some(at) = deadline_at {
        match world.read_now()? {
            Ok(now) if now >= at => return Ok(Check::Stop(ErrorKind::DeadlineExceeded)),
            Ok(_) => {}
            Err(failed) => {
                world.diagnose(Diagnostic::TimingMissing { clock: failed.0 })?;
                return Ok(Check::Unreadable);
            }
        }
    }
    if world.is_cancelled() {
        return Ok(Check::Stop(ErrorKind::Cancelled));
    }
    Ok(Check::Go)
}

/// The error a cut sleep or attempt ends the call with: the deadline's, else cancellation (in the order
/// of `tie`).
pub(super) fn cut_error(
    world: &mut World<'_>,
    deadline_at: Option<VInstant>,
    tie: InterruptTie,
) -> Result<ErrorKind, Abort> {
    Ok(match interrupted(world, deadline_at, tie)? {
        Check::Stop(kind) => kind,
        Check::Go | Check::Unreadable => ErrorKind::Cancelled,
    })
}

/// Stamps the call's start with the wall clock ("request started at"); the stamp decides nothing.
pub(super) fn stamp_start(world: &mut World<'_>) -> Result<(), Abort> {
    if let Err(failed) = world.wall_now()? {
        world.diagnose(Diagnostic::TimingMissing { clock: failed.0 })?;
    }
    Ok(())
}

fn retry_loop(
    policy: &Policy,
    state: &mut CaseState,
    world: &mut World<'_>,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    stamp_start(world)?;
    let deadline_at = policy.deadline.map(|deadline| call.started.saturating_add(deadline));
    let retries_late = policy.retries_late_from(call.started);
    let mut slept = VDuration::ZERO;
    let mut backoff = BackoffState::default();
    let mut attempt = 0;
    loop {
        // After a full sleep the deadline cannot have passed (a sleep waking at or after it is never
        // taken), so only the first attempt reads the clock here; cancellation is checked every time.
        let check_deadline = if attempt == 0 { deadline_at } else { None };
        match interrupted(world, check_deadline, policy.interrupt_tie)? {
            Check::Stop(kind) => return Ok(CallResult::Err(kind)),
            // No attempt ran yet: an unreadable clock at the start counts as an expired deadline.
            Check::Unreadable => return Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
            Check::Go => {}
        }
        attempt += 1;
        let (failure, outcome) = match run_attempt(policy, world, deadline_at)? {
            Ok(()) => return Ok(CallResult::Ok),
            Err(AttemptFailure::Final(kind)) => return Ok(CallResult::Err(kind)),
            Err(AttemptFailure::Retryable(kind, outcome)) => (kind, outcome),
        };
        match interrupted(world, deadline_at, policy.interrupt_tie)? {
            Check::Stop(kind) => return Ok(CallResult::Err(kind)),
            Check::Unreadable => return Ok(CallResult::Err(failure)),
            Check::Go => {}
        }
        if !retryable(policy, failure) || attempt >= policy.max_attempts || !call.idempotent {
            return Ok(CallResult::Err(failure));
        }
        let Some(planned) = plan_delay(policy, world, &backoff, outcome)? else {
            return Ok(CallResult::Err(failure));
        };
        let delay = planned.delay;
        if policy.sleep_budget.is_some_and(|budget| slept.saturating_add(delay) > budget) {
            return Ok(CallResult::Err(failure));
        }
        if retries_late.is_some_and(|at| world.now().saturating_add(delay) >= at) {
            return Ok(CallResult::Err(failure));
        }
        if deadline_at.is_some_and(|at| world.now().saturating_add(delay) >= at) {
            return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
        }
        if let Some(budget) = state.budget.as_mut() {
            if !budget.try_spend() {
                world.reject(Rejection::BudgetExhausted)?;
                return Ok(CallResult::Err(failure));
            }
        }
        world.notify(delay)?;
        if world.sleep(delay)? == Wake::Cancelled {
            return Ok(CallResult::Err(cut_error(world, deadline_at, policy.interrupt_tie)?));
        }
        slept = slept.saturating_add(delay);
        backoff.slept(planned);
    }
}

pub(super) enum AttemptFailure {
    /// The call ends with this error whatever the policy says (deadline, cancellation).
    Final(ErrorKind),
    /// An attempt failure the policy may retry; the outcome is `None` for a timeout.
    Retryable(ErrorKind, Option<Outcome>),
}

fn run_attempt(
    policy: &Policy,
    world: &mut World<'_>,
    deadline_at: Option<VInstant>,
) -> Result<Result<(), AttemptFailure>, Abort> {
    let (limit, by_deadline) = attempt_limit(policy, deadline_at.map(|at| at.duration_since(world.now())));
    let result = match limit {
        Some(limit) => world.dispatch_with_timeout(limit, TieRule::Expired)?,
        None => world.dispatch()?,
    };
    let cut_first = cancellation_first(policy, world);
    attempt_failure(result, (by_deadline, cut_first), || cut_error(world, deadline_at, policy.interrupt_tie))
}

/// The limit an attempt runs under, the tighter of its own timeout and `left` before the deadline, and
/// whether that limit is the deadline's (a tie goes to the deadline).
pub(super) fn attempt_limit(policy: &Policy, left: Option<VDuration>) -> (Option<VDuration>, bool) {
    let limit = match (policy.attempt_timeout, left) {
        (Some(timeout), Some(left)) => Some(timeout.min(left)),
        (timeout, left) => timeout.or(left),
    };
    let by_deadline = left.is_some_and(|left| policy.attempt_timeout.is_none_or(|timeout| left <= timeout));
    (limit, by_deadline)
}

/// `true` when the caller's cancellation has fallen and the policy checks it before the deadline: an
/// attempt the deadline cut at the instant of the cancellation then ends the call `Cancelled`.
pub(super) fn cancellation_first(policy: &Policy, world: &World<'_>) -> bool {
    policy.interrupt_tie == InterruptTie::CancellationFirst && world.is_cancelled()
}

/// What an attempt's `result` means for its call; `cut` gives the error of a cancelled attempt.
/// `by_deadline` says the attempt ran under the deadline's limit, `cancelled_first` that a cancellation
/// checked first has fallen too.
pub(super) fn attempt_failure(
    result: AttemptResult,
    (by_deadline, cancelled_first): (bool, bool),
    cut: impl FnOnce() -> Result<ErrorKind, Abort>,
) -> Result<Result<(), AttemptFailure>, Abort> {
    Ok(match result {
        AttemptResult::Completed(Outcome::Ok) => Ok(()),
        AttemptResult::Completed(outcome) => {
            let kind = ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient);
            Err(AttemptFailure::Retryable(kind, Some(outcome)))
        }
        AttemptResult::TimedOut if by_deadline && cancelled_first => Err(AttemptFailure::Final(ErrorKind::Cancelled)),
        AttemptResult::TimedOut if by_deadline => Err(AttemptFailure::Final(ErrorKind::DeadlineExceeded)),
        AttemptResult::TimedOut => Err(AttemptFailure::Retryable(ErrorKind::Timeout, None)),
        AttemptResult::Cancelled => Err(AttemptFailure::Final(cut()?)),
    })
}

pub(super) fn retryable(policy: &Policy, failure: ErrorKind) -> bool {
    match failure {
        ErrorKind::Transient => policy.retry_on.transient,
        ErrorKind::RateLimited => policy.retry_on.rate_limited,
        ErrorKind::Timeout => policy.retry_on.timeout,
        _ => false,
    }
}

/// Where a call's backoff stands: the backoff delays slept so far and the last one (a delay a retry-after
/// replaced is not one of them).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BackoffState {
    delays: u32,
    previous: Option<VDuration>,
}

impl BackoffState {
    /// Counts a delay slept.
    pub(super) fn slept(&mut self, planned: Planned) {
        if planned.backoff {
            self.delays = self.delays.saturating_add(1);
            self.previous = Some(planned.delay);
        }
    }
}

/// A delay before a retry, and whether it is one of the backoff's (`false` when a retry-after replaced it).
#[derive(Clone, Copy, Debug)]
pub(super) struct Planned {
    pub(super) delay: VDuration,
    backoff: bool,
}

/// The delay before the next retry by the backoff and the retry-after policy ("Retry-after" in the module
/// docs), or `None` when a retry-after above the cap makes the call give up. The backoff's delay (and its
/// jitter draw) is left out when a retry-after replaces it.
pub(super) fn plan_delay(
    policy: &Policy,
    world: &mut World<'_>,
    backoff: &BackoffState,
    outcome: Option<Outcome>,
) -> Result<Option<Planned>, Abort> {
    let rule = policy.retry_after();
    let retry_after = match outcome {
        Some(Outcome::RateLimited { retry_after }) if rule.combine != RetryAfterCombine::Ignored => Some(retry_after),
        _ => None,
    };
    let replaces = retry_after.is_some() && rule.combine == RetryAfterCombine::ReplacesBackoff;
    let delay = match replaces {
        true => VDuration::ZERO,
        false => next_delay(policy, backoff.delays.saturating_add(1), backoff.previous, world)?,
    };
    let Some(retry_after) = retry_after else {
        return Ok(Some(Planned { delay, backoff: true }));
    };
    let delay = match (retry_after > policy.delay_max, rule.above_cap) {
        (true, AboveCap::GiveUp) => return Ok(None),
        (true, AboveCap::Clamp) => policy.delay_max,
        (true, AboveCap::SleepAnyway) => retry_after,
        (false, _) if replaces => retry_after,
        (false, _) => delay.max(retry_after),
    };
    Ok(Some(Planned { delay, backoff: !replaces }))
}
