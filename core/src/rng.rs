//! Randomness: a seeded generator with a fixed algorithm, and a scripted source.
//!
//! # Algorithm (fixed; part of the fixture format)
//! [`SplitMix64`] is Steele, Lea and Flood's SplitMix64: the state advances by the golden-ratio increment
//! `0x9E37_79B9_7F4A_7C15` and each output is the state passed through the finaliser
//! `z = (z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9; z = (z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB; z ^ (z >> 31)`.
//! [`SplitMix64::below`] maps a draw `x` to `((x as u128 * bound as u128) >> 64)` (a widening multiply,
//! no rejection). [`mix`] derives the seed of case `i` of a run. None of this depends on another crate,
//! so results never change when a dependency is upgraded.

use serde::{Deserialize, Serialize};
use thiserror::Error;

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn finalise(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of case `index` in a run started from `seed`: independent of thread count and order.
///
/// ```
/// use timelaw_core::mix;
/// assert_eq!(mix(7, 3), mix(7, 3));
/// assert_ne!(mix(7, 3), mix(7, 4));
/// ```
pub fn mix(seed: u64, index: u64) -> u64 {
    finalise(seed ^ finalise(index.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA)))
}

/// The seeded generator (SplitMix64, see the module docs).
///
/// ```
/// use timelaw_core::SplitMix64;
/// let mut rng = SplitMix64::new(0);
/// assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF); // the published first output for seed 0
/// assert!(rng.below(10) < 10);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output is a function of `seed` alone.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }
    /// The state: `SplitMix64::new(state)` goes on where this one is.
    pub const fn state(&self) -> u64 {
        self.state
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        finalise(self.state)
    }
    /// A value in `0..bound`; `0` when `bound` is `0`.
    pub fn below(&mut self, bound: u64) -> u64 {
        let wide = u128::from(self.next_u64()) * u128::from(bound);
        (wide >> 64) as u64 // The shift leaves at most 64 significant bits.
    }
    /// A value in `low..=high` (the bounds are swapped if given in the wrong order).
    pub fn between_inclusive(&mut self, low: u64, high: u64) -> u64 {
        let (low, high) = if low <= high { (low, high) } else { (high, low) };
        match (high - low).checked_add(1) {
            Some(span) => low + self.below(span),
            None => self.next_u64(),
        }
    }
    /// `true` with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }
}

/// Why a randomness source could not answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Error, Serialize, Deserialize)]
pub enum RandomnessError {
    /// A scripted source ran out of values.
    #[error("scripted randomness exhausted after {consumed} values")]
    Exhausted {
        /// How many values had been consumed.
        consumed: usize,
    },
    /// A scripted value does not fit the range the subject asked for.
    #[error("scripted random value {value} is out of range 0..={max} (value number {position})")]
    OutOfRange {
        /// The scripted value.
        value: u64,
        /// The largest value the subject accepts.
        max: u64,
        /// Its position in the script, from 0.
        position: usize,
    },
}

/// A source that returns queued values in order and fails loudly when they run out.
///
/// Range requests return the scripted value itself (not a mapping of it), so a script reads as the
/// choices made: `[3]` answers `below(10)` with `3`, and `below(2)` with an [`RandomnessError::OutOfRange`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scripted {
    values: Vec<u64>,
    next: usize,
}

impl Scripted {
    /// A source answering with `values` in order.
    pub fn new(values: Vec<u64>) -> Scripted {
        Scripted { values, next: 0 }
    }
    /// The next value, or [`RandomnessError::Exhausted`].
    pub fn next_u64(&mut self) -> Result<u64, RandomnessError> {
        let value = *self.values.get(self.next).ok_or(RandomnessError::Exhausted { consumed: self.next })?;
        self.next += 1;
        Ok(value)
    }
    /// The next value, which must lie in `low..=high`.
    pub fn between_inclusive(&mut self, low: u64, high: u64) -> Result<u64, RandomnessError> {
        let position = self.next;
        let value = self.next_u64()?;
        if value < low || value > high {
            return Err(RandomnessError::OutOfRange { value, max: high, position });
        }
        Ok(value)
    }
}

/// The randomness a [`World`](crate::World) hands to a subject.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Randomness {
    /// Seeded [`SplitMix64`]; never fails.
    Seeded(SplitMix64),
    /// Queued values; fails when exhausted or out of range.
    Scripted(Scripted),
}

impl Randomness {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> Result<u64, RandomnessError> {
        match self {
            Randomness::Seeded(rng) => Ok(rng.next_u64()),
            Randomness::Scripted(script) => script.next_u64(),
        }
    }
    /// A value in `low..=high`.
    pub fn between_inclusive(&mut self, low: u64, high: u64) -> Result<u64, RandomnessError> {
        match self {
            Randomness::Seeded(rng) => Ok(rng.between_inclusive(low, high)),
            Randomness::Scripted(script) => script.between_inclusive(low, high),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_published_outputs() {
        let mut rng = SplitMix64::new(1234567);
        let got: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(got, vec![6457827717110365317, 3203168211198807973, 9817491932198370423]);
    }

    #[test]
    fn between_inclusive_covers_full_range() {
        let mut rng = SplitMix64::new(9);
        for _ in 0..100 {
            let value = rng.between_inclusive(5, 7);
            assert!((5..=7).contains(&value));
        }
        let _any = rng.between_inclusive(0, u64::MAX);
        assert_eq!(rng.between_inclusive(4, 4), 4);
    }

    #[test]
    fn scripted_fails_loudly() {
        let mut script = Scripted::new(vec![3, 20]);
        assert_eq!(script.between_inclusive(0, 9), Ok(3));
        assert_eq!(script.between_inclusive(0, 9), Err(RandomnessError::OutOfRange { value: 20, max: 9, position: 1 }));
        assert_eq!(script.next_u64(), Err(RandomnessError::Exhausted { consumed: 2 }));
    }
}
