//! Count limits inside long scripted runs are cuts; a subject that loops without consuming its script
//! still stops at a step limit (`terminates` judges it).

use timelaw_core::reference::{Backoff, Policy, Reference};
use timelaw_core::{
    execute_with, Abort, AttemptResult, CallResult, Contract, LimitKind, Limits, Outcome, Schedule, Step, Subject,
    TraceEnd, VDuration, World,
};

/// Test subjects that loop in different ways.
#[derive(Clone, Copy, Debug)]
enum Looper {
    /// Dispatches until an attempt succeeds, with no attempt limit of its own.
    UntilOk,
    /// Sleeps 1 ms in a loop and never dispatches.
    SleepsForever,
    /// Dispatches once, then notifies without end.
    NotifiesForever,
}

impl Subject for Looper {
    type Config = ();
    fn name(&self) -> &str {
        "looper"
    }
    fn contract(&self, _config: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _config: &(), world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _call| loop {
            match self {
                Looper::UntilOk => {
                    if world.dispatch()? == AttemptResult::Completed(Outcome::Ok) {
                        return Ok(CallResult::Ok);
                    }
                }
                Looper::SleepsForever => {
                    world.sleep(VDuration::from_millis(1))?;
                }
                Looper::NotifiesForever => {
                    if world.trace().events.len() < 2 {
                        world.dispatch()?;
                    }
                    world.notify(VDuration::from_millis(1))?;
                }
            }
        })
    }
}

fn failing(count: u32) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient).repeated(count)])
}

const LIMITS: Limits = Limits {
    events_max: 4_000,
    attempts_max: 1_000,
    sleeps_max: 1_000,
    virtual_time_max: VDuration::MAX,
    idle_calls_max: 65_536,
};

#[track_caller]
fn check<S: Subject>(subject: &S, config: &S::Config, schedule: &Schedule, expect: TraceEnd) {
    let trace = execute_with(subject, config, World::new(schedule, 0), LIMITS);
    assert_eq!(trace.end, expect);
    assert_eq!(trace.end.is_long_run_cut(), matches!(expect, TraceEnd::Aborted(Abort::LongRunCut { .. })));
}

fn cut(kind: LimitKind, limit: u64) -> TraceEnd {
    TraceEnd::Aborted(Abort::LongRunCut { kind, limit })
}

fn stopped(kind: LimitKind, limit: u64) -> TraceEnd {
    TraceEnd::Aborted(Abort::StepLimit { kind, limit })
}

#[test]
fn long_scripted_runs_are_cut_and_explosions_are_stopped() {
    let retry = |max_attempts| Policy::new(max_attempts, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    // Holds: the subject stops at its own limit, long before the World's.
    check(&Reference, &retry(40), &failing(100_000), TraceEnd::Complete);
    // Cut: 100,000 scripted failures, a subject allowed 100,000 attempts, attempts limit 1,000.
    check(&Reference, &retry(100), &failing(100_000), TraceEnd::Complete);
    let tight = Limits { attempts_max: 50, ..LIMITS };
    let trace = execute_with(&Reference, &retry(100), World::new(&failing(100_000), 0), tight);
    assert_eq!(trace.end, cut(LimitKind::Attempts, 50));
    check(&Looper::UntilOk, &(), &failing(100_000), cut(LimitKind::Attempts, 1_000));
    // The script ends after 10 failures and the 11th attempt succeeds: no limit is reached.
    check(&Looper::UntilOk, &(), &failing(10), TraceEnd::Complete);
    // Explosions: sleeping or notifying without consuming the script.
    check(&Looper::SleepsForever, &(), &failing(100_000), stopped(LimitKind::Sleeps, 1_000));
    check(&Looper::NotifiesForever, &(), &failing(100_000), stopped(LimitKind::Events, 4_000));
}

#[test]
fn dispatching_past_the_end_of_the_script_is_not_a_long_run() {
    // Every dispatch past the script is `Step::PAST_END` (Ok); a subject retrying Ok answers consumes no
    // script, so reaching the attempt limit then is a step limit, not a cut.
    struct IgnoresOk;
    impl Subject for IgnoresOk {
        type Config = ();
        fn name(&self) -> &str {
            "ignores-ok"
        }
        fn contract(&self, _config: &()) -> Contract {
            Contract::default()
        }
        fn run(&self, _config: &(), world: &mut World<'_>) -> Result<(), Abort> {
            world.for_each_call(|world, _call| loop {
                world.dispatch()?;
            })
        }
    }
    check(&IgnoresOk, &(), &failing(10), stopped(LimitKind::Attempts, 1_000));
    check(&IgnoresOk, &(), &failing(100_000), cut(LimitKind::Attempts, 1_000));
}
