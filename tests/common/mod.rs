//! Shared test code: planted-bug subjects.
pub mod planted;
pub mod planted_clocks;
