//! timelaw: find, shrink and pin down violations of retry / timeout / circuit-breaker laws,
//! deterministically and without sleeping.
//!
//! ```
//! use timelaw::reference::Reference;
//!
//! // The reference interpreter against the whole catalogue, 2,000 generated cases, in virtual time.
//! let output = timelaw::check(&Reference).cases(2_000).seed(7).run();
//! output.assert_holds();
//! assert_eq!(output.laws.len(), 58);
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
//! [`Check::only_laws`] and [`Check::without_laws`] narrow the catalogue, [`Check::replay_every`]`(0)`
//! turns the replay check off (for a subject with unseedable randomness), [`Check::env`]`(false)` ignores
//! the `TIMELAW_*` variables; options that would check nothing (`.cases(0)`) are errors, never a vacuous
//! pass. [`RunOutput::summary`] gives the counts (laws applicable, holding, violated, inconclusive, the
//! first violating case, wall time) as a [`Summary`] whose `Display` fits one screen.
//!
//! ## Your own subject
//! Put the code under test behind [`core::Subject`] (what it promises goes in the
//! [`Contract`](core::Contract)) and describe its configs once with [`Describe`]: one function over
//! [`Choices`] gives sampling, the proptest strategy, fuzz decoding, the simplest config and shrink
//! candidates ([`generators::ConfigDomain`] follows). A synchronous retry loop runs on the helpers of
//! [`sync_loop`]; the delays come from [`draw`]. Everything a user needs is under `timelaw::`.
//!
//! Without a type of its own, a subject is [`subject`]`(name, describe, contract, run)` (a `const`
//! [`FnSubject`]); [`core::Contract::exponential`] and its siblings state a retry policy's promises in one
//! call and [`sync_loop::contract_for`] adds the loop's. The guide ([`guide`]) checks a sync and a tokio
//! loop that way. The longer form below, a type implementing `Subject` and `Describe`, is for
//! descriptions that read the [`Swarm`], subjects holding data and shrink candidates of your own.
//!
//! ```
//! use std::time::Duration;
//! use timelaw::core::{Abort, Contract, Subject, VDuration, World};
//! use timelaw::sync_loop::{contract_for, serve_calls};
//! use timelaw::{draw, Choices, Describe, Swarm};
//! use serde::{Deserialize, Serialize};
//!
//! /// Our retry wrapper's settings.
//! #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
//! struct Settings { retries: u32, delay: VDuration }
//!
//! /// The code under test: retry transient and rate-limited failures with a constant delay.
//! #[derive(Clone)]
//! struct ConstantRetry;
//!
//! impl Subject for ConstantRetry {
//!     type Config = Settings;
//!     fn name(&self) -> &str { "constant-retry" }
//!     fn contract(&self, s: &Settings) -> Contract {
//!         // At most `retries + 1` attempts, `delay` apart, no jitter; and what the loop promises.
//!         contract_for(Contract::constant(s.retries + 1, s.delay))
//!     }
//!     fn run(&self, s: &Settings, world: &mut World<'_>) -> Result<(), Abort> {
//!         let delay = Duration::from_nanos(s.delay.as_nanos());
//!         serve_calls(world, |_| Ok(std::iter::repeat_n(delay, s.retries as usize)))
//!     }
//! }
//!
//! impl Describe for ConstantRetry {
//!     fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> Settings {
//!         Settings { retries: draw::retries(c, 20) as u32, delay: draw::delay(c, draw::SEC) }
//!     }
//! }
//!
//! timelaw::check(&ConstantRetry).cases(2_000).run().assert_holds();
//! assert_eq!(timelaw::simplest_config(&ConstantRetry), Settings { retries: 0, delay: VDuration::ZERO });
//! ```
//!
//! The three-method form of [`generators::ConfigDomain`] stays for domains written by hand; its
//! signatures use [`proptest`] and [`arbitrary`], re-exported here so their versions always match.
//!
//! ## Async subjects on tokio
//! With the `tokio` feature, [`tokio`](mod@tokio) is the paused-time driver (`run_tokio`, `TokioWorld`,
//! `Recorder`, and tokio's `time` module): async code that uses `tokio::time` runs in virtual time.
//! `tokio::serve_calls` serves every call with one async function, `TokioWorld::attempt_within` runs
//! one attempt under a timeout as the call's result, and `tokio::retryable_by_default` classifies it.
//!
//! ## Meta-laws
//! A panicking subject violates `never_panics` (the panic is caught and the run goes on), a subject that
//! hangs or is stopped at the World's default step limits (generous: 16,384 sleeps) violates `terminates`
//! (a lower limit set for the run only makes it inconclusive), and every 16th case is run twice to check
//! `deterministic_replay` ([`Config::replay_every`]). Every hang stops: a loop in pure code at the per-case
//! watchdog ([`Config::case_timeout_ms`], "no progress for N ms"), a busy-wait on the World's clock or
//! randomness at 65,536 reads and draws in a row ([`core::Limits::idle_calls_max`]), a tokio future
//! waiting for nothing as a deadlock ([`core::Abort::Deadlock`]); a shrink candidate that hangs is cut
//! and rejected.
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
//! ## Durations as text
//! Fixtures write every duration as exact text (`"1ms"`, `"1.5s"`, `"1.000000001s"`, `"max"`) and read
//! the older integers of nanoseconds too. [`duration_text`] is the serde module for a config's own
//! `std::time::Duration` fields:
//! ```
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct MyConfig {
//!     #[serde(with = "timelaw::duration_text")]
//!     timeout: std::time::Duration,
//! }
//! let config = MyConfig { timeout: std::time::Duration::from_micros(1_500_000) };
//! assert_eq!(serde_json::to_string(&config).unwrap(), r#"{"timeout":"1.5s"}"#);
//! let old: MyConfig = serde_json::from_str(r#"{"timeout":1500000000}"#).unwrap();
//! assert_eq!(old.timeout, config.timeout);
//! ```
//!
//! ## Fuzzing
//! [`fuzz::check_bytes`] is the whole body of a cargo fuzz target for a subject;
//! [`fuzz::check_bytes_except`] skips inputs whose every violation is a known one (see [`known`]);
//! [`fuzz::check_bytes_with_decoding`] checks your own catalogue, sequential or overlapping, nothing masked.
//!
//! ## The CLI
//! [`cli::main`] is the `timelaw` command line over a [`Registry`] of subjects; the binary is two lines.
#![deny(missing_docs)]

#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod eval;
pub mod fixture;
pub mod fuzz;
pub mod known;
#[cfg(feature = "cli")]
pub mod listing;
pub mod panic_site;
pub mod registry;
#[cfg(feature = "replay")]
pub mod replay;
pub mod report;
pub mod runner;
pub mod shrink;
mod swarm_summary;
pub mod watchdog;

pub use config::{Config, ConfigError, Shard, StopAt};
pub use registry::{ConfigPick, ContractSample, DynSubject, Registry, ReplayOutcome};
pub use runner::{check, Check, CheckError, RunOutput, Summary};
#[doc(inline)]
pub use timelaw_core as core;
pub use timelaw_core::reference;
#[doc(inline)]
pub use timelaw_generators as generators;
#[doc(inline)]
pub use timelaw_laws as laws;
#[doc(inline)]
pub use timelaw_reports as reports;

pub use arbitrary;
pub use proptest;
pub use timelaw_core::duration_text;
pub use timelaw_core::float::{self, float_tolerance, float_tolerance_ppb, with_float_tolerance, F32, F64};
pub use timelaw_core::sync_loop;
pub use timelaw_core::{std_clocks, std_random, StdClocks, StdRandom};
pub use timelaw_generators::draw;
pub use timelaw_generators::{
    describe_like, simplest_config, subject, Choices, ConfigDomain, Describe, FnSubject, Swarm,
};
/// The paused-time tokio driver (the `timelaw-tokio` crate): `run_tokio`, `TokioWorld`, `Recorder`, and
/// tokio's `time` module.
#[cfg(feature = "tokio")]
pub use timelaw_tokio as tokio;

/// The guide (docs/guide.md): a retry loop of your own, sync and tokio, from nothing to a `cargo test`
/// law suite, a checked-in fixture, a fuzz target, a CLI and a CI job; a law of your own. Its code blocks
/// are doctests; the rest is the `examples/user-crate` crate, which CI builds and tests.
///
#[doc = include_str!("../docs/guide.md")]
pub mod guide {}

/// This timelaw's version (written into fixtures and reports).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
