//! Floats in configs: crates take `f32`/`f64` parameters, and a config must be `Eq + Hash` to be shrunk
//! and stored in fixtures.
//!
//! [`F32`] and [`F64`] compare and hash by bit pattern (so `-0.0 != 0.0` and a NaN equals itself) and
//! serialize as plain JSON numbers. The config domains only draw finite values. Contracts state a float
//! factor exactly (`timelaw_core::FloatFactor`), never rounded to thousandths.
//!
//! [`float_tolerance`] is the `delay_tolerance` a contract grants a crate that computes delays in
//! floating point.

use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::{Contract, VDuration};

/// An `f32` parameter compared and hashed by its bits.
///
/// ```
/// use timelaw_core::F32;
/// assert_eq!(F32(1.5), F32(1.5));
/// assert_eq!(serde_json::to_string(&F32(0.1)).unwrap(), "0.1");
/// ```
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct F32(pub f32);

/// An `f64` parameter compared and hashed by its bits.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct F64(pub f64);

impl PartialEq for F32 {
    fn eq(&self, other: &F32) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for F32 {}

impl Hash for F32 {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl PartialEq for F64 {
    fn eq(&self, other: &F64) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for F64 {}

impl Hash for F64 {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl F32 {
    /// `milli / 1000` as an `f32` (the domains draw factors in thousandths).
    pub fn from_milli(milli: u64) -> F32 {
        F32((milli as f64 / 1000.0) as f32)
    }
    /// The value in thousandths, rounded to nearest and saturating.
    pub fn to_milli(self) -> u64 {
        milli(f64::from(self.0))
    }
}

impl F64 {
    /// `milli / 1000` as an `f64`.
    pub fn from_milli(milli: u64) -> F64 {
        F64(milli as f64 / 1000.0)
    }
    /// The value in thousandths, rounded to nearest and saturating.
    pub fn to_milli(self) -> u64 {
        milli(self.0)
    }
}

/// `value * 1000` rounded, clamped to `0..=u64::MAX` (`as` saturates; NaN gives 0).
fn milli(value: f64) -> u64 {
    (value * 1000.0).round() as u64
}

/// The tolerance for a crate that computes delays in floating point: the largest delay a call can
/// reach under `contract` (one of its first 16 delays, capped and jittered, or its floor) times 2^-17
/// (a few roundings of an `f32` per retry, compounded over the retries of a generated schedule), plus
/// 64 ns for conversions to whole nanoseconds. Zero without a backoff shape.
///
/// ```
/// use timelaw_core::float::float_tolerance;
/// use timelaw_core::{BackoffShape, Contract, VDuration};
/// let second = VDuration::from_secs(1);
/// let mut contract = Contract::default();
/// contract.delays.backoff = Some(BackoffShape::Constant { delay: second });
/// assert_eq!(float_tolerance(&contract), VDuration::from_nanos(1_000_000_000 / (1 << 17) + 64));
/// assert_eq!(float_tolerance(&Contract::default()), VDuration::ZERO);
/// ```
pub fn float_tolerance(contract: &Contract) -> VDuration {
    let Some(shape) = contract.delays.backoff else {
        return VDuration::ZERO;
    };
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    let jitter = contract.delays.jitter.unwrap_or_default();
    // Every shape is monotone in `n` (and so are the cap and the jitter's upper end): the largest delay
    // is at one end.
    let largest = [1, 16]
        .into_iter()
        .map(|n| jitter.range(shape.nth(n).unwrap_or(cap).min(cap)).1)
        .chain(contract.delays.min)
        .max()
        .unwrap_or(VDuration::ZERO);
    largest.div(1 << 17).saturating_add(VDuration::from_nanos(64))
}
