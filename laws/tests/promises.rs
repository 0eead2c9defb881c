//! Laws for the new promises: no_retry_after_elapsed_limit, retry_after_as_declared,
//! circuit_open_period_as_declared, interrupt_tie_as_declared, the explicit jitter range and jitter
//! clipped at the cap; and "unknown is not absent" (unstated mechanisms).

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::Declared;
use timelaw_core::{
    AboveCap, BackoffShape, CallResult, CallScript, CircuitContract, Contract, CooldownTie, ErrorKind, EventKind,
    InterruptTie, JitterBounds, OpenShape, Outcome, RetryAfterCombine, RetryAfterPolicy, Schedule, Unstated,
};
use timelaw_laws::{ids, Verdict};

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

/// A policy of `max_attempts` attempts 10ms apart, capped at 1s, with `edit` applied.
fn retrying(max_attempts: u32, edit: impl FnOnce(&mut Policy)) -> Policy {
    let mut policy = Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000));
    edit(&mut policy);
    policy
}

#[test]
fn no_retry_after_elapsed_limit() {
    let id = ids::NO_RETRY_AFTER_ELAPSED_LIMIT;
    let limit = |millis| retrying(4, move |p| p.retry_elapsed_max = Some(ms(millis)));
    check(id, reference(limit(20), single(&[T, T, T, OK])), Expect::Holds);
    check(id, reference(limit(20), single(&[OK])), Expect::Vacuous);
    check(id, reference(retrying(4, |_| ()), single(&[T, OK])), Expect::NotApplicable);
    // No limit in the subject, 15ms promised: the retry at 20ms is late.
    let promised = |contract: &mut Contract| contract.timing.retry_elapsed_max = Some(ms(15));
    check(id, claiming(retrying(4, |_| ()), promised, single(&[T, T, T, OK])), Expect::At(9));
    // With timers that may fire 5ms late, a retry planned for 15ms may start at 20ms; 4ms is not enough.
    let coarse = |granularity_ms| {
        move |contract: &mut Contract| {
            contract.timing.retry_elapsed_max = Some(ms(15));
            contract.timing.timer_granularity = ms(granularity_ms);
        }
    };
    check(id, claiming(retrying(4, |_| ()), coarse(5), single(&[T, T, OK])), Expect::Holds);
    check(id, claiming(retrying(4, |_| ()), coarse(4), single(&[T, T, OK])), Expect::At(9));
}

fn retry_after(combine: RetryAfterCombine, above_cap: AboveCap) -> impl FnOnce(&mut Contract) {
    move |contract: &mut Contract| contract.rate.retry_after = Some(RetryAfterPolicy { combine, above_cap })
}

#[test]
fn retry_after_as_declared() {
    use AboveCap::*;
    use RetryAfterCombine::*;
    let id = ids::RETRY_AFTER_AS_DECLARED;
    let honoring = retrying(3, |p| p.honor_retry_after = true);
    let ignoring = retrying(3, |_| ());
    check(id, reference(honoring.clone(), single(&[rate_limited(500), OK])), Expect::Holds);
    check(id, reference(honoring.clone(), single(&[rate_limited(5), OK])), Expect::Holds);
    check(id, reference(ignoring.clone(), single(&[rate_limited(500), OK])), Expect::Holds);
    check(id, reference(honoring.clone(), single(&[T, OK])), Expect::Vacuous);
    check(id, reference(honoring.clone(), single(&[rate_limited(2000), OK])), Expect::Vacuous);
    // The naive loop states no retry-after policy.
    check(id, naive(promise(3, ms(10)), Bug::None, single(&[rate_limited(5), OK])), Expect::NotApplicable);
    // Replaces the backoff: a 5ms retry-after is slept as the 10ms backoff.
    let replaces = retry_after(ReplacesBackoff, GiveUp);
    check(id, claiming(honoring.clone(), replaces, single(&[rate_limited(5), OK])), Expect::At(4));
    // Sleeps anyway above the cap: honoured, as long as the subject retries.
    let anyway = retry_after(MaxWithBackoff, SleepAnyway);
    check(id, claiming(honoring.clone(), anyway, single(&[rate_limited(2000), OK])), Expect::Vacuous);
    // Gives up above the cap, but the subject ignores the retry-after and retries after 10ms.
    let gives_up = retry_after(MaxWithBackoff, GiveUp);
    check(id, claiming(ignoring.clone(), gives_up, single(&[rate_limited(2000), OK])), Expect::At(4));
    // Clamps at the cap, but the subject sleeps its 10ms backoff.
    let clamps = retry_after(MaxWithBackoff, Clamp);
    check(id, claiming(ignoring, clamps, single(&[rate_limited(2000), OK])), Expect::At(4));
}

/// The naive loop with a backoff doubling from 10ms (capped at 1s) and a retry-after that replaces it,
/// with `edit` applied to its contract.
fn replacing(bug: Bug, edit: impl FnOnce(&mut Contract), schedule: Schedule) -> Run {
    let mut contract = promise(4, ms(10));
    contract.delays.min = None;
    contract.delays.backoff = Some(BackoffShape::Exponential { initial: ms(10), factor_milli: 2000 });
    let policy = RetryAfterPolicy { combine: RetryAfterCombine::ReplacesBackoff, above_cap: AboveCap::GiveUp };
    contract.rate.retry_after = Some(policy);
    edit(&mut contract);
    naive(contract, bug, schedule)
}

#[test]
fn a_replaced_delay_does_not_advance_the_backoff() {
    let id = ids::RETRY_AFTER_AS_DECLARED;
    let (keeps, advances) = (Bug::None, Bug::AdvancesReplacedBackoff);
    let as_is = |_: &mut Contract| ();
    // Slept 5ms (the retry-after), then 10ms: the first backoff delay, not the second.
    check(id, replacing(keeps, as_is, single(&[rate_limited(5), T, OK])), Expect::Holds);
    check(id, replacing(keeps, as_is, single(&[T, rate_limited(5), T, OK])), Expect::Holds);
    check(id, replacing(keeps, as_is, single(&[rate_limited(5), rate_limited(7), T, OK])), Expect::Holds);
    check(id, replacing(keeps, as_is, single(&[T, T, OK])), Expect::Vacuous);
    // Advanced anyway: 20ms after the replaced delay (event 8 is that sleep), 40ms after a backoff delay.
    check(id, replacing(advances, as_is, single(&[rate_limited(5), T, OK])), Expect::At(8));
    check(id, replacing(advances, as_is, single(&[T, rate_limited(5), T, OK])), Expect::At(12));
    // Nothing to tell apart: the retry-after ends the call, or the backoff is constant.
    check(id, replacing(advances, as_is, single(&[rate_limited(5), OK])), Expect::Holds);
    let constant = |c: &mut Contract| c.delays.backoff = Some(BackoffShape::Constant { delay: ms(10) });
    check(id, replacing(advances, constant, single(&[rate_limited(5), T, OK])), Expect::Holds);
    // Judged against the jitter range of the right delay: full jitter allows 0..=10ms, not 20ms.
    let full = |c: &mut Contract| c.delays.jitter = Some(JitterBounds::Full);
    check(id, replacing(keeps, full, single(&[rate_limited(5), T, OK])), Expect::Holds);
    check(id, replacing(advances, full, single(&[rate_limited(5), T, OK])), Expect::At(8));
    // Widened by the tolerance: 10ms either way covers the advanced 20ms.
    let tolerant = |c: &mut Contract| c.delays.tolerance = ms(10);
    check(id, replacing(advances, tolerant, single(&[rate_limited(5), T, OK])), Expect::Holds);
    // Max with the backoff advances it (10ms, then 20ms): the law asks nothing more of it.
    let max_with = |c: &mut Contract| {
        c.rate.retry_after =
            Some(RetryAfterPolicy { combine: RetryAfterCombine::MaxWithBackoff, above_cap: AboveCap::GiveUp });
        c.rate.honors_retry_after = true;
    };
    check(id, replacing(keeps, max_with, single(&[rate_limited(5), T, OK])), Expect::Holds);
    // A replaced delay is forgotten when its call ends: the next call's first attempt is no retry.
    let two_calls = calls(&[&[rate_limited(5), OK], &[OK]]);
    check(id, replacing(keeps, as_is, two_calls), Expect::Holds);
    let starts_over =
        |c: &mut Contract| c.delays.backoff = Some(BackoffShape::Exponential { initial: ms(5), factor_milli: 2000 });
    check(id, replacing(keeps, starts_over, calls(&[&[rate_limited(5), OK], &[T, OK]])), Expect::Holds);
}

/// Window 4, opens at 2 results with half of them failed, open for 100ms, one probe.
fn behind() -> Policy {
    let circuit = CircuitContract {
        window: 4,
        min_calls: 2,
        failure_percent: 50,
        open_for: ms(100),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    Policy { circuit: Some(circuit), ..Policy::new(1, Backoff::Constant { delay: ms(10) }, ms(1000)) }
}

fn stream(calls: &[(u64, Outcome)]) -> Schedule {
    Schedule::new(
        calls
            .iter()
            .map(|&(gap, outcome)| CallScript { gap_before: ms(gap), ..CallScript::outcomes(&[outcome]) })
            .collect(),
    )
}

/// Opens at 0, the probe at 100ms fails and reopens it, the next probe at 200ms succeeds.
const REOPENS: &[(u64, Outcome)] = &[(0, T), (0, T), (100, T), (100, OK)];

#[test]
fn circuit_open_period_as_declared() {
    let id = ids::CIRCUIT_OPEN_PERIOD_AS_DECLARED;
    check(id, reference(behind(), stream(REOPENS)), Expect::Holds);
    check(id, reference(behind(), stream(&[(0, OK), (0, OK)])), Expect::Vacuous);
    check(id, reference(retrying(1, |_| ()), stream(REOPENS)), Expect::NotApplicable);
    let longer = |contract: &mut Contract| contract.circuit.stated_mut().expect("stated").open_for = ms(200);
    check(id, claiming(behind(), longer, stream(REOPENS)), Expect::At(10));
    // Doubling open periods: the second one should last 200ms, the subject's lasts 100ms.
    let doubling = |contract: &mut Contract| {
        contract.circuit.stated_mut().expect("stated").open_shape =
            OpenShape::Exponential { factor_milli: 2000, max: ms(1000) }
    };
    check(id, claiming(behind(), doubling, stream(REOPENS)), Expect::At(16));
    let capped = |contract: &mut Contract| {
        contract.circuit.stated_mut().expect("stated").open_shape =
            OpenShape::Exponential { factor_milli: 2000, max: ms(100) }
    };
    check(id, claiming(behind(), capped, stream(REOPENS)), Expect::Holds);
    let strictly_after = |contract: &mut Contract| {
        contract.circuit.stated_mut().expect("stated").cooldown_tie = CooldownTie::AdmitsAfterEnd
    };
    check(id, claiming(behind(), strictly_after, stream(REOPENS)), Expect::At(10));
    // Strictly after a declared 99ms: the half-open transition at 100ms or later is after its end.
    let strictly_after_shorter = |contract: &mut Contract| {
        let circuit = contract.circuit.stated_mut().expect("stated");
        circuit.cooldown_tie = CooldownTie::AdmitsAfterEnd;
        circuit.open_for = ms(99);
    };
    check(id, claiming(behind(), strictly_after_shorter, stream(REOPENS)), Expect::Holds);
    // The successful probe at 100ms closes the breaker, which restarts the count: the next opening is a
    // first one again and lasts 100ms, also under doubling periods.
    let closes_then_reopens: &[(u64, Outcome)] = &[(0, T), (0, T), (100, OK), (0, T), (0, T), (100, OK)];
    check(id, claiming(behind(), doubling, stream(closes_then_reopens)), Expect::Holds);
}

/// One hanging call cancelled after `cancel_ms`, under a deadline of `deadline_ms`.
fn interrupted(deadline_ms: u64, cancel_ms: u64) -> (Policy, Schedule) {
    let policy = retrying(3, |p| p.deadline = Some(ms(deadline_ms)));
    let script = CallScript { cancel_after: Some(ms(cancel_ms)), ..CallScript::outcomes(&[HANG]) };
    (policy, Schedule::new(vec![script]))
}

#[test]
fn interrupt_tie_as_declared() {
    let id = ids::INTERRUPT_TIE_AS_DECLARED;
    let (policy, tie) = interrupted(10, 10);
    check(id, reference(policy.clone(), tie.clone()), Expect::Holds);
    let (policy_apart, apart) = interrupted(10, 5);
    check(id, reference(policy_apart, apart), Expect::Vacuous);
    check(id, reference(retrying(3, |_| ()), tie.clone()), Expect::NotApplicable);
    let silent = |contract: &mut Contract| contract.timing.interrupt_tie = None;
    check(id, claiming(policy.clone(), silent, tie.clone()), Expect::NotApplicable);
    let cancellation_first =
        |contract: &mut Contract| contract.timing.interrupt_tie = Some(InterruptTie::CancellationFirst);
    check(id, claiming(policy, cancellation_first, tie), Expect::At(3));
}

/// The naive loop (which does not cut an attempt at its deadline) on one hanging call with a deadline of
/// `deadline_ms` and a cancellation at `cancel_ms`, with a timer granularity of `granularity_ms` and its
/// call's result replaced by `result` when given.
fn late(deadline_ms: u64, cancel_ms: u64, granularity_ms: u64, result: Option<CallResult>) -> Run {
    let mut contract = promise(3, ms(10));
    contract.timing.deadline = Some(ms(deadline_ms));
    contract.timing.interrupt_tie = Some(InterruptTie::DeadlineFirst);
    contract.timing.timer_granularity = ms(granularity_ms);
    let script = CallScript { cancel_after: Some(ms(cancel_ms)), ..CallScript::outcomes(&[HANG]) };
    let mut run = naive(contract, Bug::None, Schedule::new(vec![script]));
    for event in run.trace.events.iter_mut() {
        if let (EventKind::CallEnd { result: ended }, Some(result)) = (&mut event.kind, result) {
            *ended = result;
        }
    }
    run
}

#[test]
fn interruptions_off_the_tie_return_the_first() {
    let id = ids::INTERRUPT_TIE_AS_DECLARED;
    let deadline = Some(CallResult::Err(ErrorKind::DeadlineExceeded));
    // Both fallen when the hang is cut by the cancellation at 20ms: the deadline at 10ms came first.
    check(id, late(10, 20, 0, None), Expect::At(3));
    check(id, late(10, 20, 0, deadline), Expect::Holds);
    check(id, late(10, 20, 5, None), Expect::At(3));
    // Timers that may fire 10ms late cannot order instants 10ms apart: not judged.
    check(id, late(10, 20, 10, None), Expect::Vacuous);
    // The cancellation came first: returned before the deadline fell, nothing to judge.
    check(id, late(20, 10, 0, None), Expect::Vacuous);
    // The reference returns at its deadline, before the cancellation falls: nothing to judge.
    let (policy, apart) = interrupted(10, 20);
    check(id, reference(policy, apart), Expect::Vacuous);
    // At an exact tie the granularity does not matter: the declared order decides.
    let cancelled = Some(CallResult::Err(ErrorKind::Cancelled));
    check(id, late(10, 10, 10, cancelled), Expect::At(3));
    check(id, late(10, 10, 10, deadline), Expect::Holds);
}

#[test]
fn interrupt_tie_violations_say_whether_it_was_a_tie() {
    #[track_caller]
    fn says(run: Run, words: &str) {
        match run.judge(ids::INTERRUPT_TIE_AS_DECLARED) {
            Verdict::Violated(violation) => assert!(violation.message.contains(words), "{}", violation.message),
            verdict => panic!("expected a violation saying {words:?}, got {verdict:?}"),
        }
    }
    says(late(10, 10, 10, Some(CallResult::Err(ErrorKind::Cancelled))), "at a tie");
    says(late(10, 20, 0, None), "fell second, not the one that fell first");
}

#[test]
fn interrupt_tie_applies_with_both_a_tie_and_a_deadline() {
    #[track_caller]
    fn applies(tie: Option<InterruptTie>, deadline_ms: Option<u64>, expected: bool) {
        let mut contract = promise(3, ms(10));
        contract.timing.interrupt_tie = tie;
        contract.timing.deadline = deadline_ms.map(ms);
        assert_eq!((timelaw_laws::catalogue::INTERRUPT_TIE_AS_DECLARED.applies)(&contract), expected);
    }
    applies(Some(InterruptTie::DeadlineFirst), Some(10), true);
    applies(Some(InterruptTie::CancellationFirst), None, false);
    applies(None, Some(10), false);
    applies(None, None, false);
}

#[test]
fn jitter_as_an_explicit_range_and_clipped_at_the_cap() {
    let id = ids::JITTER_WITHIN_BOUNDS;
    let range = |low_milli, high_milli| {
        move |contract: &mut Contract| contract.delays.jitter = Some(JitterBounds::Range { low_milli, high_milli })
    };
    // The reference without jitter sleeps exactly the 10ms base.
    check(id, claiming(retrying(3, |_| ()), range(500, 1000), single(&[T, OK])), Expect::Holds);
    check(id, claiming(retrying(3, |_| ()), range(1000, 1500), single(&[T, OK])), Expect::Holds);
    check(id, claiming(retrying(3, |_| ()), range(500, 1000), single(&[OK])), Expect::Vacuous);
    check(id, claiming(retrying(3, |_| ()), range(0, 900), single(&[T, OK])), Expect::At(4));
    check(id, claiming(retrying(3, |_| ()), range(1100, 1500), single(&[T, OK])), Expect::At(4));
    // A 20ms sleep under a claimed 10ms cap with additive jitter up to 100%: allowed unless clipped.
    let twenty = Policy::new(3, Backoff::Constant { delay: ms(20) }, ms(20));
    let additive = |clipped| {
        move |contract: &mut Contract| {
            contract.delays.max = Some(ms(10));
            contract.delays.jitter = Some(JitterBounds::Additive { ratio_milli: 1000 });
            contract.delays.jitter_clipped_at_cap = clipped;
        }
    };
    let cap = ids::DELAY_WITHIN_CAP;
    check(cap, claiming(twenty.clone(), additive(false), single(&[T, OK])), Expect::Holds);
    check(cap, claiming(twenty, additive(true), single(&[T, OK])), Expect::At(4));
}

#[test]
fn unknown_is_not_absent() {
    let id = ids::EVENTUALLY_SUCCEEDS;
    let policy = retrying(3, |_| ());
    check(id, reference(policy.clone(), single(&[T, OK])), Expect::Holds);
    let unstated = |flags: Unstated| {
        move |contract: &mut Contract| {
            if flags.circuit {
                contract.circuit = Declared::Unstated;
            }
            if flags.retry_budget {
                contract.budget = Declared::Unstated;
            }
            contract.timing.limit_unstated |= flags.time_limit;
        }
    };
    let circuit = Unstated { circuit: true, ..Unstated::default() };
    let budget = Unstated { retry_budget: true, ..Unstated::default() };
    let time = Unstated { time_limit: true, ..Unstated::default() };
    for mechanism in [circuit, budget, time] {
        check(id, claiming(policy.clone(), unstated(mechanism), single(&[T, OK])), Expect::NotApplicable);
        // The laws that need a breaker's or budget's parameters do not apply to an unstated one.
        let run = claiming(policy.clone(), unstated(mechanism), single(&[T, OK]));
        for law in [ids::CIRCUIT_CLOSED_ADMITS, ids::RETRY_BUDGET_RESPECTED, ids::RETRY_BUDGET_ADMITS_WITH_ROOM] {
            check(law, run.clone(), Expect::NotApplicable);
        }
    }
    // An elapsed-time limit may stop retries too.
    let elapsed = |contract: &mut Contract| contract.timing.retry_elapsed_max = Some(ms(1000));
    check(id, claiming(policy, elapsed, single(&[T, OK])), Expect::NotApplicable);
}

#[test]
fn an_exclusive_elapsed_limit_is_stated_and_judged() {
    use timelaw_core::LimitBound::{Exclusive, Inclusive};
    let (late, early) = (ids::NO_RETRY_AFTER_ELAPSED_LIMIT, ids::ELAPSED_LIMIT_DOES_NOT_STOP_EARLY);
    // Retries 10ms apart under a 20ms limit: the retry due at exactly 20ms is taken only when inclusive.
    let limited = |bound| retrying(4, move |p| (p.retry_elapsed_max, p.retry_elapsed_bound) = (Some(ms(20)), bound));
    let claims = |bound| move |c: &mut Contract| c.timing.retry_elapsed_bound = bound;
    let failures = || single(&[T, T, T, OK]);
    check(late, reference(limited(Inclusive), failures()), Expect::Holds);
    check(late, reference(limited(Exclusive), failures()), Expect::Holds);
    check(early, reference(limited(Inclusive), failures()), Expect::Holds);
    check(early, reference(limited(Exclusive), failures()), Expect::Holds);
    // "Stops once the elapsed time reaches 20ms" stated as inclusive: charged with giving up early
    // (the call ends at event 7); retrying at 20ms while stating it exclusive: a late retry (event 9).
    check(early, claiming(limited(Exclusive), claims(Inclusive), failures()), Expect::At(7));
    check(late, claiming(limited(Inclusive), claims(Exclusive), failures()), Expect::At(9));
}

#[test]
fn a_close_count_apart_from_the_probe_budget_is_judged() {
    let id = ids::CIRCUIT_CLOSES_AFTER_PROBES;
    // Opens after two failures (half of at least two results), open 100ms, two probes allowed.
    let two_probes = |closes_after| {
        let circuit = CircuitContract { half_open_probes: 2, closes_after, ..behind().circuit.expect("a breaker") };
        Policy { circuit: Some(circuit), ..behind() }
    };
    let (t, ok) = (Outcome::Transient, Outcome::Ok);
    // A probe succeeds, the next call fails, the one after succeeds.
    let calls = || stream(&[(0, t), (0, t), (100, ok), (0, t), (0, ok)]);
    check(id, reference(two_probes(Some(1)), calls()), Expect::Holds);
    check(id, reference(two_probes(None), calls()), Expect::Vacuous);
    // Needs both probes but claims one closes it: the second call's failure reopens the subject, while
    // the claimed breaker, closed, counts one failure of too few results and admits the last call.
    let claims_one = |contract: &mut Contract| {
        if let Some(circuit) = contract.circuit.stated_mut() {
            circuit.closes_after = Some(1);
        }
    };
    let refused = claiming(two_probes(None), claims_one, calls());
    let rejected = |e: &&timelaw_core::Event| matches!(e.kind, EventKind::Rejected { .. });
    let rejection = refused.trace.events.iter().rev().find(rejected).map(|e| e.seq);
    check(id, refused, Expect::At(rejection.expect("the last call is rejected")));
}
