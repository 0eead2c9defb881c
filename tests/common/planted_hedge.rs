//! Planted hedging and ordering bugs: a concurrent retry loop that hedges its attempts (the first answer
//! of a try wins), with one deliberate defect: a loser left running, a hedge one tick early, or ordered
//! results returned as they finish. Test code only: users never see these subjects.
#![allow(dead_code)]

use std::cell::RefCell;
use std::future::{pending, poll_fn, Future, Pending};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use timelaw::core::concurrent::run_async_calls;
use timelaw::core::exec::{AsyncWorld, Dispatch, Timeout};
use timelaw::core::reference::Policy;
use timelaw::core::{
    Abort, AttemptResult, CallInfo, CallResult, Contract, Declared, ErrorKind, Outcome, Subject, TieRule, VDuration,
    World,
};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HedgeBug {
    /// The first answer wins, but the other attempts of the try are left running (never cancelled).
    LoserNotCancelled,
    /// A hedge starts one nanosecond before its delay has passed (`>` where `>=` was meant).
    HedgeBeforeDelay,
    /// The contract promises ordered results, but each call returns as soon as it is done.
    OutOfOrder,
}

/// Every planted hedging bug with the law it breaks.
pub const HEDGE_BUGS: [(HedgeBug, &str); 3] = [
    (HedgeBug::LoserNotCancelled, "hedged_call_leaves_no_attempt_running"),
    (HedgeBug::HedgeBeforeDelay, "hedges_within_limit_and_delay"),
    (HedgeBug::OutOfOrder, "ordered_results_in_input_order"),
];

/// A concurrent hedging retry loop with one planted defect; configs are reference Policies (it reads
/// `max_attempts`, `attempt_timeout`, `hedge` and `ordered_results`).
#[derive(Clone, Copy, Debug)]
pub struct HedgePlanted(pub HedgeBug);

impl HedgePlanted {
    /// All planted hedging subjects.
    pub fn all() -> Vec<HedgePlanted> {
        HEDGE_BUGS.iter().map(|(bug, _)| HedgePlanted(*bug)).collect()
    }
}

impl Subject for HedgePlanted {
    type Config = Policy;

    fn name(&self) -> &str {
        match self.0 {
            HedgeBug::LoserNotCancelled => "planted-hedge-loser-not-cancelled",
            HedgeBug::HedgeBeforeDelay => "planted-hedge-before-delay",
            HedgeBug::OutOfOrder => "planted-ordered-out-of-order",
        }
    }

    /// Only what this loop implements: its attempt limit, its hedging and (for the out-of-order bug, the
    /// promise it breaks) ordered results.
    fn contract(&self, policy: &Policy) -> Contract {
        let mut promise = Contract::default();
        promise.retry.max_attempts = Some(policy.max_attempts);
        promise.hedge = Declared::from(policy.hedge);
        promise.timing.ordered_results = self.0 == HedgeBug::OutOfOrder && policy.ordered_results;
        promise
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        serve_all(self.0, policy, world)
    }
}

/// Attempts left running by [`HedgeBug::LoserNotCancelled`]: dropped (cancelled) only when the run ends.
type Leaked<'s> = Rc<RefCell<Vec<Dispatch<'s>>>>;

fn serve_all<'s>(bug: HedgeBug, policy: &Policy, world: &mut World<'s>) -> Result<(), Abort> {
    let leaked: Leaked<'s> = Rc::new(RefCell::new(Vec::new()));
    let policy = policy.clone();
    run_async_calls(world, move |w, call| {
        let (policy, leaked) = (policy.clone(), Rc::clone(&leaked));
        async move { serve(bug, &policy, &leaked, &w, call).await }
    })
}

/// Tries until an answer ends the call or the attempts run out (no delay between tries).
async fn serve<'s>(
    bug: HedgeBug,
    policy: &Policy,
    leaked: &Leaked<'s>,
    w: &AsyncWorld<'s>,
    call: CallInfo,
) -> Result<CallResult, Abort> {
    let hedge = policy.hedge.filter(|_| call.idempotent);
    let mut hedges_left = hedge.map_or(0, |hedge| hedge.max_hedges);
    let (mut started, mut result) = (0, CallResult::Err(ErrorKind::Transient));
    while started < policy.max_attempts {
        let mut running = vec![dispatch(policy, w)];
        started += 1;
        let mut timer = None;
        let answer = loop {
            if timer.is_none() && hedges_left > 0 && started < policy.max_attempts {
                timer = hedge.map(|hedge| w.timeout(hedge_delay(bug, hedge.delay), pending::<()>()));
            }
            match poll_fn(|cx| race(&mut running, timer.as_mut(), cx)).await {
                Some((index, answer)) => {
                    let _winner = running.remove(index);
                    if bug == HedgeBug::LoserNotCancelled {
                        leaked.borrow_mut().append(&mut running);
                    }
                    break answer?;
                }
                None => {
                    running.push(dispatch(policy, w));
                    (started, hedges_left, timer) = (started + 1, hedges_left - 1, None);
                }
            }
        };
        drop(running); // The losers, cancelled now (none left for the leaking bug).
        result = match answer {
            AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
            AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
            AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
        };
        let retryable = matches!(answer, AttemptResult::TimedOut | AttemptResult::Completed(Outcome::Transient));
        if !retryable || !call.idempotent {
            break;
        }
    }
    Ok(result)
}

/// When a hedge is sent after the latest attempt start: the delay, or one nanosecond sooner.
fn hedge_delay(bug: HedgeBug, delay: VDuration) -> VDuration {
    match bug {
        HedgeBug::HedgeBeforeDelay => delay.saturating_sub(VDuration::from_nanos(1)),
        _ => delay,
    }
}

fn dispatch<'s>(policy: &Policy, w: &AsyncWorld<'s>) -> Dispatch<'s> {
    match policy.attempt_timeout {
        Some(limit) => w.dispatch_with_timeout(limit, TieRule::Expired),
        None => w.dispatch(),
    }
}

/// The first running attempt to answer (in start order) with its answer, or `None` when the hedge timer
/// fired first.
fn race(
    running: &mut [Dispatch<'_>],
    timer: Option<&mut Timeout<'_, Pending<()>>>,
    cx: &mut Context<'_>,
) -> Poll<Option<(usize, Result<AttemptResult, Abort>)>> {
    for (index, attempt) in running.iter_mut().enumerate() {
        if let Poll::Ready(answer) = Pin::new(attempt).poll(cx) {
            return Poll::Ready(Some((index, answer)));
        }
    }
    match timer.map(|timer| Pin::new(timer).poll(cx)) {
        Some(Poll::Ready(_)) => Poll::Ready(None),
        _ => Poll::Pending,
    }
}

timelaw::describe_like!(HedgePlanted => super::unrefined::Unrefined);
