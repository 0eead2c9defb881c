//! The one source of truth for a sleep's range: what a [`Contract`] promises for one sleep of a call,
//! every promise that bears on it applied in one documented order. Every delay law reads it
//! ([`Contract::sleep_range`]), so two laws cannot disagree about the same sleep.
//!
//! # The order
//! For the sleep before backoff retry `n` ([`SleepAt::backoff_index`]):
//! 1. **Backoff shape**: the exact jitter-free delay `n` ([`BackoffShape::promised`]), or, for
//!    decorrelated backoff, its bounds after the previous backoff sleep
//!    ([`BackoffShape::decorrelated_bounds`], already capped). No stated shape: `delays.min..=cap`.
//! 2. **Cap**: `min(base, delays.max)`.
//! 3. **Jitter**: [`JitterBounds::around`] the capped base, clipped at the cap when
//!    `delays.jitter_clipped_at_cap`. This is the backoff range `b`.
//! 4. **Retry-after**: right after a rate-limited attempt ([`SleepAt::retry_after`]), the effective
//!    policy ([`RateContract::policy`]) decides ([`Contract::retry_after_rule`]): `max(b, retry_after)`
//!    for `MaxWithBackoff`, exactly the retry-after for `ReplacesBackoff`, `b` for `Ignored`; above the cap,
//!    no retry for `GiveUp`, exactly the cap for `Clamp`, exactly the retry-after for `SleepAnyway`.
//! 5. **Floor and cap as bounds**: the floor is `delays.min`, the ceiling the cap widened by the jitter the
//!    contract lets exceed it; where the retry-after decided the sleep (step 4 fixed it), they widen to hold
//!    it, so the floor and cap laws accept every sleep the policy promises.
//! 6. **Tolerance**: every range and bound widened by [`Contract::tolerance`].
//!
//! With `ReplacesBackoff` a sleep after a rate-limited attempt is not one of the backoff's: the sequence
//! does not advance ([`SleepRange::replaces_backoff`]), and decorrelated backoff grows from the last
//! backoff sleep, not the replaced one. Whoever walks a call's sleeps keeps that count (the laws'
//! `SleepWalk`).

use crate::contract::{BackoffShape, Contract, JitterBounds, RateContract};
use crate::mechanisms::{AboveCap, RetryAfterCombine, RetryAfterPolicy};
use crate::promise::{Promised, Tolerance};
use crate::time::VDuration;

/// Where a sleep of a call stands: what its range depends on besides the contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SleepAt {
    /// Which backoff delay this sleep is, from 1: the backoff delays of the call slept before it plus one
    /// (a sleep a retry-after replaced is not a backoff delay).
    pub backoff_index: u32,
    /// The last backoff delay the call slept (decorrelated backoff grows from it); `None` before the first.
    pub previous: Option<VDuration>,
    /// The retry-after of the attempt that ended right before this sleep, when it was rate-limited.
    pub retry_after: Option<VDuration>,
}

/// What the retry-after policy makes of one rate-limited answer (step 4 of the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RetryAfterRule {
    /// The retry-after is not read: the backoff decides.
    Backoff,
    /// `max(backoff, retry_after)`: the backoff delay, raised to the retry-after.
    AtLeast(VDuration),
    /// Exactly this delay: the retry-after replacing the backoff, the cap a retry-after above it is
    /// clamped to, or a retry-after slept above the cap.
    Exactly(VDuration),
    /// No retry follows (a retry-after above the cap with `GiveUp`).
    GivesUp,
}

impl RetryAfterRule {
    /// `true` when a retry waits at least `retry_after` by this rule (what `honors_retry_after` judges): not
    /// when the retry-after is ignored or clamped at a cap below it. A policy that gives up owes no retry,
    /// but one that comes anyway still waits.
    pub fn waits_at_least(self, retry_after: VDuration) -> bool {
        match self {
            RetryAfterRule::AtLeast(_) | RetryAfterRule::GivesUp => true,
            RetryAfterRule::Exactly(delay) => delay >= retry_after,
            RetryAfterRule::Backoff => false,
        }
    }
}

/// The promise for one sleep (see the module docs for how it is computed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SleepRange {
    /// The range every correct sleep lies in, before the tolerance; `None` when no retry may follow.
    pub expected: Option<Promised>,
    /// The shortest sleep the floor (`delays.min`) allows, tolerance applied: 0 without a floor.
    pub floor_nanos: u128,
    /// The longest sleep the cap allows, tolerance applied: past [`VDuration::MAX`] without a cap.
    pub ceiling_nanos: u128,
    /// What the retry-after made of this sleep ([`RetryAfterRule::Backoff`] when none was pending).
    pub rule: RetryAfterRule,
    /// The sleep after a rate-limited answer is not a backoff delay (`ReplacesBackoff`).
    pub replaces_backoff: bool,
    /// The contract's tolerance.
    pub tolerance: Tolerance,
}

impl SleepRange {
    /// `true` when no retry may follow this answer.
    pub fn gives_up(&self) -> bool {
        self.expected.is_none()
    }

    /// The expected range widened by the tolerance; `None` when no retry may follow.
    pub fn widened(&self) -> Option<Promised> {
        self.expected.map(|expected| expected.widen(self.tolerance))
    }

    /// Whether a recorded sleep of `duration` keeps the expected range (tolerance included).
    pub fn admits(&self, duration: VDuration) -> bool {
        self.widened().is_some_and(|range| range.admits(duration))
    }

    /// Whether `duration` is at or above the floor.
    pub fn above_floor(&self, duration: VDuration) -> bool {
        u128::from(duration.as_nanos()) >= self.floor_nanos
    }

    /// Whether `duration` is at or below the ceiling (a saturated [`VDuration::MAX`] is below a ceiling
    /// that reaches it, see [`Promised::admits`]).
    pub fn below_ceiling(&self, duration: VDuration) -> bool {
        Promised::between(0, self.ceiling_nanos).admits(duration)
    }

    /// `true` when the retry-after decided this sleep on its own (it is not the backoff's delay, or is
    /// the cap or the retry-after instead of it).
    pub fn by_retry_after(&self) -> bool {
        matches!(self.rule, RetryAfterRule::Exactly(_))
    }
}

impl RateContract {
    /// The retry-after policy in force: the stated [`RateContract::retry_after`]; without one,
    /// `honors_retry_after` reads as `MaxWithBackoff` giving up above the cap (the only reading that keeps
    /// both "waits at least the retry-after" and "no delay exceeds the cap"), and a contract that does not
    /// honour retry-after ignores it.
    pub fn policy(&self) -> RetryAfterPolicy {
        match (self.retry_after, self.honors_retry_after) {
            (Some(policy), _) => policy,
            (None, true) => {
                RetryAfterPolicy { combine: RetryAfterCombine::MaxWithBackoff, above_cap: AboveCap::GiveUp }
            }
            (None, false) => RetryAfterPolicy { combine: RetryAfterCombine::Ignored, above_cap: AboveCap::GiveUp },
        }
    }
}

impl Contract {
    /// What the retry-after policy ([`RateContract::policy`]) makes of an answer asking for
    /// `retry_after` (step 4 of [`crate::sleep_range`]). "Above the cap" is strictly above `delays.max`;
    /// without a cap nothing is above it.
    pub fn retry_after_rule(&self, retry_after: VDuration) -> RetryAfterRule {
        let policy = self.rate.policy();
        let above = self.delays.max.is_some_and(|cap| retry_after > cap);
        let cap = self.delays.max.unwrap_or(VDuration::MAX);
        match (policy.combine, above, policy.above_cap) {
            (RetryAfterCombine::Ignored, _, _) => RetryAfterRule::Backoff,
            (_, true, AboveCap::GiveUp) => RetryAfterRule::GivesUp,
            (_, true, AboveCap::Clamp) => RetryAfterRule::Exactly(cap),
            (_, true, AboveCap::SleepAnyway) | (RetryAfterCombine::ReplacesBackoff, false, _) => {
                RetryAfterRule::Exactly(retry_after)
            }
            (RetryAfterCombine::MaxWithBackoff, false, _) => RetryAfterRule::AtLeast(retry_after),
        }
    }

    /// The range of the backoff delay `n` (from 1) alone: steps 1 to 3 of [`crate::sleep_range`], before
    /// the tolerance. `previous` is the last backoff delay slept (for decorrelated backoff).
    pub fn backoff_range(&self, n: u32, previous: Option<VDuration>) -> Promised {
        let cap = self.delays.max.unwrap_or(VDuration::MAX);
        let Some(shape) = self.delays.backoff else {
            let floor = self.delays.min.unwrap_or(VDuration::ZERO);
            return Promised::between(u128::from(floor.as_nanos()), u128::from(cap.as_nanos()));
        };
        let range = match shape.decorrelated_bounds(previous, cap) {
            Some(bounds) => bounds,
            None => {
                let beyond = Promised::between(u128::MAX, u128::MAX);
                let base = shape.promised(n).unwrap_or(beyond).min(cap);
                self.delays.jitter.unwrap_or_default().around(base)
            }
        };
        match self.delays.jitter_clipped_at_cap {
            true => range.min(cap),
            false => range,
        }
    }

    /// The range of one sleep, every promise applied in the order of [`crate::sleep_range`].
    pub fn sleep_range(&self, at: SleepAt) -> SleepRange {
        let tolerance = self.tolerance();
        let backoff = self.backoff_range(at.backoff_index, at.previous);
        let rule = at.retry_after.map_or(RetryAfterRule::Backoff, |retry_after| self.retry_after_rule(retry_after));
        let expected = match rule {
            RetryAfterRule::Backoff => Some(backoff),
            RetryAfterRule::AtLeast(retry_after) => Some(backoff.max(retry_after)),
            RetryAfterRule::Exactly(delay) => Some(Promised::exactly(delay)),
            RetryAfterRule::GivesUp => None,
        };
        let mut floor_nanos =
            Promised::exactly(self.delays.min.unwrap_or(VDuration::ZERO)).widen(tolerance).low_nanos();
        let mut ceiling_nanos = self.cap_ceiling().widen(tolerance).high_nanos();
        if let (RetryAfterRule::Exactly(_), Some(decided)) = (rule, expected) {
            let decided = decided.widen(tolerance);
            floor_nanos = floor_nanos.min(decided.low_nanos());
            ceiling_nanos = ceiling_nanos.max(decided.high_nanos());
        }
        let replaces_backoff =
            at.retry_after.is_some() && self.rate.policy().combine == RetryAfterCombine::ReplacesBackoff;
        SleepRange { expected, floor_nanos, ceiling_nanos, rule, replaces_backoff, tolerance }
    }

    /// The cap as a bound, before the tolerance: `0..=cap` widened by the jitter the contract lets exceed
    /// it ([`JitterBounds::around`] the cap; a clipped jitter never does), `0..=VDuration::MAX` without a
    /// cap.
    pub fn cap_ceiling(&self) -> Promised {
        let cap = self.delays.max.unwrap_or(VDuration::MAX);
        let jittered = match self.delays.jitter_clipped_at_cap {
            true => Promised::exactly(cap),
            false => self.delays.jitter.unwrap_or(JitterBounds::None).around(Promised::exactly(cap)),
        };
        Promised::between(0, jittered.high_nanos())
    }

    /// `true` when the contract states a jitter-free backoff sequence (not decorrelated): what
    /// `backoff_shape_without_jitter` needs.
    pub fn has_jitter_free_sequence(&self) -> bool {
        self.delays.jitter == Some(JitterBounds::None)
            && self.delays.backoff.is_some_and(|shape: BackoffShape| shape.promised(1).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::DelayContract;

    fn ms(millis: u64) -> VDuration {
        VDuration::from_millis(millis)
    }

    /// Exponential from 10ms doubling, capped at 100ms, no jitter, and `policy`.
    fn contract(policy: Option<(RetryAfterCombine, AboveCap)>) -> Contract {
        let mut contract = Contract {
            delays: DelayContract {
                min: Some(ms(10)),
                max: Some(ms(100)),
                backoff: Some(BackoffShape::Exponential { initial: ms(10), factor_milli: 2000 }),
                jitter: Some(JitterBounds::None),
                ..DelayContract::default()
            },
            ..Contract::default()
        };
        contract.rate.retry_after = policy.map(|(combine, above_cap)| RetryAfterPolicy { combine, above_cap });
        contract
    }

    /// The expected range (in ms, low and high), floor and ceiling (ms) of sleep `n` after `retry_after`.
    #[track_caller]
    fn check(contract: &Contract, n: u32, retry_after: Option<u64>, expect: Option<(u64, u64)>, bounds: (u64, u64)) {
        let at = SleepAt { backoff_index: n, previous: None, retry_after: retry_after.map(ms) };
        let range = contract.sleep_range(at);
        let millis = |nanos: u128| u64::try_from(nanos / 1_000_000).unwrap_or(u64::MAX);
        let expected = range.expected.map(|p| (millis(p.low_nanos()), millis(p.high_nanos())));
        assert_eq!(expected, expect, "expected range");
        assert_eq!((millis(range.floor_nanos), millis(range.ceiling_nanos)), bounds, "floor and ceiling");
    }

    #[test]
    fn every_policy_gives_one_range() {
        use AboveCap::*;
        use RetryAfterCombine::*;
        let none = contract(None);
        check(&none, 1, None, Some((10, 10)), (10, 100));
        check(&none, 5, None, Some((100, 100)), (10, 100));
        check(&none, 2, Some(50), Some((20, 20)), (10, 100));
        let mut honors = contract(None);
        honors.rate.honors_retry_after = true;
        check(&honors, 2, Some(50), Some((50, 50)), (10, 100));
        check(&honors, 2, Some(5), Some((20, 20)), (10, 100));
        check(&honors, 2, Some(500), None, (10, 100));
        check(&contract(Some((MaxWithBackoff, GiveUp))), 1, Some(50), Some((50, 50)), (10, 100));
        check(&contract(Some((ReplacesBackoff, GiveUp))), 2, Some(5), Some((5, 5)), (5, 100));
        check(&contract(Some((ReplacesBackoff, GiveUp))), 2, Some(500), None, (10, 100));
        check(&contract(Some((ReplacesBackoff, Clamp))), 2, Some(500), Some((100, 100)), (10, 100));
        check(&contract(Some((MaxWithBackoff, SleepAnyway))), 2, Some(500), Some((500, 500)), (10, 500));
        check(&contract(Some((ReplacesBackoff, SleepAnyway))), 2, Some(500), Some((500, 500)), (10, 500));
        check(&contract(Some((Ignored, GiveUp))), 2, Some(500), Some((20, 20)), (10, 100));
        // At the cap exactly is not above it.
        check(&contract(Some((MaxWithBackoff, GiveUp))), 1, Some(100), Some((100, 100)), (10, 100));
    }

    #[test]
    fn a_replacing_policy_does_not_advance_the_backoff() {
        let replaces = contract(Some((RetryAfterCombine::ReplacesBackoff, AboveCap::SleepAnyway)));
        let at = SleepAt { backoff_index: 1, previous: None, retry_after: Some(ms(3)) };
        assert!(replaces.sleep_range(at).replaces_backoff);
        let honors = contract(Some((RetryAfterCombine::MaxWithBackoff, AboveCap::SleepAnyway)));
        assert!(!honors.sleep_range(at).replaces_backoff);
        assert!(!replaces.sleep_range(SleepAt { retry_after: None, ..at }).replaces_backoff);
    }

    #[test]
    fn the_rules_say_whether_they_wait_for_the_retry_after() {
        let wait = |rule: RetryAfterRule| rule.waits_at_least(ms(50));
        assert!(wait(RetryAfterRule::AtLeast(ms(50))) && wait(RetryAfterRule::Exactly(ms(50))));
        assert!(!wait(RetryAfterRule::Exactly(ms(49))) && !wait(RetryAfterRule::Backoff));
        assert!(wait(RetryAfterRule::GivesUp), "a retry that comes anyway still waits");
    }

    #[test]
    fn the_tolerance_widens_every_bound() {
        let mut tolerant = contract(None);
        tolerant.delays.tolerance = ms(1);
        let range = tolerant.sleep_range(SleepAt { backoff_index: 1, ..SleepAt::default() });
        assert!(range.admits(ms(11)) && range.admits(ms(9)) && !range.admits(ms(12)));
        assert!(range.above_floor(ms(9)) && !range.above_floor(ms(8)));
        assert!(range.below_ceiling(ms(101)) && !range.below_ceiling(ms(102)));
    }
}
