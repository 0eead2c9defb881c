//! `backon-exponential`: backon's `ExponentialBuilder`.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use serde::{Deserialize, Serialize};
use timelaw_core::{BackoffShape, Contract, DelayContract, FloatFactor, RetryContract, VDuration};
use timelaw_generators::choice::optional;
use timelaw_generators::{Choices, Swarm};

use super::{attempts, describe_jitter, describe_max_times, jitter_bounds, times};
use crate::domain::AdapterConfig;
use timelaw_core::float::with_float_tolerance;
use timelaw_core::float::F32;
use timelaw_core::sync_loop::loop_contract;
use timelaw_generators::draw::{self, offer, SEC};

/// backon's `ExponentialBuilder`, setting for setting.
///
/// | field | builder call | domain (simplest first) |
/// |---|---|---|
/// | `jitter` | `with_jitter` (+ `with_jitter_seed` from the World) | off, on in a third of draws |
/// | `factor` | `with_factor` | 2, 1..=4, 1, 4..=16, huge (1e3, 1e10, 1e30, `f32::MAX`) |
/// | `min_delay` | `with_min_delay` | 0 ns..=1 h, 1 s (the default); one in eight a boundary value up to `Duration::MAX` |
/// | `max_delay` | `with_max_delay` / `without_max_delay` (`None`) | 60 s, above `min_delay`, any (also below it), none |
/// | `max_times` | `with_max_times` / `without_max_times` (`None`) | 3, 0..=1000, none |
/// | `total_delay` | `with_total_delay` | none, 0 ns..=1 h; one in eight a boundary value |
///
/// Durations are `std::time::Duration`, as backon takes them, drawn with [`draw::std_delay`] (the
/// boundary vocabulary of [`draw::boundary_durations`] included) and written as text in fixtures.
///
/// Factors below 1 are not drawn: the docs say such a factor "does not make any sense".
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackonExponentialConfig {
    /// Add jitter.
    pub jitter: bool,
    /// The growth factor.
    pub factor: F32,
    /// The first delay.
    #[serde(with = "timelaw_core::duration_text")]
    pub min_delay: Duration,
    /// The cap; `None` for `without_max_delay`.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max_delay: Option<Duration>,
    /// Delays (retries) before giving up; `None` for `without_max_times`.
    pub max_times: Option<u32>,
    /// The most a call may sleep in total.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub total_delay: Option<Duration>,
}

impl Default for BackonExponentialConfig {
    /// backon's defaults: no jitter, factor 2, 1 s to 60 s, 3 times, no total delay.
    fn default() -> BackonExponentialConfig {
        BackonExponentialConfig {
            jitter: false,
            factor: F32(2.0),
            min_delay: Duration::from_secs(1),
            max_delay: Some(Duration::from_secs(60)),
            max_times: Some(3),
            total_delay: None,
        }
    }
}

impl BackonExponentialConfig {
    /// The builder this config describes, its jitter seeded with `seed`.
    pub fn builder(&self, seed: u64) -> ExponentialBuilder {
        let mut builder = ExponentialBuilder::new()
            .with_factor(self.factor.0)
            .with_min_delay(self.min_delay)
            .with_total_delay(self.total_delay);
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

fn factor<C: Choices + ?Sized>(c: &mut C) -> F32 {
    match c.weighted(&[4, 3, 1, 2, 1]) {
        0 => F32(2.0),
        1 => F32::from_milli(c.between(1001, 4000)),
        2 => F32(1.0),
        3 => F32::from_milli(c.between(4000, 16_000)),
        _ => F32([1e3, 1e10, 1e30, f32::MAX][c.weighted(&[1; 4])]),
    }
}

fn max_delay<C: Choices + ?Sized>(c: &mut C, min_delay: Duration) -> Option<Duration> {
    match c.weighted(&[2, 4, 2, 1]) {
        0 => Some(Duration::from_secs(60)),
        1 => Some(min_delay.saturating_add(draw::std_delay(c, SEC))),
        2 => Some(draw::std_delay(c, SEC)),
        _ => None,
    }
}

fn describe_once<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonExponentialConfig {
    let jitter = describe_jitter(c, swarm);
    let factor = factor(c);
    let min_delay = draw::std_delay(c, SEC);
    let max_delay = max_delay(c, min_delay);
    let max_times = describe_max_times(c);
    let total_delay = optional(c, swarm.sleep_budget, 1, 4, |c| draw::std_delay(c, SEC));
    BackonExponentialConfig { jitter, factor, min_delay, max_delay, max_times, total_delay }
}

impl AdapterConfig for BackonExponentialConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonExponentialConfig {
        describe_once(c, swarm)
    }

    /// - `max_attempts`: `max_times + 1` (see the module docs of [`crate::backon`]).
    /// - `delay_max`: `max_delay` ("Set the maximum delay for the backoff."); jitter may exceed it, as
    ///   `with_jitter` documents adding up to the current delay.
    /// - `delay_min`: the smaller of `min_delay` and `max_delay` ("Set the minimum delay for the
    ///   backoff."; with the cap below it, a user expects the cap to win).
    /// - `backoff`: exponential from `min_delay` by `factor`; `sleep_budget`: `total_delay` ("The
    ///   backoff will stop yielding sleep durations once the cumulative sleep time plus the next sleep
    ///   duration would exceed `total_delay`.").
    /// - `delay_tolerance`, `delay_tolerance_ppb`: backon multiplies in `f32`, the last delay by the factor
    ///   at every retry, so the rounding compounds (`timelaw_core::float::with_float_tolerance`).
    fn contract(&self) -> Contract {
        let base = loop_contract();
        let contract = Contract {
            retry: RetryContract { max_attempts: attempts(self.max_times), ..base.retry },
            delays: DelayContract {
                min: Some(VDuration::from_std(self.min_delay.min(self.max_delay.unwrap_or(Duration::MAX)))),
                max: self.max_delay.map(VDuration::from_std),
                // The factor exactly as backon holds it (an `f32`, converted exactly), not rounded to thousandths.
                backoff: Some(BackoffShape::ExponentialFloat {
                    initial_nanos: self.min_delay.as_nanos(),
                    factor: FloatFactor(f64::from(self.factor.0)),
                }),
                jitter: Some(jitter_bounds(self.jitter)),
                sleep_budget: self.total_delay.map(VDuration::from_std),
                ..base.delays
            },
            ..base
        };
        with_float_tolerance(contract)
    }

    fn simpler(&self) -> Vec<BackonExponentialConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: BackonExponentialConfig| offer(&mut out, self, candidate);
        push(BackonExponentialConfig::default());
        push(BackonExponentialConfig { jitter: false, ..self.clone() });
        push(BackonExponentialConfig { total_delay: None, ..self.clone() });
        push(BackonExponentialConfig { factor: F32(2.0), ..self.clone() });
        for max_times in draw::simpler_retry_limits(self.max_times) {
            push(BackonExponentialConfig { max_times, ..self.clone() });
        }
        for min_delay in draw::simpler_std_delays(self.min_delay) {
            push(BackonExponentialConfig { min_delay, ..self.clone() });
        }
        for max_delay in self.max_delay.map(draw::simpler_std_delays).into_iter().flatten() {
            push(BackonExponentialConfig { max_delay: Some(max_delay), ..self.clone() });
        }
        for total_delay in self.total_delay.map(draw::simpler_std_delays).into_iter().flatten() {
            push(BackonExponentialConfig { total_delay: Some(total_delay), ..self.clone() });
        }
        out
    }
}

super::builder_subject!(
    /// backon's `ExponentialBuilder` behind the documented retry loop (subject name `backon-exponential`).
    BackonExponential,
    BackonExponentialConfig,
    "backon-exponential"
);
