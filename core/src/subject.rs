//! The seam between timelaw and the code under test.
//!
//! # The `Subject` state machine
//! For every case, timelaw makes a fresh [`World`], calls [`Subject::contract`] once and [`Subject::run`]
//! once. `run` serves the calls of the schedule in order (usually with [`World::for_each_call`]): for each
//! call it dispatches attempts, sleeps, notifies and returns a [`CallResult`](crate::CallResult). Any state
//! that spans calls (a circuit breaker, a retry budget) lives in `run`'s locals, so every run starts fresh.
//! `run` must be a function of the case: no wall clock, no OS randomness, no global state.
//!
//! # A third-party backoff iterator behind the seam
//! A crate's backoff iterator or retry driver needs only a sleeper that calls [`World::sleep`] and an
//! operation that calls [`World::dispatch`]:
//!
//! ```
//! use timelaw_core::{
//!     execute, AttemptResult, CallResult, Contract, ErrorKind, Outcome, Schedule, Step, Subject,
//!     VDuration, World, Abort, BackoffShape,
//! };
//! use serde::{Deserialize, Serialize};
//!
//! /// A crate's backoff: doubling from `base_ms`, `tries` delays.
//! struct Doubling { next_ms: u64, left: u32 }
//! impl Iterator for Doubling {
//!     type Item = std::time::Duration;
//!     fn next(&mut self) -> Option<std::time::Duration> {
//!         if self.left == 0 { return None; }
//!         self.left -= 1;
//!         let delay = std::time::Duration::from_millis(self.next_ms);
//!         self.next_ms *= 2;
//!         Some(delay)
//!     }
//! }
//!
//! #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
//! struct DoublingConfig { base_ms: u64, retries: u32 }
//!
//! struct DoublingSubject;
//! impl Subject for DoublingSubject {
//!     type Config = DoublingConfig;
//!     fn name(&self) -> &str { "doubling" }
//!     fn contract(&self, config: &DoublingConfig) -> Contract {
//!         let mut promise = Contract::default();
//!         promise.retry.max_attempts = Some(config.retries + 1);
//!         let initial = VDuration::from_millis(config.base_ms);
//!         promise.delays.backoff = Some(BackoffShape::Exponential { initial, factor_milli: 2000 });
//!         promise
//!     }
//!     fn run(&self, config: &DoublingConfig, world: &mut World<'_>) -> Result<(), Abort> {
//!         world.for_each_call(|world, _call| {
//!             let mut delays = Doubling { next_ms: config.base_ms, left: config.retries };
//!             loop {
//!                 let outcome = match world.dispatch()? {
//!                     AttemptResult::Completed(outcome) => outcome,
//!                     _ => return Ok(CallResult::Err(ErrorKind::Timeout)),
//!                 };
//!                 match (outcome, delays.next()) {
//!                     (Outcome::Transient, Some(delay)) => { world.sleep(delay.into())?; }
//!                     (outcome, _) => return Ok(CallResult::from_outcome(outcome)),
//!                 }
//!             }
//!         })
//!     }
//! }
//!
//! let schedule = Schedule::single(vec![Step::instant(Outcome::Transient); 2]);
//! let trace = execute(&DoublingSubject, &DoublingConfig { base_ms: 5, retries: 3 }, &schedule, 0);
//! assert_eq!(trace.events.last().unwrap().at.as_nanos(), 15_000_000); // slept 5 ms + 10 ms
//! ```
//!
//! Async subjects plug in the same way through [`crate::exec::run_async`].

use std::fmt::Debug;
use std::hash::Hash;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::contract::Contract;
use crate::std_clocks::StdClocks;
use crate::std_random::StdRandom;
use crate::world::{Abort, World};

/// What a subject's config must be: generated, serialized into fixtures, compared and shrunk.
pub trait SubjectConfig: Clone + Debug + Eq + Hash + Serialize + DeserializeOwned + Send + Sync + 'static {}

impl<T> SubjectConfig for T where T: Clone + Debug + Eq + Hash + Serialize + DeserializeOwned + Send + Sync + 'static {}

/// The code under test. See the module docs for its life cycle.
pub trait Subject: Sync {
    /// Its configuration.
    type Config: SubjectConfig;

    /// A stable name (used in fixture files and on the command line).
    fn name(&self) -> &str;

    /// What it promises for `config`.
    fn contract(&self, config: &Self::Config) -> Contract;

    /// Serves every call of the World's schedule.
    ///
    /// # Errors
    /// Returns the World's [`Abort`] unchanged when the World stops it.
    fn run(&self, config: &Self::Config, world: &mut World<'_>) -> Result<(), Abort>;

    /// The ids of the laws whose verdicts on this subject judge the harness that drives the code under
    /// test, not the code itself: for a backoff iterator run inside a retry loop written for the test,
    /// whether a success ends the call or a fatal error stops it is the loop's doing. Reports mark these
    /// laws. None by default (the subject is the code under test, end to end).
    fn harness_laws(&self) -> &'static [&'static str] {
        &[]
    }

    /// Which clocks std's `Instant::now()` and `SystemTime::now()` read while this subject runs a case:
    /// [`StdClocks::Real`] by default; [`StdClocks::Virtual`] for code that reads the clock itself (see
    /// [`crate::std_clocks`]).
    fn std_clocks(&self) -> StdClocks {
        StdClocks::Real
    }

    /// Where the randomness std and the `getrandom` crate hand out comes from while this subject runs a
    /// case: [`StdRandom::Os`] by default; [`StdRandom::Seeded`] for code that draws from the thread RNG
    /// or `OsRng` itself (see [`crate::std_random`]).
    fn std_random(&self) -> StdRandom {
        StdRandom::Os
    }
}
