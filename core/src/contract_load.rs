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
//! - a *hedge* is an attempt that starts while another attempt of the same call is still running;
//! - a call *joins the queue* at its [`Queued`](crate::EventKind::Queued) and *leaves it for a slot* at its
//!   next action when that is not its [`CallEnd`](crate::EventKind::CallEnd) (a call whose next action is
//!   its return gave up waiting).

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
    /// "Waiting calls are served first come, first served" (a fair semaphore, like tokio's): a call that
    /// joined the queue before another, or waited when another arrived, takes its slot first. `false`: the
    /// docs do not state the order (nothing is judged about it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_come: bool,
}

impl BulkheadContract {
    /// A bulkhead of `max_in_flight` slots and `queue_max` queue places, its queue order unstated.
    pub const fn new(max_in_flight: u32, queue_max: u32) -> BulkheadContract {
        BulkheadContract { max_in_flight, queue_max, first_come: false }
    }
}

/// A rate limiter: a token bucket ("allows bursts of `burst` and one more dispatch every `refill_every`",
/// the default) or a fixed window ("at most `burst` dispatches per `refill_every`"), as
/// [`LimiterContract::window`] says.
///
/// As a token bucket, the bucket holds at most `burst` tokens and starts full at the start of the case; it gains one token at
/// every whole multiple of `refill_every` after the start (instants `r`, `2r`, ...) while below `burst`;
/// every dispatch takes one token. So for every two dispatch instants `a <= b` the law judges:
/// dispatches in `[a, b]` <= `burst` + the refill instants in `(a, b]`. A limiter that refills continuously
/// (GCRA, `governor`) keeps this bound too, whenever it was created. A limiter that finds the bucket empty
/// rejects ([`Rejection::LimiterEmpty`](crate::Rejection::LimiterEmpty)) or makes the call wait; it never
/// rejects with a token left.
///
/// As a fixed window ([`LimiterWindow::Fixed`]), see [`FixedWindow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimiterContract {
    /// "Bursts of up to `burst`": the bucket's size and its content at the start (a fixed window: the
    /// dispatches one window admits).
    pub burst: u32,
    /// "One more every `refill_every`": the time one token takes to refill (a fixed window: its length;
    /// zero: no rate limit).
    pub refill_every: VDuration,
    /// How the limiter counts: a token bucket (the default) or fixed windows.
    #[serde(default, skip_serializing_if = "LimiterWindow::is_token_bucket")]
    pub window: LimiterWindow,
}

/// How a rate limiter counts its dispatches ([`LimiterContract::window`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimiterWindow {
    /// A token bucket refilled one token at every whole multiple of `refill_every` (see
    /// [`LimiterContract`]); a continuously refilled bucket (GCRA) keeps the same bounds.
    #[default]
    TokenBucket,
    /// Fixed windows of `refill_every`, each admitting `burst` dispatches: a window opens at the first
    /// dispatch after the previous one closed (tower's `RateLimit`, a counter that expires `refill_every`
    /// after its first increment), so up to `2 * burst` dispatches may fall within `refill_every` across a
    /// window's end. See [`FixedWindow`].
    Fixed,
}

impl LimiterWindow {
    /// `true` for the default, [`LimiterWindow::TokenBucket`] (serde leaves it out).
    // serde's `skip_serializing_if` passes a reference.
    #[allow(clippy::trivially_copy_pass_by_ref)]
    pub fn is_token_bucket(&self) -> bool {
        *self == LimiterWindow::TokenBucket
    }
}

/// The count of a fixed-window limiter ([`LimiterWindow::Fixed`]) while walking its dispatches in time
/// order: the one definition the reference enforces and the laws judge.
///
/// A window opens at a dispatch when none is open (the first dispatch, or the first at or after the end of
/// the previous window) and lasts `refill_every`: `[opened, opened + refill_every)`. It admits `burst`
/// dispatches; a refusal is right only while the open window has admitted `burst`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixedWindow {
    /// The end of the open window (ns since the case start, exclusive); `None` before the first dispatch.
    end_ns: Option<u128>,
    /// Dispatches in the open window.
    count: u64,
}

impl FixedWindow {
    /// `true` when a window is open at `now_ns` (it closes at its end).
    fn open_at(self, now_ns: u128) -> bool {
        self.end_ns.is_some_and(|end| now_ns < end)
    }

    /// Dispatches the window open at `now_ns` has admitted (0 when none is open).
    pub fn count_at(self, now_ns: u128) -> u64 {
        if self.open_at(now_ns) {
            self.count
        } else {
            0
        }
    }

    /// `true` when a dispatch at `now_ns` fits `limiter`: the window open then has admitted fewer than
    /// `burst` (a window that would open then admits `burst`).
    pub fn has_room(self, limiter: LimiterContract, now_ns: u128) -> bool {
        self.count_at(now_ns) < u64::from(limiter.burst)
    }

    /// Counts a dispatch at `now_ns` (opening a window of `limiter.refill_every` when none is open);
    /// returns the dispatches of its window, this one included.
    pub fn dispatch(&mut self, limiter: LimiterContract, now_ns: u128) -> u64 {
        if !self.open_at(now_ns) {
            self.end_ns = Some(now_ns.saturating_add(u128::from(limiter.refill_every.as_nanos())));
            self.count = 0;
        }
        self.count = self.count.saturating_add(1);
        self.count
    }
}

impl LimiterContract {
    /// A token bucket of `burst` refilled every `refill_every`.
    pub const fn token_bucket(burst: u32, refill_every: VDuration) -> LimiterContract {
        LimiterContract { burst, refill_every, window: LimiterWindow::TokenBucket }
    }

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
        let limiter = LimiterContract::token_bucket(1, VDuration::from_nanos(refill_every_ns));
        assert_eq!(limiter.refills_between(from_ns, to_ns), expect);
    }

    #[test]
    fn a_fixed_window_opens_at_a_dispatch_and_closes_at_its_end() {
        let limiter = LimiterContract {
            window: LimiterWindow::Fixed,
            ..LimiterContract::token_bucket(2, VDuration::from_nanos(10))
        };
        let mut window = FixedWindow::default();
        assert!(window.has_room(limiter, 0));
        assert_eq!(window.dispatch(limiter, 3), 1);
        assert_eq!(window.dispatch(limiter, 12), 2);
        // Full until its end at 13 (3 + 10, exclusive).
        assert!(!window.has_room(limiter, 12));
        assert_eq!(window.count_at(12), 2);
        assert!(window.has_room(limiter, 13));
        assert_eq!(window.count_at(13), 0);
        // The next window opens at the next dispatch, not at 13.
        assert_eq!(window.dispatch(limiter, 20), 1);
        assert_eq!(window.dispatch(limiter, 29), 2);
        assert_eq!(window.dispatch(limiter, 29), 3);
        assert_eq!(window.dispatch(limiter, 30), 1);
        // A window of burst 0 never has room.
        let empty = LimiterContract { burst: 0, ..limiter };
        assert!(!FixedWindow::default().has_room(empty, 0));
    }

    #[test]
    fn the_default_window_is_a_token_bucket_and_is_left_out_of_the_json_form() {
        let bucket = LimiterContract::token_bucket(2, VDuration::from_millis(5));
        let json = serde_json::to_string(&bucket).unwrap();
        assert!(!json.contains("window"), "{json}");
        let fixed = LimiterContract { window: LimiterWindow::Fixed, ..bucket };
        let json = serde_json::to_string(&fixed).unwrap();
        assert!(json.contains(r#""window":"fixed""#), "{json}");
        assert_eq!(serde_json::from_str::<LimiterContract>(&json).unwrap(), fixed);
        let bulkhead = BulkheadContract::new(2, 1);
        assert!(!serde_json::to_string(&bulkhead).unwrap().contains("first_come"));
        let fair = BulkheadContract { first_come: true, ..bulkhead };
        assert_eq!(serde_json::from_str::<BulkheadContract>(&serde_json::to_string(&fair).unwrap()).unwrap(), fair);
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
