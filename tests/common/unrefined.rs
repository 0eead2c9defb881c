//! `Unrefined`: the reference interpreter's domain without the vocabulary's refinements (its retry-after
//! policies, breaker refinements and interrupt ties, drawn only with `Swarm::refinements`). The planted
//! subjects and the corpus copy are copies of the reference written before those refinements existed and
//! implement none of them, so they describe their configs like this: from the same answers as before, and
//! never claiming a refinement they would not keep.

use timelaw::core::reference::{Policy, Reference};
use timelaw::core::{Abort, Contract, Subject, World};
use timelaw::generators::ConfigNumber;
use timelaw::{Choices, Describe, Swarm};

/// The reference, described without refinements (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Unrefined;

impl Subject for Unrefined {
    type Config = Policy;
    fn name(&self) -> &str {
        "reference-unrefined"
    }
    fn contract(&self, policy: &Policy) -> Contract {
        Reference.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        Reference.run(policy, world)
    }
}

impl Describe for Unrefined {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Policy {
        Reference.describe(c, &Swarm { refinements: false, ..*swarm })
    }
    fn simpler(&self, config: &Policy) -> Vec<Policy> {
        Reference.simpler(config)
    }
    fn outside(&self, config: &Policy) -> Option<String> {
        Reference.outside(config)
    }
    fn numbers(&self, config: &Policy) -> Vec<ConfigNumber> {
        Reference.numbers(config)
    }
    fn with_number(&self, config: &Policy, index: usize, value: u64) -> Option<Policy> {
        Reference.with_number(config, index, value)
    }
    fn rank(&self, config: &Policy) -> Vec<u64> {
        Reference.rank(config)
    }
}
