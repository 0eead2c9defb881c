//! `tower-budget`: tower's `Retry` middleware limited by a `TpsBudget`, the policy exactly as the
//! budget module's docs show it.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::exec::{run_async, AsyncWorld};
use timelaw_core::{
    Abort, AttemptResult, BudgetContract, CallInfo, CallResult, Contract, Declared, Outcome, Rejection, Subject,
    VDuration, World,
};
use timelaw_generators::{Choices, Swarm};
use tower::retry::budget::{Budget, TpsBudget};
use tower::retry::{Policy, Retry};
use tower::ServiceExt;

use super::backoff::outcome;
use super::Failure;
use crate::domain::AdapterConfig;
use timelaw_core::float::F32;
use timelaw_core::sync_loop::loop_contract;
use timelaw_generators::draw::{offer, SEC};

/// tower's `TpsBudget::new(ttl, min_per_sec, retry_percent)`.
///
/// | field | meaning | domain (simplest first) |
/// |---|---|---|
/// | `ttl` | "how long a single `deposit` should be considered"; 1 s..=60 s (a `std::time::Duration`; `TpsBudget::new` asserts the range, so the boundary values outside it are not legal) | 1 s, 10 s (the default), 60 s, 1 s..=60 s |
/// | `min_per_sec` | "the minimum rate of retries allowed"; below `i32::MAX` | 0, 10 (the default), 0..=100, huge |
/// | `retry_percent` | despite its name a ratio: "if `0.1` is used, then for every 10 calls to `deposit`, 1 retry will be allowed"; 0..=1000 | 0.2 (the default), whole hundredths up to 1, up to 10, up to 1000 |
///
/// # Time
/// The budget reads `tokio::time::Instant`; the subject gives it a paused runtime whose clock never
/// moves, so every call of a case falls in one `ttl` window and nothing expires. The contract's budget
/// has no window, so the windowing itself is not checked here.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerBudgetConfig {
    /// How long a deposit counts.
    #[serde(with = "timelaw_core::duration_text")]
    pub ttl: Duration,
    /// Retries per second allowed whatever the traffic.
    pub min_per_sec: u32,
    /// Retries allowed per deposit (a ratio).
    pub retry_percent: F32,
}

impl Default for TowerBudgetConfig {
    /// tower's `TpsBudget::default()`: 10 s, 10 per second, 0.2.
    fn default() -> TowerBudgetConfig {
        TowerBudgetConfig { ttl: Duration::from_secs(10), min_per_sec: 10, retry_percent: F32(0.2) }
    }
}

impl TowerBudgetConfig {
    /// The ratio in whole percent, rounded (`0.2` is 20).
    pub fn percent(&self) -> u32 {
        let percent = (f64::from(self.retry_percent.0) * 100.0).round();
        percent as u32 // Saturating cast; valid configs stay within 0..=100_000.
    }

    /// Checks what `TpsBudget::new` asserts, so that a bad config is refused instead of panicking.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn validate(&self) -> Result<(), String> {
        let ttl_ok = (Duration::from_secs(1)..=Duration::from_secs(60)).contains(&self.ttl);
        let percent_ok = (0.0..=1000.0).contains(&self.retry_percent.0);
        match (ttl_ok, percent_ok, self.min_per_sec < i32::MAX as u32) {
            (false, _, _) => {
                Err(format!("ttl {} is outside 1s..=60s", timelaw_core::duration_text::to_text(&self.ttl)))
            }
            (_, false, _) => Err(format!("retry_percent {} is outside 0..=1000", self.retry_percent.0)),
            (_, _, false) => Err(format!("min_per_sec {} is not below i32::MAX", self.min_per_sec)),
            _ => Ok(()),
        }
    }
}

fn hundredths<C: Choices + ?Sized>(c: &mut C, low: u64, high: u64) -> F32 {
    F32((c.between(low, high) as f64 / 100.0) as f32)
}

impl AdapterConfig for TowerBudgetConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> TowerBudgetConfig {
        let ttl = match c.weighted(&[2, 2, 1, 3]) {
            0 => SEC,
            1 => VDuration::from_secs(10),
            2 => VDuration::from_secs(60),
            _ => c.duration_between(SEC, VDuration::from_secs(60)),
        }
        .to_std();
        let min_per_sec = match c.weighted(&[4, 2, 3, 1]) {
            0 => 0,
            1 => 10,
            2 => c.between(0, 100) as u32,
            _ => c.between(101, i32::MAX as u64 - 1) as u32,
        };
        let retry_percent = match c.weighted(&[2, 5, 2, 1]) {
            0 => F32(0.2),
            1 => hundredths(c, 0, 100),
            2 => hundredths(c, 100, 1000),
            _ => hundredths(c, 1000, 100_000),
        };
        TowerBudgetConfig { ttl, min_per_sec, retry_percent }
    }

    /// - `retry_budget`: over the calls of a case, retries stay within `min_per_sec * ttl` (the reserve
    ///   for "clients that have just started issuing requests") plus `retry_percent` retries per deposit
    ///   ("the percentage of calls to `deposit` that can be retried. This is in addition to any retries
    ///   allowed for via `min_per_sec`"). The policy deposits once per successful call, so deposits never
    ///   outnumber the calls started.
    /// - `retry_budget_window`: none. The docs give one ("The `ttl` is the duration of how long a single
    ///   `deposit` should be considered"), but this subject freezes tokio's clock (see the type's docs), so
    ///   nothing expires and every call of a case lies in one window: the whole-case budget is exact here,
    ///   and stating `ttl` would make the budget model forget deposits that `TpsBudget` still holds.
    /// - `retry_budget_admits`: false: the docs promise an upper bound, not that a retry with room is
    ///   admitted (the withdraw amount is an integer: "(1.0 / retry_percent) as isize").
    /// - No attempt limit: the budget is the limit.
    /// - Clocks: `TpsBudget` measures its `ttl` window with `tokio::time::Instant`, which the paused runtime
    ///   mirrors from the World's monotonic clock; it takes no clock, `SystemTime` or start instant, and the
    ///   docs say nothing of wall time, so `clocks` stays unstated.
    fn contract(&self) -> Contract {
        let reserve = u128::from(self.min_per_sec) * self.ttl.as_nanos() / 1_000_000_000;
        let min_retries = u32::try_from(reserve).unwrap_or(u32::MAX);
        let mut promise = loop_contract();
        promise.timing.honors_cancellation = false;
        promise.budget = Declared::Stated(BudgetContract {
            min_retries,
            retry_percent: self.percent(),
            ..BudgetContract::default()
        });
        promise
    }

    fn simpler(&self) -> Vec<TowerBudgetConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: TowerBudgetConfig| offer(&mut out, self, candidate);
        push(TowerBudgetConfig { min_per_sec: 0, ..self.clone() });
        push(TowerBudgetConfig { ttl: SEC.to_std(), ..self.clone() });
        push(TowerBudgetConfig { retry_percent: F32(self.retry_percent.0.trunc().max(0.0)), ..self.clone() });
        push(TowerBudgetConfig { min_per_sec: self.min_per_sec / 2, ..self.clone() });
        out
    }
}

/// The budget module's documented policy: deposit on success, withdraw before each retry, retry at once.
#[derive(Clone)]
struct BudgetPolicy<'s> {
    budget: Arc<TpsBudget>,
    idempotent: bool,
    world: AsyncWorld<'s>,
    failed: std::rc::Rc<RefCell<Option<Abort>>>,
}

impl Policy<(), (), Failure> for BudgetPolicy<'_> {
    type Future = std::future::Ready<()>;

    fn retry(&mut self, _request: &mut (), result: &mut Result<(), Failure>) -> Option<std::future::Ready<()>> {
        match result {
            Ok(()) => {
                self.budget.deposit();
                None
            }
            Err(failure) if failure.retryable() => {
                if self.budget.withdraw() {
                    return Some(std::future::ready(()));
                }
                if let Err(abort) = self.world.with(|world| world.reject(Rejection::BudgetExhausted)) {
                    self.failed.borrow_mut().get_or_insert(abort);
                }
                None
            }
            Err(_) => None,
        }
    }

    fn clone_request(&mut self, _request: &()) -> Option<()> {
        self.idempotent.then_some(())
    }
}

/// tower's `Retry` middleware with a `TpsBudget` (subject name `tower-budget`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TowerBudget;

impl Subject for TowerBudget {
    type Config = TowerBudgetConfig;

    fn name(&self) -> &str {
        "tower-budget"
    }

    fn contract(&self, config: &TowerBudgetConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &TowerBudgetConfig, world: &mut World<'_>) -> Result<(), Abort> {
        config.validate().map_err(Abort::InvalidConfig)?;
        let clock = frozen_clock()?;
        let _inside = clock.enter(); // `TpsBudget` reads this runtime's paused clock.
        let budget = Arc::new(TpsBudget::new(config.ttl, config.min_per_sec, config.retry_percent.0));
        run_async(world, |w| async move {
            while let Some(call) = w.start_call()? {
                let result = serve(&w, &budget, call).await?;
                w.end_call(result)?;
            }
            Ok(())
        })
    }
}

/// A paused runtime that is never driven: its clock stands still.
fn frozen_clock() -> Result<tokio::runtime::Runtime, Abort> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .map_err(|error| Abort::InvalidConfig(format!("the paused tokio runtime could not be built: {error}")))
}

async fn serve<'s>(w: &AsyncWorld<'s>, budget: &Arc<TpsBudget>, call: CallInfo) -> Result<CallResult, Abort> {
    let failed = std::rc::Rc::new(RefCell::new(None));
    let policy = BudgetPolicy {
        budget: Arc::clone(budget),
        idempotent: call.idempotent,
        world: w.clone(),
        failed: failed.clone(),
    };
    let service = tower::service_fn(|()| {
        let dispatch = w.dispatch();
        async move {
            match dispatch.await {
                Ok(AttemptResult::Completed(Outcome::Ok)) => Ok(()),
                Ok(AttemptResult::Completed(outcome)) => Err(Failure::Outcome(outcome)),
                Ok(AttemptResult::TimedOut | AttemptResult::Cancelled) => Err(Failure::Cancelled),
                Err(abort) => Err(Failure::Aborted(abort)),
            }
        }
    });
    let result = Retry::new(policy, service).oneshot(()).await;
    if let Some(abort) = failed.borrow_mut().take() {
        return Err(abort);
    }
    outcome(result)
}

crate::domain::describe_by_config!(TowerBudget);
