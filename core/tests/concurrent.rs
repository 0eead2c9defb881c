//! Concurrent calls on the virtual-time executor (`run_async_calls`): overlapping calls, every event with
//! its own call, and the order of tasks ready at one instant taken from the case.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use timelaw_core::concurrent::run_async_calls;
use timelaw_core::exec::Elapsed;
use timelaw_core::{
    execute, Abort, AttemptResult, CallResult, CallScript, Contract, ErrorKind, EventKind, Misuse, Outcome, Rejection,
    Schedule, Step, Subject, TraceEnd, VDuration, World,
};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// Each call: sleeps `sleep_ms`, then one attempt under an optional timeout. The calls share one slot
/// ("the leader"): the first call to reach its attempt while the slot is free takes it, the others are
/// rejected, so which call was polled first shows in the trace.
struct Contended {
    sleep_ms: u64,
    timeout_ms: Option<u64>,
    /// Calls that take the slot release it when they end (a bulkhead of one) or never (a leader).
    release: bool,
}

impl Subject for Contended {
    type Config = ();
    fn name(&self) -> &str {
        "contended"
    }
    fn contract(&self, _: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
        let (sleep_ms, timeout_ms, release) = (self.sleep_ms, self.timeout_ms, self.release);
        let slot = Rc::new(Cell::new(false));
        run_async_calls(world, move |w, _call| {
            let slot = Rc::clone(&slot);
            async move {
                if sleep_ms > 0 {
                    w.sleep(ms(sleep_ms)).await?;
                }
                if slot.replace(true) {
                    w.with(|w| w.reject(Rejection::CircuitOpen))?;
                    return Ok(CallResult::Err(ErrorKind::CircuitOpen));
                }
                let attempt = match timeout_ms {
                    Some(limit) => match w.timeout(ms(limit), w.dispatch()).await {
                        Ok(attempt) => attempt?,
                        Err(Elapsed) => AttemptResult::TimedOut,
                    },
                    None => w.dispatch().await?,
                };
                if release {
                    slot.set(false);
                }
                Ok(match attempt {
                    AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
                    AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
                    AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
                })
            }
        })
    }
}

const LEADER: Contended = Contended { sleep_ms: 0, timeout_ms: None, release: false };
const BULKHEAD: Contended = Contended { sleep_ms: 0, timeout_ms: None, release: true };

/// `count` calls arriving at `arrival_ms`, each one attempt taking `took_ms`.
fn together(count: usize, arrival_ms: u64, took_ms: u64) -> Vec<CallScript> {
    let call = CallScript::new(vec![Step::new(ms(took_ms), Outcome::Ok)]).arriving(ms(arrival_ms));
    vec![call; count]
}

/// The trace as lines `t(ms) call kind`, for exact comparison.
fn lines(subject: &Contended, schedule: &Schedule) -> Vec<String> {
    let trace = execute(subject, &(), schedule, 0);
    let mut lines: Vec<String> = trace
        .events
        .iter()
        .map(|event| format!("{} c{} {}", event.at.as_nanos() / 1_000_000, event.call, short(event.kind)))
        .collect();
    if trace.end != TraceEnd::Complete {
        lines.push(format!("end {:?}", trace.end));
    }
    lines
}

fn short(kind: EventKind) -> String {
    match kind {
        EventKind::CallStart { .. } => "start".into(),
        EventKind::CallEnd { result } => format!("end {result:?}"),
        EventKind::AttemptStart => "attempt".into(),
        EventKind::AttemptEnd { outcome } => format!("done {}", outcome.name()),
        EventKind::AttemptTimedOut { .. } => "timed_out".into(),
        EventKind::AttemptCancelled => "cancelled".into(),
        EventKind::Rejected { .. } => "rejected".into(),
        EventKind::SleepRequested { duration } => format!("sleep {duration}"),
        EventKind::SleepCancelled => "sleep_cancelled".into(),
        other => format!("{other:?}"),
    }
}

#[track_caller]
fn check(subject: &Contended, schedule: Schedule, expect: &[&str]) {
    let found = lines(subject, &schedule);
    assert_eq!(found, expect, "{schedule:?}");
    assert_eq!(lines(subject, &schedule), found, "the same case gave another trace");
}

#[test]
fn overlapping_calls_keep_their_own_events() {
    // Call 1 arrives while call 0's attempt runs; each event belongs to its call.
    let calls = vec![together(1, 0, 10).remove(0), together(1, 4, 10).remove(0)];
    check(
        &BULKHEAD,
        Schedule::new(calls),
        &[
            "0 c0 start",
            "0 c0 attempt",
            "4 c1 start",
            "4 c1 rejected",
            "4 c1 end Err(CircuitOpen)",
            "10 c0 done ok",
            "10 c0 end Ok",
        ],
    );
    // Arriving after the slot is free again, call 1 gets in.
    let calls = vec![together(1, 0, 10).remove(0), together(1, 10, 3).remove(0)];
    check(
        &BULKHEAD,
        Schedule::new(calls),
        &[
            "0 c0 start",
            "0 c0 attempt",
            "10 c1 start",
            "10 c0 done ok",
            "10 c0 end Ok",
            "10 c1 attempt",
            "13 c1 done ok",
            "13 c1 end Ok",
        ],
    );
}

#[test]
fn the_recorded_choices_order_tasks_ready_at_one_instant() {
    let first_come = [
        "0 c0 start",
        "0 c1 start",
        "0 c2 start",
        "0 c0 attempt",
        "0 c1 rejected",
        "0 c1 end Err(CircuitOpen)",
        "0 c2 rejected",
        "0 c2 end Err(CircuitOpen)",
        "5 c0 done ok",
        "5 c0 end Ok",
    ];
    check(&LEADER, Schedule::new(together(3, 0, 5)), &first_come);
    // Missing and zero entries pick the first: the same trace.
    check(&LEADER, Schedule::new(together(3, 0, 5)).with_interleave(vec![0, 0, 0, 0]), &first_come);
    // Entry 1 picks the second of [c0, c1, c2]; then entry 1 of [c0, c2] picks c2.
    check(
        &LEADER,
        Schedule::new(together(3, 0, 5)).with_interleave(vec![1, 1]),
        &[
            "0 c0 start",
            "0 c1 start",
            "0 c2 start",
            "0 c1 attempt",
            "0 c2 rejected",
            "0 c2 end Err(CircuitOpen)",
            "0 c0 rejected",
            "0 c0 end Err(CircuitOpen)",
            "5 c1 done ok",
            "5 c1 end Ok",
        ],
    );
    // Entries wrap around the tasks left: 5 % 3 picks c2.
    check(
        &LEADER,
        Schedule::new(together(3, 0, 5)).with_interleave(vec![5]),
        &[
            "0 c0 start",
            "0 c1 start",
            "0 c2 start",
            "0 c2 attempt",
            "0 c0 rejected",
            "0 c0 end Err(CircuitOpen)",
            "0 c1 rejected",
            "0 c1 end Err(CircuitOpen)",
            "5 c2 done ok",
            "5 c2 end Ok",
        ],
    );
}

#[test]
fn tasks_woken_by_timers_at_one_instant_are_ordered_by_the_case_too() {
    // Both calls sleep 2 ms from 0: their sleeps end together and the choice picks who leads.
    let sleepy = Contended { sleep_ms: 2, timeout_ms: None, release: false };
    let trace = |choices: Vec<u32>| lines(&sleepy, &Schedule::new(together(2, 0, 1)).with_interleave(choices));
    let leader = |lines: &[String]| lines.iter().find(|line| line.ends_with("attempt")).cloned();
    // At 0, choice 0 orders the two new calls; both record a sleep (progress), so choice 1 orders the
    // follow-up round; choice 2 orders the two tasks woken at 2 ms.
    assert_eq!(leader(&trace(vec![])), Some("2 c0 attempt".into()));
    assert_eq!(leader(&trace(vec![0, 0, 1])), Some("2 c1 attempt".into()));
    assert_eq!(leader(&trace(vec![1, 1, 0])), Some("2 c0 attempt".into()));
    assert_eq!(leader(&trace(vec![0, 1])), Some("2 c0 attempt".into()));
}

#[test]
fn sequential_schedules_run_one_call_after_another() {
    let calls = vec![
        CallScript::new(vec![Step::new(ms(4), Outcome::Transient)]),
        CallScript { gap_before: ms(3), ..CallScript::new(vec![Step::new(ms(2), Outcome::Ok)]) },
    ];
    check(
        &BULKHEAD,
        Schedule::new(calls),
        &[
            "0 c0 start",
            "0 c0 attempt",
            "4 c0 done transient",
            "4 c0 end Err(Transient)",
            "7 c1 start",
            "7 c1 attempt",
            "9 c1 done ok",
            "9 c1 end Ok",
        ],
    );
}

#[test]
fn timeouts_and_cancellations_cut_each_call_at_its_own_instants() {
    let timed = Contended { sleep_ms: 0, timeout_ms: Some(3), release: true };
    let slow = CallScript::new(vec![Step::new(ms(8), Outcome::Ok)]);
    let cancelled = CallScript { cancel_after: Some(ms(2)), ..slow.clone() };
    let calls = vec![cancelled.arriving(ms(0)), slow.arriving(ms(2))];
    check(
        &timed,
        Schedule::new(calls),
        &[
            "0 c0 start",
            "0 c0 attempt",
            "2 c1 start",
            "2 c0 cancelled",
            "2 c0 end Err(Cancelled)",
            "2 c1 attempt",
            "5 c1 timed_out",
            "5 c1 end Err(Timeout)",
        ],
    );
}

#[test]
fn a_hang_nothing_cuts_is_reported_for_its_call() {
    let calls = vec![
        CallScript::new(vec![Step::instant(Outcome::Ok)]).arriving(ms(0)),
        CallScript::new(vec![Step::instant(Outcome::Hang)]).arriving(ms(1)),
    ];
    let found = lines(&BULKHEAD, &Schedule::new(calls));
    assert_eq!(found.last().map(String::as_str), Some("end Aborted(Hung { call: 1, attempt: 1 })"), "{found:?}");
}

/// A subject that uses the sequential life cycle inside a concurrent task, or a call not in flight.
struct Misusing(bool);

impl Subject for Misusing {
    type Config = ();
    fn name(&self) -> &str {
        "misusing"
    }
    fn contract(&self, _: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
        let focus_unknown = self.0;
        let seen = Rc::new(RefCell::new(Vec::new()));
        run_async_calls(world, move |w, call| {
            let seen = Rc::clone(&seen);
            async move {
                seen.borrow_mut().push(call.index);
                if focus_unknown {
                    w.with(|w| w.focus(7))?;
                } else {
                    w.start_call()?;
                }
                Ok(CallResult::Ok)
            }
        })
    }
}

#[test]
fn misuse_is_detected() {
    let schedule = Schedule::new(together(2, 0, 0));
    let end = |subject: &Misusing| execute(subject, &(), &schedule, 0).end;
    assert_eq!(end(&Misusing(false)), TraceEnd::Aborted(Abort::Misuse(Misuse::CallNotEnded)));
    assert_eq!(end(&Misusing(true)), TraceEnd::Aborted(Abort::Misuse(Misuse::NotInFlight { call: 7 })));
}

#[test]
fn the_same_case_gives_the_same_trace_on_any_thread() {
    let schedule = Schedule::new(together(4, 0, 5)).with_interleave(vec![3, 1, 2]);
    let digest = execute(&LEADER, &(), &schedule, 0).digest();
    let digests: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| execute(&LEADER, &(), &schedule, 0).digest())).collect();
        handles.into_iter().map(|handle| handle.join().unwrap()).collect()
    });
    assert_eq!(digests, [digest; 4]);
}
