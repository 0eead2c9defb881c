//! Coupled moves: when a simpler config changes a contract boundary, the schedule is adapted with it, so that a
//! failure that depends on "a duration equals the timeout" or "an attempt timed out" survives the config change.
//! Without them the shrinker stops in different local minima from different starts.
//!
//! Audit (issue 15): each coupled move keeps the case inside the domain (`timelaw_generators::membership`).
//! Removing an attempt timeout turns the attempts the trace shows timed out into transient failures *and* every
//! other step that only a cut could end (a hang, a duration near the end of time) in a call without a cancellation:
//! a subject that never lets the World cut shows no timed-out attempt, and a hang left behind would make every
//! subject fail `terminates`. Removing a deadline writes out the attempts it cut the same way (the deadline cuts an
//! attempt as a shortened timeout does), but leaves hangs alone: only a timeout or a cancellation may end a hang in
//! the domain, so no hang relies on the deadline. Removing a sleep budget, an elapsed-time limit
//! (`retry_elapsed_max`) or a circuit cuts no attempt, so their moves only follow the moved boundaries. The engine
//! checks every candidate against the domain anyway, so a move that slips is refused, never accepted.

use timelaw_core::{CallResult, Case, Contract, ErrorKind, EventKind, Outcome, Schedule, Step, Trace, VDuration};

use super::order::{shape, Shape};

/// The schedule of `candidate` (whose config differs from the one that produced `trace()` under `old`)
/// adapted to its new contract `new`; `None` when nothing changes. `violated_at` is the event the
/// current violation names. `trace` (a subject run) is called only
/// when a removed timeout needs it.
///
/// With the adapted case comes the shape it is measured against: the current case's, or, when the
/// timeout goes, the shape of the current schedule with its timed-out attempts scripted as the transient
/// failures they were (a translation, not padding; see [`super::order`]).
pub(super) fn adapt<C: Clone>(
    candidate: &Case<C>,
    old: &Contract,
    new: &Contract,
    trace: impl FnOnce() -> Trace,
    violated_at: Option<u32>,
) -> Option<(Case<C>, Shape)> {
    let mut schedule = candidate.schedule.clone();
    let mut allowance = shape(&candidate.schedule, &new.timing);
    for (from, to) in boundary_moves(old, new) {
        remap(&mut schedule, from, to);
    }
    let timeout_removed = old.timing.attempt_timeout.is_some() && new.timing.attempt_timeout.is_none();
    if timeout_removed || cut_limit_removed(old, new) {
        let trace = trace();
        let mut translated = candidate.schedule.clone();
        timeouts_to_transients(&mut translated, &trace, violated_at);
        allowance = allowance.max(shape(&translated, &new.timing));
        timeouts_to_transients(&mut schedule, &trace, violated_at);
        if timeout_removed {
            uncut_to_ends(&mut schedule);
        }
    }
    if schedule == candidate.schedule {
        return None;
    }
    let mut adapted = candidate.clone();
    adapted.schedule = schedule;
    Some((adapted, allowance))
}

/// The schedule of `candidate` with the durations drawn at a config number that moved lowered with
/// it, the numbers read as nanoseconds: a duration equal to it (or one nanosecond off it) moves to the
/// new value (or one nanosecond off it), and a duration near it (closer to it than either is to zero)
/// moves down by as much, keeping their difference, where it can. For a limit a subject keeps without
/// stating it as a contract boundary (a planted loop's own elapsed-time limit). `old` and `new` are the
/// numbers of the current and the candidate config; `None` when no duration moves.
pub(super) fn numbers_followed<C: Clone>(
    candidate: &Case<C>,
    old: &[timelaw_generators::ConfigNumber],
    new: &[timelaw_generators::ConfigNumber],
) -> Option<Case<C>> {
    let mut schedule = candidate.schedule.clone();
    for (from, to) in old.iter().zip(new).filter(|(from, to)| from.name == to.name && from.value > to.value) {
        let (from, to) = (VDuration::from_nanos(from.value), VDuration::from_nanos(to.value));
        let before = schedule.clone();
        remap(&mut schedule, from, to);
        lower_near(&mut schedule, &before, from, to);
    }
    (schedule != candidate.schedule).then(|| Case { schedule, ..candidate.clone() })
}

/// Lowers by `from - to` each duration of `schedule` that `remap` left as it was in `before` and that
/// lies near `from` (their difference below the smaller of them); one smaller than that becomes zero
/// (it sat just below the old value, so it may have to sit below the new one).
fn lower_near(schedule: &mut Schedule, before: &Schedule, from: VDuration, to: VDuration) {
    let by = from.saturating_sub(to);
    let near = |value: VDuration| {
        let gap = value.as_nanos().abs_diff(from.as_nanos());
        !value.is_zero() && gap > 1 && gap < value.as_nanos().min(from.as_nanos())
    };
    for (call, old) in schedule.calls.iter_mut().zip(&before.calls) {
        for (step, old) in call.steps.iter_mut().zip(&old.steps) {
            if step.duration == old.duration && near(step.duration) {
                step.duration = step.duration.saturating_sub(by);
            }
        }
    }
}

/// Whether the schedule adapted to a change from `old` to `new` is simpler than the plain candidate, so
/// worth its run first: every moved boundary moved down and no timeout went (which needs a run of the
/// subject and may write attempts out).
pub(super) fn adapted_first(old: &Contract, new: &Contract) -> bool {
    let timeout_removed = old.timing.attempt_timeout.is_some() && new.timing.attempt_timeout.is_none();
    let timeout_removed = timeout_removed || cut_limit_removed(old, new);
    let moves = boundary_moves(old, new);
    !timeout_removed && !moves.is_empty() && moves.iter().all(|(from, to)| to < from)
}

/// Whether the change removes the deadline, which cuts attempts as a timeout does (the attempt's
/// timeout shortened to the time left), so its cut attempts are written out the same way.
fn cut_limit_removed(old: &Contract, new: &Contract) -> bool {
    old.timing.deadline.is_some() && new.timing.deadline.is_none()
}

/// Pairs (old value, new value) of every boundary the config change moved.
pub(super) fn boundary_moves(old: &Contract, new: &Contract) -> Vec<(VDuration, VDuration)> {
    boundary_pairs(old, new)
        .into_iter()
        .filter_map(|pair| match pair {
            (Some(from), Some(to)) if from != to => Some((from, to)),
            _ => None,
        })
        .collect()
}

/// Each boundary of `old` and `new` that durations of a schedule may sit on, paired.
fn boundary_pairs(old: &Contract, new: &Contract) -> [(Option<VDuration>, Option<VDuration>); 6] {
    [
        (old.timing.attempt_timeout, new.timing.attempt_timeout),
        (old.timing.deadline, new.timing.deadline),
        (old.delays.max, new.delays.max),
        (old.delays.sleep_budget, new.delays.sleep_budget),
        (old.timing.retry_elapsed_max, new.timing.retry_elapsed_max),
        (old.circuit.into_stated().map(|c| c.open_for), new.circuit.into_stated().map(|c| c.open_for)),
    ]
}

/// Moves every duration equal to `from` (or one nanosecond off it) to `to` (or one nanosecond off it).
fn remap(schedule: &mut Schedule, from: VDuration, to: VDuration) {
    let one = VDuration::from_nanos(1);
    let map = |value: &mut VDuration| {
        if value.is_zero() {
            return; // Zero is as simple as a duration gets.
        }
        if *value == from {
            *value = to;
        } else if *value == from.saturating_add(one) {
            *value = to.saturating_add(one);
        } else if !from.is_zero() && *value == from.saturating_sub(one) {
            *value = to.saturating_sub(one);
        }
    };
    for call in &mut schedule.calls {
        map(&mut call.gap_before);
        if let Some(cancel) = call.cancel_after.as_mut() {
            map(cancel);
        }
        for step in &mut call.steps {
            map(&mut step.duration);
            if let Outcome::RateLimited { retry_after } = &mut step.outcome {
                map(retry_after);
            }
        }
    }
}

/// In every call without a cancellation, each hang becomes an instant transient failure and each
/// duration near the end of time becomes zero: with no timeout, nothing could end them.
fn uncut_to_ends(schedule: &mut Schedule) {
    let near_max = VDuration::MAX.saturating_sub(timelaw_generators::NEAR_MAX_SPAN);
    for call in schedule.calls.iter_mut().filter(|call| call.cancel_after.is_none()) {
        for step in &mut call.steps {
            if step.outcome == Outcome::Hang {
                *step = Step::instant(Outcome::Transient).repeated(step.count());
            } else if step.duration >= near_max {
                step.duration = VDuration::ZERO;
            }
        }
    }
}

/// Every attempt that timed out in `trace` (cut by its timeout or by the deadline), up to the
/// violating event when the violation names one, becomes a transient failure taking as long as it ran
/// (scripting past-the-end attempts explicitly where needed); a call the deadline ended before its
/// first attempt (a deadline of 0 is checked before any dispatch) gets an instant transient failure
/// as its first attempt, the failure the deadline stood in for.
/// Attempts after the violation do not make it, so writing them out would only pad the schedule.
fn timeouts_to_transients(schedule: &mut Schedule, trace: &Trace, violated_at: Option<u32>) {
    let until = violated_at.map_or(trace.events.len(), |event| event as usize + 1);
    let mut dispatched = vec![false; schedule.calls.len()];
    for event in trace.events.iter().take(until) {
        let index = event.call as usize;
        let Some(call) = schedule.calls.get_mut(index) else { continue };
        match event.kind {
            EventKind::AttemptStart => dispatched[index] = true,
            EventKind::AttemptTimedOut { timeout } => {
                call.set_step(event.attempt, Step::new(timeout, Outcome::Transient))
            }
            EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) } if !dispatched[index] => {
                call.set_step(1, Step::instant(Outcome::Transient));
            }
            _ => {}
        }
    }
}
