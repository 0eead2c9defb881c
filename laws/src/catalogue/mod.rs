//! The standard catalogue: every law of the blueprint, one file per group, and [`Catalogue`], the
//! registry users extend with their own laws.
//!
//! | group | laws |
//! |---|---|
//! | attempts | [`ATTEMPTS_WITHIN_MAX`], [`NO_SLEEP_AFTER_FINAL_ATTEMPT`], [`EXHAUSTED_RETRIES_RETURN_ERR`], [`NON_IDEMPOTENT_NOT_RETRIED`], [`RETRY_BUDGET_RESPECTED`] |
//! | delays | [`DELAY_WITHIN_CAP`], [`DELAY_AT_LEAST_MIN`], [`BACKOFF_SHAPE_WITHOUT_JITTER`], [`JITTER_WITHIN_BOUNDS`], [`TOTAL_SLEEP_WITHIN_BUDGET`], [`RETRY_AFTER_HONORED`], [`NOTIFY_MATCHES_SLEEP`] |
//! | outcomes | [`SUCCESS_ENDS_CALL`], [`FATAL_NOT_RETRIED`], [`RESULT_MATCHES_LAST_ATTEMPT`], [`EVENTUALLY_SUCCEEDS`] |
//! | time limits | [`TIMEOUT_TRANSLATED_TO_ERR`], [`TIMEOUT_BOUNDARY_IS_EXPIRED`], [`DEADLINE_RESPECTED`], [`CANCELLATION_STOPS_WORK`], [`TIMEOUT_DOES_NOT_END_STREAM`], [`TIMEOUT_DOES_NOT_FIRE_EARLY`] |
//! | circuit breaker | [`CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH`], [`CIRCUIT_HALF_OPEN_AFTER_COOLDOWN`], [`HALF_OPEN_PROBE_LIMIT`], [`CIRCUIT_OPEN_PERIOD_AS_DECLARED`], [`CIRCUIT_PROBES_SETTLE_AS_DECLARED`] |
//! | refusing too much | [`CIRCUIT_CLOSED_ADMITS`], [`CIRCUIT_CLOSES_AFTER_PROBES`], [`CIRCUIT_PROBE_SLOT_FREED`], [`RETRY_BUDGET_ADMITS_WITH_ROOM`], [`ELAPSED_LIMIT_DOES_NOT_STOP_EARLY`], [`DEADLINE_DOES_NOT_STOP_EARLY`], [`TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY`], [`RATE_LIMITED_RETRIED_BELOW_CAP`], [`NO_UNDECLARED_REJECTION`] |
//! | declared promises | [`NO_RETRY_AFTER_ELAPSED_LIMIT`], [`RETRY_AFTER_AS_DECLARED`], [`INTERRUPT_TIE_AS_DECLARED`] |
//! | every subject | [`CLOCK_MONOTONIC`], [`DETERMINISTIC_REPLAY`], [`NEVER_PANICS`], [`TERMINATES`], [`USES_WORLD_AS_DOCUMENTED`], [`ACCEPTS_DESCRIBED_CONFIGS`] |
//! | two clocks | [`WALL_JUMP_KEEPS_MONOTONIC_LIMITS`], [`WALL_JUMP_BACK_NO_PANIC`], [`FAILED_READ_HANDLED_AS_DECLARED`] |
//! | load | [`BULKHEAD_IN_FLIGHT_WITHIN_LIMIT`], [`BULKHEAD_REJECTS_WITHOUT_DISPATCH`], [`BULKHEAD_ADMITS_BELOW_LIMIT`], [`BULKHEAD_QUEUE_FIRST_COME`], [`LIMITER_WITHIN_RATE`], [`LIMITER_ADMITS_WITH_TOKENS`] |
//! | work at once | [`HEDGES_WITHIN_LIMIT_AND_DELAY`], [`HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING`], [`CANCELLATION_LEAVES_NOTHING_RUNNING`], [`ORDERED_RESULTS_IN_INPUT_ORDER`] |
//!
//! What the laws compare, and with which tolerance: virtual time is exact, so every law compares counts,
//! instants and durations exactly, in whole nanoseconds, with no tolerance. The only exception is a
//! promised delay (the delay group's backoff, jitter, cap and minimum), whose value a subject may compute
//! in floating point: it is computed exactly from the parameters the subject states
//! ([`timelaw_core::promise`]), any whole-nanosecond rounding of it holds, and only the contract's
//! tolerance ([`timelaw_core::Contract::tolerance`], absolute plus relative, zero unless the subject's
//! arithmetic is inexact) widens it. Each law's doc names what it compares.
//!
//! Each law's mechanism (retry, delays/backoff, timing, rate/retry-after, circuit, budget, clocks, meta)
//! and each contract field's are one table, [`LAW_MECHANISMS`] and [`CONTRACT_FIELDS`] ([`mechanism_of`]);
//! the listings group by it.
//!
//! The models the laws replay are public for a user's own laws: [`breaker_model`] (the circuit breaker a
//! contract states), [`budget_model`] (the retry budget, with its window) and [`support`] (event
//! classification and the call walk); [`replay_breaker`] replays the breaker model over a trace's calls.
//!
//! Architecture invariant: on the common path (holds, vacuous, not applicable) no law allocates; a
//! violation may format its message. Every law walks the events once (the circuit laws twice). Within a
//! [`Catalogue`], a law none of whose facts happened ([`vacuous_without`], [`crate::Features`]) is
//! vacuous without a walk, the circuit laws share one replay of the breaker per case and the delay laws
//! one walk of the sleeps; each law still gets the verdict it gives on its own.

mod attempts;
pub mod breaker_model;
pub mod budget_model;
mod case_memo;
mod circuit;
mod clocks;
mod concurrent;
mod delays;
mod load;
mod mechanism;
mod meta;
mod outcomes;
mod promises;
mod refusal;
mod registry;
mod sleeps;
pub mod support;
mod timeouts;
mod vacuity;
mod views;

pub use attempts::{
    ATTEMPTS_WITHIN_MAX, EXHAUSTED_RETRIES_RETURN_ERR, NON_IDEMPOTENT_NOT_RETRIED, NO_SLEEP_AFTER_FINAL_ATTEMPT,
    RETRY_BUDGET_RESPECTED,
};
pub use circuit::{
    replay_breaker, CIRCUIT_CLOSED_ADMITS, CIRCUIT_CLOSES_AFTER_PROBES, CIRCUIT_HALF_OPEN_AFTER_COOLDOWN,
    CIRCUIT_OPEN_PERIOD_AS_DECLARED, CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, CIRCUIT_PROBES_SETTLE_AS_DECLARED,
    CIRCUIT_PROBE_SLOT_FREED, HALF_OPEN_PROBE_LIMIT,
};
pub use clocks::{FAILED_READ_HANDLED_AS_DECLARED, WALL_JUMP_BACK_NO_PANIC, WALL_JUMP_KEEPS_MONOTONIC_LIMITS};
pub use concurrent::{
    CANCELLATION_LEAVES_NOTHING_RUNNING, HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, HEDGES_WITHIN_LIMIT_AND_DELAY,
    ORDERED_RESULTS_IN_INPUT_ORDER,
};
pub use delays::{
    BACKOFF_SHAPE_WITHOUT_JITTER, DELAY_AT_LEAST_MIN, DELAY_WITHIN_CAP, JITTER_WITHIN_BOUNDS, NOTIFY_MATCHES_SLEEP,
    RETRY_AFTER_AS_DECLARED, RETRY_AFTER_HONORED, TOTAL_SLEEP_WITHIN_BUDGET,
};
pub use load::{
    BulkheadWalk, CallSet, BULKHEAD_ADMITS_BELOW_LIMIT, BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, BULKHEAD_QUEUE_FIRST_COME,
    BULKHEAD_REJECTS_WITHOUT_DISPATCH, LIMITER_ADMITS_WITH_TOKENS, LIMITER_WITHIN_RATE,
};
pub use mechanism::{field_mechanism, mechanism_of, Mechanism, CONTRACT_FIELDS, LAW_MECHANISMS};
pub use meta::{
    ACCEPTS_DESCRIBED_CONFIGS, CLOCK_MONOTONIC, DETERMINISTIC_REPLAY, NEVER_PANICS, TERMINATES,
    USES_WORLD_AS_DOCUMENTED,
};
pub use outcomes::{EVENTUALLY_SUCCEEDS, FATAL_NOT_RETRIED, RESULT_MATCHES_LAST_ATTEMPT, SUCCESS_ENDS_CALL};
pub use promises::{INTERRUPT_TIE_AS_DECLARED, NO_RETRY_AFTER_ELAPSED_LIMIT};
pub use refusal::{
    DEADLINE_DOES_NOT_STOP_EARLY, ELAPSED_LIMIT_DOES_NOT_STOP_EARLY, NO_UNDECLARED_REJECTION,
    RATE_LIMITED_RETRIED_BELOW_CAP, RETRY_BUDGET_ADMITS_WITH_ROOM, TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY,
};
pub use registry::{Catalogue, LawError};
pub use timeouts::{
    CANCELLATION_STOPS_WORK, DEADLINE_RESPECTED, TIMEOUT_BOUNDARY_IS_EXPIRED, TIMEOUT_DOES_NOT_END_STREAM,
    TIMEOUT_DOES_NOT_FIRE_EARLY, TIMEOUT_TRANSLATED_TO_ERR,
};
pub use vacuity::vacuous_without;
pub use views::{judged_per_call, PER_CALL_LAWS};

use crate::law::Law;

/// Every standard law, in blueprint order (the order of [`crate::ids::ALL`]).
pub static STANDARD: [Law; 58] = [
    ATTEMPTS_WITHIN_MAX,
    DELAY_WITHIN_CAP,
    DELAY_AT_LEAST_MIN,
    BACKOFF_SHAPE_WITHOUT_JITTER,
    JITTER_WITHIN_BOUNDS,
    NO_SLEEP_AFTER_FINAL_ATTEMPT,
    SUCCESS_ENDS_CALL,
    FATAL_NOT_RETRIED,
    TIMEOUT_TRANSLATED_TO_ERR,
    TIMEOUT_BOUNDARY_IS_EXPIRED,
    DEADLINE_RESPECTED,
    TOTAL_SLEEP_WITHIN_BUDGET,
    RETRY_AFTER_HONORED,
    RESULT_MATCHES_LAST_ATTEMPT,
    EVENTUALLY_SUCCEEDS,
    EXHAUSTED_RETRIES_RETURN_ERR,
    CLOCK_MONOTONIC,
    DETERMINISTIC_REPLAY,
    NEVER_PANICS,
    TERMINATES,
    CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH,
    CIRCUIT_HALF_OPEN_AFTER_COOLDOWN,
    HALF_OPEN_PROBE_LIMIT,
    RETRY_BUDGET_RESPECTED,
    NON_IDEMPOTENT_NOT_RETRIED,
    CANCELLATION_STOPS_WORK,
    TIMEOUT_DOES_NOT_END_STREAM,
    NOTIFY_MATCHES_SLEEP,
    WALL_JUMP_KEEPS_MONOTONIC_LIMITS,
    WALL_JUMP_BACK_NO_PANIC,
    FAILED_READ_HANDLED_AS_DECLARED,
    CIRCUIT_CLOSED_ADMITS,
    CIRCUIT_CLOSES_AFTER_PROBES,
    CIRCUIT_PROBE_SLOT_FREED,
    RETRY_BUDGET_ADMITS_WITH_ROOM,
    ELAPSED_LIMIT_DOES_NOT_STOP_EARLY,
    RATE_LIMITED_RETRIED_BELOW_CAP,
    NO_UNDECLARED_REJECTION,
    NO_RETRY_AFTER_ELAPSED_LIMIT,
    RETRY_AFTER_AS_DECLARED,
    CIRCUIT_OPEN_PERIOD_AS_DECLARED,
    INTERRUPT_TIE_AS_DECLARED,
    BULKHEAD_IN_FLIGHT_WITHIN_LIMIT,
    BULKHEAD_REJECTS_WITHOUT_DISPATCH,
    BULKHEAD_ADMITS_BELOW_LIMIT,
    BULKHEAD_QUEUE_FIRST_COME,
    LIMITER_WITHIN_RATE,
    LIMITER_ADMITS_WITH_TOKENS,
    HEDGES_WITHIN_LIMIT_AND_DELAY,
    HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING,
    CANCELLATION_LEAVES_NOTHING_RUNNING,
    ORDERED_RESULTS_IN_INPUT_ORDER,
    CIRCUIT_PROBES_SETTLE_AS_DECLARED,
    DEADLINE_DOES_NOT_STOP_EARLY,
    TIMEOUT_DOES_NOT_FIRE_EARLY,
    TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY,
    USES_WORLD_AS_DOCUMENTED,
    ACCEPTS_DESCRIBED_CONFIGS,
];
