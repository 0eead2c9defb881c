//! Floats in configs: crates take `f32`/`f64` parameters, and a config must be `Eq + Hash` to be shrunk
//! and stored in fixtures.
//!
//! [`F32`] and [`F64`] compare and hash by bit pattern (so `-0.0 != 0.0` and a NaN equals itself) and
//! serialize as plain JSON numbers. The config domains only draw finite values. Contracts state a float
//! factor exactly (`timelaw_core::FloatFactor`), never rounded to thousandths.
//!
//! [`float_tolerance`] and [`float_tolerance_ppb`] are the delay tolerances a contract grants a crate
//! that computes delays in floating point ([`with_float_tolerance`] sets both).

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

/// How far an `f32` delay computation may drift at one retry, in parts per billion of the delay: four
/// roundings of an `f32` (2^-24, about 60 ppb each: the delay as `f32` seconds, whole seconds plus
/// nanoseconds, the product with a factor or a jitter draw, the conversion back), rounded up.
pub const FLOAT_DRIFT_PPB_PER_RETRY: u64 = 256;

/// The most retries whose drift [`float_tolerance_ppb`] lets compound (a crate that multiplies the last
/// delay by its factor rounds once more at every retry): 4,096, about 0.1% of a delay.
pub const FLOAT_DRIFT_RETRIES_MAX: u64 = 4096;

/// The relative tolerance for a crate that computes delays in floating point: [`FLOAT_DRIFT_PPB_PER_RETRY`]
/// for each retry the contract allows (`retry.max_attempts - 1`, at least one, at most
/// [`FLOAT_DRIFT_RETRIES_MAX`]; that many without a stated limit). [`float_tolerance`] is taken from the
/// first 16 delays; a later delay of a growing backoff can be far larger, and so can its rounding: backon
/// multiplies its `f32` delay by the factor at every retry, so the 27th delay of a factor-1.5 backoff drifted
/// by about 100 ppb (0.6 s of 71 days), far above a tolerance taken from the 16th. Zero without a backoff
/// shape.
///
/// ```
/// use timelaw_core::float::{float_tolerance_ppb, FLOAT_DRIFT_PPB_PER_RETRY};
/// use timelaw_core::{BackoffShape, Contract, VDuration};
/// let mut contract = Contract::default();
/// contract.delays.backoff = Some(BackoffShape::Constant { delay: VDuration::from_secs(1) });
/// contract.retry.max_attempts = Some(41);
/// assert_eq!(float_tolerance_ppb(&contract), 40 * FLOAT_DRIFT_PPB_PER_RETRY);
/// assert_eq!(float_tolerance_ppb(&Contract::default()), 0);
/// ```
pub fn float_tolerance_ppb(contract: &Contract) -> u64 {
    if contract.delays.backoff.is_none() {
        return 0;
    }
    let retries = contract.retry.max_attempts.map_or(FLOAT_DRIFT_RETRIES_MAX, |attempts| u64::from(attempts) - 1);
    FLOAT_DRIFT_PPB_PER_RETRY * retries.clamp(1, FLOAT_DRIFT_RETRIES_MAX)
}

/// `contract` with the tolerances for a crate that computes delays in floating point: the absolute
/// [`float_tolerance`] and, added to any relative tolerance it states, [`float_tolerance_ppb`].
pub fn with_float_tolerance(contract: Contract) -> Contract {
    let mut delays = contract.delays;
    delays.tolerance = float_tolerance(&contract);
    delays.tolerance_ppb = delays.tolerance_ppb.saturating_add(float_tolerance_ppb(&contract));
    Contract { delays, ..contract }
}
