//! Outcome laws: success_ends_call, fatal_not_retried, result_matches_last_attempt, eventually_succeeds.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{CallScript, Contract, EventKind, RetryContract, RetryOn, Schedule, TieRule, VDuration};

const SLEPT: EventKind = EventKind::SleepRequested { duration: VDuration::from_millis(10) };
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

fn script(outcomes: &[timelaw_core::Outcome], edit: impl FnOnce(&mut CallScript)) -> Schedule {
    let mut call = CallScript::outcomes(outcomes);
    edit(&mut call);
    Schedule::new(vec![call])
}

#[test]
fn success_ends_call() {
    let id = ids::SUCCESS_ENDS_CALL;
    check(id, reference(policy(3), single(&[T, OK])), Expect::Holds);
    check(id, reference(policy(3), single(&[])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, T, T])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[F])), Expect::Vacuous);
    check(id, naive(promise(3, ms(10)), Bug::AttemptAfterOk, single(&[OK])), Expect::At(3));
    check(id, naive(promise(3, ms(10)), Bug::AttemptAfterOk, single(&[T, OK])), Expect::At(7));
    // Hand-built: a sleep after the success, and an Err returned after it, are each violations.
    let one_call = single(&[OK]);
    let slept = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 0, 1, SUCCEEDED),
        (0, 0, 1, SLEPT),
        (10, 0, 1, RETURNED_OK),
    ]);
    check(id, observed(promise(3, ms(10)), one_call.clone(), slept), Expect::At(3));
    let lost = hand_built(&[(0, 0, 0, START), (0, 0, 1, ATTEMPT), (0, 0, 1, SUCCEEDED), (0, 0, 1, RETURNED_ERR)]);
    check(id, observed(promise(3, ms(10)), one_call, lost), Expect::At(3));
}

#[test]
fn fatal_not_retried() {
    let id = ids::FATAL_NOT_RETRIED;
    check(id, reference(policy(3), single(&[F, OK])), Expect::Holds);
    check(id, reference(policy(3), calls(&[&[T, F], &[F]])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, OK])), Expect::Vacuous);
    check(id, naive(Contract::default(), Bug::None, single(&[F])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::RetriesFatal, single(&[F, OK])), Expect::At(5));
    check(id, naive(promise(3, ms(10)), Bug::RetriesFatal, calls(&[&[OK], &[T, F, OK]])), Expect::At(13));
}

#[test]
fn result_matches_last_attempt() {
    let id = ids::RESULT_MATCHES_LAST_ATTEMPT;
    let reports = {
        let mut promise = promise(1, ms(10));
        promise.retry.reports_last_result = true;
        promise.timing.attempt_timeout = Some(ms(5));
        promise
    };
    check(id, reference(policy(3), single(&[T, F])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, T, T])), Expect::Holds);
    check(id, reference(timeout(1, 5), single(&[HANG])), Expect::Holds);
    check(id, reference(policy(3), script(&[T], |call| call.cancel_after = Some(ms(0)))), Expect::Vacuous);
    check(id, reference(policy(3), script(&[T], |call| call.cancel_after = Some(ms(5)))), Expect::Vacuous);
    check(id, naive(promise(3, ms(10)), Bug::None, single(&[T])), Expect::NotApplicable);
    check(
        id,
        naive(
            Contract { retry: RetryContract { max_attempts: Some(3), ..reports.retry }, ..reports },
            Bug::ReportsFirstError,
            single(&[T, F]),
        ),
        Expect::At(7),
    );
    check(id, naive(reports, Bug::SwallowsTimeout, single(&[HANG])), Expect::At(3));
    // The same cut made by an enclosing deadline: the attempt gave no result, so the call is not judged.
    check(id, dropped_at(naive(reports, Bug::SwallowsTimeout, single(&[HANG])), 2), Expect::Vacuous);
    // A retry refused by a stated limiter: the call returns the refusal, which is not judged.
    check(id, refused_after_sleep(), Expect::Vacuous);
}

#[test]
fn eventually_succeeds() {
    let id = ids::EVENTUALLY_SUCCEEDS;
    check(id, reference(policy(3), single(&[T, T])), Expect::Holds);
    check(id, reference(policy(3), single(&[rate_limited(5), T, OK])), Expect::Holds);
    // A stated limiter may refuse the retry: the law does not apply.
    check(id, refused_after_sleep(), Expect::NotApplicable);
    // Honoring a retry-after within the cap, the call must still succeed.
    let honors = Policy { honor_retry_after: true, ..policy(3) };
    check(id, reference(honors, single(&[rate_limited(5), OK])), Expect::Holds);
    check(id, reference(timeout(3, 5), single(&[HANG, OK])), Expect::Holds);
    check(id, reference(timeout(2, 10), timed(&[(10, OK), (9, OK)])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, T, T])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[F, OK])), Expect::Vacuous);
    check(id, reference(timeout(1, 10), timed(&[(10, OK)])), Expect::Vacuous);
    let no_transient = Policy { retry_on: RetryOn { transient: false, ..RetryOn::ALL }, ..policy(3) };
    check(id, reference(no_transient, single(&[T, OK])), Expect::Vacuous);
    check(id, reference(policy(3), script(&[T], |call| call.idempotent = false)), Expect::Vacuous);
    check(id, reference(policy(3), script(&[T], |call| call.cancel_after = Some(ms(100)))), Expect::Vacuous);
    check(id, reference(Policy { deadline: Some(ms(100)), ..policy(3) }, single(&[T])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::GivesUpEarly, single(&[T, T])), Expect::At(7));
    let stream = {
        let mut promise = promise(1, ms(10));
        promise.timing.attempt_timeout = Some(ms(5));
        promise
    };
    check(id, naive(stream, Bug::StopsAfterTimeout, calls(&[&[HANG], &[OK]])), Expect::At(3));
    check(id, naive(promise(3, ms(10)), Bug::PanicsOnRetry, single(&[T, OK])), Expect::Inconclusive);
    // An attempt lasting exactly its timeout under "the inner result wins the tie" succeeds, so the call
    // must succeed even with one attempt and timeouts not retried.
    let inner_wins = {
        let mut promise = promise(1, ms(10));
        promise.timing.attempt_timeout = Some(ms(10));
        promise.timing.timeout_tie = TieRule::InnerWins;
        promise.retry.retry_on = Some(RetryOn { timeout: false, ..RetryOn::ALL });
        promise
    };
    check(id, naive(inner_wins, Bug::None, timed(&[(10, OK)])), Expect::Holds);
    // A cancelled call need not succeed, even an idempotent one whose script would.
    let cancelled = script(&[OK], |call| call.cancel_after = Some(ms(0)));
    check(id, reference(policy(3), cancelled), Expect::Vacuous);
}
