//! How an adapter's config plugs into the generators: one description, three front-ends.
//!
//! Each config type implements [`AdapterConfig`] (its description over [`Choices`], its contract and
//! its shrink candidates); each subject implements [`Describe`](timelaw_generators::Describe) with it,
//! so [`ConfigDomain`](timelaw_generators::ConfigDomain) (native, proptest and `arbitrary` front-ends,
//! the simplest config, shrink candidates) follows, exactly as for the reference interpreter.

use timelaw_core::{Contract, SubjectConfig};
use timelaw_generators::{Choices, Swarm};

/// A config with its generator description and its contract.
pub trait AdapterConfig: SubjectConfig {
    /// The one description of the domain; answering `0` everywhere gives the simplest config, and
    /// features `swarm` switches off never appear. Every legal config can be returned (no filter: a run
    /// past the World's virtual time limit is cut there).
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> Self;

    /// What the crate's documentation promises for this config.
    fn contract(&self) -> Contract;

    /// Simpler configs for the shrinker, most aggressive first; all differ from `self`.
    fn simpler(&self) -> Vec<Self>;
}

/// `impl Describe for SUBJECT` from its config's [`AdapterConfig`] description and shrink candidates:
/// the one forwarding impl every adapter subject has, written once (`describe_by_config!(BackonRetry);`).
/// (A blanket impl cannot do it: `Describe` is another crate's trait.)
macro_rules! describe_by_config {
    ($subject:ty) => {
        impl timelaw_generators::Describe for $subject {
            fn describe<C: timelaw_generators::Choices + ?Sized>(
                &self,
                c: &mut C,
                swarm: &timelaw_generators::Swarm,
            ) -> <$subject as timelaw_core::Subject>::Config {
                <<$subject as timelaw_core::Subject>::Config as crate::domain::AdapterConfig>::describe(c, swarm)
            }

            fn simpler(
                &self,
                config: &<$subject as timelaw_core::Subject>::Config,
            ) -> Vec<<$subject as timelaw_core::Subject>::Config> {
                crate::domain::AdapterConfig::simpler(config)
            }
        }
    };
}

pub(crate) use describe_by_config;
