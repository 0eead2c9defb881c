//! Attempt laws: attempts_within_max, no_sleep_after_final_attempt, exhausted_retries_return_err,
//! non_idempotent_not_retried, retry_budget_respected.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{BudgetContract, CallScript, Contract, Declared, Schedule};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

fn policy(max_attempts: u32) -> Policy {
    Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000))
}

fn budgeted(max_attempts: u32) -> Policy {
    Policy {
        retry_budget: Some(BudgetContract { min_retries: 1, retry_percent: 0, ..BudgetContract::default() }),
        ..policy(max_attempts)
    }
}

/// One call that is not idempotent.
fn not_idempotent(outcomes: &[timelaw_core::Outcome]) -> Schedule {
    Schedule::new(vec![CallScript { idempotent: false, ..CallScript::outcomes(outcomes) }])
}

fn cancelled_after(millis: u64, outcomes: &[timelaw_core::Outcome]) -> Schedule {
    Schedule::new(vec![CallScript { cancel_after: Some(ms(millis)), ..CallScript::outcomes(outcomes) }])
}

#[test]
fn attempts_within_max() {
    let id = ids::ATTEMPTS_WITHIN_MAX;
    check(id, reference(policy(3), single(&[T, T])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(policy(3), single(&[OK])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[])), Expect::Vacuous);
    check(id, naive(Contract::default(), Bug::None, single(&[T])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::None, single(&[T, T, T, T])), Expect::Holds);
    check(id, naive(promise(3, ms(10)), Bug::ExtraAttempt, single(&[T, T, T, T])), Expect::At(13));
    check(id, naive(promise(1, ms(10)), Bug::ExtraAttempt, single(&[T])), Expect::At(5));
}

#[test]
fn no_sleep_after_final_attempt() {
    let id = ids::NO_SLEEP_AFTER_FINAL_ATTEMPT;
    check(id, reference(policy(3), single(&[T, T, T])), Expect::Holds);
    check(id, reference(policy(1), single(&[T])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, F])), Expect::Holds);
    check(id, reference(policy(3), cancelled_after(5, &[T])), Expect::Holds);
    check(id, reference(policy(3), single(&[OK])), Expect::Vacuous);
    check(id, naive(Contract::default(), Bug::None, single(&[T])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::SleepsBeforeGivingUp, single(&[T, T, T])), Expect::At(12));
    check(id, naive(promise(3, ms(10)), Bug::SleepsBeforeGivingUp, single(&[T, F])), Expect::At(8));
    // A sleep after the final attempt is the violation even when another attempt follows it (the
    // mutant that drops the final-attempt check still catches a sleep before giving up, not this).
    check(id, naive(promise(3, ms(10)), Bug::ExtraAttempt, single(&[T, T, T, T])), Expect::At(12));
    // The retry the sleep waited for was refused by a declared limiter: the call did try again.
    check(id, refused_after_sleep(), Expect::Holds);
}

#[test]
fn exhausted_retries_return_err() {
    let id = ids::EXHAUSTED_RETRIES_RETURN_ERR;
    check(id, reference(policy(3), single(&[T, T, T])), Expect::Holds);
    let timeouts = Policy { attempt_timeout: Some(ms(5)), ..policy(2) };
    check(id, reference(timeouts, single(&[HANG, HANG])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, OK])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[T, T, OK])), Expect::Vacuous);
    check(id, naive(Contract::default(), Bug::None, single(&[T])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::SwallowsExhaustion, single(&[T, T, T])), Expect::At(11));
    check(id, naive(promise(1, ms(10)), Bug::SwallowsExhaustion, single(&[F])), Expect::At(3));
}

#[test]
fn non_idempotent_not_retried() {
    let id = ids::NON_IDEMPOTENT_NOT_RETRIED;
    let respects = {
        let mut promise = promise(3, ms(10));
        promise.retry.respects_idempotency = true;
        promise
    };
    check(id, reference(policy(3), not_idempotent(&[T])), Expect::Holds);
    check(id, reference(policy(3), not_idempotent(&[OK])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[T, T])), Expect::Vacuous);
    check(id, naive(promise(3, ms(10)), Bug::None, not_idempotent(&[T])), Expect::NotApplicable);
    check(id, naive(respects, Bug::None, not_idempotent(&[T])), Expect::Holds);
    check(id, naive(respects, Bug::RetriesNonIdempotent, not_idempotent(&[T])), Expect::At(5));
}

#[test]
fn retry_budget_respected() {
    let id = ids::RETRY_BUDGET_RESPECTED;
    let claims = {
        let mut promise = promise(3, ms(10));
        promise.budget =
            Declared::Stated(BudgetContract { min_retries: 1, retry_percent: 0, ..BudgetContract::default() });
        promise
    };
    check(id, reference(budgeted(3), calls(&[&[T, T], &[T]])), Expect::Holds);
    check(id, reference(budgeted(3), single(&[T])), Expect::Holds);
    check(id, reference(budgeted(3), calls(&[&[OK], &[OK]])), Expect::Vacuous);
    check(id, reference(policy(3), single(&[T, T])), Expect::NotApplicable);
    check(id, naive(claims, Bug::None, single(&[T])), Expect::Holds);
    check(id, naive(claims, Bug::None, single(&[T, T])), Expect::At(9));
}
