//! Shrink passes that join parts of a schedule: `fold_calls` (a call removed with its gap folded into
//! the next call's, so the calls after it still arrive when they did; or a call's gap moved to the next
//! call, so it arrives earlier and the others when they did) and `merge_steps` (two adjacent
//! steps replaced by one, taking both durations, with each outcome from the simplest: two transient
//! failures may become one fatal failure; fewer dispatches beat simpler outcomes).

use timelaw_core::{Case, Outcome, Step, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::order::outcome_rank;

/// Removes call `index`, adding its gap to the next call's; `None` for the last call.
pub(super) fn folded<C: Clone>(case: &Case<C>, index: usize) -> Option<Case<C>> {
    let gap = case.schedule.calls.get(index)?.gap_before;
    let mut next = case.clone();
    let following = next.schedule.calls.get_mut(index + 1)?;
    following.gap_before = following.gap_before.saturating_add(gap);
    next.schedule.calls.remove(index);
    Some(next)
}

/// Call `index` arriving with no gap, its gap added to the next call's (so every later call arrives
/// when it did); `None` for the last call or a call without a gap. The sum of the gaps stays; the
/// gaps, compared call by call, get smaller (item 5 of [`super::order`]).
pub(super) fn shifted<C: Clone>(case: &Case<C>, index: usize) -> Option<Case<C>> {
    let gap = case.schedule.calls.get(index)?.gap_before;
    if gap.is_zero() {
        return None;
    }
    let mut next = case.clone();
    let following = next.schedule.calls.get_mut(index + 1)?;
    following.gap_before = following.gap_before.saturating_add(gap);
    next.schedule.calls[index].gap_before = VDuration::ZERO;
    Some(next)
}

/// Every case with steps `step` and `step + 1` of call `call` merged into one, simplest outcome first.
pub(super) fn merged<C: Clone>(case: &Case<C>, call: usize, step: usize) -> Vec<Case<C>> {
    let Some(steps) = case.schedule.calls.get(call).map(|script| &script.steps) else { return Vec::new() };
    let (Some(&first), Some(&second)) = (steps.get(step), steps.get(step + 1)) else { return Vec::new() };
    if first.count() > 1 || second.count() > 1 {
        return Vec::new(); // Repeated steps shrink by `lower_repeats`.
    }
    let mut outcomes =
        vec![Outcome::Ok, Outcome::Transient, Outcome::Fatal, Outcome::RateLimited { retry_after: VDuration::ZERO }];
    outcomes.extend([first.outcome, second.outcome]);
    outcomes.sort_by_key(|outcome| outcome_rank(*outcome));
    outcomes.dedup();
    let duration = first.duration.saturating_add(second.duration);
    outcomes
        .into_iter()
        .map(|outcome| {
            let mut next = case.clone();
            next.schedule.calls[call].steps.splice(step..=step + 1, [Step::new(duration, outcome)]);
            next
        })
        .collect()
}

/// `fold_calls`: each call but the last removed with its gap folded into the next, from the last; then
/// each call's gap moved to the next call (the call arrives earlier, the later ones when they did).
pub(super) fn fold_calls<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut index = shrinker.best.schedule.calls.len().saturating_sub(1);
    while index > 0 && !shrinker.out_of_budget() {
        index -= 1;
        if let Some(candidate) = folded(&shrinker.best, index) {
            progress |= shrinker.attempt(candidate);
        }
    }
    for index in 0..shrinker.best.schedule.calls.len().saturating_sub(1) {
        if shrinker.out_of_budget() {
            break;
        }
        if let Some(candidate) = shifted(&shrinker.best, index) {
            progress |= shrinker.attempt(candidate);
        }
    }
    progress
}

/// `merge_steps`: each pair of adjacent steps merged into one, with the simplest outcome that fails.
pub(super) fn merge_steps<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        let mut step = 0;
        while step + 1 < shrinker.best.schedule.calls[call].steps.len() && !shrinker.out_of_budget() {
            let mut kept = false;
            for candidate in merged(&shrinker.best, call, step) {
                if shrinker.attempt(candidate) {
                    kept = true;
                    break;
                }
            }
            progress |= kept;
            if !kept {
                step += 1;
            }
        }
    }
    progress
}
