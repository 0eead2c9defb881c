//! Shared test code: planted-bug subjects.
pub mod planted;
