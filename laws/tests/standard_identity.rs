//! A standard law is the same law wherever its `pub const` is named: a catalogue a user builds from the
//! constants, in their own crate, gets every shortcut `Catalogue::standard()` gets (`vacuous_without`), so
//! composing a catalogue never costs time.

use timelaw_laws::catalogue::*;
use timelaw_laws::{Catalogue, Law};

/// Every standard law, named through its constant from outside the crate (as a user's code names it).
fn constants() -> [Law; 58] {
    [
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
    ]
}

#[test]
fn a_law_named_through_its_constant_is_the_standard_law() {
    let standard = Catalogue::standard();
    let constants = constants();
    let ids: std::collections::BTreeSet<&str> = constants.iter().map(|law| law.id).collect();
    assert_eq!(
        (ids.len(), constants.len()),
        (standard.len(), standard.len()),
        "every standard law is listed here once"
    );
    let mut differing = Vec::new();
    for law in constants {
        let from_standard = standard.get(law.id).expect("every constant is a standard law");
        if vacuous_without(&law) != vacuous_without(from_standard) {
            differing.push(law.id);
        }
    }
    assert!(differing.is_empty(), "not recognised as standard laws when named through their constants: {differing:?}");
}
