//! The acceptance scenarios of the reference interpreter: published examples of this exact behaviour.

use timelaw_core::reference::{Backoff, Policy, Reference};
use timelaw_core::{
    execute, CallResult, CallScript, CircuitContract, CircuitState, ErrorKind, EventKind, Outcome, Rejection, RetryOn,
    Schedule, Step, Trace, VDuration, VInstant,
};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

fn sleeps(trace: &Trace) -> Vec<VDuration> {
    trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            EventKind::SleepRequested { duration } => Some(duration),
            _ => None,
        })
        .collect()
}

fn attempts(trace: &Trace, call: u32) -> usize {
    trace.call_events(call).filter(|event| event.kind == EventKind::AttemptStart).count()
}

fn results(trace: &Trace) -> Vec<CallResult> {
    trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            EventKind::CallEnd { result } => Some(result),
            _ => None,
        })
        .collect()
}

fn end_time(trace: &Trace) -> VInstant {
    trace.events.last().map(|event| event.at).unwrap_or_default()
}

fn transient(count: usize) -> Vec<Step> {
    vec![Step::instant(Outcome::Transient); count]
}

#[test]
fn exponential_from_5ms_doubles_without_jitter() {
    let policy = Policy::new(4, Backoff::Exponential { initial: ms(5), factor: 2 }, ms(1000));
    let mut steps = transient(3);
    steps.push(Step::instant(Outcome::Ok));
    let trace = execute(&Reference, &policy, &Schedule::single(steps), 0);
    assert_eq!(sleeps(&trace), vec![ms(5), ms(10), ms(20)]);
    assert_eq!(attempts(&trace, 0), 4);
    assert_eq!(results(&trace), vec![CallResult::Ok]);
}

#[test]
fn three_attempts_doubling_from_100ms_advance_the_clock_300ms() {
    let policy = Policy::new(3, Backoff::Exponential { initial: ms(100), factor: 2 }, ms(10_000));
    let mut steps = transient(2);
    steps.push(Step::instant(Outcome::Ok));
    let trace = execute(&Reference, &policy, &Schedule::single(steps), 0);
    assert_eq!(sleeps(&trace), vec![ms(100), ms(200)]);
    assert_eq!(end_time(&trace), VInstant::EPOCH.saturating_add(ms(300)));
    assert_eq!(results(&trace), vec![CallResult::Ok]);
}

#[test]
fn fatal_error_is_not_retried() {
    let policy = Policy {
        retry_on: RetryOn { transient: true, rate_limited: false, timeout: false },
        ..Policy::new(5, Backoff::Constant { delay: ms(10) }, ms(10))
    };
    let trace = execute(&Reference, &policy, &Schedule::single(vec![Step::instant(Outcome::Fatal)]), 0);
    assert_eq!(attempts(&trace, 0), 1);
    assert!(sleeps(&trace).is_empty());
    assert_eq!(results(&trace), vec![CallResult::Err(ErrorKind::Fatal)]);
}

#[test]
fn capped_exponential_needs_three_dispatches() {
    let policy = Policy::new(4, Backoff::Exponential { initial: ms(100), factor: 2 }, ms(1000));
    let mut steps = transient(2);
    steps.push(Step::instant(Outcome::Ok));
    let trace = execute(&Reference, &policy, &Schedule::single(steps), 0);
    assert_eq!(attempts(&trace, 0), 3);
    assert_eq!(sleeps(&trace), vec![ms(100), ms(200)]);
    assert_eq!(end_time(&trace), VInstant::EPOCH.saturating_add(ms(300)));
}

#[test]
fn circuit_opens_rejects_and_probes_after_cooldown() {
    let circuit = CircuitContract {
        window: 2,
        min_calls: 2,
        failure_percent: 50,
        open_for: VDuration::from_secs(30),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    let policy = Policy { circuit: Some(circuit), ..Policy::new(1, Backoff::Constant { delay: ms(0) }, ms(0)) };
    let failing = CallScript::outcomes(&[Outcome::Transient]);
    let mut probe = CallScript::outcomes(&[Outcome::Ok]);
    probe.gap_before = VDuration::from_secs(31);
    let schedule = Schedule::new(vec![failing.clone(), failing, CallScript::outcomes(&[Outcome::Ok]), probe]);
    let trace = execute(&Reference, &policy, &schedule, 0);
    assert_eq!(
        results(&trace),
        vec![
            CallResult::Err(ErrorKind::Transient),
            CallResult::Err(ErrorKind::Transient),
            CallResult::Err(ErrorKind::CircuitOpen),
            CallResult::Ok,
        ]
    );
    assert_eq!(attempts(&trace, 2), 0, "the rejected call dispatches nothing");
    assert!(trace.call_events(2).any(|e| e.kind == EventKind::Rejected { reason: Rejection::CircuitOpen }));
    let transitions: Vec<(CircuitState, CircuitState)> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            EventKind::CircuitTransition { from, to } => Some((from, to)),
            _ => None,
        })
        .collect();
    let expected = vec![
        (CircuitState::Closed, CircuitState::Open),
        (CircuitState::Open, CircuitState::HalfOpen),
        (CircuitState::HalfOpen, CircuitState::Closed),
    ];
    assert_eq!(transitions, expected);
    assert_eq!(attempts(&trace, 3), 1, "the probe is admitted");
}

#[test]
fn attempt_timeout_applies_per_item_of_a_stream() {
    let policy = Policy { attempt_timeout: Some(ms(50)), ..Policy::new(1, Backoff::Constant { delay: ms(0) }, ms(0)) };
    let slow = CallScript::new(vec![Step::new(ms(51), Outcome::Ok)]);
    let fast = CallScript::new(vec![Step::new(ms(0), Outcome::Ok)]);
    let trace = execute(&Reference, &policy, &Schedule::new(vec![slow, fast]), 0);
    assert_eq!(results(&trace), vec![CallResult::Err(ErrorKind::Timeout), CallResult::Ok]);
    let cut = trace.events.iter().find(|e| matches!(e.kind, EventKind::AttemptTimedOut { .. })).map(|e| e.at);
    assert_eq!(cut, Some(VInstant::EPOCH.saturating_add(ms(50))), "the attempt is cut at the deadline");
}

#[test]
fn attempt_of_exactly_the_timeout_is_timed_out() {
    let policy = Policy { attempt_timeout: Some(ms(50)), ..Policy::new(1, Backoff::Constant { delay: ms(0) }, ms(0)) };
    let exact = Schedule::single(vec![Step::new(ms(50), Outcome::Ok)]);
    let trace = execute(&Reference, &policy, &exact, 0);
    assert_eq!(results(&trace), vec![CallResult::Err(ErrorKind::Timeout)]);
}

#[test]
fn replay_gives_identical_traces_on_fresh_worlds() {
    let policy = Policy {
        jitter: timelaw_core::reference::Jitter::Full,
        ..Policy::new(5, Backoff::Exponential { initial: ms(10), factor: 3 }, ms(500))
    };
    let schedule = Schedule::single(transient(4));
    let first = execute(&Reference, &policy, &schedule, 99);
    let second = execute(&Reference, &policy, &schedule, 99);
    assert_eq!(first, second);
    assert_eq!(first.digest(), second.digest());
    assert_ne!(sleeps(&first), sleeps(&execute(&Reference, &policy, &schedule, 100)), "the seed drives jitter");
}

#[test]
fn a_world_cannot_serve_a_second_run() {
    use timelaw_core::{Abort, Misuse, Subject, World};
    let policy = Policy::new(1, Backoff::Constant { delay: ms(0) }, ms(0));
    let schedule = Schedule::single(vec![]);
    let mut world = World::new(&schedule, 0);
    assert_eq!(Reference.run(&policy, &mut world), Ok(()));
    assert_eq!(Reference.run(&policy, &mut world), Err(Abort::Misuse(Misuse::Finished)));
}

fn clock_events(trace: &Trace) -> Vec<EventKind> {
    trace.events.iter().map(|event| event.kind).filter(|kind| !kind.is_action()).collect()
}

#[test]
fn a_backwards_wall_jump_mid_backoff_changes_nothing_but_the_wall_clock() {
    use timelaw_core::{ClockFaults, JumpAt, WallJump};
    let policy = Policy {
        deadline: Some(ms(1000)),
        ..Policy::new(4, Backoff::Exponential { initial: ms(10), factor: 2 }, ms(1000))
    };
    let schedule = Schedule::single(transient(3));
    let hour_back = WallJump { at: JumpAt::Sleep(2), by_ns: -3_600_000_000_000 };
    let jumped = schedule.clone().with_clock(ClockFaults { wall_jumps: vec![hour_back], read_failures: vec![] });
    let plain = execute(&Reference, &policy, &schedule, 0);
    let trace = execute(&Reference, &policy, &jumped, 0);
    assert_eq!(sleeps(&trace), vec![ms(10), ms(20), ms(40)]);
    assert_eq!(results(&trace), vec![CallResult::Ok]);
    assert_eq!(timelaw_core::first_action_difference(&trace, &plain), None);
    assert_eq!(clock_events(&trace), vec![EventKind::WallJump { by_ns: -3_600_000_000_000 }]);
    // The jump lands halfway through the second sleep (10ms + 20ms/2 = 20ms).
    let jump = trace.events.iter().find(|event| !event.kind.is_action()).unwrap();
    assert_eq!(jump.at, VInstant::from_nanos(20_000_000));
    // One wall stamp for the call; one monotonic read before the first attempt and after each failure.
    assert_eq!((trace.clock_reads.wall, trace.clock_reads.monotonic), (1, 4));
}

#[test]
fn a_failed_read_at_the_deadline_check_keeps_the_real_outcome() {
    use timelaw_core::{ClockFaults, ClockKind, Diagnostic, FailFrom, ReadFailure};
    let policy = Policy { deadline: Some(ms(100)), ..Policy::new(4, Backoff::Constant { delay: ms(10) }, ms(1000)) };
    let fail = |after_reads| ClockFaults {
        wall_jumps: vec![],
        read_failures: vec![ReadFailure {
            clock: ClockKind::Monotonic,
            from: FailFrom::AfterReads(after_reads),
            count: 1,
        }],
    };
    let missing = EventKind::Diagnostic { diagnostic: Diagnostic::TimingMissing { clock: ClockKind::Monotonic } };
    let failed = EventKind::ClockReadFailed { clock: ClockKind::Monotonic };
    // The check after the first (transient) attempt cannot read the clock: the deadline counts as expired,
    // no retry starts, and the call returns the attempt's own error, not Ok and not DeadlineExceeded.
    let trace = execute(&Reference, &policy, &Schedule::single(transient(3)).with_clock(fail(1)), 0);
    assert_eq!(attempts(&trace, 0), 1);
    assert_eq!(results(&trace), vec![CallResult::Err(ErrorKind::Transient)]);
    assert_eq!(clock_events(&trace), vec![failed, missing]);
    // At the call's start no attempt ran yet: the call gives up with DeadlineExceeded.
    let trace = execute(&Reference, &policy, &Schedule::single(transient(3)).with_clock(fail(0)), 0);
    assert_eq!((attempts(&trace, 0), results(&trace)), (0, vec![CallResult::Err(ErrorKind::DeadlineExceeded)]));
    // A failed wall read only loses the call's timestamp.
    let wall = ClockFaults {
        wall_jumps: vec![],
        read_failures: vec![ReadFailure { clock: ClockKind::Wall, from: FailFrom::AfterReads(0), count: 1 }],
    };
    let trace = execute(&Reference, &policy, &Schedule::single(transient(3)).with_clock(wall), 0);
    assert_eq!((attempts(&trace, 0), results(&trace)), (4, vec![CallResult::Ok]));
}
