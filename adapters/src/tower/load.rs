//! What the three tower middlewares under load share: the downstream service (each request is the next
//! scripted attempt of the call that sends it), the way one call waits for a shared service to be ready
//! and sends its request, and the contract's common part.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use timelaw_core::sync_loop::loop_contract;
use timelaw_core::{Abort, CallResult, Contract, Outcome};
use timelaw_tokio::TokioWorld;
use tower::Service;

use super::Failure;

/// One request: the World of the run (a handle, so the attempt is recorded for the call whose future
/// polls it) and whether the call may be sent twice.
#[derive(Clone)]
pub(crate) struct AttemptRequest<'s> {
    pub(crate) world: TokioWorld<'s>,
    pub(crate) idempotent: bool,
}

/// The downstream service: always ready; `call` is the next scripted attempt of the call that polls the
/// returned future (begun when first polled, recorded through its drop guard when dropped earlier).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Scripted;

/// The future of one scripted attempt.
pub(crate) type AttemptFuture<'s> = Pin<Box<dyn Future<Output = Result<Outcome, Failure>> + 's>>;

impl<'s> Service<AttemptRequest<'s>> for Scripted {
    type Response = Outcome;
    type Error = Failure;
    type Future = AttemptFuture<'s>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Failure>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: AttemptRequest<'s>) -> AttemptFuture<'s> {
        let attempt = request.world.attempt();
        Box::pin(async move { attempt.await.map_err(Failure::Aborted) })
    }
}

/// A service instance the overlapping calls of a case share, and the calls waiting for it to be ready.
///
/// A tower service keeps one waker: the last caller of `poll_ready`. Shared by several calls taking
/// turns, the others rely on that caller to pass the readiness on; when it is cancelled (dropped while
/// waiting), nothing would wake them. The waiting line closes that gap: a call that leaves the line
/// (served, or cancelled while waiting) wakes everyone still in it, and each polls `poll_ready` again (tower's own way to share a service,
/// `Buffer`, spawns a worker task the virtual executor does not run).
pub(crate) struct SharedService<S> {
    service: RefCell<S>,
    waiting: RefCell<Vec<Waker>>,
}

impl<S> SharedService<S> {
    /// `service`, with nobody waiting yet.
    pub(crate) fn new(service: S) -> SharedService<S> {
        SharedService { service: RefCell::new(service), waiting: RefCell::new(Vec::new()) }
    }

    /// Puts `waker` in line (once).
    fn wait(&self, waker: &Waker) {
        let mut waiting = self.waiting.borrow_mut();
        if !waiting.iter().any(|queued| queued.will_wake(waker)) {
            waiting.push(waker.clone());
        }
    }

    /// Takes `waker` out of line and wakes everyone left in it (who join again if still not ready).
    fn leave(&self, waker: &Waker) {
        let others: Vec<Waker> =
            self.waiting.borrow_mut().drain(..).filter(|queued| !queued.will_wake(waker)).collect();
        others.into_iter().for_each(Waker::wake);
    }
}

/// Takes a call out of the waiting line when its wait ends, however it ends (served, failed, or
/// dropped while waiting), waking the others (see [`SharedService`]).
struct InLine<'a, S> {
    shared: &'a SharedService<S>,
    waker: Option<Waker>,
}

impl<S> Drop for InLine<'_, S> {
    fn drop(&mut self) {
        if let Some(waker) = &self.waker {
            self.shared.leave(waker);
        }
    }
}

/// Waits until `shared` is ready, recording `Queued` the first time it is not when `queue` is set
/// (a bulkhead's waiting line), then sends `request` within the same poll (no other call can take the
/// readiness in between) and returns the response future.
///
/// # Errors
/// The World's abort while recording, or the service's error from `poll_ready`.
pub(crate) async fn ready_call<'s, S>(
    shared: &SharedService<S>,
    request: AttemptRequest<'s>,
    queue: bool,
) -> Result<Result<S::Future, S::Error>, Abort>
where
    S: Service<AttemptRequest<'s>>,
{
    let world = request.world.clone();
    let mut request = Some(request);
    let mut waited = false;
    let mut line = InLine { shared, waker: None };
    std::future::poll_fn(|cx| {
        let mut service = shared.service.borrow_mut();
        match service.poll_ready(cx) {
            Poll::Pending => {
                shared.wait(cx.waker());
                line.waker = Some(cx.waker().clone());
                if queue && !waited {
                    waited = true;
                    if let Err(abort) = world.with(|w| w.record_queued()) {
                        return Poll::Ready(Err(abort));
                    }
                }
                Poll::Pending
            }
            Poll::Ready(Err(error)) => Poll::Ready(Ok(Err(error))),
            Poll::Ready(Ok(())) => match request.take() {
                Some(request) => Poll::Ready(Ok(Ok(service.call(request)))),
                None => Poll::Pending, // Polled after completion: never again ready.
            },
        }
    })
    .await
}

/// The result of a call whose one response was `response`.
///
/// # Errors
/// The World's abort carried by the service's error.
pub(crate) fn call_result(response: Result<Outcome, Failure>) -> Result<CallResult, Abort> {
    match response {
        Ok(outcome) | Err(Failure::Outcome(outcome)) => Ok(CallResult::from_outcome(outcome)),
        Err(Failure::Cancelled) => Ok(CallResult::Err(timelaw_core::ErrorKind::Cancelled)),
        Err(Failure::Aborted(abort)) => Err(abort),
    }
}

/// What the application code around each middleware promises, whatever the middleware: the loop's
/// promises ([`loop_contract`]: the call returns its last attempt's result, is cut by cancellation,
/// serves a stream) with `max_attempts` attempts per call (one, or two with a hedge); no retries. The
/// middleware's timers (a rate limit's period, a hedge's delay) are tokio's.
pub(crate) fn load_contract(max_attempts: u32) -> Contract {
    let mut promise = loop_contract();
    promise.retry.max_attempts = Some(max_attempts);
    promise.timing.timer_granularity = crate::domain::TOKIO_TIMER_GRANULARITY;
    promise
}
