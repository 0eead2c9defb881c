//! `tower-backoff`: tower's `Retry` middleware sleeping by `ExponentialBackoffMaker`'s backoff, on the
//! paused tokio runtime.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, BackoffShape, CallInfo, CallResult, Contract, DelayContract, Outcome, SplitMix64, Subject, VDuration, World,
};
use timelaw_generators::{Choices, Swarm};
use tower::retry::backoff::{Backoff, ExponentialBackoff, ExponentialBackoffMaker, MakeBackoff};
use tower::retry::{Policy, Retry};
use tower::util::rng::Rng;
use tower::ServiceExt;

use super::Failure;
use crate::domain::AdapterConfig;
use crate::tokio_driver::{run_tokio, Recorder, TokioWorld, TOKIO_SLEEP_MAX};
use timelaw_core::float::with_float_tolerance;
use timelaw_core::float::F64;
use timelaw_core::sync_loop::loop_contract;
use timelaw_core::JitterBounds;
use timelaw_generators::draw::{self, offer, MS};

/// tower's cap when none is given: `Duration::from_millis(u64::MAX)`, below `Duration::MAX`.
const DEFAULT_MAX: Duration = Duration::from_millis(u64::MAX);

/// tower's `ExponentialBackoffMaker::new(min, max, jitter, rng)` plus the retry limit of the policy.
///
/// | field | meaning | domain (simplest first) |
/// |---|---|---|
/// | `min` | the first delay | 0 ns..=1 h, 50 ms (the default); one in eight a boundary value up to `Duration::MAX` |
/// | `max` | the cap; `None` for the default `Duration::from_millis(u64::MAX)` | above `min` (by a drawn delay, boundary values included), none (`min` itself when `min` is above the default) |
/// | `jitter` | "the ratio of the base timeout that may be randomly added" | 0, 0.99 (the default), 0..=1, 1..=100 |
/// | `max_retries` | the policy's retry limit (tower's backoff has none) | 0..=5, ..=12, ..=100 |
///
/// Durations are `std::time::Duration`, as tower takes them, drawn with [`draw::std_delay`] and written as
/// text in fixtures. The maker's `rng` is a [`WorldRng`] seeded from the World once per call. Configs the maker rejects
/// (`min > max`, `max == 0`, jitter outside `0..=100`) are not drawn; a deserialized one aborts the run
/// with the maker's error.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerBackoffConfig {
    /// The first delay.
    #[serde(with = "timelaw_core::duration_text")]
    pub min: Duration,
    /// The cap; `None` is tower's default maximum (`u64::MAX` milliseconds).
    #[serde(with = "timelaw_core::duration_text::option")]
    pub max: Option<Duration>,
    /// The jitter ratio.
    pub jitter: F64,
    /// Retries the policy allows per call.
    pub max_retries: u32,
}

impl Default for TowerBackoffConfig {
    /// tower's `ExponentialBackoffMaker::default()` (50 ms, no cap, jitter 0.99) and 3 retries.
    fn default() -> TowerBackoffConfig {
        TowerBackoffConfig { min: Duration::from_millis(50), max: None, jitter: F64(0.99), max_retries: 3 }
    }
}

/// tower's `Rng` over the World's randomness: SplitMix64 seeded from the World. Cloning copies the state,
/// like tower's own `HasherRng`.
#[derive(Clone, Debug)]
pub struct WorldRng(SplitMix64);

impl Rng for WorldRng {
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

impl TowerBackoffConfig {
    /// The maker this config describes.
    ///
    /// # Errors
    /// The maker's validation error, as text.
    pub fn maker(&self, seed: u64) -> Result<ExponentialBackoffMaker<WorldRng>, String> {
        let max = self.max.unwrap_or(DEFAULT_MAX);
        ExponentialBackoffMaker::new(self.min, max, self.jitter.0, WorldRng(SplitMix64::new(seed)))
            .map_err(|error| error.to_string())
    }
}

/// The largest jitter `ExponentialBackoffMaker::new` takes ("jitter outside `0..=100`" is refused).
const JITTER_MAX: f64 = 100.0;

fn jitter<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> F64 {
    if !swarm.jitter {
        return F64(0.0);
    }
    match c.weighted(&[2, 2, 3, 1]) {
        0 => F64(0.0),
        1 => F64(0.99),
        2 => F64::from_milli(c.between(1, 1000)),
        _ => F64::from_milli(c.between(1000, 100_000)),
    }
}

fn describe_once<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> TowerBackoffConfig {
    let min = draw::std_delay(c, MS.saturating_mul(50));
    let max = match c.weighted(&[3, 1]) {
        0 => Some(min.saturating_add(draw::std_delay(c, VDuration::from_secs(10))).max(Duration::from_nanos(1))),
        // The default cap is below `Duration::MAX`: a `min` above it needs a cap of its own (tower refuses
        // `min > max`), the same extreme value.
        _ if min > DEFAULT_MAX => Some(min),
        _ => None,
    };
    let jitter = jitter(c, swarm);
    let max_retries = draw::retries(c, 100) as u32; // At most 100.
    TowerBackoffConfig { min, max, jitter, max_retries }
}

impl AdapterConfig for TowerBackoffConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> TowerBackoffConfig {
        describe_once(c, swarm)
    }

    /// - `backoff`: exponential from `min`, doubling ("The backoff duration will increase exponentially
    ///   for every subsequent backoff, up to a maximum duration").
    /// - `delay_min`: `min` ("The minimum amount of time to wait before resuming an operation").
    /// - `delay_max`: `max` ("The maximum amount of time to wait before resuming an operation").
    /// - `jitter_clipped_at_cap`: tower's jitter is "a random, uniform duration on `[0, base*self.jitter]`
    ///   no greater than `self.max`" (the doc of `ExponentialBackoff::jitter`, which caps it at
    ///   `max - base`), so the jittered delay never exceeds `max`.
    /// - `jitter`: up to `jitter` times the base is added ("The ratio of the base timeout that may be
    ///   randomly added to a backoff").
    /// - `max_attempts`: `max_retries + 1` (the policy's limit).
    /// - `delay_tolerance`: tower computes the jitter in `f64`.
    fn contract(&self) -> Contract {
        let ratio_milli = (self.jitter.0 * 1000.0).ceil() as u64; // Saturating cast; the domain keeps it <= 100_000.
        let min = VDuration::from_std(self.min);
        let contract = {
            let mut promise = loop_contract();
            promise.retry.max_attempts = Some(self.max_retries.saturating_add(1));
            promise.delays.min = Some(min);
            promise.delays.max = self.max.map(VDuration::from_std);
            promise.delays.backoff = Some(BackoffShape::Exponential { initial: min, factor_milli: 2000 });
            promise.delays.jitter =
                Some(if ratio_milli == 0 { JitterBounds::None } else { JitterBounds::Additive { ratio_milli } });
            promise.delays.jitter_clipped_at_cap = true;
            // The backoff's future is a tokio `Sleep`.
            promise.timing.timer_granularity = crate::domain::TOKIO_TIMER_GRANULARITY;
            promise
        };
        match ratio_milli {
            0 => Contract { delays: DelayContract { tolerance: VDuration::ZERO, ..contract.delays }, ..contract },
            _ => with_float_tolerance(contract),
        }
    }

    fn simpler(&self) -> Vec<TowerBackoffConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: TowerBackoffConfig| offer(&mut out, self, candidate);
        push(TowerBackoffConfig { jitter: F64(0.0), ..self.clone() });
        // The default jitter is the simplest jitter on (the domain's order, simplest first): a finding that
        // needs a jitter reaches it from any other; from it only 0 is offered, so no two offer each other.
        push(TowerBackoffConfig { jitter: Self::default().jitter, ..self.clone() });
        for max_retries in draw::simpler_retry_limits(Some(self.max_retries)).into_iter().flatten() {
            push(TowerBackoffConfig { max_retries, ..self.clone() });
        }
        for min in draw::simpler_std_delays(self.min) {
            push(TowerBackoffConfig { min, max: self.max.map(|max| max.max(min)), ..self.clone() });
        }
        for max in self.max.map(draw::simpler_std_delays).into_iter().flatten() {
            push(TowerBackoffConfig { max: Some(max), ..self.clone() });
        }
        // Coupled, last: a smaller `min` (the first field, so the simpler config) at the largest jitter the
        // maker takes, 1 ns smaller among them (from which the bisection of `min` goes on). A finding in
        // the jittered delay holds along a curve of `min` and jitter, and no single move walks along it:
        // without this, each start stopped at its own point of the curve.
        if self.jitter.0 < JITTER_MAX {
            let just_below = self.min.checked_sub(Duration::from_nanos(1));
            for min in draw::simpler_std_delays(self.min).into_iter().chain(just_below) {
                let max = self.max.map(|max| max.max(min));
                push(TowerBackoffConfig { min, max, jitter: F64(JITTER_MAX), ..self.clone() });
            }
        }
        out.retain(|config| config.maker(0).is_ok());
        out
    }
}

/// The retry policy: tower's `Policy` docs example (`Attempts`), sleeping by the backoff.
#[derive(Clone)]
struct BackoffPolicy {
    backoff: ExponentialBackoff<WorldRng>,
    mirror: Mirror,
    retries_left: u32,
    idempotent: bool,
    recorder: Recorder,
}

impl Policy<(), (), Failure> for BackoffPolicy {
    type Future = tokio::time::Sleep;

    fn retry(&mut self, _request: &mut (), result: &mut Result<(), Failure>) -> Option<tokio::time::Sleep> {
        match result {
            Err(failure) if failure.retryable() && self.retries_left > 0 => {
                self.retries_left -= 1;
                let sleep = self.backoff.next_backoff();
                let asked = self.mirror.asked(&sleep);
                self.recorder.record_sleep(asked);
                Some(sleep)
            }
            _ => None,
        }
    }

    fn clone_request(&mut self, _request: &()) -> Option<()> {
        self.idempotent.then_some(())
    }
}

/// tower's backoff computed as tower 0.5.3 computes it (`ExponentialBackoff::base` and `jitter`, the same
/// random stream), to know what it asked for: `tokio::time::sleep` clamps every sleep to 30 years
/// (`TOKIO_SLEEP_MAX`), and the `Sleep` tower returns tells only its clamped deadline.
#[derive(Clone, Debug)]
struct Mirror {
    min: Duration,
    max: Duration,
    jitter: f64,
    rng: WorldRng,
    iterations: u32,
}

impl Mirror {
    fn new(config: &TowerBackoffConfig, seed: u64) -> Mirror {
        let max = config.max.unwrap_or(DEFAULT_MAX);
        Mirror { min: config.min, max, jitter: config.jitter.0, rng: WorldRng(SplitMix64::new(seed)), iterations: 0 }
    }

    /// The next backoff (where tower's own arithmetic overflows, tower has panicked before this runs).
    fn next(&mut self) -> Duration {
        let base = self.min.checked_mul(2_u32.saturating_pow(self.iterations)).unwrap_or(self.max).min(self.max);
        self.iterations = self.iterations.saturating_add(1);
        if self.jitter == 0.0 {
            return base;
        }
        let rand_jitter = self.rng.next_f64() * self.jitter;
        let secs = Duration::from_secs((base.as_secs() as f64 * rand_jitter) as u64); // Saturating casts, as tower's.
        let nanos = Duration::from_nanos(u64::from((f64::from(base.subsec_nanos()) * rand_jitter) as u32));
        let jitter = secs.checked_add(nanos).unwrap_or(Duration::MAX).min(self.max.saturating_sub(base));
        base.saturating_add(jitter)
    }

    /// What tower asked for: the mirror's value when tokio's sleep agrees with it (up to the clamp), else
    /// the time to the sleep's deadline (the mirror would have drifted; tokio's view is the truth).
    fn asked(&mut self, sleep: &tokio::time::Sleep) -> Duration {
        let left = sleep.deadline().saturating_duration_since(tokio::time::Instant::now());
        let mirrored = self.next();
        if mirrored.min(TOKIO_SLEEP_MAX) == left {
            mirrored
        } else {
            left
        }
    }
}

/// tower's `Retry` middleware with `ExponentialBackoffMaker` (subject name `tower-backoff`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TowerBackoff;

impl Subject for TowerBackoff {
    type Config = TowerBackoffConfig;

    fn name(&self) -> &str {
        "tower-backoff"
    }

    fn contract(&self, config: &TowerBackoffConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &TowerBackoffConfig, world: &mut World<'_>) -> Result<(), Abort> {
        config.maker(0).map_err(Abort::InvalidConfig)?;
        run_tokio(world, |w| async move { w.for_each_call(|call| serve(&w, config, call)).await })
    }
}

async fn serve(w: &TokioWorld<'_>, config: &TowerBackoffConfig, call: CallInfo) -> Result<CallResult, Abort> {
    let seed = if config.jitter.0 > 0.0 { w.random_u64()? } else { 0 };
    let mut maker = config.maker(seed).map_err(Abort::InvalidConfig)?;
    let policy = BackoffPolicy {
        backoff: maker.make_backoff(),
        mirror: Mirror::new(config, seed),
        retries_left: config.max_retries,
        idempotent: call.idempotent,
        recorder: w.recorder(),
    };
    let service = tower::service_fn(|()| attempt(w.clone()));
    outcome(Retry::new(policy, service).oneshot(()).await)
}

/// One scripted attempt as the service's response.
pub(crate) async fn attempt(w: TokioWorld<'_>) -> Result<(), Failure> {
    match w.attempt().await {
        Ok(Outcome::Ok) => Ok(()),
        Ok(outcome) => Err(Failure::Outcome(outcome)),
        Err(abort) => Err(Failure::Aborted(abort)),
    }
}

/// The call's result from the middleware's.
pub(crate) fn outcome(result: Result<(), Failure>) -> Result<CallResult, Abort> {
    match result {
        Ok(()) => Ok(CallResult::Ok),
        Err(Failure::Outcome(outcome)) => Ok(CallResult::from_outcome(outcome)),
        Err(Failure::Cancelled) => Ok(CallResult::Err(timelaw_core::ErrorKind::Cancelled)),
        Err(Failure::Aborted(abort)) => Err(abort),
    }
}

crate::domain::describe_by_config!(TowerBackoff);
