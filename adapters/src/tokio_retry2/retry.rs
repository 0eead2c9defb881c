//! `tokio-retry2-retry`: tokio-retry2's `Retry` driver (`Retry::spawn` / `Retry::spawn_notify`) on the
//! paused tokio runtime.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, AboveCap, CallInfo, CallResult, Contract, JitterBounds, Outcome, RetryAfterCombine, RetryAfterPolicy,
    StdClocks, StdRandom, Subject, VDuration, World,
};
use timelaw_generators::choice::optional;
use timelaw_generators::draw::{self, MS};
use timelaw_generators::{Choices, Swarm};
use tokio_retry2::strategy::MaxInterval;
use tokio_retry2::{Retry, RetryError};

use super::strategies::{Delays, Strategy};
use crate::domain::AdapterConfig;
use crate::tokio_driver::{run_tokio, Recorder, TokioWorld};
use timelaw_core::sync_loop::retryable;
use timelaw_generators::draw::offer;

/// tokio-retry2's `Retry` with a strategy, an action and, optionally, a notify function.
///
/// The action maps an attempt's failure to the crate's errors the way its docs describe them: a fatal
/// failure (or any failure of a non-idempotent call) is `RetryError::permanent`, a transient one
/// `RetryError::transient`, and a rate-limited one `RetryError::retry_after(_, retry_after)` when
/// `retry_after` is set ("Useful for handling rate limits like a HTTP 429 response"), else transient.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokioRetry2RetryConfig {
    /// The strategy (with its `take`).
    pub strategy: Strategy,
    /// Use `Retry::spawn_notify` with a recording notify function.
    pub notify: bool,
    /// Report rate limits with `RetryError::retry_after`.
    pub retry_after: bool,
    /// `MaxInterval::max_duration` on the strategy, built when the call starts: "In `max_duration` from
    /// now, the strategy will stop retrying". Read on `std::time::Instant`, virtual under timelaw. Left
    /// out of the JSON when `None` (older fixtures read unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "timelaw_core::duration_text::option")]
    pub max_duration: Option<Duration>,
    /// Each delay passed through `tokio_retry2::strategy::jitter` ("defines `jitter` based on specific
    /// duration": `duration.mul_f64(rand::random::<f64>() + 0.5)`), as the README's
    /// `.map(jitter)`. Left out of the JSON when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub jitter: bool,
}

impl AdapterConfig for TokioRetry2RetryConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> TokioRetry2RetryConfig {
        let notify = c.maybe(1, 2);
        let retry_after = swarm.retry_after && c.maybe(1, 2);
        let strategy = Strategy::describe(c, swarm);
        // Drawn last, so every answer before it keeps its meaning.
        let max_duration = optional(c, true, 1, 3, |c| draw::std_delay(c, MS.saturating_mul(100)));
        let jitter = swarm.jitter && c.maybe(1, 3);
        TokioRetry2RetryConfig { strategy, notify, retry_after, max_duration, jitter }
    }

    /// The strategy's contract, plus:
    /// - `notifies` with a notify function. The docs never say which duration it receives; the README
    ///   shows it as `notify(err, duration)` next to "Or, to retry with a notification function", and a
    ///   user reads that as the delay before the retry being announced.
    /// - `honors_retry_after` with `retry_after`: `RetryError::retry_after` "Creates a transient error
    ///   which is retried after the specified duration."
    /// - `retry_after` with `retry_after`: the retry-after replaces the strategy's delay, whatever its size
    ///   ("If the `retry_after` is `None` the operation should be retried according to the defined
    ///   strategy policy, else after the specified duration."; the docs name no cap for it). Without
    ///   `retry_after` set, rate limits are plain transient errors and no retry-after is read.
    /// - Cancellation is dropping the future, which the driver does at the cancellation instant.
    /// - `retry_elapsed_max` with `max_duration`: "Wraps a strategy, applying `max_interval`, after which
    ///   strategy will stop retrying", "If `max_duration` is passed, the strategy will stop retrying after
    ///   `max_duration` is reached." No retry starts after it (a retry exactly at it is allowed).
    fn contract(&self) -> Contract {
        let policy = RetryAfterPolicy { combine: RetryAfterCombine::ReplacesBackoff, above_cap: AboveCap::SleepAnyway };
        let retry_after = match self.retry_after {
            true => policy,
            false => RetryAfterPolicy { combine: RetryAfterCombine::Ignored, above_cap: AboveCap::GiveUp },
        };
        let mut promise = self.strategy.contract();
        promise.delays.notifies = self.notify;
        promise.rate.honors_retry_after = self.retry_after;
        promise.rate.retry_after = Some(retry_after);
        // `Retry` sleeps with `tokio::time::sleep_until`.
        promise.timing.timer_granularity = crate::domain::TOKIO_TIMER_GRANULARITY;
        promise.timing.retry_elapsed_max = self.max_duration.map(VDuration::from_std);
        if self.jitter {
            // `0.5..1.5` times the (capped) delay, past the cap and below the first delay; `mul_f64` goes
            // through `f64` seconds, exact to a nanosecond or a part in a billion.
            promise.delays.jitter = Some(JitterBounds::Range { low_milli: 500, high_milli: 1500 });
            promise.delays.jitter_clipped_at_cap = false;
            promise.delays.min = None;
            promise.delays.tolerance = promise.delays.tolerance.max(VDuration::from_nanos(1));
            promise.delays.tolerance_ppb = promise.delays.tolerance_ppb.max(1);
        }
        promise
    }

    fn simpler(&self) -> Vec<TokioRetry2RetryConfig> {
        let mut out = Vec::new();
        offer(&mut out, self, TokioRetry2RetryConfig { notify: false, ..self.clone() });
        offer(&mut out, self, TokioRetry2RetryConfig { retry_after: false, ..self.clone() });
        offer(&mut out, self, TokioRetry2RetryConfig { max_duration: None, ..self.clone() });
        for max_duration in self.max_duration.map(draw::simpler_std_delays).into_iter().flatten() {
            offer(&mut out, self, TokioRetry2RetryConfig { max_duration: Some(max_duration), ..self.clone() });
        }
        offer(&mut out, self, TokioRetry2RetryConfig { jitter: false, ..self.clone() });
        for strategy in self.strategy.simpler() {
            offer(&mut out, self, TokioRetry2RetryConfig { strategy, ..self.clone() });
        }
        out
    }
}

/// Why an attempt failed, as the action reports it.
#[derive(Debug)]
enum Failure {
    /// The attempt's scripted failure.
    Outcome(Outcome),
    /// The World stopped the run.
    Aborted(Abort),
}

/// A strategy whose every delay is recorded as a sleep: tokio-retry2 sleeps each delay it draws, right
/// after drawing it.
struct Recorded {
    delays: Delays,
    recorder: Recorder,
}

impl Iterator for Recorded {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let delay = self.delays.next()?;
        self.recorder.record_sleep(delay);
        Some(delay)
    }
}

/// tokio-retry2's `Retry` driver (subject name `tokio-retry2-retry`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioRetry2Retry;

impl Subject for TokioRetry2Retry {
    type Config = TokioRetry2RetryConfig;

    fn name(&self) -> &str {
        "tokio-retry2-retry"
    }

    fn contract(&self, config: &TokioRetry2RetryConfig) -> Contract {
        config.contract()
    }

    /// Virtual: `max_duration` reads `std::time::Instant::now()` itself.
    fn std_clocks(&self) -> StdClocks {
        StdClocks::Virtual
    }

    /// Seeded: `jitter` draws from `rand`'s thread RNG.
    fn std_random(&self) -> StdRandom {
        StdRandom::Seeded
    }

    fn run(&self, config: &TokioRetry2RetryConfig, world: &mut World<'_>) -> Result<(), Abort> {
        run_tokio(world, |w| async move { w.for_each_call(|call| serve(&w, config, call)).await })
    }
}

async fn serve(w: &TokioWorld<'_>, config: &TokioRetry2RetryConfig, call: CallInfo) -> Result<CallResult, Abort> {
    let delays = match config.jitter {
        true => Box::new(config.strategy.delays().map(tokio_retry2::strategy::jitter)),
        false => config.strategy.delays(),
    };
    let delays: Delays = match config.max_duration {
        Some(limit) => Box::new(delays.max_duration(limit)),
        None => delays,
    };
    let strategy = Recorded { delays, recorder: w.recorder() };
    let action = || {
        let attempt = w.attempt();
        async move { classify(attempt.await, call.idempotent, config.retry_after) }
    };
    let result = match config.notify {
        true => {
            let recorder = w.recorder();
            Retry::spawn_notify(strategy, action, move |_: &Failure, delay| recorder.notify(delay)).await
        }
        false => Retry::spawn(strategy, action).await,
    };
    match result {
        Ok(()) => Ok(CallResult::Ok),
        Err(Failure::Outcome(outcome)) => Ok(CallResult::from_outcome(outcome)),
        Err(Failure::Aborted(abort)) => Err(abort),
    }
}

fn classify(attempt: Result<Outcome, Abort>, idempotent: bool, retry_after: bool) -> Result<(), RetryError<Failure>> {
    let outcome = match attempt {
        Ok(Outcome::Ok) => return Ok(()),
        Ok(outcome) => outcome,
        Err(abort) => return Err(RetryError::permanent(Failure::Aborted(abort))),
    };
    match outcome {
        _ if !idempotent || !retryable(outcome) => Err(RetryError::permanent(Failure::Outcome(outcome))),
        Outcome::RateLimited { retry_after: wait } if retry_after => {
            Err(RetryError::retry_after(Failure::Outcome(outcome), wait.to_std()))
        }
        _ => Err(RetryError::transient(Failure::Outcome(outcome))),
    }
}

crate::domain::describe_by_config!(TokioRetry2Retry);
