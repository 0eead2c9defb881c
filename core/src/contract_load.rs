//! The contract's mechanisms that only act under load (overlapping calls): a bulkhead, a token-bucket rate
//! limiter and hedged requests. Each is a [`Declared`](crate::Declared) group of [`Contract`](crate::Contract),
//! absent by default and left out of the JSON form when absent, so contracts written before they existed
//! read and write unchanged.
//!
//! The laws judge these definitions on the trace (each [`Event`](crate::Event) names its call):
//! - a call is *in flight* from its first [`AttemptStart`](crate::EventKind::AttemptStart) to its
//!   [`CallEnd`](crate::EventKind::CallEnd); a call waiting in the bulkhead's queue
//!   ([`Queued`](crate::EventKind::Queued), until its next event) or refused before dispatch is not;
//! - a *dispatch* is an [`AttemptStart`](crate::EventKind::AttemptStart) (every attempt sent downstream,
//!   hedges and retries included);
//! - a *hedge* is an attempt that starts while another attempt of the same call is still running.

use serde::{Deserialize, Serialize};

use crate::time::VDuration;

/// A bulkhead: "at most `max_in_flight` calls run at once; up to `queue_max` more wait for a slot, and a
/// call that finds the queue full is rejected" ([`Rejection::BulkheadFull`](crate::Rejection::BulkheadFull)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkheadContract {
    /// "At most `max_in_flight` calls run at once": calls in flight (first dispatch to return) never
    /// exceed this.
    pub max_in_flight: u32,
    /// "Up to `queue_max` calls wait for a slot": calls waiting in the queue never exceed this; 0 rejects a
    /// call at once when every slot is taken. A call is rejected only when every slot and the queue are full.
    #[serde(default)]
    pub queue_max: u32,
}

/// A token-bucket rate limiter: "allows bursts of `burst` and one more dispatch every `refill_every`".
///
/// The bucket holds at most `burst` tokens and starts full at the start of the case; it gains one token at
/// every whole multiple of `refill_every` after the start (instants `r`, `2r`, ...) while below `burst`;
/// every dispatch takes one token. So for every two dispatch instants `a <= b` the law judges:
/// dispatches in `[a, b]` <= `burst` + the refill instants in `(a, b]`. A limiter that refills continuously
/// (GCRA, `governor`) keeps this bound too, whenever it was created. A limiter that finds the bucket empty
/// rejects ([`Rejection::LimiterEmpty`](crate::Rejection::LimiterEmpty)) or makes the call wait; it never
/// rejects with a token left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimiterContract {
    /// "Bursts of up to `burst`": the bucket's size and its content at the start.
    pub burst: u32,
    /// "One more every `refill_every`": the time one token takes to refill (zero: no rate limit).
    pub refill_every: VDuration,
}

impl LimiterContract {
    /// The refill instants in `(from_ns, to_ns]` (nanoseconds since the case start): `to / r - from / r`,
    /// the number of whole multiples of `refill_every` in the interval; `u64::MAX` (no bound) for a zero
    /// `refill_every`.
    pub fn refills_between(self, from_ns: u64, to_ns: u64) -> u64 {
        let every = self.refill_every.as_nanos();
        if every == 0 {
            return u64::MAX;
        }
        (to_ns / every).saturating_sub(from_ns / every)
    }
}

/// Hedged requests: "if an attempt has no result after `delay`, a second one is sent, up to `max_hedges`
/// extra attempts; the first result wins and the others are cancelled".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HedgeContract {
    /// "Sends a hedge after `delay`": a hedge starts no earlier than `delay` after the latest attempt start
    /// of its call before it.
    pub delay: VDuration,
    /// "Up to `max_hedges` extra attempts": a call starts at most this many hedges.
    pub max_hedges: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(refill_every_ns: u64, from_ns: u64, to_ns: u64, expect: u64) {
        let limiter = LimiterContract { burst: 1, refill_every: VDuration::from_nanos(refill_every_ns) };
        assert_eq!(limiter.refills_between(from_ns, to_ns), expect);
    }

    #[test]
    fn refills_count_the_multiples_in_the_half_open_interval() {
        check(10, 0, 0, 0);
        check(10, 0, 9, 0);
        check(10, 0, 10, 1);
        check(10, 9, 11, 1);
        check(10, 10, 19, 0);
        check(10, 10, 30, 2);
        check(10, 11, 30, 2);
        check(0, 0, 5, u64::MAX);
    }
}
