//! The value shrinker: named passes over a case (not its seed or bytes), each step kept only if the same
//! law still fails, deterministically.
//!
//! Passes, repeated until none makes progress or the budget is spent:
//! `drop_calls` and `drop_steps` (delta debugging over calls and over each call's steps), `shrink_config`
//! (the subject's simpler configs, most aggressive first; when a simpler config alone loses the failure it
//! is tried again with the schedule adapted: durations on a moved boundary move with it, and attempts that
//! timed out under a removed timeout become transient failures), `simplify_calls` (no gap, no cancellation,
//! idempotent), `simplify_outcomes` (toward `ok`, `transient`, `fatal`, `rate_limited`, `hang` in that
//! order), `shrink_durations` (each duration toward zero, then toward the contract boundary that matters:
//! a timeout, a cap, a deadline, an open duration; then a binary search), `zero_seed`, and
//! `shrink_clock_faults` (no read failures, fewer wall jumps, smaller jumps at simpler points).
//!
//! A candidate is accepted only when the law's verdict on it is a violation, twice in a row on fresh Worlds
//! with the same trace digest (a nondeterministic failure is never kept). Budgets bound the evaluations (every
//! subject run counted: candidates, their confirming runs, the runs whose traces adapt schedules) and,
//! optionally, wall-clock time (off by default: a time budget makes the minimum depend on the machine).

mod adapt;
mod clock_passes;
mod engine;
mod passes;

pub use engine::{shrink, shrink_with, Evaluator, NotFailing, PassStats, ShrinkBudget, ShrinkOutcome};
