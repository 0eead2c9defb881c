//! Laws every subject must keep whatever its contract: a sane clock, determinism, no panic, termination.

use std::borrow::Cow;

use timelaw_core::{Abort, Event, EventKind, LimitKind, Limits, Misuse, TraceEnd, VInstant};

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
            check: crate::CheckSite::here(),
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
///   - a run the subject ended by returning the World's misuse error or refusing its config terminated
///     (it holds here; [`USES_WORLD_AS_DOCUMENTED`] and [`ACCEPTS_DESCRIBED_CONFIGS`] judge the error);
///   - a run stopped for another reason (exhausted scripted randomness) is inconclusive.
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
        // The subject returned (with the World's error): it terminated. What it did wrong is judged by
        // `uses_world_as_documented` and `accepts_described_configs`.
        TraceEnd::Aborted(Abort::Misuse(_) | Abort::InvalidConfig(_)) => Verdict::Holds,
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

/// `uses_world_as_documented`: the subject serves every call of the schedule through the World as its
/// docs say: each call started is ended with a result, no call is left unserved, and no World method is
/// misused (an attempt or sleep outside a call, a call started before the previous one returned,
/// reversed bounds for a random draw, a focus on a call not in flight, any use after the run finished).
///
/// - Needs: nothing (applies to every subject).
/// - Compares: how the run ended ([`TraceEnd`]) and, on a complete trace, the `CallStart` and `CallEnd`
///   events with the schedule's calls:
///   - a run ended by [`Abort::Misuse`] (the subject passed the World's error on) is violated at the last
///     event, with the misuse;
///   - on a complete trace, a call that started and never ended is violated at the last event ("call N
///     started but never returned a result"), and so is a schedule call that never started ("the subject
///     returned after serving K of N calls").
/// - Holds on every other end (a panic, a hang, a cut: other laws judge those; what the subject did
///   before them used the World as documented).
/// - Never vacuous.
/// - Example violation: a loop gives up after one failed attempt without ending the call, and its next
///   `start_call` is refused ("a call started before the previous one ended").
pub const USES_WORLD_AS_DOCUMENTED: Law = Law {
    id: ids::USES_WORLD_AS_DOCUMENTED,
    title: "the subject serves every call through the World as documented",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: uses_world_as_documented,
};

fn uses_world_as_documented(observation: &Observation<'_>) -> Verdict {
    let trace = observation.trace;
    match &trace.end {
        TraceEnd::Aborted(Abort::Misuse(misuse)) => {
            Verdict::violated_with(last_index(trace), misuse_sentence(misuse, &trace.events))
        }
        TraceEnd::Complete => judge_served(observation),
        TraceEnd::Aborted(_) | TraceEnd::Panicked(_) => Verdict::Holds,
    }
}

/// What the subject did wrong, in a sentence naming the call when one was left without a result.
fn misuse_sentence(misuse: &Misuse, events: &[Event]) -> String {
    match (misuse, unended_call(events)) {
        (Misuse::CallNotEnded, Some(call)) => {
            format!("the subject misused the World: call {call} was left without a result ({misuse})")
        }
        _ => format!("the subject misused the World: {misuse}"),
    }
}

/// On a complete trace: every started call ended, and every call of the schedule started.
fn judge_served(observation: &Observation<'_>) -> Verdict {
    let events = &observation.trace.events;
    if let Some(call) = unended_call(events) {
        let message = format!("call {call} started but never returned a result (the run ended without its CallEnd)");
        return Verdict::violated_with(last_index(observation.trace), message);
    }
    let started = events.iter().filter(|event| matches!(event.kind, EventKind::CallStart { .. })).count();
    let scheduled = observation.schedule.calls.len();
    if started < scheduled {
        let message = format!(
            "the subject returned after serving {started} of {scheduled} calls: call {started} was never started"
        );
        return Verdict::violated_with(last_index(observation.trace), message);
    }
    Verdict::Holds
}

/// The first call (by its first event) that started and has no `CallEnd`; no allocation.
fn unended_call(events: &[Event]) -> Option<u32> {
    let starts = events.iter().filter(|event| matches!(event.kind, EventKind::CallStart { .. })).count();
    let ends = events.iter().filter(|event| matches!(event.kind, EventKind::CallEnd { .. })).count();
    if ends >= starts {
        return None;
    }
    events
        .iter()
        .filter(|event| matches!(event.kind, EventKind::CallStart { .. }))
        .map(|event| event.call)
        .find(|&call| !events.iter().any(|event| event.call == call && matches!(event.kind, EventKind::CallEnd { .. })))
}

/// `accepts_described_configs`: the subject runs every config its own description generates: it never
/// refuses one ([`Abort::InvalidConfig`]), before the first call or after the run began.
///
/// - Needs: nothing (applies to every subject).
/// - Compares: how the run ended with [`Abort::InvalidConfig`].
/// - Violated with no event when the subject refused the config before recording anything ("the subject
///   refused a config its description generates"), at the last event when it refused it after the run
///   began. A config is in the domain when its description draws it, so the fix is in the description
///   (draw only what the subject accepts) or in the subject (accept what it describes).
/// - Holds on every other end; never vacuous.
/// - Example violation: a description draws `max_attempts = 0` and the subject's validation rejects it.
pub const ACCEPTS_DESCRIBED_CONFIGS: Law = Law {
    id: ids::ACCEPTS_DESCRIBED_CONFIGS,
    title: "the subject accepts every config its description generates",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: accepts_described_configs,
};

fn accepts_described_configs(observation: &Observation<'_>) -> Verdict {
    let trace = observation.trace;
    match &trace.end {
        TraceEnd::Aborted(Abort::InvalidConfig(reason)) if trace.events.is_empty() => {
            Verdict::violated_with(None, format!("the subject refused a config its description generates: {reason}"))
        }
        TraceEnd::Aborted(Abort::InvalidConfig(reason)) => Verdict::violated_with(
            last_index(trace),
            format!("the subject refused its config after the run began ({} events): {reason}", trace.events.len()),
        ),
        _ => Verdict::Holds,
    }
}
