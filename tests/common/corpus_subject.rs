//! `Slipped`: a copy of the reference interpreter (`timelaw::core::reference`) written against the public
//! API, with one realistic slip switched on per subject, each triggered only under a condition. With
//! [`Slip::None`] it behaves exactly like the reference (`tests/suite/corpus.rs` checks the traces agree) on the
//! reference's domain without the vocabulary's refinements (`Swarm::refinements`), so every violation a
//! slipped copy shows comes from its slip. Test code only.
//!
//! Composed from public pieces: the policy, its contract (`Reference::contract`), `next_delay` and
//! `capped_base`, `BudgetContract::allowed`. Copied because the reference keeps them private: the retry
//! loop itself, the breaker's state (`corpus_breaker.rs`) and the retry budget's counters.
#![allow(dead_code)]

use timelaw::core::reference::{capped_base, next_delay, Backoff, Jitter, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, CallInfo, CallResult, Contract, Diagnostic, ErrorKind, Outcome, Rejection, Subject, TieRule,
    VDuration, VInstant, Wake, World,
};

use super::corpus_breaker::{BreakerSlip, SlipBreaker};

/// One slip in the copy of the reference; `None` is the faithful copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slip {
    /// The faithful copy.
    None,
    /// Timeouts are checked against the limit with `>` where the other failures use `>=`.
    TimeoutRetriedPastMax,
    /// Linear backoff multiplies the step by the retry number, not by the retries before it.
    LinearStepOffByOne,
    /// Exponential backoff raises the factor to the retry number (`factor.pow(n)`, not `n - 1`).
    ExponentialFactorOffByOne,
    /// The cap is compared with the previous delay, so the first delay past it goes through uncapped.
    CapCheckedOnPrevious,
    /// Full jitter draws `random % base`, which divides by zero for a zero base.
    FullJitterModuloBase,
    /// Once a call retried, a `retrying` flag stays set and every later error is retried, fatal ones too.
    RetryingFlagSticks,
    /// The classifier reads `retry_on.rate_limited` for transient errors (a copy-paste).
    TransientReadsRateLimitFlag,
    /// The attempt timeout is truncated to whole milliseconds before it is armed.
    TimeoutTruncatedToMillis,
    /// A call that gives up returns its first error, not its last.
    FirstErrorReported,
    /// A success on a retry returns the previous attempt's error (a stale `last_error`).
    StaleErrorAfterSuccess,
    /// A retry whose sleep wakes exactly at the deadline is taken (`>` where `>=` belongs).
    DeadlineSleepStrict,
    /// With an attempt timeout, the attempt is not shortened to the time left before the deadline.
    TimeoutNotShortenedByDeadline,
    /// The sleep budget check forgets the delay about to be slept (`slept > budget`).
    SleepBudgetForgetsNextDelay,
    /// Retry-after is taken as an upper bound (`min` where `max` belongs).
    RetryAfterAsUpperBound,
    /// A retry-after equal to the cap makes the call give up (`>=` where `>` belongs).
    RetryAfterCapInclusive,
    /// The notification announces the backoff delay before the retry-after lengthens it.
    NotifyBeforeRetryAfter,
    /// The breaker opens only above the failure threshold, not at it.
    BreakerStrictRatio,
    /// The breaker stays open at the instant its cooldown ends.
    BreakerCooldownStrict,
    /// The breaker's open period is measured from the start of the call that opened it.
    BreakerOpenedAtCallStart,
    /// The retry budget lets one retry more than allowed (`>` where `>=` belongs).
    BudgetOffByOne,
    /// Cancellation is checked only after an attempt, never before the first.
    CancelNotCheckedBeforeFirst,
    /// A non-idempotent call is retried after a rate limit ("the server refused it, so it never ran").
    IdempotencyIgnoredForRateLimits,
    /// A call that ends with `Err(Timeout)` stops the stream: later calls are never served.
    TimeoutEndsStream,
    /// The attempt timeout's timer is armed once, when the call starts, not for each attempt: a retry
    /// gets only what is left of it.
    TimeoutArmedPerCall,
    /// The deadline counts from the first call's start (a start instant set once and kept), not from
    /// each call's own.
    DeadlineFromFirstCall,
}

/// The reference with one slip (subject name `slipped-` plus the slip in kebab case).
#[derive(Clone, Copy, Debug)]
pub struct Slipped(pub Slip);

impl Slipped {
    fn breaker_slip(self) -> BreakerSlip {
        match self.0 {
            Slip::BreakerStrictRatio => BreakerSlip::StrictRatio,
            Slip::BreakerCooldownStrict => BreakerSlip::CooldownStrict,
            Slip::BreakerOpenedAtCallStart => BreakerSlip::OpenedAtCallStart,
            _ => BreakerSlip::None,
        }
    }
}

/// State that spans the calls of one case.
struct CaseState {
    breaker: Option<SlipBreaker>,
    /// Calls started and retries used, for the retry budget.
    budget_calls: u32,
    budget_used: u64,
    /// When the first call started (for [`Slip::DeadlineFromFirstCall`]).
    first_started: Option<VInstant>,
}

impl Subject for Slipped {
    type Config = Policy;

    fn name(&self) -> &str {
        super::corpus::slip_name(self.0)
    }

    /// The reference's contract: the copy promises everything the reference does.
    fn contract(&self, policy: &Policy) -> Contract {
        Reference.contract(policy)
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        policy.validate().map_err(|error| Abort::InvalidConfig(error.to_string()))?;
        let breaker = policy.circuit.map(|params| SlipBreaker::new(params, self.breaker_slip()));
        let mut state = CaseState { breaker, budget_calls: 0, budget_used: 0, first_started: None };
        while let Some(call) = world.start_call()? {
            let result = self.serve_call(policy, &mut state, world, call)?;
            world.end_call(result)?;
            if self.0 == Slip::TimeoutEndsStream && result == CallResult::Err(ErrorKind::Timeout) {
                break;
            }
        }
        Ok(())
    }
}

/// What a check before or after an attempt found.
enum Check {
    Go,
    Stop(ErrorKind),
    Unreadable,
}

/// The deadline first (a read of the monotonic clock), then cancellation (unless `cancel` is false).
fn interrupted(world: &mut World<'_>, deadline_at: Option<VInstant>, cancel: bool) -> Result<Check, Abort> {
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
    if cancel && world.is_cancelled() {
        return Ok(Check::Stop(ErrorKind::Cancelled));
    }
    Ok(Check::Go)
}

fn cut_error(world: &mut World<'_>, deadline_at: Option<VInstant>) -> Result<ErrorKind, Abort> {
    Ok(match interrupted(world, deadline_at, true)? {
        Check::Stop(kind) => kind,
        Check::Go | Check::Unreadable => ErrorKind::Cancelled,
    })
}

/// How the wait before a retry ended.
enum Waited {
    /// The delay was slept: retry.
    Slept,
    /// The call gives up with its last error (retry-after past the cap, sleep budget, retry budget).
    GaveUp,
    /// The call ends with this error (the deadline, a cancellation).
    Ends(ErrorKind),
}

enum AttemptFailure {
    Final(ErrorKind),
    Retryable(ErrorKind, Option<Outcome>),
}

/// Where a call is in its retry loop.
struct Progress {
    attempt: u32,
    slept: VDuration,
    previous_delay: Option<VDuration>,
    /// For [`Slip::RetryingFlagSticks`].
    retrying: bool,
    /// For [`Slip::FirstErrorReported`] and [`Slip::StaleErrorAfterSuccess`].
    first_error: Option<ErrorKind>,
    last_error: Option<ErrorKind>,
    /// No retry wakes after this (the policy's `retry_elapsed_max` from the call's start).
    retries_until: Option<VInstant>,
}

impl Slipped {
    fn serve_call(
        self,
        policy: &Policy,
        state: &mut CaseState,
        world: &mut World<'_>,
        call: CallInfo,
    ) -> Result<CallResult, Abort> {
        state.budget_calls = state.budget_calls.saturating_add(1);
        if let Some(breaker) = state.breaker.as_mut() {
            if !breaker.admit(world)? {
                world.reject(Rejection::CircuitOpen)?;
                return Ok(CallResult::Err(ErrorKind::CircuitOpen));
            }
        }
        let result = self.retry_loop(policy, state, world, call)?;
        if let Some(breaker) = state.breaker.as_mut() {
            breaker.record(world, result, call.started)?;
        }
        Ok(result)
    }

    fn retry_loop(
        self,
        policy: &Policy,
        state: &mut CaseState,
        world: &mut World<'_>,
        call: CallInfo,
    ) -> Result<CallResult, Abort> {
        if let Err(failed) = world.wall_now()? {
            world.diagnose(Diagnostic::TimingMissing { clock: failed.0 })?;
        }
        let first_started = *state.first_started.get_or_insert(call.started);
        let counted_from = if self.0 == Slip::DeadlineFromFirstCall { first_started } else { call.started };
        let deadline_at = policy.deadline.map(|deadline| counted_from.saturating_add(deadline));
        let mut p = Progress {
            attempt: 0,
            slept: VDuration::ZERO,
            previous_delay: None,
            retrying: false,
            first_error: None,
            last_error: None,
            retries_until: policy.retry_elapsed_max.map(|limit| call.started.saturating_add(limit)),
        };
        loop {
            let check_deadline = if p.attempt == 0 { deadline_at } else { None };
            let cancel = !(self.0 == Slip::CancelNotCheckedBeforeFirst && p.attempt == 0);
            match interrupted(world, check_deadline, cancel)? {
                Check::Stop(kind) => return Ok(CallResult::Err(kind)),
                Check::Unreadable => return Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
                Check::Go => {}
            }
            p.attempt += 1;
            let (failure, outcome) = match self.run_attempt(policy, world, deadline_at, call.started)? {
                Ok(()) => return Ok(self.success(&p)),
                Err(AttemptFailure::Final(kind)) => return Ok(CallResult::Err(kind)),
                Err(AttemptFailure::Retryable(kind, outcome)) => (kind, outcome),
            };
            p.first_error.get_or_insert(failure);
            p.last_error = Some(failure);
            match interrupted(world, deadline_at, true)? {
                Check::Stop(kind) => return Ok(CallResult::Err(kind)),
                Check::Unreadable => return Ok(CallResult::Err(failure)),
                Check::Go => {}
            }
            let gave_up = CallResult::Err(match self.0 {
                Slip::FirstErrorReported => p.first_error.unwrap_or(failure),
                _ => failure,
            });
            if !self.retries(policy, &mut p, failure, call.idempotent) {
                return Ok(gave_up);
            }
            match self.wait(policy, state, world, &mut p, outcome, deadline_at)? {
                Waited::Slept => {}
                Waited::GaveUp => return Ok(gave_up),
                Waited::Ends(kind) => return Ok(CallResult::Err(kind)),
            }
        }
    }

    /// The call's result after a successful attempt.
    fn success(self, p: &Progress) -> CallResult {
        match (self.0, p.last_error) {
            (Slip::StaleErrorAfterSuccess, Some(kind)) => CallResult::Err(kind),
            _ => CallResult::Ok,
        }
    }

    /// Whether the failure is retried at all (classification, attempt limit, idempotency).
    fn retries(self, policy: &Policy, p: &mut Progress, failure: ErrorKind, idempotent: bool) -> bool {
        let classified = self.retryable(policy, failure);
        let retryable = match self.0 {
            Slip::RetryingFlagSticks => p.retrying || classified,
            _ => classified,
        };
        let exhausted = match (self.0, failure) {
            (Slip::TimeoutRetriedPastMax, ErrorKind::Timeout) => p.attempt > policy.max_attempts,
            _ => p.attempt >= policy.max_attempts,
        };
        let blocked = match self.0 {
            Slip::IdempotencyIgnoredForRateLimits => !idempotent && failure != ErrorKind::RateLimited,
            _ => !idempotent,
        };
        p.retrying |= retryable && !exhausted && !blocked;
        retryable && !exhausted && !blocked
    }

    fn retryable(self, policy: &Policy, failure: ErrorKind) -> bool {
        match failure {
            ErrorKind::Transient if self.0 == Slip::TransientReadsRateLimitFlag => policy.retry_on.rate_limited,
            ErrorKind::Transient => policy.retry_on.transient,
            ErrorKind::RateLimited => policy.retry_on.rate_limited,
            ErrorKind::Timeout => policy.retry_on.timeout,
            _ => false,
        }
    }
}

impl Slipped {
    fn run_attempt(
        self,
        policy: &Policy,
        world: &mut World<'_>,
        deadline_at: Option<VInstant>,
        call_started: VInstant,
    ) -> Result<Result<(), AttemptFailure>, Abort> {
        let left = deadline_at.map(|at| at.duration_since(world.now()));
        let timeout = match self.0 {
            Slip::TimeoutTruncatedToMillis => policy.attempt_timeout.map(whole_millis),
            Slip::TimeoutArmedPerCall => {
                policy.attempt_timeout.map(|timeout| call_started.saturating_add(timeout).duration_since(world.now()))
            }
            _ => policy.attempt_timeout,
        };
        let limit = match (timeout, left) {
            (Some(timeout), Some(_)) if self.0 == Slip::TimeoutNotShortenedByDeadline => Some(timeout),
            (Some(timeout), Some(left)) => Some(timeout.min(left)),
            (timeout, left) => timeout.or(left),
        };
        let by_deadline = left.is_some_and(|left| timeout.is_none_or(|timeout| left <= timeout));
        let result = match limit {
            Some(limit) => world.dispatch_with_timeout(limit, TieRule::Expired)?,
            None => world.dispatch()?,
        };
        Ok(match result {
            AttemptResult::Completed(Outcome::Ok) => Ok(()),
            AttemptResult::Completed(outcome) => {
                let kind = ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient);
                Err(AttemptFailure::Retryable(kind, Some(outcome)))
            }
            AttemptResult::TimedOut if by_deadline => Err(AttemptFailure::Final(ErrorKind::DeadlineExceeded)),
            AttemptResult::TimedOut => Err(AttemptFailure::Retryable(ErrorKind::Timeout, None)),
            AttemptResult::Cancelled => Err(AttemptFailure::Final(cut_error(world, deadline_at)?)),
        })
    }

    /// Plans the delay, checks the sleep budget, the deadline and the retry budget, notifies and sleeps.
    fn wait(
        self,
        policy: &Policy,
        state: &mut CaseState,
        world: &mut World<'_>,
        p: &mut Progress,
        outcome: Option<Outcome>,
        deadline_at: Option<VInstant>,
    ) -> Result<Waited, Abort> {
        let base = self.delay(policy, world, p.attempt, p.previous_delay)?;
        let Some(delay) = self.honor_retry_after(policy, base, outcome) else {
            return Ok(Waited::GaveUp);
        };
        let over_budget = match self.0 {
            Slip::SleepBudgetForgetsNextDelay => policy.sleep_budget.is_some_and(|budget| p.slept > budget),
            _ => policy.sleep_budget.is_some_and(|budget| p.slept.saturating_add(delay) > budget),
        };
        if over_budget {
            return Ok(Waited::GaveUp);
        }
        let wakes_at = world.now().saturating_add(delay);
        if p.retries_until.is_some_and(|until| wakes_at > until) {
            return Ok(Waited::GaveUp);
        }
        let too_late = match self.0 {
            Slip::DeadlineSleepStrict => deadline_at.is_some_and(|at| wakes_at > at),
            _ => deadline_at.is_some_and(|at| wakes_at >= at),
        };
        if too_late {
            return Ok(Waited::Ends(ErrorKind::DeadlineExceeded));
        }
        if let Some(budget) = policy.retry_budget {
            let allowed = budget.allowed(state.budget_calls);
            let spent = match self.0 {
                Slip::BudgetOffByOne => state.budget_used > allowed,
                _ => state.budget_used >= allowed,
            };
            if spent {
                world.reject(Rejection::BudgetExhausted)?;
                return Ok(Waited::GaveUp);
            }
            state.budget_used += 1;
        }
        world.notify(if self.0 == Slip::NotifyBeforeRetryAfter { base } else { delay })?;
        if world.sleep(delay)? == Wake::Cancelled {
            return Ok(Waited::Ends(cut_error(world, deadline_at)?));
        }
        p.slept = p.slept.saturating_add(delay);
        p.previous_delay = Some(delay);
        Ok(Waited::Slept)
    }

    /// The delay with the retry-after applied, or `None` when a retry-after past the cap makes the call
    /// give up.
    fn honor_retry_after(self, policy: &Policy, delay: VDuration, outcome: Option<Outcome>) -> Option<VDuration> {
        let Some(Outcome::RateLimited { retry_after }) = outcome else { return Some(delay) };
        if !policy.honor_retry_after {
            return Some(delay);
        }
        let beyond_cap = match self.0 {
            Slip::RetryAfterCapInclusive => retry_after >= policy.delay_max,
            _ => retry_after > policy.delay_max,
        };
        match self.0 {
            _ if beyond_cap => None,
            Slip::RetryAfterAsUpperBound => Some(delay.min(retry_after)),
            _ => Some(delay.max(retry_after)),
        }
    }

    /// The delay before retry `n`: the reference's `next_delay`, except where a backoff slip applies.
    fn delay(
        self,
        policy: &Policy,
        world: &mut World<'_>,
        n: u32,
        previous: Option<VDuration>,
    ) -> Result<VDuration, Abort> {
        let base = match (self.0, policy.backoff) {
            (Slip::LinearStepOffByOne, Backoff::Linear { .. })
            | (Slip::ExponentialFactorOffByOne, Backoff::Exponential { .. }) => {
                capped_base(policy, n.saturating_add(1))
            }
            (Slip::CapCheckedOnPrevious, Backoff::Linear { .. } | Backoff::Exponential { .. }) => match previous {
                Some(previous) if previous >= policy.delay_max => policy.delay_max,
                _ => policy.backoff.shape().nth(n).unwrap_or(policy.delay_max),
            },
            (Slip::FullJitterModuloBase, _) if policy.jitter == Jitter::Full => {
                let base = capped_base(policy, n);
                // The slip: `% base` where `% (base + 1)` belongs, and no guard for a zero base.
                return Ok(VDuration::from_nanos(world.random_u64()? % base.as_nanos()));
            }
            _ => return next_delay(policy, n, previous, world),
        };
        jittered(policy, world, base)
    }
}

/// The reference's jitter on a (possibly slipped) base delay.
fn jittered(policy: &Policy, world: &mut World<'_>, base: VDuration) -> Result<VDuration, Abort> {
    Ok(match policy.jitter {
        Jitter::None => base,
        Jitter::Full => VDuration::from_nanos(world.random_between(0, base.as_nanos())?),
        Jitter::Equal => {
            let half = base.div(2);
            let extra = world.random_between(0, base.saturating_sub(half).as_nanos())?;
            half.saturating_add(VDuration::from_nanos(extra))
        }
    })
}

/// A duration truncated to whole milliseconds.
fn whole_millis(duration: VDuration) -> VDuration {
    const MS_NS: u64 = 1_000_000;
    VDuration::from_nanos(duration.as_nanos() / MS_NS * MS_NS)
}

// The reference's domain without the refinements the copy does not implement (`unrefined.rs`).
timelaw::describe_like!(Slipped => super::unrefined::Unrefined);
