//! The vocabulary of the richer promises a [`Contract`](crate::Contract) can state: retry-after policy,
//! circuit-breaker policies and open-duration shapes, tie rules between limits, and which mechanisms a
//! subject has without stating their parameters.
//!
//! Every type has a default that means what a contract meant before it could say more, so a contract that
//! leaves these fields out promises exactly what it promised before.

use serde::{Deserialize, Serialize};

use crate::promise::{self, Promised};
use crate::time::VDuration;
use crate::wide::Round;

/// How a retry-after interacts with the backoff delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum RetryAfterCombine {
    /// "Waits the longer of the backoff delay and the retry-after": the delay is `max(backoff, retry_after)`.
    #[default]
    MaxWithBackoff,
    /// "Sleeps for the retry-after instead of the backoff": the delay is exactly the retry-after (and the
    /// backoff sequence does not advance).
    ReplacesBackoff,
    /// "The retry-after is not read": the delay is the backoff delay whatever the answer said.
    Ignored,
}

/// What a subject does with a retry-after above its delay cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum AboveCap {
    /// "Gives up when the server asks for longer than the cap": no retry follows.
    #[default]
    GiveUp,
    /// "Waits at most the cap": the retry follows after exactly the cap.
    Clamp,
    /// "Honours the retry-after even above the cap": the retry follows after the retry-after.
    SleepAnyway,
}

/// The retry-after promise: how it combines with the backoff and what happens above the cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryAfterPolicy {
    /// How a retry-after at or below the cap combines with the backoff.
    pub combine: RetryAfterCombine,
    /// What happens above the cap (ignored with [`RetryAfterCombine::Ignored`]).
    pub above_cap: AboveCap,
}

/// When a circuit breaker opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum CircuitPolicy {
    /// "Opens when the failure rate of the last `window` calls reaches `failure_percent`, once
    /// `min_calls` calls were recorded": the [`CircuitContract`](crate::CircuitContract) count window.
    #[default]
    CountWindow,
    /// "Opens after `threshold` consecutive failures": a success resets the count.
    ConsecutiveFailures {
        /// Consecutive failures that open the breaker (at least 1).
        threshold: u32,
    },
    /// "Opens when the failure rate of the calls that ended in the last `window` reaches
    /// `failure_percent`, once `min_calls` calls were recorded": a sliding time window (results older than
    /// `window` at the moment a call ends are forgotten).
    TimeWindow {
        /// How far back results count.
        window: VDuration,
    },
}

/// How long a breaker stays open, by how many times it opened since it last closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum OpenShape {
    /// "Stays open for `open_for`": every open period lasts `open_for`.
    #[default]
    Constant,
    /// "The open period doubles (by `factor_milli / 1000`) each time a probe fails, up to `max`": open
    /// period `n` (from 1, counted since the breaker last closed) lasts
    /// `min(max, open_for * factor^(n - 1))`.
    Exponential {
        /// The growth factor in thousandths (2.0 is 2000).
        factor_milli: u64,
        /// The longest open period.
        max: VDuration,
    },
}

impl OpenShape {
    /// The length of open period `n` (from 1) for a breaker whose first open period is `open_for`, rounded
    /// up to a whole nanosecond and saturated.
    pub fn period(self, open_for: VDuration, n: u32) -> VDuration {
        match self {
            OpenShape::Constant => open_for,
            OpenShape::Exponential { factor_milli, max } => {
                let steps = u64::from(n.saturating_sub(1).min(256));
                let exact: Promised = if factor_milli % 1000 == 0 {
                    promise::integer_power(u128::from(open_for.as_nanos()), u128::from(factor_milli / 1000), steps)
                } else {
                    let mut value = u128::from(open_for.as_nanos());
                    for _ in 0..steps {
                        value = promise::scale_milli(value, factor_milli, Round::Up);
                        if value >= u128::from(max.as_nanos()) {
                            break;
                        }
                    }
                    Promised::between(value, value)
                };
                let nanos = u64::try_from(exact.high_nanos()).unwrap_or(u64::MAX);
                VDuration::from_nanos(nanos).min(max)
            }
        }
    }
}

/// Whether an open breaker admits a call that starts exactly when its open period ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum CooldownTie {
    /// "After `open_for` has passed, the next call is let through": a call at exactly the end is admitted
    /// (the reference interpreter's rule).
    #[default]
    AdmitsAtEnd,
    /// "Rejects calls until the open period is over": a call at exactly the end is still rejected; only a
    /// call strictly after it is admitted.
    AdmitsAfterEnd,
}

/// How the results of concurrent half-open probes settle the breaker's next state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum ProbeSettle {
    /// "A failed probe reopens the breaker": one failed probe result reopens it, even when a concurrent
    /// probe's success lands at the same instant (before or after it in the trace); it closes only when
    /// enough probes (`closes_after`, by default `half_open_probes`) succeeded and no probe failed at or before
    /// that instant.
    #[default]
    FailureReopens,
    /// "Probe results settle in the order they land": the results take effect in trace order, so a success
    /// that completes the count closes the breaker, and a probe failure recorded after it (a result of the
    /// half-open state that is over) changes nothing.
    ResultOrder,
}

/// Which state a call's result counts in when it lands after the breaker moved on from the state that
/// admitted the call (a call admitted while closed that returns once the breaker opened and half-opened).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum LateResults {
    /// "A result counts in the state that admitted its call": a result landing in a later state is
    /// dropped (half-open closes only on its own probes' successes). The reference's default.
    #[default]
    AdmittedState,
    /// "Results are recorded in the state the breaker is in when they land" (breakers that record every
    /// result at the call's end, whatever state admitted it): a late success counts toward closing a
    /// half-open breaker, a late failure reopens it, and an open breaker ignores results. A late
    /// cancellation that is not counted as a failure frees no probe slot (the call was no probe).
    LandingState,
}

/// When an open breaker turns half-open: when the next call asks (lazily), or as soon as its open period
/// ends (on time). The two differ only for a result that lands after the period ended and before a call
/// asked, and only where such a result counts ([`LateResults::LandingState`]): on time, it is recorded in
/// half-open (a success counts toward closing, a failure reopens); lazily, the breaker is still open and
/// ignores it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum HalfOpenEntry {
    /// "After the open period, the next call is let through as a probe": the breaker turns half-open
    /// when a call asks for admission. The reference's default.
    #[default]
    OnRequest,
    /// "After `open_for` the breaker is half-open": it turns half-open when the period ends (by the
    /// cooldown tie), whatever asks first, a late result included.
    OnTime,
}

/// Whether an instant exactly at a limit is within it: "a retry may start at X" (inclusive) or "it stops
/// once the elapsed time reaches X" (exclusive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum LimitBound {
    /// The limit itself is within it (the reference's rule for `retry_elapsed_max`).
    #[default]
    Inclusive,
    /// Only instants before the limit are within it.
    Exclusive,
}

impl LimitBound {
    /// The bound as the tie rule of an event at the limit and the limit's timer: an event exactly at an
    /// inclusive limit comes first (`InnerWins`), at an exclusive one the limit does (`Expired`).
    pub const fn tie(self) -> crate::contract::TieRule {
        match self {
            LimitBound::Inclusive => crate::contract::TieRule::InnerWins,
            LimitBound::Exclusive => crate::contract::TieRule::Expired,
        }
    }
}

/// Which interruption a call reports when its deadline and the caller's cancellation fall on the same
/// instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum InterruptTie {
    /// "The deadline is checked before cancellation": the call returns `Err(DeadlineExceeded)`.
    DeadlineFirst,
    /// "Cancellation is checked before the deadline": the call returns `Err(Cancelled)`.
    CancellationFirst,
}

/// Mechanisms a subject has whose parameters its documentation does not state. "Unknown" is not
/// "absent": a law that needs the parameters is not applicable, and neither is a liveness law that
/// assumes the mechanism is absent (a breaker nobody described may refuse calls).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unstated {
    /// "It has a circuit breaker" (with no stated window, threshold or open period).
    #[serde(default)]
    pub circuit: bool,
    /// "It has a retry budget" (with no stated size).
    #[serde(default)]
    pub retry_budget: bool,
    /// "It stops retrying after some time" (an elapsed-time limit or deadline of unstated length).
    #[serde(default)]
    pub time_limit: bool,
}

impl Unstated {
    /// `true` when any mechanism is unstated.
    pub const fn any(self) -> bool {
        self.circuit || self.retry_budget || self.time_limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_periods_follow_their_shape() {
        let ms = VDuration::from_millis;
        let doubling = OpenShape::Exponential { factor_milli: 2000, max: ms(50) };
        assert_eq!([1, 2, 3, 4, 5].map(|n| doubling.period(ms(10), n)), [10, 20, 40, 50, 50].map(ms));
        let half_again = OpenShape::Exponential { factor_milli: 1500, max: VDuration::MAX };
        assert_eq!(half_again.period(ms(10), 3), VDuration::from_nanos(22_500_000));
        assert_eq!(OpenShape::Constant.period(ms(10), 9), ms(10));
        let huge = OpenShape::Exponential { factor_milli: 3000, max: VDuration::MAX };
        assert_eq!(huge.period(ms(10), u32::MAX), VDuration::MAX);
    }
}
