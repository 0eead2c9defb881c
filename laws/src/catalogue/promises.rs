//! Laws for the promises a contract states about limits meeting each other: the elapsed-time limit on
//! starting retries, and which interruption wins when the deadline and the caller's cancellation tie.

use timelaw_core::{CallResult, ErrorKind, EventKind, InterruptTie, VInstant};

use super::support::{end_of, take_call};
use crate::ids;
use crate::law::{Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

/// `no_retry_after_elapsed_limit`: no retry starts later than `timing.retry_elapsed_max` after its call
/// started (a retry exactly at the limit is allowed).
///
/// - Needs: `timing.retry_elapsed_max`.
/// - Compares: each retry's `AttemptStart` instant with the call's start plus the limit, exactly.
/// - Violated at the first late `AttemptStart`.
/// - Vacuous when no call retried.
/// - Example violation: `retry_elapsed_max = 1s`, a first attempt of 900ms, a 200ms sleep, and the retry
///   starts 1.1s after the call.
pub const NO_RETRY_AFTER_ELAPSED_LIMIT: Law = Law {
    id: ids::NO_RETRY_AFTER_ELAPSED_LIMIT,
    title: "no retry starts after the elapsed-time limit",
    kind: LawKind::Safety,
    needs: &["timing.retry_elapsed_max"],
    applies: |contract| contract.timing.retry_elapsed_max.is_some(),
    check: no_retry_after_elapsed_limit,
};

fn no_retry_after_elapsed_limit(observation: &Observation<'_>) -> Verdict {
    let Some(limit) = observation.contract.timing.retry_elapsed_max else {
        return Verdict::NotApplicable;
    };
    monitor(&observation.trace.events, VInstant::EPOCH, |started, event| match event.kind {
        EventKind::CallStart { .. } => {
            *started = event.at;
            Check::Skip
        }
        EventKind::AttemptStart if event.attempt >= 2 => {
            Check::that(event.at <= started.saturating_add(limit), "a retry started after the elapsed-time limit")
        }
        _ => Check::Skip,
    })
}

/// `interrupt_tie_as_declared`: a call whose deadline and cancellation fall on the same instant, and
/// that returns at that instant interrupted, returns the interruption the contract declares first:
/// `Err(DeadlineExceeded)` for `DeadlineFirst`, `Err(Cancelled)` for `CancellationFirst`.
///
/// - Needs: `timing.interrupt_tie` and `timing.deadline`.
/// - Compares: the schedule's cancellation instant (`cancel_after`) with the deadline, exactly; the
///   call's result at that instant.
/// - Violated at the `CallEnd` returning the other interruption.
/// - Vacuous when no call had its deadline and cancellation tie and returned interrupted at the tie.
/// - Example violation: `DeadlineFirst`, a deadline of 10ms and a cancellation at 10ms, and the call
///   returns `Err(Cancelled)`.
pub const INTERRUPT_TIE_AS_DECLARED: Law = Law {
    id: ids::INTERRUPT_TIE_AS_DECLARED,
    title: "a deadline and a cancellation at the same instant end the call as declared",
    kind: LawKind::Safety,
    needs: &["timing.interrupt_tie", "timing.deadline"],
    applies: |contract| contract.timing.interrupt_tie.is_some() && contract.timing.deadline.is_some(),
    check: interrupt_tie_as_declared,
};

fn interrupt_tie_as_declared(observation: &Observation<'_>) -> Verdict {
    let (Some(tie), Some(deadline)) = (observation.contract.timing.interrupt_tie, observation.contract.timing.deadline)
    else {
        return Verdict::NotApplicable;
    };
    let expected = match tie {
        InterruptTie::DeadlineFirst => CallResult::Err(ErrorKind::DeadlineExceeded),
        InterruptTie::CancellationFirst => CallResult::Err(ErrorKind::Cancelled),
    };
    let events = &observation.trace.events;
    let (mut cursor, mut verdict) = (0, Verdict::Vacuous);
    for (index, script) in observation.schedule.calls.iter().enumerate() {
        let call = take_call(events, &mut cursor, u32::try_from(index).unwrap_or(u32::MAX));
        if script.cancel_after != Some(deadline) {
            continue;
        }
        let Some(started) = call.first().map(|event| event.at) else { continue };
        let tie_at = started.saturating_add(deadline);
        let end = call.iter().find_map(|event| end_of(event).map(|result| (event, result)));
        let Some((event, result)) = end.filter(|(event, _)| event.at == tie_at) else { continue };
        if !matches!(result, CallResult::Err(ErrorKind::Cancelled | ErrorKind::DeadlineExceeded)) {
            continue;
        }
        if result != expected {
            return Verdict::violated_at(
                event.seq,
                "at a tie of the deadline and cancellation the call returned the interruption declared second",
            );
        }
        verdict = Verdict::Holds;
    }
    verdict
}
