//! `backon-constant`: backon's `ConstantBuilder`.

use backon::{BackoffBuilder, ConstantBuilder};
use serde::{Deserialize, Serialize};
use std::time::Duration;

use timelaw_core::{BackoffShape, Contract, VDuration};
use timelaw_generators::{Choices, Swarm};

use super::{attempts, describe_jitter, describe_max_times, jitter_bounds, times};
use crate::domain::AdapterConfig;
use timelaw_core::sync_loop::loop_contract;
use timelaw_generators::draw::{self, offer, SEC};

/// backon's `ConstantBuilder`, setting for setting.
///
/// | field | builder call | domain (simplest first) |
/// |---|---|---|
/// | `delay` | `with_delay` | 0 ns..=1 h, 1 s (the default); one in eight a boundary value up to `Duration::MAX` |
/// | `max_times` | `with_max_times` / `without_max_times` (`None`) | 3, 0..=1000, none |
/// | `jitter` | `with_jitter` (+ `with_jitter_seed` from the World) | off, on in a third of draws |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackonConstantConfig {
    /// Every delay.
    #[serde(with = "timelaw_core::duration_text")]
    pub delay: Duration,
    /// Delays (retries) before giving up; `None` for `without_max_times`.
    pub max_times: Option<u32>,
    /// Add jitter.
    pub jitter: bool,
}

impl Default for BackonConstantConfig {
    /// backon's defaults: 1 s, 3 times, no jitter.
    fn default() -> BackonConstantConfig {
        BackonConstantConfig { delay: SEC.to_std(), max_times: Some(3), jitter: false }
    }
}

impl BackonConstantConfig {
    /// The builder this config describes, its jitter seeded with `seed`.
    pub fn builder(&self, seed: u64) -> ConstantBuilder {
        let mut builder = ConstantBuilder::new().with_delay(self.delay);
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

fn describe_once<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonConstantConfig {
    let jitter = describe_jitter(c, swarm);
    let delay = draw::std_delay(c, SEC);
    let max_times = describe_max_times(c);
    BackonConstantConfig { delay, max_times, jitter }
}

impl AdapterConfig for BackonConstantConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonConstantConfig {
        describe_once(c, swarm)
    }

    /// - `max_attempts`: `max_times + 1` ("a steady delay with a fixed number of retries").
    /// - every delay is `delay` (`delay_min`, `delay_max`, a constant `backoff`); `with_jitter` adds
    ///   "a random value" to the delay, which the crate draws from `0..delay` (the same bound its other
    ///   builders document).
    fn contract(&self) -> Contract {
        let contract = {
            let mut promise = loop_contract();
            promise.retry.max_attempts = attempts(self.max_times);
            promise.delays.min = Some(VDuration::from_std(self.delay));
            promise.delays.max = Some(VDuration::from_std(self.delay));
            promise.delays.backoff = Some(BackoffShape::Constant { delay: VDuration::from_std(self.delay) });
            promise.delays.jitter = Some(jitter_bounds(self.jitter));
            promise
        };
        super::with_jitter_tolerance(contract, self.jitter)
    }

    fn simpler(&self) -> Vec<BackonConstantConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: BackonConstantConfig| offer(&mut out, self, candidate);
        push(BackonConstantConfig::default());
        push(BackonConstantConfig { jitter: false, ..self.clone() });
        for max_times in draw::simpler_retry_limits(self.max_times) {
            push(BackonConstantConfig { max_times, ..self.clone() });
        }
        for delay in draw::simpler_std_delays(self.delay) {
            push(BackonConstantConfig { delay, ..self.clone() });
        }
        out
    }
}

super::builder_subject!(
    /// backon's `ConstantBuilder` behind the documented retry loop (subject name `backon-constant`).
    BackonConstant,
    BackonConstantConfig,
    "backon-constant"
);
