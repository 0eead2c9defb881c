//! The reference interpreter's configuration and its validation.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::contract::{
    BackoffShape, BudgetContract, BulkheadContract, CircuitContract, HedgeContract, LimiterContract, RetryOn,
};
use crate::mechanisms::{AboveCap, InterruptTie, LimitBound, RetryAfterCombine, RetryAfterPolicy};
use crate::time::{VDuration, VInstant};

/// The largest `max_attempts` a policy may have.
pub const MAX_ATTEMPTS: u32 = 100;
/// The largest exponential factor.
pub const MAX_FACTOR: u32 = 16;
/// The largest circuit window.
pub const MAX_WINDOW: u32 = 128;

/// How delays grow between attempts (before the cap and jitter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum Backoff {
    /// Every delay is `delay`.
    Constant {
        /// The delay.
        delay: VDuration,
    },
    /// Delay `n` (from 1) is `initial + step * (n - 1)`.
    Linear {
        /// First delay.
        initial: VDuration,
        /// Added per retry.
        step: VDuration,
    },
    /// Delay `n` is `initial * factor^(n - 1)`.
    Exponential {
        /// First delay.
        initial: VDuration,
        /// Integer growth factor, `1..=16`.
        factor: u32,
    },
    /// AWS decorrelated jitter: delay `n` is `min(cap, random(initial, 3 * previous))` (previous starts
    /// at `initial`). It draws its own randomness, so the policy's jitter must be `none`.
    Decorrelated {
        /// The lower bound of every delay.
        initial: VDuration,
    },
}

impl Backoff {
    /// The first (smallest) delay of the sequence.
    pub fn initial(self) -> VDuration {
        match self {
            Backoff::Constant { delay } => delay,
            Backoff::Linear { initial, .. }
            | Backoff::Exponential { initial, .. }
            | Backoff::Decorrelated { initial } => initial,
        }
    }
    /// The same sequence as a contract shape.
    pub fn shape(self) -> BackoffShape {
        match self {
            Backoff::Constant { delay } => BackoffShape::Constant { delay },
            Backoff::Linear { initial, step } => BackoffShape::Linear { initial, step },
            Backoff::Exponential { initial, factor } => {
                BackoffShape::Exponential { initial, factor_milli: u64::from(factor) * 1000 }
            }
            Backoff::Decorrelated { initial } => BackoffShape::decorrelated(initial),
        }
    }
}

/// Randomness added to each capped delay `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum Jitter {
    /// The delay is `b`.
    #[default]
    None,
    /// Uniform in `0..=b`.
    Full,
    /// `b/2` plus uniform in `0..=b - b/2`.
    Equal,
}

/// The reference interpreter's configuration. Build one with [`Policy::new`] and struct update syntax,
/// then [`Policy::validate`] it (deserialization validates on its own).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "PolicyFields", into = "PolicyFields")]
pub struct Policy {
    /// Attempts per call, the first included (`1..=100`).
    pub max_attempts: u32,
    /// The delay sequence.
    pub backoff: Backoff,
    /// The cap on every delay; at least the backoff's initial delay.
    pub delay_max: VDuration,
    /// Jitter on the capped delay.
    pub jitter: Jitter,
    /// Which failures are retried (fatal errors never are).
    pub retry_on: RetryOn,
    /// Wait at least a rate-limited answer's retry-after before the next attempt.
    pub honor_retry_after: bool,
    /// Each attempt is cut after this long (equality counts as expired).
    pub attempt_timeout: Option<VDuration>,
    /// A call gives up this long after it started.
    pub deadline: Option<VDuration>,
    /// The delays of one call add up to at most this.
    pub sleep_budget: Option<VDuration>,
    /// No retry starts later than this after its call started.
    pub retry_elapsed_max: Option<VDuration>,
    /// A circuit breaker around whole calls.
    pub circuit: Option<CircuitContract>,
    /// A retry budget over the calls of a case.
    pub retry_budget: Option<BudgetContract>,
    /// The bulkhead: at most `max_in_flight` calls at once, up to `queue_max` more waiting (module docs of
    /// [`crate::reference`], "Bulkhead"); `None` (left out of JSON): no limit.
    pub bulkhead: Option<BulkheadContract>,
    /// The token-bucket rate limiter on dispatches ("Rate limiter"); `None` (left out of JSON): none.
    pub limiter: Option<LimiterContract>,
    /// Hedged requests: a further attempt beside one still running after `delay`, up to `max_hedges` per
    /// call ("Hedged requests"); `None` (left out of JSON): no hedging.
    pub hedge: Option<HedgeContract>,
    /// Results come back in input order: a call that finishes before an earlier one returned holds its
    /// result until then ("Ordered results"); `false` (left out of JSON): each call returns when done.
    pub ordered_results: bool,
    /// With `honor_retry_after`, how a retry-after combines with the backoff and what happens above the
    /// cap ("Retry-after"); `None` (left out of JSON): the longer of the two, giving up above the cap.
    pub retry_after_policy: Option<RetryAfterPolicy>,
    /// Which a call returns when its deadline and its cancellation fall on the same instant ("Cancellation");
    /// `DeadlineFirst` (left out of JSON) by default.
    pub interrupt_tie: InterruptTie,
    /// Whether a retry may start at exactly `retry_elapsed_max` ("Elapsed-time limit"); `Inclusive` (left
    /// out of JSON) by default.
    pub retry_elapsed_bound: LimitBound,
}

/// The serialized form of [`Policy`]; deserializing goes through [`Policy::validate`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFields {
    max_attempts: u32,
    backoff: Backoff,
    delay_max: VDuration,
    #[serde(default)]
    jitter: Jitter,
    #[serde(default)]
    retry_on: RetryOn,
    #[serde(default)]
    honor_retry_after: bool,
    #[serde(default)]
    attempt_timeout: Option<VDuration>,
    #[serde(default)]
    deadline: Option<VDuration>,
    #[serde(default)]
    sleep_budget: Option<VDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_elapsed_max: Option<VDuration>,
    #[serde(default)]
    circuit: Option<CircuitContract>,
    #[serde(default)]
    retry_budget: Option<BudgetContract>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bulkhead: Option<BulkheadContract>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limiter: Option<LimiterContract>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hedge: Option<HedgeContract>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    ordered_results: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after_policy: Option<RetryAfterPolicy>,
    #[serde(default = "deadline_first", skip_serializing_if = "is_deadline_first")]
    interrupt_tie: InterruptTie,
    #[serde(default, skip_serializing_if = "is_inclusive")]
    retry_elapsed_bound: LimitBound,
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_inclusive(bound: &LimitBound) -> bool {
    *bound == LimitBound::Inclusive
}

fn deadline_first() -> InterruptTie {
    InterruptTie::DeadlineFirst
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_deadline_first(tie: &InterruptTie) -> bool {
    *tie == InterruptTie::DeadlineFirst
}

impl TryFrom<PolicyFields> for Policy {
    type Error = PolicyError;
    fn try_from(f: PolicyFields) -> Result<Policy, PolicyError> {
        let policy = Policy {
            max_attempts: f.max_attempts,
            backoff: f.backoff,
            delay_max: f.delay_max,
            jitter: f.jitter,
            retry_on: f.retry_on,
            honor_retry_after: f.honor_retry_after,
            attempt_timeout: f.attempt_timeout,
            deadline: f.deadline,
            sleep_budget: f.sleep_budget,
            retry_elapsed_max: f.retry_elapsed_max,
            circuit: f.circuit,
            retry_budget: f.retry_budget,
            bulkhead: f.bulkhead,
            limiter: f.limiter,
            hedge: f.hedge,
            ordered_results: f.ordered_results,
            retry_after_policy: f.retry_after_policy,
            interrupt_tie: f.interrupt_tie,
            retry_elapsed_bound: f.retry_elapsed_bound,
        };
        policy.validate()?;
        Ok(policy)
    }
}

impl From<Policy> for PolicyFields {
    fn from(p: Policy) -> PolicyFields {
        PolicyFields {
            max_attempts: p.max_attempts,
            backoff: p.backoff,
            delay_max: p.delay_max,
            jitter: p.jitter,
            retry_on: p.retry_on,
            honor_retry_after: p.honor_retry_after,
            attempt_timeout: p.attempt_timeout,
            deadline: p.deadline,
            sleep_budget: p.sleep_budget,
            retry_elapsed_max: p.retry_elapsed_max,
            circuit: p.circuit,
            retry_budget: p.retry_budget,
            bulkhead: p.bulkhead,
            limiter: p.limiter,
            hedge: p.hedge,
            ordered_results: p.ordered_results,
            retry_after_policy: p.retry_after_policy,
            interrupt_tie: p.interrupt_tie,
            retry_elapsed_bound: p.retry_elapsed_bound,
        }
    }
}

/// A policy field that cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Error)]
#[error("invalid policy: field `{field}` is {value}, expected {expected}")]
pub struct PolicyError {
    /// The field's path, like `circuit.min_calls`.
    pub field: &'static str,
    /// The value found.
    pub value: String,
    /// What was expected.
    pub expected: &'static str,
}

fn check(ok: bool, field: &'static str, value: impl fmt::Display, expected: &'static str) -> Result<(), PolicyError> {
    if ok {
        return Ok(());
    }
    Err(PolicyError { field, value: value.to_string(), expected })
}

impl Policy {
    /// `max_attempts` attempts with `backoff` capped at `delay_max`, no jitter, retrying transient errors,
    /// rate limits and timeouts, and nothing else switched on.
    pub fn new(max_attempts: u32, backoff: Backoff, delay_max: VDuration) -> Policy {
        Policy {
            max_attempts,
            backoff,
            delay_max,
            jitter: Jitter::None,
            retry_on: RetryOn::ALL,
            honor_retry_after: false,
            attempt_timeout: None,
            deadline: None,
            sleep_budget: None,
            retry_elapsed_max: None,
            circuit: None,
            retry_budget: None,
            bulkhead: None,
            limiter: None,
            hedge: None,
            ordered_results: false,
            retry_after_policy: None,
            interrupt_tie: InterruptTie::DeadlineFirst,
            retry_elapsed_bound: LimitBound::Inclusive,
        }
    }

    /// The first instant at which a retry of a call started at `started` is too late for
    /// `retry_elapsed_max`: just past the limit when it is inclusive, the limit itself when it is
    /// exclusive. `None` without a limit, or when that instant lies past the end of time (a limit near
    /// `VDuration::MAX` late in a case): no instant the World reaches is too late then.
    pub fn retries_late_from(&self, started: VInstant) -> Option<VInstant> {
        let limit_at = started.as_nanos().checked_add(self.retry_elapsed_max?.as_nanos())?;
        let late_from = match self.retry_elapsed_bound {
            LimitBound::Inclusive => limit_at.checked_add(1)?,
            LimitBound::Exclusive => limit_at,
        };
        Some(VInstant::from_nanos(late_from))
    }

    /// The retry-after policy the interpreter follows: `retry_after_policy` when honouring retry-after
    /// (the longer of the backoff and the retry-after, giving up above the cap, when `None`), else the
    /// retry-after is ignored.
    pub fn retry_after(&self) -> RetryAfterPolicy {
        let longer = RetryAfterPolicy { combine: RetryAfterCombine::MaxWithBackoff, above_cap: AboveCap::GiveUp };
        match self.honor_retry_after {
            true => self.retry_after_policy.unwrap_or(longer),
            false => RetryAfterPolicy { combine: RetryAfterCombine::Ignored, above_cap: AboveCap::GiveUp },
        }
    }

    /// `true` when a mechanism that acts under load (a bulkhead, a rate limiter, hedging, ordered
    /// results) is configured: the interpreter then serves calls on the concurrent path, even for a
    /// sequential schedule.
    pub fn has_load_mechanisms(&self) -> bool {
        self.bulkhead.is_some() || self.limiter.is_some() || self.hedge.is_some() || self.ordered_results
    }

    /// Checks every field.
    ///
    /// # Errors
    /// The first field that cannot be honoured, with its value and what was expected.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let attempts_ok = (1..=MAX_ATTEMPTS).contains(&self.max_attempts);
        check(attempts_ok, "max_attempts", self.max_attempts, "1..=100")?;
        let initial = self.backoff.initial();
        check(self.delay_max >= initial, "delay_max", self.delay_max, "at least the backoff's initial delay")?;
        if let Backoff::Exponential { factor, .. } = self.backoff {
            check((1..=MAX_FACTOR).contains(&factor), "backoff.factor", factor, "1..=16")?;
        }
        if let Backoff::Decorrelated { .. } = self.backoff {
            let jitter = format!("{:?}", self.jitter).to_lowercase();
            check(self.jitter == Jitter::None, "jitter", jitter, "none with decorrelated backoff")?;
        }
        if let Some(circuit) = self.circuit {
            validate_circuit(circuit)?;
        }
        if let Some(budget) = self.retry_budget {
            check(budget.retry_percent <= 1000, "retry_budget.retry_percent", budget.retry_percent, "0..=1000")?;
            let window = budget.window.map_or_else(|| "none".to_owned(), |window| window.to_string());
            check(
                budget.window.is_none(),
                "retry_budget.window",
                window,
                "none (the reference's budget spans the case)",
            )?;
        }
        if let Some(bulkhead) = self.bulkhead {
            check(bulkhead.max_in_flight >= 1, "bulkhead.max_in_flight", bulkhead.max_in_flight, "at least 1")?;
        }
        if let Some(policy) = self.retry_after_policy {
            let combine = format!("{:?}", policy.combine).to_lowercase();
            check(self.honor_retry_after, "retry_after_policy", combine.clone(), "none without honor_retry_after")?;
            let honoured = policy.combine != RetryAfterCombine::Ignored;
            check(honoured, "retry_after_policy.combine", combine, "max_with_backoff or replaces_backoff")?;
        }
        Ok(())
    }
}

fn validate_circuit(c: CircuitContract) -> Result<(), PolicyError> {
    check((1..=MAX_WINDOW).contains(&c.window), "circuit.window", c.window, "1..=128")?;
    check((1..=c.window).contains(&c.min_calls), "circuit.min_calls", c.min_calls, "1..=window")?;
    check((1..=100).contains(&c.failure_percent), "circuit.failure_percent", c.failure_percent, "1..=100")?;
    check(c.half_open_probes >= 1, "circuit.half_open_probes", c.half_open_probes, "at least 1")?;
    if let Some(successes) = c.closes_after {
        // A half-open period admits at most `half_open_probes` probes: more successes would never come.
        let ok = (1..=c.half_open_probes).contains(&successes);
        check(ok, "circuit.closes_after", successes, "1..=half_open_probes")?;
    }
    if let crate::mechanisms::CircuitPolicy::ConsecutiveFailures { threshold } = c.policy {
        check(threshold >= 1, "circuit.policy.threshold", threshold, "at least 1")?;
    }
    Ok(())
}
