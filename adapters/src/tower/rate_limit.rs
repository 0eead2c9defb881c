//! `tower-rate-limit`: `tower::limit::RateLimit`, `num` requests per `per`, one limiter shared by the
//! overlapping calls of a case (`RateLimit` is not `Clone`: the calls take turns on one instance, each
//! polling `poll_ready` and sending its request in the same poll).

use std::cell::OnceCell;
use std::rc::Rc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, CallInfo, CallResult, Contract, Declared, LimiterContract, LimiterWindow, Subject, VDuration, World,
};
use timelaw_generators::draw::{delay_ms, offer, std_duration, MS};
use timelaw_generators::{Choices, Swarm};
use timelaw_tokio::{serve_calls_concurrently, TokioWorld};
use tower::limit::rate::{Rate, RateLimit};

use super::load::{call_result, load_contract, ready_call, AttemptRequest, Scripted, SharedService};
use crate::domain::AdapterConfig;

/// tower's `RateLimit::new(service, Rate::new(num, per))`.
///
/// | field | meaning | domain (simplest first) |
/// |---|---|---|
/// | `num` | requests per period; `Rate::new` panics on 0 ("This function panics if `num` or `per` is 0"), so 0 is not legal | 1, 2..=10, 11..=1000, `u32::MAX`, `u64::MAX` |
/// | `per` | the period; not zero (as above) | whole milliseconds up to a minute, one time in eight a boundary `Duration` up to `Duration::MAX` |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerRateLimitConfig {
    /// Requests allowed per period.
    pub num: u64,
    /// The period.
    #[serde(with = "timelaw_core::duration_text")]
    pub per: Duration,
}

impl Default for TowerRateLimitConfig {
    fn default() -> TowerRateLimitConfig {
        TowerRateLimitConfig { num: 1, per: Duration::from_millis(10) }
    }
}

impl TowerRateLimitConfig {
    /// Checks what `Rate::new` asserts, so that a bad config is refused instead of panicking.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn validate(&self) -> Result<(), String> {
        match (self.num, self.per.is_zero()) {
            (0, _) => Err("num is 0 (`Rate::new` panics on it)".to_owned()),
            (_, true) => Err("per is 0 (`Rate::new` panics on it)".to_owned()),
            _ => Ok(()),
        }
    }
}

impl AdapterConfig for TowerRateLimitConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> TowerRateLimitConfig {
        let num = match c.weighted(&[4, 4, 1, 1, 1]) {
            0 => 1,
            1 => c.between(2, 10),
            2 => c.between(11, 1000),
            3 => u64::from(u32::MAX),
            _ => u64::MAX,
        };
        let per = std_duration(c, |c| delay_ms(c, MS.saturating_mul(10)).to_std());
        // A zero period is not legal (see the table): the smallest legal one instead.
        let per = if per.is_zero() { Duration::from_nanos(1) } else { per };
        TowerRateLimitConfig { num, per }
    }

    /// - `limiter`: tower's docs say only "Enforces a rate limit on the number of requests the underlying
    ///   service can handle over a period of time" with `Rate::new(num, per)` ("A rate of requests per
    ///   time period"): a fixed window, not a token bucket. Read as documented (at most `num` requests in
    ///   each period; a period starts at the first request after the previous one is over, never
    ///   overlapping it), that is [`LimiterWindow::Fixed`] with `burst = num` and `refill_every = per`,
    ///   stated exactly. With `num` past `u32::MAX` (the vocabulary's burst) the limiter is unstated.
    ///   `RateLimit` never refuses (a caller waits in `poll_ready`), so `limiter_admits_with_tokens` has no
    ///   refusal to judge.
    /// - One attempt per call, cut by the caller's cancellation.
    fn contract(&self) -> Contract {
        let mut promise = load_contract(1);
        let refill_every = VDuration::from_nanos(u64::try_from(self.per.as_nanos()).unwrap_or(u64::MAX));
        promise.limiter = match u32::try_from(self.num) {
            Ok(burst) => Declared::Stated(LimiterContract { burst, refill_every, window: LimiterWindow::Fixed }),
            Err(_) => Declared::Unstated,
        };
        promise
    }

    fn simpler(&self) -> Vec<TowerRateLimitConfig> {
        let mut out = Vec::new();
        for num in [1, self.num / 2] {
            offer(&mut out, self, TowerRateLimitConfig { num: num.max(1), ..self.clone() });
        }
        let whole_ms = Duration::from_millis(u64::try_from(self.per.as_millis()).unwrap_or(u64::MAX));
        for per in [Duration::from_millis(10), Duration::from_millis(1), whole_ms, whole_ms / 2] {
            if !per.is_zero() {
                offer(&mut out, self, TowerRateLimitConfig { per, ..self.clone() });
            }
        }
        out
    }
}

/// `tower::limit::RateLimit` around the scripted service (subject name `tower-rate-limit`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TowerRateLimit;

impl Subject for TowerRateLimit {
    type Config = TowerRateLimitConfig;

    fn name(&self) -> &str {
        "tower-rate-limit"
    }

    fn contract(&self, config: &TowerRateLimitConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &TowerRateLimitConfig, world: &mut World<'_>) -> Result<(), Abort> {
        config.validate().map_err(Abort::InvalidConfig)?;
        let rate = Rate::new(config.num, config.per);
        let limiter = Rc::new(OnceCell::new());
        serve_calls_concurrently(world, move |w, call| serve(Rc::clone(&limiter), rate, w, call))
    }
}

/// One call: the shared limiter (made on the paused runtime when the first call needs it: `RateLimit::new`
/// arms a tokio timer), ready, then one request.
async fn serve<'s>(
    limiter: Rc<OnceCell<SharedService<RateLimit<Scripted>>>>,
    rate: Rate,
    world: TokioWorld<'s>,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    let shared = limiter.get_or_init(|| SharedService::new(RateLimit::new(Scripted, rate)));
    let request = AttemptRequest { world, idempotent: call.idempotent };
    match ready_call(shared, request, false).await? {
        Ok(response) => call_result(response.await),
        Err(failure) => call_result(Err(failure)),
    }
}

crate::domain::describe_by_config!(TowerRateLimit);
