//! The pass `drop_calls_reindexed`: a call dropped together with the wall jumps that count attempts or
//! sleeps of the whole run re-indexed, so each jump stays on the same attempt (sleep) after the drop.
//!
//! A jump "during the n-th attempt of the run" belongs to whichever call runs that attempt: dropping an
//! earlier call alone moves it onto another attempt (or past the end of the run), so a case such as an
//! empty call followed by the call whose retry decision meets the jump cannot lose its first call. The
//! pass runs the best case once (a counted run) for the attempts and sleeps each call made, then drops
//! each call with every later point moved down by what the dropped call made (a point inside the
//! dropped call moves to the first attempt or sleep after it). Only calls whose drop moves some point
//! are tried: the plain drop (`drop_calls`) covers the others.

use timelaw_core::{Case, EventKind, JumpAt, Trace};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// Attempts and sleeps one call made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Made {
    /// Attempts dispatched.
    pub(super) attempts: u32,
    /// Sleeps requested.
    pub(super) sleeps: u32,
}

/// Drops each call (from the last) with the counted wall-jump points re-indexed; whether any was kept.
pub(super) fn drop_calls_reindexed<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    if shrinker.best.schedule.calls.len() < 2 || !has_movable_points(&shrinker.best) {
        return false;
    }
    let trace = shrinker.best_trace();
    let mut made = made_per_call(&trace, shrinker.best.schedule.calls.len());
    let mut progress = false;
    for call in (0..made.len()).rev() {
        if shrinker.out_of_budget() {
            break;
        }
        let before = made[..call].iter().fold(Made::default(), |sum, one| Made {
            attempts: sum.attempts.saturating_add(one.attempts),
            sleeps: sum.sleeps.saturating_add(one.sleeps),
        });
        let Some(candidate) = dropped_reindexed(&shrinker.best, call, before, made[call]) else { continue };
        if shrinker.attempt(candidate) {
            // Calls before `call` keep their counts; the later ones are no longer visited.
            made.remove(call);
            progress = true;
        }
    }
    progress
}

/// Whether some wall jump sits at an attempt or sleep past the first (only those can move).
fn has_movable_points<C>(case: &Case<C>) -> bool {
    case.schedule.clock.wall_jumps.iter().any(|jump| matches!(jump.at, JumpAt::Attempt(n) | JumpAt::Sleep(n) if n > 1))
}

/// The attempts and sleeps each of `calls` calls made in `trace`.
fn made_per_call(trace: &Trace, calls: usize) -> Vec<Made> {
    let mut made = vec![Made::default(); calls];
    for event in &trace.events {
        let Some(one) = made.get_mut(event.call as usize) else { continue };
        match event.kind {
            EventKind::AttemptStart => one.attempts = one.attempts.saturating_add(1),
            EventKind::SleepRequested { .. } => one.sleeps = one.sleeps.saturating_add(1),
            _ => {}
        }
    }
    made
}

/// `case` without call `call`, each counted jump point past the `before` attempts (sleeps) of the
/// earlier calls moved down by the `within` the dropped call made (a point inside it to the first one
/// after it); `None` when no point moves.
pub(super) fn dropped_reindexed<C: Clone>(case: &Case<C>, call: usize, before: Made, within: Made) -> Option<Case<C>> {
    if call >= case.schedule.calls.len() {
        return None;
    }
    let mut next = case.clone();
    next.schedule.calls.remove(call);
    let mut moved = false;
    for jump in &mut next.schedule.clock.wall_jumps {
        let at = match jump.at {
            JumpAt::Attempt(n) => JumpAt::Attempt(shifted(n, before.attempts, within.attempts)),
            JumpAt::Sleep(n) => JumpAt::Sleep(shifted(n, before.sleeps, within.sleeps)),
            at @ JumpAt::Instant(_) => at,
        };
        moved |= at != jump.at;
        jump.at = at;
    }
    moved.then_some(next)
}

/// Point `n` (from 1) after `within` points from `before + 1` on are removed: a point before them
/// stays, one among them moves to the first point after them, one after them moves down.
fn shifted(n: u32, before: u32, within: u32) -> u32 {
    if n <= before {
        n
    } else if n <= before.saturating_add(within) {
        before.saturating_add(1)
    } else {
        n - within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(n: u32, before: u32, within: u32, expect: u32) {
        assert_eq!(shifted(n, before, within), expect, "point {n}, {before} before, {within} dropped");
    }

    #[test]
    fn points_past_a_dropped_call_move_down_by_what_it_made() {
        check(1, 1, 1, 1);
        check(2, 0, 1, 1);
        check(3, 1, 1, 2);
        check(4, 1, 2, 2);
        check(2, 1, 2, 2);
        check(3, 1, 2, 2);
        check(5, 0, 0, 5);
        check(u32::MAX, 0, u32::MAX, 1);
    }
}
