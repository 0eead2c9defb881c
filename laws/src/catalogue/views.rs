//! Which trace each standard law judges once calls overlap: the laws that judge one call at a time read
//! the trace regrouped call by call ([`crate::temporal::grouped_by_call`]), so they judge an interleaved
//! trace exactly as they judge the same calls run one after another; every other law (the breaker, the
//! budget, the load laws, the whole-trace meta and clock laws, a user's own law) reads the trace in time
//! order. On a sequential trace both are the same trace.

use crate::ids;

/// The standard laws that judge each call on its own events (and the call's schedule and contract).
pub static PER_CALL_LAWS: [&str; 33] = [
    ids::ATTEMPTS_WITHIN_MAX,
    ids::DELAY_WITHIN_CAP,
    ids::DELAY_AT_LEAST_MIN,
    ids::BACKOFF_SHAPE_WITHOUT_JITTER,
    ids::JITTER_WITHIN_BOUNDS,
    ids::NO_SLEEP_AFTER_FINAL_ATTEMPT,
    ids::SUCCESS_ENDS_CALL,
    ids::FATAL_NOT_RETRIED,
    ids::TIMEOUT_TRANSLATED_TO_ERR,
    ids::TIMEOUT_BOUNDARY_IS_EXPIRED,
    ids::DEADLINE_RESPECTED,
    ids::TOTAL_SLEEP_WITHIN_BUDGET,
    ids::RETRY_AFTER_HONORED,
    ids::RESULT_MATCHES_LAST_ATTEMPT,
    ids::EVENTUALLY_SUCCEEDS,
    ids::EXHAUSTED_RETRIES_RETURN_ERR,
    ids::NON_IDEMPOTENT_NOT_RETRIED,
    ids::CANCELLATION_STOPS_WORK,
    ids::TIMEOUT_DOES_NOT_END_STREAM,
    ids::NOTIFY_MATCHES_SLEEP,
    ids::FAILED_READ_HANDLED_AS_DECLARED,
    ids::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY,
    ids::DEADLINE_DOES_NOT_STOP_EARLY,
    ids::TIMEOUT_DOES_NOT_FIRE_EARLY,
    ids::TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY,
    ids::RATE_LIMITED_RETRIED_BELOW_CAP,
    ids::NO_UNDECLARED_REJECTION,
    ids::NO_RETRY_AFTER_ELAPSED_LIMIT,
    ids::RETRY_AFTER_AS_DECLARED,
    ids::INTERRUPT_TIE_AS_DECLARED,
    ids::HEDGES_WITHIN_LIMIT_AND_DELAY,
    ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING,
    ids::CANCELLATION_LEAVES_NOTHING_RUNNING,
];

/// `true` when the standard law `id` judges one call at a time ([`PER_CALL_LAWS`]); `false` for every
/// other law, which reads the trace in time order.
pub fn judged_per_call(id: &str) -> bool {
    PER_CALL_LAWS.contains(&id)
}
