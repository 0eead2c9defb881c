//! An application's retry policy with two retry loops (sync and tokio), and what timelaw needs to check them.
use serde::{Deserialize, Serialize};
use std::time::Duration;
use timelaw::core::{sync_loop, Contract, TieRule::InnerWins, VDuration};
use timelaw::{draw, subject, tokio, Choices, FnSubject};

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
    fn contract(&self) -> Contract {
        sync_loop::contract_for(Contract::exponential(self.retries + 1, self.base, 2000, self.cap))
    }
    fn describe<C: Choices + ?Sized>(c: &mut C, delay: fn(&mut C, VDuration) -> VDuration) -> Policy {
        Policy { retries: draw::retries(c, 20) as u32, base: delay(c, draw::SEC), cap: delay(c, draw::SEC) }
    }
}

/// The tokio loop: runs `op` again after the policy's delays while `again` says its result may change.
pub async fn retry<T>(p: &Policy, op: impl AsyncFn() -> T, again: fn(&T) -> bool, sleep: impl AsyncFn(Duration)) -> T {
    let (mut delays, mut result) = (p.delays(), op().await);
    while let (true, Some(delay)) = (again(&result), delays.next()) {
        sleep(delay).await;
        result = op().await;
    }
    result
}

/// The blocking client's loop (timelaw's `sync_loop`, which is ours) with the policy's delays.
pub const SYNC_RETRY: FnSubject<Policy> = subject(
    "app-sync-retry",
    |c| Policy::describe(c, draw::delay),
    Policy::contract,
    |p, world| sync_loop::serve_calls(world, |_| Ok(p.delays())),
);

/// [`retry`] on tokio, each attempt under a timeout of whole milliseconds; it retries non-idempotent calls too.
pub const TOKIO_RETRY: FnSubject<(Policy, VDuration)> = subject(
    "app-tokio-retry",
    |c| (Policy::describe(c, draw::delay_ms), draw::delay_ms(c, draw::SEC).max(draw::MS)),
    |(p, timeout)| {
        let mut promise = p.contract().with_attempt_timeout(*timeout, InnerWins);
        promise.retry.respects_idempotency = false;
        promise
    },
    |(p, t), world| {
        tokio::serve_calls(world, |w, _| async move {
            retry(p, || w.attempt_within(t.to_std()), tokio::retryable_by_default, |d| w.sleep(d)).await
        })
    },
);

/// Our subjects and timelaw's built-in ones, for the CLI (src/main.rs) and the replay test.
pub fn registry() -> timelaw::Registry {
    timelaw::Registry::builtin().with(SYNC_RETRY).with(TOKIO_RETRY)
}
