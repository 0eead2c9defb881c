//! Circuit-breaker laws: circuit_open_rejects_without_dispatch, circuit_half_open_after_cooldown,
//! half_open_probe_limit.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{BulkheadContract, CallScript, CircuitContract, Outcome, Schedule, Step, VDuration};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

/// Window 4, opens at 2 results with half of them failed, open for 100ms, `probes` half-open probes.
fn breaker(min_calls: u32, open_for_ms: u64, probes: u32) -> CircuitContract {
    CircuitContract {
        window: 4,
        min_calls,
        failure_percent: 50,
        open_for: ms(open_for_ms),
        half_open_probes: probes,
        ..CircuitContract::DEFAULT
    }
}

/// One attempt per call, behind `circuit`.
fn policy(circuit: CircuitContract) -> Policy {
    Policy { circuit: Some(circuit), ..Policy::new(1, Backoff::Constant { delay: ms(10) }, ms(1000)) }
}

/// One single-step call per `(gap before it in ms, outcome)`; a `None` outcome is a call cancelled at once.
fn stream(calls: &[(u64, Option<Outcome>)]) -> Schedule {
    let script = |&(gap, outcome): &(u64, Option<Outcome>)| CallScript {
        gap_before: ms(gap),
        cancel_after: outcome.is_none().then_some(ms(0)),
        ..CallScript::outcomes(&[outcome.unwrap_or(OK)])
    };
    Schedule::new(calls.iter().map(script).collect())
}

/// Runs the reference with breaker `actual`, promising breaker `claimed`.
fn misdeclared(actual: CircuitContract, claimed: CircuitContract, schedule: Schedule) -> Run {
    run(&Misdeclared, &MisdeclaredConfig { policy: policy(actual), claimed: Some(claimed) }, schedule)
}

const OPENS_THEN_REJECTS: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (0, Some(OK))];
const OPENS_THEN_PROBES: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (100, Some(OK)), (0, Some(OK))];
const FULL_CYCLE: &[(u64, Option<Outcome>)] =
    &[(0, Some(T)), (0, Some(T)), (50, Some(OK)), (50, Some(T)), (10, Some(OK)), (100, Some(OK)), (0, Some(T))];
const CANCELLED_PROBE: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (100, None), (0, Some(OK))];
const HEALTHY: &[(u64, Option<Outcome>)] = &[(0, Some(OK)), (0, Some(OK)), (0, Some(T)), (0, Some(OK))];

/// `run` with the end of its first attempt recorded as a circuit-open rejection instead: a call that says
/// it was rejected and still dispatched.
fn dispatched_though_rejected(mut run: Run) -> (Run, u32) {
    let attempt = run.trace.events.iter().position(|event| event.kind == timelaw_core::EventKind::AttemptStart);
    let attempt = attempt.expect("the run dispatches an attempt");
    run.trace.events[attempt + 1].kind =
        timelaw_core::EventKind::Rejected { reason: timelaw_core::Rejection::CircuitOpen };
    (run, attempt as u32)
}

/// `run` without its `Rejected` events (the rest renumbered): calls refused only by their result.
fn silently_rejected(mut run: Run) -> Run {
    let rejection = timelaw_core::EventKind::Rejected { reason: timelaw_core::Rejection::CircuitOpen };
    run.trace.events.retain(|event| event.kind != rejection);
    for (index, event) in run.trace.events.iter_mut().enumerate() {
        event.seq = index as u32;
    }
    run
}

/// `run` without its `CircuitTransition` events (the rest renumbered): a subject that does not report its
/// breaker's transitions.
fn unreported(mut run: Run) -> Run {
    run.trace.events.retain(|event| !matches!(event.kind, timelaw_core::EventKind::CircuitTransition { .. }));
    for (index, event) in run.trace.events.iter_mut().enumerate() {
        event.seq = index as u32;
    }
    run
}

#[test]
fn circuit_open_rejects_without_dispatch_edges() {
    let id = ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH;
    // A call the open breaker refuses by its result alone (no rejection event) dispatched nothing.
    check(id, silently_rejected(reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_REJECTS))), Expect::Holds);
    // Rejected while the stated (slower) breaker is still closed: this law has nothing against it.
    check(id, misdeclared(breaker(2, 100, 1), breaker(3, 100, 1), stream(OPENS_THEN_REJECTS)), Expect::Holds);
    // Rejected as circuit-open and dispatched anyway, while closed.
    let (run, attempt) = dispatched_though_rejected(reference(policy(breaker(2, 100, 1)), stream(HEALTHY)));
    check(id, run, Expect::At(attempt));
}

#[test]
fn circuit_open_rejects_without_dispatch() {
    let id = ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH;
    check(id, reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_REJECTS)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(FULL_CYCLE)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_PROBES)), Expect::Vacuous);
    check(id, reference(policy(breaker(2, 100, 1)), stream(HEALTHY)), Expect::Vacuous);
    check(
        id,
        reference(Policy { circuit: None, ..policy(breaker(2, 100, 1)) }, stream(HEALTHY)),
        Expect::NotApplicable,
    );
    check(id, misdeclared(breaker(3, 100, 1), breaker(2, 100, 1), stream(OPENS_THEN_REJECTS)), Expect::At(9));
    check(
        id,
        naive(
            {
                let mut promise = promise(1, ms(10));
                promise.circuit = timelaw_core::Declared::Stated(breaker(2, 100, 1));
                promise
            },
            Bug::None,
            stream(OPENS_THEN_REJECTS),
        ),
        Expect::At(9),
    );
}

#[test]
fn circuit_half_open_after_cooldown() {
    let id = ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN;
    check(id, reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_PROBES)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(FULL_CYCLE)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(CANCELLED_PROBE)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_REJECTS)), Expect::Vacuous);
    check(
        id,
        reference(Policy { circuit: None, ..policy(breaker(2, 100, 1)) }, stream(HEALTHY)),
        Expect::NotApplicable,
    );
    check(id, misdeclared(breaker(2, 1000, 1), breaker(2, 100, 1), stream(OPENS_THEN_PROBES)), Expect::At(10));
}

#[test]
fn half_open_probe_limit() {
    let id = ids::HALF_OPEN_PROBE_LIMIT;
    check(id, reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_PROBES)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 2)), stream(OPENS_THEN_PROBES)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(FULL_CYCLE)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(CANCELLED_PROBE)), Expect::Holds);
    check(id, reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_REJECTS)), Expect::Vacuous);
    check(
        id,
        reference(Policy { circuit: None, ..policy(breaker(2, 100, 1)) }, stream(HEALTHY)),
        Expect::NotApplicable,
    );
    check(id, misdeclared(breaker(2, 100, 2), breaker(2, 100, 1), stream(OPENS_THEN_PROBES)), Expect::At(15));
}

#[test]
fn half_open_probe_limit_without_reported_transitions() {
    let id = ids::HALF_OPEN_PROBE_LIMIT;
    // The half-open periods end at the model's decisions: the call after the breaker closed is no probe.
    check(id, unreported(reference(policy(breaker(2, 100, 1)), stream(FULL_CYCLE))), Expect::Holds);
    check(id, unreported(reference(policy(breaker(2, 100, 1)), stream(CANCELLED_PROBE))), Expect::Holds);
    check(id, unreported(reference(policy(breaker(2, 100, 1)), stream(OPENS_THEN_REJECTS))), Expect::Vacuous);
    // Two probes let through where one was stated: without the subject's own report that it stayed
    // half-open, the period ends when the stated breaker decides (it closed after the first probe).
    let run = misdeclared(breaker(2, 100, 2), breaker(2, 100, 1), stream(OPENS_THEN_PROBES));
    check(id, unreported(run), Expect::Holds);
}

/// Two calls arriving together behind a breaker that opens on one failure: call 0 fails after
/// `failing_ns`, call 1 would succeed; `bulkhead` (if any) lets one call in at a time.
fn overlapping(failing_ns: u64, bulkhead: Option<BulkheadContract>, interleave: &[u32]) -> Run {
    let trips = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent: 1,
        open_for: VDuration::from_nanos(1),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    let policy = Policy { bulkhead, ..policy(trips) };
    let failing = CallScript::new(vec![Step::new(VDuration::from_nanos(failing_ns), T)]);
    let calls = [failing, CallScript::new(vec![])].map(|call| CallScript { arrival: Some(VDuration::ZERO), ..call });
    let schedule = Schedule { interleave: interleave.to_vec(), ..Schedule::new(calls.to_vec()) };
    reference(policy, schedule)
}

#[test]
fn breaker_laws_judge_overlapping_calls_when_they_are_decided() {
    let laws = [ids::CIRCUIT_CLOSED_ADMITS, ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, ids::HALF_OPEN_PROBE_LIMIT];
    // Call 1 starts while the breaker is closed but asks for admission only after call 0's failure opened
    // it, at the same instant: its refusal is due.
    let refused = overlapping(0, None, &[]);
    assert!(refused.trace.events.iter().any(|event| matches!(event.kind, timelaw_core::EventKind::Rejected { .. })));
    // Call 1 waits in a bulkhead's queue until call 0 fails 1ns later and opens the breaker, whose open
    // period has ended when call 1 leaves the queue: it is admitted as a probe then.
    let one_at_a_time = Some(BulkheadContract::new(1, 1));
    let queued = overlapping(1, one_at_a_time, &[6, 4, 5, 5, 1, 1, 2, 2]);
    for (run, id) in laws.iter().flat_map(|id| [(&refused, *id), (&queued, *id)]) {
        let verdict = run.judge(id);
        assert!(!verdict.is_violated(), "{id}: {verdict}\n{}", Listing(&run.trace));
    }
}

/// A half-open breaker with one probe slot, freed by a cancelled probe; calls 2 and 3 arrive together and
/// call 3, which records nothing of its own until its result reopens the breaker, takes the slot first:
/// call 2 is refused. `call_3_first` places call 3's start before call 2's refusal; `refuse_3` has call 3
/// refused as well.
fn freed_slot_race(call_3_first: bool, refuse_3: bool) -> timelaw_core::Trace {
    use timelaw_core::{CallResult, CircuitState::*, ErrorKind, EventKind};
    let transition = |from, to| EventKind::CircuitTransition { from, to };
    let returned = |error| EventKind::CallEnd { result: CallResult::Err(error) };
    let rejected = EventKind::Rejected { reason: timelaw_core::Rejection::CircuitOpen };
    let mut events = vec![
        (0, 0, 0, START),
        (0, 0, 0, transition(Closed, Open)),
        (0, 0, 0, returned(ErrorKind::DeadlineExceeded)),
        (1, 1, 0, START),
        (1, 1, 0, transition(Open, HalfOpen)),
        (1, 1, 0, returned(ErrorKind::Cancelled)),
        (2, 2, 0, START),
        (2, 2, 0, rejected),
        (2, 2, 0, returned(ErrorKind::CircuitOpen)),
    ];
    let call_3: Vec<_> = if refuse_3 {
        vec![(2, 3, 0, rejected), (2, 3, 0, returned(ErrorKind::CircuitOpen))]
    } else {
        vec![(2, 3, 0, transition(HalfOpen, Open)), (2, 3, 0, returned(ErrorKind::DeadlineExceeded))]
    };
    events.insert(if call_3_first { 7 } else { 9 }, (2, 3, 0, START));
    events.extend(call_3);
    hand_built(&events)
}

#[test]
fn a_refusal_beside_a_call_that_may_have_taken_the_slot_first_is_judged_in_that_order() {
    let contract =
        timelaw_core::Contract { circuit: timelaw_core::Declared::Stated(breaker(1, 0, 1)), ..Default::default() };
    let judge = |trace| observed(contract, calls(&[&[OK], &[OK], &[OK], &[OK]]), trace);
    let id = ids::CIRCUIT_PROBE_SLOT_FREED;
    // Call 3 had started and may have passed the breaker before call 2 asked: the refusal is explained.
    check(id, judge(freed_slot_race(true, false)), Expect::Holds);
    // Call 3 started only after the refusal: the freed slot was free when call 2 asked.
    check(id, judge(freed_slot_race(false, false)), Expect::At(7));
    // Both refused: no order explains refusing call 2 with the slot free.
    check(id, judge(freed_slot_race(true, true)), Expect::At(8));
}

/// A breaker that opens on two failures of two and records late results where they land, half-open
/// `entry`: call 0 runs 15 ns and succeeds after calls 1 and 2 opened the breaker for 10 ns; call 3 fails
/// at 20 ns and call 4 asks at 21 ns. On time the breaker is half-open when call 0's success lands
/// and closes on it, so call 3's failure leaves it closed; lazily it is still open then and ignores the
/// success, call 3 is a probe that reopens it, and call 4 is refused.
fn late_success_after_the_period(entry: timelaw_core::HalfOpenEntry) -> (CircuitContract, Schedule) {
    let circuit = CircuitContract {
        window: 2,
        min_calls: 2,
        failure_percent: 100,
        open_for: VDuration::from_nanos(10),
        late_results: timelaw_core::LateResults::LandingState,
        half_open_entry: entry,
        ..CircuitContract::DEFAULT
    };
    let call = |arrival_ns: u64, step: Step| CallScript {
        arrival: Some(VDuration::from_nanos(arrival_ns)),
        ..CallScript::new(vec![step])
    };
    let calls = vec![
        call(0, Step::new(VDuration::from_nanos(15), OK)),
        call(0, Step::instant(T)),
        call(0, Step::instant(T)),
        call(20, Step::instant(T)),
        call(21, Step::instant(OK)),
    ];
    (circuit, Schedule::new(calls))
}

#[test]
fn half_open_entered_on_time_or_on_request_is_judged_as_stated() {
    use timelaw_core::{CircuitState, EventKind, HalfOpenEntry};
    let close = EventKind::CircuitTransition { from: CircuitState::HalfOpen, to: CircuitState::Closed };
    let catalogue = timelaw_laws::Catalogue::standard();
    let violated = |run: &Run| -> Vec<&str> {
        catalogue.iter().filter(|law| law.judge(&run.observation()).is_violated()).map(|law| law.id).collect()
    };
    for entry in [HalfOpenEntry::OnTime, HalfOpenEntry::OnRequest] {
        let (circuit, schedule) = late_success_after_the_period(entry);
        let run = reference(policy(circuit), schedule);
        let closed_by_call_0 = run.trace.events.iter().any(|event| event.kind == close && event.call == 0);
        assert_eq!(closed_by_call_0, entry == HalfOpenEntry::OnTime, "{entry:?}\n{}", Listing(&run.trace));
        assert_eq!(violated(&run), Vec::<&str>::new(), "{entry:?}\n{}", Listing(&run.trace));
    }
    // Each reading stated for a breaker of the other is a violation.
    let (on_time, schedule) = late_success_after_the_period(HalfOpenEntry::OnTime);
    let (lazy, _) = late_success_after_the_period(HalfOpenEntry::OnRequest);
    let claims_on_time = misdeclared(lazy, on_time, schedule.clone());
    assert_eq!(violated(&claims_on_time), [ids::CIRCUIT_CLOSES_AFTER_PROBES], "{}", Listing(&claims_on_time.trace));
    let claims_lazy = misdeclared(on_time, lazy, schedule);
    // Stated lazy, the close on call 0's late success is not due, and call 4 is dispatched while the
    // model reopened on call 3 as a probe.
    let expected = [ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED];
    assert_eq!(violated(&claims_lazy), expected, "{}", Listing(&claims_lazy.trace));
}
