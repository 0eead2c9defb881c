//! The draw helpers and boundary vocabulary of config descriptions: delays (with the boundary values
//! 1 ns, 1 us, 1 ms - 1 ns and a crate's own default), retry counts and shrink candidates. Every built-in adapter describes its config with them; a user's [`Describe`](crate::Describe)
//! can too.
//!
//! Every description is written once against [`Choices`] (see `timelaw_generators::choice`): answering
//! `0` everywhere gives the simplest config (zero durations, no jitter, the fewest retries), so running
//! out of fuzz bytes and proptest's shrinking both move towards simple configs.
//!
//! # Limits are cuts, not filters
//! Every legal value is in the domain: no description draws again or drops a config because its
//! worst case sleeps long. A run that passes the World's virtual time limit is cut there
//! ([`TraceEnd::is_time_limit_cut`](timelaw_core::TraceEnd::is_time_limit_cut)): safety laws are judged
//! on the prefix, liveness laws are inconclusive, and reports count the cut cases. Weights keep
//! ordinary values the common case.

use crate::choice::Choices;
use crate::schedule::STEPS_PER_CALL_MAX;
use timelaw_core::VDuration;

/// One millisecond.
pub const MS: VDuration = VDuration::from_millis(1);
/// One second.
pub const SEC: VDuration = VDuration::from_secs(1);
/// One hour.
pub const HOUR: VDuration = VDuration::from_secs(3600);

/// A delay, nanosecond-exact: zero, whole milliseconds up to 1 s, the crate's `default`, up to a minute,
/// a tiny boundary value (1 ns, 1 us, 1 ms - 1 ns), or up to an hour. Zero is the simplest.
pub fn delay<C: Choices + ?Sized>(c: &mut C, default: VDuration) -> VDuration {
    match c.weighted(&[1, 4, 2, 3, 1, 1]) {
        0 => VDuration::ZERO,
        1 => MS.saturating_mul(c.between(1, 1000)),
        2 => default,
        3 => c.duration_between(MS, VDuration::from_secs(60)),
        4 => [VDuration::from_nanos(1), VDuration::from_micros(1), VDuration::from_nanos(999_999)][c.weighted(&[1; 3])],
        _ => c.duration_between(VDuration::from_secs(60), HOUR),
    }
}

/// A delay in whole milliseconds (tokio's timer resolution): zero, up to 1 s, up to a minute, or the
/// crate's `default`.
pub fn delay_ms<C: Choices + ?Sized>(c: &mut C, default: VDuration) -> VDuration {
    match c.weighted(&[1, 5, 2, 2]) {
        0 => VDuration::ZERO,
        1 => MS.saturating_mul(c.between(1, 1000)),
        2 => MS.saturating_mul(c.between(1000, 60_000)),
        _ => default,
    }
}

/// A retry count: mostly `0..=5`, sometimes up to 12 (the longest generated script), rarely up to
/// `large`.
pub fn retries<C: Choices + ?Sized>(c: &mut C, large: u64) -> u64 {
    match c.weighted(&[6, 3, 1]) {
        0 => c.between(0, 5),
        1 => c.between(6, STEPS_PER_CALL_MAX),
        _ => c.between(STEPS_PER_CALL_MAX + 1, large.max(STEPS_PER_CALL_MAX + 1)),
    }
}

/// Offers `candidate` to `out` when it differs from `original` and is new. Every legal config is a
/// candidate: a run that sleeps past the World's virtual time limit is cut there, never filtered out.
pub fn offer<T: PartialEq>(out: &mut Vec<T>, original: &T, candidate: T) {
    if candidate != *original && !out.contains(&candidate) {
        out.push(candidate);
    }
}

/// Simpler versions of a delay: zero, one millisecond, and the delay rounded down to whole
/// milliseconds and halved.
pub fn simpler_delays(delay: VDuration) -> [VDuration; 4] {
    let whole = MS.saturating_mul(delay.as_millis());
    [VDuration::ZERO, MS, whole, MS.saturating_mul(delay.as_millis() / 2)]
}

#[cfg(test)]
mod tests {
    use timelaw_core::SplitMix64;

    use super::*;

    #[test]
    fn delays_stay_in_their_ranges() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..1000 {
            assert!(delay(&mut rng, SEC) <= HOUR);
            assert_eq!(delay_ms(&mut rng, SEC).as_nanos() % MS.as_nanos(), 0);
            assert!(retries(&mut rng, 100) <= 100);
        }
    }
}
