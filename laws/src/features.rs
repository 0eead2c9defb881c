//! What happened in a case, in one word: [`Features`], a set of facts about a trace and its schedule
//! (a sleep was requested, an attempt ended rate-limited, a call was scripted to be cancelled, ...),
//! gathered in one pass over the events.
//!
//! A catalogue gathers them once per case and, for a standard law whose verdict is vacuous whenever none
//! of its facts happened ([`crate::catalogue::vacuous_without`]), gives that verdict without walking the
//! trace again. Each fact is classified as the laws classify it ([`crate::catalogue::support`]): a test
//! holds the one match of [`Features::of`] to the laws' helpers on every kind of event.
//!
//! ```
//! use timelaw_core::{CallResult, EventKind, Outcome, Schedule, Trace, VDuration, VInstant};
//! use timelaw_laws::Features;
//!
//! let mut trace = Trace::new();
//! trace.push(VInstant::EPOCH, 0, 0, EventKind::CallStart { idempotent: true });
//! trace.push(VInstant::EPOCH, 0, 1, EventKind::AttemptStart);
//! trace.push(VInstant::EPOCH, 0, 1, EventKind::AttemptEnd { outcome: Outcome::Transient });
//! trace.push(VInstant::EPOCH, 0, 1, EventKind::SleepRequested { duration: VDuration::from_millis(5) });
//! let features = Features::of(&trace, &Schedule::single(vec![]));
//! assert!(features.intersects(Features::SLEEP | Features::NOTIFY));
//! assert!(features.intersects(Features::FAILED_ATTEMPT));
//! assert!(!features.intersects(Features::ENDED_RATE_LIMITED | Features::CANCEL_SCRIPTED));
//! ```

use std::ops::BitOr;

use timelaw_core::{CallResult, ErrorKind, Event, EventKind, Outcome, Schedule, Trace};

#[cfg(test)]
use crate::catalogue::support::{attempt_result, end_of, is_failed_attempt};

/// A set of facts about a case (a bit each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features(u32);

impl Features {
    /// No fact.
    pub const EMPTY: Features = Features(0);
    /// An attempt ended with a failure ([`crate::catalogue::support::is_failed_attempt`]: an error
    /// outcome, a timeout or a cancellation).
    pub const FAILED_ATTEMPT: Features = Features(1);
    /// An attempt ended `Ok`.
    pub const ENDED_OK: Features = Features(1 << 1);
    /// An attempt ended `Fatal`.
    pub const ENDED_FATAL: Features = Features(1 << 2);
    /// An attempt ended `RateLimited`.
    pub const ENDED_RATE_LIMITED: Features = Features(1 << 3);
    /// An attempt was timed out (`AttemptTimedOut`).
    pub const TIMED_OUT: Features = Features(1 << 4);
    /// An attempt's result or a call's result was `Err(Timeout)` (a timed-out or hung attempt, a call
    /// returning a timeout).
    pub const TIMEOUT_RESULT: Features = Features(1 << 5);
    /// A sleep was requested.
    pub const SLEEP: Features = Features(1 << 6);
    /// The subject announced a delay (`Notify`).
    pub const NOTIFY: Features = Features(1 << 7);
    /// The subject refused to dispatch (`Rejected`).
    pub const REJECTED: Features = Features(1 << 8);
    /// A call returned a refusal: `Err(CircuitOpen)`, `Err(BulkheadFull)` or `Err(LimiterEmpty)`.
    pub const REFUSED_RESULT: Features = Features(1 << 9);
    /// A call returned `Err(DeadlineExceeded)`.
    pub const DEADLINE_RESULT: Features = Features(1 << 10);
    /// A call started as non-idempotent.
    pub const NON_IDEMPOTENT_CALL: Features = Features(1 << 11);
    /// The schedule cancels some call (a call script with `cancel_after`).
    pub const CANCEL_SCRIPTED: Features = Features(1 << 12);

    /// The facts of `trace` run on `schedule`, in one pass over the events.
    pub fn of(trace: &Trace, schedule: &Schedule) -> Features {
        let mut bits = 0;
        for event in &trace.events {
            bits |= Features::of_event(event).0;
        }
        if schedule.calls.iter().any(|script| script.cancel_after.is_some()) {
            bits |= Features::CANCEL_SCRIPTED.0;
        }
        Features(bits)
    }

    /// The facts one event shows: one match, which `tests::one_match_agrees_with_the_laws_helpers`
    /// holds to the helpers the laws classify events with
    /// ([`crate::catalogue::support::is_failed_attempt`], [`crate::catalogue::support::attempt_result`],
    /// [`crate::catalogue::support::end_of`]) on every kind of event.
    fn of_event(event: &Event) -> Features {
        use ErrorKind::{BulkheadFull, CircuitOpen, DeadlineExceeded, LimiterEmpty, Timeout};
        let failed = Features::FAILED_ATTEMPT.0;
        Features(match event.kind {
            EventKind::AttemptEnd { outcome: Outcome::Ok } => Features::ENDED_OK.0,
            EventKind::AttemptEnd { outcome: Outcome::Transient } => failed,
            EventKind::AttemptEnd { outcome: Outcome::Fatal } => failed | Features::ENDED_FATAL.0,
            EventKind::AttemptEnd { outcome: Outcome::RateLimited { .. } } => failed | Features::ENDED_RATE_LIMITED.0,
            EventKind::AttemptEnd { outcome: Outcome::Hang } => failed | Features::TIMEOUT_RESULT.0,
            EventKind::AttemptTimedOut { .. } => failed | Features::TIMED_OUT.0 | Features::TIMEOUT_RESULT.0,
            EventKind::AttemptCancelled => failed,
            EventKind::SleepRequested { .. } => Features::SLEEP.0,
            EventKind::Notify { .. } => Features::NOTIFY.0,
            EventKind::Rejected { .. } => Features::REJECTED.0,
            EventKind::CallStart { idempotent: false } => Features::NON_IDEMPOTENT_CALL.0,
            EventKind::CallEnd { result: CallResult::Err(DeadlineExceeded) } => Features::DEADLINE_RESULT.0,
            EventKind::CallEnd { result: CallResult::Err(Timeout) } => Features::TIMEOUT_RESULT.0,
            EventKind::CallEnd { result: CallResult::Err(CircuitOpen | BulkheadFull | LimiterEmpty) } => {
                Features::REFUSED_RESULT.0
            }
            _ => 0,
        })
    }

    /// The facts of both sets.
    pub const fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// `true` when no fact is in the set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `true` when some fact of `other` is in the set.
    pub const fn intersects(self, other: Features) -> bool {
        self.0 & other.0 != 0
    }
}

impl BitOr for Features {
    type Output = Features;
    fn bitor(self, other: Features) -> Features {
        self.union(other)
    }
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CircuitState, ClockKind, Diagnostic, Rejection, VDuration, VInstant};

    use super::*;

    /// The facts of one event, read with the helpers the laws use: the oracle of the one match.
    fn by_the_helpers(event: &Event) -> Features {
        let kind = &event.kind;
        let mut facts = match *kind {
            EventKind::AttemptEnd { outcome: Outcome::Ok } => Features::ENDED_OK,
            EventKind::AttemptEnd { outcome: Outcome::Fatal } => Features::ENDED_FATAL,
            EventKind::AttemptEnd { outcome: Outcome::RateLimited { .. } } => Features::ENDED_RATE_LIMITED,
            EventKind::AttemptTimedOut { .. } => Features::TIMED_OUT,
            EventKind::SleepRequested { .. } => Features::SLEEP,
            EventKind::Notify { .. } => Features::NOTIFY,
            EventKind::Rejected { .. } => Features::REJECTED,
            EventKind::CallStart { idempotent: false } => Features::NON_IDEMPOTENT_CALL,
            EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) } => Features::DEADLINE_RESULT,
            EventKind::CallEnd {
                result: CallResult::Err(ErrorKind::CircuitOpen | ErrorKind::BulkheadFull | ErrorKind::LimiterEmpty),
            } => Features::REFUSED_RESULT,
            _ => Features::EMPTY,
        };
        if is_failed_attempt(kind) {
            facts = facts | Features::FAILED_ATTEMPT;
        }
        let timeout = Some(CallResult::Err(ErrorKind::Timeout));
        if attempt_result(kind) == timeout || end_of(event) == timeout {
            facts = facts | Features::TIMEOUT_RESULT;
        }
        facts
    }

    /// Every kind of event, with every outcome and every result.
    fn every_kind() -> Vec<EventKind> {
        let d = VDuration::from_millis(1);
        let outcomes =
            [Outcome::Ok, Outcome::Transient, Outcome::Fatal, Outcome::RateLimited { retry_after: d }, Outcome::Hang];
        let errors = [
            ErrorKind::Transient,
            ErrorKind::Fatal,
            ErrorKind::RateLimited,
            ErrorKind::Timeout,
            ErrorKind::CircuitOpen,
            ErrorKind::Cancelled,
            ErrorKind::DeadlineExceeded,
            ErrorKind::BulkheadFull,
            ErrorKind::LimiterEmpty,
        ];
        let mut kinds = vec![
            EventKind::CallStart { idempotent: true },
            EventKind::CallStart { idempotent: false },
            EventKind::CallEnd { result: CallResult::Ok },
            EventKind::AttemptStart,
            EventKind::AttemptTimedOut { timeout: d },
            EventKind::AttemptCancelled,
            EventKind::SleepRequested { duration: d },
            EventKind::SleepCancelled,
            EventKind::SleepClamped { to: d },
            EventKind::Rejected { reason: Rejection::CircuitOpen },
            EventKind::Rejected { reason: Rejection::BudgetExhausted },
            EventKind::CircuitTransition { from: CircuitState::Closed, to: CircuitState::Open },
            EventKind::Notify { delay: d },
            EventKind::Panic,
            EventKind::AttemptDropped { ran: d },
            EventKind::ClockReadFailed { clock: ClockKind::Monotonic },
            EventKind::WallJump { by_ns: -1 },
            EventKind::Diagnostic { diagnostic: Diagnostic::TimingMissing { clock: ClockKind::Wall } },
            EventKind::Queued,
        ];
        kinds.extend(outcomes.map(|outcome| EventKind::AttemptEnd { outcome }));
        kinds.extend(errors.map(|error| EventKind::CallEnd { result: CallResult::Err(error) }));
        kinds
    }

    /// Fails to compile when a kind of event is added: add it to [`every_kind`] too.
    fn listed(kind: &EventKind) {
        match kind {
            EventKind::CallStart { .. }
            | EventKind::CallEnd { .. }
            | EventKind::AttemptStart
            | EventKind::AttemptEnd { .. }
            | EventKind::AttemptTimedOut { .. }
            | EventKind::AttemptCancelled
            | EventKind::SleepRequested { .. }
            | EventKind::SleepCancelled
            | EventKind::SleepClamped { .. }
            | EventKind::Rejected { .. }
            | EventKind::CircuitTransition { .. }
            | EventKind::Notify { .. }
            | EventKind::Panic
            | EventKind::AttemptDropped { .. }
            | EventKind::ClockReadFailed { .. }
            | EventKind::WallJump { .. }
            | EventKind::Diagnostic { .. }
            | EventKind::Queued => {}
        }
    }

    #[test]
    fn one_match_agrees_with_the_laws_helpers() {
        for kind in every_kind() {
            listed(&kind);
            let event = Event { seq: 0, at: VInstant::EPOCH, call: 0, attempt: 1, kind };
            assert_eq!(Features::of_event(&event), by_the_helpers(&event), "{kind:?}");
        }
    }

    #[test]
    fn a_hung_attempt_is_a_timeout_result_and_a_failure() {
        let kind = EventKind::AttemptEnd { outcome: Outcome::Hang };
        let hung = Features::of_event(&Event { seq: 0, at: VInstant::EPOCH, call: 0, attempt: 1, kind });
        assert!(hung.intersects(Features::TIMEOUT_RESULT));
        assert!(hung.intersects(Features::FAILED_ATTEMPT));
        assert!(!hung.intersects(Features::TIMED_OUT));
    }
}
