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
