//! Shared test support: runs of real subjects, the expected verdicts, and deliberately broken subjects.
#![allow(dead_code)] // Each suite uses a different part of this module.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use timelaw_core::reference::{Policy, Reference};
use timelaw_core::{
    execute, Abort, AttemptResult, CallInfo, CallResult, CallScript, CircuitContract, Contract, Declared,
    DelayContract, ErrorKind, EventKind, Outcome, RetryAfterCombine, RetryContract, RetryOn, Schedule, Step, Subject,
    TieRule, Trace, VDuration, Wake, World,
};
use timelaw_laws::{Catalogue, Observation, Replay, Verdict};

mod coarse;
#[allow(unused_imports)] // Only the timing suites run the coarse loop.
pub use coarse::{Coarse, CoarseConfig};

pub const SEED: u64 = 0x5EED;

pub fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// One call with instant steps of these outcomes.
pub fn single(outcomes: &[Outcome]) -> Schedule {
    Schedule::new(vec![CallScript::outcomes(outcomes)])
}

/// One call per list of outcomes.
pub fn calls(calls: &[&[Outcome]]) -> Schedule {
    Schedule::new(calls.iter().map(|outcomes| CallScript::outcomes(outcomes)).collect())
}

/// One call with these steps.
pub fn timed(steps: &[(u64, Outcome)]) -> Schedule {
    Schedule::single(steps.iter().map(|&(millis, outcome)| Step::new(ms(millis), outcome)).collect())
}

pub const T: Outcome = Outcome::Transient;
pub const F: Outcome = Outcome::Fatal;
pub const OK: Outcome = Outcome::Ok;
pub const HANG: Outcome = Outcome::Hang;

pub fn rate_limited(millis: u64) -> Outcome {
    Outcome::RateLimited { retry_after: ms(millis) }
}

/// A finished run: what a law observes.
#[derive(Clone, Debug)]
pub struct Run {
    pub schedule: Schedule,
    pub contract: Contract,
    pub trace: Trace,
    pub replay: Option<Replay>,
    pub without_wall_jumps: Option<Replay>,
}

impl Run {
    pub fn observation(&self) -> Observation<'_> {
        Observation {
            schedule: &self.schedule,
            seed: SEED,
            contract: &self.contract,
            trace: &self.trace,
            replay: self.replay,
            without_wall_jumps: self.without_wall_jumps,
        }
    }
    pub fn judge(&self, id: &str) -> Verdict {
        let catalogue = Catalogue::standard();
        let law = catalogue.get(id).unwrap_or_else(|| panic!("no law {id}"));
        law.judge(&self.observation())
    }
}

/// Runs `subject` on a case.
pub fn run<S: Subject>(subject: &S, config: &S::Config, schedule: Schedule) -> Run {
    let trace = execute(subject, config, &schedule, SEED);
    Run { contract: subject.contract(config), trace, schedule, replay: None, without_wall_jumps: None }
}

/// Runs the reference interpreter.
pub fn reference(policy: Policy, schedule: Schedule) -> Run {
    run(&Reference, &policy, schedule)
}

/// Runs the naive loop with `bug`, promising `contract`.
pub fn naive(contract: Contract, bug: Bug, schedule: Schedule) -> Run {
    run(&Naive::default(), &NaiveConfig { contract, bug }, schedule)
}

/// `run` with the attempt end at `index` turned into `AttemptDropped`: the same cut, recorded as made by
/// something other than the attempt's own timeout (an enclosing deadline), as the tokio driver does.
pub fn dropped_at(mut run: Run, index: usize) -> Run {
    let start = run.trace.events[..index].iter().rev().find(|event| event.kind == EventKind::AttemptStart);
    let started = start.map_or(run.trace.events[index].at, |event| event.at);
    let event = &mut run.trace.events[index];
    event.kind = EventKind::AttemptDropped { ran: event.at.duration_since(started) };
    run
}

/// The verdict a case must get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    NotApplicable,
    Holds,
    Vacuous,
    Inconclusive,
    /// Violated at this event index.
    At(u32),
    /// Violated, with no event to blame.
    Nowhere,
}

impl Expect {
    pub fn matches(self, verdict: &Verdict) -> bool {
        match (self, verdict) {
            (Expect::NotApplicable, Verdict::NotApplicable)
            | (Expect::Holds, Verdict::Holds)
            | (Expect::Vacuous, Verdict::Vacuous)
            | (Expect::Inconclusive, Verdict::Inconclusive(_)) => true,
            (Expect::At(index), Verdict::Violated(violation)) => violation.event == Some(index),
            (Expect::Nowhere, Verdict::Violated(violation)) => violation.event.is_none(),
            _ => false,
        }
    }
}

/// A readable listing of a trace, for failure messages.
pub struct Listing<'a>(pub &'a Trace);

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for event in &self.0.events {
            writeln!(
                f,
                "  {:>3} {:>8} c{} a{} {:?}",
                event.seq,
                event.at.to_string(),
                event.call,
                event.attempt,
                event.kind
            )?;
        }
        write!(f, "  end: {:?}", self.0.end)
    }
}

/// Asserts that law `id` gives `expect` on `run`.
#[track_caller]
pub fn assert_verdict(id: &str, run: &Run, expect: Expect) {
    let verdict = run.judge(id);
    assert!(expect.matches(&verdict), "{id}: expected {expect:?}, got {verdict}\ntrace:\n{}", Listing(&run.trace));
}

/// A contract for the naive loop: `max_attempts` attempts, constant `delay` capped at 1s, no jitter,
/// retrying everything retryable, no other promise.
pub fn promise(max_attempts: u32, delay: VDuration) -> Contract {
    Contract {
        retry: RetryContract {
            max_attempts: Some(max_attempts),
            retry_on: Some(RetryOn::ALL),
            ..RetryContract::default()
        },
        delays: DelayContract {
            min: Some(delay),
            max: Some(VDuration::from_secs(1)),
            backoff: Some(timelaw_core::BackoffShape::Constant { delay }),
            jitter: Some(timelaw_core::JitterBounds::None),
            ..DelayContract::default()
        },
        ..Contract::default()
    }
}

/// One deliberate bug of the naive loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Bug {
    /// No bug: the loop keeps the promises it implements.
    #[default]
    None,
    /// Makes `max_attempts + 1` attempts.
    ExtraAttempt,
    /// Makes `max_attempts - 1` attempts.
    GivesUpEarly,
    /// Retries forever (until a World limit stops it).
    RetriesForever,
    /// Doubles every delay and ignores the cap.
    DoublesDelay,
    /// Sleeps zero before the second retry.
    ZeroSecondDelay,
    /// Sleeps once more after the final failure before returning.
    SleepsBeforeGivingUp,
    /// Retries fatal errors.
    RetriesFatal,
    /// Makes one more attempt after a success.
    AttemptAfterOk,
    /// Returns `Ok` when the last attempt timed out.
    SwallowsTimeout,
    /// Returns `Ok` when the attempts are exhausted.
    SwallowsExhaustion,
    /// Reports the error of the first attempt instead of the last.
    ReportsFirstError,
    /// Dispatches with the opposite tie rule from the one it promises.
    FlipsTie,
    /// Ignores the deadline.
    IgnoresDeadline,
    /// Ignores the sleep budget.
    IgnoresSleepBudget,
    /// Ignores retry-after.
    IgnoresRetryAfter,
    /// Retries non-idempotent calls.
    RetriesNonIdempotent,
    /// Ignores cancellation.
    IgnoresCancellation,
    /// Stops serving the stream after a call timed out.
    StopsAfterTimeout,
    /// Announces a delay 1ms longer than it sleeps.
    MisannouncesDelay,
    /// Announces a delay, then retries without sleeping.
    ForgetsToSleep,
    /// Panics on the second attempt.
    PanicsOnRetry,
    /// Adds the number of earlier runs (in ms) to every delay: not deterministic.
    RemembersRuns,
    /// Replaces a delay by the retry-after as its contract says, but advances the backoff anyway.
    AdvancesReplacedBackoff,
    /// Gives up on a failed call without ending it (no result), and goes on to the next call.
    LeavesCallOpen,
    /// Returns after the first call, leaving the rest of the schedule unserved.
    ServesOneCall,
    /// Draws its jitter with the bounds the wrong way round (`random_between(high, low)`).
    ReversesBounds,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NaiveConfig {
    pub contract: Contract,
    pub bug: Bug,
}

/// A straightforward retry loop driven by its own contract (constant or shaped delays, no jitter), with
/// one optional bug. It implements neither a circuit breaker nor a retry budget.
#[derive(Debug, Default)]
pub struct Naive {
    runs: AtomicU64,
}

impl Subject for Naive {
    type Config = NaiveConfig;
    fn name(&self) -> &str {
        "naive"
    }
    fn contract(&self, config: &NaiveConfig) -> Contract {
        config.contract
    }
    fn run(&self, config: &NaiveConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let runs = self.runs.fetch_add(1, Ordering::Relaxed);
        while let Some(call) = world.start_call()? {
            let result = serve(config, runs, world, call)?;
            if config.bug == Bug::LeavesCallOpen && !result.is_ok() {
                continue;
            }
            world.end_call(result)?;
            if config.bug == Bug::StopsAfterTimeout && result == CallResult::Err(ErrorKind::Timeout) {
                return Ok(());
            }
            if config.bug == Bug::ServesOneCall {
                return Ok(());
            }
        }
        Ok(())
    }
}

fn attempt_limit(config: &NaiveConfig) -> u32 {
    let max = config.contract.retry.max_attempts.unwrap_or(1);
    match config.bug {
        Bug::ExtraAttempt => max + 1,
        Bug::GivesUpEarly => max.saturating_sub(1).max(1),
        Bug::RetriesForever => u32::MAX,
        _ => max,
    }
}

fn dispatch(config: &NaiveConfig, world: &mut World<'_>) -> Result<AttemptResult, Abort> {
    let tie = match (config.contract.timing.timeout_tie, config.bug) {
        (TieRule::Expired, Bug::FlipsTie) => TieRule::InnerWins,
        (TieRule::InnerWins, Bug::FlipsTie) => TieRule::Expired,
        (tie, _) => tie,
    };
    match config.contract.timing.attempt_timeout {
        Some(timeout) => world.dispatch_with_timeout(timeout, tie),
        None => world.dispatch(),
    }
}

fn serve(config: &NaiveConfig, runs: u64, world: &mut World<'_>, call: CallInfo) -> Result<CallResult, Abort> {
    let (contract, bug) = (config.contract, config.bug);
    let deadline_at =
        contract.timing.deadline.filter(|_| bug != Bug::IgnoresDeadline).map(|d| call.started.saturating_add(d));
    let honors_cancel = bug != Bug::IgnoresCancellation;
    let (mut slept, mut first_error, mut attempt) = (VDuration::ZERO, None, 0_u32);
    // Delays replaced by a retry-after (`ReplacesBackoff`): the backoff does not advance for them.
    let mut replaced = 0_u32;
    loop {
        if deadline_at.is_some_and(|at| world.now() >= at) {
            return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
        }
        if honors_cancel && world.is_cancelled() {
            return Ok(CallResult::Err(ErrorKind::Cancelled));
        }
        attempt += 1;
        if bug == Bug::ReversesBounds && attempt == 2 {
            world.random_between(2, 1)?;
        }
        if bug == Bug::PanicsOnRetry && attempt == 2 {
            panic!("naive loop: retry state missing");
        }
        let (error, outcome) = match dispatch(config, world)? {
            AttemptResult::Completed(Outcome::Ok) => {
                if bug == Bug::AttemptAfterOk {
                    dispatch(config, world)?;
                }
                return Ok(CallResult::Ok);
            }
            AttemptResult::Completed(outcome) => {
                (ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient), outcome)
            }
            AttemptResult::TimedOut => (ErrorKind::Timeout, Outcome::Hang),
            AttemptResult::Cancelled if honors_cancel => return Ok(CallResult::Err(ErrorKind::Cancelled)),
            AttemptResult::Cancelled => (ErrorKind::Transient, Outcome::Transient),
        };
        let first = *first_error.get_or_insert(error);
        let backoff_n = if bug == Bug::AdvancesReplacedBackoff { attempt } else { attempt - replaced };
        let delay = plan_delay(config, attempt, backoff_n, outcome, runs);
        replaced += u32::from(replaces_backoff(&contract, outcome));
        if give_up(config, &call, attempt, error) {
            return give_up_with(config, world, error, first, delay);
        }
        if bug != Bug::IgnoresSleepBudget
            && contract.delays.sleep_budget.is_some_and(|budget| slept.saturating_add(delay) > budget)
        {
            return Ok(CallResult::Err(error));
        }
        if deadline_at.is_some_and(|at| world.now().saturating_add(delay) >= at) {
            return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
        }
        let announced = if bug == Bug::MisannouncesDelay { delay.saturating_add(ms(1)) } else { delay };
        world.notify(announced)?;
        if bug == Bug::ForgetsToSleep {
            continue;
        }
        if world.sleep(delay)? == Wake::Cancelled && honors_cancel {
            return Ok(CallResult::Err(ErrorKind::Cancelled));
        }
        slept = slept.saturating_add(delay);
    }
}

fn give_up(config: &NaiveConfig, call: &CallInfo, attempt: u32, error: ErrorKind) -> bool {
    let contract = config.contract;
    let retry_on = contract.retry.retry_on.unwrap_or(RetryOn::ALL);
    let retryable = match error {
        ErrorKind::Transient => retry_on.transient,
        ErrorKind::RateLimited => retry_on.rate_limited,
        ErrorKind::Timeout => retry_on.timeout,
        ErrorKind::Fatal => config.bug == Bug::RetriesFatal,
        _ => false,
    };
    let idempotency_ok =
        call.idempotent || !contract.retry.respects_idempotency || config.bug == Bug::RetriesNonIdempotent;
    !retryable || attempt >= attempt_limit(config) || !idempotency_ok
}

fn give_up_with(
    config: &NaiveConfig,
    world: &mut World<'_>,
    error: ErrorKind,
    first: ErrorKind,
    delay: VDuration,
) -> Result<CallResult, Abort> {
    match config.bug {
        Bug::SleepsBeforeGivingUp => {
            world.notify(delay)?;
            world.sleep(delay)?;
            Ok(CallResult::Err(error))
        }
        Bug::SwallowsTimeout if error == ErrorKind::Timeout => Ok(CallResult::Ok),
        Bug::SwallowsExhaustion => Ok(CallResult::Ok),
        Bug::ReportsFirstError => Ok(CallResult::Err(first)),
        _ => Ok(CallResult::Err(error)),
    }
}

/// `true` when `outcome` is a rate limit whose retry-after replaces the backoff delay by the contract.
fn replaces_backoff(contract: &Contract, outcome: Outcome) -> bool {
    let replaces = contract.rate.retry_after.is_some_and(|policy| policy.combine == RetryAfterCombine::ReplacesBackoff);
    replaces && matches!(outcome, Outcome::RateLimited { .. })
}

/// The delay after attempt `attempt`, the `backoff_n`-th of the backoff sequence.
fn plan_delay(config: &NaiveConfig, attempt: u32, backoff_n: u32, outcome: Outcome, runs: u64) -> VDuration {
    let contract = config.contract;
    if let (Outcome::RateLimited { retry_after }, true) = (outcome, replaces_backoff(&contract, outcome)) {
        return retry_after;
    }
    let shape = contract.delays.backoff.and_then(|shape| shape.nth(backoff_n)).unwrap_or(VDuration::ZERO);
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    let mut delay = match config.bug {
        Bug::DoublesDelay => shape.saturating_mul(2),
        Bug::ZeroSecondDelay if attempt == 2 => VDuration::ZERO,
        Bug::RemembersRuns => shape.min(cap).saturating_add(ms(runs)),
        _ => shape.min(cap),
    };
    if let (Outcome::RateLimited { retry_after }, true) = (outcome, contract.rate.honors_retry_after) {
        if config.bug != Bug::IgnoresRetryAfter {
            delay = delay.max(retry_after);
        }
    }
    delay
}

/// The reference interpreter with a contract that misstates its circuit breaker: it runs `policy` but
/// promises `claimed`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Misdeclared;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MisdeclaredConfig {
    pub policy: Policy,
    pub claimed: Option<CircuitContract>,
}

impl Subject for Misdeclared {
    type Config = MisdeclaredConfig;
    fn name(&self) -> &str {
        "misdeclared"
    }
    fn contract(&self, config: &MisdeclaredConfig) -> Contract {
        let mut promise = Reference.contract(&config.policy);
        promise.circuit = Declared::from(config.claimed);
        promise
    }
    fn run(&self, config: &MisdeclaredConfig, world: &mut World<'_>) -> Result<(), Abort> {
        Reference.run(&config.policy, world)
    }
}

/// The reference interpreter running `policy` while promising `contract`: a subject whose behaviour is
/// known and whose promise is wrong on purpose (the broken subject of a law's table test).
#[derive(Clone, Copy, Debug, Default)]
pub struct Claims;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClaimsConfig {
    pub policy: Policy,
    pub contract: Contract,
}

impl Subject for Claims {
    type Config = ClaimsConfig;
    fn name(&self) -> &str {
        "claims"
    }
    fn contract(&self, config: &ClaimsConfig) -> Contract {
        config.contract
    }
    fn run(&self, config: &ClaimsConfig, world: &mut World<'_>) -> Result<(), Abort> {
        Reference.run(&config.policy, world)
    }
}

/// Runs the reference with `policy`, promising what `edit` makes of its honest contract.
pub fn claiming(policy: Policy, edit: impl FnOnce(&mut Contract), schedule: Schedule) -> Run {
    let mut contract = Reference.contract(&policy);
    edit(&mut contract);
    run(&Claims, &ClaimsConfig { policy, contract }, schedule)
}

/// A defect of [`BrokenBreaker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BreakerBug {
    /// No defect: the reference breaker around one attempt per call.
    None,
    /// Rejects every call.
    RejectsAll,
    /// A cancelled probe never gives its slot back.
    KeepsCancelledProbeSlot,
    /// Rejects the call right after the probes closed the breaker.
    StaysOpenAfterProbes,
}

/// The reference breaker around one attempt per call, with one defect, promising the reference's
/// breaker contract.
#[derive(Clone, Copy, Debug, Default)]
pub struct BrokenBreaker;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BrokenBreakerConfig {
    pub policy: Policy,
    pub bug: BreakerBug,
}

impl Subject for BrokenBreaker {
    type Config = BrokenBreakerConfig;
    fn name(&self) -> &str {
        "broken-breaker"
    }
    fn contract(&self, config: &BrokenBreakerConfig) -> Contract {
        Reference.contract(&config.policy)
    }
    fn run(&self, config: &BrokenBreakerConfig, world: &mut World<'_>) -> Result<(), Abort> {
        use timelaw_core::reference::Breaker;
        use timelaw_core::{CircuitState, Rejection};
        let Some(params) = config.policy.circuit else { return Ok(()) };
        let mut breaker = Breaker::new(params);
        let mut reject_next = false;
        world.for_each_call(|world, _call| {
            let admitted = breaker.admit(world)?;
            if !admitted || config.bug == BreakerBug::RejectsAll || std::mem::take(&mut reject_next) {
                world.reject(Rejection::CircuitOpen)?;
                return Ok(CallResult::Err(ErrorKind::CircuitOpen));
            }
            let result = match world.dispatch()? {
                AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
                AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
                AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
            };
            let before = breaker.state();
            let keeps_slot = config.bug == BreakerBug::KeepsCancelledProbeSlot;
            if !(keeps_slot && result == CallResult::Err(ErrorKind::Cancelled)) {
                breaker.record(world, result)?;
            }
            let closed_by_probes = before == CircuitState::HalfOpen && breaker.state() == CircuitState::Closed;
            reject_next = config.bug == BreakerBug::StaysOpenAfterProbes && closed_by_probes;
            Ok(result)
        })
    }
}

/// Runs [`BrokenBreaker`] with `bug`.
pub fn broken_breaker(policy: Policy, bug: BreakerBug, schedule: Schedule) -> Run {
    run(&BrokenBreaker, &BrokenBreakerConfig { policy, bug }, schedule)
}

/// A hand-built trace: `(at_ms, call, attempt, kind)` per event, sequence numbers in order.
pub fn hand_built(events: &[(u64, u32, u32, EventKind)]) -> Trace {
    let mut trace = Trace::new();
    for &(at_ms, call, attempt, kind) in events {
        trace.push(timelaw_core::VInstant::EPOCH.saturating_add(ms(at_ms)), call, attempt, kind);
    }
    trace
}

/// A run of `trace` under `contract` and `schedule`, as a law observes it.
pub fn observed(contract: Contract, schedule: Schedule, trace: Trace) -> Run {
    Run { schedule, contract, trace, replay: None, without_wall_jumps: None }
}

pub const START: EventKind = EventKind::CallStart { idempotent: true };
pub const ATTEMPT: EventKind = EventKind::AttemptStart;
pub const FAILED: EventKind = EventKind::AttemptEnd { outcome: Outcome::Transient };
pub const SUCCEEDED: EventKind = EventKind::AttemptEnd { outcome: Outcome::Ok };
pub const RETURNED_OK: EventKind = EventKind::CallEnd { result: CallResult::Ok };
pub const RETURNED_ERR: EventKind = EventKind::CallEnd { result: CallResult::Err(ErrorKind::Transient) };

/// One call: a transient failure, a 10 ms sleep, then the retry refused by the stated rate limiter, and
/// the refusal returned.
pub fn refused_after_sleep() -> Run {
    let mut contract = promise(3, ms(10));
    contract.limiter = timelaw_core::Declared::Stated(timelaw_core::LimiterContract::token_bucket(1, ms(1000)));
    contract.retry.reports_last_result = true;
    let refused = EventKind::Rejected { reason: timelaw_core::Rejection::LimiterEmpty };
    let returned = EventKind::CallEnd { result: CallResult::Err(ErrorKind::LimiterEmpty) };
    let slept = EventKind::SleepRequested { duration: ms(10) };
    let events = [
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 0, 1, FAILED),
        (0, 0, 1, slept),
        (10, 0, 1, refused),
        (10, 0, 1, returned),
    ];
    observed(contract, single(&[T, OK]), hand_built(&events))
}
