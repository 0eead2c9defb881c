//! The canonical minimum of every corpus bug, written by reasoning about the bug (then confirmed by
//! `tests/suite/corpus.rs`: each violates its law, and the reference holds it). "Minimum" follows the order of
//! simplicity (`timelaw::shrink::order`): fewer calls, then fewer dispatches and steps, then simpler
//! outcomes (ok, transient, fatal, rate-limited, hang), then a simpler config, then smaller durations;
//! the seed is 0. Among the cases that use no feature the bug does not need: a shrinker only removes and
//! lowers, and a feature added can buy a smaller shape (a 0 ns attempt timeout fails an empty call, so
//! "timeout 0, no step" is smaller by the order than "one transient step"), which a found case without
//! that feature can never reach. Test code only.
#![allow(dead_code)]

use timelaw::core::reference::{Backoff, Jitter, Policy};
use timelaw::core::{
    BudgetContract, CallScript, Case, CircuitContract, ClockFaults, ClockKind, FailFrom, JumpAt, Outcome, ReadFailure,
    RetryOn, Schedule, Step, VDuration, WallJump,
};

use super::corpus::CorpusBug;
use super::corpus_subject::Slip;
use super::minima::stated_minimum;
use super::planted_clocks::ClockBug;

const NS: VDuration = VDuration::from_nanos(1);
const NS2: VDuration = VDuration::from_nanos(2);
const ZERO: VDuration = VDuration::ZERO;

/// `max_attempts` attempts, constant backoff of `delay` capped at `delay`, nothing else.
fn attempts(max_attempts: u32, delay: VDuration) -> Policy {
    Policy::new(max_attempts, Backoff::Constant { delay }, delay)
}

fn steps(outcomes: &[Outcome]) -> Schedule {
    Schedule::single(outcomes.iter().map(|&outcome| Step::instant(outcome)).collect())
}

/// One call with no scripted step (every dispatch succeeds at once).
fn empty() -> Schedule {
    Schedule::single(vec![])
}

fn transients(count: usize) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); count])
}

/// `count` transient failures in one call, as one repeated step (the normal form of equal steps).
fn repeated(count: u32) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient).repeated(count)])
}

fn rate_limited(retry_after: VDuration) -> Schedule {
    steps(&[Outcome::RateLimited { retry_after }])
}

/// A breaker of window 1 opening on one failure.
fn breaker(failure_percent: u32, open_for: VDuration) -> Policy {
    let circuit = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent,
        open_for,
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    Policy { circuit: Some(circuit), ..attempts(1, ZERO) }
}

/// Two calls: the first fails once after `took`, the second is empty and follows at once.
fn failure_then_call(took: VDuration) -> Schedule {
    Schedule::new(vec![CallScript::new(vec![Step::new(took, Outcome::Transient)]), CallScript::new(vec![])])
}

/// The canonical minimum of `bug`.
pub fn canonical(bug: CorpusBug) -> Case<Policy> {
    match bug {
        CorpusBug::Planted(bug) => stated_minimum(bug),
        CorpusBug::Clock(bug) => clock_minimum(bug),
        CorpusBug::Slip(slip) => slip_minimum(slip),
        CorpusBug::Load(bug) => super::planted_load::load_minimum(bug),
    }
}

/// The canonical minimum of each planted clock bug, in words:
pub fn clock_minimum(bug: ClockBug) -> Case<Policy> {
    let simplest = attempts(2, ZERO);
    let one_transient = |clock: ClockFaults| transients(1).with_clock(clock);
    let jump =
        |by_ns| ClockFaults { wall_jumps: vec![WallJump { at: JumpAt::Attempt(1), by_ns }], read_failures: vec![] };
    match bug {
        // A 1 ns limit, a transient failure, the wall clock 1 ns ahead during it: the wall-clock limit
        // gives up where the monotonic one retries.
        ClockBug::WallClockLimit => Case::new(Policy { deadline: Some(NS), ..simplest }, one_transient(jump(1)), 0),
        // A retry decision after the wall clock went back 1 ns during the first attempt.
        ClockBug::PanicsOnBackwardsJump => Case::new(simplest, one_transient(jump(-1)), 0),
        // A limit (of 0 ns: the clock is read before the comparison), a transient failure, and the first
        // monotonic read fails: the defect returns Ok.
        ClockBug::FailedReadAsOk => {
            let rule = ReadFailure { clock: ClockKind::Monotonic, from: FailFrom::AfterReads(0), count: 1 };
            let failing = ClockFaults { wall_jumps: vec![], read_failures: vec![rule] };
            Case::new(Policy { deadline: Some(ZERO), ..simplest }, one_transient(failing), 0)
        }
    }
}

/// The canonical minimum of each slip.
pub fn slip_minimum(slip: Slip) -> Case<Policy> {
    let (config, schedule) = retry_minimum(slip).or_else(|| state_minimum(slip)).expect("every slip has a minimum");
    Case::new(config, schedule, 0)
}

/// The minima of the slips within one call's retries, in words:
fn retry_minimum(slip: Slip) -> Option<(Policy, Schedule)> {
    Some(match slip {
        // Nothing to find: the faithful copy has no minimum; its entry is the simplest case.
        Slip::None => (attempts(1, ZERO), empty()),
        // A 0 ns timeout cuts the only attempt allowed; the slip retries the timeout.
        Slip::TimeoutRetriedPastMax => (Policy { attempt_timeout: Some(ZERO), ..attempts(1, ZERO) }, empty()),
        // Linear 0 ns + 1 ns per retry under a 1 ns cap: the first delay is 1 ns, not 0 ns.
        Slip::LinearStepOffByOne => (Policy::new(2, Backoff::Linear { initial: ZERO, step: NS }, NS), transients(1)),
        // Exponential from 1 ns by 2 under a 2 ns cap: the first delay is 2 ns, not 1 ns.
        Slip::ExponentialFactorOffByOne => {
            (Policy::new(2, Backoff::Exponential { initial: NS, factor: 2 }, NS2), transients(1))
        }
        // Linear 0 ns + 2 ns under a 1 ns cap: the first delay (0 ns) is below the cap, so the second
        // (2 ns) goes through uncapped. Two transient failures: one step repeated twice (the normal form).
        Slip::CapCheckedOnPrevious => (Policy::new(3, Backoff::Linear { initial: ZERO, step: NS2 }, NS), repeated(2)),
        // Full jitter on a 0 ns base: `random % 0` panics.
        Slip::FullJitterModuloBase => (Policy { jitter: Jitter::Full, ..attempts(2, ZERO) }, transients(1)),
        // A transient failure sets the flag, so the fatal error after it is retried (a third attempt).
        Slip::RetryingFlagSticks => (attempts(3, ZERO), steps(&[Outcome::Transient, Outcome::Fatal])),
        // Transient errors retried, rate limits not: the slip reads the rate-limit flag and gives up on
        // a call scripted to succeed on its retry.
        Slip::TransientReadsRateLimitFlag => {
            let retry_on = RetryOn { rate_limited: false, ..RetryOn::ALL };
            (Policy { retry_on, ..attempts(2, ZERO) }, transients(1))
        }
        // A 1 ns timeout truncated to 0 ms cuts an instant success.
        Slip::TimeoutTruncatedToMillis => (Policy { attempt_timeout: Some(NS), ..attempts(1, ZERO) }, empty()),
        // A transient then a fatal error: the call returns the transient one.
        Slip::FirstErrorReported => (attempts(2, ZERO), steps(&[Outcome::Transient, Outcome::Fatal])),
        // A transient failure, then success: the call returns the transient error.
        Slip::StaleErrorAfterSuccess => (attempts(2, ZERO), transients(1)),
        // Deadline 1 ns, a 1 ns delay wakes exactly on it, and the retry starts there.
        Slip::DeadlineSleepStrict => (Policy { deadline: Some(NS), ..attempts(2, NS) }, transients(1)),
        // Deadline 1 ns, timeout 3 ns, a success taking 2 ns: the timeout, not shortened to the time left
        // before the deadline, lets the attempt end at 2 ns, past the deadline. (A 2 ns timeout would cut
        // it, and a cut attempt ranks as the hang the caller saw: see `timelaw::shrink::order`.)
        Slip::TimeoutNotShortenedByDeadline => {
            let policy =
                Policy { attempt_timeout: Some(VDuration::from_nanos(3)), deadline: Some(NS), ..attempts(1, ZERO) };
            (policy, Schedule::single(vec![Step::new(NS2, Outcome::Ok)]))
        }
        // A budget of 0 ns and a 1 ns delay.
        Slip::SleepBudgetForgetsNextDelay => (Policy { sleep_budget: Some(ZERO), ..attempts(2, NS) }, transients(1)),
        // Retry-after 1 ns under a 1 ns cap, a 0 ns delay: the slip sleeps min(0, 1) = 0 ns.
        Slip::RetryAfterAsUpperBound => (retry_after_policy(NS), rate_limited(NS)),
        // Retry-after 0 ns equal to a 0 ns cap: the slip gives up on a call scripted to succeed.
        Slip::RetryAfterCapInclusive => (retry_after_policy(ZERO), rate_limited(ZERO)),
        // Retry-after 1 ns over a 0 ns delay: the notification says 0 ns, the sleep is 1 ns.
        Slip::NotifyBeforeRetryAfter => (retry_after_policy(NS), rate_limited(NS)),
        _ => return None,
    })
}

/// The minima of the slips in state across calls and the call's frame (breaker, budget, cancellation,
/// idempotency, stream), in words:
fn state_minimum(slip: Slip) -> Option<(Policy, Schedule)> {
    Some(match slip {
        // One failure in a window of one is exactly 100%: the slip stays closed, the second call is
        // dispatched while the breaker should be open for 1 ns.
        Slip::BreakerStrictRatio => (breaker(100, NS), failure_then_call(ZERO)),
        // Open for 0 ns: the next call at the same instant must probe; the slip rejects it.
        Slip::BreakerCooldownStrict => (breaker(1, ZERO), failure_then_call(ZERO)),
        // The failing call takes 1 ns and the breaker is open for 1 ns from its end; the slip counts
        // from its start and lets the next call through at once.
        Slip::BreakerOpenedAtCallStart => (breaker(1, NS), failure_then_call(NS)),
        // A budget of no retries; the slip allows one.
        Slip::BudgetOffByOne => {
            let budget = BudgetContract { min_retries: 0, retry_percent: 0, ..BudgetContract::default() };
            (Policy { retry_budget: Some(budget), ..attempts(2, ZERO) }, transients(1))
        }
        // Cancelled at once: the slip still dispatches the first attempt.
        Slip::CancelNotCheckedBeforeFirst => {
            let mut call = CallScript::new(vec![]);
            call.cancel_after = Some(ZERO);
            (attempts(1, ZERO), Schedule::new(vec![call]))
        }
        // A non-idempotent call is rate limited (retry-after 0 ns): the slip retries it.
        Slip::IdempotencyIgnoredForRateLimits => {
            let mut call = CallScript::new(vec![Step::instant(Outcome::RateLimited { retry_after: ZERO })]);
            call.idempotent = false;
            (attempts(2, ZERO), Schedule::new(vec![call]))
        }
        // Two calls, the first times out (0 ns timeout): the slip never serves the second.
        Slip::TimeoutEndsStream => {
            let calls = vec![CallScript::new(vec![]), CallScript::new(vec![])];
            (Policy { attempt_timeout: Some(ZERO), ..attempts(1, ZERO) }, Schedule::new(calls))
        }
        // A 1 ns attempt timeout, an instant transient failure and a 1 ns delay: the retry starts at
        // 1 ns, where the slip's timer, armed at the call's start, has no time left and cuts it at once
        // (an unscripted attempt succeeding at once ties with it, and a tie is expired), 1 ns early.
        Slip::TimeoutArmedPerCall => (Policy { attempt_timeout: Some(NS), ..attempts(2, NS) }, transients(1)),
        // A 1 ns deadline and two calls without steps, the second 1 ns after the first: the slip counts
        // its deadline from the first call's start and reports it before the second call's first attempt.
        Slip::DeadlineFromFirstCall => {
            let later = CallScript { gap_before: NS, ..CallScript::new(vec![]) };
            let calls = vec![CallScript::new(vec![]), later];
            (Policy { deadline: Some(NS), ..attempts(1, ZERO) }, Schedule::new(calls))
        }
        _ => return None,
    })
}

/// Honours retry-after, two attempts, no delay, a cap of `cap`.
fn retry_after_policy(cap: VDuration) -> Policy {
    Policy { honor_retry_after: true, ..Policy::new(2, Backoff::Constant { delay: ZERO }, cap) }
}
