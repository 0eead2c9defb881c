//! Sleeps as users pass them, up to `Duration::MAX`: the World saturates what it cannot represent,
//! records it as clamped, cuts the run at its time limit, and never panics.

use std::time::Duration;

use timelaw_core::{
    execute, Abort, CallResult, Contract, EventKind, Outcome, Schedule, Step, Subject, TraceEnd, VDuration, World,
};

/// Sleeps its duration once after the first attempt.
struct SleepsStd;

impl Subject for SleepsStd {
    type Config = Duration;
    fn name(&self) -> &str {
        "sleeps-std"
    }
    fn contract(&self, _: &Duration) -> Contract {
        Contract::default()
    }
    fn run(&self, duration: &Duration, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            world.dispatch()?;
            world.sleep_std(*duration)?;
            Ok(CallResult::Ok)
        })
    }
}

#[track_caller]
fn check(duration: Duration, expect_sleep: VDuration, clamped: bool, cut: bool) {
    let schedule = Schedule::single(vec![Step::instant(Outcome::Transient)]);
    let trace = execute(&SleepsStd, &duration, &schedule, 0);
    let kinds: Vec<EventKind> = trace.events.iter().map(|event| event.kind).collect();
    assert!(kinds.contains(&EventKind::SleepRequested { duration: expect_sleep }), "{kinds:?}");
    assert_eq!(kinds.contains(&EventKind::SleepClamped { to: VDuration::MAX }), clamped, "{kinds:?}");
    assert_eq!(trace.end.is_time_limit_cut(), cut, "{:?}", trace.end);
    assert!(!matches!(trace.end, TraceEnd::Panicked(_)));
}

#[test]
fn sleeps_up_to_duration_max() {
    check(Duration::from_millis(5), VDuration::from_millis(5), false, false);
    check(Duration::from_nanos(u64::MAX), VDuration::MAX, false, true);
    check(Duration::from_nanos(u64::MAX) + Duration::from_nanos(1), VDuration::MAX, true, true);
    check(Duration::MAX, VDuration::MAX, true, true);
}

/// Sleeps its duration once after the first attempt through the documented sync loop's `sleep`.
struct LoopSleeps;

impl Subject for LoopSleeps {
    type Config = Duration;
    fn name(&self) -> &str {
        "loop-sleeps"
    }
    fn contract(&self, _: &Duration) -> Contract {
        Contract::default()
    }
    fn run(&self, duration: &Duration, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            world.dispatch()?;
            Ok(timelaw_core::sync_loop::sleep(world, *duration)?.unwrap_or(CallResult::Ok))
        })
    }
}

/// The kinds of the events of `subject` sleeping `duration`, the call cancelled after `cancel_after`.
fn events<S: Subject<Config = Duration>>(
    subject: &S,
    duration: Duration,
    cancel_after: Option<VDuration>,
) -> Vec<EventKind> {
    let mut schedule = Schedule::single(vec![Step::instant(Outcome::Transient)]);
    schedule.calls[0].cancel_after = cancel_after;
    let trace = execute(subject, &duration, &schedule, 0);
    assert!(!matches!(trace.end, TraceEnd::Panicked(_)), "{:?}", trace.end);
    trace.events.iter().map(|event| event.kind).collect()
}

#[test]
fn the_sync_loop_records_a_sleep_past_the_world_as_clamped() {
    let clamped = EventKind::SleepClamped { to: VDuration::MAX };
    for (duration, expect) in [(Duration::from_nanos(u64::MAX), false), (Duration::MAX, true)] {
        let kinds = events(&LoopSleeps, duration, None);
        assert!(kinds.contains(&EventKind::SleepRequested { duration: VDuration::MAX }), "{kinds:?}");
        assert_eq!(kinds.contains(&clamped), expect, "{duration:?}: {kinds:?}");
    }
}

#[test]
fn a_cancellation_cuts_a_clamped_sleep() {
    let second = Some(VDuration::from_secs(1));
    for kinds in [events(&SleepsStd, Duration::MAX, second), events(&LoopSleeps, Duration::MAX, second)] {
        assert!(kinds.contains(&EventKind::SleepClamped { to: VDuration::MAX }), "{kinds:?}");
        assert!(kinds.contains(&EventKind::SleepCancelled), "{kinds:?}");
    }
}
