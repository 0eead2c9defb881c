//! An application's retry policy with two retry loops (sync and tokio), and what timelaw needs to check them.
use std::{future::Future, time::Duration};

use serde::{Deserialize, Serialize};
use timelaw::core::{sync_loop, Abort, BackoffShape, CallResult, Contract, ErrorKind::*, JitterBounds};
use timelaw::core::{Subject, TieRule, VDuration, World};
use timelaw::{draw, tokio::run_tokio, Choices, Describe, Swarm};

/// Up to `retries` retries, `base` doubled per retry, capped at `cap`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Policy {
    pub retries: u32,
    pub base: VDuration,
    pub cap: VDuration,
}

impl Policy {
    /// The delays before each retry, in order.
    pub fn delays(&self) -> impl Iterator<Item = Duration> + '_ {
        let grown = |n| 2u64.checked_pow(n).map_or(VDuration::MAX, |f| self.base.saturating_mul(f));
        (0..self.retries).map(move |n| grown(n).min(self.cap).to_std())
    }
    /// What the policy promises, on top of what its loop promises (`rest`).
    fn contract(&self, rest: Contract) -> Contract {
        let backoff = Some(BackoffShape::Exponential { initial: self.base, factor_milli: 2000 });
        Contract {
            max_attempts: Some(self.retries + 1),
            delay_max: Some(self.cap),
            backoff,
            jitter: Some(JitterBounds::None),
            ..rest
        }
    }
    /// The one description of the domain (`delay` draws a duration, with a default).
    fn describe<C: Choices + ?Sized>(c: &mut C, delay: fn(&mut C, VDuration) -> VDuration) -> Policy {
        Policy { retries: draw::retries(c, 20) as u32, base: delay(c, draw::SEC), cap: delay(c, draw::SEC) }
    }
}

/// The tokio loop: runs `op` again after the policy's delays while `retryable` says its result may change.
pub async fn retry_async<T, F: Future<Output = T>, S: Future<Output = ()>>(
    policy: &Policy,
    mut op: impl FnMut() -> F,
    retryable: impl Fn(&T) -> bool,
    sleep: impl Fn(Duration) -> S,
) -> T {
    let mut delays = policy.delays();
    loop {
        match (op().await, delays.next()) {
            (result, Some(delay)) if retryable(&result) => sleep(delay).await,
            (result, _) => return result,
        }
    }
}

/// The blocking client's loop (timelaw's `sync_loop`, which is ours) with the policy's delays.
#[derive(Clone)]
pub struct SyncRetry;
impl Subject for SyncRetry {
    type Config = Policy;
    fn name(&self) -> &str {
        "app-sync-retry"
    }
    fn contract(&self, p: &Policy) -> Contract {
        p.contract(sync_loop::loop_contract())
    }
    fn run(&self, p: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        sync_loop::serve_calls(world, |_| Ok(p.delays()))
    }
}
impl Describe for SyncRetry {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _: &Swarm) -> Policy {
        Policy::describe(c, draw::delay)
    }
}

/// [`retry_async`] on tokio, each attempt under a timeout (whole milliseconds: tokio's timer resolution).
#[derive(Clone)]
pub struct TokioRetry;
impl Subject for TokioRetry {
    type Config = (Policy, VDuration);
    fn name(&self) -> &str {
        "app-tokio-retry"
    }
    fn contract(&self, (p, timeout): &(Policy, VDuration)) -> Contract {
        // The loop promises what timelaw's sync loop does, except that it retries non-idempotent calls too.
        let rest = Contract { respects_idempotency: false, ..sync_loop::loop_contract() };
        p.contract(Contract { attempt_timeout: Some(*timeout), timeout_tie: TieRule::InnerWins, ..rest })
    }
    fn run(&self, (p, timeout): &(Policy, VDuration), world: &mut World<'_>) -> Result<(), Abort> {
        run_tokio(world, |w| async move {
            w.for_each_call(|_| {
                let attempt = || async {
                    Ok(match w.timed_attempt(timeout.to_std()).await {
                        Ok(outcome) => CallResult::from_outcome(outcome?),
                        Err(_elapsed) => CallResult::Err(Timeout),
                    })
                };
                let retryable = |r: &Result<_, _>| matches!(r, Ok(CallResult::Err(Transient | RateLimited | Timeout)));
                retry_async(p, attempt, retryable, |delay| w.sleep(delay))
            })
            .await
        })
    }
}
impl Describe for TokioRetry {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _: &Swarm) -> (Policy, VDuration) {
        (Policy::describe(c, draw::delay_ms), draw::delay_ms(c, draw::SEC).max(draw::MS))
    }
}

/// Our subjects and timelaw's built-in ones, for the CLI (src/main.rs) and the replay test.
pub fn registry() -> timelaw::Registry {
    timelaw::Registry::builtin().with(SyncRetry).with(TokioRetry)
}
