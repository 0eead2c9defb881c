//! Which standard laws are vacuous on a case where none of a few facts happened ([`Features`]), so a
//! catalogue gives them their verdict without walking the trace: the shared per-case index of "what
//! happened at all". Most cases never sleep, never meet a rate limit, cancel nothing; the laws about
//! those things used to walk every event of such a case to find nothing.
//!
//! Each entry is a claim about the law's check, stated beside it: every event on which the check can
//! pass or fail shows one of the facts. Two things hold each claim to its check:
//! - in debug builds (every test), a catalogue that cuts a law also runs its check and asserts the check
//!   says vacuous ([`crate::Catalogue::judge_each`]);
//! - `tests/suite/vacuity.rs` (the facade's suite) checks every claim against its law's own verdict on
//!   random cases of every distribution the runner draws, requires each law to be judged non-vacuously
//!   there, and catches deliberately wrong claims.
//!
//! The cut applies only after the law's `applies` (a law that does not apply stays not applicable) and
//! only to the standard law itself: a user's law with the same id and another check is always walked.

use crate::features::Features;
use crate::ids;
use crate::law::Law;

/// Per standard law, the facts without which its verdict is vacuous.
static VACUOUS_WITHOUT: [(&str, Features); 22] = [
    // Each law judges each sleep, and only sleeps (`each_sleep`, a budget sum).
    (ids::DELAY_WITHIN_CAP, Features::SLEEP),
    (ids::DELAY_AT_LEAST_MIN, Features::SLEEP),
    (ids::BACKOFF_SHAPE_WITHOUT_JITTER, Features::SLEEP),
    (ids::JITTER_WITHIN_BOUNDS, Features::SLEEP),
    (ids::TOTAL_SLEEP_WITHIN_BUDGET, Features::SLEEP),
    // Passes on a notification, fails on a sleep, or on an attempt or end after a notification.
    (ids::NOTIFY_MATCHES_SLEEP, Features::SLEEP.union(Features::NOTIFY)),
    // Judges only after a rate-limited attempt (a replaced delay follows one too).
    (ids::RETRY_AFTER_AS_DECLARED, Features::ENDED_RATE_LIMITED),
    (ids::RETRY_AFTER_HONORED, Features::ENDED_RATE_LIMITED),
    // Holds on a retried rate-limited attempt, fails on a call whose last attempt was rate-limited.
    (ids::RATE_LIMITED_RETRIED_BELOW_CAP, Features::ENDED_RATE_LIMITED),
    // Hold on a retried failure, fail on a call whose last attempt failed.
    (ids::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY, Features::FAILED_ATTEMPT),
    (ids::TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY, Features::FAILED_ATTEMPT),
    // Judges a call's end only when its last attempt failed.
    (ids::EXHAUSTED_RETRIES_RETURN_ERR, Features::FAILED_ATTEMPT),
    // Passes on a success, fails only after one.
    (ids::SUCCESS_ENDS_CALL, Features::ENDED_OK),
    // A window opens at a fatal outcome.
    (ids::FATAL_NOT_RETRIED, Features::ENDED_FATAL),
    // Judges only the calls that started non-idempotent.
    (ids::NON_IDEMPOTENT_NOT_RETRIED, Features::NON_IDEMPOTENT_CALL),
    // Judge only calls the schedule cancels.
    (ids::CANCELLATION_STOPS_WORK, Features::CANCEL_SCRIPTED),
    (ids::CANCELLATION_LEAVES_NOTHING_RUNNING, Features::CANCEL_SCRIPTED),
    // Judges a call's end only after a timed-out attempt.
    (ids::TIMEOUT_TRANSLATED_TO_ERR, Features::TIMED_OUT),
    // Judges each timed-out attempt.
    (ids::TIMEOUT_DOES_NOT_FIRE_EARLY, Features::TIMED_OUT),
    // Judges the call after one whose last attempt or result was a timeout.
    (ids::TIMEOUT_DOES_NOT_END_STREAM, Features::TIMEOUT_RESULT),
    // Judges the calls that returned `DeadlineExceeded`.
    (ids::DEADLINE_DOES_NOT_STOP_EARLY, Features::DEADLINE_RESULT),
    // Judges each rejection and each refusal returned.
    (ids::NO_UNDECLARED_REJECTION, Features::REJECTED.union(Features::REFUSED_RESULT)),
];

/// The facts without which `law`'s verdict is vacuous ([`Features::EMPTY`]: none, the law is always
/// walked). Only a standard law (its id, `applies` and `check` those of the [`super::STANDARD`] law) has
/// such facts; a user's own law has none. A standard law named through its `pub const` in any crate is
/// that law: every `applies`, and every `check` written as a closure, is a function of its own, never
/// inlined, with one address (`crate::law::applies!`; `laws/tests/standard_identity.rs`).
pub fn vacuous_without(law: &Law) -> Features {
    let Some(standard) = super::STANDARD.iter().find(|standard| standard.id == law.id) else {
        return Features::EMPTY;
    };
    let same = std::ptr::fn_addr_eq(standard.check, law.check) && std::ptr::fn_addr_eq(standard.applies, law.applies);
    let entry = VACUOUS_WITHOUT.iter().find(|(id, _)| *id == law.id);
    entry.filter(|_| same).map_or(Features::EMPTY, |&(_, facts)| facts)
}
