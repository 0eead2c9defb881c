//! Laws of the two clocks: a wall jump never moves a monotonic limit, a backwards jump never panics, a
//! failed clock read is handled as the contract declares and keeps the attempt's real outcome.

use std::borrow::Cow;

use timelaw_core::{CallResult, ClockKind, EventKind, OnFailedRead, TraceEnd};

use super::support::{attempt_result, last_index, LastAttempt};
use crate::ids;
use crate::law::{always_applies, applies, Law, LawKind, Observation};
use crate::verdict::{Verdict, Violation};

/// `wall_jump_keeps_monotonic_limits`: a wall-clock jump never changes what a subject does when its
/// contract measures every limit on the monotonic clock: its attempts, sleeps, notifications, rejections
/// and call results are the same, at the same instants, as in a second run of the case with the wall jumps
/// removed (a metamorphic check; the runner makes that run only for cases with wall jumps). Only what a
/// jump can change is compared: a subject that never read the wall clock cannot have seen one, and a
/// subject whose replay of the very same case differs (randomness it cannot seed, `deterministic_replay`'s
/// finding) differs for reasons no jump explains.
///
/// - Needs: `timing.clocks` with no limit on the wall clock; reads [`Observation::without_wall_jumps`]
///   and [`Observation::replay`].
/// - Compares: the two runs' actions and their instants, exactly.
/// - Violated at the first action where the two runs differ.
/// - Vacuous when the case has no wall jump, no jump happened, the second run was not made, the subject
///   never read the wall clock, or its replay of the same case differed.
/// - Example violation: an elapsed-time limit computed from `SystemTime::now()` gives up early after the
///   wall clock jumps forward.
pub const WALL_JUMP_KEEPS_MONOTONIC_LIMITS: Law = Law {
    id: ids::WALL_JUMP_KEEPS_MONOTONIC_LIMITS,
    title: "a wall-clock jump never changes when a monotonic limit fires",
    kind: LawKind::Safety,
    needs: &["timing.clocks"],
    applies: applies!(contract => contract.timing.clocks.is_some_and(|clocks| !clocks.measures_on(ClockKind::Wall))),
    check: wall_jump_keeps_monotonic_limits,
};

fn wall_jump_keeps_monotonic_limits(observation: &Observation<'_>) -> Verdict {
    let Some(compared) = observation.without_wall_jumps else { return Verdict::Vacuous };
    let trace = observation.trace;
    let jumped = trace.events.iter().any(|event| matches!(event.kind, EventKind::WallJump { .. }));
    let unseen = trace.clock_reads.of(ClockKind::Wall) == 0;
    let random = observation.replay.is_some_and(|replay| replay.first != replay.second);
    match compared.first_difference {
        _ if !jumped || unseen || random => Verdict::Vacuous,
        None => Verdict::Holds,
        Some(event) => Verdict::Violated(Violation {
            check: crate::CheckSite::here(),
            event: Some(event),
            message: Cow::Borrowed(
                "the run without its wall jumps acted differently from here: a wall-clock jump changed when a \
                 limit fired (is a limit measured on the wall clock?)",
            ),
        }),
    }
}

/// `wall_jump_back_no_panic`: a backwards wall-clock jump never makes the subject panic (where
/// `SystemTime::duration_since` errs and a negative duration appears). Only a panic the jump causes is
/// blamed: the subject read the wall clock (a subject that never reads it cannot see a jump), the run of
/// the case without its wall jumps ([`Observation::without_wall_jumps`]) acted differently, and it did not
/// panic itself (a panic the case raises without its jumps is `never_panics`', whatever else differs, such
/// as randomness a subject cannot seed).
///
/// - Needs: nothing (applies to every subject).
/// - Compares: how the two runs ended and their actions; no instants.
/// - Violated at the `Panic` event of a run that panicked after a backwards wall jump, when the subject
///   read the wall clock and the run without the jumps differs and does not panic.
/// - Vacuous when the wall clock never jumped backwards, the run without the jumps was not made, or the
///   subject never read the wall clock.
/// - Example violation: `now.duration_since(started).unwrap()` after the clock went back an hour.
pub const WALL_JUMP_BACK_NO_PANIC: Law = Law {
    id: ids::WALL_JUMP_BACK_NO_PANIC,
    title: "a backwards wall-clock jump never makes the subject panic",
    kind: LawKind::Safety,
    needs: &[],
    applies: always_applies,
    check: wall_jump_back_no_panic,
};

fn wall_jump_back_no_panic(observation: &Observation<'_>) -> Verdict {
    if !observation.schedule.clock.wall_jumps.iter().any(|jump| backwards(jump.by_ns)) {
        return Verdict::Vacuous; // Cheap: most cases have no clock faults.
    }
    let trace = observation.trace;
    let back =
        trace.events.iter().find(|event| matches!(event.kind, EventKind::WallJump { by_ns } if backwards(by_ns)));
    let Some(back) = back else { return Verdict::Vacuous };
    let Some(compared) = observation.without_wall_jumps else { return Verdict::Vacuous };
    if trace.clock_reads.of(ClockKind::Wall) == 0 {
        return Verdict::Vacuous; // The jump was never seen.
    }
    match &trace.end {
        TraceEnd::Panicked(message) if compared.first_difference.is_some() && !compared.second_panicked => {
            Verdict::violated_with(
                last_index(trace),
                format!("the subject panicked after the wall clock jumped back (event {}): {message}", back.seq),
            )
        }
        _ => Verdict::Holds,
    }
}

/// Whether a wall-clock jump of `by_ns` goes backwards (a jump of zero does not).
fn backwards(by_ns: i64) -> bool {
    by_ns < 0
}

/// `failed_read_handled_as_declared`: after a failed clock read the call keeps its attempts' real
/// outcome (it returns `Ok` exactly when its last attempt succeeded; `Err` when no attempt ran), and, when
/// the failed clock is one a limit is measured on and the contract says a failed read counts as expired or
/// gives up, no new attempt starts in that call.
///
/// - Needs: `timing.clocks` (the clocks of the limits and `on_failed_read`).
/// - Violated at the attempt started after the failed read, or at the `CallEnd` whose result is not the
///   last attempt's.
/// - Vacuous when no read failed.
/// - Example violation: a deadline check that treats an unreadable clock as "time left" and returns `Ok`
///   for a call whose attempt failed.
pub const FAILED_READ_HANDLED_AS_DECLARED: Law = Law {
    id: ids::FAILED_READ_HANDLED_AS_DECLARED,
    title: "a failed clock read is handled as declared and keeps the real outcome",
    kind: LawKind::Safety,
    needs: &["timing.clocks"],
    applies: applies!(contract => contract.timing.clocks.is_some()),
    check: failed_read_handled_as_declared,
};

/// The walk's state for the current call.
#[derive(Clone, Copy, Default)]
struct CallWalk {
    /// A read failed in this call.
    failed: bool,
    /// A read of a limit's clock failed, and the contract forbids further attempts.
    stops: bool,
    /// Whether the last attempt ended `Ok` (`None`: no attempt ended yet).
    last_ok: Option<bool>,
    /// The last attempt, a hedge's loser left out.
    last: LastAttempt,
}

fn failed_read_handled_as_declared(observation: &Observation<'_>) -> Verdict {
    let Some(clocks) = observation.contract.timing.clocks else { return Verdict::NotApplicable };
    if observation.schedule.clock.read_failures.is_empty() {
        return Verdict::Vacuous; // Cheap: most cases have no clock faults.
    }
    let stopping = matches!(clocks.on_failed_read, OnFailedRead::Expired | OnFailedRead::GiveUp);
    let (mut walk, mut any_failed) = (CallWalk::default(), false);
    for event in &observation.trace.events {
        match event.kind {
            EventKind::CallStart { .. } => walk = CallWalk::default(),
            EventKind::ClockReadFailed { clock } => {
                any_failed = true;
                walk.failed = true;
                walk.stops |= stopping && clocks.measures_on(clock);
            }
            EventKind::AttemptStart if walk.stops => {
                return Verdict::violated_at(
                    event.seq,
                    "an attempt started after a failed read of a limit's clock, which the contract says \
                     counts as expired",
                );
            }
            EventKind::CallEnd { result } if walk.failed => {
                if result.is_ok() != walk.last_ok.unwrap_or(false) {
                    return Verdict::violated_at(event.seq, lost_outcome(result));
                }
            }
            ref kind => {
                let counts = walk.last.step(event);
                if let Some(result) = attempt_result(kind).filter(|_| counts) {
                    walk.last_ok = Some(result.is_ok());
                }
            }
        }
    }
    if any_failed {
        Verdict::Holds
    } else {
        Verdict::Vacuous
    }
}

fn lost_outcome(result: CallResult) -> &'static str {
    if result.is_ok() {
        "the call returned Ok after a failed clock read although its last attempt did not succeed (the failed \
         read was treated as success)"
    } else {
        "the call returned an error after a failed clock read although its last attempt succeeded (the real \
         outcome was lost)"
    }
}
