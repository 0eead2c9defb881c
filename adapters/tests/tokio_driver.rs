//! The paused-time tokio driver: what it records, its tie rule, cancellation, gaps, hangs and panics.

use std::time::Duration;

use timelaw_adapters::tokio_driver::run_tokio;
use timelaw_core::{
    execute, Abort, CallResult, CallScript, Contract, ErrorKind, EventKind, Outcome, Schedule, Step, Subject, TraceEnd,
    VDuration, World,
};

/// Application code under test: one attempt under its own timeout (`timed_attempt`, which is
/// `tokio::time::timeout(timeout_ms, w.attempt())`), then (when
/// `sleep_ms` is set) a recorded sleep and a second attempt; panics on a fatal outcome when asked to.
struct App {
    panic_on_fatal: bool,
}

impl Subject for App {
    type Config = (u64, Option<u64>);
    fn name(&self) -> &str {
        "app"
    }
    fn contract(&self, _: &(u64, Option<u64>)) -> Contract {
        Contract::default()
    }
    fn run(&self, &(timeout_ms, sleep_ms): &(u64, Option<u64>), world: &mut World<'_>) -> Result<(), Abort> {
        let limit = Duration::from_millis(timeout_ms);
        let panic_on_fatal = self.panic_on_fatal;
        run_tokio(world, |w| async move {
            w.for_each_call(|_call| async {
                let first = match w.timed_attempt(limit).await {
                    Ok(outcome) => outcome?,
                    Err(_elapsed) => return Ok(CallResult::Err(ErrorKind::Timeout)),
                };
                assert!(!(panic_on_fatal && first == Outcome::Fatal), "fatal outcome");
                let Some(sleep_ms) = sleep_ms else { return Ok(CallResult::from_outcome(first)) };
                w.sleep(Duration::from_millis(sleep_ms)).await;
                Ok(CallResult::from_outcome(w.attempt().await?))
            })
            .await
        })
    }
}

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// `(instant, kind)` of every event.
fn events(config: (u64, Option<u64>), schedule: &Schedule) -> Vec<(u64, EventKind)> {
    let trace = execute(&App { panic_on_fatal: false }, &config, schedule, 0);
    assert_eq!(trace.end, TraceEnd::Complete);
    trace.events.iter().map(|event| (event.at.as_nanos(), event.kind)).collect()
}

/// The end of the first attempt of a one-step schedule under a 50 ms timeout.
#[track_caller]
fn check_first_attempt(step: Step, expect: (u64, EventKind)) {
    let found = events((50, None), &Schedule::single(vec![step]));
    assert_eq!(found[2], expect, "{found:?}");
}

#[test]
fn tie_at_the_timeout_goes_to_the_inner_future() {
    let timed_out = EventKind::AttemptTimedOut { timeout: ms(50) };
    let ended = |outcome| EventKind::AttemptEnd { outcome };
    check_first_attempt(Step::new(ms(49), Outcome::Transient), (ms(49).as_nanos(), ended(Outcome::Transient)));
    // Tie: tokio's `Timeout::poll` polls the inner future first (TieRule::InnerWins).
    check_first_attempt(Step::new(ms(50), Outcome::Transient), (ms(50).as_nanos(), ended(Outcome::Transient)));
    check_first_attempt(Step::new(ms(51), Outcome::Ok), (ms(50).as_nanos(), timed_out));
    check_first_attempt(Step::new(VDuration::ZERO, Outcome::Hang), (ms(50).as_nanos(), timed_out));
}

#[test]
fn timers_fire_on_whole_milliseconds() {
    // A 10.5 ms attempt ends on tokio's next tick, 11 ms; zero-duration attempts take no time.
    let half = VDuration::from_micros(10_500);
    let found = events((50, None), &Schedule::single(vec![Step::new(half, Outcome::Ok)]));
    assert_eq!(found[2], (ms(11).as_nanos(), EventKind::AttemptEnd { outcome: Outcome::Ok }));
    let found = events((50, None), &Schedule::single(vec![Step::instant(Outcome::Ok)]));
    assert_eq!(found[2], (0, EventKind::AttemptEnd { outcome: Outcome::Ok }));
}

#[test]
fn sleeps_and_gaps_follow_tokio_clock() {
    let mut schedule = Schedule::new(vec![CallScript::outcomes(&[Outcome::Transient]); 2]);
    schedule.calls[1].gap_before = ms(1000);
    let found = events((50, Some(20)), &schedule);
    let kinds: Vec<u64> = found.iter().map(|(at, _)| *at / 1_000_000).collect();
    assert_eq!(kinds, vec![0, 0, 0, 0, 20, 20, 20, 1020, 1020, 1020, 1020, 1040, 1040, 1040]);
    assert_eq!(found[3].1, EventKind::SleepRequested { duration: ms(20) });
}

#[test]
fn cancellation_cuts_at_its_exact_instant() {
    let mut schedule = Schedule::single(vec![Step::instant(Outcome::Transient)]);
    let at = VDuration::from_nanos(7_654_321);
    schedule.calls[0].cancel_after = Some(at);
    let found = events((50, Some(20)), &schedule);
    let tail: Vec<(u64, EventKind)> = found[found.len() - 2..].to_vec();
    let cancelled = EventKind::CallEnd { result: CallResult::Err(ErrorKind::Cancelled) };
    assert_eq!(tail, vec![(at.as_nanos(), EventKind::SleepCancelled), (at.as_nanos(), cancelled)]);
    // Cancelled in flight: the attempt records the cut, not a timeout.
    let mut schedule = Schedule::single(vec![Step::new(ms(30), Outcome::Ok)]);
    schedule.calls[0].cancel_after = Some(ms(10));
    let found = events((50, None), &schedule);
    assert_eq!(found[2], (ms(10).as_nanos(), EventKind::AttemptCancelled));
    // Cancelled at its start: nothing runs.
    schedule.calls[0].cancel_after = Some(VDuration::ZERO);
    assert_eq!(events((50, None), &schedule).len(), 2);
}

#[test]
fn a_hang_with_nothing_to_cut_it_aborts() {
    let schedule = Schedule::single(vec![Step::instant(Outcome::Hang)]);
    let trace = execute(&App { panic_on_fatal: false }, &(u64::MAX / 1_000_000, None), &schedule, 0);
    assert_eq!(trace.end, TraceEnd::Aborted(Abort::Hung { call: 0, attempt: 1 }));
}

#[test]
fn a_panic_keeps_the_events_before_it() {
    let schedule = Schedule::single(vec![Step::new(ms(3), Outcome::Fatal)]);
    let trace = execute(&App { panic_on_fatal: true }, &(50, None), &schedule, 0);
    assert_eq!(trace.end, TraceEnd::Panicked("fatal outcome".to_owned()));
    let kinds: Vec<EventKind> = trace.events.iter().map(|event| event.kind).collect();
    assert_eq!(
        kinds[..3],
        [
            EventKind::CallStart { idempotent: true },
            EventKind::AttemptStart,
            EventKind::AttemptEnd { outcome: Outcome::Fatal }
        ]
    );
    assert_eq!(kinds.last(), Some(&EventKind::Panic));
}

#[test]
fn runs_are_deterministic() {
    use timelaw_adapters::backon::{BackonBuilder, BackonExponentialConfig, BackonRetry, BackonRetryConfig};
    let config = BackonRetryConfig {
        backoff: BackonBuilder::Exponential(BackonExponentialConfig { jitter: true, ..Default::default() }),
        notify: true,
    };
    let schedule = Schedule::single(vec![Step::new(VDuration::from_micros(1500), Outcome::Transient); 3]);
    let first = execute(&BackonRetry, &config, &schedule, 42);
    assert_eq!(first.digest(), execute(&BackonRetry, &config, &schedule, 42).digest());
    assert_ne!(first.digest(), execute(&BackonRetry, &config, &schedule, 43).digest(), "jitter follows the seed");
}

/// Who wraps the one attempt of [`Wrapped`]: an attempt timeout and a deadline around the whole call.
#[derive(Clone, Copy)]
enum Wrap {
    /// `tokio::time::timeout(deadline, w.timed_attempt(timeout))`.
    TimedUnderDeadline,
    /// `tokio::time::timeout(deadline, tokio::time::timeout(timeout, w.attempt()))`: the driver cannot
    /// see the bare inner timer.
    BareUnderDeadline,
}

/// One attempt under an attempt timeout of `timeout_ms` inside a deadline of `deadline_ms`.
struct Wrapped(Wrap);

impl Subject for Wrapped {
    type Config = (u64, u64);
    fn name(&self) -> &str {
        "wrapped"
    }
    fn contract(&self, _: &(u64, u64)) -> Contract {
        Contract::default()
    }
    fn run(&self, &(timeout_ms, deadline_ms): &(u64, u64), world: &mut World<'_>) -> Result<(), Abort> {
        let (limit, deadline, wrap) = (Duration::from_millis(timeout_ms), Duration::from_millis(deadline_ms), self.0);
        run_tokio(world, |w| async move {
            w.for_each_call(|_call| async {
                let attempt = async {
                    match wrap {
                        Wrap::TimedUnderDeadline => w.timed_attempt(limit).await,
                        Wrap::BareUnderDeadline => tokio::time::timeout(limit, w.attempt()).await,
                    }
                };
                Ok(match tokio::time::timeout(deadline, attempt).await {
                    Ok(Ok(outcome)) => CallResult::from_outcome(outcome?),
                    Ok(Err(_elapsed)) => CallResult::Err(ErrorKind::Timeout),
                    Err(_elapsed) => CallResult::Err(ErrorKind::DeadlineExceeded),
                })
            })
            .await
        })
    }
}

/// The event ending the one attempt of a 100 ms step, with an attempt timeout and a deadline.
#[track_caller]
fn check_cut(wrap: Wrap, (timeout_ms, deadline_ms): (u64, u64), expect: (u64, EventKind)) {
    let schedule = Schedule::single(vec![Step::new(ms(100), Outcome::Ok)]);
    let trace = execute(&Wrapped(wrap), &(timeout_ms, deadline_ms), &schedule, 0);
    assert_eq!(trace.end, TraceEnd::Complete);
    let found = (trace.events[2].at.as_nanos(), trace.events[2].kind);
    assert_eq!(found, expect, "{:?}", trace.events);
}

#[test]
fn only_the_attempts_own_timer_records_a_timeout() {
    let timed_out = |after| (ms(after).as_nanos(), EventKind::AttemptTimedOut { timeout: ms(after) });
    let dropped = |after| (ms(after).as_nanos(), EventKind::AttemptDropped { ran: ms(after) });
    check_cut(Wrap::TimedUnderDeadline, (50, 80), timed_out(50));
    check_cut(Wrap::TimedUnderDeadline, (80, 50), dropped(50));
    // Both due at 60 ms: tokio polls the inner future first, so the attempt's own timer cuts it.
    check_cut(Wrap::TimedUnderDeadline, (60, 60), timed_out(60));
    // A bare `tokio::time::timeout` is invisible to the driver: any cut under it is just a drop.
    check_cut(Wrap::BareUnderDeadline, (50, 80), dropped(50));
    check_cut(Wrap::BareUnderDeadline, (80, 50), dropped(50));
}

#[test]
fn a_deadline_cut_on_the_timeout_boundary_is_not_blamed_on_the_tie_rule() {
    use timelaw_adapters::tokio_timeout_loop::{TokioTimeoutLoop, TokioTimeoutLoopConfig};
    use timelaw_laws::{Catalogue, Observation};
    // The case once pinned as a known violation of `timeout_boundary_is_expired`: the call starts 1 ns
    // off tokio's millisecond grid, and its 380 ms deadline fires (on the tick, so a little late) at
    // exactly the start of attempt 3 plus its 59 ms timeout, dropping the attempt there.
    let config =
        TokioTimeoutLoopConfig { max_attempts: 12, attempt_timeout: ms(59), delay: ms(100), deadline: Some(ms(380)) };
    let steps =
        vec![Step::new(ms(59), Outcome::Transient), Step::new(ms(60), Outcome::Ok), Step::new(ms(59), Outcome::Ok)];
    let mut schedule = Schedule::single(steps);
    schedule.calls[0].gap_before = VDuration::from_nanos(1);
    let trace = execute(&TokioTimeoutLoop, &config, &schedule, 0);
    let cut = trace.events[8];
    assert_eq!((cut.at.as_nanos(), cut.attempt), (381_000_001, 3));
    assert_eq!(cut.kind, EventKind::AttemptDropped { ran: ms(59) }, "the deadline, not the attempt's timer, cut it");
    assert_eq!(trace.events[5].kind, EventKind::AttemptTimedOut { timeout: ms(60) }, "attempt 2's own timer cut it");
    let contract = TokioTimeoutLoop.contract(&config);
    let observation = Observation::single_run(&schedule, 0, &contract, &trace);
    let catalogue = Catalogue::standard();
    for id in ["timeout_boundary_is_expired", "timeout_translated_to_err", "result_matches_last_attempt"] {
        let verdict = catalogue.get(id).unwrap().judge(&observation);
        assert!(!verdict.is_violated(), "{id}: {verdict}");
    }
}
