//! [`TokioWorld`]: the World as an async subject on the paused runtime sees it.

use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use timelaw_core::{Abort, CallInfo, CallResult, ErrorKind, EventKind, VDuration, VInstant, World};
use tokio::time::Instant;

use super::attempt::{Attempt, TimedAttempt};
use super::cancel::Cancellable;
use super::recorder::{Logged, Recorder, TOKIO_SLEEP_MAX};
use super::Shared;

/// The World of a [`run_tokio`](super::run_tokio) run: cheap to clone, all methods take `&self`. Every
/// method that records first moves the World's clock to tokio's (see the module docs).
#[derive(Clone)]
pub struct TokioWorld<'s> {
    pub(crate) shared: Rc<Shared<'s>>,
}

impl<'s> TokioWorld<'s> {
    pub(crate) fn new(shared: Rc<Shared<'s>>) -> TokioWorld<'s> {
        TokioWorld { shared }
    }

    /// The current virtual instant: tokio's elapsed time since the run started (or the cancellation
    /// instant while a call is being cut, or the instant the run ended while its futures are dropped).
    pub fn now(&self) -> VInstant {
        let held = self.shared.cancel_cut.get().or(self.shared.held.get());
        held.unwrap_or_else(|| self.vinstant(Instant::now()))
    }

    /// A handle for code that cannot hold the World (see [`Recorder`]).
    pub fn recorder(&self) -> Recorder {
        self.shared.recorder.clone()
    }

    /// Runs `f` with the World, its clock first brought up to tokio's.
    ///
    /// # Errors
    /// `f`'s abort, or the World's while moving the clock (the time limit).
    pub fn with<R>(&self, f: impl FnOnce(&mut World<'s>) -> Result<R, Abort>) -> Result<R, Abort> {
        let mut world = self.shared.world.borrow_mut();
        self.sync(&mut world)?;
        f(&mut world)
    }

    /// With virtual std clocks, shows tokio's time ([`TokioWorld::now`], held at a cancellation's cut)
    /// on std's clocks without moving the World, whose clock follows tokio's only when something is
    /// recorded; nothing otherwise.
    pub(crate) fn show_on_std_clocks(&self) {
        let world = self.shared.world.borrow();
        if world.std_clocks_virtual() {
            world.show_on_std_clocks(self.now());
        }
    }

    /// 64 random bits from the World's randomness.
    ///
    /// # Errors
    /// As [`World::random_u64`].
    pub fn random_u64(&self) -> Result<u64, Abort> {
        self.with(|world| world.random_u64())
    }

    /// The next scripted attempt of the current call (see the module docs).
    pub fn attempt(&self) -> Attempt<'s> {
        Attempt::new(self.clone())
    }

    /// The next scripted attempt under `tokio::time::timeout(limit, ..)`, with the same output; its own
    /// timer's cut is recorded as `AttemptTimedOut`, any other cut as `AttemptDropped` (see the module
    /// docs).
    pub fn timed_attempt(&self, limit: Duration) -> TimedAttempt<'s> {
        TimedAttempt::new(self.clone(), limit)
    }

    /// The next scripted attempt under its own timeout of `limit` ([`TokioWorld::timed_attempt`]), as the
    /// result a call would return after it: the attempt's own result when it completes (a tie at `limit`
    /// included: tokio polls the attempt first), `Err(Timeout)` when the timer fires first. Pair it with
    /// [`CallResult::retryable_by_default`] in a retry loop.
    ///
    /// # Errors
    /// The World's abort.
    ///
    /// # Examples
    /// ```
    /// use std::time::Duration;
    /// use timelaw_core::{execute, Abort, CallResult, Contract, ErrorKind, EventKind, Outcome, Schedule, Step};
    /// use timelaw_core::{Subject, VDuration, World};
    /// use timelaw_tokio::run_tokio;
    ///
    /// /// One attempt per call, cut after 50 ms.
    /// struct OneShot;
    /// impl Subject for OneShot {
    ///     type Config = ();
    ///     fn name(&self) -> &str { "one-shot" }
    ///     fn contract(&self, _: &()) -> Contract { Contract::default() }
    ///     fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
    ///         run_tokio(world, |w| async move {
    ///             w.for_each_call(|_call| w.attempt_within(Duration::from_millis(50))).await
    ///         })
    ///     }
    /// }
    /// let slow = Step::new(VDuration::from_millis(80), Outcome::Ok);
    /// let trace = execute(&OneShot, &(), &Schedule::single(vec![slow]), 0);
    /// let end = trace.events.last().unwrap();
    /// assert_eq!(end.kind, EventKind::CallEnd { result: CallResult::Err(ErrorKind::Timeout) });
    /// assert_eq!(end.at.as_nanos(), 50_000_000);
    /// ```
    pub async fn attempt_within(&self, limit: Duration) -> Result<CallResult, Abort> {
        match self.timed_attempt(limit).await {
            Ok(outcome) => Ok(CallResult::from_outcome(outcome?)),
            Err(_elapsed) => Ok(CallResult::Err(ErrorKind::Timeout)),
        }
    }

    /// A recorded `tokio::time::sleep`.
    pub fn sleep(&self, duration: Duration) -> tokio::time::Sleep {
        self.shared.recorder.sleep(duration)
    }

    /// Serves every call of the schedule: starts it (moving tokio's clock over the gap), runs `call`
    /// under the call's cancellation, and ends it with the result.
    ///
    /// # Errors
    /// `call`'s abort or the World's.
    pub async fn for_each_call<F, Fut>(&self, mut call: F) -> Result<(), Abort>
    where
        F: FnMut(CallInfo) -> Fut,
        Fut: Future<Output = Result<CallResult, Abort>>,
    {
        while let Some(info) = self.start_call().await? {
            let cancel_at = self.with(|world| Ok(world.cancel_at()))?;
            let result = match cancel_at {
                Some(at) => Cancellable::new(self.clone(), call(info), at).await,
                None => call(info).await,
            };
            let ended = result.and_then(|result| self.with(|world| world.end_call(result)));
            self.shared.cancel_cut.set(None);
            ended?;
        }
        Ok(())
    }

    async fn start_call(&self) -> Result<Option<CallInfo>, Abort> {
        let before = self.now();
        let Some(info) = self.with(|world| world.start_call())? else {
            return Ok(None);
        };
        let gap = info.started.duration_since(before);
        if !gap.is_zero() {
            tokio::time::advance(gap.to_std()).await;
        }
        Ok(Some(info))
    }

    /// Records `SleepCancelled` when a recorded sleep of the current call is still running at the cut.
    pub(crate) fn cut_sleep(&self) -> Result<(), Abort> {
        self.with(|world| {
            let now = world.now();
            let events = &world.trace().events;
            // Concurrent calls interleave their events: the current call's last one.
            let last = match self.shared.current.get() {
                Some(call) => events.iter().rev().find(|event| event.call == call).copied(),
                None => events.last().copied(),
            };
            let sleeping = last.is_some_and(|event| match event.kind {
                EventKind::SleepRequested { duration } => event.at.saturating_add(duration) > now,
                _ => false,
            });
            if sleeping {
                world.record_sleep_cancelled()?;
            }
            Ok(())
        })
    }

    /// Keeps `abort` for the driver (the first one wins).
    pub(crate) fn defer(&self, abort: Abort) {
        self.shared.deferred.borrow_mut().get_or_insert(abort);
    }

    pub(crate) fn take_deferred(&self) -> Option<Abort> {
        self.shared.deferred.borrow_mut().take()
    }

    /// tokio's `instant` as a virtual instant.
    pub(crate) fn vinstant(&self, instant: Instant) -> VInstant {
        let elapsed = VDuration::from_std(instant.saturating_duration_since(self.shared.start));
        self.shared.base.saturating_add(elapsed)
    }

    /// tokio's instant of the virtual instant `at`.
    pub(crate) fn tokio_instant(&self, at: VInstant) -> Instant {
        let offset = at.duration_since(self.shared.base).to_std();
        self.shared.start.checked_add(offset).unwrap_or_else(|| self.shared.start + TOKIO_SLEEP_MAX)
    }

    /// Moves recorded entries into the World, then its clock to [`TokioWorld::now`].
    fn sync(&self, world: &mut World<'s>) -> Result<(), Abort> {
        let target = self.now();
        for entry in self.shared.recorder.drain() {
            let at = self.vinstant(entry.at).min(target).max(world.now());
            world.advance_to(at)?;
            match entry.kind {
                Logged::Sleep(duration) => world.begin_sleep(duration)?,
                Logged::Notify(delay) => world.notify(delay)?,
                Logged::Clamped(to) => world.record_sleep_clamped(to)?,
            }
        }
        world.advance_to(target.max(world.now()))
    }
}
