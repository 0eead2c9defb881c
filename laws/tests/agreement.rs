//! Laws that agree with each other: on a subject that keeps its contract, no two laws can disagree about
//! the same sleep, whatever retry-after policy the contract states. Each case is judged by the whole
//! catalogue; the violations listed are the only ones expected (none for a correct subject, the law of the
//! broken promise for a broken one).

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Jitter, Policy};
use timelaw_core::{AboveCap, BackoffShape, Contract, JitterBounds, RetryAfterCombine, RetryAfterPolicy, Schedule};
use timelaw_laws::{ids, Catalogue, Verdict};

/// The ids of the laws `run` violates, in catalogue order.
fn violated(run: &Run) -> Vec<&'static str> {
    let catalogue = Catalogue::standard();
    let observation = run.observation();
    let laws = catalogue.iter().filter(|law| matches!(law.judge(&observation), Verdict::Violated(_)));
    laws.map(|law| law.id).collect()
}

#[track_caller]
fn check(run: Run, expect: &[&str]) {
    assert_eq!(violated(&run), expect, "trace:\n{}", Listing(&run.trace));
}

/// The naive loop's promise: up to 6 attempts, exponential from 10ms doubling, capped at 1s, no jitter,
/// delays of at least 10ms, with `policy` (and `honors_retry_after` when the policy waits for it).
fn exponential(policy: Option<(RetryAfterCombine, AboveCap)>, jitter: JitterBounds) -> Contract {
    let mut contract = promise(6, ms(10));
    contract.delays.backoff = Some(BackoffShape::Exponential { initial: ms(10), factor_milli: 2000 });
    contract.delays.jitter = Some(jitter);
    contract.rate.retry_after = policy.map(|(combine, above_cap)| RetryAfterPolicy { combine, above_cap });
    contract.rate.honors_retry_after = policy.is_some_and(|(combine, _)| combine == RetryAfterCombine::MaxWithBackoff);
    contract
}

fn correct(contract: Contract, schedule: Schedule) -> Run {
    naive(contract, Bug::None, schedule)
}

#[test]
fn every_delay_law_reads_the_retry_after_policy() {
    use AboveCap::*;
    use JitterBounds::{Full, None as Exact};
    use RetryAfterCombine::*;
    let replaces = exponential(Some((ReplacesBackoff, GiveUp)), Exact);
    // The first case: the 5ms retry-after replaces the 10ms delay (it was "expected 10ms").
    check(correct(replaces, single(&[rate_limited(5), OK])), &[]);
    // ... and the backoff does not advance: 10ms, 5ms (replaced), 20ms (delay 2, not 3).
    check(correct(replaces, single(&[T, rate_limited(5), T, OK])), &[]);
    check(correct(replaces, single(&[rate_limited(5), rate_limited(7), T, T, OK])), &[]);
    // The second case: a retry-after above the cap slept anyway is no cap, floor or jitter
    // violation; with the retry-after replacing the backoff or raising it.
    let anyway = |combine, jitter| exponential(Some((combine, SleepAnyway)), jitter);
    check(correct(anyway(MaxWithBackoff, Exact), single(&[rate_limited(2000), OK])), &[]);
    check(correct(anyway(ReplacesBackoff, Exact), single(&[rate_limited(2000), T, OK])), &[]);
    check(correct(anyway(ReplacesBackoff, Full), single(&[rate_limited(2000), T, OK])), &[]);
    check(correct(anyway(ReplacesBackoff, Full), single(&[rate_limited(3), OK])), &[]);
    // A retry-after below the floor replaces the delay: not below the minimum.
    check(correct(anyway(ReplacesBackoff, Exact), single(&[rate_limited(3), T, OK])), &[]);
    // Raised to the retry-after, within the cap.
    check(correct(exponential(Some((MaxWithBackoff, GiveUp)), Exact), single(&[rate_limited(50), T, OK])), &[]);
    check(correct(exponential(None, Exact), single(&[rate_limited(50), T, OK])), &[]);
}

#[test]
fn a_broken_subject_is_still_caught_by_the_law_of_its_promise() {
    use AboveCap::*;
    use RetryAfterCombine::*;
    let exact = JitterBounds::None;
    // Advances the backoff after a replaced delay: 10ms, 5ms, 40ms instead of 20ms.
    let replaces = exponential(Some((ReplacesBackoff, GiveUp)), exact);
    let advances = naive(replaces, Bug::AdvancesReplacedBackoff, single(&[T, rate_limited(5), T, OK]));
    check(advances, &[ids::BACKOFF_SHAPE_WITHOUT_JITTER, ids::RETRY_AFTER_AS_DECLARED]);
    // Sleeps a retry-after above the cap although the policy gives up above it.
    let gives_up = exponential(Some((ReplacesBackoff, GiveUp)), exact);
    check(correct(gives_up, single(&[rate_limited(2000), OK])), &[ids::DELAY_WITHIN_CAP, ids::RETRY_AFTER_AS_DECLARED]);
    // Ignores a retry-after it promises to wait for.
    let honors = exponential(Some((MaxWithBackoff, GiveUp)), exact);
    check(
        naive(honors, Bug::IgnoresRetryAfter, single(&[rate_limited(50), OK])),
        &[ids::BACKOFF_SHAPE_WITHOUT_JITTER, ids::RETRY_AFTER_HONORED, ids::RETRY_AFTER_AS_DECLARED],
    );
}

/// The reference with five attempts, exponential from 10ms doubling, capped at 100ms (full jitter when
/// `jittered`), honouring retry-after by `combine` and `above_cap`.
fn reference_policy(combine: RetryAfterCombine, above_cap: AboveCap, jittered: bool) -> Policy {
    let jitter = if jittered { Jitter::Full } else { Jitter::None };
    Policy {
        honor_retry_after: true,
        retry_after_policy: Some(RetryAfterPolicy { combine, above_cap }),
        jitter,
        ..Policy::new(5, Backoff::Exponential { initial: ms(10), factor: 2 }, ms(100))
    }
}

#[test]
fn the_reference_keeps_every_law_under_every_retry_after_policy() {
    let schedules = [
        single(&[rate_limited(5), T, T, OK]),
        single(&[T, rate_limited(50), rate_limited(7), T, OK]),
        single(&[rate_limited(500), T, OK]),
        single(&[T, rate_limited(100), rate_limited(101), OK]),
        calls(&[&[rate_limited(500), OK], &[T, rate_limited(3), OK]]),
    ];
    for combine in [RetryAfterCombine::MaxWithBackoff, RetryAfterCombine::ReplacesBackoff] {
        for above_cap in [AboveCap::GiveUp, AboveCap::Clamp, AboveCap::SleepAnyway] {
            for jittered in [false, true] {
                for schedule in &schedules {
                    check(reference(reference_policy(combine, above_cap, jittered), schedule.clone()), &[]);
                }
            }
        }
    }
}

#[test]
fn the_reference_claiming_another_retry_after_policy_is_caught() {
    use AboveCap::*;
    use RetryAfterCombine::*;
    let claims = |runs: Policy, combine, above_cap, schedule| {
        let policy = RetryAfterPolicy { combine, above_cap };
        claiming(runs, move |contract| contract.rate.retry_after = Some(policy), schedule)
    };
    // Raises the backoff to the retry-after but claims to replace it: slept 10ms for a 5ms retry-after.
    let raises = reference_policy(MaxWithBackoff, GiveUp, false);
    let shape = [ids::DELAY_AT_LEAST_MIN, ids::BACKOFF_SHAPE_WITHOUT_JITTER, ids::RETRY_AFTER_AS_DECLARED];
    check(claims(raises.clone(), ReplacesBackoff, GiveUp, single(&[rate_limited(5), OK])), &shape[1..]);
    // Replaces the backoff but claims to raise it: a 5ms sleep where 10ms was due.
    let replaces = reference_policy(ReplacesBackoff, GiveUp, false);
    check(claims(replaces, MaxWithBackoff, GiveUp, single(&[rate_limited(5), OK])), &shape);
    // Gives up above the cap but claims to clamp: the call owed a retry after 100ms.
    check(
        claims(raises.clone(), MaxWithBackoff, Clamp, single(&[rate_limited(500), OK])),
        &[ids::RATE_LIMITED_RETRIED_BELOW_CAP],
    );
    // Sleeps anyway but claims to give up: above the cap, and retried against the policy.
    let anyway = reference_policy(MaxWithBackoff, SleepAnyway, false);
    check(
        claims(anyway, MaxWithBackoff, GiveUp, single(&[rate_limited(500), OK])),
        &[ids::DELAY_WITHIN_CAP, ids::RETRY_AFTER_AS_DECLARED],
    );
}
