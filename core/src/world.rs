//! The World: the only capability a subject gets. It owns the virtual clock, the randomness, the schedule
//! cursor and the trace.
//!
//! # Life cycle (a state machine)
//! `fresh --start_call--> in call --end_call--> between calls --start_call--> ... --start_call = None-->
//! finished`. Dispatches, sleeps and notifications belong to a call. Every misuse (dispatching outside a
//! call, starting a call inside another, using a World after its last call) is a detected
//! [`Abort::Misuse`], never a silent success, so a World cannot be reused for a second run by accident.
//!
//! # Time
//! The clock moves only through the World: a sleep, a scripted attempt's duration, the gap before a call,
//! or [`World::advance_to`] (for drivers whose own timer wheel decides, such as the async executor). It
//! never moves backwards. An attempt under a timeout really is cut at its deadline: the clock advances to
//! the deadline, not to the attempt's scripted end.
//!
//! # Two clocks
//! [`World::now`] is the monotonic clock as the World sees it (no read is recorded: drivers and the World
//! itself use it). A subject that models reading a clock uses [`World::read_now`] (monotonic) and
//! [`World::wall_now`] (the wall clock, [`WallInstant`]); both are counted in the trace and can fail where
//! the schedule says so ([`crate::clock_faults`]), returning [`ReadFailed`] for the subject to handle.
//! The wall clock starts at [`WallInstant::START`] and moves with the monotonic clock, plus the wall jumps
//! the schedule makes, each recorded as a `WallJump` event at its instant (a jump due between calls takes
//! effect right after the next call's `CallStart`).
//!
//! # Cancellation
//! A call whose script has `cancel_after` is cancelled at `start + cancel_after`. An attempt or a sleep
//! still running strictly after that instant is cut there ([`AttemptResult::Cancelled`],
//! [`Wake::Cancelled`]); one that ends at that very instant completes. [`World::is_cancelled`] tells the
//! subject afterwards.
//!
//! # Concurrent calls
//! A driver that serves calls concurrently starts each with [`World::open_call`] and switches between
//! the calls in flight with [`World::focus`]: every operation belongs to the call in focus, so every
//! event still carries its own call index. A sequential subject never sees any of this: with one call
//! at a time the life cycle above is unchanged.
//!
//! # Limits
//! [`Limits`] bound events, attempts, sleeps, virtual time and clock reads and randomness draws in a row
//! (calls that record nothing and do not move the clock: a busy-wait on [`World::read_now`]); exceeding
//! one is [`Abort::StepLimit`], so a runaway subject is stopped (a subject loop that never calls the World
//! cannot be stopped this way: that is the watchdog's, see [`crate::heartbeat`]).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::clock::{ClockKind, ReadFailed, WallInstant};
use crate::clock_faults::ClockState;
use crate::contract::TieRule;
use crate::heartbeat::Heartbeat;
use crate::rng::{Randomness, RandomnessError, SplitMix64};
use crate::schedule::{Outcome, Schedule, Step};
use crate::time::{VDuration, VInstant};
use crate::trace::{CallResult, CircuitState, Diagnostic, EventKind, Rejection, Trace, TraceEnd};

/// Upper bounds on one run. Every field has a default; exceeding one stops the subject with
/// [`Abort::StepLimit`] ("stopped at the step limit (N sleeps)"), which is not the same as a subject that
/// makes no progress ([`Abort::Hung`]).
///
/// The defaults are generous on purpose: a rate limiter loop may wait thousands of times in one call (5
/// tokens admitted after 5,010 short waits), so a correct subject stays far below them, and the
/// `terminates` law reports a run stopped at a default count limit as not terminating. A run stopped at
/// a lower limit set for the run is inconclusive. A count limit reached while the subject is still
/// consuming a long scripted run is a cut ([`Abort::LongRunCut`]), never blamed on the subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Limits {
    /// Events recorded (default 65,536).
    pub events_max: u32,
    /// Attempts dispatched over all calls (default 16,384).
    pub attempts_max: u32,
    /// Sleeps over all calls (default 16,384).
    pub sleeps_max: u32,
    /// Virtual time since the epoch (default 100 years). Reaching it says nothing about termination.
    pub virtual_time_max: VDuration,
    /// Clock reads and randomness draws in a row, with no event recorded and no clock move between
    /// them (default 65,536): a busy-wait such as `while world.read_now()? < until {}` stops here.
    #[serde(default = "idle_calls_max_default")]
    pub idle_calls_max: u32,
}

/// The default of [`Limits::idle_calls_max`] (for files written before the field existed).
fn idle_calls_max_default() -> u32 {
    Limits::default().idle_calls_max
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            events_max: 65_536,
            attempts_max: 16_384,
            sleeps_max: 16_384,
            virtual_time_max: VDuration::from_secs(100 * 365 * 24 * 3600),
            idle_calls_max: 65_536,
        }
    }
}

impl Limits {
    /// The value of the limit of `kind` (nanoseconds for [`LimitKind::VirtualTime`]).
    pub fn get(self, kind: LimitKind) -> u64 {
        match kind {
            LimitKind::Events => u64::from(self.events_max),
            LimitKind::Attempts => u64::from(self.attempts_max),
            LimitKind::Sleeps => u64::from(self.sleeps_max),
            LimitKind::VirtualTime => self.virtual_time_max.as_nanos(),
            LimitKind::IdleCalls => u64::from(self.idle_calls_max),
        }
    }
}

/// Which limit was exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    /// [`Limits::events_max`].
    Events,
    /// [`Limits::attempts_max`].
    Attempts,
    /// [`Limits::sleeps_max`].
    Sleeps,
    /// [`Limits::virtual_time_max`].
    VirtualTime,
    /// [`Limits::idle_calls_max`].
    IdleCalls,
}

/// "stopped at the step limit (1024 sleeps)", or "stopped at the virtual time limit (100 years)".
fn describe_limit(kind: LimitKind, limit: u64) -> String {
    if kind == LimitKind::VirtualTime {
        return format!("stopped at the virtual time limit ({})", VDuration::from_nanos(limit));
    }
    format!("stopped at the step limit ({limit} {})", limit_unit(kind))
}

/// The unit of a limit's value: "events", "attempts", "sleeps", or "ns" for virtual time.
fn limit_unit(kind: LimitKind) -> &'static str {
    match kind {
        LimitKind::Events => "events",
        LimitKind::Attempts => "attempts",
        LimitKind::Sleeps => "sleeps",
        LimitKind::VirtualTime => "ns",
        LimitKind::IdleCalls => "clock reads and random draws in a row, with no event and no clock move",
    }
}

/// The most events per attempt a subject may record and still count as working through a long scripted
/// run when a count limit stops it ([`Abort::LongRunCut`]): an attempt's start and end, a sleep, a
/// notification, a rejection, a circuit transition and room to spare. More is an event explosion.
pub const EVENTS_PER_ATTEMPT_MAX: u64 = 8;

/// A use of the World out of its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Error)]
#[serde(rename_all = "snake_case")]
pub enum Misuse {
    /// An operation that belongs to a call, made between calls.
    #[error("an attempt, sleep or notification outside a call")]
    OutsideCall,
    /// `start_call` while a call is running.
    #[error("a call started before the previous one ended")]
    CallNotEnded,
    /// Any operation after the last call.
    #[error("the World was used after its run finished (a World serves exactly one run)")]
    Finished,
    /// `advance_to` an earlier instant.
    #[error("the clock was asked to move backwards")]
    ClockBackwards,
    /// [`World::focus`] on a call that is not in flight (not started, or ended).
    #[error("call {call} is not in flight")]
    NotInFlight {
        /// The call asked for.
        call: u32,
    },
    /// `random_between(low, high)` with `low` above `high` (the bounds are never swapped silently).
    #[error("random_between was asked for an empty range (low {low} above high {high})")]
    ReversedBounds {
        /// The lower bound asked for.
        low: u64,
        /// The upper bound asked for.
        high: u64,
    },
    /// The subject returned a documented cut (the virtual time limit, a long scripted run) the World never
    /// issued: a cut it made up, which would pass for a limit that says nothing about the subject.
    #[error("the subject returned a cut (time limit or long run) the World never made")]
    ForgedCut,
}

/// Why the World stopped a subject. Subjects propagate it with `?`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Error)]
#[serde(rename_all = "snake_case")]
pub enum Abort {
    /// A [`Limits`] bound was exceeded: the run was cut, which does not by itself mean the subject would
    /// never finish.
    #[error("{}", describe_limit(*kind, *limit))]
    StepLimit {
        /// Which limit.
        kind: LimitKind,
        /// Its value.
        limit: u64,
    },
    /// A count limit ([`LimitKind::Attempts`], [`LimitKind::Sleeps`] or [`LimitKind::Events`]) was
    /// reached while the subject was still working through a long scripted run: the current call had
    /// scripted dispatches left, and the subject made at most one sleep per attempt and at most
    /// [`EVENTS_PER_ATTEMPT_MAX`] events per attempt. Like the virtual time limit, this is a cut of a
    /// subject that makes progress, not a loop: safety laws are judged on the prefix, liveness laws are
    /// inconclusive. A count limit reached any other way stays [`Abort::StepLimit`].
    #[error("cut at the step limit ({limit} {}) inside a long scripted run", limit_unit(*kind))]
    LongRunCut {
        /// Which count limit.
        kind: LimitKind,
        /// Its value.
        limit: u64,
    },
    /// An attempt hangs with neither a timeout nor a cancellation to end it: the call can never return.
    #[error("call {call} attempt {attempt} hangs with no timeout and no cancellation")]
    Hung {
        /// The call, from 0.
        call: u32,
        /// The attempt, from 1.
        attempt: u32,
    },
    /// A watchdog saw the subject make no World call for `timeout_ms` milliseconds of wall time and gave
    /// up on the run (see [`crate::heartbeat`]): a subject looping in pure code. The World never returns
    /// this itself; the trace of such a run holds no events (the run's own events stayed with the
    /// abandoned thread).
    #[error("no progress for {timeout_ms} ms")]
    NoProgress {
        /// The watchdog's limit.
        timeout_ms: u64,
    },
    /// The subject's future waits for nothing that can ever wake it: no timer is pending and no task is
    /// ready (an async subject awaiting a future that never completes, such as a channel nobody sends
    /// on). The tokio driver reports it, having told it from a long sleep; the core executor reports a
    /// future pending with no timer left as [`Abort::Hung`].
    #[error("call {call} waits for nothing that can wake it (no timer pending, no task ready): a deadlock")]
    Deadlock {
        /// The call being served (the last one polled when calls overlap).
        call: u32,
    },
    /// Scripted randomness failed.
    #[error("randomness: {0}")]
    Randomness(RandomnessError),
    /// The subject used the World out of its life cycle.
    #[error("misuse of the World: {0}")]
    Misuse(Misuse),
    /// The subject refused its config (it cannot be honoured); nothing ran.
    #[error("invalid config: {0}")]
    InvalidConfig(String),
}

/// What the subject learns when a call starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallInfo {
    /// The call's index, from 0.
    pub index: u32,
    /// Whether it may safely run more than once.
    pub idempotent: bool,
    /// When it started.
    pub started: VInstant,
}

/// How a dispatched attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptResult {
    /// It completed with its scripted outcome.
    Completed(Outcome),
    /// Its timeout expired first; the clock stands at the deadline.
    TimedOut,
    /// The caller cancelled it; the clock stands at the cancellation instant.
    Cancelled,
}

/// How a sleep ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// The full duration elapsed.
    Elapsed,
    /// The caller cancelled during the sleep; the clock stands at the cancellation instant.
    Cancelled,
}

/// An attempt begun with [`World::begin_attempt`] and not yet ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "an attempt must be ended with World::end_attempt"]
pub struct PendingAttempt {
    /// The attempt number within its call, from 1.
    pub attempt: u32,
    /// The scripted step.
    pub step: Step,
    /// When it completes by itself; `None` for a hang.
    pub completes_at: Option<VInstant>,
}

#[derive(Clone, Copy, Debug)]
struct ActiveCall {
    index: u32,
    started: VInstant,
    attempts: u32,
    cancel_at: Option<VInstant>,
}

/// The World of one run. See the module docs.
#[derive(Debug)]
pub struct World<'s> {
    schedule: &'s Schedule,
    clock: VInstant,
    rng: Randomness,
    trace: Trace,
    limits: Limits,
    call: Option<ActiveCall>,
    next_call: u32,
    finished: bool,
    attempts_total: u32,
    sleeps_total: u32,
    clocks: ClockState,
    heartbeat: Option<&'s Heartbeat>,
    /// Clock reads and randomness draws since the last event or clock move ([`Limits::idle_calls_max`]).
    idle_calls: u32,
    /// Calls in flight other than the one in focus (`call`), when calls are served concurrently
    /// ([`World::open_call`]); always empty for a sequential subject.
    parked: Vec<ActiveCall>,
    /// The first abort the World (or a driver, [`World::issue`]) handed the subject: a run ends with it
    /// whatever the subject returns ([`World::end_of_run`]).
    issued: std::cell::RefCell<Option<Abort>>,
    /// Virtual std clocks on this thread, while they are installed ([`World::virtualize_std_clocks`]).
    std_clocks: Option<crate::std_clocks::Installed>,
    /// The case's seed (for its `getrandom` stream, [`World::seed_std_random`]).
    seed: u64,
    /// Seeded std randomness on this thread, while it is installed ([`World::seed_std_random`]).
    std_random: Option<crate::std_random::Installed>,
}

impl<'s> World<'s> {
    /// A fresh World over `schedule` with randomness seeded by `seed` and default limits.
    pub fn new(schedule: &'s Schedule, seed: u64) -> World<'s> {
        World::with_trace(schedule, seed, Trace::new())
    }
    /// A World that stands in for one lent elsewhere ([`crate::exec`]): it never records, so its trace
    /// allocates nothing.
    pub(crate) fn placeholder(schedule: &'s Schedule) -> World<'s> {
        World::with_trace(schedule, 0, Trace::unallocated())
    }
    fn with_trace(schedule: &'s Schedule, seed: u64, trace: Trace) -> World<'s> {
        World {
            schedule,
            clock: VInstant::EPOCH,
            rng: Randomness::Seeded(SplitMix64::new(seed)),
            trace,
            limits: Limits::default(),
            call: None,
            next_call: 0,
            finished: false,
            attempts_total: 0,
            sleeps_total: 0,
            clocks: ClockState::new(&schedule.clock),
            heartbeat: None,
            idle_calls: 0,
            parked: Vec::new(),
            issued: std::cell::RefCell::new(None),
            std_clocks: None,
            seed,
            std_random: None,
        }
    }
    /// Counts every step of progress (an event recorded, a clock move) on `heartbeat` for a watchdog (see
    /// [`crate::heartbeat`]); once the heartbeat is abandoned, the next World call parks the thread for
    /// good.
    pub fn with_heartbeat(mut self, heartbeat: &'s Heartbeat) -> World<'s> {
        self.heartbeat = Some(heartbeat);
        self
    }
    /// The heartbeat this World counts on, if any: for drivers that run the subject's code between World
    /// calls (the tokio driver parks an abandoned run between two polls too).
    pub fn heartbeat(&self) -> Option<&'s Heartbeat> {
        self.heartbeat
    }
    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> World<'s> {
        self.limits = limits;
        self
    }
    /// Replaces the randomness (for example with a scripted source).
    pub fn with_randomness(mut self, rng: Randomness) -> World<'s> {
        self.rng = rng;
        self
    }
    /// Makes std's `Instant::now()` and `SystemTime::now()` read this World's clocks on the calling
    /// thread until the World is dropped ([`crate::std_clocks`]). [`execute_with`](crate::execute_with)
    /// calls it for a subject whose [`Subject::std_clocks`](crate::Subject::std_clocks) is
    /// [`StdClocks::Virtual`](crate::StdClocks::Virtual).
    ///
    /// # Errors
    /// [`Abort::InvalidConfig`] naming why they could not be installed: a platform other than Linux with
    /// glibc, or a binary whose clock reads do not reach timelaw's `clock_gettime`.
    pub fn virtualize_std_clocks(&mut self) -> Result<(), Abort> {
        if self.std_clocks.is_none() {
            let installed = crate::std_clocks::install(self.clock, self.clocks.wall(self.clock));
            self.std_clocks = Some(installed.map_err(|reason| self.issue(Abort::InvalidConfig(reason)))?);
        }
        Ok(())
    }

    /// Makes `getrandom` on the calling thread answer from a stream seeded by the case's seed until the
    /// World is dropped ([`crate::std_random`]). [`execute_with`](crate::execute_with) calls it for a
    /// subject whose [`Subject::std_random`](crate::Subject::std_random) is
    /// [`StdRandom::Seeded`](crate::StdRandom::Seeded).
    ///
    /// # Errors
    /// [`Abort::InvalidConfig`] naming why it could not be installed: a platform other than Linux with
    /// glibc, or a binary whose `getrandom` calls do not reach timelaw's.
    pub fn seed_std_random(&mut self) -> Result<(), Abort> {
        if self.std_random.is_none() {
            let installed = crate::std_random::install(self.seed);
            self.std_random = Some(installed.map_err(|reason| self.issue(Abort::InvalidConfig(reason)))?);
        }
        Ok(())
    }

    /// `true` while std's clocks read this World's ([`World::virtualize_std_clocks`]).
    pub fn std_clocks_virtual(&self) -> bool {
        self.std_clocks.is_some()
    }

    /// Shows `instant` on the virtual std clocks, if installed, without moving the World: for a driver
    /// whose own clock runs ahead of the World's between two records (the tokio driver's paused clock).
    /// An instant before the World's shows the World's; the wall clock reads with the jumps applied so
    /// far. The next move of the World's clock shows the World's again.
    pub fn show_on_std_clocks(&self, instant: VInstant) {
        if self.std_clocks.is_some() {
            let instant = instant.max(self.clock);
            crate::std_clocks::publish(instant, self.clocks.wall(instant));
        }
    }

    /// Moves the virtual std clocks, if installed, to the World's clocks.
    #[inline]
    fn publish_std_clocks(&self) {
        if self.std_clocks.is_some() {
            crate::std_clocks::publish(self.clock, self.clocks.wall(self.clock));
        }
    }

    /// The current virtual instant.
    pub fn now(&self) -> VInstant {
        self.clock
    }
    /// The limits this World enforces.
    pub fn limits(&self) -> Limits {
        self.limits
    }
    /// The schedule this World plays.
    pub fn schedule(&self) -> &'s Schedule {
        self.schedule
    }
    /// The trace so far.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
    /// Ends the run and hands over the trace; the World is gone.
    pub fn finish(mut self) -> Trace {
        self.trace.clock_reads = self.clocks.reads();
        self.trace
    }
    /// Ends the run with `end` recorded as the reason.
    pub fn finish_with(mut self, end: TraceEnd) -> Trace {
        self.trace.end = end;
        self.finish()
    }

    /// Starts the next call: waits its gap (or until its arrival, see [`crate::schedule`]), records
    /// `CallStart`. `None` once every call has run, after
    /// which the World is finished.
    ///
    /// # Errors
    /// [`Misuse::CallNotEnded`] inside a call, [`Misuse::Finished`] after the last call, a time limit.
    pub fn start_call(&mut self) -> Result<Option<CallInfo>, Abort> {
        self.check_usable()?;
        if self.call.is_some() || !self.parked.is_empty() {
            return Err(self.issue(Abort::Misuse(Misuse::CallNotEnded)));
        }
        let Some(script) = self.schedule.calls.get(self.next_call as usize) else {
            self.finished = true;
            return Ok(None);
        };
        let index = self.next_call;
        self.next_call += 1;
        let starts_at = match script.arrival {
            None => self.clock.saturating_add(script.gap_before),
            // A call that arrived while the previous one ran waited in the caller's queue.
            Some(arrival) => self.clock.max(VInstant::EPOCH.saturating_add(arrival)),
        };
        self.advance_to(starts_at)?;
        let started = self.clock;
        let cancel_at = script.cancel_after.map(|after| started.saturating_add(after));
        self.call = Some(ActiveCall { index, started, attempts: 0, cancel_at });
        self.record(EventKind::CallStart { idempotent: script.idempotent }, 0)?;
        self.apply_wall_jumps(self.clock)?; // Those that fell due between calls.
        Ok(Some(CallInfo { index, idempotent: script.idempotent, started }))
    }

    /// Ends the current call with `result` (records `CallEnd`).
    ///
    /// # Errors
    /// [`Misuse::OutsideCall`] between calls; the event limit.
    pub fn end_call(&mut self, result: CallResult) -> Result<(), Abort> {
        self.active()?;
        self.record(EventKind::CallEnd { result }, 0)?;
        self.call = None;
        Ok(())
    }

    /// Starts the next call NOW, while others may be in flight (records `CallStart`), and puts it in
    /// focus: the concurrent form of [`World::start_call`], for drivers that serve calls concurrently
    /// (such as [`crate::concurrent::run_async_calls`], which calls it at each call's arrival). The call that
    /// was in focus stays in flight. `None` once every call has started (the World is not finished:
    /// calls may still be in flight; [`World::finish_calls`] ends the run).
    ///
    /// # Errors
    /// [`Misuse::Finished`] after the run; the event limit.
    pub fn open_call(&mut self) -> Result<Option<CallInfo>, Abort> {
        self.check_usable()?;
        let Some(script) = self.schedule.calls.get(self.next_call as usize) else { return Ok(None) };
        let index = self.next_call;
        self.next_call += 1;
        if let Some(focused) = self.call.take() {
            self.parked.push(focused);
        }
        let started = self.clock;
        let cancel_at = script.cancel_after.map(|after| started.saturating_add(after));
        self.call = Some(ActiveCall { index, started, attempts: 0, cancel_at });
        self.record(EventKind::CallStart { idempotent: script.idempotent }, 0)?;
        self.apply_wall_jumps(self.clock)?;
        Ok(Some(CallInfo { index, idempotent: script.idempotent, started }))
    }

    /// Puts call `index` (in flight) in focus: dispatches, sleeps, notifications, rejections and
    /// `end_call` then belong to it. The call that was in focus stays in flight.
    ///
    /// # Errors
    /// [`Misuse::NotInFlight`] for a call not started or already ended.
    pub fn focus(&mut self, index: u32) -> Result<(), Abort> {
        if self.call.is_some_and(|call| call.index == index) {
            return Ok(());
        }
        let position = self.parked.iter().position(|call| call.index == index);
        let Some(position) = position else {
            return Err(self.issue(Abort::Misuse(Misuse::NotInFlight { call: index })));
        };
        let focused = self.parked.swap_remove(position);
        if let Some(previous) = self.call.replace(focused) {
            self.parked.push(previous);
        }
        Ok(())
    }

    /// The calls started and not yet ended (1 at most for a sequential subject).
    pub fn calls_in_flight(&self) -> usize {
        self.parked.len() + usize::from(self.call.is_some())
    }

    /// Ends a concurrent run once its driver has served every call: the World is finished.
    ///
    /// # Errors
    /// [`Misuse::CallNotEnded`] while a call is in flight or has not started.
    pub fn finish_calls(&mut self) -> Result<(), Abort> {
        let unstarted = (self.next_call as usize) < self.schedule.calls.len();
        if self.calls_in_flight() > 0 || unstarted {
            return Err(self.issue(Abort::Misuse(Misuse::CallNotEnded)));
        }
        self.finished = true;
        Ok(())
    }

    /// Runs `call` for every call of the schedule, recording each start and end: the usual loop of a
    /// subject that serves a stream.
    ///
    /// # Errors
    /// Whatever `call` or the World returns.
    pub fn for_each_call(
        &mut self,
        mut call: impl FnMut(&mut World<'s>, CallInfo) -> Result<CallResult, Abort>,
    ) -> Result<(), Abort> {
        while let Some(info) = self.start_call()? {
            let result = call(self, info)?;
            self.end_call(result)?;
        }
        Ok(())
    }

    /// When the current call started.
    ///
    /// # Errors
    /// [`Misuse::OutsideCall`] between calls.
    pub fn call_started(&self) -> Result<VInstant, Abort> {
        Ok(self.active()?.started)
    }

    /// `true` when the current call has been cancelled by now.
    pub fn is_cancelled(&self) -> bool {
        let cancel_at = self.call.and_then(|call| call.cancel_at);
        cancel_at.is_some_and(|at| at <= self.clock)
    }

    /// When the current call is (or was) cancelled, if ever.
    pub fn cancel_at(&self) -> Option<VInstant> {
        self.call.and_then(|call| call.cancel_at)
    }

    /// Dispatches the next scripted attempt of the current call with no timeout.
    ///
    /// # Errors
    /// [`Abort::Hung`] for a hanging step with no cancellation; limits; misuse.
    pub fn dispatch(&mut self) -> Result<AttemptResult, Abort> {
        self.dispatch_limited(None)
    }

    /// Dispatches the next scripted attempt under `timeout`: the attempt is cut at `now + timeout`, and
    /// `tie` decides an attempt completing exactly then.
    ///
    /// # Errors
    /// As [`World::dispatch`].
    pub fn dispatch_with_timeout(&mut self, timeout: VDuration, tie: TieRule) -> Result<AttemptResult, Abort> {
        self.dispatch_limited(Some((timeout, tie)))
    }

    fn dispatch_limited(&mut self, timeout: Option<(VDuration, TieRule)>) -> Result<AttemptResult, Abort> {
        let pending = self.begin_attempt()?;
        let timer = timeout.map(|(limit, tie)| (self.clock.saturating_add(limit), limit, tie));
        let (stop, mut result) = match (pending.completes_at, timer) {
            (Some(done), Some((deadline, _, tie)))
                if done < deadline || (done == deadline && tie == TieRule::InnerWins) =>
            {
                (done, AttemptResult::Completed(pending.step.outcome))
            }
            (Some(done), None) => (done, AttemptResult::Completed(pending.step.outcome)),
            (_, Some((deadline, _, _))) => (deadline, AttemptResult::TimedOut),
            (None, None) => (VInstant::END, AttemptResult::Cancelled),
        };
        let cut = self.cancel_at().map(|at| at.max(self.clock));
        let stop = match cut {
            Some(cut) if cut < stop => {
                result = AttemptResult::Cancelled;
                cut
            }
            _ if stop == VInstant::END => {
                let call = self.active()?.index;
                return Err(self.issue(Abort::Hung { call, attempt: pending.attempt }));
            }
            _ => stop,
        };
        self.advance_to(stop)?;
        let limit = timer.map_or(VDuration::MAX, |(_, limit, _)| limit);
        self.end_attempt(pending, result, limit)?;
        Ok(result)
    }

    /// Begins the next scripted attempt of the current call (records `AttemptStart`) without moving the
    /// clock. For drivers with their own timers; [`World::dispatch`] is the usual way.
    ///
    /// # Errors
    /// The attempt limit; misuse.
    pub fn begin_attempt(&mut self) -> Result<PendingAttempt, Abort> {
        self.check_usable()?;
        let call_index = self.active()?.index;
        if self.attempts_total >= self.limits.attempts_max {
            return Err(self.limit(LimitKind::Attempts));
        }
        self.attempts_total += 1;
        let attempt = {
            let call = self.call.as_mut().ok_or(Abort::Misuse(Misuse::OutsideCall))?;
            call.attempts += 1;
            call.attempts
        };
        let step = self.schedule.calls[call_index as usize].step(attempt);
        let completes_at = match step.outcome {
            Outcome::Hang => None,
            _ => Some(self.clock.saturating_add(step.duration)),
        };
        if !self.schedule.clock.wall_jumps.is_empty() {
            let took = completes_at.map(|done| done.duration_since(self.clock));
            self.clocks.on_attempt(&self.schedule.clock, self.attempts_total, self.clock, took);
        }
        self.record(EventKind::AttemptStart, attempt)?;
        Ok(PendingAttempt { attempt, step, completes_at })
    }

    /// Ends an attempt begun with [`World::begin_attempt`] at the current instant. `timeout` is the
    /// limit it ran under (recorded when `result` is `TimedOut`).
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn end_attempt(
        &mut self,
        pending: PendingAttempt,
        result: AttemptResult,
        timeout: VDuration,
    ) -> Result<(), Abort> {
        let kind = match result {
            AttemptResult::Completed(outcome) => EventKind::AttemptEnd { outcome },
            AttemptResult::TimedOut => EventKind::AttemptTimedOut { timeout },
            AttemptResult::Cancelled => EventKind::AttemptCancelled,
        };
        self.record(kind, pending.attempt)
    }

    /// Ends an attempt begun with [`World::begin_attempt`] that was dropped at the current instant by
    /// something other than its own timeout or the caller's cancellation (an enclosing deadline, a
    /// `select!`): records `AttemptDropped` with the time it ran.
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn end_attempt_dropped(&mut self, pending: PendingAttempt, ran: VDuration) -> Result<(), Abort> {
        self.record(EventKind::AttemptDropped { ran }, pending.attempt)
    }

    /// Sleeps `duration` of virtual time (recorded; nothing real waits). A cancellation strictly inside
    /// the sleep cuts it.
    ///
    /// # Errors
    /// The sleep or time limit; misuse.
    pub fn sleep(&mut self, duration: VDuration) -> Result<Wake, Abort> {
        self.begin_sleep(duration)?;
        self.sleep_recorded(duration)
    }

    /// Moves the clock through a sleep of `duration` already recorded, cut by a cancellation strictly
    /// inside it.
    fn sleep_recorded(&mut self, duration: VDuration) -> Result<Wake, Abort> {
        let wake_at = self.clock.saturating_add(duration);
        match self.cancel_at().map(|at| at.max(self.clock)) {
            Some(cut) if cut < wake_at => {
                self.advance_to(cut)?;
                self.record_sleep_cancelled()?;
                Ok(Wake::Cancelled)
            }
            _ => {
                self.advance_to(wake_at)?;
                Ok(Wake::Elapsed)
            }
        }
    }

    /// Sleeps a `std::time::Duration` as a user passes it, up to `Duration::MAX`. A duration past
    /// [`VDuration::MAX`] (about 584 years) cannot be represented: it is recorded as asked, saturated
    /// (`SleepRequested` with `VDuration::MAX`), followed by `SleepClamped` to `VDuration::MAX`, and the
    /// World sleeps that long (which passes the time limit: the run is cut there, unless a cancellation
    /// cuts the sleep first). Never panics.
    ///
    /// # Errors
    /// As [`World::sleep`].
    pub fn sleep_std(&mut self, duration: std::time::Duration) -> Result<Wake, Abort> {
        let saturated = VDuration::from_std(duration);
        if duration.as_nanos() <= u128::from(VDuration::MAX.as_nanos()) {
            return self.sleep(saturated);
        }
        self.begin_sleep(saturated)?;
        self.record_sleep_clamped(saturated)?;
        self.sleep_recorded(saturated)
    }

    /// Records a sleep request without moving the clock (for drivers with their own timers).
    ///
    /// # Errors
    /// The sleep limit; misuse.
    pub fn begin_sleep(&mut self, duration: VDuration) -> Result<(), Abort> {
        self.check_usable()?;
        self.active()?;
        if self.sleeps_total >= self.limits.sleeps_max {
            return Err(self.limit(LimitKind::Sleeps));
        }
        self.sleeps_total += 1;
        if !self.schedule.clock.wall_jumps.is_empty() {
            self.clocks.on_sleep(&self.schedule.clock, self.sleeps_total, self.clock, duration);
        }
        let attempt = self.active()?.attempts;
        self.record(EventKind::SleepRequested { duration }, attempt)
    }

    /// Records that a sleep was cut by cancellation (for drivers with their own timers).
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn record_sleep_cancelled(&mut self) -> Result<(), Abort> {
        let attempt = self.active()?.attempts;
        self.record(EventKind::SleepCancelled, attempt)
    }

    /// Records that the runtime clamped the sleep just requested to `to` (for drivers whose runtime
    /// cannot represent long sleeps, such as tokio's 30-year limit).
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn record_sleep_clamped(&mut self, to: VDuration) -> Result<(), Abort> {
        let attempt = self.active()?.attempts;
        self.record(EventKind::SleepClamped { to }, attempt)
    }

    /// Moves the clock forward to `instant`.
    ///
    /// # Errors
    /// [`Misuse::ClockBackwards`] for an earlier instant; the virtual time limit.
    pub fn advance_to(&mut self, instant: VInstant) -> Result<(), Abort> {
        if instant < self.clock {
            return Err(self.issue(Abort::Misuse(Misuse::ClockBackwards)));
        }
        if instant.since_epoch() > self.limits.virtual_time_max {
            return Err(self.limit(LimitKind::VirtualTime));
        }
        self.apply_wall_jumps(instant)?;
        if instant > self.clock {
            self.clock = instant;
            self.progressed();
            self.publish_std_clocks();
        }
        Ok(())
    }

    /// Applies (and records) every wall jump due at or before `upto`, each at its own instant. Between
    /// calls nothing is applied: jumps due then take effect (and are recorded) right after the next
    /// call's `CallStart`, so every call's events still begin with its `CallStart`.
    #[inline]
    fn apply_wall_jumps(&mut self, upto: VInstant) -> Result<(), Abort> {
        if self.schedule.clock.wall_jumps.is_empty() || self.call.is_none() {
            return Ok(()); // The common path: one check per clock movement.
        }
        self.apply_due_wall_jumps(upto)
    }

    #[cold]
    #[inline(never)]
    fn apply_due_wall_jumps(&mut self, upto: VInstant) -> Result<(), Abort> {
        while let Some((index, at)) = self.clocks.next_due(upto) {
            self.clock = self.clock.max(at);
            let by_ns = self.clocks.apply(&self.schedule.clock, index);
            let attempt = self.call.map_or(0, |call| call.attempts);
            self.record(EventKind::WallJump { by_ns }, attempt)?;
            self.publish_std_clocks();
        }
        Ok(())
    }

    /// Reads the monotonic clock as a subject does: counted in the trace, and failing (with a
    /// `ClockReadFailed` event) where the schedule says so. [`World::now`] is the same instant, unrecorded.
    ///
    /// # Errors
    /// The outer `Err` is the event limit, the limit on idle calls ([`Limits::idle_calls_max`]) or
    /// misuse; the inner one is a scheduled read failure.
    pub fn read_now(&mut self) -> Result<Result<VInstant, ReadFailed>, Abort> {
        Ok(self.read_clock(ClockKind::Monotonic)?.map(|()| self.clock))
    }

    /// Reads the wall clock: like `SystemTime::now()`, but virtual. Counted and failing like
    /// [`World::read_now`].
    ///
    /// # Errors
    /// The outer `Err` is the event limit, the limit on idle calls ([`Limits::idle_calls_max`]) or
    /// misuse; the inner one is a scheduled read failure.
    pub fn wall_now(&mut self) -> Result<Result<WallInstant, ReadFailed>, Abort> {
        let read = self.read_clock(ClockKind::Wall)?;
        Ok(read.map(|()| self.clocks.wall(self.clock)))
    }

    /// The wall instant now, without a read (not counted, never fails): for drivers mirroring the World's
    /// clocks into a crate and for reports.
    pub fn wall_clock(&self) -> WallInstant {
        self.clocks.wall(self.clock)
    }

    /// Counts a read of `clock`; `Ok(Err(_))` when the schedule makes it fail (recorded as an event).
    fn read_clock(&mut self, clock: ClockKind) -> Result<Result<(), ReadFailed>, Abort> {
        self.check_usable()?;
        self.apply_wall_jumps(self.clock)?;
        self.idle()?;
        if self.clocks.read(&self.schedule.clock, clock, self.clock) {
            let attempt = self.call.map_or(0, |call| call.attempts);
            self.record(EventKind::ClockReadFailed { clock }, attempt)?;
            return Ok(Err(ReadFailed(clock)));
        }
        Ok(Ok(()))
    }

    /// Records a diagnostic the subject reports about itself (such as missing timing after a failed read).
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn diagnose(&mut self, diagnostic: Diagnostic) -> Result<(), Abort> {
        self.check_usable()?;
        let attempt = self.call.map_or(0, |call| call.attempts);
        self.record(EventKind::Diagnostic { diagnostic }, attempt)
    }

    /// 64 random bits from the World's randomness.
    ///
    /// # Errors
    /// [`Abort::Randomness`] when a scripted source fails; the limit on idle calls
    /// ([`Limits::idle_calls_max`]).
    pub fn random_u64(&mut self) -> Result<u64, Abort> {
        self.pulse();
        self.idle()?;
        self.rng.next_u64().map_err(|error| self.issue(Abort::Randomness(error)))
    }

    /// A random value in `low..=high`; `low == high` gives `low`.
    ///
    /// # Errors
    /// [`Abort::Misuse`] ([`Misuse::ReversedBounds`]) when `low` is above `high`: the range is empty, and
    /// swapping the bounds would hide a subject's bug. [`Abort::Randomness`] when a scripted source fails; the
    /// limit on idle calls ([`Limits::idle_calls_max`]).
    pub fn random_between(&mut self, low: u64, high: u64) -> Result<u64, Abort> {
        if low > high {
            return Err(self.issue(Abort::Misuse(Misuse::ReversedBounds { low, high })));
        }
        self.pulse();
        self.idle()?;
        self.rng.between_inclusive(low, high).map_err(|error| self.issue(Abort::Randomness(error)))
    }

    /// Records that the subject told its user it will retry after `delay`.
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn notify(&mut self, delay: VDuration) -> Result<(), Abort> {
        let attempt = self.active()?.attempts;
        self.record(EventKind::Notify { delay }, attempt)
    }

    /// Records that the subject refused to dispatch.
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn reject(&mut self, reason: Rejection) -> Result<(), Abort> {
        let attempt = self.active()?.attempts;
        self.record(EventKind::Rejected { reason }, attempt)
    }

    /// Records that the current call waits in a bulkhead's queue (`Queued`), until its next event.
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn record_queued(&mut self) -> Result<(), Abort> {
        let attempt = self.active()?.attempts;
        self.record(EventKind::Queued, attempt)
    }

    /// Records a circuit breaker transition.
    ///
    /// # Errors
    /// The event limit; misuse.
    pub fn circuit_transition(&mut self, from: CircuitState, to: CircuitState) -> Result<(), Abort> {
        debug_assert_ne!(from, to, "a transition changes the state");
        self.active()?;
        self.record(EventKind::CircuitTransition { from, to }, 0)
    }

    fn active(&self) -> Result<ActiveCall, Abort> {
        self.call.ok_or(Abort::Misuse(Misuse::OutsideCall))
    }

    fn check_usable(&self) -> Result<(), Abort> {
        self.pulse();
        if self.finished {
            return Err(self.issue(Abort::Misuse(Misuse::Finished)));
        }
        Ok(())
    }

    /// The abort for reaching the `kind` limit: a [`Abort::LongRunCut`] when the subject is still working
    /// through a long scripted run (see there), else [`Abort::StepLimit`].
    fn limit(&self, kind: LimitKind) -> Abort {
        let limit = self.limits.get(kind);
        let counts_steps = !matches!(kind, LimitKind::VirtualTime | LimitKind::IdleCalls);
        if counts_steps && self.inside_scripted_run() {
            return self.issue(Abort::LongRunCut { kind, limit });
        }
        self.issue(Abort::StepLimit { kind, limit })
    }

    /// Records `abort` as handed to the subject (the first one counts) and returns it: every abort the
    /// World returns goes through here, and so must one a driver makes on the World's behalf (the tokio
    /// driver's time limit, an executor's hang), so that the run ends with it whatever the subject does
    /// next ([`World::end_of_run`]).
    pub fn issue(&self, abort: Abort) -> Abort {
        let mut issued = self.issued.borrow_mut();
        if issued.is_none() {
            *issued = Some(abort.clone());
        }
        abort
    }

    /// How the run ends when the subject returned `returned`: the first abort the World issued, if any,
    /// whatever the subject returned (an abort it swallowed and then returned `Ok` after still ends the
    /// run); a documented cut ([`crate::Cut`]) the subject returned but the World never issued is a
    /// forged cut ([`Misuse::ForgedCut`]); else what the subject returned.
    pub fn end_of_run(&self, returned: Result<(), Abort>) -> TraceEnd {
        let issued = self.issued.borrow().clone();
        match (returned, issued) {
            (_, Some(issued)) => TraceEnd::Aborted(issued),
            (Ok(()), _) => TraceEnd::Complete,
            (Err(abort), _) if TraceEnd::Aborted(abort.clone()).cut().is_some() => {
                TraceEnd::Aborted(Abort::Misuse(Misuse::ForgedCut))
            }
            (Err(abort), _) => TraceEnd::Aborted(abort),
        }
    }

    /// `true` while the current call still has scripted dispatches left and the subject spends at most one
    /// sleep and [`EVENTS_PER_ATTEMPT_MAX`] events per attempt (plus one of each per call): it makes
    /// progress by consuming the script. Only asked when a count limit is reached.
    #[cold]
    fn inside_scripted_run(&self) -> bool {
        let Some(call) = self.call else { return false };
        let Some(script) = self.schedule.calls.get(call.index as usize) else { return false };
        let attempts = u64::from(self.attempts_total);
        let calls = u64::from(self.next_call);
        let events = self.trace.events.len() as u64;
        u64::from(call.attempts) < script.dispatches_scripted()
            && u64::from(self.sleeps_total) <= attempts + calls
            && events <= EVENTS_PER_ATTEMPT_MAX.saturating_mul(attempts + calls)
    }

    /// A World call: parks the thread when the watchdog abandoned the run (see [`crate::heartbeat`]).
    #[inline]
    fn pulse(&self) {
        if let Some(heartbeat) = self.heartbeat {
            heartbeat.call();
        }
    }

    /// Progress (an event recorded, a clock move): counted on the heartbeat, and the idle calls start
    /// again from zero.
    #[inline]
    fn progressed(&mut self) {
        self.idle_calls = 0;
        if let Some(heartbeat) = self.heartbeat {
            heartbeat.beat();
        }
    }

    /// A clock read or randomness draw: one more idle call in a row; the one past
    /// [`Limits::idle_calls_max`] stops the run.
    #[inline]
    fn idle(&mut self) -> Result<(), Abort> {
        if self.idle_calls >= self.limits.idle_calls_max {
            return Err(self.limit(LimitKind::IdleCalls));
        }
        self.idle_calls += 1;
        Ok(())
    }

    fn record(&mut self, kind: EventKind, attempt: u32) -> Result<(), Abort> {
        if self.trace.events.len() >= self.limits.events_max as usize {
            self.pulse();
            return Err(self.limit(LimitKind::Events));
        }
        let call = self.call.map_or(self.next_call.saturating_sub(1), |call| call.index);
        self.trace.push(self.clock, call, attempt, kind);
        self.progressed();
        Ok(())
    }
}
