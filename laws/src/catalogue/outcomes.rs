//! Laws about what a call returns: success, fatal errors, the reported result, and eventual success.

use std::borrow::Cow;

use timelaw_core::{CallResult, CallScript, Contract, Event, EventKind, Outcome, Rejection, Step, TimerRace, VInstant};

use super::support::{ended_with, is_interrupted, last_index, take_call, LastAttempt};
use crate::ids;
use crate::law::{always_applies, applies, Law, LawKind, Observation};
use crate::temporal::{between, monitor, Check};
use crate::verdict::Verdict;

/// `success_ends_call`: after an attempt succeeds, its call makes no further attempt, does not sleep, and
/// returns `Ok`.
///
/// - Needs: nothing (applies to every subject).
/// - Violated at the `AttemptStart` or `SleepRequested` after the success, or at a `CallEnd` that is not
///   `Ok`.
/// - Vacuous when no attempt succeeded.
/// - Example violation: the first attempt returns `Ok`, and the subject dispatches a second one.
pub const SUCCESS_ENDS_CALL: Law = Law {
    id: ids::SUCCESS_ENDS_CALL,
    title: "a successful attempt ends its call with Ok",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: success_ends_call,
};

fn success_ends_call(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, false, |succeeded, event| match event.kind {
        EventKind::CallStart { .. } => {
            *succeeded = false;
            Check::Skip
        }
        // A second success (a hedged attempt's) passes again, which changes nothing.
        EventKind::AttemptEnd { outcome: Outcome::Ok } => {
            *succeeded = true;
            Check::Pass
        }
        _ if !*succeeded => Check::Skip,
        EventKind::AttemptStart => Check::fail("the call made another attempt after a success"),
        EventKind::SleepRequested { .. } => Check::fail("the call slept after a success"),
        EventKind::CallEnd { result } => Check::that(result.is_ok(), "the call succeeded but returned Err"),
        _ => Check::Skip,
    })
}

/// `fatal_not_retried`: after an attempt ends with a fatal error, its call makes no further attempt.
///
/// - Needs: `retry.retry_on` (a promise about which outcomes are retried; fatal errors never are).
/// - Violated at the `AttemptStart` after the fatal outcome.
/// - Vacuous when no attempt ended fatally.
/// - Example violation: a 400 Bad Request is sent again.
pub const FATAL_NOT_RETRIED: Law = Law {
    id: ids::FATAL_NOT_RETRIED,
    title: "a fatal error is never retried",
    kind: LawKind::Safety,
    needs: &["retry.retry_on"],
    applies: applies!(contract => contract.retry.retry_on.is_some()),
    check: fatal_not_retried,
};

fn fatal_not_retried(observation: &Observation<'_>) -> Verdict {
    between(
        &observation.trace.events,
        |event| ended_with(&event.kind, |outcome| outcome == Outcome::Fatal),
        |event| matches!(event.kind, EventKind::CallEnd { .. } | EventKind::CallStart { .. }),
        |event| event.kind != EventKind::AttemptStart,
    )
    .because("the call retried after a fatal error")
}

/// `result_matches_last_attempt`: a call returns what its last attempt gave: `Ok` or the error of its
/// outcome ([`CallResult::from_outcome`]), `Err(Timeout)` after a timeout, `Err(Cancelled)` after a
/// cancellation. Calls that return `Err(Cancelled)` or `Err(DeadlineExceeded)` are not judged (the caller
/// or the clock decided), nor are calls that made no attempt, nor calls whose last attempt was dropped
/// by something other than its own timeout (`AttemptDropped`: it gave no result), nor calls whose retry a
/// bulkhead or a rate limiter refused after the last attempt (the refusal is what they return). An attempt
/// cancelled at the instant another attempt of the call decided it (a hedge's loser,
/// [`LastAttempt`]) is not the last attempt.
///
/// - Needs: `reports_last_result == true`.
/// - Violated at the `CallEnd` with the wrong result.
/// - Vacuous when no call was judged.
/// - Example violation: the last attempt fails fatally and the call returns `Err(Transient)`.
pub const RESULT_MATCHES_LAST_ATTEMPT: Law = Law {
    id: ids::RESULT_MATCHES_LAST_ATTEMPT,
    title: "a call returns the result of its last attempt",
    kind: LawKind::Safety,
    needs: &["retry.reports_last_result"],
    applies: applies!(contract => contract.retry.reports_last_result),
    check: result_matches_last_attempt,
};

fn result_matches_last_attempt(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, LastAttempt::default(), |last, event| {
        last.step(event);
        match event.kind {
            EventKind::CallEnd { result } => match last.result.take() {
                Some(expected) if !is_interrupted(result) && result != expected => {
                    Check::failed(format!("the call returned {result:?}, but its last attempt gave {expected:?}"))
                }
                Some(_) if !is_interrupted(result) => Check::Pass,
                _ => Check::Skip,
            },
            // A retry a bulkhead or a limiter refused ends the call with that refusal: not judged.
            EventKind::Rejected { reason: Rejection::BulkheadFull | Rejection::LimiterEmpty } => {
                last.result = None;
                Check::Skip
            }
            // A dropped attempt stands for no result (not judged); a hedge's loser for none of its own.
            _ => Check::Skip,
        }
    })
}

/// `eventually_succeeds` (liveness): a call that is scripted to succeed within its attempts, after only
/// retryable failures, returns `Ok`.
///
/// The precondition, per call: the call has no `cancel_after`, is idempotent (or the subject does not
/// respect idempotency), and some attempt `j + 1 <= max_attempts` succeeds within the timeout (outcome
/// `Ok`, and a duration below `timing.attempt_timeout`, or equal to it under [`TieRule::InnerWins`](timelaw_core::TieRule::InnerWins); a dispatch
/// past the end of the script is `Ok` after zero time) while every earlier attempt fails retryably: a
/// transient error if `retry_on.transient`, a rate limit if `retry_on.rate_limited` (and, when
/// `rate.honors_retry_after`, a retry-after within `delays.max`), a timeout (a hang or a step as long as the
/// timeout, only with `timing.attempt_timeout`) if `retry_on.timeout`. A step that completes within the
/// timer's granularity of its timeout (`timing.timer_granularity`: either the step or the timer may come
/// first) counts only when both endings are retried; otherwise the call is not judged.
///
/// - Compares: each step's duration with the attempt timeout through [`TimingContract::race`](timelaw_core::TimingContract::race) (the timer
///   fires up to `timing.timer_granularity` late; the tie rule decides an exact tie).
/// - Needs: `retry.max_attempts` and `retry.retry_on`, and no `timing.deadline`, `delays.sleep_budget`,
///   `timing.retry_elapsed_max`, `circuit`, `budget`, `bulkhead` or `limiter`, stated or unstated: each
///   of those may legitimately stop retries, so the law does not apply then. With `hedge` declared, a
///   call that hedged (started an attempt while another of its attempts ran) is not judged: which step
///   each dispatch takes then depends on timing, and the first answer may decide the try.
/// - Violated at the call's `CallEnd` when it is not `Ok`; on a complete trace where the call never
///   ended (or never started), at the last event. Inconclusive on a truncated trace.
/// - Vacuous when no call met the precondition.
/// - Example violation: `max_attempts = 3`, two transient failures then success, and the call gives up
///   after two attempts.
pub const EVENTUALLY_SUCCEEDS: Law = Law {
    id: ids::EVENTUALLY_SUCCEEDS,
    title: "a call scripted to succeed within its attempts returns Ok",
    kind: LawKind::Liveness,
    needs: &["retry.max_attempts", "retry.retry_on"],
    applies: eventually_applies,
    check: eventually_succeeds,
};

// Never inlined: one address wherever its laws are named (`crate::law::applies!`).
#[inline(never)]
fn eventually_applies(contract: &Contract) -> bool {
    // Stated or unstated ("unknown" is not "absent"): each may legitimately stop retries.
    let limits_free = !contract.has_time_limit() && !contract.has_circuit() && !contract.has_retry_budget();
    // A bulkhead or a rate limiter may refuse a retry as legitimately.
    let limits_free = limits_free && contract.bulkhead.is_absent() && contract.limiter.is_absent();
    limits_free && contract.retry.max_attempts.is_some() && contract.retry.retry_on.is_some()
}

/// How a scripted step ends under the contract's timeout.
enum Fate {
    Succeeds,
    TimesOut,
    Fails(Outcome),
    /// The step completes within the timer's granularity: it may end with its outcome or time out.
    Either(Outcome),
}

fn fate(contract: &Contract, step: Step) -> Fate {
    if let Some(timeout) = contract.timing.attempt_timeout {
        // The race of the step's completion and its timer, both measured from the attempt's start.
        let (completes, due) = (VInstant::EPOCH.saturating_add(step.duration), VInstant::EPOCH.saturating_add(timeout));
        match contract.timing.race(completes, due, contract.timing.timeout_tie) {
            _ if step.outcome == Outcome::Hang => return Fate::TimesOut,
            TimerRace::TimerFirst => return Fate::TimesOut,
            TimerRace::Either => return Fate::Either(step.outcome),
            TimerRace::EventFirst => {}
        }
    }
    match step.outcome {
        Outcome::Ok => Fate::Succeeds,
        outcome => Fate::Fails(outcome),
    }
}

/// Whether the call must succeed (the precondition in the law's docs).
fn should_succeed(contract: &Contract, script: &CallScript) -> bool {
    let (Some(max), Some(retry_on)) = (contract.retry.max_attempts, contract.retry.retry_on) else {
        return false;
    };
    if script.cancel_after.is_some() || (!script.idempotent && contract.retry.respects_idempotency) {
        return false;
    }
    let cap_ok =
        |retry_after| !contract.rate.honors_retry_after || contract.delays.max.is_none_or(|cap| retry_after <= cap);
    // Every dispatch past the end of the script is the same, so one past the end decides.
    let last = u32::try_from(script.dispatches_scripted()).unwrap_or(u32::MAX).saturating_add(1).min(max);
    let retried = |outcome| match outcome {
        Outcome::Transient => retry_on.transient,
        Outcome::RateLimited { retry_after } => retry_on.rate_limited && cap_ok(retry_after),
        _ => false,
    };
    for attempt in 1..=last {
        match fate(contract, script.step(attempt)) {
            Fate::Succeeds => return true,
            Fate::TimesOut if retry_on.timeout => {}
            Fate::Fails(outcome) if retried(outcome) => {}
            // Within the timer's granularity: judged only when both endings are retried.
            Fate::Either(outcome) if retry_on.timeout && retried(outcome) => {}
            _ => return false,
        }
    }
    false
}

fn eventually_succeeds(observation: &Observation<'_>) -> Verdict {
    let events = &observation.trace.events;
    let (mut cursor, mut verdict) = (0, Verdict::Vacuous);
    for (index, script) in observation.schedule.calls.iter().enumerate() {
        let call = take_call(events, &mut cursor, u32::try_from(index).unwrap_or(u32::MAX));
        if !should_succeed(observation.contract, script) || hedged(observation.contract, call) {
            continue;
        }
        verdict = verdict.merge(judge_success(observation, call));
        if verdict.is_violated() {
            break;
        }
    }
    verdict
}

/// `true` when the contract declares hedging and the call started an attempt while another of its
/// attempts ran: which scripted step each dispatch takes then depends on timing, so the law's reading of
/// the script (attempt `j` takes step `j` after attempt `j - 1` failed) does not hold for the call.
fn hedged(contract: &Contract, call: &[Event]) -> bool {
    if !contract.hedge.is_present() {
        return false;
    }
    let mut running = 0_u32;
    for event in call {
        match event.kind {
            EventKind::AttemptStart if running > 0 => return true,
            EventKind::AttemptStart => running += 1,
            ref kind if super::support::ends_attempt(kind) => running = running.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn judge_success(observation: &Observation<'_>, call: &[Event]) -> Verdict {
    let end = call.iter().find_map(|event| super::support::end_of(event).map(|result| (event.seq, result)));
    match end {
        Some((_, CallResult::Ok)) => Verdict::Holds,
        Some((seq, _)) => Verdict::violated_at(seq, "the call was scripted to succeed within its attempts but failed"),
        None if observation.trace.is_complete() => Verdict::Violated(crate::verdict::Violation {
            check: crate::CheckSite::here(),
            event: last_index(observation.trace),
            message: Cow::Borrowed("the call was scripted to succeed within its attempts but never returned"),
        }),
        None => Verdict::Inconclusive(Cow::Borrowed("the trace was cut short before the call returned")),
    }
}
