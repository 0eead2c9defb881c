//! Coupled moves: when a simpler config changes a contract boundary, the schedule is adapted with it, so
//! that a failure that depends on "a duration equals the timeout" or "an attempt timed out" survives the
//! config change. Without them the shrinker stops in different local minima from different starts.

use timelaw_core::{Case, Contract, EventKind, Outcome, Schedule, Step, Trace, VDuration};

/// The schedule of `candidate` (whose config differs from the one that produced `trace()` under `old`)
/// adapted to its new contract `new`; `None` when nothing changes. `trace` (a subject run) is called only
/// when a removed timeout needs it.
pub(super) fn adapt<C: Clone>(
    candidate: &Case<C>,
    old: &Contract,
    new: &Contract,
    trace: impl FnOnce() -> Trace,
) -> Option<Case<C>> {
    let mut schedule = candidate.schedule.clone();
    for (from, to) in boundary_moves(old, new) {
        remap(&mut schedule, from, to);
    }
    if old.attempt_timeout.is_some() && new.attempt_timeout.is_none() {
        timeouts_to_transients(&mut schedule, &trace());
    }
    if schedule == candidate.schedule {
        return None;
    }
    let mut adapted = candidate.clone();
    adapted.schedule = schedule;
    Some(adapted)
}

/// Pairs (old value, new value) of every boundary the config change moved.
fn boundary_moves(old: &Contract, new: &Contract) -> Vec<(VDuration, VDuration)> {
    let pairs = [
        (old.attempt_timeout, new.attempt_timeout),
        (old.deadline, new.deadline),
        (old.delay_max, new.delay_max),
        (old.sleep_budget, new.sleep_budget),
        (old.circuit.map(|c| c.open_for), new.circuit.map(|c| c.open_for)),
    ];
    pairs
        .into_iter()
        .filter_map(|pair| match pair {
            (Some(from), Some(to)) if from != to => Some((from, to)),
            _ => None,
        })
        .collect()
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

/// Every attempt that timed out in `trace` becomes an instant transient failure (scripting past-the-end
/// attempts explicitly where needed).
fn timeouts_to_transients(schedule: &mut Schedule, trace: &Trace) {
    for event in &trace.events {
        if !matches!(event.kind, EventKind::AttemptTimedOut { .. }) {
            continue;
        }
        let Some(call) = schedule.calls.get_mut(event.call as usize) else { continue };
        call.set_step(event.attempt, Step::instant(Outcome::Transient));
    }
}
