//! How an adapter's config plugs into the generators: one description, three front-ends.
//!
//! Each config type implements [`AdapterConfig`] (its description over [`Choices`], its contract and
//! its shrink candidates); an internal macro then implements
//! [`ConfigDomain`](timelaw_generators::ConfigDomain) for the subject with the native, proptest and
//! `arbitrary` front-ends, exactly as the reference interpreter's domain does.

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

/// Implements [`ConfigDomain`](timelaw_generators::ConfigDomain) for a subject whose config is an
/// [`AdapterConfig`].
macro_rules! config_domain {
    ($subject:ty) => {
        impl timelaw_generators::ConfigDomain for $subject {
            fn sample_config(
                &self,
                rng: &mut timelaw_core::SplitMix64,
                swarm: &timelaw_generators::Swarm,
            ) -> <$subject as timelaw_core::Subject>::Config {
                $crate::domain::AdapterConfig::describe(rng, swarm)
            }
            fn config_strategy(
                &self,
            ) -> proptest::strategy::BoxedStrategy<<$subject as timelaw_core::Subject>::Config> {
                timelaw_generators::choice_strategy(|tape| {
                    $crate::domain::AdapterConfig::describe(tape, &timelaw_generators::Swarm::everything())
                })
            }
            fn arbitrary_config(
                &self,
                bytes: &mut arbitrary::Unstructured<'_>,
            ) -> <$subject as timelaw_core::Subject>::Config {
                $crate::domain::AdapterConfig::describe(bytes, &timelaw_generators::Swarm::everything())
            }
            fn shrink_config(
                &self,
                config: &<$subject as timelaw_core::Subject>::Config,
            ) -> Vec<<$subject as timelaw_core::Subject>::Config> {
                $crate::domain::AdapterConfig::simpler(config)
            }
        }
    };
}

pub(crate) use config_domain;

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
    // Every shape is monotone in `n` (and so are the cap and the jitter's upper end): the largest delay
    // is at one end.
    let largest = [1, 16]
        .into_iter()
        .map(|n| jitter.range(shape.nth(n).unwrap_or(cap).min(cap)).1)
        .chain(contract.delay_min)
        .max()
        .unwrap_or(VDuration::ZERO);
    largest.div(1 << 17).saturating_add(VDuration::from_nanos(64))
}
