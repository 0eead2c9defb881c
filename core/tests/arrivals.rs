//! Arrivals as data: when each call of a schedule starts, for a sequential subject (one call at a time)
//! and, in `concurrent.rs`, for a concurrent one.

use timelaw_core::{
    execute, Abort, AttemptResult, CallResult, CallScript, Contract, ErrorKind, EventKind, Outcome, Schedule, Step,
    Subject, VDuration, World,
};

/// One attempt per call, one call at a time.
struct Sequential;

impl Subject for Sequential {
    type Config = ();
    fn name(&self) -> &str {
        "sequential"
    }
    fn contract(&self, _: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            Ok(match world.dispatch()? {
                AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
                _ => CallResult::Err(ErrorKind::Cancelled),
            })
        })
    }
}

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// The start instant (ms) of every call when a sequential subject serves calls of
/// `(gap_before ms, arrival ms, duration ms)`.
#[track_caller]
fn check(calls: &[(u64, Option<u64>, u64)], expect_ms: &[u64]) {
    let calls = calls.iter().map(|&(gap, arrival, took)| CallScript {
        gap_before: ms(gap),
        arrival: arrival.map(ms),
        ..CallScript::new(vec![Step::new(ms(took), Outcome::Ok)])
    });
    let schedule = Schedule::new(calls.collect());
    let trace = execute(&Sequential, &(), &schedule, 0);
    assert!(trace.is_complete(), "{:?}", trace.end);
    let starts: Vec<u64> = trace
        .events
        .iter()
        .filter(|event| matches!(event.kind, EventKind::CallStart { .. }))
        .map(|event| event.at.as_nanos() / 1_000_000)
        .collect();
    assert_eq!(starts, expect_ms, "{schedule:?}");
}

#[test]
fn a_sequential_subject_starts_a_call_at_its_arrival_or_when_the_previous_one_ends() {
    // (gap_before, arrival, duration): without arrivals, gap after the previous end.
    check(&[(0, None, 10), (5, None, 1)], &[0, 15]);
    // Arrivals after the previous end: the call starts at its arrival.
    check(&[(0, Some(0), 10), (0, Some(30), 1)], &[0, 30]);
    // An arrival while the previous call runs: it waits in the caller's queue.
    check(&[(0, Some(0), 10), (0, Some(4), 1), (0, Some(4), 1)], &[0, 10, 11]);
    // The first call arriving later starts later; equal arrivals at 0.
    check(&[(0, Some(7), 0), (0, Some(7), 0)], &[7, 7]);
    // A gap on a call with an arrival is not used.
    check(&[(0, Some(2), 0), (9, Some(3), 0)], &[2, 3]);
}
