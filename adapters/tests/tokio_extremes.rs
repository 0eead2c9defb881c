//! The tokio driver at the extremes: tokio clamps every sleep to 30 years; the driver records the clamp,
//! its watchdog still stops runs at the World's limit (not tokio's), and `retry_after_honored` judges
//! what the subject asked for.

use std::time::Duration;

use timelaw_adapters::tokio_driver::{run_tokio, TOKIO_SLEEP_MAX};
use timelaw_core::{
    execute, Abort, CallResult, Contract, EventKind, Outcome, RateContract, Schedule, Step, Subject, Trace, TraceEnd,
    VDuration, World,
};
use timelaw_laws::{catalogue::RETRY_AFTER_HONORED, Observation, Verdict};

const YEAR: Duration = Duration::from_secs(365 * 86_400);

/// Sleeps each of its durations with a recorded `tokio::time::sleep` after every failed attempt; with
/// `retry_after` it sleeps the rate limit's retry-after instead.
struct Sleeper {
    retry_after: bool,
}

impl Subject for Sleeper {
    type Config = Vec<Duration>;
    fn name(&self) -> &str {
        "sleeper"
    }
    fn contract(&self, _: &Vec<Duration>) -> Contract {
        Contract { rate: RateContract { honors_retry_after: true, ..RateContract::default() }, ..Contract::default() }
    }
    fn run(&self, sleeps: &Vec<Duration>, world: &mut World<'_>) -> Result<(), Abort> {
        let retry_after = self.retry_after;
        run_tokio(world, |w| async move {
            w.for_each_call(|_call| async {
                let mut outcome = w.attempt().await?;
                for sleep in sleeps {
                    let asked = match outcome {
                        Outcome::RateLimited { retry_after: after } if retry_after => after.to_std(),
                        _ => *sleep,
                    };
                    w.sleep(asked).await;
                    outcome = w.attempt().await?;
                }
                Ok(CallResult::from_outcome(outcome))
            })
            .await
        })
    }
}

fn run(subject: &Sleeper, sleeps: &[Duration], schedule: &Schedule) -> Trace {
    execute(subject, &sleeps.to_vec(), schedule, 0)
}

fn years(trace: &Trace) -> Vec<u64> {
    let year = VDuration::from_std(YEAR).as_nanos();
    trace.events.iter().filter(|e| e.kind == EventKind::AttemptStart).map(|e| e.at.as_nanos() / year).collect()
}

#[test]
fn long_sleeps_are_clamped_and_recorded_and_runs_reach_the_worlds_limit() {
    let transient = Schedule::single(vec![Step::instant(Outcome::Transient); 4]);
    // Three sleeps of 40 years: tokio wakes after 30 each; the run reaches 90 years and completes
    // (the driver's watchdog used to fire at tokio's 30 years, as the World's 100-year limit).
    let trace = run(&Sleeper { retry_after: false }, &[YEAR * 40; 3], &transient);
    assert_eq!(trace.end, TraceEnd::Complete, "{:?}", trace.end);
    assert_eq!(years(&trace), vec![0, 30, 60, 90]);
    let clamped = EventKind::SleepClamped { to: VDuration::from_std(TOKIO_SLEEP_MAX) };
    assert_eq!(trace.events.iter().filter(|e| e.kind == clamped).count(), 3);
    // A sleep of exactly tokio's maximum is not clamped.
    let trace = trace_of_max();
    assert!(trace.events.iter().all(|e| !matches!(e.kind, EventKind::SleepClamped { .. })));
    // Four sleeps of 30 years pass the World's 100-year limit: cut there, with the right limit.
    let trace = run(&Sleeper { retry_after: false }, &[TOKIO_SLEEP_MAX; 4], &transient);
    assert!(trace.end.is_time_limit_cut(), "{:?}", trace.end);
    let TraceEnd::Aborted(abort) = &trace.end else { unreachable!() };
    assert_eq!(abort.to_string(), "stopped at the virtual time limit (3153600000s)");
}

fn trace_of_max() -> Trace {
    run(&Sleeper { retry_after: false }, &[TOKIO_SLEEP_MAX], &Schedule::single(vec![Step::instant(Outcome::Transient)]))
}

#[track_caller]
fn check_retry_after(subject: &Sleeper, retry_after: Duration, violated: bool) {
    let limited = Outcome::RateLimited { retry_after: VDuration::from_std(retry_after) };
    let schedule = Schedule::single(vec![Step::instant(limited), Step::instant(Outcome::Ok)]);
    let trace = run(subject, &[TOKIO_SLEEP_MAX], &schedule);
    let contract = subject.contract(&Vec::new());
    let observation = Observation::single_run(&schedule, 0, &contract, &trace);
    let verdict = RETRY_AFTER_HONORED.judge(&observation);
    assert_eq!(matches!(verdict, Verdict::Violated(_)), violated, "{verdict:?} {:?}", trace.events);
}

#[test]
fn retry_after_near_the_maximum_is_judged_on_what_the_subject_asked() {
    let honest = Sleeper { retry_after: true };
    check_retry_after(&honest, YEAR * 2, false);
    // tokio wakes the honest subject after 30 years; it asked for 50: the law holds.
    check_retry_after(&honest, YEAR * 50, false);
    check_retry_after(&honest, Duration::from_nanos(u64::MAX), false);
    // A subject that sleeps only 30 years for a 50-year retry-after asked too little: violated.
    check_retry_after(&Sleeper { retry_after: false }, YEAR * 50, true);
}
