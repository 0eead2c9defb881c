//! Which mechanism each standard law and each contract field belongs to: the one table `timelaw laws`,
//! the report table and `timelaw contract` group by.
//!
//! A law's mechanism is data kept here rather than a field on [`Law`](crate::Law), so a user's law
//! written as a struct literal keeps compiling; a law with no entry (a user's law) is grouped under
//! "other laws" by the listings. The tests in `laws/tests/mechanism.rs` fail when a standard law or a
//! contract field has no mechanism.

use serde::{Deserialize, Serialize};

use crate::ids;

/// The mechanism a law judges or a contract field describes. Listings print groups in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// Attempts, which outcomes are retried, what a call returns.
    Retry,
    /// The delays between attempts: backoff shape, cap, minimum, jitter, sleep budget, notifications.
    Delays,
    /// Attempt timeouts, deadlines, elapsed-time limits, cancellation and their tie rules.
    Timing,
    /// Rate-limited answers and their retry-after.
    RateLimit,
    /// The circuit breaker.
    Circuit,
    /// The retry budget.
    Budget,
    /// The bulkhead: a limit on calls in flight, with a bounded queue or immediate rejection.
    Bulkhead,
    /// The token-bucket rate limiter on dispatches.
    Limiter,
    /// Hedged requests: extra attempts after a delay, losers cancelled.
    Hedging,
    /// The monotonic and wall clocks: jumps and failed reads.
    Clocks,
    /// What holds for every subject whatever it promises (no panic, termination, determinism).
    Meta,
}

impl Mechanism {
    /// Every mechanism, in listing order.
    pub const ALL: [Mechanism; 11] = [
        Mechanism::Retry,
        Mechanism::Delays,
        Mechanism::Timing,
        Mechanism::RateLimit,
        Mechanism::Circuit,
        Mechanism::Budget,
        Mechanism::Bulkhead,
        Mechanism::Limiter,
        Mechanism::Hedging,
        Mechanism::Clocks,
        Mechanism::Meta,
    ];

    /// The name listings print as a group header.
    pub const fn name(self) -> &'static str {
        match self {
            Mechanism::Retry => "retry",
            Mechanism::Delays => "delays/backoff",
            Mechanism::Timing => "timing",
            Mechanism::RateLimit => "rate/retry-after",
            Mechanism::Circuit => "circuit",
            Mechanism::Budget => "budget",
            Mechanism::Bulkhead => "bulkhead",
            Mechanism::Limiter => "limiter",
            Mechanism::Hedging => "hedging",
            Mechanism::Clocks => "clocks",
            Mechanism::Meta => "meta",
        }
    }
}

impl std::fmt::Display for Mechanism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

use Mechanism::{Budget, Bulkhead, Circuit, Clocks, Delays, Hedging, Limiter, Meta, RateLimit, Retry, Timing};

/// Each standard law's mechanism, in catalogue order ([`ids::ALL`]).
pub static LAW_MECHANISMS: [(&str, Mechanism); 58] = [
    (ids::ATTEMPTS_WITHIN_MAX, Retry),
    (ids::DELAY_WITHIN_CAP, Delays),
    (ids::DELAY_AT_LEAST_MIN, Delays),
    (ids::BACKOFF_SHAPE_WITHOUT_JITTER, Delays),
    (ids::JITTER_WITHIN_BOUNDS, Delays),
    (ids::NO_SLEEP_AFTER_FINAL_ATTEMPT, Retry),
    (ids::SUCCESS_ENDS_CALL, Retry),
    (ids::FATAL_NOT_RETRIED, Retry),
    (ids::TIMEOUT_TRANSLATED_TO_ERR, Timing),
    (ids::TIMEOUT_BOUNDARY_IS_EXPIRED, Timing),
    (ids::DEADLINE_RESPECTED, Timing),
    (ids::TOTAL_SLEEP_WITHIN_BUDGET, Delays),
    (ids::RETRY_AFTER_HONORED, RateLimit),
    (ids::RESULT_MATCHES_LAST_ATTEMPT, Retry),
    (ids::EVENTUALLY_SUCCEEDS, Retry),
    (ids::EXHAUSTED_RETRIES_RETURN_ERR, Retry),
    (ids::CLOCK_MONOTONIC, Clocks),
    (ids::DETERMINISTIC_REPLAY, Meta),
    (ids::NEVER_PANICS, Meta),
    (ids::TERMINATES, Meta),
    (ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, Circuit),
    (ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN, Circuit),
    (ids::HALF_OPEN_PROBE_LIMIT, Circuit),
    (ids::RETRY_BUDGET_RESPECTED, Budget),
    (ids::NON_IDEMPOTENT_NOT_RETRIED, Retry),
    (ids::CANCELLATION_STOPS_WORK, Timing),
    (ids::TIMEOUT_DOES_NOT_END_STREAM, Timing),
    (ids::NOTIFY_MATCHES_SLEEP, Delays),
    (ids::WALL_JUMP_KEEPS_MONOTONIC_LIMITS, Clocks),
    (ids::WALL_JUMP_BACK_NO_PANIC, Clocks),
    (ids::FAILED_READ_HANDLED_AS_DECLARED, Clocks),
    (ids::CIRCUIT_CLOSED_ADMITS, Circuit),
    (ids::CIRCUIT_CLOSES_AFTER_PROBES, Circuit),
    (ids::CIRCUIT_PROBE_SLOT_FREED, Circuit),
    (ids::RETRY_BUDGET_ADMITS_WITH_ROOM, Budget),
    (ids::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY, Timing),
    (ids::RATE_LIMITED_RETRIED_BELOW_CAP, RateLimit),
    (ids::NO_UNDECLARED_REJECTION, Meta),
    (ids::NO_RETRY_AFTER_ELAPSED_LIMIT, Timing),
    (ids::RETRY_AFTER_AS_DECLARED, RateLimit),
    (ids::CIRCUIT_OPEN_PERIOD_AS_DECLARED, Circuit),
    (ids::INTERRUPT_TIE_AS_DECLARED, Timing),
    (ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, Bulkhead),
    (ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH, Bulkhead),
    (ids::BULKHEAD_ADMITS_BELOW_LIMIT, Bulkhead),
    (ids::BULKHEAD_QUEUE_FIRST_COME, Bulkhead),
    (ids::LIMITER_WITHIN_RATE, Limiter),
    (ids::LIMITER_ADMITS_WITH_TOKENS, Limiter),
    (ids::HEDGES_WITHIN_LIMIT_AND_DELAY, Hedging),
    (ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, Hedging),
    (ids::CANCELLATION_LEAVES_NOTHING_RUNNING, Timing),
    (ids::ORDERED_RESULTS_IN_INPUT_ORDER, Timing),
    (ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, Circuit),
    (ids::DEADLINE_DOES_NOT_STOP_EARLY, Timing),
    (ids::TIMEOUT_DOES_NOT_FIRE_EARLY, Timing),
    (ids::TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY, Timing),
    (ids::USES_WORLD_AS_DOCUMENTED, Meta),
    (ids::ACCEPTS_DESCRIBED_CONFIGS, Meta),
];

/// Each field of [`timelaw_core::Contract`] as its path in the grouped JSON form (`retry.max_attempts`),
/// with its mechanism, in declaration order. `circuit` and `budget` stand for the mechanism's declaration
/// (absent, unstated, or its parameters); their refinements follow as `circuit.policy` and so on.
/// `timing.clocks` is the one field whose mechanism is not its group's. `bulkhead`, `limiter` and `hedge`
/// stand for their declarations like `circuit`, with `bulkhead.first_come` and `limiter.window` after them.
pub static CONTRACT_FIELDS: [(&str, Mechanism); 45] = [
    ("retry.max_attempts", Retry),
    ("retry.retry_on", Retry),
    ("retry.reports_last_result", Retry),
    ("retry.respects_idempotency", Retry),
    ("delays.min", Delays),
    ("delays.max", Delays),
    ("delays.backoff", Delays),
    ("delays.jitter", Delays),
    ("delays.jitter_clipped_at_cap", Delays),
    ("delays.tolerance", Delays),
    ("delays.tolerance_ppb", Delays),
    ("delays.sleep_budget", Delays),
    ("delays.notifies", Delays),
    ("timing.attempt_timeout", Timing),
    ("timing.timeout_tie", Timing),
    ("timing.deadline", Timing),
    ("timing.deadline_tie", Timing),
    ("timing.retry_elapsed_max", Timing),
    ("timing.retry_elapsed_bound", Timing),
    ("timing.limit_unstated", Timing),
    ("timing.honors_cancellation", Timing),
    ("timing.interrupt_tie", Timing),
    ("timing.timer_granularity", Timing),
    ("timing.serves_stream", Timing),
    ("timing.ordered_results", Timing),
    ("timing.clocks", Clocks),
    ("rate.honors_retry_after", RateLimit),
    ("rate.retry_after", RateLimit),
    ("circuit", Circuit),
    ("circuit.policy", Circuit),
    ("circuit.open_shape", Circuit),
    ("circuit.cooldown_tie", Circuit),
    ("circuit.counts_cancellation", Circuit),
    ("circuit.probe_settle", Circuit),
    ("circuit.closes_after", Circuit),
    ("circuit.late_results", Circuit),
    ("circuit.half_open_entry", Circuit),
    ("budget", Budget),
    ("budget.window", Budget),
    ("budget.admits", Budget),
    ("bulkhead", Bulkhead),
    ("bulkhead.first_come", Bulkhead),
    ("limiter", Limiter),
    ("limiter.window", Limiter),
    ("hedge", Hedging),
];

/// The mechanism of the standard law `id`; `None` for a law outside the standard catalogue.
///
/// ```
/// use timelaw_laws::catalogue::{mechanism_of, Mechanism};
/// assert_eq!(mechanism_of("half_open_probe_limit"), Some(Mechanism::Circuit));
/// assert_eq!(mechanism_of("my_own_law"), None);
/// ```
pub fn mechanism_of(id: &str) -> Option<Mechanism> {
    LAW_MECHANISMS.iter().find(|(law, _)| *law == id).map(|(_, mechanism)| *mechanism)
}

/// The mechanism of the contract field at `path` (`retry.max_attempts`, see [`CONTRACT_FIELDS`]); `None`
/// for a path that is no field.
pub fn field_mechanism(path: &str) -> Option<Mechanism> {
    CONTRACT_FIELDS.iter().find(|(field, _)| *field == path).map(|(_, mechanism)| *mechanism)
}
