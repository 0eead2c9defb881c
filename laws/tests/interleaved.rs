//! The laws are safe on interleaved calls: once calls overlap, each call's events interleave with the
//! others' in the trace. A law that judges one call at a time judges a trace whose calls were moved to
//! overlap exactly as it judges the calls run one after another (same verdict, the violation at the same
//! event); the laws that look across calls (the breaker, the budget) walk the calls in time order.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{
    execute, BudgetContract, CallResult, CallScript, CircuitContract, CircuitState, Contract, Declared, ErrorKind,
    Event, EventKind, Outcome, RetryOn, Schedule, SplitMix64, Step, Subject, Trace, VInstant,
};
use timelaw_laws::catalogue::PER_CALL_LAWS;
use timelaw_laws::{ids, Catalogue, Observation, Verdict};

/// `trace` with every call moved to start at the epoch, so all calls overlap; events merged by instant,
/// then call, then their old order. Also returns each new event's old sequence number.
fn overlapped(trace: &Trace) -> (Trace, Vec<u32>) {
    let mut starts = std::collections::BTreeMap::new();
    for event in &trace.events {
        starts.entry(event.call).or_insert(event.at);
    }
    let mut moved: Vec<(Event, u32)> = trace
        .events
        .iter()
        .map(|event| {
            let at = VInstant::EPOCH.saturating_add(event.at.duration_since(starts[&event.call]));
            (Event { at, ..*event }, event.seq)
        })
        .collect();
    moved.sort_by_key(|(event, _)| (event.at, event.call, event.seq));
    let mut interleaved = Trace { events: Vec::new(), ..trace.clone() };
    let mut old = Vec::new();
    for (index, (event, seq)) in moved.into_iter().enumerate() {
        interleaved.events.push(Event { seq: index as u32, ..event });
        old.push(seq);
    }
    (interleaved, old)
}

/// Every per-call law gives `run` the same verdict on its overlapped form (the violation at the same
/// event); returns how many of the overlapped traces really interleave.
#[track_caller]
fn check_same_verdicts(run: &Run) -> bool {
    let catalogue = Catalogue::standard();
    let (interleaved, old) = overlapped(&run.trace);
    let moved = Observation { trace: &interleaved, ..run.observation() };
    for id in PER_CALL_LAWS {
        let law = catalogue.get(id).unwrap();
        let (before, after) = (law.judge(&run.observation()), law.judge(&moved));
        let same = match (&before, &after) {
            (Verdict::Violated(a), Verdict::Violated(b)) => a.event == b.event.map(|seq| old[seq as usize]),
            (Verdict::Inconclusive(_), Verdict::Inconclusive(_)) => true,
            _ => before == after,
        };
        assert!(
            same,
            "{id}: {before} in sequence, {after} overlapped\n{}\n{}",
            Listing(&run.trace),
            Listing(&interleaved)
        );
    }
    same_as_law_by_law(&catalogue, &moved);
    let reversed: Vec<&str> = catalogue.iter().rev().map(|law| law.id).collect();
    same_as_law_by_law(&catalogue.select(&reversed).unwrap(), &moved);
    timelaw_laws::temporal::calls_interleave(&interleaved.events)
}

/// A catalogue judging all its laws at once (which regroups an interleaved trace once, and knows which
/// laws read it regrouped from a table made when each law joined) gives every law the verdict the law
/// gives on its own.
#[track_caller]
fn same_as_law_by_law(catalogue: &Catalogue, observation: &Observation<'_>) {
    let mut verdicts = Vec::new();
    catalogue.judge_all(observation, &mut verdicts);
    let judged: Vec<Verdict> = catalogue.iter().map(|law| law.judge(observation)).collect();
    assert_eq!(verdicts, judged);
}

fn pick<T: Copy>(rng: &mut SplitMix64, options: &[T]) -> T {
    options[rng.below(options.len() as u64) as usize]
}

fn random_policy(rng: &mut SplitMix64) -> Policy {
    let initial = ms(pick(rng, &[0, 1, 5, 10]));
    Policy {
        max_attempts: pick(rng, &[1, 2, 3, 4]),
        delay_max: initial.saturating_add(ms(pick(rng, &[0, 5, 50]))),
        backoff: Backoff::Exponential { initial, factor: pick(rng, &[1, 2]) },
        jitter: pick(rng, &[Jitter::None, Jitter::Full]),
        retry_on: RetryOn { transient: true, rate_limited: rng.chance(1, 2), timeout: rng.chance(1, 2) },
        honor_retry_after: rng.chance(1, 2),
        attempt_timeout: rng.chance(1, 2).then(|| ms(pick(rng, &[5, 10]))),
        deadline: rng.chance(1, 2).then(|| ms(pick(rng, &[10, 30, 100]))),
        sleep_budget: rng.chance(1, 3).then(|| ms(pick(rng, &[10, 50]))),
        circuit: None,
        retry_budget: None,
        retry_elapsed_max: rng.chance(1, 3).then(|| ms(pick(rng, &[10, 30]))),
        bulkhead: None,
        limiter: None,
        hedge: None,
        ordered_results: false,
        retry_after_policy: None,
        interrupt_tie: timelaw_core::InterruptTie::DeadlineFirst,
        retry_elapsed_bound: timelaw_core::LimitBound::Inclusive,
    }
}

fn random_schedule(rng: &mut SplitMix64, policy: &Policy) -> Schedule {
    let calls = (0..2 + rng.below(3))
        .map(|_| {
            let cancel_after = rng.chance(1, 4).then(|| ms(pick(rng, &[0, 5, 10, 30])));
            let can_hang = policy.attempt_timeout.is_some() || policy.deadline.is_some() || cancel_after.is_some();
            let steps = (0..1 + rng.below(4))
                .map(|_| {
                    let outcome = match rng.below(if can_hang { 5 } else { 4 }) {
                        0 => Outcome::Ok,
                        1 => Outcome::Transient,
                        2 => Outcome::Fatal,
                        3 => Outcome::RateLimited { retry_after: ms(pick(rng, &[0, 5, 50])) },
                        _ => Outcome::Hang,
                    };
                    Step::new(ms(pick(rng, &[0, 5, 10])), outcome)
                })
                .collect();
            CallScript {
                gap_before: ms(pick(rng, &[0, 5])),
                steps,
                cancel_after,
                idempotent: rng.chance(4, 5),
                ..CallScript::new(Vec::new())
            }
        })
        .collect();
    Schedule::new(calls)
}

#[test]
fn per_call_laws_judge_overlapped_reference_calls_as_sequential_ones() {
    let mut interleaved = 0;
    for index in 0..600 {
        let mut rng = SplitMix64::new(timelaw_core::mix(0x1417, index));
        let policy = random_policy(&mut rng);
        let schedule = random_schedule(&mut rng, &policy);
        let trace = execute(&Reference, &policy, &schedule, rng.next_u64());
        let run =
            Run { contract: Reference.contract(&policy), trace, schedule, replay: None, without_wall_jumps: None };
        interleaved += u32::from(check_same_verdicts(&run));
    }
    assert!(interleaved > 300, "only {interleaved} traces interleaved");
}

#[test]
fn per_call_laws_find_the_same_violations_in_overlapped_calls() {
    let bugs = [
        Bug::ExtraAttempt,
        Bug::DoublesDelay,
        Bug::ZeroSecondDelay,
        Bug::SleepsBeforeGivingUp,
        Bug::RetriesFatal,
        Bug::AttemptAfterOk,
        Bug::SwallowsTimeout,
        Bug::SwallowsExhaustion,
        Bug::RetriesNonIdempotent,
        Bug::IgnoresCancellation,
        Bug::MisannouncesDelay,
        Bug::ForgetsToSleep,
    ];
    let mut contract = promise(3, ms(10));
    contract.timing.attempt_timeout = Some(ms(5));
    contract.timing.deadline = Some(ms(200));
    contract.timing.honors_cancellation = true;
    contract.delays.notifies = true;
    contract.retry.reports_last_result = true;
    contract.retry.respects_idempotency = true;
    contract.rate.honors_retry_after = true;
    let call = |steps: &[(u64, Outcome)], cancel_ms: Option<u64>, idempotent: bool| CallScript {
        gap_before: ms(1),
        steps: steps.iter().map(|&(millis, outcome)| Step::new(ms(millis), outcome)).collect(),
        cancel_after: cancel_ms.map(ms),
        idempotent,
        ..CallScript::new(Vec::new())
    };
    let schedule = Schedule::new(vec![
        call(&[(1, T), (2, T), (1, OK)], None, true),
        call(&[(1, F), (1, OK)], None, true),
        call(&[(1, rate_limited(12)), (1, T), (1, OK)], None, false),
        call(&[(1, HANG), (1, HANG), (1, HANG)], None, true),
        call(&[(1, T), (50, OK)], Some(12), true),
    ]);
    let catalogue = Catalogue::standard();
    let mut unbroken = Vec::new();
    for bug in bugs {
        let run = naive(contract, bug, schedule.clone());
        let violated =
            PER_CALL_LAWS.iter().any(|id| catalogue.get(id).unwrap().judge(&run.observation()).is_violated());
        if !violated {
            unbroken.push(bug);
        }
        assert!(check_same_verdicts(&run), "{bug:?}: the calls do not overlap");
    }
    assert!(unbroken.is_empty(), "these bugs break no per-call law here: {unbroken:?}");
}

/// Law `id` on `trace` under `contract` (three plain calls scheduled).
#[track_caller]
fn check_law(id: &str, contract: Contract, trace: &Trace, expect: Expect) {
    let run = Run {
        schedule: calls(&[&[OK], &[OK], &[OK], &[OK]]),
        contract,
        trace: trace.clone(),
        replay: None,
        without_wall_jumps: None,
    };
    assert!(timelaw_laws::temporal::calls_interleave(&trace.events), "the calls must overlap");
    assert_verdict(id, &run, expect);
}

/// A failure opens the breaker (window 1, open 10ms) and a call at 5ms is refused; two probes run
/// together at 11ms and both succeed, closing it; a call at 13ms flows.
fn concurrent_probes() -> Trace {
    let refused = EventKind::CallEnd { result: CallResult::Err(ErrorKind::CircuitOpen) };
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 0, 0, RETURNED_ERR),
        (5, 4, 0, START),
        (5, 4, 0, EventKind::Rejected { reason: timelaw_core::Rejection::CircuitOpen }),
        (5, 4, 0, refused),
        (11, 1, 0, START),
        (11, 1, 1, ATTEMPT),
        (11, 2, 0, START),
        (11, 2, 1, ATTEMPT),
        (12, 1, 1, SUCCEEDED),
        (12, 1, 0, RETURNED_OK),
        (12, 2, 1, SUCCEEDED),
        (12, 2, 0, RETURNED_OK),
        (13, 3, 0, START),
        (13, 3, 1, ATTEMPT),
        (14, 3, 1, SUCCEEDED),
        (14, 3, 0, RETURNED_OK),
    ])
}

fn breaker(half_open_probes: u32) -> Contract {
    let circuit = CircuitContract { open_for: ms(10), half_open_probes, ..CircuitContract::DEFAULT };
    Contract { circuit: Declared::Stated(circuit), ..Contract::default() }
}

#[test]
fn the_breaker_laws_walk_overlapping_calls_in_time_order() {
    let probes = concurrent_probes();
    check_law(ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, breaker(2), &probes, Expect::Holds);
    check_law(ids::HALF_OPEN_PROBE_LIMIT, breaker(2), &probes, Expect::Holds);
    check_law(ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN, breaker(2), &probes, Expect::Holds);
    // One probe promised: the second concurrent probe is one too many.
    check_law(ids::HALF_OPEN_PROBE_LIMIT, breaker(1), &probes, Expect::At(10));
    check_law(ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, breaker(1), &probes, Expect::Holds);
}

/// Two calls fail at once; one sleeps before its retry (the budget spends the retry at the sleep), the
/// other retries at once, right after the first one's sleep in the trace; a third call is refused a retry.
fn concurrent_retries() -> Trace {
    let rejected = EventKind::Rejected { reason: timelaw_core::Rejection::BudgetExhausted };
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 1, 1, FAILED),
        (1, 0, 1, EventKind::SleepRequested { duration: ms(5) }),
        (1, 1, 2, ATTEMPT),
        (2, 1, 2, SUCCEEDED),
        (2, 1, 0, RETURNED_OK),
        (3, 2, 0, START),
        (3, 2, 1, ATTEMPT),
        (4, 2, 1, FAILED),
        (4, 2, 1, rejected),
        (4, 2, 0, RETURNED_ERR),
        (6, 0, 2, ATTEMPT),
        (7, 0, 2, SUCCEEDED),
        (7, 0, 0, RETURNED_OK),
    ])
}

fn budget(min_retries: u32) -> Contract {
    let budget = BudgetContract { min_retries, retry_percent: 0, window: None, admits: true };
    Contract { budget: Declared::Stated(budget), ..Contract::default() }
}

#[test]
fn the_budget_laws_count_each_calls_retries_when_calls_overlap() {
    let retries = concurrent_retries();
    check_law(ids::RETRY_BUDGET_RESPECTED, budget(2), &retries, Expect::Holds);
    check_law(ids::RETRY_BUDGET_ADMITS_WITH_ROOM, budget(2), &retries, Expect::Holds);
    // A budget of one retry: the second call's retry is one too many, and the refusal had no room.
    check_law(ids::RETRY_BUDGET_RESPECTED, budget(1), &retries, Expect::At(15));
    check_law(ids::RETRY_BUDGET_ADMITS_WITH_ROOM, budget(3), &retries, Expect::At(13));
}

#[test]
fn a_result_counts_only_in_the_state_that_admitted_its_call() {
    use timelaw_core::ProbeSettle;
    use timelaw_laws::catalogue::breaker_model::{BreakerModel, BreakerSpec, Phase};
    let at = |millis| VInstant::EPOCH.saturating_add(ms(millis));
    let failed = CallResult::Err(ErrorKind::Transient);
    let model = |settle| {
        let mut contract = breaker(1);
        contract.circuit.stated_mut().unwrap().probe_settle = settle;
        BreakerModel::new(BreakerSpec::of(&contract).unwrap())
    };
    // A call admitted closed that returns after the breaker opened is no probe.
    let mut breaker = model(ProbeSettle::FailureReopens);
    assert!(breaker.admit(at(0)).is_admitted());
    let slow = breaker.epoch();
    assert!(breaker.admit(at(0)).is_admitted());
    breaker.record_admitted(failed, at(1), breaker.epoch());
    assert!(matches!(breaker.phase(), Phase::Open { .. }));
    assert!(breaker.admit(at(11)).is_admitted(), "the cooldown ended: a probe");
    breaker.record_admitted(CallResult::Ok, at(12), slow);
    assert!(matches!(breaker.phase(), Phase::HalfOpen { successes: 0, .. }), "{:?}", breaker.phase());
    // A failed probe landing at the instant its concurrent success closed the breaker reopens it, unless
    // the results settle in the order they land.
    for (settle, reopens) in [(ProbeSettle::FailureReopens, true), (ProbeSettle::ResultOrder, false)] {
        let mut breaker = model(settle);
        assert!(breaker.admit(at(0)).is_admitted());
        breaker.record_admitted(failed, at(1), breaker.epoch());
        assert!(breaker.admit(at(11)).is_admitted());
        let probes = breaker.epoch();
        breaker.record_admitted(CallResult::Ok, at(12), probes);
        assert_eq!(breaker.phase(), Phase::Closed { after_probes: true });
        breaker.record_admitted(failed, at(12), probes);
        assert_eq!(matches!(breaker.phase(), Phase::Open { .. }), reopens, "{settle:?}: {:?}", breaker.phase());
        breaker.record_admitted(failed, at(13), probes);
        assert_eq!(matches!(breaker.phase(), Phase::Open { .. }), reopens, "a later stale failure changes nothing");
    }
}

/// A failure opens the breaker (two probes allowed); at 11ms two probes run at once; at 12ms one fails
/// and the other succeeds. The subject reports the state it settles in (`settles_to`) at the second's end.
fn probes_fail_and_succeed_at_once(settles_to: CircuitState) -> Trace {
    let transition = |from, to| EventKind::CircuitTransition { from, to };
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 0, 0, transition(CircuitState::Closed, CircuitState::Open)),
        (1, 0, 0, RETURNED_ERR),
        (11, 1, 0, START),
        (11, 1, 0, transition(CircuitState::Open, CircuitState::HalfOpen)),
        (11, 1, 1, ATTEMPT),
        (11, 2, 0, START),
        (11, 2, 1, ATTEMPT),
        (12, 1, 1, FAILED),
        (12, 1, 0, RETURNED_ERR),
        (12, 2, 1, SUCCEEDED),
        (12, 2, 0, transition(CircuitState::HalfOpen, settles_to)),
        (12, 2, 0, RETURNED_OK),
    ])
}

#[test]
fn concurrent_probe_results_settle_as_the_contract_says() {
    let id = ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED;
    check_law(id, breaker(2), &probes_fail_and_succeed_at_once(CircuitState::Open), Expect::Holds);
    // The success landing after the failure closes the breaker: the failure must win.
    check_law(id, breaker(2), &probes_fail_and_succeed_at_once(CircuitState::Closed), Expect::At(14));
    let mut settles_in_order = breaker(2);
    settles_in_order.circuit.stated_mut().unwrap().probe_settle = timelaw_core::ProbeSettle::ResultOrder;
    check_law(id, settles_in_order, &probes_fail_and_succeed_at_once(CircuitState::Closed), Expect::At(14));
    // A subject that reports no transition is not judged; nor is one without a stated breaker.
    check_law(id, breaker(2), &concurrent_probes(), Expect::Vacuous);
    check_law(id, Contract::default(), &concurrent_probes(), Expect::NotApplicable);
}

/// [`concurrent_probes`] with the breaker's transitions reported: call 1's probe turns it half-open and
/// its success closes it again, after call 2's probe started beside it.
fn concurrent_probes_reported() -> Trace {
    use timelaw_core::CircuitState::{Closed, HalfOpen, Open};
    let moved = |from, to| EventKind::CircuitTransition { from, to };
    let refused = EventKind::CallEnd { result: CallResult::Err(ErrorKind::CircuitOpen) };
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 0, 0, moved(Closed, Open)),
        (1, 0, 0, RETURNED_ERR),
        (5, 4, 0, START),
        (5, 4, 0, EventKind::Rejected { reason: timelaw_core::Rejection::CircuitOpen }),
        (5, 4, 0, refused),
        (11, 1, 0, START),
        (11, 1, 0, moved(Open, HalfOpen)),
        (11, 1, 1, ATTEMPT),
        (11, 2, 0, START),
        (11, 2, 1, ATTEMPT),
        (12, 1, 1, SUCCEEDED),
        (12, 1, 0, moved(HalfOpen, Closed)),
        (12, 1, 0, RETURNED_OK),
        (12, 2, 1, SUCCEEDED),
        (12, 2, 0, RETURNED_OK),
    ])
}

#[test]
fn a_probe_beside_one_whose_success_later_closes_the_breaker_counts() {
    let probes = concurrent_probes_reported();
    check_law(ids::HALF_OPEN_PROBE_LIMIT, breaker(2), &probes, Expect::Holds);
    // Call 2's probe started while call 1's was in flight, before the breaker closed: one too many.
    check_law(ids::HALF_OPEN_PROBE_LIMIT, breaker(1), &probes, Expect::At(12));
}

/// [`concurrent_probes_reported`] and then call 3 starting after the breaker closed: no probe.
#[test]
fn a_call_after_the_reported_close_is_no_probe() {
    let mut trace = concurrent_probes_reported();
    for (at_ms, attempt, kind) in [(13, 0, START), (13, 1, ATTEMPT), (14, 1, SUCCEEDED), (14, 0, RETURNED_OK)] {
        trace.push(VInstant::EPOCH.saturating_add(ms(at_ms)), 3, attempt, kind);
    }
    check_law(ids::HALF_OPEN_PROBE_LIMIT, breaker(2), &trace, Expect::Holds);
}

/// One probe (call 1) that retries within the half-open period while call 2, beside it, is refused; the
/// probe's success closes the breaker. A probe is a call, however many attempts it makes.
#[test]
fn a_probe_that_retries_is_one_probe() {
    use timelaw_core::CircuitState::{Closed, HalfOpen, Open};
    let moved = |from, to| EventKind::CircuitTransition { from, to };
    let rejected = EventKind::Rejected { reason: timelaw_core::Rejection::CircuitOpen };
    let refused = EventKind::CallEnd { result: CallResult::Err(ErrorKind::CircuitOpen) };
    let trace = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 0, 0, moved(Closed, Open)),
        (1, 0, 0, RETURNED_ERR),
        (11, 1, 0, START),
        (11, 1, 0, moved(Open, HalfOpen)),
        (11, 1, 1, ATTEMPT),
        (11, 2, 0, START),
        (11, 2, 0, rejected),
        (11, 2, 0, refused),
        (12, 1, 1, FAILED),
        (12, 1, 2, ATTEMPT),
        (13, 1, 2, SUCCEEDED),
        (13, 1, 0, moved(HalfOpen, Closed)),
        (13, 1, 0, RETURNED_OK),
    ]);
    check_law(ids::HALF_OPEN_PROBE_LIMIT, breaker(1), &trace, Expect::Holds);
    check_law(ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, breaker(1), &trace, Expect::Holds);
}

/// [`probes_fail_and_succeed_at_once`] settling closed, then call 3 failing at 20ms and the subject
/// opening: the wrong close is found where it happened, though the state the subject ends in is right.
#[test]
fn a_wrong_settle_is_found_at_its_instant() {
    let mut trace = probes_fail_and_succeed_at_once(CircuitState::Closed);
    let opened = EventKind::CircuitTransition { from: CircuitState::Closed, to: CircuitState::Open };
    for (at_ms, attempt, kind) in [(20, 0, START), (20, 1, ATTEMPT), (21, 1, FAILED), (21, 0, opened)] {
        trace.push(VInstant::EPOCH.saturating_add(ms(at_ms)), 3, attempt, kind);
    }
    trace.push(VInstant::EPOCH.saturating_add(ms(21)), 3, 0, RETURNED_ERR);
    check_law(ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, breaker(2), &trace, Expect::At(14));
}

/// A breaker of window 2 that opens at 2 results with half of them failed, open 10 ms, one probe.
fn half_of_two() -> Contract {
    let circuit = CircuitContract {
        window: 2,
        min_calls: 2,
        failure_percent: 50,
        open_for: ms(10),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    Contract { circuit: Declared::Stated(circuit), ..Contract::default() }
}

/// Call 0 in flight from 0 ms fails at 6 ms; call 1 beside it does `beside` (instant in ms, event) with
/// no attempt and ends before 6 ms; `tail` follows (as in [`hand_built`]).
fn beside_a_failure(beside: &[(u64, EventKind)], tail: &[(u64, u32, u32, EventKind)]) -> Trace {
    let mut events = vec![(0, 0, 0, START), (0, 0, 1, ATTEMPT), (0, 1, 0, START)];
    events.extend(beside.iter().map(|&(at_ms, kind)| (at_ms, 1, 0, kind)));
    events.push((6, 0, 1, FAILED));
    events.extend_from_slice(tail);
    hand_built(&events)
}

#[test]
fn a_call_decided_at_its_end_reaches_the_breaker_unless_the_bulkhead_kept_it_out() {
    use timelaw_core::CircuitState::{Closed, HalfOpen, Open};
    let id = ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED;
    let moved = |from, to| EventKind::CircuitTransition { from, to };
    let ended = |kind| EventKind::CallEnd { result: CallResult::Err(kind) };
    // Call 1 ends at 5 ms with its deadline passed, never queued: its result counts, so call 0's failure
    // opens the breaker at 6 ms and call 2 at 20 ms is the probe whose success closes it.
    let probe_closes = [
        (6, 0, 0, moved(Closed, Open)),
        (6, 0, 0, RETURNED_ERR),
        (20, 2, 0, START),
        (20, 2, 0, moved(Open, HalfOpen)),
        (20, 2, 1, ATTEMPT),
        (21, 2, 1, SUCCEEDED),
        (21, 2, 0, moved(HalfOpen, Closed)),
        (21, 2, 0, RETURNED_OK),
    ];
    let deadline = (5, ended(ErrorKind::DeadlineExceeded));
    check_law(id, half_of_two(), &beside_a_failure(&[deadline], &probe_closes), Expect::Holds);
    // Call 1 gave up in the bulkhead's queue, or the bulkhead refused it as full: it never reached the
    // breaker. Call 0's failure is then the only result until call 2's success opens the breaker at 21 ms
    // (one of two failed), and call 3 at 31 ms is the probe.
    let opens_late = [
        (6, 0, 0, RETURNED_ERR),
        (20, 2, 0, START),
        (20, 2, 1, ATTEMPT),
        (21, 2, 1, SUCCEEDED),
        (21, 2, 0, moved(Closed, Open)),
        (21, 2, 0, RETURNED_OK),
        (31, 3, 0, START),
        (31, 3, 0, moved(Open, HalfOpen)),
        (31, 3, 1, ATTEMPT),
        (32, 3, 1, SUCCEEDED),
        (32, 3, 0, moved(HalfOpen, Closed)),
        (32, 3, 0, RETURNED_OK),
    ];
    let queued = beside_a_failure(&[(0, EventKind::Queued), deadline], &opens_late);
    check_law(id, half_of_two(), &queued, Expect::Holds);
    let full = (0, EventKind::Rejected { reason: timelaw_core::Rejection::BulkheadFull });
    let refused_as_full = beside_a_failure(&[full, (0, ended(ErrorKind::BulkheadFull))], &opens_late);
    check_law(id, half_of_two(), &refused_as_full, Expect::Holds);
}

/// Two calls overlap behind a breaker that opens on one failure; the subject opens only at the second
/// failure, 1 ms later, then probes and closes. The law judges probe results only: the late opening is
/// for the other breaker laws.
#[test]
fn the_settle_law_judges_probe_results_only() {
    use timelaw_core::CircuitState::{Closed, HalfOpen, Open};
    let moved = |from, to| EventKind::CircuitTransition { from, to };
    let trace = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 0, 0, RETURNED_ERR),
        (2, 1, 1, FAILED),
        (2, 1, 0, moved(Closed, Open)),
        (2, 1, 0, RETURNED_ERR),
        (12, 2, 0, START),
        (12, 2, 0, moved(Open, HalfOpen)),
        (12, 2, 1, ATTEMPT),
        (13, 2, 1, SUCCEEDED),
        (13, 2, 0, moved(HalfOpen, Closed)),
        (13, 2, 0, RETURNED_OK),
    ]);
    check_law(ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, breaker(1), &trace, Expect::Holds);
}
