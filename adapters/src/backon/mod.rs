//! backon 1.6.0: its three backoff builders (each a subject driven by the documented retry loop) and
//! its async `Retry` driver with a recording sleeper on tokio's paused clock.
//!
//! | subject | name | config |
//! |---|---|---|
//! | [`BackonExponential`] | `backon-exponential` | [`BackonExponentialConfig`] (`ExponentialBuilder`) |
//! | [`BackonFibonacci`] | `backon-fibonacci` | [`BackonFibonacciConfig`] (`FibonacciBuilder`) |
//! | [`BackonConstant`] | `backon-constant` | [`BackonConstantConfig`] (`ConstantBuilder`) |
//! | [`BackonRetry`] | `backon-retry` | [`BackonRetryConfig`] (`Retryable::retry` with `when`, `notify`, `sleep`) |
//!
//! # Durations
//! Every delay setting is a `std::time::Duration`, as backon takes it, drawn with
//! [`draw::std_delay`](timelaw_generators::draw::std_delay): mostly ordinary values, one time in eight a
//! boundary value up to `Duration::MAX`. Fixtures write them as text (`"1.5s"`, `"max"`).
//!
//! # Randomness
//! backon's jitter draws from `fastrand`; every builder has `with_jitter_seed`, which the subjects seed
//! from the World once per call, so jitter is replayable from the case seed.
//!
//! # Attempts
//! `with_max_times(n)` lets the backoff yield `n` delays, so a call makes at most `n + 1` attempts. The
//! contracts read it that way: `ConstantBuilder`'s docs say it provides "a steady delay with a fixed
//! number of retries", and the `Backoff` trait says `Some(Duration)` means "sleep and retry the
//! request". (`with_max_times` itself says "the maximum number of attempts"; see docs/findings.md.)

/// A backon builder behind the documented retry loop: the unit struct, its `Subject` impl (jitter seeded
/// from the World once per call) and its `Describe` (so its `ConfigDomain`).
macro_rules! builder_subject {
    ($(#[$doc:meta])* $subject:ident, $config:ty, $name:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $subject;

        impl timelaw_core::Subject for $subject {
            type Config = $config;

            fn name(&self) -> &str {
                $name
            }

            fn contract(&self, config: &$config) -> timelaw_core::Contract {
                crate::domain::AdapterConfig::contract(config)
            }

            fn harness_laws(&self) -> &'static [&'static str] {
                timelaw_core::sync_loop::LOOP_LAWS
            }

            fn run(&self, config: &$config, world: &mut timelaw_core::World<'_>) -> Result<(), timelaw_core::Abort> {
                timelaw_core::sync_loop::serve_calls(world, |world| {
                    let seed = if config.jitter { world.random_u64()? } else { 0 };
                    Ok(config.builder(seed).build())
                })
            }
        }

        crate::domain::describe_by_config!($subject);
    };
}

use builder_subject;

mod constant;
mod exponential;
mod fibonacci;
mod retry;

pub use constant::{BackonConstant, BackonConstantConfig};
pub use exponential::{BackonExponential, BackonExponentialConfig};
pub use fibonacci::{BackonFibonacci, BackonFibonacciConfig};
pub use retry::{BackonBuilder, BackonRetry, BackonRetryConfig};

use timelaw_core::JitterBounds;
use timelaw_generators::choice::optional;
use timelaw_generators::Choices;

use timelaw_generators::draw;

/// backon's jitter adds a random share of the delay "within `(0, current_delay)`" (the builders'
/// `with_jitter` docs): the delay lies in `b..=2b`.
pub(crate) fn jitter_bounds(jitter: bool) -> JitterBounds {
    if jitter {
        JitterBounds::Additive { ratio_milli: 1000 }
    } else {
        JitterBounds::None
    }
}

/// `contract` with the tolerance for backon's `f32` arithmetic when jitter is on (without jitter backon's
/// delays are exact).
pub(crate) fn with_jitter_tolerance(contract: timelaw_core::Contract, jitter: bool) -> timelaw_core::Contract {
    match jitter {
        true => timelaw_core::float::with_float_tolerance(contract),
        false => timelaw_core::Contract {
            delays: timelaw_core::DelayContract { tolerance: timelaw_core::VDuration::ZERO, ..contract.delays },
            ..contract
        },
    }
}

/// `max_times`: the default 3, a drawn count, or `None` (`without_max_times`).
pub(crate) fn describe_max_times<C: Choices + ?Sized>(c: &mut C) -> Option<u32> {
    match c.weighted(&[2, 5, 1]) {
        0 => Some(3),
        1 => Some(draw::retries(c, 1000) as u32), // At most 1000.
        _ => None,
    }
}

/// Jitter on in a third of draws when the swarm allows it.
pub(crate) fn describe_jitter<C: Choices + ?Sized>(c: &mut C, swarm: &timelaw_generators::Swarm) -> bool {
    optional(c, swarm.jitter, 1, 3, |_| ()).is_some()
}

/// `max_times` as the attempts it allows (`n` retries after the first attempt).
pub(crate) fn attempts(max_times: Option<u32>) -> Option<u32> {
    max_times.map(|times| times.saturating_add(1))
}

/// `u32` to backon's `usize` (lossless on every target timelaw supports).
pub(crate) fn times(max_times: u32) -> usize {
    max_times as usize
}
