//! Broken subjects served on the concurrent seam (one future per call on the virtual executor), each
//! violating its load law, and the same subjects without the bug keeping it.

mod support;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use support::*;
use timelaw_core::concurrent::run_async_calls;
use timelaw_core::{
    execute, Abort, AttemptResult, BulkheadContract, CallResult, CallScript, Contract, Declared, ErrorKind,
    LimiterContract, LimiterWindow, Outcome, Rejection, Schedule, Step, Subject, VDuration, VInstant, World,
};
use timelaw_laws::ids;

/// A bulkhead of `limit` calls with no queue; `off_by_one` admits `limit + 1`.
struct Bulkhead;

impl Subject for Bulkhead {
    type Config = (u32, bool);
    fn name(&self) -> &str {
        "bulkhead"
    }
    fn contract(&self, &(limit, _): &(u32, bool)) -> Contract {
        let bulkhead = BulkheadContract::new(limit, 0);
        Contract { bulkhead: Declared::Stated(bulkhead), ..Contract::default() }
    }
    fn run(&self, &(limit, off_by_one): &(u32, bool), world: &mut World<'_>) -> Result<(), Abort> {
        let (admitted, in_flight) = (limit + u32::from(off_by_one), Rc::new(Cell::new(0_u32)));
        run_async_calls(world, move |w, _call| {
            let in_flight = Rc::clone(&in_flight);
            async move {
                if in_flight.get() >= admitted {
                    w.with(|w| w.reject(Rejection::BulkheadFull))?;
                    return Ok(CallResult::Err(ErrorKind::BulkheadFull));
                }
                in_flight.set(in_flight.get() + 1);
                let attempt = w.dispatch().await;
                in_flight.set(in_flight.get() - 1);
                match attempt? {
                    AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
                    _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
                }
            }
        })
    }
}

/// A token bucket of `burst` refilled every 10ms from the case start; `extra_token` starts it with one
/// token more than its burst.
struct Limiter;

const REFILL: VDuration = VDuration::from_millis(10);

impl Subject for Limiter {
    type Config = (u32, bool);
    fn name(&self) -> &str {
        "limiter"
    }
    fn contract(&self, &(burst, _): &(u32, bool)) -> Contract {
        let limiter = LimiterContract::token_bucket(burst, REFILL);
        Contract { limiter: Declared::Stated(limiter), ..Contract::default() }
    }
    fn run(&self, &(burst, extra_token): &(u32, bool), world: &mut World<'_>) -> Result<(), Abort> {
        // Tokens now, and refills counted so far.
        let bucket = Rc::new(Cell::new((burst + u32::from(extra_token), 0_u64)));
        run_async_calls(world, move |w, _call| {
            let bucket = Rc::clone(&bucket);
            async move {
                let now = w.with(|w| w.now());
                let refills = now.duration_since(VInstant::EPOCH).as_nanos() / REFILL.as_nanos();
                let (tokens, counted) = bucket.get();
                let added = u32::try_from(refills - counted).unwrap_or(u32::MAX);
                let tokens = tokens.max(burst.min(tokens.saturating_add(added)));
                if tokens == 0 {
                    bucket.set((0, refills));
                    w.with(|w| w.reject(Rejection::LimiterEmpty))?;
                    return Ok(CallResult::Err(ErrorKind::LimiterEmpty));
                }
                bucket.set((tokens - 1, refills));
                match w.dispatch().await? {
                    AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
                    _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
                }
            }
        })
    }
}

/// `count` calls arriving at `every_ms` apart, each attempt taking 10ms.
fn arrivals(count: usize, every_ms: u64) -> Schedule {
    let call = |index: u64| CallScript::new(vec![Step::new(ms(10), Outcome::Ok)]).arriving(ms(index * every_ms));
    Schedule::new((0..count as u64).map(call).collect())
}

#[track_caller]
fn check<S: Subject>(subject: &S, config: &S::Config, schedule: Schedule, id: &str, violated: bool) {
    let trace = execute(subject, config, &schedule, SEED);
    let run = observed(subject.contract(config), schedule, trace);
    assert!(timelaw_laws::temporal::calls_interleave(&run.trace.events), "the calls must overlap");
    let verdict = run.judge(id);
    assert_eq!(verdict.is_violated(), violated, "{id}: {verdict}\n{}", Listing(&run.trace));
}

#[test]
fn a_bulkhead_off_by_one_is_caught() {
    check(&Bulkhead, &(2, false), arrivals(4, 0), ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, false);
    check(&Bulkhead, &(2, false), arrivals(4, 0), ids::BULKHEAD_ADMITS_BELOW_LIMIT, false);
    check(&Bulkhead, &(2, true), arrivals(4, 0), ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, true);
}

#[test]
fn a_limiter_with_burst_plus_one_is_caught() {
    check(&Limiter, &(2, false), arrivals(5, 3), ids::LIMITER_WITHIN_RATE, false);
    check(&Limiter, &(2, false), arrivals(5, 3), ids::LIMITER_ADMITS_WITH_TOKENS, false);
    check(&Limiter, &(2, true), arrivals(5, 3), ids::LIMITER_WITHIN_RATE, true);
}

/// How [`QueuedBulkhead`] picks the next waiting call when a slot frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
enum Order {
    /// First come, first served.
    FirstCome,
    /// The last call to join the queue is served first.
    LastCome,
    /// The slot is freed, not handed to a waiting call: a newcomer polled first takes it.
    Barging,
}

/// A bulkhead of one slot and an unbounded queue, stated first come; `Order` says how it really serves.
struct QueuedBulkhead;

#[derive(Default)]
struct Slots {
    busy: bool,
    queue: VecDeque<u32>,
    /// The call a freed slot was handed to.
    handed: Option<u32>,
}

impl Subject for QueuedBulkhead {
    type Config = Order;
    fn name(&self) -> &str {
        "queued-bulkhead"
    }
    fn contract(&self, _: &Order) -> Contract {
        let bulkhead = BulkheadContract { first_come: true, ..BulkheadContract::new(1, u32::MAX) };
        Contract { bulkhead: Declared::Stated(bulkhead), ..Contract::default() }
    }
    fn run(&self, &order: &Order, world: &mut World<'_>) -> Result<(), Abort> {
        let slots = Rc::new(RefCell::new(Slots::default()));
        run_async_calls(world, move |w, call| {
            let slots = Rc::clone(&slots);
            async move {
                let free = { !slots.borrow().busy && (order == Order::Barging || slots.borrow().queue.is_empty()) };
                if free {
                    slots.borrow_mut().busy = true;
                } else {
                    slots.borrow_mut().queue.push_back(call.index);
                    w.with(|w| w.record_queued())?;
                    poll_fn(|_| {
                        let mut slots = slots.borrow_mut();
                        let free_for_me = !slots.busy && slots.queue.front() == Some(&call.index);
                        if free_for_me {
                            slots.queue.pop_front();
                            slots.busy = true;
                        }
                        if slots.handed == Some(call.index) || free_for_me {
                            slots.handed = None;
                            return Poll::Ready(());
                        }
                        Poll::Pending
                    })
                    .await;
                }
                let attempt = w.dispatch().await;
                let mut slots = slots.borrow_mut();
                // Barging: the slot is simply freed; the waiting call takes it when it is polled next,
                // unless a newcomer polled first took it.
                let next = match order {
                    Order::LastCome => slots.queue.pop_back(),
                    Order::FirstCome => slots.queue.pop_front(),
                    Order::Barging => None,
                };
                slots.busy = next.is_some();
                slots.handed = next;
                match attempt? {
                    AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
                    _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
                }
            }
        })
    }
}

#[test]
fn a_bulkhead_that_serves_its_queue_out_of_order_is_caught() {
    let id = ids::BULKHEAD_QUEUE_FIRST_COME;
    // Three calls at once: one runs, two wait; then a fourth arrives while they wait.
    let schedule = || {
        let call = |at: u64| CallScript::new(vec![Step::new(ms(10), Outcome::Ok)]).arriving(ms(at));
        Schedule::new(vec![call(0), call(0), call(0), call(5)])
    };
    check(&QueuedBulkhead, &Order::FirstCome, schedule(), id, false);
    check(&QueuedBulkhead, &Order::FirstCome, schedule(), ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, false);
    check(&QueuedBulkhead, &Order::LastCome, schedule(), id, true);
    check(&QueuedBulkhead, &Order::LastCome, schedule(), ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, false);
    // A barging newcomer: one call runs and one waits when a third arrives just as the slot frees.
    let barging = || {
        let call = |at: u64| CallScript::new(vec![Step::new(ms(10), Outcome::Ok)]).arriving(ms(at));
        Schedule::new(vec![call(0), call(0), call(10)])
    };
    check(&QueuedBulkhead, &Order::FirstCome, barging(), id, false);
    check(&QueuedBulkhead, &Order::Barging, barging(), id, true);
}

/// A fixed-window limiter of `burst` per 10ms, each window opened at its first dispatch; `admits_extra`
/// lets one dispatch too many into each window, `refuses_last` refuses the window's last place.
struct FixedWindowLimiter;

impl Subject for FixedWindowLimiter {
    type Config = (u32, bool, bool);
    fn name(&self) -> &str {
        "fixed-window-limiter"
    }
    fn contract(&self, &(burst, ..): &(u32, bool, bool)) -> Contract {
        let limiter = LimiterContract { window: LimiterWindow::Fixed, ..LimiterContract::token_bucket(burst, REFILL) };
        Contract { limiter: Declared::Stated(limiter), ..Contract::default() }
    }
    fn run(
        &self,
        &(burst, admits_extra, refuses_last): &(u32, bool, bool),
        world: &mut World<'_>,
    ) -> Result<(), Abort> {
        let admitted = (burst + u32::from(admits_extra)).saturating_sub(u32::from(refuses_last));
        // The open window's end and its count.
        let window = Rc::new(Cell::new((VInstant::EPOCH, 0_u32)));
        run_async_calls(world, move |w, _call| {
            let window = Rc::clone(&window);
            async move {
                let now = w.with(|w| w.now());
                let (mut end, mut count) = window.get();
                if now >= end {
                    (end, count) = (now.saturating_add(REFILL), 0);
                }
                if count >= admitted {
                    w.with(|w| w.reject(Rejection::LimiterEmpty))?;
                    return Ok(CallResult::Err(ErrorKind::LimiterEmpty));
                }
                window.set((end, count + 1));
                match w.dispatch().await? {
                    AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
                    _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
                }
            }
        })
    }
}

#[test]
fn a_fixed_window_limiter_off_by_one_is_caught() {
    // Calls every 3ms: windows opened at 0 (0, 3, 6, 9) and 12 (12, 15, ...).
    let (within, admits) = (ids::LIMITER_WITHIN_RATE, ids::LIMITER_ADMITS_WITH_TOKENS);
    check(&FixedWindowLimiter, &(2, false, false), arrivals(8, 3), within, false);
    check(&FixedWindowLimiter, &(2, false, false), arrivals(8, 3), admits, false);
    check(&FixedWindowLimiter, &(2, true, false), arrivals(8, 3), within, true);
    check(&FixedWindowLimiter, &(2, false, true), arrivals(8, 3), admits, true);
    // A correct fixed window breaks the token bucket's bound, which is why the kind must be stated.
    let run_as_bucket = |schedule: Schedule| {
        let config = (2, false, false);
        let trace = execute(&FixedWindowLimiter, &config, &schedule, SEED);
        let bucket = LimiterContract::token_bucket(2, REFILL);
        let contract = Contract { limiter: Declared::Stated(bucket), ..Contract::default() };
        observed(contract, schedule, trace).judge(within)
    };
    let call = |at: u64| CallScript::new(vec![Step::new(ms(1), Outcome::Ok)]).arriving(ms(at));
    let back_to_back = Schedule::new(vec![call(0), call(9), call(10), call(10)]);
    check(&FixedWindowLimiter, &(2, false, false), back_to_back.clone(), within, false);
    assert!(run_as_bucket(back_to_back).is_violated());
}
