//! `serve_calls_concurrently`: overlapping calls on the paused runtime, ordered at ties by the case's
//! recorded interleaving exactly as the core executor orders them.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use timelaw_core::concurrent::run_async_calls;
use timelaw_core::{
    execute, Abort, AttemptResult, CallResult, CallScript, Contract, ErrorKind, EventKind, Outcome, Rejection,
    Schedule, Step, Subject, Trace, TraceEnd, VDuration, Wake, World,
};
use timelaw_tokio::serve_calls_concurrently;

/// The same application logic on both drivers: a bulkhead of `limit` calls (a call over it is rejected
/// without dispatch), inside it up to two attempts 5 ms apart when the first fails transiently.
#[derive(Clone, Copy)]
enum Driver {
    Tokio,
    Core,
}

struct Bulkhead(Driver);

impl Subject for Bulkhead {
    type Config = u32;
    fn name(&self) -> &str {
        "bulkhead"
    }
    fn contract(&self, _: &u32) -> Contract {
        Contract::default()
    }
    fn run(&self, limit: &u32, world: &mut World<'_>) -> Result<(), Abort> {
        let (limit, in_flight) = (*limit, Rc::new(Cell::new(0_u32)));
        match self.0 {
            Driver::Tokio => serve_calls_concurrently(world, move |w, _call| {
                let in_flight = Rc::clone(&in_flight);
                async move {
                    if in_flight.get() >= limit {
                        w.with(|w| w.reject(Rejection::BulkheadFull))?;
                        return Ok(CallResult::Err(ErrorKind::BulkheadFull));
                    }
                    // Cancellation drops the call's future: the slot is given back on drop.
                    let _slot = Slot::take(&in_flight);
                    let mut outcome = w.attempt().await;
                    if outcome == Ok(Outcome::Transient) {
                        w.sleep(Duration::from_millis(5)).await;
                        outcome = w.attempt().await;
                    }
                    Ok(CallResult::from_outcome(outcome?))
                }
            }),
            Driver::Core => run_async_calls(world, move |w, _call| {
                let in_flight = Rc::clone(&in_flight);
                async move {
                    if in_flight.get() >= limit {
                        w.with(|w| w.reject(Rejection::BulkheadFull))?;
                        return Ok(CallResult::Err(ErrorKind::BulkheadFull));
                    }
                    in_flight.set(in_flight.get() + 1);
                    let mut result = w.dispatch().await;
                    if result == Ok(AttemptResult::Completed(Outcome::Transient)) {
                        result = match w.sleep(VDuration::from_millis(5)).await? {
                            Wake::Cancelled => Ok(AttemptResult::Cancelled),
                            Wake::Elapsed => w.dispatch().await,
                        };
                    }
                    in_flight.set(in_flight.get() - 1);
                    match result? {
                        AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
                        _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
                    }
                }
            }),
        }
    }
}

/// One place in the bulkhead, given back when dropped.
struct Slot(Rc<Cell<u32>>);

impl Slot {
    fn take(in_flight: &Rc<Cell<u32>>) -> Slot {
        in_flight.set(in_flight.get() + 1);
        Slot(Rc::clone(in_flight))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// Calls of `(arrival_ms, [(duration_ms, outcome)])`, with the interleave choices.
fn schedule(calls: &[(u64, &[(u64, Outcome)])], interleave: &[u32]) -> Schedule {
    let calls = calls.iter().map(|(arrival_ms, steps)| {
        let steps = steps.iter().map(|&(duration_ms, outcome)| Step::new(ms(duration_ms), outcome)).collect();
        CallScript::new(steps).arriving(ms(*arrival_ms))
    });
    Schedule::new(calls.collect()).with_interleave(interleave.to_vec())
}

/// `(instant in ms, call, attempt, kind)` of every event.
fn events(trace: &Trace) -> Vec<(f64, u32, u32, EventKind)> {
    trace.events.iter().map(|e| (e.at.as_nanos() as f64 / 1e6, e.call, e.attempt, e.kind)).collect()
}

fn rejected(trace: &Trace) -> Vec<u32> {
    trace.events.iter().filter(|e| matches!(e.kind, EventKind::Rejected { .. })).map(|e| e.call).collect()
}

/// The tokio driver's trace of the case: complete, and the same on a second run.
fn tokio_trace(limit: u32, schedule: &Schedule) -> Trace {
    let trace = execute(&Bulkhead(Driver::Tokio), &limit, schedule, 0);
    assert_eq!(trace.end, TraceEnd::Complete, "{:?}", trace.events);
    assert_eq!(events(&execute(&Bulkhead(Driver::Tokio), &limit, schedule, 0)), events(&trace));
    trace
}

/// With the bulkhead at `limit`, the calls the tokio driver rejects, and that the core executor gives
/// the same events.
#[track_caller]
fn check(limit: u32, schedule: &Schedule, expect_rejected: &[u32]) {
    let trace = tokio_trace(limit, schedule);
    assert_eq!(rejected(&trace), expect_rejected, "{:?}", events(&trace));
    let core = execute(&Bulkhead(Driver::Core), &limit, schedule, 0);
    assert_eq!(events(&trace), events(&core));
}

const OK10: &[(u64, Outcome)] = &[(10, Outcome::Ok)];
const RETRY: &[(u64, Outcome)] = &[(10, Outcome::Transient), (10, Outcome::Ok)];

#[test]
fn ties_follow_the_recorded_interleaving() {
    let three = |interleave: &[u32]| schedule(&[(0, OK10), (0, OK10), (0, OK10)], interleave);
    check(2, &three(&[]), &[2]); // first come, first served
    check(2, &three(&[2]), &[1]); // call 2 first, then call 0: call 1 finds the bulkhead full
    check(2, &three(&[1, 1]), &[0]); // call 1, then call 2 (position 1 of [0, 2])
    check(2, &three(&[5]), &[1]); // 5 % 3 = 2
    check(2, &three(&[0, 0, 0, 0, 9]), &[2]); // entries past the choices of the run are unused
    check(3, &three(&[2]), &[]);
    check(0, &three(&[1]), &[1, 0, 2]); // in the order they ran
}

#[test]
fn arrivals_and_timers_meet_at_the_same_instant() {
    // Call 1 arrives at 10 ms, the instant call 0's attempt ends: call 0 is due by its timer, call 1 by
    // its arrival; first come polls call 0 first, which frees the bulkhead.
    check(1, &schedule(&[(0, OK10), (10, OK10)], &[]), &[]);
    // Polled first, call 1 finds call 0 still in flight.
    check(1, &schedule(&[(0, OK10), (10, OK10)], &[1]), &[1]);
    check(1, &schedule(&[(0, OK10), (9, OK10)], &[]), &[1]);
    // A retry's sleep ends at 15 ms, when call 1 arrives.
    check(1, &schedule(&[(0, RETRY), (15, OK10)], &[]), &[1]);
    check(1, &schedule(&[(0, RETRY), (25, OK10), (25, OK10)], &[1]), &[1]);
    check(2, &schedule(&[(0, RETRY), (5, RETRY), (12, OK10), (30, OK10)], &[]), &[2]);
}

#[test]
fn two_recorded_choices_give_two_traces() {
    let first = tokio_trace(1, &schedule(&[(0, OK10), (0, RETRY)], &[0]));
    let second = tokio_trace(1, &schedule(&[(0, OK10), (0, RETRY)], &[1]));
    assert_ne!(events(&first), events(&second));
    assert_eq!((rejected(&first), rejected(&second)), (vec![1], vec![0]));
}

#[test]
fn the_same_case_gives_the_same_trace_on_four_threads() {
    let case = schedule(&[(0, RETRY), (0, OK10), (3, RETRY), (3, OK10), (20, OK10)], &[3, 1, 2]);
    let expected = events(&tokio_trace(2, &case));
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| (0..25).map(|_| events(&tokio_trace(2, &case))).collect::<Vec<_>>()))
            .collect();
        for run in runs {
            let traces = run.join().expect("a runner thread panicked");
            assert!(traces.iter().all(|trace| *trace == expected));
        }
    });
}

#[test]
fn a_sequential_case_keeps_the_sequential_path() {
    // No arrivals: one call after the other, as `serve_calls` serves them; nothing is rejected.
    let steps = vec![Step::new(ms(10), Outcome::Transient), Step::new(ms(10), Outcome::Ok)];
    let sequential = Schedule::new(vec![CallScript::new(steps.clone()), CallScript::new(steps)]);
    let trace = tokio_trace(1, &sequential);
    assert!(rejected(&trace).is_empty());
    assert_eq!(trace.events.last().map(|e| e.at.as_nanos()), Some(ms(50).as_nanos()));
}

/// A small deterministic generator (64-bit LCG) for the table of random cases.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A case of 1 to 5 calls with arrivals and attempts in steps of 5 ms, cancellations between them, and
/// a random interleaving.
fn random_case(rng: &mut Lcg) -> (u32, Schedule) {
    let outcomes = [Outcome::Ok, Outcome::Transient, Outcome::Fatal];
    let mut arrival_ms = 0;
    let calls = (0..=rng.below(5))
        .map(|_| {
            arrival_ms += rng.below(3) * rng.below(3) * 5;
            let steps =
                (0..rng.below(3)).map(|_| Step::new(ms(rng.below(4) * 5), outcomes[rng.below(3) as usize])).collect();
            let mut call = CallScript::new(steps).arriving(ms(arrival_ms));
            // 2 ms past a multiple of 5 ms: never at the instant a timer or an arrival is due (at such
            // a tie tokio's caller cuts the call before polling it; the core executor lets it finish).
            // Half of them half a millisecond later: tokio wakes at the next millisecond, the cut is exact.
            let half_ms = VDuration::from_micros(500 * rng.below(2));
            call.cancel_after = (rng.below(4) == 0).then(|| ms(rng.below(6) * 5 + 2).saturating_add(half_ms));
            call
        })
        .collect();
    let interleave = (0..rng.below(6)).map(|_| rng.below(5) as u32).collect();
    ((rng.below(4)) as u32, Schedule::new(calls).with_interleave(interleave))
}

#[test]
fn the_tokio_driver_gives_the_core_executors_events() {
    let mut rng = Lcg(7);
    let (mut rejecting, mut cancelled) = (0, 0);
    for _ in 0..400 {
        let (limit, case) = random_case(&mut rng);
        let tokio = events(&tokio_trace(limit, &case));
        let core = events(&execute(&Bulkhead(Driver::Core), &limit, &case, 0));
        assert_eq!(tokio, core, "limit {limit}, case {case:?}");
        rejecting += usize::from(tokio.iter().any(|e| matches!(e.3, EventKind::Rejected { .. })));
        cancelled +=
            usize::from(tokio.iter().any(|e| matches!(e.3, EventKind::AttemptCancelled | EventKind::SleepCancelled)));
    }
    // The table covers overlapping calls the bulkhead turns away, and cancellations in flight.
    assert!(rejecting > 100 && cancelled > 20, "{rejecting} rejecting, {cancelled} cancelled");
}

/// Every call waits on nothing that can wake it (a permit never released), until its cancellation.
struct NeverReady;

impl Subject for NeverReady {
    type Config = ();
    fn name(&self) -> &str {
        "never-ready"
    }
    fn contract(&self, _: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
        serve_calls_concurrently(world, |_w, _call| async {
            std::future::pending::<()>().await;
            Ok(CallResult::Ok)
        })
    }
}

#[test]
fn calls_cut_together_between_two_ticks_end_at_their_own_instant() {
    // Both cancellations fall between tokio's ticks at 0 and 1 ms: the round that cuts them picks among
    // two calls (an interleave choice) and must not move the World's clock to tokio's tick first.
    let cut_ns = 294_967;
    let call = CallScript { cancel_after: Some(VDuration::from_nanos(cut_ns)), ..CallScript::new(vec![]) };
    for interleave in [vec![], vec![1]] {
        let schedule = Schedule::new(vec![call.clone().arriving(VDuration::ZERO); 2]).with_interleave(interleave);
        let trace = execute(&NeverReady, &(), &schedule, 0);
        let ends: Vec<(u64, u32)> = (trace.events.iter())
            .filter(|event| matches!(event.kind, EventKind::CallEnd { .. }))
            .map(|event| (event.at.as_nanos(), event.call))
            .collect();
        assert_eq!(ends.len(), 2, "{:?}", trace.events);
        assert!(ends.iter().all(|&(at, _)| at == cut_ns), "{ends:?}");
    }
}
