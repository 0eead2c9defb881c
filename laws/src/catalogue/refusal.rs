//! Laws that catch a subject refusing too much: giving up on a retry the contract owes, rejecting a retry
//! its budget has room for, or rejecting a call by a mechanism the contract does not declare. (The circuit
//! breaker's refusal laws live with the other circuit laws.)

use timelaw_core::{
    CallResult, Contract, ErrorKind, Event, EventKind, Outcome, Rejection, SleepRange, VDuration, VInstant,
};

use super::budget_model::BudgetModel;
use super::sleeps::{sleeps_of, SleepWalk, Slept};
use super::support::attempt_result;
use crate::ids;
use crate::law::{always_applies, applies, judged, Law, LawKind, Observation};
use crate::temporal::{each_call, monitor, Check};
use crate::verdict::Verdict;

/// `no_undeclared_rejection`: no call is rejected by a mechanism the contract does not declare: a
/// circuit-open rejection (or `Err(CircuitOpen)` result) needs a circuit breaker, a budget rejection a
/// retry budget, a bulkhead-full one a bulkhead, a limiter-empty one a rate limiter, stated or unstated
/// ([`Contract::has_circuit`], [`Contract::has_retry_budget`]).
///
/// - Needs: nothing (reads `circuit` and `budget`, stated or unstated).
/// - Violated at the first rejection (or `CallEnd` with `Err(CircuitOpen)`) by an undeclared mechanism.
/// - Vacuous when nothing was rejected.
/// - Example violation: a subject with no breaker in its contract returns `Err(CircuitOpen)`.
pub const NO_UNDECLARED_REJECTION: Law = Law {
    id: ids::NO_UNDECLARED_REJECTION,
    title: "no call is rejected by a mechanism the contract does not declare",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: no_undeclared_rejection,
};

fn no_undeclared_rejection(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    monitor(&observation.trace.events, (), |(), event| {
        let declared = match event.kind {
            EventKind::Rejected { reason: Rejection::CircuitOpen }
            | EventKind::CallEnd { result: CallResult::Err(ErrorKind::CircuitOpen) } => contract.has_circuit(),
            EventKind::Rejected { reason: Rejection::BudgetExhausted } => contract.has_retry_budget(),
            EventKind::Rejected { reason: Rejection::BulkheadFull }
            | EventKind::CallEnd { result: CallResult::Err(ErrorKind::BulkheadFull) } => contract.bulkhead.is_present(),
            EventKind::Rejected { reason: Rejection::LimiterEmpty }
            | EventKind::CallEnd { result: CallResult::Err(ErrorKind::LimiterEmpty) } => contract.limiter.is_present(),
            _ => return Check::Skip,
        };
        Check::that(declared, "a call was rejected by a mechanism the contract does not declare")
    })
}

/// `retry_budget_admits_with_room`: a retry budget with room admits a retry. At every budget rejection,
/// the retries taken in the budget's window are already at what it allows (see [`super::budget_model`];
/// a retry is taken at the sleep before it, for a subject that spends its budget before sleeping).
///
/// - Needs: `budget` and `budget.admits` (the stated budget is exact, not only an upper
///   bound; reads `budget.window`).
/// - Violated at a `Rejected { BudgetExhausted }` while the budget has room.
/// - Vacuous when the budget rejected nothing.
/// - Example violation: `min_retries = 5`, and the first retry of the case is rejected.
pub const RETRY_BUDGET_ADMITS_WITH_ROOM: Law = Law {
    id: ids::RETRY_BUDGET_ADMITS_WITH_ROOM,
    title: "a retry budget with room admits a retry",
    kind: LawKind::Safety,
    needs: &["budget", "budget.admits"],
    applies: applies!(contract => contract.budget.stated().is_some_and(|budget| budget.admits)),
    check: retry_budget_admits_with_room,
};

fn retry_budget_admits_with_room(observation: &Observation<'_>) -> Verdict {
    let Some(model) = BudgetModel::of(observation.contract) else {
        return Verdict::NotApplicable;
    };
    let events = &observation.trace.events;
    let mut model = model.spent_at_sleep();
    if crate::temporal::calls_interleave(events) {
        model = model.deposits_when_run();
    }
    let mut verdict = Verdict::Vacuous;
    for (index, event) in events.iter().enumerate() {
        if event.kind != (EventKind::Rejected { reason: Rejection::BudgetExhausted }) {
            continue;
        }
        model.advance(events, index);
        if model.has_room() {
            return Verdict::violated_with(
                Some(event.seq),
                format!(
                    "the budget rejected a retry with room: {} retries taken of {} allowed",
                    model.retries(),
                    model.allowed()
                ),
            );
        }
        verdict = Verdict::Holds;
    }
    verdict
}

/// `elapsed_limit_does_not_stop_early`: an elapsed-time limit does not stop retries before it is
/// reached. A call whose last attempt failed retryably, with attempts left, gives up only when some
/// stated limit forbids the next retry even at the longest delay the contract allows for it: the
/// elapsed-time limit, the deadline, the sleep budget, a retry-after above the cap (by the declared
/// retry-after policy). Calls that are not idempotent, were cancelled, interrupted, rejected, or saw a
/// clock fault are not judged.
///
/// - Needs: `timing.retry_elapsed_max`, `retry.max_attempts`, `retry.retry_on`, and no retry budget,
///   circuit breaker or unstated mechanism (each may legitimately stop retries).
/// - Compares: the end of the last attempt plus the longest allowed next delay with each limit, exactly
///   (the elapsed-time limit by its `timing.retry_elapsed_bound`). The subject decides by reading its
///   clock, so the timer granularity does not enter: a retry it starts late is `no_retry_after_elapsed_limit`'s.
/// - Violated at the `CallEnd` of a call that gave up early.
/// - Holds on calls that retried; vacuous when no call retried or gave up.
/// - Example violation: `retry_elapsed_max = 10s`, 10ms delays, and the call gives up after 1s.
pub const ELAPSED_LIMIT_DOES_NOT_STOP_EARLY: Law = Law {
    id: ids::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY,
    title: "an elapsed-time limit does not stop retries early",
    kind: LawKind::Safety,
    needs: &["timing.retry_elapsed_max", "retry.max_attempts", "retry.retry_on"],
    applies: applies!(contract => contract.timing.retry_elapsed_max.is_some() && owes_retries(contract)),
    check: judged!(observation => gives_no_retry_up(observation, Judged::EveryFailure)),
};

/// `time_limit_does_not_stop_retries_early`: a deadline or a sleep budget does not stop retries before
/// it must. A call whose last attempt failed retryably, with attempts left, gives up (returning that
/// failure) only when some stated limit forbids the next retry even at the longest delay the contract
/// allows for it: the deadline, the sleep budget, the elapsed-time limit, a retry-after above the cap
/// (the same judgement as [`ELAPSED_LIMIT_DOES_NOT_STOP_EARLY`], for the other two limits). A budget
/// compared with `>=` where `>` belongs, or a deadline checked against the wrong instant, gives up
/// early. Calls that are not idempotent, were cancelled, interrupted, rejected, or saw a clock fault
/// are not judged; a call that reports `Err(DeadlineExceeded)` is [`DEADLINE_DOES_NOT_STOP_EARLY`]'s.
///
/// - Needs: `timing.deadline` or `delays.sleep_budget`, `retry.max_attempts`, `retry.retry_on`, and no
///   retry budget, circuit breaker or unstated mechanism (each may legitimately stop retries).
/// - Compares: the end of the last attempt plus the longest allowed next delay with each limit, exactly
///   (the sleep budget with the sleeps so far plus that delay).
/// - Violated at the `CallEnd` of a call that gave up early.
/// - Holds on calls that retried; vacuous when no call retried or gave up.
/// - Example violation: a sleep budget of 1s, 10ms delays, and the call gives up after 20ms of sleep.
pub const TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY: Law = Law {
    id: ids::TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY,
    title: "a deadline or sleep budget does not stop retries early",
    kind: LawKind::Safety,
    needs: &["retry.max_attempts", "retry.retry_on"],
    applies: applies!(contract => {
        (contract.timing.deadline.is_some() || contract.delays.sleep_budget.is_some()) && owes_retries(contract)
    }),
    check: judged!(observation => gives_no_retry_up(observation, Judged::EveryFailure)),
};

/// `deadline_does_not_stop_early`: a call returns `Err(DeadlineExceeded)` only once its deadline
/// (`start + deadline`) has fallen, or when it foresaw it: its last attempt failed retryably, attempts
/// were left, and the next retry, even at the longest delay the contract allows for it, would wake at
/// or after the deadline (giving up then instead of sleeping into the deadline is what a deadline
/// check before the sleep does). An attempt or a sleep cut before the deadline, or a deadline reported
/// before any attempt while time was left, is a deadline that fired early: counted from the wrong
/// instant (the first call's start, the subject's creation), in the wrong unit, or from a shorter
/// duration. Calls cancelled by then, rejected, or that saw a clock fault (`wall_jump_keeps_monotonic_limits`
/// and `failed_read_handled_as_declared` judge those), are not judged.
///
/// - Needs: `timing.deadline` (reads `retry.max_attempts`, `retry.retry_on` and the delays to judge a
///   foreseen deadline; without them, or with hedging, a call that gave up after an attempt is not
///   judged).
/// - Compares: the `CallEnd` instant with `start + deadline`, exactly (a coarse timer fires late, never
///   early); for a foreseen deadline, the end of the last attempt plus the longest allowed next delay.
/// - Violated at the `CallEnd` of a call that reported its deadline early.
/// - Holds on calls that returned `Err(DeadlineExceeded)` at or after the deadline, or foresaw it;
///   vacuous when no call returned it.
/// - Example violation: a 1s deadline measured from the first call's start, and a second call that
///   starts 1s later returns `Err(DeadlineExceeded)` before its first attempt.
pub const DEADLINE_DOES_NOT_STOP_EARLY: Law = Law {
    id: ids::DEADLINE_DOES_NOT_STOP_EARLY,
    title: "a call does not report its deadline before the deadline",
    kind: LawKind::Safety,
    needs: &["timing.deadline"],
    applies: applies!(contract => contract.timing.deadline.is_some()),
    check: deadline_does_not_stop_early,
};

fn deadline_does_not_stop_early(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let Some(deadline) = contract.timing.deadline else { return Verdict::NotApplicable };
    each_call(&observation.trace.events, |call| {
        let (Some(start), Some(end)) = (call.first(), call.last()) else { return Verdict::Vacuous };
        let EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) } = end.kind else {
            return Verdict::Vacuous;
        };
        let deadline_at = start.at.saturating_add(deadline);
        if end.at >= deadline_at {
            return Verdict::Holds;
        }
        if deadline_excused(observation, call, end.at) {
            return Verdict::Vacuous;
        }
        match foreseen(contract, call, deadline_at) {
            Some(true) => Verdict::Holds,
            None => Verdict::Vacuous,
            Some(false) => Verdict::Violated(crate::verdict::Violation {
                check: crate::CheckSite::here(),
                event: Some(end.seq),
                message: std::borrow::Cow::Borrowed(
                    "the call reported its deadline exceeded before the deadline, with no retry that would pass it",
                ),
            }),
        }
    })
}

/// `true` for a call the deadline law does not judge: cancelled by the time it ended, rejected, or with
/// a clock fault, a panic or a diagnostic in it.
fn deadline_excused(observation: &Observation<'_>, call: &[Event], end_at: VInstant) -> bool {
    let started = call.first().map_or(VInstant::EPOCH, |event| event.at);
    let script = call.first().and_then(|event| observation.schedule.calls.get(event.call as usize));
    let cancelled =
        script.and_then(|script| script.cancel_after).is_some_and(|after| started.saturating_add(after) <= end_at);
    cancelled
        || call.iter().any(|event| {
            matches!(
                event.kind,
                EventKind::AttemptCancelled
                    | EventKind::Rejected { .. }
                    | EventKind::ClockReadFailed { .. }
                    | EventKind::WallJump { .. }
                    | EventKind::SleepClamped { .. }
                    | EventKind::Diagnostic { .. }
                    | EventKind::Panic
            )
        })
}

/// Whether a call that reported its deadline before it foresaw it (see the law): `Some(false)` when it
/// did not (no finished attempt last, one that succeeded or may not be retried, no attempt left, or a
/// next retry that would wake before the deadline even at the longest delay), `None` when the contract
/// does not say enough to tell.
fn foreseen(contract: &Contract, call: &[Event], deadline_at: VInstant) -> Option<bool> {
    let last_action = call.iter().rev().find(|event| {
        matches!(
            event.kind,
            EventKind::AttemptStart
                | EventKind::AttemptEnd { .. }
                | EventKind::AttemptTimedOut { .. }
                | EventKind::AttemptDropped { .. }
                | EventKind::SleepRequested { .. }
                | EventKind::SleepCancelled
        )
    });
    let outcome = match last_action.map(|event| event.kind) {
        Some(EventKind::AttemptEnd { outcome }) => Some(outcome),
        Some(EventKind::AttemptTimedOut { .. }) => None,
        // No attempt, or an attempt or a sleep cut before the deadline: nothing to foresee.
        _ => return Some(false),
    };
    if contract.hedge.is_present() || contract.has_unstated() {
        return None;
    }
    let (max, retry_on) = (contract.retry.max_attempts?, contract.retry.retry_on?);
    let retryable = failure_of(retry_on, outcome).is_some_and(|(_, retryable)| retryable);
    let ending = ending(call, |at| contract.sleep_range(at));
    if !retryable || ending.attempts >= max {
        return Some(false);
    }
    let delay = longest_next_delay(contract, &ending, outcome)?;
    let ended_at = last_action.map_or(VInstant::EPOCH, |event| event.at);
    Some(ended_at.saturating_add(delay) >= deadline_at)
}

/// `rate_limited_retried_below_cap`: a rate-limited answer whose retry-after the declared policy can
/// wait (at or below the cap, or above it with `Clamp` / `SleepAnyway`, or `Ignored`) is retried when
/// the contract retries rate limits and attempts are left, unless a stated limit forbids the retry (as in
/// [`ELAPSED_LIMIT_DOES_NOT_STOP_EARLY`]).
///
/// - Needs: `rate.retry_after`, `retry.retry_on` with `rate_limited`, `retry.max_attempts`, and no retry
///   budget, circuit breaker or unstated mechanism.
/// - Violated at the `CallEnd` returning `Err(RateLimited)` without a retry it was owed.
/// - Holds on calls that retried after a rate limit; vacuous otherwise.
/// - Example violation: `max_attempts = 3`, a 429 asking for 1s under a 5s cap, and the call gives up.
pub const RATE_LIMITED_RETRIED_BELOW_CAP: Law = Law {
    id: ids::RATE_LIMITED_RETRIED_BELOW_CAP,
    title: "a rate limit with a retry-after the policy can wait is retried",
    kind: LawKind::Safety,
    needs: &["rate.retry_after", "retry.retry_on", "retry.max_attempts"],
    applies: applies!(contract => {
        contract.rate.retry_after.is_some()
            && contract.retry.retry_on.is_some_and(|retry_on| retry_on.rate_limited)
            && owes_retries(contract)
    }),
    check: judged!(observation => gives_no_retry_up(observation, Judged::RateLimited)),
};

/// The contract states enough to owe retries, and nothing unstated or budgeted may stop them.
fn owes_retries(contract: &Contract) -> bool {
    contract.retry.max_attempts.is_some()
        && contract.retry.retry_on.is_some()
        && !contract.has_retry_budget()
        && !contract.has_circuit()
        && !contract.has_unstated()
}

/// What one call did, for the give-up laws.
struct Ending {
    started: VInstant,
    /// `(end instant, outcome)` of the last finished attempt; the outcome is `None` for a timeout.
    last: Option<(VInstant, Option<Outcome>)>,
    attempts: u32,
    slept: VDuration,
    /// The delay laws' walk over the call's sleeps: where the next sleep would stand.
    sleeps: SleepWalk,
    end: Option<(u32, CallResult)>,
    /// Not idempotent, cancelled, rejected, clock faults, a dropped attempt: not judged.
    excused: bool,
}

/// `range_of` gives the range of a sleep standing at a [`timelaw_core::SleepAt`] ([`Contract::sleep_range`],
/// or the range a walk of the sleeps found already).
fn ending(call: &[Event], mut range_of: impl FnMut(timelaw_core::SleepAt) -> SleepRange) -> Ending {
    let started = call.first().map_or(VInstant::EPOCH, |event| event.at);
    let mut ending = Ending {
        started,
        last: None,
        attempts: 0,
        slept: VDuration::ZERO,
        sleeps: SleepWalk::default(),
        end: None,
        excused: false,
    };
    for event in call {
        ending.sleeps.observe_with(event, &mut range_of);
        match event.kind {
            EventKind::CallStart { idempotent } => ending.excused |= !idempotent,
            EventKind::AttemptStart => ending.attempts += 1,
            EventKind::AttemptEnd { outcome } => ending.last = Some((event.at, Some(outcome))),
            EventKind::AttemptTimedOut { .. } => ending.last = Some((event.at, None)),
            EventKind::SleepRequested { duration } => ending.slept = ending.slept.saturating_add(duration),
            EventKind::CallEnd { result } => ending.end = Some((event.seq, result)),
            EventKind::AttemptCancelled
            | EventKind::AttemptDropped { .. }
            | EventKind::SleepCancelled
            | EventKind::SleepClamped { .. }
            | EventKind::Rejected { .. }
            | EventKind::ClockReadFailed { .. }
            | EventKind::WallJump { .. }
            | EventKind::Diagnostic { .. }
            | EventKind::Panic => ending.excused = true,
            _ => {}
        }
    }
    ending
}

/// Which failures a give-up law judges.
#[derive(Clone, Copy, Debug)]
enum Judged {
    /// Every failure (an error outcome, a timeout, a cancellation).
    EveryFailure,
    /// A rate-limited answer only.
    RateLimited,
}

impl Judged {
    /// Whether a last attempt ending with `outcome` (`None`: a timeout) is judged.
    fn admits(self, outcome: Option<Outcome>) -> bool {
        match self {
            Judged::EveryFailure => true,
            Judged::RateLimited => matches!(outcome, Some(Outcome::RateLimited { .. })),
        }
    }
}

/// What the give-up laws read of one call: the same for each of them, so within a catalogue's judging
/// of a case they share one walk ([`super::case_memo`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallEnding {
    /// The outcome of the call's last finished attempt (`Some(None)`: it timed out; `None`: none finished).
    last: Option<Option<Outcome>>,
    /// The call gave up on that attempt although its contract owed it another retry ([`owed_retry`]).
    owed: bool,
    /// The sequence number of the call's `CallEnd`.
    end: Option<u32>,
    /// A failed attempt was followed by another attempt.
    retried_failure: bool,
    /// A rate-limited attempt was followed by another attempt.
    retried_rate_limited: bool,
}

/// Appends what the give-up laws read of each call of `events` (calls contiguous) to `out`; `sleeps` are
/// the sleeps of `events` with their ranges ([`sleeps_of`]), in order.
fn call_endings(contract: &Contract, events: &[Event], sleeps: &[Slept], out: &mut Vec<CallEnding>) {
    let mut sleeps = sleeps.iter();
    for call in crate::temporal::per_call(events) {
        let (mut retried_failure, mut retried_rate_limited) = (false, false);
        let last_start = call.iter().rposition(|event| event.kind == EventKind::AttemptStart);
        for event in &call[..last_start.unwrap_or(0)] {
            if attempt_result(&event.kind).is_some_and(|result| !result.is_ok()) {
                retried_failure = true;
                retried_rate_limited |=
                    matches!(event.kind, EventKind::AttemptEnd { outcome: Outcome::RateLimited { .. } });
            }
        }
        // A call's walk starts afresh, as the walk of the sleeps does at each `CallStart`: a call that
        // starts otherwise (events outside any call) has its ranges computed here.
        let fresh = !matches!(call.first().map(|event| event.kind), Some(EventKind::CallStart { .. }));
        let ending = ending(call, |at| {
            let slept = sleeps.next().expect("the walk's sleeps are the trace's sleeps");
            if fresh {
                return contract.sleep_range(at);
            }
            debug_assert_eq!(slept.range, contract.sleep_range(at), "the walk's sleep stands where this one does");
            slept.range
        });
        out.push(CallEnding {
            last: ending.last.map(|(_, outcome)| outcome),
            owed: owed_retry(contract, &ending),
            end: ending.end.map(|(seq, _)| seq),
            retried_failure,
            retried_rate_limited,
        });
    }
}

/// Judges every call whose last attempt's outcome `judged` admits: a call that retried after such an
/// attempt holds; one that gave up while owed a retry is violated.
fn gives_no_retry_up(observation: &Observation<'_>, judged: Judged) -> Verdict {
    let (contract, events) = (observation.contract, &observation.trace.events);
    // The sleeps' ranges are those the delay laws read (one walk per case in a catalogue).
    let fill = |out: &mut Vec<CallEnding>| {
        let fill_sleeps = |sleeps: &mut Vec<Slept>| sleeps_of(contract, events, sleeps);
        super::case_memo::with_sleeps(observation, fill_sleeps, |sleeps| call_endings(contract, events, sleeps, out));
    };
    super::case_memo::with_call_endings(observation, fill, |calls| {
        let mut verdict = Verdict::Vacuous;
        for call in calls {
            let retried = match judged {
                Judged::EveryFailure => call.retried_failure,
                Judged::RateLimited => call.retried_rate_limited,
            };
            let call_verdict = match call.last {
                Some(outcome) if judged.admits(outcome) && call.owed => Verdict::Violated(crate::verdict::Violation {
                    check: crate::CheckSite::here(),
                    event: call.end,
                    message: std::borrow::Cow::Borrowed(
                        "the call gave up although its contract owed it another retry within every limit",
                    ),
                }),
                _ if retried => Verdict::Holds,
                _ => Verdict::Vacuous,
            };
            verdict = verdict.merge(call_verdict);
            if verdict.is_violated() {
                break;
            }
        }
        verdict
    })
}

/// `true` when the call ended on its last attempt's retryable failure although the contract owed it
/// another retry within every stated limit.
fn owed_retry(contract: &Contract, ending: &Ending) -> bool {
    let (Some(max), Some(retry_on), Some((ended_at, outcome))) =
        (contract.retry.max_attempts, contract.retry.retry_on, ending.last)
    else {
        return false;
    };
    let Some((failure, retryable)) = failure_of(retry_on, outcome) else { return false };
    let gave_up = ending.end.is_some_and(|(_, result)| result == CallResult::Err(failure));
    if ending.excused || !retryable || !gave_up || ending.attempts >= max {
        return false;
    }
    let Some(delay) = longest_next_delay(contract, ending, outcome) else {
        return false;
    };
    let retry_at = ended_at.saturating_add(delay);
    let exclusive = contract.timing.retry_elapsed_bound == timelaw_core::LimitBound::Exclusive;
    let within = |limit: Option<VDuration>, at: VInstant| {
        let limit_at = limit.map(|limit| ending.started.saturating_add(limit));
        limit_at.is_none_or(|limit_at| at < limit_at || (at == limit_at && !exclusive))
    };
    let before_deadline =
        contract.timing.deadline.is_none_or(|deadline| retry_at < ending.started.saturating_add(deadline));
    let budget_ok = contract.delays.sleep_budget.is_none_or(|budget| ending.slept.saturating_add(delay) <= budget);
    delay < VDuration::MAX && within(contract.timing.retry_elapsed_max, retry_at) && before_deadline && budget_ok
}

/// The error a failed attempt's `outcome` (`None` for a timeout) is, and whether `retry_on` retries it;
/// `None` for an outcome that is no retryable kind of failure (a success, a fatal error, a hang).
fn failure_of(retry_on: timelaw_core::RetryOn, outcome: Option<Outcome>) -> Option<(ErrorKind, bool)> {
    match outcome {
        None => Some((ErrorKind::Timeout, retry_on.timeout)),
        Some(Outcome::Transient) => Some((ErrorKind::Transient, retry_on.transient)),
        Some(Outcome::RateLimited { .. }) => Some((ErrorKind::RateLimited, retry_on.rate_limited)),
        Some(_) => None,
    }
}

/// The longest delay the contract allows before the next retry (tolerance included), from the range of
/// that sleep ([`Contract::sleep_range`]); `None` when the contract lets the subject give up instead (a
/// retry-after above the cap with `GiveUp`, or no stated retry-after policy after a rate limit).
fn longest_next_delay(contract: &Contract, ending: &Ending, outcome: Option<Outcome>) -> Option<VDuration> {
    let retry_after = match outcome {
        Some(Outcome::RateLimited { retry_after }) => {
            contract.rate.retry_after?;
            Some(retry_after)
        }
        _ => None,
    };
    let at = timelaw_core::SleepAt { retry_after, ..ending.sleeps.next() };
    let high = contract.sleep_range(at).widened()?.high_nanos();
    Some(VDuration::from_nanos(u64::try_from(high).unwrap_or(u64::MAX)))
}
