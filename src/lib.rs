//! timelaw: find, shrink and pin down violations of retry / timeout / circuit-breaker laws,
//! deterministically and without sleeping.
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
