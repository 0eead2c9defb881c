//! How an adapter's config plugs into the generators: one description, three front-ends.
//!
//! Each config type implements [`AdapterConfig`] (its description over [`Choices`], its contract and
//! its shrink candidates); each subject implements [`Describe`](timelaw_generators::Describe) with it,
//! so [`ConfigDomain`](timelaw_generators::ConfigDomain) (native, proptest and `arbitrary` front-ends,
//! the simplest config, shrink candidates) follows, exactly as for the reference interpreter.

use timelaw_core::{Contract, SubjectConfig, VDuration};
use timelaw_generators::{Choices, Swarm};

/// A config with its generator description and its contract.
pub trait AdapterConfig: SubjectConfig {
    /// The one description of the domain; answering `0` everywhere gives the simplest config, and
    /// features `swarm` switches off never appear. Only configs whose contract
    /// [`fits`](crate::draw::fits) are returned.
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> Self;

    /// What the crate's documentation promises for this config.
    fn contract(&self) -> Contract;

    /// Simpler configs for the shrinker, most aggressive first; all fit and differ from `self`.
    fn simpler(&self) -> Vec<Self>;
}

/// The tolerance for a crate that computes delays in floating point: the largest delay a call can
/// reach under `contract` (see [`fits`](crate::draw::fits)) times 2^-17 (a few roundings of an `f32`
/// per retry, compounded over the retries of a generated schedule), plus 64 ns for conversions to whole
/// nanoseconds.
pub(crate) fn float_tolerance(contract: &Contract) -> VDuration {
    let Some(shape) = contract.backoff else {
        return VDuration::ZERO;
    };
    let cap = contract.delay_max.unwrap_or(VDuration::MAX);
    let jitter = contract.jitter.unwrap_or_default();
    let largest = (1..=16)
        .map(|n| jitter.range(shape.nth(n).unwrap_or(cap).min(cap)).1)
        .chain(contract.delay_min)
        .max()
        .unwrap_or(VDuration::ZERO);
    largest.div(1 << 17).saturating_add(VDuration::from_nanos(64))
}
