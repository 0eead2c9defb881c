//! The draw helpers and boundary vocabulary of config descriptions: delays (with the boundary values
//! 1 ns, 1 us, 1 ms - 1 ns and a crate's own default), retry counts, the termination check and shrink
//! candidates. Every built-in adapter describes its config with them; a user's [`Describe`](crate::Describe)
//! can too.
//!
//! Every description is written once against [`Choices`] (see `timelaw_generators::choice`): answering
//! `0` everywhere gives the simplest config (zero durations, no jitter, the fewest retries), so running
//! out of fuzz bytes and proptest's shrinking both move towards simple configs.
//!
//! # Termination
//! A config is kept only if its worst-case sleep per call ([`fits`]) stays within [`CALL_SLEEP_MAX`];
//! otherwise the description draws again (at most [`REDRAWS_MAX`] times) and then falls back to the
//! crate's default configuration. This keeps "unrealistic" settings (no cap, a huge factor) in the domain
//! only where the retries they can reach stay within days of virtual time, so a run never hits the
//! World's time limit for a reason that is the config's, not the crate's.

use crate::choice::Choices;
use crate::schedule::STEPS_PER_CALL_MAX;
use timelaw_core::{Contract, VDuration};

/// One millisecond.
pub const MS: VDuration = VDuration::from_millis(1);
/// One second.
pub const SEC: VDuration = VDuration::from_secs(1);
/// One hour.
pub const HOUR: VDuration = VDuration::from_secs(3600);

/// The most virtual time one call of a generated config may sleep (worst case, see [`fits`]).
pub const CALL_SLEEP_MAX: VDuration = VDuration::from_secs(30 * 24 * 3600);

/// How many times a description draws again before it falls back to the crate's default.
pub const REDRAWS_MAX: u32 = 8;

/// The most sleeps one call can make under a generated schedule (one per failed scripted step), with
/// room to spare.
const SLEEPS_PER_CALL_MAX: u32 = STEPS_PER_CALL_MAX as u32 + 4;

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

/// `true` when the worst-case sleep of one call under `contract` stays within [`CALL_SLEEP_MAX`]: the
/// sum of the jittered, capped delays of the retries a generated schedule can cause, or the sleep budget
/// if that is smaller.
pub fn fits(contract: &Contract) -> bool {
    let Some(shape) = contract.backoff else {
        return true;
    };
    let retries = contract.max_attempts.map_or(SLEEPS_PER_CALL_MAX, |max| max.saturating_sub(1));
    let cap = contract.delay_max.unwrap_or(VDuration::MAX);
    let jitter = contract.jitter.unwrap_or_default();
    let floor = contract.delay_min.unwrap_or(VDuration::ZERO);
    let mut total = VDuration::ZERO;
    for n in 1..=retries.min(SLEEPS_PER_CALL_MAX) {
        let base = shape.nth(n).unwrap_or(cap).min(cap);
        let high = jitter.range(base).1.max(floor).saturating_add(contract.delay_tolerance);
        total = total.saturating_add(high);
    }
    total.min(contract.sleep_budget.unwrap_or(VDuration::MAX)) <= CALL_SLEEP_MAX
}

/// Draws with `describe` until the config's contract [`fits`], at most [`REDRAWS_MAX`] times, else
/// returns `fallback`.
pub fn fitting<C, T>(
    c: &mut C,
    mut describe: impl FnMut(&mut C) -> T,
    contract: impl Fn(&T) -> Contract,
    fallback: T,
) -> T
where
    C: Choices + ?Sized,
{
    for _ in 0..REDRAWS_MAX {
        let config = describe(c);
        if fits(&contract(&config)) {
            return config;
        }
    }
    fallback
}

/// Offers `candidate` to `out` when it differs from `original`, is new, and its contract fits.
pub fn offer<T: PartialEq>(out: &mut Vec<T>, original: &T, candidate: T, contract: impl Fn(&T) -> Contract) {
    if candidate != *original && !out.contains(&candidate) && fits(&contract(&candidate)) {
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
    use timelaw_core::{BackoffShape, JitterBounds, SplitMix64};

    use super::*;

    const DAY: VDuration = VDuration::from_secs(24 * 3600);

    #[test]
    fn fits_bounds_the_worst_case() {
        let exponential = |initial, cap: Option<VDuration>, max_attempts| Contract {
            max_attempts,
            delay_max: cap,
            backoff: Some(BackoffShape::Exponential { initial, factor_milli: 2000 }),
            jitter: Some(JitterBounds::None),
            ..Contract::default()
        };
        assert!(fits(&exponential(SEC, Some(HOUR), None)));
        assert!(!fits(&exponential(DAY, None, Some(12))));
        assert!(fits(&exponential(DAY, None, Some(3))));
        assert!(fits(&Contract { sleep_budget: Some(DAY), ..exponential(DAY, None, None) }));
    }

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
