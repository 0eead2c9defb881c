//! A correct subject under every weaker statement of its own contract: the consistency property of the
//! catalogue.
//!
//! A subject that keeps its contract keeps every weaker contract too, so every law must hold on
//! [`Restated`] whatever statement it draws. Each [`Restatement`] only weakens: a stated mechanism
//! restated as present with unstated parameters ([`Declared::Unstated`]: "unknown is not absent"), a time
//! limit of unstated length, coarser timers than the subject's (`timing.timer_granularity`: zero, 1 ns,
//! 1 µs, 1 ms or 1 s), a tolerance on delays, the interrupt tie and the clocks left unstated, a deadline
//! the loop may still act at. Together
//! with the contracts the subject states itself (the reference interpreter draws every retry-after
//! policy and breaker refinement it implements), a run of `Restated::new(Reference)` draws contracts across
//! the whole vocabulary; a violation is a law that fires on correct code, or a subject bug.
//!
//! ```
//! use timelaw_core::reference::Reference;
//! use timelaw_core::{Declared, Subject};
//! use timelaw_generators::restated::{Restated, Restatement};
//! use timelaw_generators::{sample_case, swarm_for};
//!
//! let restated = Restated::new(Reference);
//! assert_eq!(restated.name(), "reference-restated");
//! let case = sample_case(&restated, 7, &swarm_for(1, 0));
//! let honest = Reference.contract(&case.config.config);
//! let weaker = restated.contract(&case.config);
//! assert!(weaker.timing.timer_granularity >= honest.timing.timer_granularity);
//! assert!(weaker.circuit.is_present() == honest.circuit.is_present());
//! ```

use serde::{Deserialize, Serialize};
use timelaw_core::{Abort, Contract, Declared, StdClocks, StdRandom, Subject, VDuration, World};

use crate::choice::Choices;
use crate::domain::{ConfigNumber, Describe};
use crate::swarm::Swarm;

/// The timer granularities a restatement may claim, finest first.
const GRANULARITIES: [VDuration; 5] = [
    VDuration::ZERO,
    VDuration::from_nanos(1),
    VDuration::from_micros(1),
    VDuration::from_millis(1),
    VDuration::from_secs(1),
];

/// How a contract is restated, weaker than the subject's own (see the module docs). The default
/// restates nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restatement {
    /// A stated circuit breaker, retry budget, bulkhead, rate limiter and hedging restated as unstated.
    pub unstated_circuit: bool,
    /// See [`Restatement::unstated_circuit`].
    pub unstated_budget: bool,
    /// See [`Restatement::unstated_circuit`].
    pub unstated_bulkhead: bool,
    /// See [`Restatement::unstated_circuit`].
    pub unstated_limiter: bool,
    /// See [`Restatement::unstated_circuit`].
    pub unstated_hedge: bool,
    /// "It stops retrying after some time": `timing.limit_unstated`.
    pub limit_unstated: bool,
    /// Timers at least this coarse (the larger of this and the subject's own).
    pub timer_granularity: VDuration,
    /// Added to `delays.tolerance`.
    pub tolerance: VDuration,
    /// Added to `delays.tolerance_ppb`.
    pub tolerance_ppb: u64,
    /// `timing.interrupt_tie` left unstated.
    pub interrupt_tie_unstated: bool,
    /// `timing.clocks` left unstated.
    pub clocks_unstated: bool,
    /// The loop may start an attempt at the instant its deadline falls (`timing.deadline_tie`
    /// `InnerWins`). Absent from configs written before it existed (read as `false`).
    #[serde(default)]
    pub deadline_inner_wins: bool,
}

impl Restatement {
    /// `contract` restated.
    pub fn apply(&self, mut contract: Contract) -> Contract {
        fn unstate<T>(declared: &mut Declared<T>, on: bool) {
            if on && declared.is_stated() {
                *declared = Declared::Unstated;
            }
        }
        unstate(&mut contract.circuit, self.unstated_circuit);
        unstate(&mut contract.budget, self.unstated_budget);
        unstate(&mut contract.bulkhead, self.unstated_bulkhead);
        unstate(&mut contract.limiter, self.unstated_limiter);
        unstate(&mut contract.hedge, self.unstated_hedge);
        let timing = &mut contract.timing;
        timing.limit_unstated |= self.limit_unstated;
        timing.timer_granularity = timing.timer_granularity.max(self.timer_granularity);
        if self.interrupt_tie_unstated {
            timing.interrupt_tie = None;
        }
        if self.clocks_unstated {
            timing.clocks = None;
        }
        if self.deadline_inner_wins {
            timing.deadline_tie = timelaw_core::TieRule::InnerWins;
        }
        let delays = &mut contract.delays;
        delays.tolerance = delays.tolerance.saturating_add(self.tolerance);
        delays.tolerance_ppb = delays.tolerance_ppb.saturating_add(self.tolerance_ppb);
        contract
    }

    /// A restatement drawn from `c`: each weakening in one draw of four, the granularity and tolerance
    /// from their short lists (the simplest, nothing restated, first).
    pub fn describe<C: Choices + ?Sized>(c: &mut C) -> Restatement {
        let flag = |c: &mut C| c.maybe(1, 4);
        Restatement {
            unstated_circuit: flag(c),
            unstated_budget: flag(c),
            unstated_bulkhead: flag(c),
            unstated_limiter: flag(c),
            unstated_hedge: flag(c),
            limit_unstated: flag(c),
            timer_granularity: GRANULARITIES[c.weighted(&[4, 1, 1, 2, 1])],
            tolerance: [VDuration::ZERO, VDuration::from_nanos(1), VDuration::from_millis(1)][c.weighted(&[4, 1, 1])],
            tolerance_ppb: [0, 1_000][c.weighted(&[4, 1])],
            interrupt_tie_unstated: flag(c),
            clocks_unstated: flag(c),
            deadline_inner_wins: flag(c),
        }
    }

    /// The answers the restatement is drawn from, in the order [`Restatement::describe`] draws them.
    fn rank(&self) -> Vec<u64> {
        let granularity =
            GRANULARITIES.iter().position(|g| *g == self.timer_granularity).unwrap_or(GRANULARITIES.len());
        let flags = [
            self.unstated_circuit,
            self.unstated_budget,
            self.unstated_bulkhead,
            self.unstated_limiter,
            self.unstated_hedge,
            self.limit_unstated,
        ];
        let mut rank: Vec<u64> = flags.iter().map(|&flag| u64::from(flag)).collect();
        rank.extend([granularity as u64, self.tolerance.as_nanos(), self.tolerance_ppb]);
        rank.extend([self.interrupt_tie_unstated, self.clocks_unstated, self.deadline_inner_wins].map(u64::from));
        rank
    }
}

/// A subject's config with the restatement of its contract.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestatedConfig<C> {
    /// The subject's own config.
    pub config: C,
    /// How its contract is restated.
    pub restatement: Restatement,
}

/// `S` run as it is, promising its own contract restated weaker (see the module docs). Its name is
/// `S`'s with `-restated` added.
#[derive(Clone, Debug)]
pub struct Restated<S> {
    subject: S,
    name: String,
}

impl<S: Subject> Restated<S> {
    /// `subject` under restatements of its contract.
    pub fn new(subject: S) -> Restated<S> {
        let name = format!("{}-restated", subject.name());
        Restated { subject, name }
    }

    /// The subject itself.
    pub fn subject(&self) -> &S {
        &self.subject
    }
}

impl<S: Subject> Subject for Restated<S> {
    type Config = RestatedConfig<S::Config>;

    fn name(&self) -> &str {
        &self.name
    }

    fn contract(&self, config: &Self::Config) -> Contract {
        config.restatement.apply(self.subject.contract(&config.config))
    }

    fn run(&self, config: &Self::Config, world: &mut World<'_>) -> Result<(), Abort> {
        self.subject.run(&config.config, world)
    }

    fn harness_laws(&self) -> &'static [&'static str] {
        self.subject.harness_laws()
    }

    fn std_clocks(&self) -> StdClocks {
        self.subject.std_clocks()
    }

    fn std_random(&self) -> StdRandom {
        self.subject.std_random()
    }
}

impl<S: Describe + Sync> Describe for Restated<S> {
    /// `S`'s config, then the restatement (drawn after it, so `S`'s answers keep their meaning).
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Self::Config {
        let config = self.subject.describe(c, swarm);
        RestatedConfig { config, restatement: Restatement::describe(c) }
    }

    /// `S`'s simpler configs with the same restatement, then the same config restating nothing.
    fn simpler(&self, config: &Self::Config) -> Vec<Self::Config> {
        let restatement = config.restatement;
        let mut out: Vec<Self::Config> = (self.subject.simpler(&config.config).into_iter())
            .map(|simpler| RestatedConfig { config: simpler, restatement })
            .collect();
        if restatement != Restatement::default() {
            out.push(RestatedConfig { config: config.config.clone(), restatement: Restatement::default() });
        }
        out
    }

    fn outside(&self, config: &Self::Config) -> Option<String> {
        self.subject.outside(&config.config)
    }

    fn numbers(&self, config: &Self::Config) -> Vec<ConfigNumber> {
        self.subject.numbers(&config.config)
    }

    fn with_number(&self, config: &Self::Config, index: usize, value: u64) -> Option<Self::Config> {
        let changed = self.subject.with_number(&config.config, index, value)?;
        Some(RestatedConfig { config: changed, restatement: config.restatement })
    }

    fn rank(&self, config: &Self::Config) -> Vec<u64> {
        let mut rank = self.subject.rank(&config.config);
        rank.extend(config.restatement.rank());
        rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use timelaw_core::reference::Reference;
    use timelaw_core::SplitMix64;

    #[test]
    fn every_weakening_is_drawn_and_none_strengthens() {
        let mut rng = SplitMix64::new(3);
        let drawn: Vec<Restatement> = (0..2000).map(|_| Restatement::describe(&mut rng)).collect();
        for granularity in GRANULARITIES {
            assert!(drawn.iter().any(|r| r.timer_granularity == granularity), "{granularity}");
        }
        assert!(drawn.iter().any(|r| r.unstated_circuit && r.unstated_budget && r.limit_unstated));
        assert!(drawn.contains(&Restatement::default()));
        let restated = Restated::new(Reference);
        for _ in 0..200 {
            let config = restated.describe(&mut rng, &Swarm::everything());
            let (honest, weaker) = (Reference.contract(&config.config), restated.contract(&config));
            assert_eq!(honest.circuit.is_present(), weaker.circuit.is_present());
            assert_eq!((honest.retry, honest.rate, honest.delays.max), (weaker.retry, weaker.rate, weaker.delays.max));
            assert!(weaker.delays.tolerance >= honest.delays.tolerance);
        }
        assert_eq!(restated.name(), "reference-restated");
    }
}
