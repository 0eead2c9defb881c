//! Time-limit laws: timeout_translated_to_err, timeout_boundary_is_expired, deadline_respected,
//! cancellation_stops_work, timeout_does_not_end_stream, timeout_does_not_fire_early.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{CallScript, Contract, Event, EventKind, Outcome, RetryContract, Schedule, TieRule};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

fn policy(max_attempts: u32) -> Policy {
    Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000))
}

fn timeout(max_attempts: u32, millis: u64) -> Policy {
    Policy { attempt_timeout: Some(ms(millis)), ..policy(max_attempts) }
}

fn deadline(max_attempts: u32, millis: u64) -> Policy {
    Policy { deadline: Some(ms(millis)), ..policy(max_attempts) }
}

fn cancelled(millis: u64, outcomes: &[Outcome]) -> Schedule {
    Schedule::new(vec![CallScript { cancel_after: Some(ms(millis)), ..CallScript::outcomes(outcomes) }])
}

/// The naive loop's promise with an attempt timeout.
fn timed_promise(max_attempts: u32, millis: u64, tie: TieRule) -> Contract {
    let mut promise = promise(max_attempts, ms(10));
    promise.timing.attempt_timeout = Some(ms(millis));
    promise.timing.timeout_tie = tie;
    promise
}

#[test]
fn timeout_translated_to_err() {
    let id = ids::TIMEOUT_TRANSLATED_TO_ERR;
    check(id, reference(timeout(1, 5), single(&[HANG])), Expect::Holds);
    check(id, reference(timeout(2, 5), timed(&[(5, OK), (7, OK)])), Expect::Holds);
    check(id, reference(timeout(3, 5), single(&[HANG, OK])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[T])), Expect::NotApplicable);
    check(id, naive(timed_promise(1, 5, TieRule::Expired), Bug::SwallowsTimeout, single(&[HANG])), Expect::At(3));
    check(id, naive(timed_promise(2, 5, TieRule::Expired), Bug::SwallowsTimeout, single(&[T, HANG])), Expect::At(7));
    // An attempt dropped by an enclosing deadline did not time out: the call's Ok is not this law's business.
    let swallowed = naive(timed_promise(1, 5, TieRule::Expired), Bug::SwallowsTimeout, single(&[HANG]));
    check(id, dropped_at(swallowed, 2), Expect::Vacuous);
    // A dropped attempt after a timed-out one ends the timed-out state.
    let second = naive(timed_promise(2, 5, TieRule::Expired), Bug::SwallowsTimeout, single(&[HANG, HANG]));
    check(id, second.clone(), Expect::At(7));
    check(id, dropped_at(second, 6), Expect::Vacuous);
    // A sleep after the timed-out attempt ends no attempt: the call that then returns Ok is still judged.
    check(id, slept_before_ending(swallowed_once()), Expect::At(4));
}

fn swallowed_once() -> Run {
    naive(timed_promise(1, 5, TieRule::Expired), Bug::SwallowsTimeout, single(&[HANG]))
}

/// `run` with a 1ms sleep requested right before its last event (the rest renumbered).
fn slept_before_ending(mut run: Run) -> Run {
    let events = &mut run.trace.events;
    let last = events.len() - 1;
    let sleep = Event { kind: EventKind::SleepRequested { duration: ms(1) }, ..events[last] };
    events.insert(last, sleep);
    for (index, event) in events.iter_mut().enumerate() {
        event.seq = index as u32;
    }
    run
}

#[test]
fn timeout_boundary_is_expired() {
    let id = ids::TIMEOUT_BOUNDARY_IS_EXPIRED;
    check(id, reference(timeout(1, 10), timed(&[(10, OK)])), Expect::Holds);
    check(id, reference(timeout(2, 10), timed(&[(3, T), (10, T)])), Expect::Holds);
    check(id, reference(timeout(1, 10), timed(&[(9, OK)])), Expect::Vacuous);
    check(id, reference(timeout(1, 10), single(&[HANG])), Expect::Vacuous);
    // A hang scripted to last exactly the timeout never completes on its own: no tie to judge.
    check(id, reference(timeout(1, 10), timed(&[(10, HANG)])), Expect::Vacuous);
    let cut_by_deadline = Policy { deadline: Some(ms(5)), ..timeout(1, 10) };
    check(id, reference(cut_by_deadline, timed(&[(10, OK)])), Expect::Vacuous);
    check(id, reference(policy(1), timed(&[(10, OK)])), Expect::NotApplicable);
    check(id, naive(timed_promise(1, 10, TieRule::InnerWins), Bug::None, timed(&[(10, OK)])), Expect::Holds);
    check(id, naive(timed_promise(1, 10, TieRule::Expired), Bug::FlipsTie, timed(&[(10, T)])), Expect::At(2));
    check(id, naive(timed_promise(1, 10, TieRule::InnerWins), Bug::FlipsTie, timed(&[(10, OK)])), Expect::At(2));
    // The same cut at exactly start + timeout, made by an enclosing deadline rather than the attempt's own
    // timer (what the tokio driver records as `AttemptDropped`): the tie rule is not to blame.
    let cut = naive(timed_promise(1, 10, TieRule::InnerWins), Bug::FlipsTie, timed(&[(10, OK)]));
    check(id, dropped_at(cut, 2), Expect::Vacuous);
    let cut = naive(timed_promise(2, 10, TieRule::InnerWins), Bug::FlipsTie, timed(&[(10, T), (10, OK)]));
    check(id, cut.clone(), Expect::At(2));
    check(id, dropped_at(cut, 2), Expect::At(6));
}

#[test]
fn deadline_respected() {
    let id = ids::DEADLINE_RESPECTED;
    check(id, reference(deadline(5, 25), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(deadline(1, 30), timed(&[(20, OK)])), Expect::Holds);
    check(id, reference(deadline(1, 50), single(&[HANG])), Expect::Holds);
    check(id, reference(deadline(1, 0), single(&[OK])), Expect::Holds);
    check(id, reference(deadline(3, 1000), single(&[T, OK])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[T])), Expect::NotApplicable);
    let claims = {
        let mut promise = promise(5, ms(10));
        promise.timing.deadline = Some(ms(25));
        promise
    };
    check(id, naive(claims, Bug::None, single(&[T, T, T, T])), Expect::Holds);
    check(id, naive(claims, Bug::IgnoresDeadline, single(&[T, T, T, T])), Expect::At(13));
    check(id, naive(claims, Bug::IgnoresDeadline, timed(&[(40, OK)])), Expect::At(3));
    // The third attempt at exactly the 20ms deadline: late, unless the loop wins a tie at the deadline.
    let at_20 = {
        let mut promise = promise(5, ms(10));
        promise.timing.deadline = Some(ms(20));
        promise
    };
    let inner_wins = |mut contract: Contract| {
        contract.timing.deadline_tie = TieRule::InnerWins;
        contract
    };
    check(id, naive(at_20, Bug::IgnoresDeadline, single(&[T, T, OK])), Expect::At(9));
    check(id, naive(inner_wins(at_20), Bug::IgnoresDeadline, single(&[T, T, OK])), Expect::Holds);
    check(id, naive(inner_wins(at_20), Bug::IgnoresDeadline, single(&[T, T, T, OK])), Expect::At(13));
}

#[test]
fn cancellation_stops_work() {
    let id = ids::CANCELLATION_STOPS_WORK;
    check(id, reference(policy(3), cancelled(5, &[T])), Expect::Holds);
    check(id, reference(policy(3), cancelled(0, &[T])), Expect::Holds);
    check(id, reference(policy(3), cancelled(30, &[HANG])), Expect::Holds);
    check(id, reference(policy(3), cancelled(100, &[T, OK])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[T, OK])), Expect::Vacuous);
    check(id, naive(promise(3, ms(10)), Bug::None, cancelled(5, &[T])), Expect::NotApplicable);
    let honors = {
        let mut promise = promise(3, ms(10));
        promise.timing.honors_cancellation = true;
        promise
    };
    check(id, naive(honors, Bug::None, cancelled(15, &[T, T, OK])), Expect::Holds);
    check(id, naive(honors, Bug::IgnoresCancellation, cancelled(15, &[T, T, OK])), Expect::At(10));
    // Cancelled at 3ms during a 5ms attempt: the subject goes on to request a sleep at 3ms.
    let mut during_attempt = timed(&[(5, T), (5, OK)]);
    during_attempt.calls[0].cancel_after = Some(ms(3));
    check(id, naive(honors, Bug::IgnoresCancellation, during_attempt), Expect::At(4));
}

#[test]
fn timeout_does_not_end_stream() {
    let id = ids::TIMEOUT_DOES_NOT_END_STREAM;
    check(id, reference(timeout(1, 5), calls(&[&[HANG], &[OK]])), Expect::Holds);
    check(id, reference(timeout(1, 5), calls(&[&[OK], &[HANG], &[HANG], &[OK]])), Expect::Holds);
    check(id, reference(timeout(1, 5), single(&[HANG])), Expect::Vacuous);
    check(id, reference(timeout(1, 5), calls(&[&[T], &[OK]])), Expect::Vacuous);
    check(id, naive(timed_promise(1, 5, TieRule::Expired), Bug::None, calls(&[&[HANG], &[OK]])), Expect::NotApplicable);
    let stream = {
        let mut promise = timed_promise(1, 5, TieRule::Expired);
        promise.timing.serves_stream = true;
        promise
    };
    check(id, naive(stream, Bug::None, calls(&[&[HANG], &[OK]])), Expect::Holds);
    check(id, naive(stream, Bug::StopsAfterTimeout, calls(&[&[HANG], &[OK]])), Expect::At(3));
    check(id, naive(stream, Bug::StopsAfterTimeout, calls(&[&[OK], &[HANG], &[OK]])), Expect::At(7));
    // The next item skipped and the one after it served: the stream did not go on with the next call.
    let mut skipped = naive(stream, Bug::None, calls(&[&[HANG], &[OK], &[OK]]));
    skipped.trace.events.retain(|event| event.call != 1);
    for (index, event) in skipped.trace.events.iter_mut().enumerate() {
        event.seq = index as u32;
    }
    check(id, skipped, Expect::At(3));
    let retrying = Contract { retry: RetryContract { max_attempts: Some(2), ..stream.retry }, ..stream };
    check(id, naive(retrying, Bug::PanicsOnRetry, calls(&[&[HANG], &[OK]])), Expect::Inconclusive);
}

/// The coarse loop (timers on a 1ms grid, `late_ticks` ticks late) promising up to 3 attempts 2ms apart,
/// an attempt timeout of `timeout_ns` with `tie`, a deadline of `deadline_ns` when given, and a timer
/// granularity of 1ms; its calls start 0.5ms off the grid.
fn coarse(late_ticks: u64, timeout_ns: u64, tie: TieRule, deadline_ns: Option<u64>, steps: &[(u64, Outcome)]) -> Run {
    let mut contract = promise(3, ms(2));
    contract.retry.retry_on = Some(timelaw_core::RetryOn::ALL);
    contract.timing.attempt_timeout = Some(ns(timeout_ns));
    contract.timing.timeout_tie = tie;
    contract.timing.deadline = deadline_ns.map(ns);
    contract.timing.timer_granularity = ms(1);
    let steps = steps.iter().map(|&(nanos, outcome)| timelaw_core::Step::new(ns(nanos), outcome)).collect();
    let script = CallScript { gap_before: ns(500_000), ..CallScript::new(steps) };
    run(&Coarse, &CoarseConfig { contract, late_ticks }, Schedule::new(vec![script]))
}

fn ns(nanos: u64) -> timelaw_core::VDuration {
    timelaw_core::VDuration::from_nanos(nanos)
}

#[test]
fn timing_laws_read_the_timer_granularity() {
    use TieRule::{Expired, InnerWins};
    const MS: u64 = 1_000_000;
    let (deadline, boundary, eventually) =
        (ids::DEADLINE_RESPECTED, ids::TIMEOUT_BOUNDARY_IS_EXPIRED, ids::EVENTUALLY_SUCCEEDS);
    // A deadline of 10ms from 0.5ms fires on the 11ms tick: 0.5ms late, within the granularity.
    check(deadline, coarse(0, 100 * MS, InnerWins, Some(10 * MS), &[(30 * MS, OK)]), Expect::Holds);
    check(deadline, coarse(0, 100 * MS, InnerWins, Some(10 * MS), &[(3 * MS, T), (30 * MS, OK)]), Expect::Holds);
    // A timer a tick later than that breaks the granularity.
    check(deadline, coarse(1, 100 * MS, InnerWins, Some(10 * MS), &[(30 * MS, OK)]), Expect::At(3));
    // The same subject judged as if its timers were exact: the contract must state the granularity.
    let exact = |mut run: Run| {
        run.contract.timing.timer_granularity = timelaw_core::VDuration::ZERO;
        run
    };
    check(deadline, exact(coarse(0, 100 * MS, InnerWins, Some(10 * MS), &[(30 * MS, OK)])), Expect::At(3));
    // An attempt of 10ms + 1ns under a 10ms timeout: tokio's timer fires on the 11ms tick, after it.
    let over = &[(10 * MS + 1, F), (0, OK)];
    check(eventually, coarse(0, 10 * MS, InnerWins, None, over), Expect::Vacuous);
    check(eventually, exact(coarse(0, 10 * MS, InnerWins, None, over)), Expect::At(3));
    // Both endings retried: judged, and it succeeds.
    check(eventually, coarse(0, 10 * MS, InnerWins, None, &[(10 * MS + 1, T), (0, OK)]), Expect::Holds);
    // Exactly the timeout: the inner future wins whenever the timer fires.
    check(boundary, coarse(0, 10 * MS, InnerWins, None, &[(10 * MS, OK)]), Expect::Holds);
    // Under `Expired` only the last instant the timer may fire decides: timeout plus the granularity.
    check(boundary, coarse(0, 10 * MS, Expired, None, &[(10 * MS, OK)]), Expect::Vacuous);
    // Due at 10.5ms, fired on the 11ms tick, before the step completes at 11.5ms; a tick late, it loses.
    check(boundary, coarse(0, 10 * MS, Expired, None, &[(11 * MS, OK)]), Expect::Holds);
    check(boundary, coarse(1, 10 * MS, Expired, None, &[(11 * MS, OK)]), Expect::At(2));
}

#[test]
fn timeout_does_not_fire_early() {
    let id = ids::TIMEOUT_DOES_NOT_FIRE_EARLY;
    // Hanging attempts cut at 10ms each: on time.
    check(id, reference(timeout(2, 10), single(&[HANG, HANG])), Expect::Holds);
    check(id, reference(timeout(2, 10), single(&[T, OK])), Expect::Vacuous);
    check(id, reference(policy(2), single(&[T, OK])), Expect::NotApplicable);
    // A 25ms deadline shortens the third attempt's 10ms timeout to 5ms: cut at the deadline, on time.
    let both = Policy { deadline: Some(ms(25)), ..timeout(3, 10) };
    check(id, reference(both, single(&[HANG, HANG, HANG])), Expect::Holds);
    // The same run claiming a 20ms timeout: cut at 10ms, early.
    let longer = |contract: &mut Contract| contract.timing.attempt_timeout = Some(ms(20));
    check(id, claiming(timeout(2, 10), longer, single(&[HANG, HANG])), Expect::At(2));
    // A time limit of unstated length may cut an attempt at any instant.
    let unstated = |contract: &mut Contract| {
        contract.timing.attempt_timeout = Some(ms(20));
        contract.timing.limit_unstated = true;
    };
    check(id, claiming(timeout(2, 10), unstated, single(&[HANG, HANG])), Expect::NotApplicable);
}
