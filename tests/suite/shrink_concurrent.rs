//! Shrinking cases whose calls overlap: fewer calls, serialized calls, fewer and smaller interleaving
//! choices, arrivals made equal and moved to the exact boundary. Each row starts from a larger concurrent
//! case of a broken subject (test code) and states the exact minimum.

use crate::common;

use common::planted_load::{load_minimum, LoadBug, LoadPlanted};
use timelaw::core::concurrent::run_async_calls;
use timelaw::core::reference::{Backoff, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, BulkheadContract, CallResult, CallScript, Case, CircuitContract, Contract, ErrorKind,
    Outcome, Schedule, Step, Subject, VDuration, World,
};
use timelaw::generators::case_outside;
use timelaw::laws::Catalogue;
use timelaw::shrink::{moves, shrink, ShrinkBudget};

/// A stream that promises ordered results and serves each item with one attempt as soon as it arrives
/// (broken: a faster later item overtakes). With `hold`, the first item is ready `HOLD` after the case starts, and the
/// items arriving before `HOLD` wait a second before their attempt (the ordering buffer holds them),
/// while later items are served at once: only an item arriving at `HOLD` or later can overtake.
#[derive(Clone, Copy)]
struct Stream {
    hold: Option<VDuration>,
}

const HOLD: VDuration = VDuration::from_nanos(10);

impl Subject for Stream {
    type Config = Policy;
    fn name(&self) -> &str {
        "broken-ordered-stream"
    }
    fn contract(&self, _policy: &Policy) -> Contract {
        let mut contract = Contract::default();
        contract.timing.ordered_results = true;
        contract
    }
    fn run(&self, _policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        let hold = self.hold;
        run_async_calls(world, move |w, call| {
            async move {
                if call.index == 0 && hold.is_some() {
                    // The first item is ready `HOLD` after the case starts.
                    w.sleep(HOLD.saturating_sub(call.started.since_epoch())).await?;
                }
                if call.index > 0 && hold.is_some_and(|hold| call.started.since_epoch() < hold) {
                    w.sleep(VDuration::from_secs(1)).await?;
                }
                match w.dispatch().await? {
                    AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
                    _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
                }
            }
        })
    }
}

timelaw::describe_like!(Stream => Reference);

fn ns(nanos: u64) -> VDuration {
    VDuration::from_nanos(nanos)
}

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// A call arriving at `at` with attempts of the given durations (ms) ending `Ok`.
fn call(at: VDuration, attempts_ms: &[u64]) -> CallScript {
    CallScript::new(attempts_ms.iter().map(|&d| Step::new(ms(d), Outcome::Ok)).collect()).arriving(at)
}

fn case(calls: Vec<CallScript>, interleave: &[u32]) -> Case<Policy> {
    let policy = load_minimum(LoadBug::CancelledAttemptKeepsRunning).config;
    Case::new(policy, Schedule::new(calls).with_interleave(interleave.to_vec()), 0)
}

#[track_caller]
fn check<S: Subject<Config = Policy> + timelaw::generators::ConfigDomain>(
    subject: &S,
    law: &str,
    start: Case<Policy>,
    expect: Case<Policy>,
) {
    let law = *Catalogue::standard().get(law).unwrap();
    assert_eq!(case_outside(subject, &start), vec![], "the start lies in the domain");
    let outcome = shrink(subject, &law, start, ShrinkBudget::default(), Default::default()).unwrap();
    assert_eq!(outcome.case, expect, "shrank to {}", serde_json::to_string(&outcome.case).unwrap());
    for step in moves(subject, &outcome.case) {
        assert_eq!(case_outside(subject, &step.case), vec![], "`{}` leaves the domain", step.name);
    }
}

#[test]
fn concurrent_cases_shrink_to_their_exact_minima() {
    let ordered = "ordered_results_in_input_order";
    let served = Stream { hold: None };
    let held = Stream { hold: Some(HOLD) };
    // Call 1 polled first at a tie: the choice [1] becomes the first call's dispatch 1 ns slower, no
    // choice (fewer interleaving choices before fewer steps).
    check(
        &served,
        ordered,
        case(vec![call(ms(0), &[0]), call(ms(0), &[0, 3]), call(ms(0), &[0]), call(ms(6), &[])], &[2, 1, 0, 3]),
        case(vec![call(ns(0), &[]), call(ns(0), &[])], &[]).with_first_attempt(Step::new(ns(1), Outcome::Ok)),
    );
    check(
        &served,
        ordered,
        case(vec![call(ms(0), &[]), call(ms(0), &[])], &[1]),
        case(vec![call(ns(0), &[]), call(ns(0), &[])], &[]).with_first_attempt(Step::new(ns(1), Outcome::Ok)),
    );
    // A later item overtakes a slower earlier one: no choice needed, the arrivals together.
    check(
        &served,
        ordered,
        case(vec![call(ms(0), &[9]), call(ms(3), &[2]), call(ms(5), &[1])], &[0, 0, 0]),
        case(vec![call(ns(0), &[]), call(ns(0), &[])], &[]).with_first_attempt(Step::new(ns(1), Outcome::Ok)),
    );
    // Only items arriving from `HOLD` on overtake: the second arrives exactly at the boundary (a binary
    // search from 500 ms), and the first with it.
    check(
        &held,
        ordered,
        case(vec![call(ms(0), &[900]), call(ms(500), &[])], &[]),
        case(vec![call(HOLD, &[]), call(HOLD, &[])], &[]).with_first_attempt(Step::new(ns(1), Outcome::Ok)),
    );
    // Overlap is not what fails: the case becomes sequential.
    let cancelled = LoadBug::CancelledAttemptKeepsRunning;
    let mut overlapping = case(vec![call(ms(0), &[5]), call(ms(2), &[7]), call(ms(2), &[1])], &[1, 1]);
    overlapping.schedule.calls[1].cancel_after = Some(ms(3));
    check(&LoadPlanted(cancelled), "cancellation_leaves_nothing_running", overlapping, load_minimum(cancelled));
    // The bulkhead off by one: from calls apart and a needless choice to limit + 1 calls together.
    let bulkhead = LoadBug::BulkheadOffByOne;
    let mut spread = case(vec![call(ms(3), &[8]), call(ms(4), &[2]), call(ms(9), &[1])], &[2, 1]);
    spread.config.bulkhead = Some(BulkheadContract::new(2, 0));
    spread.schedule.calls.push(call(ms(9), &[3]));
    check(&LoadPlanted(bulkhead), "bulkhead_in_flight_within_limit", spread, load_minimum(bulkhead));
    // A retry keeps the slot busy through its 1 ns backoff: the failed step becomes `ok` for as long
    // as its call ran, then the retry's config goes.
    let mut retried = load_minimum(bulkhead);
    retried.config = Policy { bulkhead: retried.config.bulkhead, ..Policy::new(2, constant(ns(1)), ns(1)) };
    retried.schedule.calls[0].steps = vec![Step::instant(Outcome::Transient)];
    check(&LoadPlanted(bulkhead), "bulkhead_in_flight_within_limit", retried, load_minimum(bulkhead));
    // Two probes allowed and a fourth caller: a caller dropped with the probe limit lowered by one.
    let half_open = LoadBug::HalfOpenAdmitsAll;
    let mut probes = load_minimum(half_open);
    probes.config.circuit = probes.config.circuit.map(|circuit| CircuitContract { half_open_probes: 2, ..circuit });
    probes.schedule.calls.insert(1, CallScript::new(vec![]).arriving(ns(0)));
    check(&LoadPlanted(half_open), "half_open_probe_limit", probes, load_minimum(half_open));
    // The failing caller polled first by the choice [2]: it moves before both earlier callers arriving
    // with it, and the choice goes.
    let mut picked = load_minimum(half_open);
    picked.schedule.calls.rotate_left(1);
    picked.schedule.interleave = vec![2];
    check(&LoadPlanted(half_open), "half_open_probe_limit", picked, load_minimum(half_open));
}

fn constant(delay: VDuration) -> Backoff {
    Backoff::Constant { delay }
}

/// The first call's first step replaced (for stating minima).
trait FirstAttempt {
    fn with_first_attempt(self, step: Step) -> Self;
}

impl FirstAttempt for Case<Policy> {
    fn with_first_attempt(mut self, step: Step) -> Self {
        self.schedule.calls[0].steps = vec![step];
        self
    }
}

/// The sequential minimum of a bug that needs no overlap is written as fixture format version 2.
#[test]
fn a_serialized_minimum_has_no_arrival_and_no_choice() {
    let minimum = load_minimum(LoadBug::CancelledAttemptKeepsRunning);
    assert!(!minimum.schedule.has_arrivals() && minimum.schedule.interleave.is_empty());
    let json = serde_json::to_string(&minimum.schedule).unwrap();
    assert!(!json.contains("arrival") && !json.contains("interleave"), "{json}");
}
