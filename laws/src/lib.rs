//! timelaw-laws: laws as data, three-valued verdicts, temporal combinators and the catalogue.
#![deny(missing_docs)]

pub mod law;
pub mod verdict;

pub use law::{always_applies, Law, LawKind, Observation, Replay};
pub use verdict::{Verdict, Violation};
