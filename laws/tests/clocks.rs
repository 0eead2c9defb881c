//! Laws of the two clocks: wall_jump_keeps_monotonic_limits, wall_jump_back_no_panic,
//! failed_read_handled_as_declared. Each holds on a correct loop and the reference interpreter, and is
//! violated by a deliberately broken loop.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{
    first_action_difference, Abort, AttemptResult, CallResult, ClockContract, ClockFaults, ClockKind, Contract,
    Diagnostic, ErrorKind, EventKind, FailFrom, JumpAt, OnFailedRead, ReadFailure, Schedule, Subject, VDuration,
    VInstant, WallJump, World,
};
use timelaw_laws::{ids, Replay};

/// A retry loop with an elapsed-time limit: 10 ms between attempts, no retry may start `limit` or more
/// after the call started. Measured on the monotonic clock unless a bug says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClockBug {
    None,
    /// Measures the limit on the wall clock.
    WallLimit,
    /// Logs "time since start" with `duration_since(..).expect(..)` on the wall clock.
    PanicsOnBackwards,
    /// Treats a failed monotonic read as success.
    FailedReadIsOk,
}

#[derive(Clone, Copy, Debug)]
struct ClockLoop {
    bug: ClockBug,
    on_failed_read: OnFailedRead,
}

const LIMIT: VDuration = VDuration::from_millis(25);
const DELAY: VDuration = VDuration::from_millis(10);

impl Subject for ClockLoop {
    type Config = u32;
    fn name(&self) -> &str {
        "clock-loop"
    }
    fn contract(&self, max_attempts: &u32) -> Contract {
        let clocks = ClockContract { on_failed_read: self.on_failed_read, ..ClockContract::MONOTONIC };
        let mut promise = promise(*max_attempts, DELAY);
        promise.timing.clocks = Some(clocks);
        promise
    }
    fn run(&self, max_attempts: &u32, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, call| {
            let started_wall = world.wall_now()?.ok();
            let mut attempt = 0;
            loop {
                attempt += 1;
                let failure = match world.dispatch()? {
                    AttemptResult::Completed(outcome) if outcome.is_ok() => return Ok(CallResult::Ok),
                    AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Fatal),
                    _ => ErrorKind::Cancelled,
                };
                if attempt >= *max_attempts {
                    return Ok(CallResult::Err(failure));
                }
                let elapsed = match self.elapsed(world, call.started, started_wall)? {
                    Ok(elapsed) => elapsed,
                    Err(result) => return Ok(result.unwrap_or(CallResult::Err(failure))),
                };
                if elapsed.saturating_add(DELAY) >= LIMIT {
                    return Ok(CallResult::Err(failure));
                }
                world.sleep(DELAY)?;
            }
        })
    }
}

impl ClockLoop {
    /// The time since the call started; `Err(Some(result))` ends the call with `result`, `Err(None)` with
    /// the last failure.
    fn elapsed(
        &self,
        world: &mut World<'_>,
        started: VInstant,
        started_wall: Option<timelaw_core::WallInstant>,
    ) -> Result<Result<VDuration, Option<CallResult>>, Abort> {
        if self.bug == ClockBug::PanicsOnBackwards {
            if let (Ok(now), Some(started_wall)) = (world.wall_now()?, started_wall) {
                let logged = now.duration_since(started_wall).expect("the wall clock went backwards");
                assert!(logged <= VDuration::MAX);
            }
        }
        if self.bug == ClockBug::WallLimit {
            return Ok(match (world.wall_now()?, started_wall) {
                (Ok(now), Some(started_wall)) => Ok(now.duration_since(started_wall).unwrap_or(VDuration::ZERO)),
                _ => Err(None),
            });
        }
        match world.read_now()? {
            Ok(now) => Ok(Ok(now.duration_since(started))),
            Err(_) if self.bug == ClockBug::FailedReadIsOk => Ok(Err(Some(CallResult::Ok))),
            Err(failed) => {
                world.diagnose(Diagnostic::TimingMissing { clock: failed.0 })?;
                Ok(match self.on_failed_read {
                    OnFailedRead::RetryRead => Ok(VDuration::ZERO),
                    OnFailedRead::Expired | OnFailedRead::GiveUp => Err(None),
                })
            }
        }
    }
}

fn looped(bug: ClockBug, max_attempts: u32, schedule: Schedule) -> Run {
    let mut run = run(&ClockLoop { bug, on_failed_read: OnFailedRead::Expired }, &max_attempts, schedule);
    with_jump_free_run(&mut run, |schedule| {
        support::run(&ClockLoop { bug, on_failed_read: OnFailedRead::Expired }, &max_attempts, schedule).trace
    });
    run
}

/// Adds the "without wall jumps" comparison the runner makes.
fn with_jump_free_run(run: &mut Run, rerun: impl FnOnce(Schedule) -> timelaw_core::Trace) {
    if run.schedule.clock.wall_jumps.is_empty() {
        return;
    }
    let second = rerun(run.schedule.without_wall_jumps());
    run.without_wall_jumps = Some(Replay {
        first: run.trace.action_digest(),
        second: second.action_digest(),
        first_difference: first_action_difference(&run.trace, &second),
        second_panicked: matches!(second.end, timelaw_core::TraceEnd::Panicked(_)),
    });
}

fn jump(at: JumpAt, by_ns: i64) -> ClockFaults {
    ClockFaults { wall_jumps: vec![WallJump { at, by_ns }], read_failures: vec![] }
}

fn failing(clock: ClockKind, after_reads: u32) -> ClockFaults {
    let rule = ReadFailure { clock, from: FailFrom::AfterReads(after_reads), count: 1 };
    ClockFaults { wall_jumps: vec![], read_failures: vec![rule] }
}

fn transients(count: usize, clock: ClockFaults) -> Schedule {
    single(&vec![T; count]).with_clock(clock)
}

const HOUR_NS: i64 = 3_600_000_000_000;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

#[test]
fn wall_jump_keeps_monotonic_limits() {
    let id = ids::WALL_JUMP_KEEPS_MONOTONIC_LIMITS;
    let forward = jump(JumpAt::Attempt(1), HOUR_NS);
    check(id, looped(ClockBug::None, 5, transients(4, forward.clone())), Expect::Holds);
    check(id, looped(ClockBug::None, 5, transients(4, jump(JumpAt::Sleep(1), -HOUR_NS))), Expect::Holds);
    check(id, looped(ClockBug::None, 5, transients(4, ClockFaults::default())), Expect::Vacuous);
    // A jump whose point the run never reaches: nothing jumped.
    check(id, looped(ClockBug::None, 5, transients(1, jump(JumpAt::Sleep(3), HOUR_NS))), Expect::Vacuous);
    // The wall-clock limit gives up after the first attempt; without the jump it slept 10 ms (event 4).
    check(id, looped(ClockBug::WallLimit, 5, transients(4, forward.clone())), Expect::At(4));
    check(id, looped(ClockBug::WallLimit, 5, transients(4, ClockFaults::default())), Expect::Vacuous);
    // A contract with no clocks, or a limit declared on the wall clock: not applicable.
    check(id, naive(promise(3, ms(10)), Bug::None, transients(2, forward.clone())), Expect::NotApplicable);
    let mut wall = looped(ClockBug::WallLimit, 5, transients(4, forward));
    wall.contract.timing.clocks = Some(ClockContract { deadline: ClockKind::Wall, ..ClockContract::MONOTONIC });
    check(id, wall, Expect::NotApplicable);
}

#[test]
fn wall_jump_back_no_panic() {
    let id = ids::WALL_JUMP_BACK_NO_PANIC;
    let back = jump(JumpAt::Attempt(1), -1);
    check(id, looped(ClockBug::None, 3, transients(2, back.clone())), Expect::Holds);
    check(id, looped(ClockBug::PanicsOnBackwards, 3, transients(2, jump(JumpAt::Attempt(1), 1))), Expect::Vacuous);
    check(id, looped(ClockBug::PanicsOnBackwards, 3, transients(2, ClockFaults::default())), Expect::Vacuous);
    // Call start, wall jump (at the attempt's midpoint), attempt end... the panic is the last event.
    let panicked = looped(ClockBug::PanicsOnBackwards, 3, transients(2, back));
    let last = panicked.trace.events.len() as u32 - 1;
    check(id, panicked, Expect::At(last));
    // A jump before the call's first wall read is not a jump between two reads: no panic.
    let early = jump(JumpAt::Instant(VInstant::EPOCH), -HOUR_NS);
    check(id, looped(ClockBug::PanicsOnBackwards, 3, transients(2, early)), Expect::Holds);
}

#[test]
fn failed_read_handled_as_declared() {
    let id = ids::FAILED_READ_HANDLED_AS_DECLARED;
    let monotonic = failing(ClockKind::Monotonic, 0);
    check(id, looped(ClockBug::None, 3, transients(2, monotonic.clone())), Expect::Holds);
    check(id, looped(ClockBug::None, 3, transients(2, failing(ClockKind::Wall, 0))), Expect::Holds);
    check(id, looped(ClockBug::None, 3, transients(2, ClockFaults::default())), Expect::Vacuous);
    // The defect returns Ok after a transient failure when the deadline check cannot read the clock:
    // call start, attempt start, attempt end, read failed, call end (Ok).
    check(id, looped(ClockBug::FailedReadIsOk, 3, transients(2, monotonic.clone())), Expect::At(4));
    // Declared "retry the read" but the loop stops: the real outcome is kept, so it holds...
    let retry = ClockLoop { bug: ClockBug::None, on_failed_read: OnFailedRead::RetryRead };
    check(id, run(&retry, &3, transients(2, monotonic.clone())), Expect::Holds);
    // ...while a loop that retries after declaring "expired" starts an attempt it promised not to.
    let mut retried = run(&retry, &3, transients(2, monotonic.clone()));
    retried.contract.timing.clocks = Some(ClockContract::MONOTONIC);
    let attempt = retried.trace.events.iter().filter(|e| e.attempt == 2).map(|e| e.seq).min().unwrap();
    check(id, retried, Expect::At(attempt));
    check(id, naive(promise(3, ms(10)), Bug::None, transients(2, monotonic)), Expect::NotApplicable);
}

/// A hand-built run of `events` under a contract that measures its limits on the monotonic clock, for a
/// schedule with `faults`.
fn observed_with_clocks(faults: ClockFaults, events: &[(u64, u32, u32, EventKind)]) -> Run {
    let mut contract = promise(3, ms(10));
    contract.timing.clocks = Some(ClockContract::MONOTONIC);
    observed(contract, calls(&[&[T], &[OK]]).with_clock(faults), hand_built(events))
}

const READ_FAILED: EventKind = EventKind::ClockReadFailed { clock: ClockKind::Monotonic };

#[test]
fn a_jump_of_zero_is_not_backwards() {
    // The schedule jumps back later, but the run only saw a jump of zero before it panicked.
    let events = [(0, 0, 0, START), (0, 0, 0, EventKind::WallJump { by_ns: 0 }), (0, 0, 1, ATTEMPT)];
    let mut run = observed_with_clocks(jump(JumpAt::Attempt(2), -HOUR_NS), &events);
    run.trace.end = timelaw_core::TraceEnd::Panicked("boom".to_owned());
    run.without_wall_jumps = Some(Replay { first: 1, second: 2, first_difference: Some(1), second_panicked: false });
    check(ids::WALL_JUMP_BACK_NO_PANIC, run, Expect::Vacuous);
}

#[test]
fn a_failed_read_judges_only_its_own_call() {
    let id = ids::FAILED_READ_HANDLED_AS_DECLARED;
    let failing_first = failing(ClockKind::Monotonic, 0);
    // Call 0 keeps its outcome after the failed read; call 1 read its clocks fine and returns an error
    // after a success, which is another law's business (result_matches_last_attempt).
    let first_only = [
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 0, 1, FAILED),
        (0, 0, 1, READ_FAILED),
        (0, 0, 1, RETURNED_ERR),
        (0, 1, 0, START),
        (0, 1, 1, ATTEMPT),
        (0, 1, 1, SUCCEEDED),
        (0, 1, 1, RETURNED_ERR),
    ];
    check(id, observed_with_clocks(failing_first.clone(), &first_only), Expect::Holds);
    // The outcome lost either way, each said in its own words.
    let lost =
        [(0, 0, 0, START), (0, 0, 1, ATTEMPT), (0, 0, 1, SUCCEEDED), (0, 0, 1, READ_FAILED), (0, 0, 1, RETURNED_ERR)];
    let lost = observed_with_clocks(failing_first.clone(), &lost);
    check(id, lost.clone(), Expect::At(4));
    let why = lost.judge(id).violation().map(|violation| violation.message.to_string());
    assert_eq!(
        why.as_deref(),
        Some(
            "the call returned an error after a failed clock read although its last attempt succeeded (the real \
             outcome was lost)"
        )
    );
    let invented =
        [(0, 0, 0, START), (0, 0, 1, ATTEMPT), (0, 0, 1, FAILED), (0, 0, 1, READ_FAILED), (0, 0, 1, RETURNED_OK)];
    let why = observed_with_clocks(failing_first, &invented).judge(id).violation().map(|v| v.message.to_string());
    assert_eq!(
        why.as_deref(),
        Some(
            "the call returned Ok after a failed clock read although its last attempt did not succeed (the failed \
             read was treated as success)"
        )
    );
}

#[test]
fn the_reference_keeps_the_clock_laws_under_clock_faults() {
    let policy = Policy { deadline: Some(ms(100)), ..Policy::new(4, Backoff::Constant { delay: ms(10) }, ms(1000)) };
    let faults = ClockFaults {
        wall_jumps: vec![
            WallJump { at: JumpAt::Sleep(1), by_ns: -HOUR_NS },
            WallJump { at: JumpAt::Attempt(2), by_ns: HOUR_NS },
        ],
        read_failures: vec![ReadFailure { clock: ClockKind::Monotonic, from: FailFrom::AfterReads(3), count: 1 }],
    };
    let mut run = reference(policy.clone(), transients(3, faults));
    with_jump_free_run(&mut run, |schedule| reference(policy, schedule).trace);
    for id in
        [ids::WALL_JUMP_KEEPS_MONOTONIC_LIMITS, ids::WALL_JUMP_BACK_NO_PANIC, ids::FAILED_READ_HANDLED_AS_DECLARED]
    {
        check(id, run.clone(), Expect::Holds);
    }
}

#[test]
fn a_panic_the_jump_did_not_cause_is_left_to_never_panics() {
    // The naive loop's `PanicsOnRetry` defect panics whatever the clocks do.
    let schedule = transients(2, jump(JumpAt::Attempt(1), -HOUR_NS));
    let config = NaiveConfig { contract: promise(3, ms(10)), bug: Bug::PanicsOnRetry };
    let mut panicking = run(&Naive::default(), &config, schedule);
    with_jump_free_run(&mut panicking, |schedule| run(&Naive::default(), &config, schedule).trace);
    let last = panicking.trace.events.len() as u32 - 1;
    // It never reads the wall clock: no jump can have reached it.
    check(ids::WALL_JUMP_BACK_NO_PANIC, panicking.clone(), Expect::Vacuous);
    check(ids::NEVER_PANICS, panicking, Expect::At(last));
    // It reads the wall clock and its runs differ by randomness it cannot seed, but the run without the
    // jump panics too: the jump is not to blame.
    let schedule = transients(2, jump(JumpAt::Attempt(1), -HOUR_NS));
    let mut unseeded = run(&UnseededPanicker, &(), schedule);
    with_jump_free_run(&mut unseeded, |schedule| run(&UnseededPanicker, &(), schedule).trace);
    assert!(unseeded.without_wall_jumps.is_some_and(|compared| compared.first_difference.is_some()));
    let last = unseeded.trace.events.len() as u32 - 1;
    check(ids::WALL_JUMP_BACK_NO_PANIC, unseeded.clone(), Expect::Holds);
    check(ids::NEVER_PANICS, unseeded, Expect::At(last));
}

#[test]
fn a_jump_is_not_blamed_for_what_randomness_or_an_unread_clock_explains() {
    let id = ids::WALL_JUMP_KEEPS_MONOTONIC_LIMITS;
    let forward = jump(JumpAt::Attempt(1), HOUR_NS);
    // Measured on the wall clock: caught.
    let wall_limit = looped(ClockBug::WallLimit, 3, transients(2, forward.clone()));
    assert!(matches!(wall_limit.judge(id), timelaw_laws::Verdict::Violated(_)), "{}", wall_limit.judge(id));
    // The same runs, had the subject never read the wall clock: no jump can have changed them.
    let mut unread = wall_limit.clone();
    unread.trace.clock_reads.wall = 0;
    check(id, unread, Expect::Vacuous);
    // The same runs, had a replay of the very same case differed: randomness, not the jump.
    let mut random = wall_limit;
    random.replay = Some(Replay { first: 1, second: 2, first_difference: Some(1), second_panicked: false });
    check(id, random, Expect::Vacuous);
}

/// Runs of [`UnseededPanicker`] so far: its randomness, which no seed reproduces.
static UNSEEDED_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Reads the wall clock, sleeps a delay that differs on every run, and panics on its retry whatever the
/// clocks say.
struct UnseededPanicker;

impl Subject for UnseededPanicker {
    type Config = ();
    fn name(&self) -> &str {
        "unseeded-panicker"
    }
    fn contract(&self, _: &()) -> Contract {
        promise(3, ms(10))
    }
    fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
        let runs = UNSEEDED_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        world.for_each_call(|world, _| {
            let _ = world.wall_now()?;
            world.dispatch()?;
            world.sleep(ms(1 + runs % 5))?;
            panic!("retry state missing");
        })
    }
}

#[test]
fn a_hedge_loser_is_not_the_outcome_a_failed_read_keeps() {
    let id = ids::FAILED_READ_HANDLED_AS_DECLARED;
    let cut = EventKind::AttemptCancelled;
    // Two attempts at once; attempt 2 answers first and attempt 1, the loser, is cancelled at that
    // instant; then a read fails. The call keeps attempt 2's answer (a false alarm before the loser
    // counted as no result).
    let hedged = |answer, result| {
        [
            (0, 0, 0, START),
            (0, 0, 1, ATTEMPT),
            (0, 0, 2, ATTEMPT),
            (0, 0, 2, answer),
            (0, 0, 1, cut),
            (0, 0, 2, READ_FAILED),
            (0, 0, 2, result),
        ]
    };
    let faults = failing(ClockKind::Monotonic, 0);
    check(id, observed_with_clocks(faults.clone(), &hedged(SUCCEEDED, RETURNED_OK)), Expect::Holds);
    check(id, observed_with_clocks(faults.clone(), &hedged(FAILED, RETURNED_ERR)), Expect::Holds);
    check(id, observed_with_clocks(faults, &hedged(FAILED, RETURNED_OK)), Expect::At(6));
}
