//! Edges of the reference interpreter that no other suite pinned down (each case here kills a mutant
//! `bash .ci/mutants reference` found alive): its name, the contract it states, and calls that end before
//! or at a boundary.

use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{
    execute, BudgetContract, BulkheadContract, CallResult, CallScript, CircuitContract, CircuitPolicy, ClockFaults,
    ClockKind, Contract, CooldownTie, ErrorKind, EventKind, FailFrom, HedgeContract, LimiterContract, OpenShape,
    Outcome, ReadFailure, Schedule, Step, Subject, VDuration,
};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// Four attempts of exponential backoff from 10 ms (doubling), capped at 1 s.
fn policy() -> Policy {
    Policy::new(4, Backoff::Exponential { initial: ms(10), factor: 2 }, ms(1000))
}

/// What a contract promises about the retries, in one tuple: max attempts, smallest and largest delay.
/// (One place reads the contract's fields, so a regrouped `Contract` changes one line here.)
fn promises(contract: &Contract) -> (Option<u32>, Option<VDuration>, Option<VDuration>) {
    (contract.retry.max_attempts, contract.delays.min, contract.delays.max)
}

#[track_caller]
fn check_contract(jitter: Jitter, expect: (Option<u32>, Option<VDuration>, Option<VDuration>)) {
    let contract = Reference.contract(&Policy { jitter, ..policy() });
    assert_eq!(promises(&contract), expect, "{jitter:?}");
}

#[test]
fn the_contract_states_the_policy() {
    assert_eq!(Reference.name(), "reference");
    check_contract(Jitter::None, (Some(4), Some(ms(10)), Some(ms(1000))));
    check_contract(Jitter::Full, (Some(4), None, Some(ms(1000))));
    check_contract(Jitter::Equal, (Some(4), Some(ms(5)), Some(ms(1000))));
}

#[test]
fn the_contract_states_the_breakers_refinements_and_the_references_own_budget() {
    // The breaker implements every refinement, so the contract states them as configured; a hand-edited
    // config may carry a budget's window (`Policy::validate` refuses it): the contract still states the
    // reference's budget over the whole case, which admits.
    let refined = CircuitContract {
        policy: CircuitPolicy::ConsecutiveFailures { threshold: 3 },
        open_shape: OpenShape::Exponential { factor_milli: 2_000, max: ms(5_000) },
        cooldown_tie: CooldownTie::AdmitsAfterEnd,
        counts_cancellation: true,
        ..CircuitContract::DEFAULT
    };
    let budget = BudgetContract { min_retries: 1, retry_percent: 20, window: Some(ms(10)), admits: false };
    let policy = Policy { circuit: Some(refined), retry_budget: Some(budget), ..policy() };
    let contract = Reference.contract(&policy);
    assert_eq!(contract.circuit.stated(), Some(&refined));
    assert_eq!(contract.budget.stated(), Some(&BudgetContract { window: None, admits: true, ..budget }));
}

/// Runs `policy` on one call and checks the attempts dispatched and the call's result.
#[track_caller]
fn check(policy: Policy, schedule: Schedule, attempts: usize, result: CallResult) {
    let trace = execute(&Reference, &policy, &schedule, 0);
    let started = trace.events.iter().filter(|event| event.kind == EventKind::AttemptStart).count();
    let ended = trace.events.iter().find_map(|event| match event.kind {
        EventKind::CallEnd { result } => Some(result),
        _ => None,
    });
    assert_eq!((started, ended), (attempts, Some(result)), "{policy:?}");
}

/// One call of these steps, each taking `millis` before its outcome.
fn steps(steps: &[(u64, Outcome)]) -> Schedule {
    Schedule::single(steps.iter().map(|&(millis, outcome)| Step::new(ms(millis), outcome)).collect())
}

/// `schedule` with the monotonic clock failing once after `reads` good reads.
fn read_fails_after(reads: u32, schedule: Schedule) -> Schedule {
    let failure = ReadFailure { clock: ClockKind::Monotonic, from: FailFrom::AfterReads(reads), count: 1 };
    schedule.with_clock(ClockFaults { wall_jumps: vec![], read_failures: vec![failure] })
}

const T: Outcome = Outcome::Transient;
const OK: Outcome = Outcome::Ok;
const DEADLINE: CallResult = CallResult::Err(ErrorKind::DeadlineExceeded);
const TRANSIENT: CallResult = CallResult::Err(ErrorKind::Transient);

#[test]
fn calls_end_at_their_boundaries() {
    let deadline = |millis| Policy { deadline: Some(ms(millis)), ..policy() };
    let sleep_budget = |millis| Policy { sleep_budget: Some(ms(millis)), ..policy() };
    let elapsed_max = |millis| Policy { retry_elapsed_max: Some(ms(millis)), ..policy() };
    let timeout_and_deadline = |timeout_ms, deadline_ms| Policy {
        attempt_timeout: Some(ms(timeout_ms)),
        deadline: Some(ms(deadline_ms)),
        ..policy()
    };
    // A deadline of zero has passed when the call starts: no attempt is dispatched.
    check(deadline(0), steps(&[(0, T)]), 0, DEADLINE);
    check(deadline(1), steps(&[(0, T), (0, T)]), 1, DEADLINE);
    // A first delay of 10 ms fits a sleep budget of exactly 10 ms, and not one of 9 ms.
    check(sleep_budget(10), steps(&[(0, T), (0, OK)]), 2, CallResult::Ok);
    check(sleep_budget(9), steps(&[(0, T), (0, OK)]), 1, TRANSIENT);
    // A retry that would start exactly at the elapsed-time limit still starts; one past it does not.
    check(elapsed_max(10), steps(&[(0, T), (0, OK)]), 2, CallResult::Ok);
    check(elapsed_max(9), steps(&[(0, T), (0, OK)]), 1, TRANSIENT);
    // An attempt cut by the deadline (not by its own, longer or equal, timeout) ends the call at once,
    // without reading the clock again: a failing read after the cut changes nothing.
    for timeout_ms in [50, 100] {
        let cut = read_fails_after(1, steps(&[(200, T)]));
        check(timeout_and_deadline(timeout_ms, 50), cut, 1, DEADLINE);
    }
    // Cut by its own shorter timeout, the attempt is retried.
    check(timeout_and_deadline(30, 1000), steps(&[(200, T), (0, OK)]), 2, CallResult::Ok);
    // A retry-after of exactly the cap is honoured; one past it makes the call give up.
    let honoring = Policy { honor_retry_after: true, ..policy() };
    let rate_limited = |millis| Outcome::RateLimited { retry_after: ms(millis) };
    check(honoring.clone(), steps(&[(0, rate_limited(1000)), (0, OK)]), 2, CallResult::Ok);
    check(honoring, steps(&[(0, rate_limited(1001)), (0, OK)]), 1, CallResult::Err(ErrorKind::RateLimited));
}

/// A circuit of window 4, min calls 2, 50 %, open 1 s, one probe, with `change` applied.
fn circuit(change: impl FnOnce(&mut CircuitContract)) -> Policy {
    let mut circuit = CircuitContract {
        window: 4,
        min_calls: 2,
        failure_percent: 50,
        open_for: ms(1000),
        ..CircuitContract::DEFAULT
    };
    change(&mut circuit);
    Policy { circuit: Some(circuit), ..policy() }
}

#[track_caller]
fn check_invalid(policy: Policy, field: Option<&str>) {
    assert_eq!(policy.validate().err().map(|error| error.field), field, "{policy:?}");
}

#[test]
fn circuit_parameters_are_validated() {
    check_invalid(circuit(|_| {}), None);
    check_invalid(circuit(|c| c.window = 0), Some("circuit.window"));
    check_invalid(circuit(|c| c.window = 129), Some("circuit.window"));
    check_invalid(circuit(|c| c.min_calls = 0), Some("circuit.min_calls"));
    check_invalid(circuit(|c| c.min_calls = 5), Some("circuit.min_calls"));
    check_invalid(circuit(|c| c.failure_percent = 0), Some("circuit.failure_percent"));
    check_invalid(circuit(|c| c.failure_percent = 101), Some("circuit.failure_percent"));
    check_invalid(circuit(|c| c.half_open_probes = 0), Some("circuit.half_open_probes"));
}

#[test]
fn each_load_mechanism_alone_sends_the_calls_down_the_concurrent_path() {
    assert!(!policy().has_load_mechanisms());
    let bulkhead = Policy { bulkhead: Some(BulkheadContract::new(1, 0)), ..policy() };
    let limiter = Policy { limiter: Some(LimiterContract::token_bucket(1, ms(1000))), ..policy() };
    let hedge = Policy { hedge: Some(HedgeContract { delay: ms(5), max_hedges: 1 }), ..policy() };
    let ordered = Policy { ordered_results: true, ..policy() };
    for with in [bulkhead, limiter.clone(), hedge, ordered] {
        assert!(with.has_load_mechanisms(), "{with:?}");
    }
    // Calls one after another (no arrivals) still meet the limiter: its one token goes to the first call.
    let two_calls = Schedule::new(vec![
        CallScript::new(vec![Step::new(ms(1), Outcome::Ok)]),
        CallScript::new(vec![Step::new(ms(1), Outcome::Ok)]),
    ]);
    let trace = execute(&Reference, &limiter, &two_calls, 0);
    let results: Vec<CallResult> = (trace.events.iter())
        .filter_map(|event| match event.kind {
            EventKind::CallEnd { result } => Some(result),
            _ => None,
        })
        .collect();
    assert_eq!(results, [CallResult::Ok, CallResult::Err(ErrorKind::LimiterEmpty)]);
}

#[test]
fn an_exclusive_elapsed_limit_takes_no_retry_at_the_limit() {
    use timelaw_core::LimitBound;
    // Exponential from 10 ms: retries at 10 ms and 30 ms; a 30 ms limit lets the second one start only
    // when it is inclusive. The same on the concurrent path (a bulkhead that never refuses), where a
    // hedge is a retry too.
    let transient = CallResult::Err(ErrorKind::Transient);
    let failures = || steps(&[(0, Outcome::Transient), (0, Outcome::Transient), (0, Outcome::Transient)]);
    for bulkhead in [None, Some(BulkheadContract::new(4, 0))] {
        let limited =
            |bound| Policy { retry_elapsed_max: Some(ms(30)), retry_elapsed_bound: bound, bulkhead, ..policy() };
        check(limited(LimitBound::Inclusive), failures(), 3, transient);
        check(limited(LimitBound::Exclusive), failures(), 2, transient);
        let stated = Reference.contract(&limited(LimitBound::Exclusive)).timing.retry_elapsed_bound;
        assert_eq!(stated, LimitBound::Exclusive);
    }
}

#[test]
fn an_elapsed_limit_past_the_end_of_time_never_stops_a_retry() {
    // A call started 1 ns in, with a limit of `VDuration::MAX`: its limit lies past the end of time, so a
    // retry whose sleep wakes exactly at the end of time is still within it (the World then cuts the run
    // at its time limit); saturating the limit to the end of time made the reference give up there.
    let delay = VDuration::MAX.saturating_sub(VDuration::from_nanos(1));
    let policy = Policy {
        retry_elapsed_max: Some(VDuration::MAX),
        ..Policy::new(2, Backoff::Constant { delay }, VDuration::MAX)
    };
    let mut schedule = steps(&[(0, Outcome::Transient)]);
    schedule.calls[0].gap_before = VDuration::from_nanos(1);
    let trace = execute(&Reference, &policy, &schedule, 0);
    let slept = trace.events.iter().any(|event| matches!(event.kind, EventKind::SleepRequested { .. }));
    assert!(slept, "{:?}", trace.events);
    // Exclusive, the end of time itself is the limit: too late.
    let exclusive = Policy { retry_elapsed_bound: timelaw_core::LimitBound::Exclusive, ..policy.clone() };
    schedule.calls[0].gap_before = VDuration::ZERO;
    let delay_to_end = Policy { backoff: Backoff::Constant { delay: VDuration::MAX }, ..exclusive };
    check(delay_to_end, schedule, 1, CallResult::Err(ErrorKind::Transient));
}
