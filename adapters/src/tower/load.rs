//! What the three tower middlewares under load share: the downstream service (each request is the next
//! scripted attempt of the call that sends it), the way one call waits for a shared service to be ready
//! and sends its request, and the contract's common part.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

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

/// Waits until `service` is ready, recording `Queued` the first time it is not when `queue` is set
/// (a bulkhead's waiting line), then sends `request` within the same poll (no other call can take the
/// readiness in between) and returns the response future.
///
/// # Errors
/// The World's abort while recording, or the service's error from `poll_ready`.
pub(crate) async fn ready_call<'s, S>(
    service: &RefCell<S>,
    request: AttemptRequest<'s>,
    queue: bool,
) -> Result<Result<S::Future, S::Error>, Abort>
where
    S: Service<AttemptRequest<'s>>,
{
    let world = request.world.clone();
    let mut request = Some(request);
    let mut waited = false;
    std::future::poll_fn(|cx| {
        let mut service = service.borrow_mut();
        match service.poll_ready(cx) {
            Poll::Pending if queue && !waited => {
                waited = true;
                if let Err(abort) = world.with(|w| w.record_queued()) {
                    return Poll::Ready(Err(abort));
                }
                Poll::Pending
            }
            Poll::Pending => Poll::Pending,
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
