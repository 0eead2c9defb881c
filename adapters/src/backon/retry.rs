//! `backon-retry`: backon's async `Retry` driver (`Retryable::retry` with `sleep`, `when` and `notify`)
//! on the paused tokio runtime, its sleeper a recorded `tokio::time::sleep`.

use backon::{BackoffBuilder, Retryable};
use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, AboveCap, CallInfo, CallResult, Contract, Outcome, RetryAfterCombine, RetryAfterPolicy, Subject, World,
};
use timelaw_generators::{Choices, Swarm};

use super::{BackonConstantConfig, BackonExponentialConfig, BackonFibonacciConfig};
use crate::domain::AdapterConfig;
use crate::tokio_driver::{run_tokio, TokioWorld};
use timelaw_core::sync_loop::retryable;
use timelaw_generators::draw::offer;

/// One of backon's builders.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum BackonBuilder {
    /// `ExponentialBuilder`.
    Exponential(BackonExponentialConfig),
    /// `FibonacciBuilder`.
    Fibonacci(BackonFibonacciConfig),
    /// `ConstantBuilder`.
    Constant(BackonConstantConfig),
}

impl BackonBuilder {
    fn contract(&self) -> Contract {
        match self {
            BackonBuilder::Exponential(config) => config.contract(),
            BackonBuilder::Fibonacci(config) => config.contract(),
            BackonBuilder::Constant(config) => config.contract(),
        }
    }

    fn jitter(&self) -> bool {
        match self {
            BackonBuilder::Exponential(config) => config.jitter,
            BackonBuilder::Fibonacci(config) => config.jitter,
            BackonBuilder::Constant(config) => config.jitter,
        }
    }

    /// Simpler builders: of the same kind, then (last) a simpler kind in the order
    /// [`BackonRetryConfig::describe`] draws them (constant, exponential, fibonacci) with the same first
    /// delay, retries and jitter: a fibonacci builder as the exponential one of factor 2 (backon's
    /// default; both start at `min_delay`, capped alike), either as a constant delay of `min_delay`. A
    /// finding a single retry shows does not need the builder's growth; without this move each kind
    /// stopped at its own minimum of it.
    fn simpler(&self) -> Vec<BackonBuilder> {
        let mut out: Vec<BackonBuilder> = match self {
            BackonBuilder::Exponential(config) => {
                config.simpler().into_iter().map(BackonBuilder::Exponential).collect()
            }
            BackonBuilder::Fibonacci(config) => config.simpler().into_iter().map(BackonBuilder::Fibonacci).collect(),
            BackonBuilder::Constant(config) => config.simpler().into_iter().map(BackonBuilder::Constant).collect(),
        };
        let constant = |jitter, delay, max_times| BackonConstantConfig { delay, max_times, jitter };
        match self {
            BackonBuilder::Exponential(config) => {
                let simpler = constant(config.jitter, config.min_delay, config.max_times);
                offer(&mut out, self, BackonBuilder::Constant(simpler));
            }
            BackonBuilder::Fibonacci(config) => {
                let simpler = constant(config.jitter, config.min_delay, config.max_times);
                offer(&mut out, self, BackonBuilder::Constant(simpler));
                let exponential = BackonExponentialConfig {
                    jitter: config.jitter,
                    min_delay: config.min_delay,
                    max_delay: config.max_delay,
                    max_times: config.max_times,
                    ..BackonExponentialConfig::default()
                };
                offer(&mut out, self, BackonBuilder::Exponential(exponential));
            }
            BackonBuilder::Constant(_) => {}
        }
        out
    }
}

/// backon's `Retry` driver: `operation.retry(builder).sleep(sleeper).when(classifier).notify(callback)`.
///
/// The classifier (`when`) retries transient and rate-limited failures of idempotent calls; the sleeper
/// records each sleep and sleeps on tokio's paused clock; the `notify` callback, when `notify` is set,
/// records the delay backon announces.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackonRetryConfig {
    /// The backoff.
    pub backoff: BackonBuilder,
    /// Install a `notify` callback.
    pub notify: bool,
}

impl AdapterConfig for BackonRetryConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> BackonRetryConfig {
        let notify = c.maybe(2, 3);
        let backoff = match c.weighted(&[1, 1, 1]) {
            0 => BackonBuilder::Constant(BackonConstantConfig::describe(c, swarm)),
            1 => BackonBuilder::Exponential(BackonExponentialConfig::describe(c, swarm)),
            _ => BackonBuilder::Fibonacci(BackonFibonacciConfig::describe(c, swarm)),
        };
        BackonRetryConfig { backoff, notify }
    }

    /// The builder's contract, plus `notifies` when a callback is installed: "When a retry happens, the
    /// input function will be invoked with the error and the sleep duration before pausing."
    /// Cancellation is dropping the future, which the driver does at the cancellation instant.
    /// - `retry_after`: ignored, as the driver installs no `adjust` function: "If no `adjust` function is
    ///   specified, the original backoff duration from the input will be used without modification."
    ///   The jitter is not clipped at the cap (`with_jitter` adds up to the current delay after the cap).
    fn contract(&self) -> Contract {
        let retry_after = RetryAfterPolicy { combine: RetryAfterCombine::Ignored, above_cap: AboveCap::GiveUp };
        let mut promise = self.backoff.contract();
        promise.delays.notifies = self.notify;
        promise.rate.retry_after = Some(retry_after);
        // The sleeper sleeps on tokio's timers.
        promise.timing.timer_granularity = crate::domain::TOKIO_TIMER_GRANULARITY;
        promise
    }

    fn simpler(&self) -> Vec<BackonRetryConfig> {
        let mut out = Vec::new();
        offer(&mut out, self, BackonRetryConfig { notify: false, ..self.clone() });
        for backoff in self.backoff.simpler() {
            offer(&mut out, self, BackonRetryConfig { backoff, ..self.clone() });
        }
        out
    }
}

/// Why an attempt failed, as the operation reports it to backon.
#[derive(Debug)]
enum Failure {
    /// The attempt's scripted failure.
    Outcome(Outcome),
    /// The World stopped the run.
    Aborted(Abort),
}

/// backon's `Retry` driver (subject name `backon-retry`).
#[derive(Clone, Copy, Debug, Default)]
pub struct BackonRetry;

impl Subject for BackonRetry {
    type Config = BackonRetryConfig;

    fn name(&self) -> &str {
        "backon-retry"
    }

    fn contract(&self, config: &BackonRetryConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &BackonRetryConfig, world: &mut World<'_>) -> Result<(), Abort> {
        run_tokio(world, |w| async move { w.for_each_call(|call| serve(&w, config, call)).await })
    }
}

async fn serve(w: &TokioWorld<'_>, config: &BackonRetryConfig, call: CallInfo) -> Result<CallResult, Abort> {
    let seed = if config.backoff.jitter() { w.random_u64()? } else { 0 };
    match &config.backoff {
        BackonBuilder::Exponential(builder) => drive(w, builder.builder(seed), config.notify, call).await,
        BackonBuilder::Fibonacci(builder) => drive(w, builder.builder(seed), config.notify, call).await,
        BackonBuilder::Constant(builder) => drive(w, builder.builder(seed), config.notify, call).await,
    }
}

/// One call through backon's `Retry`.
async fn drive<B: BackoffBuilder>(
    w: &TokioWorld<'_>,
    builder: B,
    notify: bool,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    let sleeper = w.recorder();
    let announcer = w.recorder();
    let operation = || {
        let attempt = w.attempt();
        async move {
            match attempt.await {
                Ok(Outcome::Ok) => Ok(()),
                Ok(outcome) => Err(Failure::Outcome(outcome)),
                Err(abort) => Err(Failure::Aborted(abort)),
            }
        }
    };
    let result = operation
        .retry(builder)
        .sleep(move |delay| sleeper.sleep(delay))
        .when(|failure: &Failure| {
            matches!(failure, Failure::Outcome(outcome) if retryable(*outcome)) && call.idempotent
        })
        .notify(|_: &Failure, delay| {
            if notify {
                announcer.notify(delay);
            }
        })
        .await;
    match result {
        Ok(()) => Ok(CallResult::Ok),
        Err(Failure::Outcome(outcome)) => Ok(CallResult::from_outcome(outcome)),
        Err(Failure::Aborted(abort)) => Err(abort),
    }
}

crate::domain::describe_by_config!(BackonRetry);
