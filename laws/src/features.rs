//! What happened in a case, in one word: [`Features`], a set of facts about a trace and its schedule
//! (a sleep was requested, an attempt ended rate-limited, a call was scripted to be cancelled, ...),
//! gathered in one pass over the events.
//!
//! A catalogue gathers them once per case and, for a standard law whose verdict is vacuous whenever none
//! of its facts happened ([`crate::catalogue::vacuous_without`]), gives that verdict without walking the
//! trace again. Each fact is classified by the same helpers the laws use ([`crate::catalogue::support`]).
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

    /// The facts one event shows.
    fn of_event(event: &Event) -> Features {
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
            facts = facts.union(Features::FAILED_ATTEMPT);
        }
        let timeout = Some(CallResult::Err(ErrorKind::Timeout));
        if attempt_result(kind) == timeout || end_of(event) == timeout {
            facts = facts.union(Features::TIMEOUT_RESULT);
        }
        facts
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
    use timelaw_core::VInstant;

    use super::*;

    #[test]
    fn a_hung_attempt_is_a_timeout_result_and_a_failure() {
        let kind = EventKind::AttemptEnd { outcome: Outcome::Hang };
        let hung = Features::of_event(&Event { seq: 0, at: VInstant::EPOCH, call: 0, attempt: 1, kind });
        assert!(hung.intersects(Features::TIMEOUT_RESULT));
        assert!(hung.intersects(Features::FAILED_ATTEMPT));
        assert!(!hung.intersects(Features::TIMED_OUT));
    }
}
