//! Delay laws: delay_within_cap, delay_at_least_min, backoff_shape_without_jitter, jitter_within_bounds,
//! total_sleep_within_budget, retry_after_honored, notify_matches_sleep.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Jitter, Policy};
use timelaw_core::{BackoffShape, Contract, JitterBounds, VDuration};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

fn constant(max_attempts: u32) -> Policy {
    Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000))
}

/// Exponential from 5ms, doubling, capped at 20ms.
fn exponential(jitter: Jitter) -> Policy {
    Policy { jitter, ..Policy::new(6, Backoff::Exponential { initial: ms(5), factor: 2 }, ms(20)) }
}

fn decorrelated() -> Policy {
    Policy::new(8, Backoff::Decorrelated { initial: ms(5) }, ms(100))
}

fn honoring(policy: Policy) -> Policy {
    Policy { honor_retry_after: true, ..policy }
}

/// What the naive loop promises: exponential from 5ms, doubling, capped at `cap`, with `jitter`.
fn exp_promise(cap: VDuration, jitter: JitterBounds) -> Contract {
    Contract {
        delay_max: Some(cap),
        backoff: Some(BackoffShape::Exponential { initial: ms(5), factor_milli: 2000 }),
        jitter: Some(jitter),
        ..promise(6, ms(5))
    }
}

#[test]
fn delay_within_cap() {
    let id = ids::DELAY_WITHIN_CAP;
    check(id, reference(exponential(Jitter::None), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Full), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(900), OK])), Expect::Holds);
    check(id, reference(exponential(Jitter::None), single(&[OK])), Expect::Vacuous);
    check(
        id,
        naive(Contract { delay_max: None, ..promise(3, ms(10)) }, Bug::None, single(&[T])),
        Expect::NotApplicable,
    );
    check(id, naive(exp_promise(ms(20), JitterBounds::None), Bug::DoublesDelay, single(&[T, T, T])), Expect::At(12));
    // Constant 12ms doubled is 24ms: above a 20ms cap, but within additive jitter of 50%.
    let additive = Contract {
        backoff: Some(BackoffShape::Constant { delay: ms(12) }),
        ..exp_promise(ms(20), JitterBounds::Additive { ratio_milli: 500 })
    };
    check(id, naive(additive, Bug::DoublesDelay, single(&[T, T])), Expect::Holds);
    let plain = Contract { jitter: Some(JitterBounds::None), ..additive };
    check(id, naive(plain, Bug::DoublesDelay, single(&[T, T])), Expect::At(4));
    let tolerant = Contract { delay_tolerance: ms(4), ..plain };
    check(id, naive(tolerant, Bug::DoublesDelay, single(&[T, T])), Expect::Holds);
}

#[test]
fn delay_at_least_min() {
    let id = ids::DELAY_AT_LEAST_MIN;
    check(id, reference(constant(3), single(&[T, T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Equal), single(&[T, T, T])), Expect::Holds);
    check(id, reference(decorrelated(), single(&[T, T, T])), Expect::Holds);
    check(id, reference(constant(3), single(&[OK])), Expect::Vacuous);
    check(id, reference(exponential(Jitter::Full), single(&[T])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::ZeroSecondDelay, single(&[T, T, T])), Expect::At(8));
    let tolerant = Contract { delay_tolerance: ms(10), ..promise(3, ms(10)) };
    check(id, naive(tolerant, Bug::ZeroSecondDelay, single(&[T, T, T])), Expect::Holds);
}

#[test]
fn backoff_shape_without_jitter() {
    let id = ids::BACKOFF_SHAPE_WITHOUT_JITTER;
    check(id, reference(exponential(Jitter::None), single(&[T, T, T, T, T])), Expect::Holds);
    let linear = Policy::new(4, Backoff::Linear { initial: ms(5), step: ms(7) }, ms(15));
    check(id, reference(linear, single(&[T, T, T])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(50), T])), Expect::Holds);
    check(id, reference(exponential(Jitter::None), single(&[OK])), Expect::Vacuous);
    check(id, reference(exponential(Jitter::Full), single(&[T])), Expect::NotApplicable);
    check(id, reference(decorrelated(), single(&[T])), Expect::NotApplicable);
    check(id, naive(exp_promise(ms(20), JitterBounds::None), Bug::DoublesDelay, single(&[T])), Expect::At(4));
    let honors = Contract { honors_retry_after: true, ..promise(3, ms(10)) };
    check(id, naive(honors, Bug::None, single(&[rate_limited(50), OK])), Expect::Holds);
    check(id, naive(honors, Bug::IgnoresRetryAfter, single(&[rate_limited(50), OK])), Expect::At(4));
}

#[test]
fn jitter_within_bounds() {
    let id = ids::JITTER_WITHIN_BOUNDS;
    check(id, reference(exponential(Jitter::Full), single(&[T, T, T, T, T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Equal), single(&[T, T, T, T, T])), Expect::Holds);
    check(id, reference(decorrelated(), single(&[T, T, T, T, T, T, T])), Expect::Holds);
    check(id, reference(honoring(exponential(Jitter::Full)), single(&[rate_limited(15), T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Full), single(&[OK])), Expect::Vacuous);
    check(id, reference(decorrelated(), single(&[])), Expect::Vacuous);
    check(id, reference(exponential(Jitter::None), single(&[T])), Expect::NotApplicable);
    check(id, naive(exp_promise(ms(1000), JitterBounds::Equal), Bug::DoublesDelay, single(&[T])), Expect::At(4));
    check(id, naive(exp_promise(ms(1000), JitterBounds::Equal), Bug::ZeroSecondDelay, single(&[T, T])), Expect::At(8));
    let decorrelated_promise =
        Contract { backoff: Some(BackoffShape::Decorrelated { initial: ms(5) }), ..promise(3, ms(5)) };
    check(id, naive(decorrelated_promise, Bug::None, single(&[T])), Expect::At(4));
}

#[test]
fn total_sleep_within_budget() {
    let id = ids::TOTAL_SLEEP_WITHIN_BUDGET;
    let budgeted = Policy { sleep_budget: Some(ms(25)), ..constant(5) };
    check(id, reference(budgeted.clone(), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(budgeted.clone(), calls(&[&[T, T], &[T, T]])), Expect::Holds);
    check(id, reference(budgeted, single(&[OK])), Expect::Vacuous);
    check(id, reference(constant(5), single(&[T])), Expect::NotApplicable);
    let claims = Contract { sleep_budget: Some(ms(25)), ..promise(5, ms(10)) };
    check(id, naive(claims, Bug::None, single(&[T, T, T])), Expect::Holds);
    check(id, naive(claims, Bug::IgnoresSleepBudget, single(&[T, T, T])), Expect::At(12));
}

#[test]
fn retry_after_honored() {
    let id = ids::RETRY_AFTER_HONORED;
    check(id, reference(honoring(constant(3)), single(&[rate_limited(50), OK])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(5), OK])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[T, OK])), Expect::Vacuous);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(2000)])), Expect::Vacuous);
    check(id, reference(constant(3), single(&[rate_limited(50), OK])), Expect::NotApplicable);
    let honors = Contract { honors_retry_after: true, ..promise(3, ms(10)) };
    check(id, naive(honors, Bug::IgnoresRetryAfter, single(&[rate_limited(50), OK])), Expect::At(5));
    check(id, naive(honors, Bug::IgnoresRetryAfter, single(&[T, rate_limited(50), OK])), Expect::At(9));
}

#[test]
fn notify_matches_sleep() {
    let id = ids::NOTIFY_MATCHES_SLEEP;
    check(id, reference(constant(3), single(&[T, OK])), Expect::Holds);
    check(id, reference(exponential(Jitter::Full), single(&[T, T, T])), Expect::Holds);
    check(id, reference(constant(3), single(&[OK])), Expect::Vacuous);
    check(id, naive(promise(3, ms(10)), Bug::None, single(&[T, OK])), Expect::NotApplicable);
    let notifies = Contract { notifies: true, ..promise(3, ms(10)) };
    check(id, naive(notifies, Bug::None, single(&[T, T])), Expect::Holds);
    check(id, naive(notifies, Bug::MisannouncesDelay, single(&[T, OK])), Expect::At(4));
    check(id, naive(notifies, Bug::ForgetsToSleep, single(&[T, OK])), Expect::At(4));
}
