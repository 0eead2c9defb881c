//! How an adapter's config plugs into the generators: one description, three front-ends.
//!
//! Each config type implements [`AdapterConfig`] (its description over [`Choices`], its contract and
//! its shrink candidates); each subject implements [`Describe`](timelaw_generators::Describe) with it,
//! so [`ConfigDomain`](timelaw_generators::ConfigDomain) (native, proptest and `arbitrary` front-ends,
//! the simplest config, shrink candidates) follows, exactly as for the reference interpreter.

use timelaw_core::{Contract, SubjectConfig, VDuration};
use timelaw_generators::{Choices, Swarm};

/// The granularity of tokio's timers, stated (`timing.timer_granularity`) by every adapter whose sleeps,
/// timeouts or deadlines are tokio timers: "`Sleep` operates at millisecond granularity and should not be
/// used for tasks that require high-resolution timers." (`tokio::time::Sleep`). A timer due off the
/// millisecond grid fires on the next tick, so the timing laws accept an interruption up to 1 ms late.
pub const TOKIO_TIMER_GRANULARITY: VDuration = VDuration::from_millis(1);

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
