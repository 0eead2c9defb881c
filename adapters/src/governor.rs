//! governor 0.10.4: a direct `RateLimiter` checked before every dispatch, under load (subject name
//! `governor`).
//!
//! # How it runs
//! One limiter serves every call of the case, built at the start with
//! `RateLimiter::direct_with_clock(quota, clock)` over [`WorldClock`], a governor `Clock` that reads the
//! World's virtual instant (never the wall clock: the crate's `quanta` feature is off). The calls are
//! served through the synchronous seam ([`timelaw_core::concurrent_sync`]), so arrivals and the
//! recorded interleaving decide who asks first. Every attempt of a call, the first and each retry of a
//! transient failure (up to `attempts_max`, immediately), asks `check()` first; a refusal is recorded as
//! `Rejected { LimiterEmpty }` and ends the call with `Err(LimiterEmpty)`.
//!
//! # The contract, from governor's docs
//! - "governor implements the Generic Cell Rate Algorithm (GCRA)" ... "equivalent to a leaky bucket"
//!   (crate docs), with the quota "a positive number of cells ... and the amount of time for the rate
//!   limiter to replenish a single cell" (`Quota`) and "the burst size is the maximum number of cells
//!   that the rate limiter will ever allow through without replenishing them" (`Quota`, "Burst sizes").
//! - So the limiter is [`LimiterContract`] `{ burst, refill_every: period }`. The vocabulary's whole-period
//!   refill rule is a true bound for GCRA too: GCRA admits at most `burst + floor((b - a) / period)` cells
//!   in any window `[a, b]`, and `floor(b / p) - floor(a / p) >= floor((b - a) / p)`, so
//!   `limiter_within_rate` judges what governor promises whenever the limiter was created (the tests in
//!   `adapters/tests/governor.rs` check admissions cell by cell, mid-period starts included).
//!   `limiter_admits_with_tokens` judges refusals against exactly GCRA's rule (continuous refill from the
//!   first cell), which is governor's: a refusal with a cell left is a finding.
//! - The retry loop is timelaw's (governor has none): `max_attempts` is `attempts_max`, and it stops
//!   at the call's cancellation ([`Governor::harness_laws`] names the laws that judge the loop).
//!
//! # Config domain
//! `burst` 1..=`u32::MAX` (`NonZeroU32`), `period` 1 ns..=`Duration::MAX` (`Quota::with_period` refuses
//! only zero), `attempts_max` 1..=5. Extreme quotas are drawn: whatever governor does with them
//! (docs/findings.md) is what the laws judge.

use std::cell::Cell;
use std::num::NonZeroU32;
use std::rc::Rc;
use std::time::Duration;

use ::governor::clock::Clock;
use ::governor::middleware::NoOpMiddleware;
use ::governor::nanos::Nanos;
use ::governor::state::{InMemoryState, NotKeyed};
use ::governor::{Quota, RateLimiter};
use serde::{Deserialize, Serialize};
use timelaw_core::concurrent_sync::{serve_sync_calls, SyncAction, SyncEvent, SyncServer};
use timelaw_core::{
    Abort, AttemptResult, CallInfo, CallResult, Contract, Declared, ErrorKind, LimiterContract, Outcome, Rejection,
    Subject, VDuration, World,
};
use timelaw_generators::draw::{self, offer};
use timelaw_generators::{Choices, Swarm};

use crate::domain::AdapterConfig;

/// governor's quota and the loop around it.
///
/// | field | call | domain (simplest first) |
/// |---|---|---|
/// | `burst` | `Quota::allow_burst` | 1, 2..=10, 11..=1000, `u32::MAX` |
/// | `period` | `Quota::with_period` | 10 ms, a drawn delay (zero drawn is 1 ns), 1 ns, `Duration::MAX` |
/// | `attempts_max` | the loop's attempts per call | 1, 2..=5 |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GovernorConfig {
    /// Cells admitted at once ("burst size"), at least 1.
    pub burst: u32,
    /// The time one cell takes to replenish, at least 1 ns.
    #[serde(with = "timelaw_core::duration_text")]
    pub period: Duration,
    /// Attempts per call, the first included (transient failures are retried at once).
    pub attempts_max: u32,
}

impl Default for GovernorConfig {
    fn default() -> GovernorConfig {
        GovernorConfig { burst: 1, period: Duration::from_millis(10), attempts_max: 1 }
    }
}

impl GovernorConfig {
    /// The quota this config describes (`burst` 0 is read as 1, `period` zero as 1 ns: both illegal).
    pub fn quota(&self) -> Quota {
        let period = self.period.max(Duration::from_nanos(1));
        let burst = NonZeroU32::new(self.burst).unwrap_or(NonZeroU32::MIN);
        // `with_period` is `None` only for a zero period, which `max` rules out.
        Quota::with_period(period).unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN)).allow_burst(burst)
    }
}

impl AdapterConfig for GovernorConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> GovernorConfig {
        let burst = match c.weighted(&[3, 4, 2, 1]) {
            0 => 1,
            1 => c.between(2, 10),
            2 => c.between(11, 1000),
            _ => u64::from(u32::MAX),
        } as u32; // At most u32::MAX.
        let period = match c.weighted(&[3, 5, 1, 1]) {
            0 => Duration::from_millis(10),
            1 => draw::std_delay(c, VDuration::from_millis(10)).max(Duration::from_nanos(1)),
            2 => Duration::from_nanos(1),
            _ => Duration::MAX,
        };
        let attempts_max = match c.weighted(&[3, 2]) {
            0 => 1,
            _ => c.between(2, 5) as u32, // At most 5.
        };
        GovernorConfig { burst, period, attempts_max }
    }

    /// `limiter`: `{ burst, refill_every: period }` (see the module docs); `max_attempts`: `attempts_max`;
    /// `honors_cancellation`: the loop checks the cancellation before every `check()` (timelaw's loop).
    fn contract(&self) -> Contract {
        let refill_every = VDuration::from_std(self.period.max(Duration::from_nanos(1)));
        let mut promise = Contract {
            limiter: Declared::Stated(LimiterContract::token_bucket(self.burst.max(1), refill_every)),
            ..Contract::default()
        };
        promise.retry.max_attempts = Some(self.attempts_max);
        promise.timing.honors_cancellation = true;
        promise
    }

    fn simpler(&self) -> Vec<GovernorConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: GovernorConfig| offer(&mut out, self, candidate);
        push(GovernorConfig::default());
        for attempts_max in draw::simpler_counts(self.attempts_max, 1) {
            push(GovernorConfig { attempts_max, ..self.clone() });
        }
        for burst in draw::simpler_counts(self.burst, 1) {
            push(GovernorConfig { burst, ..self.clone() });
        }
        for period in draw::simpler_std_delays(self.period) {
            push(GovernorConfig { period: period.max(Duration::from_nanos(1)), ..self.clone() });
        }
        // Coupled, last: a smaller burst (the first field, so the simpler config) at a longer period,
        // raised to a boundary value. A finding in `period * (burst - 1)` holds along a curve, and no
        // single move walks along it: without this, each start stopped at its own point of the curve.
        for burst in draw::simpler_counts(self.burst, 1) {
            for period in draw::larger_boundary_durations(self.period) {
                push(GovernorConfig { burst, period, ..self.clone() });
            }
        }
        out
    }
}

/// A governor `Clock` reading the World's virtual instant (nanoseconds since the case start), set by
/// the subject before every `check()`.
#[derive(Clone, Debug, Default)]
pub struct WorldClock {
    now_ns: Rc<Cell<u64>>,
}

impl WorldClock {
    /// Sets the instant the next `now()` returns.
    pub fn set(&self, now_ns: u64) {
        self.now_ns.set(now_ns);
    }
}

impl Clock for WorldClock {
    type Instant = Nanos;
    fn now(&self) -> Nanos {
        Nanos::new(self.now_ns.get())
    }
}

type Limiter = RateLimiter<NotKeyed, InMemoryState, WorldClock, NoOpMiddleware<Nanos>>;

/// The shared limiter and the loop of every call.
struct Server {
    limiter: Limiter,
    clock: WorldClock,
    attempts_max: u32,
    /// Attempts dispatched so far, by call index.
    attempts: Vec<u32>,
}

impl Server {
    /// The next attempt of `call`, if it is not cancelled and the limiter admits it now.
    fn next_attempt(&mut self, world: &mut World<'_>, call: CallInfo) -> Result<SyncAction, Abort> {
        if world.is_cancelled() {
            return Ok(SyncAction::End(CallResult::Err(ErrorKind::Cancelled)));
        }
        self.clock.set(world.now().since_epoch().as_nanos());
        if self.limiter.check().is_err() {
            world.reject(Rejection::LimiterEmpty)?;
            return Ok(SyncAction::End(CallResult::Err(ErrorKind::LimiterEmpty)));
        }
        let index = call.index as usize;
        if self.attempts.len() <= index {
            self.attempts.resize(index + 1, 0);
        }
        self.attempts[index] += 1;
        Ok(SyncAction::dispatch())
    }

    /// After a transient failure: retry while attempts are left and the call may run again.
    fn after_transient(&mut self, world: &mut World<'_>, call: CallInfo) -> Result<SyncAction, Abort> {
        let made = self.attempts.get(call.index as usize).copied().unwrap_or(0);
        if !call.idempotent || made >= self.attempts_max {
            return Ok(SyncAction::End(CallResult::Err(ErrorKind::Transient)));
        }
        self.next_attempt(world, call)
    }
}

impl SyncServer for Server {
    fn on_event(&mut self, world: &mut World<'_>, call: CallInfo, event: SyncEvent) -> Result<SyncAction, Abort> {
        let end = |result| Ok(SyncAction::End(result));
        match event {
            SyncEvent::Arrived => self.next_attempt(world, call),
            SyncEvent::AttemptEnded(AttemptResult::Completed(Outcome::Transient)) => self.after_transient(world, call),
            SyncEvent::AttemptEnded(AttemptResult::Completed(outcome)) => end(CallResult::from_outcome(outcome)),
            SyncEvent::AttemptEnded(AttemptResult::TimedOut) => end(CallResult::Err(ErrorKind::Timeout)),
            // The loop never sleeps nor waits: a cut attempt is the only other way back.
            SyncEvent::AttemptEnded(AttemptResult::Cancelled) | SyncEvent::Woke(_) | SyncEvent::Nudged { .. } => {
                end(CallResult::Err(ErrorKind::Cancelled))
            }
        }
    }
}

/// governor's direct rate limiter checked before every dispatch (subject name `governor`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Governor;

impl Subject for Governor {
    type Config = GovernorConfig;

    fn name(&self) -> &str {
        "governor"
    }

    fn contract(&self, config: &GovernorConfig) -> Contract {
        config.contract()
    }

    /// Whether the loop retries and stops at a cancellation is timelaw's loop, not governor.
    fn harness_laws(&self) -> &'static [&'static str] {
        &["attempts_within_max", "cancellation_stops_work", "cancellation_leaves_nothing_running"]
    }

    fn run(&self, config: &GovernorConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let clock = WorldClock::default();
        clock.set(world.now().since_epoch().as_nanos());
        let limiter = RateLimiter::direct_with_clock(config.quota(), clock.clone());
        serve_sync_calls(world, Server { limiter, clock, attempts_max: config.attempts_max, attempts: Vec::new() })
    }
}

crate::domain::describe_by_config!(Governor);
