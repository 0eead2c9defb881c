//! Laws every subject must keep whatever its contract: a sane clock, determinism, no panic, termination.

use std::borrow::Cow;

use timelaw_core::{Abort, EventKind, LimitKind, Limits, TraceEnd, VInstant};

use super::support::last_index;
use crate::ids;
use crate::law::{always_applies, Law, LawKind, Observation};
use crate::verdict::{Verdict, Violation};

/// `clock_monotonic`: event instants never decrease, and every event's sequence number is its index.
///
/// A guard rather than a finding: through the public API no subject can break it. Only the World
/// records events, it numbers them itself, its clock is saturating and never moves backwards
/// ([`World::advance_to`](timelaw_core::World::advance_to) refuses an earlier instant), and the tokio
/// driver only ever moves it forwards to tokio's clock. The law checks that those invariants of
/// timelaw itself still hold on every trace, so a regression in the World or a driver is caught by every
/// run; its own tests edit traces by hand, and a test of the World shows the clock refusing to go back.
///
/// - Needs: nothing (applies to every subject).
/// - Violated at the first event earlier than its predecessor or with a wrong sequence number.
/// - Vacuous for an empty trace.
/// - Example violation: a driver with its own timer records an event at 5ms after one at 7ms.
pub const CLOCK_MONOTONIC: Law = Law {
    id: ids::CLOCK_MONOTONIC,
    title: "virtual time never goes backwards",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: clock_monotonic,
};

fn clock_monotonic(observation: &Observation<'_>) -> Verdict {
    let mut previous = VInstant::EPOCH;
    for (index, event) in observation.trace.events.iter().enumerate() {
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        if event.seq != index {
            return Verdict::violated_at(index, "an event's sequence number is not its index");
        }
        if event.at < previous {
            return Verdict::violated_at(index, "an event happened earlier than the event before it");
        }
        previous = event.at;
    }
    if observation.trace.events.is_empty() {
        Verdict::Vacuous
    } else {
        Verdict::Holds
    }
}

/// `deterministic_replay`: running the same case twice on fresh Worlds gives the same trace.
///
/// - Needs: nothing; reads [`Observation::replay`], set when the runner ran the case twice.
/// - Violated at the first event of the trace judged that differs in the second run; with no event when
///   none of its events differs (only the ends differ, or the second run only went on further). An
///   index past the trace's end is never blamed.
/// - Vacuous when the case was run once.
/// - Example violation: a subject reads the wall clock, and its second run sleeps differently.
pub const DETERMINISTIC_REPLAY: Law = Law {
    id: ids::DETERMINISTIC_REPLAY,
    title: "the same case gives the same trace",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: deterministic_replay,
};

fn deterministic_replay(observation: &Observation<'_>) -> Verdict {
    match observation.replay {
        None => Verdict::Vacuous,
        Some(replay) if replay.first == replay.second => Verdict::Holds,
        Some(replay) => Verdict::Violated(Violation {
            event: replay.first_difference.filter(|&index| (index as usize) < observation.trace.events.len()),
            message: Cow::Borrowed(
                "two runs of the same case gave different traces (the subject is not deterministic)",
            ),
        }),
    }
}

/// `never_panics`: the subject never panics.
///
/// - Needs: nothing (applies to every subject).
/// - Violated at the `Panic` event (the last one), with the panic message.
/// - Never vacuous.
/// - Example violation: an `unwrap()` on a `None` retry-after.
pub const NEVER_PANICS: Law = Law {
    id: ids::NEVER_PANICS,
    title: "the subject never panics",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: never_panics,
};

fn never_panics(observation: &Observation<'_>) -> Verdict {
    match &observation.trace.end {
        TraceEnd::Panicked(message) => {
            Verdict::violated_with(last_index(observation.trace), format!("the subject panicked: {message}"))
        }
        _ => Verdict::Holds,
    }
}

/// `terminates`: the subject finishes on its own: no call hangs forever, and the run stays within the
/// step limits a correct subject needs.
///
/// - Needs: nothing (applies to every subject).
/// - Compares: how the run ended ([`TraceEnd`]) with the contract and the documented, generous default
///   [`Limits`]:
///   - a hang ([`Abort::Hung`]: an attempt with neither an end, a timeout nor a cancellation) is a
///     violation: the subject makes no progress; so is a run the watchdog gave up on
///     ([`Abort::NoProgress`]: "no progress for N ms", no event and no clock move for that long), and
///     an async subject waiting for nothing that can wake it ([`Abort::Deadlock`]);
///   - a run stopped at a count limit ("stopped at the step limit (N sleeps)") is a violation when the
///     limit is at least the documented default (no correct subject needs that many; a subject that
///     does can raise `TIMELAW_*_MAX`), or when it is the attempt limit and at least the
///     `max_attempts * calls` the contract promises;
///   - a run stopped at a lower count limit set for the run, or at the virtual time limit (long sleeps
///     are not a loop), is inconclusive, and so are the liveness laws on its truncated trace;
///   - a run cut at a count limit while the subject was still consuming a long scripted run
///     ([`Abort::LongRunCut`]) is inconclusive, like the time-limit cut, unless the subject had already
///     made more attempts than `max_attempts * calls`: then it is judged like the step limit;
///   - a run stopped for another reason (exhausted scripted randomness, a misuse of the World, an invalid
///     config) is inconclusive.
/// - Violated at the last event.
/// - Never vacuous.
/// - Example violation: a retry loop that ignores `retry.max_attempts` until the attempt limit stops it.
pub const TERMINATES: Law = Law {
    id: ids::TERMINATES,
    title: "the subject terminates within the limits",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: terminates,
};

fn terminates(observation: &Observation<'_>) -> Verdict {
    match &observation.trace.end {
        TraceEnd::Aborted(abort @ (Abort::Hung { .. } | Abort::NoProgress { .. } | Abort::Deadlock { .. })) => {
            Verdict::violated_with(last_index(observation.trace), abort.to_string())
        }
        // A cut inside a long scripted run is no violation, unless the subject was already past the
        // attempts its contract allows: then it is judged like the step limit it reached.
        TraceEnd::Aborted(Abort::LongRunCut { kind, limit }) if past_promise(observation) => {
            let abort = Abort::StepLimit { kind: *kind, limit: *limit };
            match judge_limit(observation, *kind, *limit) {
                Ok(reason) => Verdict::violated_with(last_index(observation.trace), format!("{abort}: {reason}")),
                Err(reason) => Verdict::Inconclusive(Cow::Owned(format!("{abort}: {reason}"))),
            }
        }
        TraceEnd::Aborted(abort @ Abort::StepLimit { kind, limit }) => match judge_limit(observation, *kind, *limit) {
            Ok(reason) => Verdict::violated_with(last_index(observation.trace), format!("{abort}: {reason}")),
            Err(reason) => Verdict::Inconclusive(Cow::Owned(format!("{abort}: {reason}"))),
        },
        TraceEnd::Aborted(abort) => Verdict::Inconclusive(Cow::Owned(abort.to_string())),
        TraceEnd::Complete | TraceEnd::Panicked(_) => Verdict::Holds,
    }
}

/// Whether the run made more attempts than the contract's `retry.max_attempts` over all its calls.
fn past_promise(observation: &Observation<'_>) -> bool {
    let Some(max) = observation.contract.retry.max_attempts else { return false };
    let promised = u64::from(max).saturating_mul(observation.schedule.calls.len() as u64);
    let attempts = observation.trace.events.iter().filter(|event| event.kind == EventKind::AttemptStart).count();
    attempts as u64 > promised
}

/// Whether a run stopped at the `kind` limit `limit` failed to terminate (`Ok` with the reason) or was
/// merely cut (`Err` with the reason it says nothing).
fn judge_limit(observation: &Observation<'_>, kind: LimitKind, limit: u64) -> Result<String, String> {
    if kind == LimitKind::VirtualTime {
        return Err("long sleeps are not a loop; the run was cut, not shown to loop".to_owned());
    }
    let calls = observation.schedule.calls.len() as u64;
    let promised = observation.contract.retry.max_attempts.map(|max| u64::from(max).saturating_mul(calls));
    let default = Limits::default().get(kind);
    match promised {
        Some(promised) if kind == LimitKind::Attempts && limit >= promised => {
            Ok(format!("more than the {promised} attempts the contract allows over {calls} calls"))
        }
        _ if limit >= default => Ok("the documented default, far above what a correct subject needs".to_owned()),
        _ => Err(format!("below the documented default {default}; the run was cut, not shown to loop")),
    }
}
