//! Laws for refusing too much: circuit_closed_admits, circuit_closes_after_probes,
//! circuit_probe_slot_freed, circuit_half_open_after_cooldown (its tie rule and open shape),
//! retry_budget_admits_with_room, elapsed_limit_does_not_stop_early, deadline_does_not_stop_early,
//! time_limit_does_not_stop_retries_early,
//! rate_limited_retried_below_cap,
//! no_undeclared_rejection. Each has cases where it holds, is vacuous, is not applicable, and a broken
//! subject (in this test code) that violates it.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::Declared;
use timelaw_core::{
    AboveCap, BudgetContract, CallResult, CallScript, CircuitContract, CircuitPolicy, Contract, CooldownTie, ErrorKind,
    EventKind, Outcome, RetryAfterCombine, RetryAfterPolicy, Schedule,
};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

/// Window 4, opens at 2 results with half of them failed, open for 100ms, `probes` half-open probes.
fn breaker(min_calls: u32, probes: u32) -> CircuitContract {
    CircuitContract {
        window: 4,
        min_calls,
        failure_percent: 50,
        open_for: ms(100),
        half_open_probes: probes,
        ..CircuitContract::DEFAULT
    }
}

/// One attempt per call, behind `circuit`.
fn behind(circuit: CircuitContract) -> Policy {
    Policy { circuit: Some(circuit), ..Policy::new(1, Backoff::Constant { delay: ms(10) }, ms(1000)) }
}

/// One single-step call per `(gap before it in ms, outcome)`; a `None` outcome is a hanging call cancelled
/// after 5ms.
fn stream(calls: &[(u64, Option<Outcome>)]) -> Schedule {
    let script = |&(gap, outcome): &(u64, Option<Outcome>)| CallScript {
        gap_before: ms(gap),
        cancel_after: outcome.is_none().then_some(ms(5)),
        ..CallScript::outcomes(&[outcome.unwrap_or(HANG)])
    };
    Schedule::new(calls.iter().map(script).collect())
}

const HEALTHY: &[(u64, Option<Outcome>)] = &[(0, Some(OK)), (0, Some(OK)), (0, Some(T))];
const OPENS_THEN_REJECTS: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (0, Some(OK))];
/// Opens, probes successfully after the cooldown, then a call on the closed breaker.
const PROBE_CLOSES: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (100, Some(OK)), (0, Some(OK))];
/// Opens, a cancelled probe, then a call that takes the freed slot.
const CANCELLED_PROBE: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (100, None), (0, Some(OK))];

#[test]
fn circuit_closed_admits() {
    let id = ids::CIRCUIT_CLOSED_ADMITS;
    check(id, reference(behind(breaker(2, 1)), stream(HEALTHY)), Expect::Holds);
    check(id, reference(behind(breaker(2, 1)), stream(OPENS_THEN_REJECTS)), Expect::Holds);
    check(id, reference(behind(breaker(2, 1)), Schedule::new(vec![])), Expect::Vacuous);
    check(
        id,
        reference(Policy::new(1, Backoff::Constant { delay: ms(1) }, ms(1)), stream(HEALTHY)),
        Expect::NotApplicable,
    );
    check(id, broken_breaker(behind(breaker(2, 1)), BreakerBug::None, stream(HEALTHY)), Expect::Holds);
    check(id, broken_breaker(behind(breaker(2, 1)), BreakerBug::RejectsAll, stream(HEALTHY)), Expect::At(1));
    // Claiming a breaker that opens later than the real one: the third call is refused while closed.
    let later = |contract: &mut Contract| contract.circuit = Declared::Stated(breaker(3, 1));
    check(id, claiming(behind(breaker(2, 1)), later, stream(OPENS_THEN_REJECTS)), Expect::At(10));
    // Claiming a shorter open period: the call at 50ms is a probe the claimed breaker admits and the
    // reference refuses, a fault of the half-open laws, not of this one (the breaker is open, not closed).
    let shorter = |contract: &mut Contract| contract.circuit.stated_mut().expect("stated").open_for = ms(50);
    let early_probe: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (0, Some(T)), (50, Some(OK))];
    check(id, claiming(behind(breaker(2, 1)), shorter, stream(early_probe)), Expect::Holds);
    // Consecutive failures: two in a row open it (holds); claiming three is violated.
    let consecutive = |threshold| {
        move |contract: &mut Contract| {
            contract.circuit.stated_mut().expect("stated").policy = CircuitPolicy::ConsecutiveFailures { threshold }
        }
    };
    let full = CircuitContract { failure_percent: 100, ..breaker(2, 1) };
    check(id, claiming(behind(full), consecutive(2), stream(OPENS_THEN_REJECTS)), Expect::Holds);
    check(id, claiming(behind(full), consecutive(3), stream(OPENS_THEN_REJECTS)), Expect::At(10));
    // A time window of 1ms forgets the first failure by the second: the breaker should stay closed.
    let time_window = |contract: &mut Contract| {
        contract.circuit.stated_mut().expect("stated").policy = CircuitPolicy::TimeWindow { window: ms(1) };
    };
    let spaced: &[(u64, Option<Outcome>)] = &[(0, Some(T)), (5, Some(T)), (0, Some(OK))];
    check(id, claiming(behind(full), time_window, stream(spaced)), Expect::At(10));
}

#[test]
fn circuit_closes_after_probes() {
    let id = ids::CIRCUIT_CLOSES_AFTER_PROBES;
    check(id, reference(behind(breaker(2, 1)), stream(PROBE_CLOSES)), Expect::Holds);
    check(id, reference(behind(breaker(2, 1)), stream(OPENS_THEN_REJECTS)), Expect::Vacuous);
    check(id, reference(behind(breaker(2, 1)), stream(HEALTHY)), Expect::Vacuous);
    check(id, broken_breaker(behind(breaker(2, 1)), BreakerBug::None, stream(PROBE_CLOSES)), Expect::Holds);
    let bug = BreakerBug::StaysOpenAfterProbes;
    check(id, broken_breaker(behind(breaker(2, 1)), bug, stream(PROBE_CLOSES)), Expect::At(16));
}

#[test]
fn circuit_probe_slot_freed() {
    let id = ids::CIRCUIT_PROBE_SLOT_FREED;
    check(id, reference(behind(breaker(2, 1)), stream(CANCELLED_PROBE)), Expect::Holds);
    check(id, reference(behind(breaker(2, 1)), stream(PROBE_CLOSES)), Expect::Vacuous);
    check(id, broken_breaker(behind(breaker(2, 1)), BreakerBug::None, stream(CANCELLED_PROBE)), Expect::Holds);
    let bug = BreakerBug::KeepsCancelledProbeSlot;
    check(id, broken_breaker(behind(breaker(2, 1)), bug, stream(CANCELLED_PROBE)), Expect::At(15));
    // When the contract counts a cancelled call as a failure, the cancelled probe reopens the breaker:
    // no slot is freed, so the law has nothing to judge.
    let counts = |contract: &mut Contract| contract.circuit.stated_mut().expect("stated").counts_cancellation = true;
    check(id, claiming(behind(breaker(2, 1)), counts, stream(CANCELLED_PROBE)), Expect::Vacuous);
}

#[test]
fn cooldown_tie_and_cancellation_as_failure_move_the_model() {
    // Claiming "rejects until the open period is over": the reference's probe at exactly 100ms is a call
    // dispatched while open.
    let after_end = |contract: &mut Contract| {
        contract.circuit.stated_mut().expect("stated").cooldown_tie = CooldownTie::AdmitsAfterEnd
    };
    let id = ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH;
    check(id, reference(behind(breaker(2, 1)), stream(PROBE_CLOSES)), Expect::Vacuous);
    check(id, claiming(behind(breaker(2, 1)), after_end, stream(PROBE_CLOSES)), Expect::At(11));
    // Claiming that a cancelled call is a failure: the cancelled probe reopens the modelled breaker, and
    // the reference dispatches the next call.
    let counts = |contract: &mut Contract| contract.circuit.stated_mut().expect("stated").counts_cancellation = true;
    check(id, claiming(behind(breaker(2, 1)), counts, stream(CANCELLED_PROBE)), Expect::At(15));
}

/// A policy of `max_attempts` attempts with no delay, with `edit` applied.
fn quick(max_attempts: u32, edit: impl FnOnce(&mut Policy)) -> Policy {
    let mut policy = Policy::new(max_attempts, Backoff::Constant { delay: ms(0) }, ms(0));
    edit(&mut policy);
    policy
}

/// A policy of `max_attempts` attempts 10ms apart, capped at 1s, with `edit` applied.
fn retrying(max_attempts: u32, edit: impl FnOnce(&mut Policy)) -> Policy {
    let mut policy = Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000));
    edit(&mut policy);
    policy
}

#[test]
fn retry_budget_admits_with_room() {
    let id = ids::RETRY_BUDGET_ADMITS_WITH_ROOM;
    let budget = |min_retries| BudgetContract { min_retries, retry_percent: 0, ..BudgetContract::default() };
    let two = quick(3, |p| p.retry_budget = Some(budget(2)));
    let three_calls = calls(&[&[T, T, OK], &[T, OK], &[OK]]);
    check(id, reference(two.clone(), three_calls.clone()), Expect::Holds);
    check(id, reference(two.clone(), calls(&[&[T, OK]])), Expect::Vacuous);
    check(id, reference(quick(3, |_| ()), three_calls.clone()), Expect::NotApplicable);
    // An upper bound only (like tower's budget): not applicable.
    let bound_only = |contract: &mut Contract| contract.budget.stated_mut().expect("stated").admits = false;
    check(id, claiming(two.clone(), bound_only, three_calls.clone()), Expect::NotApplicable);
    // A budget of 2 claiming 3: the third retry is refused with room.
    let more = |contract: &mut Contract| contract.budget.stated_mut().expect("stated").min_retries = 3;
    check(id, claiming(two.clone(), more, three_calls.clone()), Expect::At(15));
    // Claiming a 1ms window: by the second call the first call's retries have left it.
    let spaced = Schedule::new(vec![
        CallScript::outcomes(&[T, T, OK]),
        CallScript { gap_before: ms(5), ..CallScript::outcomes(&[T, OK]) },
    ]);
    let window = |contract: &mut Contract| contract.budget.stated_mut().expect("stated").window = Some(ms(1));
    check(id, claiming(two, window, spaced), Expect::At(15));
}

#[test]
fn retry_budget_respected_within_its_window() {
    let id = ids::RETRY_BUDGET_RESPECTED;
    let one = |contract: &mut Contract| {
        contract.budget =
            Declared::Stated(BudgetContract { min_retries: 1, retry_percent: 0, ..BudgetContract::default() });
        contract.budget.stated_mut().expect("stated").window = Some(ms(1));
    };
    let two = quick(3, |p| {
        p.retry_budget = Some(BudgetContract { min_retries: 2, retry_percent: 0, ..BudgetContract::default() })
    });
    let spaced = |gap| {
        Schedule::new(vec![
            CallScript::outcomes(&[T, OK]),
            CallScript { gap_before: ms(gap), ..CallScript::outcomes(&[T, OK]) },
        ])
    };
    // One retry per millisecond: two calls 5ms apart keep it, two back to back do not.
    check(id, claiming(two.clone(), one, spaced(5)), Expect::Holds);
    check(id, claiming(two, one, calls(&[&[T, T, OK]])), Expect::At(9));
}

/// `run` with every call returning `Err(Transient)`: a subject that gives up with its last failure.
fn gave_up_transient(mut run: Run) -> Run {
    for event in run.trace.events.iter_mut() {
        if let EventKind::CallEnd { result } = &mut event.kind {
            *result = CallResult::Err(ErrorKind::Transient);
        }
    }
    run
}

#[test]
fn elapsed_limit_does_not_stop_early() {
    let id = ids::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY;
    let limit = |millis| retrying(4, move |p| p.retry_elapsed_max = Some(ms(millis)));
    check(id, reference(limit(1000), single(&[T, T, OK])), Expect::Holds);
    // 10ms delays: the retry at 20ms is allowed by a 20ms limit, the one at 30ms is not.
    check(id, reference(limit(20), single(&[T, T, T, OK])), Expect::Holds);
    check(id, reference(limit(1000), single(&[OK])), Expect::Vacuous);
    check(id, reference(retrying(4, |_| ()), single(&[T, OK])), Expect::NotApplicable);
    // Unknown is not absent: an unstated breaker may stop retries.
    let unstated = |contract: &mut Contract| contract.circuit = Declared::Unstated;
    check(id, claiming(limit(1000), unstated, single(&[T, OK])), Expect::NotApplicable);
    // A stated breaker or retry budget may stop retries too.
    let breaker_too = retrying(4, |p| {
        p.retry_elapsed_max = Some(ms(1000));
        p.circuit = Some(breaker(2, 1));
    });
    check(id, reference(breaker_too, single(&[T, T, OK])), Expect::NotApplicable);
    let budget_too = retrying(4, |p| {
        p.retry_elapsed_max = Some(ms(1000));
        p.retry_budget = Some(BudgetContract::default());
    });
    check(id, reference(budget_too, single(&[T, T, OK])), Expect::NotApplicable);
    // Stops at 15ms while promising 1s.
    let later = |contract: &mut Contract| contract.timing.retry_elapsed_max = Some(ms(1000));
    check(id, claiming(limit(15), later, single(&[T, T, T, OK])), Expect::At(7));
    // The same with attempts that time out after 5ms: the timeout is the retryable failure given up on.
    let timing_out = |millis| {
        retrying(4, move |p| {
            p.retry_elapsed_max = Some(ms(millis));
            p.attempt_timeout = Some(ms(5));
        })
    };
    check(id, reference(timing_out(1000), single(&[HANG, HANG, OK])), Expect::Holds);
    check(id, claiming(timing_out(15), later, single(&[HANG, HANG, HANG, OK])), Expect::At(7));
    // A deadline of 10ms: the retry would start at 10ms, at the deadline, so giving up (with the last
    // failure) is allowed; a claimed deadline of 1s owes that retry.
    let deadline = |millis| {
        retrying(4, move |p| {
            p.retry_elapsed_max = Some(ms(1000));
            p.deadline = Some(ms(millis));
        })
    };
    check(id, gave_up_transient(reference(deadline(10), single(&[T, T, OK]))), Expect::Vacuous);
    let far = |contract: &mut Contract| contract.timing.deadline = Some(ms(1000));
    check(id, gave_up_transient(claiming(deadline(10), far, single(&[T, T, OK]))), Expect::At(3));
}

#[test]
fn time_limit_does_not_stop_retries_early() {
    let id = ids::TIME_LIMIT_DOES_NOT_STOP_RETRIES_EARLY;
    let budget = |millis| retrying(4, move |p| p.sleep_budget = Some(ms(millis)));
    check(id, reference(budget(1000), single(&[T, T, OK])), Expect::Holds);
    check(id, reference(budget(1000), single(&[OK])), Expect::Vacuous);
    check(id, reference(retrying(4, |_| ()), single(&[T, OK])), Expect::NotApplicable);
    // 10ms delays under a 15ms sleep budget: the second sleep would pass it, so giving up is allowed;
    // the same run claiming a 1s budget owed that retry.
    check(id, reference(budget(15), single(&[T, T, T, OK])), Expect::Holds);
    let far_budget = |contract: &mut Contract| contract.delays.sleep_budget = Some(ms(1000));
    check(id, claiming(budget(15), far_budget, single(&[T, T, T, OK])), Expect::At(7));
    // A deadline whose check gives up with the last failure: owed under a claimed 1s deadline.
    let deadline = |millis| retrying(4, move |p| p.deadline = Some(ms(millis)));
    check(id, gave_up_transient(reference(deadline(1000), single(&[T, T, OK]))), Expect::Holds);
    let far = |contract: &mut Contract| contract.timing.deadline = Some(ms(1000));
    check(id, gave_up_transient(claiming(deadline(20), far, single(&[T, T, T, OK]))), Expect::At(7));
    // A call that reports its deadline is the deadline law's, not this one's.
    check(id, reference(deadline(20), single(&[T, T, T, OK])), Expect::Holds);
}

#[test]
fn deadline_does_not_stop_early() {
    let id = ids::DEADLINE_DOES_NOT_STOP_EARLY;
    let deadline = |millis| retrying(4, move |p| p.deadline = Some(ms(millis)));
    check(id, reference(deadline(1000), single(&[T, T, OK])), Expect::Vacuous);
    check(id, reference(retrying(4, |_| ()), single(&[T, OK])), Expect::NotApplicable);
    // A hanging attempt cut at a 25ms deadline: reported at the deadline.
    check(id, reference(deadline(25), single(&[HANG])), Expect::Holds);
    // 10ms delays under a 20ms deadline: after the second failure (at 10ms) the retry would wake at
    // 20ms, at the deadline, so reporting it then is foreseen.
    check(id, reference(deadline(20), single(&[T, T, T, OK])), Expect::Holds);
    // The same run claiming a 1s deadline: the retry at 20ms was owed.
    let far = |contract: &mut Contract| contract.timing.deadline = Some(ms(1000));
    check(id, claiming(deadline(20), far, single(&[T, T, T, OK])), Expect::At(7));
    // An attempt cut at 25ms under a claimed 1s deadline, and a deadline of 0 reported before the
    // first attempt under a claimed 1s one: early, nothing to foresee.
    check(id, claiming(deadline(25), far, single(&[HANG])), Expect::At(3));
    check(id, claiming(deadline(0), far, single(&[OK])), Expect::At(1));
    // A call cancelled by the time it returned is not judged (the interrupt tie law judges it).
    let cancelled = Schedule::new(vec![CallScript { cancel_after: Some(ms(0)), ..CallScript::outcomes(&[OK]) }]);
    check(id, claiming(deadline(0), far, cancelled), Expect::Vacuous);
}

#[test]
fn rate_limited_retried_below_cap() {
    let id = ids::RATE_LIMITED_RETRIED_BELOW_CAP;
    let honoring = retrying(3, |p| p.honor_retry_after = true);
    check(id, reference(honoring.clone(), single(&[rate_limited(500), OK])), Expect::Holds);
    check(id, reference(honoring.clone(), single(&[T, OK])), Expect::Vacuous);
    // Above the 1s cap the reference gives up, as it declares.
    check(id, reference(honoring.clone(), single(&[rate_limited(2000), OK])), Expect::Vacuous);
    let no_rate_limits = retrying(3, |p| p.retry_on.rate_limited = false);
    check(id, reference(no_rate_limits, single(&[rate_limited(5), OK])), Expect::NotApplicable);
    // Claiming it clamps a retry-after above the cap: the reference's giving up is refusing too much.
    let clamps = |contract: &mut Contract| {
        contract.rate.retry_after =
            Some(RetryAfterPolicy { combine: RetryAfterCombine::MaxWithBackoff, above_cap: AboveCap::Clamp })
    };
    check(id, claiming(honoring, clamps, single(&[rate_limited(2000), OK])), Expect::At(3));
    // A retry-after of exactly the cap is waited for, not given up on: the reference capped at 500ms gives
    // up on 1s while claiming a 1s cap.
    let capped_500 = retrying(3, |p| {
        p.honor_retry_after = true;
        p.delay_max = ms(500);
    });
    let cap_1s = |contract: &mut Contract| contract.delays.max = Some(ms(1000));
    check(id, claiming(capped_500, cap_1s, single(&[rate_limited(1000), OK])), Expect::At(3));
    // A retry-after of forever, replacing the backoff, with no cap claimed: the retry would never start,
    // so giving up owes nothing.
    let forever = Outcome::RateLimited { retry_after: timelaw_core::VDuration::MAX };
    let uncapped = |contract: &mut Contract| {
        contract.delays.max = None;
        contract.rate.retry_after =
            Some(RetryAfterPolicy { combine: RetryAfterCombine::ReplacesBackoff, above_cap: AboveCap::GiveUp })
    };
    check(id, claiming(retrying(3, |p| p.honor_retry_after = true), uncapped, single(&[forever, OK])), Expect::Vacuous);
}

#[test]
fn no_undeclared_rejection() {
    let id = ids::NO_UNDECLARED_REJECTION;
    check(id, reference(behind(breaker(2, 1)), stream(OPENS_THEN_REJECTS)), Expect::Holds);
    check(id, reference(behind(breaker(2, 1)), stream(HEALTHY)), Expect::Vacuous);
    let budget = retrying(3, |p| {
        p.retry_budget = Some(BudgetContract { min_retries: 0, retry_percent: 0, ..BudgetContract::default() })
    });
    check(id, reference(budget.clone(), single(&[T, OK])), Expect::Holds);
    // An unstated breaker is still a breaker.
    let unstated = |contract: &mut Contract| contract.circuit = Declared::Unstated;
    check(id, claiming(behind(breaker(2, 1)), unstated, stream(OPENS_THEN_REJECTS)), Expect::Holds);
    let no_breaker = |contract: &mut Contract| contract.circuit = Declared::Absent;
    check(id, claiming(behind(breaker(2, 1)), no_breaker, stream(OPENS_THEN_REJECTS)), Expect::At(10));
    let no_budget = |contract: &mut Contract| contract.budget = Declared::Absent;
    check(id, claiming(budget, no_budget, single(&[T, OK])), Expect::At(3));
    // A rate limiter's refusal, by its rejection or by the call's result alone.
    let limited = refused_after_sleep();
    check(id, limited.clone(), Expect::Holds);
    let undeclared = |mut run: Run| {
        run.contract.limiter = Declared::Absent;
        run
    };
    check(id, undeclared(limited.clone()), Expect::At(4));
    let mut by_result = undeclared(limited);
    by_result.trace.events.remove(4);
    by_result.trace.events[4].seq = 4;
    check(id, by_result, Expect::At(4));
}

#[test]
fn a_budget_counts_a_call_when_it_runs_among_calls_arriving_together() {
    // Four calls arrive together and run in the recorded order 1, 2, 3, 0: when call 2's retry is
    // refused, only calls 1 and 2 have run and deposited (2 x 25 % = no retry), not all four.
    let budget = timelaw_core::BudgetContract { min_retries: 0, retry_percent: 25, ..Default::default() };
    let policy = Policy { retry_budget: Some(budget), ..Policy::new(2, Backoff::Constant { delay: ms(0) }, ms(0)) };
    let script = |outcomes: &[timelaw_core::Outcome]| timelaw_core::CallScript {
        arrival: Some(timelaw_core::VDuration::ZERO),
        ..timelaw_core::CallScript::outcomes(outcomes)
    };
    let calls = vec![script(&[]), script(&[]), script(&[T]), script(&[])];
    let schedule = timelaw_core::Schedule { interleave: vec![5, 1, 1, 5, 4], ..timelaw_core::Schedule::new(calls) };
    let run = reference(policy, schedule);
    assert!(run.trace.events.iter().any(|event| matches!(event.kind, timelaw_core::EventKind::Rejected { .. })));
    assert_verdict(ids::RETRY_BUDGET_ADMITS_WITH_ROOM, &run, Expect::Holds);
}
