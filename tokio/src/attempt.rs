//! [`Attempt`]: a scripted attempt as a tokio future, with a drop guard that records cuts.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use timelaw_core::{Abort, AttemptResult, Outcome, PendingAttempt, VDuration, VInstant};

use super::world::TokioWorld;

/// The future of [`TokioWorld::attempt`]: begins the next scripted attempt when first polled, takes its
/// scripted duration on tokio's clock and ends with its outcome. Dropped earlier, it records the cut
/// (see the crate docs, [`crate`]).
pub struct Attempt<'s> {
    world: TokioWorld<'s>,
    state: State,
}

enum State {
    Idle,
    Running { pending: PendingAttempt, began: VInstant, timer: Option<Pin<Box<tokio::time::Sleep>>> },
    Done,
}

impl<'s> Attempt<'s> {
    pub(crate) fn new(world: TokioWorld<'s>) -> Attempt<'s> {
        Attempt { world, state: State::Idle }
    }

    fn begin(&mut self) -> Result<(), Abort> {
        let (pending, began, limit) =
            self.world.with(|world| Ok((world.begin_attempt()?, world.now(), world.limits().virtual_time_max)))?;
        let wait = match pending.step.outcome {
            Outcome::Hang => Some(limit.saturating_sub(began.since_epoch())),
            _ if pending.step.duration.is_zero() => None,
            _ => Some(pending.step.duration),
        };
        let timer = wait.map(|wait| Box::pin(tokio::time::sleep(wait.to_std())));
        self.state = State::Running { pending, began, timer };
        Ok(())
    }

    fn complete(&mut self, pending: PendingAttempt) -> Result<Outcome, Abort> {
        self.state = State::Done;
        if pending.step.outcome == Outcome::Hang {
            let last = self.world.with(|world| Ok(world.trace().events.last().map_or(0, |event| event.call)))?;
            let call = self.world.shared.current.get().unwrap_or(last);
            let hung = self.world.with(|world| Ok(world.issue(Abort::Hung { call, attempt: pending.attempt })))?;
            self.world.defer(hung.clone());
            return Err(hung);
        }
        let outcome = pending.step.outcome;
        self.world.with(|world| world.end_attempt(pending, AttemptResult::Completed(outcome), VDuration::MAX))?;
        Ok(outcome)
    }
}

impl Future for Attempt<'_> {
    type Output = Result<Outcome, Abort>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if matches!(self.state, State::Idle) {
            if let Err(abort) = self.begin() {
                self.state = State::Done;
                return Poll::Ready(Err(abort));
            }
        }
        let pending = match &mut self.state {
            State::Running { pending, timer, .. } => {
                if let Some(timer) = timer {
                    if timer.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                }
                *pending
            }
            State::Idle | State::Done => return Poll::Pending, // Polled after completion: never again ready.
        };
        Poll::Ready(self.complete(pending))
    }
}

/// Who dropped an attempt mid-flight.
#[derive(Clone, Copy)]
enum Cut {
    /// The caller's cancellation (the driver's [`Cancellable`](super::cancel)).
    Cancelled,
    /// Its own timeout: the `tokio::time::timeout` of [`TimedAttempt`].
    OwnTimeout,
    /// Anything else: an enclosing deadline's timeout, a `select!`.
    Enclosing,
}

/// The future of [`TokioWorld::timed_attempt`]: `tokio::time::timeout(limit, attempt)`, unchanged (same
/// timer, same tie rule: the attempt is polled first), except that when its timer wins it tells the
/// attempt's drop guard so, and the cut is recorded as the attempt's own timeout.
pub struct TimedAttempt<'s> {
    world: TokioWorld<'s>,
    inner: Pin<Box<Option<tokio::time::Timeout<Attempt<'s>>>>>,
}

impl<'s> TimedAttempt<'s> {
    pub(crate) fn new(world: TokioWorld<'s>, limit: std::time::Duration) -> TimedAttempt<'s> {
        let attempt = Attempt::new(world.clone());
        TimedAttempt { world, inner: Box::pin(Some(tokio::time::timeout(limit, attempt))) }
    }
}

impl Future for TimedAttempt<'_> {
    type Output = Result<Result<Outcome, Abort>, tokio::time::error::Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(timeout) = self.inner.as_mut().as_pin_mut() else {
            return Poll::Pending; // Polled after completion: never again ready.
        };
        let polled = timeout.poll(cx);
        match &polled {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(_)) => self.inner.set(None),
            Poll::Ready(Err(_elapsed)) => {
                // Drop the attempt now, while the flag says whose cut it is.
                self.world.shared.own_timeout.set(true);
                self.inner.set(None);
                self.world.shared.own_timeout.set(false);
            }
        }
        polled
    }
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        let State::Running { pending, began, .. } = self.state else { return };
        if self.world.shared.world.try_borrow_mut().is_err() {
            return; // Only while unwinding from a panic inside the World: nothing can be recorded.
        }
        let cause = match (self.world.shared.cancel_cut.get(), self.world.shared.own_timeout.get()) {
            (Some(_), _) => Cut::Cancelled,
            (None, true) => Cut::OwnTimeout,
            (None, false) => Cut::Enclosing,
        };
        let recorded = self.world.with(|world| {
            let ran = world.now().duration_since(began);
            match cause {
                Cut::Cancelled => world.end_attempt(pending, AttemptResult::Cancelled, VDuration::MAX),
                Cut::OwnTimeout => world.end_attempt(pending, AttemptResult::TimedOut, ran),
                Cut::Enclosing => world.end_attempt_dropped(pending, ran),
            }
        });
        if let Err(abort) = recorded {
            self.world.defer(abort);
        }
    }
}
