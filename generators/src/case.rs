//! Whole cases: config, schedule and seed, from each front-end.

use std::fmt;

use arbitrary::Unstructured;
use proptest::num::u64::BinarySearch;
use proptest::strategy::{BoxedStrategy, NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use timelaw_core::{Case, Contract, Schedule, SplitMix64};

use crate::answers::Answers;
use crate::domain::ConfigDomain;
use crate::schedule::{arbitrary_schedule_with, sample_schedule, schedule_description};
use crate::strategy::ChoiceTree;
use crate::swarm::Swarm;

/// The case with seed `case_seed`, drawn natively: one [`SplitMix64`] seeded with `case_seed` draws the
/// config ([`ConfigDomain::sample_config`]), then the schedule for the config's contract
/// ([`sample_schedule`]), then the World's seed (its next output).
///
/// ```
/// use timelaw_core::reference::Reference;
/// use timelaw_generators::{sample_case, swarm_for};
///
/// let case = sample_case(&Reference, 0xC0FFEE, &swarm_for(1, 0));
/// assert_eq!(case, sample_case(&Reference, 0xC0FFEE, &swarm_for(1, 0)));
/// assert!(case.config.validate().is_ok());
/// ```
pub fn sample_case<S: ConfigDomain + ?Sized>(subject: &S, case_seed: u64, swarm: &Swarm) -> Case<S::Config> {
    sample_case_with_contract(subject, case_seed, swarm).0
}

/// [`sample_case`] and the contract of its config, which drawing the schedule needed: a runner that judges
/// the case under that contract asks the subject for it once.
///
/// ```
/// use timelaw_core::reference::Reference;
/// use timelaw_core::Subject;
/// use timelaw_generators::{sample_case, sample_case_with_contract, swarm_for};
///
/// let (case, contract) = sample_case_with_contract(&Reference, 0xC0FFEE, &swarm_for(1, 0));
/// assert_eq!(case, sample_case(&Reference, 0xC0FFEE, &swarm_for(1, 0)));
/// assert_eq!(contract, Reference.contract(&case.config));
/// ```
pub fn sample_case_with_contract<S: ConfigDomain + ?Sized>(
    subject: &S,
    case_seed: u64,
    swarm: &Swarm,
) -> (Case<S::Config>, Contract) {
    let mut rng = SplitMix64::new(case_seed);
    let config = subject.sample_config(&mut rng, swarm);
    let contract = subject.contract(&config);
    let schedule = sample_schedule(&mut rng, swarm, &contract);
    (Case::new(config, schedule, rng.next_u64()), contract)
}

/// The answers the config of [`sample_case`]`(subject, case_seed, swarm)` was drawn from (see
/// [`crate::answers`]); `None` when the domain cannot say.
///
/// ```
/// use timelaw_core::reference::Reference;
/// use timelaw_generators::{sample_case, sample_case_answers, swarm_for, ConfigDomain};
///
/// let swarm = swarm_for(1, 0);
/// let answers = sample_case_answers(&Reference, 0xC0FFEE, &swarm).unwrap();
/// let (config, _) = Reference.config_of_answers(&answers).unwrap();
/// assert_eq!(config, sample_case(&Reference, 0xC0FFEE, &swarm).config);
/// ```
pub fn sample_case_answers<S: ConfigDomain + ?Sized>(subject: &S, case_seed: u64, swarm: &Swarm) -> Option<Answers> {
    subject.sample_config_answers(&mut SplitMix64::new(case_seed), swarm).map(|(_, answers)| answers)
}

/// The answers the config of [`arbitrary_case_with`]`(subject, bytes, swarm)` was decoded from (see
/// [`crate::answers`]); `None` when the domain cannot say.
///
/// ```
/// use timelaw_core::reference::Reference;
/// use timelaw_generators::{arbitrary_case, arbitrary_case_answers, ConfigDomain, Swarm};
///
/// let bytes = b"any bytes at all";
/// let answers = arbitrary_case_answers(&Reference, bytes, &Swarm::everything()).unwrap();
/// assert_eq!(Reference.config_of_answers(&answers).unwrap().0, arbitrary_case(&Reference, bytes).config);
/// ```
pub fn arbitrary_case_answers<S: ConfigDomain + ?Sized>(subject: &S, bytes: &[u8], swarm: &Swarm) -> Option<Answers> {
    subject.arbitrary_config_answers(&mut Unstructured::new(bytes), swarm).map(|(_, answers)| answers)
}

/// Cases of `subject` as a proptest strategy: a config from [`ConfigDomain::config_strategy`], then
/// (flat-mapped on it) a schedule for its contract, as [`schedule_strategy`](crate::schedule_strategy)
/// draws it, and any seed.
///
/// # Shrinking
/// The schedule shrinks first, then the config, then the seed. Unlike `prop_flat_map`, a simpler config
/// does not redraw the schedule at random: the schedule's recorded answers are replayed under the new
/// config's contract, so the schedule stays (nearly) what it was and the config shrinks in a few steps.
pub fn case_strategy<S: ConfigDomain + Clone + 'static>(subject: &S) -> BoxedStrategy<Case<S::Config>> {
    case_strategy_with(subject, Swarm::everything())
}

/// [`case_strategy`] under `swarm`: with [`Swarm::with_concurrency`], configs draw the load mechanisms
/// ([`ConfigDomain::config_strategy_with`]) and schedules overlapping calls.
pub fn case_strategy_with<S: ConfigDomain + Clone + 'static>(
    subject: &S,
    swarm: Swarm,
) -> BoxedStrategy<Case<S::Config>> {
    CaseStrategy { subject: subject.clone(), swarm }.boxed()
}

struct CaseStrategy<S> {
    subject: S,
    swarm: Swarm,
}

impl<S: ConfigDomain> fmt::Debug for CaseStrategy<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CaseStrategy").field("subject", &self.subject.name()).finish()
    }
}

impl<S: ConfigDomain + Clone + 'static> Strategy for CaseStrategy<S> {
    type Tree = CaseTree<S>;
    type Value = Case<S::Config>;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let config = self.subject.config_strategy_with(self.swarm).new_tree(runner)?;
        let contract = self.subject.contract(&config.current());
        let describe = schedule_description(contract, self.swarm);
        let schedule = ChoiceTree::recorded(describe, runner);
        let seed = proptest::num::u64::ANY.new_tree(runner)?;
        let swarm = self.swarm;
        Ok(CaseTree {
            subject: self.subject.clone(),
            swarm,
            config,
            schedule,
            seed,
            moved: None,
            schedule_before: None,
        })
    }
}

/// Which part of a case proposed the current candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Schedule,
    Config,
    Seed,
}

/// The value tree of [`case_strategy`] (see its shrinking section).
struct CaseTree<S: ConfigDomain> {
    subject: S,
    swarm: Swarm,
    config: Box<dyn ValueTree<Value = S::Config>>,
    schedule: ChoiceTree<Schedule>,
    seed: BinarySearch,
    moved: Option<Part>,
    /// The schedule tree before the config's current candidate, to go back to.
    schedule_before: Option<ChoiceTree<Schedule>>,
}

impl<S: ConfigDomain> CaseTree<S> {
    /// Replays the schedule's answers under the contract of the config's current value.
    fn follow_config(&mut self, answers: &[u64]) {
        let contract = self.subject.contract(&self.config.current());
        self.schedule = ChoiceTree::replayed(schedule_description(contract, self.swarm), answers);
    }
}

impl<S: ConfigDomain> ValueTree for CaseTree<S> {
    type Value = Case<S::Config>;

    fn current(&self) -> Case<S::Config> {
        Case::new(self.config.current(), self.schedule.current(), self.seed.current())
    }

    fn simplify(&mut self) -> bool {
        if self.schedule.simplify() {
            self.moved = Some(Part::Schedule);
            return true;
        }
        if self.config.simplify() {
            let before = self.schedule.clone();
            self.follow_config(before.answers());
            self.schedule_before = Some(before);
            self.moved = Some(Part::Config);
            return true;
        }
        if self.seed.simplify() {
            self.moved = Some(Part::Seed);
            return true;
        }
        self.moved = None;
        false
    }

    fn complicate(&mut self) -> bool {
        match self.moved {
            Some(Part::Schedule) => self.schedule.complicate(),
            Some(Part::Config) => {
                let Some(before) = self.schedule_before.take() else { return false };
                if self.config.complicate() {
                    self.follow_config(before.answers());
                    self.schedule_before = Some(before);
                    return true;
                }
                // The config is back at its last failing value: so is the schedule.
                self.schedule = before;
                self.moved = None;
                true
            }
            Some(Part::Seed) => self.seed.complicate(),
            None => false,
        }
    }
}

/// The case that fuzz input `bytes` decodes to. Total: every byte string gives a valid case, and running
/// out of bytes gives the simplest choices (the empty input gives the simplest case of all).
///
/// ```
/// use timelaw_core::reference::{Backoff, Policy, Reference};
/// use timelaw_core::{Case, Schedule, VDuration};
/// use timelaw_generators::arbitrary_case;
///
/// let simplest = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
/// assert_eq!(arbitrary_case(&Reference, &[]), Case::new(simplest, Schedule::single(vec![]), 0));
/// ```
pub fn arbitrary_case<S: ConfigDomain + ?Sized>(subject: &S, bytes: &[u8]) -> Case<S::Config> {
    arbitrary_case_with(subject, bytes, &Swarm::everything())
}

/// [`arbitrary_case`] under `swarm`: with [`Swarm::with_concurrency`], configs draw the load mechanisms
/// ([`ConfigDomain::arbitrary_config_with`]) and schedules overlapping calls (a fuzz target for them).
pub fn arbitrary_case_with<S: ConfigDomain + ?Sized>(subject: &S, bytes: &[u8], swarm: &Swarm) -> Case<S::Config> {
    let mut u = Unstructured::new(bytes);
    let config = subject.arbitrary_config_with(&mut u, swarm);
    let contract = subject.contract(&config);
    let schedule = arbitrary_schedule_with(&mut u, &contract, swarm);
    // Reading a u64 never fails; past the end of the bytes it is 0.
    let seed = u.arbitrary::<u64>().unwrap_or(0);
    Case::new(config, schedule, seed)
}
