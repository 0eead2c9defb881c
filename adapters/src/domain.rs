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
