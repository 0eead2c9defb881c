//! `tokio-timeout-loop`: application code checked as it is written: a plain retry loop with
//! `tokio::time::timeout` around each attempt, `tokio::time::sleep` between attempts (recorded) and,
//! optionally, `tokio::time::timeout` around the whole call as its deadline.

use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, AboveCap, BackoffShape, CallInfo, CallResult, Contract, DelayContract, ErrorKind, JitterBounds,
    RateContract, RetryAfterCombine, RetryAfterPolicy, RetryContract, RetryOn, Subject, TieRule, TimingContract,
    VDuration, World,
};
use timelaw_generators::choice::optional;
use timelaw_generators::{Choices, Swarm};

use crate::domain::{AdapterConfig, TOKIO_TIMER_GRANULARITY};
use crate::tokio_driver::{run_tokio, TokioWorld};
use timelaw_core::sync_loop::retryable;
use timelaw_generators::draw::{self, offer, MS};

/// The loop's settings, all in whole milliseconds (tokio's timer resolution). They are the application's
/// own settings, not a crate's API, so they stay `VDuration` (text in fixtures) and are not drawn past
/// a minute; the crates' `std::time::Duration` settings reach `Duration::MAX`.
///
/// | field | domain (simplest first) |
/// |---|---|
/// | `max_attempts` | 1..=6, 7..=12 |
/// | `attempt_timeout` | 1 ms..=1 s, 1 s..=60 s |
/// | `delay` | 0, 1 ms..=1 s, 1 s..=60 s, 100 ms |
/// | `deadline` | none, 1 ms..=60 s (when the swarm allows deadlines) |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokioTimeoutLoopConfig {
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// `tokio::time::timeout` around each attempt.
    pub attempt_timeout: VDuration,
    /// `tokio::time::sleep` between attempts.
    pub delay: VDuration,
    /// `tokio::time::timeout` around the whole call.
    pub deadline: Option<VDuration>,
}

impl Default for TokioTimeoutLoopConfig {
    /// 3 attempts of at most 1 s, 100 ms apart, no deadline.
    fn default() -> TokioTimeoutLoopConfig {
        TokioTimeoutLoopConfig {
            max_attempts: 3,
            attempt_timeout: VDuration::from_secs(1),
            delay: MS.saturating_mul(100),
            deadline: None,
        }
    }
}

fn positive_ms<C: Choices + ?Sized>(c: &mut C) -> VDuration {
    match c.weighted(&[3, 1]) {
        0 => MS.saturating_mul(c.between(1, 1000)),
        _ => MS.saturating_mul(c.between(1000, 60_000)),
    }
}

impl AdapterConfig for TokioTimeoutLoopConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> TokioTimeoutLoopConfig {
        let max_attempts = match c.weighted(&[4, 1]) {
            0 => c.between(1, 6),
            _ => c.between(7, 12),
        } as u32; // At most 12.
        let attempt_timeout = positive_ms(c);
        let delay = draw::delay_ms(c, MS.saturating_mul(100));
        let deadline = optional(c, swarm.deadline, 1, 2, positive_ms);
        TokioTimeoutLoopConfig { max_attempts, attempt_timeout, delay, deadline }
    }

    /// What the loop does, stated for the laws: at most `max_attempts` attempts, each cut after
    /// `attempt_timeout` with tokio's tie rule (the inner future wins a tie: `Timeout::poll` polls it
    /// first), a constant `delay` between attempts, the call's `deadline`, transient, rate-limited and
    /// timed-out attempts retried, the last attempt's result returned, a retry-after not read (the loop
    /// always sleeps `delay`). The deadline is a `tokio::time::timeout` around the loop and cancellation
    /// drops the call's future; tokio's docs do not order the two at a tie, so `interrupt_tie` stays
    /// unstated. The timeout around the loop "polls the future before the timeout is checked" (tokio's
    /// `timeout` docs), so the loop wins a tie at the deadline (`deadline_tie`: `InnerWins`). Every timer
    /// is tokio's, of millisecond granularity ([`TOKIO_TIMER_GRANULARITY`]).
    fn contract(&self) -> Contract {
        Contract {
            retry: RetryContract {
                max_attempts: Some(self.max_attempts),
                retry_on: Some(RetryOn::ALL),
                reports_last_result: true,
                respects_idempotency: true,
            },
            delays: DelayContract {
                min: Some(self.delay),
                max: Some(self.delay),
                backoff: Some(BackoffShape::Constant { delay: self.delay }),
                jitter: Some(JitterBounds::None),
                ..DelayContract::default()
            },
            timing: TimingContract {
                attempt_timeout: Some(self.attempt_timeout),
                timeout_tie: TieRule::InnerWins,
                deadline: self.deadline,
                deadline_tie: TieRule::InnerWins,
                honors_cancellation: true,
                timer_granularity: TOKIO_TIMER_GRANULARITY,
                serves_stream: true,
                ..TimingContract::default()
            },
            rate: RateContract {
                retry_after: Some(RetryAfterPolicy {
                    combine: RetryAfterCombine::Ignored,
                    above_cap: AboveCap::GiveUp,
                }),
                ..RateContract::default()
            },
            ..Contract::default()
        }
    }

    fn simpler(&self) -> Vec<TokioTimeoutLoopConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: TokioTimeoutLoopConfig| offer(&mut out, self, candidate);
        push(TokioTimeoutLoopConfig { deadline: None, ..self.clone() });
        push(TokioTimeoutLoopConfig { max_attempts: self.max_attempts.min(2), ..self.clone() });
        push(TokioTimeoutLoopConfig { delay: VDuration::ZERO, ..self.clone() });
        out
    }
}

/// A plain tokio retry loop under `tokio::time::timeout` (subject name `tokio-timeout-loop`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioTimeoutLoop;

impl Subject for TokioTimeoutLoop {
    type Config = TokioTimeoutLoopConfig;

    fn name(&self) -> &str {
        "tokio-timeout-loop"
    }

    fn contract(&self, config: &TokioTimeoutLoopConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &TokioTimeoutLoopConfig, world: &mut World<'_>) -> Result<(), Abort> {
        run_tokio(world, |w| async move { w.for_each_call(|call| serve(&w, config, call)).await })
    }
}

async fn serve(w: &TokioWorld<'_>, config: &TokioTimeoutLoopConfig, call: CallInfo) -> Result<CallResult, Abort> {
    let Some(deadline) = config.deadline else {
        return retry_loop(w, config, call).await;
    };
    match tokio::time::timeout(deadline.to_std(), retry_loop(w, config, call)).await {
        Ok(result) => result,
        Err(_elapsed) => Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
    }
}

/// The application's loop, as anyone would write it.
async fn retry_loop(w: &TokioWorld<'_>, config: &TokioTimeoutLoopConfig, call: CallInfo) -> Result<CallResult, Abort> {
    let mut attempt = 1;
    loop {
        // `timed_attempt` is `tokio::time::timeout(attempt_timeout, w.attempt())` that tells the driver
        // its own timer fired (a deadline's cut is then not mistaken for the attempt's timeout).
        let (result, again) = match w.timed_attempt(config.attempt_timeout.to_std()).await {
            Ok(outcome) => {
                let outcome = outcome?;
                (CallResult::from_outcome(outcome), retryable(outcome))
            }
            Err(_elapsed) => (CallResult::Err(ErrorKind::Timeout), true),
        };
        if !again || !call.idempotent || attempt >= config.max_attempts {
            return Ok(result);
        }
        w.sleep(config.delay.to_std()).await;
        attempt += 1;
    }
}

crate::domain::describe_by_config!(TokioTimeoutLoop);
