//! A subject written as plain functions, without a hand-written `Subject` + [`Describe`] pair:
//! [`subject`]`(name, describe, contract, run)`.
//!
//! The description takes `&mut dyn Choices`, so it is an ordinary function (a method of your config
//! type, say) and every draw helper of [`crate::draw`] works in it. [`subject`] is a `const fn`, so a
//! subject can be a `const` item that the law suite, the fuzz target, the replay test and the CLI all
//! name. Its configs shrink like any described config: the runner knows the answers a config was drawn
//! from ([`crate::answers`]) and the shrinker lowers them, so fields that play no part in a failure go to
//! their simplest values and the one that does to its boundary. What the struct form offers beyond it: a
//! description that reads the [`Swarm`] (this one does not see it, so swarm options that switch features
//! off do not apply to its configs), a subject holding data of its own, and shrink candidates and numbers
//! of its own (`Describe::simpler`, `Describe::numbers`). For those, implement [`Subject`] and
//! [`Describe`].
//!
//! A description helper that takes a draw as a parameter (a duration drawn with [`crate::draw::delay`]
//! or [`crate::draw::delay_ms`], say) is best generic, `fn describe<C: Choices + ?Sized>(c: &mut C,
//! delay: fn(&mut C, VDuration) -> VDuration)`, called as `|c| describe(c, draw::delay)`: a parameter
//! typed `fn(&mut dyn Choices, ..)` does not accept the generic draw functions (its trait object's
//! lifetime is higher-ranked, theirs is fixed).
//!
//! ```
//! use std::time::Duration;
//! use serde::{Deserialize, Serialize};
//! use timelaw_core::sync_loop::{contract_for, serve_calls};
//! use timelaw_core::{execute, Contract, EventKind, Outcome, Schedule, Step, VDuration};
//! use timelaw_generators::{draw, simplest_config, subject, Choices, ConfigDomain, FnSubject, Swarm};
//!
//! /// Our settings: up to `retries` retries, `delay` apart.
//! #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
//! pub struct Settings { retries: u32, delay: VDuration }
//!
//! impl Settings {
//!     fn describe(c: &mut dyn Choices) -> Settings {
//!         Settings { retries: draw::retries(c, 20) as u32, delay: draw::delay(c, draw::SEC) }
//!     }
//!     fn contract(&self) -> Contract {
//!         contract_for(Contract::constant(self.retries + 1, self.delay))
//!     }
//! }
//!
//! /// Our loop: `retries` retries of a constant delay.
//! pub const CONSTANT: FnSubject<Settings> = subject("constant", Settings::describe, Settings::contract, |s, world| {
//!     serve_calls(world, |_| Ok(std::iter::repeat_n(s.delay.to_std(), s.retries as usize)))
//! });
//!
//! assert_eq!(simplest_config(&CONSTANT), Settings { retries: 0, delay: VDuration::ZERO });
//! let config = CONSTANT.sample_config(&mut timelaw_core::SplitMix64::new(7), &Swarm::everything());
//! let trace = execute(&CONSTANT, &config, &Schedule::single(vec![Step::instant(Outcome::Transient); 30]), 0);
//! let attempts = trace.events.iter().filter(|e| e.kind == EventKind::AttemptStart).count();
//! assert_eq!(attempts, config.retries as usize + 1);
//! ```

use std::fmt;

use timelaw_core::{Abort, Contract, StdClocks, StdRandom, Subject, SubjectConfig, World};

use crate::choice::Choices;
use crate::domain::Describe;
use crate::swarm::Swarm;

/// A subject made of plain functions; see [`subject`] and the module docs.
pub struct FnSubject<T> {
    name: &'static str,
    describe: fn(&mut dyn Choices) -> T,
    contract: fn(&T) -> Contract,
    run: fn(&T, &mut World<'_>) -> Result<(), Abort>,
    harness_laws: &'static [&'static str],
    std_clocks: StdClocks,
    std_random: StdRandom,
}

/// A subject called `name`, its configs described once by `describe` (answering `0` everywhere gives
/// the simplest config, as for [`Describe`]), promising `contract(config)`, running a case with `run`
/// (which serves every call of the World's schedule, as [`Subject::run`]).
pub const fn subject<T>(
    name: &'static str,
    describe: fn(&mut dyn Choices) -> T,
    contract: fn(&T) -> Contract,
    run: fn(&T, &mut World<'_>) -> Result<(), Abort>,
) -> FnSubject<T> {
    FnSubject {
        name,
        describe,
        contract,
        run,
        harness_laws: &[],
        std_clocks: StdClocks::Real,
        std_random: StdRandom::Os,
    }
}

impl<T> FnSubject<T> {
    /// The same subject declaring `laws` as judging the harness around the code under test, not the
    /// code (see [`Subject::harness_laws`]).
    pub const fn with_harness_laws(self, laws: &'static [&'static str]) -> FnSubject<T> {
        FnSubject { harness_laws: laws, ..self }
    }

    /// The same subject with std's `Instant::now()` and `SystemTime::now()` reading `clocks` while it
    /// runs a case: [`StdClocks::Virtual`] for code that reads the clock itself (see
    /// [`timelaw_core::std_clocks`]).
    pub const fn with_std_clocks(self, clocks: StdClocks) -> FnSubject<T> {
        FnSubject { std_clocks: clocks, ..self }
    }

    /// The same subject with the randomness std and the `getrandom` crate hand out coming from `random`
    /// while it runs a case: [`StdRandom::Seeded`] for code that draws from the thread RNG itself (see
    /// [`timelaw_core::std_random`]).
    pub const fn with_std_random(self, random: StdRandom) -> FnSubject<T> {
        FnSubject { std_random: random, ..self }
    }
}

// By hand: derived impls would ask `T: Clone` / `T: Copy` / `T: Debug` for function pointers.
impl<T> Clone for FnSubject<T> {
    fn clone(&self) -> FnSubject<T> {
        *self
    }
}

impl<T> Copy for FnSubject<T> {}

impl<T> fmt::Debug for FnSubject<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnSubject").field("name", &self.name).finish_non_exhaustive()
    }
}

impl<T: SubjectConfig> Subject for FnSubject<T> {
    type Config = T;

    fn name(&self) -> &str {
        self.name
    }

    fn contract(&self, config: &T) -> Contract {
        (self.contract)(config)
    }

    fn run(&self, config: &T, world: &mut World<'_>) -> Result<(), Abort> {
        (self.run)(config, world)
    }

    fn harness_laws(&self) -> &'static [&'static str] {
        self.harness_laws
    }

    fn std_clocks(&self) -> StdClocks {
        self.std_clocks
    }

    fn std_random(&self) -> StdRandom {
        self.std_random
    }
}

impl<T: SubjectConfig> Describe for FnSubject<T> {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> T {
        // `&mut C` is itself a (sized) `Choices` that forwards every answer, so it coerces to `dyn`.
        let mut forward = c;
        (self.describe)(&mut forward)
    }
}
