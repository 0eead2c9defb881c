//! [`Attempt`]: a scripted attempt as a tokio future, with a drop guard that records cuts.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use timelaw_core::{Abort, AttemptResult, Outcome, PendingAttempt, VDuration, VInstant};

use super::world::TokioWorld;

/// The future of [`TokioWorld::attempt`]: begins the next scripted attempt when first polled, takes its
/// scripted duration on tokio's clock and ends with its outcome. Dropped earlier, it records the cut
/// (see the module docs of [`crate::tokio_driver`]).
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
            let call = self.world.with(|world| Ok(world.trace().events.last().map_or(0, |event| event.call)))?;
            let hung = Abort::Hung { call, attempt: pending.attempt };
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

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        let State::Running { pending, began, .. } = self.state else { return };
        if self.world.shared.world.try_borrow_mut().is_err() {
            return; // Only while unwinding from a panic inside the World: nothing can be recorded.
        }
        let cancelled = self.world.shared.cancel_cut.get().is_some();
        let recorded = self.world.with(|world| {
            let (result, limit) = match cancelled {
                true => (AttemptResult::Cancelled, VDuration::MAX),
                false => (AttemptResult::TimedOut, world.now().duration_since(began)),
            };
            world.end_attempt(pending, result, limit)
        });
        if let Err(abort) = recorded {
            self.world.defer(abort);
        }
    }
}
