//! recloser 1.4.0: the `AsyncRecloser` circuit breaker around every call, under load (subject name
//! `recloser`).
//!
//! # How it runs
//! One breaker serves every call of the case. Each call is one future on the virtual executor
//! ([`run_async_calls`], so calls overlap at their arrivals, in the recorded interleaving):
//! `AsyncRecloser::call(attempt)`, where `attempt` dispatches the call's one scripted attempt. recloser
//! decides on the first poll (`Err(Error::Rejected)` is recorded as `Rejected { CircuitOpen }`) and
//! records the attempt's result when it completes; every error counts as a failure (recloser's default
//! `AnyError`), a cut attempt (timeout, cancellation) included. The async form is the one whose calls
//! can overlap: the synchronous `call(|| ..)` runs its closure inline.
//!
//! # recloser reads the clock itself: virtual std clocks
//! recloser reads `std::time::Instant::now()` itself (no clock to inject): it opens with
//! `State::Open(Instant::now() + open_wait)` and lets a call through again only once
//! `Instant::now() > until`. The subject declares virtual std clocks ([`Subject::std_clocks`],
//! [`timelaw_core::std_clocks`]), so that clock is the World's monotonic clock, counted from
//! `timelaw_core::std_clocks::MONOTONIC_ORIGIN` at every case's start: the open period elapses in virtual time, the half-open
//! state is reached and judged, and `Instant::now() + open_wait` overflows for exactly the same
//! `open_wait` on every run and every machine.
//!
//! # The contract, from recloser's docs
//! - "`State::Closed(RingBuffer(len))`: ... At least `len` calls will be performed before calculating a
//!   `failure_rate` based on which transitions to `State::Open(_)` state may happen"; the example: with
//!   `closed_len(1)`, the first failed call is "just recorded as an error", the second "also computes
//!   failure_rate ... Will transition to State::Open afterward". So the rate is first computed at the
//!   `len + 1`-th result, over the last `len`. The contract's count window (`window`, `min_calls`)
//!   opens at the `min_calls`-th result with `min_calls <= window`: it cannot say "first at `len + 1`,
//!   over the last `len`", and either reading it can say fires one result early or never.
//! - "`State::Open(duration)`: All calls will return `Err(Error::Rejected)` until `duration` has
//!   elapsed": a duration of the process's own clock (above), not of the case's.
//! - "`State::HalfOpen(RingBuffer(len))`: ... At least `len` calls will be performed before
//!   calculating a `failure_rate` based on which transitions to either `State::Closed(_)` or
//!   `State::Open(_)` states may happen": every call is let through while half-open (no probe limit).
//!   Observed: a call at the very instant `open_wait` has elapsed is still rejected (`>`).
//!
//! So the contract states the breaker as [`Declared::Unstated`]: it exists (its refusals are declared),
//! its parameters are not stated in the contract's vocabulary. The documented behaviour the vocabulary
//! cannot say is pinned by the tests of `adapters/tests/recloser.rs` instead (when it opens, what
//! overlapping calls count, that it stays open).
//!
//! # Config domain
//! recloser's builder takes every `f32` threshold, every `usize` length and every `Duration`. Drawn:
//! finite thresholds (the docs' 0.5, hundredths in `0..=1`, and 0, 1, -1, 2), ring lengths
//! `0..=2^20` (0 included; a longer ring allocates one `AtomicBool` per slot, and a failed allocation
//! aborts the process instead of panicking), and every `open_wait`: the default 30 s, whole
//! milliseconds up to 10 s (periods a case outlives, so the half-open state is reached), any
//! `Duration`, the seconds just below and above [`OPEN_WAIT_OVERFLOW`] (where `Instant::now() +
//! open_wait` stops fitting in std's `Instant`), and `Duration::MAX`.

use std::time::Duration;

use ::recloser::{AsyncRecloser, Error, Recloser};
use serde::{Deserialize, Serialize};
use timelaw_core::concurrent::run_async_calls;
use timelaw_core::exec::AsyncWorld;
use timelaw_core::std_clocks::MONOTONIC_ORIGIN_S;
use timelaw_core::{
    Abort, AttemptResult, CallResult, Contract, Declared, ErrorKind, Outcome, Rejection, StdClocks, Subject, World, F32,
};
use timelaw_generators::draw::{self, offer};
use timelaw_generators::{Choices, Swarm};

use crate::domain::AdapterConfig;

/// recloser's default `open_wait`, the simplest drawn.
pub const OPEN_WAIT_DEFAULT: Duration = Duration::from_secs(30);

/// The longest `open_wait` whose opening at a case's start fits in std's `Instant` (`i64` seconds,
/// counted from [`MONOTONIC_ORIGIN_S`]): one second more overflows `Instant::now() + open_wait` there.
pub const OPEN_WAIT_OVERFLOW: Duration = Duration::from_secs(i64::MAX as u64 - MONOTONIC_ORIGIN_S);

/// The longest ring drawn (see the module docs).
pub const RING_LEN_MAX: u32 = 1 << 20;

/// recloser's builder, setting for setting.
///
/// | field | call | domain (simplest first) |
/// |---|---|---|
/// | `error_rate_closed` | `error_rate_closed` | 0.5 (the default), hundredths in `0..=1`, 0, 1, -1, 2 |
/// | `error_rate_half_open` | `error_rate_half_open` | as `error_rate_closed` |
/// | `closed_len` | `closed_len` | 1, 2..=10, 11..=100 (100 the default), 0, 101..=2^20 |
/// | `half_open_len` | `half_open_len` | as `closed_len` (10 the default) |
/// | `open_wait` | `open_wait` | 30 s (the default), 0..=10 s in ms, any `Duration`, [`OPEN_WAIT_OVERFLOW`] ± 2^20 s, `Duration::MAX` |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecloserConfig {
    /// The failure rate (0 to 1) at or above which the closed breaker opens.
    pub error_rate_closed: F32,
    /// The failure rate of the half-open state at or below which it closes (at or above
    /// `error_rate_half_open` it opens again).
    pub error_rate_half_open: F32,
    /// The closed state's ring buffer length.
    pub closed_len: u32,
    /// The half-open state's ring buffer length.
    pub half_open_len: u32,
    /// How long it stays open (on std's clock, virtual under timelaw).
    #[serde(with = "timelaw_core::duration_text")]
    pub open_wait: Duration,
}

impl Default for RecloserConfig {
    /// `Recloser::default()`.
    fn default() -> RecloserConfig {
        RecloserConfig {
            error_rate_closed: F32(0.5),
            error_rate_half_open: F32(0.5),
            closed_len: 100,
            half_open_len: 10,
            open_wait: OPEN_WAIT_DEFAULT,
        }
    }
}

impl RecloserConfig {
    /// The breaker this config describes.
    pub fn build(&self) -> Recloser {
        Recloser::custom()
            .error_rate_closed(self.error_rate_closed.0)
            .error_rate_half_open(self.error_rate_half_open.0)
            .closed_len(self.closed_len as usize)
            .half_open_len(self.half_open_len as usize)
            .open_wait(self.open_wait)
            .build()
    }
}

fn error_rate<C: Choices + ?Sized>(c: &mut C) -> F32 {
    F32(match c.weighted(&[3, 4, 1]) {
        0 => 0.5,
        1 => c.between(0, 100) as f32 / 100.0, // At most 100: exact enough for a hundredth.
        _ => [0.0, 1.0, -1.0, 2.0][c.pick(4) as usize],
    })
}

fn ring_len<C: Choices + ?Sized>(c: &mut C) -> u32 {
    match c.weighted(&[3, 3, 2, 1, 1]) {
        0 => 1,
        1 => c.between(2, 10) as u32,   // At most 10.
        2 => c.between(11, 100) as u32, // At most 100.
        3 => 0,
        _ => c.between(101, u64::from(RING_LEN_MAX)) as u32, // At most 2^20.
    }
}

fn open_wait<C: Choices + ?Sized>(c: &mut C) -> Duration {
    const NEAR_S: u64 = 1 << 20;
    let overflow_s = OPEN_WAIT_OVERFLOW.as_secs();
    match c.weighted(&[3, 4, 2, 1, 1, 1]) {
        0 => OPEN_WAIT_DEFAULT,
        1 => Duration::from_millis(c.between(0, 10_000)), // At most 10 s.
        2 => Duration::new(c.between(0, u64::MAX), c.between(0, 999_999_999) as u32),
        3 => Duration::from_secs(overflow_s - c.between(0, NEAR_S)), // At most 2^20 s below.
        4 => Duration::from_secs(overflow_s + c.between(1, NEAR_S)), // At most 2^20 s above.
        _ => Duration::MAX,
    }
}

impl AdapterConfig for RecloserConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> RecloserConfig {
        let error_rate_closed = error_rate(c);
        let error_rate_half_open = error_rate(c);
        let closed_len = ring_len(c);
        let half_open_len = ring_len(c);
        RecloserConfig { error_rate_closed, error_rate_half_open, closed_len, half_open_len, open_wait: open_wait(c) }
    }

    /// `circuit`: [`Declared::Unstated`] (see the module docs: the count window cannot say recloser's
    /// "first at `len + 1`, over the last `len`", nor a half-open state that lets every call through).
    fn contract(&self) -> Contract {
        Contract { circuit: Declared::Unstated, ..Contract::default() }
    }

    fn simpler(&self) -> Vec<RecloserConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: RecloserConfig| offer(&mut out, self, candidate);
        push(RecloserConfig { closed_len: 1, half_open_len: 1, ..RecloserConfig::default() });
        push(RecloserConfig { open_wait: OPEN_WAIT_DEFAULT, ..self.clone() });
        // The default is the simplest `open_wait`, and a longer one is simpler the closer it is to it:
        // the domain's own boundaries (the longest that fits, one second past it) first, so an overflow
        // stops at the first value that overflows, then the shorter durations still above the default.
        // Nothing below the default is offered (it was, and 1 ns went back to 30 s: a cycle).
        let past = OPEN_WAIT_OVERFLOW + Duration::from_secs(1);
        let shorter = [OPEN_WAIT_OVERFLOW, past].into_iter().chain(draw::simpler_std_delays(self.open_wait));
        for open_wait in shorter.filter(|wait| OPEN_WAIT_DEFAULT < *wait && *wait < self.open_wait) {
            push(RecloserConfig { open_wait, ..self.clone() });
        }
        push(RecloserConfig { error_rate_half_open: F32(0.5), ..self.clone() });
        push(RecloserConfig { error_rate_closed: F32(0.5), ..self.clone() });
        push(RecloserConfig { half_open_len: 1, ..self.clone() });
        for closed_len in draw::simpler_counts(self.closed_len, 1) {
            push(RecloserConfig { closed_len, ..self.clone() });
        }
        out
    }
}

/// What the wrapped attempt returns besides success: the call's error, or the World's abort (which is
/// no result of the call, so recloser does not count it).
#[derive(Debug)]
enum Failure {
    Call(ErrorKind),
    Abort(Abort),
}

/// The call's one attempt, as recloser sees it.
async fn attempt(w: AsyncWorld<'_>) -> Result<(), Failure> {
    match w.dispatch().await.map_err(Failure::Abort)? {
        AttemptResult::Completed(Outcome::Ok) => Ok(()),
        AttemptResult::Completed(outcome) => match CallResult::from_outcome(outcome) {
            CallResult::Err(kind) => Err(Failure::Call(kind)),
            CallResult::Ok => Ok(()),
        },
        AttemptResult::TimedOut => Err(Failure::Call(ErrorKind::Timeout)),
        AttemptResult::Cancelled => Err(Failure::Call(ErrorKind::Cancelled)),
    }
}

/// recloser's `AsyncRecloser` around one attempt per call (subject name `recloser`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RecloserSubject;

impl Subject for RecloserSubject {
    type Config = RecloserConfig;

    fn name(&self) -> &str {
        "recloser"
    }

    fn contract(&self, config: &RecloserConfig) -> Contract {
        config.contract()
    }

    /// Virtual: recloser reads `Instant::now()` itself (see the module docs).
    fn std_clocks(&self) -> StdClocks {
        StdClocks::Virtual
    }

    fn run(&self, config: &RecloserConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let breaker = AsyncRecloser::from(config.build());
        run_async_calls(world, move |w, _call| {
            let guarded =
                breaker.call_with(|failure: &Failure| matches!(failure, Failure::Call(_)), attempt(w.clone()));
            async move {
                match guarded.await {
                    Ok(()) => Ok(CallResult::Ok),
                    Err(Error::Inner(Failure::Call(kind))) => Ok(CallResult::Err(kind)),
                    Err(Error::Inner(Failure::Abort(abort))) => Err(abort),
                    Err(Error::Rejected) => {
                        w.with(|w| w.reject(Rejection::CircuitOpen))?;
                        Ok(CallResult::Err(ErrorKind::CircuitOpen))
                    }
                }
            }
        })
    }
}

crate::domain::describe_by_config!(RecloserSubject);
