//! `tower-hedge`: `tower::hedge::Hedge`, which sends a second request when the first has been
//! outstanding longer than a latency percentile, shared by the overlapping calls of a case (one latency
//! histogram; `Hedge` is not `Clone`, so the calls take turns on one instance).

use std::rc::Rc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::float::F32;
use timelaw_core::{Abort, CallInfo, CallResult, Contract, Declared, HedgeContract, Subject, VDuration, World};
use timelaw_generators::draw::{delay_ms, offer, std_duration, SEC};
use timelaw_generators::{Choices, Swarm};
use timelaw_tokio::{serve_calls_concurrently, TokioWorld};
use tower::hedge::{Hedge, Policy};
use tower::BoxError;

use super::load::{call_result, load_contract, ready_call, AttemptRequest, Scripted, SharedService};
use super::Failure;
use crate::domain::AdapterConfig;

/// tower's `Hedge::new(service, policy, min_data_points, latency_percentile, period)`.
///
/// | field | meaning | domain (simplest first) |
/// |---|---|---|
/// | `min_data_points` | no hedge until the histogram holds this many latencies | 0, 1, 2..=10, `u64::MAX` |
/// | `latency_percentile` | the hedge delay is this quantile of the recorded latencies (in whole milliseconds); not validated | 0.5, 0, 1, 0.9, 0.99, any of 0..=1, outside it (-1, 1.5, `f32::MIN`, `f32::MAX`) |
/// | `period` | the histogram rotates every `period` | 1 s, whole milliseconds up to a minute, one time in eight a boundary `Duration` (zero and `Duration::MAX` included) |
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TowerHedgeConfig {
    /// Latencies recorded before the first hedge.
    pub min_data_points: u64,
    /// The quantile of the recorded latencies after which a hedge is sent.
    pub latency_percentile: F32,
    /// How often the latency histogram rotates.
    #[serde(with = "timelaw_core::duration_text")]
    pub period: Duration,
}

impl Default for TowerHedgeConfig {
    fn default() -> TowerHedgeConfig {
        TowerHedgeConfig { min_data_points: 0, latency_percentile: F32(0.5), period: Duration::from_secs(1) }
    }
}

impl AdapterConfig for TowerHedgeConfig {
    fn describe<C: Choices + ?Sized>(c: &mut C, _swarm: &Swarm) -> TowerHedgeConfig {
        let min_data_points = match c.weighted(&[4, 2, 3, 1]) {
            0 => 0,
            1 => 1,
            2 => c.between(2, 10),
            _ => u64::MAX,
        };
        let latency_percentile = match c.weighted(&[3, 1, 1, 1, 1, 3, 1]) {
            0 => 0.5,
            1 => 0.0,
            2 => 1.0,
            3 => 0.9,
            4 => 0.99,
            5 => c.between(0, 1000) as f32 / 1000.0,
            // Outside 0..=1: accepted (hdrhistogram caps a quantile above 1 and reads one below 0 as the
            // lowest value). Non-finite values are left out: JSON has no text for them.
            _ => [-1.0, 1.5, f32::MIN, f32::MAX][c.weighted(&[1; 4])],
        };
        let period = std_duration(c, |c| match c.weighted(&[1, 2]) {
            0 => SEC.to_std(),
            _ => delay_ms(c, SEC).to_std(),
        });
        TowerHedgeConfig { min_data_points, latency_percentile: F32(latency_percentile), period }
    }

    /// - `hedge`: `max_hedges = 1`: `Hedge` is a `Select` of the original request and ONE delayed copy
    ///   ("If the request is retryable, issue two requests -- the second one delayed by a latency
    ///   percentile. Use the first result to complete", tower's source; the docs: "A middleware that
    ///   pre-emptively retries requests which have been outstanding for longer than a given latency
    ///   percentile. If either of the original future or the retry future completes, that value is
    ///   used"). The delay is not stated by the config: it is a percentile of the latencies recorded so
    ///   far, in whole milliseconds, so the contract states `delay = 0`, the one bound every such
    ///   percentile keeps; the hedge law then checks the count, not the timing.
    /// - Two attempts per call (the request and its hedge); the loser is dropped when the winner
    ///   completes (`hedged_call_leaves_no_attempt_running`); cut by the caller's cancellation.
    /// - `retry_on`: unstated. A hedge is not a retry (nothing is sent again after a failure) and the
    ///   first copy to complete gives the call's result, a failure included, so no outcome is promised
    ///   to be retried and no call is promised to succeed.
    /// - A non-idempotent call is never copied: the policy's `clone_request` returns `None` for it, as
    ///   tower's `Policy` docs allow ("determine if the request is retryable").
    fn contract(&self) -> Contract {
        let mut promise = load_contract(2);
        // The hedge is no retry: nothing is sent again after a failure, and the first result to complete
        // is returned, a fast failure of one copy included; which outcomes are retried is not stated.
        promise.retry.retry_on = None;
        promise.hedge = Declared::Stated(HedgeContract { delay: VDuration::ZERO, max_hedges: 1 });
        promise
    }

    fn simpler(&self) -> Vec<TowerHedgeConfig> {
        let mut out = Vec::new();
        let mut push = |candidate: TowerHedgeConfig| offer(&mut out, self, candidate);
        push(TowerHedgeConfig { min_data_points: 0, ..self.clone() });
        push(TowerHedgeConfig { latency_percentile: F32(0.5), ..self.clone() });
        push(TowerHedgeConfig { period: Duration::from_secs(1), ..self.clone() });
        push(TowerHedgeConfig { min_data_points: self.min_data_points / 2, ..self.clone() });
        out
    }
}

/// The hedge policy: copy an idempotent request only; always send the copy when its delay is up.
#[derive(Clone, Copy, Debug)]
struct IdempotentOnly;

impl<'s> Policy<AttemptRequest<'s>> for IdempotentOnly {
    fn clone_request(&self, request: &AttemptRequest<'s>) -> Option<AttemptRequest<'s>> {
        request.idempotent.then(|| request.clone())
    }

    fn can_retry(&self, _request: &AttemptRequest<'s>) -> bool {
        true
    }
}

/// `tower::hedge::Hedge` around the scripted service (subject name `tower-hedge`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TowerHedge;

impl Subject for TowerHedge {
    type Config = TowerHedgeConfig;

    fn name(&self) -> &str {
        "tower-hedge"
    }

    fn contract(&self, config: &TowerHedgeConfig) -> Contract {
        config.contract()
    }

    fn run(&self, config: &TowerHedgeConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let config = config.clone();
        let hedge = Rc::new(std::cell::OnceCell::new());
        serve_calls_concurrently(world, move |w, call| serve(Rc::clone(&hedge), config.clone(), w, call))
    }
}

type Hedged = Hedge<Scripted, IdempotentOnly>;

/// One call: the shared hedge (made on the paused runtime when the first call needs it: its histogram
/// reads tokio's clock), ready, then one request and perhaps its hedge.
async fn serve<'s>(
    hedge: Rc<std::cell::OnceCell<SharedService<Hedged>>>,
    config: TowerHedgeConfig,
    world: TokioWorld<'s>,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    let shared = hedge.get_or_init(|| {
        let (points, percentile) = (config.min_data_points, config.latency_percentile.0);
        SharedService::new(Hedge::new::<AttemptRequest<'s>>(
            Scripted,
            IdempotentOnly,
            points,
            percentile,
            config.period,
        ))
    });
    let request = AttemptRequest { world, idempotent: call.idempotent };
    match ready_call(shared, request, false).await? {
        Ok(response) => call_result(response.await.map_err(failure)),
        Err(error) => call_result(Err(failure(error))),
    }
}

/// The service's failure inside tower's boxed error; any other error of tower's is an abort.
fn failure(error: BoxError) -> Failure {
    match error.downcast::<Failure>() {
        Ok(failure) => *failure,
        Err(other) => Failure::Aborted(Abort::InvalidConfig(format!("tower's hedge failed: {other}"))),
    }
}

crate::domain::describe_by_config!(TowerHedge);
