//! Planted load bugs: the reference interpreter's concurrent path with one deliberate defect that only
//! overlapping calls (or a cancellation) reveal. Test code only: users never see these subjects.
//!
//! The bulkhead and the limiter bugs run the reference itself with the limit it enforces off by one
//! from the limit its contract states. The half-open and the cancellation bugs serve each call with one
//! attempt on the concurrent seam (`run_async_calls`), behind the reference's circuit breaker.
#![allow(dead_code)]

use std::future::pending;

use timelaw::core::concurrent::run_async_calls;
use timelaw::core::exec::AsyncWorld;
use timelaw::core::reference::{Backoff, Breaker, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, BulkheadContract, CallResult, CallScript, Case, CircuitContract, CircuitState, Contract,
    ErrorKind, LimiterContract, Outcome, Rejection, Schedule, Step, Subject, TieRule, VDuration, World,
};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadBug {
    /// While half-open, a caller the probe limit turns away is let through anyway (uncounted, its result
    /// recorded like a probe's): every caller arriving while a probe is in flight dispatches.
    HalfOpenAdmitsAll,
    /// The bulkhead admits `max_in_flight + 1` calls at once.
    BulkheadOffByOne,
    /// The token bucket holds `burst + 1` tokens.
    LimiterBurstPlusOne,
    /// A cancelled call's attempt keeps running to its scripted end: the attempt ignores the caller's
    /// cancellation.
    CancelledAttemptKeepsRunning,
    /// The bulkhead serves its queue last come, first served: a freed slot goes to the call that joined
    /// the queue last.
    BulkheadLastCome,
    /// A success is recorded in the breaker's state at the call's end, not the state that admitted it: a
    /// call admitted while closed that succeeds after the breaker opened and half-opened closes it. Not in
    /// [`LOAD_BUGS`]: the default run finds it on some seeds only (`tests/suite/planted_load.rs` judges it on its
    /// minimum).
    LateResultCloses,
}

/// Every planted load bug with the law it breaks.
pub const LOAD_BUGS: [(LoadBug, &str); 5] = [
    (LoadBug::HalfOpenAdmitsAll, "half_open_probe_limit"),
    (LoadBug::BulkheadOffByOne, "bulkhead_in_flight_within_limit"),
    (LoadBug::BulkheadLastCome, "bulkhead_queue_first_come"),
    (LoadBug::LimiterBurstPlusOne, "limiter_within_rate"),
    (LoadBug::CancelledAttemptKeepsRunning, "cancellation_leaves_nothing_running"),
];

/// The reference's concurrent path with one planted load defect; configs are reference Policies.
#[derive(Clone, Copy, Debug)]
pub struct LoadPlanted(pub LoadBug);

impl LoadPlanted {
    /// All planted load subjects.
    pub fn all() -> Vec<LoadPlanted> {
        LOAD_BUGS.iter().map(|(bug, _)| LoadPlanted(*bug)).collect()
    }

    /// Whether the subject runs the reference itself (with a limit off by one).
    fn wraps_reference(self) -> bool {
        matches!(self.0, LoadBug::BulkheadOffByOne | LoadBug::LimiterBurstPlusOne)
    }
}

impl Subject for LoadPlanted {
    type Config = Policy;

    fn name(&self) -> &str {
        match self.0 {
            LoadBug::HalfOpenAdmitsAll => "planted-half-open-admits-all",
            LoadBug::BulkheadOffByOne => "planted-bulkhead-off-by-one",
            LoadBug::LimiterBurstPlusOne => "planted-limiter-burst-plus-one",
            LoadBug::CancelledAttemptKeepsRunning => "planted-cancelled-attempt-keeps-running",
            LoadBug::LateResultCloses => "planted-late-result-closes",
            LoadBug::BulkheadLastCome => "planted-bulkhead-last-come",
        }
    }

    /// The reference's contract for the policy; a one-attempt subject promises one attempt, no delay,
    /// and none of the mechanisms it leaves out (limiter, budget, deadline, elapsed limit; the bulkhead
    /// too, except for the bulkhead bug, whose contract states the reference's first-come queue).
    fn contract(&self, policy: &Policy) -> Contract {
        if self.wraps_reference() {
            return Reference.contract(policy);
        }
        Reference.contract(&self.kept(policy))
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        policy.validate().map_err(|error| Abort::InvalidConfig(error.to_string()))?;
        match self.0 {
            LoadBug::BulkheadOffByOne | LoadBug::LimiterBurstPlusOne => Reference.run(&self.enforced(policy), world),
            bug => {
                let policy = self.kept(policy);
                let breaker = std::rc::Rc::new(std::cell::RefCell::new(policy.circuit.map(Breaker::new)));
                let slots = std::rc::Rc::new(std::cell::RefCell::new(LastCome::default()));
                run_async_calls(world, move |w, call| {
                    let (breaker, slots) = (std::rc::Rc::clone(&breaker), std::rc::Rc::clone(&slots));
                    let policy = policy.clone();
                    async move {
                        if !take_slot(&policy, &slots, &w, call.index).await? {
                            return Ok(CallResult::Err(ErrorKind::BulkheadFull));
                        }
                        let result = serve(bug, policy.clone(), breaker, w).await;
                        free_slot(&policy, &slots);
                        result
                    }
                })
            }
        }
    }
}

impl LoadPlanted {
    /// The policy a one-attempt subject keeps ([`one_attempt`]), with its bulkhead for the bulkhead bug.
    fn kept(self, policy: &Policy) -> Policy {
        let bulkhead = policy.bulkhead.filter(|_| self.0 == LoadBug::BulkheadLastCome);
        Policy { bulkhead, ..one_attempt(policy) }
    }

    /// The policy the wrapped reference enforces: its limit one above the stated one.
    fn enforced(self, policy: &Policy) -> Policy {
        let mut enforced = policy.clone();
        match self.0 {
            LoadBug::BulkheadOffByOne => {
                if let Some(bulkhead) = enforced.bulkhead.as_mut() {
                    bulkhead.max_in_flight = bulkhead.max_in_flight.saturating_add(1);
                }
            }
            LoadBug::LimiterBurstPlusOne => {
                if let Some(limiter) = enforced.limiter.as_mut() {
                    limiter.burst = limiter.burst.saturating_add(1);
                }
            }
            _ => {}
        }
        enforced
    }
}

/// The policy a one-attempt subject keeps: its attempt timeout and circuit; everything else off.
fn one_attempt(policy: &Policy) -> Policy {
    Policy {
        attempt_timeout: policy.attempt_timeout,
        circuit: policy.circuit,
        retry_on: policy.retry_on,
        ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
    }
}

type SharedBreaker = std::rc::Rc<std::cell::RefCell<Option<Breaker>>>;

/// The planted bulkhead: calls in flight and the waiting calls, served last come, first served (the
/// defect); a freed slot is handed to the call it goes to.
#[derive(Default)]
struct LastCome {
    in_flight: u32,
    queue: Vec<u32>,
    handed: Vec<u32>,
}

/// Takes a slot of the policy's bulkhead (none: always): at once while one is free and nobody waits,
/// else in the queue while it has room (until a slot is handed over), else rejected (`false`).
async fn take_slot(
    policy: &Policy,
    slots: &std::rc::Rc<std::cell::RefCell<LastCome>>,
    w: &AsyncWorld<'_>,
    call: u32,
) -> Result<bool, Abort> {
    let Some(bulkhead) = policy.bulkhead else { return Ok(true) };
    {
        let mut slots = slots.borrow_mut();
        if slots.in_flight < bulkhead.max_in_flight && slots.queue.is_empty() {
            slots.in_flight += 1;
            return Ok(true);
        }
        if slots.queue.len() >= bulkhead.queue_max as usize {
            drop(slots);
            w.with(|w| w.reject(Rejection::BulkheadFull))?;
            return Ok(false);
        }
        slots.queue.push(call);
    }
    w.with(|w| w.record_queued())?;
    std::future::poll_fn(|_| {
        let mut slots = slots.borrow_mut();
        match slots.handed.iter().position(|&handed| handed == call) {
            Some(at) => {
                slots.handed.swap_remove(at);
                std::task::Poll::Ready(())
            }
            None => std::task::Poll::Pending,
        }
    })
    .await;
    Ok(true)
}

/// Gives a slot back: to the call that joined the queue last (the defect), else free.
fn free_slot(policy: &Policy, slots: &std::rc::Rc<std::cell::RefCell<LastCome>>) {
    if policy.bulkhead.is_none() {
        return;
    }
    let mut slots = slots.borrow_mut();
    match slots.queue.pop() {
        Some(next) => slots.handed.push(next),
        None => slots.in_flight -= 1,
    }
}

/// One call: the breaker's admission (with the half-open defect), then one attempt.
async fn serve(bug: LoadBug, policy: Policy, breaker: SharedBreaker, w: AsyncWorld<'_>) -> Result<CallResult, Abort> {
    if w.with(|w| w.is_cancelled()) {
        return Ok(CallResult::Err(ErrorKind::Cancelled));
    }
    // `Some(None)`: let through by the defect, its result recorded whatever the breaker's state by then.
    let ticket = {
        let mut guard = breaker.borrow_mut();
        match guard.as_mut() {
            None => None,
            Some(breaker) => match w.with(|w| breaker.admit_ticket(w))? {
                Some(ticket) => Some(Some(ticket)),
                // The defect: the probe limit is not checked, only the state.
                None if bug == LoadBug::HalfOpenAdmitsAll && breaker.state() == CircuitState::HalfOpen => Some(None),
                None => {
                    w.with(|w| w.reject(Rejection::CircuitOpen))?;
                    return Ok(CallResult::Err(ErrorKind::CircuitOpen));
                }
            },
        }
    };
    let result = match bug {
        LoadBug::CancelledAttemptKeepsRunning => attempt_ignoring_cancellation(&policy, &w).await?,
        _ => attempt(&policy, &w).await?,
    };
    if let (Some(ticket), Some(breaker)) = (ticket, breaker.borrow_mut().as_mut()) {
        match ticket {
            // The defect: a success is recorded in the breaker's state now, whatever state admitted it.
            Some(_) if bug == LoadBug::LateResultCloses && result == CallResult::Ok => {
                w.with(|w| breaker.record(w, result))?;
            }
            Some(ticket) => w.with(|w| breaker.record_ticket(w, ticket, result))?,
            None => w.with(|w| breaker.record(w, result))?,
        }
    }
    Ok(result)
}

/// One attempt under the policy's attempt timeout, cut by the caller's cancellation.
async fn attempt(policy: &Policy, w: &AsyncWorld<'_>) -> Result<CallResult, Abort> {
    let result = match policy.attempt_timeout {
        Some(limit) => w.dispatch_with_timeout(limit, TieRule::Expired).await?,
        None => w.dispatch().await?,
    };
    Ok(call_result(result))
}

/// One attempt that runs to its scripted end (or its timeout) whatever the caller does: the defect.
async fn attempt_ignoring_cancellation(policy: &Policy, w: &AsyncWorld<'_>) -> Result<CallResult, Abort> {
    let begun = w.with(|w| w.begin_attempt())?;
    let took = begun.completes_at.map(|at| at.duration_since(w.now()));
    let (wait, result) = match (took, policy.attempt_timeout) {
        (Some(took), Some(limit)) if took >= limit => (Some(limit), AttemptResult::TimedOut),
        (None, Some(limit)) => (Some(limit), AttemptResult::TimedOut),
        (Some(took), _) => (Some(took), AttemptResult::Completed(begun.step.outcome)),
        (None, None) => (None, AttemptResult::Completed(Outcome::Hang)),
    };
    match wait {
        // A timer the cancellation does not cut.
        Some(wait) => drop(w.timeout(wait, pending::<()>()).await),
        None => pending::<()>().await,
    }
    let limit = policy.attempt_timeout.unwrap_or(VDuration::MAX);
    w.with(|w| w.end_attempt(begun, result, limit))?;
    Ok(call_result(result))
}

fn call_result(result: AttemptResult) -> CallResult {
    match result {
        AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
        AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
        AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
    }
}

timelaw::describe_like!(LoadPlanted => super::unrefined::Unrefined);

fn ns(nanos: u64) -> VDuration {
    VDuration::from_nanos(nanos)
}

/// A breaker that one failure opens, for no time, with one probe: the simplest that can open and half-open.
fn one_call_breaker() -> CircuitContract {
    CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent: 1,
        open_for: VDuration::ZERO,
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    }
}

/// The canonical minimum of each planted load bug, in words (`tests/suite/planted_load.rs` finds each at it).
pub fn load_minimum(bug: LoadBug) -> Case<Policy> {
    let simplest = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    let at_once = |steps: Vec<Step>| CallScript::new(steps).arriving(VDuration::ZERO);
    match bug {
        // A failure opens a one-call breaker for no time; two calls arrive with it: the first is the
        // probe (its attempt still running), the second is let through beside it.
        LoadBug::HalfOpenAdmitsAll => {
            let circuit = one_call_breaker();
            let calls = vec![
                at_once(vec![Step::instant(Outcome::Transient)]),
                at_once(vec![Step::new(ns(1), Outcome::Ok)]),
                at_once(vec![]),
            ];
            Case::new(Policy { circuit: Some(circuit), ..simplest }, Schedule::new(calls), 0)
        }
        // A bulkhead of one slot: two calls arrive together, the first's attempt still running when the
        // second dispatches (limit + 1 calls).
        LoadBug::BulkheadOffByOne => {
            let bulkhead = BulkheadContract::new(1, 0);
            let calls = vec![at_once(vec![Step::new(ns(1), Outcome::Ok)]), at_once(vec![])];
            Case::new(Policy { bulkhead: Some(bulkhead), ..simplest }, Schedule::new(calls), 0)
        }
        // An empty bucket (burst 0, refilled every nanosecond) dispatches at once: one call, sequential.
        LoadBug::LimiterBurstPlusOne => {
            let limiter = LimiterContract::token_bucket(0, ns(1));
            Case::new(Policy { limiter: Some(limiter), ..simplest }, Schedule::new(vec![CallScript::new(vec![])]), 0)
        }
        // A one-call breaker: call 0 is admitted closed and runs 1 ns; call 1 fails at once and opens the
        // breaker for no time; call 2 is the probe (2 ns); call 0's late success closes the breaker.
        LoadBug::LateResultCloses => {
            let circuit = one_call_breaker();
            let calls = vec![
                at_once(vec![Step::new(ns(1), Outcome::Ok)]),
                at_once(vec![Step::instant(Outcome::Transient)]),
                at_once(vec![Step::new(ns(2), Outcome::Ok)]),
            ];
            Case::new(Policy { circuit: Some(circuit), ..simplest }, Schedule::new(calls), 0)
        }
        // A bulkhead of one slot and two queue places: call 0 runs 1 ns, calls 1 and 2 wait in that order,
        // and the freed slot goes to call 2.
        LoadBug::BulkheadLastCome => {
            let bulkhead = BulkheadContract::new(1, 2);
            let calls = vec![at_once(vec![Step::new(ns(1), Outcome::Ok)]), at_once(vec![]), at_once(vec![])];
            Case::new(Policy { bulkhead: Some(bulkhead), ..simplest }, Schedule::new(calls), 0)
        }
        // Cancelled 1 ns after it starts, the call's 2 ns attempt ends at 2 ns: one call, sequential.
        LoadBug::CancelledAttemptKeepsRunning => {
            let call = CallScript { cancel_after: Some(ns(1)), ..CallScript::new(vec![Step::new(ns(2), Outcome::Ok)]) };
            Case::new(simplest, Schedule::new(vec![call]), 0)
        }
    }
}
