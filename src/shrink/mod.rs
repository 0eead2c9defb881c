//! The value shrinker: named passes over a case (not its seed or bytes), each step kept only if the same law still
//! fails, deterministically.
//!
//! Passes, repeated until none makes progress or the budget is spent: `drop_calls` and `drop_steps` (delta
//! debugging over calls and over each call's steps), `drop_calls_reindexed` (a call dropped with the wall
//! jumps that count attempts or sleeps moved onto the same attempt), `fold_calls` (a call removed with its gap
//! folded into the next
//! call's), `serialize` (every arrival dropped: overlapping calls run one after another, no gap, or the first
//! waiting for its old arrival, or each waiting the old time between arrivals), `shrink_interleave` (no choices,
//! trailing zeros trimmed, chunks dropped, each choice towards 0: first-come order), `break_ties_by_time` (the
//! choices dropped with one call's first dispatch 1 ns later), `merge_steps` (two adjacent steps made one, with any outcome, simplest first), `lower_repeats` (equal adjacent steps
//! merged into one repeated step, then each repeat lowered), `drop_paired` (a dispatch dropped with the backoff
//! advanced by one retry, or with its retry's delay taken out of the deadline, or a first rate limit made a
//! transient failure with its retry-after as the first delay, or a call's last attempt dropped with the attempts
//! lowered by one and its time and sleep moved into the attempt before, where the move alone loses the failure),
//! `step_to_gap` (a call's last step dropped with its time moved into the next call's gap, or its first step, cut
//! by its timeout, an instant failure with its time moved into the first delay),
//! `simplify_outcomes` (toward `ok`, `transient`, `fatal`, `rate_limited`, `hang` in that order; a hang given up at
//! once, after the attempt timeout (the instant the timeout cut it) or one nanosecond past its call's
//! cancellation), `fold_retries` (where calls overlap, a failed step made `ok` until its call ended), `rewrite_pairs` (two adjacent steps given new outcomes at once, with a smaller sum of ranks:
//! `[rate_limited, transient]` to `[transient, fatal]`), `shrink_config` (the subject's simpler configs, most
//! aggressive first; when a simpler config alone loses the failure it is tried again with the schedule adapted:
//! durations on a moved boundary move with it, and attempts that timed out under a removed timeout or deadline
//! become transient failures), `shrink_numbers` (each number of the config at its minimum, then one above it, then
//! one lower than now, then by binary search to the smallest value that still fails; then each group of equal
//! numbers together, and each pair of near numbers by one amount; a number that loses the failure alone is
//! tried again with the schedule's durations equal to or near it lowered with it; for a domain that lists no
//! numbers of its own, the answers its config was drawn from, when known: [`Drawn`]), `shrink_answers` (an
//! answer lowered to `0` with the one or two answers after it deleted, or lowered with the next answer at its
//! largest: a tier lowered with its value raised), `couple_answers` (an answer lowered by one with a later one, two
//! to four places after it, at its largest: fewer retries under a larger factor; tried only after a round that
//! kept nothing), `bisect_config` (for a domain without numbers of its own, a config field, an integer or a
//! duration, searched by bisection between its value and the nearest simpler value the domain offers for it,
//! over a grid of 20 leading bits; also only after a round that kept nothing), `drop_counted_calls` (a call dropped with
//! a number that could count calls lowered by one), `drop_counted_shares` (the same with every percent raised so
//! the same number of calls reaches it), `join_counted_calls` (two adjacent one-dispatch calls made one
//! dispatch lasting both, the less simple outcome kept, with every count lowered by one), `lower_gap_with_number` (a call's gap and a config number lowered by one amount), `shrink_arrivals` (from the last
//! call: a call arriving with the next one, then with the previous one, every later call moved with it, then
//! by binary search to the earliest arrival that still fails, for it and the later calls together and then for it alone),
//! `simplify_calls` (no gap, no cancellation,
//! idempotent), `shrink_durations` (each duration to zero, then 1 ns; for a step, zero with its time taken out of
//! the deadline and the elapsed-time limit, or zero with every backward wall jump turned forward; then
//! toward the contract boundary that matters: a timeout, a cap, a
//! deadline, an open duration; then one nanosecond lower and a binary search to the nanosecond), `zero_seed`, and
//! `shrink_clock_faults` (no read failures, fewer wall jumps, smaller jumps at simpler points).
//!
//! Shrinking minimises along the order on simplicity of [`order`]: no candidate with a larger shape (calls, then
//! sequential before concurrent, then interleaving choices, then dispatches and steps, then outcomes) is accepted,
//! so a shorter schedule beats a simpler config, at an equal shape no config of a larger rank (the domain's total
//! order on configs), and at an equal rank too no less simple arrivals. The passes run in the order's order:
//! shape first, then config, then durations. No candidate that breaks more of the domain's rules than the current
//! case (`timelaw_generators::membership`) is accepted either, so a case inside the domain never leaves it.
//! [`moves`] lists every single move from a case, for tests of local minimality.
//!
//! A candidate is kept when the law's verdict on it is a violation; after each pass the best case is run again on a
//! fresh World and must give the same violation, or it is dropped with every case kept since the last confirmation,
//! latest first, until one reproduces (a nondeterministic failure is never the minimum, and a deterministic subject
//! pays one confirming run per pass that kept something, not one per kept candidate). Budgets bound the evaluations
//! (every subject run counted: candidates, the confirming runs, the runs whose traces adapt schedules) and,
//! optionally, wall-clock time (off by default: a time budget makes the minimum depend on the machine).

mod absorb;
mod adapt;
mod answers;
mod bisect;
mod clock_passes;
mod concurrency;
mod counted;
mod engine;
mod gap;
mod joined;
mod merge;
mod moves;
mod numbers;
pub mod order;
mod outcomes;
mod paired;
mod passes;
mod reindex;
mod retries;
mod shares;
mod shift;
mod ties;
mod unjitter;

pub use engine::{
    another_finding, another_panic, shrink, shrink_bounded, shrink_with, Drawn, Evaluator, NotFailing, PassStats,
    ShrinkBudget, ShrinkOutcome, SHRINK_HANGS_MAX,
};
pub use moves::{moves, neighbours, Move};
