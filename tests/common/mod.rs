//! Shared test code: planted-bug subjects.
pub mod extremes;
pub mod planted;
