//! Broken subjects served on the concurrent seam (one future per call on the virtual executor), each
//! violating its load law, and the same subjects without the bug keeping it.

mod support;

use std::cell::Cell;
use std::rc::Rc;

use support::*;
use timelaw_core::concurrent::run_async_calls;
use timelaw_core::{
    execute, Abort, AttemptResult, BulkheadContract, CallResult, CallScript, Contract, Declared, ErrorKind,
    LimiterContract, Outcome, Rejection, Schedule, Step, Subject, VDuration, VInstant, World,
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
        let bulkhead = BulkheadContract { max_in_flight: limit, queue_max: 0 };
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
        let limiter = LimiterContract { burst, refill_every: REFILL };
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
