//! Hedged requests on the reference's concurrent path: one try of a call runs its attempt and, while
//! that attempt has no result after the hedge delay, further attempts beside it; the first attempt to end
//! decides the try and every other attempt still running is cancelled at that instant. See the module
//! docs of [`crate::reference`], "Hedged requests".

use std::future::{poll_fn, Future};
use std::task::{Context, Poll};

use super::interpreter::{attempt_failure, attempt_limit, cancellation_first, cut_error, AttemptFailure};
use super::load::State;
use super::policy::Policy;
use crate::contract::{HedgeContract, TieRule};
use crate::exec::{AsyncWorld, Dispatch};
use crate::time::VInstant;
use crate::world::{Abort, AttemptResult};

/// What one call has used: attempts started (hedges included) and hedges it may still start.
#[derive(Clone, Copy, Debug)]
pub(super) struct CallAttempts {
    /// Attempts started so far, hedges included (what `max_attempts` bounds).
    pub(super) started: u32,
    /// Hedges the call may still start (`max_hedges` per call; 0 for a call that is not idempotent).
    pub(super) hedges_left: u32,
}

/// An attempt of the try, running.
struct Running<'s> {
    dispatch: Dispatch<'s>,
    /// Whether its limit is the deadline's (then a timeout is the deadline's cut).
    by_deadline: bool,
}

/// What the race of a try's attempts and its hedge timer gave.
enum Raced {
    /// Attempt `index` (in start order) ended.
    Ended(usize, Result<AttemptResult, Abort>),
    /// The hedge delay passed with no attempt ended.
    HedgeDue,
}

/// One try: an attempt (counted in `attempts`), and while no attempt of the try has ended, a hedge
/// `params.delay` after the latest attempt start, as long as the call has hedges and attempts left, the
/// elapsed-time limit on retries has not passed, and the limiter and the retry budget each have room (a refusal only ends the hedging of this try, with
/// nothing recorded). The first attempt to end (ties in start order) gives the try's result; the others
/// are cancelled at once (`AttemptCancelled`).
///
/// # Errors
/// The World's aborts.
pub(super) async fn hedged_try(
    (policy, params): (&Policy, HedgeContract),
    state: &State,
    w: &AsyncWorld<'_>,
    (deadline_at, retries_late): (Option<VInstant>, Option<VInstant>),
    attempts: &mut CallAttempts,
) -> Result<Result<(), AttemptFailure>, Abort> {
    let mut running = vec![start(policy, w, deadline_at)];
    attempts.started += 1;
    let mut hedge_at = next_hedge(policy, params, w, attempts);
    loop {
        match poll_fn(|cx| race(&mut running, hedge_at, w.now(), cx)).await {
            Raced::Ended(index, result) => {
                let winner = running.remove(index);
                // Drops the losers in start order: each records `AttemptCancelled` now.
                running.clear();
                let cut_first = w.with(|w| cancellation_first(policy, w));
                let tie = policy.interrupt_tie;
                return attempt_failure(result?, (winner.by_deadline, cut_first), || {
                    w.with(|w| cut_error(w, deadline_at, tie))
                });
            }
            Raced::HedgeDue => {
                hedge_at = None;
                if may_hedge(state, w, (deadline_at, retries_late)) {
                    running.push(start(policy, w, deadline_at));
                    attempts.started += 1;
                    attempts.hedges_left -= 1;
                    hedge_at = next_hedge(policy, params, w, attempts);
                }
            }
        }
    }
}

/// An attempt beginning now (at its first poll), under the tighter of its timeout and the deadline.
fn start<'s>(policy: &Policy, w: &AsyncWorld<'s>, deadline_at: Option<VInstant>) -> Running<'s> {
    let (limit, by_deadline) = attempt_limit(policy, deadline_at.map(|at| at.duration_since(w.now())));
    let dispatch = match limit {
        Some(limit) => w.dispatch_with_timeout(limit, TieRule::Expired),
        None => w.dispatch(),
    };
    Running { dispatch, by_deadline }
}

/// Polls every running attempt in start order (a new one begins here), then the hedge timer.
fn race(running: &mut [Running<'_>], hedge_at: Option<VInstant>, now: VInstant, cx: &mut Context<'_>) -> Poll<Raced> {
    for (index, attempt) in running.iter_mut().enumerate() {
        if let Poll::Ready(result) = std::pin::Pin::new(&mut attempt.dispatch).poll(cx) {
            return Poll::Ready(Raced::Ended(index, result));
        }
    }
    match hedge_at {
        Some(at) if now >= at => Poll::Ready(Raced::HedgeDue),
        _ => Poll::Pending,
    }
}

/// When the next hedge is due (its timer registered): `delay` after now, the latest attempt start;
/// `None` when the call has no hedge or attempt left, or when that instant lies past the run's time limit
/// (it could never come, and a hang must still be reported as one).
fn next_hedge(policy: &Policy, params: HedgeContract, w: &AsyncWorld<'_>, attempts: &CallAttempts) -> Option<VInstant> {
    if attempts.hedges_left == 0 || attempts.started >= policy.max_attempts {
        return None;
    }
    let at = w.now().saturating_add(params.delay);
    if at.since_epoch() > w.with(|w| w.limits().virtual_time_max) {
        return None;
    }
    w.wake_at(at);
    Some(at)
}

/// Whether a hedge may start now: the call is neither cancelled nor past its deadline (its attempts were
/// cut then, so this is a guard) nor past the elapsed-time limit on retries, and the retry budget and
/// the limiter each have room; both are taken together, or neither.
fn may_hedge(
    state: &State,
    w: &AsyncWorld<'_>,
    (deadline_at, retries_late): (Option<VInstant>, Option<VInstant>),
) -> bool {
    let now = w.now();
    let late = deadline_at.is_some_and(|at| now >= at) || retries_late.is_some_and(|at| now >= at);
    if late || w.with(|w| w.is_cancelled()) {
        return false;
    }
    let mut shared = state.borrow_mut();
    if shared.case.budget.as_ref().is_some_and(|budget| !budget.has_room()) {
        return false;
    }
    if !shared.bucket.as_mut().is_none_or(|bucket| bucket.take(now)) {
        return false;
    }
    if let Some(budget) = shared.case.budget.as_mut() {
        let spent = budget.try_spend();
        debug_assert!(spent, "the budget had room a moment ago");
    }
    true
}
