//! timelaw: find, shrink and pin down violations of retry / timeout / circuit-breaker laws,
//! deterministically and without sleeping.
//!
//! ```
//! use timelaw::reference::Reference;
//!
//! // The reference interpreter against the whole catalogue, 2,000 generated cases, in virtual time.
//! let output = timelaw::check(&Reference).cases(2_000).seed(7).run();
//! output.assert_holds();
//! assert_eq!(output.laws.len(), 31);
//! assert_eq!(output.laws[0].counts.cases, 2_000);
//! ```
//!
//! ## Checking a subject
//! [`check`] returns a builder over a [`Config`] (cases, seed, threads, fixtures folder, violations kept
//! per law, shard); every option has a default and a `TIMELAW_*` environment variable. Case `i` is
//! generated from `mix(seed, i)`, so the same seed gives the same cases, verdicts and fixtures on any
//! number of threads. [`RunOutput::assert_holds`] panics with the law, the shrunk case, the fixture path
//! and the seed to reproduce.
//!
//! ## Your own subject
//! Put the code under test behind [`core::Subject`] (what it promises goes in the
//! [`Contract`](core::Contract)) and describe its configs with [`generators::ConfigDomain`]:
//!
//! ```
//! use timelaw::core::{
//!     Abort, AttemptResult, BackoffShape, CallResult, Contract, ErrorKind, JitterBounds, Outcome, RetryOn,
//!     SplitMix64, Subject, VDuration, World,
//! };
//! use timelaw::generators::{ConfigDomain, Swarm};
//! use proptest::strategy::{BoxedStrategy, Strategy};
//! use serde::{Deserialize, Serialize};
//!
//! /// Our retry wrapper's settings.
//! #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
//! struct Settings { attempts: u32, delay_ms: u64 }
//!
//! /// The code under test: retry transient failures with a constant delay.
//! struct ConstantRetry;
//!
//! impl Subject for ConstantRetry {
//!     type Config = Settings;
//!     fn name(&self) -> &str { "constant-retry" }
//!     fn contract(&self, s: &Settings) -> Contract {
//!         let delay = VDuration::from_millis(s.delay_ms);
//!         Contract {
//!             max_attempts: Some(s.attempts),
//!             delay_min: Some(delay),
//!             delay_max: Some(delay),
//!             backoff: Some(BackoffShape::Constant { delay }),
//!             jitter: Some(JitterBounds::None),
//!             retry_on: Some(RetryOn { transient: true, rate_limited: false, timeout: false }),
//!             reports_last_result: true,
//!             ..Contract::default()
//!         }
//!     }
//!     fn run(&self, s: &Settings, world: &mut World<'_>) -> Result<(), Abort> {
//!         world.for_each_call(|world, _call| {
//!             for attempt in 1..=s.attempts {
//!                 let outcome = match world.dispatch()? {
//!                     AttemptResult::Completed(outcome) => outcome,
//!                     AttemptResult::TimedOut => return Ok(CallResult::Err(ErrorKind::Timeout)),
//!                     AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
//!                 };
//!                 if outcome != Outcome::Transient || attempt == s.attempts {
//!                     return Ok(CallResult::from_outcome(outcome));
//!                 }
//!                 world.sleep(VDuration::from_millis(s.delay_ms))?;
//!             }
//!             Ok(CallResult::Err(ErrorKind::Transient)) // Only with zero attempts, which we never generate.
//!         })
//!     }
//! }
//!
//! impl ConfigDomain for ConstantRetry {
//!     fn sample_config(&self, rng: &mut SplitMix64, _swarm: &Swarm) -> Settings {
//!         Settings { attempts: 1 + rng.below(5) as u32, delay_ms: rng.below(1_000) }
//!     }
//!     fn config_strategy(&self) -> BoxedStrategy<Settings> {
//!         (1..=5_u32, 0..1_000_u64).prop_map(|(attempts, delay_ms)| Settings { attempts, delay_ms }).boxed()
//!     }
//!     fn arbitrary_config(&self, bytes: &mut arbitrary::Unstructured<'_>) -> Settings {
//!         let attempts = bytes.int_in_range(1..=5).unwrap_or(1);
//!         Settings { attempts, delay_ms: bytes.int_in_range(0..=999).unwrap_or(0) }
//!     }
//!     fn shrink_config(&self, s: &Settings) -> Vec<Settings> {
//!         vec![Settings { attempts: 1, ..s.clone() }, Settings { delay_ms: 0, ..s.clone() }]
//!     }
//! }
//!
//! timelaw::check(&ConstantRetry).cases(2_000).run().assert_holds();
//! ```
//!
//! ## Meta-laws
//! A panicking subject violates `never_panics` (the panic is caught and the run goes on), a subject that
//! exceeds the World's step limits violates `terminates`, and every 16th case is run twice to check
//! `deterministic_replay` ([`Config::replay_every`]).
//!
//! ## Two clocks
//! The World has a monotonic clock and a virtual wall clock ([`core::World::wall_now`], a
//! [`core::WallInstant`] from 2026-01-01T00:00:00Z). In one batch of cases in eight (the `clock_faults`
//! swarm option) schedules also make the wall clock jump (forwards, backwards, before the Unix epoch) and
//! make clock reads fail ([`core::ClockFaults`]). Three laws judge it: `wall_jump_keeps_monotonic_limits`
//! (a case with wall jumps runs once more without them, and the two runs must act alike),
//! `wall_jump_back_no_panic` and `failed_read_handled_as_declared` (the contract's `clocks` group says which
//! clock each limit is measured on and what a failed read means).
//!
//! ## Shrinking
//! [`shrink::shrink`] works on values, not seeds or bytes, so it shrinks failures from any source: random
//! search, a proptest failure, a fuzz artifact, a hand-edited fixture. See [`shrink`] for its passes.
//!
//! ## Fixtures and replay
//! [`fixture`] is the versioned JSON format (written atomically, named by law, subject and content hash);
//! [`replay::main`] turns every fixture of a folder into its own test in a `harness = false` target. A run
//! never changes or removes a fixture that exists (unless [`Config::bless`]): a finding already pinned is
//! reported in [`runner::RunOutput::store`], raw counterexamples are saved in `DIR/.timelaw/pending/` as
//! soon as they are found, and what a killed run left there is recovered by the next run.
//!
//! ## Fuzzing
//! [`fuzz::check_bytes`] is the whole body of a cargo fuzz target for a subject.
//!
//! ## The CLI
//! [`cli::main`] is the `timelaw` command line over a [`Registry`] of subjects; the binary is two lines.
#![deny(missing_docs)]

pub mod cli;
pub mod config;
pub mod eval;
pub mod fixture;
pub mod fuzz;
mod listing;
pub mod registry;
pub mod replay;
pub mod report;
pub mod runner;
pub mod shrink;
mod swarm_summary;

pub use config::{Config, ConfigError, Shard, StopAt};
pub use registry::{DynSubject, Registry};
pub use runner::{check, Check, RunOutput};
pub use timelaw_core as core;
pub use timelaw_core::reference;
pub use timelaw_generators as generators;
pub use timelaw_laws as laws;
pub use timelaw_reports as reports;

/// This timelaw's version (written into fixtures and reports).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
