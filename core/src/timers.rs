//! The subject's timers as its contract states them: the one place `timing.timer_granularity` is read.
//!
//! A timer of the subject's (an attempt timeout, a deadline, the wake-up of a sleep) that is due at
//! `due` fires at some instant of `due..=due + timer_granularity` ([`TimingContract::fires_by`]): never
//! early, at most the granularity late (tokio documents a millisecond). Exact timers have a granularity of
//! zero. What happens when the timer and another event fall on the same instant is a tie rule
//! ([`TieRule`]); [`TimingContract::race`] says which comes first, or that either may.
//!
//! What the subject decides by reading its clock (a breaker's cooldown, a limiter's refill, a deadline
//! checked before an attempt) is exact: only timers fire late. Sleeps are judged as requested, so the
//! delay laws never read the granularity.

use crate::contract::{TieRule, TimingContract};
use crate::time::VInstant;

/// Which of an event and a timer comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerRace {
    /// The event comes first whenever the timer fires.
    EventFirst,
    /// The timer comes first whenever it fires.
    TimerFirst,
    /// Either may come first: the event falls within the timer's granularity.
    Either,
}

impl TimingContract {
    /// The latest instant a timer of the subject's due at `due` may fire: `due + timer_granularity`
    /// (saturating).
    pub fn fires_by(&self, due: VInstant) -> VInstant {
        due.saturating_add(self.timer_granularity)
    }

    /// Which comes first of an event at `at` (an attempt completing, a retry starting) and a timer due at
    /// `due` that fires somewhere in `due..=fires_by(due)`, with `tie` deciding an event at the very
    /// instant the timer fires. With a granularity of zero the answer is never [`TimerRace::Either`].
    pub fn race(&self, at: VInstant, due: VInstant, tie: TieRule) -> TimerRace {
        let latest = self.fires_by(due);
        let event_wins_tie = tie == TieRule::InnerWins;
        if at < due || (at == due && event_wins_tie) {
            return TimerRace::EventFirst;
        }
        if at > latest || (at == latest && !event_wins_tie) {
            return TimerRace::TimerFirst;
        }
        TimerRace::Either
    }

    /// `true` when the subject's timers can tell `a` and `b` apart: they lie further apart than the
    /// granularity (two instants at most the granularity apart may be noticed in either order).
    pub fn tells_apart(&self, a: VInstant, b: VInstant) -> bool {
        a.max(b) > self.fires_by(a.min(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::VDuration;

    fn timing(granularity_ns: u64) -> TimingContract {
        TimingContract { timer_granularity: VDuration::from_nanos(granularity_ns), ..TimingContract::default() }
    }

    #[track_caller]
    fn check(granularity_ns: u64, at_ns: u64, tie: TieRule, expect: TimerRace) {
        let at = VInstant::from_nanos(at_ns);
        assert_eq!(timing(granularity_ns).race(at, VInstant::from_nanos(100), tie), expect);
    }

    #[test]
    fn a_race_against_a_timer_due_at_100ns() {
        use TieRule::*;
        use TimerRace::*;
        check(0, 99, Expired, EventFirst);
        check(0, 100, Expired, TimerFirst);
        check(0, 100, InnerWins, EventFirst);
        check(0, 101, InnerWins, TimerFirst);
        check(10, 100, Expired, Either);
        check(10, 100, InnerWins, EventFirst);
        check(10, 105, Expired, Either);
        check(10, 110, Expired, TimerFirst);
        check(10, 110, InnerWins, Either);
        check(10, 111, InnerWins, TimerFirst);
    }

    #[test]
    fn instants_within_the_granularity_are_not_told_apart() {
        let at = VInstant::from_nanos;
        assert!(timing(0).tells_apart(at(5), at(6)) && !timing(0).tells_apart(at(5), at(5)));
        assert!(!timing(10).tells_apart(at(5), at(15)) && timing(10).tells_apart(at(16), at(5)));
        assert_eq!(timing(10).fires_by(VInstant::END), VInstant::END);
    }
}
