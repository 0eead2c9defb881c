//! The caller's cancellation: a call future dropped at its cancellation instant, recorded exactly there.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use timelaw_core::{Abort, CallResult, ErrorKind, VInstant};

use super::world::TokioWorld;

/// Runs a call until it completes or its cancellation instant `cut_at` comes (see the module docs of
/// [`crate::tokio_driver`]). Once tokio's clock reaches `cut_at` the call is not polled again.
pub(crate) struct Cancellable<'s, F> {
    world: TokioWorld<'s>,
    call: Pin<Box<Option<F>>>,
    timer: Pin<Box<tokio::time::Sleep>>,
    cut_at: VInstant,
}

impl<'s, F> Cancellable<'s, F> {
    pub(crate) fn new(world: TokioWorld<'s>, call: F, cut_at: VInstant) -> Cancellable<'s, F> {
        let timer = Box::pin(tokio::time::sleep_until(world.tokio_instant(cut_at)));
        Cancellable { world, call: Box::pin(Some(call)), timer, cut_at }
    }

    /// Drops the call with the clock held at `cut_at`; the hold lasts until the call has ended.
    fn cut(&mut self) -> Poll<Result<CallResult, Abort>> {
        self.world.shared.cancel_cut.set(Some(self.cut_at));
        self.call.set(None);
        Poll::Ready(self.world.cut_sleep().map(|()| CallResult::Err(ErrorKind::Cancelled)))
    }
}

impl<F: Future<Output = Result<CallResult, Abort>>> Future for Cancellable<'_, F> {
    type Output = Result<CallResult, Abort>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if this.world.now() >= this.cut_at {
            return this.cut(); // The cancellation instant has come: nothing more may run.
        }
        if let Some(call) = this.call.as_mut().as_pin_mut() {
            if let Poll::Ready(result) = call.poll(cx) {
                this.call.set(None);
                return Poll::Ready(result);
            }
        }
        if this.timer.as_mut().poll(cx).is_ready() {
            return this.cut();
        }
        Poll::Pending
    }
}
