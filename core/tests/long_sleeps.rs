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
