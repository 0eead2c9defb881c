//! One table of cases per mechanism of the reference interpreter and the World.

use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{
    execute, execute_with, Abort, BudgetContract, CallResult, CallScript, CircuitContract, ErrorKind, EventKind,
    LimitKind, Limits, Outcome, Randomness, RandomnessError, Rejection, RetryOn, Schedule, Scripted, Step, Trace,
    TraceEnd, VDuration, World,
};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

fn sleeps(trace: &Trace) -> Vec<u64> {
    let sleeps = trace.events.iter().filter_map(|event| match event.kind {
        EventKind::SleepRequested { duration } => Some(duration.as_millis()),
        _ => None,
    });
    sleeps.collect()
}

fn results(trace: &Trace) -> Vec<CallResult> {
    let results = trace.events.iter().filter_map(|event| match event.kind {
        EventKind::CallEnd { result } => Some(result),
        _ => None,
    });
    results.collect()
}

fn attempts(trace: &Trace) -> usize {
    trace.events.iter().filter(|event| event.kind == EventKind::AttemptStart).count()
}

fn steps(outcomes: &[Outcome]) -> Schedule {
    Schedule::new(vec![CallScript::outcomes(outcomes)])
}

const T: Outcome = Outcome::Transient;

#[track_caller]
fn check_sleeps(policy: Policy, schedule: &Schedule, expect: &[u64]) {
    let trace = execute(&Reference, &policy, schedule, 0);
    assert_eq!(sleeps(&trace), expect, "{policy:?}");
}

#[test]
fn backoff_sequences() {
    let cap = ms(1000);
    let four = steps(&[T, T, T, T]);
    check_sleeps(Policy::new(5, Backoff::Constant { delay: ms(7) }, cap), &four, &[7, 7, 7, 7]);
    check_sleeps(Policy::new(5, Backoff::Linear { initial: ms(10), step: ms(5) }, cap), &four, &[10, 15, 20, 25]);
    check_sleeps(
        Policy::new(5, Backoff::Exponential { initial: ms(100), factor: 3 }, cap),
        &four,
        &[100, 300, 900, 1000],
    );
    check_sleeps(Policy::new(3, Backoff::Exponential { initial: ms(1), factor: 1 }, cap), &four, &[1, 1]);
}

#[track_caller]
fn check_scripted(policy: Policy, script: Vec<u64>, expect: &[u64]) {
    let schedule = steps(&[T, T, T]);
    let world = World::new(&schedule, 0).with_randomness(Randomness::Scripted(Scripted::new(script)));
    let trace = execute_with(&Reference, &policy, world, Limits::default());
    assert_eq!(sleeps(&trace), expect, "{policy:?}");
}

#[test]
fn jitter_draws_from_the_worlds_randomness() {
    let base = Policy::new(4, Backoff::Constant { delay: ms(100) }, ms(100));
    let full = Policy { jitter: Jitter::Full, ..base.clone() };
    check_scripted(full, vec![0, 40_000_000, 100_000_000], &[0, 40, 100]);
    let equal = Policy { jitter: Jitter::Equal, ..base };
    check_scripted(equal, vec![0, 50_000_000, 10_000_000], &[50, 100, 60]);
    let decorrelated = Policy::new(4, Backoff::Decorrelated { initial: ms(10) }, ms(50));
    check_scripted(decorrelated, vec![30_000_000, 50_000_000, 10_000_000], &[30, 50, 10]);
}

#[test]
fn scripted_randomness_out_of_range_aborts_with_a_typed_error() {
    let policy = Policy { jitter: Jitter::Full, ..Policy::new(2, Backoff::Constant { delay: ms(10) }, ms(10)) };
    let schedule = steps(&[T]);
    let world = World::new(&schedule, 0).with_randomness(Randomness::Scripted(Scripted::new(vec![u64::MAX])));
    let trace = execute_with(&Reference, &policy, world, Limits::default());
    let expected = RandomnessError::OutOfRange { value: u64::MAX, max: 10_000_000, position: 0 };
    assert_eq!(trace.end, TraceEnd::Aborted(Abort::Randomness(expected)));
}

#[test]
fn retry_classifier() {
    let only_transient = RetryOn { transient: true, rate_limited: false, timeout: false };
    let policy = Policy { retry_on: only_transient, ..Policy::new(3, Backoff::Constant { delay: ms(1) }, ms(1)) };
    let cases = [
        (steps(&[T, Outcome::Ok]), CallResult::Ok, 2),
        (steps(&[Outcome::RateLimited { retry_after: ms(1) }]), CallResult::Err(ErrorKind::RateLimited), 1),
        (steps(&[T, Outcome::Fatal]), CallResult::Err(ErrorKind::Fatal), 2),
        (steps(&[T, T, T]), CallResult::Err(ErrorKind::Transient), 3),
    ];
    for (schedule, result, count) in cases {
        let trace = execute(&Reference, &policy, &schedule, 0);
        assert_eq!((results(&trace), attempts(&trace)), (vec![result], count), "{schedule:?}");
    }
}

#[test]
fn retry_after_is_honoured_and_never_breaks_the_cap() {
    let policy = Policy { honor_retry_after: true, ..Policy::new(3, Backoff::Constant { delay: ms(10) }, ms(100)) };
    let limited = |after| Outcome::RateLimited { retry_after: ms(after) };
    check_sleeps(policy.clone(), &steps(&[limited(40), limited(5)]), &[40, 10]);
    let trace = execute(&Reference, &policy, &steps(&[limited(101)]), 0);
    assert_eq!((results(&trace), sleeps(&trace)), (vec![CallResult::Err(ErrorKind::RateLimited)], vec![]));
    let ignoring = Policy { honor_retry_after: false, ..policy };
    check_sleeps(ignoring, &steps(&[limited(40)]), &[10]);
}

#[test]
fn deadline_cuts_attempts_and_refuses_vain_sleeps() {
    let policy = Policy { deadline: Some(ms(100)), ..Policy::new(5, Backoff::Constant { delay: ms(30) }, ms(30)) };
    // 40 + 30 + 40 = 110 > 100: the second attempt is cut at the deadline.
    let slow = Schedule::single(vec![Step::new(ms(40), T), Step::new(ms(40), T)]);
    let trace = execute(&Reference, &policy, &slow, 0);
    assert_eq!(results(&trace), vec![CallResult::Err(ErrorKind::DeadlineExceeded)]);
    assert_eq!(trace.events.last().map(|e| e.at.as_nanos()), Some(ms(100).as_nanos()));
    // 80 + 30 would wake at 110: the call gives up at 80 rather than sleep in vain.
    let late = Schedule::single(vec![Step::new(ms(80), T)]);
    let trace = execute(&Reference, &policy, &late, 0);
    assert_eq!((results(&trace), sleeps(&trace)), (vec![CallResult::Err(ErrorKind::DeadlineExceeded)], vec![]));
}

#[test]
fn cancellation_stops_work_and_deadline_wins_a_tie() {
    let policy = Policy { deadline: Some(ms(100)), ..Policy::new(5, Backoff::Constant { delay: ms(30) }, ms(30)) };
    let cancelled = |after: u64| {
        let mut call = CallScript::new(vec![Step::new(ms(10), T), Step::new(ms(500), T)]);
        call.cancel_after = Some(ms(after));
        Schedule::new(vec![call])
    };
    let during_sleep = execute(&Reference, &policy, &cancelled(20), 0);
    assert_eq!(results(&during_sleep), vec![CallResult::Err(ErrorKind::Cancelled)]);
    assert!(during_sleep.events.iter().any(|e| e.kind == EventKind::SleepCancelled));
    let during_attempt = execute(&Reference, &policy, &cancelled(60), 0);
    assert_eq!(results(&during_attempt), vec![CallResult::Err(ErrorKind::Cancelled)]);
    assert!(during_attempt.events.iter().any(|e| e.kind == EventKind::AttemptCancelled));
    let tie = execute(&Reference, &policy, &cancelled(100), 0);
    assert_eq!(results(&tie), vec![CallResult::Err(ErrorKind::DeadlineExceeded)]);
    // Cancellation checked first: the tie goes to it, on both paths; off the tie nothing changes.
    let first = Policy { interrupt_tie: timelaw_core::InterruptTie::CancellationFirst, ..policy };
    let loaded = Policy { bulkhead: Some(timelaw_core::BulkheadContract::new(4, 0)), ..first.clone() };
    for policy in [first, loaded] {
        let tie = execute(&Reference, &policy, &cancelled(100), 0);
        assert_eq!(results(&tie), vec![CallResult::Err(ErrorKind::Cancelled)], "{policy:?}");
        let later = execute(&Reference, &policy, &cancelled(101), 0);
        assert_eq!(results(&later), vec![CallResult::Err(ErrorKind::DeadlineExceeded)], "{policy:?}");
        let contract = timelaw_core::Subject::contract(&Reference, &policy);
        assert_eq!(contract.timing.interrupt_tie, Some(timelaw_core::InterruptTie::CancellationFirst));
    }
}

#[test]
fn non_idempotent_calls_are_attempted_once() {
    let policy = Policy::new(5, Backoff::Constant { delay: ms(1) }, ms(1));
    let mut call = CallScript::outcomes(&[T, Outcome::Ok]);
    call.idempotent = false;
    let trace = execute(&Reference, &policy, &Schedule::new(vec![call]), 0);
    assert_eq!((results(&trace), attempts(&trace)), (vec![CallResult::Err(ErrorKind::Transient)], 1));
}

#[test]
fn sleep_budget_bounds_the_sum_of_delays() {
    let policy = Policy { sleep_budget: Some(ms(25)), ..Policy::new(5, Backoff::Constant { delay: ms(10) }, ms(10)) };
    let trace = execute(&Reference, &policy, &steps(&[T, T, T, T]), 0);
    assert_eq!((sleeps(&trace), results(&trace)), (vec![10, 10], vec![CallResult::Err(ErrorKind::Transient)]));
}

#[test]
fn retry_budget_spans_the_calls_of_a_case() {
    let budget = BudgetContract { min_retries: 1, retry_percent: 50, ..BudgetContract::default() };
    let policy = Policy { retry_budget: Some(budget), ..Policy::new(3, Backoff::Constant { delay: ms(1) }, ms(1)) };
    let call = CallScript::outcomes(&[T, T]);
    let trace = execute(&Reference, &policy, &Schedule::new(vec![call.clone(), call]), 0);
    // Call 0: allowed 1 + 0 = 1 retry. Call 1: allowed 1 + 1 = 2 in all, 1 used: one more, then refused.
    assert_eq!(attempts(&trace), 4);
    let rejections =
        trace.events.iter().filter(|e| e.kind == EventKind::Rejected { reason: Rejection::BudgetExhausted });
    assert_eq!(rejections.count(), 2);
}

#[test]
fn failed_probe_reopens_the_circuit() {
    let circuit = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent: 100,
        open_for: ms(10),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    let policy = Policy { circuit: Some(circuit), ..Policy::new(1, Backoff::Constant { delay: ms(0) }, ms(0)) };
    let mut later = CallScript::outcomes(&[T]);
    later.gap_before = ms(10);
    let now = CallScript::outcomes(&[Outcome::Ok]);
    let schedule = Schedule::new(vec![CallScript::outcomes(&[T]), later, now]);
    let trace = execute(&Reference, &policy, &schedule, 0);
    let expected = vec![
        CallResult::Err(ErrorKind::Transient),
        CallResult::Err(ErrorKind::Transient),
        CallResult::Err(ErrorKind::CircuitOpen),
    ];
    assert_eq!(results(&trace), expected);
}

fn refined_breaker() -> CircuitContract {
    let policy = timelaw_core::CircuitPolicy::ConsecutiveFailures { threshold: 0 };
    CircuitContract { policy, ..CircuitContract::DEFAULT }
}

fn windowed_budget() -> BudgetContract {
    BudgetContract { window: Some(ms(5)), ..BudgetContract::default() }
}

#[test]
fn invalid_policies_name_the_field() {
    let cases = [
        (Policy::new(0, Backoff::Constant { delay: ms(1) }, ms(1)), "max_attempts"),
        (Policy::new(2, Backoff::Constant { delay: ms(10) }, ms(1)), "delay_max"),
        (Policy::new(2, Backoff::Exponential { initial: ms(1), factor: 0 }, ms(1)), "backoff.factor"),
        (Policy { jitter: Jitter::Full, ..Policy::new(2, Backoff::Decorrelated { initial: ms(1) }, ms(1)) }, "jitter"),
        // A run of no failures cannot open a breaker; the reference's budget spans the case.
        (
            Policy { circuit: Some(refined_breaker()), ..Policy::new(2, Backoff::Constant { delay: ms(1) }, ms(1)) },
            "circuit.policy.threshold",
        ),
        (
            Policy {
                retry_budget: Some(windowed_budget()),
                ..Policy::new(2, Backoff::Constant { delay: ms(1) }, ms(1))
            },
            "retry_budget.window",
        ),
    ];
    for (policy, field) in cases {
        assert_eq!(policy.validate().map_err(|e| e.field), Err(field), "{policy:?}");
        let trace = execute(&Reference, &policy, &steps(&[T]), 0);
        assert!(matches!(trace.end, TraceEnd::Aborted(Abort::InvalidConfig(_))), "never run: {policy:?}");
    }
    let json = r#"{"max_attempts": 0, "backoff": {"constant": {"delay": 0}}, "delay_max": 0}"#;
    let error = serde_json::from_str::<Policy>(json).map(|_| ()).map_err(|e| e.to_string());
    assert!(error.is_err_and(|text| text.contains("max_attempts")));
}

#[test]
fn world_limits_stop_runaway_subjects() {
    let policy = Policy::new(100, Backoff::Constant { delay: ms(1) }, ms(1));
    let schedule = steps(&[T; 100]);
    let limits = Limits { attempts_max: 10, ..Limits::default() };
    let trace = execute_with(&Reference, &policy, World::new(&schedule, 0), limits);
    // Still working through its 100 scripted failures: the limit cuts the run (tests/long_runs.rs).
    assert_eq!(trace.end, TraceEnd::Aborted(Abort::LongRunCut { kind: LimitKind::Attempts, limit: 10 }));
    let hang = Schedule::single(vec![Step::instant(Outcome::Hang)]);
    let trace = execute(&Reference, &policy, &hang, 0);
    assert_eq!(trace.end, TraceEnd::Aborted(Abort::Hung { call: 0, attempt: 1 }));
}

#[test]
fn durations_near_the_end_of_time_do_not_panic() {
    let policy = Policy {
        attempt_timeout: Some(VDuration::MAX),
        deadline: Some(VDuration::MAX),
        ..Policy::new(2, Backoff::Exponential { initial: VDuration::MAX, factor: 16 }, VDuration::MAX)
    };
    let schedule =
        Schedule::single(vec![Step::new(VDuration::MAX, T), Step::new(VDuration::from_nanos(u64::MAX - 1), T)]);
    let trace = execute(&Reference, &policy, &schedule, 0);
    // A timeout of `VDuration::MAX` expires at the end of time, which never comes: the attempt hangs.
    assert_eq!(trace.end, TraceEnd::Aborted(Abort::Hung { call: 0, attempt: 1 }));
}

/// `random_between` answers within its bounds, and reversed bounds are a misuse, not a silent swap.
#[test]
fn random_between_refuses_reversed_bounds() {
    use timelaw_core::Misuse;
    #[track_caller]
    fn check(low: u64, high: u64, expect: Result<Option<u64>, Abort>) {
        let schedule = Schedule::single(vec![]);
        let mut world = World::new(&schedule, 7);
        let got = world.random_between(low, high);
        match expect {
            Ok(Some(value)) => assert_eq!(got, Ok(value)),
            Ok(None) => assert!(matches!(got, Ok(value) if (low..=high).contains(&value)), "{got:?}"),
            Err(abort) => assert_eq!(got, Err(abort)),
        }
    }
    check(4, 4, Ok(Some(4)));
    check(0, u64::MAX, Ok(None));
    check(3, 9, Ok(None));
    check(9, 3, Err(Abort::Misuse(Misuse::ReversedBounds { low: 9, high: 3 })));
    check(1, 0, Err(Abort::Misuse(Misuse::ReversedBounds { low: 1, high: 0 })));
}
