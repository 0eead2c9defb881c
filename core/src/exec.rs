//! Async subjects: a virtual sleeper, a virtual attempt, a timeout combinator and a small executor that
//! drives one future to completion with no real time.
//!
//! # How an async subject plugs in
//! Its [`Subject::run`](crate::Subject::run) calls [`run_async`] with a closure that receives an
//! [`AsyncWorld`] and returns its future. The executor polls the future; whenever it is pending, the
//! executor moves the World's clock to the earliest registered timer (a sleep's end, an attempt's scripted
//! end, a timeout, a cancellation) and polls again. A future pending with no timer left can never wake:
//! that is [`Abort::Hung`].
//!
//! # Tie rule
//! [`AsyncWorld::timeout`] polls the inner future before checking its deadline, like `tokio::time::timeout`:
//! an attempt completing exactly at the deadline returns its own result ([`TieRule::InnerWins`](crate::TieRule::InnerWins)).
//!
//! # Cancellation
//! Dropping an attempt future before it completes (because a timeout fired, or a `select` chose another
//! branch) records the cut at the current instant: `AttemptTimedOut` when a timeout dropped it,
//! `AttemptCancelled` otherwise.
//!
//! ```
//! use timelaw_core::exec::run_async;
//! use timelaw_core::{execute, Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, Schedule, Step,
//!     Subject, VDuration, World};
//!
//! struct AsyncRetry;
//! impl Subject for AsyncRetry {
//!     type Config = u32;
//!     fn name(&self) -> &str { "async-retry" }
//!     fn contract(&self, attempts: &u32) -> Contract {
//!         let mut promise = Contract::default();
//!         promise.retry.max_attempts = Some(*attempts);
//!         promise
//!     }
//!     fn run(&self, attempts: &u32, world: &mut World<'_>) -> Result<(), Abort> {
//!         let attempts = *attempts;
//!         run_async(world, move |w| async move {
//!             while let Some(_call) = w.start_call()? {
//!                 let mut result = CallResult::Err(ErrorKind::Transient);
//!                 for attempt in 1..=attempts {
//!                     match w.timeout(VDuration::from_millis(50), w.dispatch()).await {
//!                         Ok(attempt) => match attempt? {
//!                             AttemptResult::Completed(Outcome::Ok) => { result = CallResult::Ok; break; }
//!                             _ => result = CallResult::Err(ErrorKind::Transient),
//!                         },
//!                         Err(_elapsed) => result = CallResult::Err(ErrorKind::Timeout),
//!                     }
//!                     if attempt < attempts { w.sleep(VDuration::from_millis(10)).await?; }
//!                 }
//!                 w.end_call(result)?;
//!             }
//!             Ok(())
//!         })
//!     }
//! }
//!
//! let slow = Step::new(VDuration::from_millis(80), Outcome::Ok);
//! let trace = execute(&AsyncRetry, &2, &Schedule::single(vec![slow]), 0);
//! // attempt 1 cut at 50 ms, sleep 10 ms, attempt 2 succeeds at once
//! assert_eq!(trace.events.last().unwrap().at.as_nanos(), 60_000_000);
//! ```

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::contract::TieRule;
use crate::time::{VDuration, VInstant};
use crate::trace::CallResult;
use crate::world::{Abort, AttemptResult, CallInfo, LimitKind, PendingAttempt, Wake, World};

pub(crate) struct Shared<'s> {
    pub(crate) world: RefCell<World<'s>>,
    /// Registered timers, each with the task that registered it (always 0 for [`run_async`]).
    pub(crate) timers: RefCell<BinaryHeap<Reverse<(VInstant, u32)>>>,
    /// The task being polled (a call index for [`crate::concurrent::run_async_calls`]).
    pub(crate) current: Cell<u32>,
    /// Set by a timeout while it drops its inner future: the limit that expired.
    cutting_timeout: Cell<Option<VDuration>>,
    /// An abort raised where it could not be returned (inside `Drop`).
    pub(crate) deferred: RefCell<Option<Abort>>,
}

/// The World as seen by an async subject: cheap to clone, all methods take `&self`.
#[derive(Clone)]
pub struct AsyncWorld<'s> {
    pub(crate) shared: Rc<Shared<'s>>,
}

/// The error of [`AsyncWorld::timeout`]: the deadline passed first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elapsed;

impl<'s> AsyncWorld<'s> {
    /// Runs `f` with the World (for operations without a future: `notify`, randomness, ...).
    pub fn with<R>(&self, f: impl FnOnce(&mut World<'s>) -> R) -> R {
        f(&mut self.shared.world.borrow_mut())
    }
    /// The current virtual instant.
    pub fn now(&self) -> VInstant {
        self.shared.world.borrow().now()
    }
    /// See [`World::start_call`].
    ///
    /// # Errors
    /// As [`World::start_call`].
    pub fn start_call(&self) -> Result<Option<CallInfo>, Abort> {
        self.with(|world| world.start_call())
    }
    /// See [`World::end_call`].
    ///
    /// # Errors
    /// As [`World::end_call`].
    pub fn end_call(&self, result: CallResult) -> Result<(), Abort> {
        self.with(|world| world.end_call(result))
    }
    /// A virtual sleep: recorded when first polled, ready once the clock reaches its end (or the call is
    /// cancelled strictly before).
    pub fn sleep(&self, duration: VDuration) -> Sleep<'s> {
        Sleep { world: self.clone(), duration, state: None }
    }
    /// The next scripted attempt: begun when first polled, ready at its scripted end; dropping it earlier
    /// records the cut (see the module docs).
    pub fn dispatch(&self) -> Dispatch<'s> {
        Dispatch { world: self.clone(), limit: None, pending: None, done: false }
    }
    /// The next scripted attempt under `timeout` with the tie rule `tie`, as
    /// [`World::dispatch_with_timeout`] does it: ready at its scripted end, at its deadline
    /// (`AttemptTimedOut`) or at the call's cancellation, whichever comes first.
    pub fn dispatch_with_timeout(&self, timeout: VDuration, tie: TieRule) -> Dispatch<'s> {
        Dispatch { world: self.clone(), limit: Some((timeout, tie)), pending: None, done: false }
    }
    /// Runs `inner` with a deadline `limit` from now; the inner future is polled first.
    pub fn timeout<F: Future>(&self, limit: VDuration, inner: F) -> Timeout<'s, F> {
        Timeout { world: self.clone(), limit, deadline: None, inner: Box::pin(Some(inner)) }
    }

    /// Makes the task being polled due again at `at` (for futures waiting on state shared between calls
    /// that must still notice a deadline or cancellation).
    pub(crate) fn wake_at(&self, at: VInstant) {
        self.register(at);
    }

    fn register(&self, at: VInstant) {
        let task = self.shared.current.get();
        self.shared.timers.borrow_mut().push(Reverse((at, task)));
    }
    fn defer(&self, abort: Abort) {
        self.shared.deferred.borrow_mut().get_or_insert(abort);
    }
}

/// The future of [`AsyncWorld::sleep`].
pub struct Sleep<'s> {
    world: AsyncWorld<'s>,
    duration: VDuration,
    /// (wake instant, cancellation cut) once started.
    state: Option<(VInstant, Option<VInstant>)>,
}

impl Future for Sleep<'_> {
    type Output = Result<Wake, Abort>;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        let (wake_at, cut) = match self.state {
            Some(state) => state,
            None => {
                let duration = self.duration;
                let world = self.world.clone();
                let started = world.with(|w| w.begin_sleep(duration).map(|()| (w.now(), w.cancel_at())));
                let (now, cancel_at) = match started {
                    Ok(pair) => pair,
                    Err(abort) => return Poll::Ready(Err(abort)),
                };
                let wake_at = now.saturating_add(duration);
                let cut = cancel_at.map(|at| at.max(now)).filter(|&at| at < wake_at);
                world.register(cut.unwrap_or(wake_at));
                self.state = Some((wake_at, cut));
                (wake_at, cut)
            }
        };
        let now = self.world.now();
        if let Some(cut) = cut.filter(|&cut| now >= cut) {
            let _ = cut;
            return Poll::Ready(self.world.with(|w| w.record_sleep_cancelled()).map(|()| Wake::Cancelled));
        }
        if now >= wake_at {
            // Wall jumps due by now are recorded before the sleep ends, as `World::sleep` does (a sleep
            // ending at once was never passed by an `advance_to`).
            return Poll::Ready(self.world.with(|w| w.advance_to(now)).map(|()| Wake::Elapsed));
        }
        Poll::Pending
    }
}

/// The future of [`AsyncWorld::dispatch`] and [`AsyncWorld::dispatch_with_timeout`].
pub struct Dispatch<'s> {
    world: AsyncWorld<'s>,
    limit: Option<(VDuration, TieRule)>,
    /// The attempt once begun, with when it ends (`None`: never by itself) and how.
    pending: Option<(PendingAttempt, Option<VInstant>, AttemptResult)>,
    done: bool,
}

impl Dispatch<'_> {
    /// When and how an attempt begun now ends: its scripted end, its deadline (by the tie rule) or the
    /// call's cancellation strictly before either.
    fn plan(
        &self,
        pending: PendingAttempt,
        now: VInstant,
        cancel_at: Option<VInstant>,
    ) -> (Option<VInstant>, AttemptResult) {
        let completed = AttemptResult::Completed(pending.step.outcome);
        let timer = self.limit.map(|(limit, tie)| (now.saturating_add(limit), tie));
        let (stop, result) = match (pending.completes_at, timer) {
            (Some(done), Some((deadline, tie)))
                if done < deadline || (done == deadline && tie == TieRule::InnerWins) =>
            {
                (Some(done), completed)
            }
            (Some(done), None) => (Some(done), completed),
            (_, Some((deadline, _))) => (Some(deadline), AttemptResult::TimedOut),
            (None, None) => (None, AttemptResult::Cancelled),
        };
        match cancel_at.map(|at| at.max(now)) {
            Some(cut) if stop.is_none_or(|stop| cut < stop) => (Some(cut), AttemptResult::Cancelled),
            _ => (stop, result),
        }
    }
}

impl Future for Dispatch<'_> {
    type Output = Result<AttemptResult, Abort>;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        let (pending, stop, result) = match self.pending {
            Some(planned) => planned,
            None => match self.world.with(|w| w.begin_attempt().map(|p| (p, w.now(), w.cancel_at()))) {
                Ok((pending, now, cancel_at)) => {
                    let (stop, result) = self.plan(pending, now, cancel_at);
                    if let Some(at) = stop {
                        self.world.register(at);
                    }
                    self.pending = Some((pending, stop, result));
                    (pending, stop, result)
                }
                Err(abort) => {
                    self.done = true;
                    return Poll::Ready(Err(abort));
                }
            },
        };
        if stop.is_none_or(|stop| self.world.now() < stop) {
            return Poll::Pending;
        }
        self.done = true;
        let limit = self.limit.map_or(VDuration::MAX, |(limit, _)| limit);
        // Wall jumps due by now are recorded before the attempt ends, as `World::dispatch` does.
        let ended = self.world.with(|w| w.advance_to(w.now()).and_then(|()| w.end_attempt(pending, result, limit)));
        Poll::Ready(ended.map(|()| result))
    }
}

impl Drop for Dispatch<'_> {
    fn drop(&mut self) {
        let Some((pending, _, _)) = self.pending.filter(|_| !self.done) else { return };
        let (result, limit) = match self.world.shared.cutting_timeout.get() {
            Some(limit) => (AttemptResult::TimedOut, limit),
            None => (AttemptResult::Cancelled, VDuration::MAX),
        };
        if let Err(abort) = self.world.with(|w| w.end_attempt(pending, result, limit)) {
            self.world.defer(abort);
        }
    }
}

/// The future of [`AsyncWorld::timeout`].
pub struct Timeout<'s, F> {
    world: AsyncWorld<'s>,
    limit: VDuration,
    deadline: Option<VInstant>,
    inner: Pin<Box<Option<F>>>,
}

impl<F: Future> Future for Timeout<'_, F> {
    type Output = Result<F::Output, Elapsed>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let deadline = match self.deadline {
            Some(deadline) => deadline,
            None => {
                let deadline = self.world.now().saturating_add(self.limit);
                self.world.register(deadline);
                self.deadline = Some(deadline);
                deadline
            }
        };
        let inner = self.inner.as_mut().as_pin_mut();
        if let Some(inner) = inner {
            if let Poll::Ready(output) = inner.poll(cx) {
                self.inner.set(None);
                return Poll::Ready(Ok(output));
            }
        }
        if self.world.now() < deadline {
            return Poll::Pending;
        }
        self.world.shared.cutting_timeout.set(Some(self.limit));
        self.inner.set(None);
        self.world.shared.cutting_timeout.set(None);
        Poll::Ready(Err(Elapsed))
    }
}

/// Drives the future `f` builds to completion in virtual time, then gives the World back.
///
/// # Errors
/// The future's own abort; [`Abort::Hung`] when it is pending with no timer left; the events limit when
/// it keeps polling without progress.
pub fn run_async<'s, F, Fut>(world: &mut World<'s>, f: F) -> Result<(), Abort>
where
    F: FnOnce(AsyncWorld<'s>) -> Fut,
    Fut: Future<Output = Result<(), Abort>>,
{
    with_async_world(world, |handle| drive(handle, f(handle.clone())))
}

/// Lends `world` to `run` as an [`AsyncWorld`], then gives it back with any abort deferred in a `Drop`.
pub(crate) fn with_async_world<'s>(
    world: &mut World<'s>,
    run: impl FnOnce(&AsyncWorld<'s>) -> Result<(), Abort>,
) -> Result<(), Abort> {
    let placeholder = World::placeholder(world.schedule());
    let owned = std::mem::replace(world, placeholder);
    let shared = Rc::new(Shared {
        world: RefCell::new(owned),
        timers: RefCell::new(BinaryHeap::new()),
        current: Cell::new(0),
        cutting_timeout: Cell::new(None),
        deferred: RefCell::new(None),
    });
    let handle = AsyncWorld { shared: Rc::clone(&shared) };
    let result = run(&handle);
    drop(handle);
    let deferred = shared.deferred.borrow_mut().take();
    let shared = Rc::try_unwrap(shared).map_err(|_| Abort::Misuse(crate::world::Misuse::Finished))?;
    *world = shared.world.into_inner();
    match (result, deferred) {
        (Err(abort), _) | (Ok(()), Some(abort)) => Err(abort),
        (Ok(()), None) => Ok(()),
    }
}

fn drive<Fut: Future<Output = Result<(), Abort>>>(handle: &AsyncWorld<'_>, future: Fut) -> Result<(), Abort> {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    let polls_max = 16 * u64::from(handle.with(|w| w.limits().events_max));
    for _ in 0..polls_max {
        if let Poll::Ready(result) = future.as_mut().poll(&mut cx) {
            return result;
        }
        if let Some(abort) = handle.shared.deferred.borrow_mut().take() {
            return Err(abort);
        }
        let now = handle.now();
        let next = {
            let mut timers = handle.shared.timers.borrow_mut();
            while timers.peek().is_some_and(|Reverse((at, _))| *at <= now) {
                timers.pop();
            }
            timers.pop()
        };
        let Some(Reverse((at, _))) = next else {
            return Err(hung(handle));
        };
        handle.with(|w| w.advance_to(at))?;
    }
    Err(handle.with(|w| w.issue(Abort::StepLimit { kind: LimitKind::Events, limit: polls_max })))
}

fn hung(handle: &AsyncWorld<'_>) -> Abort {
    handle.with(|w| {
        let last = w.trace().events.last().copied();
        let (call, attempt) = last.map_or((0, 0), |event| (event.call, event.attempt));
        w.issue(Abort::Hung { call, attempt })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Contract;
    use crate::schedule::{CallScript, Outcome, Schedule, Step};
    use crate::subject::Subject;
    use crate::trace::{ErrorKind, EventKind};
    use crate::{execute, TraceEnd};

    /// One attempt per call under an optional timeout, with a 10 ms sleep first.
    struct OneShot(Option<u64>);

    impl Subject for OneShot {
        type Config = ();
        fn name(&self) -> &str {
            "one-shot"
        }
        fn contract(&self, _: &()) -> Contract {
            Contract::default()
        }
        fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
            let limit = self.0;
            run_async(world, move |w| async move {
                while w.start_call()?.is_some() {
                    w.sleep(VDuration::from_millis(10)).await?;
                    let result = match limit {
                        Some(ms) => match w.timeout(VDuration::from_millis(ms), w.dispatch()).await {
                            Ok(attempt) => attempt?,
                            Err(Elapsed) => AttemptResult::TimedOut,
                        },
                        None => w.dispatch().await?,
                    };
                    let result = match result {
                        AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
                        AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
                        AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
                    };
                    w.end_call(result)?;
                }
                Ok(())
            })
        }
    }

    fn kinds(schedule: &Schedule, subject: &OneShot) -> (Vec<EventKind>, TraceEnd) {
        let trace = execute(subject, &(), schedule, 0);
        (trace.events.iter().map(|event| event.kind).collect(), trace.end)
    }

    #[test]
    fn a_timeout_drops_the_attempt_and_records_the_cut() {
        let schedule = Schedule::single(vec![Step::new(VDuration::from_millis(80), Outcome::Ok)]);
        let (kinds, end) = kinds(&schedule, &OneShot(Some(50)));
        assert_eq!(end, TraceEnd::Complete);
        assert!(kinds.contains(&EventKind::AttemptTimedOut { timeout: VDuration::from_millis(50) }));
    }

    #[test]
    fn a_tie_at_the_deadline_resolves_to_the_inner_result() {
        let schedule = Schedule::single(vec![Step::new(VDuration::from_millis(50), Outcome::Ok)]);
        let (kinds, _) = kinds(&schedule, &OneShot(Some(50)));
        assert!(kinds.contains(&EventKind::AttemptEnd { outcome: Outcome::Ok }));
    }

    #[test]
    fn cancellation_cuts_an_async_sleep() {
        let mut call = CallScript::outcomes(&[Outcome::Ok]);
        call.cancel_after = Some(VDuration::from_millis(5));
        let (kinds, _) = kinds(&Schedule::new(vec![call]), &OneShot(None));
        assert!(kinds.contains(&EventKind::SleepCancelled));
    }

    #[test]
    fn a_hang_with_nothing_to_end_it_is_reported() {
        let schedule = Schedule::single(vec![Step::instant(Outcome::Hang)]);
        let (_, end) = kinds(&schedule, &OneShot(None));
        assert_eq!(end, TraceEnd::Aborted(Abort::Hung { call: 0, attempt: 1 }));
    }
}
