//! A future that waits for nothing that can wake it (no timer, no ready task) is a deadlock, told apart
//! from a long sleep past the World's time limit (a cut); a busy-wait on the World's clock stops at the
//! idle-call limit. Sequential and overlapping calls.

use std::rc::Rc;
use std::time::Duration;

use timelaw_core::{
    execute, Abort, CallResult, CallScript, Contract, EventKind, LimitKind, Outcome, Schedule, Step, Subject, TraceEnd,
    VDuration, World,
};
use timelaw_tokio::tokio::sync::Semaphore;
use timelaw_tokio::{serve_calls, serve_calls_concurrently};

/// What a subject does after its first attempt fails fatally.
#[derive(Clone, Copy, Debug)]
enum After {
    /// Returns the error: correct.
    Returns,
    /// Awaits a future that never completes: a deadlock.
    AwaitsForever,
    /// Sleeps (recorded) 20 years, six times: past the 100-year limit, a cut, not a deadlock.
    SleepsLong,
    /// Waits on a timer 500 years away (`sleep_until`, never clamped by tokio): a cut too.
    WaitsUntilFarAway,
    /// Records a sleep of 100,000 years and waits for it with `sleep_until` (as tokio-retry2 does):
    /// however far, a recorded sleep is a cut.
    SleepsRecordedFarAway,
    /// `while now < until {}` on the World's clock: stopped at the idle-call limit.
    BusyWaits,
    /// Every call waits for a permit nobody releases (overlapping calls): a deadlock.
    WaitsForAPermit,
}

impl Subject for After {
    type Config = ();
    fn name(&self) -> &str {
        "after-fatal"
    }
    fn contract(&self, _: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
        let after = *self;
        let permits = Rc::new(Semaphore::new(0));
        serve_calls_concurrently(world, move |w, _call| {
            let permits = Rc::clone(&permits);
            async move {
                if let After::WaitsForAPermit = after {
                    let _permit = permits.acquire().await;
                }
                let outcome = w.attempt().await?;
                match after {
                    After::Returns | After::WaitsForAPermit => {}
                    After::AwaitsForever => std::future::pending::<()>().await,
                    After::SleepsLong => {
                        for _ in 0..6 {
                            w.sleep(Duration::from_secs(20 * 365 * 86_400)).await;
                        }
                    }
                    After::WaitsUntilFarAway => {
                        let until = timelaw_tokio::time::Instant::now() + Duration::from_secs(500 * 365 * 86_400);
                        timelaw_tokio::time::sleep_until(until).await;
                    }
                    After::SleepsRecordedFarAway => {
                        let far = Duration::from_secs(100_000 * 365 * 86_400);
                        w.recorder().record_sleep(far);
                        timelaw_tokio::time::sleep_until(timelaw_tokio::time::Instant::now() + far).await;
                    }
                    After::BusyWaits => {
                        let until = w.now().saturating_add(VDuration::from_millis(10));
                        while w.with(|world| world.read_now())?.unwrap_or(until) < until {}
                    }
                }
                Ok(CallResult::from_outcome(outcome))
            }
        })
    }
}

#[track_caller]
fn check(after: After, calls: Vec<CallScript>, expect: TraceEnd) {
    let trace = execute(&after, &(), &Schedule::new(calls), 0);
    assert_eq!(trace.end, expect, "{after:?}: {:?}", trace.events);
}

fn fatal() -> CallScript {
    CallScript::new(vec![Step::new(VDuration::from_millis(3), Outcome::Fatal)])
}

#[test]
fn a_future_waiting_for_nothing_is_a_deadlock_and_a_long_sleep_is_a_cut() {
    let cut = TraceEnd::Aborted(Abort::StepLimit {
        kind: LimitKind::VirtualTime,
        limit: timelaw_core::Limits::default().virtual_time_max.as_nanos(),
    });
    let idle = TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::IdleCalls, limit: 65_536 });
    check(After::Returns, vec![fatal()], TraceEnd::Complete);
    check(After::AwaitsForever, vec![fatal()], TraceEnd::Aborted(Abort::Deadlock { call: 0 }));
    check(After::AwaitsForever, vec![fatal(), fatal()], TraceEnd::Aborted(Abort::Deadlock { call: 0 }));
    check(After::SleepsLong, vec![fatal()], cut.clone());
    check(After::WaitsUntilFarAway, vec![fatal()], cut.clone());
    check(After::SleepsRecordedFarAway, vec![fatal()], cut);
    check(After::BusyWaits, vec![fatal()], idle);
    // Overlapping calls: both wait for a permit nobody releases.
    let arriving = vec![fatal().arriving(VDuration::ZERO), fatal().arriving(VDuration::from_millis(1))];
    check(After::WaitsForAPermit, arriving.clone(), TraceEnd::Aborted(Abort::Deadlock { call: 1 }));
    check(After::AwaitsForever, arriving, TraceEnd::Aborted(Abort::Deadlock { call: 1 }));
}

/// A deadlock records nothing after the instant it began: the trace ends with the fatal attempt at 3 ms.
#[test]
fn a_deadlock_ends_the_trace_where_the_subject_stopped() {
    let trace = execute(&After::AwaitsForever, &(), &Schedule::new(vec![fatal()]), 0);
    let last = trace.events.last().expect("events");
    assert_eq!((last.kind, last.at.as_nanos()), (EventKind::AttemptEnd { outcome: Outcome::Fatal }, 3_000_000));
}

/// The sequential driver's twin of the first test (`serve_calls` directly).
#[test]
fn serve_calls_reports_a_deadlock_too() {
    struct Stuck;
    impl Subject for Stuck {
        type Config = ();
        fn name(&self) -> &str {
            "stuck"
        }
        fn contract(&self, _: &()) -> Contract {
            Contract::default()
        }
        fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
            serve_calls(world, |w, _call| async move {
                let (_keep, mut never) = timelaw_tokio::tokio::sync::mpsc::channel::<()>(1);
                w.attempt().await?;
                never.recv().await; // The sender is alive, and nobody sends.
                Ok(CallResult::Ok)
            })
        }
    }
    let trace = execute(&Stuck, &(), &Schedule::new(vec![fatal()]), 0);
    assert_eq!(trace.end, TraceEnd::Aborted(Abort::Deadlock { call: 0 }));
}
