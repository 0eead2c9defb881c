//! The answers a description drew a config from, so that any described config shrinks.
//!
//! A described config is a function of its answers ([`crate::choice`]): answering `0` everywhere gives
//! the simplest config, and a smaller answer a simpler option. So a config drawn by a description
//! shrinks without any code of the subject's own by lowering its answers and describing again, as
//! Hypothesis shrinks its choice sequence: [`ConfigDomain::sample_config_answers`] draws a config as
//! [`ConfigDomain::sample_config`] does and keeps its answers, [`ConfigDomain::config_of_answers`]
//! describes again from lowered answers. The shrinker uses them for a subject that lists no numbers of
//! its own ([`ConfigDomain::config_numbers`]), the short [`subject`](crate::subject) form included.
//!
//! A replay reads `0` past the end of the answers and clamps an answer to the bound asked for, so every
//! list of answers gives a valid config of the domain, and it keeps the answers it really used: the
//! canonical answers of the config it gave.
//!
//! ```
//! use timelaw_core::SplitMix64;
//! use timelaw_generators::{Answers, Choices, ConfigDomain, Swarm};
//! # use timelaw_core::{Abort, Contract, Subject, World};
//! # use timelaw_generators::Describe;
//! # #[derive(Clone)]
//! # struct Pair;
//! # impl Subject for Pair {
//! #     type Config = (u64, u64);
//! #     fn name(&self) -> &str { "pair" }
//! #     fn contract(&self, _: &(u64, u64)) -> Contract { Contract::default() }
//! #     fn run(&self, _: &(u64, u64), _: &mut World<'_>) -> Result<(), Abort> { Ok(()) }
//! # }
//! impl Describe for Pair {
//!     fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> (u64, u64) {
//!         (c.between(1, 5), c.between(0, 999))
//!     }
//! }
//! let swarm = Swarm::everything();
//! let (config, answers) = Pair.sample_config_answers(&mut SplitMix64::new(3), &swarm).unwrap();
//! assert_eq!(config, Pair.sample_config(&mut SplitMix64::new(3), &swarm));
//! assert_eq!(answers.answers, vec![config.0 - 1, config.1]);
//!
//! // The second answer lowered to 7; an answer past the bound is clamped, a missing one is 0.
//! let lowered = Answers { answers: vec![answers.answers[0], 7], ..answers };
//! assert_eq!(Pair.config_of_answers(&lowered).unwrap().0, (config.0, 7));
//! let clamped = Answers { answers: vec![99], swarm };
//! assert_eq!(Pair.config_of_answers(&clamped).unwrap(), ((5, 0), Answers { answers: vec![4], swarm }));
//! ```

use crate::choice::Choices;
#[cfg(doc)]
use crate::domain::ConfigDomain;
use crate::swarm::Swarm;

/// The answers a config was described from, under the swarm it was described under (a swarm switches
/// draws on and off, so the same answers under another swarm describe another config).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Answers {
    /// Every answer, in the order the description asked for them.
    pub answers: Vec<u64>,
    /// The swarm the description read.
    pub swarm: Swarm,
}

/// A source that passes another's answers through and keeps them.
pub(crate) struct Recording<'a, C: ?Sized> {
    inner: &'a mut C,
    used: Vec<u64>,
}

impl<'a, C: Choices + ?Sized> Recording<'a, C> {
    pub(crate) fn new(inner: &'a mut C) -> Recording<'a, C> {
        Recording { inner, used: Vec::new() }
    }

    /// The answers given so far.
    pub(crate) fn into_answers(self) -> Vec<u64> {
        self.used
    }
}

impl<C: Choices + ?Sized> Choices for Recording<'_, C> {
    fn pick(&mut self, bound: u64) -> u64 {
        let answer = self.inner.pick(bound);
        self.used.push(answer);
        answer
    }

    fn position(&self) -> usize {
        self.used.len()
    }
}

/// A source that answers from a list: `0` past its end, each answer clamped below its bound; keeps the
/// answers it gave.
pub(crate) struct Replaying<'a> {
    answers: &'a [u64],
    used: Vec<u64>,
}

impl<'a> Replaying<'a> {
    pub(crate) fn new(answers: &'a [u64]) -> Replaying<'a> {
        Replaying { answers, used: Vec::with_capacity(answers.len()) }
    }

    /// The answers given, trailing zeros removed (answers past the end read `0` anyway): the canonical
    /// answers of what was described.
    pub(crate) fn into_answers(mut self) -> Vec<u64> {
        while self.used.last() == Some(&0) {
            self.used.pop();
        }
        self.used
    }
}

impl Choices for Replaying<'_> {
    fn pick(&mut self, bound: u64) -> u64 {
        let answer = self.answers.get(self.used.len()).copied().unwrap_or(0).min(bound.max(1) - 1);
        self.used.push(answer);
        answer
    }

    fn position(&self) -> usize {
        self.used.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use timelaw_core::SplitMix64;

    #[test]
    fn recording_passes_answers_through_unchanged() {
        let mut plain = SplitMix64::new(9);
        let mut source = SplitMix64::new(9);
        let mut recording = Recording::new(&mut source);
        let drawn: Vec<u64> = (1..20).map(|bound| recording.pick(bound)).collect();
        let expected: Vec<u64> = (1..20).map(|bound| plain.pick(bound)).collect();
        assert_eq!(drawn, expected);
        assert_eq!(recording.into_answers(), expected);
        assert_eq!(source.next_u64(), plain.next_u64(), "the source advanced as without recording");
    }

    #[test]
    fn replaying_clamps_reads_zero_past_the_end_and_drops_trailing_zeros() {
        let mut replaying = Replaying::new(&[5, 9, 0]);
        assert_eq!([replaying.pick(10), replaying.pick(3), replaying.pick(4), replaying.pick(7)], [5, 2, 0, 0]);
        assert_eq!(replaying.position(), 4);
        assert_eq!(replaying.into_answers(), vec![5, 2]);
        assert_eq!(Replaying::new(&[4]).pick(0), 0, "a bound of 0 is treated as 1");
    }
}
