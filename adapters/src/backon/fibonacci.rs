//! `backon-fibonacci`: backon's `FibonacciBuilder`.

use backon::{BackoffBuilder, FibonacciBuilder};
use serde::{Deserialize, Serialize};
use std::time::Duration;

use timelaw_core::{BackoffShape, Contract, VDuration};
use timelaw_generators::{Choices, Swarm};

use super::{attempts, describe_jitter, describe_max_times, jitter_bounds, times};
use crate::domain::AdapterConfig;
use timelaw_core::sync_loop::loop_contract;
use timelaw_generators::draw::{self, offer, SEC};

/// backon's `FibonacciBuilder`, setting for setting.
///
/// | field | builder call | domain (simplest first) |
/// |---|---|---|
/// | `jitter` | `with_jitter` (+ `with_jitter_seed` from the World) | off, on in a third of draws |
/// | `min_delay` | `with_min_delay` | 0 ns..=1 h, 1 s (the default); one in eight a boundary value up to `Duration::MAX` |
/// | `max_delay` | `with_max_delay` / `without_max_delay` (`None`) | 60 s, above `min_delay`, any (also below it), none |
/// | `max_times` | `with_max_times` / `without_max_times` (`None`) | 3, 0..=1000, none |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackonFibonacciConfig {
    /// Add jitter.
    pub jitter: bool,
    /// The first delay and the unit of the sequence.
    #[serde(with = "timelaw_core::duration_text")]
    pub min_delay: Duration,
    /// The cap; `None` for `without_max_delay`.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max_delay: Option<Duration>,
    /// Delays (retries) before giving up; `None` for `without_max_times`.
    pub max_times: Option<u32>,
}

impl Default for BackonFibonacciConfig {
    /// backon's defaults: no jitter, 1 s to 60 s, 3 times.
    fn default() -> BackonFibonacciConfig {
        BackonFibonacciConfig {
            jitter: false,
            min_delay: Duration::from_secs(1),
            max_delay: Some(Duration::from_secs(60)),
            max_times: Some(3),
        }
    }
}

impl BackonFibonacciConfig {
    /// The builder this config describes, its jitter seeded with `seed`.
    pub fn builder(&self, seed: u64) -> FibonacciBuilder {
        let mut builder = FibonacciBuilder::new().with_min_delay(self.min_delay);
        builder = match self.max_delay {
            Some(max) => builder.with_max_delay(max),
            None => builder.without_max_delay(),
        };
        builder = match self.max_times {
            Some(max_times) => builder.with_max_times(times(max_times)),
            None => builder.without_max_times(),
        };
        match self.jitter {
            true => builder.with_jitter().with_jitter_seed(seed),
            false => builder,
        }
    }
}

fn describe_once<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonFibonacciConfig {
    let jitter = describe_jitter(c, swarm);
    let min_delay = draw::std_delay(c, SEC);
    let max_delay = match c.weighted(&[2, 4, 2, 1]) {
        0 => Some(Duration::from_secs(60)),
        1 => Some(min_delay.saturating_add(draw::std_delay(c, SEC))),
        2 => Some(draw::std_delay(c, SEC)),
        _ => None,
    };
    let max_times = describe_max_times(c);
    BackonFibonacciConfig { jitter, min_delay, max_delay, max_times }
}

impl AdapterConfig for BackonFibonacciConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonFibonacciConfig {
        describe_once(c, swarm)
    }

    /// - `max_attempts`: `max_times + 1` (see the module docs of [`crate::backon`]).
    /// - `delay_max`: `max_delay`: the builder calls it "the maximum delay for the current backoff". Its
    ///   next sentence, "The delay will not increase if the current delay exceeds the maximum delay",
    ///   explains when growth stops; a user reads the setting as a cap.
    /// - `delay_min`: the smaller of `min_delay` and `max_delay`.
    /// - `backoff`: Fibonacci multiples of `min_delay` (1, 1, 2, 3, 5, ...); jitter "between
    ///   `(0, current_delay)`" (`with_jitter`).
    fn contract(&self) -> Contract {
        let contract = {
            let mut promise = loop_contract();
            promise.retry.max_attempts = attempts(self.max_times);
            promise.delays.min = Some(VDuration::from_std(self.min_delay.min(self.max_delay.unwrap_or(Duration::MAX))));
            promise.delays.max = self.max_delay.map(VDuration::from_std);
            promise.delays.backoff = Some(BackoffShape::Fibonacci { initial: VDuration::from_std(self.min_delay) });
            promise.delays.jitter = Some(jitter_bounds(self.jitter));
            promise
        };
        super::with_jitter_tolerance(contract, self.jitter)
    }

    fn simpler(&self) -> Vec<BackonFibonacciConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: BackonFibonacciConfig| offer(&mut out, self, candidate);
        push(BackonFibonacciConfig::default());
        push(BackonFibonacciConfig { jitter: false, ..self.clone() });
        for max_times in draw::simpler_retry_limits(self.max_times) {
            push(BackonFibonacciConfig { max_times, ..self.clone() });
        }
        for min_delay in draw::simpler_std_delays(self.min_delay) {
            push(BackonFibonacciConfig { min_delay, ..self.clone() });
        }
        for max_delay in self.max_delay.map(draw::simpler_std_delays).into_iter().flatten() {
            push(BackonFibonacciConfig { max_delay: Some(max_delay), ..self.clone() });
        }
        out
    }
}

super::builder_subject!(
    /// backon's `FibonacciBuilder` behind the documented retry loop (subject name `backon-fibonacci`).
    BackonFibonacci,
    BackonFibonacciConfig,
    "backon-fibonacci"
);
