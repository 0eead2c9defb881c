//! A busy-wait on the World's clock or randomness records nothing and never moves the clock: it stops at
//! `Limits::idle_calls_max` (a step limit, deterministic, no wall clock), sync and async; a subject that
//! reads between events, however often, is never stopped by it. The heartbeat counts progress only.

use timelaw_core::exec::run_async;
use timelaw_core::{
    execute_with, Abort, CallResult, Contract, Heartbeat, LimitKind, Limits, Outcome, Schedule, Step, Subject,
    TraceEnd, VDuration, World,
};

/// Test subjects that wait in different ways after one failed attempt.
#[derive(Clone, Copy, Debug)]
enum Waiter {
    /// `while world.read_now()? < until {}`: the clock never moves.
    ReadsTheClock,
    /// Draws random numbers until one is zero (never, in practice).
    DrawsUntilZero,
    /// The same busy-wait on the monotonic clock, inside the async executor.
    ReadsTheClockAsync,
    /// Reads the clock `n` times between 1 ns sleeps until the delay passed: slow, but it moves time.
    ReadsBetweenSleeps(u32),
}

impl Subject for Waiter {
    type Config = ();
    fn name(&self) -> &str {
        "waiter"
    }
    fn contract(&self, _config: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _config: &(), world: &mut World<'_>) -> Result<(), Abort> {
        if let Waiter::ReadsTheClockAsync = self {
            return run_async(world, |w| async move {
                while w.start_call()?.is_some() {
                    w.dispatch().await?;
                    let until = w.now().saturating_add(VDuration::from_millis(5));
                    while w.with(|world| world.read_now())?.unwrap_or(until) < until {}
                    w.end_call(CallResult::Ok)?;
                }
                Ok(())
            });
        }
        world.for_each_call(|world, _call| {
            world.dispatch()?;
            let until = world.now().saturating_add(VDuration::from_millis(5));
            match *self {
                Waiter::ReadsTheClock => while world.read_now()?.unwrap_or(until) < until {},
                Waiter::DrawsUntilZero => while world.random_u64()? != 0 {},
                Waiter::ReadsBetweenSleeps(reads) => {
                    while world.read_now()?.unwrap_or(until) < until {
                        for _ in 1..reads {
                            world.read_now()?.ok();
                        }
                        world.sleep(VDuration::from_micros(500))?;
                    }
                }
                Waiter::ReadsTheClockAsync => unreachable!("served above"),
            }
            Ok(CallResult::Ok)
        })
    }
}

#[track_caller]
fn check(subject: Waiter, limits: Limits, expect: TraceEnd) {
    let schedule = Schedule::single(vec![Step::instant(Outcome::Transient)]);
    let trace = execute_with(&subject, &(), World::new(&schedule, 0), limits);
    assert_eq!(trace.end, expect, "{subject:?}");
}

#[test]
fn a_busy_wait_stops_at_the_idle_call_limit() {
    let default = Limits::default();
    let idle = |limit| TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::IdleCalls, limit });
    check(Waiter::ReadsTheClock, default, idle(65_536));
    check(Waiter::DrawsUntilZero, default, idle(65_536));
    check(Waiter::ReadsTheClockAsync, default, idle(65_536));
    check(Waiter::ReadsTheClock, Limits { idle_calls_max: 10, ..default }, idle(10));
    // Reads between sleeps never stop it: every sleep moves the clock, and the count starts again.
    check(Waiter::ReadsBetweenSleeps(65_536), default, TraceEnd::Complete);
    check(Waiter::ReadsBetweenSleeps(11), Limits { idle_calls_max: 10, ..default }, idle(10));
}

#[test]
fn the_idle_call_limit_reads_as_a_step_limit() {
    let abort = Abort::StepLimit { kind: LimitKind::IdleCalls, limit: 65_536 };
    let text =
        "stopped at the step limit (65536 clock reads and random draws in a row, with no event and no clock move)";
    assert_eq!(abort.to_string(), text);
    assert_eq!(Limits::default().get(LimitKind::IdleCalls), 65_536);
    let old: Limits = serde_json::from_str(r#"{"events_max":1,"attempts_max":2,"sleeps_max":3,"virtual_time_max":4}"#)
        .expect("limits written before idle_calls_max");
    assert_eq!(old.idle_calls_max, 65_536);
}

#[test]
fn the_heartbeat_counts_events_and_clock_moves_not_reads() {
    let schedule = Schedule::single(vec![Step::new(VDuration::from_millis(1), Outcome::Ok)]);
    let heartbeat = Heartbeat::new();
    let mut world = World::new(&schedule, 0).with_heartbeat(&heartbeat);
    world.start_call().unwrap(); // CallStart: 1
    let after_start = heartbeat.beats();
    world.read_now().unwrap().unwrap();
    world.random_u64().unwrap();
    assert_eq!(heartbeat.beats(), after_start, "reads and draws are no progress");
    world.dispatch().unwrap(); // AttemptStart, the clock's move, AttemptEnd
    assert_eq!(heartbeat.beats(), after_start + 3);
    world.sleep(VDuration::ZERO).unwrap(); // SleepRequested; the clock stays
    assert_eq!(heartbeat.beats(), after_start + 4);
}
