//! Laws for the promises a contract states about limits meeting each other: the elapsed-time limit on
//! starting retries, and which interruption a call returns when both its deadline and the caller's
//! cancellation have fallen.

use timelaw_core::{CallResult, ErrorKind, EventKind, InterruptTie, TimerRace, TimingContract, VInstant};

use super::support::{end_of, take_call};
use crate::ids;
use crate::law::{applies, Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

/// `no_retry_after_elapsed_limit`: no retry starts later than `timing.retry_elapsed_max` after its call
/// started (a retry exactly at the limit is allowed, unless `timing.retry_elapsed_bound` is `Exclusive`:
/// "it stops once the elapsed time reaches X"); a retry the subject planned for the limit wakes up to
/// `timing.timer_granularity` late, so with coarse timers it may start that much later.
///
/// - Needs: `timing.retry_elapsed_max` (reads `timing.retry_elapsed_bound`, `timing.timer_granularity`).
/// - Compares: each retry's `AttemptStart` instant with the limit's window, the call's start plus the
///   limit to that plus the timer granularity, by [`TimingContract::race`](timelaw_core::TimingContract::race)
///   under the bound's tie rule (late when the limit comes first whenever the timer fires), exactly.
/// - Violated at the first late `AttemptStart`.
/// - Vacuous when no call retried.
/// - Example violation: `retry_elapsed_max = 1s`, a first attempt of 900ms, a 200ms sleep, and the retry
///   starts 1.1s after the call.
pub const NO_RETRY_AFTER_ELAPSED_LIMIT: Law = Law {
    id: ids::NO_RETRY_AFTER_ELAPSED_LIMIT,
    title: "no retry starts after the elapsed-time limit",
    kind: LawKind::Safety,
    needs: &["timing.retry_elapsed_max"],
    applies: applies!(contract => contract.timing.retry_elapsed_max.is_some()),
    check: no_retry_after_elapsed_limit,
};

fn no_retry_after_elapsed_limit(observation: &Observation<'_>) -> Verdict {
    let timing = &observation.contract.timing;
    let Some(limit) = timing.retry_elapsed_max else {
        return Verdict::NotApplicable;
    };
    monitor(&observation.trace.events, VInstant::EPOCH, |started, event| match event.kind {
        EventKind::CallStart { .. } => {
            *started = event.at;
            Check::Skip
        }
        EventKind::AttemptStart if event.attempt >= 2 => {
            let race = timing.race(event.at, started.saturating_add(limit), timing.retry_elapsed_bound.tie());
            Check::that(race != TimerRace::TimerFirst, "a retry started after the elapsed-time limit")
        }
        _ => Check::Skip,
    })
}

/// `interrupt_tie_as_declared`: a call that has both a deadline and a cancellation, and returns
/// interrupted once both have fallen, returns the interruption that fell first: `Err(DeadlineExceeded)`
/// when the deadline came first, `Err(Cancelled)` when the cancellation did; at a tie, the one the
/// contract declares first (`DeadlineFirst` or `CancellationFirst`).
///
/// "First" is only told apart beyond the subject's timer granularity (`timing.timer_granularity`, zero
/// for exact timers): two instants apart by more than zero and at most the granularity may be noticed in
/// either order, so such a call is not judged; an exact tie is always judged by the declared order. A call
/// that returns before the later interruption has fallen (a subject that gives up early, foreseeing its
/// deadline) is not judged either, nor, with `timing.ordered_results`, a call whose result was decided
/// before it returned (nothing in progress: it holds its result until the calls before it return).
///
/// - Needs: `timing.interrupt_tie` and `timing.deadline` (reads `timing.timer_granularity`).
/// - Compares: the deadline (`start + deadline`) and the cancellation (`start + cancel_after`) instants
///   with each other, told apart only beyond the timer granularity ([`TimingContract::tells_apart`](timelaw_core::TimingContract::tells_apart)), and
///   with the call's end, exactly.
/// - Violated at the `CallEnd` returning the interruption that fell second (or, at a tie, the one
///   declared second).
/// - Vacuous when no call returned interrupted after both its deadline and its cancellation had fallen.
/// - Example violations: `DeadlineFirst`, a deadline of 10ms and a cancellation at 10ms, and the call
///   returns `Err(Cancelled)`; a deadline of 10ms, a cancellation at 20ms, and the call returns
///   `Err(Cancelled)` at 20ms.
pub const INTERRUPT_TIE_AS_DECLARED: Law = Law {
    id: ids::INTERRUPT_TIE_AS_DECLARED,
    title: "a call interrupted by both its deadline and a cancellation returns the first (at a tie, as declared)",
    kind: LawKind::Safety,
    needs: &["timing.interrupt_tie", "timing.deadline"],
    applies: applies!(contract => contract.timing.interrupt_tie.is_some() && contract.timing.deadline.is_some()),
    check: interrupt_tie_as_declared,
};

/// Whether a call whose events before its return are `before` had its result decided before `returned_at`:
/// its last action (clock events and diagnostics aside) left nothing in progress to interrupt (an attempt
/// that ended, a rejection, a start with nothing after it, a sleep already over). With ordered results
/// such a call holds its result until the calls before it return or its caller stops waiting: its
/// return instant says nothing about which interruption fell first.
fn decided_before_return(before: &[timelaw_core::Event], returned_at: VInstant) -> bool {
    let Some(last) = before.iter().rev().find(|event| event.kind.is_action()) else { return true };
    match last.kind {
        EventKind::SleepRequested { duration } => last.at.saturating_add(duration) < returned_at,
        EventKind::AttemptStart
        | EventKind::Notify { .. }
        | EventKind::Queued
        | EventKind::AttemptTimedOut { .. }
        | EventKind::AttemptCancelled
        | EventKind::SleepCancelled
        | EventKind::SleepClamped { .. }
        | EventKind::AttemptDropped { .. } => false,
        _ => last.at < returned_at,
    }
}

/// The interruption a call interrupted by both should return, or `None` when the two are too close for
/// the subject's timers to order them.
fn first_interruption(deadline_at: VInstant, cancel_at: VInstant, timing: &TimingContract) -> Option<ErrorKind> {
    if deadline_at == cancel_at {
        return timing.interrupt_tie.map(|tie| match tie {
            InterruptTie::DeadlineFirst => ErrorKind::DeadlineExceeded,
            InterruptTie::CancellationFirst => ErrorKind::Cancelled,
        });
    }
    if !timing.tells_apart(deadline_at, cancel_at) {
        return None;
    }
    Some(if deadline_at < cancel_at { ErrorKind::DeadlineExceeded } else { ErrorKind::Cancelled })
}

fn interrupt_tie_as_declared(observation: &Observation<'_>) -> Verdict {
    let timing = &observation.contract.timing;
    let (Some(_), Some(deadline)) = (timing.interrupt_tie, timing.deadline) else {
        return Verdict::NotApplicable;
    };
    let events = &observation.trace.events;
    let (mut cursor, mut verdict) = (0, Verdict::Vacuous);
    for (index, script) in observation.schedule.calls.iter().enumerate() {
        let call = take_call(events, &mut cursor, u32::try_from(index).unwrap_or(u32::MAX));
        let (Some(cancel_after), Some(started)) = (script.cancel_after, call.first().map(|event| event.at)) else {
            continue;
        };
        let (deadline_at, cancel_at) = (started.saturating_add(deadline), started.saturating_add(cancel_after));
        let end = call.iter().position(|event| end_of(event).is_some());
        let Some((event, CallResult::Err(kind @ (ErrorKind::Cancelled | ErrorKind::DeadlineExceeded)))) =
            end.and_then(|at| end_of(&call[at]).map(|result| (&call[at], result)))
        else {
            continue;
        };
        if timing.ordered_results && decided_before_return(&call[..end.unwrap_or(0)], event.at) {
            continue;
        }
        // Judged once both have fallen, and only where the subject's timers can tell which came first.
        let Some(first) =
            first_interruption(deadline_at, cancel_at, timing).filter(|_| event.at >= deadline_at.max(cancel_at))
        else {
            continue;
        };
        if kind != first {
            let message = match deadline_at == cancel_at {
                true => "at a tie of the deadline and cancellation the call returned the interruption declared second",
                false => "the call returned the interruption that fell second, not the one that fell first",
            };
            return Verdict::violated_at(event.seq, message);
        }
        verdict = Verdict::Holds;
    }
    verdict
}
