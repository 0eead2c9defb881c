//! tower 0.5.3: its retry middleware (`tower::retry::Retry`) with the exponential backoff
//! (`ExponentialBackoffMaker`) and with the retry budget (`TpsBudget`).
//!
//! | subject | name | config |
//! |---|---|---|
//! | [`TowerBackoff`] | `tower-backoff` | [`TowerBackoffConfig`] |
//! | [`TowerBudget`] | `tower-budget` | [`TowerBudgetConfig`] |
//! | [`TowerConcurrencyLimit`] | `tower-concurrency-limit` | [`TowerConcurrencyLimitConfig`] |
//! | [`TowerRateLimit`] | `tower-rate-limit` | [`TowerRateLimitConfig`] |
//! | [`TowerHedge`] | `tower-hedge` | [`TowerHedgeConfig`] |
//!
//! The retry subjects drive the real middleware: a `Retry::new(policy, service_fn(..))` per call, with a
//! `Policy` written the way tower's docs show (`clone_request` returns `None` for a non-idempotent call,
//! which tower documents as "the retry function will not be called").
//!
//! The load subjects (`limit::ConcurrencyLimit`, `limit::RateLimit`, `hedge::Hedge`) serve overlapping
//! calls on the tokio driver's `serve_calls_concurrently`, one middleware instance per case around a
//! service whose every request is the next scripted attempt of the call that sends it (`load.rs`).

mod backoff;
mod budget;
mod concurrency_limit;
mod hedge;
mod load;
mod rate_limit;

pub use backoff::{TowerBackoff, TowerBackoffConfig, WorldRng};
pub use budget::{TowerBudget, TowerBudgetConfig};
pub use concurrency_limit::{TowerConcurrencyLimit, TowerConcurrencyLimitConfig, SEMAPHORE_PERMITS_MAX};
pub use hedge::{TowerHedge, TowerHedgeConfig};
pub use rate_limit::{TowerRateLimit, TowerRateLimitConfig};

use timelaw_core::{Abort, Outcome};

use timelaw_core::sync_loop::retryable;

/// Why an attempt failed, as the service reports it to tower.
#[derive(Clone, Debug)]
pub(crate) enum Failure {
    /// The attempt's scripted failure.
    Outcome(Outcome),
    /// The attempt was cut by the caller's cancellation.
    Cancelled,
    /// The World stopped the run.
    Aborted(Abort),
}

impl Failure {
    /// Transient and rate-limited failures are worth a retry.
    pub(crate) fn retryable(&self) -> bool {
        matches!(self, Failure::Outcome(outcome) if retryable(*outcome))
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Outcome(outcome) => write!(f, "the attempt failed: {outcome:?}"),
            Failure::Cancelled => write!(f, "the attempt was cancelled"),
            Failure::Aborted(abort) => write!(f, "the run was aborted: {abort}"),
        }
    }
}

/// tower's hedge boxes errors (`BoxError`), so a failure is an error type.
impl std::error::Error for Failure {}
