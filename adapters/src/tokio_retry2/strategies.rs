//! tokio-retry2's strategies, each behind the documented retry loop.
//!
//! The settings the crate takes as `std::time::Duration` (`interval`, `initial`, `increment`, `max_delay`)
//! are `std::time::Duration`, drawn with [`draw::std_delay`] (boundary values up to `Duration::MAX`
//! included); the ones it takes as milliseconds (`from_millis`) stay `u64` counts of milliseconds.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::{BackoffShape, Contract, FloatFactor, JitterBounds, VDuration};
use timelaw_generators::choice::optional;
use timelaw_generators::{Choices, Swarm};
use tokio_retry2::strategy::{
    ExponentialBackoff, ExponentialFactorBackoff, FibonacciBackoff, FixedInterval, LinearBackoff,
};

use crate::domain::AdapterConfig;
use timelaw_core::float::F64;
use timelaw_core::sync_loop::loop_contract;
use timelaw_generators::draw::{self, offer, MS};

/// A strategy's delays, limited by `take`.
pub type Delays = Box<dyn Iterator<Item = Duration> + Send>;

fn limited(strategy: impl Iterator<Item = Duration> + Send + 'static, take: Option<u32>) -> Delays {
    match take {
        Some(take) => Box::new(strategy.take(take as usize)),
        None => Box::new(strategy),
    }
}

fn describe_take<C: Choices + ?Sized>(c: &mut C) -> Option<u32> {
    match c.weighted(&[2, 5, 1]) {
        0 => Some(3),
        1 => Some(draw::retries(c, 1000) as u32), // At most 1000.
        _ => None,
    }
}

fn describe_max_delay<C: Choices + ?Sized>(c: &mut C) -> Option<Duration> {
    optional(c, true, 1, 2, |c| match c.weighted(&[3, 1]) {
        0 => draw::std_delay(c, MS.saturating_mul(100)),
        _ => Duration::from_millis(c.between(1, 1000)),
    })
}

/// Milliseconds as a delay, saturating like the crate's `Duration::from_millis(u64::MAX)`.
fn millis(ms: u64) -> VDuration {
    MS.saturating_mul(ms)
}

/// The contract of a strategy behind the loop: `take + 1` attempts, the shape, the cap ("No single
/// retry delay will be longer than this `Duration`."), no jitter.
fn strategy_contract(take: Option<u32>, shape: BackoffShape, cap: Option<VDuration>, first: VDuration) -> Contract {
    let mut promise = loop_contract();
    promise.retry.max_attempts = take.map(|take| take.saturating_add(1));
    promise.delays.min = Some(first.min(cap.unwrap_or(VDuration::MAX)));
    promise.delays.max = cap;
    promise.delays.backoff = Some(shape);
    promise.delays.jitter = Some(JitterBounds::None);
    promise
}

/// `ExponentialBackoff::from_millis(base).factor(factor).max_delay(max)`, then `.take(take)`.
///
/// The docs: "The resulting duration is calculated by taking the base to the `n`-th power, where `n`
/// denotes the number of past attempts", and `factor` is "A multiplicative factor that will be applied
/// to the retry delay". Delay `n` is `base^n * factor` milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExponentialStrategy {
    /// The base, in milliseconds (and the base of the power).
    pub base_millis: u64,
    /// The multiplier.
    pub factor: u64,
    /// The cap.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max_delay: Option<Duration>,
    /// Retries; `None` leaves the strategy endless.
    pub take: Option<u32>,
}

impl ExponentialStrategy {
    /// The strategy's delays.
    pub fn delays(&self) -> Delays {
        let mut strategy = ExponentialBackoff::from_millis(self.base_millis).factor(self.factor);
        if let Some(max) = self.max_delay {
            strategy = strategy.max_delay(max);
        }
        limited(strategy, self.take)
    }
}

impl AdapterConfig for ExponentialStrategy {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> ExponentialStrategy {
        let once = |c: &mut C| {
            let base_millis = match c.weighted(&[1, 4, 2, 1]) {
                0 => 10,
                1 => c.between(0, 10),
                2 => c.between(11, 1000),
                _ => u64::MAX - 1,
            };
            let factor = match c.weighted(&[3, 2, 1]) {
                0 => 1,
                1 => c.between(0, 1000),
                _ => u64::MAX,
            };
            ExponentialStrategy { base_millis, factor, max_delay: describe_max_delay(c), take: describe_take(c) }
        };
        once(c)
    }

    fn contract(&self) -> Contract {
        let first = millis(self.base_millis.saturating_mul(self.factor));
        let factor_milli = self.base_millis.saturating_mul(1000);
        let shape = BackoffShape::Exponential { initial: first, factor_milli };
        strategy_contract(self.take, shape, self.max_delay.map(VDuration::from_std), first)
    }

    fn simpler(&self) -> Vec<ExponentialStrategy> {
        let mut out = Vec::new();
        let mut push = |candidate: ExponentialStrategy| offer(&mut out, self, candidate);
        push(ExponentialStrategy { factor: 1, ..self.clone() });
        push(ExponentialStrategy { max_delay: None, ..self.clone() });
        for take in draw::simpler_retry_limits(self.take) {
            push(ExponentialStrategy { take, ..self.clone() });
        }
        push(ExponentialStrategy { base_millis: self.base_millis.min(2), ..self.clone() });
        out
    }
}

/// `ExponentialFactorBackoff::from_millis(initial, base_factor).max_delay(max)`, then `.take(take)`.
///
/// The docs: "The resulting duration is calculated by taking the base factor to the `n`-th power and
/// multiply it by the initial delay in milliseconds", and "Duration is capped at a maximum value of
/// `u32::MAX millis`". The crate truncates to whole milliseconds (1 ms tolerance).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExponentialFactorStrategy {
    /// The first delay, in milliseconds.
    pub initial_millis: u64,
    /// The growth factor.
    pub base_factor: F64,
    /// The cap.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max_delay: Option<Duration>,
    /// Retries; `None` leaves the strategy endless.
    pub take: Option<u32>,
}

impl ExponentialFactorStrategy {
    /// The strategy's delays.
    pub fn delays(&self) -> Delays {
        let mut strategy = ExponentialFactorBackoff::from_millis(self.initial_millis, self.base_factor.0);
        if let Some(max) = self.max_delay {
            strategy = strategy.max_delay(max);
        }
        limited(strategy, self.take)
    }
}

impl AdapterConfig for ExponentialFactorStrategy {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> ExponentialFactorStrategy {
        let once = |c: &mut C| {
            let initial_millis = match c.weighted(&[1, 4, 1]) {
                0 => 500,
                1 => c.between(0, 10_000),
                _ => c.between(u64::from(u32::MAX) - 10, u64::from(u32::MAX) + 10),
            };
            let base_factor = match c.weighted(&[2, 3, 1]) {
                0 => F64(2.0),
                1 => F64::from_milli(c.between(1000, 4000)),
                _ => F64::from_milli(c.between(4000, 100_000)),
            };
            ExponentialFactorStrategy {
                initial_millis,
                base_factor,
                max_delay: describe_max_delay(c),
                take: describe_take(c),
            }
        };
        once(c)
    }

    fn contract(&self) -> Contract {
        let ceiling = millis(u64::from(u32::MAX));
        let first = millis(self.initial_millis);
        // The factor exactly as the crate holds it (an `f64`), not rounded to thousandths.
        let factor = FloatFactor(self.base_factor.0);
        let shape = BackoffShape::ExponentialFloat { initial_nanos: u128::from(first.as_nanos()), factor };
        let cap = Some(self.max_delay.map_or(ceiling, |max| VDuration::from_std(max).min(ceiling)));
        let mut promise = strategy_contract(self.take, shape, cap, first);
        promise.delays.tolerance = MS;
        promise
    }

    fn simpler(&self) -> Vec<ExponentialFactorStrategy> {
        let mut out = Vec::new();
        let mut push = |candidate: ExponentialFactorStrategy| offer(&mut out, self, candidate);
        push(ExponentialFactorStrategy { base_factor: F64(2.0), ..self.clone() });
        push(ExponentialFactorStrategy { max_delay: None, ..self.clone() });
        for take in draw::simpler_retry_limits(self.take) {
            push(ExponentialFactorStrategy { take, ..self.clone() });
        }
        push(ExponentialFactorStrategy { initial_millis: self.initial_millis.min(10), ..self.clone() });
        out
    }
}

/// `FibonacciBackoff::from_millis(millis).factor(factor).max_delay(max)`, then `.take(take)`: delay `n`
/// is `fib(n) * millis * factor` milliseconds ("Each retry uses a delay which is the sum of the two
/// previous delays").
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FibonacciStrategy {
    /// The first delay, in milliseconds (before the factor).
    pub millis: u64,
    /// The multiplier.
    pub factor: u64,
    /// The cap.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max_delay: Option<Duration>,
    /// Retries; `None` leaves the strategy endless.
    pub take: Option<u32>,
}

impl FibonacciStrategy {
    /// The strategy's delays.
    pub fn delays(&self) -> Delays {
        let mut strategy = FibonacciBackoff::from_millis(self.millis).factor(self.factor);
        if let Some(max) = self.max_delay {
            strategy = strategy.max_delay(max);
        }
        limited(strategy, self.take)
    }
}

impl AdapterConfig for FibonacciStrategy {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> FibonacciStrategy {
        let once = |c: &mut C| {
            let millis = match c.weighted(&[1, 4, 1]) {
                0 => 10,
                1 => c.between(0, 1000),
                _ => u64::MAX,
            };
            let factor = match c.weighted(&[3, 2, 1]) {
                0 => 1,
                1 => c.between(0, 1000),
                _ => u64::MAX,
            };
            FibonacciStrategy { millis, factor, max_delay: describe_max_delay(c), take: describe_take(c) }
        };
        once(c)
    }

    fn contract(&self) -> Contract {
        let first = millis(self.millis.saturating_mul(self.factor));
        strategy_contract(
            self.take,
            BackoffShape::Fibonacci { initial: first },
            self.max_delay.map(VDuration::from_std),
            first,
        )
    }

    fn simpler(&self) -> Vec<FibonacciStrategy> {
        let mut out = Vec::new();
        let mut push = |candidate: FibonacciStrategy| offer(&mut out, self, candidate);
        push(FibonacciStrategy { factor: 1, ..self.clone() });
        push(FibonacciStrategy { max_delay: None, ..self.clone() });
        for take in draw::simpler_retry_limits(self.take) {
            push(FibonacciStrategy { take, ..self.clone() });
        }
        push(FibonacciStrategy { millis: self.millis.min(10), ..self.clone() });
        out
    }
}

/// `FixedInterval::new(interval)`, then `.take(take)`: every delay is `interval`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedStrategy {
    /// Every delay.
    #[serde(with = "timelaw_core::duration_text")]
    pub interval: Duration,
    /// Retries; `None` leaves the strategy endless.
    pub take: Option<u32>,
}

impl FixedStrategy {
    /// The strategy's delays.
    pub fn delays(&self) -> Delays {
        limited(FixedInterval::new(self.interval), self.take)
    }
}

impl AdapterConfig for FixedStrategy {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> FixedStrategy {
        let once =
            |c: &mut C| FixedStrategy { interval: draw::std_delay(c, MS.saturating_mul(500)), take: describe_take(c) };
        once(c)
    }

    fn contract(&self) -> Contract {
        let interval = VDuration::from_std(self.interval);
        let shape = BackoffShape::Constant { delay: interval };
        strategy_contract(self.take, shape, Some(interval), interval)
    }

    fn simpler(&self) -> Vec<FixedStrategy> {
        let mut out = Vec::new();
        let mut push = |candidate: FixedStrategy| offer(&mut out, self, candidate);
        for take in draw::simpler_retry_limits(self.take) {
            push(FixedStrategy { take, ..self.clone() });
        }
        for interval in draw::simpler_std_delays(self.interval) {
            push(FixedStrategy { interval, ..self.clone() });
        }
        out
    }
}

/// `LinearBackoff::new(initial).increment(increment).max_delay(max)`, then `.take(take)`: delay `n` is
/// `initial + increment * (n - 1)`; "If `increment` is not defined it will be equal to `initial`."
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearStrategy {
    /// The first delay.
    #[serde(with = "timelaw_core::duration_text")]
    pub initial: Duration,
    /// The step; `None` is `initial`.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub increment: Option<Duration>,
    /// The cap.
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max_delay: Option<Duration>,
    /// Retries; `None` leaves the strategy endless.
    pub take: Option<u32>,
}

impl LinearStrategy {
    /// The strategy's delays.
    pub fn delays(&self) -> Delays {
        let mut strategy = LinearBackoff::new(self.initial);
        if let Some(increment) = self.increment {
            strategy = strategy.increment(increment);
        }
        if let Some(max) = self.max_delay {
            strategy = strategy.max_delay(max);
        }
        limited(strategy, self.take)
    }
}

impl AdapterConfig for LinearStrategy {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> LinearStrategy {
        let once = |c: &mut C| LinearStrategy {
            initial: draw::std_delay(c, MS.saturating_mul(100)),
            increment: optional(c, true, 1, 2, |c| draw::std_delay(c, MS.saturating_mul(200))),
            max_delay: describe_max_delay(c),
            take: describe_take(c),
        };
        once(c)
    }

    fn contract(&self) -> Contract {
        let initial = VDuration::from_std(self.initial);
        let step = VDuration::from_std(self.increment.unwrap_or(self.initial));
        let shape = BackoffShape::Linear { initial, step };
        strategy_contract(self.take, shape, self.max_delay.map(VDuration::from_std), initial)
    }

    fn simpler(&self) -> Vec<LinearStrategy> {
        let mut out = Vec::new();
        let mut push = |candidate: LinearStrategy| offer(&mut out, self, candidate);
        push(LinearStrategy { increment: None, ..self.clone() });
        push(LinearStrategy { max_delay: None, ..self.clone() });
        for take in draw::simpler_retry_limits(self.take) {
            push(LinearStrategy { take, ..self.clone() });
        }
        for initial in draw::simpler_std_delays(self.initial) {
            push(LinearStrategy { initial, ..self.clone() });
        }
        out
    }
}

/// One of tokio-retry2's strategies (the driver's config).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// `ExponentialBackoff`.
    Exponential(ExponentialStrategy),
    /// `ExponentialFactorBackoff`.
    ExponentialFactor(ExponentialFactorStrategy),
    /// `FibonacciBackoff`.
    Fibonacci(FibonacciStrategy),
    /// `FixedInterval`.
    Fixed(FixedStrategy),
    /// `LinearBackoff`.
    Linear(LinearStrategy),
}

impl Strategy {
    /// The strategy's delays.
    pub fn delays(&self) -> Delays {
        match self {
            Strategy::Exponential(config) => config.delays(),
            Strategy::ExponentialFactor(config) => config.delays(),
            Strategy::Fibonacci(config) => config.delays(),
            Strategy::Fixed(config) => config.delays(),
            Strategy::Linear(config) => config.delays(),
        }
    }

    /// The strategy's contract behind the loop.
    pub fn contract(&self) -> Contract {
        match self {
            Strategy::Exponential(config) => config.contract(),
            Strategy::ExponentialFactor(config) => config.contract(),
            Strategy::Fibonacci(config) => config.contract(),
            Strategy::Fixed(config) => config.contract(),
            Strategy::Linear(config) => config.contract(),
        }
    }

    /// One strategy of any kind.
    pub(crate) fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> Strategy {
        match c.weighted(&[1; 5]) {
            0 => Strategy::Fixed(FixedStrategy::describe(c, swarm)),
            1 => Strategy::Linear(LinearStrategy::describe(c, swarm)),
            2 => Strategy::Exponential(ExponentialStrategy::describe(c, swarm)),
            3 => Strategy::ExponentialFactor(ExponentialFactorStrategy::describe(c, swarm)),
            _ => Strategy::Fibonacci(FibonacciStrategy::describe(c, swarm)),
        }
    }

    /// Retries; `None` leaves the strategy endless.
    pub fn take(&self) -> Option<u32> {
        match self {
            Strategy::Exponential(config) => config.take,
            Strategy::ExponentialFactor(config) => config.take,
            Strategy::Fibonacci(config) => config.take,
            Strategy::Fixed(config) => config.take,
            Strategy::Linear(config) => config.take,
        }
    }

    /// Simpler strategies: of the same kind, then (last) a fixed interval, the simplest kind (the first
    /// [`Strategy::describe`] draws), at the strategy's first delay (its contract's `delays.min`) with
    /// the same retries. A finding a single retry shows does not need the strategy's growth, and
    /// without this move each kind stopped at its own minimum of it.
    pub(crate) fn simpler(&self) -> Vec<Strategy> {
        let mut out: Vec<Strategy> = match self {
            Strategy::Exponential(config) => config.simpler().into_iter().map(Strategy::Exponential).collect(),
            Strategy::ExponentialFactor(config) => {
                config.simpler().into_iter().map(Strategy::ExponentialFactor).collect()
            }
            Strategy::Fibonacci(config) => config.simpler().into_iter().map(Strategy::Fibonacci).collect(),
            Strategy::Fixed(config) => config.simpler().into_iter().map(Strategy::Fixed).collect(),
            Strategy::Linear(config) => config.simpler().into_iter().map(Strategy::Linear).collect(),
        };
        if !matches!(self, Strategy::Fixed(_)) {
            let first = self.contract().delays.min.unwrap_or(VDuration::ZERO).to_std();
            offer(&mut out, self, Strategy::Fixed(FixedStrategy { interval: first, take: self.take() }));
        }
        // A linear strategy's first delay is its `initial`, as it is: the contract's delays are virtual
        // durations, which stop at about 584 years, and a finding past that (an `Instant` overflow) would
        // be lost at the contract's value.
        if let Strategy::Linear(linear) = self {
            offer(&mut out, self, Strategy::Fixed(FixedStrategy { interval: linear.initial, take: linear.take }));
        }
        out
    }
}

/// A subject per strategy: the strategy behind the documented loop.
macro_rules! strategy_subject {
    ($(#[$doc:meta])* $subject:ident, $config:ty, $name:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $subject;

        impl timelaw_core::Subject for $subject {
            type Config = $config;

            fn name(&self) -> &str {
                $name
            }

            fn contract(&self, config: &$config) -> Contract {
                config.contract()
            }

            fn harness_laws(&self) -> &'static [&'static str] {
                timelaw_core::sync_loop::LOOP_LAWS
            }

            fn run(&self, config: &$config, world: &mut timelaw_core::World<'_>) -> Result<(), timelaw_core::Abort> {
                timelaw_core::sync_loop::serve_calls(world, |_| Ok(config.delays()))
            }
        }

        crate::domain::describe_by_config!($subject);
    };
}

strategy_subject!(
    /// tokio-retry2's `ExponentialBackoff` (subject name `tokio-retry2-exponential`).
    TokioRetry2Exponential, ExponentialStrategy, "tokio-retry2-exponential"
);
strategy_subject!(
    /// tokio-retry2's `ExponentialFactorBackoff` (subject name `tokio-retry2-exponential-factor`).
    TokioRetry2ExponentialFactor, ExponentialFactorStrategy, "tokio-retry2-exponential-factor"
);
strategy_subject!(
    /// tokio-retry2's `FibonacciBackoff` (subject name `tokio-retry2-fibonacci`).
    TokioRetry2Fibonacci, FibonacciStrategy, "tokio-retry2-fibonacci"
);
strategy_subject!(
    /// tokio-retry2's `FixedInterval` (subject name `tokio-retry2-fixed`).
    TokioRetry2Fixed, FixedStrategy, "tokio-retry2-fixed"
);
strategy_subject!(
    /// tokio-retry2's `LinearBackoff` (subject name `tokio-retry2-linear`).
    TokioRetry2Linear, LinearStrategy, "tokio-retry2-linear"
);
