//! The reference interpreter serving calls that overlap ([`crate::concurrent::run_async_calls`]): the
//! same retry loop as the sequential path, plus the mechanisms that only act under load, the bulkhead
//! and the token-bucket rate limiter. See the module docs of [`crate::reference`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use super::budget::RetryBudget;
use super::circuit::{Breaker, Ticket};
use super::hedge::{hedged_try, CallAttempts};
use super::interpreter::{
    attempt_failure, attempt_limit, cancellation_first, cut_error, interrupted, plan_delay, retryable, stamp_start,
    AttemptFailure, BackoffState, CaseState, Check, Planned,
};
use super::ordered::{hold, Order};
use super::policy::Policy;
use crate::concurrent::run_async_calls;
use crate::contract::{BulkheadContract, FixedWindow, LimiterContract, LimiterWindow, TieRule};
use crate::exec::AsyncWorld;
use crate::mechanisms::InterruptTie;
use crate::schedule::Outcome;
use crate::time::{VDuration, VInstant};
use crate::trace::{CallResult, ErrorKind, EventKind, Rejection};
use crate::world::{Abort, CallInfo, Wake};

/// State shared by the calls of one case.
pub(super) struct Shared {
    pub(super) case: CaseState,
    bulkhead: Option<Bulkhead>,
    pub(super) bucket: Option<Bucket>,
    /// With ordered results: which calls returned and which may enter the bulkhead.
    pub(super) order: Order,
}

/// Calls in flight and the queue of calls waiting for a slot, first come first served.
struct Bulkhead {
    params: BulkheadContract,
    in_flight: u32,
    queue: VecDeque<u32>,
    /// Calls that gave up waiting in the queue (deadline, cancellation) and hold their result for an
    /// ordered stream: they keep their place in the queue's room until they return, since the trace shows
    /// a queued call as queued until its next event, here its return.
    leaving: u32,
}

/// The rate limiter: a token bucket, full at the start, one token back at every whole multiple of
/// `refill_every`; or fixed windows of `refill_every` ([`FixedWindow`]), as its contract says.
pub(super) struct Bucket {
    params: LimiterContract,
    tokens: u32,
    /// The instant (ns) of the last refill count.
    counted_ns: u64,
    /// The count of a fixed-window limiter.
    window: FixedWindow,
}

impl Bucket {
    fn new(params: LimiterContract) -> Bucket {
        Bucket { params, tokens: params.burst, counted_ns: 0, window: FixedWindow::default() }
    }

    /// Takes a token (or a place in the fixed window) at `now` if one is left (a refusal takes nothing).
    pub(super) fn take(&mut self, now: VInstant) -> bool {
        let now_ns = now.since_epoch().as_nanos();
        if self.params.window == LimiterWindow::Fixed {
            let fits = self.window.has_room(self.params, u128::from(now_ns));
            if fits {
                self.window.dispatch(self.params, u128::from(now_ns));
            }
            return fits;
        }
        let refills = self.params.refills_between(self.counted_ns, now_ns);
        self.counted_ns = now_ns;
        let refilled = u64::from(self.tokens).saturating_add(refills).min(u64::from(self.params.burst));
        // At most `burst`, a u32.
        self.tokens = u32::try_from(refilled).unwrap_or(u32::MAX);
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        true
    }
}

pub(super) type State = Rc<RefCell<Shared>>;

/// Serves every call of the case concurrently.
pub(super) fn run_concurrent(policy: &Policy, world: &mut crate::world::World<'_>) -> Result<(), Abort> {
    let state = Rc::new(RefCell::new(Shared {
        case: CaseState {
            breaker: policy.circuit.map(Breaker::new),
            budget: policy.retry_budget.map(RetryBudget::new),
        },
        bulkhead: policy.bulkhead.map(|params| Bulkhead { params, in_flight: 0, queue: VecDeque::new(), leaving: 0 }),
        bucket: policy.limiter.map(Bucket::new),
        order: Order::default(),
    }));
    // One copy for all the calls: each call's future holds a pointer, not a policy of its own (a smaller
    // future to allocate and no copy per call).
    let policy = Rc::new(policy.clone());
    run_async_calls(world, move |w, call| serve(Rc::clone(&policy), Rc::clone(&state), w, call))
}

async fn serve(policy: Rc<Policy>, state: State, w: AsyncWorld<'_>, call: CallInfo) -> Result<CallResult, Abort> {
    if let Some(budget) = state.borrow_mut().case.budget.as_mut() {
        budget.on_call_start();
    }
    let deadline_at = policy.deadline.map(|deadline| call.started.saturating_add(deadline));
    let refused = enter_bulkhead(&policy, &state, &w, call, deadline_at).await?;
    let (result, ticket) = match refused {
        Some(refused) => (CallResult::Err(refused), None),
        None => serve_admitted(&policy, &state, &w, call).await?,
    };
    let mut holds_slot = refused.is_none();
    if policy.ordered_results {
        // A call that dispatched stays in flight (holding its slot) until it returns; one that did not
        // is not in flight, so it frees its slot before it waits. One that gave up in the queue keeps
        // its place in the queue's room until it returns (`Bulkhead::leaving`).
        if holds_slot && !dispatched(&w, call.index) {
            release_slot(&state);
            holds_slot = false;
        }
        let left_queue = refused.is_some_and(|kind| kind != ErrorKind::BulkheadFull);
        set_leaving(&state, left_queue, true);
        hold(&state, &w, call.index).await;
        set_leaving(&state, left_queue, false);
    }
    if let (Some(ticket), Some(breaker)) = (ticket, state.borrow_mut().case.breaker.as_mut()) {
        w.with(|w| breaker.record_ticket(w, ticket, result))?;
    }
    if holds_slot {
        release_slot(&state);
    }
    Ok(result)
}

/// Counts a call that gave up in the queue (`left_queue`) in or out of `Bulkhead::leaving`.
fn set_leaving(state: &State, left_queue: bool, waiting: bool) {
    if let (true, Some(bulkhead)) = (left_queue, state.borrow_mut().bulkhead.as_mut()) {
        if waiting {
            bulkhead.leaving += 1;
        } else {
            bulkhead.leaving -= 1;
        }
    }
}

/// Gives a bulkhead slot back.
fn release_slot(state: &State) {
    if let Some(bulkhead) = state.borrow_mut().bulkhead.as_mut() {
        bulkhead.in_flight -= 1;
    }
}

/// `true` when call `index` started an attempt.
fn dispatched(w: &AsyncWorld<'_>, index: u32) -> bool {
    w.with(|w| w.trace().call_events(index).any(|event| event.kind == EventKind::AttemptStart))
}

/// Takes a bulkhead slot: at once when one is free and nobody waits, else in the queue (first come,
/// first served) while it has room, else the call is rejected. A queued call leaves the queue at its
/// deadline (then cancellation, the interpreter's order). `Some(error)` when the call ends there.
async fn enter_bulkhead(
    policy: &Policy,
    state: &State,
    w: &AsyncWorld<'_>,
    call: CallInfo,
    deadline_at: Option<VInstant>,
) -> Result<Option<ErrorKind>, Abort> {
    if policy.ordered_results && state.borrow().bulkhead.is_some() {
        // Calls enter in input order (those before this one started no later and enter at this instant),
        // so a call holding a slot for its turn never keeps an earlier call out.
        poll_fn(|_| if state.borrow().order.may_enter(call.index) { Poll::Ready(()) } else { Poll::Pending }).await;
        state.borrow_mut().order.mark_entered(call.index);
    }
    take_slot(state, w, call, (deadline_at, policy.interrupt_tie)).await
}

/// [`enter_bulkhead`] once the call's turn to enter came.
async fn take_slot(
    state: &State,
    w: &AsyncWorld<'_>,
    call: CallInfo,
    (deadline_at, tie): (Option<VInstant>, InterruptTie),
) -> Result<Option<ErrorKind>, Abort> {
    let queued = {
        let mut shared = state.borrow_mut();
        let Some(bulkhead) = shared.bulkhead.as_mut() else { return Ok(None) };
        if bulkhead.in_flight < bulkhead.params.max_in_flight && bulkhead.queue.is_empty() {
            bulkhead.in_flight += 1;
            return Ok(None);
        }
        let waiting = (bulkhead.queue.len() as u64).saturating_add(u64::from(bulkhead.leaving));
        let room = waiting < u64::from(bulkhead.params.queue_max);
        if room {
            bulkhead.queue.push_back(call.index);
        }
        room
    };
    if !queued {
        w.with(|w| w.reject(Rejection::BulkheadFull))?;
        return Ok(Some(ErrorKind::BulkheadFull));
    }
    w.with(|w| w.record_queued())?;
    let cancel_at = w.with(|w| w.cancel_at());
    if let Some(at) = [deadline_at, cancel_at].into_iter().flatten().min() {
        w.wake_at(at);
    }
    Ok(poll_fn(|_| wait_for_slot(state, w, call.index, (deadline_at, tie))).await)
}

fn wait_for_slot(
    state: &State,
    w: &AsyncWorld<'_>,
    call: u32,
    (deadline_at, tie): (Option<VInstant>, InterruptTie),
) -> Poll<Option<ErrorKind>> {
    let mut shared = state.borrow_mut();
    let Some(bulkhead) = shared.bulkhead.as_mut() else { return Poll::Ready(None) };
    let now = w.now();
    let expired = deadline_at.is_some_and(|at| now >= at).then_some(ErrorKind::DeadlineExceeded);
    let cancelled = w.with(|w| w.is_cancelled()).then_some(ErrorKind::Cancelled);
    let gave_up = match tie {
        InterruptTie::DeadlineFirst => expired.or(cancelled),
        InterruptTie::CancellationFirst => cancelled.or(expired),
    };
    if let Some(kind) = gave_up {
        bulkhead.queue.retain(|&queued| queued != call);
        return Poll::Ready(Some(kind));
    }
    if bulkhead.queue.front() == Some(&call) && bulkhead.in_flight < bulkhead.params.max_in_flight {
        bulkhead.queue.pop_front();
        bulkhead.in_flight += 1;
        return Poll::Ready(None);
    }
    Poll::Pending
}

/// The breaker's admission and the retry loop, as on the sequential path (probes admitted concurrently up
/// to `half_open_probes`); the call's result with its breaker ticket, which the caller records when the
/// call returns (a result counts in the state its call was admitted in).
async fn serve_admitted(
    policy: &Policy,
    state: &State,
    w: &AsyncWorld<'_>,
    call: CallInfo,
) -> Result<(CallResult, Option<Ticket>), Abort> {
    let ticket = {
        let mut shared = state.borrow_mut();
        match shared.case.breaker.as_mut() {
            Some(breaker) => match w.with(|w| breaker.admit_ticket(w))? {
                Some(ticket) => Some(ticket),
                None => {
                    w.with(|w| w.reject(Rejection::CircuitOpen))?;
                    return Ok((CallResult::Err(ErrorKind::CircuitOpen), None));
                }
            },
            None => None,
        }
    };
    Ok((retry_loop(policy, state, w, call).await?, ticket))
}

/// The sequential interpreter's retry loop (`interpreter::retry_loop`), awaiting attempts and sleeps,
/// with a token taken from the rate limiter before every dispatch.
async fn retry_loop(policy: &Policy, state: &State, w: &AsyncWorld<'_>, call: CallInfo) -> Result<CallResult, Abort> {
    w.with(stamp_start)?;
    let deadline_at = policy.deadline.map(|deadline| call.started.saturating_add(deadline));
    let retries_late = policy.retries_late_from(call.started);
    let (mut slept, mut backoff, mut tries) = (VDuration::ZERO, BackoffState::default(), 0);
    let hedges = if call.idempotent { policy.hedge.map_or(0, |hedge| hedge.max_hedges) } else { 0 };
    let mut attempts = CallAttempts { started: 0, hedges_left: hedges };
    loop {
        let check_deadline = if tries == 0 { deadline_at } else { None };
        match w.with(|w| interrupted(w, check_deadline, policy.interrupt_tie))? {
            Check::Stop(kind) => return Ok(CallResult::Err(kind)),
            Check::Unreadable => return Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
            Check::Go => {}
        }
        if !take_token(state, w)? {
            return Ok(CallResult::Err(ErrorKind::LimiterEmpty));
        }
        tries += 1;
        let limits = (deadline_at, retries_late);
        let (failure, outcome) = match run_try(policy, state, w, limits, &mut attempts).await? {
            Ok(()) => return Ok(CallResult::Ok),
            Err(AttemptFailure::Final(kind)) => return Ok(CallResult::Err(kind)),
            Err(AttemptFailure::Retryable(kind, outcome)) => (kind, outcome),
        };
        match w.with(|w| interrupted(w, deadline_at, policy.interrupt_tie))? {
            Check::Stop(kind) => return Ok(CallResult::Err(kind)),
            Check::Unreadable => return Ok(CallResult::Err(failure)),
            Check::Go => {}
        }
        let Some(planned) = retry_delay(policy, w, (call, attempts.started, failure), &backoff, outcome)? else {
            return Ok(CallResult::Err(failure));
        };
        let delay = planned.delay;
        let now = w.now();
        if policy.sleep_budget.is_some_and(|budget| slept.saturating_add(delay) > budget)
            || retries_late.is_some_and(|at| now.saturating_add(delay) >= at)
        {
            return Ok(CallResult::Err(failure));
        }
        if deadline_at.is_some_and(|at| now.saturating_add(delay) >= at) {
            return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
        }
        if !spend_budget(state, w)? {
            return Ok(CallResult::Err(failure));
        }
        w.with(|w| w.notify(delay))?;
        if w.sleep(delay).await? == Wake::Cancelled {
            return Ok(CallResult::Err(w.with(|w| cut_error(w, deadline_at, policy.interrupt_tie))?));
        }
        slept = slept.saturating_add(delay);
        backoff.slept(planned);
    }
}

/// The delay before the next try (after `started` attempts), or `None` when the call does not retry.
fn retry_delay(
    policy: &Policy,
    w: &AsyncWorld<'_>,
    (call, started, failure): (CallInfo, u32, ErrorKind),
    backoff: &BackoffState,
    outcome: Option<Outcome>,
) -> Result<Option<Planned>, Abort> {
    if !retryable(policy, failure) || started >= policy.max_attempts || !call.idempotent {
        return Ok(None);
    }
    // The backoff counts tries (a hedge is an attempt, not a retry); without hedges they are the attempts.
    w.with(|w| plan_delay(policy, w, backoff, outcome))
}

/// A token from the rate limiter, if any; a refusal is recorded.
fn take_token(state: &State, w: &AsyncWorld<'_>) -> Result<bool, Abort> {
    let now = w.now();
    let taken = state.borrow_mut().bucket.as_mut().is_none_or(|bucket| bucket.take(now));
    if !taken {
        w.with(|w| w.reject(Rejection::LimiterEmpty))?;
    }
    Ok(taken)
}

/// A retry from the budget, if any; a refusal is recorded.
fn spend_budget(state: &State, w: &AsyncWorld<'_>) -> Result<bool, Abort> {
    let spent = state.borrow_mut().case.budget.as_mut().is_none_or(RetryBudget::try_spend);
    if !spent {
        w.with(|w| w.reject(Rejection::BudgetExhausted))?;
    }
    Ok(spent)
}

/// One try of the retry loop: a single attempt, or with hedging ([`hedged_try`]) an attempt and its
/// hedges; counted in `attempts`.
async fn run_try(
    policy: &Policy,
    state: &State,
    w: &AsyncWorld<'_>,
    (deadline_at, retries_late): (Option<VInstant>, Option<VInstant>),
    attempts: &mut CallAttempts,
) -> Result<Result<(), AttemptFailure>, Abort> {
    match policy.hedge.filter(|_| attempts.hedges_left > 0) {
        Some(params) => hedged_try((policy, params), state, w, (deadline_at, retries_late), attempts).await,
        None => {
            attempts.started += 1;
            run_attempt(policy, w, deadline_at).await
        }
    }
}

async fn run_attempt(
    policy: &Policy,
    w: &AsyncWorld<'_>,
    deadline_at: Option<VInstant>,
) -> Result<Result<(), AttemptFailure>, Abort> {
    let (limit, by_deadline) = attempt_limit(policy, deadline_at.map(|at| at.duration_since(w.now())));
    let result = match limit {
        Some(limit) => w.dispatch_with_timeout(limit, TieRule::Expired).await?,
        None => w.dispatch().await?,
    };
    let cut_first = w.with(|w| cancellation_first(policy, w));
    attempt_failure(result, (by_deadline, cut_first), || w.with(|w| cut_error(w, deadline_at, policy.interrupt_tie)))
}
