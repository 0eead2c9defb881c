//! Shared test code: planted-bug subjects and their stated minima.
pub mod bless;
pub mod corpus;
pub mod corpus_breaker;
pub mod corpus_measure;
pub mod corpus_minima;
pub mod corpus_subject;
pub mod extremes;
pub mod hangs;
pub mod minima;
pub mod parallel;
pub mod planted;
pub mod planted_clocks;
pub mod planted_elapsed;
pub mod planted_hedge;
pub mod planted_load;
pub mod planted_refusal;
pub mod registry;
