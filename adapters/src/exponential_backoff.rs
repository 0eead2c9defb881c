//! exponential-backoff 2.1.1: `Backoff` behind the loop its documentation shows (subject name
//! `exponential-backoff`).
//!
//! # Randomness
//! The crate's iterator seeds its own `fastrand::Rng` with `Rng::new()`, which forks `fastrand`'s
//! thread-local generator. The subject seeds that thread-local generator from the World
//! (`fastrand::seed`) right before it creates the iterator, so the jitter is replayable from the case
//! seed on any thread.

use std::time::Duration;

use exponential_backoff::Backoff;
use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, BackoffShape, CallInfo, CallResult, Contract, ErrorKind, JitterBounds, Subject, VDuration, World,
};
use timelaw_generators::choice::optional;
use timelaw_generators::{Choices, Swarm};

use crate::domain::AdapterConfig;
use timelaw_core::sync_loop::{attempt, loop_contract, retryable, sleep};
use timelaw_generators::draw::{self, offer, MS, SEC};

/// exponential-backoff's `Backoff`, setting for setting.
///
/// | field | call | domain (simplest first) |
/// |---|---|---|
/// | `max_attempts` | `Backoff::new(max_attempts, ..)` | 3 (the default), 1..=6, 7..=13, up to 1000 |
/// | `min` | `Backoff::new(_, min, _)` | 0 ns..=1 h, 100 ms (the default); one in eight a boundary value up to `Duration::MAX` |
/// | `max` | `Backoff::new(_, _, max)`; `None` is "no max duration" | 10 s (the default), above `min`, none, below `min` |
/// | `jitter_milli` | `set_jitter(jitter_milli / 1000)`, which accepts `0..=1` | 0, 300 (the default), 1..=1000 |
/// | `factor` | `set_factor` | 2 (the default), 0..=10, 11..=1000, `u32::MAX` |
///
/// Durations are `std::time::Duration`, as the crate takes them, drawn with [`draw::std_delay`] (the
/// boundary vocabulary of [`draw::boundary_durations`] included) and written as text in fixtures.
///
/// `max_attempts == 0` is not drawn: the iterator is then empty and the documented loop never runs the
/// operation, so what the call returns is the caller's choice, not the crate's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExponentialBackoffConfig {
    /// Attempts, the first included.
    pub max_attempts: u32,
    /// The first delay and the floor of every delay.
    #[serde(with = "timelaw_core::duration_text")]
    pub min: Duration,
    /// The cap; `None` for no cap.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max: Option<Duration>,
    /// The jitter in thousandths.
    pub jitter_milli: u32,
    /// The growth factor.
    pub factor: u32,
}

impl Default for ExponentialBackoffConfig {
    /// The crate's `Backoff::default()`: 3 attempts, 100 ms to 10 s, jitter 0.3, factor 2.
    fn default() -> ExponentialBackoffConfig {
        ExponentialBackoffConfig {
            max_attempts: 3,
            min: Duration::from_millis(100),
            max: Some(Duration::from_secs(10)),
            jitter_milli: 300,
            factor: 2,
        }
    }
}

impl ExponentialBackoffConfig {
    /// The `Backoff` this config describes.
    pub fn backoff(&self) -> Backoff {
        let mut backoff = Backoff::new(self.max_attempts, self.min, self.max);
        backoff.set_jitter(self.jitter_milli.min(1000) as f32 / 1000.0);
        backoff.set_factor(self.factor);
        backoff
    }
}

fn describe_once<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> ExponentialBackoffConfig {
    let max_attempts = match c.weighted(&[2, 5, 2, 1]) {
        0 => 3,
        1 => c.between(1, 6),
        2 => c.between(7, 13),
        _ => c.between(14, 1000),
    } as u32; // At most 1000.
    let min = draw::std_delay(c, MS.saturating_mul(100));
    let max = match c.weighted(&[2, 4, 1, 1]) {
        0 => Some(Duration::from_secs(10)),
        1 => Some(min.saturating_add(draw::std_delay(c, SEC))),
        2 => None,
        _ => Some(draw::std_delay(c, SEC)),
    };
    let jitter_milli = optional(c, swarm.jitter, 1, 2, |c| match c.weighted(&[1, 2]) {
        0 => 300,
        _ => c.between(1, 1000) as u32, // At most 1000.
    });
    let factor = match c.weighted(&[4, 3, 2, 1]) {
        0 => 2,
        1 => c.between(0, 10),
        2 => c.between(11, 1000),
        _ => u64::from(u32::MAX),
    } as u32; // At most u32::MAX.
    ExponentialBackoffConfig { max_attempts, min, max, jitter_milli: jitter_milli.unwrap_or(0), factor }
}

impl AdapterConfig for ExponentialBackoffConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> ExponentialBackoffConfig {
        describe_once(c, swarm)
    }

    /// - `max_attempts`: `max_attempts` (the iterator yields `None` "on the final attempt").
    /// - `backoff`: `min * factor^(n-1)` ("Create exponential duration"; a factor of 0 leaves `min`, as
    ///   the crate clamps every delay to `min..=max`: "Make sure it doesn't exceed upper / lower bounds").
    /// - `delay_min` / `delay_max`: `min` / `max` (the same clamp).
    /// - `jitter`: symmetric by `jitter` ("Set the amount of jitter per backoff", which the crate applies
    ///   up and down), 1 ns tolerance for its integer rounding.
    /// - `jitter_clipped_at_cap`: the jittered delay is clamped to `min..=max` (the same clamp; `max` is
    ///   "the max duration" of every backoff).
    fn contract(&self) -> Contract {
        let min = VDuration::from_std(self.min);
        let backoff = match self.factor {
            0 => BackoffShape::Constant { delay: min },
            factor => BackoffShape::Exponential { initial: min, factor_milli: u64::from(factor) * 1000 },
        };
        let jittered = self.jitter_milli > 0;
        let ratio_milli = u64::from(self.jitter_milli.min(1000));
        let mut promise = loop_contract();
        promise.retry.max_attempts = Some(self.max_attempts);
        promise.delays.min = Some(min);
        promise.delays.max = self.max.map(VDuration::from_std);
        promise.delays.backoff = Some(backoff);
        promise.delays.jitter =
            Some(if jittered { JitterBounds::Symmetric { ratio_milli } } else { JitterBounds::None });
        promise.delays.tolerance = if jittered { VDuration::from_nanos(1) } else { VDuration::ZERO };
        promise.delays.jitter_clipped_at_cap = true;
        promise
    }

    fn simpler(&self) -> Vec<ExponentialBackoffConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: ExponentialBackoffConfig| offer(&mut out, self, candidate);
        push(ExponentialBackoffConfig { jitter_milli: 0, ..Self::default() });
        push(ExponentialBackoffConfig { jitter_milli: 0, ..self.clone() });
        push(ExponentialBackoffConfig { max_attempts: self.max_attempts.min(3), ..self.clone() });
        for max_attempts in draw::simpler_counts(self.max_attempts, 1) {
            push(ExponentialBackoffConfig { max_attempts, ..self.clone() });
        }
        push(ExponentialBackoffConfig { factor: 2, ..self.clone() });
        // 2, the default, is the simplest factor: nothing is offered below it (1 then 0 and back to 2
        // was a cycle).
        if self.factor != 2 {
            push(ExponentialBackoffConfig { factor: self.factor / 2, ..self.clone() });
        }
        push(ExponentialBackoffConfig { max: None, ..self.clone() });
        for jitter_milli in draw::simpler_counts(self.jitter_milli, 1) {
            push(ExponentialBackoffConfig { jitter_milli, ..self.clone() });
        }
        for min in draw::simpler_std_delays(self.min) {
            push(ExponentialBackoffConfig { min, ..self.clone() });
        }
        for max in self.max.map(draw::simpler_std_delays).into_iter().flatten() {
            push(ExponentialBackoffConfig { max: Some(max), ..self.clone() });
        }
        // Coupled, last: fewer attempts (the first field) under a factor raised so the last delay grows as
        // far (`factor'^(m - 2) >= factor^(n - 2)`). A finding in the growth holds along a curve of attempts
        // and factors, and no single move walks along it: 35 attempts at factor 2 and 6 at factor 257 both
        // reach 4 attempts at the smallest factor that still fails.
        for max_attempts in draw::simpler_counts(self.max_attempts, 3) {
            if let Some(factor) = factor_keeping_growth(self.factor, self.max_attempts, max_attempts) {
                push(ExponentialBackoffConfig { max_attempts, factor, ..self.clone() });
            }
        }
        out
    }
}

/// The smallest factor whose last delay over `fewer` attempts is at least `factor`'s over `attempts`
/// (`f'^(fewer - 2) >= f^(attempts - 2)`, at most `u32::MAX`); `None` when it would not be larger (a
/// factor that does not grow, or no fewer attempts with two delays left).
fn factor_keeping_growth(factor: u32, attempts: u32, fewer: u32) -> Option<u32> {
    if factor < 2 || fewer < 3 || fewer >= attempts {
        return None;
    }
    let exponent = f64::from(attempts - 2) / f64::from(fewer - 2);
    let raised = f64::from(factor).powf(exponent).ceil().min(f64::from(u32::MAX)) as u32;
    (raised > factor).then_some(raised)
}

/// exponential-backoff's `Backoff` behind its documented loop (subject name `exponential-backoff`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExponentialBackoffSubject;

impl Subject for ExponentialBackoffSubject {
    type Config = ExponentialBackoffConfig;

    fn name(&self) -> &str {
        "exponential-backoff"
    }

    fn contract(&self, config: &ExponentialBackoffConfig) -> Contract {
        config.contract()
    }

    /// The crate's documented loop is written here (the crate ships none), so the laws about the loop
    /// judge timelaw's transcription of it.
    fn harness_laws(&self) -> &'static [&'static str] {
        timelaw_core::sync_loop::LOOP_LAWS
    }

    fn run(&self, config: &ExponentialBackoffConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, call| {
            fastrand::seed(world.random_u64()?);
            documented_loop(world, call, config.backoff())
        })
    }
}

/// The loop of the crate's docs: `for duration in backoff { match op() { Ok => break, Err => match
/// duration { Some(d) => sleep(d), None => return Err } } }`, with the shared loop's classification.
fn documented_loop(world: &mut World<'_>, call: CallInfo, backoff: Backoff) -> Result<CallResult, Abort> {
    let mut last = CallResult::Err(ErrorKind::Transient);
    for duration in backoff {
        let outcome = match attempt(world)? {
            Ok(outcome) => outcome,
            Err(result) => return Ok(result),
        };
        last = CallResult::from_outcome(outcome);
        if !retryable(outcome) || !call.idempotent {
            return Ok(last);
        }
        let Some(delay) = duration else { return Ok(last) };
        if let Some(result) = sleep(world, delay)? {
            return Ok(result);
        }
    }
    Ok(last) // Reached only with zero attempts, which the domain never draws.
}

crate::domain::describe_by_config!(ExponentialBackoffSubject);
