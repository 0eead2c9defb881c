//! Promised delays computed exactly: what a contract's backoff and jitter promise for one sleep, as the
//! range of whole nanoseconds a correct subject may sleep.
//!
//! # Exactness
//! A promised value is computed from the parameters as the subject states them (an integer, a factor in
//! thousandths, or an `f64` factor taken bit for bit) without rounding between steps: integers exactly on
//! `u128`, non-integer factors on 127-bit binary numbers rounded down for the low end and up for the high
//! end (see `wide.rs`). A subject sleeps whole nanoseconds, so a [`Promised`] is the range
//! `floor(exact)..=ceil(exact)`: rounding down, to nearest or up are all exact.
//!
//! # Tolerance
//! Only a subject whose own arithmetic is inexact (floats) needs more: its contract states a
//! [`Tolerance`], absolute plus relative to the promised value, and laws widen the range by it.
//!
//! # Past the representable range
//! A promised value above [`VDuration::MAX`] (584 years) is carried on `u128` nanoseconds (saturating at
//! `u128::MAX`, which is still "above"): it is never compared as if it were `VDuration::MAX`. A recorded
//! sleep of exactly [`VDuration::MAX`] is the World's saturation of a longer `Duration` (it stands for
//! "584 years or more"), so it matches a promise that reaches that far.

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::time::VDuration;
use crate::wide::{Round, Wide};

/// A growth factor as the subject states it, an `f64` (an `f32` converts exactly), compared and hashed by
/// its bits and serialized as a JSON number.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FloatFactor(pub f64);

impl PartialEq for FloatFactor {
    fn eq(&self, other: &FloatFactor) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for FloatFactor {}

impl Hash for FloatFactor {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// How far a subject's inexact arithmetic may move a delay from its exact promised value: `absolute`
/// plus `relative_ppb` parts per billion of the promised value (rounded up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tolerance {
    /// Added on both sides.
    pub absolute: VDuration,
    /// Parts per billion of the promised value, added on both sides.
    pub relative_ppb: u64,
}

impl Tolerance {
    /// The tolerance in nanoseconds around a promised value of `nanos`.
    pub fn around(self, nanos: u128) -> u128 {
        let relative = nanos.saturating_mul(u128::from(self.relative_ppb)).div_ceil(1_000_000_000);
        relative.saturating_add(u128::from(self.absolute.as_nanos()))
    }
}

/// A promised delay: every whole number of nanoseconds in `low_nanos..=high_nanos` is a correct sleep.
/// Values above `u64::MAX` are above what [`VDuration`] holds; `u128::MAX` stands for anything larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Promised {
    low_nanos: u128,
    high_nanos: u128,
}

impl Promised {
    /// Exactly `delay`.
    pub const fn exactly(delay: VDuration) -> Promised {
        Promised { low_nanos: delay.as_nanos() as u128, high_nanos: delay.as_nanos() as u128 }
    }

    /// The range `low_nanos..=high_nanos` (swapped if given in the wrong order).
    pub fn between(low_nanos: u128, high_nanos: u128) -> Promised {
        Promised { low_nanos: low_nanos.min(high_nanos), high_nanos: low_nanos.max(high_nanos) }
    }

    /// The smallest correct sleep in nanoseconds.
    pub const fn low_nanos(self) -> u128 {
        self.low_nanos
    }

    /// The largest correct sleep in nanoseconds.
    pub const fn high_nanos(self) -> u128 {
        self.high_nanos
    }

    /// Whether even the smallest correct sleep is above [`VDuration::MAX`].
    pub const fn is_beyond(self) -> bool {
        self.low_nanos > u64::MAX as u128
    }

    /// The smallest correct sleep, saturated into a [`VDuration`] (for predictions, not for judging).
    pub fn low_saturated(self) -> VDuration {
        VDuration::from_nanos(u64::try_from(self.low_nanos).unwrap_or(u64::MAX))
    }

    /// The promise capped at `cap`: `min(value, cap)` for every value in the range.
    pub fn min(self, cap: VDuration) -> Promised {
        let cap = u128::from(cap.as_nanos());
        Promised { low_nanos: self.low_nanos.min(cap), high_nanos: self.high_nanos.min(cap) }
    }

    /// `max(value, floor)` for every value in the range.
    pub fn max(self, floor: VDuration) -> Promised {
        let floor = u128::from(floor.as_nanos());
        Promised { low_nanos: self.low_nanos.max(floor), high_nanos: self.high_nanos.max(floor) }
    }

    /// The range widened by `tolerance` on both sides (relative to each end).
    pub fn widen(self, tolerance: Tolerance) -> Promised {
        Promised {
            low_nanos: self.low_nanos.saturating_sub(tolerance.around(self.low_nanos)),
            high_nanos: self.high_nanos.saturating_add(tolerance.around(self.high_nanos)),
        }
    }

    /// Whether a recorded sleep of `duration` keeps the promise. A recorded [`VDuration::MAX`] is a
    /// saturated recording ("584 years or more") and keeps any promise reaching `VDuration::MAX`.
    pub fn admits(self, duration: VDuration) -> bool {
        let nanos = u128::from(duration.as_nanos());
        match duration == VDuration::MAX {
            true => self.high_nanos >= nanos,
            false => (self.low_nanos..=self.high_nanos).contains(&nanos),
        }
    }
}

impl fmt::Display for Promised {
    /// `10ms`, `360596ns..=360597ns`, or `more than VDuration holds` for ends past 584 years.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |nanos: u128| match u64::try_from(nanos) {
            Ok(nanos) => VDuration::from_nanos(nanos).to_string(),
            Err(_) => "more than VDuration holds (584 years)".to_owned(),
        };
        match self.low_nanos == self.high_nanos || self.is_beyond() {
            true => f.write_str(&end(self.low_nanos)),
            false => write!(f, "{}..={}", end(self.low_nanos), end(self.high_nanos)),
        }
    }
}

/// `initial * factor^steps` where `factor` is given as a pair of bounds (equal when exact), as a
/// [`Promised`] range of whole nanoseconds.
pub(crate) fn scaled_power(initial_nanos: u128, factor: (Wide, Wide), steps: u64) -> Promised {
    let low = Wide::from_u128(initial_nanos, Round::Down).mul(factor.0.pow(steps, Round::Down), Round::Down);
    let high = Wide::from_u128(initial_nanos, Round::Up).mul(factor.1.pow(steps, Round::Up), Round::Up);
    Promised::between(low.floor(), high.ceil())
}

/// `initial * factor^steps` for an integer factor, exactly on `u128` (the common case, without the
/// binary numbers); saturating at `u128::MAX`, which is still above every delay.
pub(crate) fn integer_power(initial_nanos: u128, factor: u128, steps: u64) -> Promised {
    let power = match factor {
        0 | 1 if steps == 0 => Some(1),
        0 | 1 => Some(factor),
        _ => u32::try_from(steps).ok().and_then(|steps| factor.checked_pow(steps)),
    };
    let value = match power {
        _ if initial_nanos == 0 => 0,
        Some(power) => initial_nanos.saturating_mul(power),
        None => u128::MAX, // factor >= 2 here: factor^steps >= 2^128.
    };
    Promised::between(value, value)
}

/// An `f64` factor that is a whole number below 2^64, as an integer.
pub(crate) fn integer_factor(factor: FloatFactor) -> Option<u128> {
    let value = factor.0;
    let whole = (0.0..18_446_744_073_709_551_616.0).contains(&value) && value.fract() == 0.0;
    whole.then_some(value as u128) // Exact: a whole number below 2^64.
}

/// `factor_milli / 1000` as bounds.
pub(crate) fn milli_factor(factor_milli: u64) -> (Wide, Wide) {
    (Wide::ratio(factor_milli, 1000, Round::Down), Wide::ratio(factor_milli, 1000, Round::Up))
}

/// An `f64` factor as (exact) bounds.
pub(crate) fn float_factor(factor: FloatFactor) -> (Wide, Wide) {
    let exact = Wide::from_f64(factor.0);
    (exact, exact)
}

/// `nanos * milli / 1000`, rounded as asked, saturating (a saturated value is still above everything).
pub(crate) fn scale_milli(nanos: u128, milli: u64, round: Round) -> u128 {
    let Some(product) = nanos.checked_mul(u128::from(milli)) else {
        return u128::MAX;
    };
    match round {
        Round::Down => product / 1000,
        Round::Up => product.div_ceil(1000),
    }
}
