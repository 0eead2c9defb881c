//! The seam between a subject and the generators.
//!
//! Most subjects describe their config domain once, as a function over [`Choices`]: implement
//! [`Describe`] and [`ConfigDomain`] follows (native sampling, the proptest strategy, `arbitrary`
//! decoding, the simplest config and shrink candidates all come from the one description). Subjects
//! that need hand-written strategies implement the three forms of [`ConfigDomain`] directly.

use arbitrary::Unstructured;
use proptest::strategy::BoxedStrategy;
use timelaw_core::{SplitMix64, Subject};

use crate::answers::{Answers, Recording, Replaying};
use crate::choice::Choices;
use crate::strategy::choice_strategy;
use crate::swarm::Swarm;

/// A subject whose configs timelaw can generate, decode from fuzz input, and shrink.
///
/// Implemented for every subject that implements [`Describe`]; implement it by hand only when the
/// three forms must differ (hand-written strategies, say).
pub trait ConfigDomain: Subject {
    /// A config drawn from `rng`, with features switched on and off by `swarm` (fast native sampling;
    /// the runner's hot loop).
    fn sample_config(&self, rng: &mut SplitMix64, swarm: &Swarm) -> Self::Config;

    /// The same domain as a proptest strategy (shrinks with proptest's own machinery).
    fn config_strategy(&self) -> BoxedStrategy<Self::Config>;

    /// The same domain decoded from fuzz bytes. Total: every byte string gives a valid config (running
    /// out of bytes yields the smallest choices).
    fn arbitrary_config(&self, bytes: &mut Unstructured<'_>) -> Self::Config;

    /// [`ConfigDomain::config_strategy`] under `swarm` (for [`Swarm::with_concurrency`]); the default
    /// ignores the swarm.
    fn config_strategy_with(&self, swarm: Swarm) -> BoxedStrategy<Self::Config> {
        let _ = swarm;
        self.config_strategy()
    }

    /// [`ConfigDomain::arbitrary_config`] under `swarm`; the default ignores the swarm.
    fn arbitrary_config_with(&self, bytes: &mut Unstructured<'_>, swarm: &Swarm) -> Self::Config {
        let _ = swarm;
        self.arbitrary_config(bytes)
    }

    /// Simpler configs to try while shrinking, most aggressive first. Every candidate must be valid.
    /// The default offers none.
    fn shrink_config(&self, config: &Self::Config) -> Vec<Self::Config> {
        let _ = config;
        Vec::new()
    }

    /// The simplest config of the domain. The default decodes the empty fuzz input (every answer `0`).
    fn simplest_config(&self) -> Self::Config {
        self.arbitrary_config(&mut Unstructured::new(&[]))
    }

    /// Why `config` lies outside this domain, or `None` when it belongs (see [`crate::membership`]).
    /// The shrinker never accepts a candidate outside, and replay warns about a fixture outside. The
    /// default knows nothing against any config.
    fn config_outside(&self, config: &Self::Config) -> Option<String> {
        let _ = config;
        None
    }

    /// The numbers of `config` the shrinker may lower one at a time (counts, percentages, durations in
    /// nanoseconds), each with the smallest value its domain allows. The shrinker tries the minimum,
    /// then a binary search down to the smallest value that still fails. The default lists none.
    fn config_numbers(&self, config: &Self::Config) -> Vec<ConfigNumber> {
        let _ = config;
        Vec::new()
    }

    /// `config` with its number `index` (as [`ConfigDomain::config_numbers`] lists them) set to
    /// `value`; `None` when that config would not be valid.
    fn with_config_number(&self, config: &Self::Config, index: usize, value: u64) -> Option<Self::Config> {
        let _ = (config, index, value);
        None
    }

    /// The place of `config` in the domain's total order on configs: ranks compare lexicographically,
    /// a smaller rank is a simpler config, and the shrinker never accepts a config of a larger rank
    /// (at an equal schedule shape; see `timelaw::shrink::order`). A natural rank is the sequence of
    /// answers the config is drawn from, simplest answer `0` (see [`Describe::rank`]). The default
    /// ranks every config alike (`[]`): the shrinker then follows the order of the answers a config
    /// was drawn from, when it knows them ([`crate::answers`]), and the domain's own shrink candidates.
    fn config_rank(&self, config: &Self::Config) -> Vec<u64> {
        let _ = config;
        Vec::new()
    }

    /// [`ConfigDomain::sample_config`] with the answers the config was drawn from (see
    /// [`crate::answers`]): the same config, `rng` advanced the same way. `None` when the domain cannot
    /// say (the default; a described domain can).
    fn sample_config_answers(&self, rng: &mut SplitMix64, swarm: &Swarm) -> Option<(Self::Config, Answers)> {
        let _ = (rng, swarm);
        None
    }

    /// [`ConfigDomain::arbitrary_config_with`] with the answers the config was decoded from (see
    /// [`crate::answers`]): the same config, `bytes` read the same way. `None` when the domain cannot say
    /// (the default; a described domain can).
    fn arbitrary_config_answers(&self, bytes: &mut Unstructured<'_>, swarm: &Swarm) -> Option<(Self::Config, Answers)> {
        let _ = (bytes, swarm);
        None
    }

    /// The config `answers` describe, with the answers the description really used (each clamped below
    /// its bound, `0` past the end, trailing zeros dropped); `None` when the domain cannot say (the
    /// default; a described domain can). Every list of answers gives a config of the domain.
    fn config_of_answers(&self, answers: &Answers) -> Option<(Self::Config, Answers)> {
        let _ = answers;
        None
    }
}

/// One number of a config the shrinker may lower (see [`ConfigDomain::config_numbers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigNumber {
    /// The field, as a path (`circuit.open_for`).
    pub name: &'static str,
    /// Its value (a duration in nanoseconds).
    pub value: u64,
    /// The smallest value its domain allows.
    pub min: u64,
}

/// A subject whose config domain is written once, over [`Choices`]; [`ConfigDomain`] follows.
///
/// # The description's contract
/// - `describe` asks `c` for answers and builds a config from them; answering `0` everywhere gives the
///   simplest config ([`Simplest`], [`simplest_config`]), so running out of fuzz bytes and proptest's
///   shrinking both move towards simple configs (see [`crate::choice`] for how to write one that
///   shrinks well);
/// - features that `swarm` switches off never appear (the proptest and `arbitrary` front-ends pass
///   [`Swarm::everything`]);
/// - every config it returns is valid for the subject.
///
/// # What follows from it
/// | front-end | from |
/// |---|---|
/// | [`ConfigDomain::sample_config`] | `describe(rng, swarm)` over [`SplitMix64`] |
/// | [`ConfigDomain::config_strategy`] | [`choice_strategy`] over `describe` (shrinks the answers) |
/// | [`ConfigDomain::arbitrary_config`] | `describe(bytes, Swarm::everything())` over [`Unstructured`] |
/// | [`ConfigDomain::simplest_config`] | `describe(Simplest, Swarm::everything())` |
/// | [`ConfigDomain::shrink_config`] | [`Describe::simpler`] |
/// | [`ConfigDomain::sample_config_answers`], [`ConfigDomain::config_of_answers`] | `describe` recording or replaying its answers ([`crate::answers`]) |
///
/// ```
/// use timelaw_core::{Abort, Contract, Subject, World};
/// use timelaw_generators::{simplest_config, Choices, ConfigDomain, Describe, Swarm};
///
/// #[derive(Clone)]
/// struct Fixed;
/// impl Subject for Fixed {
///     type Config = (u32, u64); // (attempts, delay in ms)
///     fn name(&self) -> &str { "fixed" }
///     fn contract(&self, _: &(u32, u64)) -> Contract { Contract::default() }
///     fn run(&self, _: &(u32, u64), _: &mut World<'_>) -> Result<(), Abort> { Ok(()) }
/// }
/// impl Describe for Fixed {
///     fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> (u32, u64) {
///         (c.between(1, 5) as u32, c.between(0, 999))
///     }
/// }
/// assert_eq!(simplest_config(&Fixed), (1, 0));
/// assert_eq!(Fixed.shrink_config(&(3, 40)), vec![(1, 0)]);
/// let config = Fixed.sample_config(&mut timelaw_core::SplitMix64::new(1), &Swarm::everything());
/// assert!((1..=5).contains(&config.0));
/// ```
///
/// A described subject is `Clone + Send + 'static` (the proptest strategy keeps its own copy); subjects
/// are usually unit structs.
pub trait Describe: Subject + Clone + Send + 'static {
    /// The one description of the config domain (see the trait docs).
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Self::Config;

    /// Simpler configs for the shrinker, most aggressive first; each valid and different from
    /// `config`. The default offers the simplest config when `config` is not already it.
    fn simpler(&self, config: &Self::Config) -> Vec<Self::Config> {
        let simplest = simplest_config(self);
        if simplest == *config {
            Vec::new()
        } else {
            vec![simplest]
        }
    }

    /// Why `config` lies outside the description's domain, or `None` when it belongs. A description
    /// cannot in general be run backwards, so the default finds nothing; override it with the checks
    /// the description promises (for the reference interpreter, `Policy::validate`).
    fn outside(&self, config: &Self::Config) -> Option<String> {
        let _ = config;
        None
    }

    /// The numbers of `config` the shrinker may lower ([`ConfigDomain::config_numbers`]); none by default.
    fn numbers(&self, config: &Self::Config) -> Vec<ConfigNumber> {
        let _ = config;
        Vec::new()
    }

    /// `config` with number `index` set to `value` ([`ConfigDomain::with_config_number`]); `None` by
    /// default.
    fn with_number(&self, config: &Self::Config, index: usize, value: u64) -> Option<Self::Config> {
        let _ = (config, index, value);
        None
    }

    /// The rank of `config` in the domain's total order ([`ConfigDomain::config_rank`]): best the
    /// answers the description draws `config` from, in the order it draws them (every answer `0` is
    /// [`simplest_config`]). A description cannot in general be run backwards, so the default ranks
    /// every config alike (`[]`); override it for a total order (the reference interpreter's is
    /// `timelaw_generators::reference_rank`).
    fn rank(&self, config: &Self::Config) -> Vec<u64> {
        let _ = config;
        Vec::new()
    }
}

impl<S: Describe> ConfigDomain for S {
    fn sample_config(&self, rng: &mut SplitMix64, swarm: &Swarm) -> S::Config {
        self.describe(rng, swarm)
    }

    fn config_strategy(&self) -> BoxedStrategy<S::Config> {
        // The strategy outlives `&self`, so it describes with its own copy of the subject.
        let subject = self.clone();
        choice_strategy(move |tape| subject.describe(tape, &Swarm::everything()))
    }

    fn arbitrary_config(&self, bytes: &mut Unstructured<'_>) -> S::Config {
        self.describe(bytes, &Swarm::everything())
    }

    fn config_strategy_with(&self, swarm: Swarm) -> BoxedStrategy<S::Config> {
        let subject = self.clone();
        choice_strategy(move |tape| subject.describe(tape, &swarm))
    }

    fn arbitrary_config_with(&self, bytes: &mut Unstructured<'_>, swarm: &Swarm) -> S::Config {
        self.describe(bytes, swarm)
    }

    fn shrink_config(&self, config: &S::Config) -> Vec<S::Config> {
        self.simpler(config)
    }

    fn simplest_config(&self) -> S::Config {
        simplest_config(self)
    }

    fn config_outside(&self, config: &S::Config) -> Option<String> {
        self.outside(config)
    }

    fn config_numbers(&self, config: &S::Config) -> Vec<ConfigNumber> {
        self.numbers(config)
    }

    fn with_config_number(&self, config: &S::Config, index: usize, value: u64) -> Option<S::Config> {
        self.with_number(config, index, value)
    }

    fn config_rank(&self, config: &S::Config) -> Vec<u64> {
        self.rank(config)
    }

    fn sample_config_answers(&self, rng: &mut SplitMix64, swarm: &Swarm) -> Option<(S::Config, Answers)> {
        let mut recording = Recording::new(rng);
        let config = self.describe(&mut recording, swarm);
        Some((config, Answers { answers: recording.into_answers(), swarm: *swarm }))
    }

    fn arbitrary_config_answers(&self, bytes: &mut Unstructured<'_>, swarm: &Swarm) -> Option<(S::Config, Answers)> {
        let mut recording = Recording::new(bytes);
        let config = self.describe(&mut recording, swarm);
        Some((config, Answers { answers: recording.into_answers(), swarm: *swarm }))
    }

    fn config_of_answers(&self, answers: &Answers) -> Option<(S::Config, Answers)> {
        let mut replaying = Replaying::new(&answers.answers);
        let config = self.describe(&mut replaying, &answers.swarm);
        Some((config, Answers { answers: replaying.into_answers(), swarm: answers.swarm }))
    }
}

/// The simplest config of a described domain: the description answered with `0` everywhere.
pub fn simplest_config<S: Describe>(subject: &S) -> S::Config {
    subject.describe(&mut Simplest, &Swarm::everything())
}

/// A source of answers that answers `0` to everything: the simplest value of any description.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Simplest;

impl Choices for Simplest {
    fn pick(&mut self, _bound: u64) -> u64 {
        0
    }
}

/// Gives `$subject` the domain of `$like`, another described subject with the same config type: every
/// [`Describe`] method forwards to `$like`, so sampling, the proptest strategy, `arbitrary` decoding,
/// shrink candidates, domain membership, shrinkable numbers and ranks are exactly `$like`'s. Meant for a
/// variant of an existing subject, such as a deliberately broken copy of the reference interpreter.
///
/// ```
/// use timelaw_core::reference::{Policy, Reference};
/// use timelaw_core::{Abort, Contract, Subject, World};
/// use timelaw_generators::{describe_like, simplest_config};
///
/// /// The reference interpreter under another name (a real variant would change `run`).
/// #[derive(Clone, Debug)]
/// struct Variant;
/// impl Subject for Variant {
///     type Config = Policy;
///     fn name(&self) -> &str {
///         "variant"
///     }
///     fn contract(&self, policy: &Policy) -> Contract {
///         Reference.contract(policy)
///     }
///     fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
///         Reference.run(policy, world)
///     }
/// }
/// describe_like!(Variant => Reference);
///
/// assert_eq!(simplest_config(&Variant), simplest_config(&Reference));
/// ```
#[macro_export]
macro_rules! describe_like {
    ($subject:ty => $like:expr) => {
        impl $crate::Describe for $subject {
            fn describe<C: $crate::Choices + ?Sized>(
                &self,
                c: &mut C,
                swarm: &$crate::Swarm,
            ) -> <Self as $crate::__Subject>::Config {
                $crate::Describe::describe(&$like, c, swarm)
            }
            fn simpler(
                &self,
                config: &<Self as $crate::__Subject>::Config,
            ) -> Vec<<Self as $crate::__Subject>::Config> {
                $crate::Describe::simpler(&$like, config)
            }
            fn outside(&self, config: &<Self as $crate::__Subject>::Config) -> Option<String> {
                $crate::Describe::outside(&$like, config)
            }
            fn numbers(&self, config: &<Self as $crate::__Subject>::Config) -> Vec<$crate::ConfigNumber> {
                $crate::Describe::numbers(&$like, config)
            }
            fn with_number(
                &self,
                config: &<Self as $crate::__Subject>::Config,
                index: usize,
                value: u64,
            ) -> Option<<Self as $crate::__Subject>::Config> {
                $crate::Describe::with_number(&$like, config, index, value)
            }
            fn rank(&self, config: &<Self as $crate::__Subject>::Config) -> Vec<u64> {
                $crate::Describe::rank(&$like, config)
            }
        }
    };
}
