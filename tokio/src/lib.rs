//! timelaw-tokio, the paused-time driver: run an async subject that uses `tokio::time` (sleep, timeout,
//! `Instant`) on a current-thread runtime whose clock is paused, so virtual time is tokio's time.
//!
//! ```
//! use std::time::Duration;
//! use timelaw_tokio::{run_tokio, time};
//! use timelaw_core::{execute, Abort, CallResult, Contract, ErrorKind, EventKind, Outcome, Schedule, Step,
//!     Subject, VDuration, World};
//!
//! /// Application code: one attempt under `tokio::time::timeout` (through `timed_attempt`).
//! struct OneShot;
//! impl Subject for OneShot {
//!     type Config = u64;
//!     fn name(&self) -> &str { "one-shot" }
//!     fn contract(&self, _: &u64) -> Contract { Contract::default() }
//!     fn run(&self, timeout_ms: &u64, world: &mut World<'_>) -> Result<(), Abort> {
//!         let limit = Duration::from_millis(*timeout_ms);
//!         run_tokio(world, |w| async move {
//!             w.for_each_call(|_call| async {
//!                 Ok(match w.timed_attempt(limit).await { // = tokio::time::timeout(limit, w.attempt())
//!                     Ok(outcome) => CallResult::from_outcome(outcome?),
//!                     Err(_elapsed) => CallResult::Err(ErrorKind::Timeout),
//!                 })
//!             }).await
//!         })
//!     }
//! }
//!
//! let slow = Step::new(VDuration::from_millis(80), Outcome::Ok);
//! let trace = execute(&OneShot, &50, &Schedule::single(vec![slow]), 0);
//! let cut = trace.events.iter().find(|e| matches!(e.kind, EventKind::AttemptTimedOut { .. })).unwrap();
//! assert_eq!(cut.at.as_nanos(), 50_000_000); // tokio's timeout dropped the attempt at 50 ms
//! ```
//!
//! # How it works
//! [`run_tokio`] builds `Builder::new_current_thread().enable_time().start_paused(true)`, takes the World
//! for the duration of the run and hands the subject a [`TokioWorld`]. The World's clock follows tokio's:
//! before the World records anything, the driver moves it to tokio's elapsed time since the run started
//! ([`World::advance_to`]). Nothing sleeps for real: when every task waits on a timer, tokio auto-advances
//! its paused clock to the next timer.
//!
//! - A scripted attempt ([`TokioWorld::attempt`]) is a future that begins the attempt when first
//!   polled, takes its scripted duration with `tokio::time::sleep`, and ends it. A zero-duration attempt
//!   completes on its first poll. A hanging attempt sleeps until the World's time limit and then
//!   aborts the run with [`Abort::Hung`] (unless something drops it first).
//! - An attempt under its own timeout is [`TokioWorld::timed_attempt`]: exactly
//!   `tokio::time::timeout(limit, w.attempt())` (same timer, same tie rule, same output), except that it
//!   tells the attempt's drop guard when its own timer is the one that drops the attempt.
//!   [`TokioWorld::attempt_within`] gives its output as the call's result (`Err(Timeout)` on elapse).
//! - [`serve_calls_concurrently`] serves overlapping calls (a schedule with arrivals): one future per
//!   call, started at its arrival, polled by the driver itself in the order the case records for calls
//!   ready at the same instant, the core executor's tie rule and interleaving
//!   ([`timelaw_core::concurrent`]); a sequential schedule takes [`serve_calls`]' path.
//! - [`serve_calls`] is `run_tokio` and [`TokioWorld::for_each_call`] in one: one async function per call;
//!   [`retryable_by_default`] classifies what `attempt_within` gives for a retry loop.
//! - Dropped before it completes (a drop guard), an attempt records the cut at that instant, by cause:
//!   `AttemptCancelled` when the caller's cancellation dropped it; `AttemptTimedOut` (with the time it
//!   ran) when its own timer in [`TokioWorld::timed_attempt`] did; `AttemptDropped` (with the time it
//!   ran) when anything else did: a `tokio::time::timeout` around the whole call (a deadline), a
//!   `select!`, or a bare `tokio::time::timeout(limit, w.attempt())`, whose timer the driver cannot see.
//!   So a deadline that fires at the very instant an attempt's own timeout would have is never recorded
//!   as the attempt's timeout, and no timeout law judges it.
//! - Gaps between calls move tokio's clock by exactly the gap ([`tokio::time::advance`]).
//! - With virtual std clocks ([`timelaw_core::std_clocks`]), std's clocks show tokio's time before
//!   every poll of the subject's future ([`World::show_on_std_clocks`]), so `std::time::Instant::now()`
//!   reads what `tokio::time::Instant::now()` does (tokio moves its paused clock only between polls).
//! - Code that cannot hold the World (a `'static` sleeper, a `Send` notify callback, a strategy
//!   iterator) records through the [`Recorder`].
//!
//! # Tie rule
//! `tokio::time::timeout` polls the inner future before its timer, so an attempt completing at the very
//! instant the timeout expires returns its own result ([`TieRule::InnerWins`](timelaw_core::TieRule)).
//! The same holds for the caller's cancellation here: a call completing at its cancellation instant
//! completes.
//!
//! # Timer resolution
//! tokio's timers have millisecond resolution: a timer due between two milliseconds fires on the later
//! one, and with the paused clock the runtime advances by whole milliseconds from the current instant.
//! Durations in whole milliseconds from a whole-millisecond instant are exact; others fire up to about a
//! millisecond late, and the trace shows it. The caller's cancellation is the driver's own and is exact:
//! when tokio first wakes at or after the cancellation instant `k`, the call is dropped and its cut is
//! recorded at `k` (a call that tokio would have completed between `k` and that wake-up is cut at `k`).
//!
//! # Long sleeps
//! tokio clamps every `tokio::time::sleep` to [`TOKIO_SLEEP_MAX`] (30 years of 365 days): a longer sleep
//! wakes after that. The driver knows it: a recorded sleep past it is recorded as asked
//! (`SleepRequested`) and then as clamped (`SleepClamped`), and the laws judge what the subject asked
//! for. The driver's own watchdog at the World's virtual time limit is re-armed in steps of at most
//! [`TOKIO_SLEEP_MAX`], so a run is cut at the World's limit, not at tokio's.
//!
//! # Deadlocks
//! A future that waits for nothing that can ever wake it (no timer pending, no task ready: a channel
//! nobody sends on, `std::future::pending()`) ends the run with [`Abort::Deadlock`], a `terminates`
//! violation. tokio does not say whether a timer is pending, so the driver finds out at the World's time
//! limit, where its watchdog wakes with the subject's future still pending: it shuts the runtime down
//! before dropping that future. Shutting down fires every timer still set, however far away; the
//! future is polled with a waker of the driver's, so a wake then means it had a timer set: a sleep past
//! the limit, cut there as before. No wake means nothing could ever have woken it: a deadlock. Either
//! way the trace ends where the run did: the future is dropped with the World's clock held at the limit
//! (a cut) or where it stood (a deadlock).
//!
//! A run the per-case watchdog abandoned (a task that yields forever, say) parks its thread the next
//! time the driver is polled, like the World does at its next call.
//!
//! # Cancellation
//! A call with `cancel_after` is dropped at its cancellation instant (dropping is how a caller cancels a
//! future); an attempt in flight records `AttemptCancelled`, a recorded sleep in flight `SleepCancelled`,
//! and the call returns `Err(Cancelled)`.
//!
//! # Panics
//! A panic inside the subject is re-raised after the World is given back, so the runner's trace keeps
//! every event recorded before it. `run_tokio` must not be called from inside another tokio runtime.

#![deny(missing_docs)]

mod attempt;
mod cancel;
mod concurrent;
mod recorder;
mod serve;
mod world;

pub use attempt::{Attempt, TimedAttempt};
pub use concurrent::serve_calls_concurrently;
pub use recorder::{Recorder, TOKIO_SLEEP_MAX};
pub use serve::{retryable_by_default, serve_calls};
pub use world::TokioWorld;

/// The tokio crate this driver runs on (its version is the one subjects must use).
pub use ::tokio;
/// tokio's time module (`sleep`, `timeout`, `Instant`), re-exported so that a subject written against
/// this driver needs no tokio dependency of its own.
pub use ::tokio::time;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

use timelaw_core::{Abort, LimitKind, Misuse, VInstant, World};
use tokio::time::Instant;

/// What the handles of one run share.
pub(crate) struct Shared<'s> {
    pub(crate) world: RefCell<World<'s>>,
    /// tokio's instant when the run started.
    pub(crate) start: Instant,
    /// The World's instant when the run started.
    pub(crate) base: VInstant,
    pub(crate) recorder: Recorder,
    /// While the caller's cancellation cuts a call: the instant everything is recorded at.
    pub(crate) cancel_cut: Cell<Option<VInstant>>,
    /// While a [`TimedAttempt`]'s own timer drops its attempt: the drop guard records `AttemptTimedOut`.
    pub(crate) own_timeout: Cell<bool>,
    /// An abort raised where it could not be returned (inside `Drop`, or a hang).
    pub(crate) deferred: RefCell<Option<Abort>>,
    /// The call being polled by [`serve_calls_concurrently`]; `None` on the sequential path.
    pub(crate) current: Cell<Option<u32>>,
    /// Once the run is over (cut at the time limit, or a deadlock): the instant the subject's futures
    /// are dropped at, whatever tokio's clock says (see [`Guarded`]).
    pub(crate) held: Cell<Option<VInstant>>,
}

/// Runs the future `f` builds on a paused tokio runtime until it completes, then gives the World back.
/// See the module docs.
///
/// # Errors
/// The future's own abort, an abort deferred by a drop guard or a hang, the World's time limit when the
/// future is still pending at it with a timer set, [`Abort::Deadlock`] when it is pending with none, or
/// [`Abort::InvalidConfig`] if the runtime cannot be built.
///
/// # Panics
/// Re-raises a panic of the subject after restoring the World.
pub fn run_tokio<'s, F, Fut>(world: &mut World<'s>, f: F) -> Result<(), Abort>
where
    F: FnOnce(TokioWorld<'s>) -> Fut,
    Fut: Future<Output = Result<(), Abort>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .map_err(|error| Abort::InvalidConfig(format!("the paused tokio runtime could not be built: {error}")))?;
    let placeholder = World::new(world.schedule(), 0);
    let owned = std::mem::replace(world, placeholder);
    let slot: RefCell<Option<Rc<Shared<'s>>>> = RefCell::new(None);
    let woken = Arc::new(Woken::default());
    let parked: RefCell<Option<Pin<Box<Fut>>>> = RefCell::new(None);
    let run = Run { slot: &slot, woken: &woken, parked: &parked };
    let outcome = catch_unwind(AssertUnwindSafe(|| runtime.block_on(drive(owned, f, run))));
    let outcome = match parked.borrow_mut().take() {
        Some(main) => Ok(stopped_at_limit(runtime, main, &woken, &slot)),
        None => outcome,
    };
    let restored = slot.borrow_mut().take().map(Rc::try_unwrap);
    match restored {
        Some(Ok(shared)) => *world = shared.world.into_inner(),
        _ => return Err(Abort::Misuse(Misuse::Finished)), // A handle outlived the run.
    }
    match outcome {
        Ok(result) => result,
        Err(payload) => resume_unwind(payload),
    }
}

/// The subject's future, still pending at the World's time limit: a cut if it had a timer set, a
/// deadlock if not. Shutting the runtime down fires every timer still set, however far away (tokio's
/// time driver processes them all at "the end of time"); the future's waker ([`Woken`]) says whether one
/// of them was the subject's. The future is dropped after that, with the World's clock held at the limit
/// (a cut) or where it stood (a deadlock), so nothing is recorded past where the run ended.
fn stopped_at_limit<'s, Fut>(
    runtime: tokio::runtime::Runtime,
    main: Pin<Box<Fut>>,
    woken: &Woken,
    slot: &RefCell<Option<Rc<Shared<'s>>>>,
) -> Result<(), Abort> {
    woken.woken.store(false, Ordering::Release);
    drop(runtime);
    let Some(shared) = slot.borrow().clone() else { return Err(Abort::Misuse(Misuse::Finished)) };
    let limit = shared.world.borrow().limits().virtual_time_max;
    let result = if woken.woken.load(Ordering::Acquire) {
        shared.world.borrow().issue(Abort::StepLimit { kind: LimitKind::VirtualTime, limit: limit.as_nanos() })
    } else {
        let world = shared.world.borrow();
        shared.held.set(Some(world.now())); // The instant the subject stopped.
        let last = world.trace().events.last().map_or(0, |event| event.call);
        world.issue(Abort::Deadlock { call: shared.current.get().unwrap_or(last) })
    };
    drop(main); // What its drop guards defer is dropped with the run, as at any cut.
    Err(result)
}

/// Where [`drive`] leaves what [`run_tokio`] needs after the runtime: the run's shared state, the waker
/// of the subject's future, and that future itself when it was still pending at the time limit.
struct Run<'r, 's, Fut> {
    slot: &'r RefCell<Option<Rc<Shared<'s>>>>,
    woken: &'r Arc<Woken>,
    parked: &'r RefCell<Option<Pin<Box<Fut>>>>,
}

async fn drive<'s, F, Fut>(owned: World<'s>, f: F, run: Run<'_, 's, Fut>) -> Result<(), Abort>
where
    F: FnOnce(TokioWorld<'s>) -> Fut,
    Fut: Future<Output = Result<(), Abort>>,
{
    let base = owned.now();
    let left = owned.limits().virtual_time_max.saturating_sub(base.since_epoch());
    let shared = Rc::new(Shared {
        world: RefCell::new(owned),
        start: Instant::now(),
        base,
        recorder: Recorder::default(),
        cancel_cut: Cell::new(None),
        own_timeout: Cell::new(false),
        deferred: RefCell::new(None),
        current: Cell::new(None),
        held: Cell::new(None),
    });
    *run.slot.borrow_mut() = Some(Rc::clone(&shared));
    let handle = TokioWorld::new(Rc::clone(&shared));
    let deadline = shared.start.checked_add(left.to_std());
    let guarded = Guarded {
        main: Some(Box::pin(f(handle.clone()))),
        watchdog: Box::pin(tokio::time::sleep(left.to_std().min(TOKIO_SLEEP_MAX))),
        deadline,
        handle,
        waker: Waker::from(Arc::clone(run.woken)),
        woken: Arc::clone(run.woken),
        parked: run.parked,
    };
    guarded.await
}

/// Whether the subject's future was woken, and the driver's own waker to pass the wake on to.
#[derive(Default)]
struct Woken {
    woken: AtomicBool,
    driver: Mutex<Option<Waker>>,
}

impl Woken {
    /// Remembers the driver's waker of this poll (a clone only when it changed).
    fn register(&self, waker: &Waker) {
        let mut driver = self.driver.lock().unwrap_or_else(PoisonError::into_inner);
        if !driver.as_ref().is_some_and(|known| known.will_wake(waker)) {
            *driver = Some(waker.clone());
        }
    }
}

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        // A poisoned lock still holds a usable waker: a panic cannot interrupt `Option::replace`.
        if let Some(driver) = self.driver.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
            driver.wake_by_ref();
        }
    }
}

/// The subject's future, with deferred aborts surfaced and a watchdog at the World's time limit (so a
/// future waiting on nothing cannot park the runtime forever). tokio sleeps at most
/// [`TOKIO_SLEEP_MAX`], so the watchdog is re-armed in steps of at most that until the limit. The
/// future is polled with a waker of the driver's ([`Woken`]); at the limit it is handed over, still
/// pending, to [`run_tokio`], which tells a deadlock from a sleep past the limit
/// ([`stopped_at_limit`]).
struct Guarded<'r, 's, Fut> {
    /// `None` once handed over at the time limit.
    main: Option<Pin<Box<Fut>>>,
    watchdog: Pin<Box<tokio::time::Sleep>>,
    /// tokio's instant of the World's time limit; `None` when tokio cannot represent it.
    deadline: Option<Instant>,
    handle: TokioWorld<'s>,
    /// Wakes of the subject's future.
    woken: Arc<Woken>,
    /// The waker the subject's future is polled with: `woken`'s.
    waker: Waker,
    /// Where the future goes at the time limit.
    parked: &'r RefCell<Option<Pin<Box<Fut>>>>,
}

impl<Fut> Guarded<'_, '_, Fut> {
    /// `true` once the watchdog has reached the World's time limit; re-arms it (and registers the
    /// waker) while the limit lies further than one tokio sleep.
    fn watchdog_expired(&mut self, cx: &mut Context<'_>) -> bool {
        while self.watchdog.as_mut().poll(cx).is_ready() {
            let now = Instant::now();
            // A limit tokio cannot represent ends the run at the furthest instant it reaches.
            let Some(left) = self.deadline.map(|deadline| deadline.saturating_duration_since(now)) else {
                return true;
            };
            if left.is_zero() {
                return true;
            }
            self.watchdog.as_mut().reset(now + left.min(TOKIO_SLEEP_MAX));
        }
        false
    }
}

impl<Fut: Future<Output = Result<(), Abort>>> Future for Guarded<'_, '_, Fut> {
    type Output = Result<(), Abort>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let heartbeat = self.handle.shared.world.borrow().heartbeat();
        if let Some(heartbeat) = heartbeat {
            heartbeat.call(); // A run the watchdog abandoned parks here, between two polls.
        }
        self.woken.register(cx.waker());
        let this = &mut *self;
        let Some(main) = this.main.as_mut() else { return Poll::Pending };
        this.handle.show_on_std_clocks();
        let polled = main.as_mut().poll(&mut Context::from_waker(&this.waker));
        if let Some(abort) = self.handle.take_deferred() {
            return Poll::Ready(Err(abort));
        }
        if let Poll::Ready(result) = polled {
            return Poll::Ready(result);
        }
        if self.watchdog_expired(cx) {
            // Held at the limit from now on: whatever is dropped later is recorded there.
            self.handle.shared.held.set(Some(self.handle.now()));
            *self.parked.borrow_mut() = self.main.take();
            return Poll::Ready(Ok(())); // Replaced by `stopped_at_limit`.
        }
        Poll::Pending
    }
}
