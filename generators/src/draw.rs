//! The draw helpers and boundary vocabulary of config descriptions: delays (with the boundary values
//! 1 ns, 1 us, 1 ms - 1 ns and a crate's own default), retry counts and shrink candidates. Every built-in adapter describes its config with them; a user's [`Describe`](crate::Describe)
//! can too.
//!
//! Every description is written once against [`Choices`] (see `timelaw_generators::choice`): answering
//! `0` everywhere gives the simplest config (zero durations, no jitter, the fewest retries), so running
//! out of fuzz bytes and proptest's shrinking both move towards simple configs.
//!
//! # Boundary vocabulary
//! [`boundary_durations`] (zero, 1 ns, one unit minus 1 ns, for ns/us/ms/s and `u32`/`u64` the largest
//! duration whose count fits and the first past it, `Duration::MAX` and just below), [`BOUNDARY_FACTORS`]
//! (0, 1, 1 + epsilon, 1e30, `f64::MAX`; [`boundary_factors_unvalidated`] adds NaN and infinity) and
//! [`BOUNDARY_COUNTS`] (0, 1, `u32::MAX`, `usize::MAX`): the values where conversions wrap, saturate or
//! panic. [`std_duration`] draws a duration as a user passes it, boundaries included.
//!
//! # Limits are cuts, not filters
//! Every legal value is in the domain: no description draws again or drops a config because its
//! worst case sleeps long. A run that passes the World's virtual time limit is cut there
//! ([`TraceEnd::is_time_limit_cut`](timelaw_core::TraceEnd::is_time_limit_cut)): safety laws are judged
//! on the prefix, liveness laws are inconclusive, and reports count the cut cases. Weights keep
//! ordinary values the common case.

use crate::choice::{Choices, SMALL_NS_MAX};
use crate::schedule::STEPS_PER_CALL_MAX;
use std::time::Duration as StdDuration;

use timelaw_core::VDuration;

/// One millisecond.
pub const MS: VDuration = VDuration::from_millis(1);
/// One second.
pub const SEC: VDuration = VDuration::from_secs(1);
/// One hour.
pub const HOUR: VDuration = VDuration::from_secs(3600);

/// A delay, nanosecond-exact: zero, a small value (0 to [`SMALL_NS_MAX`] ns, odd and even), whole
/// milliseconds up to 1 s, the crate's `default`, up to a minute, a tiny boundary value (1 ns, 1 us,
/// 1 ms - 1 ns), or up to an hour. Zero is the simplest.
pub fn delay<C: Choices + ?Sized>(c: &mut C, default: VDuration) -> VDuration {
    match c.weighted(&[1, 1, 4, 2, 3, 1, 1]) {
        0 => VDuration::ZERO,
        1 => VDuration::from_nanos(c.between(0, SMALL_NS_MAX)),
        2 => MS.saturating_mul(c.between(1, 1000)),
        3 => default,
        4 => c.duration_between(MS, VDuration::from_secs(60)),
        5 => [VDuration::from_nanos(1), VDuration::from_micros(1), VDuration::from_nanos(999_999)][c.weighted(&[1; 3])],
        _ => c.duration_between(VDuration::from_secs(60), HOUR),
    }
}

/// A delay in whole milliseconds (tokio's timer resolution): zero, a small count (0 to
/// [`SMALL_NS_MAX`] ms, odd and even), up to 1 s, up to a minute, or the crate's `default`.
pub fn delay_ms<C: Choices + ?Sized>(c: &mut C, default: VDuration) -> VDuration {
    match c.weighted(&[1, 1, 5, 2, 2]) {
        0 => VDuration::ZERO,
        1 => MS.saturating_mul(c.between(0, SMALL_NS_MAX)),
        2 => MS.saturating_mul(c.between(1, 1000)),
        3 => MS.saturating_mul(c.between(1000, 60_000)),
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

/// The boundary values of a `std::time::Duration` a crate may take: where conversions to a unit and an
/// integer width wrap, saturate or panic. Every value is a legal `Duration`.
///
/// In order: `Duration::ZERO`, 1 ns; one unit minus 1 ns for us, ms and s; for each unit a crate may
/// convert to (ns, us, ms, s) and each integer width (`u32`, `u64`), the largest duration whose count
/// of that unit fits the width and the first duration past it (when it is a `Duration`: `u64::MAX`
/// seconds has none); `Duration::MAX - 1 ns` and `Duration::MAX`.
///
/// ```
/// use std::time::Duration;
/// let values = timelaw_generators::draw::boundary_durations();
/// assert!(values.contains(&Duration::MAX));
/// assert!(values.contains(&Duration::from_millis(u64::from(u32::MAX) + 1))); // as_millis() past u32
/// ```
pub fn boundary_durations() -> Vec<StdDuration> {
    let ns = StdDuration::from_nanos;
    let mut out = vec![StdDuration::ZERO, ns(1), ns(999), ns(999_999), ns(999_999_999)];
    for unit_ns in UNITS_NS {
        for width_max in [u128::from(u32::MAX), u128::from(u64::MAX)] {
            let largest = duration_of_nanos(width_max.saturating_mul(unit_ns));
            out.extend(largest);
            out.extend(duration_of_nanos(width_max.saturating_add(1).saturating_mul(unit_ns)));
        }
    }
    out.extend([StdDuration::MAX - ns(1), StdDuration::MAX]);
    out
}

/// Nanoseconds per unit a crate may convert a duration to: ns, us, ms, s.
pub const UNITS_NS: [u128; 4] = [1, 1_000, 1_000_000, 1_000_000_000];

/// The `Duration` of `nanos` nanoseconds; `None` past `Duration::MAX`.
pub fn duration_of_nanos(nanos: u128) -> Option<StdDuration> {
    let secs = u64::try_from(nanos / 1_000_000_000).ok()?;
    // The remainder of a division by 10^9 is below 10^9 and fits a u32.
    let subsec = u32::try_from(nanos % 1_000_000_000).ok()?;
    Some(StdDuration::new(secs, subsec))
}

/// The boundary factors of a multiplier a crate takes as an `f64`: 0, 1, 1 + epsilon, 1e30 and
/// `f64::MAX`. [`boundary_factors_unvalidated`] adds NaN and infinity, for APIs that accept any `f64`.
pub const BOUNDARY_FACTORS: [f64; 5] = [0.0, 1.0, 1.0 + f64::EPSILON, 1e30, f64::MAX];

/// [`BOUNDARY_FACTORS`] plus NaN and infinity: for an API that accepts an `f64` without validating it.
pub fn boundary_factors_unvalidated() -> [f64; 7] {
    let [a, b, c, d, e] = BOUNDARY_FACTORS;
    [a, b, c, d, e, f64::NAN, f64::INFINITY]
}

/// The boundary counts (retries, attempts, sizes): 0, 1, `u32::MAX` and `usize::MAX` (as a `u64`).
pub const BOUNDARY_COUNTS: [u64; 4] = [0, 1, u32::MAX as u64, usize::MAX as u64];

/// A duration as a user passes it: mostly `ordinary` (a description of the common values), one time
/// in eight a [`boundary_durations`] value. Zero answers give the simplest, `ordinary`'s zero answer.
pub fn std_duration<C: Choices + ?Sized>(c: &mut C, ordinary: impl FnOnce(&mut C) -> StdDuration) -> StdDuration {
    match c.weighted(&[7, 1]) {
        0 => ordinary(c),
        _ => {
            let values = boundary_durations();
            values[c.weighted(&vec![1; values.len()])]
        }
    }
}

/// [`delay`] as a user passes it to a crate that takes a `std::time::Duration`: one time in eight a
/// [`boundary_durations`] value (up to `Duration::MAX`), otherwise an ordinary [`delay`]. Zero answers
/// give zero.
///
/// ```
/// use std::time::Duration;
/// use timelaw_generators::draw::{std_delay, SEC};
/// use timelaw_generators::Choices;
/// let mut rng = timelaw_core::SplitMix64::new(7);
/// let delays: Vec<Duration> = (0..4000).map(|_| std_delay(&mut rng, SEC)).collect();
/// assert!(delays.contains(&Duration::MAX));
/// assert!(delays.iter().filter(|d| **d <= Duration::from_secs(3600)).count() > 3000); // mostly ordinary
/// ```
pub fn std_delay<C: Choices + ?Sized>(c: &mut C, default: VDuration) -> StdDuration {
    std_duration(c, |c| delay(c, default).to_std())
}

/// Simpler versions of a `std::time::Duration` delay, each below it, smallest first: zero, 1 ns, the
/// largest [`boundary_durations`] value below it, the largest power of two of nanoseconds below it
/// ([`power_of_two_below`]); then one millisecond, and the delay rounded down to whole milliseconds and
/// halved (exact up to `Duration::MAX`). A finding that needs a duration past a unit's or an integer
/// width's limit walks down the boundary values one by one and stops exactly at the first value past
/// its limit (`2^64` ns, rather than at some halving of `Duration::MAX`); offering every boundary value
/// below at once made every shrink round about three times as long (a fuzz target's masking, which
/// shrinks each input that reaches a pinned finding, ran 4x slower). A value at or above the delay is
/// no simpler version of it (one millisecond offered back from 500 us made the shrinker go round a
/// cycle).
///
/// ```
/// use std::time::Duration;
/// use timelaw_generators::draw::simpler_std_delays;
/// let us_500 = Duration::from_micros(500);
/// assert_eq!(simpler_std_delays(us_500), [0, 1, 999, 1 << 18].map(Duration::from_nanos));
/// let simpler = simpler_std_delays(Duration::from_millis(3));
/// assert_eq!(simpler, [0, 1, 999_999, 1 << 21, 1_000_000, 1_500_000].map(Duration::from_nanos));
/// let past_u64_nanos = Duration::from_nanos(u64::MAX) + Duration::from_nanos(1);
/// assert!(simpler_std_delays(Duration::from_secs(20_000_000_000)).contains(&past_u64_nanos));
/// ```
pub fn simpler_std_delays(delay: StdDuration) -> Vec<StdDuration> {
    let whole = StdDuration::new(delay.as_secs(), delay.subsec_millis() * 1_000_000);
    let nearest = boundary_durations().into_iter().filter(|boundary| *boundary < delay).max();
    let mut smallest = vec![StdDuration::ZERO, StdDuration::from_nanos(1)];
    smallest.extend(nearest.into_iter().chain(power_of_two_below(delay)));
    smallest.sort_unstable();
    below(delay, smallest.into_iter().chain([StdDuration::from_millis(1), whole, whole / 2]))
}

/// The largest whole power of two of nanoseconds below `delay` (a product or sum of durations in `u64`
/// nanoseconds overflows first past one: `2 * 2^63` ns); `None` for a delay of 1 ns or less.
///
/// ```
/// use std::time::Duration;
/// use timelaw_generators::draw::power_of_two_below;
/// assert_eq!(power_of_two_below(Duration::from_nanos(u64::MAX)), Some(Duration::from_nanos(1 << 63)));
/// assert_eq!(power_of_two_below(Duration::from_nanos(1 << 20)), Some(Duration::from_nanos(1 << 19)));
/// assert_eq!(power_of_two_below(Duration::from_nanos(1)), None);
/// ```
pub fn power_of_two_below(delay: StdDuration) -> Option<StdDuration> {
    let nanos = delay.as_nanos().checked_sub(1)?;
    if nanos == 0 {
        return None;
    }
    duration_of_nanos(1 << (u128::BITS - 1 - nanos.leading_zeros()))
}

/// The [`boundary_durations`] above `delay`, smallest first: what a coupled move raises one duration to
/// while it lowers another field (governor's burst capacity `period * (burst - 1)` keeps overflowing
/// with a smaller burst only at a longer period).
///
/// ```
/// use std::time::Duration;
/// use timelaw_generators::draw::larger_boundary_durations;
/// let larger = larger_boundary_durations(Duration::from_secs(u64::from(u32::MAX)));
/// assert_eq!(larger[0], Duration::from_secs(1 << 32));
/// assert!(larger.windows(2).all(|pair| pair[0] < pair[1]) && larger.ends_with(&[Duration::MAX]));
/// ```
pub fn larger_boundary_durations(delay: StdDuration) -> Vec<StdDuration> {
    let mut larger: Vec<StdDuration> = boundary_durations().into_iter().filter(|value| *value > delay).collect();
    larger.sort_unstable();
    larger.dedup();
    larger
}

/// The `candidates` below `delay`, each once, in order.
fn below<T: PartialOrd + Copy>(delay: T, candidates: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for candidate in candidates {
        if candidate < delay && !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

/// Simpler versions of a count `value` that stays at or above `floor`: `floor`, then values closing in
/// on `value` from below by halving the distance left (half way, three quarters, seven eighths, ...),
/// `value - 1` last; each in `floor..value`, each once. A finding that needs a count just above some
/// threshold then reaches it in about `log2(value)^2` runs where lowering by one took `value` runs
/// (governor's burst of 4,296, the smallest that overflows at its period, took 3,933 runs from a burst
/// near 8,000, past the fuzz masking's budget).
///
/// ```
/// use timelaw_generators::draw::simpler_counts;
/// assert_eq!(simpler_counts(100, 1), vec![1, 51, 76, 88, 94, 97, 99]);
/// assert_eq!(simpler_counts(2, 1), vec![1]);
/// assert!(simpler_counts(1, 1).is_empty() && simpler_counts(0, 1).is_empty());
/// ```
pub fn simpler_counts(value: u32, floor: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if value <= floor {
        return out;
    }
    out.push(floor);
    let mut distance = value - floor;
    while distance > 1 {
        distance /= 2;
        let candidate = value - distance;
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    if !out.contains(&(value - 1)) {
        out.push(value - 1);
    }
    out
}

/// Simpler versions of a retry limit (`take`, `max_times`: `None` is no limit), in the order the
/// adapters' domains document: the default of three retries is the simplest, and a limit is simpler the
/// closer it is to it. No limit offers three; a larger limit offers three, then limits closing in on it
/// from above ([`simpler_counts`] with floor `3`); a smaller one offers three, then each limit between.
/// Every candidate is strictly closer to three, so no two limits offer each other, and a finding that
/// holds at three retries reaches three from any start.
///
/// ```
/// use timelaw_generators::draw::simpler_retry_limits;
/// assert_eq!(simpler_retry_limits(None), vec![Some(3)]);
/// assert_eq!(simpler_retry_limits(Some(12)), vec![Some(3), Some(8), Some(10), Some(11)]);
/// assert_eq!(simpler_retry_limits(Some(0)), vec![Some(3), Some(2), Some(1)]);
/// assert!(simpler_retry_limits(Some(3)).is_empty());
/// ```
pub fn simpler_retry_limits(retries: Option<u32>) -> Vec<Option<u32>> {
    const DEFAULT: u32 = 3;
    let Some(retries) = retries else { return vec![Some(DEFAULT)] };
    if retries > DEFAULT {
        return simpler_counts(retries, DEFAULT).into_iter().map(Some).collect();
    }
    (retries + 1..=DEFAULT).rev().map(Some).collect()
}

/// Offers `candidate` to `out` when it differs from `original` and is new. Every legal config is a
/// candidate: a run that sleeps past the World's virtual time limit is cut there, never filtered out.
pub fn offer<T: PartialEq>(out: &mut Vec<T>, original: &T, candidate: T) {
    if candidate != *original && !out.contains(&candidate) {
        out.push(candidate);
    }
}

/// Simpler versions of a delay, each below it: zero, one millisecond, and the delay rounded down to whole
/// milliseconds and halved (see [`simpler_std_delays`]).
pub fn simpler_delays(delay: VDuration) -> Vec<VDuration> {
    let whole = MS.saturating_mul(delay.as_millis());
    below(delay, [VDuration::ZERO, MS, whole, MS.saturating_mul(delay.as_millis() / 2)])
}

#[cfg(test)]
mod tests {
    use timelaw_core::SplitMix64;

    use super::*;

    /// Each (unit, width) pair has its largest fitting duration and, where it is a `Duration`, the first
    /// one past it.
    #[test]
    fn boundary_durations_straddle_every_unit_and_width() {
        let values = boundary_durations();
        for unit_ns in UNITS_NS {
            for width_max in [u128::from(u32::MAX), u128::from(u64::MAX)] {
                let count = |d: &StdDuration| d.as_nanos() / unit_ns;
                assert!(values.iter().any(|d| count(d) == width_max), "{unit_ns} {width_max}");
                let past = values.iter().any(|d| count(d) == width_max + 1);
                let representable = (width_max + 1) * unit_ns <= StdDuration::MAX.as_nanos();
                assert_eq!(past, representable, "{unit_ns} {width_max}");
            }
        }
        for edge in [
            StdDuration::ZERO,
            StdDuration::from_nanos(1),
            StdDuration::MAX,
            StdDuration::MAX - StdDuration::from_nanos(1),
        ] {
            assert!(values.contains(&edge), "{edge:?}");
        }
        assert_eq!(duration_of_nanos(StdDuration::MAX.as_nanos()), Some(StdDuration::MAX));
        assert_eq!(duration_of_nanos(StdDuration::MAX.as_nanos() + 1), None);
        let mut rng = SplitMix64::new(5);
        let drawn: Vec<StdDuration> = (0..2000).map(|_| std_duration(&mut rng, |_| StdDuration::ZERO)).collect();
        assert!(drawn.contains(&StdDuration::MAX) && drawn.contains(&StdDuration::ZERO));
        assert!(boundary_factors_unvalidated()[5].is_nan());
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
