//! The ids of the standard laws: stable, snake_case, part of the fixture format and the CLI.
//!
//! Each constant links to its law in [`crate::catalogue`].

/// `attempts_within_max`: see [`crate::catalogue::ATTEMPTS_WITHIN_MAX`].
pub const ATTEMPTS_WITHIN_MAX: &str = "attempts_within_max";
/// `delay_within_cap`: see [`crate::catalogue::DELAY_WITHIN_CAP`].
pub const DELAY_WITHIN_CAP: &str = "delay_within_cap";
/// `delay_at_least_min`: see [`crate::catalogue::DELAY_AT_LEAST_MIN`].
pub const DELAY_AT_LEAST_MIN: &str = "delay_at_least_min";
/// `backoff_shape_without_jitter`: see [`crate::catalogue::BACKOFF_SHAPE_WITHOUT_JITTER`].
pub const BACKOFF_SHAPE_WITHOUT_JITTER: &str = "backoff_shape_without_jitter";
/// `jitter_within_bounds`: see [`crate::catalogue::JITTER_WITHIN_BOUNDS`].
pub const JITTER_WITHIN_BOUNDS: &str = "jitter_within_bounds";
/// `no_sleep_after_final_attempt`: see [`crate::catalogue::NO_SLEEP_AFTER_FINAL_ATTEMPT`].
pub const NO_SLEEP_AFTER_FINAL_ATTEMPT: &str = "no_sleep_after_final_attempt";
/// `success_ends_call`: see [`crate::catalogue::SUCCESS_ENDS_CALL`].
pub const SUCCESS_ENDS_CALL: &str = "success_ends_call";
/// `fatal_not_retried`: see [`crate::catalogue::FATAL_NOT_RETRIED`].
pub const FATAL_NOT_RETRIED: &str = "fatal_not_retried";
/// `timeout_translated_to_err`: see [`crate::catalogue::TIMEOUT_TRANSLATED_TO_ERR`].
pub const TIMEOUT_TRANSLATED_TO_ERR: &str = "timeout_translated_to_err";
/// `timeout_boundary_is_expired`: see [`crate::catalogue::TIMEOUT_BOUNDARY_IS_EXPIRED`].
pub const TIMEOUT_BOUNDARY_IS_EXPIRED: &str = "timeout_boundary_is_expired";
/// `deadline_respected`: see [`crate::catalogue::DEADLINE_RESPECTED`].
pub const DEADLINE_RESPECTED: &str = "deadline_respected";
/// `total_sleep_within_budget`: see [`crate::catalogue::TOTAL_SLEEP_WITHIN_BUDGET`].
pub const TOTAL_SLEEP_WITHIN_BUDGET: &str = "total_sleep_within_budget";
/// `retry_after_honored`: see [`crate::catalogue::RETRY_AFTER_HONORED`].
pub const RETRY_AFTER_HONORED: &str = "retry_after_honored";
/// `result_matches_last_attempt`: see [`crate::catalogue::RESULT_MATCHES_LAST_ATTEMPT`].
pub const RESULT_MATCHES_LAST_ATTEMPT: &str = "result_matches_last_attempt";
/// `eventually_succeeds`: see [`crate::catalogue::EVENTUALLY_SUCCEEDS`].
pub const EVENTUALLY_SUCCEEDS: &str = "eventually_succeeds";
/// `exhausted_retries_return_err`: see [`crate::catalogue::EXHAUSTED_RETRIES_RETURN_ERR`].
pub const EXHAUSTED_RETRIES_RETURN_ERR: &str = "exhausted_retries_return_err";
/// `clock_monotonic`: see [`crate::catalogue::CLOCK_MONOTONIC`].
pub const CLOCK_MONOTONIC: &str = "clock_monotonic";
/// `deterministic_replay`: see [`crate::catalogue::DETERMINISTIC_REPLAY`].
pub const DETERMINISTIC_REPLAY: &str = "deterministic_replay";
/// `never_panics`: see [`crate::catalogue::NEVER_PANICS`].
pub const NEVER_PANICS: &str = "never_panics";
/// `terminates`: see [`crate::catalogue::TERMINATES`].
pub const TERMINATES: &str = "terminates";
/// `circuit_open_rejects_without_dispatch`: see [`crate::catalogue::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH`].
pub const CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH: &str = "circuit_open_rejects_without_dispatch";
/// `circuit_half_open_after_cooldown`: see [`crate::catalogue::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN`].
pub const CIRCUIT_HALF_OPEN_AFTER_COOLDOWN: &str = "circuit_half_open_after_cooldown";
/// `half_open_probe_limit`: see [`crate::catalogue::HALF_OPEN_PROBE_LIMIT`].
pub const HALF_OPEN_PROBE_LIMIT: &str = "half_open_probe_limit";
/// `retry_budget_respected`: see [`crate::catalogue::RETRY_BUDGET_RESPECTED`].
pub const RETRY_BUDGET_RESPECTED: &str = "retry_budget_respected";
/// `non_idempotent_not_retried`: see [`crate::catalogue::NON_IDEMPOTENT_NOT_RETRIED`].
pub const NON_IDEMPOTENT_NOT_RETRIED: &str = "non_idempotent_not_retried";
/// `cancellation_stops_work`: see [`crate::catalogue::CANCELLATION_STOPS_WORK`].
pub const CANCELLATION_STOPS_WORK: &str = "cancellation_stops_work";
/// `timeout_does_not_end_stream`: see [`crate::catalogue::TIMEOUT_DOES_NOT_END_STREAM`].
pub const TIMEOUT_DOES_NOT_END_STREAM: &str = "timeout_does_not_end_stream";
/// `notify_matches_sleep`: see [`crate::catalogue::NOTIFY_MATCHES_SLEEP`].
pub const NOTIFY_MATCHES_SLEEP: &str = "notify_matches_sleep";
/// `wall_jump_keeps_monotonic_limits`: see [`crate::catalogue::WALL_JUMP_KEEPS_MONOTONIC_LIMITS`].
pub const WALL_JUMP_KEEPS_MONOTONIC_LIMITS: &str = "wall_jump_keeps_monotonic_limits";
/// `wall_jump_back_no_panic`: see [`crate::catalogue::WALL_JUMP_BACK_NO_PANIC`].
pub const WALL_JUMP_BACK_NO_PANIC: &str = "wall_jump_back_no_panic";
/// `failed_read_handled_as_declared`: see [`crate::catalogue::FAILED_READ_HANDLED_AS_DECLARED`].
pub const FAILED_READ_HANDLED_AS_DECLARED: &str = "failed_read_handled_as_declared";
/// `circuit_closed_admits`: see [`crate::catalogue::CIRCUIT_CLOSED_ADMITS`].
pub const CIRCUIT_CLOSED_ADMITS: &str = "circuit_closed_admits";
/// `circuit_closes_after_probes`: see [`crate::catalogue::CIRCUIT_CLOSES_AFTER_PROBES`].
pub const CIRCUIT_CLOSES_AFTER_PROBES: &str = "circuit_closes_after_probes";
/// `circuit_probe_slot_freed`: see [`crate::catalogue::CIRCUIT_PROBE_SLOT_FREED`].
pub const CIRCUIT_PROBE_SLOT_FREED: &str = "circuit_probe_slot_freed";
/// `retry_budget_admits_with_room`: see [`crate::catalogue::RETRY_BUDGET_ADMITS_WITH_ROOM`].
pub const RETRY_BUDGET_ADMITS_WITH_ROOM: &str = "retry_budget_admits_with_room";
/// `elapsed_limit_does_not_stop_early`: see [`crate::catalogue::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY`].
pub const ELAPSED_LIMIT_DOES_NOT_STOP_EARLY: &str = "elapsed_limit_does_not_stop_early";
/// `timeout_does_not_fire_early`: see [`crate::catalogue::TIMEOUT_DOES_NOT_FIRE_EARLY`].
pub const TIMEOUT_DOES_NOT_FIRE_EARLY: &str = "timeout_does_not_fire_early";
/// `time_limit_does_not_stop_retries_early`: see [`crate::catalogue::TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY`].
pub const TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY: &str = "time_limit_does_not_stop_retries_early";
/// `deadline_does_not_stop_early`: see [`crate::catalogue::DEADLINE_DOES_NOT_STOP_EARLY`].
pub const DEADLINE_DOES_NOT_STOP_EARLY: &str = "deadline_does_not_stop_early";
/// `rate_limited_retried_below_cap`: see [`crate::catalogue::RATE_LIMITED_RETRIED_BELOW_CAP`].
pub const RATE_LIMITED_RETRIED_BELOW_CAP: &str = "rate_limited_retried_below_cap";
/// `no_undeclared_rejection`: see [`crate::catalogue::NO_UNDECLARED_REJECTION`].
pub const NO_UNDECLARED_REJECTION: &str = "no_undeclared_rejection";
/// `no_retry_after_elapsed_limit`: see [`crate::catalogue::NO_RETRY_AFTER_ELAPSED_LIMIT`].
pub const NO_RETRY_AFTER_ELAPSED_LIMIT: &str = "no_retry_after_elapsed_limit";
/// `retry_after_as_declared`: see [`crate::catalogue::RETRY_AFTER_AS_DECLARED`].
pub const RETRY_AFTER_AS_DECLARED: &str = "retry_after_as_declared";
/// `circuit_open_period_as_declared`: see [`crate::catalogue::CIRCUIT_OPEN_PERIOD_AS_DECLARED`].
pub const CIRCUIT_OPEN_PERIOD_AS_DECLARED: &str = "circuit_open_period_as_declared";
/// `interrupt_tie_as_declared`: see [`crate::catalogue::INTERRUPT_TIE_AS_DECLARED`].
pub const INTERRUPT_TIE_AS_DECLARED: &str = "interrupt_tie_as_declared";

/// `bulkhead_in_flight_within_limit`: see [`crate::catalogue::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT`].
pub const BULKHEAD_IN_FLIGHT_WITHIN_LIMIT: &str = "bulkhead_in_flight_within_limit";
/// `bulkhead_rejects_without_dispatch`: see [`crate::catalogue::BULKHEAD_REJECTS_WITHOUT_DISPATCH`].
pub const BULKHEAD_REJECTS_WITHOUT_DISPATCH: &str = "bulkhead_rejects_without_dispatch";
/// `bulkhead_admits_below_limit`: see [`crate::catalogue::BULKHEAD_ADMITS_BELOW_LIMIT`].
pub const BULKHEAD_ADMITS_BELOW_LIMIT: &str = "bulkhead_admits_below_limit";
/// `bulkhead_queue_first_come`: see [`crate::catalogue::BULKHEAD_QUEUE_FIRST_COME`].
pub const BULKHEAD_QUEUE_FIRST_COME: &str = "bulkhead_queue_first_come";
/// `limiter_within_rate`: see [`crate::catalogue::LIMITER_WITHIN_RATE`].
pub const LIMITER_WITHIN_RATE: &str = "limiter_within_rate";
/// `limiter_admits_with_tokens`: see [`crate::catalogue::LIMITER_ADMITS_WITH_TOKENS`].
pub const LIMITER_ADMITS_WITH_TOKENS: &str = "limiter_admits_with_tokens";
/// `hedges_within_limit_and_delay`: see [`crate::catalogue::HEDGES_WITHIN_LIMIT_AND_DELAY`].
pub const HEDGES_WITHIN_LIMIT_AND_DELAY: &str = "hedges_within_limit_and_delay";
/// `hedged_call_leaves_no_attempt_running`: see [`crate::catalogue::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING`].
pub const HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING: &str = "hedged_call_leaves_no_attempt_running";
/// `cancellation_leaves_nothing_running`: see [`crate::catalogue::CANCELLATION_LEAVES_NOTHING_RUNNING`].
pub const CANCELLATION_LEAVES_NOTHING_RUNNING: &str = "cancellation_leaves_nothing_running";
/// `ordered_results_in_input_order`: see [`crate::catalogue::ORDERED_RESULTS_IN_INPUT_ORDER`].
pub const ORDERED_RESULTS_IN_INPUT_ORDER: &str = "ordered_results_in_input_order";
/// `circuit_probes_settle_as_declared`: see [`crate::catalogue::CIRCUIT_PROBES_SETTLE_AS_DECLARED`].
pub const CIRCUIT_PROBES_SETTLE_AS_DECLARED: &str = "circuit_probes_settle_as_declared";

/// `uses_world_as_documented`: see [`crate::catalogue::USES_WORLD_AS_DOCUMENTED`].
pub const USES_WORLD_AS_DOCUMENTED: &str = "uses_world_as_documented";
/// `accepts_described_configs`: see [`crate::catalogue::ACCEPTS_DESCRIBED_CONFIGS`].
pub const ACCEPTS_DESCRIBED_CONFIGS: &str = "accepts_described_configs";

/// Every standard id, in catalogue (blueprint) order.
pub const ALL: [&str; 58] = [
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
