//! `tower-concurrency-limit`: `tower::limit::ConcurrencyLimit`, a bulkhead whose callers wait for a
//! permit, shared by the overlapping calls of a case (each call clones the service, as tower's docs for
//! `Service` recommend; the clones share one semaphore).

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use timelaw_core::{Abort, BulkheadContract, CallInfo, CallResult, Contract, Declared, Subject, World};
use timelaw_generators::{Choices, Swarm};
use timelaw_tokio::{serve_calls_concurrently, TokioWorld};
use tower::limit::ConcurrencyLimit;

use super::load::{call_result, load_contract, ready_call, AttemptRequest, Scripted, SharedService};
use crate::domain::AdapterConfig;
use timelaw_generators::draw::offer;

/// tower's `ConcurrencyLimit::new(service, max)`.
///
/// | field | meaning | domain (simplest first) |
/// |---|---|---|
/// | `max` | "Enforces a limit on the concurrent number of requests the underlying service can handle" | 1, 0, 2..=8, 9..=1000, `u32::MAX`, tokio's `Semaphore::MAX_PERMITS` (`usize::MAX >> 3`), past it up to `usize::MAX` |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerConcurrencyLimitConfig {
    /// The most requests in flight at once.
    pub max: usize,
}

impl Default for TowerConcurrencyLimitConfig {
    fn default() -> TowerConcurrencyLimitConfig {
        TowerConcurrencyLimitConfig { max: 1 }
    }
}

/// tokio's `Semaphore::MAX_PERMITS` (`usize::MAX >> 3`), the most permits a semaphore may have.
pub const SEMAPHORE_PERMITS_MAX: usize = usize::MAX >> 3;

impl AdapterConfig for TowerConcurrencyLimitConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> TowerConcurrencyLimitConfig {
        let max = match c.weighted(&[3, 1, 6, 1, 1, 1, 1]) {
            0 => 1,
            1 => 0,
            2 => c.between(2, 8),
            3 => c.between(9, 1000),
            4 => u64::from(u32::MAX),
            5 => SEMAPHORE_PERMITS_MAX as u64,
            _ => c.between(SEMAPHORE_PERMITS_MAX as u64 + 1, usize::MAX as u64),
        };
        // Every `u64` drawn fits a `usize` on the 64-bit targets timelaw runs on; saturate elsewhere.
        TowerConcurrencyLimitConfig { max: usize::try_from(max).unwrap_or(usize::MAX) }
    }

    /// - `bulkhead`: `max_in_flight = max` ("Enforces a limit on the concurrent number of requests the
    ///   underlying service can handle", the type's docs), saturated to `u32::MAX`; `queue_max =
    ///   u32::MAX`: a caller over the limit waits in `poll_ready` ("Returns `Poll::Pending` if the service
    ///   is at capacity", `Service::poll_ready`) and is never turned away, so the queue has no bound
    ///   and `bulkhead_admits_below_limit` has no rejection to judge. The order of waiting callers is not
    ///   documented, so `first_come` is not stated.
    /// - One attempt per call (the application code sends one request), cut by the caller's cancellation.
    fn contract(&self) -> Contract {
        let mut promise = load_contract(1);
        let max_in_flight = u32::try_from(self.max).unwrap_or(u32::MAX);
        promise.bulkhead = Declared::Stated(BulkheadContract::new(max_in_flight, u32::MAX));
        promise
    }

    fn simpler(&self) -> Vec<TowerConcurrencyLimitConfig> {
        let mut out = Vec::new();
        // Past tokio's `Semaphore::MAX_PERMITS`, the first value past it (where the panic starts).
        let first_past = SEMAPHORE_PERMITS_MAX + 1;
        let past = (self.max > first_past).then_some(first_past);
        for max in past.into_iter().chain([1, 2, self.max / 2]) {
            offer(&mut out, self, TowerConcurrencyLimitConfig { max });
        }
        out
    }
}

/// `tower::limit::ConcurrencyLimit` around the scripted service (subject name `tower-concurrency-limit`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TowerConcurrencyLimit;

impl Subject for TowerConcurrencyLimit {
    type Config = TowerConcurrencyLimitConfig;

    fn name(&self) -> &str {
        "tower-concurrency-limit"
    }

    fn contract(&self, config: &TowerConcurrencyLimitConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &TowerConcurrencyLimitConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let limit = Rc::new(ConcurrencyLimit::new(Scripted, config.max));
        serve_calls_concurrently(world, move |w, call| serve(Rc::clone(&limit), w, call))
    }
}

/// One call: its own clone of the limiter, ready (waiting in line for a permit), then one request.
async fn serve<'s>(
    limit: Rc<ConcurrencyLimit<Scripted>>,
    world: TokioWorld<'s>,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    let service = SharedService::new((*limit).clone());
    let request = AttemptRequest { world, idempotent: call.idempotent };
    match ready_call(&service, request, true).await? {
        Ok(response) => call_result(response.await),
        Err(failure) => call_result(Err(failure)),
    }
}

crate::domain::describe_by_config!(TowerConcurrencyLimit);
