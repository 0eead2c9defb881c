//! The walk every delay law shares over the sleeps of a call: where each sleep stands
//! ([`SleepAt`]: which backoff delay it is, the last backoff delay, a pending retry-after) and its range,
//! from the one function that computes it ([`Contract::sleep_range`]). No law re-derives a sleep's range.

use timelaw_core::{Contract, Event, EventKind, Outcome, SleepAt, SleepRange, VDuration};

/// Per-call state of the delay laws (reset at every `CallStart`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SleepWalk {
    /// Every sleep of the call so far (for messages: "sleep 3 of the call").
    pub(crate) sleeps: u32,
    /// The backoff delays of the call so far: a sleep a retry-after replaced is not one.
    backoff_sleeps: u32,
    /// The last backoff delay slept.
    previous: Option<VDuration>,
    /// The retry-after of the attempt that just ended.
    retry_after: Option<VDuration>,
}

impl SleepWalk {
    /// Where a sleep requested now would stand.
    pub(crate) fn next(&self) -> SleepAt {
        SleepAt {
            backoff_index: self.backoff_sleeps.saturating_add(1),
            previous: self.previous,
            retry_after: self.retry_after,
        }
    }

    /// Observes one event of the trace; for a sleep, returns its duration and its range and counts it.
    pub(crate) fn observe(&mut self, contract: &Contract, event: &Event) -> Option<(VDuration, SleepRange)> {
        self.observe_with(event, |at| contract.sleep_range(at))
    }

    /// [`SleepWalk::observe`] with the range of a sleep standing at a [`SleepAt`] given by `range_of`
    /// (called only for a sleep): a walk that has the ranges already ([`sleeps_of`]) reads them.
    pub(crate) fn observe_with(
        &mut self,
        event: &Event,
        range_of: impl FnOnce(SleepAt) -> SleepRange,
    ) -> Option<(VDuration, SleepRange)> {
        match event.kind {
            EventKind::CallStart { .. } => *self = SleepWalk::default(),
            EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after } } => {
                self.retry_after = Some(retry_after)
            }
            // An attempt cancelled after the rate-limited one ended (a hedge's loser, cancelled because
            // that answer decided the try) leaves the retry-after in force; every other cancelled attempt
            // started after it, which cleared it already.
            EventKind::AttemptStart | EventKind::AttemptEnd { .. } | EventKind::AttemptTimedOut { .. } => {
                self.retry_after = None
            }
            EventKind::SleepRequested { duration } => {
                let range = range_of(self.next());
                self.sleeps = self.sleeps.saturating_add(1);
                if !range.replaces_backoff {
                    self.backoff_sleeps = self.backoff_sleeps.saturating_add(1);
                    self.previous = Some(duration);
                }
                return Some((duration, range));
            }
            _ => {}
        }
        None
    }
}

/// One sleep of a trace as the delay laws judge it: where it is, what it asked for, its range, and which
/// sleep of its call it is (from 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slept {
    /// The sequence number of its `SleepRequested`.
    pub(crate) seq: u32,
    /// What the subject asked to sleep.
    pub(crate) duration: VDuration,
    /// Its range ([`Contract::sleep_range`]).
    pub(crate) range: SleepRange,
    /// Which sleep of its call it is, from 1.
    pub(crate) nth: u32,
}

/// Appends every sleep of `events` (calls contiguous) to `out`, walked by [`SleepWalk`].
pub(crate) fn sleeps_of(contract: &Contract, events: &[Event], out: &mut Vec<Slept>) {
    let mut walk = SleepWalk::default();
    for event in events {
        if let Some((duration, range)) = walk.observe(contract, event) {
            out.push(Slept { seq: event.seq, duration, range, nth: walk.sleeps });
        }
    }
}
