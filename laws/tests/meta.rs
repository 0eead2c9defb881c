//! Laws for every subject: clock_monotonic, deterministic_replay, never_panics, terminates,
//! uses_world_as_documented, accepts_described_configs.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{
    execute_with, Abort, CallResult, Contract, EventKind, LimitKind, Limits, RetryContract, Schedule, Subject, Trace,
    VDuration, VInstant, World,
};
use timelaw_laws::{ids, Replay, Verdict};

const SLEPT: EventKind = EventKind::SleepRequested { duration: VDuration::from_millis(10) };

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

fn policy(max_attempts: u32) -> Policy {
    Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000))
}

/// `run` with its trace edited.
fn tampered(mut run: Run, edit: impl FnOnce(&mut Trace)) -> Run {
    edit(&mut run.trace);
    run
}

/// The first index where two traces differ (as the runner computes it).
fn first_difference(a: &Trace, b: &Trace) -> Option<u32> {
    let index = a.events.iter().zip(&b.events).position(|(x, y)| x != y);
    let index = match index {
        Some(index) => index,
        None if a.events.len() > b.events.len() => b.events.len(),
        None => return None,
    };
    Some(index as u32)
}

/// Runs the naive loop twice with the same subject instance and records the replay.
fn replayed(bug: Bug, schedule: Schedule) -> Run {
    let subject = Naive::default();
    let config = NaiveConfig { contract: promise(3, ms(10)), bug };
    let mut first = run(&subject, &config, schedule.clone());
    let second = run(&subject, &config, schedule);
    let difference = first_difference(&first.trace, &second.trace);
    first.replay = Some(Replay {
        first: first.trace.digest(),
        second: second.trace.digest(),
        first_difference: difference,
        second_panicked: false,
    });
    first
}

/// The index of a run's last event.
fn last(run: &Run) -> Expect {
    Expect::At(run.trace.events.len() as u32 - 1)
}

#[test]
fn clock_monotonic() {
    let id = ids::CLOCK_MONOTONIC;
    check(id, reference(policy(3), single(&[T, T, OK])), Expect::Holds);
    check(id, reference(policy(3), Schedule::default()), Expect::Vacuous);
    // The call ends at 10ms; move its end back to 5ms.
    let backwards = |trace: &mut Trace| trace.events[7].at = VInstant::from_nanos(5_000_000);
    check(id, tampered(reference(policy(3), single(&[T, OK])), backwards), Expect::At(7));
    let renumbered = |trace: &mut Trace| trace.events[3].seq = 7;
    check(id, tampered(reference(policy(3), single(&[T, OK])), renumbered), Expect::At(3));
}

/// A subject that tries to move the World's clock back: 10 ms forward, then back to 5 ms.
struct TurnsClockBack;

impl timelaw_core::Subject for TurnsClockBack {
    type Config = ();
    fn name(&self) -> &str {
        "turns-clock-back"
    }
    fn contract(&self, _: &()) -> timelaw_core::Contract {
        timelaw_core::Contract::default()
    }
    fn run(&self, _: &(), world: &mut timelaw_core::World<'_>) -> Result<(), timelaw_core::Abort> {
        while world.start_call()?.is_some() {
            world.sleep(ms(10))?;
            world.advance_to(VInstant::from_nanos(5_000_000))?;
            world.end_call(timelaw_core::CallResult::Ok)?;
        }
        Ok(())
    }
}

#[test]
fn clock_monotonic_cannot_fail_through_the_world() {
    // The World refuses to go back (a misuse ends the run), so the trace stays monotonic: the law holds.
    let run = run(&TurnsClockBack, &(), single(&[OK]));
    let misuse = timelaw_core::Abort::Misuse(timelaw_core::Misuse::ClockBackwards);
    assert_eq!(run.trace.end, timelaw_core::TraceEnd::Aborted(misuse));
    check(ids::CLOCK_MONOTONIC, run, Expect::Holds);
}

#[test]
fn deterministic_replay() {
    let id = ids::DETERMINISTIC_REPLAY;
    check(id, replayed(Bug::None, single(&[T, T, OK])), Expect::Holds);
    check(id, reference(policy(3), single(&[T, OK])), Expect::Vacuous);
    check(id, replayed(Bug::RemembersRuns, single(&[T, OK])), Expect::At(3));
    let ends_differ = Replay { first: 1, second: 2, first_difference: None, second_panicked: false };
    check(id, Run { replay: Some(ends_differ), ..reference(policy(3), single(&[OK])) }, Expect::Nowhere);
    // An index one past the end (what the runner computed for traces differing only in their ends) is no
    // event of the trace: blamed nowhere. The last real event is still blamed.
    let past_end = Replay { first: 1, second: 2, first_difference: Some(4), second_panicked: false };
    check(id, Run { replay: Some(past_end), ..reference(policy(3), single(&[OK])) }, Expect::Nowhere);
    let at_last = Replay { first: 1, second: 2, first_difference: Some(3), second_panicked: false };
    check(id, Run { replay: Some(at_last), ..reference(policy(3), single(&[OK])) }, Expect::At(3));
}

#[test]
fn never_panics() {
    let id = ids::NEVER_PANICS;
    check(id, reference(policy(3), single(&[T, OK])), Expect::Holds);
    check(id, reference(Policy { max_attempts: 0, ..policy(3) }, single(&[T])), Expect::Holds);
    let panicked = naive(promise(3, ms(10)), Bug::PanicsOnRetry, single(&[T, OK]));
    check(id, panicked.clone(), Expect::At(5));
    let message = panicked.judge(id).violation().map(|violation| violation.message.to_string());
    assert_eq!(message.as_deref(), Some("the subject panicked: naive loop: retry state missing"));
}

#[test]
fn terminates() {
    let id = ids::TERMINATES;
    check(id, reference(policy(3), single(&[T, OK])), Expect::Holds);
    check(id, naive(promise(3, ms(10)), Bug::PanicsOnRetry, single(&[T, OK])), Expect::Holds);
    check(id, reference(policy(3), single(&[HANG])), Expect::At(1));
    let forever = naive(promise(3, ms(10)), Bug::RetriesForever, single(&[T; 20_000]));
    check(id, forever.clone(), last(&forever));
    let why = forever.judge(id).violation().map(|violation| violation.message.to_string());
    assert_eq!(
        why.as_deref(),
        Some(
            "stopped at the step limit (65536 events): the documented default, far above what a correct subject needs"
        )
    );
    // A limit lowered for the run: still a violation past what the contract allows, inconclusive otherwise.
    let lowered = Limits { attempts_max: 100, ..Limits::default() };
    let config = NaiveConfig { contract: promise(3, ms(10)), bug: Bug::RetriesForever };
    let promised = limited(&Naive::default(), &config, single(&[T; 200]), lowered);
    check(id, promised.clone(), last(&promised));
    let why = promised.judge(id).violation().map(|violation| violation.message.to_string());
    assert_eq!(
        why.as_deref(),
        Some("stopped at the step limit (100 attempts): more than the 3 attempts the contract allows over 1 calls")
    );
    let unpromised = NaiveConfig {
        contract: Contract { retry: RetryContract { max_attempts: None, ..config.contract.retry }, ..config.contract },
        ..config
    };
    let cut = limited(&Naive::default(), &unpromised, single(&[T; 200]), lowered);
    check(id, cut.clone(), Expect::Inconclusive);
    // Still consuming its 200 scripted failures when the lowered limit stopped it: a long-run cut.
    assert!(matches!(cut.judge(id), Verdict::Inconclusive(why) if why.contains("inside a long scripted run")));
    // A refused config and a misuse end the run by the subject's own return: it terminated (the two
    // laws below judge them).
    check(id, reference(Policy { max_attempts: 0, ..policy(3) }, single(&[T])), Expect::Holds);
    check(id, naive(promise(3, ms(10)), Bug::ReversesBounds, single(&[T, OK])), Expect::Holds);
}

/// The message of `id`'s violation on `run`.
fn message(id: &str, run: &Run) -> String {
    run.judge(id).violation().map(|violation| violation.message.to_string()).unwrap_or_default()
}

#[test]
fn uses_world_as_documented() {
    let id = ids::USES_WORLD_AS_DOCUMENTED;
    check(id, reference(policy(3), calls(&[&[T, OK], &[F], &[OK]])), Expect::Holds);
    check(id, naive(promise(3, ms(10)), Bug::None, calls(&[&[F], &[OK]])), Expect::Holds);
    // A failed call left without a result: the next call's start is refused, and the run ends there.
    let open = naive(promise(3, ms(10)), Bug::LeavesCallOpen, calls(&[&[F], &[OK]]));
    check(id, open.clone(), last(&open));
    assert_eq!(
        message(id, &open),
        "the subject misused the World: call 0 was left without a result (a call started before the previous one ended)"
    );
    // A run that returns with its last call open: the trace completes without the call's CallEnd.
    let open_last = tampered(reference(policy(3), calls(&[&[OK], &[F]])), |trace| {
        assert!(matches!(trace.events.pop().map(|event| event.kind), Some(EventKind::CallEnd { .. })));
    });
    check(id, open_last.clone(), last(&open_last));
    assert_eq!(
        message(id, &open_last),
        "call 1 started but never returned a result (the run ended without its CallEnd)"
    );
    let one = naive(promise(3, ms(10)), Bug::ServesOneCall, calls(&[&[OK], &[OK], &[OK]]));
    check(id, one.clone(), last(&one));
    assert_eq!(message(id, &one), "the subject returned after serving 1 of 3 calls: call 1 was never started");
    let reversed = naive(promise(3, ms(10)), Bug::ReversesBounds, single(&[T, OK]));
    check(id, reversed.clone(), last(&reversed));
    assert_eq!(
        message(id, &reversed),
        "the subject misused the World: random_between was asked for an empty range (low 2 above high 1)"
    );
    // A panic or a hang is judged by its own law; what came before used the World as documented.
    check(id, naive(promise(3, ms(10)), Bug::PanicsOnRetry, single(&[T, OK])), Expect::Holds);
    check(id, reference(policy(3), single(&[HANG])), Expect::Holds);
}

#[test]
fn accepts_described_configs() {
    let id = ids::ACCEPTS_DESCRIBED_CONFIGS;
    check(id, reference(policy(3), single(&[T, OK])), Expect::Holds);
    let invalid = reference(Policy { max_attempts: 0, ..policy(3) }, single(&[T]));
    check(id, invalid.clone(), Expect::Nowhere);
    assert!(message(id, &invalid).starts_with("the subject refused a config its description generates: "));
    assert!(message(id, &invalid).contains("max_attempts"), "{}", message(id, &invalid));
    // Refused after the run began: blamed at the last event.
    let late = tampered(reference(policy(3), single(&[T, OK])), |trace| {
        trace.end = timelaw_core::TraceEnd::Aborted(Abort::InvalidConfig("late".into()));
    });
    check(id, late.clone(), last(&late));
    assert_eq!(message(id, &late), "the subject refused its config after the run began (8 events): late");
}

#[test]
fn a_long_run_cut_is_judged_only_past_the_promised_attempts() {
    let id = ids::TERMINATES;
    // One call promised 2 attempts, cut inside a long scripted run at the attempt limit 2.
    let cut = |attempts: u32| {
        let mut events = vec![(0, 0, 0, START)];
        for attempt in 1..=attempts {
            events.extend([(0, 0, attempt, ATTEMPT), (0, 0, attempt, FAILED), (0, 0, attempt, SLEPT)]);
        }
        let mut trace = hand_built(&events);
        trace.end = timelaw_core::TraceEnd::Aborted(Abort::LongRunCut { kind: LimitKind::Attempts, limit: 2 });
        observed(promise(2, ms(10)), single(&[T; 200]), trace)
    };
    // Exactly the promised attempts (and many more events than attempts): still only a cut.
    check(id, cut(2), Expect::Inconclusive);
    // One attempt more than promised: judged like the step limit, a violation.
    let past = cut(3);
    let last = past.trace.events.len() as u32 - 1;
    check(id, past, Expect::At(last));
}

/// Runs `subject` under `limits`.
fn limited<S: Subject>(subject: &S, config: &S::Config, schedule: Schedule, limits: Limits) -> Run {
    let trace = execute_with(subject, config, World::new(&schedule, SEED), limits);
    Run { contract: subject.contract(config), trace, schedule, replay: None, without_wall_jumps: None }
}

/// A rate limiter's caller: waits `waits` times for `wait` before its one attempt, like a token bucket
/// that admits a request only after many short waits. It ends; it is just long.
struct Waiter;

impl Subject for Waiter {
    type Config = (u32, VDuration);
    fn name(&self) -> &str {
        "waiter"
    }
    fn contract(&self, _: &(u32, VDuration)) -> Contract {
        Contract { retry: RetryContract { max_attempts: Some(1), ..RetryContract::default() }, ..Contract::default() }
    }
    fn run(&self, &(waits, wait): &(u32, VDuration), world: &mut World<'_>) -> Result<(), Abort> {
        while world.start_call()?.is_some() {
            for _ in 0..waits {
                world.sleep(wait)?;
            }
            world.dispatch()?;
            world.end_call(CallResult::Ok)?;
        }
        Ok(())
    }
}

#[test]
fn long_finite_loops_terminate() {
    let id = ids::TERMINATES;
    let schedule = || single(&[OK]);
    // The rate limiter of the issue: 5,010 short waits to admit its requests.
    check(id, limited(&Waiter, &(5010, ms(1)), schedule(), Limits::default()), Expect::Holds);
    check(id, limited(&Waiter, &(16_384, ms(1)), schedule(), Limits::default()), Expect::Holds);
    let endless = limited(&Waiter, &(u32::MAX, ms(1)), schedule(), Limits::default());
    check(id, endless.clone(), last(&endless));
    let lowered = Limits { sleeps_max: 1024, ..Limits::default() };
    let cut = limited(&Waiter, &(5010, ms(1)), schedule(), lowered);
    check(id, cut.clone(), Expect::Inconclusive);
    assert!(
        matches!(cut.judge(id), Verdict::Inconclusive(why) if why.starts_with("stopped at the step limit (1024 sleeps)"))
    );
    // Sleeping past the virtual time limit is not a loop.
    let years = limited(&Waiter, &(2, VDuration::MAX), schedule(), Limits::default());
    check(id, years.clone(), Expect::Inconclusive);
    assert!(
        matches!(years.judge(id), Verdict::Inconclusive(why) if why.starts_with("stopped at the virtual time limit"))
    );
}
