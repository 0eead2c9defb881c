//! The seam between a subject and the generators: a subject describes its config domain once, in the
//! three forms the front-ends need.

use arbitrary::Unstructured;
use proptest::strategy::BoxedStrategy;
use timelaw_core::{SplitMix64, Subject};

use crate::swarm::Swarm;

/// A subject whose configs timelaw can generate, decode from fuzz input, and shrink.
///
/// Implemented for the reference interpreter in this crate; a user implements it for their own subject.
pub trait ConfigDomain: Subject {
    /// A config drawn from `rng`, with features switched on and off by `swarm` (fast native sampling;
    /// the runner's hot loop).
    fn sample_config(&self, rng: &mut SplitMix64, swarm: &Swarm) -> Self::Config;

    /// The same domain as a proptest strategy (shrinks with proptest's own machinery).
    fn config_strategy(&self) -> BoxedStrategy<Self::Config>;

    /// The same domain decoded from fuzz bytes. Total: every byte string gives a valid config (running
    /// out of bytes yields the smallest choices).
    fn arbitrary_config(&self, bytes: &mut Unstructured<'_>) -> Self::Config;

    /// Simpler configs to try while shrinking, most aggressive first. Every candidate must be valid.
    /// The default offers none.
    fn shrink_config(&self, config: &Self::Config) -> Vec<Self::Config> {
        let _ = config;
        Vec::new()
    }
}
