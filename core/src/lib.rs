//! timelaw-core: virtual time, seeded randomness, failure schedules, the World, traces, the
//! [`Subject`]/[`Contract`] seam and the reference resilience interpreter.
//!
//! ```
//! use timelaw_core::reference::{Backoff, Policy, Reference};
//! use timelaw_core::{execute, CallResult, EventKind, Outcome, Schedule, Step, VDuration};
//!
//! let ms = VDuration::from_millis;
//! let policy = Policy::new(4, Backoff::Exponential { initial: ms(5), factor: 2 }, ms(1000));
//! let schedule = Schedule::single(vec![Step::instant(Outcome::Transient); 3]);
//! let trace = execute(&Reference, &policy, &schedule, 0);
//! let sleeps: Vec<VDuration> = trace.events.iter().filter_map(|event| match event.kind {
//!     EventKind::SleepRequested { duration } => Some(duration),
//!     _ => None,
//! }).collect();
//! assert_eq!(sleeps, vec![ms(5), ms(10), ms(20)]);
//! assert_eq!(trace.events.last().unwrap().kind, EventKind::CallEnd { result: CallResult::Ok });
//! ```
//!
//! ## Virtual time
//! [`VDuration`] and [`VInstant`] count nanoseconds on `u64` with saturating arithmetic ([`time`]).
//! Files write durations as exact text (`"1.5s"`, `"max"`), through [`duration_text`].
//!
//! ## Randomness
//! [`SplitMix64`] with a fixed algorithm, [`mix`] for per-case seeds, and [`Scripted`] values ([`rng`]).
//!
//! ## Schedules and cases
//! [`Schedule`], [`CallScript`], [`Step`], [`Outcome`] and [`Case`] ([`schedule`]).
//!
//! ## The World and the trace
//! [`World`] is the only capability a subject gets ([`world`]); it records a [`Trace`] ([`trace`]).
//! Async subjects run through [`exec::run_async`]; overlapping calls through [`concurrent::run_async_calls`]
//! (one future per call) or, for synchronous code, [`concurrent_sync::serve_sync_calls`] (an event-driven
//! state machine).
//!
//! ## Two clocks
//! The World's monotonic clock ([`World::now`], [`World::read_now`]) and its wall clock
//! ([`World::wall_now`], a [`WallInstant`] starting at 2026-01-01T00:00:00Z) ([`clock`]); wall jumps and
//! failed reads are schedule data ([`clock_faults`]).
//!
//! ## Subjects and contracts
//! [`Subject`] ([`subject`]) and [`Contract`] ([`contract`]); [`execute`] runs one case. A sleep's range
//! is computed in one place ([`sleep_range`]: backoff, retry-after, jitter, floor, cap, tolerance), and so
//! is what the subject's timer granularity allows ([`timers`]).
//!
//! ## The reference interpreter
//! [`reference::Reference`] with its [`reference::Policy`].
#![deny(missing_docs)]

pub mod clock;
pub mod clock_faults;
pub mod concurrent;
pub mod concurrent_sync;
pub mod contract;
mod contract_declared;
pub mod contract_flat;
pub mod contract_load;
mod contract_shapes;
pub mod duration_text;
pub mod exec;
pub mod float;
pub mod heartbeat;
pub mod mechanisms;
pub mod promise;
pub mod reference;
mod retryable;
pub mod rng;
mod run;
pub mod schedule;
pub mod sleep_range;
pub mod std_clocks;
pub mod std_random;
pub mod subject;
pub mod sync_loop;
pub mod time;
pub mod timers;
pub mod trace;
mod wide;
pub mod world;

pub use clock::{ClockContract, ClockKind, ClockReads, OnFailedRead, ReadFailed, WallInstant};
pub use clock_faults::{ClockFaults, FailFrom, JumpAt, ReadFailure, WallJump};
pub use contract::{
    BackoffShape, BudgetContract, BulkheadContract, CircuitContract, Contract, Declared, DelayContract, FixedWindow,
    HedgeContract, JitterBounds, LimiterContract, LimiterWindow, RateContract, RetryContract, RetryOn, TieRule,
    TimingContract,
};
pub use float::{F32, F64};
pub use heartbeat::Heartbeat;
pub use mechanisms::{
    AboveCap, CircuitPolicy, CooldownTie, HalfOpenEntry, InterruptTie, LateResults, LimitBound, OpenShape, ProbeSettle,
    RetryAfterCombine, RetryAfterPolicy, Unstated,
};
pub use promise::{FloatFactor, Promised, Tolerance};
pub use rng::{mix, Randomness, RandomnessError, Scripted, SplitMix64};
pub use run::{execute, execute_with, panic_message};
pub use schedule::{ArrivalError, CallScript, Case, Outcome, Schedule, Step};
pub use sleep_range::{RetryAfterRule, SleepAt, SleepRange};
pub use std_clocks::StdClocks;
pub use std_random::StdRandom;
pub use subject::{Subject, SubjectConfig};
pub use time::{VDuration, VInstant};
pub use timers::TimerRace;
pub use trace::{
    first_action_difference, CallResult, CircuitState, Cut, Diagnostic, ErrorKind, Event, EventKind, Rejection, Trace,
    TraceEnd, RECYCLED_CAPACITY_MAX, TRACE_CAPACITY,
};
pub use world::{
    Abort, AttemptResult, CallInfo, LimitKind, Limits, Misuse, PendingAttempt, Wake, World, EVENTS_PER_ATTEMPT_MAX,
};
