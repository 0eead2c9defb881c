//! [`serve_calls_concurrently`]: overlapping calls on the paused runtime, one future per call started at
//! its arrival, with the DRIVER (not tokio's scheduler) deciding which ready call is polled first.
//!
//! # How the calls run
//! All call futures live inside one driver future on the runtime's only task: the driver polls them
//! itself, each with a waker of its own that records "this call was woken" and wakes the driver. tokio
//! decides nothing but when its paused clock moves: when the driver is idle, tokio auto-advances to the
//! next timer (a call's sleep, attempt, timeout or cancellation, or the driver's timer for the next
//! arrival) and fires every timer due then; the wakes only mark calls as ready.
//!
//! # When calls run (the tie rule of [`timelaw_core::concurrent`])
//! Each time the driver runs, at tokio's current instant, it
//! 0. cuts every call whose cancellation instant lies strictly before that instant (tokio's timers fire
//!    on whole milliseconds, the cancellation is exact), earliest first, the cuts of one instant in a
//!    round of their own ordered as below; each cut is recorded at its own instant;
//! 1. starts every call arriving at or before that instant, in index order (`World::open_call`,
//!    recording `CallStart`);
//! 2. makes the calls DUE: the calls just started and every call whose waker fired (a timer due by now,
//!    or a tokio synchronisation primitive such as a `Semaphore` another call released);
//! 3. polls the due calls one by one in an order chosen as below (a round). When a round made progress
//!    (an event was recorded or a call finished), another round polls EVERY unfinished call; rounds
//!    repeat until one makes no progress;
//! 4. arms its arrival timer and yields to tokio, which moves the clock to the next timer.
//!
//! # Controlled interleaving
//! As the core executor's: the calls of a round are listed in first-come (call index) order, and while
//! two or more are left, the next entry `e` of [`Schedule::interleave`](timelaw_core::Schedule) picks the
//! call at position `e % left` (one choice point, counted over the whole run); an empty list, and every
//! entry past its end, picks the first. So a subject whose calls wait only on timers gives the same
//! events here as under [`run_async_calls`](timelaw_core::concurrent::run_async_calls) (timers at whole
//! milliseconds: see the crate docs, "Timer resolution").
//!
//! Every poll runs with the call in focus (`World::focus`), so each event, recorded sleeps included,
//! belongs to its call. Polls run outside tokio's cooperative budget (`tokio::task::unconstrained`): a
//! budget spent by one call must not make another call's ready timer look pending.
//!
//! # Cancellation, hangs and limits
//! A call with `cancel_after` is cut at its cancellation instant exactly as in the sequential driver:
//! its future is dropped and never polled at or after that instant. So where a cancellation falls on the
//! very instant another timer of the call is due, the call is cut (the core executor lets an attempt
//! ending exactly then complete); apart from such ties both drivers record the same events.
//! Calls that wait on nothing that can ever wake them (a permit never released) are a deadlock: at the
//! World's virtual time limit the driver finds that no timer is pending ([`Abort::Deadlock`], see the
//! crate docs; the core executor reports [`Abort::Hung`]). Polls are bounded like the core executor's.
//!
//! # A sequential case
//! A schedule without arrivals is served by [`serve_calls`](crate::serve_calls), unchanged: one call
//! after the other, the same events byte for byte as before this driver existed.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use timelaw_core::concurrent::arrival_instant;
use timelaw_core::{Abort, CallInfo, CallResult, LimitKind, VInstant, World};

use crate::cancel::Cancellable;
use crate::{run_tokio, serve_calls, TokioWorld};

type CallFuture<'s> = Pin<Box<dyn Future<Output = Result<CallResult, Abort>> + 's>>;

/// Serves every call of the World's schedule on the paused runtime, concurrently when the schedule has
/// arrivals: `serve(w, call)` builds the future of one call, started at the call's arrival; its output
/// is the call's result. State the calls share (a `tokio::sync::Semaphore`, a tower service) lives in
/// the closure, behind `Rc`. See the module docs for the order calls run in.
///
/// # Errors
/// A call future's abort (the run stops there), the World's, a hang's, the poll limit.
///
/// # Panics
/// As [`run_tokio`], which re-raises a panic of a call after restoring the World.
///
/// # Examples
/// ```
/// use std::rc::Rc;
/// use timelaw_core::{execute, Abort, CallResult, CallScript, Contract, ErrorKind, EventKind, Outcome,
///     Rejection, Schedule, Step, Subject, VDuration, World};
/// use timelaw_tokio::{serve_calls_concurrently, tokio::sync::Semaphore};
///
/// /// A bulkhead of `limit` permits: a call that finds none is rejected at once.
/// struct Bulkhead;
/// impl Subject for Bulkhead {
///     type Config = usize;
///     fn name(&self) -> &str { "semaphore-bulkhead" }
///     fn contract(&self, _: &usize) -> Contract { Contract::default() }
///     fn run(&self, limit: &usize, world: &mut World<'_>) -> Result<(), Abort> {
///         let permits = Rc::new(Semaphore::new(*limit));
///         serve_calls_concurrently(world, move |w, _call| {
///             let permits = Rc::clone(&permits);
///             async move {
///                 let Ok(_permit) = permits.try_acquire() else {
///                     w.with(|w| w.reject(Rejection::BulkheadFull))?;
///                     return Ok(CallResult::Err(ErrorKind::BulkheadFull));
///                 };
///                 Ok(CallResult::from_outcome(w.attempt().await?))
///             }
///         })
///     }
/// }
///
/// // Three calls arrive together; each attempt takes 10 ms.
/// let call = CallScript::new(vec![Step::new(VDuration::from_millis(10), Outcome::Ok)]);
/// let schedule = Schedule::new(vec![call.arriving(VDuration::ZERO); 3]);
/// let rejected = |schedule: &Schedule| -> Vec<u32> {
///     let trace = execute(&Bulkhead, &2, schedule, 0);
///     trace.events.iter().filter(|e| matches!(e.kind, EventKind::Rejected { .. })).map(|e| e.call).collect()
/// };
/// assert_eq!(rejected(&schedule), [2]); // first come, first served
/// // The recorded choice polls call 2 first: it gets a permit and call 1 is rejected.
/// assert_eq!(rejected(&schedule.clone().with_interleave(vec![2])), [1]);
/// ```
pub fn serve_calls_concurrently<'s, F, Fut>(world: &mut World<'s>, serve: F) -> Result<(), Abort>
where
    F: FnMut(TokioWorld<'s>, CallInfo) -> Fut,
    Fut: Future<Output = Result<CallResult, Abort>> + 's,
{
    if !world.schedule().has_arrivals() {
        return serve_calls(world, serve);
    }
    run_tokio(world, |w| async move {
        let polls_max = 16 * u64::from(w.with(|world| Ok(world.limits().events_max))?);
        let mut calls = Calls {
            world: w,
            serve,
            tasks: Vec::new(),
            ended_at: Vec::new(),
            opened_at: None,
            choice: 0,
            woken: Arc::new(Woken::default()),
            arrival: None,
            polls: 0,
            polls_max,
        };
        std::future::poll_fn(|cx| calls.drive(cx)).await
    })
}

/// Which calls were woken since they were last polled, and the driver's own waker.
#[derive(Default)]
struct Woken {
    calls: Mutex<BTreeSet<u32>>,
    driver: Mutex<Option<Waker>>,
}

impl Woken {
    fn take(&self) -> Vec<u32> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(PoisonError::into_inner)).into_iter().collect()
    }

    fn forget(&self, call: u32) {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner).remove(&call);
    }
}

/// The waker of one call: marks the call as woken, then wakes the driver.
struct CallWaker {
    call: u32,
    woken: Arc<Woken>,
}

impl Wake for CallWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.calls.lock().unwrap_or_else(PoisonError::into_inner).insert(self.call);
        // A poisoned lock still holds a usable waker: a panic cannot interrupt `Option::replace`.
        if let Some(driver) = self.woken.driver.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
            driver.wake_by_ref();
        }
    }
}

/// One started call: its future (`None` once finished), its waker and its cancellation instant.
struct Task<'s> {
    future: Option<CallFuture<'s>>,
    waker: Waker,
    cancel_at: Option<VInstant>,
}

/// The state of one concurrent run.
struct Calls<'s, F> {
    world: TokioWorld<'s>,
    serve: F,
    tasks: Vec<Task<'s>>,
    /// When each started call ended.
    ended_at: Vec<Option<VInstant>>,
    /// When the last call started.
    opened_at: Option<VInstant>,
    /// The next entry of `Schedule::interleave`.
    choice: usize,
    woken: Arc<Woken>,
    /// The driver's timer for the next arrival, and that arrival.
    arrival: Option<(VInstant, Pin<Box<tokio::time::Sleep>>)>,
    polls: u64,
    polls_max: u64,
}

impl<'s, F, Fut> Calls<'s, F>
where
    F: FnMut(TokioWorld<'s>, CallInfo) -> Fut,
    Fut: Future<Output = Result<CallResult, Abort>> + 's,
{
    /// One turn of the driver at tokio's current instant (module docs, steps 1 to 4).
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Abort>> {
        *self.woken.driver.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
        loop {
            let step = self.cut_early().and_then(|()| self.open_arrived()).and_then(|mut due| {
                due.extend(self.woken.take());
                due.sort_unstable();
                due.dedup();
                self.rounds(due)
            });
            if let Err(abort) = step {
                return Poll::Ready(Err(abort));
            }
            if self.polls > self.polls_max {
                let limit = Abort::StepLimit { kind: LimitKind::Events, limit: self.polls_max };
                return Poll::Ready(self.world.with(|world| Err(world.issue(limit))));
            }
            if self.all_done() {
                return Poll::Ready(self.world.with(|world| world.finish_calls()));
            }
            match self.next_arrival() {
                Some(at) if at <= self.world.now() => continue, // Known only now: an earlier call ended.
                Some(at) => self.arm(at, cx),
                None => self.arrival = None,
            }
            return Poll::Pending;
        }
    }

    fn all_done(&self) -> bool {
        let calls = self.world.with(|world| Ok(world.schedule().calls.len())).unwrap_or(0);
        self.tasks.len() >= calls && self.tasks.iter().all(|task| task.future.is_none())
    }

    /// Sets the arrival timer to `at` and registers the driver with it.
    fn arm(&mut self, at: VInstant, cx: &mut Context<'_>) {
        let instant = self.world.tokio_instant(at);
        let timer = match &mut self.arrival {
            Some((armed, timer)) if *armed == at => timer,
            slot => &mut slot.insert((at, Box::pin(tokio::time::sleep_until(instant)))).1,
        };
        if timer.as_mut().poll(cx).is_ready() {
            cx.waker().wake_by_ref(); // Due already (tokio's millisecond tick): run again at once.
        }
    }

    /// When the next call arrives, if that is known yet: its arrival (never before the previous call
    /// started), or `gap_before` after the previous call ended (as the core executor).
    fn next_arrival(&self) -> Option<VInstant> {
        let index = self.tasks.len();
        let script = self.world.with(|world| Ok(world.schedule().calls.get(index).cloned())).ok()??;
        let previous_ended = index.checked_sub(1).and_then(|previous| self.ended_at[previous]);
        arrival_instant(&script, index, self.opened_at, previous_ended)
    }

    /// Cuts the calls whose cancellation instant lies strictly before tokio's instant (tokio woke up to
    /// a millisecond after it), earliest first, those of one instant in a round of their own: the core
    /// executor would have run that instant before this one. Each cut is recorded at its own instant.
    fn cut_early(&mut self) -> Result<(), Abort> {
        let now = self.world.now();
        let mut cuts: Vec<(VInstant, u32)> = (self.tasks.iter().enumerate())
            .filter(|(_, task)| task.future.is_some())
            .filter_map(|(index, task)| Some((task.cancel_at.filter(|&at| at < now)?, u32::try_from(index).ok()?)))
            .collect();
        cuts.sort_unstable();
        for instant in cuts.iter().map(|&(at, _)| at).collect::<BTreeSet<_>>() {
            let mut round: Vec<u32> = cuts.iter().filter(|&&(at, _)| at == instant).map(|&(_, call)| call).collect();
            while let Some(call) = self.pick(&mut round)? {
                self.polls += 1;
                self.poll_call(call)?;
            }
        }
        Ok(())
    }

    /// Starts every call arriving by now; their indices.
    fn open_arrived(&mut self) -> Result<Vec<u32>, Abort> {
        let mut opened = Vec::new();
        while self.next_arrival().is_some_and(|at| at <= self.world.now()) {
            let Some((info, cancel_at)) = self.world.with(|world| {
                let info = world.open_call()?;
                Ok(info.map(|info| (info, world.cancel_at())))
            })?
            else {
                break;
            };
            self.opened_at = Some(info.started);
            let call = (self.serve)(self.world.clone(), info);
            let future: CallFuture<'s> = match cancel_at {
                Some(at) => Box::pin(tokio::task::unconstrained(Cancellable::new(self.world.clone(), call, at))),
                None => Box::pin(tokio::task::unconstrained(call)),
            };
            let waker = Waker::from(Arc::new(CallWaker { call: info.index, woken: Arc::clone(&self.woken) }));
            self.tasks.push(Task { future: Some(future), waker, cancel_at });
            self.ended_at.push(None);
            opened.push(info.index);
        }
        Ok(opened)
    }

    /// Polls `round` in the recorded order, then every unfinished call while a round makes progress.
    fn rounds(&mut self, mut round: Vec<u32>) -> Result<(), Abort> {
        round.retain(|&call| self.tasks.get(call as usize).is_some_and(|task| task.future.is_some()));
        while !round.is_empty() {
            let mut progress = false;
            while let Some(call) = self.pick(&mut round)? {
                self.polls += 1;
                progress |= self.poll_call(call)?;
            }
            if !progress {
                break;
            }
            round = self.unfinished();
        }
        Ok(())
    }

    /// Takes the next call of a round: the first, or the one the next interleave entry picks.
    fn pick(&mut self, round: &mut Vec<u32>) -> Result<Option<u32>, Abort> {
        Ok(match round.len() {
            0 => None,
            1 => round.pop(),
            left => {
                // Read without `TokioWorld::with`, which would bring the World's clock up to tokio's: a
                // round of `cut_early` records its cuts at their own, earlier instant.
                let entry = self.world.shared.world.borrow().schedule().interleave.get(self.choice).copied();
                self.choice += 1;
                Some(round.remove(entry.unwrap_or(0) as usize % left))
            }
        })
    }

    fn unfinished(&self) -> Vec<u32> {
        let unfinished = self.tasks.iter().enumerate().filter(|(_, task)| task.future.is_some());
        // Call indices fit in u32: they come from `CallInfo::index`.
        unfinished.map(|(index, _)| u32::try_from(index).unwrap_or(u32::MAX)).collect()
    }

    /// Polls `call` in focus; `true` when it recorded an event or finished.
    fn poll_call(&mut self, call: u32) -> Result<bool, Abort> {
        let world = self.world.clone();
        let Some(task) = self.tasks.get_mut(call as usize) else { return Ok(false) };
        let Some(future) = task.future.as_mut() else { return Ok(false) };
        // In focus without moving the World's clock: a cut records at its own instant (`cut_early`).
        let before = {
            let mut w = world.shared.world.borrow_mut();
            w.focus(call)?;
            w.trace().events.len()
        };
        world.shared.current.set(Some(call));
        self.woken.forget(call);
        let polled = future.as_mut().poll(&mut Context::from_waker(&task.waker));
        // Recorded sleeps and notifications are moved in now, while the call is in focus.
        let after = world.with(|w| Ok(w.trace().events.len()));
        if let Some(abort) = world.take_deferred() {
            return Err(abort);
        }
        let after = after?;
        let Poll::Ready(result) = polled else { return Ok(after != before) };
        task.future = None;
        let ended = result.and_then(|result| world.with(|w| w.focus(call).and_then(|()| w.end_call(result))));
        world.shared.cancel_cut.set(None);
        ended?;
        self.ended_at[call as usize] = Some(world.now());
        Ok(true)
    }
}

impl<F> Drop for Calls<'_, F> {
    /// Drops the unfinished calls (after an abort, or the watchdog's cut), each in focus, so a cut is
    /// recorded for its own call.
    fn drop(&mut self) {
        if self.world.shared.world.try_borrow_mut().is_err() {
            return; // Only while unwinding from a panic inside the World: nothing can be recorded.
        }
        for (index, task) in self.tasks.iter_mut().enumerate() {
            if task.future.is_some() {
                let index = u32::try_from(index).unwrap_or(u32::MAX);
                let _ = self.world.with(|world| world.focus(index));
                self.world.shared.current.set(Some(index));
                task.future = None;
            }
        }
        self.world.shared.current.set(None);
    }
}
