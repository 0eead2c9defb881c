//! timelaw: find, shrink and pin down violations of retry / timeout / circuit-breaker laws,
//! deterministically and without sleeping.
//!
//! ```
//! use timelaw::reference::Reference;
//!
//! // The reference interpreter against the whole catalogue, 2,000 generated cases, in virtual time.
//! let output = timelaw::check(&Reference).cases(2_000).seed(7).run();
//! output.assert_holds();
//! assert_eq!(output.laws.len(), 28);
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
//! ## Meta-laws
//! A panicking subject violates `never_panics` (the panic is caught and the run goes on), a subject that
//! exceeds the World's step limits violates `terminates`, and every 16th case is run twice to check
//! `deterministic_replay` ([`Config::replay_every`]).
//!
//! ## Shrinking
//! [`shrink::shrink`] works on values, not seeds or bytes, so it shrinks failures from any source: random
//! search, a proptest failure, a fuzz artifact, a hand-edited fixture. See [`shrink`] for its passes.
//!
//! ## Fixtures and replay
//! [`fixture`] is the versioned JSON format (written atomically, named by law, subject and content hash);
//! [`replay::main`] turns every fixture of a folder into its own test in a `harness = false` target.
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
